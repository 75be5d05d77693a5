//! The navigator over one model (view shapes: `docs/formats/protocol.md` §5;
//! their semantics: this crate and its tests), pure: no I/O, no clock; compiles
//! for wasm32. The Worker builds one [`Navigator`] per loaded model and asks it
//! for one page of answers per user action.
//!
//! What it holds (owned data only, no borrow of the model):
//!
//! * **nodes** in PREORDER (a parent precedes its children, a subtree is a
//!   contiguous range): modules nested as the model declares them, types
//!   under their module or outer type, operations and attributes flat under
//!   their type. Children are sorted by (category, name, id). Parameters,
//!   locals, lambdas inside operations and members of anonymous classes are
//!   not nodes: their edges are carried by the nearest member node and they
//!   appear as a row's `detail`. Every node keeps its rendered entity id
//!   (members too: we go beyond the reference, whose members carry none).
//! * **rows**: one per base edge that crosses a selectable boundary, between
//!   the owners (type or module) of its two ends, with the member carrying
//!   each end; a compound assignment gives a `reads` and a `writes` row;
//!   self-owner edges are excluded and counted ([`Diagnostics`]).
//! * the owner-level and module-level aggregated graphs (for the graph views)
//!   and the cycle reports (computed by `analyzer::cycles` at build).
//!
//! Decisions where the spec leaves room (documented here and in the tests):
//!
//! * Roles: `annotationUse` and `throws` have no role of their own; both are
//!   type usages and land in `typeReference`, with the detail `annotation` /
//!   `throw`. A `reference` is a `parameterType` from a parameter,
//!   `localVariableType` from a local, `fieldType` from an attribute,
//!   `returnType` from an operation whose declared type is the target, and a
//!   `typeReference` otherwise.
//! * Parameters are numbered from 1 in a detail (`parameter #2 (reference)`).
//! * [`Navigator::ancestors`] excludes the node itself.
//! * A module shows the rows it owns (imports, mostly), not its types' rows;
//!   the module overview is where types' rows roll up to modules.
//!
//! **Must never:** do I/O or read a clock; borrow the model (it owns its data);
//! answer more rows than a page asks for.

mod build;
mod layout;
mod vocab;

use std::hash::BuildHasher;

use hashbrown::HashSet;
use model::{EdgeKind, Provenance};
use serde::{Deserialize, Serialize};

pub use layout::{layered, Boxed};
pub use vocab::{Category, Role};

/// A node: its index in the preorder node list (a parent precedes its children).
pub type NodeId = u32;

/// "Absent" in `u32` slots.
pub(crate) const NONE: u32 = u32::MAX;

/// A source anchor: a file path and an inclusive 1-based line span.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub file: String,
    pub start: u32,
    pub end: u32,
}

/// One node, summarized.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    pub node: NodeId,
    /// The rendered entity id.
    pub id: String,
    /// Display name: the name, or the signature of an unnamed invocable.
    pub name: String,
    /// Verbatim from the model.
    pub kind: String,
    /// `module` | `type` | `operation` | `attribute`.
    pub category: String,
    pub stub: bool,
    pub parent: Option<NodeId>,
    /// Number of children (stubs included).
    pub children: u32,
    pub signature: Option<String>,
    pub anchor: Option<Anchor>,
    /// Distinct counterparts of the incoming rows.
    pub fan_in: u32,
    /// Distinct counterparts of the outgoing rows.
    pub fan_out: u32,
    /// Ancestor names, root first (the node itself excluded).
    pub breadcrumb: Vec<String>,
}

/// One visible row of the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreeRow {
    pub node: NodeId,
    /// 0 for a root.
    pub depth: u32,
    pub name: String,
    pub category: String,
    pub stub: bool,
    /// Whether it has children that would show (stubs hidden when asked).
    pub has_children: bool,
    pub expanded: bool,
}

/// One search match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub node: NodeId,
    pub name: String,
    pub category: String,
    pub signature: Option<String>,
    /// Ancestor names joined with ` › `.
    pub breadcrumb: String,
}

