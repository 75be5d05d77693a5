//! The dedicated Worker: owns all state (the model, the sources, the plan,
//! the run and the store, in [`State`]) and talks to the page only through
//! [`web::protocol`] messages. The pure parts of what it does are in
//! [`crate::planning`] and [`crate::progress`]; these modules are the wiring
//! to the browser (fetch, files, OPFS, Web Locks, timers), one per concern,
//! mirroring the page's panels in `app/`: `load`, `plan`, `run`, `keep`,
//! `navigate`, `explore`. This file holds the state, the message loop and
//! the dispatch (`handle`).

use crate::planning::{self, PlanTable};
use crate::progress::{in_flight_label, Progress};
use insights::complete::{Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
use insights::records::{NoRecords, RecordSource};
use insights::run::StepEvent;
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use sources::SourceReader;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web::protocol::{
    FromWorker, Input, LoadError, ModelSummary, PlanSettings, RowQuery, RunRequest, SourceSummary, StoreInfo,
    StoreStatus, ToWorker,
};
use web::wire;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, ReadableStreamDefaultReader};

mod domain;
mod explore;
mod keep;
mod load;
mod navigate;
mod plan;
mod run;
use domain::*;
use explore::*;
use keep::*;
use load::*;
use navigate::*;
use plan::*;
use run::*;

/// The Web Lock that owns this browser's stores (the OPFS pool is one
/// directory that only one worker of the origin can hold at a time).
const STORE_LOCK: &str = "codegraph-insights/stores";

/// Progress messages are sent at most this often (ms), and at the end.
const PROGRESS_EVERY_MS: f64 = 100.0;

/// Why the Worker could not do what the page asked, said in words the page
/// shows as they are.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WorkerError {
    /// The store refused or failed (names the store and the reason).
    #[error("{0}")]
    Store(#[from] store::StoreError),
    /// The browser failed: a fetch, a file read, OPFS, a JavaScript exception.
    #[error("{0}")]
    Browser(String),
    /// Anything else, already worded for the user (no model, a run going, a bad setting…).
    #[error("{0}")]
    Refused(String),
}

impl From<String> for WorkerError {
    fn from(s: String) -> Self {
        WorkerError::Refused(s)
    }
}

impl From<&str> for WorkerError {
    fn from(s: &str) -> Self {
        WorkerError::Refused(s.to_owned())
    }
}

impl From<WorkerError> for String {
    fn from(e: WorkerError) -> String {
        e.to_string()
    }
}

/// The model the worker holds (the page never gets it, only summaries).
struct Loaded {
    model: Rc<model::Model>,
    /// The name it was loaded under (a file name or URL).
    name: String,
}

/// Source text for prompts.
enum Source {
    Archive(sources::Archive),
    Folder(sources::MemorySources),
}

impl Source {
    fn reader(&self) -> &dyn SourceReader {
        match self {
            Source::Archive(a) => a,
            Source::Folder(f) => f,
        }
    }
}

/// The state of the worker (one thread: `RefCell`s, never held across an await).
#[derive(Default)]
struct State {
    loaded: Option<Loaded>,
    source: Option<(Rc<Source>, String)>,
    /// The store of the loaded model, when this tab may write.
    store: Option<Rc<store::Store>>,
    store_name: Option<String>,
    /// Why this tab cannot write, once known.
    read_only: Option<String>,
    pool: Option<store::opfs::OpfsPool>,
    lock: Option<bool>,
    table: PlanTable,
    /// Module and type ids a scope may name (from the last plan).
    scope_ids: Vec<String>,
    /// The navigator of the loaded model, and which of its nodes are expanded.
    nav: Option<Rc<navigator::Navigator>>,
    /// The Cycles list of the loaded model, built once after the navigator.
    cycles: Option<Rc<web::cycles::CycleList>>,
    expanded: hashbrown::HashSet<u32>,
    /// Why a record no longer matches the model (unit member id → reason), from the last plan.
    stale: hashbrown::HashMap<String, String>,
    /// Every record judged against the last plan (`insights::stale`): the
    /// one verdict behind the panel's stale reasons and explore's marks.
    verdict: Option<Rc<insights::stale::Staleness>>,
    running: bool,
}

/// The code graph and the explore index of a model, beside the model they borrow.
struct Explorable<'m> {
    graph: analyzer::graph::CodeGraph<'m>,
    index: ::explore::ExploreIndex,
    /// Records the explanation words were indexed from.
    explained: u64,
}

