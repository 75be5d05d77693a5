//! The map: what one answer holds (serde, for `--json` and the page), how
//! it is assembled from the gathered symbols and the graph, and how it is
//! fitted to its caps. Every capped list is a [`Listing`] that carries the
//! number of items it left out.

use analyzer::CodeGraph;
use model::EdgeKind;
use serde::Serialize;
use sources::SourceReader;

use crate::explanations::Explanations;
use crate::gather::{Gathered, Gatherer, Why};
use crate::index::{qualified_name, Class, ExploreIndex};
use crate::query::{parse, Mode};
use crate::relations::Relations;
use crate::text::first_sentence;
use insights::stale::Freshness;

/// `kind` of a map's JSON form.
pub const MAP_KIND: &str = "codegraph.exploreMap/1";
/// Characters of a one-line explanation, at most.
pub const EXPLANATION_CHARS: usize = 120;

/// The caps of a map: rows per list and characters per part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Caps {
    /// Characters of the map part (everything but source excerpts).
    pub map_chars: usize,
    /// Symbols listed; requested symbols are listed even beyond it.
    pub symbols: usize,
    /// Dispatch notes.
    pub dispatch: usize,
    /// Implementations named per dispatch note.
    pub implementations: usize,
    /// Symbols given a blast radius.
    pub blast_roots: usize,
    /// Dependents named per relation of a blast radius.
    pub blast_names: usize,
    /// Pairs per relationship kind.
    pub relationships_per_kind: usize,
    /// Lines of each excerpt in `snippets` mode.
    pub snippet_lines: usize,
    /// Characters of source excerpts (`snippets` and `source`).
    pub source_chars: usize,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            map_chars: 6_000,
            symbols: 12,
            dispatch: 3,
            implementations: 3,
            blast_roots: 5,
            blast_names: 4,
            relationships_per_kind: 6,
            snippet_lines: 12,
            source_chars: 16_000,
        }
    }
}

/// A capped list and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Listing<T> {
    pub items: Vec<T>,
    /// Items beyond the cap (`… and N more`).
    pub omitted: usize,
}

impl<T> Listing<T> {
    /// The first `cap` items; the rest are counted.
    pub fn capped(mut items: Vec<T>, cap: usize) -> Listing<T> {
        let omitted = items.len().saturating_sub(cap);
        items.truncate(cap);
        Listing { items, omitted }
    }
    /// Items shown plus items left out.
    pub fn total(&self) -> usize {
        self.items.len() + self.omitted
    }
}

/// A symbol as other sections point at it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SymbolRef {
    /// The rendered id.
    pub id: String,
    /// The qualified name (`RentalService.finish`).
    pub name: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// An explanation as a map shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExplanationLine {
    /// The first sentence of the record's description.
    pub text: String,
    /// Always true: written by a model, not read from the code.
    pub generated: bool,
    /// The one staleness verdict (`None`: not checked against a current
    /// plan); in JSON the word `current`, `stale` or `unchecked`.
    #[serde(serialize_with = "freshness_word")]
    pub freshness: Option<Freshness>,
}

/// `current`, `stale` or `unchecked`: how a map's JSON says it.
fn freshness_word<S: serde::Serializer>(f: &Option<Freshness>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match f {
        None => "unchecked",
        Some(f) if f.is_current() => "current",
        Some(_) => "stale",
    })
}

/// One listed symbol.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Symbol {
    #[serde(flatten)]
    pub at: SymbolRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    pub why: Why,
    /// The match score (absent for requested symbols).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<ExplanationLine>,
}

/// How a flow step is reached from the one before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hop {
    /// A call edge of the model.
    Calls,
    /// Not an edge: the step implements the method called before it; which
    /// implementation runs is decided at run time.
    Dispatch,
}

impl Hop {
    /// `calls` or `dispatch`, as the map's JSON says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Hop::Calls => "calls",
            Hop::Dispatch => "dispatch",
        }
    }
}

/// One step of the flow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlowStep {
    #[serde(flatten)]
    pub at: SymbolRef,
    /// How this step is reached (absent on the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<Hop>,
}