/// The answer of [`Navigator::search`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchResult {
    /// At most `cap`, in tree order.
    pub hits: Vec<SearchHit>,
    /// Every node that matched.
    pub total: usize,
    /// `total > cap`: the list stops at the cap.
    pub capped: bool,
}

/// One dependency row as the dependency view shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepRowView {
    /// The owner (type or module) at the other end.
    pub counterpart: NodeId,
    pub counterpart_name: String,
    /// The counterpart's ancestor names joined with ` › `.
    pub counterpart_breadcrumb: String,
    /// The member carrying the selection's end: `on <member>` (incoming),
    /// `via <member>` (outgoing); its signature, else its name.
    pub member: Option<String>,
    /// The member carrying the counterpart's end (signature, else name).
    pub counterpart_member: Option<String>,
    /// The counterpart's member node, when the counterpart end is carried by one.
    pub counterpart_member_node: Option<NodeId>,
    /// E.g. `parameter #4 (accountLockService)`, `annotation`, `throw`.
    pub detail: Option<String>,
    /// `declared` | `derived` | `dynamic-candidate` | `generated`.
    pub provenance: String,
    pub anchor: Option<Anchor>,
}

/// The rows of one role on one side of the selection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleGroup {
    /// The wire name (`invokes`).
    pub role: String,
    /// The section label (`Invocations`).
    pub label: String,
    /// Rows of this role (all pages).
    pub total: usize,
    /// The requested page.
    pub rows: Vec<DepRowView>,
}

/// The dependency view of a selection (`docs/formats/protocol.md` §5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepView {
    pub node: NodeId,
    pub fan_in: u32,
    pub fan_out: u32,
    /// Non-empty groups in role order.
    pub incoming: Vec<RoleGroup>,
    pub outgoing: Vec<RoleGroup>,
    /// Σ of the incoming groups' totals.
    pub incoming_total: usize,
    /// Σ of the outgoing groups' totals.
    pub outgoing_total: usize,
}

/// A node of a laid-out graph: a box (top-left `x`, `y`; `width` ×
/// `height`) in a layer band, left to right.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    pub node: NodeId,
    /// The rendered entity id (for hover and the accessible name).
    pub id: String,
    /// The display name.
    pub name: String,
    /// What the box shows: the simple name (a path's last segment), longer
    /// only where two boxes of the view would read the same.
    pub label: String,
    pub category: String,
    pub stub: bool,
    /// Layer from the left: every edge goes to a higher layer, except a
    /// `feedback` edge (which closes a cycle).
    pub layer: u32,
    pub x: f64,
    pub y: f64,
    /// Wide enough for the label in 12 px monospace.
    pub width: f64,
    pub height: f64,
    pub fan_in: u32,
}

/// An edge of a laid-out graph: the rows between two nodes, aggregated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub from: NodeId,
    pub to: NodeId,
    /// Relative to the centre: `in` (into it), `out` (from it), `none`.
    pub direction: String,
    /// Rows aggregated.
    pub count: u32,
    /// Roles of the rows aggregated, in the fixed role order.
    pub roles: Vec<String>,
    /// Some row's provenance is not `declared`.
    pub inferred: bool,
    /// Reversed by the layout to break a cycle: it runs right to left.
    pub feedback: bool,
    /// The route from `from` to `to`, in pairs: each pair a horizontal run
    /// (inside a layer band: from a box's side, or through the edge's own
    /// slot between boxes), consecutive pairs joined across the gap between
    /// bands. Empty for a self-loop.
    pub points: Vec<(f64, f64)>,
}

impl GraphEdge {
    /// The route as SVG path data: each pair of points a straight run,
    /// consecutive runs joined by a curve that leaves and arrives
    /// horizontally (so it stays in the gap between two layer bands).
    pub fn path(&self) -> String {
        use std::fmt::Write as _;
        let mut d = String::new();
        let mut last: Option<(f64, f64)> = None;
        for run in self.points.chunks(2) {
            let a = run[0];
            let b = run.get(1).copied().unwrap_or(a);
            match last {
                None => {
                    let _ = write!(d, "M{:.1} {:.1}", a.0, a.1);
                }
                Some(p) => {
                    let mx = (p.0 + a.0) / 2.0;
                    let _ = write!(d, " C{mx:.1} {:.1} {mx:.1} {:.1} {:.1} {:.1}", p.1, a.1, a.0, a.1);
                }
            }
            if b != a {
                let _ = write!(d, " L{:.1} {:.1}", b.0, b.1);
            }
            last = Some(b);
        }
        d
    }
}

