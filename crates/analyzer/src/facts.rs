//! The domain-facts dossier, artifact kind `codegraph.domainFacts/1`: a
//! per-type fact sheet that interprets nothing apart from the opt-in framework
//! layer ([`crate::framework`]).
//!
//! Field order of every struct is the serialized key order; optional fields
//! are omitted when absent. [`DomainFacts::to_json_string`] writes the
//! artifact byte-exactly (2-space indentation, trailing newline).

use hashbrown::{HashMap, HashSet};
use model::{EdgeKind, Literal, NamedArgument, Provenance, Trait};
use serde::Serialize;

use crate::fold::import_graph;
use crate::framework::{derive_framework_wiring, Framework, InjectionPoint, Role, WiringDiagnostics};
use crate::graph::CodeGraph;
use crate::json::{Metrics, SourceAnchor};
use crate::view::{View, ViewDescriptor};
use crate::Id;

/// `kind` of the artifact.
pub const DOMAIN_FACTS_KIND: &str = "codegraph.domainFacts/1";
/// `generatedBy` of the artifact.
pub const GENERATED_BY: &str = "@codegraph/analyzer";

/// One written annotation on one entity.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnnotationFact {
    /// The annotation type (normally a stub).
    pub annotation: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    /// Name of the annotation type's containing module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<Id>,
    #[serde(serialize_with = "crate::json::ser_arguments")]
    pub arguments: Vec<NamedArgument<Id>>,
    pub anchor: SourceAnchor,
}

/// One outgoing call of an operation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationFact {
    pub to: Id,
    /// `containingType(to)` (the target itself when it is a type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_type: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_type_name: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_stereotype: Option<&'static str>,
    /// `isStub(to) || isStub(targetType)`.
    pub external: bool,
    #[serde(serialize_with = "crate::json::ser_provenance")]
    pub provenance: Provenance,
    pub anchor: SourceAnchor,
}

/// One field read or write.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessFact {
    pub to: Id,
    /// The target's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_type: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_type_name: Option<Id>,
    pub is_read: bool,
    pub is_write: bool,
    pub external: bool,
    #[serde(serialize_with = "crate::json::ser_provenance")]
    pub provenance: Provenance,
    pub anchor: SourceAnchor,
}

/// One written `throw` site.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThrowFact {
    pub to: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    pub external: bool,
    #[serde(serialize_with = "crate::json::ser_provenance")]
    pub provenance: Provenance,
    pub anchor: SourceAnchor,
}

/// `inheritance` or `interfaceImplementation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Inheritance,
    InterfaceImplementation,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Inheritance => "inheritance",
            Relation::InterfaceImplementation => "interfaceImplementation",
        }
    }
}

impl Serialize for Relation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A supertype of a type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SupertypeFact {
    pub to: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    pub relation: Relation,
    /// `isStub(to)`.
    pub external: bool,
    #[serde(serialize_with = "crate::json::ser_provenance")]
    pub provenance: Provenance,
}

/// A structural child of a type.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldFact {
    pub id: Id,
    pub kind: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_type: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_type_name: Option<Id>,
    /// The declared type's raw profile kind (`enum`, `class`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_type_kind: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_type_external: Option<bool>,
    pub annotations: Vec<AnnotationFact>,
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "crate::json::ser_literal")]
    pub value: Option<Literal<Id>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<SourceAnchor>,
}

/// An invocable child of a type with the facts of its body.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationFact {
    pub id: Id,
    pub kind: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<SourceAnchor>,
    /// Gross span length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loc: Option<u32>,
    /// A framework entry-point annotation sits on it.
    pub entry_point: bool,
    pub annotations: Vec<AnnotationFact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    /// Sorted by site (file, start, end, to), nested lambdas included.
    pub invocations: Vec<InvocationFact>,
    pub accesses: Vec<AccessFact>,
    pub throws: Vec<ThrowFact>,
}

/// The per-type fact sheet.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeDossier {
    pub id: Id,
    pub kind: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    /// `containingModule(id)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<SourceAnchor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loc: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stereotype: Option<&'static str>,
    pub annotations: Vec<AnnotationFact>,
    /// Sorted by (to, relation).
    pub supertypes: Vec<SupertypeFact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
    pub fields: Vec<FieldFact>,
    pub operations: Vec<OperationFact>,
    pub injection_points: Vec<InjectionPoint>,
}

/// One import of a module.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModuleImportFact {
    pub to: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    /// Base import edges aggregated.
    pub count: u32,
    pub external: bool,
}

