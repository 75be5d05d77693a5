//! Plan: the settings resolved and planned against the store, the paged table, staleness.

use super::*;

pub(super) fn loaded() -> Result<(Rc<model::Model>, String), WorkerError> {
    STATE.with(|s| {
        s.borrow()
            .loaded
            .as_ref()
            .map(|l| (l.model.clone(), l.name.clone()))
            .ok_or_else(|| WorkerError::Refused("no model is loaded: drop a model.jsonl or pick one first".to_owned()))
    })
}

pub(super) fn source() -> Option<Rc<Source>> {
    STATE.with(|s| s.borrow().source.as_ref().map(|(src, _)| src.clone()))
}

pub(super) fn failed_members(store: Option<&store::Store>) -> Vec<String> {
    store
        .and_then(|st| st.failures().ok())
        .map(|fs| fs.into_iter().flat_map(|f| f.members).collect())
        .unwrap_or_default()
}

pub(super) fn plan(settings: &PlanSettings) -> Result<(), WorkerError> {
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
    // The one staleness verdict: the navigator's panel shows its reasons,
    // explore marks its explanations by it.
    let verdict = store.as_deref().and_then(|st| verdict_of(st, &corpus, &plan, &options));
    let stale = verdict.as_ref().map(insights::stale::Staleness::reasons).unwrap_or_default();
    view.millis = now_ms() - started;
    view.wasm_memory_bytes = wasm_memory_bytes();
    let scope_ids = planning::scope_candidates(&corpus);
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.table = table;
        s.scope_ids = scope_ids;
        s.stale = stale;
        s.verdict = verdict.map(Rc::new);
    });
    post(&FromWorker::Planned { plan: view });
    // Once the plan is shown, the navigator (unless built) and then the
    // explore index are built in the idle time after it, so opening
    // Navigate or a first question does not wait for them.
    wasm_bindgen_futures::spawn_local(async {
        gloo_timers::future::TimeoutFuture::new(50).await;
        prepare_navigator();
        gloo_timers::future::TimeoutFuture::new(0).await;
        if let Ok((model, _)) = loaded() {
            explore_cell(&model);
        }
    });
    Ok(())
}

/// Every record of the store judged against this plan (`insights::stale`).
pub(super) fn verdict_of(
    store: &store::Store,
    corpus: &Corpus<'_>,
    plan: &insights::plan::RunPlan,
    options: &insights::plan::PlanOptions,
) -> Option<insights::stale::Staleness> {
    use insights::stale::{staleness, Basis};
    // The store knows the model each record's run asked for (a Model reason needs it).
    let (Ok(Some(header)), Ok(stamps)) = (store.header(), store.stamps()) else {
        return None;
    };
    Some(staleness(&stamps, &Basis::of_header(&header), &Basis::current(options.models.clone()), &corpus.walk, plan))
}

pub(super) fn rows(query: &RowQuery) {
    let page = STATE.with(|s| s.borrow().table.page(query));
    post(&FromWorker::PlanRows { page });
}
