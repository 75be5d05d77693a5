//! Messages between the page (main thread) and the dedicated Worker.
//!
//! Both directions are plain serde enums, externally visible as
//! `{"type": "...", ...}` objects. On wasm32 they cross `postMessage` as
//! JS objects via `serde-wasm-bindgen` (see [`crate::wire`]); the same shape
//! round-trips through JSON, which the native tests check.
//!
//! Messages stay small: the model, the plan's rows and the records live in
//! the Worker; the page asks for one page of rows at a time. Files picked
//! or dropped travel beside a message as JS objects (`file`, `files`), never
//! through serde. A provider key travels page → Worker only where the
//! Worker needs it to call the provider: in [`RunRequest`], and in the model
//! list and price reads of a server that wants one (OpenRouter's list is
//! public: the page blanks its key); its `Debug` is redacted and it is never
//! sent back.

use insights::report::grouped;
use serde::{Deserialize, Serialize};

/// The most scope suggestions sent at once.
pub const MAX_SUGGESTIONS: usize = 20;

/// Bumped whenever a message changes shape; page and worker must agree.
pub const PROTOCOL_VERSION: u32 = 10;

/// The crate version, shown by the page once the worker has answered.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Page -> Worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Ask the worker to (re)announce itself with [`FromWorker::Ready`].
    Hello { protocol: u32 },
    /// Fetch a model.jsonl and read it, streaming; answered by
    /// [`FromWorker::LoadProgress`]es, then [`FromWorker::ModelLoaded`] (and
    /// [`FromWorker::StoreOpened`]) or [`FromWorker::ModelFailed`].
    LoadModelUrl { url: String },
    /// Read the `File` carried beside this message (key `file`) as a model.
    LoadModelFile { name: String },
    /// Fetch a source archive (zip, tar, tar.gz).
    LoadSourceUrl { url: String },
    /// Read the `File` carried beside this message as a source archive.
    LoadSourceFile { name: String },
    /// Read the `File`s carried beside this message (key `files`, each with
    /// its `webkitRelativePath`) as a source folder.
    LoadSourceFolder { name: String },
    /// Plan with these settings against the store; answered by
    /// [`FromWorker::Planned`] (then the page asks for rows) or
    /// [`FromWorker::PlanFailed`].
    Plan { settings: PlanSettings },
    /// One page of the last plan's table.
    PlanRows { query: RowQuery },
    /// Run the plan for real (after the page's confirmation).
    Run { request: RunRequest },
    /// Ask the provider's model list for `model`'s prices; answered by [`FromWorker::ModelPrices`].
    FetchPrices { provider: ProviderSettings, model: String },
    /// Read the provider's model list (ids, and prices where it lists
    /// them); answered by [`FromWorker::ProviderModels`].
    FetchModels {
        provider: ProviderSettings,
        /// Which list the page asked for; sent back, so an answer to an
        /// older question is told apart.
        asked_for: String,
    },
    /// Module and type ids containing `text` (for the scope picker); answered
    /// by [`FromWorker::ScopeSuggestions`].
    SuggestScope { text: String },
    /// Hold new calls (calls in flight finish).
    Pause,
    /// Let calls go again after [`ToWorker::Pause`].
    Resume,
    /// Stop the run: calls in flight finish and are committed; nothing else is begun.
    Stop,
    /// The side-car of the store as it stands, as [`FromWorker::Sidecar`].
    ExportSidecar,
    /// Import the side-car `File` carried beside this message. With
    /// `replace: false` a store holding records answers
    /// [`FromWorker::ImportNeedsConfirm`] and changes nothing.
    ImportSidecar { name: String, replace: bool },
    /// The stores kept in this browser.
    ListStores,
    /// Delete a store (not the open one while a run is going).
    DeleteStore { name: String },
    /// A store's SQLite file, as [`FromWorker::StoreFile`].
    ExportStore { name: String },
    /// A window of the navigator's tree as it is expanded now.
    NavRows { offset: u64, limit: u64, show_stubs: bool },
    /// Expand a collapsed node or collapse an expanded one (then the page asks for rows again).
    NavToggle { node: u32 },
    /// Names and signatures containing `query` (capped at [`NAV_SEARCH_CAP`]).
    NavSearch { query: String },
    /// Select a node (by node or entity id): its ancestors are expanded; answered by
    /// [`FromWorker::NavSelected`] or, for an id the model does not have, [`FromWorker::NavMissing`].
    NavSelect { target: NavTarget, show_stubs: bool },
    /// The selection's dependency rows, `limit` per role group.
    NavDeps { node: u32, limit: u64 },
    /// The neighbourhood of a node, or the module overview when `node` is
    /// `None`; externals (stub nodes) drawn only when `externals`.
    NavGraph {
        node: Option<u32>,
        #[serde(default)]
        externals: bool,
    },
    /// A window of the Cycles list (rows of one height, [`crate::cycles`]);
    /// answered by [`FromWorker::CycleRows`], once the list is built (a
    /// request while it is being prepared waits for it).
    CycleRows { offset: u64, limit: u64 },
    /// Full-text search over the explanations in the store.
    TextSearch { query: String },
    /// A compact map of the code for a question; `flag` is the address's
    /// `?mode=`, `setting` the user's choice (a `mode:` word in the question wins).
    Explore { question: String, flag: Option<String>, setting: Option<String> },
    /// The domain view of the loaded model and its store; answered by
    /// [`FromWorker::Domain`].
    Domain,
    /// The domain view as Markdown files in a zip; answered by
    /// [`FromWorker::DomainZip`].
    DomainZip,
}

