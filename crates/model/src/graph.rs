//! The decoded model held in memory: struct-of-records with `u32` surrogates,
//! interned strings, edges in one compact array, and forward / reverse /
//! containment adjacency built once after reading.
//!
//! Surrogates are positions in this model only; they are never identity.
//! Identity is the rendered id ([`Model::id`]).

use crate::error::Findings;
use crate::literal::{Literal, NamedArgument};
use crate::strings::{Str, Strings};
use crate::vocab::{EdgeKind, Provenance, Trait, TraitMask};

/// "Absent" for optional `u32` slots.
pub(crate) const NONE: u32 = u32::MAX;

/// The model's header (`docs/formats/model.md` §3.1).
#[derive(Clone, Debug, Default)]
pub struct Header {
    pub schema_version: String,
    pub lang: String,
    /// The `extractor` object as raw JSON text, kept byte-exact.
    pub extractor: String,
    pub root: String,
    /// The optional `repository` object as raw JSON text.
    pub repository: Option<String>,
    /// `dict.kinds`: open, profile-defined kind names.
    pub kinds: Vec<String>,
    /// `dict.traits`, mapped to core traits (model index → trait).
    pub traits: Vec<Trait>,
    /// `dict.edges`, mapped to core edge kinds.
    pub edges: Vec<EdgeKind>,
    /// `dict.provenance`, mapped to core provenances.
    pub provenance: Vec<Provenance>,
    /// Keys the format does not define, as raw JSON text, in the order read.
    pub extensions: Vec<(String, String)>,
}

/// A source location: a file of the model and an inclusive 1-based line span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Anchor {
    pub file: u32,
    pub start: u32,
    pub end: u32,
}

/// A run of items in one of the model's shared pools.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub const ABSENT: Span = Span { start: NONE, len: 0 };
    pub fn is_present(self) -> bool {
        self.start != NONE
    }
    pub fn range(self) -> std::ops::Range<usize> {
        if self.is_present() {
            self.start as usize..(self.start + self.len) as usize
        } else {
            0..0
        }
    }
}

/// One entity as stored (about 90 bytes; rare keys live in [`Rare`]).
#[derive(Clone, Debug)]
pub(crate) struct EntityRec {
    pub kind: u16,
    pub trait_set: u32,
    /// 0 absent, 1 false, 2 true.
    pub is_stub: u8,
    pub module: u32,
    pub symbol: Str,
    pub disambiguator: u32,
    pub name: u32,
    pub signature: u32,
    pub declared_type: u32,
    pub parent: u32,
    pub anchor: Anchor,
    pub parameters: Span,
    pub local_variables: Span,
    pub defined_in: Span,
    pub metrics: Span,
    pub rare: u32,
}

/// Keys few entities carry.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rare {
    pub attached_to: Option<u32>,
    pub comments: Option<Vec<String>>,
    pub value: Option<Literal<u32>>,
    pub space: Option<Vec<String>>,
    pub extensions: Vec<(String, String)>,
}

/// A trait set as declared (wire order kept) with its mask.
#[derive(Clone, Debug)]
pub struct TraitSet {
    pub list: Vec<Trait>,
    pub mask: TraitMask,
}

/// One dependency edge (28 bytes; rare keys live in [`EdgeExtra`]).
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub kind: EdgeKind,
    pub provenance: Provenance,
    /// bit 0: `isRead`/`isWrite` present, bit 1: isRead, bit 2: isWrite.
    pub(crate) access: u8,
    pub anchor: Anchor,
    pub(crate) extra: u32,
}

impl Edge {
    /// `isRead` of an access edge.
    pub fn is_read(&self) -> Option<bool> {
        (self.access & 1 != 0).then_some(self.access & 2 != 0)
    }
    /// `isWrite` of an access edge.
    pub fn is_write(&self) -> Option<bool> {
        (self.access & 1 != 0).then_some(self.access & 4 != 0)
    }
}

/// Keys few edges carry.
#[derive(Clone, Debug, Default)]
pub(crate) struct EdgeExtra {
    pub candidates: Option<Vec<u32>>,
    pub arguments: Option<Vec<NamedArgument<u32>>>,
    pub source_file: Option<u32>,
    pub extensions: Vec<(String, String)>,
}

