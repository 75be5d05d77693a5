//! The context map laid out for drawing (`navigator::layered`): a large
//! model has more contexts and dependencies than a map can show, so only
//! the most connected contexts are drawn, and of their edges each context's
//! strongest few; what is left out is counted.

use crate::DomainView;
use navigator::{layered, Boxed, GraphView};

/// Contexts drawn at most.
pub const MAP_CONTEXTS: usize = 40;
/// Edges kept per context (its strongest, in or out).
pub const MAP_EDGES_PER_CONTEXT: usize = 4;

/// The drawn map: node `node` of each box is its index in `view.contexts`,
/// an edge's count its evidence; `left_out` counts the contexts not drawn,
/// `hidden_edges` the edges between drawn contexts that were left out.
pub struct Map {
    pub graph: GraphView,
    pub hidden_edges: usize,
}

pub fn laid_out(view: &DomainView) -> Map {
    let at = |key: &str| view.contexts.iter().position(|c| c.key == key);
    let mut weight = vec![0u64; view.contexts.len()];
    let mut edges: Vec<(usize, usize, u64)> = Vec::new();
    for e in &view.context_map {
        if let (Some(f), Some(t)) = (at(&e.from), at(&e.to)) {
            weight[f] += e.evidence;
            weight[t] += e.evidence;
            edges.push((f, t, e.evidence));
        }
    }
    let mut chosen: Vec<usize> = (0..view.contexts.len()).collect();
    chosen.sort_by(|a, b| weight[*b].cmp(&weight[*a]).then(a.cmp(b)));
    let left_out = chosen.len().saturating_sub(MAP_CONTEXTS);
    chosen.truncate(MAP_CONTEXTS);
    chosen.sort_unstable();
    let local = |c: usize| chosen.binary_search(&c).ok();
    // Strongest first; an edge is kept while either end has room.
    let mut among: Vec<(usize, usize, u64)> =
        edges.into_iter().filter_map(|(f, t, n)| Some((local(f)?, local(t)?, n))).collect();
    among.sort_by(|a, b| b.2.cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    let mut kept_at = vec![0usize; chosen.len()];
    let mut arcs = Vec::new();
    for (f, t, n) in &among {
        if kept_at[*f] < MAP_EDGES_PER_CONTEXT || kept_at[*t] < MAP_EDGES_PER_CONTEXT {
            kept_at[*f] += 1;
            kept_at[*t] += 1;
            arcs.push((*f as u32, *t as u32, u32::try_from(*n).unwrap_or(u32::MAX)));
        }
    }
    arcs.sort_unstable();
    let hidden_edges = among.len() - arcs.len();
    let boxes: Vec<Boxed> = chosen
        .iter()
        .map(|&c| {
            let c = &view.contexts[c];
            Boxed { id: c.key.clone(), name: c.name.clone(), label: c.name.clone(), category: "context".into() }
        })
        .collect();
    let mut graph = layered(&boxes, &arcs);
    for n in &mut graph.nodes {
        n.node = chosen[n.node as usize] as u32;
    }
    for e in &mut graph.edges {
        e.from = chosen[e.from as usize] as u32;
        e.to = chosen[e.to as usize] as u32;
    }
    graph.left_out = left_out;
    Map { graph, hidden_edges }
}
