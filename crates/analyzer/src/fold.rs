//! Folding and the graph queries built on it: the type dependency graph, the
//! module import graph and coupling (which of their edges the insights walk
//! takes: `docs/formats/units-and-walk.md` §3).
//!
//! The containment walk itself (`containingType` / `containingModule`) lives
//! on [`CodeGraph`] ([`CodeGraph::containing_type`],
//! [`CodeGraph::containing_module`]), computed once when the graph is built.

use std::cmp::Ordering;

use hashbrown::HashMap;
use model::{EdgeKind, Provenance, Trait};
use serde::{Serialize, Serializer};

use crate::graph::{CodeGraph, Csr, Level};
use crate::view::{View, ViewDescriptor};
use crate::Id;

/// A set of edge kinds (bit = core index); iterates and serializes sorted by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KindSet(pub u16);

impl KindSet {
    pub fn insert(&mut self, k: EdgeKind) {
        self.0 |= 1 << k as u8;
    }
    pub fn contains(self, k: EdgeKind) -> bool {
        self.0 & (1 << k as u8) != 0
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn union(self, other: KindSet) -> KindSet {
        KindSet(self.0 | other.0)
    }
    /// The kinds, sorted by wire name.
    pub fn to_vec(self) -> Vec<EdgeKind> {
        let mut v: Vec<EdgeKind> = EdgeKind::ALL.iter().copied().filter(|k| self.contains(*k)).collect();
        v.sort_by_key(|k| k.as_str());
        v
    }
    /// The kind names, sorted.
    pub fn names(self) -> Vec<&'static str> {
        self.to_vec().into_iter().map(EdgeKind::as_str).collect()
    }
}

impl Serialize for KindSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names())
    }
}

/// A set of provenances; iterates and serializes sorted by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProvenanceSet(pub u8);

impl ProvenanceSet {
    pub fn insert(&mut self, p: Provenance) {
        self.0 |= 1 << p as u8;
    }
    pub fn contains(self, p: Provenance) -> bool {
        self.0 & (1 << p as u8) != 0
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// True when the set is exactly `{declared}`.
    pub fn only_declared(self) -> bool {
        self.0 == 1 << Provenance::Declared as u8
    }
    /// The provenances, sorted by wire name.
    pub fn to_vec(self) -> Vec<Provenance> {
        let mut v: Vec<Provenance> = Provenance::ALL.iter().copied().filter(|p| self.contains(*p)).collect();
        v.sort_by_key(|p| p.as_str());
        v
    }
    /// The provenance names, sorted.
    pub fn names(self) -> Vec<&'static str> {
        self.to_vec().into_iter().map(Provenance::as_str).collect()
    }
}

impl Serialize for ProvenanceSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.names())
    }
}

/// A folded node: a container with members.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldedNode {
    /// The container's surrogate in the graph's model.
    #[serde(skip)]
    pub entity: u32,
    pub id: Id,
    pub kind: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    pub is_stub: bool,
    /// Entities of the view folded onto this container.
    pub members: u32,
}

/// A folded edge: all base edges between one (from, to) container pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldedEdge {
    pub from: Id,
    pub to: Id,
    /// Index of `from` in [`FoldedGraph::nodes`].
    #[serde(skip)]
    pub from_node: u32,
    /// Index of `to` in [`FoldedGraph::nodes`].
    #[serde(skip)]
    pub to_node: u32,
    /// Base edges aggregated.
    pub count: u32,
    pub kinds: KindSet,
    pub provenances: ProvenanceSet,
    /// `from == to` (a folded self-loop, kept and flagged).
    pub self_loop: bool,
}

/// Options of [`fold_graph`] (`foldGraph(graph, {level, view, edgeKinds?, dropSelfLoops?})`).
#[derive(Clone, Debug)]
pub struct FoldOptions<'a> {
    pub level: Level,
    pub view: &'a View,
    /// Restrict the base edges to these kinds (`None` = all kinds).
    pub edge_kinds: Option<&'a [EdgeKind]>,
    pub drop_self_loops: bool,
}

