//! The dedicated Worker: owns all state (the model, the sources, the plan,
//! the run and the store) and talks to the page only through
//! [`crate::protocol`] messages. The pure parts of what it does are in
//! [`crate::planning`] and [`crate::progress`]; this file is the wiring to
//! the browser (fetch, files, OPFS, Web Locks, timers).

use crate::planning::{self, PlanTable};
use crate::progress::{in_flight_label, Progress};
use crate::protocol::{
    FromWorker, Input, LoadError, ModelSummary, PlanSettings, RowQuery, RunRequest, SourceSummary, StoreInfo,
    StoreStatus, ToWorker,
};
use crate::wire;
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
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, ReadableStreamDefaultReader};

/// The Web Lock that owns this browser's stores (the OPFS pool is one
/// directory that only one worker of the origin can hold at a time).
const STORE_LOCK: &str = "codegraph-insights/stores";

/// Progress messages are sent at most this often (ms), and at the end.
const PROGRESS_EVERY_MS: f64 = 100.0;

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
    expanded: hashbrown::HashSet<u32>,
    /// Why a record no longer matches the model (unit member id → reason), from the last plan.
    stale: hashbrown::HashMap<String, String>,
    /// Member id → the fingerprint the last plan gives its unit (for explore's freshness).
    current: Option<Rc<hashbrown::HashMap<String, String>>>,
    running: bool,
}

/// The code graph and the explore index of a model, beside the model they borrow.
struct Explorable<'m> {
    graph: analyzer::graph::CodeGraph<'m>,
    index: explore::ExploreIndex,
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
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

pub fn start() {
    console_error_panic_hook::set_once();
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        match wire::from_js::<ToWorker>(data.clone()) {
            Ok(msg) => wasm_bindgen_futures::spawn_local(handle(msg, data)),
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
            js_sys::Reflect::set(&v, &JsValue::from_str(k), x).map_err(|e| js_text(&e))?;
        }
        scope().post_message(&v).map_err(|e| js_text(&e))
    });
    if let Err(e) = sent {
        web_sys::console::error_1(&format!("worker: cannot post a {} message: {e}", kind_of(msg)).into());
    }
}

fn kind_of(msg: &FromWorker) -> String {
    wire::to_js(msg)
        .ok()
        .and_then(|v| js_sys::Reflect::get(&v, &"type".into()).ok())
        .and_then(|t| t.as_string())
        .unwrap_or_default()
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
        ToWorker::Hello { protocol } => post(&crate::protocol::hello(protocol)),
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
            let bytes = fetch_bytes(&url).await.map_err(|e| format!("{url}: {e}"));
            source_read(bytes.and_then(|b| parse_archive(&name, &b)), name);
        }
        ToWorker::LoadSourceFile { name } => {
            let bytes = match attached(&data, "file") {
                Some(f) => file_bytes(&f.unchecked_into()).await.map_err(|e| format!("{name}: {e}")),
                None => Err(format!("{name}: no file was given")),
            };
            source_read(bytes.and_then(|b| parse_archive(&name, &b)), name);
        }
        ToWorker::LoadSourceFolder { name } => {
            let folder = match attached(&data, "files") {
                Some(files) => read_folder(&files).await,
                None => Err(format!("{name}: no files were given")),
            };
            source_read(folder, name);
        }
        ToWorker::Plan { settings } => match plan(&settings) {
            Ok(()) => {}
            Err(message) => post(&FromWorker::PlanFailed { message }),
        },
        ToWorker::PlanRows { query } => rows(&query),
        ToWorker::Run { request } => {
            if let Err(message) = run(request).await {
                post(&FromWorker::RunFailed { message });
            }
        }
        ToWorker::FetchPrices { provider, model } => post(&fetch_prices(&provider, &model).await),
        ToWorker::SuggestScope { text } => {
            let (ids, matching) =
                STATE.with(|s| planning::suggest(&s.borrow().scope_ids, &text, crate::protocol::MAX_SUGGESTIONS));
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
            if let Err(message) = delete_store(&name).await {
                post(&FromWorker::Error { message });
            }
        }
        ToWorker::ExportStore { name } => {
            if let Err(message) = export_store(&name).await {
                post(&FromWorker::Error { message });
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
                let result = nav.search(&query, crate::protocol::NAV_SEARCH_CAP);
                post(&FromWorker::NavSearch { query, result });
            }
        }
        ToWorker::NavSelect { target, show_stubs } => nav_select(target, show_stubs),
        ToWorker::NavDeps { node, limit } => {
            if let Some(nav) = navigator() {
                post(&FromWorker::NavDeps { deps: nav.dependencies(node, 0, limit as usize) });
            }
        }
        ToWorker::NavGraph { node } => {
            if let Some(nav) = navigator() {
                let max = crate::protocol::NAV_GRAPH_NODES;
                let graph = match node {
                    Some(n) => nav.neighbourhood(n, max),
                    None => nav.module_overview(max),
                };
                post(&FromWorker::NavGraph { graph });
            }
        }
        ToWorker::NavCycles => {
            if let Some(nav) = navigator() {
                let reports = nav.cycles();
                let mut names: Vec<(u32, String)> = reports
                    .iter()
                    .flat_map(|r| r.components.iter().flat_map(|c| c.members.iter().copied()))
                    .map(|m| (m, nav.node(m).name))
                    .collect();
                names.sort_unstable();
                names.dedup();
                post(&FromWorker::NavCycles { reports, names });
            }
        }
        ToWorker::TextSearch { query } => text_search(query),
        ToWorker::Explore { question, flag, setting } => explore_question(question, flag, setting),
    }
}

