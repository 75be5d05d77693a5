//! Messages between the page (main thread) and the dedicated Worker.
//!
//! Both directions are plain serde enums, externally visible as
//! `{"type": "...", ...}` objects. On wasm32 they cross `postMessage` as
//! JS objects via `serde-wasm-bindgen` (see [`crate::wire`]); the same shape
//! round-trips through JSON, which the native tests check.

use serde::{Deserialize, Serialize};

/// Bumped whenever a message changes shape; page and worker must agree.
pub const PROTOCOL_VERSION: u32 = 2;

/// The crate version, shown by the page once the worker has answered.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Page -> Worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Ask the worker to (re)announce itself with [`FromWorker::Ready`].
    Hello { protocol: u32 },
    /// Fetch a model.jsonl and read it, streaming; answered by
    /// [`FromWorker::LoadProgress`]s, then [`FromWorker::ModelLoaded`] or
    /// [`FromWorker::ModelFailed`].
    LoadModelUrl { url: String },
    /// Plan a run over the loaded model as `codegraph-insights explain MODEL
    /// --dry-run` does with no flags (default options, no source, no
    /// records); answered by [`FromWorker::Planned`] or
    /// [`FromWorker::PlanFailed`]. The plan is dropped once summarised.
    PlanModel,
}

/// Worker -> Page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker is running; sent unasked at start-up and as the answer to
    /// [`ToWorker::Hello`].
    Ready { version: String, protocol: u32 },
    /// Something the page sent could not be handled.
    Error { message: String },
    /// Reading a model is under way: `bytes` of `total` (when known) read.
    LoadProgress { bytes: u64, total: Option<u64> },
    /// A model was read and is held by the worker.
    ModelLoaded { summary: ModelSummary },
    /// A model could not be read; nothing of it is kept.
    ModelFailed { error: LoadError },
    /// The loaded model was planned.
    Planned { summary: PlanSummary },
    /// The model could not be planned (none loaded, or the walk failed).
    PlanFailed { message: String },
}

/// What the page shows about a dry-run plan (the figures of
/// `explain --dry-run --json`'s totals, and what planning cost).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanSummary {
    pub units: u64,
    pub layers: u64,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Wall time of building the corpus (facts, units, walk) and planning, in milliseconds.
    pub millis: f64,
    /// Size of the worker's wasm memory after planning (also its peak so far).
    pub wasm_memory_bytes: u64,
}

impl PlanSummary {
    /// The page's one-line description of a plan.
    pub fn describe(&self) -> String {
        format!(
            "plan: {} units in {} layers, {} calls, {} prompt + {} completion tokens (estimated), planned in {:.2} s",
            self.units,
            self.layers,
            self.calls,
            self.prompt_tokens,
            self.completion_tokens,
            self.millis / 1000.0
        )
    }
}

/// What the page shows about a loaded model (never the model itself).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSummary {
    /// The name the model was loaded under (file name or URL).
    pub name: String,
    pub lang: String,
    pub bytes: u64,
    pub files: u64,
    pub entities: u64,
    pub edges: u64,
    pub corpus_types: u64,
    pub stub_types: u64,
    pub corpus_modules: u64,
    pub findings: u64,
    /// Wall time of fetching and reading, in milliseconds.
    pub millis: f64,
    /// Size of the worker's wasm memory after reading (it never shrinks, so
    /// this is also its peak).
    pub wasm_memory_bytes: u64,
}

impl ModelSummary {
    /// The page's one-line description of a loaded model.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} files, {} entities, {} edges ({} corpus types, {} stub types, {} modules), read in {:.2} s",
            self.name,
            self.files,
            self.entities,
            self.edges,
            self.corpus_types,
            self.stub_types,
            self.corpus_modules,
            self.millis / 1000.0
        )
    }
}

/// Why a model could not be read: where, and which rule it broke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadError {
    /// 1-based line; 0 when the error concerns the input as a whole.
    pub line: u64,
    /// The rule of the format that was broken (e.g. `reference-closure`), or
    /// `fetch` when the bytes could not be obtained.
    pub rule: String,
    /// The full message, `name:line: what was expected`.
    pub text: String,
}

impl From<&model::ModelError> for LoadError {
    fn from(e: &model::ModelError) -> Self {
        LoadError { line: e.line, rule: e.rule.as_str().to_owned(), text: e.to_string() }
    }
}

