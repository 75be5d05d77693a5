//! Units and their context packs (docs/formats/units-and-walk.md §2–§6,
//! docs/formats/prompts.md §1): the analyzer's facts turned into operation,
//! type and module units, the dependency edges between them, the walk,
//! scope, and what each unit's prompt shows.

use crate::pack::{
    facts_digest, AccessSummary, CallFact, ContextPack, DependencySummary, FieldSummary, ImportSummary,
    InjectionSummary, MemberPack, SupertypeSummary, ThrowSummary,
};
use crate::records::RecordSource;
use crate::slice::SourceSlicer;
use crate::templates::classify_template;
use crate::vocab::{Level, TemplateKind};
use crate::walk::{Unit, Walk, WalkError};
use analyzer::facts::{build_domain_facts, AnnotationFact, DomainFacts, ModuleFact, OperationFact, TypeDossier};
use analyzer::fold::{import_graph, type_dependency_graph};
use analyzer::framework::Framework;
use analyzer::graph::CodeGraph;
use analyzer::view::View;
use analyzer::Id;
use hashbrown::{HashMap, HashSet};
use model::{Literal, Model, NamedArgument, Trait};
use std::borrow::Cow;
use std::rc::Rc;

/// The most members of one dependency cycle a prompt lists (the rest are
/// counted, not listed). Prompts are not hashed, so this changes no fingerprint.
pub const MAX_LISTED_CYCLE_MEMBERS: usize = 24;

/// Where an operation unit's fact lives: (dossier index, operation index).
#[derive(Clone, Copy, Debug)]
struct OpAt {
    ty: usize,
    op: usize,
}

/// A `--scope` that names nothing in the model.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("--scope names {id:?}, which is not a module or type id of this model")]
pub struct ScopeError {
    pub id: String,
}

/// The units of a model and everything needed to pack them.
pub struct Corpus<'m> {
    pub graph: CodeGraph<'m>,
    pub view: View,
    pub facts: DomainFacts,
    pub walk: Walk,
    ops: HashMap<Id, OpAt>,
    types: HashMap<Id, usize>,
    modules: HashMap<Id, usize>,
    templates: HashMap<Id, TemplateKind>,
    /// The level of every unit member, by the surrogate of its id.
    levels: Vec<Option<Level>>,
}

/// Renders a Literal for a prompt (docs/formats/prompts.md §1).
pub fn render_literal(l: &Literal<Id>) -> String {
    fn simple(id: &str) -> &str {
        id.rsplit('/').next().unwrap_or(id)
    }
    match l {
        Literal::String(s) => serde_json::to_string(s).expect("strings serialize"),
        Literal::Number(n) => n.clone(),
        Literal::Boolean(b) => b.to_string(),
        Literal::Null => "null".into(),
        Literal::Enum { ty, name } => format!("{}.{name}", simple(ty)),
        Literal::Type { ty } => format!("{}.class", simple(ty)),
        Literal::Array(items) => format!("[{}]", items.iter().map(render_literal).collect::<Vec<_>>().join(", ")),
        Literal::Annotation { ty, arguments } => format!("@{}({})", simple(ty), render_arguments(arguments)),
        Literal::Unevaluated(s) => s.clone(),
    }
}

fn render_arguments(args: &[NamedArgument<Id>]) -> String {
    args.iter().map(|a| format!("{} = {}", a.name, render_literal(&a.value))).collect::<Vec<_>>().join(", ")
}

/// Renders an annotation for a prompt: `@Name` or `@Name(k = v, …)`.
pub fn render_annotation(a: &AnnotationFact) -> String {
    let name = a.name.as_deref().unwrap_or_else(|| a.annotation.rsplit('/').next().unwrap_or(&a.annotation));
    if a.arguments.is_empty() {
        format!("@{name}")
    } else {
        format!("@{name}({})", render_arguments(&a.arguments))
    }
}

