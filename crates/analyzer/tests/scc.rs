//! Tarjan / condense (`docs/formats/units-and-walk.md` §4): huge chains and
//! rings without recursion, and a property test against a naive reference SCC.

use analyzer::scc::{condense, condense_ids, tarjan, Adjacency, Condensation};
use proptest::prelude::*;

const N: u32 = 100_000;

fn chain(n: u32) -> Vec<Vec<u32>> {
    (0..n).map(|i| if i + 1 < n { vec![i + 1] } else { vec![] }).collect()
}

fn ring(n: u32) -> Vec<Vec<u32>> {
    (0..n).map(|i| vec![(i + 1) % n]).collect()
}

fn huge_graphs() {
    let c = condense(&chain(N));
    assert_eq!(c.components.len(), N as usize);
    assert_eq!(c.components[0], vec![0]);
    assert_eq!(c.successors[0], vec![1]);
    assert!(c.successors[N as usize - 1].is_empty());

    // A chain walked from its tail first: roots in order, so reverse the edges.
    let back: Vec<Vec<u32>> = (0..N).map(|i| if i > 0 { vec![i - 1] } else { vec![] }).collect();
    assert_eq!(tarjan(&back).len(), N as usize);

    let r = condense(&ring(N));
    assert_eq!(r.components.len(), 1);
    assert_eq!(r.components[0].len(), N as usize);
    assert!(r.successors[0].is_empty());

    // Two rings joined by a chain, through the CSR adjacency.
    let mut pairs = Vec::new();
    for i in 0..N / 2 {
        pairs.push((i, (i + 1) % (N / 2)));
        pairs.push((N / 2 + i, N / 2 + (i + 1) % (N / 2)));
    }
    pairs.push((N / 2 - 1, N / 2));
    let c = condense(&Adjacency::from_pairs(N as usize, &pairs));
    assert_eq!(c.components.len(), 2);
    assert_eq!(c.successors, vec![vec![1], vec![]]);
}

#[test]
fn chains_and_rings_of_100_000() {
    huge_graphs();
}

#[test]
fn no_recursion_on_a_256_kib_stack() {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(huge_graphs)
        .expect("spawn")
        .join()
        .expect("Tarjan is iterative: a 256 KiB stack is enough");
}

#[test]
fn string_ids_use_utf16_order() {
    // U+20000 sorts before U+FF21 in UTF-16 (not in UTF-8).
    let nodes = ["\u{FF21}", "\u{20000}", "a"];
    let succ = vec![vec!["a"], vec!["\u{FF21}"], vec![]];
    let c = condense_ids(&nodes, &succ);
    assert_eq!(c.nodes, vec!["a", "\u{20000}", "\u{FF21}"]);
    assert_eq!(c.condensation.successors, vec![vec![], vec![2], vec![0]]);
}

/// Reachability closure: the naive reference SCC.
fn naive_components(succ: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let n = succ.len();
    let mut reach = vec![vec![false; n]; n];
    for (s, row) in reach.iter_mut().enumerate() {
        let mut stack = vec![s as u32];
        row[s] = true;
        while let Some(v) = stack.pop() {
            for &w in &succ[v as usize] {
                if (w as usize) < n && !row[w as usize] {
                    row[w as usize] = true;
                    stack.push(w);
                }
            }
        }
    }
    let mut assigned = vec![false; n];
    let mut comps = Vec::new();
    for v in 0..n {
        if assigned[v] {
            continue;
        }
        let comp: Vec<u32> = (0..n).filter(|&w| reach[v][w] && reach[w][v]).map(|w| w as u32).collect();
        for &w in &comp {
            assigned[w as usize] = true;
        }
        comps.push(comp);
    }
    comps.sort();
    comps
}

fn check(succ: &[Vec<u32>], c: &Condensation) -> Result<(), TestCaseError> {
    let n = succ.len();
    prop_assert_eq!(&c.components, &naive_components(succ));
    // Sorted members, sorted components, componentOf consistent.
    for (ci, comp) in c.components.iter().enumerate() {
        prop_assert!(comp.windows(2).all(|w| w[0] < w[1]));
        for &m in comp {
            prop_assert_eq!(c.component_of[m as usize], ci as u32);
        }
    }
    prop_assert!(c.components.windows(2).all(|w| w[0] < w[1]));
    // Condensed successors: exactly the cross-component edges, sorted, distinct, never self.
    for (ci, out) in c.successors.iter().enumerate() {
        prop_assert!(out.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(!out.contains(&(ci as u32)));
        let mut expected: Vec<u32> = c.components[ci]
            .iter()
            .flat_map(|&m| succ[m as usize].iter().copied())
            .filter(|&w| (w as usize) < n)
            .map(|w| c.component_of[w as usize])
            .filter(|&cw| cw != ci as u32)
            .collect();
        expected.sort();
        expected.dedup();
        prop_assert_eq!(out, &expected);
    }
    // The condensation is acyclic.
    prop_assert!(tarjan(&c.successors).iter().all(|comp| comp.len() == 1));
    Ok(())
}

proptest! {
    #[test]
    fn condense_is_a_valid_condensation(
        n in 1usize..40,
        raw in proptest::collection::vec((0u32..45, 0u32..45), 0..120),
    ) {
        let mut succ = vec![Vec::new(); n];
        for (a, b) in raw {
            if (a as usize) < n {
                succ[a as usize].push(b); // b may be out of range: ignored
            }
        }
        let c = condense(&succ);
        check(&succ, &c)?;
    }
}