// ---------------------------------------------------------------- the navigator

/// The navigator of the loaded model, built the first time it is asked
/// for (so loading and planning do not wait for it).
fn navigator() -> Option<Rc<navigator::Navigator>> {
    if let Some(nav) = STATE.with(|s| s.borrow().nav.clone()) {
        return Some(nav);
    }
    let model = STATE.with(|s| s.borrow().loaded.as_ref().map(|l| l.model.clone()))?;
    build_navigator(&model);
    STATE.with(|s| s.borrow().nav.clone())
}

/// Builds the navigator of a model just read and tells the page.
fn build_navigator(model: &model::Model) {
    let started = now_ms();
    let nav = navigator::Navigator::build(model);
    let (nodes, deps) = (nav.len() as u64, nav.dep_count() as u64);
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.nav = Some(Rc::new(nav));
        s.expanded.clear();
    });
    post(&FromWorker::NavReady { nodes, deps, millis: now_ms() - started });
}

fn nav_rows(offset: u64, limit: u64, show_stubs: bool) {
    let Some(nav) = navigator() else { return };
    let (rows, total) =
        STATE.with(|s| nav.rows(&s.borrow().expanded, show_stubs, offset as usize, limit.min(500) as usize));
    post(&FromWorker::NavRows { offset, total: total as u64, rows });
}

/// The insight panel's answer for an entity id: the store's three-way
/// answer, with the freshness of an explained record.
fn insight_for(id: &str) -> crate::insight::InsightView {
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else { return crate::insight::InsightView::Unknown { id: id.to_owned() } };
    match store.answer_insight(id) {
        Ok(answer) => {
            let stale = STATE.with(|s| s.borrow().stale.get(id).cloned());
            crate::insight::view_of(&answer, stale)
        }
        Err(_) => crate::insight::InsightView::Unknown { id: id.to_owned() },
    }
}

fn nav_select(target: crate::protocol::NavTarget, show_stubs: bool) {
    let Some(nav) = navigator() else { return };
    let node = match target {
        crate::protocol::NavTarget::Node(n) => Some(n).filter(|n| (*n as usize) < nav.len()),
        crate::protocol::NavTarget::Id(ref id) => nav.node_of(id),
    };
    let Some(node) = node else {
        if let crate::protocol::NavTarget::Id(id) = target {
            post(&FromWorker::NavMissing { id });
        }
        return;
    };
    let row = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.expanded.extend(nav.ancestors(node).into_iter().filter(|a| *a != node));
        nav.row_index(&s.expanded, show_stubs, node)
    });
    let view = nav.node(node);
    let insight = insight_for(&view.id);
    let deps = nav.dependencies(node, 0, crate::protocol::NAV_DEPS_FIRST as usize);
    let doc = loaded().ok().and_then(|(model, _)| {
        let comments = model.entity(nav.entity_index(node)).comments()?;
        Some(comments.join("\n")).filter(|d| !d.trim().is_empty())
    });
    let selection = crate::protocol::Selected { node: view, doc, deps, insight, row: row.map(|r| r as u64) };
    post(&FromWorker::NavSelected { selection: Box::new(selection) });
}

/// Builds the code graph and explore index of `model` unless they are
/// built; returns whether they were.
fn explore_cell(model: &Rc<model::Model>) -> bool {
    let built = EXPLORE.with(|e| e.borrow().as_ref().is_some_and(|c| Rc::ptr_eq(c.borrow_owner(), model)));
    if !built {
        let cell = ExploreCell::new(model.clone(), |m| {
            let graph = analyzer::graph::CodeGraph::new(m);
            let index = explore::ExploreIndex::build(&graph);
            Explorable { graph, index, explained: u64::MAX }
        });
        EXPLORE.with(|e| *e.borrow_mut() = Some(cell));
    }
    built
}

