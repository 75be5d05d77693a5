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

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

/// Why a side-car cannot be read. Each message names the file and, past the
/// header, the line (1-based, blank lines counted).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    #[error("{name}: the side-car is empty (it must start with a header line)")]
    Empty { name: String },
    #[error("{name}: the first line is not a valid side-car header: {message}")]
    Header { name: String, message: String },
    #[error("{name}, line {line}: not valid JSON: {message}")]
    Json { name: String, line: usize, message: String },
    /// An insight record (or the `eof` trailer) that does not validate.
    #[error("{name}, line {line}: invalid record: {message}")]
    Record { name: String, line: usize, message: String },
    #[error("{name}, line {line}: invalid failure record: {message}")]
    Failure { name: String, line: usize, message: String },
    /// A record (or, with `failure`, a failure record) whose id an earlier
    /// line of the same kind already holds: a store keys both by id alone, so
    /// importing it would silently keep one of the two.
    #[error(
        "{name}:{line}: {} {id:?} repeats the id of line {first_line}",
        if *failure { "failure record" } else { "record" }
    )]
    DuplicateId { name: String, line: usize, first_line: usize, id: String, failure: bool },
    /// A string an insights store keeps as a column (`field`: `id`, `kind`,
    /// `name`, `file`, `key.lang`, `key.module`, `key.symbol`,
    /// `key.disambiguator`, `fingerprint`, `model`) holds U+0000
    /// (docs/formats/store.md §6).
    #[error(
        "{name}:{line}: the {field} of this {} contains U+0000, which an insights store cannot keep",
        if *failure { "failure record" } else { "record" }
    )]
    Nul { name: String, line: usize, field: &'static str, failure: bool },
}

/// Why a decoded side-car is truncated (`Sidecar::truncated`), in a form a
/// caller can print: its [`Display`](std::fmt::Display) text completes
/// "`<file>` is truncated: …", e.g. "it has no eof line".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Truncation {
    /// No `eof` line at all (the file was cut short, or a run is still open).
    NoTrailer,
    /// The last `eof` line counts `counted` records but `read` were read.
    Count { counted: u64, read: u64 },
    /// As [`Truncation::Count`], and a record line (`record_line`, the first
    /// one) comes after the last `eof` line (`trailer_line`): records were
    /// appended after the trailer was written. Only [`decode_with_truncation`]
    /// can tell this case apart (line numbers are not kept in a [`Sidecar`]).
    RecordAfterTrailer { record_line: usize, trailer_line: usize, counted: u64, read: u64 },
}

fn records_text(n: u64) -> String {
    if n == 1 {
        "1 record".to_owned()
    } else {
        format!("{n} records")
    }
}

fn were_read(n: u64) -> String {
    if n == 1 {
        "1 was read".to_owned()
    } else {
        format!("{n} were read")
    }
}

impl std::fmt::Display for Truncation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Truncation::NoTrailer => f.write_str("it has no eof line"),
            Truncation::Count { counted, read } => {
                write!(f, "its eof counts {} but {}", records_text(*counted), were_read(*read))
            }
            Truncation::RecordAfterTrailer { record_line, trailer_line, counted, read } => write!(
                f,
                "a record (line {record_line}) follows its eof line (line {trailer_line}), which counts {} but {}",
                records_text(*counted),
                were_read(*read)
            ),
        }
    }
}

impl Sidecar {
    /// Why this side-car is truncated, or `None` when it is not (always
    /// `Some` exactly when `truncated` is true, for a side-car whose
    /// `truncated` was set by [`decode`]). Computed from the trailer and the
    /// records, so it never says [`Truncation::RecordAfterTrailer`]; use
    /// [`decode_with_truncation`] for that.
    pub fn truncation(&self) -> Option<Truncation> {
        let read = self.records.len() as u64;
        match &self.trailer {
            None => Some(Truncation::NoTrailer),
            Some(t) if t.counts.records != read => Some(Truncation::Count { counted: t.counts.records, read }),
            Some(_) => None,
        }
    }
}

/// The first field of `r` that an insights store keeps as a column and that
/// holds U+0000.
fn nul_in_record(r: &InsightRecord) -> Option<&'static str> {
    first_nul(&[
        ("id", Some(&r.id)),
        ("kind", Some(&r.kind)),
        ("name", r.name.as_deref()),
        ("file", r.file.as_deref()),
        ("fingerprint", Some(&r.fingerprint)),
        ("model", r.model.as_deref()),
    ])
    .or_else(|| r.key.as_ref().and_then(nul_in_key))
}

/// The first column string of `f` that holds U+0000.
fn nul_in_failure(f: &FailureRecord) -> Option<&'static str> {
    first_nul(&[("id", Some(&f.id)), ("model", Some(&f.model))]).or_else(|| f.key.as_ref().and_then(nul_in_key))
}

fn nul_in_key(k: &NaturalKey) -> Option<&'static str> {
    first_nul(&[
        ("key.lang", Some(&k.lang)),
        ("key.module", Some(&k.module)),
        ("key.symbol", Some(&k.symbol)),
        ("key.disambiguator", k.disambiguator.as_deref()),
    ])
}