impl<'m> Corpus<'m> {
    /// Facts, units, dependency edges and the walk of `model` under `view`.
    pub fn build(model: &'m Model, view: View, framework: Option<Framework>) -> Result<Corpus<'m>, WalkError> {
        let graph = CodeGraph::new(model);
        let facts = build_domain_facts(&graph, &view, framework);
        let mut ops = HashMap::new();
        let mut templates = HashMap::new();
        let mut types = HashMap::new();
        for (ti, d) in facts.types.iter().enumerate() {
            types.insert(d.id.clone(), ti);
            for (oi, op) in d.operations.iter().enumerate() {
                if &*op.kind == "lambda" {
                    continue;
                }
                ops.insert(op.id.clone(), OpAt { ty: ti, op: oi });
                if let Some(t) = classify_template(op, d) {
                    templates.insert(op.id.clone(), t);
                }
            }
        }
        let modules: HashMap<Id, usize> = facts.modules.iter().enumerate().map(|(i, m)| (m.id.clone(), i)).collect();
        // Operations first, then types, then modules: the later write wins.
        let mut levels = vec![None; graph.len()];
        let keyed = [
            (Level::Module, modules.keys().collect::<Vec<_>>()),
            (Level::Type, types.keys().collect()),
            (Level::Operation, ops.keys().collect()),
        ];
        for (level, ids) in keyed {
            for id in ids {
                levels[graph.index_of(id).expect("a fact id is an entity of the graph") as usize] = Some(level);
            }
        }
        let mut corpus = Corpus { graph, view, facts, walk: Walk::default(), ops, types, modules, templates, levels };
        corpus.walk = corpus.order()?;
        Ok(corpus)
    }

    /// The level of a unit member id (operation, type, module, checked in that order).
    pub fn level_of(&self, id: &str) -> Option<Level> {
        self.graph.index_of(id).and_then(|i| self.levels[i as usize])
    }

    /// The template of an operation unit, if it is trivial.
    pub fn template_of(&self, id: &str) -> Option<TemplateKind> {
        self.templates.get(id).copied()
    }

    /// The operation fact and its dossier of an operation unit.
    pub fn operation(&self, id: &str) -> Option<(&OperationFact, &TypeDossier)> {
        let at = self.ops.get(id)?;
        let d = &self.facts.types[at.ty];
        Some((&d.operations[at.op], d))
    }

    pub fn dossier(&self, id: &str) -> Option<&TypeDossier> {
        self.types.get(id).map(|&i| &self.facts.types[i])
    }

    pub fn module_fact(&self, id: &str) -> Option<&ModuleFact> {
        self.modules.get(id).map(|&i| &self.facts.modules[i])
    }

    /// The operation unit whose facts an entity belongs to
    /// (docs/formats/units-and-walk.md §3): itself, or the nearest ancestor
    /// that is one, stopping at types and modules.
    fn enclosing_operations(&self) -> Vec<Option<u32>> {
        let n = self.graph.model().entity_count() as usize;
        let is_op: Vec<bool> = (0..n as u32).map(|i| self.ops.contains_key(self.graph.id(i).as_ref())).collect();
        const UNKNOWN: u32 = u32::MAX;
        let mut memo = vec![UNKNOWN; n]; // UNKNOWN, NONE (u32::MAX - 1) or the op
        const NONE: u32 = u32::MAX - 1;
        let mut path = Vec::new();
        for start in 0..n as u32 {
            if memo[start as usize] != UNKNOWN {
                continue;
            }
            let mut cur = Some(start);
            let result = loop {
                let Some(c) = cur else { break NONE };
                if memo[c as usize] != UNKNOWN {
                    break memo[c as usize];
                }
                if is_op[c as usize] {
                    break c;
                }
                if self.graph.has_trait(c, Trait::Type) || self.graph.has_trait(c, Trait::Module) {
                    break NONE;
                }
                if path.len() > n {
                    break NONE; // a parent cycle: unplaceable
                }
                path.push(c);
                cur = self.graph.parent_of(c);
            };
            for p in path.drain(..) {
                memo[p as usize] = result;
            }
            memo[start as usize] = if is_op[start as usize] { start } else { result };
        }
        memo.into_iter().map(|m| (m < NONE).then_some(m)).collect()
    }

    /// Dependency edges per unit member (docs/formats/units-and-walk.md §3),
    /// then SCCs and Kahn layers. Members are numbered by their entities' rank
    /// (their id order), so ids are neither copied nor compared as text until
    /// the units are named.
    fn order(&self) -> Result<Walk, WalkError> {
        let g = &self.graph;
        let surrogate = |id: &str| g.index_of(id).expect("a fact id is an entity of the graph");
        // Every unit member once (as the first entity with its id), in id order.
        let mut members: Vec<u32> = (0..g.len() as u32).filter(|&e| self.levels[e as usize].is_some()).collect();
        members.sort_unstable_by_key(|&e| g.rank(e));
        let mut node_of = vec![u32::MAX; g.len()];
        for (k, &e) in members.iter().enumerate() {
            node_of[e as usize] = k as u32;
        }
        let node_of_id = |id: &str| node_of[surrogate(id) as usize];
        // A redeclared id's later entities share the first one's node.
        let node = |e: u32| match node_of[e as usize] {
            u32::MAX => node_of_id(g.id(e)),
            k => k,
        };
        let enclosing = self.enclosing_operations();
        let mut successors: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
        let mut push = |from: u32, mut edges: Vec<u32>| {
            edges.retain(|&e| e != from);
            edges.sort_unstable();
            edges.dedup();
            successors[from as usize].extend(edges);
        };
        // operation → operation: internal calls, mapped through enclosingOperation.
        for d in &self.facts.types {
            for op in &d.operations {
                if !self.ops.contains_key(&op.id) {
                    continue;
                }
                let edges = op
                    .invocations
                    .iter()
                    .filter(|i| !i.external)
                    .filter_map(|i| g.index_of(&i.to))
                    .filter_map(|t| enclosing[t as usize])
                    .map(node)
                    .collect();
                push(node_of_id(&op.id), edges);
            }
        }
        // type → type (folded graph), its operations, its nested types.
        let type_graph = type_dependency_graph(g, &self.view);
        for d in &self.facts.types {
            let mut edges: Vec<u32> = type_graph
                .outgoing(&d.id)
                .iter()
                .filter(|e| !e.self_loop && self.types.contains_key(&e.to))
                .map(|e| node_of_id(&e.to))
                .collect();
            edges.extend(d.operations.iter().filter(|o| self.ops.contains_key(&o.id)).map(|o| node_of_id(&o.id)));
            if let Some(i) = g.index_of(&d.id) {
                edges.extend(
                    g.children_of(i)
                        .iter()
                        .filter(|&&c| g.has_trait(c, Trait::Type) && self.types.contains_key(g.id(c).as_ref()))
                        .map(|&c| node(c)),
                );
            }
            push(node_of_id(&d.id), edges);
        }
        // module → module (imports), its types.
        let imports = import_graph(g, &self.view);
        for m in &self.facts.modules {
            let mut edges: Vec<u32> = imports
                .outgoing(&m.id)
                .iter()
                .filter(|e| !e.self_loop && self.modules.contains_key(&e.to))
                .map(|e| node_of_id(&e.to))
                .collect();
            edges.extend(m.types.iter().filter(|t| self.types.contains_key(*t)).map(|t| node_of_id(t)));
            push(node_of_id(&m.id), edges);
        }
        let c = analyzer::scc::condense(&successors);
        Walk::layer(
            &c.components,
            &c.successors,
            |k| g.id(members[k as usize]),
            |k| self.levels[members[k as usize] as usize].expect("every node is a unit member"),
        )
    }

    /// Checks `--scope` ids: each must be a module or type of the model.
    pub fn scope(&self, ids: &[String]) -> Result<Scope, ScopeError> {
        let mut listed = HashSet::new();
        for id in ids {
            let i = self
                .graph
                .index_of(id)
                .filter(|&i| self.graph.has_trait(i, Trait::Type) || self.graph.has_trait(i, Trait::Module));
            match i {
                Some(i) => {
                    listed.insert(i);
                }
                None => return Err(ScopeError { id: id.clone() }),
            }
        }
        Ok(Scope { listed, units: None })
    }

    /// The `--retry-failed` scope (docs/formats/units-and-walk.md §6): the
    /// units holding any failed member (matched by member, so it survives a
    /// re-grouped cycle) and their direct dependents.
    pub fn retry_scope<'a>(&self, failed_members: impl IntoIterator<Item = &'a str>) -> Scope {
        let failed: HashSet<usize> = failed_members.into_iter().filter_map(|m| self.walk.unit_index_of(m)).collect();
        let failed_ids: HashSet<&str> = failed.iter().map(|&i| self.walk.units[i].id.as_str()).collect();
        let mut units = failed.clone();
        for (i, u) in self.walk.units.iter().enumerate() {
            if u.deps.iter().any(|d| failed_ids.contains(&**d)) {
                units.insert(i);
            }
        }
        Scope { listed: HashSet::new(), units: Some(units) }
    }

