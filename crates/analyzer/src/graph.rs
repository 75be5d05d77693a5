//! The indexed graph: rendered ids computed once, the id → surrogate lookup,
//! the UTF-16 id order, sorted children and the derived inverse sets.
//! Everything inside works on `u32` surrogates; ids are handed out as shared
//! [`Id`] strings.

use std::cmp::Ordering;

use hashbrown::HashMap;
use model::{EdgeKind, EntityRef, Model, Trait};

use crate::Id;

/// "Absent" in `u32` slots.
pub(crate) const NONE: u32 = u32::MAX;

/// Compressed adjacency: the items of node `n` are `items[offsets[n]..offsets[n + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    /// Groups `(node, item)` pairs by node (counting sort, stable).
    pub(crate) fn build(nodes: usize, pairs: &[(u32, u32)]) -> Csr {
        let mut offsets = vec![0u32; nodes + 1];
        for &(n, _) in pairs {
            offsets[n as usize + 1] += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; pairs.len()];
        for &(n, item) in pairs {
            let slot = &mut fill[n as usize];
            items[*slot as usize] = item;
            *slot += 1;
        }
        Csr { offsets, items }
    }

    pub(crate) fn get(&self, n: u32) -> &[u32] {
        let n = n as usize;
        if n + 1 >= self.offsets.len() {
            return &[];
        }
        &self.items[self.offsets[n] as usize..self.offsets[n + 1] as usize]
    }

    /// Sorts every run by `key` and removes duplicates (runs only shrink).
    fn sort_dedup_runs(&mut self, key: &[u32]) {
        let nodes = self.offsets.len().saturating_sub(1);
        let mut write = 0usize;
        let mut new_offsets = Vec::with_capacity(self.offsets.len());
        new_offsets.push(0u32);
        for n in 0..nodes {
            let (start, end) = (self.offsets[n] as usize, self.offsets[n + 1] as usize);
            let run = &mut self.items[start..end];
            run.sort_unstable_by_key(|&i| key[i as usize]);
            let mut last = NONE;
            for r in start..end {
                let item = self.items[r];
                if item != last {
                    self.items[write] = item;
                    write += 1;
                    last = item;
                }
            }
            new_offsets.push(write as u32);
        }
        self.items.truncate(write);
        self.offsets = new_offsets;
    }
}

/// The derived inverse sets, one per edge kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inverse {
    /// `callersOf` (invocation).
    Callers = 0,
    /// `accessorsOf` (access).
    Accessors = 1,
    /// `subtypesOf` (inheritance).
    Subtypes = 2,
    /// `implementersOf` (interfaceImplementation).
    Implementers = 3,
    /// `importersOf` (import).
    Importers = 4,
}

impl Inverse {
    fn of(kind: EdgeKind) -> Option<Inverse> {
        Some(match kind {
            EdgeKind::Invocation => Inverse::Callers,
            EdgeKind::Access => Inverse::Accessors,
            EdgeKind::Inheritance => Inverse::Subtypes,
            EdgeKind::InterfaceImplementation => Inverse::Implementers,
            EdgeKind::Import => Inverse::Importers,
            _ => return None,
        })
    }
}

/// The indexed graph over one [`Model`].
///
/// Entities are addressed by their surrogate (`u32`, the model's entity
/// index); [`CodeGraph::id`] renders one, [`CodeGraph::index_of`] looks one up.
/// Comparing two surrogates' [`CodeGraph::rank`]s is comparing their ids in
/// UTF-16 order.
pub struct CodeGraph<'m> {
    model: &'m Model,
    ids: Vec<Id>,
    rank: Vec<u32>,
    sorted: Vec<u32>,
    by_id: HashMap<Id, u32>,
    files: Vec<Id>,
    file_rank: Vec<u32>,
    children: Csr,
    inverse: [Csr; 5],
    /// `containingType` per entity (`NONE` = unplaceable).
    container_type: Vec<u32>,
    /// `containingModule` per entity (`NONE` = unplaceable).
    container_module: Vec<u32>,
    /// Shared names and kinds, so facts never allocate them per edge.
    names: Vec<Option<Id>>,
    kinds: Vec<Id>,
}

