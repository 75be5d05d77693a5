//! What the graph says around the listed symbols: the flow (a call path
//! among the named operations, with the hops where interface dispatch
//! leaves the static graph), dispatch notes, the blast radius (direct
//! dependents only) and the relationships among the listed symbols.

use std::collections::VecDeque;

use analyzer::CodeGraph;
use hashbrown::{HashMap, HashSet};
use model::{EdgeKind, Trait};

use crate::index::{qualified_name, Class, ExploreIndex};
use crate::map::{Hop, Relation};

/// Seeds of the flow search.
const FLOW_SEEDS: usize = 8;
/// Nodes of one flow chain, at most.
const FLOW_NODES: usize = 7;
/// Unnamed nodes in a row a chain may pass through.
const FLOW_BRIDGE: u32 = 1;
/// Nodes one seed's search visits, at most.
const FLOW_VISITS: usize = 1_500;
/// Types searched for implementations of one method, at most.
const MAX_SUBTYPES: usize = 2_000;

/// The edge kinds of the relationships section, in the order shown.
pub(crate) const RELATIONSHIP_KINDS: [EdgeKind; 11] = [
    EdgeKind::Invocation,
    EdgeKind::Access,
    EdgeKind::Inheritance,
    EdgeKind::InterfaceImplementation,
    EdgeKind::Reference,
    EdgeKind::Throws,
    EdgeKind::AnnotationUse,
    EdgeKind::Import,
    EdgeKind::Embedding,
    EdgeKind::TraitUsage,
    EdgeKind::FileInclude,
];

/// How the relationships section names an edge kind.
pub(crate) fn label(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Invocation => "calls",
        EdgeKind::Access => "accesses",
        EdgeKind::Inheritance => "extends",
        EdgeKind::InterfaceImplementation => "implements",
        EdgeKind::Reference => "references",
        EdgeKind::Throws => "throws",
        EdgeKind::AnnotationUse => "annotated with",
        EdgeKind::Import => "imports",
        EdgeKind::Embedding => "embeds",
        EdgeKind::TraitUsage => "uses trait",
        EdgeKind::FileInclude => "includes",
    }
}

/// A flow chain: each step with how it is reached (none for the first).
pub(crate) type Chain = Vec<(u32, Option<Hop>)>;

/// A kind of dependents found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    Plain(Relation),
    /// Invokers of this method, which the root implements or overrides.
    Through(u32),
}

/// The implementations a call to a method may reach at run time.
#[derive(Clone, Debug, Default)]
pub(crate) struct Overrides {
    /// The type declaring the method.
    pub supertype: Option<u32>,
    /// Same-name, same-signature methods of its subtypes, in id order.
    pub methods: Vec<u32>,
    /// Distinct types declaring one.
    pub types: usize,
}

pub(crate) struct Relations<'a, 'm> {
    pub graph: &'a CodeGraph<'m>,
    pub index: &'a ExploreIndex,
    overrides: std::cell::RefCell<HashMap<u32, std::rc::Rc<Overrides>>>,
}

impl<'a, 'm> Relations<'a, 'm> {
    pub(crate) fn new(graph: &'a CodeGraph<'m>, index: &'a ExploreIndex) -> Self {
        Relations { graph, index, overrides: Default::default() }
    }

    fn is_op(&self, i: u32) -> bool {
        self.index.class(i) == Some(Class::Operation)
    }

    /// Operations `op` calls (symbols only: calls into libraries are left out).
    fn callees(&self, op: u32) -> Vec<u32> {
        let edges = self.graph.model().edges();
        let mut out = Vec::new();
        for e in self.graph.outgoing_of_kind(op, EdgeKind::Invocation) {
            let to = edges[e as usize].to;
            if self.is_op(to) && to != op && !out.contains(&to) {
                out.push(to);
            }
        }
        out
    }