/// The store's records as explanations, checked against the last plan.
fn explore_question(question: String, flag: Option<String>, setting: Option<String>) {
    let Ok((model, _)) = loaded() else {
        post(&FromWorker::Error { message: "load a model to explore it".into() });
        return;
    };
    let started = now_ms();
    let store = STATE.with(|s| s.borrow().store.clone());
    let records: u64 = store.as_ref().and_then(|st| st.count().ok()).unwrap_or(0);
    let built = explore_cell(&model);
    let index_millis = if built { 0.0 } else { now_ms() - started };
    let book = store.as_deref().and_then(|st| store::StoreBook::new(st).ok());
    let current = STATE.with(|s| s.borrow().current.clone());
    let nav = navigator();
    let answer = EXPLORE.with(|e| {
        let mut e = e.borrow_mut();
        let cell = e.as_mut().expect("built above");
        // The explanation words follow the store (records arrive with runs and imports).
        cell.with_dependent_mut(|_, x| {
            if x.explained != records {
                let texts: Vec<(String, String)> = store
                    .as_deref()
                    .and_then(|st| st.records().ok())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| (r.id.clone(), r.block.description().to_owned()))
                    .collect();
                x.index.set_explanations(&x.graph, texts.iter().map(|(a, b)| (a.as_str(), b.as_str())));
                x.explained = records;
            }
        });
        cell.with_dependent(|_, x| {
            let none = explore::NoExplanations;
            let with_records;
            let explanations: &dyn explore::Explanations = match &book {
                Some(b) => {
                    with_records = explore::RecordExplanations { records: b, current: current.as_deref() };
                    &with_records
                }
                None => &none,
            };
            let src = source();
            let explorer = explore::Explorer {
                graph: &x.graph,
                index: &x.index,
                sources: src.as_deref().map(Source::reader),
                explanations,
            };
            let request = explore::Request {
                question: &question,
                flag: flag.as_deref().and_then(explore::Mode::parse),
                setting: setting.as_deref().and_then(explore::Mode::parse),
                caps: explore::Caps::default(),
                body_hint: Some("select {name} in the Navigate tab".into()),
            };
            explorer.answer(&request)
        })
    });
    let markdown = answer.to_markdown();
    let symbols = answer
        .symbols
        .items
        .iter()
        .map(|s| crate::protocol::MapSymbol {
            id: s.at.id.clone(),
            name: s.at.name.clone(),
            kind: s.at.kind.clone(),
            node: nav.as_ref().and_then(|n| n.node_of(&s.at.id)),
            explanation: s.explanation.as_ref().map(|e| e.text.clone()),
            stale: s.explanation.as_ref().is_some_and(|e| e.freshness == explore::Freshness::Stale),
        })
        .collect();
    let chars = markdown.chars().count() as u64;
    let answer = crate::protocol::ExploreAnswer {
        question,
        mode: format!("{:?}", answer.mode).to_lowercase(),
        tokens: explore::estimate_tokens(&markdown),
        markdown,
        symbols,
        chars,
        millis: now_ms() - started,
        index_millis,
    };
    post(&FromWorker::Explored { answer });
}

fn text_search(query: String) {
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else {
        post(&FromWorker::TextHits { query, hits: vec![], message: Some("no store is open in this tab".into()) });
        return;
    };
    let nav = navigator();
    match store.search_text(&query, 50) {
        Ok(hits) => {
            let hits = hits
                .into_iter()
                .map(|h| crate::protocol::TextHitView {
                    node: nav.as_ref().and_then(|n| n.node_of(&h.id)),
                    id: h.id,
                    level: h.level.as_str().to_owned(),
                    name: h.name,
                    concept: h.concept,
                    snippet: h.snippet,
                })
                .collect();
            post(&FromWorker::TextHits { query, hits, message: None });
        }
        Err(e) => post(&FromWorker::TextHits { query, hits: vec![], message: Some(e.to_string()) }),
    }
}

// ---------------------------------------------------------------- reading

async fn fetch_response(url: &str) -> Result<web_sys::Response, String> {
    let response: web_sys::Response =
        JsFuture::from(scope().fetch_with_str(url)).await.map_err(|e| js_text(&e))?.unchecked_into();
    if !response.ok() {
        return Err(format!("HTTP {} {}", response.status(), response.status_text()));
    }
    Ok(response)
}

async fn fetch_stream(url: &str) -> Result<(ReadableStreamDefaultReader, Option<u64>), String> {
    let response = fetch_response(url).await?;
    let total = response.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<u64>().ok());
    let body = response.body().ok_or("the response has no body")?;
    Ok((body.get_reader().unchecked_into(), total))
}

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response = fetch_response(url).await?;
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| js_text(&e))?).await.map_err(|e| js_text(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

async fn file_bytes(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer()).await.map_err(|e| js_text(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Reads a model from a byte stream, chunk by chunk as the bytes arrive,
/// posting progress about every 1% (or 4 MiB when the size is unknown).
async fn read_model(
    reader: ReadableStreamDefaultReader,
    total: Option<u64>,
    name: &str,
    started: f64,
) -> Result<(model::Model, ModelSummary), LoadError> {
    let io = |e: JsValue| LoadError { line: 0, rule: "read".into(), text: format!("{name}: {}", js_text(&e)) };
    let mut model_reader = model::ModelReader::new(name);
    let step = total.map_or(4 << 20, |t| (t / 100).max(1 << 20));
    let (mut bytes, mut next_report) = (0u64, 0u64);
    let mut buf = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(io)?;
        let done = js_sys::Reflect::get(&chunk, &"done".into()).map(|d| d.is_truthy()).unwrap_or(true);
        if done {
            break;
        }
        let value: js_sys::Uint8Array = js_sys::Reflect::get(&chunk, &"value".into()).map_err(io)?.unchecked_into();
        buf.resize(value.length() as usize, 0);
        value.copy_to(&mut buf);
        bytes += buf.len() as u64;
        model_reader.push_chunk(&buf).map_err(|e| LoadError::from(&e))?;
        if bytes >= next_report {
            post(&FromWorker::LoadProgress { input: Input::Model, bytes, total });
            next_report = bytes + step;
        }
    }
    drop(buf);
    let model = model_reader.finish().map_err(|e| LoadError::from(&e))?;
    let summary = ModelSummary::of(&model, name, bytes, now_ms() - started, wasm_memory_bytes());
    Ok((model, summary))
}

/// A model was read (or not): keep it, say so, match the sources, open its store.
async fn model_read(answer: Result<(model::Model, ModelSummary), LoadError>) {
    let (model, summary) = match answer {
        Ok(x) => x,
        Err(error) => {
            STATE.with(|s| {
                let mut s = s.borrow_mut();
                s.loaded = None;
                s.table = PlanTable::default();
            });
            post(&FromWorker::ModelFailed { error });
            return;
        }
    };
    let store_name = store::store_name_for(&model.header().root, &summary.name);
    let has_source = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.loaded = Some(Loaded { model: Rc::new(model), name: summary.name.clone() });
        s.table = PlanTable::default();
        s.source.is_some()
    });
    // The navigator and the explore index are built when first asked for.
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.nav = None;
        s.expanded.clear();
        s.stale.clear();
    });
    EXPLORE.with(|e| e.borrow_mut().take());
    post(&FromWorker::ModelLoaded { summary });
    if has_source {
        announce_source();
    }
    open_store(&store_name).await;
}

