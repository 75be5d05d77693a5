//! Receipt-side validation of an answer (docs/formats/blocks.md §7).
//!
//! An answer (already parsed JSON) is checked against the level's schema
//! *non-strictly*: keys the schema does not know are stripped, not rejected;
//! wrong types, missing properties and literals outside a vocabulary are
//! [`Issue`]s with the path where they occur. Accepted blocks get their
//! confidence clamped ([`crate::blocks::clamp_confidence`]).
//!
//! For a cycle answer the entries are mapped by `id` (a later duplicate wins);
//! ids that were not asked for are rejected, and asked ids without an entry
//! are reported, each as one issue naming the ids.
//!
//! The issues feed the repair re-ask (docs/formats/prompts.md §8) through
//! [`validation_text`].

use std::fmt;

use serde_json::{Map, Value};

use crate::blocks::{Block, ModuleBlock, OperationBlock, TypeBlock};
use crate::schema::{block_schema, cycle_shape, StrictSchema};
use crate::vocab::Level;

/// How many issues the repair message quotes.
pub const MAX_REPAIR_ISSUES: usize = 8;

/// One reason an answer is invalid, at a path inside the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Property names and array indices from the answer's root; empty = root.
    pub path: Vec<String>,
    /// What is wrong there (our wording).
    pub message: String,
}

impl Issue {
    /// An issue at `path`.
    pub fn new(path: &[String], message: impl Into<String>) -> Issue {
        Issue { path: path.to_vec(), message: message.into() }
    }

    /// The path joined by `.`, or `(root)`.
    pub fn path_text(&self) -> String {
        if self.path.is_empty() {
            "(root)".to_owned()
        } else {
            self.path.join(".")
        }
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path_text(), self.message)
    }
}

/// The validation text of a repair re-ask: the first [`MAX_REPAIR_ISSUES`]
/// issues, each `<path>: <message>`, joined by `; `.
pub fn validation_text(issues: &[Issue]) -> String {
    issues.iter().take(MAX_REPAIR_ISSUES).map(Issue::to_string).collect::<Vec<_>>().join("; ")
}

fn kind_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn expected(schema: &StrictSchema) -> String {
    match schema {
        StrictSchema::String | StrictSchema::Enum(_) => "a string".into(),
        StrictSchema::Number => "a number".into(),
        StrictSchema::Integer => "an integer".into(),
        StrictSchema::Boolean => "a boolean (true or false)".into(),
        StrictSchema::Array(_) => "an array".into(),
        StrictSchema::Object(_) => "an object".into(),
        StrictSchema::Nullable(inner) => format!("{} or null", expected(inner)),
    }
}

/// Checks `value` against `schema`; on success returns the value with every
/// key the schema does not know removed. All issues are collected, in schema
/// order.
pub fn check(schema: &StrictSchema, value: &Value) -> Result<Value, Vec<Issue>> {
    let mut issues = Vec::new();
    let mut path = Vec::new();
    let cleaned = walk(schema, value, &mut path, &mut issues);
    if issues.is_empty() {
        Ok(cleaned)
    } else {
        Err(issues)
    }
}

fn walk(schema: &StrictSchema, v: &Value, path: &mut Vec<String>, issues: &mut Vec<Issue>) -> Value {
    let wrong = |issues: &mut Vec<Issue>, path: &[String]| {
        issues.push(Issue::new(path, format!("expected {}, found {}", expected(schema), kind_of(v))));
        Value::Null
    };
    match (schema, v) {
        (StrictSchema::Nullable(_), Value::Null) => Value::Null,
        (StrictSchema::Nullable(inner), _) => {
            if matches!(**inner, StrictSchema::Nullable(_)) {
                return walk(inner, v, path, issues);
            }
            // Report the type mismatch against "X or null".
            let before = issues.len();
            let out = walk(inner, v, path, issues);
            if let Some(issue) = issues.get_mut(before) {
                if issue.path == *path && issue.message.starts_with("expected ") {
                    issue.message = format!("expected {}, found {}", expected(schema), kind_of(v));
                }
            }
            out
        }
        (StrictSchema::String, Value::String(_)) | (StrictSchema::Boolean, Value::Bool(_)) => v.clone(),
        (StrictSchema::Number, Value::Number(_)) => v.clone(),
        (StrictSchema::Integer, Value::Number(n)) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                v.clone()
            } else {
                wrong(issues, path)
            }
        }
        (StrictSchema::Enum(allowed), Value::String(s)) => {
            if allowed.iter().any(|a| a == s) {
                v.clone()
            } else {
                issues.push(Issue::new(
                    path,
                    format!("`{s}` is not an allowed value; use one of: {}", allowed.join(", ")),
                ));
                Value::Null
            }
        }
        (StrictSchema::Array(item), Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                path.push(i.to_string());
                out.push(walk(item, x, path, issues));
                path.pop();
            }
            Value::Array(out)
        }
        (StrictSchema::Object(props), Value::Object(map)) => {
            let mut out = Map::new();
            for (name, prop) in props {
                path.push(name.clone());
                match map.get(name) {
                    Some(x) => {
                        out.insert(name.clone(), walk(prop, x, path, issues));
                    }
                    None => {
                        let hint = if matches!(prop, StrictSchema::Nullable(_)) {
                            " (give null when it does not apply)"
                        } else {
                            ""
                        };
                        issues.push(Issue::new(path, format!("this required property is missing{hint}")));
                    }
                }
                path.pop();
            }
            Value::Object(out)
        }
        _ => wrong(issues, path),
    }
}