    /// The implementations of method `m` in the subtypes of its type.
    pub(crate) fn overrides(&self, m: u32) -> std::rc::Rc<Overrides> {
        if let Some(o) = self.overrides.borrow().get(&m) {
            return o.clone();
        }
        let mut result = Overrides::default();
        let g = self.graph;
        let declaring = g.parent_of(m).filter(|&p| g.has_trait(p, Trait::Type));
        if let (Some(t), Some(name)) = (declaring, g.entity_name(m)) {
            result.supertype = Some(t);
            let signature = g.entity(m).signature();
            let mut seen: HashSet<u32> = HashSet::from_iter([t]);
            let mut queue: VecDeque<u32> = VecDeque::from([t]);
            let mut types = HashSet::new();
            while let Some(ty) = queue.pop_front() {
                if seen.len() > MAX_SUBTYPES {
                    break;
                }
                for &sub in g.subtypes_of(ty).iter().chain(g.implementers_of(ty)) {
                    if !seen.insert(sub) {
                        continue;
                    }
                    queue.push_back(sub);
                    for &c in g.children_of(sub) {
                        if self.is_op(c) && g.entity_name(c) == Some(name) && g.entity(c).signature() == signature {
                            result.methods.push(c);
                            types.insert(sub);
                        }
                    }
                }
            }
            result.methods.sort_by(|&a, &b| g.cmp(a, b));
            result.types = types.len();
        }
        let rc = std::rc::Rc::new(result);
        self.overrides.borrow_mut().insert(m, rc.clone());
        rc
    }

    /// The methods `m` implements or overrides: same name and signature in
    /// the supertypes of its type, nearest first.
    pub(crate) fn overridden(&self, m: u32) -> Vec<u32> {
        let g = self.graph;
        let edges = g.model().edges();
        let (Some(t), Some(name)) = (g.parent_of(m).filter(|&p| g.has_trait(p, Trait::Type)), g.entity_name(m)) else {
            return Vec::new();
        };
        let signature = g.entity(m).signature();
        let mut out = Vec::new();
        let mut seen: HashSet<u32> = HashSet::from_iter([t]);
        let mut queue = VecDeque::from([t]);
        while let Some(ty) = queue.pop_front() {
            if seen.len() > MAX_SUBTYPES {
                break;
            }
            let supers = g
                .outgoing(ty)
                .iter()
                .map(|&e| &edges[e as usize])
                .filter(|e| matches!(e.kind, EdgeKind::Inheritance | EdgeKind::InterfaceImplementation));
            for e in supers {
                if !seen.insert(e.to) {
                    continue;
                }
                queue.push_back(e.to);
                for &c in g.children_of(e.to) {
                    if self.is_op(c) && g.entity_name(c) == Some(name) && g.entity(c).signature() == signature {
                        out.push(c);
                    }
                }
            }
        }
        out
    }