fn parse_archive(name: &str, bytes: &[u8]) -> Result<Source, String> {
    post(&FromWorker::LoadProgress {
        input: Input::Source,
        bytes: bytes.len() as u64,
        total: Some(bytes.len() as u64),
    });
    sources::Archive::parse(name, bytes).map(Source::Archive).map_err(|e| e.to_string())
}

/// A folder picked with the directory picker: every file under its
/// `webkitRelativePath`, without the picked folder's own name.
async fn read_folder(files: &JsValue) -> Result<Source, String> {
    let files = js_sys::Array::from(files);
    let mut folder = sources::MemorySources::new();
    let (total, mut read) = (files.length(), 0u64);
    for f in files.iter() {
        let file: web_sys::File = f.unchecked_into();
        let rel = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| file.name());
        let path = rel.split_once('/').map_or(rel.as_str(), |(_, rest)| rest).to_owned();
        let bytes = file_bytes(&file).await?;
        read += bytes.len() as u64;
        // Binary and unreadable files are skipped, as an archive skips them.
        let _ = folder.insert_bytes(&path, &bytes);
        if folder.len().is_multiple_of(200) {
            post(&FromWorker::LoadProgress { input: Input::Source, bytes: read, total: None });
        }
    }
    if total == 0 {
        return Err("the folder is empty".into());
    }
    Ok(Source::Folder(folder))
}

fn source_read(source: Result<Source, String>, name: String) {
    match source {
        Ok(source) => {
            STATE.with(|s| s.borrow_mut().source = Some((Rc::new(source), name)));
            announce_source();
        }
        Err(message) => post(&FromWorker::SourceFailed { message }),
    }
}

/// How many of the model's files a picked folder holds.
fn folder_summary(source: Rc<Source>, name: &str, paths: &[&str]) -> (Rc<Source>, SourceSummary) {
    let reader = source.reader();
    let matched = paths.iter().filter(|p| !matches!(reader.read(p), sources::SourceFile::Missing)).count();
    let files = match &*source {
        Source::Folder(f) => f.len(),
        Source::Archive(a) => a.len(),
    };
    let summary = SourceSummary {
        name: name.to_owned(),
        files: files as u64,
        matched: matched as u64,
        wanted: paths.len() as u64,
        root: String::new(),
    };
    (source, summary)
}

/// Matches the held sources against the loaded model (if any) and tells the
/// page; an archive is re-rooted in place (cloned only while a run holds it).
fn announce_source() {
    let Some(model) = STATE.with(|s| s.borrow().loaded.as_ref().map(|l| l.model.clone())) else {
        // Matched when a model arrives.
        return;
    };
    let Some((source, name)) = STATE.with(|s| s.borrow_mut().source.take()) else { return };
    let paths: Vec<&str> = model.files().iter().map(String::as_str).collect();
    let reroot = |mut a: sources::Archive| {
        let m = a.use_root(&paths);
        let summary = SourceSummary {
            name: name.clone(),
            files: a.len() as u64,
            matched: m.matched as u64,
            wanted: m.total as u64,
            root: m.prefix,
        };
        (Rc::new(Source::Archive(a)), summary)
    };
    let (source, summary) = match Rc::try_unwrap(source) {
        Ok(Source::Archive(a)) => reroot(a),
        Err(shared) if matches!(&*shared, Source::Archive(_)) => {
            let Source::Archive(a) = &*shared else { unreachable!("matched above") };
            reroot(a.clone())
        }
        Ok(folder) => folder_summary(Rc::new(folder), &name, &paths),
        Err(shared) => folder_summary(shared, &name, &paths),
    };
    STATE.with(|s| s.borrow_mut().source = Some((source, name.clone())));
    if summary.matched == 0 && summary.wanted > 0 {
        post(&FromWorker::SourceFailed {
            message: format!(
                "{name}: none of the model's {} files is in it; the archive must hold the sources the model was extracted from",
                summary.wanted
            ),
        });
        STATE.with(|s| s.borrow_mut().source = None);
        return;
    }
    post(&FromWorker::SourceLoaded { summary });
}

