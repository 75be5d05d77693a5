//! The name index: built once per model ([`ExploreIndex::build`]), kept by
//! its owner (the page keeps it beside the model) and shared by every
//! question. It knows which entities are symbols a map can show, their
//! names, qualified names, name / signature / comment terms, the optional
//! explanation terms, and which symbol encloses a file line.

use analyzer::CodeGraph;
use hashbrown::HashMap;
use model::Trait;
use serde::Serialize;

use crate::text::{segments, stem, text_terms};

/// "Absent" in `u32` slots.
pub(crate) const NONE: u32 = u32::MAX;
const NOT_A_SYMBOL: u8 = u8::MAX;

/// What a symbol of the map is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// A method, constructor or function (`TInvocable`).
    Operation,
    /// A class, interface, enum, annotation type (`TType`).
    Type,
    /// A field or property: a structural member of a type.
    Field,
    /// A package or namespace (`TModule`).
    Module,
}

impl Class {
    const ALL: [Class; 4] = [Class::Operation, Class::Type, Class::Field, Class::Module];

    /// How much a match on this kind of symbol counts.
    pub(crate) fn weight(self) -> f64 {
        match self {
            Class::Operation | Class::Type => 1.0,
            Class::Module => 0.8,
            Class::Field => 0.5,
        }
    }
}

/// Term → symbols (surrogates, ascending, distinct).
type Postings = HashMap<Box<str>, Vec<u32>>;

/// Where a term was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Channel {
    Name,
    Signature,
    Comment,
    Explanation,
}

/// The name index of one model (see the module docs). Owned: it borrows
/// nothing, so a Worker can keep it across questions; answering needs the
/// [`CodeGraph`] it was built from.
#[derive(Debug, Default)]
pub struct ExploreIndex {
    class: Vec<u8>,
    /// The nearest self-or-ancestor symbol of every entity (`NONE`: none).
    owner: Vec<u32>,
    /// Lowercase simple name → symbols.
    names: Postings,
    /// Lowercase dotted suffixes of qualified names (two segments or more;
    /// a module's whole path) → symbols. A module-qualified question
    /// (`com.acme.Order.total`) is looked up by its suffixes.
    qualified: Postings,
    name_terms: Postings,
    signature_terms: Postings,
    comment_terms: Postings,
    explanation_terms: Postings,
    explained: usize,
    /// File path → file index.
    files: HashMap<Box<str>, u32>,
    /// File index → path.
    paths: Vec<Box<str>>,
    /// Lowercase file name → files.
    basenames: Postings,
    /// Per file: `(start, end, symbol)`, by start, then the wider first.
    by_file: Vec<Vec<(u32, u32, u32)>>,
    symbols: usize,
}

fn push_distinct(map: &mut Postings, key: &str, symbol: u32) {
    let list = match map.get_mut(key) {
        Some(list) => list,
        None => map.entry(Box::from(key)).or_default(),
    };
    if list.last() != Some(&symbol) {
        list.push(symbol);
    }
}

/// The qualified name a map shows: the module path of a module, else the
/// symbol of the natural key without its parameter list
/// (`RentalService.finish`, `Fleet.Availability`, `Rental.status`).
pub fn qualified_name<'m>(graph: &CodeGraph<'m>, i: u32) -> &'m str {
    let e = graph.entity(i);
    if e.is_module_entity() {
        return e.module_path();
    }
    let s = e.symbol();
    match s.find('(') {
        Some(p) => &s[..p],
        None => s,
    }
}

fn classify(graph: &CodeGraph<'_>, i: u32) -> Option<Class> {
    let e = graph.entity(i);
    let mask = e.trait_mask();
    if mask.has(Trait::Module) {
        return (!e.is_stub() && e.is_module_entity()).then_some(Class::Module);
    }
    if graph.containing_module(i).is_some_and(|m| graph.is_stub(m))
        || graph.containing_type(i).is_some_and(|t| graph.is_stub(t))
    {
        return None;
    }
    if mask.has(Trait::Type) {
        return Some(Class::Type);
    }
    let parent_is_type = e.parent().is_some_and(|p| graph.has_trait(p, Trait::Type));
    if mask.has(Trait::Invocable) {
        return (e.kind() != "lambda").then_some(Class::Operation);
    }
    (mask.has(Trait::Structural) && parent_is_type).then_some(Class::Field)
}

