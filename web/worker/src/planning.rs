//! What the Worker does to plan (pure, so it is tested natively): the
//! settings checked and resolved against the corpus, the engine's plan,
//! and the page's view of it — totals per level, layer and status, and the
//! table of steps the page pages through.

use insights::plan::{RunPlan, StepStatus};
use insights::records::RecordSource;
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use web::protocol::{Figures, PlanRow, PlanSettings, PlanView, RowPage, RowQuery};

/// The most rows one page may ask for.
pub const MAX_PAGE: u64 = 500;

/// The plan's steps as rows, in walk order.
#[derive(Debug, Default, Clone)]
pub struct PlanTable {
    rows: Vec<PlanRow>,
}

/// The settings resolved against the corpus (the engine's one resolver),
/// worded for the page.
pub fn options(
    corpus: &Corpus<'_>,
    settings: &PlanSettings,
    failed_members: &[String],
) -> Result<insights::plan::PlanOptions, String> {
    settings.resolve(corpus, failed_members).map_err(|e| match e {
        insights::settings::SettingsError::Scope(e) => {
            format!("scope: {e} (ids look like java:com.acme.order or java:com.acme.order/Order)")
        }
        other => other.to_string(),
    })
}

/// Plans `corpus` with `settings` against `records`.
pub fn plan(
    corpus: &Corpus<'_>,
    slicer: &SourceSlicer<'_>,
    records: &dyn RecordSource,
    settings: &PlanSettings,
    failed_members: &[String],
) -> Result<(insights::plan::PlanOptions, RunPlan), String> {
    let options = options(corpus, settings, failed_members)?;
    let plan = insights::plan::plan_run(corpus, slicer, records, &options);
    Ok((options, plan))
}

fn add(f: &mut Figures, units: u64, calls: u64, prompt: u64, completion: u64) {
    f.units += units;
    f.calls += calls;
    f.prompt_tokens += prompt;
    f.completion_tokens += completion;
}

/// The page's view of `plan` and its table. `model_name` names the model in
/// the estimate text; timings are the shell's.
pub fn view(
    corpus: &Corpus<'_>,
    plan: &RunPlan,
    settings: &PlanSettings,
    options: &insights::plan::PlanOptions,
    model_name: &str,
    notes: Vec<String>,
) -> (PlanView, PlanTable) {
    let walk = &corpus.walk;
    let mut by_layer = vec![Figures::default(); walk.layers.len()];
    let mut rows = Vec::with_capacity(plan.steps.len());
    for (i, s) in plan.steps.iter().enumerate() {
        let unit = &walk.units[s.unit];
        if let Some(f) = by_layer.get_mut(unit.layer as usize) {
            add(f, 1, s.calls, s.prompt_tokens, s.completion_tokens);
        }
        rows.push(PlanRow {
            step: i as u64,
            layer: unit.layer,
            level: unit.level.as_str().to_owned(),
            unit: unit.id.clone(),
            members: unit.members.len() as u32,
            status: s.status.as_str().to_owned(),
            calls: s.calls,
            prompt_tokens: s.prompt_tokens,
            completion_tokens: s.completion_tokens,
        });
    }
    let e = &plan.estimates;
    let figures = |t: &insights::plan::Totals| Figures {
        units: t.units,
        calls: t.calls,
        prompt_tokens: t.prompt_tokens,
        completion_tokens: t.completion_tokens,
    };
    let by_level = insights::vocab::Level::ALL.iter().map(|l| (l.as_str().to_owned(), figures(e.level(*l)))).collect();
    let by_status = StepStatus::ALL.iter().map(|s| (s.as_str().to_owned(), e.status(*s))).collect();
    let estimate_text =
        insights::report::estimate_text(&[model_name.to_owned()], walk, plan, &options.models, options.depth, None);
    let view = PlanView {
        settings: settings.clone(),
        total: figures(&e.total),
        layers: walk.layers.len() as u64,
        by_level,
        by_layer,
        by_status,
        cycles: walk.units.iter().filter(|u| u.is_cycle()).count() as u64,
        estimate_text,
        notes,
        facts_only_units: 0,
        millis: 0.0,
        wasm_memory_bytes: 0,
    };
    (view, PlanTable { rows })
}

/// What a scope may name: the corpus's modules, then its types (unit members
/// of those levels), each in walk order.
pub fn scope_candidates(corpus: &Corpus<'_>) -> Vec<String> {
    let level = |l: insights::vocab::Level| {
        corpus.walk.units.iter().filter(move |u| u.level == l).flat_map(|u| u.members.iter().cloned())
    };
    level(insights::vocab::Level::Module).chain(level(insights::vocab::Level::Type)).collect()
}

/// The candidates containing `text` (case-insensitive), at most `max`, and how many matched.
pub fn suggest(candidates: &[String], text: &str, max: usize) -> (Vec<String>, u64) {
    let needle = text.trim().to_lowercase();
    let mut ids = Vec::new();
    let mut matching = 0u64;
    for c in candidates.iter().filter(|c| needle.is_empty() || c.to_lowercase().contains(&needle)) {
        if ids.len() < max {
            ids.push(c.clone());
        }
        matching += 1;
    }
    (ids, matching)
}

