//! Records and failures as table rows: checked before the first bind
//! (docs/formats/store.md §6), and rebuilt from columns on the way back (NULL
//! column = the key was never present), so an export writes exactly the
//! encoder's bytes.

use std::collections::BTreeMap;
use std::path::Path;

use insights::blocks::Block;
use insights::record::{FailureReason, FailureRecord, InsightRecord, NaturalKey, Usage};
use insights::sidecar::decode_stored_block;
use insights::vocab::{FailureKind, Level, Origin};
use rusqlite::types::{ToSqlOutput, Value as SqlValue};
use rusqlite::Row;
use serde_json::Value;

use crate::StoreError;

/// The largest integer JavaScript represents exactly.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Columns of `insight`, in bind order.
pub(crate) const INSIGHT_COLUMNS: &[&str] = &[
    "id",
    "level",
    "kind",
    "name",
    "file",
    "key_lang",
    "key_module",
    "key_symbol",
    "key_disambiguator",
    "scc",
    "origin",
    "fingerprint",
    "model",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "metadata",
    "block",
    "run_id",
];

/// Columns of `failure`, in bind order.
pub(crate) const FAILURE_COLUMNS: &[&str] = &[
    "id",
    "level",
    "members",
    "key_lang",
    "key_module",
    "key_symbol",
    "key_disambiguator",
    "model",
    "reason",
    "attempts",
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "cost",
    "run_id",
];

/// `INSERT … ON CONFLICT(id) DO UPDATE` over every column.
pub(crate) fn upsert_sql(table: &str, columns: &[&str]) -> String {
    let names = columns.join(", ");
    let params: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
    let set: Vec<String> = columns[1..].iter().map(|c| format!("{c} = excluded.{c}")).collect();
    format!(
        "INSERT INTO {table} ({names}) VALUES ({}) ON CONFLICT(id) DO UPDATE SET {}",
        params.join(", "),
        set.join(", ")
    )
}

/// The columns a record is read back from (the ones it was written to, but `run_id`).
pub(crate) fn record_select() -> String {
    INSIGHT_COLUMNS[..INSIGHT_COLUMNS.len() - 1].join(", ")
}

pub(crate) fn failure_select() -> String {
    FAILURE_COLUMNS[..FAILURE_COLUMNS.len() - 1].join(", ")
}

/// A validated row, every value owned, ready to bind.
pub(crate) struct BoundRow(pub Vec<SqlValue>);

impl BoundRow {
    pub fn params(&self) -> impl Iterator<Item = ToSqlOutput<'_>> {
        self.0.iter().map(|v| ToSqlOutput::Borrowed(v.into()))
    }
}

fn text(s: &str) -> SqlValue {
    SqlValue::Text(s.to_owned())
}

fn opt_text(s: Option<&str>) -> SqlValue {
    s.map(text).unwrap_or(SqlValue::Null)
}

fn int(n: u64) -> SqlValue {
    SqlValue::Integer(n as i64)
}

struct Check<'a> {
    path: &'a Path,
    what: &'static str,
    id: &'a str,
}

impl Check<'_> {
    fn nul(&self, field: &'static str, value: &str) -> Result<(), StoreError> {
        if value.contains('\0') {
            return Err(StoreError::Nul { path: self.path.to_owned(), what: field, id: self.id.to_owned() });
        }
        Ok(())
    }
    fn invalid(&self, message: impl Into<String>) -> StoreError {
        StoreError::Invalid {
            path: self.path.to_owned(),
            what: self.what,
            id: self.id.to_owned(),
            message: message.into(),
        }
    }
    fn key(&self, key: &Option<NaturalKey>) -> Result<(), StoreError> {
        if let Some(k) = key {
            self.nul("key language", &k.lang)?;
            self.nul("key module", &k.module)?;
            self.nul("key symbol", &k.symbol)?;
            if let Some(d) = &k.disambiguator {
                self.nul("key disambiguator", d)?;
            }
        }
        Ok(())
    }
    fn usage(&self, usage: &Option<Usage>) -> Result<(), StoreError> {
        if let Some(u) = usage {
            if u.prompt_tokens > MAX_SAFE_INTEGER || u.completion_tokens > MAX_SAFE_INTEGER {
                return Err(self.invalid("token counts must be safe integers"));
            }
            if u.cost.is_some_and(|c| !c.is_finite()) {
                return Err(self.invalid("the usage cost must be a finite number"));
            }
        }
        Ok(())
    }
}

fn key_values(key: &Option<NaturalKey>) -> [SqlValue; 4] {
    match key {
        Some(k) => [text(&k.lang), text(&k.module), text(&k.symbol), opt_text(k.disambiguator.as_deref())],
        None => [SqlValue::Null, SqlValue::Null, SqlValue::Null, SqlValue::Null],
    }
}

fn usage_values(usage: &Option<Usage>) -> [SqlValue; 3] {
    match usage {
        Some(u) => {
            [int(u.prompt_tokens), int(u.completion_tokens), u.cost.map(SqlValue::Real).unwrap_or(SqlValue::Null)]
        }
        None => [SqlValue::Null, SqlValue::Null, SqlValue::Null],
    }
}

