//! Whether an explanation still describes the code, and if not, why
//! (pure): a record is current when its fingerprint is the one the current
//! plan gives its unit (the fingerprint hashes everything an explanation is
//! made from: docs/formats/fingerprints.md §3); otherwise the reason is
//! deduced, in this order:
//!
//! 1. the prompt version changed ([`StaleReason::PromptVersion`]);
//! 2. the model asked for the record's level changed ([`StaleReason::Model`]);
//! 3. a unit it depends on changed: one with a stale record, or without a
//!    record but with a changed dependency of its own, transitively
//!    ([`StaleReason::Dependency`], naming them);
//! 4. else its own inputs changed ([`StaleReason::Source`]): source text,
//!    comments, signatures, facts, `--depth`, or which dependencies had a
//!    record when it was explained (docs/formats/fingerprints.md §4).
//!
//! [`staleness`] judges every record in one pass over the walk (dependencies
//! come first), so a change propagates to everything above it.

use std::fmt::Write as _;

use hashbrown::HashMap;
use serde::Serialize;

use crate::plan::{Models, RunPlan};
use crate::record::{InsightRecord, SidecarHeader};
use crate::vocab::{Level, PROMPT_VERSION};
use crate::walk::Walk;

/// At most this many dependency ids are named in a [`StaleReason::Dependency`].
pub const DEPENDENCY_IDS_CAP: usize = 5;

/// What explanations are made under: the prompt version and the models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Basis {
    pub prompt_version: String,
    pub models: Models,
}

impl Basis {
    /// What a side-car's or store's header says its records were made under.
    pub fn of_header(header: &SidecarHeader) -> Basis {
        Basis {
            prompt_version: header.prompt_version.clone(),
            models: Models { leaf: header.models.leaf.clone(), rollup: header.models.rollup.clone() },
        }
    }

    /// What a plan with `models` makes now (this build's [`PROMPT_VERSION`]).
    pub fn current(models: Models) -> Basis {
        Basis { prompt_version: PROMPT_VERSION.to_owned(), models }
    }
}

/// What staleness reads of a record (never its block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub fingerprint: String,
    /// The model *asked* for the record, when known (a store knows it from
    /// the run that committed the record); `None`: the header's model for
    /// its level. Not the record's `model`: that is the model that served
    /// the call, which a provider may name differently from the one asked
    /// (the offline demo answers as `demo`).
    pub model: Option<String>,
}

impl Stamp {
    /// The stamp of a record read from a side-car (the asked model is the header's).
    pub fn of(record: &InsightRecord) -> Stamp {
        Stamp { fingerprint: record.fingerprint.clone(), model: None }
    }
}

/// Record id → stamp, for records read from a side-car.
pub fn stamps_of<'a>(records: impl IntoIterator<Item = &'a InsightRecord>) -> HashMap<String, Stamp> {
    records.into_iter().map(|r| (r.id.clone(), Stamp::of(r))).collect()
}

/// Whether an explanation still describes the code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "camelCase")]
pub enum Freshness {
    /// Made from exactly what the current plan would make it from.
    Current,
    Stale(StaleReason),
}

/// Why an explanation is stale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum StaleReason {
    /// The prompts changed (`PROMPT_VERSION`).
    PromptVersion { was: String, now: String },
    /// Another model explains this level now.
    Model { was: String, now: String },
    /// Units it depends on changed or have no explanation (their ids, at most [`DEPENDENCY_IDS_CAP`]).
    Dependency { ids: Vec<String> },
    /// Its own inputs changed: source text, comments, signatures, facts or options.
    Source,
}

impl StaleReason {
    /// A short sentence for a person.
    pub fn describe(&self) -> String {
        match self {
            StaleReason::PromptVersion { was, now } => {
                format!("explained with prompt version {was}; the prompts are now version {now}")
            }
            StaleReason::Model { was, now } => format!("explained by {was}; this level is now explained by {now}"),
            StaleReason::Dependency { ids } => {
                let mut s = String::from(if ids.len() == 1 {
                    "a unit it depends on changed or is not explained: "
                } else {
                    "units it depends on changed or are not explained: "
                });
                for (i, id) in ids.iter().enumerate() {
                    let _ = write!(s, "{}{id}", if i > 0 { ", " } else { "" });
                }
                if ids.len() == DEPENDENCY_IDS_CAP {
                    s.push_str(" (maybe more)");
                }
                s
            }
            StaleReason::Source => "its code changed since it was explained (source, comments, signature, facts or \
                                    options)"
                .to_owned(),
        }
    }
}

