//! The graph views: a node's neighbourhood and the module overview, laid out
//! in layers so that every edge points to a higher layer except inside a
//! cycle (the strongly connected components share a layer: `analyzer::scc`),
//! then ordered inside each layer by barycentre sweeps.

use hashbrown::HashMap;

use crate::vocab::RoleSet;
use crate::{GraphEdge, GraphNode, GraphView, Link, Navigator, NodeId, NONE};

/// Horizontal distance between layers.
pub(crate) const LAYER_GAP: f64 = 200.0;
/// Vertical distance between rows of a layer.
pub(crate) const ROW_GAP: f64 = 40.0;

pub(crate) fn neighbourhood(nav: &Navigator, n: NodeId, max_nodes: usize) -> GraphView {
    if n as usize >= nav.len() {
        return GraphView { center: Some(n), nodes: vec![], edges: vec![], left_out: 0 };
    }
    let owner = nav.category[n as usize].is_owner();
    // Counterparts and the links between them and `n`, from `n`'s rows.
    let (incoming, outgoing) = nav.row_lists(n);
    let mut star: HashMap<(NodeId, NodeId), Link> = HashMap::new();
    let mut weight: HashMap<NodeId, u32> = HashMap::new();
    for (list, out) in [(&incoming, false), (&outgoing, true)] {
        for &r in list.iter() {
            let row = &nav.rows[r as usize];
            let other = if owner {
                if out {
                    row.to
                } else {
                    row.from
                }
            } else {
                let (e, o) = if out { (row.to_ent, row.to) } else { (row.from_ent, row.from) };
                let m = nav.ent_member[e as usize];
                if m != NONE {
                    m
                } else {
                    o
                }
            };
            if other == n {
                continue;
            }
            *weight.entry(other).or_default() += 1;
            let key = if out { (n, other) } else { (other, n) };
            let link = star.entry(key).or_insert(Link {
                from: key.0,
                to: key.1,
                count: 0,
                roles: RoleSet::default(),
                inferred: false,
            });
            link.count += 1;
            link.roles.insert(row.role);
            link.inferred |= row.provenance != model::Provenance::Declared;
        }
    }
    let mut ranked: Vec<(NodeId, u32)> = weight.into_iter().collect();
    ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let keep = max_nodes.saturating_sub(1).min(ranked.len());
    let left_out = ranked.len() - keep;
    let mut nodes: Vec<NodeId> = Vec::with_capacity(keep + 1);
    nodes.push(n);
    nodes.extend(ranked[..keep].iter().map(|r| r.0));
    if max_nodes == 0 {
        return GraphView { center: Some(n), nodes: vec![], edges: vec![], left_out: ranked.len() + 1 };
    }
    let local: HashMap<NodeId, u32> = nodes.iter().enumerate().map(|(k, &v)| (v, k as u32)).collect();
    let mut links: Vec<Link> =
        star.into_values().filter(|l| local.contains_key(&l.from) && local.contains_key(&l.to)).collect();
    if owner {
        // Links between the neighbours themselves (owners only).
        for &v in &nodes[1..] {
            if !nav.category[v as usize].is_owner() {
                continue;
            }
            let range = nav.links_out[v as usize] as usize..nav.links_out[v as usize + 1] as usize;
            links.extend(nav.links[range].iter().filter(|l| l.to != n && local.contains_key(&l.to)).copied());
        }
    }
    links.sort_unstable_by_key(|l| (local[&l.from], local[&l.to]));
    let fan_in = |v: NodeId| nav.fan_in[v as usize];
    laid_out(nav, Some(n), &nodes, &links, &local, left_out, fan_in)
}

pub(crate) fn module_overview(nav: &Navigator, max_nodes: usize) -> GraphView {
    let mut fan_in: HashMap<NodeId, u32> = HashMap::new();
    for l in &nav.module_links {
        *fan_in.entry(l.to).or_default() += 1;
    }
    let mut modules: Vec<NodeId> =
        (0..nav.len() as NodeId).filter(|&v| nav.category[v as usize] == crate::Category::Module).collect();
    let fan = |v: &NodeId| fan_in.get(v).copied().unwrap_or(0);
    modules.sort_by(|a, b| fan(b).cmp(&fan(a)).then(a.cmp(b)));
    let keep = max_nodes.min(modules.len());
    let left_out = modules.len() - keep;
    modules.truncate(keep);
    let local: HashMap<NodeId, u32> = modules.iter().enumerate().map(|(k, &v)| (v, k as u32)).collect();
    let links: Vec<Link> =
        nav.module_links.iter().filter(|l| local.contains_key(&l.from) && local.contains_key(&l.to)).copied().collect();
    laid_out(nav, None, &modules, &links, &local, left_out, |v| fan(&v))
}

