//! Writes canonical `model.jsonl` from a typed description (`docs/formats/model.md` §8).
//!
//! Callers describe entities by natural key ([`Key`]: module path, symbol,
//! optional disambiguator), refer to other entities by key (or by the cheap
//! [`Ref`] handle the builder hands out), and name kinds, traits, edge kinds
//! and provenances by their wire names. [`ModelBuilder::write_to`] /
//! [`ModelBuilder::build`] then do everything the format fixes:
//!
//! * files sorted by path (UTF-16 order), indices assigned;
//! * entity surrogates assigned in canonical natural-key order (§4.2), `m` set
//!   to the surrogate of the module entity (key `(module, "", —)`);
//! * dictionaries holding only the names used, sorted; records refer to them
//!   by index; trait arrays keep the caller's order;
//! * edges in canonical edge order (§4.2);
//! * entity keys and edge keys in the key order of §8, numbers and strings
//!   as JavaScript writes them, the `eof` trailer with the counts.
//!
//! Errors (from `build`/`write_to`, before anything is written): a reference
//! to an undeclared entity, an entity whose module has no module entity, a
//! natural key declared twice or not renderable (§3.3, §4.1), malformed raw
//! JSON. The builder does NOT check profile validity or the trait-key rule, and
//! it allows self-edges (a conformance finding, not a read error), so tests can
//! write models that a validator should flag.
//!
//! The `java_*` layer creates Java shapes with the extractor's trait sets,
//! trait order and disambiguators; `docs/formats` does not describe them, so
//! those functions (and `profile.rs`) are the reference.

use crate::json::{write_js_number, write_js_string};
use crate::literal::{write_arguments, Literal, NamedArgument};
use crate::order::cmp_utf16;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::BuildHasher;
use std::io::Write;

/// A natural key below the language: `(module, symbol, disambiguator?)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub module: String,
    pub symbol: String,
    pub disambiguator: Option<String>,
}

impl Key {
    /// `(module, symbol)` without a disambiguator.
    pub fn new(module: impl Into<String>, symbol: impl Into<String>) -> Key {
        Key { module: module.into(), symbol: symbol.into(), disambiguator: None }
    }

    /// `(module, symbol, d)`.
    pub fn with_d(module: impl Into<String>, symbol: impl Into<String>, d: impl Into<String>) -> Key {
        Key { module: module.into(), symbol: symbol.into(), disambiguator: Some(d.into()) }
    }

    /// The key of a module entity: symbol `""`, no disambiguator.
    pub fn module(path: impl Into<String>) -> Key {
        Key::new(path, "")
    }

    /// Whether this is a module entity's key.
    pub fn is_module(&self) -> bool {
        self.symbol.is_empty() && self.disambiguator.is_none()
    }

    /// The rendered id (`docs/formats/model.md` §4.1), without validation.
    pub fn render(&self, lang: &str) -> String {
        let mut s = format!("{lang}:{}", self.module);
        if !self.symbol.is_empty() {
            s.push('/');
            s.push_str(&self.symbol);
        }
        if let Some(d) = &self.disambiguator {
            s.push('#');
            s.push_str(d);
        }
        s
    }

    /// Canonical order (`docs/formats/model.md` §4.2) within one language:
    /// module, symbol, then disambiguator with absent first; every comparison
    /// by UTF-16 code unit.
    pub fn cmp_canonical(&self, other: &Key) -> Ordering {
        cmp_utf16(&self.module, &other.module).then_with(|| cmp_utf16(&self.symbol, &other.symbol)).then_with(
            || match (&self.disambiguator, &other.disambiguator) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(a), Some(b)) => cmp_utf16(a, b),
            },
        )
    }

    /// Why the key cannot be rendered injectively (`docs/formats/model.md`
    /// §3.3, §4.1), if it cannot.
    fn invalid(&self) -> Option<&'static str> {
        if self.module.contains(['/', '#', '\0']) {
            return Some("the module contains '/', '#' or NUL");
        }
        if self.symbol.contains(['#', '\0']) {
            return Some("the symbol contains '#' or NUL");
        }
        match &self.disambiguator {
            Some(d) if d.is_empty() => Some("the disambiguator is present but empty"),
            Some(d) if d.contains('\0') => Some("the disambiguator contains NUL"),
            _ => None,
        }
    }
}

/// A cheap handle to a natural key interned in one builder (declared or only
/// referred to so far). Only meaningful for the builder that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ref(u32);