fn first_nul(fields: &[(&'static str, Option<&str>)]) -> Option<&'static str> {
    fields.iter().find(|(_, v)| v.is_some_and(|v| v.contains('\0'))).map(|(name, _)| *name)
}

/// The line of every id seen so far (records or failures), without copying
/// the ids: the table holds indexes into the decoded items.
struct SeenIds {
    table: hashbrown::HashTable<usize>,
    lines: Vec<usize>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl SeenIds {
    fn new() -> SeenIds {
        SeenIds { table: hashbrown::HashTable::new(), lines: Vec::new(), hasher: Default::default() }
    }

    /// Registers `id` (about to be pushed at index `ids.len()` of the decoded
    /// items, from `line`), or returns the line that already holds it.
    fn register<'a>(&mut self, ids: impl Fn(usize) -> &'a str, id: &str, line: usize) -> Result<(), usize> {
        use std::hash::BuildHasher;
        let hash = self.hasher.hash_one(id);
        if let Some(&i) = self.table.find(hash, |&i| ids(i) == id) {
            return Err(self.lines[i]);
        }
        let index = self.lines.len();
        self.lines.push(line);
        let hasher = &self.hasher;
        self.table.insert_unique(hash, index, |&i| hasher.hash_one(ids(i)));
        Ok(())
    }
}

/// JavaScript's `String.prototype.trim` set: Unicode White_Space plus
/// U+FEFF, without U+0085.
fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Reads a side-car (docs/formats/sidecar.md §5): lines split on `\n`, blank
/// lines dropped; the first line is the header; `t == "eof"` lines are trailers
/// (a later one replaces an earlier one), `t == "f"` failures, anything else a
/// record. `truncated` = no trailer, or its record count differs from the
/// records read ([`Sidecar::truncation`] says which; [`decode_with_truncation`]
/// also tells records appended after the trailer).
///
/// Refused, naming the line, beyond the format's own rules: a record whose id
/// an earlier record holds, a failure record whose id an earlier failure
/// record holds ([`SidecarError::DuplicateId`]), and a record or failure
/// record with U+0000 in a string an insights store keeps as a column
/// ([`SidecarError::Nul`]) — so an import never stores less than it read.
pub fn decode(name: &str, text: &str) -> Result<Sidecar, SidecarError> {
    decode_with_truncation(name, text).map(|(sidecar, _)| sidecar)
}

/// [`decode`], with why the side-car is truncated (`Some` exactly when
/// `truncated` is true), including [`Truncation::RecordAfterTrailer`] when a
/// record line follows the last `eof` line.
pub fn decode_with_truncation(name: &str, text: &str) -> Result<(Sidecar, Option<Truncation>), SidecarError> {
    let mut lines =
        text.split('\n').enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim_matches(is_js_space).is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(SidecarError::Empty { name: name.to_owned() });
    };
    let header = decode_header(first).map_err(|message| SidecarError::Header { name: name.to_owned(), message })?;
    let mut records: Vec<InsightRecord> = Vec::new();
    let mut failures: Vec<FailureRecord> = Vec::new();
    let mut record_ids = SeenIds::new();
    let mut failure_ids = SeenIds::new();
    let mut trailer = None;
    let mut trailer_line = None;
    let mut record_after_trailer = None;
    for (line, text) in lines {
        let value = json::parse(text).map_err(|message| SidecarError::Json { name: name.to_owned(), line, message })?;
        let tag = value.get("t").and_then(Value::as_str);
        match tag {
            Some("eof") => {
                let t = trailer_from(value).map_err(|m| SidecarError::Record {
                    name: name.to_owned(),
                    line,
                    message: format!("the `eof` trailer: {m}"),
                })?;
                trailer = Some(t);
                trailer_line = Some(line);
                record_after_trailer = None;
            }
            Some("f") => {
                let f = failure_from(value).map_err(|message| SidecarError::Failure {
                    name: name.to_owned(),
                    line,
                    message,
                })?;
                if let Some(field) = nul_in_failure(&f) {
                    return Err(SidecarError::Nul { name: name.to_owned(), line, field, failure: true });
                }
                failure_ids.register(|i| failures[i].id.as_str(), &f.id, line).map_err(|first_line| {
                    SidecarError::DuplicateId {
                        name: name.to_owned(),
                        line,
                        first_line,
                        id: f.id.clone(),
                        failure: true,
                    }
                })?;
                failures.push(f);
            }
            _ => {
                let r = record_from(value).map_err(|message| SidecarError::Record {
                    name: name.to_owned(),
                    line,
                    message,
                })?;
                if let Some(field) = nul_in_record(&r) {
                    return Err(SidecarError::Nul { name: name.to_owned(), line, field, failure: false });
                }
                record_ids.register(|i| records[i].id.as_str(), &r.id, line).map_err(|first_line| {
                    SidecarError::DuplicateId {
                        name: name.to_owned(),
                        line,
                        first_line,
                        id: r.id.clone(),
                        failure: false,
                    }
                })?;
                if trailer_line.is_some() && record_after_trailer.is_none() {
                    record_after_trailer = Some(line);
                }
                records.push(r);
            }
        }
    }
    let read = records.len() as u64;
    let truncation = match &trailer {
        None => Some(Truncation::NoTrailer),
        Some(t) if t.counts.records == read => None,
        Some(t) => Some(match (record_after_trailer, trailer_line) {
            (Some(record_line), Some(trailer_line)) => {
                Truncation::RecordAfterTrailer { record_line, trailer_line, counted: t.counts.records, read }
            }
            _ => Truncation::Count { counted: t.counts.records, read },
        }),
    };
    let truncated = truncation.is_some();
    Ok((Sidecar { header, records, failures, trailer, truncated }, truncation))
}

/// Reads a block of `level` from its JSON text (as [`block_json`] writes it):
/// validated against the level's schema, unknown keys stripped. The
/// confidence is kept as written (clamping is a receipt-side rule).
pub fn decode_block(level: Level, json: &str) -> Result<Block, String> {
    let value = json::parse(json)?;
    block_from(level, &value).map_err(|issues| validation_text(&issues))
}

/// Reads a header line; its `kind` must be `codegraph.insights/1`.
pub fn decode_header(json: &str) -> Result<SidecarHeader, String> {
    header_from(json::parse(json)?)
}

/// Reads an insight record line (validated; the block by the record's level).
pub fn decode_record(json: &str) -> Result<InsightRecord, String> {
    record_from(json::parse(json)?)
}

/// Reads a failure record line.
pub fn decode_failure(json: &str) -> Result<FailureRecord, String> {
    failure_from(json::parse(json)?)
}

/// Reads a trailer line.
pub fn decode_trailer(json: &str) -> Result<Trailer, String> {
    trailer_from(json::parse(json)?)
}

fn schema_of(level: Level) -> &'static StrictSchema {
    static SCHEMAS: OnceLock<[StrictSchema; 3]> = OnceLock::new();
    let all = SCHEMAS
        .get_or_init(|| [block_schema(Level::Operation), block_schema(Level::Type), block_schema(Level::Module)]);
    &all[level as usize]
}

fn block_from(level: Level, value: &Value) -> Result<Block, Vec<Issue>> {
    let cleaned = check(schema_of(level), value)?;
    let block = match level {
        Level::Operation => serde_json::from_value::<OperationBlock>(cleaned).map(Block::Operation),
        Level::Type => serde_json::from_value::<TypeBlock>(cleaned).map(Block::Type),
        Level::Module => serde_json::from_value::<ModuleBlock>(cleaned).map(Block::Module),
    };
    block.map_err(|e| vec![Issue::new(&[], format!("cannot be read as a {} block: {e}", level.as_str()))])
}

fn kind_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {}", model::json::js_number(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// The fields of one JSON object being validated, consumed key by key
/// (what is left at the end is unknown and dropped). `at` is the object's
/// path, for messages (`""` at the root, else ending with `.`).
struct Fields {
    map: Map<String, Value>,
    at: String,
}

impl Fields {
    fn of(value: Value, at: &str) -> Result<Fields, String> {
        match value {
            Value::Object(map) => Ok(Fields { map, at: at.to_owned() }),
            other => {
                let what =
                    if at.is_empty() { "the line".to_owned() } else { format!("`{}`", at.trim_end_matches('.')) };
                Err(format!("{what} must be an object, found {}", kind_of(&other)))
            }
        }
    }

    fn path(&self, key: &str) -> String {
        format!("{}{key}", self.at)
    }

    fn required(&mut self, key: &str) -> Result<Value, String> {
        self.map.remove(key).ok_or_else(|| format!("`{}` is missing", self.path(key)))
    }

    fn string(&mut self, key: &str) -> Result<String, String> {
        let v = self.required(key)?;
        self.as_string(key, v)
    }

    fn as_string(&self, key: &str, v: Value) -> Result<String, String> {
        match v {
            Value::String(s) => Ok(s),
            other => Err(format!("`{}` must be a string, found {}", self.path(key), kind_of(&other))),
        }
    }

    fn non_empty_string(&mut self, key: &str) -> Result<String, String> {
        let s = self.string(key)?;
        if s.is_empty() {
            return Err(format!("`{}` must not be empty", self.path(key)));
        }
        Ok(s)
    }

    fn opt_string(&mut self, key: &str) -> Result<Option<String>, String> {
        match self.map.remove(key) {
            None => Ok(None),
            Some(v) => self.as_string(key, v).map(Some),
        }
    }

    fn literal(&mut self, key: &str, want: &str) -> Result<(), String> {
        let s = self.string(key)?;
        if s != want {
            return Err(format!("`{}` must be \"{want}\", found \"{s}\"", self.path(key)));
        }
        Ok(())
    }

    fn strings(&mut self, key: &str, non_empty_items: bool) -> Result<Vec<String>, String> {
        let v = self.required(key)?;
        self.as_strings(key, v, non_empty_items)
    }

    fn as_strings(&self, key: &str, v: Value, non_empty_items: bool) -> Result<Vec<String>, String> {
        let Value::Array(items) = v else {
            return Err(format!("`{}` must be an array of strings, found {}", self.path(key), kind_of(&v)));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Value::String(s) if non_empty_items && s.is_empty() => {
                    return Err(format!("`{}.{i}` must not be empty", self.path(key)))
                }
                Value::String(s) => out.push(s),
                other => return Err(format!("`{}.{i}` must be a string, found {}", self.path(key), kind_of(&other))),
            }
        }
        Ok(out)
    }

    fn opt_strings(&mut self, key: &str) -> Result<Option<Vec<String>>, String> {
        match self.map.remove(key) {
            None => Ok(None),
            Some(v) => self.as_strings(key, v, false).map(Some),
        }
    }

    fn as_uint(&self, key: &str, v: &Value, min: u64, max: u64) -> Result<u64, String> {
        let n = match v {
            Value::Number(n) => n,
            other => return Err(format!("`{}` must be an integer, found {}", self.path(key), kind_of(other))),
        };
        let Some(x) = n.as_u64().filter(|x| *x <= MAX_SAFE_INTEGER) else {
            let reason = if n.as_i64().is_some() {
                format!("at least {min}")
            } else if n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "a safe integer (at most 2^53 - 1)".to_owned()
            } else {
                "an integer".to_owned()
            };
            return Err(format!("`{}` must be {reason}, found {}", self.path(key), kind_of(v)));
        };
        if x < min {
            return Err(format!("`{}` must be at least {min}, found {x}", self.path(key)));
        }
        if x > max {
            return Err(format!("`{}` must be at most {max} here, found {x}", self.path(key)));
        }
        Ok(x)
    }

    fn uint(&mut self, key: &str, min: u64, max: u64) -> Result<u64, String> {
        let v = self.required(key)?;
        self.as_uint(key, &v, min, max)
    }

    fn u32(&mut self, key: &str, min: u64) -> Result<u32, String> {
        Ok(self.uint(key, min, u64::from(u32::MAX))? as u32)
    }

    fn as_number(&self, key: &str, v: &Value) -> Result<f64, String> {
        match v {
            Value::Number(n) => Ok(n.as_f64().expect("every JSON number has an f64 value")),
            other => Err(format!("`{}` must be a number, found {}", self.path(key), kind_of(other))),
        }
    }

    fn opt_bool(&mut self, key: &str) -> Result<Option<bool>, String> {
        match self.map.remove(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(other) => Err(format!("`{}` must be a boolean, found {}", self.path(key), kind_of(&other))),
        }
    }

    fn object(&mut self, key: &str) -> Result<Fields, String> {
        let v = self.required(key)?;
        Fields::of(v, &format!("{}.", self.path(key)))
    }

    fn opt_object(&mut self, key: &str) -> Result<Option<Fields>, String> {
        match self.map.remove(key) {
            None => Ok(None),
            Some(v) => Fields::of(v, &format!("{}.", self.path(key))).map(Some),
        }
    }

    fn level(&mut self, key: &str) -> Result<Level, String> {
        let s = self.string(key)?;
        Level::parse(&s)
            .ok_or_else(|| format!("`{}` must be one of operation, type, module; found \"{s}\"", self.path(key)))
    }
}