/// The Domain tab's data: the view, its context map laid out (node `k` is
/// `view.contexts[k]`), and what building it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DomainShown {
    pub view: domain::DomainView,
    pub map: navigator::GraphView,
    /// Edges between drawn contexts left out (each context keeps its strongest).
    pub hidden_edges: u64,
    pub millis: f64,
    /// Where `millis` went: `(facts | records | view | map, ms)`.
    pub phases: Vec<(String, f64)>,
    /// Why records could not be checked against the code, when they could not.
    pub unchecked: Option<String>,
}

/// A navigator selection: the node, its dependency view, its explanation, and its row in the tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Selected {
    pub node: navigator::NodeView,
    /// The entity's documentation comment from the source, verbatim (corpus text: shown as text).
    pub doc: Option<String>,
    pub deps: navigator::DepView,
    pub insight: crate::insight::InsightView,
    pub row: Option<u64>,
}

/// A symbol of a map, with its navigator node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapSymbol {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub node: Option<u32>,
    /// `file:line`, when the model has it.
    #[serde(default)]
    pub anchor: Option<String>,
    /// The one-line explanation, if one was bought (generated text).
    pub explanation: Option<String>,
    pub stale: bool,
}

/// A symbol an explore map points at, with its navigator node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapLink {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub node: Option<u32>,
    /// `file:line`, when the model has it.
    pub anchor: Option<String>,
}

/// One relation of a blast radius: `4 invokers in 2 files` and their names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlastGroupView {
    pub label: String,
    pub names: Vec<String>,
    /// Names beyond the map's cap.
    pub more: u64,
}

/// What depends on one symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlastView {
    pub root: MapLink,
    pub groups: Vec<BlastGroupView>,
}

/// A call into a method with implementations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DispatchView {
    pub caller: Option<MapLink>,
    pub callee: MapLink,
    pub supertype: String,
    pub implementations: Vec<MapLink>,
    pub more: u64,
}

/// Edges of one kind among the listed symbols.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationView {
    /// How the map says the kind (`calls`).
    pub label: String,
    /// `from → to`, by qualified names.
    pub pairs: Vec<(String, String)>,
    /// Pairs left out.
    pub more: u64,
}

