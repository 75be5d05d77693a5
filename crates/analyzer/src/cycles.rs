//! The cycle report and the weighted minimum feedback set (Eades–Lin–Smyth +
//! a minimality pass). Iterative throughout.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use crate::fold::{FoldedGraph, KindSet, ProvenanceSet};
use crate::graph::Level;
use crate::scc::tarjan;
use crate::view::ViewDescriptor;
use crate::Id;

/// An edge inside a reported component.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleEdge {
    pub from: Id,
    pub to: Id,
    pub count: u32,
    /// Sorted names.
    pub kinds: KindSet,
    /// Sorted names.
    pub provenances: ProvenanceSet,
    /// `provenances == ["declared"]`.
    pub all_declared: bool,
    pub self_loop: bool,
}

impl CycleEdge {
    fn of(e: &crate::fold::FoldedEdge) -> CycleEdge {
        CycleEdge {
            from: e.from.clone(),
            to: e.to.clone(),
            count: e.count,
            kinds: e.kinds,
            provenances: e.provenances,
            all_declared: e.provenances.only_declared(),
            self_loop: e.self_loop,
        }
    }
}

/// One strongly connected component of at least `minSize` members.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleComponent {
    /// Sorted.
    pub members: Vec<Id>,
    pub size: usize,
    /// Number of internal edges, self-loops included.
    pub internal_edge_count: usize,
    /// Σ count of internal edges, self-loops included.
    pub weight: u64,
    /// Internal edges sorted by (from, to).
    pub edges: Vec<CycleEdge>,
    /// The minimal feedback set, sorted by (from, to).
    pub feedback_edges: Vec<CycleEdge>,
    pub feedback_weight: u64,
    /// `feedbackWeight / Σ count of non-self internal edges`, 0 when that is 0.
    pub tangle_metric: f64,
}

/// The report's overall tangle.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tangle {
    pub feedback_edge_count: usize,
    pub feedback_weight: u64,
    /// Σ count of non-self internal edges over all components.
    pub cyclic_weight: u64,
    /// `feedbackWeight / cyclicWeight`, 0 (never NaN) when that is 0.
    pub metric: f64,
}

/// `cycles(folded, {minSize})`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CycleReport {
    pub level: Level,
    pub view: ViewDescriptor,
    /// Sorted by `compareComponents`.
    pub components: Vec<CycleComponent>,
    /// Nodes with a folded self-loop, sorted, unique.
    pub self_loops: Vec<Id>,
    pub tangle: Tangle,
}

/// The effective `minSize`: 2 when absent or non-finite, else `max(1, minSize)`.
pub fn effective_min_size(min_size: Option<f64>) -> usize {
    match min_size {
        Some(m) if m.is_finite() => m.max(1.0).ceil() as usize,
        _ => 2,
    }
}

