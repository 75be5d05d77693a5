//! Loading: a model and its source by drop, file pickers, a folder picker,
//! the bundled demo, or `?model=URL&src=URL` in the address.

use super::link::{send, send_with, url_param};
use super::state::{group, mb, Load, Source, Tour, Ui};
use crate::protocol::ToWorker;
use leptos::prelude::*;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// The bundled demo (served from `fixtures/`).
pub const DEMO_MODEL: &str = "fixtures/demo/model.jsonl";
pub const DEMO_SOURCE: &str = "fixtures/demo/demo-src.zip";

/// A source waiting for its model (sent once the model is read, so the
/// Worker matches it against the right files).
enum Pending {
    Url(String),
    File(web_sys::File),
}

thread_local! {
    static PENDING_SOURCE: RefCell<Option<Pending>> = const { RefCell::new(None) };
}

/// Acts on the page address once the Worker is ready: `?demo`,
/// `?model=URL[&src=URL]` (every load plans; `&plan=1`, once needed for
/// that, is still accepted and changes nothing).
pub fn from_address(ui: Ui) {
    if url_param("demo").is_some() {
        open_demo(ui);
        return;
    }
    if let Some(model) = url_param("model").filter(|s| !s.is_empty()) {
        load_model_url(ui, model, url_param("src").filter(|s| !s.is_empty()));
    }
}

pub fn open_demo(ui: Ui) {
    // The demo never spends: whatever provider was remembered, it runs on
    // the offline completer (the user may still pick another afterwards).
    ui.provider.kind.set("demo".into());
    load_model_url(ui, DEMO_MODEL.into(), Some(DEMO_SOURCE.into()));
    ui.tour.set(Tour::Planning);
}

fn load_model_url(ui: Ui, url: String, src: Option<String>) {
    ui.loading();
    ui.load.set(Load::Reading { bytes: 0, total: None });
    ui.source.set(Source::None);
    PENDING_SOURCE.with(|p| *p.borrow_mut() = src.map(Pending::Url));
    send(&ToWorker::LoadModelUrl { url });
}

fn load_model_file(ui: Ui, file: web_sys::File) {
    ui.loading();
    ui.load.set(Load::Reading { bytes: 0, total: Some(file.size() as u64) });
    send_with(&ToWorker::LoadModelFile { name: file.name() }, Some(("file", file.into())));
}

fn load_source_file(ui: Ui, file: web_sys::File) {
    // The user's own source: the demo's tour, if one was going, ends.
    ui.tour.set(Tour::Off);
    if matches!(ui.load.get_untracked(), Load::Loaded(_)) {
        ui.source.set(Source::Reading);
        send_with(&ToWorker::LoadSourceFile { name: file.name() }, Some(("file", file.into())));
    } else {
        ui.source.set(Source::Failed("waiting for the model: the source is read once a model is loaded".into()));
        PENDING_SOURCE.with(|p| *p.borrow_mut() = Some(Pending::File(file)));
    }
}

/// Sends a source that waited for the model.
pub fn send_pending_source() {
    match PENDING_SOURCE.with(|p| p.borrow_mut().take()) {
        Some(Pending::Url(url)) => send(&ToWorker::LoadSourceUrl { url }),
        Some(Pending::File(file)) => {
            send_with(&ToWorker::LoadSourceFile { name: file.name() }, Some(("file", file.into())))
        }
        None => {}
    }
}

fn is_archive(name: &str) -> bool {
    let n = name.to_lowercase();
    [".zip", ".tar", ".tar.gz", ".tgz"].iter().any(|s| n.ends_with(s))
}

/// Routes dropped or picked files by name: a side-car, a model, an archive.
fn take_files(ui: Ui, files: Vec<web_sys::File>) {
    // The model first, so the source is matched against it.
    let (models, rest): (Vec<_>, Vec<_>) =
        files.into_iter().partition(|f| f.name().ends_with(".jsonl") && !f.name().ends_with(".insights.jsonl"));
    if let Some(m) = models.into_iter().next() {
        load_model_file(ui, m);
    }
    for f in rest {
        let name = f.name();
        if name.ends_with(".insights.jsonl") {
            super::keep::import_file(f);
        } else if is_archive(&name) {
            load_source_file(ui, f);
        } else {
            ui.notice.set(Some(format!(
                "{name}: not a model (.jsonl), a source archive (.zip, .tar, .tar.gz) or a side-car (.insights.jsonl)"
            )));
        }
    }
}

