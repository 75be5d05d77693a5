//! One line of `model.jsonl` parsed into a typed, borrowed record. Each record
//! type has its own visitor so that values are checked as they are read and
//! unknown keys are kept as raw JSON (extensions pass through untouched).

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A string borrowed from the line when it has no escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// A whole number ≥ 0 (a surrogate, an index, a line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Index(pub u64);

impl<'de> Deserialize<'de> for Index {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Index;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a whole number ≥ 0")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Index, E> {
                Ok(Index(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Index, E> {
                Err(E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Index, E> {
                Err(E::invalid_value(de::Unexpected::Float(v), &self))
            }
        }
        d.deserialize_u64(V)
    }
}

/// `[file, start, end]`.
pub(crate) type RawAnchor = [Index; 3];

/// `metrics`: name → number, order kept.
#[derive(Debug, Default)]
pub(crate) struct Metrics<'a>(pub Vec<(Text<'a>, f64)>);

impl<'de> Deserialize<'de> for Metrics<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Metrics<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of measure name to number")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<Text>()? {
                    let v: f64 =
                        map.next_value().map_err(|e| de::Error::custom(format_args!("measure \"{}\": {e}", &*k)))?;
                    out.push((k, v));
                }
                Ok(Metrics(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads the next value, naming the key in any error.
fn value<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    map: &mut A,
    key: &str,
    slot: &mut Option<T>,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::custom(format_args!("key \"{key}\" appears twice")));
    }
    let v = map.next_value::<T>().map_err(|e| de::Error::custom(format_args!("key \"{key}\": {e}")))?;
    *slot = Some(v);
    Ok(())
}

/// Checks the `t` key's value against the record being read.
fn record_type<'de, A: MapAccess<'de>>(map: &mut A, want: &str, seen: &mut bool) -> Result<(), A::Error> {
    let mut t: Option<Text> = None;
    if *seen {
        return Err(de::Error::custom("key \"t\" appears twice"));
    }
    value(map, "t", &mut t)?;
    *seen = true;
    match t {
        Some(t) if &*t == want => Ok(()),
        Some(t) => Err(de::Error::custom(format_args!("key \"t\" is \"{}\", expected \"{want}\"", &*t))),
        None => unreachable!("value() filled the slot"),
    }
}

/// Unknown keys, kept as raw JSON in the order read.
pub(crate) type Extensions<'a> = Vec<(Text<'a>, &'a RawValue)>;

fn extension<'de, A: MapAccess<'de>>(map: &mut A, key: Text<'de>, ext: &mut Extensions<'de>) -> Result<(), A::Error> {
    if ext.iter().any(|(k, _)| *k == key) {
        return Err(de::Error::custom(format_args!("key \"{}\" appears twice", &*key)));
    }
    let v = map.next_value::<&RawValue>()?;
    ext.push((key, v));
    Ok(())
}

macro_rules! record {
    (
        $(#[$doc:meta])*
        $name:ident, $t:literal, $expect:literal, { $($field:ident : $ty:ty = $key:literal),* $(,)? }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub(crate) struct $name<'a> {
            $(pub $field: Option<$ty>,)*
            pub extensions: Extensions<'a>,
        }

        impl<'de> Deserialize<'de> for $name<'de> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        let mut r = $name::default();
                        let mut seen_t = false;
                        while let Some(key) = map.next_key::<Text<'de>>()? {
                            match &*key {
                                "t" => record_type(&mut map, $t, &mut seen_t)?,
                                $($key => value(&mut map, $key, &mut r.$field)?,)*
                                _ => extension(&mut map, key, &mut r.extensions)?,
                            }
                        }
                        Ok(r)
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

record!(
    /// `{"t":"header",…}`
    HeaderLine, "header", "a header object", {
        schema_version: Text<'a> = "schemaVersion",
        lang: Text<'a> = "lang",
        extractor: &'a RawValue = "extractor",
        root: Text<'a> = "root",
        repository: &'a RawValue = "repository",
        dict: Dict = "dict",
    }
);

record!(
    /// `{"t":"f","i":…,"path":…}`
    FileLine, "f", "a file object", {
        i: Index = "i",
        path: Text<'a> = "path",
    }
);

record!(
    /// `{"t":"e",…}`
    EntityLine, "e", "an entity object", {
        i: Index = "i",
        k: Index = "k",
        tr: Vec<Index> = "tr",
        m: Index = "m",
        s: Text<'a> = "s",
        d: Text<'a> = "d",
        name: Text<'a> = "name",
        signature: Text<'a> = "signature",
        declared_type: Index = "declaredType",
        is_stub: bool = "isStub",
        parent: Index = "parent",
        attached_to: Index = "attachedTo",
        parameters: Vec<Index> = "parameters",
        local_variables: Vec<Index> = "localVariables",
        defined_in: Vec<Index> = "definedIn",
        comments: Vec<Text<'a>> = "comments",
        metrics: Metrics<'a> = "metrics",
        value: &'a RawValue = "value",
        space: Vec<Text<'a>> = "space",
        anchor: RawAnchor = "anchor",
    }
);

record!(
    /// `{"t":"x",…}`
    EdgeLine, "x", "an edge object", {
        k: Index = "k",
        f: Index = "f",
        o: Index = "o",
        p: Index = "p",
        candidates: Vec<Index> = "candidates",
        is_read: bool = "isRead",
        is_write: bool = "isWrite",
        arguments: &'a RawValue = "arguments",
        source_file: Index = "sourceFile",
        anchor: RawAnchor = "anchor",
    }
);

record!(
    /// `{"t":"eof","counts":{…}}`
    EofLine, "eof", "an eof object", {
        counts: Counts = "counts",
    }
);

/// The header's dictionaries.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Dict {
    pub kinds: Vec<String>,
    pub traits: Vec<String>,
    pub edges: Vec<String>,
    pub provenance: Vec<String>,
}

/// The trailer's tallies.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct Counts {
    pub files: u64,
    pub entities: u64,
    pub edges: u64,
}

/// Just the record type, for lines that do not start with a canonical `{"t":`.
#[derive(serde::Deserialize)]
struct TypeOnly<'a> {
    #[serde(borrow)]
    t: Option<Cow<'a, str>>,
}

/// The record type of a line: a fast prefix check for canonical lines, a
/// parse of the `t` key otherwise. `Ok(None)` when there is no string `t`.
pub(crate) fn peek_type(line: &str) -> Result<Option<Cow<'_, str>>, serde_json::Error> {
    for t in ["e", "x", "f", "header", "eof"] {
        if let Some(rest) = line.strip_prefix("{\"t\":\"") {
            if rest.strip_prefix(t).is_some_and(|r| r.starts_with('"')) {
                return Ok(Some(Cow::Borrowed(&rest[..t.len()])));
            }
        }
    }
    // A `t` that is not a string is reported as missing.
    match serde_json::from_str::<TypeOnly>(line) {
        Ok(v) => Ok(v.t),
        Err(e) if e.is_data() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Parses a whole line as `T`, rejecting trailing characters.
pub(crate) fn parse<'a, T: Deserialize<'a>>(line: &'a str) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(line);
    let v = T::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// A serde_json error as a message without its "at line 1 column N" tail.
pub(crate) fn describe(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let msg = match full.rfind(" at line ") {
        Some(at) => &full[..at],
        None => &full[..],
    };
    if e.column() > 0 {
        format!("{msg} (column {})", e.column())
    } else {
        msg.to_owned()
    }
}
