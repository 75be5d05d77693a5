//! Context packs (insights.md §4): everything one unit's prompt shows, and
//! the fingerprint inputs collected on the way. Packs are plain data built
//! from the analyzer's facts (see `units.rs`); rendering them is `prompt.rs`.

use crate::slice::Slice;
use crate::vocab::Level;
use serde_json::{json, Map, Value};
use std::rc::Rc;

/// A call of an operation, as shown and hashed.
#[derive(Clone, Debug, PartialEq)]
pub struct CallFact {
    pub target: String,
    pub target_type: Option<String>,
    pub stereotype: Option<String>,
    pub external: bool,
    pub provenance: String,
}

/// A field access of an operation.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessSummary {
    pub field: String,
    pub owner_type: Option<String>,
    /// `read`, `write` or `read/write`.
    pub mode: &'static str,
    pub external: bool,
}

/// A thrown exception type.
#[derive(Clone, Debug, PartialEq)]
pub struct ThrowSummary {
    pub name: String,
    pub external: bool,
}

/// A field of a type.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSummary {
    pub name: String,
    pub ty: Option<String>,
    pub type_kind: Option<String>,
    pub external: Option<bool>,
    pub value: Option<String>,
    pub annotations: Vec<String>,
}

/// A supertype of a type.
#[derive(Clone, Debug, PartialEq)]
pub struct SupertypeSummary {
    pub name: String,
    /// `inheritance` or `interfaceImplementation`.
    pub relation: String,
    pub external: bool,
}

/// A point where a framework injects a dependency.
#[derive(Clone, Debug, PartialEq)]
pub struct InjectionSummary {
    pub name: String,
    pub declared_type: Option<String>,
    pub candidates: Vec<String>,
}

/// A module import.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportSummary {
    pub name: String,
    pub count: u64,
    pub external: bool,
}

/// What an already explained unit member says about itself (or that it is
/// not explained yet).
#[derive(Clone, Debug, PartialEq)]
pub struct DependencySummary {
    pub id: String,
    pub level: Level,
    pub name: String,
    /// The record's description; empty when missing.
    pub summary: String,
    pub concept: Option<String>,
    /// No record exists: shown as `NOT EXPLAINED`.
    pub missing: bool,
    /// The dependency's own dependencies (`--depth` > 1), shared by all
    /// members of one dependency unit.
    pub children: Rc<Vec<DependencySummary>>,
    /// Set on the last listed member of a dependency cycle too large to list
    /// in full: how many of its members were left out.
    pub omitted: usize,
}

/// One member of a unit, as its prompt shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberPack {
    pub id: String,
    pub level: Option<Level>,
    pub kind: String,
    pub name: String,
    pub signature: Option<String>,
    pub containing_type: Option<String>,
    pub containing_module: Option<String>,
    pub comments: Vec<String>,
    pub annotations: Vec<String>,
    pub metrics: Option<Vec<(String, f64)>>,
    pub entry_point: bool,
    pub stereotype: Option<String>,
    pub source: Option<Slice>,
    pub calls: Vec<CallFact>,
    pub accesses: Vec<AccessSummary>,
    pub throws: Vec<ThrowSummary>,
    pub fields: Vec<FieldSummary>,
    pub supertypes: Vec<SupertypeSummary>,
    pub injection_points: Vec<InjectionSummary>,
    pub parts: Vec<DependencySummary>,
    pub imports: Vec<ImportSummary>,
}

/// Everything one unit's prompt shows, plus its fingerprint inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextPack {
    pub unit_id: String,
    pub level: Level,
    pub members: Vec<MemberPack>,
    pub dependencies: Vec<DependencySummary>,
    pub depth: u32,
    /// Per member: the shown source text, or "".
    pub sources: Vec<String>,
    /// All members' comments, in member order.
    pub comments: Vec<String>,
    /// Per member: the signature, or "".
    pub signatures: Vec<String>,
    /// `digestOf` of the facts projection (§4.5).
    pub facts_digest: String,
}