    /// The call path among `named` operations: from each seed, a breadth-first
    /// search over calls (and dispatch to implementations) to the deepest
    /// named operation it reaches, passing at most one unnamed operation in a
    /// row; the longest chain of three or more wins.
    pub(crate) fn flow(&self, named: &[u32]) -> Option<(Chain, usize)> {
        let named_set: HashSet<u32> = named.iter().copied().collect();
        if named_set.len() < 2 {
            return None;
        }
        let mut chains: Vec<Chain> = Vec::new();
        for &seed in named.iter().take(FLOW_SEEDS) {
            let mut parent: HashMap<u32, (u32, Hop)> = HashMap::new();
            let mut queue = VecDeque::from([(seed, 1usize, 0u32)]);
            let mut visited: HashSet<u32> = HashSet::from_iter([seed]);
            let mut best: Option<(usize, u32)> = None;
            while let Some((n, nodes, bridge)) = queue.pop_front() {
                if visited.len() > FLOW_VISITS || nodes >= FLOW_NODES {
                    continue;
                }
                let calls = self.callees(n).into_iter().map(|c| (c, Hop::Calls));
                let dispatch = self.overrides(n).methods.clone().into_iter().map(|c| (c, Hop::Dispatch));
                for (next, hop) in calls.chain(dispatch) {
                    let run = if named_set.contains(&next) { 0 } else { bridge + 1 };
                    if run > FLOW_BRIDGE || !visited.insert(next) {
                        continue;
                    }
                    parent.insert(next, (n, hop));
                    if run == 0 && best.is_none_or(|(d, _)| nodes + 1 > d) {
                        best = Some((nodes + 1, next));
                    }
                    queue.push_back((next, nodes + 1, run));
                }
            }
            let Some((_, end)) = best else { continue };
            let mut chain = vec![(end, None)];
            let mut cur = end;
            while let Some(&(p, hop)) = parent.get(&cur) {
                chain.last_mut().expect("a step").1 = Some(hop);
                chain.push((p, None));
                cur = p;
            }
            chain.reverse();
            chains.push(chain);
        }
        chains.sort_by_key(|c| std::cmp::Reverse(c.len()));
        let mut kept: Vec<Chain> = Vec::new();
        for c in chains {
            let nodes: Vec<u32> = c.iter().map(|s| s.0).collect();
            let inside = kept.iter().any(|k| {
                let kn: Vec<u32> = k.iter().map(|s| s.0).collect();
                kn.windows(nodes.len()).any(|w| w == nodes.as_slice())
            });
            if !inside && c.len() >= 3 {
                kept.push(c);
            }
        }
        let others = kept.len().saturating_sub(1);
        kept.into_iter().next().map(|c| (c, others))
    }

    /// Dispatch notes: calls from `ops` into a method with implementations
    /// (the static graph records the call to the declaring type only), and
    /// requested methods that have implementations. One note per method.
    pub(crate) fn dispatch(&self, ops: &[(u32, bool)]) -> Vec<(Option<u32>, u32)> {
        let mut notes = Vec::new();
        let mut seen = HashSet::new();
        for &(op, requested) in ops {
            if requested && !self.overrides(op).methods.is_empty() && seen.insert(op) {
                notes.push((None, op));
            }
            for c in self.callees(op) {
                if !self.overrides(c).methods.is_empty() && seen.insert(c) {
                    notes.push((Some(op), c));
                }
            }
        }
        notes
    }

