//! The explanations already paid for, as a map shows them: the record
//! summary's first sentence, marked generated, and flagged stale when the
//! record's fingerprint differs from the current plan's for its unit.

use hashbrown::HashMap;
use insights::plan::RunPlan;
use insights::records::RecordSource;
use insights::walk::Walk;
use serde::Serialize;

/// Whether an explanation still describes the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Freshness {
    /// Its fingerprint is the current plan's: the code it explains is unchanged.
    Current,
    /// Its fingerprint differs: the code (or what it depends on) changed since.
    Stale,
    /// Not compared with a current plan.
    Unchecked,
}

/// One explanation of a symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The record's description (the map keeps its first sentence).
    pub description: String,
    pub freshness: Freshness,
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
/// checked against the current plan's fingerprints by member id when given
/// ([`current_fingerprints`]).
pub struct RecordExplanations<'a> {
    pub records: &'a dyn RecordSource,
    /// Member id → the fingerprint the current plan gives its unit.
    pub current: Option<&'a HashMap<String, String>>,
}

impl Explanations for RecordExplanations<'_> {
    fn explanation(&self, id: &str) -> Option<Explanation> {
        let summary = self.records.summary(id)?;
        let freshness = match self.current.map(|c| c.get(id)) {
            None | Some(None) => Freshness::Unchecked,
            Some(Some(now)) if self.records.fingerprint(id).as_deref() == Some(now.as_str()) => Freshness::Current,
            Some(Some(_)) => Freshness::Stale,
        };
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

/// The current plan's fingerprints by member id ([`current_fingerprints`]),
/// planned as `explain` plans by default, with the models and depth a
/// side-car or store header records (build `corpus` with its view).
/// Fingerprints do not depend on the records; `records` only lets units
/// that would be reused skip prompt counting.
pub fn plan_fingerprints(
    corpus: &insights::units::Corpus<'_>,
    sources: &dyn sources::SourceReader,
    records: &dyn RecordSource,
    header: Option<&insights::record::SidecarHeader>,
) -> HashMap<String, String> {
    let mut options = insights::plan::PlanOptions::default();
    if let Some(h) = header {
        options.models = insights::plan::Models { leaf: h.models.leaf.clone(), rollup: h.models.rollup.clone() };
        options.depth = h.depth;
    }
    let slicer = insights::slice::SourceSlicer::new(sources, options.max_lines);
    let plan = insights::plan::plan_run(corpus, &slicer, records, &options);
    current_fingerprints(&corpus.walk, &plan)
}