/// The map's structure, for the page to show as lists with links (the
/// Markdown stays for "copy as Markdown").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapOutline {
    pub matched: u64,
    pub files: u64,
    pub not_found: Vec<String>,
    pub notes: Vec<String>,
    /// The call path: how each step is reached (`calls`, `dispatch`; none on the first).
    pub flow: Vec<(Option<String>, MapLink)>,
    pub other_paths: u64,
    pub blast: Vec<BlastView>,
    pub blast_more: u64,
    pub dispatch: Vec<DispatchView>,
    /// Edges among the listed symbols, by kind.
    pub relationships: Vec<RelationView>,
    /// Names of the first symbols not listed.
    pub more: Vec<String>,
}

/// An explore answer, as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreAnswer {
    pub question: String,
    pub mode: String,
    pub markdown: String,
    pub symbols: Vec<MapSymbol>,
    #[serde(default)]
    pub outline: MapOutline,
    pub chars: u64,
    pub tokens: u64,
    /// Answering (index included when it had to be built), in milliseconds.
    pub millis: f64,
    /// Building the index first, when this answer did (0 otherwise).
    pub index_millis: f64,
}

/// What to select in the navigator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NavTarget {
    Node(u32),
    Id(String),
}

/// Search hits in the tree at most.
pub const NAV_SEARCH_CAP: usize = 200;
/// Dependency rows per role group per page ("Show N more").
pub const NAV_DEPS_PAGE: u64 = 200;
/// Rows per role group when a node is selected: a node with thousands of
/// rows shows its first rows within a frame; the rest come by pages.
pub const NAV_DEPS_FIRST: u64 = 50;
/// Nodes drawn in a graph at most.
pub const NAV_GRAPH_NODES: usize = 120;

/// One full-text hit among the explanations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextHitView {
    pub id: String,
    pub level: String,
    pub name: Option<String>,
    pub concept: Option<String>,
    /// The matching text, the match between « and ».
    pub snippet: String,
    /// The navigator node of the id, when the model has it.
    pub node: Option<u32>,
}

