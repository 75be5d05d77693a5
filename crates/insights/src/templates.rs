//! Templates for trivial members (docs/formats/blocks.md §9): getters, setters,
//! equals/hashCode/toString/compareTo and field-assigning constructors are
//! recognised from facts alone and explained without a model call.

use crate::blocks::OperationBlock;
use crate::vocab::{OperationOwner, TemplateKind};
use analyzer::facts::{OperationFact, TypeDossier};

fn starts_with_then_upper(name: &str, prefixes: &[&str]) -> bool {
    prefixes
        .iter()
        .any(|p| name.strip_prefix(p).and_then(|rest| rest.chars().next()).is_some_and(|c| c.is_ascii_uppercase()))
}

/// The triviality rule (§9), evaluated in order on facts only.
pub fn classify_template(op: &OperationFact, ty: &TypeDossier) -> Option<TemplateKind> {
    if !op.throws.is_empty() || op.invocations.iter().any(|i| !i.external) {
        return None;
    }
    let metric = |name: &str| op.metrics.as_ref().and_then(|m| m.get(name));
    if metric("cyclomatic").unwrap_or(f64::INFINITY) > 1.0 {
        return None;
    }
    let lines = metric("sloc").or(op.loc.map(f64::from)).unwrap_or(f64::INFINITY);
    let reads = op.accesses.iter().filter(|a| a.is_read && !a.is_write).count() as f64;
    let writes = op.accesses.iter().filter(|a| a.is_write).count() as f64;
    let name = op.name.as_deref().unwrap_or("");
    if &*op.kind == "constructor" {
        return (reads == 0.0 && lines <= writes + 2.0).then_some(TemplateKind::TrivialConstructor);
    }
    if matches!(name, "equals" | "hashCode" | "toString" | "compareTo") {
        return (lines <= 6.0).then_some(TemplateKind::ObjectContract);
    }
    if lines > 3.0 {
        return None;
    }
    if starts_with_then_upper(name, &["set"]) && writes <= 1.0 && reads == 0.0 {
        return Some(TemplateKind::Setter);
    }
    let names_a_field = ty.fields.iter().any(|f| f.name.as_deref() == Some(name));
    if (starts_with_then_upper(name, &["get", "is", "has"]) || names_a_field) && writes == 0.0 && reads <= 1.0 {
        return Some(TemplateKind::Getter);
    }
    None
}

/// The block of a templated member (§9): one fixed sentence, confidence 1.
pub fn templated_block(kind: TemplateKind, op: &OperationFact, ty: &TypeDossier) -> OperationBlock {
    let type_name = ty.name.as_deref().unwrap_or(&ty.id).to_owned();
    let name = match (&op.name, &*op.kind) {
        (Some(n), _) => n.to_string(),
        (None, "constructor") => type_name.clone(),
        (None, _) => op.id.to_string(),
    };
    let mut fields: Vec<String> = Vec::new();
    for a in &op.accesses {
        let f = a.field.as_deref().unwrap_or(&a.to).to_owned();
        if !fields.contains(&f) {
            fields.push(f);
        }
    }
    let field_list = if fields.is_empty() {
        String::new()
    } else {
        format!(" ({})", fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", "))
    };
    let description = match kind {
        TemplateKind::Getter if fields.len() == 1 => {
            format!("Getter that returns the field `{}` of `{type_name}`.", fields[0])
        }
        TemplateKind::Getter => format!("Getter that reads the state of `{type_name}`{field_list}."),
        TemplateKind::Setter if fields.len() == 1 => {
            format!("Setter that assigns the field `{}` of `{type_name}`.", fields[0])
        }
        TemplateKind::Setter => format!("Setter that changes the state of `{type_name}`{field_list}."),
        TemplateKind::ObjectContract => {
            format!("Object-contract method `{name}` of `{type_name}`; it carries no domain rule.")
        }
        TemplateKind::TrivialConstructor => {
            format!("Constructor that only assigns the fields of `{type_name}`{field_list}.")
        }
    };
    let getter_like = matches!(kind, TemplateKind::Getter | TemplateKind::ObjectContract);
    OperationBlock {
        name,
        description,
        safe: getter_like,
        idempotent: Some(getter_like || kind == TemplateKind::Setter),
        owner: OperationOwner::Unknown,
        handles_command: None,
        emits: Vec::new(),
        preconditions: Vec::new(),
        postconditions: Vec::new(),
        invariants_enforced: Vec::new(),
        uses_spi: Vec::new(),
        domain_terms: fields,
        confidence: 1.0,
    }
}