    /// Whether a unit is inside `scope` (docs/formats/units-and-walk.md §6): a
    /// member is listed, or its containing type or module is.
    pub fn in_scope(&self, scope: &Scope, unit: &Unit) -> bool {
        if let Some(units) = &scope.units {
            return self.walk.unit_index(&unit.id).is_some_and(|i| units.contains(&i));
        }
        unit.members.iter().filter_map(|m| self.graph.index_of(m)).any(|m| {
            scope.listed.contains(&m)
                || self.graph.containing_type(m).is_some_and(|t| scope.listed.contains(&t))
                || self.graph.containing_module(m).is_some_and(|t| scope.listed.contains(&t))
        })
    }

    /// The display name of an id: the entity's name, else the id.
    pub fn display_name(&self, id: &str) -> String {
        self.graph
            .index_of(id)
            .and_then(|i| self.graph.entity_name(i))
            .map(str::to_owned)
            .unwrap_or_else(|| id.to_owned())
    }

    /// [`Corpus::display_name`], shared rather than copied.
    fn display_id(&self, id: &Id) -> Id {
        self.graph.index_of(id).and_then(|i| self.graph.name_id(i)).unwrap_or(id).clone()
    }

    /// The entity kind of a module unit (fallback `module`), as records carry it.
    pub fn module_kind(&self, id: &str) -> String {
        self.graph.index_of(id).map(|i| self.graph.kind_id(i).to_string()).unwrap_or_else(|| "module".into())
    }

