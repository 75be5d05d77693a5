//! A store's answer for one id as the insight panel shows it (pure, tested
//! natively): the three-way [`InsightView`], with the block rendered
//! generically as "domain reading" facts — the block's shape moves with the
//! prompt version, so no field is hard-coded beyond the four the byline
//! shows.

use insights::record::InsightRecord;
use insights::vocab::Origin;
use serde_json::Value;
use web::insight::{Author, InsightView};

/// The panel's view of a store's answer; `stale` is the freshness verdict
/// for an explained record (`None`: current).
pub fn view_of(answer: &store::InsightAnswer, stale: Option<String>) -> InsightView {
    match answer {
        store::InsightAnswer::Explained { id, record } => explained(id, record, stale),
        store::InsightAnswer::Failed { id, failure } => {
            let r = &failure.reason;
            let status = r.status.map(|s| format!(" {s}")).unwrap_or_default();
            InsightView::Failed {
                id: id.clone(),
                model: failure.model.clone(),
                attempts: failure.attempts,
                reason: format!("{}{status}: {}", r.kind.as_str(), r.message),
            }
        }
        store::InsightAnswer::Unknown { id } => InsightView::Unknown { id: id.clone() },
    }
}

fn explained(id: &str, record: &InsightRecord, stale: Option<String>) -> InsightView {
    let author = match record.origin {
        Origin::Template => Author::Template,
        _ if record.model.as_deref() == Some(llm::demo::DEMO_MODEL) => Author::Demo,
        _ => Author::Llm,
    };
    let block = serde_json::to_value(&record.block).unwrap_or(Value::Null);
    let concept = block.get("concept").and_then(Value::as_str).map(str::to_owned);
    InsightView::Explained {
        id: id.to_owned(),
        level: record.level.as_str().to_owned(),
        author,
        model: if author == Author::Template { None } else { record.model.clone() },
        confidence: record.block.confidence(),
        name: record.block.name().to_owned(),
        description: record.block.description().to_owned(),
        concept,
        facts: block_facts(&block),
        stale,
    }
}

/// `aggregateRoot` → `aggregate root`.
fn words(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_uppercase() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.extend(c.to_lowercase());
        } else if c == '_' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// A scalar as text; `None` for null, `false`, and empty strings.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null | Value::Bool(false) => None,
        Value::Bool(true) => Some("yes".into()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// One line for an object of an array: `from → to (operation)` for a
/// transition, else `head — second (rest, …)`, inner lists joined by `, `.
fn object_line(o: &serde_json::Map<String, Value>) -> Option<String> {
    if let (Some(from), Some(to)) = (o.get("from").and_then(scalar), o.get("to").and_then(scalar)) {
        let via = o.iter().filter(|(k, _)| *k != "from" && *k != "to").filter_map(|(_, v)| scalar(v)).next();
        return Some(match via {
            Some(v) => format!("{from} → {to} ({v})"),
            None => format!("{from} → {to}"),
        });
    }
    // Keys arrive sorted (serde_json's map): a naming key leads the line.
    const HEADS: [&str; 4] = ["name", "title", "id", "label"];
    let heads = HEADS.iter().filter_map(|h| o.get(*h));
    let rest = o.iter().filter(|(k, _)| !HEADS.contains(&k.as_str())).map(|(_, v)| v);
    let parts: Vec<String> = heads
        .chain(rest)
        .filter_map(|v| match v {
            Value::Array(a) => {
                let items: Vec<String> = a.iter().filter_map(scalar).collect();
                (!items.is_empty()).then(|| items.join(", "))
            }
            other => scalar(other),
        })
        .collect();
    match parts.as_slice() {
        [] => None,
        [head] => Some(head.clone()),
        [head, second] => Some(format!("{head} — {second}")),
        [head, second, rest @ ..] => Some(format!("{head} — {second} ({})", rest.join(", "))),
    }
}

/// The block's facts beyond name, description, confidence and concept, by
/// key: one (label, value) per scalar or list item.
pub fn block_facts(block: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(fields) = block.as_object() else { return out };
    for (key, value) in fields {
        if matches!(key.as_str(), "name" | "description" | "confidence" | "concept") {
            continue;
        }
        let label = words(key);
        match value {
            Value::Array(items) => {
                for item in items {
                    let line = match item {
                        Value::Object(o) => object_line(o),
                        other => scalar(other),
                    };
                    if let Some(line) = line {
                        out.push((label.clone(), line));
                    }
                }
            }
            Value::Object(o) if o.values().any(Value::is_array) => {
                for (k, v) in o {
                    let line = match v {
                        Value::Array(a) => {
                            let items: Vec<String> =
                                a.iter().filter_map(|i| i.as_object().map_or_else(|| scalar(i), object_line)).collect();
                            (!items.is_empty()).then(|| format!("{}: {}", words(k), items.join(", ")))
                        }
                        other => scalar(other).map(|s| format!("{}: {s}", words(k))),
                    };
                    if let Some(line) = line {
                        out.push((label.clone(), line));
                    }
                }
            }
            Value::Object(o) => {
                if let Some(line) = object_line(o) {
                    out.push((label, line));
                }
            }
            other => {
                if let Some(v) = scalar(other) {
                    out.push((label, v));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_block_reads_as_labelled_facts() {
        let block = json!({
            "name": "Order", "description": "d", "confidence": 0.9, "concept": "entity",
            "aggregateRoot": true, "deprecated": false, "notes": "",
            "invariants": [{"name": "non-negative total", "rule": "total >= 0", "kind": "rejection"}],
            "stateMachine": {"states": ["NEW", "PAID"], "transitions": [{"from": "NEW", "to": "PAID", "operation": "pay"}]},
            "boundedContextHint": {"name": "Ordering", "reason": "owns the order lifecycle"},
            "sideEffects": ["writes the ledger", "sends mail"],
            "fanIn": 3
        });
        let facts = block_facts(&block);
        let f = |l: &str, v: &str| (l.to_owned(), v.to_owned());
        assert_eq!(
            facts,
            vec![
                f("aggregate root", "yes"),
                f("bounded context hint", "Ordering — owns the order lifecycle"),
                f("fan in", "3"),
                f("invariants", "non-negative total — rejection (total >= 0)"),
                f("side effects", "writes the ledger"),
                f("side effects", "sends mail"),
                f("state machine", "states: NEW, PAID"),
                f("state machine", "transitions: NEW → PAID (pay)"),
            ]
        );
    }

    #[test]
    fn the_three_answers() {
        use insights::record::{FailureReason, FailureRecord};
        use insights::vocab::{FailureKind, Level};
        let failure = FailureRecord {
            id: "java:p/T".into(),
            key: None,
            level: Level::Type,
            members: vec!["java:p/T".into()],
            model: "m".into(),
            reason: FailureReason {
                kind: FailureKind::Provider,
                message: "no credits".into(),
                status: Some(402),
                retryable: Some(false),
            },
            attempts: 2,
            calls: 1,
            usage: None,
        };
        let v = view_of(&store::InsightAnswer::Failed { id: "java:p/T".into(), failure: Box::new(failure) }, None);
        assert_eq!(
            v,
            InsightView::Failed {
                id: "java:p/T".into(),
                model: "m".into(),
                attempts: 2,
                reason: "provider 402: no credits".into()
            }
        );
        let u = view_of(&store::InsightAnswer::Unknown { id: "x".into() }, None);
        assert_eq!(u, InsightView::Unknown { id: "x".into() });
        let json = serde_json::to_value(&u).unwrap();
        assert_eq!(json["status"], "unknown");
    }
}
