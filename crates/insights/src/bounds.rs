//! The *bounded* schema (docs/formats/prompts.md §10.2): the strict schema of
//! [`crate::schema`] with a `maxLength` on every string and a `maxItems` on
//! every array, for the servers that turn a schema into a decoding grammar
//! (llama.cpp's `llama-server`, llama-cpp-python, vLLM) through
//! `response_format: {"type": "json_object", "schema": …}`.
//!
//! A grammar without bounds lets a small model write one string for ever;
//! with them every answer is finite, and [`worst_case_chars`] says how long
//! it can be at most. The budgets are per property name ([`string_budget`],
//! [`items_budget`]); array items take the budget of the array's property.
//! A cycle's `members` array holds exactly as many entries as its `id` enum
//! lists ids (`minItems` = `maxItems`).
//!
//! The bounds are wire-only: they never enter a prompt's fingerprint, and
//! hosted providers, which get the strict schema, never see them.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::schema::{Required, StrictSchema, TypeOnly};

/// The budget of a string property, in characters, by property name (for an
/// array of strings, the array's name).
pub fn string_budget(property: &str) -> u32 {
    match property {
        "description" => 400,
        "predicate" | "violationReason" | "rationale" | "definition" | "sharedKernelHint" => 160,
        "invariantsEnforced" | "capability" => 160,
        // Ids of operations and modules are long (`java:org/x/Foo#bar(int,String)`).
        "exposes" | "operations" | "operation" | "dependsOn" | "containedIn" | "handlesCommand" => 160,
        "domainTerms" | "states" | "from" | "to" => 48,
        _ => 80,
    }
}

/// The budget of an array property, in items, by property name.
pub fn items_budget(property: &str) -> u32 {
    match property {
        "domainTerms" | "fields" => 10,
        "exposes" | "states" | "transitions" => 8,
        "ubiquitousLanguage" => 6,
        "operations" => 4,
        _ => 5,
    }
}

/// A [`StrictSchema`] serialized with bounds: the same keys in the same
/// order, plus `maxLength` after a string's `type` and `maxItems` after an
/// array's `items`.
#[derive(Clone, Copy, Debug)]
pub struct Bounded<'a> {
    schema: &'a StrictSchema,
    /// The property this node is the value (or the items) of.
    property: &'a str,
}

/// The bounded form of `schema`.
pub fn bounded(schema: &StrictSchema) -> Bounded<'_> {
    Bounded { schema, property: "" }
}

impl Bounded<'_> {
    /// Compact JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a schema always serializes")
    }
}

struct Props<'a>(&'a [(String, StrictSchema)]);

impl Serialize for Props<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, &Bounded { schema: v, property: k })?;
        }
        m.end()
    }
}

/// `members` of a cycle: one entry per id the entry's `id` enum allows.
fn cycle_items(items: &StrictSchema) -> Option<u32> {
    match items {
        StrictSchema::Object(props) => match props.first() {
            Some((name, StrictSchema::Enum(ids))) if name == "id" => Some(ids.len() as u32),
            _ => None,
        },
        _ => None,
    }
}

fn max_items(property: &str, items: &StrictSchema) -> u32 {
    cycle_items(items).unwrap_or_else(|| items_budget(property))
}

impl Serialize for Bounded<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let property = self.property;
        match self.schema {
            StrictSchema::String => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("type", "string")?;
                m.serialize_entry("maxLength", &string_budget(property))?;
                m.end()
            }
            StrictSchema::Array(items) => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("type", "array")?;
                m.serialize_entry("items", &Bounded { schema: items, property })?;
                // A cycle answers for every id it was asked: exactly that many entries.
                if let Some(n) = cycle_items(items) {
                    m.serialize_entry("minItems", &n)?;
                }
                m.serialize_entry("maxItems", &max_items(property, items))?;
                m.end()
            }
            StrictSchema::Object(props) => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("type", "object")?;
                m.serialize_entry("properties", &Props(props))?;
                m.serialize_entry("required", &Required(props))?;
                m.serialize_entry("additionalProperties", &false)?;
                m.end()
            }
            StrictSchema::Nullable(inner) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("anyOf", &(Bounded { schema: inner, property }, TypeOnly("null")))?;
                m.end()
            }
            other => other.serialize(s),
        }
    }
}

/// The longest answer, in characters, that the bounded schema allows when
/// written compactly (`{"k":v,…}`, no whitespace): the size a
/// grammar-constrained decoder can reach at most. A token covers at least
/// one character of ASCII text, so this also bounds the completion tokens of
/// an ASCII answer. Numbers count as 18 characters (the `0.` and sixteen
/// decimals llama.cpp's grammar allows), a string as its budget plus quotes
/// (escapes not counted), an enum as its longest literal.
pub fn worst_case_chars(schema: &StrictSchema) -> u64 {
    chars(schema, "")
}