    /// The comments of an entity (none without one).
    fn comments_of(&self, entity: Option<u32>) -> Vec<String> {
        let Some(i) = entity else { return Vec::new() };
        let e = self.graph.model().entity(i);
        if !e.has_trait(Trait::Comment) {
            return Vec::new();
        }
        e.comments().map(<[String]>::to_vec).unwrap_or_default()
    }

    fn summary_of(
        &self,
        id: &str,
        records: &dyn RecordSource,
        children: Rc<Vec<DependencySummary>>,
    ) -> DependencySummary {
        let entity = self.graph.index_of(id);
        let level = entity.and_then(|i| self.levels[i as usize]).unwrap_or(Level::Operation);
        let id: Id = entity.map_or_else(|| id.into(), |i| self.graph.id(i).clone());
        let missing = records.fingerprint(&id).is_none();
        let (summary, concept) = if missing {
            (String::new(), None)
        } else {
            records.summary(&id).map(|s| (s.description, s.concept)).unwrap_or_default()
        };
        DependencySummary {
            name: entity.and_then(|i| self.graph.name_id(i)).unwrap_or(&id).clone(),
            id,
            level,
            summary,
            concept,
            missing,
            children,
            omitted: 0,
        }
    }

    /// `summariesOf(unit, depth, seen)` (docs/formats/prompts.md §1): one
    /// summary per member of walk unit `u`, all sharing the same children.
    /// `seen` is the path of units that led here, none of which is quoted
    /// again.
    fn summaries_of(
        &self,
        u: usize,
        depth: u32,
        seen: &mut Vec<usize>,
        records: &dyn RecordSource,
    ) -> Vec<DependencySummary> {
        let unit = &self.walk.units[u];
        let mut children = Vec::new();
        if depth > 1 {
            seen.push(u);
            for &d in self.walk.dependency_indexes(u) {
                if !seen.contains(&d) {
                    children.extend(self.summaries_of(d, depth - 1, seen, records));
                }
            }
            seen.pop();
        }
        let children = Rc::new(children);
        // A dependency cycle of thousands of members would put thousands of
        // lines into every prompt that depends on it: list the first ones
        // and say how many were left out.
        let listed = unit.members.len().min(MAX_LISTED_CYCLE_MEMBERS);
        let mut out: Vec<DependencySummary> =
            unit.members[..listed].iter().map(|m| self.summary_of(m, records, children.clone())).collect();
        if let Some(last) = out.last_mut() {
            last.omitted = unit.members.len() - listed;
        }
        out
    }