fn file_list(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

pub fn on_dragover(ev: web_sys::DragEvent) {
    ev.prevent_default();
}

pub fn on_drop(ui: Ui, ev: web_sys::DragEvent) {
    ev.prevent_default();
    if !ui.ready.get_untracked() {
        // A message posted before the Worker is up would be lost.
        ui.notice.set(Some("the page is still starting: drop the files again in a moment".into()));
        return;
    }
    let files = file_list(ev.data_transfer().and_then(|d| d.files()));
    take_files(ui, files);
}

fn input_files(ev: &web_sys::Event) -> (web_sys::HtmlInputElement, Vec<web_sys::File>) {
    let input: web_sys::HtmlInputElement = event_target(ev);
    let files = file_list(input.files());
    (input, files)
}

#[component]
pub fn LoadPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let on_model = move |ev: web_sys::Event| {
        let (input, files) = input_files(&ev);
        take_files(ui, files);
        input.set_value("");
    };
    let on_source = move |ev: web_sys::Event| {
        let (input, files) = input_files(&ev);
        if let Some(f) = files.into_iter().next() {
            load_source_file(ui, f);
        }
        input.set_value("");
    };
    let on_folder = move |ev: web_sys::Event| {
        let (input, files) = input_files(&ev);
        let name = files
            .first()
            .and_then(|f| js_sys::Reflect::get(f, &"webkitRelativePath".into()).ok())
            .and_then(|p| p.as_string())
            .and_then(|p| p.split('/').next().map(str::to_owned))
            .unwrap_or_else(|| "folder".into());
        if !files.is_empty() {
            ui.tour.set(Tour::Off);
            ui.source.set(Source::Reading);
            let array: js_sys::Array = files.into_iter().map(JsValue::from).collect();
            send_with(&ToWorker::LoadSourceFolder { name }, Some(("files", array.into())));
        }
        input.set_value("");
    };
    let folder_ref = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        // `webkitdirectory` has no typed setter: set the attribute once mounted.
        if let Some(input) = folder_ref.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let loaded = move || matches!(ui.load.get(), Load::Loaded(_) | Load::Reading { .. });
    view! {
        <section id="load" class="dropzone" class:small=loaded aria-labelledby="load-title">
            <Show when=move || !loaded() fallback=|| view! { <h2 id="load-title" class="sr-only">"Model and source"</h2> }>
                <h2 id="load-title">"See what a codebase does, unit by unit"</h2>
                <p class="hint">
                    "Drop a "<code>"model.jsonl"</code>" (written by the codegraph CLI) and its source archive here, or choose them. "
                    "They stay in this browser; the only requests that leave go to the provider you choose."
                </p>
            </Show>
            <div class="actions">
                <Show when=move || !loaded()>
                    <button id="open-demo" class="primary big" disabled=move || !ui.ready.get() on:click=move |_| open_demo(ui)>"Try the demo"</button>
                </Show>
                <label class="button file-button">{move || if loaded() { "Another model…" } else { "Choose a model…" }}
                    <input id="pick-model" type="file" accept=".jsonl" disabled=move || !ui.ready.get() on:change=on_model /></label>
                <label class="button file-button">"Source archive…"
                    <input id="pick-source" type="file" accept=".zip,.tar,.gz,.tgz" disabled=move || !ui.ready.get() on:change=on_source /></label>
                <label class="button file-button">"Source folder…"
                    <input id="pick-folder" type="file" node_ref=folder_ref disabled=move || !ui.ready.get() on:change=on_folder /></label>
            </div>
            <Show when=move || !loaded()>
                <ol class="steps" aria-label="How it works">
                    <li>"Load a model"</li>
                    <li>"See the plan and what it costs"</li>
                    <li>"Explain it with your provider"</li>
                </ol>
            </Show>
            <ModelStatus />
            <SourceStatus />
            <StoreLine />
        </section>
    }
}

