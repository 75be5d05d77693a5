//! What every shell does around a run, written once: the side-car header a
//! run begins with, the natural keys of its records, and the trailer and
//! ledger line it ends with. The CLI and the page's Worker both call these;
//! the clock and the store stay with them.

use crate::plan::PlanOptions;
use crate::record::{HeaderModels, HeaderSource, HeaderView, NaturalKey, SidecarHeader, Trailer, TrailerCounts};
use crate::run::RunResult;
use crate::units::Corpus;
use crate::vocab::{INSIGHTS_GENERATOR, INSIGHTS_METAMODEL, PROMPT_VERSION};

/// The header of a run over `corpus` (docs/formats/sidecar.md §2). `provider` is
/// the provider's configured name (`openrouter`, `cloudflare/…`); only its first
/// segment is kept. `model_path` is the model as the user named it (a path or a
/// file name).
pub fn header(corpus: &Corpus<'_>, options: &PlanOptions, provider: Option<&str>, model_path: &str) -> SidecarHeader {
    let view = corpus.view.descriptor();
    SidecarHeader {
        generated_by: INSIGHTS_GENERATOR.into(),
        prompt_version: PROMPT_VERSION.into(),
        metamodel: INSIGHTS_METAMODEL.into(),
        models: HeaderModels { leaf: options.models.leaf.clone(), rollup: options.models.rollup.clone() },
        provider: provider.filter(|p| !p.is_empty()).map(|p| p.split('/').next().unwrap_or(p).to_owned()),
        depth: options.depth,
        source: HeaderSource {
            paths: vec![model_path.to_owned()],
            langs: vec![corpus.graph.model().lang().to_owned()],
            view: HeaderView { name: view.name.clone(), filters: view.filters.clone() },
        },
    }
}

/// The natural key of an entity id of the corpus, for its record (`key`,
/// docs/formats/sidecar.md §2).
pub fn natural_key(corpus: &Corpus<'_>, id: &str) -> Option<NaturalKey> {
    let i = corpus.graph.index_of(id)?;
    let m = corpus.graph.model();
    let e = m.entity(i);
    Some(NaturalKey {
        lang: m.lang().to_owned(),
        module: e.module_path().to_owned(),
        symbol: e.symbol().to_owned(),
        disambiguator: e.disambiguator().map(str::to_owned),
    })
}

/// The trailer of a finished run (docs/formats/sidecar.md §2): `records` is what
/// the store holds now.
pub fn trailer(result: &RunResult, records: u64, generated_at: String) -> Trailer {
    let c = &result.counts;
    Trailer {
        counts: TrailerCounts {
            records,
            llm: c.llm,
            template: c.template,
            reused: c.reused,
            failed: result.failures.len() as u64,
        },
        usage: result.usage,
        generated_at,
    }
}

/// The ledger's `aborted` text of a run a provider refused (`"402: …"`), if it was.
pub fn aborted_text(result: &RunResult) -> Option<String> {
    result.aborted.as_ref().map(|a| {
        let code = a.reason.status.map_or(a.reason.kind.as_str().to_owned(), |s| s.to_string());
        format!("{code}: {}", a.reason.message)
    })
}

/// What to tell a user whose run a provider refused: the status, what it
/// means, and what to do.
pub fn abort_advice(status: Option<u16>) -> &'static str {
    match status {
        Some(401) => "the provider did not accept the key: check that it is complete and still valid",
        Some(402) => "the account has too little credit for these calls: add credit, or lower the output cap (max tokens) so each call needs less",
        Some(403) => "the key is not allowed to use this model or route: check the key's permissions and the model name",
        Some(429) => "the provider asked to wait longer than a run waits (a quota or rate limit): run again later; committed units are kept",
        _ => "the provider refused further calls: fix the account and run again; committed units are kept",
    }
}

/// Call-needing units of `plan` that have source anchors: with no source
/// at all, these are the units a run would explain from the model's facts
/// alone (and a later run with source would re-explain and pay for again).
pub fn anchored_llm_units(corpus: &Corpus<'_>, plan: &crate::plan::RunPlan) -> u64 {
    let anchored = |id: &str| match corpus.operation(id) {
        Some((op, _)) => op.anchor.is_some(),
        None => corpus.dossier(id).is_some_and(|d| d.anchor.is_some()),
    };
    plan.steps
        .iter()
        .filter(|s| s.status == crate::plan::StepStatus::Llm)
        .filter(|s| corpus.walk.units[s.unit].members.iter().any(|m| anchored(m)))
        .count() as u64
}

/// The reasons `--retry-failed` retries, grouped by identical reason (kind,
/// status, message), most frequent first, then by text: at most five lines
/// `  <count> × <kind>[ <status>]: <message>` (a message over 160
/// characters cut to 157 and `...`), then `  … and K more reason(s)`.
pub fn retry_reason_lines(failures: &[crate::record::FailureRecord]) -> Vec<String> {
    let mut groups: Vec<(String, usize)> = Vec::new();
    for f in failures {
        let r = &f.reason;
        let mut message: String = r.message.clone();
        if message.chars().count() > 160 {
            message = message.chars().take(157).collect::<String>() + "...";
        }
        let text = match r.status {
            Some(s) => format!("{} {s}: {message}", r.kind.as_str()),
            None => format!("{}: {message}", r.kind.as_str()),
        };
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, n)) => *n += 1,
            None => groups.push((text, 1)),
        }
    }
    groups.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut lines: Vec<String> = groups.iter().take(5).map(|(t, n)| format!("  {n} × {t}")).collect();
    if groups.len() > 5 {
        lines.push(format!("  … and {} more reason(s)", groups.len() - 5));
    }
    lines
}

/// A note when a retry's models or depth differ from those the records
/// were made with (the header): those units' fingerprints change, so they
/// are redone; running with the old settings would keep them.
pub fn settings_note(recorded: &SidecarHeader, options: &PlanOptions) -> Option<String> {
    let (m, o) = (&recorded.models, &options.models);
    if m.leaf == o.leaf && m.rollup == o.rollup && recorded.depth == options.depth {
        return None;
    }
    Some(format!(
        "note: the failures were recorded with models {} / {} and depth {}; this retry uses {} / {} and depth {}, so \
         units explained with the old settings are redone too (run with the old settings to keep them)",
        m.leaf, m.rollup, recorded.depth, o.leaf, o.rollup, options.depth
    ))
}

/// The rescue side-car of a run whose store refused a write: the run's
/// header, every answer and failure the store did not take, and no
/// trailer (it decodes as truncated, so importing it needs the user's word
/// and merges). `None` when nothing was lost.
pub fn rescue_sidecar(header: &SidecarHeader, result: &RunResult) -> Option<String> {
    if result.unsaved.is_empty() && result.unsaved_failures.is_empty() {
        return None;
    }
    let mut records: Vec<&crate::record::InsightRecord> = result.unsaved.iter().collect();
    records.sort_by(|a, b| crate::sidecar::record_order(a, b));
    let mut failures: Vec<&crate::record::FailureRecord> = result.unsaved_failures.iter().collect();
    failures.sort_by(|a, b| crate::sidecar::failure_order(a, b));
    let mut w = crate::sidecar::SidecarWriter::new(Vec::new(), header).ok()?;
    for r in records {
        w.record(r).ok()?;
    }
    for f in failures {
        w.failure(f).ok()?;
    }
    let bytes = w.finish(None).ok()?;
    String::from_utf8(bytes).ok()
}