    fn operation_member(&self, op: &OperationFact, d: &TypeDossier, slicer: &SourceSlicer) -> MemberPack {
        let name = match (&op.name, &*op.kind) {
            (Some(n), _) => String::from(&**n),
            (None, "constructor") => d.name.as_deref().unwrap_or("constructor").to_owned(),
            (None, _) => String::from(&*op.id),
        };
        let entity = self.graph.index_of(&op.id);
        let module =
            entity.and_then(|i| self.graph.containing_module(i)).map(|m| self.graph.display_name(m).to_owned());
        MemberPack {
            id: String::from(&*op.id),
            level: Some(Level::Operation),
            kind: String::from(&*op.kind),
            name,
            signature: op.signature.as_deref().map(String::from),
            containing_type: Some(d.name.as_deref().unwrap_or(&d.id).to_owned()),
            containing_module: module,
            comments: self.comments_of(entity),
            annotations: op.annotations.iter().map(render_annotation).collect(),
            metrics: op.metrics.as_ref().map(|m| m.0.iter().map(|(k, v)| (String::from(&**k), *v)).collect()),
            entry_point: op.entry_point,
            stereotype: None,
            source: op.anchor.as_ref().map(|a| slicer.slice(&a.file, (a.span[0], a.span[1]))),
            calls: op
                .invocations
                .iter()
                .map(|i| CallFact {
                    target: self.display_id(&i.to),
                    target_type: i
                        .target_type_name
                        .clone()
                        .or_else(|| i.target_type.as_ref().map(|t| self.display_id(t))),
                    stereotype: i.target_stereotype,
                    external: i.external,
                    provenance: i.provenance.as_str(),
                })
                .collect(),
            accesses: op
                .accesses
                .iter()
                .map(|a| AccessSummary {
                    field: a.field.clone().unwrap_or_else(|| a.to.clone()),
                    owner_type: a.owner_type_name.clone(),
                    mode: match (a.is_read, a.is_write) {
                        (true, true) => "read/write",
                        (_, true) => "write",
                        _ => "read",
                    },
                    external: a.external,
                })
                .collect(),
            throws: op
                .throws
                .iter()
                .map(|t| ThrowSummary { name: t.name.clone().unwrap_or_else(|| t.to.clone()), external: t.external })
                .collect(),
            ..MemberPack::default()
        }
    }

    fn type_member(&self, d: &TypeDossier, slicer: &SourceSlicer, records: &dyn RecordSource) -> MemberPack {
        let mut parts: Vec<DependencySummary> = Vec::new();
        let no_children = Rc::new(Vec::new());
        for op in &d.operations {
            if self.ops.contains_key(&op.id) {
                parts.push(self.summary_of(&op.id, records, no_children.clone()));
            }
        }
        let entity = self.graph.index_of(&d.id);
        if let Some(i) = entity {
            for &c in self.graph.children_of(i) {
                let cid = self.graph.id(c);
                if self.graph.has_trait(c, Trait::Type) && self.types.contains_key(cid.as_ref()) {
                    parts.push(self.summary_of(cid, records, no_children.clone()));
                }
            }
        }
        MemberPack {
            id: String::from(&*d.id),
            level: Some(Level::Type),
            kind: String::from(&*d.kind),
            name: d.name.as_deref().unwrap_or(&d.id).to_owned(),
            containing_module: d.module.as_ref().map(|m| self.display_name(m)),
            comments: self.comments_of(entity),
            annotations: d.annotations.iter().map(render_annotation).collect(),
            metrics: d.metrics.as_ref().map(|m| m.0.iter().map(|(k, v)| (String::from(&**k), *v)).collect()),
            stereotype: d.stereotype.map(str::to_owned),
            source: d.anchor.as_ref().map(|a| slicer.slice(&a.file, (a.span[0], a.span[1]))),
            fields: d
                .fields
                .iter()
                .map(|f| FieldSummary {
                    name: f.name.as_deref().unwrap_or(&f.id).to_owned(),
                    ty: f.declared_type_name.as_deref().map(String::from),
                    type_kind: f.declared_type_kind.as_deref().map(String::from),
                    external: f.declared_type_external,
                    value: f.value.as_ref().map(render_literal),
                    annotations: f.annotations.iter().map(render_annotation).collect(),
                })
                .collect(),
            supertypes: d
                .supertypes
                .iter()
                .map(|s| SupertypeSummary {
                    name: s.name.as_deref().unwrap_or(&s.to).to_owned(),
                    relation: s.relation.as_str().to_owned(),
                    external: s.external,
                })
                .collect(),
            injection_points: d
                .injection_points
                .iter()
                .map(|p| InjectionSummary {
                    name: self.display_name(&p.id),
                    declared_type: p.declared_type.as_ref().map(|t| self.display_name(t)),
                    candidates: p.candidates.iter().map(|c| self.display_name(c)).collect(),
                })
                .collect(),
            parts,
            ..MemberPack::default()
        }
    }