/// The builder's table of natural keys (opaque; used through [`ToRef`]).
/// Each key is stored once; the hash table holds indices into `keys`.
#[derive(Default)]
pub struct KeyTable {
    table: hashbrown::HashTable<u32>,
    keys: Vec<Key>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl KeyTable {
    fn lookup(&self, key: &Key) -> Option<Ref> {
        let h = self.hasher.hash_one(key);
        self.table.find(h, |&i| self.keys[i as usize] == *key).map(|&i| Ref(i))
    }

    fn intern(&mut self, key: &Key) -> Ref {
        match self.lookup(key) {
            Some(r) => r,
            None => self.insert(key.clone()),
        }
    }

    fn intern_owned(&mut self, key: Key) -> Ref {
        match self.lookup(&key) {
            Some(r) => r,
            None => self.insert(key),
        }
    }

    fn insert(&mut self, key: Key) -> Ref {
        let i = u32::try_from(self.keys.len()).expect("fewer than 2^32 keys");
        let h = self.hasher.hash_one(&key);
        self.keys.push(key);
        let (keys, hasher) = (&self.keys, &self.hasher);
        self.table.insert_unique(h, i, |&j| hasher.hash_one(&keys[j as usize]));
        Ref(i)
    }

    fn get(&self, r: Ref) -> &Key {
        &self.keys[r.0 as usize]
    }
}

/// Anything that names an entity: a [`Key`] (by value or reference) or a [`Ref`].
pub trait ToRef {
    #[doc(hidden)]
    fn to_ref(&self, keys: &mut KeyTable) -> Ref;
}

impl ToRef for Ref {
    fn to_ref(&self, _: &mut KeyTable) -> Ref {
        *self
    }
}

impl ToRef for Key {
    fn to_ref(&self, keys: &mut KeyTable) -> Ref {
        keys.intern(self)
    }
}

impl<T: ToRef + ?Sized> ToRef for &T {
    fn to_ref(&self, keys: &mut KeyTable) -> Ref {
        (**self).to_ref(keys)
    }
}

/// Why a model could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("reference to an undeclared entity {0}")]
    MissingRef(String),
    #[error("entity {entity} lies in module {module}, which has no module entity")]
    MissingModule { entity: String, module: String },
    #[error("natural key declared twice: {0}")]
    DuplicateKey(String),
    #[error("natural key {0} cannot be rendered: {1}")]
    InvalidKey(String, &'static str),
    #[error("{0} is not one line of valid JSON: {1}")]
    RawJson(String, String),
    #[error("extension key {0} collides with a key the format defines")]
    ExtensionKey(String),
    #[error("{0}")]
    Misuse(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// What [`ModelBuilder::write_to`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub files: usize,
    pub entities: usize,
    pub edges: usize,
    pub bytes: u64,
}

/// An interned list of names (kinds, traits, edge kinds, provenances, metrics, files).
#[derive(Default)]
struct Names {
    map: HashMap<String, u32>,
    list: Vec<String>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.map.get(name) {
            return i;
        }
        let i = self.list.len() as u32;
        self.map.insert(name.to_owned(), i);
        self.list.push(name.to_owned());
        i
    }

    /// Ids sorted by name (UTF-16), restricted to `used`; returns the sorted
    /// names and, per id, its index in them.
    fn dictionary(&self, used: &[bool]) -> (Vec<&str>, Vec<u32>) {
        let mut ids: Vec<usize> = (0..self.list.len()).filter(|&i| used[i]).collect();
        ids.sort_by(|&a, &b| cmp_utf16(&self.list[a], &self.list[b]));
        let mut index = vec![u32::MAX; self.list.len()];
        for (n, &i) in ids.iter().enumerate() {
            index[i] = n as u32;
        }
        (ids.iter().map(|&i| self.list[i].as_str()).collect(), index)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Anchor {
    file: u32,
    start: u32,
    end: u32,
}

#[derive(Clone, Debug, Default)]
enum DefinedIn {
    #[default]
    Absent,
    Files(Vec<u32>),
    /// The files anchoring the entity's direct children (a Java package).
    FromChildren,
}

/// The keys of one entity as described so far.
struct Entity {
    key: Ref,
    kind: u32,
    traits: Vec<u32>,
    name: Option<String>,
    signature: Option<String>,
    declared_type: Option<Ref>,
    is_stub: Option<bool>,
    parent: Option<Ref>,
    attached_to: Option<Ref>,
    parameters: Option<Vec<Ref>>,
    local_variables: Option<Vec<Ref>>,
    defined_in: DefinedIn,
    comments: Option<Vec<String>>,
    metrics: Option<Vec<(u32, f64)>>,
    value: Option<Literal<Ref>>,
    space: Option<Vec<String>>,
    anchor: Option<Anchor>,
    extensions: Vec<(String, String)>,
}

/// One edge as described.
struct Edge {
    kind: u32,
    from: Ref,
    to: Ref,
    provenance: u32,
    anchor: Anchor,
    candidates: Option<Box<[Ref]>>,
    access: Option<(bool, bool)>,
    arguments: Option<Box<[NamedArgument<Ref>]>>,
    source_file: Option<u32>,
}

const NONE: u32 = u32::MAX;

/// Keys an entity line may carry; an extension may not reuse them.
const RESERVED_ENTITY_KEYS: &[&str] = &[
    "t",
    "i",
    "k",
    "tr",
    "m",
    "s",
    "d",
    "name",
    "signature",
    "declaredType",
    "isStub",
    "parent",
    "attachedTo",
    "parameters",
    "localVariables",
    "definedIn",
    "comments",
    "metrics",
    "value",
    "space",
    "anchor",
];

/// The Java extractor's trait order (every fixture trait array is a
/// subsequence of it); the `java_*` helpers and the trait-adding setters keep it.
pub const JAVA_TRAIT_ORDER: &[&str] = &[
    "TNamed",
    "TSourceAnchor",
    "TComment",
    "TWithChildren",
    "TChildOf",
    "TAttachedTo",
    "TModule",
    "TType",
    "TWithInheritances",
    "TWithImplements",
    "TTypedEntity",
    "TInvocable",
    "TWithParameters",
    "TWithLocalVariables",
    "TWithInvocations",
    "TWithAccesses",
    "TStructural",
    "TMetrics",
    "TWithValue",
];

/// Java type kinds and their trait sets (fixture order; `TComment`
/// and `TMetrics` are added by [`EntityBuilder::doc`] / [`EntityBuilder::measure`]).
const JAVA_TYPE_TRAITS: &[(&str, &[&str])] = &[
    (
        "class",
        &["TNamed", "TSourceAnchor", "TWithChildren", "TChildOf", "TType", "TWithInheritances", "TWithImplements"],
    ),
    ("interface", &["TNamed", "TSourceAnchor", "TWithChildren", "TChildOf", "TType", "TWithInheritances"]),
    ("enum", &["TNamed", "TSourceAnchor", "TWithChildren", "TChildOf", "TType", "TWithImplements"]),
    ("record", &["TNamed", "TSourceAnchor", "TWithChildren", "TChildOf", "TType", "TWithImplements"]),
    ("annotation", &["TNamed", "TSourceAnchor", "TWithChildren", "TChildOf", "TType"]),
];

const JAVA_METHOD_TRAITS: &[&str] = &[
    "TNamed",
    "TSourceAnchor",
    "TWithChildren",
    "TChildOf",
    "TTypedEntity",
    "TInvocable",
    "TWithParameters",
    "TWithLocalVariables",
    "TWithInvocations",
    "TWithAccesses",
];

const JAVA_NAMELESS_INVOCABLE_TRAITS: &[&str] = &[
    "TSourceAnchor",
    "TWithChildren",
    "TChildOf",
    "TInvocable",
    "TWithParameters",
    "TWithLocalVariables",
    "TWithInvocations",
    "TWithAccesses",
];

const JAVA_FIELD_TRAITS: &[&str] = &["TNamed", "TSourceAnchor", "TChildOf", "TTypedEntity", "TStructural"];
/// Parameters and locals; `TSourceAnchor` comes with [`EntityBuilder::at`].
const JAVA_VARIABLE_TRAITS: &[&str] = &["TNamed", "TChildOf", "TTypedEntity", "TStructural"];

fn java_rank(name: &str) -> usize {
    JAVA_TRAIT_ORDER.iter().position(|t| *t == name).unwrap_or(usize::MAX)
}

/// Builds one model. See the module documentation.
pub struct ModelBuilder {
    lang: String,
    root: String,
    schema_version: String,
    extractor: String,
    repository: Option<String>,
    keys: KeyTable,
    /// Per key: the index of the entity declaring it, or `NONE`.
    declared: Vec<u32>,
    entities: Vec<Entity>,
    edges: Vec<Edge>,
    files: Names,
    kinds: Names,
    traits: Names,
    edge_kinds: Names,
    provenances: Names,
    metric_names: Names,
    /// Problems found while describing (reported by `build`).
    problems: Vec<BuildError>,
}

impl ModelBuilder {
    /// A builder for language `lang` analysing `root`; schemaVersion `1.0.0`,
    /// extractor `{"name":"codegraph-insights-builder","version":"0.1.0"}`.
    pub fn new(lang: &str, root: &str) -> ModelBuilder {
        ModelBuilder {
            lang: lang.to_owned(),
            root: root.to_owned(),
            schema_version: "1.0.0".to_owned(),
            extractor: r#"{"name":"codegraph-insights-builder","version":"0.1.0"}"#.to_owned(),
            repository: None,
            keys: KeyTable::default(),
            declared: Vec::new(),
            entities: Vec::new(),
            edges: Vec::new(),
            files: Names::default(),
            kinds: Names::default(),
            traits: Names::default(),
            edge_kinds: Names::default(),
            provenances: Names::default(),
            metric_names: Names::default(),
            problems: Vec::new(),
        }
    }

    /// The header's `extractor` object, as raw JSON text (one line).
    pub fn extractor(&mut self, raw_json: &str) -> &mut Self {
        self.extractor = raw_json.to_owned();
        self
    }

    /// The header's optional `repository` object, as raw JSON text.
    pub fn repository(&mut self, raw_json: &str) -> &mut Self {
        self.repository = Some(raw_json.to_owned());
        self
    }

    /// Overrides `schemaVersion` (default `1.0.0`).
    pub fn schema_version(&mut self, version: &str) -> &mut Self {
        self.schema_version = version.to_owned();
        self
    }

    /// The language (the header's `lang`).
    pub fn lang(&self) -> &str {
        &self.lang
    }

    /// Declares a file. Files named by anchors, `definedIn` and `sourceFile`
    /// are declared implicitly; this adds files nothing refers to.
    pub fn file(&mut self, path: &str) -> &mut Self {
        self.files.id(path);
        self
    }

    /// The handle of a key (declared or not yet).
    pub fn r(&mut self, key: impl ToRef) -> Ref {
        key.to_ref(&mut self.keys)
    }

    /// The natural key behind a handle.
    pub fn key(&self, r: Ref) -> &Key {
        self.keys.get(r)
    }

    /// Whether a key has been declared as an entity.
    pub fn is_declared(&mut self, key: impl ToRef) -> bool {
        let r = key.to_ref(&mut self.keys);
        self.entity_index(r).is_some()
    }

    /// Number of entities declared so far.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Number of edges described so far.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Declares an entity of kind `kind` (no traits yet). A key declared twice
    /// is an error from `build`.
    pub fn entity(&mut self, key: impl ToRef, kind: &str) -> EntityBuilder<'_> {
        let r = key.to_ref(&mut self.keys);
        let kind = self.kinds.id(kind);
        let idx = self.entities.len();
        if self.declared.len() < self.keys.keys.len() {
            self.declared.resize(self.keys.keys.len(), NONE);
        }
        if self.declared[r.0 as usize] != NONE {
            let id = self.keys.get(r).render(&self.lang);
            self.problems.push(BuildError::DuplicateKey(id));
        } else {
            self.declared[r.0 as usize] = idx as u32;
        }
        self.entities.push(Entity {
            key: r,
            kind,
            traits: Vec::new(),
            name: None,
            signature: None,
            declared_type: None,
            is_stub: None,
            parent: None,
            attached_to: None,
            parameters: None,
            local_variables: None,
            defined_in: DefinedIn::Absent,
            comments: None,
            metrics: None,
            value: None,
            space: None,
            anchor: None,
            extensions: Vec::new(),
        });
        EntityBuilder { b: self, e: idx }
    }

    /// Reopens a declared entity to set more keys.
    pub fn edit(&mut self, key: impl ToRef) -> Option<EntityBuilder<'_>> {
        let r = key.to_ref(&mut self.keys);
        let e = self.entity_index(r)?;
        Some(EntityBuilder { b: self, e })
    }

    fn entity_index(&self, r: Ref) -> Option<usize> {
        match self.declared.get(r.0 as usize) {
            Some(&e) if e != NONE => Some(e as usize),
            _ => None,
        }
    }

    /// Describes an edge `from → to` of kind `kind` with provenance
    /// `provenance`, anchored at `(path, start, end)`.
    pub fn edge(
        &mut self,
        kind: &str,
        from: impl ToRef,
        to: impl ToRef,
        provenance: &str,
        anchor: (&str, u32, u32),
    ) -> EdgeBuilder<'_> {
        let from = from.to_ref(&mut self.keys);
        let to = to.to_ref(&mut self.keys);
        let kind = self.edge_kinds.id(kind);
        let provenance = self.provenances.id(provenance);
        let anchor = Anchor { file: self.files.id(anchor.0), start: anchor.1, end: anchor.2 };
        self.edges.push(Edge {
            kind,
            from,
            to,
            provenance,
            anchor,
            candidates: None,
            access: None,
            arguments: None,
            source_file: None,
        });
        let x = self.edges.len() - 1;
        EdgeBuilder { b: self, x }
    }