#[component]
fn ModelStatus() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        match ui.load.get() {
        Load::Idle => view! { <div id="model-status" data-state="idle"></div> }.into_any(),
        Load::Reading { bytes, total } => {
            let text = match total {
                Some(t) => format!("reading the model: {} of {}", mb(bytes), mb(t)),
                None => format!("reading the model: {}", mb(bytes)),
            };
            view! {
                <div id="model-status" data-state="reading">
                    <progress max=total.unwrap_or(0) as f64 value=bytes as f64></progress>
                    <p>{text}</p>
                </div>
            }
            .into_any()
        }
        Load::Loaded(s) => view! {
            <div
                id="model-status"
                data-state="loaded"
                data-millis=s.millis.to_string()
                data-wasm-memory=s.wasm_memory_bytes.to_string()
                data-entities=s.entities.to_string()
                data-edges=s.edges.to_string()
            >
                <p>{s.describe()}</p>
                <dl class="figures">
                    <dt>"language"</dt><dd>{s.lang.clone()}</dd>
                    <dt>"files"</dt><dd>{group(s.files)}</dd>
                    <dt>"types"</dt><dd>{format!("{} in the corpus, {} outside (stubs)", group(s.corpus_types), group(s.stub_types))}</dd>
                    <dt>"modules"</dt><dd>{group(s.corpus_modules)}</dd>
                    <dt>"entities"</dt><dd>{group(s.entities)}</dd>
                    <dt>"edges"</dt><dd>{group(s.edges)}</dd>
                </dl>
                {(s.findings > 0).then(|| view! {
                    <p class="warning">{format!("{} finding(s): the model is usable, but `codegraph-insights model check` lists what is odd about it", s.findings)}</p>
                })}
            </div>
        }
        .into_any(),
        Load::Failed(e) => view! {
            <div id="model-status" class="error" role="alert" data-state="failed" data-line=e.line.to_string() data-rule=e.rule.clone()>
                <p>{if e.line > 0 { format!("This model could not be read: line {} breaks the rule {}.", e.line, e.rule) } else { "This model could not be read.".to_owned() }}</p>
                <p class="error-text">{e.text}</p>
                <p class="hint">"Nothing of it was kept; load another file."</p>
            </div>
        }
        .into_any(),
    }
    }
}

#[component]
fn SourceStatus() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        match ui.source.get() {
        Source::None => {
            let has_model = matches!(ui.load.get(), Load::Loaded(_));
            view! {
                <p id="source-status" data-state="none" class="hint">
                    {has_model.then_some("No source yet: prompts will carry the model's facts but no code. Add the source archive for better explanations.")}
                </p>
            }
            .into_any()
        }
        Source::Reading => view! { <p id="source-status" data-state="reading">"reading the source…"</p> }.into_any(),
        Source::Loaded(s) => view! {
            <p id="source-status" data-state="loaded" data-matched=s.matched.to_string() data-wanted=s.wanted.to_string()>
                {format!("source: {}", s.describe())}
            </p>
        }
        .into_any(),
        Source::Failed(m) => view! { <p id="source-status" class="error" role="alert" data-state="failed">{m}</p> }.into_any(),
    }
    }
}

#[component]
fn StoreLine() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        ui.store.get().map(|s| {
            let kept = if s.records > 0 {
                format!("{} records kept from earlier runs will be reused", group(s.records))
            } else {
                "no records yet".to_owned()
            };
            let interrupted = (s.interrupted > 0).then(|| {
                format!(" · {} run(s) ended when a tab closed; what they committed is kept and a new run continues from there", s.interrupted)
            });
            let failures = (s.failures > 0).then(|| format!(" · {} failed unit(s) owed", s.failures));
            let read_only = s.read_only.is_some().to_string();
            view! {
                <div id="store-status" data-records=s.records.to_string() data-read-only=read_only>
                    <p>{format!("store {}: {kept}", s.name.trim_start_matches('/'))}{interrupted}{failures}</p>
                    {s.read_only.map(|why| view! { <p id="read-only" class="warning" role="status">{why}</p> })}
                </div>
            }
        })
    }
}
