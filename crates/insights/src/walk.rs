//! Walk order (docs/formats/units-and-walk.md §4–§5): strongly connected groups
//! of unit members become units, and Kahn layering over the condensation orders
//! them leaves first. Every dependency of `units[i]` comes before `i`.

use crate::vocab::Level;
use analyzer::Id;
use hashbrown::{DefaultHashBuilder, HashTable};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::BuildHasher;

/// One unit of explanation: a single operation, type or module, or a cycle
/// of them (all of one level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The first (smallest) member id.
    pub id: String,
    pub level: Level,
    /// Sorted member ids; two or more means a dependency cycle.
    pub members: Vec<String>,
    /// Sorted ids of the units this one depends on (shared with the graph,
    /// not copied: a large model has hundreds of thousands).
    pub deps: Vec<Id>,
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
    /// Per unit: the indexes of its `deps`, in the same order.
    dep_units: Vec<Vec<usize>>,
    /// (unit, position in its members), found by the member id's hash.
    unit_of_member: HashTable<(u32, u32)>,
    /// Unit index, found by the unit id's hash.
    unit_by_id: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// Inserts `value` under `hash`, replacing the entry that is `same`.
fn put<T>(table: &mut HashTable<T>, hash: u64, value: T, same: impl Fn(&T) -> bool, rehash: impl Fn(&T) -> u64) {
    match table.find_mut(hash, same) {
        Some(e) => *e = value,
        None => {
            table.insert_unique(hash, value, rehash);
        }
    }
}

/// The condensation was not acyclic: a bug upstream, never the user's input.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the unit graph could not be ordered: {emitted} of {total} groups were placed (the condensation has a cycle)")]
pub struct WalkError {
    pub emitted: usize,
    pub total: usize,
}