/// A small laid-out graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphView {
    pub center: Option<NodeId>,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    /// Candidates not drawn because of `max_nodes`.
    pub left_out: usize,
    /// Whether externals (stub nodes, outside the corpus) may be drawn.
    pub externals: bool,
    /// Externals not drawn because `externals` is off.
    pub externals_hidden: usize,
    /// The drawing's size (every box and route lies in `0..width`, `0..height`).
    pub width: f64,
    pub height: f64,
}

impl GraphView {
    pub(crate) fn empty(
        center: Option<NodeId>,
        left_out: usize,
        externals: bool,
        externals_hidden: usize,
    ) -> GraphView {
        GraphView {
            center,
            nodes: vec![],
            edges: vec![],
            left_out,
            externals,
            externals_hidden,
            width: 0.0,
            height: 0.0,
        }
    }
}

/// An aggregated link inside a cycle component.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleEdge {
    pub from: NodeId,
    pub to: NodeId,
    /// Base edges aggregated.
    pub count: u32,
    /// Sorted names.
    pub provenances: Vec<String>,
    pub all_declared: bool,
    /// In the minimum feedback set (the cut).
    pub feedback: bool,
}

/// One strongly connected component of at least two members.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleComponent {
    /// Sorted by id.
    pub members: Vec<NodeId>,
    /// Internal links (self-loops included), sorted by (from id, to id).
    pub edges: Vec<CycleEdge>,
    pub weight: u64,
    pub feedback_weight: u64,
    /// `feedbackWeight / Σ count of non-self internal links`, 0 when that is 0.
    pub tangle_metric: f64,
}

/// The report's overall tangle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tangle {
    pub feedback_edge_count: usize,
    pub feedback_weight: u64,
    pub cyclic_weight: u64,
    pub metric: f64,
}

/// The cycle report of one level (`NavCycleReport`; `docs/formats/protocol.md` §5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleReport {
    /// `module` | `type`.
    pub level: String,
    pub components: Vec<CycleComponent>,
    pub tangle: Tangle,
}

/// What could not become a row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// Base edges whose two ends have the same owner.
    pub self_deps: u64,
    /// Base edges with an end that has no owner node.
    pub dropped_deps: u64,
}

/// Strings of many nodes in one buffer.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pool {
    buf: String,
    /// (start, len); start `NONE` = absent.
    spans: Vec<(u32, u32)>,
}

impl Pool {
    pub fn push(&mut self, s: Option<&str>) -> u32 {
        let at = self.spans.len() as u32;
        match s {
            Some(s) => {
                self.spans.push((self.buf.len() as u32, s.len() as u32));
                self.buf.push_str(s);
            }
            None => self.spans.push((NONE, 0)),
        }
        at
    }
    pub fn shrink(&mut self) {
        self.buf.shrink_to_fit();
        self.spans.shrink_to_fit();
    }
    pub fn get(&self, i: u32) -> Option<&str> {
        let (start, len) = *self.spans.get(i as usize)?;
        (start != NONE).then(|| &self.buf[start as usize..(start + len) as usize])
    }
}

/// One dependency row (32 bytes): owners, the base edge's ends, its anchor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    /// Owner node of the source end.
    pub from: NodeId,
    /// Owner node of the target end.
    pub to: NodeId,
    pub from_ent: u32,
    pub to_ent: u32,
    pub file: u32,
    pub start: u32,
    pub end: u32,
    pub role: Role,
    pub provenance: Provenance,
    pub kind: EdgeKind,
}

/// An aggregated link between two nodes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Link {
    pub from: NodeId,
    pub to: NodeId,
    pub count: u32,
    pub roles: vocab::RoleSet,
    /// Some row is not `declared`.
    pub inferred: bool,
}

