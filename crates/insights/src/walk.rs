//! Walk order (insights.md §3.4–§3.5): strongly connected groups of unit
//! members become units, and Kahn layering over the condensation orders them
//! leaves first. Every dependency of `units[i]` comes before `i`.

use crate::vocab::Level;
use hashbrown::HashMap;
use model::cmp_utf16;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One unit of explanation: a single operation, type or module, or a cycle
/// of them (all of one level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The first (smallest) member id.
    pub id: String,
    pub level: Level,
    /// Sorted member ids; two or more means a dependency cycle.
    pub members: Vec<String>,
    /// Sorted ids of the units this one depends on.
    pub deps: Vec<String>,
    /// 0 without dependencies, else 1 + the deepest dependency's layer.
    pub layer: u32,
}

impl Unit {
    pub fn is_cycle(&self) -> bool {
        self.members.len() > 1
    }
}

/// Units in walk order, with their layers.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Sorted by (layer, id).
    pub units: Vec<Unit>,
    /// `layers[L]` = indexes into `units` of layer L, in walk order.
    pub layers: Vec<Vec<usize>>,
    unit_of_member: HashMap<String, usize>,
    unit_by_id: HashMap<String, usize>,
}

/// The condensation was not acyclic: a bug upstream, never the user's input.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the unit graph could not be ordered: {emitted} of {total} groups were placed (the condensation has a cycle)")]
pub struct WalkError {
    pub emitted: usize,
    pub total: usize,
}

impl Walk {
    /// Layers a condensation: `components[c]` are the sorted members of group
    /// c (groups sorted by first member), `successors[c]` the groups it
    /// depends on. `level_of` names each group's level from its first member.
    pub fn layer(
        components: Vec<Vec<String>>,
        successors: &[Vec<usize>],
        level_of: impl Fn(&str) -> Level,
    ) -> Result<Walk, WalkError> {
        let n = components.len();
        // Kahn over the reversed condensation: a group is ready once every
        // group it depends on has been emitted. Ties: smaller index first.
        let mut waiting: Vec<usize> = successors.iter().map(|s| s.len()).collect();
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, succ) in successors.iter().enumerate() {
            for &d in succ {
                dependents[d].push(c);
            }
        }
        let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&c| waiting[c] == 0).map(Reverse).collect();
        let mut layer = vec![0u32; n];
        let mut emitted = 0;
        while let Some(Reverse(c)) = ready.pop() {
            emitted += 1;
            layer[c] = successors[c].iter().map(|&d| layer[d] + 1).max().unwrap_or(0);
            for &p in &dependents[c] {
                waiting[p] -= 1;
                if waiting[p] == 0 {
                    ready.push(Reverse(p));
                }
            }
        }
        if emitted != n {
            return Err(WalkError { emitted, total: n });
        }
        let first: Vec<String> = components.iter().map(|m| m[0].clone()).collect();
        let mut units: Vec<Unit> = components
            .into_iter()
            .enumerate()
            .map(|(c, members)| {
                let mut deps: Vec<String> = successors[c].iter().map(|&d| first[d].clone()).collect();
                deps.sort_by(|a, b| cmp_utf16(a, b));
                deps.dedup();
                Unit { id: members[0].clone(), level: level_of(&members[0]), members, deps, layer: layer[c] }
            })
            .collect();
        units.sort_by(|a, b| a.layer.cmp(&b.layer).then_with(|| cmp_utf16(&a.id, &b.id)));
        Ok(Walk::from_units(units))
    }

    /// Indexes an already ordered unit list.
    pub fn from_units(units: Vec<Unit>) -> Walk {
        let layer_count = units.last().map_or(0, |u| u.layer as usize + 1);
        let mut layers = vec![Vec::new(); layer_count];
        let mut unit_of_member = HashMap::new();
        let mut unit_by_id = HashMap::new();
        for (i, u) in units.iter().enumerate() {
            layers[u.layer as usize].push(i);
            unit_by_id.insert(u.id.clone(), i);
            for m in &u.members {
                unit_of_member.insert(m.clone(), i);
            }
        }
        Walk { units, layers, unit_of_member, unit_by_id }
    }

    /// The unit holding member `id`.
    pub fn unit_of(&self, member: &str) -> Option<&Unit> {
        self.unit_of_member.get(member).map(|&i| &self.units[i])
    }

    /// Index of the unit holding member `id`.
    pub fn unit_index_of(&self, member: &str) -> Option<usize> {
        self.unit_of_member.get(member).copied()
    }

    /// The unit whose id (first member) is `id`.
    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.unit_by_id.get(id).map(|&i| &self.units[i])
    }

    pub fn unit_index(&self, id: &str) -> Option<usize> {
        self.unit_by_id.get(id).copied()
    }

    /// Number of unit members of a level (every id that will get a record).
    pub fn member_count(&self, level: Level) -> usize {
        self.units.iter().filter(|u| u.level == level).map(|u| u.members.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// The pinned example: class T with f0 → f1 → f2 in package P.
    #[test]
    fn pinned_example_layers_leaves_first() {
        let comps = vec![s(&["P"]), s(&["T"]), s(&["T.f0"]), s(&["T.f1"]), s(&["T.f2"])];
        let succ = vec![vec![1], vec![2, 3, 4], vec![3], vec![4], vec![]];
        let level = |id: &str| match id {
            "P" => Level::Module,
            "T" => Level::Type,
            _ => Level::Operation,
        };
        let w = Walk::layer(comps, &succ, level).unwrap();
        let layers: Vec<Vec<&str>> =
            w.layers.iter().map(|l| l.iter().map(|&i| w.units[i].id.as_str()).collect()).collect();
        assert_eq!(layers, vec![vec!["T.f2"], vec!["T.f1"], vec!["T.f0"], vec!["T"], vec!["P"]]);
        assert_eq!(w.unit("T").unwrap().deps, s(&["T.f0", "T.f1", "T.f2"]));
        assert_eq!(w.unit("P").unwrap().deps, s(&["T"]));
        for (i, u) in w.units.iter().enumerate() {
            for d in &u.deps {
                assert!(w.unit_index(d).unwrap() < i, "{d} before {}", u.id);
            }
        }
    }

    #[test]
    fn a_cyclic_condensation_is_an_error_not_a_hang() {
        let comps = vec![s(&["a"]), s(&["b"])];
        let succ = vec![vec![1], vec![0]];
        let e = Walk::layer(comps, &succ, |_| Level::Operation).unwrap_err();
        assert_eq!(e, WalkError { emitted: 0, total: 2 });
    }
}
