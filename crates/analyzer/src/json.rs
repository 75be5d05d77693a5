//! Serialization helpers: anchors, metrics with JavaScript numbers, Literals
//! with rendered ids inside (wire key order, `k` first).

use model::{Literal, NamedArgument};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::Id;

/// A decoded anchor: `{file, span: [start, end]}` (file = path).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct SourceAnchor {
    pub file: Id,
    pub span: [u32; 2],
}

impl SourceAnchor {
    /// Gross span length `span[1] − span[0] + 1`.
    pub fn loc(&self) -> u32 {
        self.span[1] - self.span[0] + 1
    }
}

/// A number written as JavaScript writes it (`1`, not `1.0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JsNumber(pub f64);

impl Serialize for JsNumber {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0;
        if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.0e15 {
            return s.serialize_i64(n as i64);
        }
        let text = model::json::js_number(n);
        let raw = serde_json::value::RawValue::from_string(text).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

/// An entity's metrics, in the order read (`{name: number}`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics(pub Vec<(Id, f64)>);

impl Metrics {
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find(|(k, _)| &**k == name).map(|(_, v)| *v)
    }
}

impl Serialize for Metrics {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(&**k, &JsNumber(*v))?;
        }
        map.end()
    }
}

/// Serializes a [`Literal`] in its wire form.
pub struct LiteralJson<'a>(pub &'a Literal<Id>);

impl Serialize for LiteralJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self.0 {
            Literal::String(v) => {
                m.serialize_entry("k", "string")?;
                m.serialize_entry("v", v)?;
            }
            Literal::Number(v) => {
                m.serialize_entry("k", "number")?;
                m.serialize_entry("v", v)?;
            }
            Literal::Boolean(v) => {
                m.serialize_entry("k", "boolean")?;
                m.serialize_entry("v", v)?;
            }
            Literal::Null => m.serialize_entry("k", "null")?,
            Literal::Enum { ty, name } => {
                m.serialize_entry("k", "enum")?;
                m.serialize_entry("type", &**ty)?;
                m.serialize_entry("name", name)?;
            }
            Literal::Type { ty } => {
                m.serialize_entry("k", "type")?;
                m.serialize_entry("type", &**ty)?;
            }
            Literal::Array(items) => {
                m.serialize_entry("k", "array")?;
                m.serialize_entry("items", &LiteralsJson(items))?;
            }
            Literal::Annotation { ty, arguments } => {
                m.serialize_entry("k", "annotation")?;
                m.serialize_entry("type", &**ty)?;
                m.serialize_entry("arguments", &ArgumentsJson(arguments))?;
            }
            Literal::Unevaluated(v) => {
                m.serialize_entry("k", "unevaluated")?;
                m.serialize_entry("source", v)?;
            }
        }
        m.end()
    }
}

struct LiteralsJson<'a>(&'a [Literal<Id>]);

impl Serialize for LiteralsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for l in self.0 {
            seq.serialize_element(&LiteralJson(l))?;
        }
        seq.end()
    }
}

/// Serializes `[{name, value}, …]`.
pub struct ArgumentsJson<'a>(pub &'a [NamedArgument<Id>]);

impl Serialize for ArgumentsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for a in self.0 {
            seq.serialize_element(&ArgumentJson(a))?;
        }
        seq.end()
    }
}

struct ArgumentJson<'a>(&'a NamedArgument<Id>);

impl Serialize for ArgumentJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("name", &self.0.name)?;
        m.serialize_entry("value", &LiteralJson(&self.0.value))?;
        m.end()
    }
}

pub(crate) fn ser_literal<S: Serializer>(v: &Option<Literal<Id>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(l) => LiteralJson(l).serialize(s),
        None => s.serialize_none(),
    }
}

pub(crate) fn ser_provenance<S: Serializer>(p: &model::Provenance, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.as_str())
}

pub(crate) fn ser_arguments<S: Serializer>(v: &[NamedArgument<Id>], s: S) -> Result<S::Ok, S::Error> {
    ArgumentsJson(v).serialize(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_literals() {
        let m = Metrics(vec![("sloc".into(), 15.0), ("x".into(), 0.5), ("big".into(), 1e21)]);
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"sloc":15,"x":0.5,"big":1e+21}"#);
        let l: Literal<Id> = Literal::Enum { ty: "java:p/E".into(), name: "A".into() };
        assert_eq!(serde_json::to_string(&LiteralJson(&l)).unwrap(), r#"{"k":"enum","type":"java:p/E","name":"A"}"#);
        let l: Literal<Id> = Literal::Array(vec![Literal::Null, Literal::Number("1".into())]);
        assert_eq!(
            serde_json::to_string(&LiteralJson(&l)).unwrap(),
            r#"{"k":"array","items":[{"k":"null"},{"k":"number","v":"1"}]}"#
        );
    }
}
