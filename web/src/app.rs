//! The page: a Leptos CSR app that starts the dedicated Worker and shows
//! what it says. It renders only; the model lives in the Worker.

use crate::protocol::{FromWorker, LoadError, ModelSummary, PlanSummary, ToWorker, PROTOCOL_VERSION};
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

/// Where planning the loaded model stands (`?plan=1`).
#[derive(Clone, Debug, PartialEq)]
enum Planning {
    Idle,
    Running,
    Planned(PlanSummary),
    Failed(String),
}

/// A parameter of the page address, if present and not empty.
fn url_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get(name).filter(|s| !s.is_empty())
}

/// `?model=URL` from the page address, if any.
fn model_param() -> Option<String> {
    url_param("model")
}

/// `?plan=1`: plan the model once it is loaded.
fn plan_param() -> bool {
    url_param("plan").is_some_and(|v| v != "0")
}

#[component]
fn App() -> impl IntoView {
    let (status, set_status) = signal(String::from("starting worker…"));
    let (load, set_load) = signal(Load::Idle);
    let (planning, set_planning) = signal(Planning::Idle);

    match spawn_worker(set_status, set_load, set_planning, model_param(), plan_param()) {
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
            <PlanStatus planning=planning />
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

#[component]
fn PlanStatus(planning: ReadSignal<Planning>) -> impl IntoView {
    move || match planning.get() {
        Planning::Idle => ().into_any(),
        Planning::Running => view! {
            <section id="plan-status" data-state="planning">
                <p>"planning the model…"</p>
            </section>
        }
        .into_any(),
        Planning::Planned(s) => view! {
            <section
                id="plan-status"
                data-state="planned"
                data-millis=s.millis.to_string()
                data-wasm-memory=s.wasm_memory_bytes.to_string()
                data-units=s.units.to_string()
                data-calls=s.calls.to_string()
            >
                <p>{s.describe()}</p>
            </section>
        }
        .into_any(),
        Planning::Failed(message) => view! {
            <section id="plan-status" class="error" role="alert" data-state="failed">
                <p>"The model could not be planned."</p>
                <p class="error-text">{message}</p>
            </section>
        }
        .into_any(),
    }
}

fn spawn_worker(
    set_status: WriteSignal<String>,
    set_load: WriteSignal<Load>,
    set_planning: WriteSignal<Planning>,
    model_url: Option<String>,
    plan: bool,
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
            Ok(FromWorker::ModelLoaded { summary }) => {
                set_load.set(Load::Loaded(summary));
                if plan {
                    set_planning.set(Planning::Running);
                    if let Err(e) = wire::to_js(&ToWorker::PlanModel)
                        .and_then(|m| sender.post_message(&m).map_err(|e| format!("{e:?}")))
                    {
                        set_planning.set(Planning::Failed(format!("cannot ask the worker: {e}")));
                    }
                }
            }
            Ok(FromWorker::Planned { summary }) => set_planning.set(Planning::Planned(summary)),
            Ok(FromWorker::PlanFailed { message }) => set_planning.set(Planning::Failed(message)),
            Ok(FromWorker::ModelFailed { error }) => set_load.set(Load::Failed(error)),
            Err(e) => set_status.set(format!("unreadable worker message: {e}")),
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();

    let onerror = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
        set_status.set(format!("worker error: {}", ev.message()));
        // A trap while planning (e.g. wasm memory exhausted) ends the plan too.
        set_planning.update(|p| {
            if *p == Planning::Running {
                *p = Planning::Failed(format!("the worker failed: {}", ev.message()));
            }
        });
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();

    // The worker also announces itself unasked once its wasm is up; this
    // Hello covers the case where that announcement raced ahead of us.
    let hello = wire::to_js(&ToWorker::Hello { protocol: PROTOCOL_VERSION })?;
    worker.post_message(&hello).map_err(|e| format!("{e:?}"))?;
    Ok(worker)
}
