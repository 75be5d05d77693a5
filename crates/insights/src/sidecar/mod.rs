//! The side-car `<model>.insights.jsonl` (docs/formats/sidecar.md): the
//! interchange file with the codegraph CLI, which must round-trip byte for
//! byte.
//!
//! Layout: `header → i* → f* → eof?`, one JSON object per line, lines joined
//! by `\n`, the file ending with `\n`. Records and failures are sorted by
//! `(level rank, id)`, ids compared by UTF-16 code units
//! ([`model::cmp_utf16`]).
//!
//! **Writing.** Every line is the object's keys in wire (schema) order — not
//! sorted — written the way JavaScript's `JSON.stringify` writes them: no
//! spaces, JavaScript string escaping and JavaScript number text (`1`, not
//! `1.0`; `1e+21`; `1e-7`). Absent optional keys are omitted, nullable block
//! fields are always present. `metadata` keys (a map) are written in the
//! order JavaScript would iterate a key-sorted object: array-index keys first
//! (numerically), then by UTF-16 code units.
//!
//! **Reading.** Lines are parsed by a small JSON reader of our own rather than
//! `serde_json`, for two reasons that both break byte identity: serde_json's
//! default float parsing is not always correctly rounded (it can be one unit
//! in the last place off for 17-digit numbers such as a cost share), and it
//! rejects lone surrogate escapes (`"\ud800"`), which a file written by
//! JavaScript may contain. Here numbers are correctly rounded
//! (`str::parse::<f64>`), and a lone surrogate escape decodes to U+FFFD
//! (a Rust string cannot hold it; see `docs/insights-open-points.md`).
//! Objects are then validated like the reference's schemas: unknown keys
//! stripped, types strict, integers safe, the block checked against the schema
//! of the record's `level`, the fingerprint only length-checked.

use std::cmp::Ordering;
use std::io::{self, Write};
use std::sync::OnceLock;

use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::blocks::{Block, ModuleBlock, OperationBlock, TypeBlock};
use crate::canonical::js_key_order;
use crate::record::{
    FailureReason, FailureRecord, HeaderModels, HeaderSource, HeaderView, InsightRecord, NaturalKey, SidecarHeader,
    Trailer, TrailerCounts, Usage,
};
use crate::schema::{block_schema, StrictSchema};
use crate::validate::{check, validation_text, Issue};
use crate::vocab::{FailureKind, Level, Origin, INSIGHTS_KIND};

/// The largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

// ---------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------

/// serde_json's writer with JavaScript number text. Strings are already
/// escaped as `JSON.stringify` escapes them (every Rust string is valid
/// Unicode, so the lone-surrogate rule never applies).
struct JsFormatter;

impl serde_json::ser::Formatter for JsFormatter {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let mut s = String::new();
        model::json::write_js_number(&mut s, value);
        writer.write_all(s.as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }
}

/// Appends the JavaScript JSON text of `v` (fields in declaration order).
fn write_js<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    let mut ser = serde_json::Serializer::with_formatter(out, JsFormatter);
    v.serialize(&mut ser).expect("side-car objects always serialize");
}

fn into_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).expect("serde_json writes UTF-8")
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HeaderWire<'a> {
    t: &'static str,
    kind: &'static str,
    generated_by: &'a str,
    prompt_version: &'a str,
    metamodel: &'a str,
    models: &'a HeaderModels,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<&'a str>,
    depth: u32,
    source: &'a HeaderSource,
}

#[derive(Serialize)]
struct RecordWire<'a> {
    t: &'static str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a NaturalKey>,
    level: Level,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scc: Option<&'a [String]>,
    origin: Origin,
    block: &'a Block,
    fingerprint: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<&'a Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<JsKeyOrder<'a>>,
}

#[derive(Serialize)]
struct FailureWire<'a> {
    t: &'static str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a NaturalKey>,
    level: Level,
    members: &'a [String],
    model: &'a str,
    reason: &'a FailureReason,
    attempts: u32,
    calls: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<&'a Usage>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TrailerWire<'a> {
    t: &'static str,
    counts: &'a TrailerCounts,
    usage: &'a Usage,
    generated_at: &'a str,
}