/// Worker -> Page, externally tagged: `{ "<kind>": { … } }`. (An internally
/// tagged enum makes the deserializer buffer every message into serde's
/// `Content` first, and that code alone was a fifth of the page's wasm; the
/// page deserializes these, the Worker only writes them.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker is running; sent unasked at start-up and as the answer to
    /// [`ToWorker::Hello`].
    Ready {
        version: String,
        protocol: u32,
    },
    /// Something the page sent could not be handled.
    Error {
        message: String,
    },
    /// Reading an input is under way: `bytes` of `total` (when known) read.
    LoadProgress {
        input: Input,
        bytes: u64,
        total: Option<u64>,
    },
    /// A model was read and is held by the worker.
    ModelLoaded {
        summary: ModelSummary,
    },
    /// A model could not be read; nothing of it is kept.
    ModelFailed {
        error: LoadError,
    },
    /// A source archive or folder was read and matched against the model.
    SourceLoaded {
        summary: SourceSummary,
    },
    /// A source archive or folder could not be used; the model stays loaded.
    SourceFailed {
        message: String,
    },
    /// The store of the loaded model was opened (or could not be written).
    StoreOpened {
        store: StoreStatus,
    },
    /// The loaded model was planned.
    Planned {
        plan: PlanView,
    },
    /// The model could not be planned (none loaded, a bad setting, …).
    PlanFailed {
        message: String,
    },
    /// One page of the plan's table.
    PlanRows {
        page: RowPage,
    },
    /// `model`'s prices from the provider's model list (`None` with the reason when it lists none).
    ModelPrices {
        model: String,
        prices: Option<Prices>,
        message: Option<String>,
    },
    /// The provider's model list (empty, with the reason, when it has none
    /// or it could not be read). `provider` names the provider asked.
    ProviderModels {
        provider: String,
        /// The request's `asked_for`.
        asked_for: String,
        models: Vec<ListedModel>,
        message: Option<String>,
    },
    /// Module and type ids for the scope picker (at most [`MAX_SUGGESTIONS`]), and how many matched.
    ScopeSuggestions {
        text: String,
        ids: Vec<String>,
        matching: u64,
    },
    /// A run is under way (sent as units finish, at most every ~100 ms).
    RunProgress {
        progress: RunProgress,
    },
    /// A run ended (finished, stopped, or refused by the provider).
    RunFinished {
        report: RunReport,
    },
    /// A run could not start (no model, a store error, a missing key, …).
    RunFailed {
        message: String,
    },
    /// The side-car, for the page to offer as a download.
    Sidecar {
        file_name: String,
        text: String,
        records: u64,
    },
    /// Importing would replace paid-for records, or the side-car is cut
    /// short (`truncated` says why; confirmed, it is merged, never
    /// replacing): the page must ask first.
    ImportNeedsConfirm {
        held: u64,
        incoming: u64,
        name: String,
        #[serde(default)]
        truncated: Option<String>,
        /// Why the side-car seems to be another model's, if it does.
        #[serde(default)]
        foreign: Option<String>,
    },
    /// A side-car was imported into the store (`merged`: added to what it
    /// held, nothing removed).
    Imported {
        records: u64,
        failures: u64,
        #[serde(default)]
        merged: bool,
    },
    /// A side-car could not be imported; the store is unchanged.
    ImportFailed {
        message: String,
    },
    /// The stores kept in this browser.
    Stores {
        stores: Vec<StoreInfo>,
    },
    /// A store's SQLite file travels beside this message (key `bytes`).
    StoreFile {
        name: String,
    },
    /// The Worker has begun preparing `what` (`navigator`, `cycles`) for
    /// the loaded model, in its idle time after the load (and the plan).
    NavPreparing {
        what: String,
    },
    /// The navigator of the loaded model is built.
    NavReady {
        nodes: u64,
        deps: u64,
        millis: f64,
    },
    /// A window of the tree; `total` visible rows in all; `select` is the row of the selection, if visible.
    NavRows {
        offset: u64,
        total: u64,
        rows: Vec<navigator::TreeRow>,
    },
    NavSearch {
        query: String,
        result: navigator::SearchResult,
    },
    /// The selection: the node, its dependency view, its explanation, and its row in the tree.
    NavSelected {
        selection: Box<Selected>,
    },
    /// The model has no such entity (a stale link).
    NavMissing {
        id: String,
    },
    NavDeps {
        deps: navigator::DepView,
    },
    NavGraph {
        graph: navigator::GraphView,
    },
    /// A window of the Cycles list: `total` rows in all, `cycles` cycles in all levels.
    CycleRows {
        offset: u64,
        total: u64,
        cycles: u64,
        rows: Vec<crate::cycles::CycleRow>,
    },
    /// The map for a question: its Markdown (what "copy" copies), the listed
    /// symbols for links into the navigator, its size, and what answering cost.
    Explored {
        answer: ExploreAnswer,
    },
    /// Full-text hits (`message` when the search could not run).
    TextHits {
        query: String,
        hits: Vec<TextHitView>,
        message: Option<String>,
    },
    /// The domain view (or why there is none).
    Domain {
        shown: Result<Box<DomainShown>, String>,
    },
    /// The domain view's Markdown zip travels beside this message (key `bytes`).
    DomainZip {
        name: String,
    },
}

/// Which input a [`FromWorker::LoadProgress`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    Model,
    Source,
}

/// The settings of a plan (the planning flags of `explain`): the engine's
/// type, so the page and the CLI check and resolve them the same way.
pub use insights::settings::PlanSettings;

/// Figures of one level, layer or the whole plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    pub units: u64,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// What the page shows of a plan: totals, per level, per layer, per status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanView {
    pub settings: PlanSettings,
    pub total: Figures,
    pub layers: u64,
    /// `operation`, `type`, `module`, in that order.
    pub by_level: Vec<(String, Figures)>,
    /// Index = layer.
    pub by_layer: Vec<Figures>,
    /// `llm`, `template`, `reuse`, `skip-scope`, `skip-budget`: units.
    pub by_status: Vec<(String, u64)>,
    /// Type-level and module-level cycles (units of two or more members).
    pub cycles: u64,
    /// The text of `explain --estimate`.
    pub estimate_text: String,
    /// Lines worth telling (source files not found, a scope, …).
    pub notes: Vec<String>,
    /// With no source loaded: the call-needing units that have source
    /// anchors, which a run would explain from the model's facts alone (the
    /// confirmation says so; 0 when source is loaded).
    #[serde(default)]
    pub facts_only_units: u64,
    /// Wall time of building the corpus and planning, in milliseconds.
    pub millis: f64,
    /// Size of the worker's wasm memory after planning (also its peak so far).
    pub wasm_memory_bytes: u64,
}