/// A corpus module.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModuleFact {
    pub id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Id>,
    /// Dossier type ids whose containing module is this one, sorted.
    pub types: Vec<Id>,
    /// Sorted by target.
    pub imports: Vec<ModuleImportFact>,
}

/// Counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainFactsDiagnostics {
    pub types: u64,
    pub operations: u64,
    pub invocations: u64,
    pub accesses: u64,
    pub throw_sites: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wiring: Option<WiringDiagnostics>,
}

/// The artifact.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainFacts {
    pub kind: &'static str,
    pub generated_by: &'static str,
    pub view: ViewDescriptor,
    pub langs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub framework: Option<&'static str>,
    /// Sorted by id.
    pub modules: Vec<ModuleFact>,
    /// Sorted by id.
    pub types: Vec<TypeDossier>,
    pub diagnostics: DomainFactsDiagnostics,
}

impl DomainFacts {
    /// `domainFactsToJsonString`: 2-space-indented JSON plus a trailing newline.
    pub fn to_json_string(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("domain facts always serialize");
        s.push('\n');
        s
    }
    /// The dossier of a type id.
    pub fn type_dossier(&self, id: &str) -> Option<&TypeDossier> {
        self.types.binary_search_by(|t| model::cmp_utf16(&t.id, id)).ok().map(|i| &self.types[i])
    }
    /// The fact of a module id.
    pub fn module(&self, id: &str) -> Option<&ModuleFact> {
        self.modules.binary_search_by(|m| model::cmp_utf16(&m.id, id)).ok().map(|i| &self.modules[i])
    }
}

/// The sort key "by site": anchor file (UTF-16), start, end, then `to`.
type SiteKey = (u32, u32, u32, u32);

struct Builder<'g, 'm> {
    graph: &'g CodeGraph<'m>,
    view: &'g View,
    stereotype_of: HashMap<u32, &'static str>,
    entry_points: HashSet<u32>,
    metric_names: HashMap<&'m str, Id>,
    /// BFS scratch: visit stamp per entity.
    stamp: Vec<u32>,
    round: u32,
    queue: Vec<u32>,
    diagnostics: DomainFactsDiagnostics,
}

