//! Context packs (docs/formats/prompts.md §1): everything one unit's prompt
//! shows, and the fingerprint inputs collected on the way. Packs are plain data
//! built from the analyzer's facts (see `units.rs`); rendering them is
//! `prompt.rs`.

use crate::canonical::{sha256_hex, write_array, write_number_map, write_object};
use crate::slice::Slice;
use crate::vocab::Level;
use analyzer::Id;
use std::rc::Rc;

/// A call of an operation, as shown and hashed.
#[derive(Clone, Debug, PartialEq)]
pub struct CallFact {
    pub target: Id,
    pub target_type: Option<Id>,
    pub stereotype: Option<&'static str>,
    pub external: bool,
    pub provenance: &'static str,
}

/// A field access of an operation.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessSummary {
    pub field: Id,
    pub owner_type: Option<Id>,
    /// `read`, `write` or `read/write`.
    pub mode: &'static str,
    pub external: bool,
}

/// A thrown exception type.
#[derive(Clone, Debug, PartialEq)]
pub struct ThrowSummary {
    pub name: Id,
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
    pub id: Id,
    pub level: Level,
    pub name: Id,
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
    /// `digestOf` of the facts projection (docs/formats/fingerprints.md §2).
    pub facts_digest: String,
}

impl MemberPack {
    /// Appends the member's facts projection (docs/formats/fingerprints.md §2)
    /// as canonical JSON: no source, comments or explanation text; absent
    /// optionals omitted as JavaScript omits `undefined`.
    pub fn write_facts_projection(&self, out: &mut String) {
        write_object(out, |m| {
            m.objects("accesses", &self.accesses, |f, a| {
                f.bool("external", a.external);
                f.str("field", &a.field);
                f.str("mode", a.mode);
                f.opt_str("ownerType", a.owner_type.as_deref());
            });
            m.strings("annotations", self.annotations.iter().map(String::as_str));
            m.objects("calls", &self.calls, |f, c| {
                f.bool("external", c.external);
                f.str("provenance", c.provenance);
                f.opt_str("stereotype", c.stereotype);
                f.str("target", &c.target);
                f.opt_str("targetType", c.target_type.as_deref());
            });
            m.bool("entryPoint", self.entry_point);
            m.objects("fields", &self.fields, |f, x| {
                f.strings("annotations", x.annotations.iter().map(String::as_str));
                if let Some(e) = x.external {
                    f.bool("external", e);
                }
                f.str("name", &x.name);
                f.opt_str("type", x.ty.as_deref());
                f.opt_str("typeKind", x.type_kind.as_deref());
                f.opt_str("value", x.value.as_deref());
            });
            m.str("id", &self.id);
            m.objects("imports", &self.imports, |f, i| {
                f.number("count", i.count as f64);
                f.bool("external", i.external);
                f.str("name", &i.name);
            });
            m.objects("injectionPoints", &self.injection_points, |f, p| {
                f.strings("candidates", p.candidates.iter().map(String::as_str));
                f.opt_str("declaredType", p.declared_type.as_deref());
                f.str("name", &p.name);
            });
            m.str("kind", &self.kind);
            let metrics = m.key("metrics");
            match &self.metrics {
                Some(ms) => write_number_map(metrics, ms.iter().map(|(k, v)| (k.as_str(), *v))),
                None => metrics.push_str("null"),
            }
            m.strings("partIds", self.parts.iter().map(|p| &*p.id));
            m.str_or_null("stereotype", self.stereotype.as_deref());
            m.objects("supertypes", &self.supertypes, |f, x| {
                f.bool("external", x.external);
                f.str("name", &x.name);
                f.str("relation", &x.relation);
            });
            m.objects("throws", &self.throws, |f, t| {
                f.bool("external", t.external);
                f.str("name", &t.name);
            });
        });
    }
}