    /// The direct dependents of a symbol, by relation.
    pub(crate) fn dependents(&self, root: u32) -> Vec<(Found, Vec<u32>)> {
        let g = self.graph;
        let edges = g.model().edges();
        let owners = |list: &mut dyn Iterator<Item = u32>| -> Vec<u32> {
            let mut out: Vec<u32> = Vec::new();
            let mut seen = HashSet::new();
            for s in list {
                if let Some(o) = self.index.owner(s).filter(|&o| o != root) {
                    if seen.insert(o) {
                        out.push(o);
                    }
                }
            }
            out.sort_by(|&a, &b| g.cmp(a, b));
            out
        };
        let mut groups = Vec::new();
        match self.index.class(root) {
            Some(Class::Operation) => {
                groups.push((Found::Plain(Relation::Invokers), owners(&mut g.callers_of(root).iter().copied())));
                for base in self.overridden(root) {
                    groups.push((Found::Through(base), owners(&mut g.callers_of(base).iter().copied())));
                }
            }
            Some(Class::Field) => {
                let access: Vec<&model::Edge> =
                    g.incoming_of_kind(root, EdgeKind::Access).map(|e| &edges[e as usize]).collect();
                let readers = owners(&mut access.iter().filter(|e| e.is_read() != Some(false)).map(|e| e.from));
                let writers = owners(&mut access.iter().filter(|e| e.is_write() == Some(true)).map(|e| e.from));
                groups.push((Found::Plain(Relation::Readers), readers));
                groups.push((Found::Plain(Relation::Writers), writers));
            }
            Some(Class::Type) => {
                groups.push((Found::Plain(Relation::Subtypes), owners(&mut g.subtypes_of(root).iter().copied())));
                groups
                    .push((Found::Plain(Relation::Implementers), owners(&mut g.implementers_of(root).iter().copied())));
                let mut referrers: Vec<u32> = Vec::new();
                let mut seen = HashSet::new();
                for e in g.incoming(root) {
                    let edge = &edges[*e as usize];
                    if !matches!(edge.kind, EdgeKind::Reference | EdgeKind::AnnotationUse | EdgeKind::Throws) {
                        continue;
                    }
                    let from = g.containing_type(edge.from).or_else(|| self.index.owner(edge.from));
                    let Some(from) = from.filter(|&f| f != root && self.index.class(f).is_some()) else { continue };
                    if g.containing_type(from) == Some(root) || !seen.insert(from) {
                        continue;
                    }
                    referrers.push(from);
                }
                referrers.sort_by(|&a, &b| g.cmp(a, b));
                groups.push((Found::Plain(Relation::Referrers), referrers));
                let constructors: Vec<u32> = g
                    .children_of(root)
                    .iter()
                    .copied()
                    .filter(|&c| self.is_op(c) && g.kind(c) == "constructor")
                    .collect();
                let mut callers = constructors.iter().flat_map(|&c| g.callers_of(c).iter().copied());
                let mut creators = owners(&mut callers);
                creators.retain(|c| !constructors.contains(c));
                groups.push((Found::Plain(Relation::Creators), creators));
            }
            Some(Class::Module) => {
                let mut targets = vec![root];
                let mut stack = vec![root];
                while let Some(n) = stack.pop() {
                    for &c in g.children_of(n) {
                        if g.has_trait(c, Trait::Type) {
                            targets.push(c);
                            stack.push(c);
                        }
                    }
                }
                let mut importers: Vec<u32> = Vec::new();
                let mut seen = HashSet::new();
                for t in targets {
                    for e in g.incoming_of_kind(t, EdgeKind::Import) {
                        let Some(m) = g.containing_module(edges[e as usize].from) else { continue };
                        if m != root && self.index.class(m).is_some() && seen.insert(m) {
                            importers.push(m);
                        }
                    }
                }
                importers.sort_by(|&a, &b| g.cmp(a, b));
                groups.push((Found::Plain(Relation::Importers), importers));
            }
            None => {}
        }
        groups
    }

    /// Edges among the listed symbols, folded to them (an edge of a
    /// parameter counts for its method), by kind, deduplicated.
    pub(crate) fn among(&self, listed: &[u32]) -> Vec<(EdgeKind, Vec<(u32, u32)>)> {
        let g = self.graph;
        let edges = g.model().edges();
        let set: HashSet<u32> = listed.iter().copied().collect();
        let mut by_kind: HashMap<EdgeKind, Vec<(u32, u32)>> = HashMap::new();
        let mut seen = HashSet::new();
        for &a in listed {
            // The symbol and its members that are not symbols themselves.
            let mut stack = vec![a];
            while let Some(n) = stack.pop() {
                for &e in g.outgoing(n) {
                    let edge = &edges[e as usize];
                    let Some(b) = self.index.owner(edge.to) else { continue };
                    if b != a && set.contains(&b) && seen.insert((edge.kind, a, b)) {
                        by_kind.entry(edge.kind).or_default().push((a, b));
                    }
                }
                stack.extend(g.children_of(n).iter().copied().filter(|&c| self.index.owner(c) == Some(a) && c != a));
            }
        }
        RELATIONSHIP_KINDS.iter().filter_map(|k| by_kind.remove(k).map(|pairs| (*k, pairs))).collect()
    }

    /// The qualified name of a symbol.
    pub(crate) fn name(&self, i: u32) -> String {
        qualified_name(self.graph, i).to_owned()
    }
}
