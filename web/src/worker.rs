//! The dedicated Worker: owns all state; talks to the page only through
//! [`crate::protocol`] messages.

use crate::protocol::{self, FromWorker, LoadError, ModelSummary, PlanSummary, ToWorker};
use crate::wire;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, ReadableStreamDefaultReader, Response};

thread_local! {
    /// The model the worker holds (the page never gets it, only summaries).
    static MODEL: RefCell<Option<model::Model>> = const { RefCell::new(None) };
}

pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();

    let reply_scope = scope.clone();
    let onmessage =
        Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| match wire::from_js::<ToWorker>(ev.data()) {
            Ok(ToWorker::LoadModelUrl { url }) => {
                let scope = reply_scope.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let answer = match load_url(&scope, &url).await {
                        Ok(summary) => FromWorker::ModelLoaded { summary },
                        Err(error) => FromWorker::ModelFailed { error },
                    };
                    post(&scope, &answer);
                });
            }
            Ok(ToWorker::PlanModel) => {
                let answer = match plan_loaded() {
                    Ok(summary) => FromWorker::Planned { summary },
                    Err(message) => FromWorker::PlanFailed { message },
                };
                post(&reply_scope, &answer);
            }
            Ok(msg) => post(&reply_scope, &protocol::handle(msg)),
            Err(e) => post(&reply_scope, &FromWorker::Error { message: format!("unreadable message: {e}") }),
        });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();

    // Messages the page sent while our wasm was still loading had no
    // listener and are gone, so announce ourselves now.
    post(&scope, &FromWorker::ready());
}

fn post(scope: &DedicatedWorkerGlobalScope, msg: &FromWorker) {
    let sent = wire::to_js(msg).and_then(|v| scope.post_message(&v).map_err(|e| format!("{e:?}")));
    if let Err(e) = sent {
        web_sys::console::error_1(&format!("worker: cannot post {msg:?}: {e}").into());
    }
}

fn fetch_error(url: &str, what: impl std::fmt::Display) -> LoadError {
    LoadError { line: 0, rule: "fetch".into(), text: format!("{url}: {what}") }
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| format!("{v:?}"))
}

/// Bytes of the worker's wasm memory (it only grows, so this is the peak).
fn wasm_memory_bytes() -> u64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as u64
}

/// Fetches `url` and reads it as a model, chunk by chunk as the bytes arrive,
/// posting progress about every 1% (or 4 MiB when the size is unknown).
async fn load_url(scope: &DedicatedWorkerGlobalScope, url: &str) -> Result<ModelSummary, LoadError> {
    let started = js_sys::Date::now();
    MODEL.with(|m| m.borrow_mut().take());
    let response: Response =
        JsFuture::from(scope.fetch_with_str(url)).await.map_err(|e| fetch_error(url, js_text(&e)))?.unchecked_into();
    if !response.ok() {
        return Err(fetch_error(url, format!("HTTP {} {}", response.status(), response.status_text())));
    }
    let total = response.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<u64>().ok());
    let body = response.body().ok_or_else(|| fetch_error(url, "the response has no body"))?;
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let name = url.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or(url).to_owned();
    let mut model_reader = model::ModelReader::new(&name);
    let step = total.map_or(4 << 20, |t| (t / 100).max(1 << 20));
    let mut next_report = 0u64;
    let mut bytes = 0u64;
    let mut buf = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|e| fetch_error(url, js_text(&e)))?;
        let done = js_sys::Reflect::get(&chunk, &"done".into()).map(|d| d.is_truthy()).unwrap_or(true);
        if done {
            break;
        }
        let value: js_sys::Uint8Array =
            js_sys::Reflect::get(&chunk, &"value".into()).map_err(|e| fetch_error(url, js_text(&e)))?.unchecked_into();
        buf.resize(value.length() as usize, 0);
        value.copy_to(&mut buf);
        bytes += buf.len() as u64;
        model_reader.push_chunk(&buf).map_err(|e| LoadError::from(&e))?;
        if bytes >= next_report {
            post(scope, &FromWorker::LoadProgress { bytes, total });
            next_report = bytes + step;
        }
    }
    drop(buf);
    let model = model_reader.finish().map_err(|e| LoadError::from(&e))?;
    let millis = js_sys::Date::now() - started;
    let summary = ModelSummary::of(&model, &name, bytes, millis, wasm_memory_bytes());
    MODEL.with(|m| *m.borrow_mut() = Some(model));
    Ok(summary)
}

/// Plans the loaded model exactly as `codegraph-insights explain MODEL
/// --dry-run` does with no flags: all entities, no framework, default plan
/// options, no source and no records. Corpus and plan are dropped here.
fn plan_loaded() -> Result<PlanSummary, String> {
    use insights::plan::{plan_run, PlanOptions};
    use insights::records::NoRecords;
    use insights::slice::SourceSlicer;
    use insights::units::Corpus;

    let started = js_sys::Date::now();
    MODEL.with(|m| {
        let m = m.borrow();
        let model = m.as_ref().ok_or("no model is loaded: load one with ?model=URL first")?;
        let view = analyzer::view::View::from_flags(false, false);
        let corpus = Corpus::build(model, view, None).map_err(|e| e.to_string())?;
        let options = PlanOptions::default();
        let source = sources::MemorySources::default();
        let slicer = SourceSlicer::new(&source, options.max_lines);
        let plan = plan_run(&corpus, &slicer, &NoRecords, &options);
        let total = plan.estimates.total;
        let summary = PlanSummary {
            units: corpus.walk.units.len() as u64,
            layers: corpus.walk.layers.len() as u64,
            calls: total.calls,
            prompt_tokens: total.prompt_tokens,
            completion_tokens: total.completion_tokens,
            millis: js_sys::Date::now() - started,
            wasm_memory_bytes: wasm_memory_bytes(),
        };
        drop(plan);
        drop(corpus);
        Ok(summary)
    })
}
