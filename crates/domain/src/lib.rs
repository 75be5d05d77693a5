//! # domain
//!
//! The domain at a glance (pure): from the explanations a run bought — the
//! records of a store or a side-car — and the model's structure (the
//! analyzer's [`DomainFacts`]), a [`DomainView`]:
//!
//! * **bounded contexts**: the modules grouped by their block's
//!   bounded-context hint (one context per module when a module gives
//!   none), each with its aggregates (root, entities, value types, the
//!   relations between them, state machines), repositories, services,
//!   events, the commands its operations handle and the events they emit
//!   and handle;
//! * **a context map**: contexts as nodes; an edge from one to another
//!   counts the evidence — a module's `dependsOn` naming a module of the
//!   other, calls from its operations into the other's types, and the type
//!   references of its modules' imports — with a few unit ids of each kind;
//!   the shared-kernel hints of modules in package cycles;
//! * **a glossary**: every ubiquitous-language term with its definition in
//!   each context that defines it, the contexts that use it and the units
//!   whose explanation names it; a term defined differently in two contexts
//!   is marked as such.
//!
//! Everything names unit ids. A unit that has no record, failed or is stale
//! is counted ([`Coverage`]) and listed as such; the view never gives a
//! concept to a unit that has no explanation. [`markdown`] renders the view
//! as Markdown files with Mermaid diagrams (`codegraph-insights domain` and
//! the page's Domain tab share it).
//!
//! **Must never:** read a file or the clock; treat corpus or answer text as
//! anything but data (the renderers escape it).

use analyzer::facts::DomainFacts;
use hashbrown::{HashMap, HashSet};
use insights::blocks::{Block, ModuleBlock, OperationBlock, TypeBlock};
use insights::record::{FailureRecord, InsightRecord};
use insights::vocab::{DomainConcept, FieldKind, Level};
use serde::{Deserialize, Serialize};

pub mod map;
pub mod markdown;
pub mod terms;

#[cfg(test)]
mod tests;

/// The JSON form's `format`.
pub const FORMAT: &str = "codegraph.domainView/1";
/// Unit ids kept per kind of evidence on a context-map edge.
pub const EVIDENCE_SAMPLES: usize = 3;

/// What the view is made from.
pub struct Inputs<'a> {
    /// The model's structure (modules, types, operations, calls, imports).
    pub facts: &'a DomainFacts,
    /// The explanations, one record per unit member id.
    pub records: &'a [InsightRecord],
    /// The units whose last attempt failed.
    pub failures: &'a [FailureRecord],
    /// Why a record no longer matches the code (id → reason); a record not
    /// named here is current (or could not be checked).
    pub stale: &'a HashMap<String, String>,
}

/// Bounded contexts, their map and the glossary (`codegraph.domainView/1`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainView {
    /// [`FORMAT`].
    pub format: String,
    pub coverage: Coverage,
    pub contexts: Vec<Context>,
    pub context_map: Vec<ContextEdge>,
    pub shared_kernels: Vec<SharedKernel>,
    pub glossary: Vec<GlossaryEntry>,
}

/// How much of the model the view stands on, per level.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub operations: Tally,
    pub types: Tally,
    pub modules: Tally,
}

/// Units of one level: `explained` counts the stale ones too (their record
/// is shown, marked); `unexplained` have neither a record nor a failure.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    pub units: u64,
    pub explained: u64,
    pub stale: u64,
    pub failed: u64,
    pub unexplained: u64,
}

/// Where a unit's explanation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Explained,
    Stale,
    Failed,
    Unexplained,
}

impl Status {
    /// As the Markdown and the page write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Explained => "explained",
            Status::Stale => "stale",
            Status::Failed => "failed",
            Status::Unexplained => "not explained",
        }
    }
}