/// The call path among the named symbols.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flow {
    pub steps: Vec<FlowStep>,
    /// Other call paths found and not shown.
    pub other_paths: usize,
}

/// A call into a method with implementations: where the static graph ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DispatchNote {
    /// The listed operation making the call (absent: the method itself was asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller: Option<SymbolRef>,
    /// The method called, as the model records the call.
    pub callee: SymbolRef,
    /// The type declaring it.
    pub supertype: String,
    /// Types implementing it.
    pub types: usize,
    pub implementations: Listing<SymbolRef>,
}

/// How dependents depend on a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    Invokers,
    /// Invokers of a method this one implements or overrides: they reach it
    /// through dispatch, not through an edge to it.
    Dispatched,
    Readers,
    Writers,
    Subtypes,
    Implementers,
    Referrers,
    /// Callers of a type's constructors.
    Creators,
    Importers,
}

impl Relation {
    pub fn noun(self, n: usize) -> &'static str {
        let one = n == 1;
        match self {
            Relation::Invokers => ["invokers", "invoker"][one as usize],
            Relation::Dispatched => ["invokers", "invoker"][one as usize],
            Relation::Readers => ["readers", "reader"][one as usize],
            Relation::Writers => ["writers", "writer"][one as usize],
            Relation::Subtypes => ["subtypes", "subtype"][one as usize],
            Relation::Implementers => ["implementers", "implementer"][one as usize],
            Relation::Referrers => ["referring types", "referring type"][one as usize],
            Relation::Creators => ["constructor callers", "constructor caller"][one as usize],
            Relation::Importers => ["importing packages", "importing package"][one as usize],
        }
    }
}

/// Dependents of one relation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlastGroup {
    pub relation: Relation,
    /// For [`Relation::Dispatched`]: the method they call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub through: Option<String>,
    pub count: usize,
    /// Distinct files the dependents are in.
    pub files: usize,
    pub names: Listing<String>,
}

impl BlastGroup {
    /// `3 invokers through `X.run` in 2 files`: how the map says the group
    /// (the names not included), `quote` writing a name (backticks in
    /// Markdown, as it is in a page).
    pub fn label(&self, quote: impl Fn(&str) -> String) -> String {
        let through = self.through.as_ref().map(|t| format!(" through {}", quote(t))).unwrap_or_default();
        let files = if self.files > 1 { format!(" in {} files", self.files) } else { String::new() };
        format!("{} {}{through}{files}", self.count, self.relation.noun(self.count))
    }
}

/// The direct dependents of one symbol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blast {
    pub root: SymbolRef,
    pub groups: Vec<BlastGroup>,
}

/// One `from → to` pair, by qualified names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pair {
    pub from: String,
    pub to: String,
}

/// The pairs of one edge kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelationshipKind {
    /// The model's edge kind (`invocation`).
    pub kind: &'static str,
    /// How the map says it (`calls`).
    pub label: &'static str,
    pub pairs: Listing<Pair>,
}

/// Edges among the listed symbols, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Relationships {
    pub kinds: Vec<RelationshipKind>,
    /// Kinds left out entirely, and their pairs.
    pub kinds_omitted: usize,
    pub pairs_in_omitted_kinds: usize,
}

/// Why an excerpt stops early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cut {
    /// `snippets` shows the first lines only.
    Snippet,
    /// The source budget ran out.
    Budget,
}

/// Lines of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Excerpt {
    pub file: String,
    /// The symbol's lines.
    pub start: u32,
    pub end: u32,
    /// The last line shown.
    pub shown_end: u32,
    /// The listed symbols inside the lines shown.
    pub names: Vec<String>,
    /// Lines `start..=shown_end`, verbatim.
    pub text: String,
    pub omitted_lines: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

/// A symbol whose source is not shown, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotShown {
    pub name: String,
    pub file: String,
    pub start: u32,
    pub end: u32,
    pub reason: String,
}

/// The source part of `snippets` and `source`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSection {
    pub budget: usize,
    pub excerpts: Vec<Excerpt>,
    pub not_shown: Vec<NotShown>,
}