/// A string map written in JavaScript's iteration order of a key-sorted
/// object: array-index keys first, numerically, then UTF-16 order.
struct JsKeyOrder<'a>(&'a std::collections::BTreeMap<String, String>);

impl Serialize for JsKeyOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(&String, &String)> = self.0.iter().collect();
        entries.sort_by(|a, b| js_key_order(a.0, b.0));
        let mut map = s.serialize_map(Some(entries.len()))?;
        for (k, v) in entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

fn write_header(out: &mut Vec<u8>, h: &SidecarHeader) {
    write_js(
        out,
        &HeaderWire {
            t: "header",
            kind: INSIGHTS_KIND,
            generated_by: &h.generated_by,
            prompt_version: &h.prompt_version,
            metamodel: &h.metamodel,
            models: &h.models,
            provider: h.provider.as_deref(),
            depth: h.depth,
            source: &h.source,
        },
    );
}

fn write_record(out: &mut Vec<u8>, r: &InsightRecord) {
    write_js(
        out,
        &RecordWire {
            t: "i",
            id: &r.id,
            key: r.key.as_ref(),
            level: r.level,
            kind: &r.kind,
            name: r.name.as_deref(),
            file: r.file.as_deref(),
            scc: r.scc.as_deref(),
            origin: r.origin,
            block: &r.block,
            fingerprint: &r.fingerprint,
            model: r.model.as_deref(),
            usage: r.usage.as_ref(),
            metadata: r.metadata.as_ref().map(JsKeyOrder),
        },
    );
}

fn write_failure(out: &mut Vec<u8>, f: &FailureRecord) {
    write_js(
        out,
        &FailureWire {
            t: "f",
            id: &f.id,
            key: f.key.as_ref(),
            level: f.level,
            members: &f.members,
            model: &f.model,
            reason: &f.reason,
            attempts: f.attempts,
            calls: f.calls,
            usage: f.usage.as_ref(),
        },
    );
}

fn write_trailer(out: &mut Vec<u8>, t: &Trailer) {
    write_js(out, &TrailerWire { t: "eof", counts: &t.counts, usage: &t.usage, generated_at: &t.generated_at });
}

/// The header line (no trailing newline).
pub fn encode_header(h: &SidecarHeader) -> String {
    let mut out = Vec::with_capacity(256);
    write_header(&mut out, h);
    into_string(out)
}

/// An insight record line (no trailing newline).
pub fn encode_record(r: &InsightRecord) -> String {
    let mut out = Vec::with_capacity(2048);
    write_record(&mut out, r);
    into_string(out)
}

/// A failure record line (no trailing newline).
pub fn encode_failure(f: &FailureRecord) -> String {
    let mut out = Vec::with_capacity(512);
    write_failure(&mut out, f);
    into_string(out)
}

/// The trailer line (no trailing newline).
pub fn encode_trailer(t: &Trailer) -> String {
    let mut out = Vec::with_capacity(256);
    write_trailer(&mut out, t);
    into_string(out)
}

/// The block alone, as it appears inside a record line: schema key order,
/// nullable fields as `null`, JavaScript number text.
pub fn block_json(b: &Block) -> String {
    let mut out = Vec::with_capacity(1024);
    write_js(&mut out, b);
    into_string(out)
}

/// The order of records in a side-car: level rank, then id by UTF-16 code units.
pub fn record_order(a: &InsightRecord, b: &InsightRecord) -> Ordering {
    a.level.cmp(&b.level).then_with(|| model::cmp_utf16(&a.id, &b.id))
}

/// The order of failure records: level rank, then unit id by UTF-16 code units.
pub fn failure_order(a: &FailureRecord, b: &FailureRecord) -> Ordering {
    a.level.cmp(&b.level).then_with(|| model::cmp_utf16(&a.id, &b.id))
}

/// A whole side-car, in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Sidecar {
    pub header: SidecarHeader,
    /// In file order (sorted, for a file this module wrote).
    pub records: Vec<InsightRecord>,
    /// In file order.
    pub failures: Vec<FailureRecord>,
    /// The last `eof` line, if any.
    pub trailer: Option<Trailer>,
    /// No trailer, or the trailer's record count differs from the records
    /// read (the file was cut short). Not written by [`encode`].
    pub truncated: bool,
}

