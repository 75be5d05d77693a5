//! The strict-mode JSON Schema sent to the provider (docs/formats/blocks.md
//! §6), generated from the block types of [`crate::blocks`] with `schemars` and
//! then *strictified* into a [`StrictSchema`].
//!
//! Strictifying keeps only what strict structured output understands and
//! rebuilds every node in one fixed shape, so the bytes are deterministic:
//!
//! * object → `{"type":"object","properties":{…},"required":[…all, in property
//!   order…],"additionalProperties":false}`;
//! * string / number / integer / boolean → `{"type":"…"}`;
//! * enum → `{"type":"string","enum":[…literals in vocabulary order…]}`;
//! * array → `{"type":"array","items":…}`;
//! * every other keyword is dropped (`$schema`, `$id`, `minimum`, `maximum`,
//!   `minLength`, `maxLength`, `pattern`, `format`, and also the annotations
//!   `title`, `description`, `default`, `examples` that schemars adds); there
//!   is no `$defs` / `$ref`: the generator inlines every subschema.
//!
//! **Nullable encoding (Open point 1, decided):** every nullable property, of
//! any type, is `{"anyOf":[<inner>,{"type":"null"}]}` — one rule for
//! primitives, enums and objects alike, never `"type":[X,"null"]`. Inputs in
//! either form (and `enum` lists containing `null`) are normalized to it.
//!
//! Property order is the Rust field order: schemars lists the `required`
//! properties in declaration order, and [`crate::blocks::Nullable`] keeps
//! nullable fields required, so `required` carries the order that the
//! `properties` map (a sorted `serde_json::Map`) loses.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::blocks::{CycleResponse, ModuleBlock, OperationBlock, TypeBlock};
use crate::vocab::Level;

/// A JSON Schema in the strict-mode subset, with ordered properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrictSchema {
    /// `{"type":"string"}`
    String,
    /// `{"type":"number"}`
    Number,
    /// `{"type":"integer"}`
    Integer,
    /// `{"type":"boolean"}`
    Boolean,
    /// `{"type":"string","enum":[…]}`
    Enum(Vec<String>),
    /// `{"type":"array","items":…}`
    Array(Box<StrictSchema>),
    /// `{"type":"object","properties":…,"required":[…],"additionalProperties":false}`,
    /// properties in order.
    Object(Vec<(String, StrictSchema)>),
    /// `{"anyOf":[<inner>,{"type":"null"}]}`
    Nullable(Box<StrictSchema>),
}

impl StrictSchema {
    /// Compact JSON text, keys in the fixed order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a schema always serializes")
    }

    /// Indented JSON text (two spaces), keys in the fixed order.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a schema always serializes")
    }

    /// As a `serde_json::Value`. Its object maps are sorted, so `properties`
    /// loses its order there; `required` keeps it (and [`strictify`] reads it
    /// back from there).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a schema always serializes")
    }

    /// The property schema of an object schema, by name.
    pub fn property(&self, name: &str) -> Option<&StrictSchema> {
        match self {
            StrictSchema::Object(props) => props.iter().find(|(k, _)| k == name).map(|(_, s)| s),
            _ => None,
        }
    }
}

/// `{"type": <name>}`.
pub(crate) struct TypeOnly(pub(crate) &'static str);

impl Serialize for TypeOnly {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("type", self.0)?;
        m.end()
    }
}

struct Properties<'a>(&'a [(String, StrictSchema)]);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The property names of an object, in order (its `required`).
pub(crate) struct Required<'a>(pub(crate) &'a [(String, StrictSchema)]);

impl Serialize for Required<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(Some(self.0.len()))?;
        for (k, _) in self.0 {
            q.serialize_element(k)?;
        }
        q.end()
    }
}

impl Serialize for StrictSchema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StrictSchema::String => TypeOnly("string").serialize(s),
            StrictSchema::Number => TypeOnly("number").serialize(s),
            StrictSchema::Integer => TypeOnly("integer").serialize(s),
            StrictSchema::Boolean => TypeOnly("boolean").serialize(s),
            StrictSchema::Enum(values) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("type", "string")?;
                m.serialize_entry("enum", values)?;
                m.end()
            }
            StrictSchema::Array(items) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("type", "array")?;
                m.serialize_entry("items", items)?;
                m.end()
            }
            StrictSchema::Object(props) => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("type", "object")?;
                m.serialize_entry("properties", &Properties(props))?;
                m.serialize_entry("required", &Required(props))?;
                m.serialize_entry("additionalProperties", &false)?;
                m.end()
            }
            StrictSchema::Nullable(inner) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("anyOf", &(inner, TypeOnly("null")))?;
                m.end()
            }
        }
    }
}

/// Strictifies any JSON Schema of the supported shapes (see the module
/// documentation) into a [`StrictSchema`]. Idempotent:
/// `strictify(&strictify(v)?.to_value())` is the same schema. Errors name the
/// path of a node that has no strict equivalent (a `$ref`, a union of several
/// non-null alternatives, an array without `items`, an unknown type).
pub fn strictify(schema: &Value) -> Result<StrictSchema, String> {
    strictify_at(schema, "(root)")
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        || v.get("const").is_some_and(Value::is_null)
        || v.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() == 1 && e[0].is_null())
}