impl PlanView {
    /// The page's one-line description of a plan.
    pub fn describe(&self) -> String {
        format!(
            "plan: {} units in {} layers, {} calls, {} prompt + {} completion tokens (estimated), planned in {:.2} s",
            grouped(self.total.units),
            grouped(self.layers),
            grouped(self.total.calls),
            grouped(self.total.prompt_tokens),
            grouped(self.total.completion_tokens),
            self.millis / 1000.0
        )
    }

    /// Units of a status.
    pub fn status(&self, status: &str) -> u64 {
        self.by_status.iter().find(|(s, _)| s == status).map_or(0, |(_, n)| *n)
    }

    /// The estimated cost in USD at these prices per million tokens.
    pub fn cost(&self, prices: Option<Prices>) -> Option<f64> {
        let p = prices?;
        insights::estimate::cost(self.total.prompt_tokens, self.total.completion_tokens, p.input, p.output)
    }
}

/// Prices per million tokens, in USD.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
}

/// A model of a provider's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedModel {
    pub id: String,
    pub prices: Option<Prices>,
}

/// Which rows of the plan's table to send.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowQuery {
    pub offset: u64,
    pub limit: u64,
    /// `operation`, `type` or `module`; `None`: all.
    pub level: Option<String>,
    /// A step status (`llm`, `template`, …); `None`: all.
    pub status: Option<String>,
    /// Case-insensitive substring of the unit id; empty: all.
    pub text: String,
}

/// One row of the plan's table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanRow {
    /// Position in walk order (0-based).
    pub step: u64,
    pub layer: u32,
    pub level: String,
    pub unit: String,
    /// Members of the unit's cycle (1 off-cycle).
    pub members: u32,
    pub status: String,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// One page of rows, with how many match the query in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowPage {
    pub query: RowQuery,
    pub matching: u64,
    pub rows: Vec<PlanRow>,
}

/// Who answers the prompts.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ProviderSettings {
    /// The offline demo: canned answers, no network, not an LLM.
    Demo,
    OpenRouter {
        key: String,
    },
    /// Cloudflare AI Gateway's OpenAI-compatible route.
    CloudflareGateway {
        token: String,
        account: String,
        gateway: String,
    },
    /// Any OpenAI-compatible base URL (a local server, a proxy); the key is optional.
    OpenaiCompatible {
        base_url: String,
        key: String,
    },
}

impl std::fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redact = |s: &str| if s.is_empty() { "<none>" } else { "<redacted>" };
        match self {
            ProviderSettings::Demo => write!(f, "Demo"),
            ProviderSettings::OpenRouter { key } => write!(f, "OpenRouter {{ key: {} }}", redact(key)),
            ProviderSettings::CloudflareGateway { token, account, gateway } => write!(
                f,
                "CloudflareGateway {{ token: {}, account: {account:?}, gateway: {gateway:?} }}",
                redact(token)
            ),
            ProviderSettings::OpenaiCompatible { base_url, key } => {
                write!(f, "OpenaiCompatible {{ base_url: {base_url:?}, key: {} }}", redact(key))
            }
        }
    }
}