// ---------------------------------------------------------------- the store

/// Takes the stores' Web Lock without waiting: `false` when another tab holds it.
async fn take_store_lock() -> bool {
    let global = js_sys::global();
    let locks = js_sys::Reflect::get(&global, &"navigator".into())
        .and_then(|n| js_sys::Reflect::get(&n, &"locks".into()))
        .ok()
        .filter(|l| !l.is_undefined());
    let Some(locks) = locks else {
        // No Web Locks (an old browser): the OPFS pool refuses a second holder anyway.
        return true;
    };
    let (tx, rx) = futures::channel::oneshot::channel::<bool>();
    let granted = Closure::once(move |lock: JsValue| -> JsValue {
        let got = !lock.is_null();
        let _ = tx.send(got);
        if got {
            // Held for the worker's whole life.
            js_sys::Promise::new(&mut |_, _| {}).into()
        } else {
            JsValue::UNDEFINED
        }
    });
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"ifAvailable".into(), &JsValue::TRUE);
    let request =
        js_sys::Reflect::get(&locks, &"request".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(request) = request else { return true };
    if request.call3(&locks, &STORE_LOCK.into(), &options, granted.as_ref()).is_err() {
        return true;
    }
    granted.forget();
    rx.await.unwrap_or(false)
}

async fn pool() -> Result<store::opfs::OpfsPool, String> {
    if let Some(p) = STATE.with(|s| s.borrow().pool.clone()) {
        return Ok(p);
    }
    let p = store::opfs::install().await.map_err(|e| e.to_string())?;
    STATE.with(|s| s.borrow_mut().pool = Some(p.clone()));
    Ok(p)
}

const READ_ONLY: &str = "another tab of this page holds this browser's insights stores, so this tab is read-only: it can load and plan, but not run, import or delete. Close the other tab and reload to write here.";

/// Opens the store of the loaded model (after the stores' lock), closing runs
/// a closed tab left open, and tells the page.
async fn open_store(name: &str) {
    let busy = STATE.with(|s| s.borrow().running);
    if busy {
        return;
    }
    // Close the previous model's store first: one connection per file.
    let previous = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.store_name = Some(name.to_owned());
        s.store.take()
    });
    if let Some(prev) = previous.and_then(|p| Rc::try_unwrap(p).ok()) {
        let _ = prev.close();
    }
    let lock = match STATE.with(|s| s.borrow().lock) {
        Some(l) => l,
        None => {
            let l = take_store_lock().await;
            STATE.with(|s| s.borrow_mut().lock = Some(l));
            l
        }
    };
    let status = if !lock {
        STATE.with(|s| s.borrow_mut().read_only = Some(READ_ONLY.into()));
        StoreStatus {
            name: name.to_owned(),
            records: 0,
            failures: 0,
            interrupted: 0,
            read_only: Some(READ_ONLY.into()),
        }
    } else {
        match open_writer(name).await {
            Ok((store, interrupted)) => {
                let records = store.count().unwrap_or(0);
                let failures = store.failures().map(|f| f.len() as u64).unwrap_or(0);
                STATE.with(|s| s.borrow_mut().store = Some(Rc::new(store)));
                StoreStatus { name: name.to_owned(), records, failures, interrupted, read_only: None }
            }
            Err(e) => {
                let why = format!("the store {name} cannot be opened, so nothing can be written: {e}");
                STATE.with(|s| s.borrow_mut().read_only = Some(why.clone()));
                StoreStatus { name: name.to_owned(), records: 0, failures: 0, interrupted: 0, read_only: Some(why) }
            }
        }
    };
    post(&FromWorker::StoreOpened { store: status });
}

async fn open_writer(name: &str) -> Result<(store::Store, u64), String> {
    let pool = pool().await?;
    let store = pool.open_writer(name).await.map_err(|e| e.to_string())?;
    // We hold the lock: any run still open was left by a closed tab.
    let closed = store.close_dead_runs(None).map_err(|e| e.to_string())?;
    Ok((store, closed.len() as u64))
}

fn current_store() -> Result<Rc<store::Store>, String> {
    STATE.with(|s| {
        let s = s.borrow();
        s.store.clone().ok_or_else(|| {
            s.read_only.clone().unwrap_or_else(|| "no model is loaded, so there is no store yet".to_owned())
        })
    })
}

fn store_status(store: &store::Store) -> StoreStatus {
    StoreStatus {
        name: STATE.with(|s| s.borrow().store_name.clone()).unwrap_or_default(),
        records: store.count().unwrap_or(0),
        failures: store.failures().map(|f| f.len() as u64).unwrap_or(0),
        interrupted: 0,
        read_only: None,
    }
}

fn sidecar_name() -> String {
    let name = STATE.with(|s| s.borrow().loaded.as_ref().map(|l| l.name.clone())).unwrap_or_else(|| "model".into());
    let stem = name.split(['?', '#']).next().unwrap_or_default();
    let stem = stem.strip_suffix(".jsonl").unwrap_or(stem);
    format!("{}.insights.jsonl", if stem.is_empty() { "model" } else { stem })
}

