//! Domain: the loaded model's domain view from its store (`domain`), the
//! context map laid out for the page, and the view's Markdown as one zip.

use super::*;
use std::rc::Weak;

thread_local! {
    /// The facts of the model the view was last built for: the model does
    /// not change while it is loaded, so the tab opened again (after a run,
    /// an import) reads only the records again.
    static FACTS: RefCell<Option<(Weak<model::Model>, Rc<analyzer::facts::DomainFacts>)>> = const { RefCell::new(None) };
}

/// Drops the kept facts (a new model is being read).
pub(super) fn forget() {
    FACTS.with(|f| f.borrow_mut().take());
}

/// The loaded model's facts: [`Corpus::build`]'s, built once per model.
fn facts_of(model: &Rc<model::Model>, name: &str) -> Result<Rc<analyzer::facts::DomainFacts>, WorkerError> {
    let cached = FACTS.with(|f| {
        f.borrow().as_ref().filter(|(m, _)| Weak::ptr_eq(m, &Rc::downgrade(model))).map(|(_, facts)| facts.clone())
    });
    if let Some(facts) = cached {
        return Ok(facts);
    }
    let corpus = Corpus::build(model, analyzer::view::View::all(), None).map_err(|e| format!("{name}: {e}"))?;
    let facts = Rc::new(corpus.facts);
    FACTS.with(|f| *f.borrow_mut() = Some((Rc::downgrade(model), facts.clone())));
    Ok(facts)
}

/// The facts of the loaded model, the store's records and failures, and
/// the stale verdicts of the last plan: the view.
fn build(phases: &mut Vec<(String, f64)>) -> Result<(::domain::DomainView, Option<String>), WorkerError> {
    let mut t = now_ms();
    let mut lap = |what: &str, phases: &mut Vec<(String, f64)>| {
        let now = now_ms();
        phases.push((what.to_owned(), now - t));
        t = now;
    };
    let (model, name) = loaded()?;
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else {
        return Err("no store is open for this model yet: explain it, or import a side-car".into());
    };
    let facts = facts_of(&model, &name)?;
    lap("facts", phases);
    let records = store.scan_records().map_err(|e| e.to_string())?;
    let failures = store.failures().map_err(|e| e.to_string())?;
    lap("records", phases);
    // The verdicts are read where they are kept, not copied.
    let (view, planned) = STATE.with(|s| {
        let s = s.borrow();
        let inputs = ::domain::Inputs { facts: &facts, records: &records, failures: &failures, stale: &s.stale };
        (::domain::domain_view(&inputs), s.verdict.is_some())
    });
    let unchecked = (!planned).then(|| "no plan has checked the records against the code yet".to_owned());
    lap("view", phases);
    Ok((view, unchecked))
}

pub(super) fn domain_view() {
    let started = now_ms();
    let mut phases = Vec::new();
    let shown = build(&mut phases).map_err(String::from).map(|(mut view, unchecked)| {
        let t = now_ms();
        let map = ::domain::map::laid_out(&view);
        phases.push(("map".to_owned(), now_ms() - t));
        // The page shows no evidence samples (the Markdown and the JSON
        // do): the message stays small on a large model.
        for e in &mut view.context_map {
            e.samples.clear();
        }
        Box::new(web::protocol::DomainShown {
            view,
            map: map.graph,
            hidden_edges: map.hidden_edges as u64,
            millis: now_ms() - started,
            phases,
            unchecked,
        })
    });
    post(&FromWorker::Domain { shown });
}

/// `<model stem>.domain.zip`: the Markdown files `codegraph-insights domain
/// --format md` writes, under a folder of that name.
pub(super) fn domain_zip() -> Result<(), WorkerError> {
    use std::io::Write as _;
    let (view, _) = build(&mut Vec::new())?;
    let (_, name) = loaded()?;
    let folder = ::domain::markdown::folder_for(name.rsplit('/').next().unwrap_or(&name));
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (file, text) in ::domain::markdown::files(&view) {
        zip.start_file(format!("{folder}/{file}"), options).map_err(|e| e.to_string())?;
        zip.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    let bytes = zip.finish().map_err(|e| e.to_string())?.into_inner();
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    post_with(&FromWorker::DomainZip { name: format!("{folder}.zip") }, Some(("bytes", array.into())));
    Ok(())
}
