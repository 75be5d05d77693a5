//! Views: an entity predicate, an edge predicate and the descriptor
//! `{name, filters}` every result carries (as the side-car header writes it:
//! `docs/formats/sidecar.md` §2).
//!
//! A view is plain data (flags and a provenance mask), so it is `Copy`-cheap
//! to clone, `Send`, and composes by conjunction.

use model::{Edge, Provenance};
use serde::Serialize;

use crate::graph::CodeGraph;

/// `{name, filters}` as carried by every result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ViewDescriptor {
    pub name: String,
    pub filters: Vec<String>,
}

/// A view: which entities and edges an analysis sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    descriptor: ViewDescriptor,
    internal_only: bool,
    /// Bit `p` set = provenance `p` kept.
    provenances: u8,
}

const ALL_PROVENANCES: u8 = 0b1111;

impl Default for View {
    fn default() -> Self {
        View::all()
    }
}

impl View {
    /// `identityView` (`all`, filters `[]`): keeps everything.
    pub fn all() -> View {
        View {
            descriptor: ViewDescriptor { name: "all".into(), filters: vec![] },
            internal_only: false,
            provenances: ALL_PROVENANCES,
        }
    }

    /// `internalOnly`: drops stub entities and every edge touching a stub.
    pub fn internal_only() -> View {
        View {
            descriptor: ViewDescriptor { name: "internalOnly".into(), filters: vec!["internalOnly".into()] },
            internal_only: true,
            provenances: ALL_PROVENANCES,
        }
    }

    /// `declaredOnly`: keeps only `declared` edges (entities untouched).
    pub fn declared_only() -> View {
        View {
            descriptor: ViewDescriptor { name: "declaredOnly".into(), filters: vec!["declaredOnly".into()] },
            internal_only: false,
            provenances: 1 << Provenance::Declared as u8,
        }
    }

    /// `provenanceOnly(...)`: keeps edges of the listed provenances; named
    /// `provenance:<sorted,list>`.
    pub fn provenance_only(provenances: &[Provenance]) -> View {
        let mut names: Vec<&str> = provenances.iter().map(|p| p.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let filter = format!("provenance:{}", names.join(","));
        View {
            descriptor: ViewDescriptor { name: filter.clone(), filters: vec![filter] },
            internal_only: false,
            provenances: provenances.iter().fold(0, |m, p| m | (1 << *p as u8)),
        }
    }

    /// `composeViews(...)`: the conjunction; filters concatenated in order and
    /// the name is the filters joined by `+` (`all` when there are none).
    pub fn compose(views: &[View]) -> View {
        let filters: Vec<String> = views.iter().flat_map(|v| v.descriptor.filters.iter().cloned()).collect();
        let name = if filters.is_empty() { "all".to_string() } else { filters.join("+") };
        View {
            descriptor: ViewDescriptor { name, filters },
            internal_only: views.iter().any(|v| v.internal_only),
            provenances: views.iter().fold(ALL_PROVENANCES, |m, v| m & v.provenances),
        }
    }

    /// The view a descriptor's `filters` name, as far as the command-line
    /// flags can make it (`internalOnly`, `declaredOnly`): what a side-car
    /// header records of the run that wrote it.
    pub fn from_filters<S: AsRef<str>>(filters: &[S]) -> View {
        let has = |name: &str| filters.iter().any(|f| f.as_ref() == name);
        View::from_flags(has("internalOnly"), has("declaredOnly"))
    }

    /// The view from the command-line flags `--internal-only` / `--declared-only`.
    pub fn from_flags(internal_only: bool, declared_only: bool) -> View {
        let mut parts = Vec::new();
        if internal_only {
            parts.push(View::internal_only());
        }
        if declared_only {
            parts.push(View::declared_only());
        }
        match parts.len() {
            0 => View::all(),
            1 => parts.pop().expect("one view"),
            _ => View::compose(&parts),
        }
    }

    pub fn descriptor(&self) -> &ViewDescriptor {
        &self.descriptor
    }

    /// True for the identity view (every predicate holds).
    pub fn is_identity(&self) -> bool {
        !self.internal_only && self.provenances == ALL_PROVENANCES
    }

    /// The entity predicate.
    pub fn keeps_entity(&self, graph: &CodeGraph<'_>, i: u32) -> bool {
        !self.internal_only || !graph.is_stub(i)
    }

    /// The edge predicate alone (provenance).
    pub fn keeps_edge_itself(&self, edge: &Edge) -> bool {
        self.provenances & (1 << edge.provenance as u8) != 0
    }

    /// `includesEdge`: the edge predicate holds and both endpoints pass the
    /// entity predicate.
    pub fn includes_edge(&self, graph: &CodeGraph<'_>, edge: &Edge) -> bool {
        self.keeps_edge_itself(edge) && self.keeps_entity(graph, edge.from) && self.keeps_entity(graph, edge.to)
    }

    /// `includesEdge` for the model's edge with index `e`.
    pub fn includes_edge_index(&self, graph: &CodeGraph<'_>, e: u32) -> bool {
        self.includes_edge(graph, &graph.model().edges()[e as usize])
    }
}