/// `digestOf(factsProjection)` of a unit's members
/// (docs/formats/fingerprints.md §2): the projections as one array.
pub fn facts_digest(members: &[MemberPack]) -> String {
    let mut out = String::new();
    write_array(&mut out, members, |out, m| m.write_facts_projection(out));
    sha256_hex(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::digest_of;
    use serde_json::{json, Map, Value};

    /// The projection as docs/formats/fingerprints.md §2 states it, through
    /// `serde_json::Value` (the reference the streaming writer is checked
    /// against).
    fn reference_projection(p: &MemberPack) -> Value {
        fn put(map: &mut Map<String, Value>, key: &str, v: Option<Value>) {
            if let Some(v) = v {
                map.insert(key.to_owned(), v);
            }
        }
        let calls: Vec<Value> = p
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
        let accesses: Vec<Value> = p
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
        let fields: Vec<Value> = p
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
        let injection: Vec<Value> = p
            .injection_points
            .iter()
            .map(|i| {
                let mut m = Map::new();
                m.insert("name".into(), json!(i.name));
                put(&mut m, "declaredType", i.declared_type.as_ref().map(|s| json!(s)));
                m.insert("candidates".into(), json!(i.candidates));
                Value::Object(m)
            })
            .collect();
        let number = |n: f64| serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number);
        json!({
            "id": p.id,
            "kind": p.kind,
            "annotations": p.annotations,
            "metrics": p.metrics.as_ref().map(|ms| ms.iter().map(|(k, v)| (k.clone(), number(*v))).collect::<Map<_, _>>()),
            "entryPoint": p.entry_point,
            "stereotype": p.stereotype,
            "calls": calls,
            "accesses": accesses,
            "throws": p.throws.iter().map(|t| json!({"name": t.name, "external": t.external})).collect::<Vec<_>>(),
            "fields": fields,
            "supertypes": p.supertypes.iter().map(|s| json!({"name": s.name, "relation": s.relation, "external": s.external})).collect::<Vec<_>>(),
            "injectionPoints": injection,
            "imports": p.imports.iter().map(|i| json!({"name": i.name, "count": i.count, "external": i.external})).collect::<Vec<_>>(),
            "partIds": p.parts.iter().map(|d| &*d.id).collect::<Vec<_>>(),
        })
    }

    fn rich() -> MemberPack {
        let dep = |id: &str| DependencySummary {
            id: id.into(),
            level: Level::Operation,
            name: "n".into(),
            summary: String::new(),
            concept: None,
            missing: true,
            children: Rc::new(Vec::new()),
            omitted: 0,
        };
        MemberPack {
            id: "java:p/A\"q\"😀".into(),
            level: Some(Level::Type),
            kind: "class".into(),
            name: "A".into(),
            annotations: vec!["@X(a = \"\\n\")".into(), "@Y".into()],
            metrics: Some(vec![
                ("loc".into(), 12.0),
                ("10".into(), 0.5),
                ("9".into(), f64::NAN),
                ("a/～".into(), 1e21),
                ("a/😀".into(), -0.0),
                ("loc".into(), 13.0),
            ]),
            entry_point: true,
            stereotype: Some("service".into()),
            calls: vec![
                CallFact {
                    target: "f".into(),
                    target_type: Some("T".into()),
                    stereotype: Some("repo"),
                    external: false,
                    provenance: "declared",
                },
                CallFact {
                    target: "g\u{1}".into(),
                    target_type: None,
                    stereotype: None,
                    external: true,
                    provenance: "inferred",
                },
            ],
            accesses: vec![
                AccessSummary { field: "x".into(), owner_type: Some("O".into()), mode: "read/write", external: false },
                AccessSummary { field: "y".into(), owner_type: None, mode: "read", external: true },
            ],
            throws: vec![ThrowSummary { name: "E".into(), external: true }],
            fields: vec![
                FieldSummary {
                    name: "f".into(),
                    ty: Some("int".into()),
                    type_kind: Some("primitive".into()),
                    external: Some(false),
                    value: Some("1".into()),
                    annotations: vec!["@Id".into()],
                },
                FieldSummary {
                    name: "g".into(),
                    ty: None,
                    type_kind: None,
                    external: None,
                    value: None,
                    annotations: vec![],
                },
            ],
            supertypes: vec![SupertypeSummary { name: "S".into(), relation: "inheritance".into(), external: true }],
            injection_points: vec![
                InjectionSummary {
                    name: "i".into(),
                    declared_type: Some("D".into()),
                    candidates: vec!["C1".into(), "C2".into()],
                },
                InjectionSummary { name: "j".into(), declared_type: None, candidates: vec![] },
            ],
            parts: vec![dep("java:p/A.f()"), dep("java:p/A.g()")],
            imports: vec![ImportSummary { name: "java:q".into(), count: 3, external: false }],
            ..MemberPack::default()
        }
    }

    #[test]
    fn the_streamed_projection_is_the_canonical_json_of_the_reference() {
        let plain = MemberPack { id: "java:p/B".into(), kind: "method".into(), ..MemberPack::default() };
        let members = [rich(), plain];
        for m in &members {
            let mut out = String::new();
            m.write_facts_projection(&mut out);
            assert_eq!(out, crate::canonical::canonical_json(&reference_projection(m)));
        }
        let reference = Value::Array(members.iter().map(reference_projection).collect());
        assert_eq!(facts_digest(&members), digest_of(&reference));
    }
}