/// How many listed symbols carry an explanation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExplanationCounts {
    /// Explanations loaded for the model.
    pub loaded: usize,
    pub listed: usize,
    pub stale: usize,
    pub unchecked: usize,
}

/// The head of the map.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Symbols that matched (listed or not).
    pub matched: usize,
    /// Files they are in.
    pub files: usize,
    /// Names, anchors and paths of the question that resolve to nothing.
    pub not_found: Vec<String>,
    /// What else the reader should know (ambiguities, phrase searches, cuts).
    pub notes: Vec<String>,
    pub explanations: ExplanationCounts,
}

/// One answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExploreMap {
    pub kind: &'static str,
    /// The question, on one line, at most 160 characters.
    pub query: String,
    /// Characters of the question as asked.
    pub query_chars: usize,
    pub mode: Mode,
    pub summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow: Option<Flow>,
    pub symbols: Listing<Symbol>,
    /// Names of the first symbols not listed (for a follow-up question).
    pub more: Vec<String>,
    pub dispatch: Listing<DispatchNote>,
    pub blast_radius: Listing<Blast>,
    pub relationships: Relationships,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceSection>,
    /// Whether source text is loaded where the map is shown.
    pub source_loaded: bool,
    /// How to get one symbol's body where the map is shown (only with source).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_hint: Option<String>,
    pub caps: Caps,
}

/// A question and how to answer it.
#[derive(Clone, Debug, Default)]
pub struct Request<'q> {
    pub question: &'q str,
    /// The mode of the call: a URL parameter or a CLI flag.
    pub flag: Option<Mode>,
    /// The user's or project's setting.
    pub setting: Option<Mode>,
    pub caps: Caps,
    /// How a reader gets one symbol's body where the map is shown; `{name}`
    /// is replaced by a listed symbol's name. Shown only when source is loaded.
    pub body_hint: Option<String>,
}

/// Names of the first symbols not listed.
const MORE_NAMES: usize = 5;

/// Everything one answer reads: the graph, its index, the source (if any)
/// and the explanations. Pure: no I/O beyond the [`SourceReader`] port.
pub struct Explorer<'a, 'm> {
    pub graph: &'a CodeGraph<'m>,
    pub index: &'a ExploreIndex,
    pub sources: Option<&'a dyn SourceReader>,
    pub explanations: &'a dyn Explanations,
}

impl Explorer<'_, '_> {
    /// Answers one question with a map fitted to `request.caps`.
    pub fn answer(&self, request: &Request<'_>) -> ExploreMap {
        let q = parse(request.question);
        let mode = Mode::resolve(q.mode, request.flag, request.setting);
        let gathered = Gatherer { graph: self.graph, index: self.index, sources: self.sources }.gather(&q);
        let mut map = self.assemble(&gathered, mode, request);
        map.query = q.echo;
        map.query_chars = q.chars;
        crate::render::fit(&mut map);
        map
    }

    fn symbol_ref(&self, i: u32) -> SymbolRef {
        let e = self.graph.entity(i);
        let anchor = e.anchor();
        SymbolRef {
            id: self.graph.id(i).to_string(),
            name: qualified_name(self.graph, i).to_owned(),
            kind: e.kind().to_owned(),
            file: anchor.map(|a| self.graph.file(a.file).to_string()),
            line: anchor.map(|a| a.start),
        }
    }

