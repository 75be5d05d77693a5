//! The structured blocks an LLM returns (docs/formats/blocks.md §1–§5): one per
//! level, plus the cycle response that carries one block per member.
//!
//! Field order is the spec's property order, which is also the schema order
//! ([`crate::schema`] reads it from these declarations) and the wire order
//! (serde writes fields in declaration order). "Optional" fields are
//! `Option`s that are always present on the wire (`null`), never omitted; in
//! the schema they are marked with [`Nullable`] so that they stay required.
//!
//! Deserializing ignores unknown keys; [`crate::validate`] checks types,
//! required properties and enum literals first, with paths in its messages.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::vocab::{
    DomainConcept, Enforcement, EventKind, FieldKind, InterfaceRole, Level, OperationOwner, SyncPattern,
};

/// Schema-only marker for a nullable, still required property:
/// `#[schemars(with = "Nullable<T>")]` on an `Option<T>` field gives
/// `{"anyOf":[<T>,{"type":"null"}]}` and keeps the property in `required`
/// (schemars would otherwise treat an `Option` as omittable).
pub struct Nullable<T>(PhantomData<T>);

impl<T: JsonSchema> JsonSchema for Nullable<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "anyOf": [generator.subschema_for::<T>(), { "type": "null" }] })
    }
}

/// An event an operation emits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Emit {
    pub name: String,
    pub kind: EventKind,
}

/// A guard checked before an operation, with the reason it rejects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Precondition {
    pub name: String,
    pub predicate: String,
    pub violation_reason: String,
}

/// A guarantee an operation gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Postcondition {
    pub name: String,
    pub predicate: String,
}

/// A capability needed through (or offered as) a service provider interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpiUse {
    pub name: String,
    pub capability: String,
}

/// The explanation of one operation (§2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationBlock {
    /// The ubiquitous-language name the model proposes.
    pub name: String,
    /// Prose explanation.
    pub description: String,
    /// Read-only: no state mutation.
    pub safe: bool,
    #[schemars(with = "Nullable<bool>")]
    pub idempotent: Option<bool>,
    pub owner: OperationOwner,
    /// The command handled, if a command handler.
    #[schemars(with = "Nullable<String>")]
    pub handles_command: Option<String>,
    pub emits: Vec<Emit>,
    pub preconditions: Vec<Precondition>,
    pub postconditions: Vec<Postcondition>,
    pub invariants_enforced: Vec<String>,
    pub uses_spi: Vec<SpiUse>,
    pub domain_terms: Vec<String>,
    /// Clamped into [0, 1] on receipt.
    pub confidence: f64,
}

/// A field of a type, classified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldBlock {
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub kind: FieldKind,
}

/// An invariant of a type and how it is enforced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Invariant {
    pub name: String,
    pub predicate: String,
    pub enforcement: Enforcement,
}

/// One move of a state machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Transition {
    pub from: String,
    pub to: String,
    pub operation: String,
}

/// An entity's lifecycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StateMachine {
    pub states: Vec<String>,
    pub transitions: Vec<Transition>,
}

/// A named reference to a domain concept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConceptRef {
    pub name: String,
    pub concept: DomainConcept,
}

/// A port a type needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortRef {
    pub name: String,
    pub role: InterfaceRole,
}

/// The explanation of one type (§3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeBlock {
    pub name: String,
    pub description: String,
    pub concept: DomainConcept,
    #[schemars(with = "Nullable<EventKind>")]
    pub event_kind: Option<EventKind>,
    #[schemars(with = "Nullable<InterfaceRole>")]
    pub interface_role: Option<InterfaceRole>,
    /// Aggregate: this type is the root.
    #[schemars(with = "Nullable<bool>")]
    pub aggregate_root: Option<bool>,
    /// Entity: the aggregate containing it.
    #[schemars(with = "Nullable<String>")]
    pub contained_in: Option<String>,
    #[schemars(with = "Nullable<SyncPattern>")]
    pub sync_pattern: Option<SyncPattern>,
    /// The identity field, for entities.
    #[schemars(with = "Nullable<String>")]
    pub identity: Option<String>,
    pub fields: Vec<FieldBlock>,
    pub invariants: Vec<Invariant>,
    #[schemars(with = "Nullable<StateMachine>")]
    pub state_machine: Option<StateMachine>,
    pub relates_to: Vec<ConceptRef>,
    /// Operations forming the public surface.
    pub exposes: Vec<String>,
    /// Ports needed.
    pub depends_on: Vec<PortRef>,
    pub domain_terms: Vec<String>,
    pub confidence: f64,
}

/// An API a module publishes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Api {
    pub name: String,
    pub operations: Vec<String>,
}

/// A hint that a module is (part of) a bounded context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BoundedContextHint {
    pub name: String,
    pub rationale: String,
}