fn opt_str(v: &Option<String>) -> Value {
    v.as_ref().map_or(Value::Null, |s| Value::String(s.clone()))
}

/// Inserts `key` only when `v` is present (JavaScript `undefined` is omitted).
fn put(map: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        map.insert(key.to_owned(), v);
    }
}

fn number(n: f64) -> Value {
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

impl MemberPack {
    /// The member's facts projection (§4.5): no source, comments or
    /// explanation text; absent optionals omitted as JavaScript omits
    /// `undefined`.
    pub fn facts_projection(&self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("target".into(), json!(c.target));
                put(&mut m, "targetType", c.target_type.as_ref().map(|s| json!(s)));
                put(&mut m, "stereotype", c.stereotype.as_ref().map(|s| json!(s)));
                m.insert("external".into(), json!(c.external));
                m.insert("provenance".into(), json!(c.provenance));
                Value::Object(m)
            })
            .collect();
        let accesses: Vec<Value> = self
            .accesses
            .iter()
            .map(|a| {
                let mut m = Map::new();
                m.insert("field".into(), json!(a.field));
                put(&mut m, "ownerType", a.owner_type.as_ref().map(|s| json!(s)));
                m.insert("mode".into(), json!(a.mode));
                m.insert("external".into(), json!(a.external));
                Value::Object(m)
            })
            .collect();
        let throws: Vec<Value> = self.throws.iter().map(|t| json!({"name": t.name, "external": t.external})).collect();
        let fields: Vec<Value> = self
            .fields
            .iter()
            .map(|f| {
                let mut m = Map::new();
                m.insert("name".into(), json!(f.name));
                put(&mut m, "type", f.ty.as_ref().map(|s| json!(s)));
                put(&mut m, "typeKind", f.type_kind.as_ref().map(|s| json!(s)));
                put(&mut m, "external", f.external.map(|b| json!(b)));
                put(&mut m, "value", f.value.as_ref().map(|s| json!(s)));
                m.insert("annotations".into(), json!(f.annotations));
                Value::Object(m)
            })
            .collect();
        let supertypes: Vec<Value> = self
            .supertypes
            .iter()
            .map(|s| json!({"name": s.name, "relation": s.relation, "external": s.external}))
            .collect();
        let injection: Vec<Value> = self
            .injection_points
            .iter()
            .map(|p| {
                let mut m = Map::new();
                m.insert("name".into(), json!(p.name));
                put(&mut m, "declaredType", p.declared_type.as_ref().map(|s| json!(s)));
                m.insert("candidates".into(), json!(p.candidates));
                Value::Object(m)
            })
            .collect();
        let imports: Vec<Value> =
            self.imports.iter().map(|i| json!({"name": i.name, "count": i.count, "external": i.external})).collect();
        let metrics = match &self.metrics {
            Some(ms) => Value::Object(ms.iter().map(|(k, v)| (k.clone(), number(*v))).collect()),
            None => Value::Null,
        };
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("kind".into(), json!(self.kind));
        m.insert("annotations".into(), json!(self.annotations));
        m.insert("metrics".into(), metrics);
        m.insert("entryPoint".into(), json!(self.entry_point));
        m.insert("stereotype".into(), opt_str(&self.stereotype));
        m.insert("calls".into(), Value::Array(calls));
        m.insert("accesses".into(), Value::Array(accesses));
        m.insert("throws".into(), Value::Array(throws));
        m.insert("fields".into(), Value::Array(fields));
        m.insert("supertypes".into(), Value::Array(supertypes));
        m.insert("injectionPoints".into(), Value::Array(injection));
        m.insert("imports".into(), Value::Array(imports));
        m.insert("partIds".into(), json!(self.parts.iter().map(|p| p.id.as_str()).collect::<Vec<_>>()));
        Value::Object(m)
    }
}