impl<'m> CodeGraph<'m> {
    /// Indexes `model`: one pass over entities, one over edges, one sort of the ids.
    pub fn new(model: &'m Model) -> CodeGraph<'m> {
        let n = model.entity_count();
        let mut buf = String::new();
        let ids: Vec<Id> = (0..n)
            .map(|i| {
                buf.clear();
                model.write_id(i, &mut buf);
                Id::from(buf.as_str())
            })
            .collect();
        let mut sorted: Vec<u32> = (0..n).collect();
        // UTF-8 byte order equals UTF-16 order unless a supplementary character
        // (lead byte 0xF0..) meets one in U+E000..U+FFFF (lead 0xEE, 0xEF):
        // without such bytes the plain `memcmp` order is exact.
        if ids.iter().all(|s| s.bytes().all(|b| b < 0xEE)) {
            sorted.sort_unstable_by(|&a, &b| ids[a as usize].cmp(&ids[b as usize]).then(a.cmp(&b)));
        } else {
            sorted.sort_unstable_by(|&a, &b| model::cmp_utf16(&ids[a as usize], &ids[b as usize]).then(a.cmp(&b)));
        }
        let mut rank = vec![0u32; n as usize];
        for (r, &s) in sorted.iter().enumerate() {
            rank[s as usize] = r as u32;
        }
        let mut by_id = HashMap::with_capacity(n as usize);
        for (i, id) in ids.iter().enumerate() {
            // The first declaration wins for a redeclared id.
            by_id.entry(id.clone()).or_insert(i as u32);
        }

        let files: Vec<Id> = model.files().iter().map(|f| Id::from(f.as_str())).collect();
        let mut file_order: Vec<u32> = (0..files.len() as u32).collect();
        file_order.sort_by(|&a, &b| model::cmp_utf16(&files[a as usize], &files[b as usize]).then(a.cmp(&b)));
        let mut file_rank = vec![0u32; files.len()];
        for (r, &f) in file_order.iter().enumerate() {
            file_rank[f as usize] = r as u32;
        }

        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(n as usize);
        for i in 0..n {
            if let Some(p) = model.entity(i).parent() {
                pairs.push((p, i));
            }
        }
        let mut children = Csr::build(n as usize, &pairs);
        children.sort_dedup_runs(&rank);

        let mut inverse_pairs: [Vec<(u32, u32)>; 5] = Default::default();
        for e in model.edges() {
            if let Some(inv) = Inverse::of(e.kind) {
                inverse_pairs[inv as usize].push((e.to, e.from));
            }
        }
        let inverse = inverse_pairs.map(|p| {
            let mut csr = Csr::build(n as usize, &p);
            csr.sort_dedup_runs(&rank);
            csr
        });

        let mut kind_ids: HashMap<&str, Id> = HashMap::new();
        let mut kinds = Vec::with_capacity(n as usize);
        let mut names = Vec::with_capacity(n as usize);
        for i in 0..n {
            let e = model.entity(i);
            kinds.push(kind_ids.entry(e.kind()).or_insert_with(|| Id::from(e.kind())).clone());
            names.push(e.name().map(Id::from));
        }
        let container_type = fold_level(model, Trait::Type);
        let container_module = fold_level(model, Trait::Module);
        CodeGraph {
            model,
            ids,
            rank,
            sorted,
            by_id,
            files,
            file_rank,
            children,
            inverse,
            container_type,
            container_module,
            names,
            kinds,
        }
    }

    /// The entity's `name`, shared.
    pub fn name_id(&self, i: u32) -> Option<&Id> {
        self.names[i as usize].as_ref()
    }

    /// The entity's kind name, shared.
    pub fn kind_id(&self, i: u32) -> &Id {
        &self.kinds[i as usize]
    }

    /// `containingType(i)`: the nearest self-or-ancestor (via `parent`)
    /// carrying `TType`; `None` when unplaceable (missing or dangling parent,
    /// parent cycle).
    pub fn containing_type(&self, i: u32) -> Option<u32> {
        let c = self.container_type[i as usize];
        (c != NONE).then_some(c)
    }

    /// `containingModule(i)`: the nearest self-or-ancestor carrying `TModule`.
    pub fn containing_module(&self, i: u32) -> Option<u32> {
        let c = self.container_module[i as usize];
        (c != NONE).then_some(c)
    }

    /// The container of `i` at `level`.
    pub fn fold(&self, level: Level, i: u32) -> Option<u32> {
        match level {
            Level::Type => self.containing_type(i),
            Level::Module => self.containing_module(i),
        }
    }

    /// The model this graph indexes.
    pub fn model(&self) -> &'m Model {
        self.model
    }
    /// Number of entities.
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    /// The entity with surrogate `i`.
    pub fn entity(&self, i: u32) -> EntityRef<'m> {
        self.model.entity(i)
    }
    /// The rendered id of entity `i`.
    pub fn id(&self, i: u32) -> &Id {
        &self.ids[i as usize]
    }
    /// The surrogate of a rendered id (the first declaration for a redeclared id).
    pub fn index_of(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }
    /// `ids()`: all surrogates in id order (UTF-16).
    pub fn sorted(&self) -> &[u32] {
        &self.sorted
    }
    /// All ids, sorted (UTF-16).
    pub fn ids(&self) -> impl ExactSizeIterator<Item = &Id> + '_ {
        self.sorted.iter().map(|&i| &self.ids[i as usize])
    }
    /// Position of entity `i` in the id order: `rank(a) < rank(b)` iff `id(a) < id(b)`.
    pub fn rank(&self, i: u32) -> u32 {
        self.rank[i as usize]
    }
    /// Compares two entities by id (UTF-16).
    pub fn cmp(&self, a: u32, b: u32) -> Ordering {
        self.rank[a as usize].cmp(&self.rank[b as usize])
    }
    /// A file path of the model, shared.
    pub fn file(&self, f: u32) -> &Id {
        &self.files[f as usize]
    }
    /// Position of file `f` in the UTF-16 order of paths.
    pub fn file_rank(&self, f: u32) -> u32 {
        self.file_rank[f as usize]
    }
    /// `parentOf(i)`.
    pub fn parent_of(&self, i: u32) -> Option<u32> {
        self.model.entity(i).parent()
    }
    /// `childrenOf(i)`: distinct, sorted by id.
    pub fn children_of(&self, i: u32) -> &[u32] {
        self.children.get(i)
    }
    /// Edge indexes leaving `i`, in edge-list order.
    pub fn outgoing(&self, i: u32) -> &'m [u32] {
        self.model.outgoing(i)
    }
    /// Edge indexes arriving at `i`, in edge-list order.
    pub fn incoming(&self, i: u32) -> &'m [u32] {
        self.model.incoming(i)
    }
    /// `outgoingOfKind`: edge indexes leaving `i` of `kind`, in edge-list order.
    pub fn outgoing_of_kind(&self, i: u32, kind: EdgeKind) -> impl Iterator<Item = u32> + 'm {
        let edges = self.model.edges();
        self.model.outgoing(i).iter().copied().filter(move |&e| edges[e as usize].kind == kind)
    }
    /// `incomingOfKind`: edge indexes arriving at `i` of `kind`, in edge-list order.
    pub fn incoming_of_kind(&self, i: u32, kind: EdgeKind) -> impl Iterator<Item = u32> + 'm {
        let edges = self.model.edges();
        self.model.incoming(i).iter().copied().filter(move |&e| edges[e as usize].kind == kind)
    }
    /// A derived inverse set: distinct sources, sorted by id.
    pub fn inverse(&self, which: Inverse, i: u32) -> &[u32] {
        self.inverse[which as usize].get(i)
    }
    /// `callersOf(i)` (invocation sources).
    pub fn callers_of(&self, i: u32) -> &[u32] {
        self.inverse(Inverse::Callers, i)
    }
    /// `accessorsOf(i)` (access sources).
    pub fn accessors_of(&self, i: u32) -> &[u32] {
        self.inverse(Inverse::Accessors, i)
    }
    /// `subtypesOf(i)` (inheritance sources).
    pub fn subtypes_of(&self, i: u32) -> &[u32] {
        self.inverse(Inverse::Subtypes, i)
    }
    /// `implementersOf(i)` (interfaceImplementation sources only).
    pub fn implementers_of(&self, i: u32) -> &[u32] {
        self.inverse(Inverse::Implementers, i)
    }
    /// `importersOf(i)` (import sources).
    pub fn importers_of(&self, i: u32) -> &[u32] {
        self.inverse(Inverse::Importers, i)
    }
    /// `isStub(i)` = `isStubEntity` (`docs/formats/model.md` §3.3).
    pub fn is_stub(&self, i: u32) -> bool {
        self.model.entity(i).is_stub()
    }
    /// `hasTrait(i, t)`.
    pub fn has_trait(&self, i: u32, t: Trait) -> bool {
        self.model.entity(i).has_trait(t)
    }
    /// `entityName(i)`: the `name`, if any.
    pub fn entity_name(&self, i: u32) -> Option<&'m str> {
        self.model.entity(i).name()
    }
    /// The entity's kind name.
    pub fn kind(&self, i: u32) -> &'m str {
        self.model.entity(i).kind()
    }
    /// Display name: the name if any, else the id.
    pub fn display_name(&self, i: u32) -> &str {
        match self.entity_name(i) {
            Some(n) => n,
            None => &self.ids[i as usize],
        }
    }
}

