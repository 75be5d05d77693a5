//! Canonical JSON and digests (docs/formats/fingerprints.md §1): the bytes
//! fingerprints and facts digests hash.
//!
//! `canonical_json(v)` is what JavaScript's
//! `JSON.stringify(sortKeysDeep(v))` prints: object keys sorted by UTF-16 code
//! units ([`model::cmp_utf16`]), arrays in order, JavaScript number form and
//! string escaping ([`model::json`]), no whitespace. As in JavaScript, keys
//! that look like array indices (`"0"`, `"9"`, `"10"`, up to 2³² − 2) come
//! first, in numeric order, whatever the sort. A `serde_json::Value` has no
//! `undefined`, so nothing is omitted here; a number is printed from its `f64`
//! value, as JavaScript would after `JSON.parse`.

use std::cmp::Ordering;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `canonicalJson(v)`.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, v);
    out
}

/// `canonicalJson` of anything serializable (through `serde_json::Value`).
pub fn canonical_json_of<T: serde::Serialize + ?Sized>(v: &T) -> String {
    canonical_json(&serde_json::to_value(v).expect("a JSON-representable value"))
}

/// Appends `canonicalJson(v)` to `out`.
pub fn write_canonical(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => model::json::write_js_number(out, n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => model::json::write_js_string(out, s),
        Value::Array(items) => write_array(out, items, write_canonical),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| js_key_order(a, b));
            write_entries(out, keys.into_iter().map(|k| (k.as_str(), &map[k])), write_canonical);
        }
    }
}

/// Writes `{k: v, …}` of entries already in canonical key order, each value by `write`.
fn write_entries<'k, V>(
    out: &mut String,
    entries: impl IntoIterator<Item = (&'k str, V)>,
    mut write: impl FnMut(&mut String, V),
) {
    out.push('{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        model::json::write_js_string(out, k);
        out.push(':');
        write(out, v);
    }
    out.push('}');
}

/// Canonical JSON written straight from a value whose shape is known, without
/// a `serde_json::Value` in between: an object's keys are given in canonical
/// order by the caller (checked in debug builds), absent optionals are simply
/// not written (JavaScript's `undefined`).
pub struct Fields<'o> {
    out: &'o mut String,
    last: Option<&'static str>,
}

/// Writes one object: `{`, the fields `fill` writes, `}`.
pub fn write_object(out: &mut String, fill: impl FnOnce(&mut Fields<'_>)) {
    out.push('{');
    fill(&mut Fields { out: &mut *out, last: None });
    out.push('}');
}

/// Writes an array of `items`, each by `write`.
pub fn write_array<T>(out: &mut String, items: impl IntoIterator<Item = T>, mut write: impl FnMut(&mut String, T)) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

/// Writes an array of strings.
pub fn write_strings<'s>(out: &mut String, items: impl IntoIterator<Item = &'s str>) {
    write_array(out, items, model::json::write_js_string);
}

impl Fields<'_> {
    /// Starts the field `key` and hands out the buffer for its value.
    pub fn key(&mut self, key: &'static str) -> &mut String {
        debug_assert!(self.last.is_none_or(|l| js_key_order(l, key) == Ordering::Less), "{key} out of order");
        if self.last.is_some() {
            self.out.push(',');
        }
        self.last = Some(key);
        // Keys are our own identifiers: nothing in them needs escaping.
        debug_assert!(key.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\'), "{key} needs escaping");
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }
    pub fn str(&mut self, key: &'static str, v: &str) {
        model::json::write_js_string(self.key(key), v);
    }
    /// A string, or nothing when absent.
    pub fn opt_str(&mut self, key: &'static str, v: Option<&str>) {
        if let Some(v) = v {
            self.str(key, v);
        }
    }
    /// A string, or `null` when absent.
    pub fn str_or_null(&mut self, key: &'static str, v: Option<&str>) {
        match v {
            Some(v) => self.str(key, v),
            None => self.key(key).push_str("null"),
        }
    }
    pub fn bool(&mut self, key: &'static str, v: bool) {
        self.key(key).push_str(if v { "true" } else { "false" });
    }
    /// A number as JavaScript prints it (`null` when not finite).
    pub fn number(&mut self, key: &'static str, v: f64) {
        model::json::write_js_number(self.key(key), v);
    }
    pub fn strings<'s>(&mut self, key: &'static str, items: impl IntoIterator<Item = &'s str>) {
        write_strings(self.key(key), items);
    }
    pub fn array<T>(
        &mut self,
        key: &'static str,
        items: impl IntoIterator<Item = T>,
        write: impl FnMut(&mut String, T),
    ) {
        write_array(self.key(key), items, write);
    }
    /// An object of every field of `items`.
    pub fn objects<T>(&mut self, key: &'static str, items: &[T], mut fill: impl FnMut(&mut Fields<'_>, &T)) {
        self.array(key, items, |out, item| write_object(out, |f| fill(f, item)));
    }
}

