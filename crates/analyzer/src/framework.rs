//! The opt-in framework layer: stereotypes, entry points and injection points
//! from annotation uses, matched by
//! `(name of containingModule(annotation), annotation name)` — never by
//! parsing an id. Only Spring is profiled.

use std::cmp::Ordering;

use hashbrown::{HashMap, HashSet};
use model::{EdgeKind, Literal, NamedArgument, Trait};
use serde::Serialize;

use crate::graph::CodeGraph;
use crate::json::SourceAnchor;
use crate::Id;

/// A framework profile name (`FRAMEWORK_PROFILES = {spring}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Framework {
    Spring,
}

impl Framework {
    pub const ALL: &'static [Framework] = &[Framework::Spring];

    pub fn as_str(self) -> &'static str {
        match self {
            Framework::Spring => "spring",
        }
    }
    /// `--framework <name>`.
    pub fn from_name(name: &str) -> Option<Framework> {
        match name {
            "spring" => Some(Framework::Spring),
            _ => None,
        }
    }
    pub fn profile(self) -> &'static FrameworkProfile {
        match self {
            Framework::Spring => &SPRING,
        }
    }
}

/// What an annotation means to the framework.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Stereotype,
    InjectionPoint,
    EntryPoint,
    Qualifier,
    Primary,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Stereotype => "stereotype",
            Role::InjectionPoint => "injection-point",
            Role::EntryPoint => "entry-point",
            Role::Qualifier => "qualifier",
            Role::Primary => "primary",
        }
    }
}

impl Serialize for Role {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One row of a profile table: module · simple name → role [, stereotype].
#[derive(Clone, Copy, Debug)]
pub struct AnnotationSpec {
    pub module: &'static str,
    pub name: &'static str,
    pub role: Role,
    pub stereotype: Option<&'static str>,
}

/// A framework profile.
#[derive(Debug)]
pub struct FrameworkProfile {
    pub framework: &'static str,
    pub annotations: &'static [AnnotationSpec],
    pub implicit_sole_constructor_injection: bool,
}

const fn spec(
    module: &'static str,
    name: &'static str,
    role: Role,
    stereotype: Option<&'static str>,
) -> AnnotationSpec {
    AnnotationSpec { module, name, role, stereotype }
}

const STEREOTYPE: &str = "org.springframework.stereotype";
const WEB: &str = "org.springframework.web.bind.annotation";
const CONTEXT: &str = "org.springframework.context.annotation";
const BEANS: &str = "org.springframework.beans.factory.annotation";

static SPRING_ANNOTATIONS: &[AnnotationSpec] = &[
    spec(STEREOTYPE, "Component", Role::Stereotype, Some("component")),
    spec(STEREOTYPE, "Service", Role::Stereotype, Some("service")),
    spec(STEREOTYPE, "Repository", Role::Stereotype, Some("repository")),
    spec(STEREOTYPE, "Controller", Role::Stereotype, Some("controller")),
    spec(WEB, "RestController", Role::Stereotype, Some("controller")),
    spec(WEB, "ControllerAdvice", Role::Stereotype, Some("controller")),
    spec(CONTEXT, "Configuration", Role::Stereotype, Some("configuration")),
    spec("org.springframework.boot.autoconfigure", "SpringBootApplication", Role::Stereotype, Some("configuration")),
    spec(BEANS, "Autowired", Role::InjectionPoint, None),
    spec("javax.inject", "Inject", Role::InjectionPoint, None),
    spec("jakarta.inject", "Inject", Role::InjectionPoint, None),
    spec("javax.annotation", "Resource", Role::InjectionPoint, None),
    spec("jakarta.annotation", "Resource", Role::InjectionPoint, None),
    spec(WEB, "RequestMapping", Role::EntryPoint, None),
    spec(WEB, "GetMapping", Role::EntryPoint, None),
    spec(WEB, "PostMapping", Role::EntryPoint, None),
    spec(WEB, "PutMapping", Role::EntryPoint, None),
    spec(WEB, "DeleteMapping", Role::EntryPoint, None),
    spec(WEB, "PatchMapping", Role::EntryPoint, None),
    spec(WEB, "InitBinder", Role::EntryPoint, None),
    spec(WEB, "ModelAttribute", Role::EntryPoint, None),
    spec("org.springframework.context.event", "EventListener", Role::EntryPoint, None),
    spec("org.springframework.scheduling.annotation", "Scheduled", Role::EntryPoint, None),
    spec(CONTEXT, "Bean", Role::EntryPoint, None),
    spec(BEANS, "Qualifier", Role::Qualifier, None),
    spec("javax.inject", "Named", Role::Qualifier, None),
    spec("jakarta.inject", "Named", Role::Qualifier, None),
    spec(CONTEXT, "Primary", Role::Primary, None),
];

/// The Spring profile.
pub static SPRING: FrameworkProfile = FrameworkProfile {
    framework: "spring",
    annotations: SPRING_ANNOTATIONS,
    implicit_sole_constructor_injection: true,
};

/// What the framework says an entity IS.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoleAssignment {
    /// The annotated entity.
    pub id: Id,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stereotype: Option<&'static str>,
    /// The annotation that said so.
    pub annotation: Id,
}