/// A bounded context.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// Unique, made of `[a-z0-9-]` (a file name and an anchor).
    pub key: String,
    pub name: String,
    /// Named by a module's bounded-context hint (else it is one module's own).
    pub hinted: bool,
    pub modules: Vec<ModuleRef>,
    pub aggregates: Vec<Aggregate>,
    /// Entities no aggregate contains.
    pub entities: Vec<Concept>,
    /// Value types (and enums) no aggregate uses.
    pub value_types: Vec<Concept>,
    pub repositories: Vec<Concept>,
    pub services: Vec<Concept>,
    pub events: Vec<Concept>,
    /// Types of any other concept (interfaces, commands, queries, reactions, …).
    pub other: Vec<Concept>,
    pub state_machines: Vec<StateMachineView>,
    /// Commands the context's operations handle.
    pub commands: Vec<Message>,
    /// Events the context's operations emit.
    pub emits: Vec<Message>,
    /// Events the context's operations handle.
    pub handles: Vec<Message>,
    /// Glossary terms the context defines or uses (as in [`GlossaryEntry::term`]).
    pub terms: Vec<String>,
    /// Types and modules with no explanation to show (failed or never asked).
    pub unexplained: Vec<UnitRef>,
    pub coverage: Coverage,
}

/// A module of a context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleRef {
    pub id: String,
    pub name: String,
    pub status: Status,
    /// The module block's self-reported confidence.
    pub confidence: Option<f64>,
    /// Why the block put the module in this context.
    pub rationale: Option<String>,
}

/// A unit the view could not say anything about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitRef {
    pub id: String,
    pub level: Level,
    pub status: Status,
}

/// A type with the concept its explanation gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Concept {
    pub id: String,
    pub name: String,
    pub concept: DomainConcept,
    /// An event's kind (internal, external, error, temporal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_kind: Option<String>,
    pub confidence: f64,
    pub stale: bool,
}

/// An aggregate: its root and what it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Aggregate {
    pub root: Concept,
    pub entities: Vec<Concept>,
    pub value_types: Vec<Concept>,
    /// What the root and its entities relate to or hold.
    pub relations: Vec<Relation>,
}

/// One relation of an aggregate's member.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Relation {
    /// The member's type id.
    pub from: String,
    /// The related type's id, when the name is a type of the model.
    pub to: Option<String>,
    /// The related concept's name, as the explanation gives it.
    pub to_name: String,
    /// `relatesTo`, or the field holding it.
    pub via: String,
}

/// A type's lifecycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateMachineView {
    pub id: String,
    pub name: String,
    pub states: Vec<String>,
    /// `(from, to, operation)`.
    pub transitions: Vec<(String, String, String)>,
}

/// A command or an event, with the operations that handle or emit it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub units: Vec<String>,
}

/// An edge of the context map: evidence that `from` depends on `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextEdge {
    pub from: String,
    pub to: String,
    /// Module blocks of `from` whose `dependsOn` names a module of `to`.
    pub depends_on: u64,
    /// Calls from operations of `from` to types of `to`.
    pub calls: u64,
    /// Type references of `from`'s modules into `to`'s (their imports).
    pub type_uses: u64,
    pub evidence: u64,
    /// A few `(from unit, to unit)` of each kind, dependsOn first.
    pub samples: Vec<(String, String)>,
}

/// A module's shared-kernel hint (it is in a package cycle).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedKernel {
    pub module: String,
    pub context: String,
    pub hint: String,
    /// Contexts this one depends on and is depended on by.
    pub with: Vec<String>,
}

/// A term of the ubiquitous language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GlossaryEntry {
    pub term: String,
    pub definitions: Vec<Definition>,
    /// Contexts that define it or whose units name it.
    pub contexts: Vec<String>,
    /// Units whose explanation names it (among its terms, in its name or
    /// description): the first [`terms::UNITS_LISTED`] in unit order (modules,
    /// types, then operations), sorted.
    pub units: Vec<String>,
    /// All the units that name it.
    pub unit_count: u64,
    /// Defined with different meanings in two contexts or more.
    pub conflicting: bool,
}

/// A term's definition in one context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Definition {
    pub context: String,
    pub definition: String,
    /// The module whose block gives it.
    pub module: String,
}