/// A folding level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Type,
    Module,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Type => "type",
            Level::Module => "module",
        }
    }
}

/// The containment walk for one level, for every entity.
fn fold_level(model: &Model, target: Trait) -> Vec<u32> {
    nearest_self_or_ancestor(model, |i| model.entity(i).has_trait(target))
}

/// For every entity, the nearest self-or-ancestor (via `parent`) that
/// `is_target` accepts; `u32::MAX` where there is none (a missing or
/// dangling parent, a parent cycle). Iterative, every node on a walked path
/// memoized (O(V) in total). Never parses ids.
pub fn nearest_self_or_ancestor(model: &Model, is_target: impl Fn(u32) -> bool) -> Vec<u32> {
    const UNSET: u32 = NONE - 1;
    const ON_PATH: u32 = NONE - 2;
    let n = model.entity_count();
    let mut memo = vec![UNSET; n as usize];
    let mut path: Vec<u32> = Vec::new();
    for start in 0..n {
        if memo[start as usize] != UNSET {
            continue;
        }
        path.clear();
        let mut cur = start;
        let result = loop {
            match memo[cur as usize] {
                UNSET => {}
                ON_PATH => break NONE, // a parent cycle
                known => break known,
            }
            if is_target(cur) {
                memo[cur as usize] = cur;
                break cur;
            }
            memo[cur as usize] = ON_PATH;
            path.push(cur);
            match model.entity(cur).parent() {
                Some(p) if p < n => cur = p,
                _ => break NONE, // missing or dangling parent
            }
        };
        for &p in &path {
            memo[p as usize] = result;
        }
    }
    memo
}

impl std::fmt::Debug for CodeGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeGraph").field("entities", &self.ids.len()).finish()
    }
}