/// The navigator of one model under one view.
#[derive(Clone, Debug)]
pub struct Navigator {
    view: String,
    files: Vec<String>,
    kinds: Vec<String>,
    // Nodes, in preorder.
    entity: Vec<u32>,
    parent: Vec<u32>,
    /// End (exclusive) of the subtree.
    end: Vec<u32>,
    depth: Vec<u32>,
    category: Vec<Category>,
    stub: Vec<bool>,
    kind: Vec<u16>,
    children: Vec<u32>,
    /// Children that are not stubs.
    children_shown: Vec<u32>,
    names: Pool,
    signatures: Pool,
    ids: Pool,
    /// `(file, start, end)`, file `NONE` = no anchor.
    anchors: Vec<(u32, u32, u32)>,
    fan_in: Vec<u32>,
    fan_out: Vec<u32>,
    roots: Vec<NodeId>,
    /// Node by rendered id (hash of the id → node).
    by_id: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    /// Lowercase `name \n signature \n` per node, concatenated.
    keys: String,
    key_start: Vec<u32>,
    // Entities.
    /// The member node carrying each entity (`NONE` when none).
    ent_member: Vec<u32>,
    /// A detail text per entity that is not a node (parameter, local, …).
    ent_detail: Vec<u32>,
    details: Pool,
    // Rows.
    /// Sorted by (from, role, to, carrying members, anchor).
    rows: Vec<Row>,
    /// `rows[out_start[n]..out_start[n + 1]]` leave owner `n`.
    out_start: Vec<u32>,
    /// Row indexes sorted by (to, role, from, …).
    in_rows: Vec<u32>,
    in_start: Vec<u32>,
    // Aggregated graphs.
    /// Owner-level links sorted by (from, to).
    links: Vec<Link>,
    links_out: Vec<u32>,
    /// Module-level links (intra-module excluded), sorted by (from, to).
    module_links: Vec<Link>,
    cycles: Vec<CycleReport>,
    diagnostics: Diagnostics,
}

impl Navigator {
    /// The navigator of the default view (all entities and edges).
    pub fn build(model: &model::Model) -> Navigator {
        build::build(model, &analyzer::View::all())
    }

    /// The navigator under `view` (e.g. `View::internal_only()`).
    pub fn build_with_view(model: &model::Model, view: &analyzer::View) -> Navigator {
        build::build(model, view)
    }

    /// The view's name (`all`, `internalOnly`, …).
    pub fn view_name(&self) -> &str {
        &self.view
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.entity.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entity.is_empty()
    }