/// How an injection point was recognized.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Via {
    #[serde(rename = "annotation")]
    Annotation,
    #[serde(rename = "sole-constructor")]
    SoleConstructor,
}

/// Where the container hands a dependency in.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InjectionPoint {
    /// The attribute or parameter the container fills.
    pub id: Id,
    /// The stereotyped type it belongs to.
    pub consumer: Id,
    /// The declared type asked for; absent when the model does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_type: Option<Id>,
    pub via: Via,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<String>,
    /// Corpus implementations the container could supply, sorted.
    pub candidates: Vec<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Wiring diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WiringDiagnostics {
    /// Points whose declared type is absent or unknown.
    pub unresolved_types: u32,
    /// Points with no corpus implementation.
    pub unimplemented: u32,
    /// Points narrowed by a qualifier or `@Primary`.
    pub narrowed: u32,
}

/// An in-memory-only `reference` edge consumer → candidate, provenance
/// `dynamic-candidate` (never written to a model).
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateEdge {
    pub from: Id,
    pub to: Id,
    pub anchor: Option<SourceAnchor>,
    pub candidates: Vec<Id>,
}

/// The derived framework wiring.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameworkWiring {
    pub framework: &'static str,
    /// Sorted by (id, role, annotation).
    pub roles: Vec<RoleAssignment>,
    /// Sorted by id.
    pub injection_points: Vec<InjectionPoint>,
    /// Sorted by (from, to).
    pub edges: Vec<CandidateEdge>,
    pub diagnostics: WiringDiagnostics,
}

struct Hit<'m> {
    on: u32,
    annotation: u32,
    spec: &'static AnnotationSpec,
    arguments: &'m [NamedArgument<u32>],
}

/// The `value` argument when it is a `string` literal.
fn string_argument<R>(args: &[NamedArgument<R>]) -> Option<&str> {
    args.iter().filter(|a| a.name == "value").find_map(|a| match &a.value {
        Literal::String(v) => Some(v.as_str()),
        _ => None,
    })
}

fn anchor_of(graph: &CodeGraph<'_>, i: u32) -> Option<SourceAnchor> {
    graph.entity(i).anchor().map(|a| SourceAnchor { file: graph.file(a.file).clone(), span: [a.start, a.end] })
}