fn strictify_at(schema: &Value, path: &str) -> Result<StrictSchema, String> {
    let Some(node) = schema.as_object() else {
        return Err(format!("{path}: a schema must be an object"));
    };
    if node.contains_key("$ref") {
        return Err(format!("{path}: `$ref` cannot be sent; every subschema must be inlined"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = node.get(key) {
            let alternatives = alternatives.as_array().ok_or_else(|| format!("{path}: `{key}` must be an array"))?;
            let (nulls, others): (Vec<&Value>, Vec<&Value>) = alternatives.iter().partition(|a| is_null_schema(a));
            return match others.as_slice() {
                [one] if nulls.is_empty() => strictify_at(one, path),
                [one] => Ok(StrictSchema::Nullable(Box::new(strictify_at(one, path)?).flatten_nullable())),
                _ => Err(format!("{path}: a union of several non-null schemas has no strict equivalent")),
            };
        }
    }
    // `"type":[X,"null"]` and `"enum":[…,null]`: nullable in another spelling.
    let mut nullable = false;
    let mut ty: Option<&str> = None;
    match node.get("type") {
        Some(Value::String(t)) => ty = Some(t),
        Some(Value::Array(types)) => {
            let mut non_null = types.iter().filter_map(Value::as_str).filter(|t| *t != "null");
            nullable = types.iter().any(|t| t == "null");
            ty = non_null.next();
            if non_null.next().is_some() {
                return Err(format!("{path}: several non-null types have no strict equivalent"));
            }
        }
        Some(_) => return Err(format!("{path}: `type` must be a string or an array of strings")),
        None => {}
    }
    let literals = match (node.get("enum"), node.get("const")) {
        (Some(Value::Array(values)), _) => {
            nullable |= values.iter().any(Value::is_null);
            let strings: Option<Vec<String>> =
                values.iter().filter(|v| !v.is_null()).map(|v| v.as_str().map(str::to_owned)).collect();
            Some(strings.ok_or_else(|| format!("{path}: only string enums are supported"))?)
        }
        (Some(_), _) => return Err(format!("{path}: `enum` must be an array")),
        (None, Some(Value::String(c))) => Some(vec![c.clone()]),
        (None, Some(Value::Null)) => return Err(format!("{path}: a schema that only allows null is not supported")),
        (None, Some(_)) => return Err(format!("{path}: only string constants are supported")),
        (None, None) => None,
    };
    let inner = if let Some(values) = literals {
        if ty.is_some_and(|t| t != "string") {
            return Err(format!("{path}: only string enums are supported"));
        }
        StrictSchema::Enum(values)
    } else {
        match ty {
            Some("string") => StrictSchema::String,
            Some("number") => StrictSchema::Number,
            Some("integer") => StrictSchema::Integer,
            Some("boolean") => StrictSchema::Boolean,
            Some("array") => {
                let items = node.get("items").ok_or_else(|| format!("{path}: an array schema needs `items`"))?;
                StrictSchema::Array(Box::new(strictify_at(items, &format!("{path}[]"))?))
            }
            Some("object") => strictify_object(node, path)?,
            Some(other) => return Err(format!("{path}: type `{other}` is not supported")),
            None => return Err(format!("{path}: the schema has no type")),
        }
    };
    Ok(if nullable { StrictSchema::Nullable(Box::new(inner)) } else { inner })
}

impl StrictSchema {
    fn flatten_nullable(self: Box<Self>) -> Box<Self> {
        match *self {
            StrictSchema::Nullable(inner) => inner,
            _ => self,
        }
    }
}

fn strictify_object(node: &serde_json::Map<String, Value>, path: &str) -> Result<StrictSchema, String> {
    let empty = serde_json::Map::new();
    let props = match node.get("properties") {
        Some(Value::Object(p)) => p,
        Some(_) => return Err(format!("{path}: `properties` must be an object")),
        None => &empty,
    };
    // Declared order: `required` first (schemars lists it in field order),
    // then any property it does not list, in the map's order.
    let mut order: Vec<&str> = Vec::with_capacity(props.len());
    if let Some(Value::Array(required)) = node.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if props.contains_key(name) && !order.contains(&name) {
                order.push(name);
            }
        }
    }
    for name in props.keys() {
        if !order.contains(&name.as_str()) {
            order.push(name);
        }
    }
    let mut out = Vec::with_capacity(order.len());
    for name in order {
        let child = strictify_at(
            &props[name],
            &format!("{}{name}", if path == "(root)" { String::new() } else { format!("{path}.") }),
        )?;
        out.push((name.to_owned(), child));
    }
    Ok(StrictSchema::Object(out))
}

