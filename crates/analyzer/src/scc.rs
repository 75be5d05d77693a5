//! Iterative Tarjan SCC and condensation, shared by the cycle report and the
//! insights walk (as the walk uses it: `docs/formats/units-and-walk.md` §4).
//!
//! Nodes are indexes `0..n`; the caller numbers them in sorted id order, so
//! roots are taken in that order and the DFS is deterministic. Successor
//! indexes `>= n` are ignored ("not a known node"). Nothing here recurses: an
//! explicit frame stack carries the DFS, so 100,000-node chains are fine on a
//! small stack.

use hashbrown::HashMap;

/// Successor lists of nodes `0..node_count()`.
pub trait Successors {
    fn node_count(&self) -> usize;
    fn successors(&self, v: u32) -> &[u32];
}

impl<S: AsRef<[u32]>> Successors for [S] {
    fn node_count(&self) -> usize {
        self.len()
    }
    fn successors(&self, v: u32) -> &[u32] {
        self[v as usize].as_ref()
    }
}

impl<S: AsRef<[u32]>> Successors for Vec<S> {
    fn node_count(&self) -> usize {
        self.len()
    }
    fn successors(&self, v: u32) -> &[u32] {
        self[v as usize].as_ref()
    }
}

/// Compressed successor lists built from `(from, to)` pairs (order kept per node).
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Adjacency {
    pub fn from_pairs(n: usize, pairs: &[(u32, u32)]) -> Adjacency {
        let csr = crate::graph::Csr::build(n, pairs);
        let mut offsets = Vec::with_capacity(n + 1);
        let mut items = Vec::with_capacity(pairs.len());
        offsets.push(0);
        for v in 0..n as u32 {
            items.extend_from_slice(csr.get(v));
            offsets.push(items.len() as u32);
        }
        Adjacency { offsets, items }
    }
}