    /// Approximate heap bytes held (for memory reports).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let pool = |p: &Pool| p.buf.capacity() + p.spans.capacity() * 8;
        let strings = |v: &[String]| v.iter().map(|s| s.capacity() + size_of::<String>()).sum::<usize>();
        strings(&self.files)
            + strings(&self.kinds)
            + [
                &self.entity,
                &self.parent,
                &self.end,
                &self.depth,
                &self.children,
                &self.children_shown,
                &self.fan_in,
                &self.fan_out,
                &self.key_start,
                &self.ent_member,
                &self.ent_detail,
                &self.out_start,
                &self.in_rows,
                &self.in_start,
                &self.links_out,
            ]
            .iter()
            .map(|v| v.capacity() * 4)
            .sum::<usize>()
            + self.category.capacity()
            + self.stub.capacity()
            + self.kind.capacity() * 2
            + pool(&self.names)
            + pool(&self.signatures)
            + pool(&self.ids)
            + pool(&self.details)
            + self.anchors.capacity() * 12
            + self.by_id.capacity() * 5
            + self.keys.capacity()
            + self.rows.capacity() * size_of::<Row>()
            + (self.links.capacity() + self.module_links.capacity()) * size_of::<Link>()
    }

    /// Number of dependency rows.
    pub fn dep_count(&self) -> usize {
        self.rows.len()
    }

    /// Self-owner and dropped base edges.
    pub fn diagnostics(&self) -> Diagnostics {
        self.diagnostics
    }

    /// Root nodes, sorted (category, name, id).
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// The model's file paths by file index.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The node's category.
    pub fn category(&self, n: NodeId) -> Category {
        self.category[n as usize]
    }

    /// The node's display name.
    pub fn name(&self, n: NodeId) -> &str {
        self.names.get(n).unwrap_or("")
    }

    /// The node's rendered entity id.
    pub fn id(&self, n: NodeId) -> &str {
        self.ids.get(n).unwrap_or("")
    }

    /// The node's parent.
    pub fn parent(&self, n: NodeId) -> Option<NodeId> {
        let p = self.parent[n as usize];
        (p != NONE).then_some(p)
    }

    /// The node's children, in order.
    pub fn children(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let end = self.end[n as usize];
        let mut next = n + 1;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let c = next;
                next = self.end[c as usize];
                c
            })
        })
    }

    /// The summary of node `n` (panics when out of range, as slices do).
    pub fn node(&self, n: NodeId) -> NodeView {
        let i = n as usize;
        NodeView {
            node: n,
            id: self.id(n).to_string(),
            name: self.name(n).to_string(),
            kind: self.kinds[self.kind[i] as usize].clone(),
            category: self.category[i].as_str().to_string(),
            stub: self.stub[i],
            parent: self.parent(n),
            children: self.children[i],
            signature: self.signatures.get(n).map(str::to_string),
            anchor: self.anchor_of(self.anchors[i]),
            fan_in: self.fan_in[i],
            fan_out: self.fan_out[i],
            breadcrumb: self.ancestors(n).into_iter().map(|a| self.name(a).to_string()).collect(),
        }
    }

    /// The model entity (its position in the model) a node stands for.
    pub fn entity_index(&self, n: NodeId) -> u32 {
        self.entity[n as usize]
    }

    /// The node of a rendered entity id (every node has one).
    pub fn node_of(&self, entity_id: &str) -> Option<NodeId> {
        let hash = self.hasher.hash_one(entity_id);
        self.by_id.find(hash, |&n| self.id(n) == entity_id).copied()
    }

    /// The node's ancestors, root first (the node itself excluded; none for
    /// an unknown node).
    pub fn ancestors(&self, n: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut cur = self.parent.get(n as usize).copied().unwrap_or(NONE);
        while cur != NONE {
            out.push(cur);
            cur = self.parent[cur as usize];
        }
        out.reverse();
        out
    }

    /// Ancestor names joined with ` › `.
    pub fn breadcrumb(&self, n: NodeId) -> String {
        let mut s = String::new();
        for a in self.ancestors(n) {
            if !s.is_empty() {
                s.push_str(" › ");
            }
            s.push_str(self.name(a));
        }
        s
    }

    /// The visible rows of the tree given the expanded nodes: (node, depth)
    /// in display order, from `offset`, at most `limit`, and the total count
    /// of visible rows. Stubs (and what they hold) are hidden when
    /// `!show_stubs`. Linear in the visible rows: a collapsed subtree is
    /// skipped in one step.
    pub fn rows(
        &self,
        expanded: &HashSet<NodeId>,
        show_stubs: bool,
        offset: usize,
        limit: usize,
    ) -> (Vec<TreeRow>, usize) {
        let mut out = Vec::new();
        let mut count = 0usize;
        let len = self.len() as u32;
        let mut i = 0u32;
        while i < len {
            let u = i as usize;
            if self.stub[u] && !show_stubs {
                i = self.end[u];
                continue;
            }
            let open = expanded.contains(&i);
            if count >= offset && out.len() < limit {
                out.push(TreeRow {
                    node: i,
                    depth: self.depth[u],
                    name: self.name(i).to_string(),
                    category: self.category[u].as_str().to_string(),
                    stub: self.stub[u],
                    has_children: if show_stubs { self.children[u] > 0 } else { self.children_shown[u] > 0 },
                    expanded: open,
                });
            }
            count += 1;
            i = if open { i + 1 } else { self.end[u] };
        }
        (out, count)
    }

    /// Position of `n` among the visible rows, its ancestors taken as
    /// expanded (as a reveal expands them), for scrolling to it. `None` for
    /// a stub (or a node under one) when `!show_stubs`.
    pub fn row_index(&self, expanded: &HashSet<NodeId>, show_stubs: bool, n: NodeId) -> Option<usize> {
        if n as usize >= self.len() {
            return None;
        }
        let mut count = 0usize;
        let mut i = 0u32;
        while i < n {
            let u = i as usize;
            if self.stub[u] && !show_stubs {
                if n < self.end[u] {
                    return None;
                }
                i = self.end[u];
                continue;
            }
            count += 1;
            // An ancestor of `n` holds it in its preorder range.
            let open = n < self.end[u] || expanded.contains(&i);
            i = if open { i + 1 } else { self.end[u] };
        }
        if self.stub[n as usize] && !show_stubs {
            return None;
        }
        Some(count)
    }

    /// A linear substring scan over lowercase keys (name and signature),
    /// hits in tree order, at most `cap` of them; `total` counts every node
    /// that matched. An empty query matches nothing.
    pub fn search(&self, query: &str, cap: usize) -> SearchResult {
        let q: String = query.trim().to_lowercase().chars().filter(|c| *c != '\n').collect();
        let mut hits = Vec::new();
        let mut total = 0usize;
        if !q.is_empty() {
            let mut pos = 0usize;
            while let Some(found) = self.keys[pos..].find(&q) {
                let at = pos + found;
                let n = self.key_start.partition_point(|&s| s as usize <= at) - 1;
                total += 1;
                if hits.len() < cap {
                    let node = n as NodeId;
                    hits.push(SearchHit {
                        node,
                        name: self.name(node).to_string(),
                        category: self.category[n].as_str().to_string(),
                        signature: self.signatures.get(node).map(str::to_string),
                        breadcrumb: self.breadcrumb(node),
                    });
                }
                pos = self.key_start[n + 1] as usize;
            }
        }
        SearchResult { capped: total > cap, hits, total }
    }

    /// The dependency view of a selection (`DepView`): incoming and outgoing
    /// rows grouped by role in the fixed role order, each group with its total
    /// and the page `offset..offset + limit` of its rows. A type or module
    /// shows the rows it owns (`from` / `to`); an operation or attribute the
    /// rows it carries (`member` / `toMember`). `fan_in` / `fan_out` count
    /// distinct counterparts. An unknown node has no rows.
    pub fn dependencies(&self, n: NodeId, offset: usize, limit: usize) -> DepView {
        if n as usize >= self.len() {
            let (incoming, outgoing) = (vec![], vec![]);
            return DepView {
                node: n,
                fan_in: 0,
                fan_out: 0,
                incoming,
                outgoing,
                incoming_total: 0,
                outgoing_total: 0,
            };
        }
        let (incoming, outgoing) = self.row_lists(n);
        let incoming = self.groups(&incoming, false, offset, limit);
        let outgoing = self.groups(&outgoing, true, offset, limit);
        DepView {
            node: n,
            fan_in: self.fan_in[n as usize],
            fan_out: self.fan_out[n as usize],
            incoming_total: incoming.iter().map(|g| g.total).sum(),
            outgoing_total: outgoing.iter().map(|g| g.total).sum(),
            incoming,
            outgoing,
        }
    }

    /// Row indexes (incoming, outgoing) of a selection, grouped by role.
    fn row_lists(&self, n: NodeId) -> (Vec<u32>, Vec<u32>) {
        let i = n as usize;
        if self.category[i].is_owner() {
            let out = (self.out_start[i]..self.out_start[i + 1]).collect();
            let inc = self.in_rows[self.in_start[i] as usize..self.in_start[i + 1] as usize].to_vec();
            return (inc, out);
        }
        // A member: filter its owner's rows by the carrying member.
        let owner = self.parent[i];
        if owner == NONE {
            return (vec![], vec![]);
        }
        let o = owner as usize;
        let out = (self.out_start[o]..self.out_start[o + 1])
            .filter(|&r| self.ent_member[self.rows[r as usize].from_ent as usize] == n)
            .collect();
        let inc = self.in_rows[self.in_start[o] as usize..self.in_start[o + 1] as usize]
            .iter()
            .copied()
            .filter(|&r| self.ent_member[self.rows[r as usize].to_ent as usize] == n)
            .collect();
        (inc, out)
    }

    fn groups(&self, list: &[u32], outgoing: bool, offset: usize, limit: usize) -> Vec<RoleGroup> {
        let mut groups = Vec::new();
        let mut start = 0usize;
        while start < list.len() {
            let role = self.rows[list[start] as usize].role;
            let len = list[start..].iter().take_while(|&&r| self.rows[r as usize].role == role).count();
            let run = &list[start..start + len];
            let page = run.iter().skip(offset).take(limit);
            groups.push(RoleGroup {
                role: role.as_str().to_string(),
                label: role.label().to_string(),
                total: len,
                rows: page.map(|&r| self.row_view(&self.rows[r as usize], outgoing)).collect(),
            });
            start += len;
        }
        groups
    }

    fn member_label(&self, m: u32) -> Option<String> {
        (m != NONE).then(|| self.signatures.get(m).unwrap_or_else(|| self.name(m)).to_string())
    }

    fn row_view(&self, r: &Row, outgoing: bool) -> DepRowView {
        let (counterpart, own_ent, other_ent) =
            if outgoing { (r.to, r.from_ent, r.to_ent) } else { (r.from, r.to_ent, r.from_ent) };
        let other_member = self.ent_member[other_ent as usize];
        let ends = [r.from_ent, r.to_ent].map(|e| self.details.get(self.ent_detail[e as usize]));
        let end_detail = ends[0].or(ends[1]);
        let kind_detail = match r.kind {
            EdgeKind::AnnotationUse => Some("annotation"),
            EdgeKind::Throws => Some("throw"),
            _ => None,
        };
        let detail = match (kind_detail, end_detail) {
            (Some(k), Some(d)) => Some(format!("{k} · {d}")),
            (Some(k), None) => Some(k.to_string()),
            (None, d) => d.map(str::to_string),
        };
        DepRowView {
            counterpart,
            counterpart_name: self.name(counterpart).to_string(),
            counterpart_breadcrumb: self.breadcrumb(counterpart),
            member: self.member_label(self.ent_member[own_ent as usize]),
            counterpart_member: self.member_label(other_member),
            counterpart_member_node: (other_member != NONE).then_some(other_member),
            detail,
            provenance: r.provenance.as_str().to_string(),
            anchor: self.anchor_of((r.file, r.start, r.end)),
        }
    }

    fn anchor_of(&self, (file, start, end): (u32, u32, u32)) -> Option<Anchor> {
        let path = self.files.get(file as usize)?;
        Some(Anchor { file: path.clone(), start, end })
    }

    /// The neighbourhood of `n` as a small graph laid out in layers so that
    /// dependencies read left to right: dependants in lower layers, `n`,
    /// dependencies in higher ones (an edge closing a cycle runs back, marked
    /// `feedback`). Nodes are the counterparts of `n`'s rows (for a member:
    /// the counterpart member where there is one, else the owner), ranked by
    /// rows and cut at `max_nodes` (`n` included); edges are the links
    /// between the drawn nodes (for a type or module, links between its
    /// neighbours too). Externals included.
    pub fn neighbourhood(&self, n: NodeId, max_nodes: usize) -> GraphView {
        layout::neighbourhood(self, n, max_nodes, true)
    }

    /// The module-level overview: rows rolled up to the owning module of
    /// each end, intra-module rows not drawn, laid out in layers, at most
    /// `max_nodes` modules by fan-in. Externals included.
    pub fn module_overview(&self, max_nodes: usize) -> GraphView {
        layout::module_overview(self, max_nodes, true)
    }

    /// The neighbourhood of `center`, or the module overview for `None`;
    /// externals (stub nodes outside the corpus, other than the centre) only
    /// when `externals`, else counted in `externals_hidden`.
    pub fn graph(&self, center: Option<NodeId>, max_nodes: usize, externals: bool) -> GraphView {
        match center {
            Some(n) => layout::neighbourhood(self, n, max_nodes, externals),
            None => layout::module_overview(self, max_nodes, externals),
        }
    }

    /// The per-level cycle reports, module first, then type
    /// (`NavCycleReport`, `docs/formats/protocol.md` §5), computed at build by
    /// `analyzer::cycles`.
    pub fn cycles(&self) -> Vec<CycleReport> {
        self.cycles.clone()
    }
}