impl ExploreIndex {
    /// Indexes the symbols of `graph`: one pass over the entities.
    pub fn build(graph: &CodeGraph<'_>) -> ExploreIndex {
        let model = graph.model();
        let n = model.entity_count();
        let class: Vec<u8> = (0..n)
            .map(|i| {
                classify(graph, i).map_or(NOT_A_SYMBOL, |c| Class::ALL.iter().position(|x| *x == c).unwrap() as u8)
            })
            .collect();
        let mut index = ExploreIndex {
            owner: analyzer::graph::nearest_self_or_ancestor(model, |i| class[i as usize] != NOT_A_SYMBOL),
            class,
            by_file: vec![Vec::new(); model.files().len()],
            ..ExploreIndex::default()
        };
        for (f, path) in model.files().iter().enumerate() {
            index.files.insert(path.as_str().into(), f as u32);
            index.paths.push(path.as_str().into());
            let base = path.rsplit('/').next().unwrap_or(path).to_lowercase();
            push_distinct(&mut index.basenames, &base, f as u32);
        }
        let mut terms: Vec<String> = Vec::new();
        let mut lower = String::new();
        for i in 0..n {
            let Some(class) = index.class(i) else { continue };
            index.symbols += 1;
            let e = graph.entity(i);
            let qualified = qualified_name(graph, i);
            // Simple names.
            let simple = match class {
                Class::Module => qualified.rsplit('.').next(),
                _ => e.name(),
            };
            if let Some(name) = simple {
                lower.clear();
                lower.push_str(&name.to_lowercase());
                push_distinct(&mut index.names, &lower, i);
            }
            // Dotted suffixes of two segments or more, and the module-qualified form.
            let lq = qualified.to_lowercase();
            let mut at = lq.len();
            while let Some(dot) = lq[..at].rfind('.') {
                let suffix = &lq[dot + 1..];
                if suffix.contains('.') {
                    push_distinct(&mut index.qualified, suffix, i);
                }
                at = dot;
            }
            if lq.contains('.') {
                push_distinct(&mut index.qualified, &lq, i);
            }
            // Terms of the name.
            terms.clear();
            let named = if class == Class::Module { Some(qualified) } else { e.name() };
            if let Some(name) = named {
                segments(name, |s| terms.push(stem(s)));
            }
            add_terms(&mut index.name_terms, &mut terms, i);
            // Terms of the signature's parameter list and of the declared type.
            if let Some(sig) = e.signature() {
                if let Some(p) = sig.find('(') {
                    for part in sig[p..].split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')) {
                        if let Some(last) = part.rsplit('.').next().filter(|s| !s.is_empty()) {
                            segments(last, |s| terms.push(stem(s)));
                        }
                    }
                }
            }
            if let Some(t) = e.declared_type().and_then(|t| graph.entity_name(t)) {
                segments(t, |s| terms.push(stem(s)));
            }
            terms.retain(|t| t.len() >= 3);
            add_terms(&mut index.signature_terms, &mut terms, i);
            if let Some(comments) = e.comments() {
                for c in comments {
                    text_terms(c, |t| terms.push(t));
                }
                add_terms(&mut index.comment_terms, &mut terms, i);
            }
            if class != Class::Module {
                if let Some(a) = e.anchor() {
                    if let Some(list) = index.by_file.get_mut(a.file as usize) {
                        list.push((a.start, a.end, i));
                    }
                }
            }
        }
        for list in &mut index.by_file {
            list.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        }
        index
    }

    /// Replaces the explanation terms with those of `texts` (`(id, text)`:
    /// record summaries, matched at a lower weight than names). Ids the graph
    /// does not know are skipped. Returns how many symbols got text.
    pub fn set_explanations<'t>(
        &mut self,
        graph: &CodeGraph<'_>,
        texts: impl IntoIterator<Item = (&'t str, &'t str)>,
    ) -> usize {
        let mut by_symbol: Vec<(u32, &str)> = texts
            .into_iter()
            .filter_map(|(id, text)| graph.index_of(id).filter(|&i| self.class(i).is_some()).map(|i| (i, text)))
            .collect();
        by_symbol.sort_by_key(|(i, _)| *i);
        self.explanation_terms.clear();
        let mut terms = Vec::new();
        let mut symbols = 0;
        let mut k = 0;
        while k < by_symbol.len() {
            let i = by_symbol[k].0;
            while k < by_symbol.len() && by_symbol[k].0 == i {
                text_terms(by_symbol[k].1, |t| terms.push(t));
                k += 1;
            }
            add_terms(&mut self.explanation_terms, &mut terms, i);
            symbols += 1;
        }
        self.explained = symbols;
        symbols
    }

    /// Number of symbols indexed.
    pub fn symbols(&self) -> usize {
        self.symbols
    }

    /// Number of symbols with explanation text.
    pub fn explained(&self) -> usize {
        self.explained
    }

    /// What entity `i` is on a map, if it is a symbol at all.
    pub fn class(&self, i: u32) -> Option<Class> {
        self.class.get(i as usize).and_then(|&c| Class::ALL.get(c as usize).copied())
    }

    /// The nearest self-or-ancestor symbol of entity `i`.
    pub(crate) fn owner(&self, i: u32) -> Option<u32> {
        self.owner.get(i as usize).copied().filter(|&o| o != NONE)
    }

    /// Symbols whose simple name is `lower` (lowercase).
    pub(crate) fn by_name(&self, lower: &str) -> &[u32] {
        self.names.get(lower).map_or(&[], Vec::as_slice)
    }

    /// Symbols whose qualified name ends with `lower` (dotted, lowercase).
    pub(crate) fn by_qualified(&self, lower: &str) -> &[u32] {
        self.qualified.get(lower).map_or(&[], Vec::as_slice)
    }

    /// Symbols with the stemmed term in a channel.
    pub(crate) fn by_term(&self, channel: Channel, term: &str) -> &[u32] {
        let map = match channel {
            Channel::Name => &self.name_terms,
            Channel::Signature => &self.signature_terms,
            Channel::Comment => &self.comment_terms,
            Channel::Explanation => &self.explanation_terms,
        };
        map.get(term).map_or(&[], Vec::as_slice)
    }

    /// Files of the model a path names: the exact path, else the files whose
    /// path ends with it at a `/` (case-insensitively).
    pub(crate) fn files_for(&self, path: &str) -> Vec<u32> {
        let path = path.trim_start_matches("./");
        if let Some(&f) = self.files.get(path) {
            return vec![f];
        }
        let lower = path.to_lowercase();
        let base = lower.rsplit('/').next().unwrap_or(&lower);
        let Some(candidates) = self.basenames.get(base) else { return Vec::new() };
        let suffix = format!("/{lower}");
        let mut out: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&f| {
                let p = self.paths[f as usize].to_lowercase();
                p == lower || p.ends_with(&suffix)
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// The innermost symbol whose anchor holds `line` of `file`, operations
    /// preferred over the type around them.
    pub(crate) fn innermost(&self, file: u32, line: u32) -> Option<u32> {
        let list = self.by_file.get(file as usize)?;
        let holding = list.iter().filter(|(s, e, _)| *s <= line && line <= *e);
        let best = |want_op: bool| {
            holding
                .clone()
                .filter(|(_, _, i)| !want_op || self.class(*i) == Some(Class::Operation))
                .min_by_key(|(s, e, i)| (e - s, *i))
                .map(|t| t.2)
        };
        best(true).or_else(|| best(false))
    }

    /// Symbols of `file` whose anchors start within `start..=end`.
    pub(crate) fn starting_in(&self, file: u32, start: u32, end: u32) -> Vec<u32> {
        self.by_file
            .get(file as usize)
            .map(|l| l.iter().filter(|(s, _, _)| (start..=end).contains(s)).map(|t| t.2).collect())
            .unwrap_or_default()
    }

    /// The outermost symbols of `file`: those no other symbol of the file encloses.
    pub(crate) fn top_level(&self, file: u32) -> Vec<u32> {
        let Some(list) = self.by_file.get(file as usize) else { return Vec::new() };
        let mut out = Vec::new();
        let mut reach = 0u32;
        for &(s, e, i) in list {
            if out.is_empty() || s > reach {
                out.push(i);
                reach = e;
            }
        }
        out
    }
}

fn add_terms(map: &mut Postings, terms: &mut Vec<String>, symbol: u32) {
    terms.sort_unstable();
    terms.dedup();
    for t in terms.drain(..) {
        push_distinct(map, &t, symbol);
    }
}