impl ModelSummary {
    /// The summary of a model just read.
    pub fn of(m: &model::Model, name: &str, bytes: u64, millis: f64, wasm_memory_bytes: u64) -> Self {
        let c = model::Census::of(m);
        ModelSummary {
            name: name.to_owned(),
            lang: m.lang().to_owned(),
            bytes,
            files: c.files,
            entities: c.entities,
            edges: c.edges,
            corpus_types: c.corpus_types,
            stub_types: c.stub_types,
            corpus_modules: c.corpus_modules,
            findings: m.findings().total(),
            millis,
            wasm_memory_bytes,
        }
    }
}

impl FromWorker {
    pub fn ready() -> Self {
        FromWorker::Ready { version: APP_VERSION.to_string(), protocol: PROTOCOL_VERSION }
    }
}

/// What the worker answers to one message from the page (pure, so it is
/// tested natively).
pub fn handle(msg: ToWorker) -> FromWorker {
    match msg {
        ToWorker::Hello { protocol } if protocol == PROTOCOL_VERSION => FromWorker::ready(),
        ToWorker::Hello { protocol } => FromWorker::Error {
            message: format!("protocol mismatch: page speaks {protocol}, worker speaks {PROTOCOL_VERSION}"),
        },
        ToWorker::LoadModelUrl { .. } => {
            FromWorker::Error { message: "loading is asynchronous and handled by the worker itself".into() }
        }
        ToWorker::PlanModel => {
            FromWorker::PlanFailed { message: "planning needs the model, which only the worker holds".into() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_a_type_tag() {
        let json = serde_json::to_value(ToWorker::Hello { protocol: 1 }).unwrap();
        assert_eq!(json, serde_json::json!({"type": "hello", "protocol": 1}));
        let json = serde_json::to_value(FromWorker::ready()).unwrap();
        assert_eq!(json["type"], "ready");
        assert_eq!(json["version"], APP_VERSION);
    }

    #[test]
    fn messages_round_trip() {
        for msg in [FromWorker::ready(), FromWorker::Error { message: "x".into() }] {
            let back: FromWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
            assert_eq!(back, msg);
        }
    }

    #[test]
    fn a_load_error_names_line_and_rule() {
        let e = model::read_model(&b"{\"t\":\"f\",\"i\":0,\"path\":\"a\"}\n"[..], "m.jsonl").unwrap_err();
        let le = LoadError::from(&e);
        assert_eq!(le.line, 1);
        assert_eq!(le.rule, "section-order");
        assert_eq!(le.text, "m.jsonl:1: file is on line 1, but line 1 must be the header record");
        let msg = FromWorker::ModelFailed { error: le };
        let back: FromWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
        assert_eq!(back, msg);
    }

    #[test]
    fn a_summary_describes_the_fixture() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/upstream-java/model.jsonl");
        let m = model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap();
        let s = ModelSummary::of(&m, "model.jsonl", 1, 1500.0, 2 << 20);
        assert_eq!(
            s.describe(),
            "model.jsonl: 16 files, 179 entities, 188 edges (19 corpus types, 20 stub types, 3 modules), read in 1.50 s"
        );
    }

    #[test]
    fn plan_messages_round_trip() {
        let json = serde_json::to_value(ToWorker::PlanModel).unwrap();
        assert_eq!(json, serde_json::json!({"type": "plan_model"}));
        let back: ToWorker = serde_json::from_value(json).unwrap();
        assert_eq!(back, ToWorker::PlanModel);
        let summary = PlanSummary {
            units: 77,
            layers: 9,
            calls: 68,
            prompt_tokens: 40_000,
            completion_tokens: 20_000,
            millis: 1250.0,
            wasm_memory_bytes: 3 << 20,
        };
        for msg in [FromWorker::Planned { summary: summary.clone() }, FromWorker::PlanFailed { message: "x".into() }] {
            let back: FromWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
            assert_eq!(back, msg);
        }
        let json = serde_json::to_value(FromWorker::Planned { summary: summary.clone() }).unwrap();
        assert_eq!(json["type"], "planned");
        assert_eq!(json["summary"]["wasm_memory_bytes"], 3 << 20);
        assert_eq!(
            summary.describe(),
            "plan: 77 units in 9 layers, 68 calls, 40000 prompt + 20000 completion tokens (estimated), planned in 1.25 s"
        );
    }

    #[test]
    fn hello_is_answered_with_ready_or_a_mismatch() {
        assert_eq!(handle(ToWorker::Hello { protocol: PROTOCOL_VERSION }), FromWorker::ready());
        assert!(matches!(handle(ToWorker::Hello { protocol: PROTOCOL_VERSION + 1 }), FromWorker::Error { .. }));
    }
}