impl Freshness {
    pub fn is_current(&self) -> bool {
        matches!(self, Freshness::Current)
    }

    /// A short sentence for a person.
    pub fn describe(&self) -> String {
        match self {
            Freshness::Current => "current: nothing it was made from changed".to_owned(),
            Freshness::Stale(reason) => format!("stale: {}", reason.describe()),
        }
    }
}

/// The freshness of one record of a unit of `level`: current when its
/// fingerprint is `planned` (the current plan's for its unit), else the
/// first reason that holds (prompt version, model, `changed_dependencies` —
/// the units it depends on that changed, in `deps` order —, else source).
pub fn freshness(
    stamp: &Stamp,
    level: Level,
    planned: &str,
    was: &Basis,
    now: &Basis,
    changed_dependencies: &[&str],
) -> Freshness {
    if stamp.fingerprint == planned {
        return Freshness::Current;
    }
    if was.prompt_version != now.prompt_version {
        return Freshness::Stale(StaleReason::PromptVersion {
            was: was.prompt_version.clone(),
            now: now.prompt_version.clone(),
        });
    }
    let asked = stamp.model.as_deref().unwrap_or(was.models.for_level(level));
    let model = now.models.for_level(level);
    if asked != model {
        return Freshness::Stale(StaleReason::Model { was: asked.to_owned(), now: model.to_owned() });
    }
    if !changed_dependencies.is_empty() {
        let ids = changed_dependencies.iter().take(DEPENDENCY_IDS_CAP).map(|id| (*id).to_owned()).collect();
        return Freshness::Stale(StaleReason::Dependency { ids });
    }
    Freshness::Stale(StaleReason::Source)
}

/// The freshness of every record against a current plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Staleness {
    /// Per record id that is a member of a current unit.
    pub records: HashMap<String, Freshness>,
    /// Record ids no current unit has (the entity is gone, or out of the view).
    pub unplanned: Vec<String>,
}

impl Staleness {
    pub fn get(&self, id: &str) -> Option<&Freshness> {
        self.records.get(id)
    }

    /// How many records are stale.
    pub fn stale_count(&self) -> usize {
        self.records.values().filter(|f| !f.is_current()).count()
    }

    /// Why each stale record no longer matches the plan: id → the reason as
    /// a short sentence ([`StaleReason::describe`]); current records are not
    /// named. The page's staleness panel and `codegraph-insights domain`
    /// read this map.
    pub fn reasons(&self) -> HashMap<String, String> {
        self.records
            .iter()
            .filter_map(|(id, f)| match f {
                Freshness::Current => None,
                Freshness::Stale(reason) => Some((id.clone(), reason.describe())),
            })
            .collect()
    }
}

