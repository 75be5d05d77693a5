//! The navigator (`cli-and-navigator.md` §3.2, §3.4): skeleton; filled in next.

use hashbrown::HashSet;
use serde::{Deserialize, Serialize};

/// A node: its index in the preorder node list (a parent precedes its children).
pub type NodeId = u32;

/// A source anchor: a file path and an inclusive 1-based line span.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub file: String,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    pub node: NodeId,
    pub id: String,
    pub name: String,
    pub kind: String,
    pub category: String,
    pub stub: bool,
    pub parent: Option<NodeId>,
    pub children: u32,
    pub signature: Option<String>,
    pub anchor: Option<Anchor>,
    pub fan_in: u32,
    pub fan_out: u32,
    pub breadcrumb: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreeRow {
    pub node: NodeId,
    pub depth: u32,
    pub name: String,
    pub category: String,
    pub stub: bool,
    pub has_children: bool,
    pub expanded: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub node: NodeId,
    pub name: String,
    pub category: String,
    pub signature: Option<String>,
    pub breadcrumb: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    pub hits: Vec<SearchHit>,
    pub total: usize,
    pub capped: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepRowView {
    pub counterpart: NodeId,
    pub counterpart_name: String,
    pub counterpart_breadcrumb: String,
    pub member: Option<String>,
    pub counterpart_member: Option<String>,
    /// The counterpart's member node, when the counterpart end is carried by one.
    pub counterpart_member_node: Option<NodeId>,
    pub detail: Option<String>,
    pub provenance: String,
    pub anchor: Option<Anchor>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleGroup {
    pub role: String,
    pub label: String,
    pub total: usize,
    pub rows: Vec<DepRowView>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepView {
    pub node: NodeId,
    pub fan_in: u32,
    pub fan_out: u32,
    pub incoming: Vec<RoleGroup>,
    pub outgoing: Vec<RoleGroup>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    pub node: NodeId,
    pub name: String,
    pub category: String,
    pub stub: bool,
    pub layer: u32,
    pub x: f64,
    pub y: f64,
    pub fan_in: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub from: NodeId,
    pub to: NodeId,
    pub direction: String,
    pub count: u32,
    /// Roles of the rows aggregated, in the fixed role order.
    pub roles: Vec<String>,
    pub inferred: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphView {
    pub center: Option<NodeId>,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    pub left_out: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleEdge {
    pub from: NodeId,
    pub to: NodeId,
    pub count: u32,
    pub provenances: Vec<String>,
    pub all_declared: bool,
    pub feedback: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleComponent {
    pub members: Vec<NodeId>,
    pub edges: Vec<CycleEdge>,
    pub weight: u64,
    pub feedback_weight: u64,
    pub tangle_metric: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleReport {
    pub level: String,
    pub components: Vec<CycleComponent>,
}

/// The navigator of one model: owned data only.
#[derive(Clone, Debug, Default)]
pub struct Navigator {
    nodes: Vec<NodeView>,
    roots: Vec<NodeId>,
}

impl Navigator {
    pub fn build(model: &model::Model) -> Navigator {
        let _ = model;
        Navigator::default()
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    pub fn dep_count(&self) -> usize {
        0
    }
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }
    pub fn node(&self, n: NodeId) -> NodeView {
        self.nodes[n as usize].clone()
    }
    pub fn node_of(&self, entity_id: &str) -> Option<NodeId> {
        self.nodes.iter().position(|v| v.id == entity_id).map(|p| p as NodeId)
    }
    pub fn ancestors(&self, n: NodeId) -> Vec<NodeId> {
        vec![n]
    }
    pub fn rows(&self, expanded: &HashSet<NodeId>, show_stubs: bool, offset: usize, limit: usize) -> (Vec<TreeRow>, usize) {
        let _ = (expanded, show_stubs, offset, limit);
        (vec![], 0)
    }
    pub fn row_index(&self, expanded: &HashSet<NodeId>, show_stubs: bool, n: NodeId) -> Option<usize> {
        let _ = (expanded, show_stubs, n);
        None
    }
    pub fn search(&self, query: &str, cap: usize) -> SearchResult {
        let _ = (query, cap);
        SearchResult { hits: vec![], total: 0, capped: false }
    }
    pub fn dependencies(&self, n: NodeId, offset: usize, limit: usize) -> DepView {
        let _ = (offset, limit);
        DepView { node: n, fan_in: 0, fan_out: 0, incoming: vec![], outgoing: vec![] }
    }
    pub fn neighbourhood(&self, n: NodeId, max_nodes: usize) -> GraphView {
        let _ = max_nodes;
        GraphView { center: Some(n), nodes: vec![], edges: vec![], left_out: 0 }
    }
    pub fn module_overview(&self, max_nodes: usize) -> GraphView {
        let _ = max_nodes;
        GraphView { center: None, nodes: vec![], edges: vec![], left_out: 0 }
    }
    pub fn cycles(&self) -> Vec<CycleReport> {
        vec![]
    }
}
