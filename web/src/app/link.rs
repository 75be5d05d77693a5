//! The page's side of the Worker link: start it, post typed messages (with
//! files beside them), hand its answers to [`Ui::apply`], and save
//! downloads.

use super::state::{Planning, Running, Ui};
use crate::protocol::{FromWorker, ToWorker, PROTOCOL_VERSION};
use crate::wire;
use leptos::prelude::*;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

/// The loader Trunk writes for the `worker` binary (`data-loader-shim`).
/// Trunk's loader uses `importScripts`, so this must be a classic worker.
const WORKER_URL: &str = "./worker_loader.js";

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

pub fn spawn(ui: Ui) -> Result<(), String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("{e:?}"))?;
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        match wire::from_js::<FromWorker>(data.clone()) {
            Ok(FromWorker::StoreFile { name }) => {
                if let Some(bytes) = beside(&data, "bytes") {
                    let file = name.trim_start_matches('/').to_owned();
                    download(&file, &bytes, "application/vnd.sqlite3");
                }
            }
            Ok(FromWorker::DomainZip { name }) => {
                if let Some(bytes) = beside(&data, "bytes") {
                    download(&name, &bytes, "application/zip");
                    ui.notice.set(Some(format!(
                        "{name} downloaded: the same Markdown as `codegraph-insights domain --format md`"
                    )));
                }
            }
            Ok(msg) => ui.apply(msg),
            Err(e) => ui.worker_problem(format!("unreadable worker message: {e}")),
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();

    let onerror = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |ev: web_sys::ErrorEvent| {
        let message = format!("the worker failed: {}", ev.message());
        ui.worker_problem(message.clone());
        // A trap (e.g. wasm memory exhausted) ends whatever was going.
        if ui.planning.get_untracked() == Planning::Running {
            ui.planning.set(Planning::Failed(message.clone()));
        }
        if ui.is_running() {
            ui.running.set(Running::Failed(message));
        }
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();
    WORKER.with(|w| *w.borrow_mut() = Some(worker));
    // The worker also announces itself unasked once its wasm is up; this
    // Hello covers the case where that announcement raced ahead of us.
    send(&ToWorker::Hello { protocol: PROTOCOL_VERSION });
    Ok(())
}

/// What travels beside a Worker message under `key` (in its body).
fn beside(msg: &JsValue, key: &str) -> Option<JsValue> {
    let body = wire::body(msg)?;
    js_sys::Reflect::get(&body, &key.into()).ok().filter(|v| !v.is_undefined())
}

/// Posts `msg` with `extra` (a `File`, an array of them) set beside it.
pub fn send_with(msg: &ToWorker, extra: Option<(&str, JsValue)>) {
    let sent = wire::to_js(msg).and_then(|v| {
        if let Some((k, x)) = &extra {
            js_sys::Reflect::set(&v, &JsValue::from_str(k), x).map_err(|e| format!("{e:?}"))?;
        }
        WORKER.with(|w| match w.borrow().as_ref() {
            Some(w) => w.post_message(&v).map_err(|e| format!("{e:?}")),
            None => Err("the worker is not running".into()),
        })
    });
    if let Err(e) = sent {
        web_sys::console::error_1(&format!("cannot reach the worker: {e}").into());
    }
}

pub fn send(msg: &ToWorker) {
    send_with(msg, None);
}

/// Offers `value` (a string or bytes) as a file download.
fn download(file_name: &str, value: &JsValue, mime: &str) {
    let parts = js_sys::Array::of1(value);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .or_else(|_| web_sys::Blob::new_with_str_sequence_and_options(&parts, &options))
    else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let document = web_sys::window().and_then(|w| w.document());
    if let Some(a) =
        document.and_then(|d| d.create_element("a").ok()).and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(file_name);
        a.click();
    }
    // Revoked once the browser has surely started the download.
    gloo_timers::callback::Timeout::new(60_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
}

/// This origin's localStorage, when the browser gives one.
pub fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// A parameter of the page address, if present.
pub fn url_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

pub fn download_text(file_name: &str, text: &str) {
    download(file_name, &JsValue::from_str(text), "application/jsonl");
}
