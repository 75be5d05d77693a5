//! `codegraph-insights model check MODEL [--json]`.

use crate::Failure;
use model::{Census, Findings, Model, ModelError};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum ModelCommand {
    /// Validate a model.jsonl against every rule of the format and print what it holds.
    ///
    /// Exit 0 when the model is valid (findings are listed but do not fail it),
    /// 2 when it is not, naming the line and the rule.
    Check {
        /// The model file (model.jsonl).
        model: PathBuf,
        /// Print one JSON object instead of the text report.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: ModelCommand) -> Result<(), Failure> {
    match cmd {
        ModelCommand::Check { model, json } => check(&model, json),
    }
}

fn check(path: &std::path::Path, json: bool) -> Result<(), Failure> {
    let name = crate::input::display_name(path);
    match crate::input::read_model_file(path) {
        Ok(m) => {
            let census = Census::of(&m);
            if json {
                crate::output::emit(
                    &(serde_json::to_string(&CheckJson::valid(&name, &m, &census)).expect("serializable") + "\n"),
                );
            } else {
                crate::output::emit(&text_report(&name, &m, &census));
            }
            Ok(())
        }
        Err(e) if json => {
            crate::output::emit(&(serde_json::to_string(&CheckJson::invalid(&name, &e)).expect("serializable") + "\n"));
            crate::say!("codegraph-insights: {e}");
            Err(Failure::Exit(2))
        }
        Err(e) => Err(Failure::Usage(e.to_string())),
    }
}

/// A name → count map written in descending count, then name order.
struct Ranked<'a>(&'a BTreeMap<String, u64>);

impl Serialize for Ranked<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ranked = Census::ranked(self.0);
        let mut map = s.serialize_map(Some(ranked.len()))?;
        for (k, v) in ranked {
            map.serialize_entry(k, &v)?;
        }
        map.end()
    }
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckJson<'a> {
    kind: &'static str,
    model: &'a str,
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorJson<'a>>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    body: Option<BodyJson<'a>>,
}

#[derive(serde::Serialize)]
struct ErrorJson<'a> {
    line: u64,
    record: Option<&'static str>,
    rule: &'static str,
    message: &'a str,
    text: String,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct BodyJson<'a> {
    lang: &'a str,
    files: u64,
    entities: u64,
    edges: u64,
    kinds: Ranked<'a>,
    edge_kinds: Ranked<'a>,
    provenance: Ranked<'a>,
    corpus: Split,
    stub: Split,
    findings: Vec<FindingJson<'a>>,
    finding_counts: BTreeMap<&'static str, u64>,
}

#[derive(serde::Serialize)]
struct Split {
    types: u64,
    modules: u64,
}

#[derive(serde::Serialize)]
struct FindingJson<'a> {
    line: u64,
    kind: &'static str,
    message: &'a str,
}

const KIND: &str = "codegraph-insights.modelCheck/1";

impl<'a> CheckJson<'a> {
    fn valid(name: &'a str, m: &'a Model, c: &'a Census) -> Self {
        let f: &Findings = m.findings();
        CheckJson {
            kind: KIND,
            model: name,
            valid: true,
            error: None,
            body: Some(BodyJson {
                lang: m.lang(),
                files: c.files,
                entities: c.entities,
                edges: c.edges,
                kinds: Ranked(&c.kinds),
                edge_kinds: Ranked(&c.edge_kinds),
                provenance: Ranked(&c.provenance),
                corpus: Split { types: c.corpus_types, modules: c.corpus_modules },
                stub: Split { types: c.stub_types, modules: c.stub_modules },
                findings: f
                    .kept
                    .iter()
                    .map(|x| FindingJson { line: x.line, kind: x.kind.as_str(), message: &x.message })
                    .collect(),
                finding_counts: f.counts.iter().map(|(k, n)| (k.as_str(), *n)).collect(),
            }),
        }
    }

    fn invalid(name: &'a str, e: &'a ModelError) -> Self {
        CheckJson {
            kind: KIND,
            model: name,
            valid: false,
            error: Some(ErrorJson {
                line: e.line,
                record: e.record.map(|r| r.as_str()),
                rule: e.rule.as_str(),
                message: &e.message,
                text: e.to_string(),
            }),
            body: None,
        }
    }
}

fn text_report(name: &str, m: &Model, c: &Census) -> String {
    let mut out = String::new();
    let h = m.header();
    let extractor: serde_json::Value = serde_json::from_str(&h.extractor).unwrap_or_default();
    let ex = |k: &str| extractor.get(k).and_then(|v| v.as_str()).unwrap_or("?").to_owned();
    let _ = writeln!(out, "{name}: valid model");
    let _ = writeln!(out, "  lang {}, extractor {} {}, root {}", h.lang, ex("name"), ex("version"), h.root);
    let _ = writeln!(out, "  files     {:>9}", c.files);
    let _ = writeln!(out, "  entities  {:>9}", c.entities);
    let _ = writeln!(out, "  edges     {:>9}", c.edges);
    let _ = writeln!(out, "  types     {:>9} corpus, {} stub", c.corpus_types, c.stub_types);
    let _ = writeln!(out, "  modules   {:>9} corpus, {} stub", c.corpus_modules, c.stub_modules);
    for (title, map) in [("entity kinds", &c.kinds), ("edge kinds", &c.edge_kinds), ("provenance", &c.provenance)] {
        let _ = writeln!(out, "{title}");
        for (k, n) in Census::ranked(map) {
            let _ = writeln!(out, "  {k:<26}{n:>9}");
        }
    }
    let f = m.findings();
    if f.is_empty() {
        let _ = writeln!(out, "findings: none");
    } else {
        let _ = writeln!(out, "findings: {} (the model is usable; these are worth a look)", f.total());
        for x in &f.kept {
            let _ = writeln!(out, "  {name}:{}: {}: {}", x.line, x.kind.as_str(), x.message);
        }
        if f.not_kept() > 0 {
            let _ = writeln!(out, "  … and {} more", f.not_kept());
        }
    }
    out
}