/// The cycle report of a folded graph. `min_size` as in [`effective_min_size`].
pub fn cycles(folded: &FoldedGraph, min_size: Option<f64>) -> CycleReport {
    let min_size = effective_min_size(min_size);
    let successors = folded.successor_lists();
    let mut components: Vec<Vec<u32>> = tarjan(&successors).into_iter().filter(|c| c.len() >= min_size).collect();
    for c in &mut components {
        c.sort_unstable();
    }
    components.sort_unstable();
    let mut component_of = vec![u32::MAX; folded.nodes.len()];
    for (ci, c) in components.iter().enumerate() {
        for &m in c {
            component_of[m as usize] = ci as u32;
        }
    }
    let mut edges: Vec<Vec<CycleEdge>> = vec![Vec::new(); components.len()];
    let mut self_loops = Vec::new();
    for e in &folded.edges {
        if e.self_loop {
            self_loops.push(e.from.clone());
        }
        let (cf, ct) = (component_of[e.from_node as usize], component_of[e.to_node as usize]);
        if cf != u32::MAX && cf == ct {
            edges[cf as usize].push(CycleEdge::of(e));
        }
    }
    // Edges are (from, to)-sorted, so self-loop sources already come sorted.
    self_loops.dedup();

    let mut tangle = Tangle { feedback_edge_count: 0, feedback_weight: 0, cyclic_weight: 0, metric: 0.0 };
    let reported: Vec<CycleComponent> = components
        .into_iter()
        .zip(edges)
        .map(|(members, edges)| {
            let feedback_edges = feedback_arc_set(&edges);
            let feedback_weight: u64 = feedback_edges.iter().map(|e| e.count as u64).sum();
            let cyclic: u64 = edges.iter().filter(|e| !e.self_loop).map(|e| e.count as u64).sum();
            tangle.feedback_edge_count += feedback_edges.len();
            tangle.feedback_weight += feedback_weight;
            tangle.cyclic_weight += cyclic;
            CycleComponent {
                size: members.len(),
                members: members.iter().map(|&m| folded.nodes[m as usize].id.clone()).collect(),
                internal_edge_count: edges.len(),
                weight: edges.iter().map(|e| e.count as u64).sum(),
                feedback_weight,
                tangle_metric: ratio(feedback_weight, cyclic),
                feedback_edges,
                edges,
            }
        })
        .collect();
    tangle.metric = ratio(tangle.feedback_weight, tangle.cyclic_weight);
    CycleReport { level: folded.level, view: folded.view.clone(), components: reported, self_loops, tangle }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// `selfLoopEdges(folded)`: the self-loop edges as [`CycleEdge`]s, in edge order.
pub fn self_loop_edges(folded: &FoldedGraph) -> Vec<CycleEdge> {
    folded.edges.iter().filter(|e| e.self_loop).map(CycleEdge::of).collect()
}

/// `feedbackArcSet(edges)`: a minimal weighted feedback set of the
/// non-self-loop edges, sorted by (from, to). Removing it leaves a DAG;
/// re-adding any single member restores a cycle.
pub fn feedback_arc_set(edges: &[CycleEdge]) -> Vec<CycleEdge> {
    feedback_arc_set_indices(edges).into_iter().map(|i| edges[i].clone()).collect()
}

/// [`feedback_arc_set`] as indexes into `edges`.
pub fn feedback_arc_set_indices(edges: &[CycleEdge]) -> Vec<usize> {
    feedback_arc_set_with(edges, false)
}

/// `naive_minimality`: re-check each candidate with an unbounded search (the
/// reference the maintained-order search is tested against).
fn feedback_arc_set_with(edges: &[CycleEdge], naive_minimality: bool) -> Vec<usize> {
    let work: Vec<usize> = (0..edges.len()).filter(|&i| !edges[i].self_loop && edges[i].from != edges[i].to).collect();
    if work.is_empty() {
        return vec![];
    }
    // Vertices in sorted id order: a vertex's number is its rank.
    let mut names: Vec<&str> = work.iter().flat_map(|&i| [&*edges[i].from, &*edges[i].to]).collect();
    names.sort_by(|a, b| model::cmp_utf16(a, b));
    names.dedup();
    let vertex = |id: &str| names.binary_search_by(|n| model::cmp_utf16(n, id)).expect("an endpoint") as u32;
    let nv = names.len();
    // Work edges as (from, to, count).
    let arcs: Vec<(u32, u32, i64)> =
        work.iter().map(|&i| (vertex(&edges[i].from), vertex(&edges[i].to), edges[i].count as i64)).collect();
    let mut out_weight = vec![0i64; nv];
    let mut in_weight = vec![0i64; nv];
    let mut out_pairs = Vec::with_capacity(arcs.len());
    let mut in_pairs = Vec::with_capacity(arcs.len());
    for (k, &(f, t, c)) in arcs.iter().enumerate() {
        out_weight[f as usize] += c;
        in_weight[t as usize] += c;
        out_pairs.push((f, k as u32));
        in_pairs.push((t, k as u32));
    }
    let outgoing = crate::graph::Csr::build(nv, &out_pairs);
    let incoming = crate::graph::Csr::build(nv, &in_pairs);

    let mut sinks: Vec<u32> = Vec::new();
    let mut sources: Vec<u32> = Vec::new();
    // Max-heap on (delta, smaller id first).
    let mut heap: BinaryHeap<(i64, Reverse<u32>)> = BinaryHeap::new();
    for v in 0..nv as u32 {
        if out_weight[v as usize] == 0 {
            sinks.push(v);
        } else if in_weight[v as usize] == 0 {
            sources.push(v);
        }
        heap.push((out_weight[v as usize] - in_weight[v as usize], Reverse(v)));
    }
    let mut alive = vec![true; nv];
    let mut position = vec![0usize; nv];
    let mut left = 0usize;
    let mut right = nv - 1;
    let mut remaining = nv;
    while remaining > 0 {
        let (v, at_right) = if let Some(s) = sinks.pop() {
            if !alive[s as usize] || out_weight[s as usize] != 0 {
                continue;
            }
            (s, true)
        } else if let Some(s) = sources.pop() {
            if !alive[s as usize] || in_weight[s as usize] != 0 {
                continue;
            }
            (s, false)
        } else if let Some((delta, Reverse(s))) = heap.pop() {
            if !alive[s as usize] || delta != out_weight[s as usize] - in_weight[s as usize] {
                continue;
            }
            (s, false)
        } else {
            break;
        };
        alive[v as usize] = false;
        if at_right {
            position[v as usize] = right;
            right = right.saturating_sub(1);
        } else {
            position[v as usize] = left;
            left += 1;
        }
        remaining -= 1;
        for &k in outgoing.get(v) {
            let (_, t, c) = arcs[k as usize];
            if !alive[t as usize] {
                continue;
            }
            in_weight[t as usize] -= c;
            if in_weight[t as usize] == 0 && out_weight[t as usize] > 0 {
                sources.push(t);
            }
            heap.push((out_weight[t as usize] - in_weight[t as usize], Reverse(t)));
        }
        for &k in incoming.get(v) {
            let (f, _, c) = arcs[k as usize];
            if !alive[f as usize] {
                continue;
            }
            out_weight[f as usize] -= c;
            if out_weight[f as usize] == 0 {
                sinks.push(f);
            }
            heap.push((out_weight[f as usize] - in_weight[f as usize], Reverse(f)));
        }
    }

    let mut backward: Vec<bool> = arcs.iter().map(|&(f, t, _)| position[f as usize] > position[t as usize]).collect();
    // Minimality: re-admit, heaviest first, every candidate that closes no
    // cycle. The kept edges always form a DAG; a topological order of it is
    // maintained (Pearce–Kelly), so each reachability search only visits the
    // nodes ordered between the candidate's ends. The answers are exactly
    // those of an unbounded search.
    let mut order = DynamicOrder::new(&position);
    for (k, &(f, t, _)) in arcs.iter().enumerate() {
        if !backward[k] {
            order.add_edge(f, t);
        }
    }
    let mut candidates: Vec<usize> = (0..arcs.len()).filter(|&k| backward[k]).collect();
    candidates
        .sort_by(|&a, &b| arcs[b].2.cmp(&arcs[a].2).then(arcs[a].0.cmp(&arcs[b].0)).then(arcs[a].1.cmp(&arcs[b].1)));
    let mut stamp = vec![u32::MAX; nv];
    let mut stack = Vec::new();
    for (round, &k) in candidates.iter().enumerate() {
        let (f, t, _) = arcs[k];
        let admitted = if naive_minimality {
            let closes = reaches(t, f, &order.out, &mut stamp, round as u32, &mut stack);
            if !closes {
                order.add_edge(f, t);
            }
            !closes
        } else {
            order.try_insert(f, t)
        };
        if admitted {
            backward[k] = false;
        }
    }
    let mut cut: Vec<usize> = (0..arcs.len()).filter(|&k| backward[k]).collect();
    cut.sort_by_key(|&k| (arcs[k].0, arcs[k].1));
    cut.into_iter().map(|k| work[k]).collect()
}

/// A DAG with a maintained topological order (Pearce & Kelly 2006),
/// iterative searches only.
struct DynamicOrder {
    /// `ord[v]`: v's slot in the topological order.
    ord: Vec<u32>,
    out: Vec<Vec<u32>>,
    inc: Vec<Vec<u32>>,
    stamp: Vec<u32>,
    round: u32,
    stack: Vec<u32>,
    forward: Vec<u32>,
    backward: Vec<u32>,
}

impl DynamicOrder {
    /// `order` must be a topological order of the edges added with [`Self::add_edge`].
    fn new(order: &[usize]) -> DynamicOrder {
        let n = order.len();
        DynamicOrder {
            ord: order.iter().map(|&p| p as u32).collect(),
            out: vec![Vec::new(); n],
            inc: vec![Vec::new(); n],
            stamp: vec![0; n],
            round: 0,
            stack: Vec::new(),
            forward: Vec::new(),
            backward: Vec::new(),
        }
    }

    fn add_edge(&mut self, f: u32, t: u32) {
        self.out[f as usize].push(t);
        self.inc[t as usize].push(f);
    }

    /// Adds `f → t` unless `t` already reaches `f` (the edge would close a
    /// cycle); returns whether it was added.
    fn try_insert(&mut self, f: u32, t: u32) -> bool {
        let (lb, ub) = (self.ord[t as usize], self.ord[f as usize]);
        if ub < lb {
            // Already in order: t comes after f, so t cannot reach f.
            self.add_edge(f, t);
            return true;
        }
        // Forward search from t among nodes ordered no later than f.
        self.round += 1;
        let round = self.round;
        self.forward.clear();
        self.stack.clear();
        self.stack.push(t);
        self.stamp[t as usize] = round;
        while let Some(v) = self.stack.pop() {
            if v == f {
                return false;
            }
            self.forward.push(v);
            for &w in &self.out[v as usize] {
                if self.stamp[w as usize] != round && self.ord[w as usize] <= ub {
                    self.stamp[w as usize] = round;
                    self.stack.push(w);
                }
            }
        }
        // Backward search from f among nodes ordered after t.
        self.backward.clear();
        self.stack.push(f);
        self.stamp[f as usize] = round;
        while let Some(v) = self.stack.pop() {
            self.backward.push(v);
            for &w in &self.inc[v as usize] {
                if self.stamp[w as usize] != round && self.ord[w as usize] > lb {
                    self.stamp[w as usize] = round;
                    self.stack.push(w);
                }
            }
        }
        // Reorder: the backward set, then the forward set, into their slots.
        let ord = &self.ord;
        self.backward.sort_unstable_by_key(|&v| ord[v as usize]);
        self.forward.sort_unstable_by_key(|&v| ord[v as usize]);
        let mut slots: Vec<u32> = self.backward.iter().chain(&self.forward).map(|&v| ord[v as usize]).collect();
        slots.sort_unstable();
        for (slot, &v) in slots.into_iter().zip(self.backward.iter().chain(&self.forward)) {
            self.ord[v as usize] = slot;
        }
        self.add_edge(f, t);
        true
    }
}

/// Whether `from` reaches `target` over `kept` (iterative DFS; `seen` stamped with `round`).
fn reaches(from: u32, target: u32, kept: &[Vec<u32>], seen: &mut [u32], round: u32, stack: &mut Vec<u32>) -> bool {
    stack.clear();
    stack.push(from);
    seen[from as usize] = round;
    while let Some(v) = stack.pop() {
        if v == target {
            return true;
        }
        for &w in &kept[v as usize] {
            if seen[w as usize] != round {
                seen[w as usize] = round;
                stack.push(w);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(from: &str, to: &str, count: u32) -> CycleEdge {
        CycleEdge {
            from: from.into(),
            to: to.into(),
            count,
            kinds: KindSet::default(),
            provenances: ProvenanceSet::default(),
            all_declared: false,
            self_loop: from == to,
        }
    }

    fn acyclic_without(edges: &[CycleEdge], cut: &[usize]) -> bool {
        let kept: Vec<(String, String)> = (0..edges.len())
            .filter(|i| !cut.contains(i) && !edges[*i].self_loop)
            .map(|i| (edges[i].from.to_string(), edges[i].to.to_string()))
            .collect();
        let mut nodes: Vec<String> = kept.iter().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
        nodes.sort();
        nodes.dedup();
        let idx = |s: &str| nodes.binary_search_by(|n| n.as_str().cmp(s)).unwrap() as u32;
        let mut succ = vec![Vec::new(); nodes.len()];
        for (a, b) in &kept {
            succ[idx(a) as usize].push(idx(b));
        }
        tarjan(&succ).iter().all(|c| c.len() == 1)
    }

    #[test]
    fn two_cycles_and_minimality() {
        let edges = vec![
            edge("a", "b", 3),
            edge("b", "a", 1),
            edge("b", "c", 1),
            edge("c", "a", 1),
            edge("c", "c", 5),
            edge("d", "e", 1),
        ];
        let cut = feedback_arc_set_indices(&edges);
        assert!(acyclic_without(&edges, &cut));
        for k in 0..cut.len() {
            let mut fewer = cut.clone();
            fewer.remove(k);
            assert!(!acyclic_without(&edges, &fewer), "cut member {k} is not needed");
        }
        assert!(cut.iter().all(|&i| !edges[i].self_loop));
    }

    #[test]
    fn ring_of_100_000_is_cut_once() {
        let n = 100_000;
        let names: Vec<String> = (0..n).map(|i| format!("n{i:06}")).collect();
        let edges: Vec<CycleEdge> = (0..n).map(|i| edge(&names[i], &names[(i + 1) % n], 1)).collect();
        assert_eq!(feedback_arc_set(&edges).len(), 1);
    }

    proptest::proptest! {
        #[test]
        fn minimal_and_equal_to_the_unbounded_search(
            raw in proptest::collection::vec((0u8..12, 0u8..12, 1u32..4), 0..60),
        ) {
            let edges: Vec<CycleEdge> =
                raw.iter().map(|&(a, b, c)| edge(&format!("v{a:02}"), &format!("v{b:02}"), c)).collect();
            let cut = feedback_arc_set_indices(&edges);
            proptest::prop_assert_eq!(&cut, &feedback_arc_set_with(&edges, true));
            proptest::prop_assert!(acyclic_without(&edges, &cut));
            for k in 0..cut.len() {
                let mut fewer = cut.clone();
                fewer.remove(k);
                proptest::prop_assert!(!acyclic_without(&edges, &fewer));
            }
        }
    }

    #[test]
    fn min_size_rules() {
        assert_eq!(effective_min_size(None), 2);
        assert_eq!(effective_min_size(Some(f64::NAN)), 2);
        assert_eq!(effective_min_size(Some(f64::INFINITY)), 2);
        assert_eq!(effective_min_size(Some(0.0)), 1);
        assert_eq!(effective_min_size(Some(3.0)), 3);
    }
}