fn into_block(level: Level, cleaned: Value, path: &[String]) -> Result<Block, Issue> {
    let block = match level {
        Level::Operation => serde_json::from_value::<OperationBlock>(cleaned).map(Block::Operation),
        Level::Type => serde_json::from_value::<TypeBlock>(cleaned).map(Block::Type),
        Level::Module => serde_json::from_value::<ModuleBlock>(cleaned).map(Block::Module),
    };
    let mut block =
        block.map_err(|e| Issue::new(path, format!("cannot be read as a {} block: {e}", level.as_str())))?;
    block.clamp_confidence();
    Ok(block)
}

/// Validates a `block`-shape answer for `level`: the block, confidence
/// clamped, or every issue found.
pub fn validate_block(level: Level, answer: &Value) -> Result<Block, Vec<Issue>> {
    let cleaned = check(&block_schema(level), answer)?;
    into_block(level, cleaned, &[]).map_err(|i| vec![i])
}

/// Validates an `scc`-shape answer for `level` that had to cover `asked`
/// (the prompt's member ids). Returns one `(id, block)` per asked id, in
/// `asked` order, confidences clamped. Entries are mapped by id, a later
/// duplicate replacing an earlier one; an id that was not asked for, or an
/// asked id without an entry, makes the answer invalid (one issue each kind,
/// naming the ids, joined by `, `).
pub fn validate_cycle(level: Level, asked: &[&str], answer: &Value) -> Result<Vec<(String, Block)>, Vec<Issue>> {
    let cleaned = check(&cycle_shape(level), answer)?;
    let entries = cleaned.get("members").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut by_id: Vec<(String, Value, usize)> = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        let Value::Object(mut entry) = entry else { continue };
        let id = entry.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let block = entry.remove("block").unwrap_or(Value::Null);
        match by_id.iter_mut().find(|(known, _, _)| *known == id) {
            Some(slot) => *slot = (id, block, i),
            None => by_id.push((id, block, i)),
        }
    }
    let mut issues = Vec::new();
    let members = vec!["members".to_owned()];
    let stray: Vec<&str> = by_id.iter().map(|(id, _, _)| id.as_str()).filter(|id| !asked.contains(id)).collect();
    if !stray.is_empty() {
        issues.push(Issue::new(
            &members,
            format!("these ids were not asked for: {}; answer only for: {}", stray.join(", "), asked.join(", ")),
        ));
    }
    let mut missing: Vec<&str> = Vec::new();
    for id in asked {
        if !by_id.iter().any(|(known, _, _)| known == id) && !missing.contains(id) {
            missing.push(id);
        }
    }
    if !missing.is_empty() {
        issues.push(Issue::new(&members, format!("no entry for the member(s) {}", missing.join(", "))));
    }
    if !issues.is_empty() {
        return Err(issues);
    }
    let mut out: Vec<(String, Block)> = Vec::with_capacity(asked.len());
    for id in asked {
        if out.iter().any(|(known, _)| known == id) {
            continue;
        }
        let (_, block, index) = by_id.iter().find(|(known, _, _)| known == id).expect("checked above");
        let path = ["members".to_owned(), index.to_string(), "block".to_owned()];
        match into_block(level, block.clone(), &path) {
            Ok(b) => out.push(((*id).to_owned(), b)),
            Err(issue) => issues.push(issue),
        }
    }
    if issues.is_empty() {
        Ok(out)
    } else {
        Err(issues)
    }
}
