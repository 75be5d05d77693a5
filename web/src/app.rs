//! The page: a Leptos CSR app that starts the dedicated Worker and shows
//! what it says. It renders only; the model lives in the Worker.

use crate::protocol::{FromWorker, LoadError, ModelSummary, ToWorker, PROTOCOL_VERSION};
use crate::wire;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

/// The loader Trunk writes for the `worker` binary (`data-loader-shim`).
/// Trunk's loader uses `importScripts`, so this must be a classic worker.
const WORKER_URL: &str = "./worker_loader.js";

pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

/// Where loading a model stands, as the page shows it.
#[derive(Clone, Debug, PartialEq)]
enum Load {
    Idle,
    Reading { bytes: u64, total: Option<u64> },
    Loaded(ModelSummary),
    Failed(LoadError),
}

/// `?model=URL` from the page address, if any.
fn model_param() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get("model").filter(|s| !s.is_empty())
}

#[component]
fn App() -> impl IntoView {
    let (status, set_status) = signal(String::from("starting worker…"));
    let (load, set_load) = signal(Load::Idle);

    match spawn_worker(set_status, set_load, model_param()) {
        Ok(worker) => {
            // The page keeps the worker for its whole life.
            std::mem::forget(worker);
        }
        Err(e) => set_status.set(format!("worker failed to start: {e}")),
    }

    view! {
        <main>
            <h1>"codegraph insights"</h1>
            <p class="lede">
                "Explore a codegraph model in your browser: nothing leaves this page."
            </p>
            <p id="worker-status" class="status" data-testid="worker-status">{status}</p>
            <ModelStatus load=load />
        </main>
    }
}

#[component]
fn ModelStatus(load: ReadSignal<Load>) -> impl IntoView {
    move || {
        match load.get() {
        Load::Idle => view! { <section id="model-status" data-state="idle"></section> }.into_any(),
        Load::Reading { bytes, total } => {
            let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
            let text = match total {
                Some(t) => format!("reading the model: {} of {}", mb(bytes), mb(t)),
                None => format!("reading the model: {}", mb(bytes)),
            };
            view! {
                <section id="model-status" data-state="reading">
                    <progress max=total.unwrap_or(0) as f64 value=bytes as f64></progress>
                    <p>{text}</p>
                </section>
            }
            .into_any()
        }
        Load::Loaded(s) => view! {
            <section
                id="model-status"
                data-state="loaded"
                data-millis=s.millis.to_string()
                data-wasm-memory=s.wasm_memory_bytes.to_string()
                data-entities=s.entities.to_string()
                data-edges=s.edges.to_string()
            >
                <p>{s.describe()}</p>
            </section>
        }
        .into_any(),
        Load::Failed(e) => view! {
            <section id="model-status" class="error" role="alert" data-state="failed" data-line=e.line.to_string() data-rule=e.rule.clone()>
                <p>"This model could not be read."</p>
                <p class="error-text">{e.text}</p>
            </section>
        }
        .into_any(),
    }
    }
}

fn spawn_worker(
    set_status: WriteSignal<String>,
    set_load: WriteSignal<Load>,
    model_url: Option<String>,
) -> Result<Worker, String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("{e:?}"))?;

    let sender = worker.clone();
    let mut model_url = model_url;
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        match wire::from_js::<FromWorker>(ev.data()) {
            Ok(FromWorker::Ready { version, protocol }) if protocol == PROTOCOL_VERSION => {
                set_status.set(format!("worker ready: {version}"));
                // Ask for the model named in the address once, on the first Ready.
                if let Some(url) = model_url.take() {
                    set_load.set(Load::Reading { bytes: 0, total: None });
                    if let Err(e) = wire::to_js(&ToWorker::LoadModelUrl { url })
                        .and_then(|m| sender.post_message(&m).map_err(|e| format!("{e:?}")))
                    {
                        set_status.set(format!("cannot ask the worker: {e}"));
                    }
                }
            }
            Ok(FromWorker::Ready { protocol, .. }) => {
                set_status.set(format!("worker speaks protocol {protocol}, page speaks {PROTOCOL_VERSION}"))
            }
            Ok(FromWorker::Error { message }) => set_status.set(format!("worker error: {message}")),
            Ok(FromWorker::LoadProgress { bytes, total }) => set_load.set(Load::Reading { bytes, total }),
            Ok(FromWorker::ModelLoaded { summary }) => set_load.set(Load::Loaded(summary)),
            Ok(FromWorker::ModelFailed { error }) => set_load.set(Load::Failed(error)),
            Err(e) => set_status.set(format!("unreadable worker message: {e}")),
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();

    let onerror = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
        set_status.set(format!("worker error: {}", ev.message()));
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();

    // The worker also announces itself unasked once its wasm is up; this
    // Hello covers the case where that announcement raced ahead of us.
    let hello = wire::to_js(&ToWorker::Hello { protocol: PROTOCOL_VERSION })?;
    worker.post_message(&hello).map_err(|e| format!("{e:?}"))?;
    Ok(worker)
}
