//! The page: a Leptos CSR app that starts the dedicated Worker and shows
//! what it says.

use crate::protocol::{FromWorker, ToWorker, PROTOCOL_VERSION};
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

#[component]
fn App() -> impl IntoView {
    let (status, set_status) = signal(String::from("starting worker…"));

    match spawn_worker(set_status) {
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
        </main>
    }
}

fn spawn_worker(set_status: WriteSignal<String>) -> Result<Worker, String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("{e:?}"))?;

    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        match wire::from_js::<FromWorker>(ev.data()) {
            Ok(FromWorker::Ready { version, protocol }) if protocol == PROTOCOL_VERSION => {
                set_status.set(format!("worker ready: {version}"))
            }
            Ok(FromWorker::Ready { protocol, .. }) => set_status.set(format!(
                "worker speaks protocol {protocol}, page speaks {PROTOCOL_VERSION}"
            )),
            Ok(FromWorker::Error { message }) => set_status.set(format!("worker error: {message}")),
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
    let hello = wire::to_js(&ToWorker::Hello {
        protocol: PROTOCOL_VERSION,
    })?;
    worker.post_message(&hello).map_err(|e| format!("{e:?}"))?;
    Ok(worker)
}