impl<'a> FoldOptions<'a> {
    pub fn new(level: Level, view: &'a View) -> Self {
        FoldOptions { level, view, edge_kinds: None, drop_self_loops: false }
    }
}

/// The result of [`fold_graph`].
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoldedGraph {
    pub level: Level,
    pub view: ViewDescriptor,
    /// Sorted by id.
    pub nodes: Vec<FoldedNode>,
    /// Sorted by (from, to).
    pub edges: Vec<FoldedEdge>,
    /// Base edges with an unplaceable endpoint.
    pub dropped_edges: u64,
    /// Base edges aggregated into `edges`.
    pub folded_edges: u64,
    /// Kept entities with no (kept) container, sorted.
    pub unfoldable_entities: Vec<Id>,
    #[serde(skip)]
    incoming: Csr,
}

impl FoldedGraph {
    /// Index of the node with this id (binary search, UTF-16 order).
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.nodes.binary_search_by(|n| model::cmp_utf16(&n.id, id)).ok()
    }
    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&FoldedNode> {
        self.index_of(id).map(|i| &self.nodes[i])
    }
    /// Edge indexes leaving node `n`, sorted by target.
    pub fn outgoing_edges(&self, n: usize) -> std::ops::Range<usize> {
        let from = n as u32;
        let start = self.edges.partition_point(|e| e.from_node < from);
        let end = self.edges.partition_point(|e| e.from_node <= from);
        start..end
    }
    /// Edges leaving `id`, sorted by target (empty for an unknown id).
    pub fn outgoing(&self, id: &str) -> &[FoldedEdge] {
        match self.index_of(id) {
            Some(n) => &self.edges[self.outgoing_edges(n)],
            None => &[],
        }
    }
    /// Edge indexes arriving at node `n`, sorted by source.
    pub fn incoming_edges(&self, n: usize) -> &[u32] {
        self.incoming.get(n as u32)
    }
    /// Edges arriving at `id`, sorted by source.
    pub fn incoming(&self, id: &str) -> Vec<&FoldedEdge> {
        match self.index_of(id) {
            Some(n) => self.incoming_edges(n).iter().map(|&e| &self.edges[e as usize]).collect(),
            None => vec![],
        }
    }
    /// `dependenciesOf`: distinct targets excluding self-loops, sorted.
    pub fn dependencies_of(&self, id: &str) -> Vec<&Id> {
        self.outgoing(id).iter().filter(|e| !e.self_loop).map(|e| &e.to).collect()
    }
    /// `dependentsOf`: distinct sources excluding self-loops, sorted.
    pub fn dependents_of(&self, id: &str) -> Vec<&Id> {
        self.incoming(id).into_iter().filter(|e| !e.self_loop).map(|e| &e.from).collect()
    }
    /// Σ count over all edges.
    pub fn total_weight(&self) -> u64 {
        self.edges.iter().map(|e| e.count as u64).sum()
    }
    /// Successor node indexes per node (for [`crate::scc`]), self-loops included.
    pub fn successor_lists(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for e in &self.edges {
            out[e.from_node as usize].push(e.to_node);
        }
        out
    }
}