self_cell::self_cell!(
    struct ExploreCell {
        owner: Rc<model::Model>,
        #[not_covariant]
        dependent: Explorable,
    }
);

thread_local! {
    static EXPLORE: RefCell<Option<ExploreCell>> = const { RefCell::new(None) };
    static STATE: RefCell<State> = RefCell::new(State::default());
    /// Run controls, read by the run's completer and stop hook.
    static PAUSED: Cell<bool> = const { Cell::new(false) };
    static STOPPING: Cell<bool> = const { Cell::new(false) };
    static IN_FLIGHT: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The run's output mode as the client last told it (see `run::completer`).
    static OUTPUT_MODE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// When the page's last message arrived or was last handled (`now_ms`):
    /// idle-time work waits for quiet.
    static LAST_MESSAGE_AT: Cell<f64> = const { Cell::new(0.0) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

pub fn start() {
    // A panic aborts the module (wasm32 has no unwinding), but the hook runs
    // first: the console gets the trace and the page a notice saying what
    // happened; its `onerror` then ends whatever was going.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        post(&FromWorker::Error {
            message: format!(
                "The Worker stopped on an internal error ({info}). What was saved is kept; reload the page to go on."
            ),
        });
    }));
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        LAST_MESSAGE_AT.with(|t| t.set(now_ms()));
        match wire::from_js::<ToWorker>(data.clone()) {
            Ok(msg) => wasm_bindgen_futures::spawn_local(async move {
                handle(msg, data).await;
                LAST_MESSAGE_AT.with(|t| t.set(now_ms()));
            }),
            Err(e) => post(&FromWorker::Error { message: format!("unreadable message: {e}") }),
        }
    });
    scope().set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    // Messages the page sent while our wasm was still loading had no
    // listener and are gone, so announce ourselves now.
    post(&FromWorker::ready());
}

fn post(msg: &FromWorker) {
    post_with(msg, None);
}

/// Posts `msg`, with `extra` set on it as `(key, value)` (bytes, files).
fn post_with(msg: &FromWorker, extra: Option<(&str, JsValue)>) {
    let sent = wire::to_js(msg).and_then(|v| {
        if let Some((k, x)) = &extra {
            // In the message's body: the message is `{ "<kind>": body }`.
            let body = wire::body(&v).ok_or_else(|| "a message without a body".to_owned())?;
            js_sys::Reflect::set(&body, &JsValue::from_str(k), x).map_err(|e| js_text(&e))?;
        }
        scope().post_message(&v).map_err(|e| js_text(&e))
    });
    if let Err(e) = sent {
        web_sys::console::error_1(&format!("worker: cannot post a {} message: {e}", kind_of(msg)).into());
    }
}

fn kind_of(msg: &FromWorker) -> String {
    wire::to_js(msg).ok().and_then(|v| wire::kind(&v)).unwrap_or_default()
}

fn js_text(v: &JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string()
        .or_else(|| js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| format!("{v:?}"))
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

fn now_iso() -> String {
    String::from(js_sys::Date::new_0().to_iso_string())
}

/// Bytes of the worker's wasm memory (it only grows, so this is the peak).
fn wasm_memory_bytes() -> u64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as u64
}