/// Compressed adjacency: the items of node `n` are `items[offsets[n]..offsets[n+1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    /// Groups `pairs` (node, item) by node with a counting sort; items of a
    /// node keep the order in which they were given.
    pub fn build(nodes: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut offsets = vec![0u32; nodes + 1];
        let mut total = 0usize;
        for (n, _) in pairs.clone() {
            offsets[n as usize + 1] += 1;
            total += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; total];
        for (n, item) in pairs {
            let slot = &mut fill[n as usize];
            items[*slot as usize] = item;
            *slot += 1;
        }
        Csr { offsets, items }
    }

    pub fn get(&self, n: u32) -> &[u32] {
        let n = n as usize;
        if n + 1 >= self.offsets.len() {
            return &[];
        }
        &self.items[self.offsets[n] as usize..self.offsets[n + 1] as usize]
    }

    fn heap_bytes(&self) -> usize {
        (self.offsets.capacity() + self.items.capacity()) * 4
    }
}

/// A validated model.
pub struct Model {
    pub(crate) header: Header,
    pub(crate) files: Vec<String>,
    pub(crate) file_extensions: Vec<(u32, Vec<(String, String)>)>,
    pub(crate) strings: Strings,
    pub(crate) trait_sets: Vec<TraitSet>,
    pub(crate) entities: Vec<EntityRec>,
    pub(crate) rare: Vec<Rare>,
    pub(crate) entity_refs: Vec<u32>,
    pub(crate) file_refs: Vec<u32>,
    pub(crate) metrics: Vec<(Str, f64)>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) edge_extras: Vec<EdgeExtra>,
    pub(crate) outgoing: Csr,
    pub(crate) incoming: Csr,
    pub(crate) children: Csr,
    pub(crate) findings: Findings,
}

impl Model {
    pub fn header(&self) -> &Header {
        &self.header
    }
    pub fn lang(&self) -> &str {
        &self.header.lang
    }
    /// File paths by file index.
    pub fn files(&self) -> &[String] {
        &self.files
    }
    pub fn file(&self, index: u32) -> &str {
        &self.files[index as usize]
    }
    pub fn entity_count(&self) -> u32 {
        self.entities.len() as u32
    }
    pub fn edge_count(&self) -> u32 {
        self.edges.len() as u32
    }
    /// The entity with surrogate `i` (panics when out of range, as slices do).
    pub fn entity(&self, i: u32) -> EntityRef<'_> {
        assert!((i as usize) < self.entities.len(), "entity {i} out of range");
        EntityRef { model: self, index: i }
    }
    pub fn entities(&self) -> impl ExactSizeIterator<Item = EntityRef<'_>> + '_ {
        (0..self.entity_count()).map(move |index| EntityRef { model: self, index })
    }
    /// All edges, in file order (canonical for a clean model).
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }
    pub fn edge(&self, i: u32) -> EdgeRef<'_> {
        EdgeRef { model: self, index: i, edge: &self.edges[i as usize] }
    }
    /// Edge indexes leaving entity `i`, in edge-list order.
    pub fn outgoing(&self, i: u32) -> &[u32] {
        self.outgoing.get(i)
    }
    /// Edge indexes arriving at entity `i`, in edge-list order.
    pub fn incoming(&self, i: u32) -> &[u32] {
        self.incoming.get(i)
    }
    /// Entities whose `parent` is `i`, in surrogate (natural-key) order.
    pub fn children(&self, i: u32) -> &[u32] {
        self.children.get(i)
    }
    /// The distinct trait sets of the model.
    pub fn trait_sets(&self) -> &[TraitSet] {
        &self.trait_sets
    }
    /// Conformance findings (duplicate keys, self-edges, …): the model read,
    /// but these are worth knowing.
    pub fn findings(&self) -> &Findings {
        &self.findings
    }
    /// The rendered id of entity `i` (`docs/formats/model.md` §4.1).
    pub fn id(&self, i: u32) -> String {
        let mut s = String::new();
        self.write_id(i, &mut s);
        s
    }
    /// Appends the rendered id of entity `i` to `out`.
    pub fn write_id(&self, i: u32, out: &mut String) {
        let e = &self.entities[i as usize];
        out.push_str(&self.header.lang);
        out.push(':');
        out.push_str(self.module_path_of(e));
        if e.module != i {
            let sym = self.strings.get(e.symbol);
            if !sym.is_empty() {
                out.push('/');
                out.push_str(sym);
            }
        }
        if e.disambiguator != NONE {
            out.push('#');
            out.push_str(self.strings.get(Str::from_raw(e.disambiguator)));
        }
    }

    fn module_path_of(&self, e: &EntityRec) -> &str {
        self.strings.get(self.entities[e.module as usize].symbol)
    }

    /// Approximate heap bytes held by the model (for memory reports).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.strings.heap_bytes()
            + self.entities.capacity() * size_of::<EntityRec>()
            + self.rare.capacity() * size_of::<Rare>()
            + (self.entity_refs.capacity() + self.file_refs.capacity()) * 4
            + self.metrics.capacity() * size_of::<(Str, f64)>()
            + self.edges.capacity() * size_of::<Edge>()
            + self.edge_extras.capacity() * size_of::<EdgeExtra>()
            + self.outgoing.heap_bytes()
            + self.incoming.heap_bytes()
            + self.children.heap_bytes()
            + self.files.iter().map(|f| f.capacity() + size_of::<String>()).sum::<usize>()
    }
}