fn export_sidecar() {
    let answer = current_store().and_then(|store| {
        let bytes = store.export_to(Vec::new()).map_err(|e| e.to_string())?;
        let records = store.count().map_err(|e| e.to_string())?;
        let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
        let file_name = sidecar_name();
        let stamp = store::ExportStamp { path: file_name.clone(), size: text.len() as u64, mtime_ms: now_ms() };
        store.mark_exported(&stamp).map_err(|e| e.to_string())?;
        Ok(FromWorker::Sidecar { file_name, text, records })
    });
    post(
        &answer
            .unwrap_or_else(|message| FromWorker::Error { message: format!("cannot export the side-car: {message}") }),
    );
}

async fn import_sidecar(data: &JsValue, name: &str, replace: bool) {
    let answer = async {
        let store = current_store()?;
        let file: web_sys::File = attached(data, "file").ok_or("no file was given")?.unchecked_into();
        let text = JsFuture::from(file.text()).await.map_err(|e| js_text(&e))?.as_string().unwrap_or_default();
        let (sc, truncation) = insights::sidecar::decode_with_truncation(name, &text).map_err(|e| e.to_string())?;
        // Checked after the last await: from here to the commit nothing else
        // runs in this Worker, so a run cannot begin in between.
        if STATE.with(|s| s.borrow().running) {
            return Err("a run is writing this store: import after it ends".to_owned());
        }
        let held = store.count().map_err(|e| e.to_string())?;
        let truncated = truncation.map(|t| t.to_string());
        if (held > 0 || truncated.is_some()) && !replace {
            return Ok(FromWorker::ImportNeedsConfirm {
                held,
                incoming: sc.records.len() as u64,
                name: name.to_owned(),
                truncated,
            });
        }
        let (records, failures, merged) = if sc.truncated {
            // A cut-short side-car never replaces: its records are merged in.
            let (r, f) = store.merge(&sc).map_err(|e| e.to_string())?;
            (r, f, true)
        } else {
            store.import(&sc).map_err(|e| e.to_string())?;
            (sc.records.len() as u64, sc.failures.len() as u64, false)
        };
        post(&FromWorker::StoreOpened { store: store_status(&store) });
        Ok(FromWorker::Imported { records, failures, merged })
    }
    .await;
    post(&answer.unwrap_or_else(|message| FromWorker::ImportFailed { message: format!("{name}: {message}") }));
}

fn list_stores() {
    let answer = STATE.with(|s| {
        let s = s.borrow();
        let pool = s.pool.clone().ok_or_else(|| s.read_only.clone().unwrap_or("no store is open yet".into()))?;
        let current = s.store_name.clone().unwrap_or_default();
        let open_size = s.store.as_ref().map(|st| st.size_bytes().unwrap_or(0));
        let list = pool.list().map_err(|e| e.to_string())?;
        Ok::<_, String>(
            list.into_iter()
                .map(|st| StoreInfo {
                    current: st.name == current,
                    bytes: st.size.or(if st.name == current { open_size } else { None }).unwrap_or(0),
                    name: st.name,
                })
                .collect(),
        )
    });
    match answer {
        Ok(stores) => post(&FromWorker::Stores { stores }),
        Err(message) => post(&FromWorker::Error { message: format!("cannot list the stores: {message}") }),
    }
}

/// Closes the current store if it is `name` (to export or delete it);
/// returns whether it was.
fn close_if_current(name: &str) -> Result<bool, String> {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if s.running {
            return Err("a run is going: wait for it to end".into());
        }
        if s.store_name.as_deref() != Some(name) || s.store.is_none() {
            return Ok(false);
        }
        let store = s.store.take().expect("checked");
        match Rc::try_unwrap(store) {
            Ok(st) => st.close().map_err(|e| e.to_string())?,
            Err(rc) => {
                s.store = Some(rc);
                return Err("the store is in use".into());
            }
        }
        Ok(true)
    })
}

async fn delete_store(name: &str) -> Result<(), String> {
    let pool = pool().await?;
    let was_current = close_if_current(name)?;
    pool.delete(name).map_err(|e| e.to_string())?;
    if was_current {
        open_store(name).await;
    }
    list_stores();
    Ok(())
}

async fn export_store(name: &str) -> Result<(), String> {
    let pool = pool().await?;
    let was_current = close_if_current(name)?;
    let bytes = pool.export(name);
    if was_current {
        open_store(name).await;
    }
    let bytes = bytes.map_err(|e| e.to_string())?;
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    post_with(&FromWorker::StoreFile { name: name.to_owned() }, Some(("bytes", array.into())));
    Ok(())
}

// ---------------------------------------------------------------- planning

fn loaded() -> Result<(Rc<model::Model>, String), String> {
    STATE.with(|s| {
        s.borrow()
            .loaded
            .as_ref()
            .map(|l| (l.model.clone(), l.name.clone()))
            .ok_or_else(|| "no model is loaded: drop a model.jsonl or pick one first".to_owned())
    })
}

fn source() -> Option<Rc<Source>> {
    STATE.with(|s| s.borrow().source.as_ref().map(|(src, _)| src.clone()))
}