impl DomainView {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a view serializes")
    }

    pub fn context(&self, key: &str) -> Option<&Context> {
        self.contexts.iter().find(|c| c.key == key)
    }

    /// `412 of 430 types explained, 9 stale, 3 failed`.
    pub fn coverage_line(&self) -> String {
        let t = &self.coverage.types;
        let mut line = format!("{} of {} types explained", t.explained, t.units);
        if t.stale > 0 {
            line.push_str(&format!(", {} stale", t.stale));
        }
        if t.failed > 0 {
            line.push_str(&format!(", {} failed", t.failed));
        }
        let m = &self.coverage.modules;
        line.push_str(&format!("; {} of {} modules", m.explained, m.units));
        line
    }
}

impl Tally {
    fn add(&mut self, s: Status) {
        self.units += 1;
        match s {
            Status::Explained => self.explained += 1,
            Status::Stale => {
                self.explained += 1;
                self.stale += 1;
            }
            Status::Failed => self.failed += 1,
            Status::Unexplained => self.unexplained += 1,
        }
    }
}

impl Coverage {
    fn add(&mut self, level: Level, s: Status) {
        match level {
            Level::Operation => self.operations.add(s),
            Level::Type => self.types.add(s),
            Level::Module => self.modules.add(s),
        }
    }
}

/// The records, failures and verdicts by id.
struct Book<'a> {
    records: HashMap<&'a str, &'a InsightRecord>,
    failed: HashSet<&'a str>,
    stale: &'a HashMap<String, String>,
}

impl<'a> Book<'a> {
    fn new(inputs: &Inputs<'a>) -> Book<'a> {
        let records = inputs.records.iter().map(|r| (r.id.as_str(), r)).collect();
        let failed =
            inputs.failures.iter().flat_map(|f| f.members.iter().map(String::as_str).chain([f.id.as_str()])).collect();
        Book { records, failed, stale: inputs.stale }
    }

    fn status(&self, id: &str) -> Status {
        match self.records.get(id) {
            Some(_) if self.stale.contains_key(id) => Status::Stale,
            Some(_) => Status::Explained,
            None if self.failed.contains(id) => Status::Failed,
            None => Status::Unexplained,
        }
    }

    fn block(&self, id: &str) -> Option<&'a Block> {
        self.records.get(id).map(|r| &r.block)
    }

    fn type_block(&self, id: &str) -> Option<&'a TypeBlock> {
        match self.block(id) {
            Some(Block::Type(b)) => Some(b),
            _ => None,
        }
    }

    fn module_block(&self, id: &str) -> Option<&'a ModuleBlock> {
        match self.block(id) {
            Some(Block::Module(b)) => Some(b),
            _ => None,
        }
    }

    fn operation_block(&self, id: &str) -> Option<&'a OperationBlock> {
        match self.block(id) {
            Some(Block::Operation(b)) => Some(b),
            _ => None,
        }
    }
}

/// The spellings of one name, counted in the order met.
#[derive(Default)]
pub(crate) struct Spellings(Vec<(String, u32)>);

impl Spellings {
    pub(crate) fn add(&mut self, s: &str) {
        match self.0.iter_mut().find(|(x, _)| x == s) {
            Some((_, n)) => *n += 1,
            None => self.0.push((s.to_owned(), 1)),
        }
    }

    /// The most used; the first met on a tie.
    pub(crate) fn best(&self) -> String {
        let most = self.0.iter().map(|(_, n)| *n).max().unwrap_or(0);
        self.0.iter().find(|(_, n)| *n == most).map(|(s, _)| s.clone()).unwrap_or_default()
    }
}

/// `Ordering` and ` ordering ` are one context.
fn normal(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

fn simple(id: &str) -> &str {
    let tail = id.rsplit('/').next().unwrap_or(id);
    tail.rsplit('.').next().unwrap_or(tail)
}

/// `[a-z0-9-]` of a name; never empty.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "context".into()
    } else {
        out
    }
}