/// Lays `nodes` out and builds the view. `nodes[k]` has local number `k`.
fn laid_out(
    nav: &Navigator,
    center: Option<NodeId>,
    nodes: &[NodeId],
    links: &[Link],
    local: &HashMap<NodeId, u32>,
    left_out: usize,
    fan_in: impl Fn(NodeId) -> u32,
) -> GraphView {
    let arcs: Vec<(u32, u32)> = links.iter().map(|l| (local[&l.from], local[&l.to])).collect();
    let (layer, row, rows_in_layer) = layers(nodes.len(), &arcs);
    let graph_nodes = nodes
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            let l = layer[k];
            GraphNode {
                node: v,
                name: nav.name(v).to_string(),
                category: nav.category[v as usize].as_str().to_string(),
                stub: nav.stub[v as usize],
                layer: l,
                x: l as f64 * LAYER_GAP,
                y: (row[k] as f64 - (rows_in_layer[l as usize] as f64 - 1.0) / 2.0) * ROW_GAP,
                fan_in: fan_in(v),
            }
        })
        .collect();
    let edges = links
        .iter()
        .map(|l| GraphEdge {
            from: l.from,
            to: l.to,
            direction: match center {
                Some(c) if l.to == c => "in",
                Some(c) if l.from == c => "out",
                _ => "none",
            }
            .to_string(),
            count: l.count,
            roles: l.roles.names(),
            inferred: l.inferred,
        })
        .collect();
    GraphView { center, nodes: graph_nodes, edges, left_out }
}

/// Layers and rows of a directed graph on nodes `0..n`: the members of a
/// strongly connected component share a layer; the components are layered by
/// longest path from the sources, so every other arc goes to a higher layer.
/// Inside a layer nodes start in component then node order and are reordered
/// by two barycentre sweeps (down by predecessors, up by successors).
/// Returns (layer per node, row per node, rows per layer).
pub(crate) fn layers(n: usize, arcs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(f, t) in arcs {
        if f != t {
            succ[f as usize].push(t);
            pred[t as usize].push(f);
        }
    }
    // Tarjan emits a component after every component it reaches: reversed,
    // that is a topological order of the condensation.
    let components = analyzer::tarjan(&succ);
    let mut comp = vec![0u32; n];
    for (c, members) in components.iter().enumerate() {
        for &v in members {
            comp[v as usize] = c as u32;
        }
    }
    let mut comp_layer = vec![0u32; components.len()];
    for c in (0..components.len()).rev() {
        let here = comp_layer[c];
        for &v in &components[c] {
            for &w in &succ[v as usize] {
                let cw = comp[w as usize] as usize;
                if cw != c && comp_layer[cw] < here + 1 {
                    comp_layer[cw] = here + 1;
                }
            }
        }
    }
    let layer: Vec<u32> = (0..n).map(|v| comp_layer[comp[v] as usize]).collect();
    let layer_count = layer.iter().max().map_or(0, |m| *m as usize + 1);
    let mut by_layer: Vec<Vec<u32>> = vec![Vec::new(); layer_count];
    // Start in the given order, a component's members together (at its first member).
    let mut first = vec![u32::MAX; components.len()];
    for (v, &c) in comp.iter().enumerate() {
        first[c as usize] = first[c as usize].min(v as u32);
    }
    let mut initial: Vec<u32> = (0..n as u32).collect();
    initial.sort_by_key(|&v| (first[comp[v as usize] as usize], v));
    for v in initial {
        by_layer[layer[v as usize] as usize].push(v);
    }
    let mut row = vec![0u32; n];
    let place = |by_layer: &[Vec<u32>], row: &mut [u32]| {
        for members in by_layer {
            for (k, &v) in members.iter().enumerate() {
                row[v as usize] = k as u32;
            }
        }
    };
    place(&by_layer, &mut row);
    for _ in 0..2 {
        for members in by_layer.iter_mut().skip(1) {
            sweep(members, &pred, &layer, &mut row);
        }
        for members in by_layer.iter_mut().rev().skip(1) {
            sweep(members, &succ, &layer, &mut row);
        }
    }
    place(&by_layer, &mut row);
    let counts = by_layer.iter().map(|m| m.len() as u32).collect();
    (layer, row, counts)
}

/// Reorders one layer by the mean row of each node's neighbours in other
/// layers (a node without any keeps its row as its key); ties keep the order.
fn sweep(members: &mut Vec<u32>, neighbours: &[Vec<u32>], layer: &[u32], row: &mut [u32]) {
    let mut keyed: Vec<(f64, u32, u32)> = members
        .iter()
        .map(|&v| {
            let (sum, count) = neighbours[v as usize]
                .iter()
                .filter(|&&w| layer[w as usize] != layer[v as usize])
                .fold((0.0, 0u32), |(s, c), &w| (s + row[w as usize] as f64, c + 1));
            let key = if count == 0 { row[v as usize] as f64 } else { sum / count as f64 };
            (key, row[v as usize], v)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    members.clear();
    members.extend(keyed.iter().map(|k| k.2));
    for (k, &v) in members.iter().enumerate() {
        row[v as usize] = k as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::layers;

    #[test]
    fn arcs_point_to_higher_layers_except_in_cycles() {
        // 0 → 1 → 2 → 1 (cycle 1-2), 2 → 3, 0 → 3.
        let arcs = [(0, 1), (1, 2), (2, 1), (2, 3), (0, 3)];
        let (layer, row, counts) = layers(4, &arcs);
        assert_eq!(layer, vec![0, 1, 1, 2]);
        assert_eq!(counts, vec![1, 2, 1]);
        assert_ne!(row[1], row[2]);
    }

    #[test]
    fn empty_and_isolated() {
        assert_eq!(layers(0, &[]), (vec![], vec![], vec![]));
        let (layer, row, counts) = layers(3, &[]);
        assert_eq!(layer, vec![0, 0, 0]);
        assert_eq!(counts, vec![3]);
        let mut r = row.clone();
        r.sort();
        assert_eq!(r, vec![0, 1, 2]);
    }
}
