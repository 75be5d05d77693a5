//! Counts that describe a model at a glance (`model check`, the page's
//! corpus panel): per kind, per edge kind, per provenance, corpus vs stub.

use crate::graph::Model;
use crate::vocab::Trait;
use std::collections::BTreeMap;

/// The census of one model. Maps are keyed by name; the JSON form lists
/// them in descending count, then name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    pub files: u64,
    pub entities: u64,
    pub edges: u64,
    pub kinds: BTreeMap<String, u64>,
    pub edge_kinds: BTreeMap<String, u64>,
    pub provenance: BTreeMap<String, u64>,
    pub corpus_types: u64,
    pub stub_types: u64,
    pub corpus_modules: u64,
    pub stub_modules: u64,
}

impl Census {
    pub fn of(model: &Model) -> Census {
        let mut c = Census {
            files: model.files().len() as u64,
            entities: model.entity_count() as u64,
            edges: model.edge_count() as u64,
            ..Census::default()
        };
        let mut kinds = vec![0u64; model.header().kinds.len()];
        for e in model.entities() {
            kinds[model.entities[e.index() as usize].kind as usize] += 1;
            let stub = e.is_stub();
            if e.has_trait(Trait::Type) {
                *if stub { &mut c.stub_types } else { &mut c.corpus_types } += 1;
            }
            if e.has_trait(Trait::Module) {
                *if stub { &mut c.stub_modules } else { &mut c.corpus_modules } += 1;
            }
        }
        for (name, n) in model.header().kinds.iter().zip(kinds) {
            if n > 0 {
                c.kinds.insert(name.clone(), n);
            }
        }
        for e in model.edges() {
            *c.edge_kinds.entry(e.kind.as_str().to_owned()).or_default() += 1;
            *c.provenance.entry(e.provenance.as_str().to_owned()).or_default() += 1;
        }
        c
    }

    /// Entries of a map by descending count, then name.
    pub fn ranked(map: &BTreeMap<String, u64>) -> Vec<(&str, u64)> {
        let mut v: Vec<_> = map.iter().map(|(k, n)| (k.as_str(), *n)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| crate::cmp_utf16(a.0, b.0)));
        v
    }
}