fn by_name(a: &Concept, b: &Concept) -> std::cmp::Ordering {
    a.name.to_lowercase().cmp(&b.name.to_lowercase()).then_with(|| a.id.cmp(&b.id))
}

/// The view of `inputs`.
pub fn domain_view(inputs: &Inputs<'_>) -> DomainView {
    let facts = inputs.facts;
    let book = Book::new(inputs);

    // Contexts: by hint (case and spacing aside), else one per module,
    // named by the spelling most of its modules use (the first in module
    // order on a tie).
    let mut order: Vec<String> = Vec::new();
    let mut named: HashMap<String, (Spellings, bool)> = HashMap::new();
    let mut module_context: HashMap<&str, usize> = HashMap::new();
    let mut members: Vec<Vec<ModuleRef>> = Vec::new();
    for m in &facts.modules {
        let id: &str = &m.id;
        let block = book.module_block(id);
        let hint = block.and_then(|b| b.bounded_context_hint.as_ref()).filter(|h| !h.name.trim().is_empty());
        let display = m.name.as_deref().unwrap_or(id).to_owned();
        let (name, hinted) = match hint {
            Some(h) => (h.name.split_whitespace().collect::<Vec<_>>().join(" "), true),
            None => (display.clone(), false),
        };
        let key = normal(&name);
        let at = match order.iter().position(|k| *k == key) {
            Some(at) => at,
            None => {
                order.push(key.clone());
                members.push(Vec::new());
                order.len() - 1
            }
        };
        let entry = named.entry(key).or_insert_with(|| (Spellings::default(), false));
        entry.0.add(&name);
        entry.1 |= hinted;
        module_context.insert(id, at);
        members[at].push(ModuleRef {
            id: id.to_owned(),
            name: display,
            status: book.status(id),
            confidence: block.map(|b| b.confidence),
            rationale: hint.map(|h| h.rationale.clone()),
        });
    }
    let mut contexts: Vec<Context> = order
        .iter()
        .zip(members)
        .map(|(k, modules)| {
            let (spellings, hinted) = &named[k];
            Context { name: spellings.best(), hinted: *hinted, modules, ..Context::default() }
        })
        .collect();
    let mut used_keys: HashSet<String> = HashSet::new();
    for c in &mut contexts {
        let base = slug(&c.name);
        let mut key = base.clone();
        let mut n = 2;
        while !used_keys.insert(key.clone()) {
            key = format!("{base}-{n}");
            n += 1;
        }
        c.key = key;
    }
    for c in &mut contexts {
        for m in &c.modules {
            c.coverage.add(Level::Module, m.status);
            if matches!(m.status, Status::Failed | Status::Unexplained) {
                c.unexplained.push(UnitRef { id: m.id.clone(), level: Level::Module, status: m.status });
            }
        }
    }

    // Types and their operations, in the context of their module.
    let mut type_context: HashMap<&str, usize> = HashMap::new();
    let mut coverage = Coverage::default();
    for m in &facts.modules {
        coverage.add(Level::Module, book.status(&m.id));
    }
    // A name of a type (its block's or its own) → its ids, to resolve the
    // names explanations give.
    let mut names: HashMap<String, Vec<&str>> = HashMap::new();
    for d in &facts.types {
        let id: &str = &d.id;
        let Some(&at) = d.module.as_deref().and_then(|m| module_context.get(m)) else { continue };
        type_context.insert(id, at);
        names.entry(simple(id).to_lowercase()).or_default().push(id);
        if let Some(b) = book.type_block(id) {
            if normal(&b.name) != simple(id).to_lowercase() {
                names.entry(normal(&b.name)).or_default().push(id);
            }
        }
    }
    let resolve = |name: &str, context: usize| -> Option<&str> {
        let ids = names.get(&normal(name)).or_else(|| names.get(&simple(name).to_lowercase()))?;
        ids.iter().find(|i| type_context.get(*i) == Some(&context)).or_else(|| ids.first()).copied()
    };

    // Events by name (their types' and what operations emit) to tell a
    // handled event from a handled command.
    let mut event_names: HashSet<String> = HashSet::new();
    for d in &facts.types {
        if let Some(b) = book.type_block(&d.id).filter(|b| b.concept == DomainConcept::Event) {
            event_names.insert(normal(&b.name));
            event_names.insert(simple(&d.id).to_lowercase());
        }
        for op in &d.operations {
            if let Some(b) = book.operation_block(&op.id) {
                event_names.extend(b.emits.iter().map(|e| normal(&e.name)));
            }
        }
    }

    let mut concepts: Vec<Vec<(Concept, &TypeBlock)>> = vec![Vec::new(); contexts.len()];
    let mut messages: Messages = HashMap::new();
    for d in &facts.types {
        let id: &str = &d.id;
        let Some(&at) = type_context.get(id) else { continue };
        let status = book.status(id);
        coverage.add(Level::Type, status);
        let c = &mut contexts[at];
        c.coverage.add(Level::Type, status);
        match book.type_block(id) {
            Some(b) => {
                let concept = Concept {
                    id: id.to_owned(),
                    name: if b.name.trim().is_empty() { simple(id).to_owned() } else { b.name.clone() },
                    concept: b.concept,
                    event_kind: b.event_kind.map(|k| k.as_str().to_owned()),
                    confidence: b.confidence,
                    stale: status == Status::Stale,
                };
                if let Some(sm) = &b.state_machine {
                    c.state_machines.push(StateMachineView {
                        id: id.to_owned(),
                        name: concept.name.clone(),
                        states: sm.states.clone(),
                        transitions: sm
                            .transitions
                            .iter()
                            .map(|t| (t.from.clone(), t.to.clone(), t.operation.clone()))
                            .collect(),
                    });
                }
                concepts[at].push((concept, b));
            }
            None => c.unexplained.push(UnitRef { id: id.to_owned(), level: Level::Type, status }),
        }
        for op in d.operations.iter().filter(|o| &*o.kind != "lambda") {
            let s = book.status(&op.id);
            coverage.add(Level::Operation, s);
            c.coverage.add(Level::Operation, s);
            let Some(b) = book.operation_block(&op.id) else { continue };
            if let Some(cmd) = b.handles_command.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                let (kind, list) =
                    if event_names.contains(&normal(cmd)) { (1, &mut c.handles) } else { (0, &mut c.commands) };
                add_message(&mut messages, (at, kind), list, cmd, None, &op.id);
            }
            for e in &b.emits {
                add_message(&mut messages, (at, 2), &mut c.emits, &e.name, Some(e.kind.as_str()), &op.id);
            }
        }
    }

    // Concepts into aggregates and lists.
    for (at, list) in concepts.into_iter().enumerate() {
        let c = &mut contexts[at];
        let is_root = |b: &TypeBlock| b.concept == DomainConcept::Aggregate || b.aggregate_root == Some(true);
        let mut aggregates: Vec<Aggregate> = list
            .iter()
            .filter(|(_, b)| is_root(b))
            .map(|(k, _)| Aggregate {
                root: k.clone(),
                entities: Vec::new(),
                value_types: Vec::new(),
                relations: Vec::new(),
            })
            .collect();
        let root_of = |name: &str, aggregates: &[Aggregate]| {
            let n = normal(name);
            aggregates
                .iter()
                .position(|a| normal(&a.root.name) == n || simple(&a.root.id).to_lowercase() == n || a.root.id == name)
        };
        let mut loose_values = Vec::new();
        for (k, b) in &list {
            if is_root(b) {
                continue;
            }
            match k.concept {
                DomainConcept::Entity | DomainConcept::ReadOnlyEntity => {
                    match b.contained_in.as_deref().and_then(|n| root_of(n, &aggregates)) {
                        Some(a) => aggregates[a].entities.push(k.clone()),
                        None => c.entities.push(k.clone()),
                    }
                }
                DomainConcept::ValueType | DomainConcept::Enum => loose_values.push(k.clone()),
                DomainConcept::Repository => c.repositories.push(k.clone()),
                DomainConcept::DomainService
                | DomainConcept::ApplicationService
                | DomainConcept::InfrastructureService => c.services.push(k.clone()),
                DomainConcept::Event => c.events.push(k.clone()),
                DomainConcept::NotDomain | DomainConcept::Unknown => {}
                _ => c.other.push(k.clone()),
            }
        }
        // Relations of each aggregate's root and entities; the value types
        // they name join the aggregate.
        let blocks: HashMap<&str, &TypeBlock> = list.iter().map(|(k, b)| (k.id.as_str(), *b)).collect();
        let mut held: HashSet<String> = HashSet::new();
        for a in &mut aggregates {
            let member_ids: Vec<String> =
                std::iter::once(a.root.id.clone()).chain(a.entities.iter().map(|e| e.id.clone())).collect();
            for from in &member_ids {
                let Some(b) = blocks.get(from.as_str()) else { continue };
                let mut seen: HashSet<String> = HashSet::new();
                let mut add = |to_name: &str, via: String, relations: &mut Vec<Relation>| {
                    if to_name.trim().is_empty() || !seen.insert(normal(to_name)) {
                        return;
                    }
                    let to = resolve(to_name, at).map(str::to_owned);
                    relations.push(Relation { from: from.clone(), to, to_name: to_name.trim().to_owned(), via });
                };
                for r in &b.relates_to {
                    add(&r.name, "relatesTo".into(), &mut a.relations);
                }
                for f in b.fields.iter().filter(|f| matches!(f.kind, FieldKind::ValueType | FieldKind::EntityReference))
                {
                    add(&f.type_, f.name.clone(), &mut a.relations);
                }
            }
            for v in &loose_values {
                let named = a
                    .relations
                    .iter()
                    .any(|r| r.to.as_deref() == Some(v.id.as_str()) || normal(&r.to_name) == normal(&v.name));
                if named {
                    a.value_types.push(v.clone());
                    held.insert(v.id.clone());
                }
            }
            a.entities.sort_by(by_name);
            a.value_types.sort_by(by_name);
        }
        c.value_types = loose_values.into_iter().filter(|v| !held.contains(&v.id)).collect();
        aggregates.sort_by(|x, y| by_name(&x.root, &y.root));
        c.aggregates = aggregates;
        for l in
            [&mut c.entities, &mut c.value_types, &mut c.repositories, &mut c.services, &mut c.events, &mut c.other]
        {
            l.sort_by(by_name);
        }
        c.state_machines
            .sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then_with(|| x.id.cmp(&y.id)));
        for l in [&mut c.commands, &mut c.emits, &mut c.handles] {
            l.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then_with(|| x.name.cmp(&y.name)));
        }
        c.unexplained.sort_by(|x, y| x.id.cmp(&y.id));
    }

    let context_map = context_map(facts, &book, &module_context, &type_context, &contexts);
    let shared_kernels = shared_kernels(facts, &book, &module_context, &contexts, &context_map);
    let glossary = terms::glossary(facts, &book, &module_context, &type_context, &mut contexts);
    contexts.sort_by(|a, b| a.name.to_lowercase().cmp(&b.name.to_lowercase()).then_with(|| a.key.cmp(&b.key)));
    DomainView { format: FORMAT.to_owned(), coverage, contexts, context_map, shared_kernels, glossary }
}