impl Walk {
    /// Layers a condensation whose nodes are numbered in id order (UTF-16):
    /// `components[c]` are the sorted members of group c (groups sorted by
    /// first member), `successors[c]` the groups it depends on. `id_of` names
    /// a node's id, `level_of` a group's level from its first member.
    pub fn layer<'i>(
        components: &[Vec<u32>],
        successors: &[Vec<u32>],
        id_of: impl Fn(u32) -> &'i Id,
        level_of: impl Fn(u32) -> Level,
    ) -> Result<Walk, WalkError> {
        let n = components.len();
        // Kahn over the reversed condensation: a group is ready once every
        // group it depends on has been emitted. Ties: smaller index first.
        let mut waiting: Vec<usize> = successors.iter().map(|s| s.len()).collect();
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, succ) in successors.iter().enumerate() {
            for &d in succ {
                dependents[d as usize].push(c);
            }
        }
        let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&c| waiting[c] == 0).map(Reverse).collect();
        let mut layer = vec![0u32; n];
        let mut emitted = 0;
        while let Some(Reverse(c)) = ready.pop() {
            emitted += 1;
            layer[c] = successors[c].iter().map(|&d| layer[d as usize] + 1).max().unwrap_or(0);
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
        // Walk order: by layer, then by id (node numbers are in id order).
        let first = |c: usize| components[c][0];
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&c| (layer[c], first(c)));
        let mut position = vec![0usize; n];
        for (p, &c) in order.iter().enumerate() {
            position[c] = p;
        }
        let mut units = Vec::with_capacity(n);
        let mut dep_units = Vec::with_capacity(n);
        for &c in &order {
            let mut deps: Vec<usize> = successors[c].iter().map(|&d| d as usize).collect();
            deps.sort_unstable_by_key(|&d| first(d));
            units.push(Unit {
                id: String::from(&**id_of(first(c))),
                level: level_of(first(c)),
                members: components[c].iter().map(|&m| String::from(&**id_of(m))).collect(),
                deps: deps.iter().map(|&d| id_of(first(d)).clone()).collect(),
                layer: layer[c],
            });
            dep_units.push(deps.into_iter().map(|d| position[d]).collect());
        }
        Ok(Walk::indexed(units, dep_units))
    }

    /// Indexes an already ordered unit list (dependencies that are not a
    /// unit of the list are left out of [`Walk::dependency_indexes`]).
    pub fn from_units(units: Vec<Unit>) -> Walk {
        let mut walk = Walk::indexed(units, Vec::new());
        walk.dep_units =
            walk.units.iter().map(|u| u.deps.iter().filter_map(|d| walk.unit_index(d)).collect()).collect();
        walk
    }

    fn indexed(units: Vec<Unit>, dep_units: Vec<Vec<usize>>) -> Walk {
        let layer_count = units.last().map_or(0, |u| u.layer as usize + 1);
        let mut layers = vec![Vec::new(); layer_count];
        let hasher = DefaultHashBuilder::default();
        let mut unit_by_id = HashTable::with_capacity(units.len());
        let mut unit_of_member = HashTable::with_capacity(units.len());
        // As map inserts would: a later unit with the same id or member wins.
        let hash = |s: &str| hasher.hash_one(s);
        for (i, u) in units.iter().enumerate() {
            layers[u.layer as usize].push(i);
            let id = |&j: &u32| units[j as usize].id.as_str();
            put(&mut unit_by_id, hash(&u.id), i as u32, |e| id(e) == u.id, |e| hash(id(e)));
            for (k, m) in u.members.iter().enumerate() {
                let member = |&(j, k): &(u32, u32)| units[j as usize].members[k as usize].as_str();
                put(&mut unit_of_member, hash(m), (i as u32, k as u32), |e| member(e) == m, |e| hash(member(e)));
            }
        }
        Walk { units, layers, dep_units, unit_of_member, unit_by_id, hasher }
    }

    /// The unit holding member `id`.
    pub fn unit_of(&self, member: &str) -> Option<&Unit> {
        self.unit_index_of(member).map(|i| &self.units[i])
    }

    /// Index of the unit holding member `id`.
    pub fn unit_index_of(&self, member: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(member);
        let units = &self.units;
        self.unit_of_member
            .find(hash, |&(j, k)| units[j as usize].members[k as usize] == member)
            .map(|&(j, _)| j as usize)
    }

    /// The unit whose id (first member) is `id`.
    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.unit_index(id).map(|i| &self.units[i])
    }

    pub fn unit_index(&self, id: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(id);
        self.unit_by_id.find(hash, |&j| self.units[j as usize].id == id).map(|&j| j as usize)
    }

    /// The indexes (into `units`) of unit `i`'s dependencies, in the order of its `deps`.
    pub fn dependency_indexes(&self, i: usize) -> &[usize] {
        &self.dep_units[i]
    }

    /// Type units (cycles left out), the most connected first: by the
    /// dependencies between their operations and other types' operations,
    /// both ways (a service called from everywhere and calling much ranks
    /// high), then by id. What a first look at the results opens on.
    pub fn types_by_calls(&self) -> Vec<usize> {
        let n = self.units.len();
        // The type unit each operation unit belongs to (a type depends on its operations).
        let mut owner = vec![usize::MAX; n];
        for (t, u) in self.units.iter().enumerate() {
            if u.level == Level::Type {
                for &d in &self.dep_units[t] {
                    if self.units[d].level == Level::Operation {
                        owner[d] = t;
                    }
                }
            }
        }
        let mut links = vec![0u64; n];
        for (i, u) in self.units.iter().enumerate() {
            if u.level != Level::Operation || owner[i] == usize::MAX {
                continue;
            }
            for &d in &self.dep_units[i] {
                let other = owner[d];
                if other != usize::MAX && other != owner[i] {
                    links[owner[i]] += 1;
                    links[other] += 1;
                }
            }
        }
        let mut types: Vec<usize> =
            (0..n).filter(|&i| self.units[i].level == Level::Type && !self.units[i].is_cycle()).collect();
        types.sort_by(|&a, &b| links[b].cmp(&links[a]).then_with(|| self.units[a].id.cmp(&self.units[b].id)));
        types
    }

    /// Number of unit members of a level (every id that will get a record).
    pub fn member_count(&self, level: Level) -> usize {
        self.units.iter().filter(|u| u.level == level).map(|u| u.members.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pinned example: class T with f0 → f1 → f2 in package P.
    #[test]
    fn pinned_example_layers_leaves_first() {
        let ids: Vec<Id> = ["P", "T", "T.f0", "T.f1", "T.f2"].map(Id::from).to_vec(); // nodes 0..5, in id order
        let comps = vec![vec![0], vec![1], vec![2], vec![3], vec![4]];
        let succ = vec![vec![1], vec![2, 3, 4], vec![3], vec![4], vec![]];
        let level = |node: u32| match &*ids[node as usize] {
            "P" => Level::Module,
            "T" => Level::Type,
            _ => Level::Operation,
        };
        let w = Walk::layer(&comps, &succ, |node| &ids[node as usize], level).unwrap();
        let layers: Vec<Vec<&str>> =
            w.layers.iter().map(|l| l.iter().map(|&i| w.units[i].id.as_str()).collect()).collect();
        assert_eq!(layers, vec![vec!["T.f2"], vec!["T.f1"], vec!["T.f0"], vec!["T"], vec!["P"]]);
        assert_eq!(w.unit("T").unwrap().deps, ids[2..].to_vec());
        assert_eq!(w.unit("P").unwrap().deps, ids[1..2].to_vec());
        for (i, u) in w.units.iter().enumerate() {
            for (d, &di) in u.deps.iter().zip(w.dependency_indexes(i)) {
                assert_eq!(w.unit_index(d), Some(di));
                assert!(di < i, "{d} before {}", u.id);
            }
            assert_eq!(w.dependency_indexes(i).len(), u.deps.len());
        }
        let again = Walk::from_units(w.units.clone());
        assert_eq!(again.layers, w.layers);
        assert_eq!(again.dep_units, w.dep_units);
        assert_eq!(again.unit_of("T.f1").map(|u| u.id.as_str()), Some("T.f1"));
        assert_eq!(again.unit_index_of("nope"), None);
    }

    #[test]
    fn types_rank_by_the_calls_between_their_operations_and_other_types() {
        // A.a calls B.b and C.c; B.b calls C.c; C is called twice, A calls twice, B once each way.
        let ids: Vec<Id> = ["A", "A.a", "B", "B.b", "C", "C.c"].map(Id::from).to_vec();
        let comps: Vec<Vec<u32>> = (0..6).map(|i| vec![i]).collect();
        let succ = vec![vec![1], vec![3, 5], vec![3], vec![5], vec![5], vec![]];
        let level = |node: u32| if ids[node as usize].contains('.') { Level::Operation } else { Level::Type };
        let w = Walk::layer(&comps, &succ, |node| &ids[node as usize], level).unwrap();
        let ranked: Vec<&str> = w.types_by_calls().into_iter().map(|i| w.units[i].id.as_str()).collect();
        // A: 2 (a→b, a→c); B: 2 (a→b, b→c); C: 2 (a→c, b→c): ties go by id.
        assert_eq!(ranked, vec!["A", "B", "C"]);
        let succ = vec![vec![1], vec![5], vec![3], vec![5], vec![5], vec![]];
        let w = Walk::layer(&comps, &succ, |node| &ids[node as usize], level).unwrap();
        let ranked: Vec<&str> = w.types_by_calls().into_iter().map(|i| w.units[i].id.as_str()).collect();
        // C is called by both; A and B call once each.
        assert_eq!(ranked, vec!["C", "A", "B"]);
    }

    #[test]
    fn a_cyclic_condensation_is_an_error_not_a_hang() {
        let comps = vec![vec![0], vec![1]];
        let succ = vec![vec![1], vec![0]];
        let ids = [Id::from("a"), Id::from("b")];
        let e = Walk::layer(&comps, &succ, |n| &ids[n as usize], |_| Level::Operation).unwrap_err();
        assert_eq!(e, WalkError { emitted: 0, total: 2 });
    }
}