fn key_from(f: &mut Fields) -> Result<Option<NaturalKey>, String> {
    let Some(mut k) = f.opt_object("key")? else { return Ok(None) };
    Ok(Some(NaturalKey {
        lang: k.string("lang")?,
        module: k.string("module")?,
        symbol: k.string("symbol")?,
        disambiguator: k.opt_string("disambiguator")?,
    }))
}

fn usage_of(mut u: Fields) -> Result<Usage, String> {
    let prompt_tokens = u.uint("promptTokens", 0, MAX_SAFE_INTEGER)?;
    let completion_tokens = u.uint("completionTokens", 0, MAX_SAFE_INTEGER)?;
    let cost = match u.map.remove("cost") {
        None => None,
        Some(v) => Some(u.as_number("cost", &v)?),
    };
    Ok(Usage { prompt_tokens, completion_tokens, cost })
}

fn opt_usage(f: &mut Fields) -> Result<Option<Usage>, String> {
    f.opt_object("usage")?.map(usage_of).transpose()
}

fn header_from(value: Value) -> Result<SidecarHeader, String> {
    let mut f = Fields::of(value, "")?;
    f.literal("t", "header")?;
    let kind = f.string("kind")?;
    if kind != INSIGHTS_KIND {
        return Err(format!("`kind` is \"{kind}\"; only \"{INSIGHTS_KIND}\" can be read"));
    }
    let generated_by = f.string("generatedBy")?;
    let prompt_version = f.string("promptVersion")?;
    let metamodel = f.string("metamodel")?;
    let mut m = f.object("models")?;
    let models = HeaderModels { leaf: m.string("leaf")?, rollup: m.string("rollup")? };
    let provider = f.opt_string("provider")?;
    let depth = f.u32("depth", 0)?;
    let mut s = f.object("source")?;
    let paths = s.strings("paths", false)?;
    let langs = s.strings("langs", false)?;
    let mut v = s.object("view")?;
    let view = HeaderView { name: v.string("name")?, filters: v.strings("filters", false)? };
    Ok(SidecarHeader {
        generated_by,
        prompt_version,
        metamodel,
        models,
        provider,
        depth,
        source: HeaderSource { paths, langs, view },
    })
}