/// Checks a record against the side-car schema and the text hazards, and
/// builds its row (nothing is bound yet).
pub(crate) fn record_row(path: &Path, r: &InsightRecord, run_id: Option<i64>) -> Result<BoundRow, StoreError> {
    let c = Check { path, what: "record", id: &r.id };
    c.nul("id", &r.id)?;
    if r.id.is_empty() {
        return Err(c.invalid("the id is empty"));
    }
    c.nul("kind", &r.kind)?;
    if let Some(n) = &r.name {
        c.nul("name", n)?;
    }
    if let Some(f) = &r.file {
        c.nul("file", f)?;
    }
    c.key(&r.key)?;
    c.nul("fingerprint", &r.fingerprint)?;
    if model::utf16_len(&r.fingerprint) != 64 {
        return Err(
            c.invalid(format!("the fingerprint must be 64 characters long, not {}", model::utf16_len(&r.fingerprint)))
        );
    }
    if let Some(m) = &r.model {
        c.nul("model", m)?;
    }
    if r.block.level() != r.level {
        return Err(c.invalid(format!("a {} block under level `{}`", r.block.level().as_str(), r.level.as_str())));
    }
    if !r.block.confidence().is_finite() {
        return Err(c.invalid("the block's confidence must be a finite number"));
    }
    c.usage(&r.usage)?;
    let scc = match &r.scc {
        Some(members) => SqlValue::Text(serde_json::to_string(members).expect("strings serialize")),
        None => SqlValue::Null,
    };
    let metadata = match &r.metadata {
        Some(m) => SqlValue::Text(serde_json::to_string(m).expect("strings serialize")),
        None => SqlValue::Null,
    };
    let [kl, km, ks, kd] = key_values(&r.key);
    let [pt, ct, cost] = usage_values(&r.usage);
    Ok(BoundRow(vec![
        text(&r.id),
        int(r.level as u64),
        text(&r.kind),
        opt_text(r.name.as_deref()),
        opt_text(r.file.as_deref()),
        kl,
        km,
        ks,
        kd,
        scc,
        text(r.origin.as_str()),
        text(&r.fingerprint),
        opt_text(r.model.as_deref()),
        pt,
        ct,
        cost,
        metadata,
        SqlValue::Text(insights::sidecar::block_json(&r.block)),
        run_id.map(SqlValue::Integer).unwrap_or(SqlValue::Null),
    ]))
}

/// Checks a failure record and builds its row.
pub(crate) fn failure_row(path: &Path, f: &FailureRecord, run_id: Option<i64>) -> Result<BoundRow, StoreError> {
    let c = Check { path, what: "failure", id: &f.id };
    c.nul("id", &f.id)?;
    if f.id.is_empty() {
        return Err(c.invalid("the unit id is empty"));
    }
    c.key(&f.key)?;
    c.nul("model", &f.model)?;
    if f.members.is_empty() || f.members.iter().any(|m| m.is_empty()) {
        return Err(c.invalid("a failure needs at least one member and no member may be empty"));
    }
    if f.attempts < 1 {
        return Err(c.invalid("attempts must be at least 1"));
    }
    c.usage(&f.usage)?;
    let [kl, km, ks, kd] = key_values(&f.key);
    let [pt, ct, cost] = usage_values(&f.usage);
    Ok(BoundRow(vec![
        text(&f.id),
        int(f.level as u64),
        SqlValue::Text(serde_json::to_string(&f.members).expect("strings serialize")),
        kl,
        km,
        ks,
        kd,
        text(&f.model),
        SqlValue::Text(serde_json::to_string(&f.reason).expect("reasons serialize")),
        int(f.attempts as u64),
        int(f.calls as u64),
        pt,
        ct,
        cost,
        run_id.map(SqlValue::Integer).unwrap_or(SqlValue::Null),
    ]))
}

/// The level of a stored rank.
pub(crate) fn level_of(rank: i64) -> Option<Level> {
    usize::try_from(rank).ok().and_then(|i| Level::ALL.get(i).copied())
}

fn corrupt(path: &Path, what: &'static str, id: &str, message: impl Into<String>) -> StoreError {
    StoreError::Corrupt { path: path.to_owned(), what, id: id.to_owned(), message: message.into() }
}

fn sql(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Sqlite { path: path.to_owned(), op: "reading a row", source: e }
}

fn read_key(row: &Row<'_>, at: usize) -> rusqlite::Result<Option<NaturalKey>> {
    let lang: Option<String> = row.get(at)?;
    Ok(match lang {
        None => None,
        Some(lang) => Some(NaturalKey {
            lang,
            module: row.get::<_, Option<String>>(at + 1)?.unwrap_or_default(),
            symbol: row.get::<_, Option<String>>(at + 2)?.unwrap_or_default(),
            disambiguator: row.get(at + 3)?,
        }),
    })
}