    fn module_member(&self, m: &ModuleFact, records: &dyn RecordSource) -> MemberPack {
        let no_children = Rc::new(Vec::new());
        MemberPack {
            id: String::from(&*m.id),
            level: Some(Level::Module),
            kind: self.module_kind(&m.id),
            name: m.name.as_deref().unwrap_or(&m.id).to_owned(),
            comments: self.comments_of(self.graph.index_of(&m.id)),
            imports: m
                .imports
                .iter()
                .map(|i| ImportSummary {
                    name: i.name.as_deref().unwrap_or(&i.to).to_owned(),
                    count: i.count as u64,
                    external: i.external,
                })
                .collect(),
            parts: m
                .types
                .iter()
                .filter(|t| self.types.contains_key(*t))
                .map(|t| self.summary_of(t, records, no_children.clone()))
                .collect(),
            ..MemberPack::default()
        }
    }

    /// The dependencies proper of `unit` (docs/formats/prompts.md §1): the
    /// summaries of its dependency units, except those whose members are all
    /// parts of its own members (a type's operations, a module's types).
    fn dependencies(
        &self,
        unit: &Unit,
        members: &[MemberPack],
        depth: u32,
        records: &dyn RecordSource,
    ) -> Vec<DependencySummary> {
        let parts: HashSet<&str> = members.iter().flat_map(|m| m.parts.iter().map(|p| &*p.id)).collect();
        let covered = |m: &String| !parts.is_empty() && parts.contains(m.as_str());
        let root = self.walk.unit_index(&unit.id);
        let deps: Cow<[usize]> = match root {
            Some(i) => Cow::Borrowed(self.walk.dependency_indexes(i)),
            None => unit.deps.iter().filter_map(|d| self.walk.unit_index(d)).collect(),
        };
        let mut seen: Vec<usize> = root.into_iter().collect();
        let mut out = Vec::new();
        for &d in deps.iter() {
            if !self.walk.units[d].members.iter().all(covered) {
                out.extend(self.summaries_of(d, depth, &mut seen, records));
            }
        }
        out
    }

    /// The context pack of `unit` (docs/formats/prompts.md §1): members,
    /// dependencies proper and the fingerprint inputs.
    pub fn pack(&self, unit: &Unit, depth: u32, slicer: &SourceSlicer, records: &dyn RecordSource) -> ContextPack {
        let members: Vec<MemberPack> = unit
            .members
            .iter()
            .map(|id| match unit.level {
                Level::Operation => {
                    let (op, d) = self.operation(id).expect("operation unit member");
                    self.operation_member(op, d, slicer)
                }
                Level::Type => self.type_member(self.dossier(id).expect("type unit member"), slicer, records),
                Level::Module => self.module_member(self.module_fact(id).expect("module unit member"), records),
            })
            .collect();
        let dependencies = self.dependencies(unit, &members, depth, records);
        ContextPack {
            unit_id: unit.id.clone(),
            level: unit.level,
            sources: members.iter().map(|m| m.source.as_ref().map(|s| s.text.clone()).unwrap_or_default()).collect(),
            comments: members.iter().flat_map(|m| m.comments.iter().cloned()).collect(),
            signatures: members.iter().map(|m| m.signature.clone().unwrap_or_default()).collect(),
            facts_digest: facts_digest(&members),
            members,
            dependencies,
            depth,
        }
    }

    /// The first operation anchor's file (else the first type anchor's): the
    /// probe that tells whether a source root is right.
    pub fn probe_file(&self) -> Option<String> {
        let op = self.facts.types.iter().flat_map(|d| d.operations.iter()).find_map(|o| o.anchor.as_ref());
        let ty = || self.facts.types.iter().find_map(|d| d.anchor.as_ref());
        op.or_else(ty).map(|a| a.file.to_string())
    }
}

/// A checked `--scope`.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    listed: HashSet<u32>,
    /// Set for a retry scope: the unit indexes to explain.
    units: Option<HashSet<usize>>,
}