fn chars(schema: &StrictSchema, property: &str) -> u64 {
    match schema {
        StrictSchema::String => u64::from(string_budget(property)) + 2,
        StrictSchema::Number | StrictSchema::Integer => 18,
        StrictSchema::Boolean => 5,
        StrictSchema::Enum(values) => values.iter().map(|v| v.len() as u64).max().unwrap_or(0) + 2,
        StrictSchema::Array(items) => {
            let n = u64::from(max_items(property, items));
            2 + n * chars(items, property) + n.saturating_sub(1)
        }
        StrictSchema::Object(props) => {
            let fields: u64 = props.iter().map(|(k, v)| k.len() as u64 + 3 + chars(v, k)).sum();
            2 + fields + (props.len() as u64).saturating_sub(1)
        }
        StrictSchema::Nullable(inner) => chars(inner, property).max(4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{block_schema, cycle_schema, strictify};
    use crate::vocab::Level;
    use serde_json::Value;

    fn walk(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                match m.get("type").and_then(Value::as_str) {
                    Some("string") if !m.contains_key("enum") && !m.contains_key("maxLength") => {
                        out.push(format!("{path}: string without maxLength"))
                    }
                    Some("array") if !m.contains_key("maxItems") => out.push(format!("{path}: array without maxItems")),
                    _ => {}
                }
                for (k, c) in m {
                    walk(c, &format!("{path}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| walk(c, &format!("{path}/{i}"), out)),
            _ => {}
        }
    }

    #[test]
    fn every_string_and_array_is_bounded_and_nothing_else_changes() {
        for &level in Level::ALL {
            for schema in [block_schema(level), cycle_schema(level, &["a", "b", "c"])] {
                let v: Value = serde_json::from_str(&bounded(&schema).to_json()).unwrap();
                let mut unbounded = Vec::new();
                walk(&v, "", &mut unbounded);
                assert!(unbounded.is_empty(), "{level:?}: {unbounded:?}");
                // Dropping the bounds gives the strict schema back (strictify drops them).
                assert_eq!(strictify(&v).unwrap(), schema);
                // The properties come in the strict schema's (declared) order.
                let text = bounded(&schema).to_json();
                let StrictSchema::Object(props) = &schema else { unreachable!() };
                let at: Vec<usize> = props.iter().map(|(k, _)| text.find(&format!("\"{k}\":{{")).unwrap()).collect();
                assert!(at.windows(2).all(|w| w[0] < w[1]), "{level:?}: {at:?}");
            }
        }
    }

    #[test]
    fn budgets_by_property_and_cycles_by_their_ids() {
        let v: Value = serde_json::from_str(&bounded(&block_schema(Level::Operation)).to_json()).unwrap();
        assert_eq!(v["properties"]["description"]["maxLength"], 400);
        assert_eq!(v["properties"]["name"]["maxLength"], 80);
        assert_eq!(
            v["properties"]["domainTerms"],
            serde_json::json!({"type":"array","items":{"type":"string","maxLength":48},"maxItems":10})
        );
        assert_eq!(v["properties"]["handlesCommand"]["anyOf"][0]["maxLength"], 160);
        assert!(bounded(&block_schema(Level::Operation))
            .to_json()
            .starts_with(r#"{"type":"object","properties":{"name":{"type":"string","maxLength":80},"description""#));
        let v: Value = serde_json::from_str(&bounded(&cycle_schema(Level::Type, &["a", "b", "a"])).to_json()).unwrap();
        assert_eq!(v["properties"]["members"]["maxItems"], 2);
        assert_eq!(v["properties"]["members"]["minItems"], 2);
        assert!(v["properties"]["members"]["items"]["properties"]["block"]["properties"]["fields"]
            .get("minItems")
            .is_none());
    }

    #[test]
    fn worst_cases_are_finite_and_known() {
        let worst: Vec<u64> = Level::ALL.iter().map(|&l| worst_case_chars(&block_schema(l))).collect();
        // Operation, type, module: the figures docs/formats/prompts.md §10.2 quotes.
        assert_eq!(worst, [7672, 10333, 9266]);
        let one = worst_case_chars(&block_schema(Level::Type));
        let cycle = worst_case_chars(&cycle_schema(Level::Type, &["a", "b"]));
        assert!(cycle > 2 * one && cycle < 2 * one + 100, "{cycle}");
    }
}
