//! The graph views: a node's neighbourhood and the module overview, each
//! laid out left to right by a Sugiyama pass ([`sugiyama`]): callers to the
//! left of what they call, an arc against that flow only to close a cycle
//! (marked `feedback`), edges routed between the boxes through their own
//! slots, boxes as wide as their labels.

mod sugiyama;

use hashbrown::HashMap;

use crate::vocab::RoleSet;
use crate::{GraphEdge, GraphNode, GraphView, Link, Navigator, NodeId, NONE};

pub(crate) use sugiyama::NODE_HEIGHT;

/// Width of one character of a label (12 px monospace, with room to spare).
pub(crate) const CHAR_WIDTH: f64 = 7.6;
/// Space left and right of a label inside its box.
pub(crate) const LABEL_PAD: f64 = 10.0;
/// Labels longer than this lose their middle to an ellipsis.
const MAX_LABEL: usize = 56;

pub(crate) fn neighbourhood(nav: &Navigator, n: NodeId, max_nodes: usize, externals: bool) -> GraphView {
    if n as usize >= nav.len() {
        return GraphView::empty(Some(n), 0, externals, 0);
    }
    let owner = nav.category[n as usize].is_owner();
    // Counterparts and the links between them and `n`, from `n`'s rows.
    let (incoming, outgoing) = nav.row_lists(n);
    let mut star: HashMap<(NodeId, NodeId), Link> = HashMap::new();
    let mut weight: HashMap<NodeId, u32> = HashMap::new();
    let mut hidden: hashbrown::HashSet<NodeId> = hashbrown::HashSet::new();
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
            if !externals && nav.stub[other as usize] {
                hidden.insert(other);
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
        return GraphView::empty(Some(n), ranked.len() + 1, externals, hidden.len());
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
    let hidden = hidden.len();
    laid_out(nav, Some(n), &nodes, &links, &local, (left_out, externals, hidden), fan_in)
}

pub(crate) fn module_overview(nav: &Navigator, max_nodes: usize, externals: bool) -> GraphView {
    let mut fan_in: HashMap<NodeId, u32> = HashMap::new();
    for l in &nav.module_links {
        *fan_in.entry(l.to).or_default() += 1;
    }
    let mut modules: Vec<NodeId> =
        (0..nav.len() as NodeId).filter(|&v| nav.category[v as usize] == crate::Category::Module).collect();
    let before = modules.len();
    if !externals {
        modules.retain(|&v| !nav.stub[v as usize]);
    }
    let hidden = before - modules.len();
    let fan = |v: &NodeId| fan_in.get(v).copied().unwrap_or(0);
    modules.sort_by(|a, b| fan(b).cmp(&fan(a)).then(a.cmp(b)));
    let keep = max_nodes.min(modules.len());
    let left_out = modules.len() - keep;
    modules.truncate(keep);
    let local: HashMap<NodeId, u32> = modules.iter().enumerate().map(|(k, &v)| (v, k as u32)).collect();
    let links: Vec<Link> =
        nav.module_links.iter().filter(|l| local.contains_key(&l.from) && local.contains_key(&l.to)).copied().collect();
    laid_out(nav, None, &modules, &links, &local, (left_out, externals, hidden), |v| fan(&v))
}

/// Lays `nodes` out and builds the view. `nodes[k]` has local number `k`;
/// `counts` is (left out, externals drawn, externals hidden).
fn laid_out(
    nav: &Navigator,
    center: Option<NodeId>,
    nodes: &[NodeId],
    links: &[Link],
    local: &HashMap<NodeId, u32>,
    (left_out, externals, externals_hidden): (usize, bool, usize),
    fan_in: impl Fn(NodeId) -> u32,
) -> GraphView {
    let arcs: Vec<(u32, u32, u32)> = links.iter().map(|l| (local[&l.from], local[&l.to], l.count)).collect();
    let labels = labels(nav, nodes);
    let widths: Vec<f64> = labels.iter().map(|l| label_width(l)).collect();
    let d = sugiyama::layout(&widths, &arcs);
    let graph_nodes = nodes
        .iter()
        .enumerate()
        .map(|(k, &v)| GraphNode {
            node: v,
            id: nav.id(v).to_string(),
            name: nav.name(v).to_string(),
            label: labels[k].clone(),
            category: nav.category[v as usize].as_str().to_string(),
            stub: nav.stub[v as usize],
            layer: d.layer[k],
            x: hundredths(d.x[k]),
            y: hundredths(d.y[k]),
            width: hundredths(widths[k]),
            height: NODE_HEIGHT,
            fan_in: fan_in(v),
        })
        .collect();
    let edges = links
        .iter()
        .zip(d.routes)
        .map(|(l, r)| GraphEdge {
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
            feedback: r.feedback,
            points: r.points.into_iter().map(|(x, y)| (hundredths(x), hundredths(y))).collect(),
        })
        .collect();
    GraphView {
        center,
        nodes: graph_nodes,
        edges,
        left_out,
        externals,
        externals_hidden,
        width: hundredths(d.width),
        height: hundredths(d.height),
    }
}

/// A box of a graph laid out by [`layered`]: its id (the hover title), its
/// name, what it shows and its category (a CSS class of the drawing).
#[derive(Clone, Debug, PartialEq)]
pub struct Boxed {
    pub id: String,
    pub name: String,
    pub label: String,
    pub category: String,
}

/// Any small graph laid out as the navigator's views are (left to right,
/// feedback arcs marked, routes through their own slots): `boxes[k]` is
/// node `k`; `arcs` are `(from, to, count)`. The Domain tab draws its
/// context map with it.
pub fn layered(boxes: &[Boxed], arcs: &[(u32, u32, u32)]) -> GraphView {
    let boxes: Vec<Boxed> = boxes.iter().map(|b| Boxed { label: shorten(&b.label), ..b.clone() }).collect();
    let widths: Vec<f64> = boxes.iter().map(|b| label_width(&b.label)).collect();
    let d = sugiyama::layout(&widths, arcs);
    let mut fan_in = vec![0u32; boxes.len()];
    for &(_, to, _) in arcs {
        fan_in[to as usize] += 1;
    }
    let nodes = boxes
        .into_iter()
        .enumerate()
        .map(|(k, b)| GraphNode {
            node: k as NodeId,
            id: b.id,
            name: b.name,
            label: b.label,
            category: b.category,
            stub: false,
            layer: d.layer[k],
            x: hundredths(d.x[k]),
            y: hundredths(d.y[k]),
            width: hundredths(widths[k]),
            height: NODE_HEIGHT,
            fan_in: fan_in[k],
        })
        .collect();
    let edges = arcs
        .iter()
        .zip(d.routes)
        .map(|(&(from, to, count), r)| GraphEdge {
            from,
            to,
            direction: "none".to_string(),
            count,
            roles: Vec::new(),
            inferred: false,
            feedback: r.feedback,
            points: r.points.into_iter().map(|(x, y)| (hundredths(x), hundredths(y))).collect(),
        })
        .collect();
    GraphView {
        center: None,
        nodes,
        edges,
        left_out: 0,
        externals: false,
        externals_hidden: 0,
        width: hundredths(d.width),
        height: hundredths(d.height),
    }
}

/// Coordinates to the hundredth of a pixel: short in JSON, and they read
/// back exactly.
fn hundredths(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The width of a box that holds `label` (a wide character counts twice).
pub(crate) fn label_width(label: &str) -> f64 {
    let units: usize = label.chars().map(|c| if is_wide(c) { 2 } else { 1 }).sum();
    2.0 * LABEL_PAD + CHAR_WIDTH * units as f64
}

fn is_wide(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1FAFF | 0x20000..=0x3FFFD)
}

/// The label of each node: its simple name (a module named by a path or a
/// dotted package: the last segment), lengthened only where two nodes of the view would read the
/// same (more path segments, or the owner's name before a member's).
fn labels(nav: &Navigator, nodes: &[NodeId]) -> Vec<String> {
    let candidates: Vec<Vec<String>> = nodes.iter().map(|&v| label_candidates(nav, v)).collect();
    let mut level = vec![0usize; nodes.len()];
    for _ in 0..8 {
        let mut seen: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, c) in candidates.iter().enumerate() {
            seen.entry(c[level[k]].as_str()).or_default().push(k);
        }
        let mut changed = false;
        for same in seen.values().filter(|s| s.len() > 1) {
            for &k in same {
                if level[k] + 1 < candidates[k].len() {
                    level[k] += 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    candidates.iter().zip(level).map(|(c, l)| shorten(&c[l])).collect()
}

/// Labels for a node from the shortest to the fullest.
fn label_candidates(nav: &Navigator, v: NodeId) -> Vec<String> {
    let name = nav.name(v);
    // A module is named by a path (`/`) or, failing that, a dotted package.
    let sep = if name.contains('/') || nav.category[v as usize] != crate::Category::Module { '/' } else { '.' };
    let segments: Vec<&str> = name.split(sep).filter(|s| !s.is_empty()).collect();
    if segments.len() > 1 {
        let joiner = sep.to_string();
        return (1..=segments.len()).map(|k| segments[segments.len() - k..].join(&joiner)).collect();
    }
    let mut out = vec![name.to_string()];
    if let Some(p) = nav.parent(v) {
        let owner = nav.name(p);
        let owner = owner.rsplit('/').find(|s| !s.is_empty()).unwrap_or(owner);
        out.push(format!("{owner}.{name}"));
    }
    out.push(nav.id(v).to_string());
    out
}

/// At most [`MAX_LABEL`] characters: the middle gives way to `…`.
fn shorten(label: &str) -> String {
    let count = label.chars().count();
    if count <= MAX_LABEL {
        return label.to_string();
    }
    let keep = MAX_LABEL - 1;
    let head: String = label.chars().take(keep / 2).collect();
    let tail: String = label.chars().skip(count - (keep - keep / 2)).collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::{label_width, layered, shorten, Boxed, CHAR_WIDTH, LABEL_PAD};

    #[test]
    fn long_labels_lose_their_middle() {
        let long = "a".repeat(30) + &"b".repeat(40);
        let s = shorten(&long);
        assert_eq!(s.chars().count(), 56);
        assert!(s.starts_with("aaaa") && s.ends_with("bbbb") && s.contains('…'));
        assert_eq!(shorten("Money"), "Money");
    }

    #[test]
    fn a_route_is_runs_joined_by_curves() {
        let e = crate::GraphEdge {
            from: 0,
            to: 1,
            direction: "none".into(),
            count: 1,
            roles: vec![],
            inferred: false,
            feedback: false,
            points: vec![(10.0, 5.0), (20.0, 5.0), (100.0, 40.0), (100.0, 40.0)],
        };
        assert_eq!(e.path(), "M10.0 5.0 L20.0 5.0 C60.0 5.0 60.0 40.0 100.0 40.0");
        assert_eq!(crate::GraphEdge { points: vec![], ..e }.path(), "");
    }

    #[test]
    fn any_graph_lays_out_left_to_right() {
        let b = |n: &str| Boxed { id: n.into(), name: n.into(), label: n.into(), category: "context".into() };
        let g = layered(&[b("Ordering"), b("Billing"), b("Shipping")], &[(0, 1, 4), (1, 2, 1), (2, 0, 1)]);
        assert_eq!(g.nodes.len(), 3);
        assert_eq!(g.edges.len(), 3);
        assert_eq!(g.edges.iter().filter(|e| e.feedback).count(), 1, "one arc closes the cycle");
        assert!(g.nodes[0].layer < g.nodes[1].layer && g.nodes[1].layer < g.nodes[2].layer);
        assert_eq!(g.nodes[1].fan_in, 1);
        assert!(g.nodes.iter().all(|n| n.x + n.width <= g.width && n.width >= label_width(&n.label)));
    }

    #[test]
    fn a_box_holds_its_label() {
        assert_eq!(label_width("Money"), 2.0 * LABEL_PAD + 5.0 * CHAR_WIDTH);
        assert_eq!(label_width("注文"), 2.0 * LABEL_PAD + 4.0 * CHAR_WIDTH);
    }
}