/// Where each message is in its list: `((context, list), normal name)`
/// (lists: 0 commands, 1 handled events, 2 emitted events).
type Messages = HashMap<((usize, u8), String), usize>;

fn add_message(
    at: &mut Messages,
    list_of: (usize, u8),
    list: &mut Vec<Message>,
    name: &str,
    kind: Option<&str>,
    unit: &str,
) {
    let slot = *at.entry((list_of, normal(name))).or_insert_with(|| {
        list.push(Message { name: name.trim().to_owned(), kind: kind.map(str::to_owned), units: Vec::new() });
        list.len() - 1
    });
    let m = &mut list[slot];
    // An operation's messages arrive together: a repeat is the last one.
    if m.units.last().map(String::as_str) != Some(unit) {
        m.units.push(unit.to_owned());
    }
}

#[derive(Default)]
struct Evidence {
    depends_on: u64,
    calls: u64,
    type_uses: u64,
    samples: [Vec<(String, String)>; 3],
}

impl Evidence {
    fn sample(&mut self, kind: usize, from: &str, to: &str) {
        if self.samples[kind].len() < EVIDENCE_SAMPLES {
            self.samples[kind].push((from.to_owned(), to.to_owned()));
        }
    }
}

fn context_map(
    facts: &DomainFacts,
    book: &Book<'_>,
    module_context: &HashMap<&str, usize>,
    type_context: &HashMap<&str, usize>,
    contexts: &[Context],
) -> Vec<ContextEdge> {
    let mut edges: HashMap<(usize, usize), Evidence> = HashMap::new();
    // A module's dependsOn names a module (by id or name).
    let mut module_names: HashMap<String, &str> = HashMap::new();
    for m in &facts.modules {
        module_names.insert(m.id.to_lowercase(), &m.id);
        if let Some(n) = &m.name {
            module_names.entry(n.to_lowercase()).or_insert(&m.id);
        }
    }
    for m in &facts.modules {
        let (Some(&from), Some(b)) = (module_context.get(&*m.id), book.module_block(&m.id)) else { continue };
        let mut seen = HashSet::new();
        for dep in &b.depends_on {
            let Some(&target) = module_names.get(&dep.trim().to_lowercase()) else { continue };
            let Some(&to) = module_context.get(target) else { continue };
            if to != from && seen.insert(to) {
                let e = edges.entry((from, to)).or_default();
                e.depends_on += 1;
                e.sample(0, &m.id, target);
            }
        }
        for import in m.imports.iter().filter(|i| !i.external) {
            let Some(&to) = module_context.get(&*import.to) else { continue };
            if to != from {
                let e = edges.entry((from, to)).or_default();
                e.type_uses += u64::from(import.count.max(1));
                e.sample(2, &m.id, &import.to);
            }
        }
    }
    for d in &facts.types {
        let Some(&from) = type_context.get(&*d.id) else { continue };
        for op in &d.operations {
            for inv in op.invocations.iter().filter(|i| !i.external) {
                let Some(&to) = inv.target_type.as_deref().and_then(|t| type_context.get(t)) else { continue };
                if to != from {
                    let e = edges.entry((from, to)).or_default();
                    e.calls += 1;
                    e.sample(1, &op.id, &inv.to);
                }
            }
        }
    }
    let mut out: Vec<ContextEdge> = edges
        .into_iter()
        .map(|((from, to), e)| ContextEdge {
            from: contexts[from].key.clone(),
            to: contexts[to].key.clone(),
            depends_on: e.depends_on,
            calls: e.calls,
            type_uses: e.type_uses,
            evidence: e.depends_on + e.calls + e.type_uses,
            samples: e.samples.into_iter().flatten().collect(),
        })
        .collect();
    out.sort_by(|a, b| (&a.from, &a.to).cmp(&(&b.from, &b.to)));
    out
}

fn shared_kernels(
    facts: &DomainFacts,
    book: &Book<'_>,
    module_context: &HashMap<&str, usize>,
    contexts: &[Context],
    map: &[ContextEdge],
) -> Vec<SharedKernel> {
    let mut out = Vec::new();
    for m in &facts.modules {
        let Some(hint) = book.module_block(&m.id).and_then(|b| b.shared_kernel_hint.as_deref()) else { continue };
        if hint.trim().is_empty() {
            continue;
        }
        let Some(&at) = module_context.get(&*m.id) else { continue };
        let key = &contexts[at].key;
        let mut with: Vec<String> = map
            .iter()
            .filter(|e| &e.from == key && map.iter().any(|b| b.from == e.to && &b.to == key))
            .map(|e| e.to.clone())
            .collect();
        with.sort();
        out.push(SharedKernel { module: m.id.to_string(), context: key.clone(), hint: hint.trim().to_owned(), with });
    }
    out
}
