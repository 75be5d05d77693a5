//! What every shell does around a run, written once: the side-car header a
//! run begins with, the natural keys of its records, and the trailer and
//! ledger line it ends with. The CLI and the page's Worker both call these;
//! the clock and the store stay with them.

use crate::plan::PlanOptions;
use crate::record::{HeaderModels, HeaderSource, HeaderView, NaturalKey, SidecarHeader, Trailer, TrailerCounts};
use crate::run::RunResult;
use crate::units::Corpus;
use crate::vocab::{INSIGHTS_GENERATOR, INSIGHTS_METAMODEL, PROMPT_VERSION};

/// The header of a run over `corpus` (§15.2). `provider` is the provider's
/// configured name (`openrouter`, `cloudflare/…`); only its first segment is
/// kept. `model_path` is the model as the user named it (a path or a file name).
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

/// The natural key of an entity id of the corpus, for its record (§13.2).
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

/// The trailer of a finished run (§15.5): `records` is what the store holds now.
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
        _ => "the provider refused further calls: fix the account and run again; committed units are kept",
    }
}
