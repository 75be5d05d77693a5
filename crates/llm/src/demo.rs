//! The offline demo: answers every request with a block written from the
//! facts of the model ([`Corpus`]: the analyzer's facts the planner already
//! computed), never from the prompt's text. For an operation it says what it
//! calls and who calls it, which fields it reads and writes and what it
//! throws; for a type its kind, supertypes, fields and their types, its
//! operations and the types it depends on and that depend on it; for a module
//! the types it holds and the modules it imports from and that import from
//! it. Every description starts with [`DEMO_LABEL`]; every sentence says only
//! what the model records. No network, no clock, no randomness; works in a
//! browser.

use std::cell::OnceCell;
use std::collections::HashMap;

use analyzer::fold::{type_dependency_graph, FoldedGraph};
use analyzer::Id;
use insights::blocks::{Block, FieldBlock, ModuleBlock, OperationBlock, TypeBlock};
use insights::complete::{Asking, Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
use insights::units::Corpus;
use insights::vocab::{DomainConcept, FieldKind, Level, OperationOwner};
use model::Trait;
use serde_json::{json, Value};

/// `Completion.model` of every demo answer.
pub const DEMO_MODEL: &str = "demo";
/// How every demo description starts.
/// (It ends in a colon, not a full stop: views that show a description's
/// first sentence show the label and the first fact together.)
pub const DEMO_LABEL: &str = "Written from the code's facts, not by an LLM:";
/// The confidence of every demo block: low, because the demo restates what
/// the model records and reads no source or intent.
pub const DEMO_CONFIDENCE: f64 = 0.1;
/// How every [`placeholder_answer`] description starts.
pub const PLACEHOLDER_MARK: &str = "[placeholder — not written by an LLM]";

/// The most names one list of a description shows; the rest are counted.
pub const MAX_LISTED: usize = 6;

/// A [`Completer`] that needs no provider: it answers from `corpus`, the
/// facts the run's plan was made from. Its indexes (callers, the type
/// dependency graph, importers) are built once, on the first answer.
pub struct DemoCompleter<'c> {
    corpus: &'c Corpus<'c>,
    index: OnceCell<Index>,
}

/// What the facts say only the other way round.
struct Index {
    /// Callee id → the operation units calling it, in id order.
    callers: HashMap<Id, Vec<Id>>,
    /// The folded type dependency graph of the corpus's view.
    types: FoldedGraph,
    /// Module id → the corpus modules importing from it, in id order.
    importers: HashMap<Id, Vec<Id>>,
}