/// `foldGraph`.
pub fn fold_graph(graph: &CodeGraph<'_>, options: &FoldOptions<'_>) -> FoldedGraph {
    let FoldOptions { level, view, edge_kinds, drop_self_loops } = *options;
    let n = graph.len();
    // 1. Members.
    let mut members = vec![0u32; n];
    let mut unfoldable = Vec::new();
    for &i in graph.sorted() {
        if !view.keeps_entity(graph, i) {
            continue;
        }
        match graph.fold(level, i) {
            Some(c) if view.keeps_entity(graph, c) => members[c as usize] += 1,
            _ => unfoldable.push(graph.id(i).clone()),
        }
    }
    // 2. Edges, aggregated by container pair.
    let kind_mask = edge_kinds.map(|ks| ks.iter().fold(0u16, |m, k| m | (1 << *k as u8)));
    let mut dropped = 0u64;
    let mut folded = 0u64;
    let mut pair_index: HashMap<(u32, u32), u32> = HashMap::new();
    let mut pairs: Vec<(u32, u32, u32, KindSet, ProvenanceSet)> = Vec::new();
    let container = |i: u32| graph.fold(level, i).filter(|&c| view.keeps_entity(graph, c));
    for edge in graph.model().edges() {
        if let Some(mask) = kind_mask {
            if mask & (1 << edge.kind as u8) == 0 {
                continue;
            }
        }
        if !view.includes_edge(graph, edge) {
            continue;
        }
        let (Some(f), Some(t)) = (container(edge.from), container(edge.to)) else {
            dropped += 1;
            continue;
        };
        if f == t && drop_self_loops {
            continue;
        }
        let slot = *pair_index.entry((f, t)).or_insert_with(|| {
            pairs.push((f, t, 0, KindSet::default(), ProvenanceSet::default()));
            (pairs.len() - 1) as u32
        });
        let p = &mut pairs[slot as usize];
        p.2 += 1;
        p.3.insert(edge.kind);
        p.4.insert(edge.provenance);
        folded += 1;
    }
    // 3. Nodes sorted by id, edges by (from, to).
    let mut node_of = vec![u32::MAX; n];
    let mut nodes = Vec::new();
    for &i in graph.sorted() {
        if members[i as usize] > 0 {
            node_of[i as usize] = nodes.len() as u32;
            let e = graph.entity(i);
            nodes.push(FoldedNode {
                entity: i,
                id: graph.id(i).clone(),
                kind: Id::from(e.kind()),
                name: e.name().map(Id::from),
                is_stub: graph.is_stub(i),
                members: members[i as usize],
            });
        }
    }
    pairs.sort_unstable_by(|a, b| graph.cmp(a.0, b.0).then_with(|| graph.cmp(a.1, b.1)));
    let edges: Vec<FoldedEdge> = pairs
        .into_iter()
        .map(|(f, t, count, kinds, provenances)| FoldedEdge {
            from: graph.id(f).clone(),
            to: graph.id(t).clone(),
            from_node: node_of[f as usize],
            to_node: node_of[t as usize],
            count,
            kinds,
            provenances,
            self_loop: f == t,
        })
        .collect();
    let incoming_pairs: Vec<(u32, u32)> = edges.iter().enumerate().map(|(k, e)| (e.to_node, k as u32)).collect();
    let incoming = Csr::build(nodes.len(), &incoming_pairs);
    FoldedGraph {
        level,
        view: view.descriptor().clone(),
        nodes,
        edges,
        dropped_edges: dropped,
        folded_edges: folded,
        unfoldable_entities: unfoldable,
        incoming,
    }
}

/// `typeDependencyGraph(graph, view)`: every edge kind folded to
/// containing types, self-loops kept and flagged.
pub fn type_dependency_graph(graph: &CodeGraph<'_>, view: &View) -> FoldedGraph {
    fold_graph(graph, &FoldOptions::new(Level::Type, view))
}

/// Which end of an import edge was not a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EndpointRole {
    From,
    To,
}

/// An import endpoint that is not a module.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NonModuleEndpoint {
    pub edge_from: Id,
    pub edge_to: Id,
    pub role: EndpointRole,
    pub endpoint: Id,
    /// Its containing module; absent when unplaceable (the edge is then dropped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded_to: Option<Id>,
}

/// `importDiagnostics`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportDiagnostics {
    /// Base import edges kept by the view.
    pub import_edges: u64,
    pub non_module_endpoints: Vec<NonModuleEndpoint>,
}

/// The module import graph: a module-level fold of `import` edges plus diagnostics.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportGraph {
    #[serde(flatten)]
    pub graph: FoldedGraph,
    pub import_diagnostics: ImportDiagnostics,
}