impl PlanTable {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows matching `q`, from `q.offset`, at most `q.limit` (≤ [`MAX_PAGE`]).
    pub fn page(&self, q: &RowQuery) -> RowPage {
        let needle = q.text.trim().to_lowercase();
        let matches = |r: &&PlanRow| {
            q.level.as_deref().is_none_or(|l| r.level == l)
                && q.status.as_deref().is_none_or(|s| r.status == s)
                && (needle.is_empty() || r.unit.to_lowercase().contains(&needle))
        };
        let limit = q.limit.min(MAX_PAGE) as usize;
        let mut matching = 0u64;
        let mut rows = Vec::with_capacity(limit);
        for r in self.rows.iter().filter(matches) {
            if matching >= q.offset && rows.len() < limit {
                rows.push(r.clone());
            }
            matching += 1;
        }
        RowPage { query: q.clone(), matching, rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use insights::records::NoRecords;

    #[test]
    fn the_fixture_plans_as_the_cli_dry_run_does() {
        let m = crate::testing::fixture();
        let corpus = Corpus::build(&m, analyzer::view::View::all(), None).unwrap();
        let src = sources::MemorySources::default();
        let settings = PlanSettings::default();
        let slicer = SourceSlicer::new(&src, settings.max_lines);
        let (options, plan) = plan(&corpus, &slicer, &NoRecords, &settings, &[]).unwrap();
        let (view, table) = view(&corpus, &plan, &settings, &options, "model.jsonl", vec![]);
        assert_eq!((view.total.units, view.layers, view.total.calls), (77, 8, 68));
        assert_eq!(view.total.completion_tokens, 36_650);
        assert_eq!(view.status("template"), 9);
        assert_eq!(view.by_level[0], ("operation".into(), Figures { units: 57, calls: 48, ..view.by_level[0].1 }));
        assert_eq!((view.by_level[1].1.units, view.by_level[1].1.calls), (17, 17));
        assert_eq!((view.by_level[2].1.units, view.by_level[2].1.calls), (3, 3));
        assert_eq!(view.by_layer.iter().map(|f| f.units).sum::<u64>(), 77);
        assert_eq!(view.by_layer.iter().map(|f| f.calls).sum::<u64>(), 68);
        assert_eq!(view.cycles, 2, "{{Basket, Basket.Cursor}} and {{Money, Priceable}}");
        assert!(view.estimate_text.starts_with("explain estimate: model.jsonl"), "{}", view.estimate_text);
        assert_eq!(table.len(), 77);

        let all = table.page(&RowQuery { limit: 1000, ..Default::default() });
        assert_eq!((all.matching, all.rows.len()), (77, MAX_PAGE.min(77) as usize));
        assert!(all.rows.windows(2).all(|w| w[0].layer <= w[1].layer), "walk order is by layer");
        let types = table.page(&RowQuery { limit: 5, offset: 15, level: Some("type".into()), ..Default::default() });
        assert_eq!((types.matching, types.rows.len()), (17, 2));
        let cycles: Vec<&PlanRow> = all.rows.iter().filter(|r| r.members > 1).collect();
        assert_eq!(cycles.len(), 2);
        let money = table.page(&RowQuery { limit: 50, text: "MONEY".into(), ..Default::default() });
        assert!(money.matching > 0 && money.rows.iter().all(|r| r.unit.to_lowercase().contains("money")));
        let templated = table.page(&RowQuery { limit: 50, status: Some("template".into()), ..Default::default() });
        assert_eq!(templated.matching, 9);
    }

    #[test]
    fn bad_settings_and_scopes_are_refused_with_the_reason() {
        let m = crate::testing::fixture();
        let corpus = Corpus::build(&m, analyzer::view::View::all(), None).unwrap();
        let src = sources::MemorySources::default();
        let slicer = SourceSlicer::new(&src, 200);
        let zero = PlanSettings { max_calls: Some(0), ..PlanSettings::default() };
        assert!(plan(&corpus, &slicer, &NoRecords, &zero, &[]).unwrap_err().contains("max calls"));
        let nowhere = PlanSettings { scope: vec!["java:no.such/Thing".into()], ..PlanSettings::default() };
        let e = plan(&corpus, &slicer, &NoRecords, &nowhere, &[]).unwrap_err();
        assert!(e.starts_with("scope: ") && e.contains("java:no.such/Thing"), "{e}");
        let retry = PlanSettings { retry_failed: true, ..PlanSettings::default() };
        assert!(plan(&corpus, &slicer, &NoRecords, &retry, &[]).unwrap_err().contains("no recorded failure"));
        let candidates = scope_candidates(&corpus);
        assert_eq!(candidates.len(), 3 + 19, "3 modules and 19 corpus types");
        let (ids, matching) = suggest(&candidates, "MONEY", 20);
        assert!(matching >= 1 && ids.iter().all(|i| i.to_lowercase().contains("money")), "{ids:?}");
        let (ids, matching) = suggest(&candidates, "", 5);
        assert_eq!((ids.len(), matching), (5, 22));
        let scoped = PlanSettings { scope: vec![ids[0].clone()], ..PlanSettings::default() };
        let (_, p) = plan(&corpus, &slicer, &NoRecords, &scoped, &[]).unwrap();
        assert!(p.estimates.status(StepStatus::SkipScope) > 0, "a scope skips what it does not name");
        let capped = PlanSettings { max_calls: Some(5), ..PlanSettings::default() };
        let (_, p) = plan(&corpus, &slicer, &NoRecords, &capped, &[]).unwrap();
        assert_eq!(p.estimates.total.calls, 5);
    }
}