/// The side-car text: header, records sorted, failures sorted, the trailer if
/// any; lines joined by `\n`, ending with `\n`. The input order of records and
/// failures does not matter (ties keep input order).
pub fn encode(s: &Sidecar) -> String {
    let mut records: Vec<&InsightRecord> = s.records.iter().collect();
    records.sort_by(|a, b| record_order(a, b));
    let mut failures: Vec<&FailureRecord> = s.failures.iter().collect();
    failures.sort_by(|a, b| failure_order(a, b));
    let mut out = Vec::with_capacity(512 + s.records.len() * 1800 + s.failures.len() * 400);
    write_header(&mut out, &s.header);
    out.push(b'\n');
    for r in records {
        write_record(&mut out, r);
        out.push(b'\n');
    }
    for f in failures {
        write_failure(&mut out, f);
        out.push(b'\n');
    }
    if let Some(t) = &s.trailer {
        write_trailer(&mut out, t);
        out.push(b'\n');
    }
    into_string(out)
}

/// Streaming encoder for large exports; its output equals [`encode`] of the
/// same content. Records must arrive in side-car order ([`record_order`]);
/// failures may arrive in any order, at any time (they are few: they are
/// kept and written, sorted, by [`SidecarWriter::finish`]). Output is buffered
/// internally and handed to `W` in large chunks.
pub struct SidecarWriter<W: Write> {
    w: W,
    buf: Vec<u8>,
    last: Option<(Level, String)>,
    failures: Vec<FailureRecord>,
    records: u64,
}

const FLUSH_AT: usize = 1 << 20;

impl<W: Write> SidecarWriter<W> {
    /// Starts a side-car with its header line.
    pub fn new(w: W, header: &SidecarHeader) -> io::Result<SidecarWriter<W>> {
        let mut buf = Vec::with_capacity(FLUSH_AT + 64 * 1024);
        write_header(&mut buf, header);
        buf.push(b'\n');
        Ok(SidecarWriter { w, buf, last: None, failures: Vec::new(), records: 0 })
    }

    /// Writes one record line. A record that sorts before the previous one
    /// is refused (`InvalidInput`) and nothing is written.
    pub fn record(&mut self, r: &InsightRecord) -> io::Result<()> {
        if let Some((level, id)) = &self.last {
            let order = level.cmp(&r.level).then_with(|| model::cmp_utf16(id, &r.id));
            if order == Ordering::Greater {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "side-car records must arrive sorted by (level, id): {} `{}` came after {} `{}`",
                        r.level.as_str(),
                        r.id,
                        level.as_str(),
                        id
                    ),
                ));
            }
        }
        match &mut self.last {
            Some((level, id)) => {
                *level = r.level;
                id.clear();
                id.push_str(&r.id);
            }
            None => self.last = Some((r.level, r.id.clone())),
        }
        write_record(&mut self.buf, r);
        self.buf.push(b'\n');
        self.records += 1;
        if self.buf.len() >= FLUSH_AT {
            self.w.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Keeps a failure record; it is written, sorted, by `finish`.
    pub fn failure(&mut self, f: &FailureRecord) -> io::Result<()> {
        self.failures.push(f.clone());
        Ok(())
    }

    /// How many records were written so far.
    pub fn records_written(&self) -> u64 {
        self.records
    }

    /// Writes the failures (sorted) and the trailer, flushes, and hands the
    /// writer back.
    pub fn finish(mut self, trailer: Option<&Trailer>) -> io::Result<W> {
        self.failures.sort_by(failure_order);
        for f in &self.failures {
            write_failure(&mut self.buf, f);
            self.buf.push(b'\n');
        }
        if let Some(t) = trailer {
            write_trailer(&mut self.buf, t);
            self.buf.push(b'\n');
        }
        self.w.write_all(&self.buf)?;
        self.w.flush()?;
        Ok(self.w)
    }
}

mod decode;
pub use decode::*;