fn record_from(value: Value) -> Result<InsightRecord, String> {
    let mut f = Fields::of(value, "")?;
    f.literal("t", "i")?;
    let id = f.non_empty_string("id")?;
    let key = key_from(&mut f)?;
    let level = f.level("level")?;
    let kind = f.string("kind")?;
    let name = f.opt_string("name")?;
    let file = f.opt_string("file")?;
    let scc = f.opt_strings("scc")?;
    let origin = f.string("origin")?;
    let origin =
        Origin::parse(&origin).ok_or_else(|| format!("`origin` must be one of llm, template; found \"{origin}\""))?;
    let block = f.required("block")?;
    let block = block_from(level, &block).map_err(|issues| {
        let text = issues
            .iter()
            .take(crate::validate::MAX_REPAIR_ISSUES)
            .map(|i| if i.path.is_empty() { format!("block: {}", i.message) } else { format!("block.{i}") })
            .collect::<Vec<_>>()
            .join("; ");
        format!("not a valid {} block: {text}", level.as_str())
    })?;
    let fingerprint = f.string("fingerprint")?;
    let len = model::utf16_len(&fingerprint);
    if len != 64 {
        return Err(format!("`fingerprint` must be 64 characters long, found {len}"));
    }
    let model = f.opt_string("model")?;
    let usage = opt_usage(&mut f)?;
    let metadata = match f.opt_object("metadata")? {
        None => None,
        Some(m) => {
            let mut out = std::collections::BTreeMap::new();
            for (k, v) in m.map {
                match v {
                    Value::String(s) => {
                        out.insert(k, s);
                    }
                    other => return Err(format!("`metadata.{k}` must be a string, found {}", kind_of(&other))),
                }
            }
            Some(out)
        }
    };
    Ok(InsightRecord { id, key, level, kind, name, file, scc, origin, block, fingerprint, model, usage, metadata })
}

fn failure_from(value: Value) -> Result<FailureRecord, String> {
    let mut f = Fields::of(value, "")?;
    f.literal("t", "f")?;
    let id = f.non_empty_string("id")?;
    let key = key_from(&mut f)?;
    let level = f.level("level")?;
    let members = f.strings("members", true)?;
    if members.is_empty() {
        return Err("`members` must list at least one unit member".to_owned());
    }
    let model = f.string("model")?;
    let mut r = f.object("reason")?;
    let kind = r.string("kind")?;
    let kind = FailureKind::parse(&kind)
        .ok_or_else(|| format!("`reason.kind` must be one of provider, invalid-answer, error; found \"{kind}\""))?;
    let message = r.string("message")?;
    let status = match r.map.remove("status") {
        None => None,
        Some(v) => Some(r.as_uint("status", &v, 0, u64::from(u16::MAX))? as u16),
    };
    let retryable = r.opt_bool("retryable")?;
    let attempts = f.u32("attempts", 1)?;
    let calls = f.u32("calls", 0)?;
    let usage = opt_usage(&mut f)?;
    Ok(FailureRecord {
        id,
        key,
        level,
        members,
        model,
        reason: FailureReason { kind, message, status, retryable },
        attempts,
        calls,
        usage,
    })
}

