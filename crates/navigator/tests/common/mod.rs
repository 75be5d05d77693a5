//! Helpers shared by the navigator's tests.
#![allow(dead_code)]

use navigator::{GraphView, Navigator, NodeId};

/// A fixture model by its path under `fixtures/`.
pub fn model(path: &str) -> model::Model {
    let full = format!("{}/../../fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    model::read_model(bytes.as_slice(), "model.jsonl").expect("a valid model")
}

/// The node of an entity id, which must exist.
pub fn node(nav: &Navigator, id: &str) -> NodeId {
    nav.node_of(id).unwrap_or_else(|| panic!("no node {id}"))
}

pub fn names(nav: &Navigator, nodes: impl IntoIterator<Item = NodeId>) -> Vec<String> {
    nodes.into_iter().map(|n| nav.name(n).to_string()).collect()
}

/// Every edge goes to a higher layer, except a feedback edge, which goes to
/// a lower one and closes a cycle; every route runs from its edge's source
/// box to its target box; no two boxes overlap; everything lies inside the
/// view's size.
pub fn assert_layered(g: &GraphView) {
    let at = |n: NodeId| g.nodes.iter().find(|v| v.node == n).expect("an edge end is drawn");
    let reaches = |from: NodeId, to: NodeId| {
        let mut seen = vec![from];
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            if v == to {
                return true;
            }
            for e in g.edges.iter().filter(|e| e.from == v) {
                if !seen.contains(&e.to) {
                    seen.push(e.to);
                    stack.push(e.to);
                }
            }
        }
        false
    };
    for e in &g.edges {
        let (f, t) = (at(e.from), at(e.to));
        if e.points.is_empty() {
            assert_eq!(e.from, e.to, "only a self-loop has no route");
            continue;
        }
        if e.feedback {
            assert!(f.layer > t.layer, "{} → {}: a feedback edge runs back", e.from, e.to);
            assert!(reaches(e.to, e.from), "{} → {} goes back without a cycle", e.from, e.to);
        } else {
            assert!(f.layer < t.layer, "{} → {} at {} → {}", e.from, e.to, f.layer, t.layer);
        }
        // From the source's side to the target's side.
        let (first, last) = (e.points[0], e.points[e.points.len() - 1]);
        let side = |v: &navigator::GraphNode, p: (f64, f64), right: bool| {
            let x = if right { v.x + v.width } else { v.x };
            (p.0 - x).abs() <= 0.02 && p.1 >= v.y && p.1 <= v.y + v.height + 0.02
        };
        assert!(side(f, first, !e.feedback), "{e:?} starts on {f:?}");
        assert!(side(t, last, e.feedback), "{e:?} ends on {t:?}");
        assert_eq!(e.points.len() % 2, 0);
        for p in &e.points {
            assert!(p.0 >= 0.0 && p.0 <= g.width && p.1 >= 0.0 && p.1 <= g.height, "{p:?} outside");
        }
    }
    assert_no_overlap(g);
}

/// No two boxes share any area; every box lies inside the view's size; a
/// layer's boxes share their left edge.
pub fn assert_no_overlap(g: &GraphView) {
    for (i, a) in g.nodes.iter().enumerate() {
        assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + a.width <= g.width && a.y + a.height <= g.height, "{a:?} outside");
        assert!(a.width > 0.0 && a.height > 0.0);
        for b in &g.nodes[i + 1..] {
            let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
            assert!(apart, "{} and {} overlap: {a:?} {b:?}", a.label, b.label);
            if a.layer == b.layer {
                assert_eq!(a.x, b.x);
            }
        }
    }
}

/// Every node's neighbourhood (externals on and off) and the module
/// overview are laid out without overlap, in layers; returns how many views.
pub fn assert_every_view_is_readable(nav: &Navigator, max_nodes: usize) -> usize {
    let mut views = 0;
    for externals in [true, false] {
        let g = nav.graph(None, max_nodes, externals);
        assert_layered(&g);
        views += 1;
        for n in 0..nav.len() as NodeId {
            let g = nav.graph(Some(n), max_nodes, externals);
            assert_layered(&g);
            if !externals {
                assert!(g.nodes.iter().all(|v| !v.stub || v.node == n), "an external drawn");
            }
            views += 1;
        }
    }
    views
}
