//! Load: the model and the sources, fetched or read from files and folders, streamed with progress.

use super::*;

pub(super) async fn fetch_response(url: &str) -> Result<web_sys::Response, WorkerError> {
    let response: web_sys::Response =
        JsFuture::from(scope().fetch_with_str(url)).await.map_err(|e| js_text(&e))?.unchecked_into();
    if !response.ok() {
        return Err(WorkerError::Browser(format!("HTTP {} {}", response.status(), response.status_text())));
    }
    Ok(response)
}

pub(super) async fn fetch_stream(url: &str) -> Result<(ReadableStreamDefaultReader, Option<u64>), WorkerError> {
    let response = fetch_response(url).await?;
    let total = response.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<u64>().ok());
    let body = response.body().ok_or("the response has no body")?;
    Ok((body.get_reader().unchecked_into(), total))
}

pub(super) async fn fetch_bytes(url: &str) -> Result<Vec<u8>, WorkerError> {
    let response = fetch_response(url).await?;
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| js_text(&e))?).await.map_err(|e| js_text(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

pub(super) async fn file_bytes(file: &web_sys::File) -> Result<Vec<u8>, WorkerError> {
    let buffer = JsFuture::from(file.array_buffer()).await.map_err(|e| js_text(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Reads a model from a byte stream, chunk by chunk as the bytes arrive,
/// posting progress about every 1% (or 4 MiB when the size is unknown).
pub(super) async fn read_model(
    reader: ReadableStreamDefaultReader,
    total: Option<u64>,
    name: &str,
    started: f64,
) -> Result<(model::Model, ModelSummary), LoadError> {
    // The facts the Domain tab kept belong to the model being replaced.
    super::domain::forget();
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
pub(super) async fn model_read(answer: Result<(model::Model, ModelSummary), LoadError>) {
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
    // The navigator and the cycle list are prepared in the idle time after
    // the load (`prepare_soon`), or when first asked for; the explore index
    // after the plan.
    let model = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.nav = None;
        s.cycles = None;
        s.expanded.clear();
        s.stale.clear();
        s.loaded.as_ref().map(|l| l.model.clone())
    });
    EXPLORE.with(|e| e.borrow_mut().take());
    post(&FromWorker::ModelLoaded { summary });
    if has_source {
        announce_source();
    }
    open_store(&store_name).await;
    if let Some(model) = model {
        prepare_soon(&model);
    }
}

pub(super) fn parse_archive(name: &str, bytes: &[u8]) -> Result<Source, WorkerError> {
    post(&FromWorker::LoadProgress {
        input: Input::Source,
        bytes: bytes.len() as u64,
        total: Some(bytes.len() as u64),
    });
    sources::Archive::parse(name, bytes).map(Source::Archive).map_err(|e| WorkerError::Refused(e.to_string()))
}

/// A folder picked with the directory picker: every file under its
/// `webkitRelativePath`, without the picked folder's own name.
pub(super) async fn read_folder(files: &JsValue) -> Result<Source, WorkerError> {
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

pub(super) fn source_read(source: Result<Source, WorkerError>, name: String) {
    match source {
        Ok(source) => {
            STATE.with(|s| s.borrow_mut().source = Some((Rc::new(source), name)));
            announce_source();
        }
        Err(e) => post(&FromWorker::SourceFailed { message: e.to_string() }),
    }
}

/// How many of the model's files a picked folder holds.
pub(super) fn folder_summary(source: Rc<Source>, name: &str, paths: &[&str]) -> (Rc<Source>, SourceSummary) {
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
pub(super) fn announce_source() {
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