fn trailer_from(value: Value) -> Result<Trailer, String> {
    let mut f = Fields::of(value, "")?;
    f.literal("t", "eof")?;
    let mut c = f.object("counts")?;
    let counts = TrailerCounts {
        records: c.uint("records", 0, MAX_SAFE_INTEGER)?,
        llm: c.uint("llm", 0, MAX_SAFE_INTEGER)?,
        template: c.uint("template", 0, MAX_SAFE_INTEGER)?,
        reused: c.uint("reused", 0, MAX_SAFE_INTEGER)?,
        failed: c.uint("failed", 0, MAX_SAFE_INTEGER)?,
    };
    let usage = usage_of(f.object("usage")?)?;
    let generated_at = f.string("generatedAt")?;
    Ok(Trailer { counts, usage, generated_at })
}

/// A JSON reader with `JSON.parse` semantics, into `serde_json::Value`:
/// numbers correctly rounded (an integral value within the safe range
/// becomes an integer, as JavaScript cannot tell `1.0` from `1`), a lone
/// surrogate escape becomes U+FFFD, a duplicate key keeps its last value.
pub(crate) mod json {
    use serde_json::{Map, Number, Value};

    const MAX_DEPTH: u32 = 256;

    /// Parses one JSON text (surrounding JSON whitespace allowed).
    pub(crate) fn parse(text: &str) -> Result<Value, String> {
        let mut p = Parser { s: text, b: text.as_bytes(), i: 0, depth: 0 };
        p.ws();
        let v = p.value()?;
        p.ws();
        if p.i < p.b.len() {
            return Err(p.unexpected());
        }
        Ok(v)
    }

    struct Parser<'a> {
        s: &'a str,
        b: &'a [u8],
        i: usize,
        depth: u32,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
                self.i += 1;
            }
        }

        fn unexpected(&self) -> String {
            match self.s.get(self.i..).and_then(|t| t.chars().next()) {
                None => "unexpected end of the line".to_owned(),
                Some(c) => format!("unexpected {c:?} at column {}", self.s[..self.i].chars().count() + 1),
            }
        }

        fn value(&mut self) -> Result<Value, String> {
            match self.b.get(self.i) {
                Some(b'{') => self.object(),
                Some(b'[') => self.array(),
                Some(b'"') => self.string().map(Value::String),
                Some(b't') => self.word("true", Value::Bool(true)),
                Some(b'f') => self.word("false", Value::Bool(false)),
                Some(b'n') => self.word("null", Value::Null),
                Some(b'-' | b'0'..=b'9') => self.number(),
                _ => Err(self.unexpected()),
            }
        }

        fn word(&mut self, w: &str, v: Value) -> Result<Value, String> {
            if self.b[self.i..].starts_with(w.as_bytes()) {
                self.i += w.len();
                Ok(v)
            } else {
                Err(self.unexpected())
            }
        }

        fn enter(&mut self) -> Result<(), String> {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(format!("nested deeper than {MAX_DEPTH} levels"));
            }
            self.i += 1;
            self.ws();
            Ok(())
        }

        fn object(&mut self) -> Result<Value, String> {
            self.enter()?;
            let mut map = Map::new();
            if self.b.get(self.i) == Some(&b'}') {
                self.i += 1;
                self.depth -= 1;
                return Ok(Value::Object(map));
            }
            loop {
                if self.b.get(self.i) != Some(&b'"') {
                    return Err(self.unexpected());
                }
                let key = self.string()?;
                self.ws();
                if self.b.get(self.i) != Some(&b':') {
                    return Err(self.unexpected());
                }
                self.i += 1;
                self.ws();
                let v = self.value()?;
                map.insert(key, v);
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => {
                        self.i += 1;
                        self.ws();
                    }
                    Some(b'}') => {
                        self.i += 1;
                        self.depth -= 1;
                        return Ok(Value::Object(map));
                    }
                    _ => return Err(self.unexpected()),
                }
            }
        }

        fn array(&mut self) -> Result<Value, String> {
            self.enter()?;
            let mut items = Vec::new();
            if self.b.get(self.i) == Some(&b']') {
                self.i += 1;
                self.depth -= 1;
                return Ok(Value::Array(items));
            }
            loop {
                items.push(self.value()?);
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => {
                        self.i += 1;
                        self.ws();
                    }
                    Some(b']') => {
                        self.i += 1;
                        self.depth -= 1;
                        return Ok(Value::Array(items));
                    }
                    _ => return Err(self.unexpected()),
                }
            }
        }

        /// At the opening quote; returns the decoded text.
        fn string(&mut self) -> Result<String, String> {
            self.i += 1;
            let start = self.i;
            // Fast path: no escape.
            loop {
                match self.b.get(self.i) {
                    None => return Err("unterminated string".to_owned()),
                    Some(b'"') => {
                        let s = self.s[start..self.i].to_owned();
                        self.i += 1;
                        return Ok(s);
                    }
                    Some(b'\\') => break,
                    Some(c) if *c < 0x20 => return Err(self.unexpected()),
                    Some(_) => self.i += 1,
                }
            }
            let mut out = String::with_capacity(self.i - start + 16);
            out.push_str(&self.s[start..self.i]);
            loop {
                match self.b.get(self.i) {
                    None => return Err("unterminated string".to_owned()),
                    Some(b'"') => {
                        self.i += 1;
                        return Ok(out);
                    }
                    Some(b'\\') => {
                        self.i += 1;
                        let c = match self.b.get(self.i) {
                            Some(b'"') => '"',
                            Some(b'\\') => '\\',
                            Some(b'/') => '/',
                            Some(b'b') => '\u{8}',
                            Some(b'f') => '\u{c}',
                            Some(b'n') => '\n',
                            Some(b'r') => '\r',
                            Some(b't') => '\t',
                            Some(b'u') => {
                                self.i += 1;
                                let unit = self.hex4()?;
                                let c = self.code_point(unit)?;
                                out.push(c);
                                continue;
                            }
                            _ => return Err(format!("bad escape: {}", self.unexpected())),
                        };
                        out.push(c);
                        self.i += 1;
                    }
                    Some(c) if *c < 0x20 => return Err(self.unexpected()),
                    Some(_) => {
                        let run = self.i;
                        while let Some(&c) = self.b.get(self.i) {
                            if c == b'"' || c == b'\\' || c < 0x20 {
                                break;
                            }
                            self.i += 1;
                        }
                        out.push_str(&self.s[run..self.i]);
                    }
                }
            }
        }

        /// Four hex digits after `\u`.
        fn hex4(&mut self) -> Result<u32, String> {
            let digits = self.b.get(self.i..self.i + 4).ok_or_else(|| "unterminated \\u escape".to_owned())?;
            let mut unit = 0u32;
            for d in digits {
                let v = (*d as char).to_digit(16).ok_or_else(|| format!("bad \\u escape: {}", self.unexpected()))?;
                unit = unit * 16 + v;
            }
            self.i += 4;
            Ok(unit)
        }

        /// The character of a `\uXXXX` escape (already consumed): a high
        /// surrogate pairs with an immediately following low-surrogate
        /// escape; any surrogate left alone becomes U+FFFD.
        fn code_point(&mut self, unit: u32) -> Result<char, String> {
            if (0xD800..0xDC00).contains(&unit) && self.b[self.i..].starts_with(b"\\u") {
                let save = self.i;
                self.i += 2;
                let low = self.hex4()?;
                if (0xDC00..0xE000).contains(&low) {
                    let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    return Ok(char::from_u32(c).expect("a valid surrogate pair"));
                }
                self.i = save;
            }
            Ok(char::from_u32(unit).unwrap_or('\u{FFFD}'))
        }

        fn digits(&mut self) -> usize {
            let start = self.i;
            while let Some(b'0'..=b'9') = self.b.get(self.i) {
                self.i += 1;
            }
            self.i - start
        }

        fn number(&mut self) -> Result<Value, String> {
            let start = self.i;
            if self.b[self.i] == b'-' {
                self.i += 1;
            }
            match self.b.get(self.i) {
                Some(b'0') => self.i += 1,
                Some(b'1'..=b'9') => {
                    self.digits();
                }
                _ => return Err(self.unexpected()),
            }
            let mut integral = true;
            if self.b.get(self.i) == Some(&b'.') {
                self.i += 1;
                if self.digits() == 0 {
                    return Err(self.unexpected());
                }
                integral = false;
            }
            if let Some(b'e' | b'E') = self.b.get(self.i) {
                self.i += 1;
                if let Some(b'+' | b'-') = self.b.get(self.i) {
                    self.i += 1;
                }
                if self.digits() == 0 {
                    return Err(self.unexpected());
                }
                integral = false;
            }
            let text = &self.s[start..self.i];
            let digits = text.len() - usize::from(text.starts_with('-'));
            if integral && digits <= 15 {
                let n: i64 = text.parse().expect("at most 15 digits");
                return Ok(if n >= 0 { Value::from(n as u64) } else { Value::from(n) });
            }
            let f: f64 = text.parse().expect("a JSON number is a valid float");
            if !f.is_finite() {
                return Err(format!("the number {text} is out of range"));
            }
            if f.fract() == 0.0 && f.abs() <= super::MAX_SAFE_INTEGER as f64 {
                let n = f as i64;
                return Ok(if n >= 0 { Value::from(n as u64) } else { Value::from(n) });
            }
            Ok(Value::Number(Number::from_f64(f).expect("finite")))
        }
    }
}