fn failed_members(store: Option<&store::Store>) -> Vec<String> {
    store
        .and_then(|st| st.failures().ok())
        .map(|fs| fs.into_iter().flat_map(|f| f.members).collect())
        .unwrap_or_default()
}

fn plan(settings: &PlanSettings) -> Result<(), String> {
    if STATE.with(|s| s.borrow().running) {
        return Err("a run is going: the plan is shown again when it ends".into());
    }
    let started = now_ms();
    let (model, name) = loaded()?;
    let corpus = Corpus::build(&model, analyzer::view::View::all(), None).map_err(|e| format!("{name}: {e}"))?;
    let src = source();
    let empty = sources::MemorySources::default();
    let reader: &dyn SourceReader = src.as_deref().map_or(&empty, Source::reader);
    let slicer = SourceSlicer::new(reader, settings.max_lines);
    let store = STATE.with(|s| s.borrow().store.clone());
    let book = store.as_deref().map(store::StoreBook::new).transpose().map_err(|e| e.to_string())?;
    let records: &dyn RecordSource = match &book {
        Some(b) => b,
        None => &NoRecords,
    };
    let (options, plan) = planning::plan(&corpus, &slicer, records, settings, &failed_members(store.as_deref()))?;
    let mut notes = Vec::new();
    if src.is_none() {
        notes.push("no source was given: units are planned from the model's facts only".to_owned());
    }
    let misses = slicer.miss_reasons();
    if src.is_some() && !misses.is_empty() {
        notes.push(format!(
            "{} source file(s) could not be read, so their units are planned without source; first: {} ({:?})",
            misses.len(),
            misses[0].0,
            misses[0].1
        ));
    }
    let (mut view, table) = planning::view(&corpus, &plan, settings, &options, &name, notes);
    if src.is_none() {
        view.facts_only_units = insights::session::anchored_llm_units(&corpus, &plan);
    }
    drop(book);
    let stale = store.as_deref().map(|st| stale_records(st, &corpus, &plan, &options)).unwrap_or_default();
    view.millis = now_ms() - started;
    view.wasm_memory_bytes = wasm_memory_bytes();
    let scope_ids = planning::scope_candidates(&corpus);
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.table = table;
        s.scope_ids = scope_ids;
        s.stale = stale;
        s.current = Some(Rc::new(explore::current_fingerprints(&corpus.walk, &plan)));
    });
    post(&FromWorker::Planned { plan: view });
    // Once the plan is shown, the explore index is built in the idle time
    // after it, so a first question does not wait for it.
    wasm_bindgen_futures::spawn_local(async {
        gloo_timers::future::TimeoutFuture::new(50).await;
        if let Ok((model, _)) = loaded() {
            explore_cell(&model);
        }
    });
    Ok(())
}

/// Why each stale record of the store no longer matches this plan (id → sentence).
fn stale_records(
    store: &store::Store,
    corpus: &Corpus<'_>,
    plan: &insights::plan::RunPlan,
    options: &insights::plan::PlanOptions,
) -> hashbrown::HashMap<String, String> {
    use insights::stale::{staleness, Basis};
    // The store knows the model each record's run asked for (a Model reason needs it).
    let (Ok(Some(header)), Ok(stamps)) = (store.header(), store.stamps()) else {
        return Default::default();
    };
    let verdict =
        staleness(&stamps, &Basis::of_header(&header), &Basis::current(options.models.clone()), &corpus.walk, plan);
    stamps
        .keys()
        .filter_map(|id| {
            let f = verdict.get(id).filter(|f| !f.is_current())?;
            let why = f.describe();
            Some((id.clone(), why.strip_prefix("stale: ").map(str::to_owned).unwrap_or(why)))
        })
        .collect()
}

fn rows(query: &RowQuery) {
    let page = STATE.with(|s| s.borrow().table.page(query));
    post(&FromWorker::PlanRows { page });
}

// ---------------------------------------------------------------- running

/// The run's completer: holds new calls while paused and tracks calls in flight.
struct Controlled<'c> {
    inner: &'c dyn Completer,
}

impl Completer for Controlled<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn complete(&self, req: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        Box::pin(async move {
            while PAUSED.with(Cell::get) && !STOPPING.with(Cell::get) {
                gloo_timers::future::TimeoutFuture::new(100).await;
            }
            let unit = in_flight_label(&req.asking);
            IN_FLIGHT.with(|f| f.borrow_mut().push(unit.clone()));
            let answer = self.inner.complete(req).await;
            IN_FLIGHT.with(|f| {
                let mut f = f.borrow_mut();
                if let Some(i) = f.iter().position(|u| *u == unit) {
                    f.remove(i);
                }
            });
            answer
        })
    }
}

/// The provider's configuration from the page's fields (a typed value).
fn provider_config(provider: &crate::protocol::ProviderSettings) -> Result<Option<llm::ProviderConfig>, String> {
    provider.config()
}