/// `deriveFrameworkWiring(graph, profile)`: reads every `annotationUse` edge
/// of the graph (views do not apply here).
pub fn derive_framework_wiring(graph: &CodeGraph<'_>, profile: &'static FrameworkProfile) -> FrameworkWiring {
    let model = graph.model();
    let by_key: HashMap<(&str, &str), &'static AnnotationSpec> =
        profile.annotations.iter().map(|s| ((s.module, s.name), s)).collect();
    let mut hits = Vec::new();
    for (k, edge) in model.edges().iter().enumerate() {
        if edge.kind != EdgeKind::AnnotationUse {
            continue;
        }
        let (Some(name), Some(module)) = (graph.entity_name(edge.to), graph.containing_module(edge.to)) else {
            continue;
        };
        let module_name = graph.entity_name(module).unwrap_or("");
        if let Some(spec) = by_key.get(&(module_name, name)) {
            hits.push(Hit { on: edge.from, annotation: edge.to, spec, arguments: model.edge(k as u32).arguments() });
        }
    }

    let mut roles: Vec<RoleAssignment> = hits
        .iter()
        .map(|h| RoleAssignment {
            id: graph.id(h.on).clone(),
            role: h.spec.role,
            stereotype: h.spec.stereotype,
            annotation: graph.id(h.annotation).clone(),
        })
        .collect();
    roles.sort_by(cmp_roles);

    // Stereotyped types in role order (sorted by id).
    let mut stereotyped: Vec<u32> = Vec::new();
    let mut stereotyped_set: HashSet<u32> = HashSet::new();
    let mut sorted_hits: Vec<&Hit> = hits.iter().collect();
    sorted_hits.sort_by(|a, b| graph.cmp(a.on, b.on));
    for h in &sorted_hits {
        if h.spec.role == Role::Stereotype && stereotyped_set.insert(h.on) {
            stereotyped.push(h.on);
        }
    }
    let primaries: HashSet<u32> = hits.iter().filter(|h| h.spec.role == Role::Primary).map(|h| h.on).collect();
    let mut qualifier_of: HashMap<u32, String> = HashMap::new();
    for h in &hits {
        if h.spec.role == Role::Qualifier {
            if let Some(v) = string_argument(h.arguments) {
                qualifier_of.insert(h.on, v.to_string());
            }
        }
    }

    // Injection points (step 3).
    let mut points: Vec<(u32, u32, Via)> = Vec::new();
    let mut seen: HashSet<u32> = HashSet::new();
    let mut add = |id: u32, via: Via, points: &mut Vec<(u32, u32, Via)>| {
        if seen.contains(&id) {
            return;
        }
        let Some(consumer) = consumer_of(graph, id) else { return };
        if !stereotyped_set.contains(&consumer) {
            return;
        }
        seen.insert(id);
        points.push((id, consumer, via));
    };
    let mut annotated_seen: HashSet<u32> = HashSet::new();
    for h in &hits {
        if h.spec.role != Role::InjectionPoint || !annotated_seen.insert(h.on) {
            continue;
        }
        match graph.entity(h.on).parameters() {
            Some(params) => params.iter().for_each(|&p| add(p, Via::Annotation, &mut points)),
            None => add(h.on, Via::Annotation, &mut points),
        }
    }
    if profile.implicit_sole_constructor_injection {
        for &t in &stereotyped {
            let constructors: Vec<u32> =
                graph.children_of(t).iter().copied().filter(|&c| graph.kind(c) == "constructor").collect();
            if let [only] = constructors[..] {
                for &p in graph.entity(only).parameters().unwrap_or(&[]) {
                    add(p, Via::SoleConstructor, &mut points);
                }
            }
        }
    }

    // Resolution (steps 4–5).
    let mut diagnostics = WiringDiagnostics::default();
    let mut resolved = Vec::with_capacity(points.len());
    let mut edges = Vec::new();
    for (id, consumer, via) in points {
        let declared = graph.entity(id).declared_type();
        let mut point = InjectionPoint {
            id: graph.id(id).clone(),
            consumer: graph.id(consumer).clone(),
            declared_type: declared.map(|d| graph.id(d).clone()),
            via,
            qualifier: None,
            candidates: vec![],
            note: None,
        };
        let Some(declared) = declared.filter(|&d| (d as usize) < graph.len()) else {
            diagnostics.unresolved_types += 1;
            point.note =
                Some("declared type unknown: the model has no entity for it, so no candidate can be named".into());
            resolved.push(point);
            continue;
        };
        let all: Vec<u32> = graph.implementers_of(declared).iter().copied().filter(|&c| !graph.is_stub(c)).collect();
        let qualifier = qualifier_of.get(&id).cloned();
        let narrowed = narrow(graph, &all, qualifier.as_deref(), &primaries, &hits);
        let was_narrowed = narrowed.len() != all.len();
        if was_narrowed {
            diagnostics.narrowed += 1;
        }
        let mut candidates = narrowed;
        candidates.sort_by(|&a, &b| graph.cmp(a, b));
        point.candidates = candidates.iter().map(|&c| graph.id(c).clone()).collect();
        point.qualifier = qualifier.clone();
        if candidates.is_empty() {
            diagnostics.unimplemented += 1;
            point.note = Some(if graph.is_stub(declared) {
                "declared outside the corpus: the bean comes from a library or the container".into()
            } else {
                "nothing in the corpus implements this type: the container has to provide the bean at run time".into()
            });
            resolved.push(point);
            continue;
        }
        if was_narrowed {
            let by = match &qualifier {
                Some(q) => format!("@Qualifier(\"{q}\")"),
                None => "@Primary".into(),
            };
            point.note = Some(format!("{by} picks these out of {} implementations in the corpus", all.len()));
        }
        let anchor = anchor_of(graph, id).or_else(|| anchor_of(graph, consumer));
        for &c in &candidates {
            if c == consumer {
                continue;
            }
            edges.push(CandidateEdge {
                from: graph.id(consumer).clone(),
                to: graph.id(c).clone(),
                anchor: anchor.clone(),
                candidates: point.candidates.clone(),
            });
        }
        resolved.push(point);
    }
    resolved.sort_by(|a, b| model::cmp_utf16(&a.id, &b.id));
    edges.sort_by(|a, b| model::cmp_utf16(&a.from, &b.from).then_with(|| model::cmp_utf16(&a.to, &b.to)));
    FrameworkWiring { framework: profile.framework, roles, injection_points: resolved, edges, diagnostics }
}