/// A JS value carried beside the message (`file`, `files`).
fn attached(data: &JsValue, key: &str) -> Option<JsValue> {
    js_sys::Reflect::get(data, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

async fn handle(msg: ToWorker, data: JsValue) {
    match msg {
        ToWorker::Hello { protocol } => post(&web::protocol::hello(protocol)),
        ToWorker::LoadModelUrl { url } => {
            let name = url.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or(&url).to_owned();
            let started = now_ms();
            let answer = match fetch_stream(&url).await {
                Ok((reader, total)) => read_model(reader, total, &name, started).await,
                Err(e) => Err(LoadError { line: 0, rule: "fetch".into(), text: format!("{url}: {e}") }),
            };
            model_read(answer).await;
        }
        ToWorker::LoadModelFile { name } => {
            let started = now_ms();
            let answer = match attached(&data, "file").map(|f| f.unchecked_into::<web_sys::File>()) {
                Some(file) => {
                    let total = Some(file.size() as u64);
                    let stream = file.stream();
                    read_model(stream.get_reader().unchecked_into(), total, &name, started).await
                }
                None => Err(LoadError { line: 0, rule: "file".into(), text: format!("{name}: no file was given") }),
            };
            model_read(answer).await;
        }
        ToWorker::LoadSourceUrl { url } => {
            let name = url.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or(&url).to_owned();
            let bytes = fetch_bytes(&url).await.map_err(|e| WorkerError::Browser(format!("{url}: {e}")));
            source_read(bytes.and_then(|b| parse_archive(&name, &b)), name);
        }
        ToWorker::LoadSourceFile { name } => {
            let bytes = match attached(&data, "file") {
                Some(f) => {
                    file_bytes(&f.unchecked_into()).await.map_err(|e| WorkerError::Browser(format!("{name}: {e}")))
                }
                None => Err(WorkerError::Refused(format!("{name}: no file was given"))),
            };
            source_read(bytes.and_then(|b| parse_archive(&name, &b)), name);
        }
        ToWorker::LoadSourceFolder { name } => {
            let folder = match attached(&data, "files") {
                Some(files) => read_folder(&files).await,
                None => Err(WorkerError::Refused(format!("{name}: no files were given"))),
            };
            source_read(folder, name);
        }
        ToWorker::Plan { settings } => match plan(&settings) {
            Ok(()) => {}
            Err(e) => post(&FromWorker::PlanFailed { message: e.to_string() }),
        },
        ToWorker::PlanRows { query } => rows(&query),
        ToWorker::Run { request } => {
            if let Err(e) = run(request).await {
                post(&FromWorker::RunFailed { message: e.to_string() });
            }
        }
        ToWorker::FetchPrices { provider, model } => post(&fetch_prices(&provider, &model).await),
        ToWorker::FetchModels { provider, asked_for } => post(&run::fetch_models(&provider, asked_for).await),
        ToWorker::SuggestScope { text } => {
            let (ids, matching) =
                STATE.with(|s| planning::suggest(&s.borrow().scope_ids, &text, web::protocol::MAX_SUGGESTIONS));
            post(&FromWorker::ScopeSuggestions { text, ids, matching });
        }
        ToWorker::Pause => PAUSED.with(|p| p.set(true)),
        ToWorker::Resume => PAUSED.with(|p| p.set(false)),
        ToWorker::Stop => {
            STOPPING.with(|s| s.set(true));
            PAUSED.with(|p| p.set(false));
        }
        ToWorker::ExportSidecar => export_sidecar(),
        ToWorker::ImportSidecar { name, replace } => import_sidecar(&data, &name, replace).await,
        ToWorker::ListStores => list_stores(),
        ToWorker::DeleteStore { name } => {
            if let Err(e) = delete_store(&name).await {
                post(&FromWorker::Error { message: e.to_string() });
            }
        }
        ToWorker::ExportStore { name } => {
            if let Err(e) = export_store(&name).await {
                post(&FromWorker::Error { message: e.to_string() });
            }
        }
        ToWorker::NavRows { offset, limit, show_stubs } => nav_rows(offset, limit, show_stubs),
        ToWorker::NavToggle { node } => STATE.with(|s| {
            let mut s = s.borrow_mut();
            if !s.expanded.remove(&node) {
                s.expanded.insert(node);
            }
        }),
        ToWorker::NavSearch { query } => {
            if let Some(nav) = navigator() {
                let result = nav.search(&query, web::protocol::NAV_SEARCH_CAP);
                post(&FromWorker::NavSearch { query, result });
            }
        }
        ToWorker::NavSelect { target, show_stubs } => nav_select(target, show_stubs),
        ToWorker::NavDeps { node, limit } => {
            if let Some(nav) = navigator() {
                post(&FromWorker::NavDeps { deps: nav.dependencies(node, 0, limit as usize) });
            }
        }
        ToWorker::NavGraph { node, externals } => nav_graph(node, externals),
        ToWorker::CycleRows { offset, limit } => cycle_rows(offset, limit),
        ToWorker::TextSearch { query } => text_search(query),
        ToWorker::Explore { question, flag, setting } => explore_question(question, flag, setting),
        ToWorker::Domain => domain_view(),
        ToWorker::DomainZip => {
            if let Err(e) = domain_zip() {
                post(&FromWorker::Error { message: format!("the domain's Markdown could not be made: {e}") });
            }
        }
    }
}