/// The strict schema of a Rust type: schemars (every subschema inlined, no
/// meta-schema), then [`strictify`]. Panics if the type uses a shape that has
/// no strict equivalent (a programming error, caught by the tests).
pub fn schema_for<T: JsonSchema>() -> StrictSchema {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    strictify(schema.as_value()).unwrap_or_else(|e| panic!("schema of {}: {e}", T::schema_name()))
}

/// The block schema of a level (shape `block`).
pub fn block_schema(level: Level) -> StrictSchema {
    match level {
        Level::Operation => schema_for::<OperationBlock>(),
        Level::Type => schema_for::<TypeBlock>(),
        Level::Module => schema_for::<ModuleBlock>(),
    }
}

/// The cycle response schema of a level with any string as `id` (what
/// receipt-side validation checks structurally).
pub fn cycle_shape(level: Level) -> StrictSchema {
    match level {
        Level::Operation => schema_for::<CycleResponse<OperationBlock>>(),
        Level::Type => schema_for::<CycleResponse<TypeBlock>>(),
        Level::Module => schema_for::<CycleResponse<ModuleBlock>>(),
    }
}

/// The cycle schema sent for shape `scc` (§6), with each entry's `id`
/// restricted to `{"type":"string","enum":[<ids asked for>]}` (duplicates
/// dropped, first occurrence kept) so that the model cannot answer for a unit
/// it was not asked about.
pub fn cycle_schema(level: Level, ids: &[&str]) -> StrictSchema {
    let mut distinct: Vec<String> = Vec::with_capacity(ids.len());
    for id in ids {
        if !distinct.iter().any(|d| d == id) {
            distinct.push((*id).to_owned());
        }
    }
    let mut schema = cycle_shape(level);
    let StrictSchema::Object(root) = &mut schema else { unreachable!("a cycle response is an object") };
    let StrictSchema::Array(items) = &mut root[0].1 else { unreachable!("`members` is an array") };
    let StrictSchema::Object(entry) = items.as_mut() else { unreachable!("a cycle entry is an object") };
    entry[0].1 = StrictSchema::Enum(distinct);
    schema
}

/// `codegraph_<level>`: the schema name for shape `block`.
pub fn block_schema_name(level: Level) -> String {
    format!("codegraph_{}", level.as_str())
}

/// `codegraph_<level>_cycle`: the schema name for shape `scc`.
pub fn cycle_schema_name(level: Level) -> String {
    format!("codegraph_{}_cycle", level.as_str())
}

/// Whether a schema name is accepted by providers: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_valid_schema_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Keywords that must not appear in a schema sent in strict mode.
pub const FORBIDDEN_KEYWORDS: [&str; 10] =
    ["$schema", "$id", "minimum", "maximum", "minLength", "maxLength", "pattern", "format", "$ref", "$defs"];

/// Checks a JSON Schema value for strict-mode compatibility and lists every
/// violation with its path: an object node without `additionalProperties:
/// false`, or whose `required` is not exactly all its property names; a
/// forbidden keyword ([`FORBIDDEN_KEYWORDS`], `definitions`) anywhere outside
/// a `properties` map's keys; an `enum` without `"type":"string"`; an array
/// without `items`. Empty = compatible.
pub fn strict_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check_node(schema, "(root)", &mut out);
    out
}

fn check_node(v: &Value, path: &str, out: &mut Vec<String>) {
    let Some(node) = v.as_object() else {
        out.push(format!("{path}: not an object"));
        return;
    };
    for key in node.keys() {
        if FORBIDDEN_KEYWORDS.contains(&key.as_str()) || key == "definitions" {
            out.push(format!("{path}: forbidden keyword `{key}`"));
        }
    }
    if node.get("type").and_then(Value::as_str) == Some("object") {
        match node.get("properties").and_then(Value::as_object) {
            None => out.push(format!("{path}: object without `properties`")),
            Some(props) => {
                if node.get("additionalProperties") != Some(&Value::Bool(false)) {
                    out.push(format!("{path}: `additionalProperties` is not false"));
                }
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut sorted_required = required.clone();
                sorted_required.sort_unstable();
                let names: Vec<&str> = props.keys().map(String::as_str).collect(); // sorted map
                if sorted_required != names || required.len() != props.len() {
                    out.push(format!("{path}: `required` {required:?} is not all of the properties {names:?}"));
                }
                for (name, child) in props {
                    check_node(child, &format!("{path}.{name}"), out);
                }
            }
        }
    }
    if node.contains_key("enum") && node.get("type").and_then(Value::as_str) != Some("string") {
        out.push(format!("{path}: `enum` without `\"type\":\"string\"`"));
    }
    if node.get("type").and_then(Value::as_str) == Some("array") {
        match node.get("items") {
            Some(items) => check_node(items, &format!("{path}[]"), out),
            None => out.push(format!("{path}: array without `items`")),
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(alts) = node.get(key).and_then(Value::as_array) {
            for (i, alt) in alts.iter().enumerate() {
                check_node(alt, &format!("{path}.{key}[{i}]"), out);
            }
        }
    }
}