    fn assemble(&self, g: &Gathered, mode: Mode, request: &Request<'_>) -> ExploreMap {
        let caps = request.caps;
        let requested = g.ranked.iter().filter(|r| r.why.requested()).count();
        let listed_n = requested.max(caps.symbols).min(g.ranked.len());
        let listed = &g.ranked[..listed_n];
        let mut counts = ExplanationCounts { loaded: self.explanations.count(), ..ExplanationCounts::default() };
        let symbols: Vec<Symbol> = listed
            .iter()
            .map(|r| {
                let explanation = self.explanations.explanation(self.graph.id(r.entity)).map(|x| {
                    counts.listed += 1;
                    match &x.freshness {
                        None => counts.unchecked += 1,
                        Some(f) if !f.is_current() => counts.stale += 1,
                        Some(_) => {}
                    }
                    ExplanationLine {
                        text: first_sentence(&x.description, EXPLANATION_CHARS),
                        generated: true,
                        freshness: x.freshness,
                    }
                });
                Symbol {
                    at: self.symbol_ref(r.entity),
                    end_line: self.graph.entity(r.entity).anchor().map(|a| a.end),
                    signature: signature(self.graph, self.index, r.entity),
                    why: r.why,
                    score: (!r.why.requested()).then(|| (r.score * 100.0).round() / 100.0),
                    explanation,
                }
            })
            .collect();
        let more: Vec<String> = g.ranked[listed_n..]
            .iter()
            .take(MORE_NAMES)
            .map(|r| qualified_name(self.graph, r.entity).to_owned())
            .collect();
        let rel = Relations::new(self.graph, self.index);
        let is_op = |i: u32| self.index.class(i) == Some(Class::Operation);

        // The flow: among the requested operations, or else the best matched ones.
        let mut named: Vec<u32> =
            listed.iter().filter(|r| r.why.requested() && is_op(r.entity)).map(|r| r.entity).collect();
        if named.is_empty() {
            named.extend(listed.iter().filter(|r| r.why == Why::Match && is_op(r.entity)).map(|r| r.entity).take(8));
        }
        let flow = rel.flow(&named).map(|(chain, others)| Flow {
            steps: chain.into_iter().map(|(i, via)| FlowStep { at: self.symbol_ref(i), via }).collect(),
            other_paths: others,
        });

        // Dispatch: calls from the flow and the listed operations.
        let mut ops: Vec<(u32, bool)> =
            listed.iter().filter(|r| r.why.requested() && is_op(r.entity)).map(|r| (r.entity, true)).collect();
        for s in flow.iter().flat_map(|f| &f.steps) {
            if let Some(i) = self.graph.index_of(&s.at.id) {
                ops.push((i, false));
            }
        }
        ops.extend(listed.iter().filter(|r| !r.why.requested() && is_op(r.entity)).map(|r| (r.entity, false)));
        let notes: Vec<DispatchNote> = rel
            .dispatch(&ops)
            .into_iter()
            .map(|(caller, callee)| {
                let o = rel.overrides(callee);
                DispatchNote {
                    caller: caller.map(|c| self.symbol_ref(c)),
                    callee: self.symbol_ref(callee),
                    supertype: o.supertype.map(|t| qualified_name(self.graph, t).to_owned()).unwrap_or_default(),
                    types: o.types,
                    implementations: Listing::capped(
                        o.methods.iter().map(|&m| self.symbol_ref(m)).collect(),
                        caps.implementations,
                    ),
                }
            })
            .collect();

        // Blast radius: requested symbols first (they lead the list).
        let blasts: Vec<Blast> = listed
            .iter()
            .map(|r| {
                let groups = rel
                    .dependents(r.entity)
                    .into_iter()
                    .map(|(found, list)| {
                        let (relation, through) = match found {
                            crate::relations::Found::Through(base) => (Relation::Dispatched, Some(rel.name(base))),
                            crate::relations::Found::Plain(r) => (r, None),
                        };
                        let files: hashbrown::HashSet<u32> =
                            list.iter().filter_map(|&d| self.graph.entity(d).anchor().map(|a| a.file)).collect();
                        let count = list.len();
                        BlastGroup {
                            relation,
                            through,
                            count,
                            files: files.len(),
                            names: Listing::capped(list.iter().map(|&d| rel.name(d)).collect(), caps.blast_names),
                        }
                    })
                    .collect();
                Blast { root: self.symbol_ref(r.entity), groups }
            })
            .collect();

        // Relationships among the listed symbols.
        let listed_ids: Vec<u32> = listed.iter().map(|r| r.entity).collect();
        let relationships = Relationships {
            kinds: rel
                .among(&listed_ids)
                .into_iter()
                .map(|(kind, pairs)| relationship_kind(kind, &rel, pairs, caps.relationships_per_kind))
                .collect(),
            ..Relationships::default()
        };

        let source = match (mode, self.sources) {
            (Mode::Map, _) | (_, None) => None,
            (_, Some(reader)) => {
                let names: Vec<(u32, String)> = listed.iter().map(|r| (r.entity, rel.name(r.entity))).collect();
                Some(crate::source::excerpts(self.graph, self.index, reader, &names, mode, &caps))
            }
        };
        let mut notes_out = g.notes.clone();
        if mode != Mode::Map && self.sources.is_none() {
            notes_out.push(format!("{} mode shows source, but no source is loaded here", mode.as_str()));
        }
        let body_hint = match (self.sources, &request.body_hint) {
            (Some(_), Some(hint)) => {
                let example = symbols.first().map_or("NAME", |s| s.at.name.as_str());
                Some(hint.replace("{name}", example))
            }
            _ => None,
        };
        ExploreMap {
            kind: MAP_KIND,
            query: String::new(),
            query_chars: 0,
            mode,
            summary: Summary {
                matched: g.matched,
                files: g.files,
                not_found: g.not_found.clone(),
                notes: notes_out,
                explanations: counts,
            },
            flow,
            symbols: Listing { omitted: g.matched - symbols.len(), items: symbols },
            more,
            dispatch: Listing::capped(notes, caps.dispatch),
            blast_radius: Listing::capped(blasts, caps.blast_roots),
            relationships,
            source,
            source_loaded: self.sources.is_some(),
            body_hint,
            caps,
        }
    }
}

