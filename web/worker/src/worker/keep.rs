//! Keep: the OPFS stores behind the Web Lock, the side-car export and import (merge for a cut-short one), the stores in this browser.

use super::*;

/// Takes the stores' Web Lock without waiting: `false` when another tab holds it.
pub(super) async fn take_store_lock() -> bool {
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

pub(super) async fn pool() -> Result<store::opfs::OpfsPool, WorkerError> {
    if let Some(p) = STATE.with(|s| s.borrow().pool.clone()) {
        return Ok(p);
    }
    let p = store::opfs::install().await.map_err(|e| e.to_string())?;
    STATE.with(|s| s.borrow_mut().pool = Some(p.clone()));
    Ok(p)
}

pub(super) const READ_ONLY: &str = "another tab of this page holds this browser's insights stores, so this tab is read-only: it can load and plan, but not run, import or delete. Close the other tab and reload to write here.";

/// Opens the store of the loaded model (after the stores' lock), closing runs
/// a closed tab left open, and tells the page.
pub(super) async fn open_store(name: &str) {
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

pub(super) async fn open_writer(name: &str) -> Result<(store::Store, u64), WorkerError> {
    let pool = pool().await?;
    let store = pool.open_writer(name).await.map_err(|e| e.to_string())?;
    // We hold the lock: any run still open was left by a closed tab.
    let closed = store.close_open_runs("interrupted")?;
    Ok((store, closed.len() as u64))
}

pub(super) fn current_store() -> Result<Rc<store::Store>, WorkerError> {
    STATE.with(|s| {
        let s = s.borrow();
        s.store.clone().ok_or_else(|| {
            WorkerError::Refused(
                s.read_only.clone().unwrap_or_else(|| "no model is loaded, so there is no store yet".to_owned()),
            )
        })
    })
}

pub(super) fn store_status(store: &store::Store) -> StoreStatus {
    StoreStatus {
        name: STATE.with(|s| s.borrow().store_name.clone()).unwrap_or_default(),
        records: store.count().unwrap_or(0),
        failures: store.failures().map(|f| f.len() as u64).unwrap_or(0),
        interrupted: 0,
        read_only: None,
    }
}

pub(super) fn sidecar_name() -> String {
    let name = STATE.with(|s| s.borrow().loaded.as_ref().map(|l| l.name.clone())).unwrap_or_else(|| "model".into());
    let stem = name.split(['?', '#']).next().unwrap_or_default();
    let stem = stem.strip_suffix(".jsonl").unwrap_or(stem);
    format!("{}.insights.jsonl", if stem.is_empty() { "model" } else { stem })
}

pub(super) fn export_sidecar() {
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

/// Records checked against the loaded model before an import.
const FOREIGN_SAMPLE: usize = 200;

/// Why `sc` seems to be another model's side-car: most of its first
/// [`FOREIGN_SAMPLE`] records name ids this model does not have. `None` when
/// at least half of them are the model's (or it has no records).
pub(super) fn foreign_sidecar(model: &model::Model, sc: &insights::sidecar::Sidecar) -> Option<String> {
    let sample: Vec<&str> = sc.records.iter().take(FOREIGN_SAMPLE).map(|r| r.id.as_str()).collect();
    if sample.is_empty() {
        return None;
    }
    let mut ids = hashbrown::HashSet::with_capacity(model.entity_count() as usize);
    let mut id = String::new();
    for i in 0..model.entity_count() {
        id.clear();
        model.write_id(i, &mut id);
        ids.insert(id.clone());
    }
    let unknown = sample.iter().filter(|r| !ids.contains(**r)).count();
    (unknown * 2 > sample.len()).then(|| {
        format!(
            "it seems to be another model's side-car: {unknown} of the {} records checked name nothing in this model",
            sample.len()
        )
    })
}

pub(super) async fn import_sidecar(data: &JsValue, name: &str, replace: bool) {
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
        let foreign = loaded().ok().and_then(|(model, _)| foreign_sidecar(&model, &sc));
        if (held > 0 || truncated.is_some() || foreign.is_some()) && !replace {
            return Ok(FromWorker::ImportNeedsConfirm {
                held,
                incoming: sc.records.len() as u64,
                name: name.to_owned(),
                truncated,
                foreign,
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

pub(super) fn list_stores() {
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
pub(super) fn close_if_current(name: &str) -> Result<bool, WorkerError> {
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

pub(super) async fn delete_store(name: &str) -> Result<(), WorkerError> {
    let pool = pool().await?;
    let was_current = close_if_current(name)?;
    pool.delete(name).map_err(|e| e.to_string())?;
    if was_current {
        open_store(name).await;
    }
    list_stores();
    Ok(())
}

pub(super) async fn export_store(name: &str) -> Result<(), WorkerError> {
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