/// The nearest ancestor with `TType` (≤ 32 steps).
fn consumer_of(graph: &CodeGraph<'_>, id: u32) -> Option<u32> {
    let mut current = graph.parent_of(id);
    for _ in 0..32 {
        let c = current?;
        if graph.has_trait(c, Trait::Type) {
            return Some(c);
        }
        current = graph.parent_of(c);
    }
    None
}

/// Qualifier first, `@Primary` second.
fn narrow(
    graph: &CodeGraph<'_>,
    candidates: &[u32],
    qualifier: Option<&str>,
    primaries: &HashSet<u32>,
    hits: &[Hit],
) -> Vec<u32> {
    if candidates.len() <= 1 {
        return candidates.to_vec();
    }
    if let Some(q) = qualifier {
        let named: Vec<u32> =
            candidates.iter().copied().filter(|&c| bean_names(graph, c, hits).iter().any(|n| n == q)).collect();
        if !named.is_empty() {
            return named;
        }
    }
    let primary: Vec<u32> = candidates.iter().copied().filter(|c| primaries.contains(c)).collect();
    if primary.len() == 1 {
        return primary;
    }
    candidates.to_vec()
}

/// A bean's names: its decapitalized simple name and the string `value` of
/// its stereotype annotations.
fn bean_names(graph: &CodeGraph<'_>, id: u32, hits: &[Hit]) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(simple) = graph.entity_name(id).filter(|s| !s.is_empty()) {
        names.push(decapitalize(simple));
    }
    for h in hits {
        if h.on == id && h.spec.role == Role::Stereotype {
            if let Some(v) = string_argument(h.arguments).filter(|v| !v.is_empty()) {
                names.push(v.to_string());
            }
        }
    }
    names
}

/// JavaScript's `s[0].toLowerCase() + s.slice(1)` (on the first UTF-16 unit).
fn decapitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The role order: (id, role, annotation), plain string comparison.
pub fn cmp_roles(a: &RoleAssignment, b: &RoleAssignment) -> Ordering {
    model::cmp_utf16(&a.id, &b.id)
        .then_with(|| a.role.as_str().cmp(b.role.as_str()))
        .then_with(|| model::cmp_utf16(&a.annotation, &b.annotation))
}