impl<'c> DemoCompleter<'c> {
    /// The demo over `corpus` (cheap: nothing is computed before an answer).
    pub fn new(corpus: &'c Corpus<'c>) -> Self {
        DemoCompleter { corpus, index: OnceCell::new() }
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(self.corpus))
    }

    /// The demo's answer to what is asked: a block, or `{members: [{id, block}]}`
    /// for a cycle.
    pub fn answer(&self, asking: &Asking) -> Value {
        let to_value = |b: Block| serde_json::to_value(b).expect("blocks always serialize");
        if asking.cycle {
            json!({
                "members": asking.members.iter().map(|id| json!({"id": id, "block": to_value(self.block(asking.level, id, &asking.members))})).collect::<Vec<_>>()
            })
        } else {
            let id = asking.members.first().unwrap_or(&asking.unit);
            to_value(self.block(asking.level, id, &[]))
        }
    }

    /// The block of `level` for `id`, written from its facts; `cycle` holds
    /// the ids asked together with it when they form a dependency cycle.
    pub fn block(&self, level: Level, id: &str, cycle: &[String]) -> Block {
        let known = match level {
            Level::Operation => self.operation_block(id, cycle),
            Level::Type => self.type_block(id, cycle),
            Level::Module => self.module_block(id, cycle),
        };
        known.unwrap_or_else(|| unknown_block(level, id))
    }

    fn operation_block(&self, id: &str, cycle: &[String]) -> Option<Block> {
        let c = self.corpus;
        let (op, d) = c.operation(id)?;
        let owner = d.name.as_deref().unwrap_or(&d.id);
        let name = match (&op.name, &*op.kind) {
            (Some(n), _) => n.to_string(),
            (None, "constructor") => owner.to_owned(),
            (None, _) => op.id.to_string(),
        };
        let mut s = Vec::new();
        let subject = match &*op.kind {
            "constructor" => format!("The constructor of `{owner}`"),
            kind => format!("The {kind} `{name}` of `{owner}`"),
        };

        let (mut inside, mut outside) = (Vec::new(), Vec::new());
        for i in &op.invocations {
            let label = format!("`{}`", self.operation_label(&i.to));
            let list = if i.external { &mut outside } else { &mut inside };
            if !list.contains(&label) {
                list.push(label);
            }
        }
        let calls = match (inside.is_empty(), outside.is_empty()) {
            (true, true) => "makes no call the model records".to_owned(),
            (false, true) => format!("calls {}", names(&inside)),
            (true, false) => format!("calls only outside the code base, into {}", names(&outside)),
            (false, false) => {
                format!("calls {}, and calls into {} outside the code base", names(&inside), names(&outside))
            }
        };
        let callers: Vec<String> = self
            .index()
            .callers
            .get(&op.id)
            .map(|v| {
                v.iter().filter(|caller| **caller != op.id).map(|o| format!("`{}`", self.operation_label(o))).collect()
            })
            .unwrap_or_default();
        let called = if callers.is_empty() {
            "no operation of the model calls it directly".to_owned()
        } else {
            format!("it is called by {}", names(&callers))
        };
        s.push(format!("{subject} {calls}; {called}."));

        let field = |a: &analyzer::facts::AccessFact| {
            let f = a.field.as_deref().unwrap_or(&a.to);
            match (&a.owner_type, &a.owner_type_name) {
                (Some(t), Some(n)) if *t != d.id => format!("`{n}.{f}`"),
                _ => format!("`{f}`"),
            }
        };
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        for a in &op.accesses {
            let label = field(a);
            if a.is_read && !reads.contains(&label) {
                reads.push(label.clone());
            }
            if a.is_write && !writes.contains(&label) {
                writes.push(label);
            }
        }
        let mut throws: Vec<String> = Vec::new();
        for t in &op.throws {
            let label = format!("`{}`", t.name.as_deref().unwrap_or(&t.to));
            if !throws.contains(&label) {
                throws.push(label);
            }
        }
        match (reads.is_empty(), writes.is_empty()) {
            (true, true) => {}
            (false, true) => s.push(format!("It reads {} {}.", fields(reads.len()), names(&reads))),
            (true, false) => s.push(format!("It writes {} {}.", fields(writes.len()), names(&writes))),
            (false, false) => s.push(format!(
                "It reads {} {} and writes {} {}.",
                fields(reads.len()),
                names(&reads),
                fields(writes.len()),
                names(&writes)
            )),
        }
        if !throws.is_empty() {
            s.push(format!("It throws {}.", names(&throws)));
        } else if reads.is_empty() && writes.is_empty() {
            s.push("The model records no field access and no throw in it.".to_owned());
        }
        if let Some(m) = &d.module {
            let noun = kind_noun(&d.kind);
            s.push(format!("`{owner}` is {} {noun} in the module `{}`.", article(noun), c.display_name(m)));
        }
        if let Some(line) = self.cycle_sentence(Level::Operation, id, cycle) {
            s.push(line);
        }
        Some(Block::Operation(OperationBlock {
            // Read-only only when the model records no write and no call at all.
            safe: writes.is_empty() && op.invocations.is_empty(),
            ..empty_operation(name, description(&s), DEMO_CONFIDENCE)
        }))
    }

    fn type_block(&self, id: &str, cycle: &[String]) -> Option<Block> {
        let c = self.corpus;
        let d = c.dossier(id)?;
        let name = d.name.as_deref().unwrap_or(&d.id).to_owned();
        let mut s = Vec::new();
        let supers = |relation: analyzer::facts::Relation| -> Vec<String> {
            d.supertypes
                .iter()
                .filter(|t| t.relation == relation)
                .map(|t| format!("`{}`", t.name.as_deref().unwrap_or(&t.to)))
                .collect()
        };
        let extends = supers(analyzer::facts::Relation::Inheritance);
        let implements = supers(analyzer::facts::Relation::InterfaceImplementation);
        let noun = kind_noun(&d.kind);
        let mut head = format!("`{name}` is {} {noun}{}", article(noun), in_module(c, d.module.as_deref()));
        match (extends.is_empty(), implements.is_empty()) {
            (true, true) => {}
            (false, true) => head.push_str(&format!(" that extends {}", names(&extends))),
            (true, false) => head.push_str(&format!(" that implements {}", names(&implements))),
            (false, false) => {
                head.push_str(&format!(" that extends {} and implements {}", names(&extends), names(&implements)))
            }
        }
        s.push(format!("{head}."));

        let listed: Vec<String> = d
            .fields
            .iter()
            .map(|f| {
                let n = f.name.as_deref().unwrap_or(&f.id);
                match &f.declared_type_name {
                    Some(t) => format!("`{n}: {t}`"),
                    None => format!("`{n}`"),
                }
            })
            .collect();
        s.push(if listed.is_empty() {
            "The model records no field of it.".to_owned()
        } else {
            format!("Its {} {}.", if listed.len() == 1 { "field is" } else { "fields are" }, names(&listed))
        });

        let ops: Vec<_> = d.operations.iter().filter(|o| c.operation(&o.id).is_some()).collect();
        let mut methods: Vec<String> = Vec::new();
        let mut constructors = 0usize;
        let mut others = 0usize;
        for o in &ops {
            match (&*o.kind, &o.name) {
                ("constructor", _) => constructors += 1,
                ("method", Some(n)) => {
                    let label = format!("`{n}`");
                    if !methods.contains(&label) {
                        methods.push(label);
                    }
                }
                _ => others += 1,
            }
        }
        let mut parts = Vec::new();
        if !methods.is_empty() {
            parts.push(format!(
                "{} {}",
                if methods.len() == 1 { "its method is" } else { "its methods are" },
                names(&methods)
            ));
        }
        if constructors > 0 {
            parts.push(format!("it has {}", count(constructors, "constructor")));
        }
        if others > 0 {
            parts.push(format!("it has {} of other kinds", count(others, "operation")));
        }
        s.push(if parts.is_empty() {
            "The model records no operation of it.".to_owned()
        } else {
            format!("{}.", capitalized(&parts.join("; ")))
        });

        let index = self.index();
        let typed = |ids: Vec<&Id>| -> Vec<String> {
            ids.into_iter()
                .filter(|t| ***t != *d.id)
                .filter_map(|t| c.dossier(t))
                .map(|t| format!("`{}`", t.name.as_deref().unwrap_or(&t.id)))
                .collect()
        };
        let uses = typed(index.types.dependencies_of(&d.id));
        let used_by = typed(index.types.dependents_of(&d.id));
        let uses = if uses.is_empty() {
            "it depends on no other type of the code base".to_owned()
        } else {
            format!("within the code base it depends on {}", names(&uses))
        };
        let used_by = if used_by.is_empty() {
            "no other type of the code base depends on it".to_owned()
        } else {
            format!("{} {} on it", names(&used_by), if used_by.len() == 1 { "depends" } else { "depend" })
        };
        s.push(format!("{}; {used_by}.", capitalized(&uses)));
        if let Some(line) = self.cycle_sentence(Level::Type, id, cycle) {
            s.push(line);
        }
        Some(Block::Type(TypeBlock {
            fields: d
                .fields
                .iter()
                .map(|f| FieldBlock {
                    name: f.name.as_deref().unwrap_or(&f.id).to_owned(),
                    type_: f.declared_type_name.as_deref().unwrap_or("unknown").to_owned(),
                    kind: match f.declared_type_kind.as_deref() {
                        Some("enum") => FieldKind::Enum,
                        _ => FieldKind::Unknown,
                    },
                })
                .collect(),
            ..empty_type(name, description(&s), DEMO_CONFIDENCE)
        }))
    }

    fn module_block(&self, id: &str, cycle: &[String]) -> Option<Block> {
        let c = self.corpus;
        let m = c.module_fact(id)?;
        let name = m.name.as_deref().unwrap_or(&m.id).to_owned();
        let mut s = Vec::new();
        let types: Vec<String> = m
            .types
            .iter()
            .filter_map(|t| c.dossier(t))
            .map(|t| format!("`{}`", t.name.as_deref().unwrap_or(&t.id)))
            .collect();
        s.push(if types.is_empty() {
            format!("The model places no type in the module `{name}`.")
        } else {
            format!("The module `{name}` holds {}: {}.", count(types.len(), "type"), names(&types))
        });
        let (mut inside, mut outside) = (Vec::new(), Vec::new());
        for i in m.imports.iter().filter(|i| i.to != m.id) {
            let label = format!("`{}`", i.name.as_deref().unwrap_or(&i.to));
            if i.external {
                outside.push(label);
            } else {
                inside.push(label);
            }
        }
        s.push(match (inside.is_empty(), outside.is_empty()) {
            (true, true) => "The model records no import from another module.".to_owned(),
            (false, true) => format!("It imports from {}.", names(&inside)),
            (true, false) => format!("It imports only from outside the code base: {}.", names(&outside)),
            (false, false) => {
                format!("It imports from {}, and from {} outside the code base.", names(&inside), names(&outside))
            }
        });
        let importers: Vec<String> = self
            .index()
            .importers
            .get(&m.id)
            .map(|v| v.iter().map(|i| format!("`{}`", c.display_name(i))).collect())
            .unwrap_or_default();
        s.push(match importers.len() {
            0 => "No other module of the model imports from it.".to_owned(),
            1 => format!("The module {} imports from it.", names(&importers)),
            _ => format!("The modules {} import from it.", names(&importers)),
        });
        if let Some(line) = self.cycle_sentence(Level::Module, id, cycle) {
            s.push(line);
        }
        Some(Block::Module(ModuleBlock {
            depends_on: m
                .imports
                .iter()
                .filter(|i| i.to != m.id)
                .map(|i| i.name.as_deref().unwrap_or(&i.to).to_owned())
                .collect(),
            ..empty_module(name, description(&s), DEMO_CONFIDENCE)
        }))
    }

    /// "It is in a dependency cycle with …" for a member asked with others.
    fn cycle_sentence(&self, level: Level, id: &str, cycle: &[String]) -> Option<String> {
        let others: Vec<String> =
            cycle.iter().filter(|m| *m != id).map(|m| format!("`{}`", self.label(level, m))).collect();
        (!others.is_empty()).then(|| format!("It is in a dependency cycle with {}.", names(&others)))
    }

    /// How a description names a unit member of `level`.
    fn label(&self, level: Level, id: &str) -> String {
        match level {
            Level::Operation => self.operation_label(id),
            Level::Type | Level::Module => self.corpus.display_name(id),
        }
    }

    /// `Owner.name`, `new Owner` for a constructor, a type's name for a call
    /// to a type; the id when the model has no such entity.
    fn operation_label(&self, id: &str) -> String {
        let g = &self.corpus.graph;
        let Some(i) = g.index_of(id) else { return id.to_owned() };
        let owner = g.containing_type(i);
        let owner_name = owner.map(|t| g.display_name(t).to_owned());
        if g.has_trait(i, Trait::Type) {
            return g.display_name(i).to_owned();
        }
        match (g.kind(i), g.entity_name(i), owner_name) {
            ("constructor", _, Some(o)) => format!("new {o}"),
            (_, Some(n), Some(o)) => format!("{o}.{n}"),
            (_, Some(n), None) => n.to_owned(),
            (_, None, _) => id.to_owned(),
        }
    }
}