impl ProviderSettings {
    /// The provider's name, as the side-car header records it.
    pub fn name(&self) -> &'static str {
        match self {
            ProviderSettings::Demo => "demo",
            ProviderSettings::OpenRouter { .. } => "openrouter",
            ProviderSettings::CloudflareGateway { .. } => "cloudflare",
            ProviderSettings::OpenaiCompatible { .. } => "openai-compatible",
        }
    }

    /// What is missing before this provider can be called, if anything
    /// (one sentence of [`Self::missing_fields`]).
    pub fn missing(&self) -> Option<String> {
        let what: Vec<&str> = self.missing_fields().into_iter().map(|(_, what)| what).collect();
        if what.is_empty() {
            return None;
        }
        Some(match self {
            ProviderSettings::CloudflareGateway { .. } => format!("Cloudflare AI Gateway needs {}", what.join(", ")),
            _ => what.join(", "),
        })
    }

    /// What is missing, field by field: `(the page's input id, what it
    /// needs)`, so the page says it beside the control. The one rule table
    /// of what a provider needs.
    pub fn missing_fields(&self) -> Vec<(&'static str, &'static str)> {
        let empty = |s: &str| s.trim().is_empty();
        match self {
            ProviderSettings::Demo => vec![],
            ProviderSettings::OpenRouter { key } if empty(key) => vec![("provider-key", "an OpenRouter API key")],
            ProviderSettings::OpenRouter { .. } => vec![],
            ProviderSettings::CloudflareGateway { token, account, gateway } => [
                (token, "provider-key", "an API token"),
                (account, "provider-account", "an account id"),
                (gateway, "provider-gateway", "a gateway id"),
            ]
            .into_iter()
            .filter(|(v, _, _)| empty(v))
            .map(|(_, id, what)| (id, what))
            .collect(),
            ProviderSettings::OpenaiCompatible { base_url, .. }
                if !(base_url.trim().starts_with("http://") || base_url.trim().starts_with("https://")) =>
            {
                vec![("provider-base-url", "a base URL starting with http:// or https://")]
            }
            ProviderSettings::OpenaiCompatible { .. } => vec![],
        }
    }

    /// The provider's typed configuration from these fields (`None`: the
    /// offline demo); what is missing is said first ([`Self::missing`]).
    pub fn config(&self) -> Result<Option<llm::ProviderConfig>, String> {
        if let Some(missing) = self.missing() {
            return Err(format!("the provider needs {missing}"));
        }
        Ok(Some(match self {
            ProviderSettings::Demo => return Ok(None),
            ProviderSettings::OpenRouter { key } => llm::ProviderConfig::openrouter(key.trim()),
            ProviderSettings::CloudflareGateway { token, account, gateway } => {
                llm::ProviderConfig::cloudflare_gateway(token.trim(), account, gateway)
            }
            ProviderSettings::OpenaiCompatible { base_url, key } => {
                llm::ProviderConfig::openai_compatible(base_url.trim(), Some(key.as_str()))?
            }
        }))
    }
}

/// Everything a run needs beyond the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    pub settings: PlanSettings,
    pub provider: ProviderSettings,
    /// Calls in flight at once (≥ 1).
    pub concurrency: u32,
    /// Output cap per answer; `None`: the provider's default.
    pub max_tokens: Option<u32>,
    pub prices: Option<Prices>,
    /// `detect` (negotiate with the endpoint) or a mode name of
    /// `llm::OutputMode::CHOICES`, as the CLI's `--output-mode`.
    #[serde(default = "detect")]
    pub output_mode: String,
}

fn detect() -> String {
    llm::wire::DETECT.to_owned()
}

/// What the page shows of a run so far (or at its end): progress over the
/// plan's steps. Unlike the engine's `insights::run::RunCounts` (whose `llm`
/// counts records), `llm` here counts units, as the progress bar does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ProgressCounts {
    /// Steps finished, of `total`.
    pub done: u64,
    pub total: u64,
    /// Units explained by a model in this run.
    pub llm: u64,
    pub template: u64,
    pub reused: u64,
    pub failed: u64,
    /// Skipped by scope or budget, not attempted after a refusal, or not begun after a stop.
    pub skipped: u64,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// USD, when the provider reports it or prices were given.
    pub cost: Option<f64>,
}