fn relationship_kind(kind: EdgeKind, rel: &Relations<'_, '_>, pairs: Vec<(u32, u32)>, cap: usize) -> RelationshipKind {
    RelationshipKind {
        kind: kind.as_str(),
        label: crate::relations::label(kind),
        pairs: Listing::capped(
            pairs.into_iter().map(|(a, b)| Pair { from: rel.name(a), to: rel.name(b) }).collect(),
            cap,
        ),
    }
}

/// `java.util.Map<java.lang.String,Foo>` → `Map<String, Foo>`.
fn simple_types(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.rsplit('.').next().unwrap_or(word));
        word.clear();
    };
    for c in s.chars() {
        if c.is_alphanumeric() || c == '_' || c == '$' || c == '.' {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        out.push(c);
        if c == ',' {
            out.push(' ');
        }
    }
    flush(&mut word, &mut out);
    out
}

/// What a map row says after the name: an operation's parameter and return
/// types, a field's type, a type's supertypes.
fn signature(graph: &CodeGraph<'_>, index: &ExploreIndex, i: u32) -> Option<String> {
    let e = graph.entity(i);
    let type_name = |t: u32| graph.entity_name(t).map(str::to_owned);
    match index.class(i)? {
        Class::Operation => {
            let sig = e.signature()?;
            let (name, params) = sig.split_at(sig.find('(').unwrap_or(sig.len()));
            let name =
                if name == "<init>" { e.parent().and_then(|p| graph.entity_name(p)).unwrap_or(name) } else { name };
            let mut out = format!("{name}{}", simple_types(params));
            if let Some(t) = e.declared_type().and_then(type_name) {
                out.push_str(": ");
                out.push_str(&t);
            }
            Some(out)
        }
        Class::Field => e.declared_type().and_then(type_name).map(|t| format!("{}: {t}", e.name().unwrap_or("?"))),
        Class::Type => {
            let edges = graph.model().edges();
            let supers = |kind: EdgeKind| -> Vec<String> {
                graph
                    .outgoing_of_kind(i, kind)
                    .filter_map(|x| type_name(edges[x as usize].to))
                    .filter(|n| n != "Object")
                    .collect()
            };
            let mut parts = Vec::new();
            let extends = supers(EdgeKind::Inheritance);
            if !extends.is_empty() {
                parts.push(format!("extends {}", extends.join(", ")));
            }
            let implements = supers(EdgeKind::InterfaceImplementation);
            if !implements.is_empty() {
                parts.push(format!("implements {}", implements.join(", ")));
            }
            (!parts.is_empty()).then(|| parts.join(" "))
        }
        Class::Module => None,
    }
}