fn opt(raw: u32) -> Option<u32> {
    (raw != NONE).then_some(raw)
}

/// A borrowed view of one entity.
#[derive(Clone, Copy)]
pub struct EntityRef<'m> {
    model: &'m Model,
    index: u32,
}

impl<'m> EntityRef<'m> {
    fn rec(&self) -> &'m EntityRec {
        &self.model.entities[self.index as usize]
    }
    fn rare(&self) -> Option<&'m Rare> {
        let r = self.rec().rare;
        (r != NONE).then(|| &self.model.rare[r as usize])
    }
    fn text(&self, raw: u32) -> Option<&'m str> {
        opt(raw).map(|s| self.model.strings.get(Str::from_raw(s)))
    }
    fn refs(&self, span: Span) -> Option<&'m [u32]> {
        span.is_present().then(|| &self.model.entity_refs[span.range()])
    }

    pub fn model(&self) -> &'m Model {
        self.model
    }
    /// The surrogate.
    pub fn index(&self) -> u32 {
        self.index
    }
    /// The rendered id.
    pub fn id(&self) -> String {
        self.model.id(self.index)
    }
    pub fn kind(&self) -> &'m str {
        &self.model.header.kinds[self.rec().kind as usize]
    }
    /// Traits in the order the extractor wrote them.
    pub fn traits(&self) -> &'m [Trait] {
        &self.model.trait_sets[self.rec().trait_set as usize].list
    }
    pub fn trait_mask(&self) -> TraitMask {
        self.model.trait_sets[self.rec().trait_set as usize].mask
    }
    pub fn has_trait(&self, t: Trait) -> bool {
        self.trait_mask().has(t)
    }
    /// Surrogate of the module entity of the natural key (`m`).
    pub fn module(&self) -> u32 {
        self.rec().module
    }
    /// True for a module entity (`m == i`).
    pub fn is_module_entity(&self) -> bool {
        self.rec().module == self.index
    }
    /// The module path of the natural key.
    pub fn module_path(&self) -> &'m str {
        self.model.module_path_of(self.rec())
    }
    /// The symbol of the natural key (empty for a module entity).
    pub fn symbol(&self) -> &'m str {
        if self.is_module_entity() {
            ""
        } else {
            self.model.strings.get(self.rec().symbol)
        }
    }
    /// The raw `s` key as written.
    pub fn s(&self) -> &'m str {
        self.model.strings.get(self.rec().symbol)
    }
    pub fn disambiguator(&self) -> Option<&'m str> {
        self.text(self.rec().disambiguator)
    }
    pub fn name(&self) -> Option<&'m str> {
        self.text(self.rec().name)
    }
    pub fn signature(&self) -> Option<&'m str> {
        self.text(self.rec().signature)
    }
    pub fn declared_type(&self) -> Option<u32> {
        opt(self.rec().declared_type)
    }
    /// The `isStub` key as written.
    pub fn is_stub_key(&self) -> Option<bool> {
        match self.rec().is_stub {
            0 => None,
            v => Some(v == 2),
        }
    }
    /// `isStubEntity` (`docs/formats/model.md` §3.3): declares TType or TModule
    /// and `isStub` is true.
    pub fn is_stub(&self) -> bool {
        let m = self.trait_mask();
        (m.has(Trait::Type) || m.has(Trait::Module)) && self.rec().is_stub == 2
    }
    pub fn parent(&self) -> Option<u32> {
        opt(self.rec().parent)
    }
    pub fn attached_to(&self) -> Option<u32> {
        self.rare().and_then(|r| r.attached_to)
    }
    pub fn parameters(&self) -> Option<&'m [u32]> {
        self.refs(self.rec().parameters)
    }
    pub fn local_variables(&self) -> Option<&'m [u32]> {
        self.refs(self.rec().local_variables)
    }
    /// `definedIn` file indexes.
    pub fn defined_in(&self) -> Option<&'m [u32]> {
        let span = self.rec().defined_in;
        span.is_present().then(|| &self.model.file_refs[span.range()])
    }
    pub fn comments(&self) -> Option<&'m [String]> {
        self.rare().and_then(|r| r.comments.as_deref())
    }
    /// Metrics in the order read; `None` when not measured.
    pub fn metrics(&self) -> Option<impl ExactSizeIterator<Item = (&'m str, f64)> + 'm> {
        let span = self.rec().metrics;
        let model = self.model;
        span.is_present()
            .then(move || model.metrics[span.range()].iter().map(move |(k, v)| (model.strings.get(*k), *v)))
    }
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics()?.find(|(k, _)| *k == name).map(|(_, v)| v)
    }
    pub fn value(&self) -> Option<&'m Literal<u32>> {
        self.rare().and_then(|r| r.value.as_ref())
    }
    pub fn space(&self) -> Option<&'m [String]> {
        self.rare().and_then(|r| r.space.as_deref())
    }
    pub fn anchor(&self) -> Option<Anchor> {
        let a = self.rec().anchor;
        (a.file != NONE).then_some(a)
    }
    /// Keys no trait contributes, as raw JSON text, in the order read.
    pub fn extensions(&self) -> &'m [(String, String)] {
        self.rare().map(|r| r.extensions.as_slice()).unwrap_or(&[])
    }
    pub fn children(&self) -> &'m [u32] {
        self.model.children(self.index)
    }
    pub fn outgoing(&self) -> &'m [u32] {
        self.model.outgoing(self.index)
    }
    pub fn incoming(&self) -> &'m [u32] {
        self.model.incoming(self.index)
    }
}