impl Index {
    fn build(corpus: &Corpus<'_>) -> Index {
        let g = &corpus.graph;
        let mut callers: HashMap<Id, Vec<Id>> = HashMap::new();
        for d in &corpus.facts.types {
            // Lambdas are not units: their calls are their operation's already.
            for op in d.operations.iter().filter(|o| corpus.operation(&o.id).is_some()) {
                for i in &op.invocations {
                    callers.entry(i.to.clone()).or_default().push(op.id.clone());
                }
            }
        }
        let rank = |id: &Id| g.index_of(id).map_or(u32::MAX, |i| g.rank(i));
        for v in callers.values_mut() {
            v.sort_by_key(rank);
            v.dedup();
        }
        let mut importers: HashMap<Id, Vec<Id>> = HashMap::new();
        // Modules are sorted by id, so every list is too.
        for m in &corpus.facts.modules {
            for i in m.imports.iter().filter(|i| !i.external && i.to != m.id) {
                let list = importers.entry(i.to.clone()).or_default();
                if list.last() != Some(&m.id) {
                    list.push(m.id.clone());
                }
            }
        }
        Index { callers, types: type_dependency_graph(g, &corpus.view), importers }
    }
}

impl Completer for DemoCompleter<'_> {
    fn name(&self) -> String {
        DEMO_MODEL.into()
    }

    fn complete(&self, request: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        let json = self.answer(&request.asking);
        Box::pin(std::future::ready(Ok::<_, CompletionError>(Completion {
            json,
            model: DEMO_MODEL.into(),
            usage: None,
        })))
    }
}