impl std::ops::Deref for ImportGraph {
    type Target = FoldedGraph;
    fn deref(&self) -> &FoldedGraph {
        &self.graph
    }
}

/// `importGraph(graph, view)`. The node set is every module with members
/// (open point 1: as `foldGraph` produces it), not only modules touched by
/// imports; self-loops are kept.
pub fn import_graph(graph: &CodeGraph<'_>, view: &View) -> ImportGraph {
    let folded = fold_graph(
        graph,
        &FoldOptions { level: Level::Module, view, edge_kinds: Some(&[EdgeKind::Import]), drop_self_loops: false },
    );
    let mut diagnostics = ImportDiagnostics::default();
    for edge in graph.model().edges() {
        if edge.kind != EdgeKind::Import || !view.includes_edge(graph, edge) {
            continue;
        }
        diagnostics.import_edges += 1;
        for (role, endpoint) in [(EndpointRole::From, edge.from), (EndpointRole::To, edge.to)] {
            if graph.has_trait(endpoint, Trait::Module) {
                continue;
            }
            diagnostics.non_module_endpoints.push(NonModuleEndpoint {
                edge_from: graph.id(edge.from).clone(),
                edge_to: graph.id(edge.to).clone(),
                role,
                endpoint: graph.id(endpoint).clone(),
                folded_to: graph.containing_module(endpoint).map(|m| graph.id(m).clone()),
            });
        }
    }
    ImportGraph { graph: folded, import_diagnostics: diagnostics }
}

/// One coupling row.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CouplingRow {
    pub id: Id,
    /// Ca: distinct sources.
    pub fan_in: u32,
    /// Ce: distinct targets.
    pub fan_out: u32,
    /// `Ce / (Ca + Ce)`, 0 when both are 0.
    pub instability: f64,
    pub outgoing_edge_count: u64,
    pub incoming_edge_count: u64,
}

/// Coupling per folded node, sorted by id. Self-loops are excluded unless
/// `include_self_loops` (then they count in all four numbers).
pub fn coupling(folded: &FoldedGraph, include_self_loops: bool) -> Vec<CouplingRow> {
    let mut rows: Vec<CouplingRow> = folded
        .nodes
        .iter()
        .map(|n| CouplingRow {
            id: n.id.clone(),
            fan_in: 0,
            fan_out: 0,
            instability: 0.0,
            outgoing_edge_count: 0,
            incoming_edge_count: 0,
        })
        .collect();
    for e in &folded.edges {
        if e.self_loop && !include_self_loops {
            continue;
        }
        let f = &mut rows[e.from_node as usize];
        f.fan_out += 1;
        f.outgoing_edge_count += e.count as u64;
        let t = &mut rows[e.to_node as usize];
        t.fan_in += 1;
        t.incoming_edge_count += e.count as u64;
    }
    for r in &mut rows {
        let total = r.fan_in + r.fan_out;
        r.instability = if total == 0 { 0.0 } else { r.fan_out as f64 / total as f64 };
    }
    rows
}

/// The top `n` rows by fan-in descending, id ascending on ties.
pub fn top_by_fan_in(rows: &[CouplingRow], n: usize) -> Vec<CouplingRow> {
    top_by(rows, n, |r| r.fan_in)
}

/// The top `n` rows by fan-out descending, id ascending on ties.
pub fn top_by_fan_out(rows: &[CouplingRow], n: usize) -> Vec<CouplingRow> {
    top_by(rows, n, |r| r.fan_out)
}

fn top_by(rows: &[CouplingRow], n: usize, key: impl Fn(&CouplingRow) -> u32) -> Vec<CouplingRow> {
    let mut v: Vec<&CouplingRow> = rows.iter().collect();
    v.sort_by(|a, b| match key(b).cmp(&key(a)) {
        Ordering::Equal => model::cmp_utf16(&a.id, &b.id),
        o => o,
    });
    v.into_iter().take(n).cloned().collect()
}