/// Writes `{k: v, …}` with keys of run-time text, sorted as canonical JSON
/// sorts them; a repeated key keeps its last value, as a JavaScript object does.
pub fn write_number_map<'k>(out: &mut String, entries: impl IntoIterator<Item = (&'k str, f64)>) {
    let mut sorted: Vec<(&str, f64)> = entries.into_iter().collect();
    // Stable, so the last of equal keys stays last and is the one kept.
    sorted.sort_by(|a, b| js_key_order(a.0, b.0));
    let kept = sorted.iter().enumerate().filter(|&(i, e)| sorted.get(i + 1).is_none_or(|next| next.0 != e.0));
    write_entries(out, kept.map(|(_, &e)| e), model::json::write_js_number);
}

/// A JavaScript array index: the canonical decimal form of an integer in
/// `0 ..= 2³² − 2` (no sign, no leading zero).
fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || k.len() > 10 || (k.len() > 1 && k.starts_with('0')) || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse::<u64>().ok().filter(|n| *n < u64::from(u32::MAX)).map(|n| n as u32)
}

/// The order in which JavaScript stringifies a key-sorted object's keys:
/// array indices first (numeric), then the rest by UTF-16 code units.
pub(crate) fn js_key_order(a: &str, b: &str) -> Ordering {
    match (array_index(a), array_index(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => model::cmp_utf16(a, b),
    }
}

/// `sha256(text)`: SHA-256 of the UTF-8 bytes, 64 lowercase hex characters.
pub fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest.iter() {
        hex.push(char::from_digit(u32::from(b >> 4), 16).expect("a nibble"));
        hex.push(char::from_digit(u32::from(b & 0xf), 16).expect("a nibble"));
    }
    hex
}

/// `digestOf(v)` = `sha256(canonicalJson(v))`.
pub fn digest_of(v: &Value) -> String {
    sha256_hex(&canonical_json(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn golden_vectors() {
        assert_eq!(canonical_json(&json!({"calls": []})), r#"{"calls":[]}"#);
        assert_eq!(
            digest_of(&json!({"calls": []})),
            "621d51202f38693e32078404ea1baf179547c67ef85fe7f6b3fdb79b22659a63"
        );
        // `{b: undefined, a: [undefined, 1.5, 1e21, -0]}`: serde has no
        // undefined; the JavaScript result is the same as for this input.
        assert_eq!(canonical_json(&json!({"a": [null, 1.5, 1e21, -0.0]})), r#"{"a":[null,1.5,1e+21,0]}"#);
    }

    #[test]
    fn keys_sorted_by_utf16_at_every_depth() {
        let v = json!({"b": {"z": 1, "y": [{"d": 1, "c": 2}]}, "a/～": 1, "a/😀": 2, "A": true});
        assert_eq!(canonical_json(&v), r#"{"A":true,"a/😀":2,"a/～":1,"b":{"y":[{"c":2,"d":1}],"z":1}}"#);
    }

    #[test]
    fn integer_like_keys_first_in_numeric_order() {
        let v = json!({"b": 0, "10": 1, "9": 2, "01": 3, "4294967295": 4, "4294967294": 5, "-1": 6});
        assert_eq!(canonical_json(&v), r#"{"9":2,"10":1,"4294967294":5,"-1":6,"01":3,"4294967295":4,"b":0}"#);
    }

    #[test]
    fn strings_and_numbers_as_javascript() {
        let v = json!(["\u{2028}/\"\\\n\u{1}", 1.0, 100, 0.000001, 1e-7, u64::MAX]);
        assert_eq!(canonical_json(&v), "[\"\u{2028}/\\\"\\\\\\n\\u0001\",1,100,0.000001,1e-7,18446744073709552000]");
    }

    #[test]
    fn sha256_of_empty_text() {
        assert_eq!(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