/// "a" or "an" before a kind word.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// "class", "interface", "annotation type", …
fn kind_noun(kind: &str) -> &str {
    match kind {
        "annotation" => "annotation type",
        k => k,
    }
}

fn in_module(c: &Corpus<'_>, module: Option<&str>) -> String {
    module.map(|m| format!(" in the module `{}`", c.display_name(m))).unwrap_or_default()
}

fn fields(n: usize) -> &'static str {
    if n == 1 {
        "the field"
    } else {
        "the fields"
    }
}

fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `a`, `b` and `c`; past [`MAX_LISTED`]: the first ones "and N more".
fn names(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        _ if items.len() > MAX_LISTED => {
            format!("{} and {} more", items[..MAX_LISTED].join(", "), items.len() - MAX_LISTED)
        }
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn description(sentences: &[String]) -> String {
    let mut out = DEMO_LABEL.to_owned();
    for s in sentences {
        out.push(' ');
        out.push_str(s);
    }
    out
}

/// A unit the corpus has no facts of (never for the units of its own plan).
fn unknown_block(level: Level, id: &str) -> Block {
    let description = description(&[
        format!("The model given to the demo holds no facts of the {} `{id}`.", level.as_str()),
        "Nothing more can be said of it offline.".to_owned(),
    ]);
    empty_block(level, name_of(id), description, DEMO_CONFIDENCE)
}

/// A readable name from an id: the member after `#` (without parameters),
/// else the last path segment.
pub fn name_of(id: &str) -> String {
    let name = match id.rsplit_once('#') {
        Some((_, member)) => member.split('(').next().unwrap_or(member),
        None => id.rsplit(['/', ':']).next().unwrap_or(id),
    };
    if name.trim().is_empty() {
        id.to_owned()
    } else {
        name.trim().to_owned()
    }
}

/// A block of `level` with every list empty, every nullable null and
/// `unknown` where a choice is required.
fn empty_block(level: Level, name: String, description: String, confidence: f64) -> Block {
    match level {
        Level::Operation => Block::Operation(empty_operation(name, description, confidence)),
        Level::Type => Block::Type(empty_type(name, description, confidence)),
        Level::Module => Block::Module(empty_module(name, description, confidence)),
    }
}

/// [`empty_block`] of an operation: what the fact-written blocks start from.
fn empty_operation(name: String, description: String, confidence: f64) -> OperationBlock {
    OperationBlock {
        name,
        description,
        safe: false,
        idempotent: None,
        owner: OperationOwner::Unknown,
        handles_command: None,
        emits: vec![],
        preconditions: vec![],
        postconditions: vec![],
        invariants_enforced: vec![],
        uses_spi: vec![],
        domain_terms: vec![],
        confidence,
    }
}

fn empty_type(name: String, description: String, confidence: f64) -> TypeBlock {
    TypeBlock {
        name,
        description,
        concept: DomainConcept::Unknown,
        event_kind: None,
        interface_role: None,
        aggregate_root: None,
        contained_in: None,
        sync_pattern: None,
        identity: None,
        fields: vec![],
        invariants: vec![],
        state_machine: None,
        relates_to: vec![],
        exposes: vec![],
        depends_on: vec![],
        domain_terms: vec![],
        confidence,
    }
}

fn empty_module(name: String, description: String, confidence: f64) -> ModuleBlock {
    ModuleBlock {
        name,
        description,
        apis: vec![],
        spis: vec![],
        depends_on: vec![],
        concepts: vec![],
        bounded_context_hint: None,
        shared_kernel_hint: None,
        ubiquitous_language: vec![],
        confidence,
    }
}

/// A valid answer to what is asked that knows no facts, for test doubles
/// that have no model (the loopback mock provider of `testkit`): each
/// description starts with [`PLACEHOLDER_MARK`] and says nothing about the
/// code; confidence 0.
pub fn placeholder_answer(asking: &Asking) -> Value {
    let block = |id: &str| {
        let description = format!(
            "{PLACEHOLDER_MARK} Placeholder for the {} `{id}`; it says nothing about what the code does.",
            asking.level.as_str()
        );
        serde_json::to_value(empty_block(asking.level, name_of(id), description, 0.0)).expect("blocks always serialize")
    };
    if asking.cycle {
        json!({ "members": asking.members.iter().map(|id| json!({"id": id, "block": block(id)})).collect::<Vec<_>>() })
    } else {
        block(asking.members.first().unwrap_or(&asking.unit))
    }
}

#[cfg(test)]
mod tests;
