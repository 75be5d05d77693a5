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

/// Every edge goes to a higher layer, except between members of one cycle
/// (which then share a layer).
pub fn assert_layered(g: &GraphView) {
    let layer = |n: NodeId| g.nodes.iter().find(|v| v.node == n).expect("an edge end is drawn").layer;
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
        if layer(e.from) >= layer(e.to) {
            assert!(reaches(e.to, e.from), "{} → {} goes back without a cycle", e.from, e.to);
            assert_eq!(layer(e.from), layer(e.to), "a cycle shares its layer");
        }
    }
    for v in &g.nodes {
        assert_eq!(v.x, v.layer as f64 * 200.0);
    }
    // No two nodes on one spot.
    let mut spots: Vec<(u32, i64)> = g.nodes.iter().map(|v| (v.layer, v.y as i64)).collect();
    spots.sort();
    let before = spots.len();
    spots.dedup();
    assert_eq!(spots.len(), before);
}