/// A run under way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    pub counts: ProgressCounts,
    /// Index = layer: (steps finished, steps).
    pub layers: Vec<(u64, u64)>,
    /// The newest finished steps, newest last (at most 8), as progress lines.
    pub recent: Vec<String>,
    /// Units whose calls are in flight.
    pub in_flight: Vec<String>,
    pub paused: bool,
    pub stopping: bool,
    /// The structured-output mode now used and how it was reached (e.g.
    /// `json-object-schema (json-schema refused: HTTP 500: …)`), once known.
    #[serde(default)]
    pub output_mode: Option<String>,
}

/// A failure, as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureView {
    pub id: String,
    pub level: String,
    pub kind: String,
    pub status: Option<u16>,
    pub message: String,
}

/// Why a provider refused the run, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbortView {
    pub unit: String,
    pub status: Option<u16>,
    pub message: String,
    pub advice: String,
    pub not_attempted: u64,
}

/// The end of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub counts: ProgressCounts,
    /// Records the store holds now.
    pub records: u64,
    pub failures: Vec<FailureView>,
    pub aborted: Option<AbortView>,
    pub stopped: bool,
    /// Writes the store refused (those units are owed again).
    pub store_errors: Vec<String>,
    pub millis: f64,
    /// `(model, output mode)` the answers came back in.
    #[serde(default)]
    pub output_modes: Vec<(String, String)>,
    /// The explained type to open the results on: the most connected one
    /// the store holds an explanation for.
    #[serde(default)]
    pub highlight: Option<String>,
}

/// The store of the loaded model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoreStatus {
    /// The store's name in this browser.
    pub name: String,
    pub records: u64,
    pub failures: u64,
    /// Runs that ended without finishing (a closed tab): their commits are kept.
    pub interrupted: u64,
    /// Why this tab cannot write (another tab holds the stores), if so.
    pub read_only: Option<String>,
}

/// A store kept in this browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreInfo {
    pub name: String,
    pub bytes: u64,
    /// The store of the loaded model.
    pub current: bool,
}

/// What the page shows about a matched source archive or folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSummary {
    pub name: String,
    /// Files in the archive or folder.
    pub files: u64,
    /// The model's files found in it, of `wanted`.
    pub matched: u64,
    pub wanted: u64,
    /// The folder inside the archive the model's paths are relative to (`""`: its top).
    pub root: String,
}

impl SourceSummary {
    pub fn describe(&self) -> String {
        let root = if self.root.is_empty() { "the top level".to_owned() } else { format!("{:?}", self.root) };
        format!(
            "{}: {} files, rooted at {root}: {} of the model's {} files found",
            self.name,
            grouped(self.files),
            grouped(self.matched),
            grouped(self.wanted)
        )
    }
}

/// What the page shows about a loaded model (never the model itself).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSummary {
    /// The name the model was loaded under (file name or URL).
    pub name: String,
    pub lang: String,
    pub root: String,
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
            grouped(self.files),
            grouped(self.entities),
            grouped(self.edges),
            grouped(self.corpus_types),
            grouped(self.stub_types),
            grouped(self.corpus_modules),
            self.millis / 1000.0
        )
    }

    /// The summary of a model just read.
    pub fn of(m: &model::Model, name: &str, bytes: u64, millis: f64, wasm_memory_bytes: u64) -> Self {
        let c = model::Census::of(m);
        ModelSummary {
            name: name.to_owned(),
            lang: m.lang().to_owned(),
            root: m.header().root.clone(),
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

impl FromWorker {
    pub fn ready() -> Self {
        FromWorker::Ready { version: APP_VERSION.to_string(), protocol: PROTOCOL_VERSION }
    }
}

/// The answer to a [`ToWorker::Hello`] (pure, so it is tested natively).
pub fn hello(protocol: u32) -> FromWorker {
    if protocol == PROTOCOL_VERSION {
        FromWorker::ready()
    } else {
        FromWorker::Error {
            message: format!("protocol mismatch: page speaks {protocol}, worker speaks {PROTOCOL_VERSION}"),
        }
    }
}

#[cfg(test)]
mod tests;
