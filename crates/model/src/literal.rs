//! Literal values (`docs/formats/model.md` §3.6): constant values of fields and
//! the written arguments of annotations. Generic over how an entity is referred
//! to: surrogates (`u32`) as read from a model, natural keys in the builder,
//! rendered ids for consumers.

/// A constant value as the extractor wrote it.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal<R> {
    /// `{"k":"string","v":…}`
    String(String),
    /// `{"k":"number","v":…}`: canonical decimal text, also `NaN`, `Infinity`.
    Number(String),
    /// `{"k":"boolean","v":…}`
    Boolean(bool),
    /// `{"k":"null"}`
    Null,
    /// `{"k":"enum","type":…,"name":…}`: the enum type and the constant's name.
    Enum { ty: R, name: String },
    /// `{"k":"type","type":…}`: a class literal such as `Foo.class`.
    Type { ty: R },
    /// `{"k":"array","items":[…]}`, written order kept.
    Array(Vec<Literal<R>>),
    /// `{"k":"annotation","type":…,"arguments":[…]}`: a nested annotation.
    Annotation { ty: R, arguments: Vec<NamedArgument<R>> },
    /// `{"k":"unevaluated","source":…}`: an expression the extractor did not fold.
    Unevaluated(String),
}

/// One written argument of an annotation: `{name, value}`.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedArgument<R> {
    pub name: String,
    pub value: Literal<R>,
}

impl<R> Literal<R> {
    /// Visits every entity reference inside the literal, depth first.
    pub fn for_each_ref(&self, f: &mut impl FnMut(&R)) {
        match self {
            Literal::Enum { ty, .. } | Literal::Type { ty } => f(ty),
            Literal::Array(items) => items.iter().for_each(|l| l.for_each_ref(f)),
            Literal::Annotation { ty, arguments } => {
                f(ty);
                arguments.iter().for_each(|a| a.value.for_each_ref(f));
            }
            _ => {}
        }
    }

    /// The same literal with every reference mapped (e.g. surrogate → id).
    pub fn map_refs<S>(&self, f: &mut impl FnMut(&R) -> S) -> Literal<S> {
        match self {
            Literal::String(v) => Literal::String(v.clone()),
            Literal::Number(v) => Literal::Number(v.clone()),
            Literal::Boolean(v) => Literal::Boolean(*v),
            Literal::Null => Literal::Null,
            Literal::Enum { ty, name } => Literal::Enum { ty: f(ty), name: name.clone() },
            Literal::Type { ty } => Literal::Type { ty: f(ty) },
            Literal::Array(items) => Literal::Array(items.iter().map(|l| l.map_refs(f)).collect()),
            Literal::Annotation { ty, arguments } => Literal::Annotation {
                ty: f(ty),
                arguments: arguments
                    .iter()
                    .map(|a| NamedArgument { name: a.name.clone(), value: a.value.map_refs(f) })
                    .collect(),
            },
            Literal::Unevaluated(v) => Literal::Unevaluated(v.clone()),
        }
    }

    /// Writes the wire form (`docs/formats/model.md` §3.6, key order `k`
    /// first), with `write_ref` writing each reference as a JSON value.
    pub fn write_json(&self, out: &mut String, write_ref: &mut impl FnMut(&mut String, &R)) {
        use crate::json::write_js_string as s;
        match self {
            Literal::String(v) => {
                out.push_str(r#"{"k":"string","v":"#);
                s(out, v);
            }
            Literal::Number(v) => {
                out.push_str(r#"{"k":"number","v":"#);
                s(out, v);
            }
            Literal::Boolean(v) => {
                out.push_str(r#"{"k":"boolean","v":"#);
                out.push_str(if *v { "true" } else { "false" });
            }
            Literal::Null => out.push_str(r#"{"k":"null""#),
            Literal::Enum { ty, name } => {
                out.push_str(r#"{"k":"enum","type":"#);
                write_ref(out, ty);
                out.push_str(r#","name":"#);
                s(out, name);
            }
            Literal::Type { ty } => {
                out.push_str(r#"{"k":"type","type":"#);
                write_ref(out, ty);
            }
            Literal::Array(items) => {
                out.push_str(r#"{"k":"array","items":["#);
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out, write_ref);
                }
                out.push(']');
            }
            Literal::Annotation { ty, arguments } => {
                out.push_str(r#"{"k":"annotation","type":"#);
                write_ref(out, ty);
                out.push_str(r#","arguments":"#);
                write_arguments(out, arguments, write_ref);
            }
            Literal::Unevaluated(v) => {
                out.push_str(r#"{"k":"unevaluated","source":"#);
                s(out, v);
            }
        }
        out.push('}');
    }
}

/// Writes `[{"name":…,"value":…},…]`.
pub fn write_arguments<R>(
    out: &mut String,
    arguments: &[NamedArgument<R>],
    write_ref: &mut impl FnMut(&mut String, &R),
) {
    out.push('[');
    for (i, a) in arguments.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"name":"#);
        crate::json::write_js_string(out, &a.name);
        out.push_str(r#","value":"#);
        a.value.write_json(out, write_ref);
        out.push('}');
    }
    out.push(']');
}