/// Judges every record of `records` (made under `was`) against the plan of
/// `walk` made under `now`, in one pass in walk order: a unit is changed
/// when one of its records is stale, or when it has no record (a dependent
/// explained without it is redone when it gets one); a stale record names
/// the changed units among its unit's dependencies.
pub fn staleness(records: &HashMap<String, Stamp>, was: &Basis, now: &Basis, walk: &Walk, plan: &RunPlan) -> Staleness {
    let mut out = Staleness { records: HashMap::with_capacity(records.len()), unplanned: Vec::new() };
    let mut changed = vec![false; walk.units.len()];
    for (i, unit) in walk.units.iter().enumerate() {
        let planned = match plan.steps.get(i) {
            Some(step) if step.unit == i => step.fingerprint.as_str(),
            _ => plan.fingerprints.get(&unit.id).map_or("", String::as_str),
        };
        let changed_dependencies: Vec<&str> =
            walk.dependency_indexes(i).iter().filter(|&&d| changed[d]).map(|&d| walk.units[d].id.as_str()).collect();
        let mut any_record = false;
        for member in &unit.members {
            let Some(stamp) = records.get(member) else { continue };
            any_record = true;
            let f = freshness(stamp, unit.level, planned, was, now, &changed_dependencies);
            changed[i] |= !f.is_current();
            out.records.insert(member.clone(), f);
        }
        if !any_record {
            // A unit without a record (failed, skipped, never run) is what a
            // record made beside it missed: its dependents quoted nothing
            // for it, so their fingerprints hold an empty one and they are
            // redone once it is explained.
            changed[i] = true;
        }
    }
    if out.records.len() < records.len() {
        out.unplanned = records.keys().filter(|id| !out.records.contains_key(*id)).cloned().collect();
        model::sort_utf16(&mut out.unplanned);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basis(prompt: &str, leaf: &str, rollup: &str) -> Basis {
        Basis { prompt_version: prompt.into(), models: Models { leaf: leaf.into(), rollup: rollup.into() } }
    }

    fn stamp(fingerprint: &str, model: Option<&str>) -> Stamp {
        Stamp { fingerprint: fingerprint.into(), model: model.map(str::to_owned) }
    }

    #[test]
    fn the_first_reason_that_holds() {
        let was = basis("1", "a", "r");
        let f = |s: &Stamp, level, now: &Basis, deps: &[&str]| freshness(s, level, "fp", &was, now, deps);
        let same = basis("1", "a", "r");
        assert_eq!(f(&stamp("fp", None), Level::Operation, &basis("2", "b", "q"), &["d"]), Freshness::Current);
        let prompt = Freshness::Stale(StaleReason::PromptVersion { was: "1".into(), now: "2".into() });
        assert_eq!(f(&stamp("x", None), Level::Type, &basis("2", "b", "q"), &["d"]), prompt);
        let model = Freshness::Stale(StaleReason::Model { was: "a".into(), now: "b".into() });
        assert_eq!(f(&stamp("x", None), Level::Operation, &basis("1", "b", "r"), &["d"]), model);
        // The leaf model is not a type's: its changed dependency is the reason.
        let dep = Freshness::Stale(StaleReason::Dependency { ids: vec!["d".into()] });
        assert_eq!(f(&stamp("x", None), Level::Type, &basis("1", "b", "r"), &["d"]), dep);
        assert_eq!(f(&stamp("x", None), Level::Module, &same, &[]), Freshness::Stale(StaleReason::Source));
        // The model a store knows was asked wins over the header's.
        let earlier = Freshness::Stale(StaleReason::Model { was: "old".into(), now: "a".into() });
        assert_eq!(f(&stamp("x", Some("old")), Level::Operation, &same, &[]), earlier);
        let many: Vec<String> = (0..9).map(|i| format!("d{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let Freshness::Stale(StaleReason::Dependency { ids }) = f(&stamp("x", None), Level::Type, &same, &many) else {
            panic!()
        };
        assert_eq!(ids, ["d0", "d1", "d2", "d3", "d4"]);
    }

    #[test]
    fn reasons_name_only_the_stale_records() {
        let v = Staleness {
            records: HashMap::from([
                ("a".to_owned(), Freshness::Current),
                ("b".to_owned(), Freshness::Stale(StaleReason::Source)),
                ("c".to_owned(), Freshness::Stale(StaleReason::Model { was: "x".into(), now: "y".into() })),
            ]),
            unplanned: vec!["gone".into()],
        };
        let reasons = v.reasons();
        assert_eq!(reasons.len(), 2);
        assert_eq!(reasons["b"], StaleReason::Source.describe());
        assert_eq!(reasons["c"], "explained by x; this level is now explained by y");
        assert_eq!(v.stale_count(), reasons.len());
    }

    #[test]
    fn sentences_and_json() {
        let dep = StaleReason::Dependency { ids: vec!["java:p/T.g()".into()] };
        assert_eq!(dep.describe(), "a unit it depends on changed or is not explained: java:p/T.g()");
        let five = StaleReason::Dependency { ids: (0..5).map(|i| i.to_string()).collect() };
        assert_eq!(five.describe(), "units it depends on changed or are not explained: 0, 1, 2, 3, 4 (maybe more)");
        assert_eq!(
            Freshness::Stale(StaleReason::Model { was: "a".into(), now: "b".into() }).describe(),
            "stale: explained by a; this level is now explained by b"
        );
        assert!(Freshness::Stale(StaleReason::Source).describe().starts_with("stale: its code changed"));
        assert_eq!(serde_json::to_string(&Freshness::Current).unwrap(), r#"{"status":"current"}"#);
        assert_eq!(
            serde_json::to_string(&Freshness::Stale(dep)).unwrap(),
            r#"{"status":"stale","reason":{"kind":"dependency","ids":["java:p/T.g()"]}}"#
        );
        assert_eq!(
            serde_json::to_string(&Freshness::Stale(StaleReason::PromptVersion { was: "1".into(), now: "2".into() }))
                .unwrap(),
            r#"{"status":"stale","reason":{"kind":"promptVersion","was":"1","now":"2"}}"#
        );
    }
}
