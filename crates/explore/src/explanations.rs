//! The explanations already paid for, as a map shows them: the record
//! summary's first sentence, marked generated, and flagged stale when the
//! record's fingerprint differs from the current plan's for its unit.

use hashbrown::HashMap;
use insights::plan::RunPlan;
use insights::records::RecordSource;
use insights::stale::{Freshness, Staleness};
use insights::walk::Walk;

/// One explanation of a symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The record's description (the map keeps its first sentence).
    pub description: String,
    /// The one verdict of `insights::stale` (current, or stale and why);
    /// `None` when not compared with a current plan.
    pub freshness: Option<Freshness>,
}

/// The lookup a map reads explanations through.
pub trait Explanations {
    /// The explanation of the entity with this rendered id, if one was bought.
    fn explanation(&self, id: &str) -> Option<Explanation>;
    /// How many explanations there are (0: none loaded).
    fn count(&self) -> usize;
}

/// No explanations at all.
pub struct NoExplanations;

impl Explanations for NoExplanations {
    fn explanation(&self, _: &str) -> Option<Explanation> {
        None
    }
    fn count(&self) -> usize {
        0
    }
}

/// Explanations from any [`RecordSource`] (a store, a side-car in memory),
/// judged by the one staleness verdict of `insights::stale` when given
/// ([`plan_verdict`]).
pub struct RecordExplanations<'a> {
    pub records: &'a dyn RecordSource,
    /// Every record's freshness against the current plan.
    pub verdict: Option<&'a Staleness>,
}

impl Explanations for RecordExplanations<'_> {
    fn explanation(&self, id: &str) -> Option<Explanation> {
        let summary = self.records.summary(id)?;
        let freshness = self.verdict.and_then(|v| v.get(id).cloned());
        Some(Explanation { description: summary.description, freshness })
    }
    fn count(&self) -> usize {
        self.records.size()
    }
}

/// Member id → the fingerprint `plan` gives the member's unit: what a
/// record of that member must carry to be current (a cycle's members share
/// their unit's fingerprint).
pub fn current_fingerprints(walk: &Walk, plan: &RunPlan) -> HashMap<String, String> {
    let mut out = HashMap::with_capacity(plan.steps.len());
    for step in &plan.steps {
        for member in &walk.units[step.unit].members {
            out.insert(member.clone(), step.fingerprint.clone());
        }
    }
    out
}

/// The staleness verdict of every record (`stamps`) against the current
/// plan, planned as `explain` plans by default with the models and depth a
/// side-car or store header records (build `corpus` with its view): the
/// same verdict the navigator's panel shows, with its reasons.
pub fn plan_verdict(
    corpus: &insights::units::Corpus<'_>,
    sources: &dyn sources::SourceReader,
    records: &dyn RecordSource,
    stamps: &HashMap<String, insights::stale::Stamp>,
    header: Option<&insights::record::SidecarHeader>,
) -> Staleness {
    let mut options = insights::plan::PlanOptions::default();
    if let Some(h) = header {
        options.models = insights::plan::Models { leaf: h.models.leaf.clone(), rollup: h.models.rollup.clone() };
        options.depth = h.depth;
    }
    let slicer = insights::slice::SourceSlicer::new(sources, options.max_lines);
    let plan = insights::plan::plan_run(corpus, &slicer, records, &options);
    let now = insights::stale::Basis::current(options.models.clone());
    let was = header.map_or_else(|| now.clone(), insights::stale::Basis::of_header);
    insights::stale::staleness(stamps, &was, &now, &corpus.walk, &plan)
}