impl Successors for Adjacency {
    fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.items[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

const UNVISITED: u32 = u32::MAX;

/// Tarjan's SCC, iteratively. Roots in index order; returns
/// the raw components in completion order, members in pop order.
pub fn tarjan<G: Successors + ?Sized>(graph: &G) -> Vec<Vec<u32>> {
    let n = graph.node_count();
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    // Frame: (node, next successor position).
    let mut frames: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let mut components = Vec::new();

    let mut open = |v: u32, index: &mut [u32], low: &mut [u32], on_stack: &mut [bool], stack: &mut Vec<u32>| {
        index[v as usize] = counter;
        low[v as usize] = counter;
        counter += 1;
        stack.push(v);
        on_stack[v as usize] = true;
    };

    for root in 0..n as u32 {
        if index[root as usize] != UNVISITED {
            continue;
        }
        open(root, &mut index, &mut low, &mut on_stack, &mut stack);
        frames.push((root, 0));
        while let Some(&mut (v, ref mut next)) = frames.last_mut() {
            let succ = graph.successors(v);
            if (*next as usize) < succ.len() {
                let w = succ[*next as usize];
                *next += 1;
                if w as usize >= n {
                    continue;
                }
                if index[w as usize] == UNVISITED {
                    open(w, &mut index, &mut low, &mut on_stack, &mut stack);
                    frames.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            } else {
                if low[v as usize] == index[v as usize] {
                    let mut component = Vec::new();
                    loop {
                        let w = stack.pop().expect("v is on the Tarjan stack");
                        on_stack[w as usize] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    components.push(component);
                }
                frames.pop();
                if let Some(&(caller, _)) = frames.last() {
                    low[caller as usize] = low[caller as usize].min(low[v as usize]);
                }
            }
        }
    }
    components
}

/// A condensation (`docs/formats/units-and-walk.md` §4): sorted components, the
/// component of every node and the condensed successors.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Condensation {
    /// Components, each with sorted members; sorted by `compareComponents`
    /// (lexicographic over members, shorter first).
    pub components: Vec<Vec<u32>>,
    /// `component_of[node]` = index into `components`.
    pub component_of: Vec<u32>,
    /// Per component: sorted, distinct successor component indexes, never itself.
    pub successors: Vec<Vec<u32>>,
}

/// `condense` over nodes `0..n` (already numbered in sorted id order).
pub fn condense<G: Successors + ?Sized>(graph: &G) -> Condensation {
    let n = graph.node_count();
    let mut components = tarjan(graph);
    for c in &mut components {
        c.sort_unstable();
    }
    // Vec's order is lexicographic with a proper prefix first.
    components.sort_unstable();
    let mut component_of = vec![0u32; n];
    for (ci, c) in components.iter().enumerate() {
        for &m in c {
            component_of[m as usize] = ci as u32;
        }
    }
    let mut successors = Vec::with_capacity(components.len());
    for (ci, c) in components.iter().enumerate() {
        let mut out: Vec<u32> = Vec::new();
        for &m in c {
            for &w in graph.successors(m) {
                if (w as usize) < n {
                    let cw = component_of[w as usize];
                    if cw != ci as u32 {
                        out.push(cw);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        successors.push(out);
    }
    Condensation { components, component_of, successors }
}

/// [`condense`] over string ids: the node list sorted (UTF-16), indexes into it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct IdCondensation {
    /// The node ids, sorted and distinct; the condensation's indexes point here.
    pub nodes: Vec<String>,
    pub condensation: Condensation,
}

impl IdCondensation {
    /// The member ids of component `c`.
    pub fn members(&self, c: usize) -> impl Iterator<Item = &str> + '_ {
        self.condensation.components[c].iter().map(|&m| self.nodes[m as usize].as_str())
    }
    /// The component of a node id.
    pub fn component_of(&self, id: &str) -> Option<u32> {
        let i = self.nodes.binary_search_by(|n| model::cmp_utf16(n, id)).ok()?;
        Some(self.condensation.component_of[i])
    }
}

/// `condense(nodes, successors)` over string ids. `successors[i]` are the
/// successors of `nodes[i]`; unknown successors are ignored. The nodes are
/// sorted (UTF-16) before the DFS, so any input order gives the same result.
pub fn condense_ids<N: AsRef<str>, T: AsRef<str>>(nodes: &[N], successors: &[Vec<T>]) -> IdCondensation {
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by(|&a, &b| model::cmp_utf16(nodes[a].as_ref(), nodes[b].as_ref()));
    order.dedup_by(|a, b| nodes[*a].as_ref() == nodes[*b].as_ref());
    let sorted: Vec<String> = order.iter().map(|&i| nodes[i].as_ref().to_string()).collect();
    let position: HashMap<&str, u32> = sorted.iter().enumerate().map(|(k, s)| (s.as_str(), k as u32)).collect();
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); sorted.len()];
    for (i, node) in nodes.iter().enumerate() {
        let Some(&from) = position.get(node.as_ref()) else { continue };
        if let Some(succ) = successors.get(i) {
            lists[from as usize].extend(succ.iter().filter_map(|t| position.get(t.as_ref()).copied()));
        }
    }
    drop(position);
    let condensation = condense(&lists);
    IdCondensation { nodes: sorted, condensation }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_graph() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3, 5 alone, successor 9 unknown.
        let g: Vec<Vec<u32>> = vec![vec![1], vec![2], vec![0, 3, 9], vec![4], vec![3], vec![]];
        let c = condense(&g);
        assert_eq!(c.components, vec![vec![0, 1, 2], vec![3, 4], vec![5]]);
        assert_eq!(c.component_of, vec![0, 0, 0, 1, 1, 2]);
        assert_eq!(c.successors, vec![vec![1], vec![], vec![]]);
    }

    #[test]
    fn ids_are_sorted_first() {
        let nodes = ["b", "a", "c"];
        let succ = vec![vec!["a"], vec!["b"], vec!["a", "zzz"]];
        let c = condense_ids(&nodes, &succ);
        assert_eq!(c.nodes, vec!["a", "b", "c"]);
        assert_eq!(c.members(0).collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(c.condensation.successors, vec![vec![], vec![0]]);
        assert_eq!(c.component_of("c"), Some(1));
    }
}
