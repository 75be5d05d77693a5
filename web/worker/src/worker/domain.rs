//! Domain: the loaded model's domain view from its store (`domain`), the
//! context map laid out for the page, and the view's Markdown as one zip.

use super::*;

/// The facts of the loaded model, the store's records and failures, and
/// the stale verdicts of the last plan: the view.
fn build() -> Result<(::domain::DomainView, Option<String>), WorkerError> {
    let (model, name) = loaded()?;
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else {
        return Err("no store is open for this model yet: explain it, or import a side-car".into());
    };
    let corpus = Corpus::build(&model, analyzer::view::View::all(), None).map_err(|e| format!("{name}: {e}"))?;
    let records = store.records().map_err(|e| e.to_string())?;
    let failures = store.failures().map_err(|e| e.to_string())?;
    let (stale, planned) = STATE.with(|s| {
        let s = s.borrow();
        (s.stale.clone(), s.verdict.is_some())
    });
    let unchecked = (!planned).then(|| "no plan has checked the records against the code yet".to_owned());
    let view = ::domain::domain_view(&::domain::Inputs {
        facts: &corpus.facts,
        records: &records,
        failures: &failures,
        stale: &stale,
    });
    Ok((view, unchecked))
}

/// Contexts drawn at most: the most connected (the map of a large model
/// would be unreadable whole; the page says how many are left out).
const MAP_CONTEXTS: usize = 40;

/// The context map laid out by the navigator: the [`MAP_CONTEXTS`] most
/// connected contexts and the edges between them; a node's `node` is its
/// index in `view.contexts`, an arc's count its evidence.
fn map_of(view: &::domain::DomainView) -> navigator::GraphView {
    let at = |key: &str| view.contexts.iter().position(|c| c.key == key);
    let mut weight = vec![0u64; view.contexts.len()];
    let mut arcs = Vec::new();
    for e in &view.context_map {
        if let (Some(f), Some(t)) = (at(&e.from), at(&e.to)) {
            weight[f] += e.evidence;
            weight[t] += e.evidence;
            arcs.push((f, t, u32::try_from(e.evidence).unwrap_or(u32::MAX)));
        }
    }
    let mut chosen: Vec<usize> = (0..view.contexts.len()).collect();
    chosen.sort_by(|a, b| weight[*b].cmp(&weight[*a]).then(a.cmp(b)));
    let left_out = chosen.len().saturating_sub(MAP_CONTEXTS);
    chosen.truncate(MAP_CONTEXTS);
    chosen.sort_unstable();
    let local = |c: usize| chosen.binary_search(&c).ok().map(|k| k as u32);
    let boxes: Vec<navigator::Boxed> = chosen
        .iter()
        .map(|&c| {
            let c = &view.contexts[c];
            navigator::Boxed {
                id: c.key.clone(),
                name: c.name.clone(),
                label: c.name.clone(),
                category: "context".into(),
            }
        })
        .collect();
    let arcs: Vec<(u32, u32, u32)> = arcs.into_iter().filter_map(|(f, t, n)| Some((local(f)?, local(t)?, n))).collect();
    let mut map = navigator::layered(&boxes, &arcs);
    for n in &mut map.nodes {
        n.node = chosen[n.node as usize] as u32;
    }
    for e in &mut map.edges {
        e.from = chosen[e.from as usize] as u32;
        e.to = chosen[e.to as usize] as u32;
    }
    map.left_out = left_out;
    map
}

pub(super) fn domain_view() {
    let started = now_ms();
    let shown = build().map_err(String::from).map(|(mut view, unchecked)| {
        let map = map_of(&view);
        // The page shows no evidence samples (the Markdown and the JSON
        // do): the message stays small on a large model.
        for e in &mut view.context_map {
            e.samples.clear();
        }
        Box::new(web::protocol::DomainShown { view, map, millis: now_ms() - started, unchecked })
    });
    post(&FromWorker::Domain { shown });
}

/// `<model stem>.domain.zip`: the Markdown files `codegraph-insights domain
/// --format md` writes, under a folder of that name.
pub(super) fn domain_zip() -> Result<(), WorkerError> {
    use std::io::Write as _;
    let (view, _) = build()?;
    let (_, name) = loaded()?;
    let file = name.rsplit('/').next().unwrap_or(&name);
    let stem = file.strip_suffix(".jsonl").unwrap_or(file);
    let folder = format!("{stem}.domain");
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
