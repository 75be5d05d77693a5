//! Decoding a side-car: the strict line-by-line reader, the rules it keeps
//! (repeated ids, U+0000 in stored columns, truncation) and the validation
//! of each object against its type.

use super::*;

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

/// Reads a block this crate wrote after validating it (a store's own rows):
/// one typed parse, which is several times faster than [`decode_block`]'s
/// parse, check and copy; text it cannot read goes through [`decode_block`],
/// which says what is wrong.
pub fn decode_stored_block(level: Level, json: &str) -> Result<Block, String> {
    let typed = match level {
        Level::Operation => serde_json::from_str::<OperationBlock>(json).map(Block::Operation),
        Level::Type => serde_json::from_str::<TypeBlock>(json).map(Block::Type),
        Level::Module => serde_json::from_str::<ModuleBlock>(json).map(Block::Module),
    };
    typed.or_else(|_| decode_block(level, json))
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