// ---------------------------------------------------------------------------
// Synthetic side-cars (tests and benchmarks)
// ---------------------------------------------------------------------------

/// Deterministic synthetic side-cars with realistic sizes, for tests and
/// benchmarks (not part of the API).
#[doc(hidden)]
#[cfg(feature = "synth")]
pub mod synth {
    use super::{record_order, Sidecar};
    use crate::blocks::*;
    use crate::record::*;
    use crate::vocab::*;

    /// SplitMix64.
    #[derive(Clone, Debug)]
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        /// Uniform in `0..n` (n > 0).
        pub fn below(&mut self, n: usize) -> usize {
            (self.next_u64() % n as u64) as usize
        }
        /// Uniform in `[0, 1)`.
        pub fn unit(&mut self) -> f64 {
            (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
        }
        pub fn chance(&mut self, p: f64) -> bool {
            self.unit() < p
        }
        pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len())]
        }
    }

    const WORDS: &[&str] = &[
        "order",
        "customer",
        "price",
        "total",
        "the",
        "of",
        "cart",
        "sku",
        "product",
        "is",
        "returns",
        "when",
        "a",
        "category",
        "catalog",
        "offer",
        "discount",
        "fulfillment",
        "payment",
        "gateway",
        "inventory",
        "shipping",
        "applies",
        "computes",
        "validates",
        "and",
        "to",
        "from",
        "for",
        "with",
        "every",
        "item",
        "line",
        "amount",
        "currency",
        "tax",
        "rule",
        "state",
        "pending",
        "submitted",
        "persists",
        "loads",
        "repository",
        "entity",
        "value",
        "identifier",
        "address",
        "account",
        "session",
        "promotion",
        "qualifier",
        "target",
        "candidate",
    ];
    /// Rare tokens exercising escaping and UTF-16 order.
    const ODD: &[&str] = &[
        "naïve",
        "\"quoted\"",
        "back\\slash",
        "tab\there",
        "line\nbreak",
        "😀",
        "\u{2028}",
        "nul\u{0}byte",
        "～",
        "</script>",
        "\u{1}",
        "€",
        "日本語",
        "𝔘",
    ];

    /// A phrase of `n` words (rarely an odd token).
    pub fn words(rng: &mut Rng, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            if rng.chance(0.01) {
                s.push_str(rng.pick::<&str>(ODD));
            } else {
                s.push_str(rng.pick::<&str>(WORDS));
            }
        }
        s
    }

    fn name(rng: &mut Rng) -> String {
        let a = rng.pick(WORDS);
        let b = rng.pick(WORDS);
        let mut s = String::new();
        let mut up = true;
        for c in a.chars().chain(b.chars()) {
            s.extend(if up { c.to_uppercase().collect::<Vec<_>>() } else { vec![c] });
            up = false;
        }
        s
    }

    fn list<T>(rng: &mut Rng, max: usize, mut f: impl FnMut(&mut Rng) -> T) -> Vec<T> {
        let n = rng.below(max + 1);
        (0..n).map(|_| f(rng)).collect()
    }

    fn opt<T>(rng: &mut Rng, p: f64, f: impl FnOnce(&mut Rng) -> T) -> Option<T> {
        if rng.chance(p) {
            Some(f(rng))
        } else {
            None
        }
    }

    /// A confidence as models and templates give them: often 1, 0.5-ish
    /// round values, sometimes long fractions or tiny numbers.
    pub fn confidence(rng: &mut Rng) -> f64 {
        match rng.below(8) {
            0 => 1.0,
            1 => 0.0,
            2 => 0.5,
            3 => 0.85,
            4 => 0.9,
            5 => 1e-7,
            _ => rng.unit(),
        }
    }

    /// A cost share: `cost / n`, unrounded (long fractions).
    pub fn cost(rng: &mut Rng) -> f64 {
        match rng.below(10) {
            0 => 0.001,
            1 => 1e21,
            2 => 0.0,
            _ => (rng.below(100_000) as f64 * 1e-6) / (1 + rng.below(7)) as f64,
        }
    }

    /// A random block of `level`, realistic in size.
    pub fn block(level: Level, rng: &mut Rng) -> Block {
        match level {
            Level::Operation => {
                let len = 45 + rng.below(60);
                Block::Operation(OperationBlock {
                    name: name(rng),
                    description: words(rng, len),
                    safe: rng.chance(0.5),
                    idempotent: opt(rng, 0.7, |r| r.chance(0.5)),
                    owner: *rng.pick(OperationOwner::ALL),
                    handles_command: opt(rng, 0.2, name),
                    emits: list(rng, 2, |r| Emit { name: name(r), kind: *r.pick(EventKind::ALL) }),
                    preconditions: list(rng, 2, |r| Precondition {
                        name: name(r),
                        predicate: words(r, 6),
                        violation_reason: words(r, 8),
                    }),
                    postconditions: list(rng, 2, |r| Postcondition { name: name(r), predicate: words(r, 7) }),
                    invariants_enforced: list(rng, 2, |r| words(r, 5)),
                    uses_spi: list(rng, 1, |r| SpiUse { name: name(r), capability: words(r, 4) }),
                    domain_terms: list(rng, 4, |r| r.pick(WORDS).to_string()),
                    confidence: confidence(rng),
                })
            }
            Level::Type => {
                let len = 70 + rng.below(100);
                Block::Type(TypeBlock {
                    name: name(rng),
                    description: words(rng, len),
                    concept: *rng.pick(DomainConcept::ALL),
                    event_kind: opt(rng, 0.1, |r| *r.pick(EventKind::ALL)),
                    interface_role: opt(rng, 0.2, |r| *r.pick(InterfaceRole::ALL)),
                    aggregate_root: opt(rng, 0.3, |r| r.chance(0.5)),
                    contained_in: opt(rng, 0.2, name),
                    sync_pattern: opt(rng, 0.1, |r| *r.pick(SyncPattern::ALL)),
                    identity: opt(rng, 0.4, name),
                    fields: list(rng, 8, |r| FieldBlock {
                        name: name(r),
                        type_: name(r),
                        kind: *r.pick(FieldKind::ALL),
                    }),
                    invariants: list(rng, 3, |r| Invariant {
                        name: name(r),
                        predicate: words(r, 8),
                        enforcement: *r.pick(Enforcement::ALL),
                    }),
                    state_machine: opt(rng, 0.15, |r| StateMachine {
                        states: list(r, 4, name),
                        transitions: list(r, 4, |r| Transition { from: name(r), to: name(r), operation: name(r) }),
                    }),
                    relates_to: list(rng, 4, |r| ConceptRef { name: name(r), concept: *r.pick(DomainConcept::ALL) }),
                    exposes: list(rng, 6, name),
                    depends_on: list(rng, 2, |r| PortRef { name: name(r), role: *r.pick(InterfaceRole::ALL) }),
                    domain_terms: list(rng, 6, |r| r.pick(WORDS).to_string()),
                    confidence: confidence(rng),
                })
            }
            Level::Module => {
                let len = 110 + rng.below(120);
                Block::Module(ModuleBlock {
                    name: name(rng),
                    description: words(rng, len),
                    apis: list(rng, 4, |r| Api { name: name(r), operations: list(r, 5, name) }),
                    spis: list(rng, 3, |r| SpiUse { name: name(r), capability: words(r, 5) }),
                    depends_on: list(rng, 5, name),
                    concepts: list(rng, 6, |r| ConceptRef { name: name(r), concept: *r.pick(DomainConcept::ALL) }),
                    bounded_context_hint: opt(rng, 0.5, |r| BoundedContextHint {
                        name: name(r),
                        rationale: words(r, 15),
                    }),
                    shared_kernel_hint: opt(rng, 0.1, |r| words(r, 6)),
                    ubiquitous_language: list(rng, 6, |r| Term { term: name(r), definition: words(r, 10) }),
                    confidence: confidence(rng),
                })
            }
        }
    }

    fn hex64(rng: &mut Rng) -> String {
        (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect()
    }

    fn usage(rng: &mut Rng) -> Usage {
        Usage {
            prompt_tokens: rng.below(6000) as u64,
            completion_tokens: rng.below(900) as u64,
            cost: opt(rng, 0.8, cost),
        }
    }

    /// A random record for `id` at `level` (every optional key sometimes).
    pub fn record(id: String, level: Level, rng: &mut Rng) -> InsightRecord {
        let templated = level == Level::Operation && rng.chance(0.35);
        let module = format!("com.acme.{}", rng.pick(WORDS));
        InsightRecord {
            key: opt(rng, 0.7, |r| NaturalKey {
                lang: "java".into(),
                module: module.clone(),
                symbol: name(r),
                disambiguator: opt(r, 0.2, |r| format!("({})", name(r))),
            }),
            level,
            kind: match level {
                Level::Operation => rng.pick(&["method", "constructor"]).to_string(),
                Level::Type => rng.pick(&["class", "interface", "enum", "record"]).to_string(),
                Level::Module => "package".into(),
            },
            name: opt(rng, 0.95, name),
            file: if level == Level::Module {
                None
            } else {
                opt(rng, 0.95, |r| format!("src/main/java/com/acme/{}/{}.java", r.pick(WORDS), name(r)))
            },
            scc: opt(rng, 0.05, |r| {
                let mut v = vec![id.clone(), format!("{id}~{}", r.below(9))];
                model::sort_utf16(&mut v);
                v
            }),
            origin: if templated { Origin::Template } else { Origin::Llm },
            block: block(level, rng),
            fingerprint: hex64(rng),
            model: if templated { None } else { Some("anthropic/claude-sonnet-4.5".into()) },
            usage: if templated { None } else { opt(rng, 0.95, usage) },
            metadata: opt(rng, 0.01, |r| {
                let mut m = std::collections::BTreeMap::new();
                m.insert("10".to_string(), words(r, 1));
                m.insert("9".to_string(), words(r, 1));
                m.insert("note".to_string(), words(r, 3));
                m
            }),
            id,
        }
    }

    /// A random failure record for unit `id` at `level`.
    pub fn failure(id: String, level: Level, rng: &mut Rng) -> FailureRecord {
        let kind = *rng.pick(FailureKind::ALL);
        FailureRecord {
            key: None,
            level,
            members: vec![id.clone()],
            model: "openai/gpt-4.1-mini".into(),
            reason: FailureReason {
                kind,
                message: words(rng, 12),
                status: if kind == FailureKind::Provider { Some(*rng.pick(&[402u16, 429, 500])) } else { None },
                retryable: if kind == FailureKind::Provider { Some(rng.chance(0.5)) } else { None },
            },
            attempts: 1 + rng.below(3) as u32,
            calls: rng.below(3) as u32,
            usage: opt(rng, 0.5, usage),
            id,
        }
    }

    /// The header of a synthetic side-car.
    pub fn header() -> SidecarHeader {
        SidecarHeader {
            generated_by: INSIGHTS_GENERATOR.into(),
            prompt_version: PROMPT_VERSION.into(),
            metamodel: INSIGHTS_METAMODEL.into(),
            models: HeaderModels { leaf: "openai/gpt-4.1-mini".into(), rollup: "anthropic/claude-sonnet-4.5".into() },
            provider: Some("openrouter".into()),
            depth: 1,
            source: HeaderSource {
                paths: vec!["broadleaf.specy.json".into()],
                langs: vec!["java".into()],
                view: HeaderView { name: "domain".into(), filters: vec!["-test".into()] },
            },
        }
    }

    /// A side-car of `n_records` records (BroadleafCommerce's mix of levels:
    /// 86.5 % operations, 11.7 % types, 1.8 % modules; about 1.7 KB per
    /// record line), a few failures and a trailer. Records and failures are
    /// sorted, so `decode(encode(s)) == s`. Deterministic in `seed`.
    pub fn synthetic(n_records: usize, seed: u64) -> Sidecar {
        let mut rng = Rng(seed);
        let mut records = Vec::with_capacity(n_records);
        for i in 0..n_records {
            let x = rng.unit();
            let pkg = rng.pick(WORDS).to_string();
            let ty = name(&mut rng);
            let (level, id) = if x < 0.865 {
                let params = list(&mut rng, 3, name).join(",");
                (
                    Level::Operation,
                    format!("java:org/broadleafcommerce/core/{pkg}/{ty}{i}.{}({params})", name(&mut rng)),
                )
            } else if x < 0.982 {
                (Level::Type, format!("java:org/broadleafcommerce/core/{pkg}/{ty}{i}"))
            } else {
                (Level::Module, format!("java:org/broadleafcommerce/core/{pkg}{i}"))
            };
            records.push(record(id, level, &mut rng));
        }
        records.sort_by(record_order);
        let n_failures = n_records / 2000 + 1;
        let mut failures: Vec<FailureRecord> = (0..n_failures)
            .map(|i| {
                let level = *rng.pick(Level::ALL);
                failure(format!("java:org/broadleafcommerce/failed/F{i}"), level, &mut rng)
            })
            .collect();
        failures.sort_by(super::failure_order);
        let mut total = Usage { prompt_tokens: 0, completion_tokens: 0, cost: Some(0.0) };
        for r in &records {
            if let Some(u) = &r.usage {
                total.add(u);
            }
        }
        let llm = records.iter().filter(|r| r.origin == Origin::Llm).count() as u64;
        let trailer = Trailer {
            counts: TrailerCounts {
                records: records.len() as u64,
                llm,
                template: records.len() as u64 - llm,
                reused: 0,
                failed: failures.len() as u64,
            },
            usage: total,
            generated_at: "2025-06-01T12:00:00.000Z".into(),
        };
        Sidecar { header: header(), records, failures, trailer: Some(trailer), truncated: false }
    }
}

#[cfg(test)]
mod tests {
    use super::json::parse;
    use super::*;

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