async fn fetch_prices(provider: &crate::protocol::ProviderSettings, model: &str) -> FromWorker {
    let answer = |prices: Option<crate::protocol::Prices>, message: Option<String>| FromWorker::ModelPrices {
        model: model.to_owned(),
        prices,
        message,
    };
    let config = match provider {
        // The list is public: a key is not needed to read OpenRouter's prices.
        crate::protocol::ProviderSettings::OpenRouter { .. } => Ok(Some(llm::ProviderConfig::openrouter(""))),
        other => provider_config(other),
    };
    let config = match config {
        Ok(Some(c)) => c,
        Ok(None) => return answer(Some(crate::protocol::Prices { input: 0.0, output: 0.0 }), None),
        Err(e) => return answer(None, Some(e)),
    };
    match llm::prices::model_prices(&llm::DefaultTransport::default(), &config, model).await {
        Ok(Some(p)) => answer(Some(crate::protocol::Prices { input: p.input, output: p.output }), None),
        Ok(None) => answer(None, Some(format!("the provider lists no prices for {model}: type them"))),
        Err(e) => answer(None, Some(format!("cannot read the provider's model list: {e}"))),
    }
}

fn completer(request: &RunRequest) -> Result<Box<dyn Completer>, String> {
    if let Some(missing) = request.provider.missing() {
        return Err(format!("the run needs {missing}"));
    }
    Ok(match provider_config(&request.provider)? {
        Some(config) => Box::new(llm::client(config)),
        None => Box::new(llm::demo::DemoCompleter),
    })
}

async fn run(request: RunRequest) -> Result<(), String> {
    let store = current_store()?;
    let (model, name) = loaded()?;
    if STATE.with(|s| std::mem::replace(&mut s.borrow_mut().running, true)) {
        return Err("a run is already going".into());
    }
    PAUSED.with(|p| p.set(false));
    STOPPING.with(|s| s.set(false));
    IN_FLIGHT.with(|f| f.borrow_mut().clear());
    let result = run_on(&request, &store, &model, &name).await;
    STATE.with(|s| s.borrow_mut().running = false);
    post(&FromWorker::StoreOpened { store: store_status(&store) });
    result
}

async fn run_on(request: &RunRequest, store: &store::Store, model: &model::Model, name: &str) -> Result<(), String> {
    let started = now_ms();
    let completer = completer(request)?;
    let corpus = Corpus::build(model, analyzer::view::View::all(), None).map_err(|e| format!("{name}: {e}"))?;
    let src = source();
    let empty = sources::MemorySources::default();
    let reader: &dyn SourceReader = src.as_deref().map_or(&empty, Source::reader);
    let settings = &request.settings;
    let slicer = SourceSlicer::new(reader, settings.max_lines);
    let options = planning::options(&corpus, settings, &failed_members(Some(store)))?;
    // The run's lifecycle is the engine's (store::StoreRun), as in the CLI.
    let mut run = store::StoreRun::begin(
        store,
        &store::Begin {
            corpus: &corpus,
            slicer: &slicer,
            options: &options,
            provider: Some(request.provider.name().to_owned()),
            model_path: name.to_owned(),
            pid: None,
            started_at: now_iso(),
        },
    )
    .map_err(|e| e.to_string())?;

    let walk = &corpus.walk;
    let plan = run.plan();
    let progress = RefCell::new(Progress::new(plan.steps.iter().map(|s| walk.units[s.unit].layer), request.prices));
    let last_post = Cell::new(0.0);
    let snapshot = |p: &Progress| {
        let in_flight = IN_FLIGHT.with(|f| f.borrow().clone());
        p.snapshot(in_flight, PAUSED.with(Cell::get), STOPPING.with(Cell::get))
    };
    post(&FromWorker::RunProgress { progress: snapshot(&progress.borrow()) });
    let on_step = |e: &StepEvent| {
        let layer = walk.unit_index(&e.unit_id).map_or(0, |i| walk.units[i].layer);
        let mut p = progress.borrow_mut();
        p.step(e, layer);
        // The unit is committed (the book's put returned) before this event.
        let now = now_ms();
        if now - last_post.get() >= PROGRESS_EVERY_MS || e.done == e.total {
            last_post.set(now);
            post(&FromWorker::RunProgress { progress: snapshot(&p) });
        }
    };
    let stop = || STOPPING.with(Cell::get);
    let controlled = Controlled { inner: completer.as_ref() };
    let result = run
        .execute(
            &corpus,
            &slicer,
            &options,
            store::Execute {
                completer: &controlled,
                concurrency: request.concurrency.max(1) as usize,
                max_tokens: request.max_tokens,
                on_step: &on_step,
                stop: Some(&stop),
            },
        )
        .await;
    if let store::Ending::StoreRefused { rescue: Some(text), .. } =
        run.finish(&result, now_iso()).map_err(|e| e.to_string())?
    {
        // The store refused a write (the browser's storage quota, an I/O
        // error): the run stopped; what it could not take is handed to the
        // user as a rescue side-car, downloaded at once.
        let file_name = sidecar_name().replace(".insights.jsonl", ".rescue.insights.jsonl");
        post(&FromWorker::Sidecar { file_name, text, records: result.unsaved.len() as u64 });
    }
    let records = store.count().map_err(|e| e.to_string())?;
    let report = progress.borrow().report(&result, records, now_ms() - started);
    post(&FromWorker::RunFinished { report });
    Ok(())
}