impl std::fmt::Debug for EntityRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Entity({} {})", self.index, self.id())
    }
}

/// A borrowed view of one edge with its rare keys.
#[derive(Clone, Copy)]
pub struct EdgeRef<'m> {
    model: &'m Model,
    index: u32,
    edge: &'m Edge,
}

impl<'m> EdgeRef<'m> {
    pub fn index(&self) -> u32 {
        self.index
    }
    pub fn edge(&self) -> &'m Edge {
        self.edge
    }
    fn extra(&self) -> Option<&'m EdgeExtra> {
        (self.edge.extra != NONE).then(|| &self.model.edge_extras[self.edge.extra as usize])
    }
    pub fn candidates(&self) -> Option<&'m [u32]> {
        self.extra().and_then(|x| x.candidates.as_deref())
    }
    /// Annotation arguments (absent reads as `[]`).
    pub fn arguments(&self) -> &'m [NamedArgument<u32>] {
        self.extra().and_then(|x| x.arguments.as_deref()).unwrap_or(&[])
    }
    /// Whether the `arguments` key was written.
    pub fn has_arguments_key(&self) -> bool {
        self.extra().is_some_and(|x| x.arguments.is_some())
    }
    pub fn source_file(&self) -> Option<u32> {
        self.extra().and_then(|x| x.source_file)
    }
    pub fn extensions(&self) -> &'m [(String, String)] {
        self.extra().map(|x| x.extensions.as_slice()).unwrap_or(&[])
    }
}

impl std::ops::Deref for EdgeRef<'_> {
    type Target = Edge;
    fn deref(&self) -> &Edge {
        self.edge
    }
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("lang", &self.header.lang)
            .field("files", &self.files.len())
            .field("entities", &self.entities.len())
            .field("edges", &self.edges.len())
            .finish()
    }
}