/// Deterministic synthetic side-cars with realistic sizes, for tests and
/// benchmarks (not part of the API).
#[doc(hidden)]
#[cfg(feature = "synth")]
pub mod synth;

#[cfg(test)]
mod tests {
    use super::json::parse;
    use super::*;

    #[test]
    fn a_stored_block_reads_back_as_the_validating_decoder_reads_it() {
        let mut rng = synth::Rng(7);
        for i in 0..3000 {
            let level = [Level::Operation, Level::Type, Level::Module][i % 3];
            let mut block = synth::block(level, &mut rng);
            if let Block::Operation(b) = &mut block {
                // Numbers that round differently under a careless parser.
                b.confidence = [0.1, 0.30000000000000004, 0.000047630939344047156, 0.87][i % 4];
            }
            let text = block_json(&block);
            assert_eq!(decode_stored_block(level, &text), decode_block(level, &text), "{text}");
            assert_eq!(block_json(&decode_stored_block(level, &text).unwrap()), text);
        }
        // What the typed parse cannot read, the validating decoder explains.
        let bad = r#"{"name":"x"}"#;
        assert_eq!(decode_stored_block(Level::Module, bad), decode_block(Level::Module, bad));
        assert!(decode_stored_block(Level::Module, bad).is_err());
    }

    #[test]
    fn numbers_are_correctly_rounded_and_integral_values_are_integers() {
        for text in ["0.000047630939344047156", "0.30000000000000004", "1e-7", "1e+21", "123.456e-30"] {
            let v = parse(text).unwrap();
            assert_eq!(v.as_f64().unwrap(), text.parse::<f64>().unwrap(), "{text}");
        }
        assert_eq!(parse("1.0").unwrap().as_u64(), Some(1));
        assert_eq!(parse("1e3").unwrap().as_u64(), Some(1000));
        assert_eq!(parse("-0").unwrap().as_u64(), Some(0));
        assert_eq!(parse("-12").unwrap().as_i64(), Some(-12));
        assert!(parse("9007199254740993").unwrap().as_u64().is_none());
        assert!(parse("1e400").is_err());
        for bad in ["01", "1.", ".5", "+1", "1e", "-", "[1,]", "{\"a\":1,}", "{a:1}", "'x'", "\"\t\"", "nul", "1 2"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn strings_pair_surrogates_and_replace_lone_ones() {
        assert_eq!(parse(r#""\ud83d\ude00""#).unwrap(), Value::String("😀".into()));
        assert_eq!(parse(r#""a\ud800b""#).unwrap(), Value::String("a\u{FFFD}b".into()));
        assert_eq!(parse(r#""\udc00\ud800""#).unwrap(), Value::String("\u{FFFD}\u{FFFD}".into()));
        assert_eq!(parse(r#""\ud800\u0041""#).unwrap(), Value::String("\u{FFFD}A".into()));
        assert_eq!(
            parse(r#""\"\\\/\b\f\n\r\t\u00e9\u2028x""#).unwrap(),
            Value::String("\"\\/\u{8}\u{c}\n\r\t\u{e9}\u{2028}x".into())
        );
        assert_eq!(parse(" {\"a\":1,\"a\":2}\r").unwrap()["a"], 2);
    }

    #[test]
    fn metadata_keys_in_javascript_order() {
        let mut m = std::collections::BTreeMap::new();
        for k in ["b", "10", "9", "a/～", "a/😀", "01"] {
            m.insert(k.to_owned(), "x".to_owned());
        }
        let mut out = Vec::new();
        write_js(&mut out, &JsKeyOrder(&m));
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"9":"x","10":"x","01":"x","a/😀":"x","a/～":"x","b":"x"}"#);
    }

    #[test]
    fn encoder_strings_match_the_model_escaper() {
        let s = "a\"b\\c\n\u{1}\u{1f}é\u{7f}\u{2028}/😀\u{0}";
        let mut ours = Vec::new();
        write_js(&mut ours, s);
        let mut theirs = String::new();
        model::json::write_js_string(&mut theirs, s);
        assert_eq!(String::from_utf8(ours).unwrap(), theirs);
    }
}