fn read_usage(row: &Row<'_>, at: usize) -> rusqlite::Result<Option<Usage>> {
    let pt: Option<i64> = row.get(at)?;
    let ct: Option<i64> = row.get(at + 1)?;
    let cost: Option<f64> = row.get(at + 2)?;
    Ok(match (pt, ct) {
        (None, None) => None,
        (pt, ct) => Some(Usage {
            prompt_tokens: pt.unwrap_or(0).max(0) as u64,
            completion_tokens: ct.unwrap_or(0).max(0) as u64,
            cost,
        }),
    })
}

/// Rebuilds a record from a row of [`record_select`].
pub(crate) fn read_record(path: &Path, row: &Row<'_>) -> Result<InsightRecord, StoreError> {
    let id: String = row.get(0).map_err(|e| sql(path, e))?;
    let bad = |m: String| corrupt(path, "record", &id, m);
    let rank: i64 = row.get(1).map_err(|e| sql(path, e))?;
    let level = level_of(rank).ok_or_else(|| bad(format!("level rank {rank}")))?;
    let scc: Option<String> = row.get(9).map_err(|e| sql(path, e))?;
    let scc = match scc {
        Some(s) => Some(serde_json::from_str::<Vec<String>>(&s).map_err(|e| bad(format!("scc: {e}")))?),
        None => None,
    };
    let origin: String = row.get(10).map_err(|e| sql(path, e))?;
    let origin = Origin::parse(&origin).ok_or_else(|| bad(format!("origin `{origin}`")))?;
    let metadata: Option<String> = row.get(16).map_err(|e| sql(path, e))?;
    let metadata = match metadata {
        Some(s) => {
            Some(serde_json::from_str::<BTreeMap<String, String>>(&s).map_err(|e| bad(format!("metadata: {e}")))?)
        }
        None => None,
    };
    let block: String = row.get(17).map_err(|e| sql(path, e))?;
    let block: Block = decode_stored_block(level, &block).map_err(|e| bad(format!("block: {e}")))?;
    let fingerprint: String = row.get(11).map_err(|e| sql(path, e))?;
    if model::utf16_len(&fingerprint) != 64 {
        return Err(bad("the fingerprint is not 64 characters long".into()));
    }
    Ok(InsightRecord {
        key: read_key(row, 5).map_err(|e| sql(path, e))?,
        level,
        kind: row.get(2).map_err(|e| sql(path, e))?,
        name: row.get(3).map_err(|e| sql(path, e))?,
        file: row.get(4).map_err(|e| sql(path, e))?,
        scc,
        origin,
        block,
        fingerprint,
        model: row.get(12).map_err(|e| sql(path, e))?,
        usage: read_usage(row, 13).map_err(|e| sql(path, e))?,
        metadata,
        id,
    })
}

/// Rebuilds a failure record from a row of [`failure_select`].
pub(crate) fn read_failure(path: &Path, row: &Row<'_>) -> Result<FailureRecord, StoreError> {
    let id: String = row.get(0).map_err(|e| sql(path, e))?;
    let bad = |m: String| corrupt(path, "failure", &id, m);
    let rank: i64 = row.get(1).map_err(|e| sql(path, e))?;
    let level = level_of(rank).ok_or_else(|| bad(format!("level rank {rank}")))?;
    let members: String = row.get(2).map_err(|e| sql(path, e))?;
    let members: Vec<String> = serde_json::from_str(&members).map_err(|e| bad(format!("members: {e}")))?;
    let reason: String = row.get(8).map_err(|e| sql(path, e))?;
    let reason = reason_from(&reason).map_err(|e| bad(format!("reason: {e}")))?;
    let attempts: i64 = row.get(9).map_err(|e| sql(path, e))?;
    let calls: i64 = row.get(10).map_err(|e| sql(path, e))?;
    Ok(FailureRecord {
        key: read_key(row, 3).map_err(|e| sql(path, e))?,
        level,
        members,
        model: row.get(7).map_err(|e| sql(path, e))?,
        reason,
        attempts: u32::try_from(attempts).map_err(|_| bad(format!("attempts {attempts}")))?,
        calls: u32::try_from(calls).map_err(|_| bad(format!("calls {calls}")))?,
        usage: read_usage(row, 11).map_err(|e| sql(path, e))?,
        id,
    })
}

fn reason_from(text: &str) -> Result<FailureReason, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let kind = v.get("kind").and_then(Value::as_str).ok_or("no kind")?;
    let kind = FailureKind::parse(kind).ok_or_else(|| format!("unknown kind `{kind}`"))?;
    let message = v.get("message").and_then(Value::as_str).ok_or("no message")?.to_owned();
    let status = match v.get("status") {
        None | Some(Value::Null) => None,
        Some(s) => Some(s.as_u64().and_then(|n| u16::try_from(n).ok()).ok_or("status is not an integer")?),
    };
    let retryable = match v.get("retryable") {
        None | Some(Value::Null) => None,
        Some(b) => Some(b.as_bool().ok_or("retryable is not a boolean")?),
    };
    Ok(FailureReason { kind, message, status, retryable })
}