    /// Writes the model as a string.
    pub fn build(&self) -> Result<String, BuildError> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(String::from_utf8(out).expect("the builder writes UTF-8"))
    }

    /// Writes the model to `out`. Everything is checked before the first byte.
    pub fn write_to<W: Write>(&self, out: W) -> Result<Written, BuildError> {
        let plan = self.plan()?;
        self.write_planned(&plan, out)
    }

    // ----- planning: orders, surrogates, dictionaries, checks -------------

    fn plan(&self) -> Result<Plan, BuildError> {
        if let Some(p) = self.problems.first() {
            return Err(match p {
                BuildError::DuplicateKey(s) => BuildError::DuplicateKey(s.clone()),
                BuildError::Misuse(s) => BuildError::Misuse(s.clone()),
                other => BuildError::Misuse(other.to_string()),
            });
        }
        check_raw(&self.extractor, "extractor", true)?;
        if let Some(r) = &self.repository {
            check_raw(r, "repository", true)?;
        }

        // Files.
        let mut file_order: Vec<usize> = (0..self.files.list.len()).collect();
        file_order.sort_by(|&a, &b| cmp_utf16(&self.files.list[a], &self.files.list[b]));
        let mut file_index = vec![0u32; file_order.len()];
        for (n, &f) in file_order.iter().enumerate() {
            file_index[f] = n as u32;
        }

        // Entities: canonical order = surrogates.
        for e in &self.entities {
            let key = self.keys.get(e.key);
            if let Some(why) = key.invalid() {
                return Err(BuildError::InvalidKey(key.render(&self.lang), why));
            }
            for (name, raw) in &e.extensions {
                if RESERVED_ENTITY_KEYS.contains(&name.as_str()) {
                    return Err(BuildError::ExtensionKey(name.clone()));
                }
                check_raw(raw, name, false)?;
            }
        }
        if self.lang.contains([':', '\0']) {
            return Err(BuildError::InvalidKey(self.lang.clone(), "the language contains ':' or NUL"));
        }
        let mut entity_order: Vec<u32> = (0..self.entities.len() as u32).collect();
        entity_order.sort_by(|&a, &b| {
            self.keys.get(self.entities[a as usize].key).cmp_canonical(self.keys.get(self.entities[b as usize].key))
        });
        let mut surrogate = vec![NONE; self.keys.keys.len()];
        for (n, &e) in entity_order.iter().enumerate() {
            surrogate[self.entities[e as usize].key.0 as usize] = n as u32;
        }

        // Closure.
        let check = |r: Ref| -> Result<(), BuildError> {
            if surrogate[r.0 as usize] == NONE {
                Err(BuildError::MissingRef(self.keys.get(r).render(&self.lang)))
            } else {
                Ok(())
            }
        };
        for e in &self.entities {
            for r in [e.declared_type, e.parent, e.attached_to].into_iter().flatten() {
                check(r)?;
            }
            for r in e.parameters.iter().chain(&e.local_variables).flatten() {
                check(*r)?;
            }
            if let Some(v) = &e.value {
                let mut res = Ok(());
                v.for_each_ref(&mut |r| {
                    if res.is_ok() {
                        res = check(*r);
                    }
                });
                res?;
            }
        }
        for x in &self.edges {
            check(x.from)?;
            check(x.to)?;
            for r in x.candidates.iter().flat_map(|c| c.iter()) {
                check(*r)?;
            }
            for a in x.arguments.iter().flat_map(|a| a.iter()) {
                let mut res = Ok(());
                a.value.for_each_ref(&mut |r| {
                    if res.is_ok() {
                        res = check(*r);
                    }
                });
                res?;
            }
        }

        // Module of each entity (by surrogate).
        let mut module_of = vec![0u32; self.entities.len()];
        let mut module_cache: HashMap<&str, u32> = HashMap::new();
        for (n, &e) in entity_order.iter().enumerate() {
            let key = self.keys.get(self.entities[e as usize].key);
            if key.is_module() {
                module_of[n] = n as u32;
                continue;
            }
            let m = match module_cache.get(key.module.as_str()) {
                Some(&m) => m,
                None => {
                    let m = self
                        .keys
                        .lookup(&Key::module(key.module.clone()))
                        .map(|k| surrogate[k.0 as usize])
                        .unwrap_or(NONE);
                    module_cache.insert(&key.module, m);
                    m
                }
            };
            if m == NONE {
                return Err(BuildError::MissingModule { entity: key.render(&self.lang), module: key.module.clone() });
            }
            module_of[n] = m;
        }

        // Dictionaries: only what is used.
        let mut used_kinds = vec![false; self.kinds.list.len()];
        let mut used_traits = vec![false; self.traits.list.len()];
        for e in &self.entities {
            used_kinds[e.kind as usize] = true;
            for &t in &e.traits {
                used_traits[t as usize] = true;
            }
        }
        let mut used_edges = vec![false; self.edge_kinds.list.len()];
        let mut used_prov = vec![false; self.provenances.list.len()];
        for x in &self.edges {
            used_edges[x.kind as usize] = true;
            used_prov[x.provenance as usize] = true;
        }
        let (kinds, kind_index) = self.kinds.dictionary(&used_kinds);
        let (traits, trait_index) = self.traits.dictionary(&used_traits);
        let (edges, edge_index) = self.edge_kinds.dictionary(&used_edges);
        let (provenance, prov_index) = self.provenances.dictionary(&used_prov);
        let dict = Dict {
            kinds: kinds.into_iter().map(str::to_owned).collect(),
            traits: traits.into_iter().map(str::to_owned).collect(),
            edges: edges.into_iter().map(str::to_owned).collect(),
            provenance: provenance.into_iter().map(str::to_owned).collect(),
        };

        // definedIn derived from children.
        let mut child_files: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, e) in self.entities.iter().enumerate() {
            let (Some(p), Some(a)) = (e.parent, e.anchor) else {
                continue;
            };
            let Some(pe) = self.entity_index(p) else {
                continue;
            };
            if matches!(self.entities[pe].defined_in, DefinedIn::FromChildren) {
                let _ = i;
                child_files.entry(pe as u32).or_default().push(file_index[a.file as usize]);
            }
        }
        for files in child_files.values_mut() {
            files.sort_unstable();
            files.dedup();
        }

        // Edges: canonical order (`docs/formats/model.md` §4.2). Dictionary
        // indices sort like names.
        let mut edge_order: Vec<u32> = (0..self.edges.len() as u32).collect();
        let edge_key = |x: &Edge| {
            (
                surrogate[x.from.0 as usize],
                surrogate[x.to.0 as usize],
                edge_index[x.kind as usize],
                file_index[x.anchor.file as usize],
                x.anchor.start,
                x.anchor.end,
                prov_index[x.provenance as usize],
            )
        };
        edge_order.sort_by_key(|&x| edge_key(&self.edges[x as usize]));

        Ok(Plan {
            file_order,
            file_index,
            entity_order,
            surrogate,
            module_of,
            dict,
            kind_index,
            trait_index,
            edge_index,
            prov_index,
            child_files,
            edge_order,
        })
    }

    // ----- writing ---------------------------------------------------------

    fn write_planned<W: Write>(&self, plan: &Plan, out: W) -> Result<Written, BuildError> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let mut bytes = 0u64;
        let mut line = String::with_capacity(512);
        let mut emit = |line: &mut String, out: &mut std::io::BufWriter<W>| -> std::io::Result<()> {
            line.push('\n');
            bytes += line.len() as u64;
            out.write_all(line.as_bytes())?;
            line.clear();
            Ok(())
        };

        // Header.
        line.push_str(r#"{"t":"header","schemaVersion":"#);
        write_js_string(&mut line, &self.schema_version);
        line.push_str(r#","lang":"#);
        write_js_string(&mut line, &self.lang);
        line.push_str(r#","extractor":"#);
        line.push_str(self.extractor.trim());
        line.push_str(r#","root":"#);
        write_js_string(&mut line, &self.root);
        if let Some(r) = &self.repository {
            line.push_str(r#","repository":"#);
            line.push_str(r.trim());
        }
        line.push_str(r#","dict":{"kinds":"#);
        write_str_array(&mut line, &plan.dict.kinds);
        line.push_str(r#","traits":"#);
        write_str_array(&mut line, &plan.dict.traits);
        line.push_str(r#","edges":"#);
        write_str_array(&mut line, &plan.dict.edges);
        line.push_str(r#","provenance":"#);
        write_str_array(&mut line, &plan.dict.provenance);
        line.push_str("}}");
        emit(&mut line, &mut out)?;

        // Files.
        for (n, &f) in plan.file_order.iter().enumerate() {
            let _ = write!(line, r#"{{"t":"f","i":{n},"path":"#);
            write_js_string(&mut line, &self.files.list[f]);
            line.push('}');
            emit(&mut line, &mut out)?;
        }

        // Entities.
        let sur = |r: Ref| plan.surrogate[r.0 as usize];
        let mut write_ref = |out: &mut String, r: &Ref| {
            let _ = write!(out, "{}", sur(*r));
        };
        for (n, &ei) in plan.entity_order.iter().enumerate() {
            let e = &self.entities[ei as usize];
            let key = self.keys.get(e.key);
            let _ = write!(line, r#"{{"t":"e","i":{n},"k":{},"tr":["#, plan.kind_index[e.kind as usize]);
            for (j, &t) in e.traits.iter().enumerate() {
                if j > 0 {
                    line.push(',');
                }
                let _ = write!(line, "{}", plan.trait_index[t as usize]);
            }
            let _ = write!(line, r#"],"m":{},"s":"#, plan.module_of[n]);
            write_js_string(&mut line, if key.is_module() { &key.module } else { &key.symbol });
            if let Some(d) = &key.disambiguator {
                line.push_str(r#","d":"#);
                write_js_string(&mut line, d);
            }
            if let Some(v) = &e.name {
                line.push_str(r#","name":"#);
                write_js_string(&mut line, v);
            }
            if let Some(v) = &e.signature {
                line.push_str(r#","signature":"#);
                write_js_string(&mut line, v);
            }
            if let Some(r) = e.declared_type {
                let _ = write!(line, r#","declaredType":{}"#, sur(r));
            }
            if let Some(v) = e.is_stub {
                line.push_str(if v { r#","isStub":true"# } else { r#","isStub":false"# });
            }
            if let Some(r) = e.parent {
                let _ = write!(line, r#","parent":{}"#, sur(r));
            }
            if let Some(r) = e.attached_to {
                let _ = write!(line, r#","attachedTo":{}"#, sur(r));
            }
            if let Some(v) = &e.parameters {
                line.push_str(r#","parameters":"#);
                write_num_array(&mut line, v.iter().map(|r| sur(*r)));
            }
            if let Some(v) = &e.local_variables {
                line.push_str(r#","localVariables":"#);
                write_num_array(&mut line, v.iter().map(|r| sur(*r)));
            }
            match &e.defined_in {
                DefinedIn::Absent => {}
                DefinedIn::Files(files) => {
                    let mut idx: Vec<u32> = files.iter().map(|f| plan.file_index[*f as usize]).collect();
                    idx.sort_unstable();
                    idx.dedup();
                    line.push_str(r#","definedIn":"#);
                    write_num_array(&mut line, idx.into_iter());
                }
                DefinedIn::FromChildren => {
                    line.push_str(r#","definedIn":"#);
                    let files = plan.child_files.get(&ei).map(Vec::as_slice).unwrap_or(&[]);
                    write_num_array(&mut line, files.iter().copied());
                }
            }
            if let Some(v) = &e.comments {
                line.push_str(r#","comments":"#);
                write_str_array(&mut line, v);
            }
            if let Some(v) = &e.metrics {
                line.push_str(r#","metrics":{"#);
                let mut sorted: Vec<&(u32, f64)> = v.iter().collect();
                sorted.sort_by(|a, b| {
                    cmp_utf16(&self.metric_names.list[a.0 as usize], &self.metric_names.list[b.0 as usize])
                });
                for (j, (name, value)) in sorted.into_iter().enumerate() {
                    if j > 0 {
                        line.push(',');
                    }
                    write_js_string(&mut line, &self.metric_names.list[*name as usize]);
                    line.push(':');
                    write_js_number(&mut line, *value);
                }
                line.push('}');
            }
            if let Some(v) = &e.value {
                line.push_str(r#","value":"#);
                v.write_json(&mut line, &mut write_ref);
            }
            if let Some(v) = &e.space {
                line.push_str(r#","space":"#);
                write_str_array(&mut line, v);
            }
            if let Some(a) = e.anchor {
                let _ = write!(line, r#","anchor":[{},{},{}]"#, plan.file_index[a.file as usize], a.start, a.end);
            }
            if !e.extensions.is_empty() {
                let mut ext: Vec<&(String, String)> = e.extensions.iter().collect();
                ext.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
                for (name, raw) in ext {
                    line.push(',');
                    write_js_string(&mut line, name);
                    line.push(':');
                    line.push_str(raw.trim());
                }
            }
            line.push('}');
            emit(&mut line, &mut out)?;
        }

        // Edges.
        for &xi in &plan.edge_order {
            let x = &self.edges[xi as usize];
            let _ = write!(
                line,
                r#"{{"t":"x","k":{},"f":{},"o":{},"p":{}"#,
                plan.edge_index[x.kind as usize],
                sur(x.from),
                sur(x.to),
                plan.prov_index[x.provenance as usize]
            );
            if let Some(c) = &x.candidates {
                line.push_str(r#","candidates":"#);
                write_num_array(&mut line, c.iter().map(|r| sur(*r)));
            }
            if let Some((r, w)) = x.access {
                let _ = write!(line, r#","isRead":{r},"isWrite":{w}"#);
            }
            if let Some(a) = &x.arguments {
                line.push_str(r#","arguments":"#);
                write_arguments(&mut line, a, &mut write_ref);
            }
            if let Some(f) = x.source_file {
                let _ = write!(line, r#","sourceFile":{}"#, plan.file_index[f as usize]);
            }
            let a = x.anchor;
            let _ = write!(line, r#","anchor":[{},{},{}]}}"#, plan.file_index[a.file as usize], a.start, a.end);
            emit(&mut line, &mut out)?;
        }

        let _ = write!(
            line,
            r#"{{"t":"eof","counts":{{"files":{},"entities":{},"edges":{}}}}}"#,
            self.files.list.len(),
            self.entities.len(),
            self.edges.len()
        );
        emit(&mut line, &mut out)?;
        out.flush()?;
        Ok(Written { files: self.files.list.len(), entities: self.entities.len(), edges: self.edges.len(), bytes })
    }

    // ----- the Java layer -------------------------------------------------

    /// A corpus package (root of a package tree: no parent). `definedIn` is
    /// derived from the files anchoring its direct children (its top-level types).
    pub fn java_package(&mut self, path: &str) -> EntityBuilder<'_> {
        let mut e = self.entity(Key::module(path), "package");
        e.traits(&["TNamed", "TWithChildren", "TModule"]).name(path).is_stub(false);
        e.entity().defined_in = DefinedIn::FromChildren;
        e
    }

    /// A corpus sub-package whose structural parent is `parent`.
    pub fn java_subpackage(&mut self, path: &str, parent: impl ToRef) -> EntityBuilder<'_> {
        let parent = self.r(parent);
        let mut e = self.java_package(path);
        e.traits(&["TNamed", "TWithChildren", "TChildOf", "TModule"]).parent(parent);
        e
    }

    /// A stub package: flat, `definedIn: []`.
    pub fn java_stub_package(&mut self, path: &str) -> EntityBuilder<'_> {
        let mut e = self.entity(Key::module(path), "package");
        e.traits(&["TNamed", "TWithChildren", "TModule"]).name(path).is_stub(true);
        e.entity().defined_in = DefinedIn::Files(Vec::new());
        e
    }

    /// A stub `class` `module/symbol` whose parent is its (stub) package.
    pub fn java_stub_type(&mut self, module: &str, symbol: &str) -> EntityBuilder<'_> {
        let parent = self.r(Key::module(module));
        let mut e = self.java_parentless_stub_type(module, symbol);
        e.traits(&["TNamed", "TChildOf", "TType"]).parent(parent);
        e
    }

    /// A parentless stub `class` (an FQN the extractor could not place).
    pub fn java_parentless_stub_type(&mut self, module: &str, symbol: &str) -> EntityBuilder<'_> {
        let name = symbol.rsplit('.').next().unwrap_or(symbol).to_owned();
        let mut e = self.entity(Key::new(module, symbol), "class");
        e.traits(&["TNamed", "TType"]).name(&name).is_stub(true);
        e
    }

    /// A corpus type of `kind` (class, interface, enum, record, annotation)
    /// named `name` inside `owner` (a package for a top-level type, else the
    /// enclosing type). Set its span with `anchor` (top level) or `at` (nested).
    pub fn java_type(&mut self, kind: &str, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        let owner = self.r(owner);
        let traits = JAVA_TYPE_TRAITS.iter().find(|(k, _)| *k == kind).map(|(_, t)| *t);
        let traits = match traits {
            Some(t) => t,
            None => {
                self.problems.push(BuildError::Misuse(format!("{kind} is not a Java type kind")));
                JAVA_TYPE_TRAITS[0].1
            }
        };
        let key = self.member_key(owner, name);
        let mut e = self.entity(key, kind);
        e.traits(traits).name(name).is_stub(false).parent(owner);
        e
    }

    /// `java_type("class", …)`.
    pub fn java_class(&mut self, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        self.java_type("class", owner, name)
    }
    /// `java_type("interface", …)`.
    pub fn java_interface(&mut self, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        self.java_type("interface", owner, name)
    }
    /// `java_type("enum", …)`.
    pub fn java_enum(&mut self, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        self.java_type("enum", owner, name)
    }
    /// `java_type("record", …)`.
    pub fn java_record(&mut self, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        self.java_type("record", owner, name)
    }
    /// `java_type("annotation", …)`.
    pub fn java_annotation(&mut self, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        self.java_type("annotation", owner, name)
    }

    /// A method `name(params)` of `owner` (a type or an anonymous class);
    /// `params` are the erased parameter FQNs (`java.lang.String`, `int[]`).
    /// `parameters`/`localVariables` start empty and grow with
    /// [`java_param`](Self::java_param) / [`java_local`](Self::java_local).
    pub fn java_method(&mut self, owner: impl ToRef, name: &str, params: &[&str]) -> EntityBuilder<'_> {
        let owner = self.r(owner);
        let signature = format!("{name}({})", params.join(","));
        let key = self.member_key(owner, &signature);
        let mut e = self.entity(key, "method");
        e.traits(JAVA_METHOD_TRAITS).name(name).signature(&signature).parent(owner);
        e.entity().parameters = Some(Vec::new());
        e.entity().local_variables = Some(Vec::new());
        e
    }

    /// A written constructor `<init>(params)` of `owner`.
    pub fn java_constructor(&mut self, owner: impl ToRef, params: &[&str]) -> EntityBuilder<'_> {
        let owner = self.r(owner);
        let signature = format!("<init>({})", params.join(","));
        let key = self.member_key(owner, &signature);
        let mut e = self.entity(key, "constructor");
        e.traits(JAVA_NAMELESS_INVOCABLE_TRAITS).signature(&signature).parent(owner);
        e.entity().parameters = Some(Vec::new());
        e.entity().local_variables = Some(Vec::new());
        e
    }

    /// The implicit `<init>()` of `owner`: anchored on the owner's span (set
    /// the owner's anchor first), `metrics: {cyclomatic: 1}` only.
    pub fn java_implicit_constructor(&mut self, owner: impl ToRef) -> EntityBuilder<'_> {
        let owner = self.r(owner);
        let anchor = self.entity_index(owner).and_then(|i| self.entities[i].anchor);
        if anchor.is_none() {
            let id = self.keys.get(owner).render(&self.lang);
            self.problems
                .push(BuildError::Misuse(format!("implicit constructor of {id}: the owner has no anchor yet")));
        }
        let mut e = self.java_constructor(owner, &[]);
        e.entity().anchor = anchor;
        e.measure("cyclomatic", 1.0);
        e
    }

    /// A field (kind `attribute`) of `owner`.
    pub fn java_field(&mut self, owner: impl ToRef, name: &str) -> EntityBuilder<'_> {
        let owner = self.r(owner);
        let key = self.member_key(owner, name);
        let mut e = self.entity(key, "attribute");
        e.traits(JAVA_FIELD_TRAITS).name(name).parent(owner);
        e
    }

    /// Parameter `name` of `invocable` (`d` = `param:<name>`, extended for
    /// members of anonymous entities), appended to its `parameters`.
    pub fn java_param(&mut self, invocable: impl ToRef, name: &str) -> EntityBuilder<'_> {
        self.java_variable(invocable, "parameter", name, &format!("param:{name}"))
    }

    /// Local variable `name` declared on `line` (`d` = `local:<name>:<line>`),
    /// appended to the invocable's `localVariables`.
    pub fn java_local(&mut self, invocable: impl ToRef, name: &str, line: u32) -> EntityBuilder<'_> {
        self.java_variable(invocable, "localVariable", name, &format!("local:{name}:{line}"))
    }

    fn java_variable(&mut self, invocable: impl ToRef, kind: &str, name: &str, d: &str) -> EntityBuilder<'_> {
        let inv = self.r(invocable);
        let ik = self.keys.get(inv);
        let d = match &ik.disambiguator {
            Some(id) => format!("{id}#{d}"),
            None => d.to_owned(),
        };
        let key = Key::with_d(ik.module.clone(), ik.symbol.clone(), d);
        let r = self.keys.intern_owned(key);
        match self.entity_index(inv) {
            Some(i) => {
                let list = if kind == "parameter" {
                    &mut self.entities[i].parameters
                } else {
                    &mut self.entities[i].local_variables
                };
                list.get_or_insert_with(Vec::new).push(r);
            }
            None => {
                let id = self.keys.get(inv).render(&self.lang);
                self.problems.push(BuildError::Misuse(format!("{kind} {name} of undeclared {id}")));
            }
        }
        let mut e = self.entity(r, kind);
        e.traits(JAVA_VARIABLE_TRAITS).name(name).parent(inv);
        e
    }

    /// A lambda written at `line:col` inside `parent` (an invocable, or a type
    /// for a field initializer): `d` = `<file>:<line>:<col>` with the file of
    /// the nearest anchored ancestor, `s` = the symbol of the nearest
    /// enclosing type. `signature` = `(paramFQNs)`.
    pub fn java_lambda(&mut self, parent: impl ToRef, line: u32, col: u32, signature: &str) -> EntityBuilder<'_> {
        let parent = self.r(parent);
        let file = self.anchor_file_of(parent);
        let path = file.map(|f| self.files.list[f as usize].clone()).unwrap_or_default();
        if file.is_none() {
            let id = self.keys.get(parent).render(&self.lang);
            self.problems.push(BuildError::Misuse(format!("lambda in {id}: no anchored ancestor")));
        }
        let symbol = self.enclosing_type_symbol(parent);
        let module = self.keys.get(parent).module.clone();
        let mut e = self.entity(Key::with_d(module, symbol, format!("{path}:{line}:{col}")), "lambda");
        e.traits(JAVA_NAMELESS_INVOCABLE_TRAITS).signature(signature).parent(parent);
        e.entity().parameters = Some(Vec::new());
        e.entity().local_variables = Some(Vec::new());
        e
    }

    /// An anonymous class implementing `interface_fqn`, written at
    /// `line:col` inside `parent`: kind `lambda`, `signature` = `<FQN>()`.
    /// Its members are declared with `java_method(anon, …)` etc.
    pub fn java_anonymous_class(
        &mut self,
        parent: impl ToRef,
        line: u32,
        col: u32,
        interface_fqn: &str,
    ) -> EntityBuilder<'_> {
        self.java_lambda(parent, line, col, &format!("{interface_fqn}()"))
    }

    /// The key of member `member` (a name or `name(params)`) of `owner`.
    fn member_key(&self, owner: Ref, member: &str) -> Key {
        let ok = self.keys.get(owner);
        if ok.is_module() {
            Key::new(ok.module.clone(), member)
        } else if let Some(d) = &ok.disambiguator {
            Key::with_d(ok.module.clone(), ok.symbol.clone(), format!("{d}.{member}"))
        } else {
            Key::new(ok.module.clone(), format!("{}.{member}", ok.symbol))
        }
    }

    /// The anchor file of `r` or its nearest anchored ancestor.
    fn anchor_file_of(&self, mut r: Ref) -> Option<u32> {
        for _ in 0..10_000 {
            let e = &self.entities[self.entity_index(r)?];
            if let Some(a) = e.anchor {
                return Some(a.file);
            }
            r = e.parent?;
        }
        None
    }

    /// The symbol of the nearest type (or anonymous class) at or above `r`.
    fn enclosing_type_symbol(&self, r: Ref) -> String {
        let mut cur = r;
        for _ in 0..10_000 {
            let Some(i) = self.entity_index(cur) else {
                break;
            };
            let e = &self.entities[i];
            let kind = self.kinds.list[e.kind as usize].as_str();
            if kind == "lambda" || JAVA_TYPE_TRAITS.iter().any(|(k, _)| *k == kind) {
                return self.keys.get(cur).symbol.clone();
            }
            match e.parent {
                Some(p) => cur = p,
                None => break,
            }
        }
        self.keys.get(r).symbol.clone()
    }
}

struct Dict {
    kinds: Vec<String>,
    traits: Vec<String>,
    edges: Vec<String>,
    provenance: Vec<String>,
}

struct Plan {
    file_order: Vec<usize>,
    file_index: Vec<u32>,
    entity_order: Vec<u32>,
    /// Per key: its surrogate, or `NONE` if undeclared.
    surrogate: Vec<u32>,
    /// Per surrogate: the surrogate of its module entity.
    module_of: Vec<u32>,
    dict: Dict,
    kind_index: Vec<u32>,
    trait_index: Vec<u32>,
    edge_index: Vec<u32>,
    prov_index: Vec<u32>,
    /// Per entity index with derived `definedIn`: sorted file indices.
    child_files: HashMap<u32, Vec<u32>>,
    edge_order: Vec<u32>,
}

fn check_raw(raw: &str, what: &str, object: bool) -> Result<(), BuildError> {
    if raw.contains(['\n', '\r']) {
        return Err(BuildError::RawJson(what.to_owned(), "contains a line break".to_owned()));
    }
    let v: &serde_json::value::RawValue =
        serde_json::from_str(raw).map_err(|e| BuildError::RawJson(what.to_owned(), e.to_string()))?;
    if object && !v.get().trim_start().starts_with('{') {
        return Err(BuildError::RawJson(what.to_owned(), "not a JSON object".to_owned()));
    }
    Ok(())
}

fn write_str_array<S: AsRef<str>>(out: &mut String, items: &[S]) {
    out.push('[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_js_string(out, s.as_ref());
    }
    out.push(']');
}

fn write_num_array(out: &mut String, items: impl Iterator<Item = u32>) {
    out.push('[');
    for (i, n) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{n}");
    }
    out.push(']');
}

/// Sets the keys of one declared entity. Setters replace (lists: `push`-style
/// methods append). The plain setters never touch `tr`; [`doc`](Self::doc),
/// [`measure`](Self::measure), [`constant`](Self::constant) and
/// [`at`](Self::at) also add the licensing trait in [`JAVA_TRAIT_ORDER`].
pub struct EntityBuilder<'a> {
    b: &'a mut ModelBuilder,
    e: usize,
}

impl EntityBuilder<'_> {
    fn entity(&mut self) -> &mut Entity {
        &mut self.b.entities[self.e]
    }

    fn r(&mut self, key: impl ToRef) -> Ref {
        key.to_ref(&mut self.b.keys)
    }

    /// The handle of this entity.
    pub fn id(&self) -> Ref {
        self.b.entities[self.e].key
    }

    /// The natural key of this entity.
    pub fn key(&self) -> Key {
        self.b.keys.get(self.id()).clone()
    }

    /// `tr`, in the given order (replaces).
    pub fn traits(&mut self, names: &[&str]) -> &mut Self {
        let ids = names.iter().map(|n| self.b.traits.id(n)).collect();
        self.entity().traits = ids;
        self
    }

    /// Appends a trait to `tr` if absent.
    pub fn add_trait(&mut self, name: &str) -> &mut Self {
        let id = self.b.traits.id(name);
        let e = &mut self.b.entities[self.e];
        if !e.traits.contains(&id) {
            e.traits.push(id);
        }
        self
    }

    /// Inserts a trait if absent, at its place in [`JAVA_TRAIT_ORDER`].
    pub fn insert_trait(&mut self, name: &str) -> &mut Self {
        let id = self.b.traits.id(name);
        let rank = java_rank(name);
        let names = &self.b.traits.list;
        let e = &mut self.b.entities[self.e];
        if !e.traits.contains(&id) {
            let at = e.traits.iter().position(|&t| java_rank(&names[t as usize]) > rank).unwrap_or(e.traits.len());
            e.traits.insert(at, id);
        }
        self
    }

    pub fn name(&mut self, name: &str) -> &mut Self {
        self.entity().name = Some(name.to_owned());
        self
    }

    pub fn signature(&mut self, signature: &str) -> &mut Self {
        self.entity().signature = Some(signature.to_owned());
        self
    }

    pub fn declared_type(&mut self, r: impl ToRef) -> &mut Self {
        let r = self.r(r);
        self.entity().declared_type = Some(r);
        self
    }

    pub fn is_stub(&mut self, stub: bool) -> &mut Self {
        self.entity().is_stub = Some(stub);
        self
    }

    pub fn parent(&mut self, r: impl ToRef) -> &mut Self {
        let r = self.r(r);
        self.entity().parent = Some(r);
        self
    }

    pub fn attached_to(&mut self, r: impl ToRef) -> &mut Self {
        let r = self.r(r);
        self.entity().attached_to = Some(r);
        self
    }

    /// `parameters`, declaration order (replaces).
    pub fn parameters<R: ToRef>(&mut self, refs: impl IntoIterator<Item = R>) -> &mut Self {
        let v = refs.into_iter().map(|r| self.r(r)).collect();
        self.entity().parameters = Some(v);
        self
    }

    /// `localVariables` (replaces).
    pub fn local_variables<R: ToRef>(&mut self, refs: impl IntoIterator<Item = R>) -> &mut Self {
        let v = refs.into_iter().map(|r| self.r(r)).collect();
        self.entity().local_variables = Some(v);
        self
    }

    /// `definedIn` as file paths (written as sorted file indices).
    pub fn defined_in<S: AsRef<str>>(&mut self, paths: impl IntoIterator<Item = S>) -> &mut Self {
        let v = paths.into_iter().map(|p| self.b.files.id(p.as_ref())).collect();
        self.entity().defined_in = DefinedIn::Files(v);
        self
    }

    /// `definedIn` derived from the anchors of the entity's direct children.
    pub fn defined_in_children(&mut self) -> &mut Self {
        self.entity().defined_in = DefinedIn::FromChildren;
        self
    }

    /// `comments` (replaces).
    pub fn comments<S: Into<String>>(&mut self, comments: impl IntoIterator<Item = S>) -> &mut Self {
        self.entity().comments = Some(comments.into_iter().map(Into::into).collect());
        self
    }

    /// Appends one comment and inserts `TComment`.
    pub fn doc(&mut self, text: &str) -> &mut Self {
        self.entity().comments.get_or_insert_with(Vec::new).push(text.to_owned());
        self.insert_trait("TComment")
    }

    /// `metrics` (replaces; written key-sorted by UTF-16).
    pub fn metrics<S: AsRef<str>>(&mut self, metrics: impl IntoIterator<Item = (S, f64)>) -> &mut Self {
        let v = metrics.into_iter().map(|(n, x)| (self.b.metric_names.id(n.as_ref()), x)).collect();
        self.entity().metrics = Some(v);
        self
    }

    /// Sets one measure (replacing a previous value) and inserts `TMetrics`.
    pub fn measure(&mut self, name: &str, value: f64) -> &mut Self {
        let id = self.b.metric_names.id(name);
        let m = self.entity().metrics.get_or_insert_with(Vec::new);
        match m.iter_mut().find(|(n, _)| *n == id) {
            Some(slot) => slot.1 = value,
            None => m.push((id, value)),
        }
        self.insert_trait("TMetrics")
    }

    /// `value`.
    pub fn value<R: ToRef>(&mut self, literal: Literal<R>) -> &mut Self {
        let keys = &mut self.b.keys;
        let v = literal.map_refs(&mut |r| r.to_ref(keys));
        self.entity().value = Some(v);
        self
    }

    /// `value` plus `TWithValue`.
    pub fn constant<R: ToRef>(&mut self, literal: Literal<R>) -> &mut Self {
        self.value(literal);
        self.insert_trait("TWithValue")
    }

    pub fn space<S: Into<String>>(&mut self, space: impl IntoIterator<Item = S>) -> &mut Self {
        self.entity().space = Some(space.into_iter().map(Into::into).collect());
        self
    }

    /// `anchor` = `[file(path), start, end]`.
    pub fn anchor(&mut self, path: &str, start: u32, end: u32) -> &mut Self {
        let file = self.b.files.id(path);
        self.entity().anchor = Some(Anchor { file, start, end });
        self
    }

    /// `anchor` in the file of the nearest anchored ancestor, plus `TSourceAnchor`.
    pub fn at(&mut self, start: u32, end: u32) -> &mut Self {
        let parent = self.b.entities[self.e].parent;
        match parent.and_then(|p| self.b.anchor_file_of(p)) {
            Some(file) => self.entity().anchor = Some(Anchor { file, start, end }),
            None => {
                let id = self.key().render(&self.b.lang);
                self.b.problems.push(BuildError::Misuse(format!("`at` on {id}: no anchored ancestor")));
            }
        }
        self.insert_trait("TSourceAnchor")
    }

    /// An extension key with its raw JSON value (written after the known keys, sorted).
    pub fn extension(&mut self, name: &str, raw_json: &str) -> &mut Self {
        let e = self.entity();
        e.extensions.retain(|(n, _)| n != name);
        e.extensions.push((name.to_owned(), raw_json.to_owned()));
        self
    }
}

/// Sets the optional keys of one edge.
pub struct EdgeBuilder<'a> {
    b: &'a mut ModelBuilder,
    x: usize,
}

impl EdgeBuilder<'_> {
    fn edge(&mut self) -> &mut Edge {
        &mut self.b.edges[self.x]
    }

    /// `candidates` (dynamic dispatch).
    pub fn candidates<R: ToRef>(&mut self, refs: impl IntoIterator<Item = R>) -> &mut Self {
        let v: Vec<Ref> = refs.into_iter().map(|r| r.to_ref(&mut self.b.keys)).collect();
        self.edge().candidates = Some(v.into_boxed_slice());
        self
    }

    /// `isRead` / `isWrite` (access edges).
    pub fn access(&mut self, read: bool, write: bool) -> &mut Self {
        self.edge().access = Some((read, write));
        self
    }

    /// `arguments` (annotationUse edges).
    pub fn arguments<R: ToRef>(&mut self, arguments: Vec<NamedArgument<R>>) -> &mut Self {
        let keys = &mut self.b.keys;
        let v: Vec<NamedArgument<Ref>> = arguments
            .iter()
            .map(|a| NamedArgument { name: a.name.clone(), value: a.value.map_refs(&mut |r| r.to_ref(keys)) })
            .collect();
        self.edge().arguments = Some(v.into_boxed_slice());
        self
    }

    /// `sourceFile`.
    pub fn source_file(&mut self, path: &str) -> &mut Self {
        let f = self.b.files.id(path);
        self.edge().source_file = Some(f);
        self
    }
}

/// Small models that several crates' tests share.
pub mod examples {
    use super::ModelBuilder;

    /// The run fixture the run semantics are pinned on (this function and
    /// `crates/insights/tests/run.rs` are the reference): package `p`, class
    /// `T` with a field `total`, `getTotal` (a getter reading it), and calls
    /// f → g → h, plus h → f when `cycle`. Returns the model.jsonl text.
    pub fn pinned_run(cycle: bool) -> String {
        let mut b = ModelBuilder::new("java", "src");
        let p = b.java_package("p").id();
        let t = b.java_class(p, "T").anchor("p/T.java", 1, 40).id();
        let total = b.java_field(t, "total").at(2, 2).id();
        let get = b.java_method(t, "getTotal", &[]).measure("cyclomatic", 1.0).measure("sloc", 1.0).at(3, 3).id();
        b.edge("access", get, total, "declared", ("p/T.java", 3, 3)).access(true, false);
        let f = b.java_method(t, "f", &[]).measure("cyclomatic", 2.0).measure("sloc", 5.0).at(5, 10).id();
        let g = b.java_method(t, "g", &[]).measure("cyclomatic", 2.0).measure("sloc", 5.0).at(12, 17).id();
        let h = b.java_method(t, "h", &[]).measure("cyclomatic", 2.0).measure("sloc", 5.0).at(19, 24).id();
        b.edge("invocation", f, g, "declared", ("p/T.java", 6, 6));
        b.edge("invocation", g, h, "declared", ("p/T.java", 13, 13));
        if cycle {
            b.edge("invocation", h, f, "declared", ("p/T.java", 20, 20));
        }
        b.build().expect("the pinned run fixture is well formed")
    }
}