/// A glossary entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Term {
    pub term: String,
    pub definition: String,
}

/// The explanation of one module (§4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModuleBlock {
    pub name: String,
    pub description: String,
    pub apis: Vec<Api>,
    pub spis: Vec<SpiUse>,
    pub depends_on: Vec<String>,
    pub concepts: Vec<ConceptRef>,
    #[schemars(with = "Nullable<BoundedContextHint>")]
    pub bounded_context_hint: Option<BoundedContextHint>,
    /// For a module in a cycle.
    #[schemars(with = "Nullable<String>")]
    pub shared_kernel_hint: Option<String>,
    pub ubiquitous_language: Vec<Term>,
    pub confidence: f64,
}

/// One entry of a cycle response (§5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CycleEntry<B> {
    pub id: String,
    pub block: B,
}

/// The answer for a cycle prompt: one entry per member id asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CycleResponse<B> {
    pub members: Vec<CycleEntry<B>>,
}

/// A block of any level. Serializes as the inner block (no tag).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Block {
    Operation(OperationBlock),
    Type(TypeBlock),
    Module(ModuleBlock),
}

impl Block {
    /// The level this block explains.
    pub fn level(&self) -> Level {
        match self {
            Block::Operation(_) => Level::Operation,
            Block::Type(_) => Level::Type,
            Block::Module(_) => Level::Module,
        }
    }

    /// The proposed ubiquitous-language name.
    pub fn name(&self) -> &str {
        match self {
            Block::Operation(b) => &b.name,
            Block::Type(b) => &b.name,
            Block::Module(b) => &b.name,
        }
    }

    /// The prose description.
    pub fn description(&self) -> &str {
        match self {
            Block::Operation(b) => &b.description,
            Block::Type(b) => &b.description,
            Block::Module(b) => &b.description,
        }
    }

    /// The model's confidence.
    pub fn confidence(&self) -> f64 {
        match self {
            Block::Operation(b) => b.confidence,
            Block::Type(b) => b.confidence,
            Block::Module(b) => b.confidence,
        }
    }

    fn confidence_mut(&mut self) -> &mut f64 {
        match self {
            Block::Operation(b) => &mut b.confidence,
            Block::Type(b) => &mut b.confidence,
            Block::Module(b) => &mut b.confidence,
        }
    }

    /// Applies [`clamp_confidence`] to the block's confidence (§7).
    pub fn clamp_confidence(&mut self) {
        let c = self.confidence_mut();
        *c = clamp_confidence(*c);
    }

    /// The block as wire JSON (declaration order, nullable fields as `null`).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("blocks always serialize")
    }
}

/// `clampConfidence` (§7): a finite value is clamped into `[0, 1]`; NaN and
/// ±∞ become 0.
pub fn clamp_confidence(c: f64) -> f64 {
    if c.is_finite() {
        c.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op() -> OperationBlock {
        OperationBlock {
            name: "Get total".into(),
            description: "Returns the total.".into(),
            safe: true,
            idempotent: None,
            owner: OperationOwner::ValueType,
            handles_command: None,
            emits: vec![Emit { name: "TotalRead".into(), kind: EventKind::Internal }],
            preconditions: vec![],
            postconditions: vec![],
            invariants_enforced: vec![],
            uses_spi: vec![],
            domain_terms: vec!["total".into()],
            confidence: 0.5,
        }
    }

    #[test]
    fn wire_order_and_nulls() {
        assert_eq!(
            Block::Operation(op()).to_json(),
            r#"{"name":"Get total","description":"Returns the total.","safe":true,"idempotent":null,"owner":"valueType","handlesCommand":null,"emits":[{"name":"TotalRead","kind":"internal"}],"preconditions":[],"postconditions":[],"invariantsEnforced":[],"usesSpi":[],"domainTerms":["total"],"confidence":0.5}"#
        );
    }

    #[test]
    fn field_type_is_named_type_on_the_wire() {
        let f = FieldBlock { name: "id".into(), type_: "long".into(), kind: FieldKind::Primitive };
        assert_eq!(serde_json::to_string(&f).unwrap(), r#"{"name":"id","type":"long","kind":"primitive"}"#);
    }

    #[test]
    fn clamping() {
        for (x, want) in [(0.5, 0.5), (-1.0, 0.0), (7.0, 1.0), (f64::NAN, 0.0), (f64::INFINITY, 0.0), (-0.0, 0.0)] {
            let got = clamp_confidence(x);
            assert!((0.0..=1.0).contains(&got));
            assert_eq!(got, want, "{x}");
        }
        let mut b = Block::Operation(OperationBlock { confidence: f64::NEG_INFINITY, ..op() });
        b.clamp_confidence();
        assert_eq!(b.confidence(), 0.0);
        assert_eq!(b.level(), Level::Operation);
    }
}