impl<'m> Builder<'_, 'm> {
    fn anchor(&self, a: model::Anchor) -> SourceAnchor {
        SourceAnchor { file: self.graph.file(a.file).clone(), span: [a.start, a.end] }
    }

    fn site(&self, a: model::Anchor, to: u32) -> SiteKey {
        (self.graph.file_rank(a.file), a.start, a.end, self.graph.rank(to))
    }

    fn entity_anchor(&self, i: u32) -> Option<SourceAnchor> {
        self.graph.entity(i).anchor().map(|a| self.anchor(a))
    }

    fn metrics(&mut self, i: u32) -> Option<Metrics> {
        let metrics = self.graph.entity(i).metrics()?;
        let names = &mut self.metric_names;
        Some(Metrics(metrics.map(|(k, v)| (names.entry(k).or_insert_with(|| Id::from(k)).clone(), v)).collect()))
    }

    fn name(&self, i: u32) -> Option<Id> {
        self.graph.name_id(i).cloned()
    }

    fn render(&self, l: &Literal<u32>) -> Literal<Id> {
        l.map_refs(&mut |r| self.graph.id(*r).clone())
    }

    fn annotations(&self, i: u32) -> Vec<AnnotationFact> {
        let g = self.graph;
        let model = g.model();
        let mut facts: Vec<(SiteKey, AnnotationFact)> = Vec::new();
        for &k in g.outgoing(i) {
            let edge = model.edge(k);
            if edge.kind != EdgeKind::AnnotationUse || !self.view.includes_edge(g, &edge) {
                continue;
            }
            let module = g.containing_module(edge.to).and_then(|m| self.name(m));
            let arguments = edge
                .arguments()
                .iter()
                .map(|a| NamedArgument { name: a.name.clone(), value: self.render(&a.value) })
                .collect();
            facts.push((
                self.site(edge.anchor, edge.to),
                AnnotationFact {
                    annotation: g.id(edge.to).clone(),
                    name: self.name(edge.to),
                    module,
                    arguments,
                    anchor: self.anchor(edge.anchor),
                },
            ));
        }
        facts.sort_by_key(|f| f.0);
        facts.into_iter().map(|f| f.1).collect()
    }

    fn operation(&mut self, op: u32) -> OperationFact {
        let g = self.graph;
        let model = g.model();
        let mut invocations: Vec<(SiteKey, InvocationFact)> = Vec::new();
        let mut accesses: Vec<(SiteKey, AccessFact)> = Vec::new();
        let mut throws: Vec<(SiteKey, ThrowFact)> = Vec::new();
        // Fact sources: breadth-first over children, stopping at nested types.
        self.round += 1;
        let round = self.round;
        self.queue.clear();
        self.queue.push(op);
        self.stamp[op as usize] = round;
        let mut head = 0;
        while head < self.queue.len() {
            let source = self.queue[head];
            head += 1;
            for &child in g.children_of(source) {
                if g.has_trait(child, Trait::Type) || self.stamp[child as usize] == round {
                    continue;
                }
                self.stamp[child as usize] = round;
                self.queue.push(child);
            }
            for &k in g.outgoing(source) {
                let edge = &model.edges()[k as usize];
                if !matches!(edge.kind, EdgeKind::Invocation | EdgeKind::Access | EdgeKind::Throws)
                    || !self.view.includes_edge(g, edge)
                {
                    continue;
                }
                let site = self.site(edge.anchor, edge.to);
                let to = g.id(edge.to).clone();
                let anchor = self.anchor(edge.anchor);
                let stub_to = g.is_stub(edge.to);
                match edge.kind {
                    EdgeKind::Invocation => {
                        let target_type = g.containing_type(edge.to);
                        invocations.push((
                            site,
                            InvocationFact {
                                to,
                                target_type: target_type.map(|t| g.id(t).clone()),
                                target_type_name: target_type.and_then(|t| self.name(t)),
                                target_stereotype: target_type.and_then(|t| self.stereotype_of.get(&t).copied()),
                                external: stub_to || target_type.is_some_and(|t| g.is_stub(t)),
                                provenance: edge.provenance,
                                anchor,
                            },
                        ));
                    }
                    EdgeKind::Access => {
                        let owner = g.containing_type(edge.to);
                        accesses.push((
                            site,
                            AccessFact {
                                to,
                                field: self.name(edge.to),
                                owner_type: owner.map(|t| g.id(t).clone()),
                                owner_type_name: owner.and_then(|t| self.name(t)),
                                is_read: edge.is_read().unwrap_or(false),
                                is_write: edge.is_write().unwrap_or(false),
                                external: stub_to || owner.is_some_and(|t| g.is_stub(t)),
                                provenance: edge.provenance,
                                anchor,
                            },
                        ));
                    }
                    _ => throws.push((
                        site,
                        ThrowFact {
                            to,
                            name: self.name(edge.to),
                            external: stub_to,
                            provenance: edge.provenance,
                            anchor,
                        },
                    )),
                }
            }
        }
        invocations.sort_by_key(|f| f.0);
        accesses.sort_by_key(|f| f.0);
        throws.sort_by_key(|f| f.0);
        self.diagnostics.operations += 1;
        self.diagnostics.invocations += invocations.len() as u64;
        self.diagnostics.accesses += accesses.len() as u64;
        self.diagnostics.throw_sites += throws.len() as u64;

        let e = g.entity(op);
        let anchor = self.entity_anchor(op);
        OperationFact {
            id: g.id(op).clone(),
            kind: g.kind_id(op).clone(),
            name: self.name(op),
            signature: e.signature().map(Id::from),
            loc: anchor.as_ref().map(SourceAnchor::loc),
            anchor,
            entry_point: self.entry_points.contains(&op),
            annotations: self.annotations(op),
            metrics: self.metrics(op),
            invocations: invocations.into_iter().map(|f| f.1).collect(),
            accesses: accesses.into_iter().map(|f| f.1).collect(),
            throws: throws.into_iter().map(|f| f.1).collect(),
        }
    }

    fn field(&mut self, i: u32) -> FieldFact {
        let g = self.graph;
        let e = g.entity(i);
        let declared = e.declared_type().filter(|&d| (d as usize) < g.len());
        let value = if e.has_trait(Trait::WithValue) { e.value().map(|v| self.render(v)) } else { None };
        FieldFact {
            id: g.id(i).clone(),
            kind: g.kind_id(i).clone(),
            name: self.name(i),
            declared_type: declared.map(|d| g.id(d).clone()),
            declared_type_name: declared.and_then(|d| self.name(d)),
            declared_type_kind: declared.map(|d| g.kind_id(d).clone()),
            declared_type_external: declared.map(|d| g.is_stub(d)),
            annotations: self.annotations(i),
            value,
            anchor: self.entity_anchor(i),
        }
    }

    fn supertypes(&self, t: u32) -> Vec<SupertypeFact> {
        let g = self.graph;
        let model = g.model();
        let mut out: Vec<(u32, &'static str, SupertypeFact)> = Vec::new();
        for &k in g.outgoing(t) {
            let edge = &model.edges()[k as usize];
            let relation = match edge.kind {
                EdgeKind::Inheritance => Relation::Inheritance,
                EdgeKind::InterfaceImplementation => Relation::InterfaceImplementation,
                _ => continue,
            };
            if !self.view.includes_edge(g, edge) {
                continue;
            }
            out.push((
                g.rank(edge.to),
                relation.as_str(),
                SupertypeFact {
                    to: g.id(edge.to).clone(),
                    name: self.name(edge.to),
                    relation,
                    external: g.is_stub(edge.to),
                    provenance: edge.provenance,
                },
            ));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
        out.into_iter().map(|f| f.2).collect()
    }
}

/// `buildDomainFacts(graph, {view, framework})`. Pure.
pub fn build_domain_facts(graph: &CodeGraph<'_>, view: &View, framework: Option<Framework>) -> DomainFacts {
    let wiring = framework.map(|f| derive_framework_wiring(graph, f.profile()));
    let mut stereotype_of = HashMap::new();
    let mut entry_points = HashSet::new();
    let mut points_by_consumer: HashMap<Id, Vec<InjectionPoint>> = HashMap::new();
    if let Some(w) = &wiring {
        for role in &w.roles {
            let Some(i) = graph.index_of(&role.id) else { continue };
            if role.role == Role::Stereotype {
                if let Some(s) = role.stereotype {
                    // First (sorted) assignment wins for a doubly-stereotyped type.
                    stereotype_of.entry(i).or_insert(s);
                }
            }
            if role.role == Role::EntryPoint {
                entry_points.insert(i);
            }
        }
        for p in &w.injection_points {
            points_by_consumer.entry(p.consumer.clone()).or_default().push(p.clone());
        }
    }

    let mut b = Builder {
        graph,
        view,
        stereotype_of,
        entry_points,
        metric_names: HashMap::new(),
        stamp: vec![0; graph.len()],
        round: 0,
        queue: Vec::new(),
        diagnostics: DomainFactsDiagnostics::default(),
    };

    let mut types_by_module: HashMap<u32, Vec<Id>> = HashMap::new();
    let mut types = Vec::new();
    for &t in graph.sorted() {
        if !graph.has_trait(t, Trait::Type) || graph.is_stub(t) || !view.keeps_entity(graph, t) {
            continue;
        }
        let module = graph.containing_module(t);
        if let Some(m) = module {
            types_by_module.entry(m).or_default().push(graph.id(t).clone());
        }
        let mut fields = Vec::new();
        let mut operations = Vec::new();
        for &child in graph.children_of(t) {
            if !view.keeps_entity(graph, child) {
                continue;
            }
            if graph.has_trait(child, Trait::Invocable) {
                operations.push(b.operation(child));
            } else if graph.has_trait(child, Trait::Structural) {
                fields.push(b.field(child));
            }
        }
        let anchor = b.entity_anchor(t);
        let id = graph.id(t).clone();
        types.push(TypeDossier {
            injection_points: points_by_consumer.remove(&id).unwrap_or_default(),
            id,
            kind: graph.kind_id(t).clone(),
            name: b.name(t),
            module: module.map(|m| graph.id(m).clone()),
            loc: anchor.as_ref().map(SourceAnchor::loc),
            anchor,
            stereotype: b.stereotype_of.get(&t).copied(),
            annotations: b.annotations(t),
            supertypes: b.supertypes(t),
            metrics: b.metrics(t),
            fields,
            operations,
        });
    }
    b.diagnostics.types = types.len() as u64;

    let imports = import_graph(graph, view);
    let mut modules = Vec::new();
    for &m in graph.sorted() {
        if !graph.has_trait(m, Trait::Module) || graph.is_stub(m) || !view.keeps_entity(graph, m) {
            continue;
        }
        let id = graph.id(m);
        modules.push(ModuleFact {
            id: id.clone(),
            name: b.name(m),
            types: types_by_module.remove(&m).unwrap_or_default(),
            imports: imports
                .outgoing(id)
                .iter()
                .map(|e| {
                    let target = &imports.nodes[e.to_node as usize];
                    ModuleImportFact {
                        to: e.to.clone(),
                        name: target.name.clone(),
                        count: e.count,
                        external: target.is_stub,
                    }
                })
                .collect(),
        });
    }

    let mut diagnostics = b.diagnostics;
    diagnostics.wiring = wiring.as_ref().map(|w| w.diagnostics.clone());
    DomainFacts {
        kind: DOMAIN_FACTS_KIND,
        generated_by: GENERATED_BY,
        view: view.descriptor().clone(),
        langs: vec![graph.model().lang().to_string()],
        framework: framework.map(Framework::as_str),
        modules,
        types,
        diagnostics,
    }
}
