//! Readers and the three-way answer (docs/formats/store.md §8). Apart from
//! [`Store::get`], nothing here reads a whole block: rows project the JSON
//! parts they show.

use std::collections::BTreeMap;

use insights::record::{FailureRecord, InsightRecord, Usage};
use insights::sidecar::{encode_failure, encode_record};
use insights::vocab::{Level, Origin, GET_CHUNK, INSIGHT_ANSWER_KIND};
use rusqlite::types::Value as SqlValue;
use rusqlite::OptionalExtension;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::rows;
use crate::store::{concept_label, json_string, placeholders};
use crate::{Store, StoreError};

/// Filters of [`Store::query`]; `None` = no filter.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub ids: Option<Vec<String>>,
    pub level: Option<Level>,
    /// A type block's concept (the generated column).
    pub concept: Option<String>,
    pub min_confidence: Option<f64>,
    pub max_confidence: Option<f64>,
    /// Applied after sorting.
    pub limit: Option<usize>,
}

/// One row of a query answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsightRow {
    pub id: String,
    pub level: Level,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub origin: Origin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub confidence: f64,
    pub description: String,
    /// The concept label (docs/formats/blocks.md §8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
}

/// Records per level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByLevel {
    pub operation: u64,
    #[serde(rename = "type")]
    pub type_: u64,
    pub module: u64,
}

/// Records per origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByOrigin {
    pub llm: u64,
    pub template: u64,
}

/// What the store holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub records: u64,
    pub failures: u64,
    pub by_level: ByLevel,
    pub by_origin: ByOrigin,
    /// Type concepts only; the keys are ASCII literals, so byte order is
    /// UTF-16 order.
    pub by_concept: BTreeMap<String, u64>,
    /// What the existing records cost (`cost` omitted when no record has one).
    pub usage: Usage,
}

/// `{leaf, rollup}` of a ledger row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunModels {
    pub leaf: String,
    pub rollup: String,
}

/// A finished run's counts as the ledger keeps them (the engine's
/// `insights::run::RunCounts` of that run: `llm` records, `template` units,
/// `reused` members, `failed` units; `calls` absent in old rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LedgerCounts {
    pub llm: u64,
    pub template: u64,
    pub reused: u64,
    pub failed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
}

/// One row of the run ledger.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRow {
    pub id: i64,
    pub started_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub models: RunModels,
    pub depth: u32,
    /// `None` for an unfinished or interrupted run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<LedgerCounts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
    /// The structured-output mode each model answered in (format 3 on).
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "modes_as_object")]
    pub output_modes: Vec<(String, String)>,
}

/// The answer about one id (`kind: "codegraph.insight/1"`).
#[derive(Clone, Debug, PartialEq)]
pub enum InsightAnswer {
    /// A record exists.
    Explained { id: String, record: Box<InsightRecord> },
    /// No record, but a failure row owed for this id (as the unit or a member).
    Failed { id: String, failure: Box<FailureRecord> },
    /// Nobody asked.
    Unknown { id: String },
}

impl InsightAnswer {
    pub fn id(&self) -> &str {
        match self {
            InsightAnswer::Explained { id, .. } | InsightAnswer::Failed { id, .. } | InsightAnswer::Unknown { id } => {
                id
            }
        }
    }
    /// `explained`, `failed` or `unknown`.
    pub fn status(&self) -> &'static str {
        match self {
            InsightAnswer::Explained { .. } => "explained",
            InsightAnswer::Failed { .. } => "failed",
            InsightAnswer::Unknown { .. } => "unknown",
        }
    }
    /// One JSON line; the record or failure exactly as its side-car line.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("answers serialize")
    }
}

impl Serialize for InsightAnswer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", INSIGHT_ANSWER_KIND)?;
        m.serialize_entry("id", self.id())?;
        m.serialize_entry("status", self.status())?;
        let raw = |line: String| serde_json::value::RawValue::from_string(line).expect("the encoder writes JSON");
        match self {
            InsightAnswer::Explained { record, .. } => m.serialize_entry("record", &raw(encode_record(record)))?,
            InsightAnswer::Failed { failure, .. } => m.serialize_entry("failure", &raw(encode_failure(failure)))?,
            InsightAnswer::Unknown { .. } => {}
        }
        m.end()
    }
}

fn count(n: i64) -> u64 {
    n.max(0) as u64
}

impl Store {
    /// Rows matching the filters, sorted by (rank, id in UTF-16 order),
    /// `limit` applied after sorting.
    pub fn query(&self, q: &Query) -> Result<Vec<InsightRow>, StoreError> {
        let op = "querying records";
        let mut clauses = Vec::new();
        let mut params: Vec<SqlValue> = Vec::new();
        if let Some(level) = q.level {
            clauses.push("level = ?".to_owned());
            params.push(SqlValue::Integer(level as i64));
        }
        if let Some(c) = &q.concept {
            clauses.push("concept = ?".to_owned());
            params.push(SqlValue::Text(c.clone()));
        }
        if let Some(c) = q.min_confidence {
            clauses.push("confidence >= ?".to_owned());
            params.push(SqlValue::Real(c));
        }
        if let Some(c) = q.max_confidence {
            clauses.push("confidence <= ?".to_owned());
            params.push(SqlValue::Real(c));
        }
        let base = "SELECT id, level, kind, name, file, origin, model, confidence, block -> '$.description', \
                    block -> '$.owner', concept, block -> '$.boundedContextHint.name' FROM insight";
        let mut out = Vec::new();
        let mut run = |extra: Option<&[String]>| -> Result<(), StoreError> {
            let mut clauses = clauses.clone();
            let mut params = params.clone();
            if let Some(ids) = extra {
                clauses.push(format!("id IN ({})", placeholders(ids.len())));
                params.extend(ids.iter().map(|id| SqlValue::Text(id.clone())));
            }
            let sql =
                if clauses.is_empty() { base.to_owned() } else { format!("{base} WHERE {}", clauses.join(" AND ")) };
            let mut stmt = self.conn.prepare_cached(&sql).map_err(self.sql(op))?;
            let mut rows = stmt.query(rusqlite::params_from_iter(params)).map_err(self.sql(op))?;
            while let Some(r) = rows.next().map_err(self.sql(op))? {
                out.push(row_of(self, r)?);
            }
            Ok(())
        };
        match &q.ids {
            Some(ids) => {
                let mut seen = hashbrown::HashSet::new();
                let unique: Vec<String> = ids.iter().filter(|id| seen.insert(id.as_str())).cloned().collect();
                for chunk in unique.chunks(GET_CHUNK) {
                    run(Some(chunk))?;
                }
            }
            None => run(None)?,
        }
        out.sort_by(|a, b| a.level.cmp(&b.level).then_with(|| model::cmp_utf16(&a.id, &b.id)));
        if let Some(limit) = q.limit {
            out.truncate(limit);
        }
        Ok(out)
    }

    /// Counts and usage of what the store holds.
    pub fn stats(&self) -> Result<Stats, StoreError> {
        let op = "computing statistics";
        let (records, pt, ct, cost): (i64, i64, i64, Option<f64>) = self
            .conn
            .query_row(
                "SELECT count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), sum(cost) \
                 FROM insight",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .map_err(self.sql(op))?;
        let failures: i64 =
            self.conn.query_row("SELECT count(*) FROM failure", [], |r| r.get(0)).map_err(self.sql(op))?;
        let mut by_level = ByLevel::default();
        let mut by_origin = ByOrigin::default();
        let mut by_concept = BTreeMap::new();
        {
            let mut stmt =
                self.conn.prepare("SELECT level, count(*) FROM insight GROUP BY level").map_err(self.sql(op))?;
            let mut rows = stmt.query([]).map_err(self.sql(op))?;
            while let Some(r) = rows.next().map_err(self.sql(op))? {
                let n = count(r.get(1).map_err(self.sql(op))?);
                match rows::level_of(r.get(0).map_err(self.sql(op))?) {
                    Some(Level::Operation) => by_level.operation = n,
                    Some(Level::Type) => by_level.type_ = n,
                    Some(Level::Module) => by_level.module = n,
                    None => {}
                }
            }
            let mut stmt =
                self.conn.prepare("SELECT origin, count(*) FROM insight GROUP BY origin").map_err(self.sql(op))?;
            let mut rows = stmt.query([]).map_err(self.sql(op))?;
            while let Some(r) = rows.next().map_err(self.sql(op))? {
                let n = count(r.get(1).map_err(self.sql(op))?);
                match Origin::parse(&r.get::<_, String>(0).map_err(self.sql(op))?) {
                    Some(Origin::Llm) => by_origin.llm = n,
                    Some(Origin::Template) => by_origin.template = n,
                    None => {}
                }
            }
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT concept, count(*) FROM insight WHERE level = 1 AND concept IS NOT NULL GROUP BY concept",
                )
                .map_err(self.sql(op))?;
            let mut rows = stmt.query([]).map_err(self.sql(op))?;
            while let Some(r) = rows.next().map_err(self.sql(op))? {
                by_concept.insert(r.get(0).map_err(self.sql(op))?, count(r.get(1).map_err(self.sql(op))?));
            }
        }
        Ok(Stats {
            records: count(records),
            failures: count(failures),
            by_level,
            by_origin,
            by_concept,
            usage: Usage { prompt_tokens: count(pt), completion_tokens: count(ct), cost },
        })
    }

    /// The run ledger, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let op = "reading the run ledger";
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT id, started_at, finished_at, provider, leaf, rollup, depth, llm, template, reused, failed, \
                 calls, prompt_tokens, completion_tokens, cost, aborted, {} FROM run ORDER BY id",
                if self.format_version() >= 3 { "output_modes" } else { "NULL" }
            ))
            .map_err(self.sql(op))?;
        let rows = stmt
            .query_map([], |r| {
                let llm: Option<i64> = r.get(7)?;
                let counts = match llm {
                    Some(llm) => Some(LedgerCounts {
                        llm: count(llm),
                        template: count(r.get::<_, Option<i64>>(8)?.unwrap_or(0)),
                        reused: count(r.get::<_, Option<i64>>(9)?.unwrap_or(0)),
                        failed: count(r.get::<_, Option<i64>>(10)?.unwrap_or(0)),
                        calls: r.get::<_, Option<i64>>(11)?.map(count),
                    }),
                    None => None,
                };
                let pt: Option<i64> = r.get(12)?;
                let usage = match pt {
                    Some(pt) => Some(Usage {
                        prompt_tokens: count(pt),
                        completion_tokens: count(r.get::<_, Option<i64>>(13)?.unwrap_or(0)),
                        cost: r.get(14)?,
                    }),
                    None => None,
                };
                Ok(RunRow {
                    id: r.get(0)?,
                    started_at: r.get(1)?,
                    finished_at: r.get(2)?,
                    provider: r.get(3)?,
                    models: RunModels { leaf: r.get(4)?, rollup: r.get(5)? },
                    depth: r.get::<_, i64>(6)?.max(0) as u32,
                    counts,
                    usage,
                    aborted: r.get(15)?,
                    output_modes: parse_modes(r.get::<_, Option<String>>(16)?.as_deref()),
                })
            })
            .map_err(self.sql(op))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sql(op))
    }

    /// The failure row owed for `id`: the unit's own, else one listing `id`
    /// among its members.
    pub fn failure_for(&self, id: &str) -> Result<Option<FailureRecord>, StoreError> {
        let op = "looking up a failure";
        let sql = format!(
            "SELECT {} FROM failure WHERE id = ?1 OR EXISTS (SELECT 1 FROM json_each(failure.members) m \
             WHERE m.value = ?1) ORDER BY id = ?1 DESC LIMIT 1",
            rows::failure_select()
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(self.sql(op))?;
        let mut rows = stmt.query([id]).map_err(self.sql(op))?;
        match rows.next().map_err(self.sql(op))? {
            Some(row) => Ok(Some(rows::read_failure(&self.path, row)?)),
            None => Ok(None),
        }
    }

    /// `answerInsight` (docs/formats/store.md §8): explained, failed (incl. as
    /// a cycle member) or unknown.
    pub fn answer_insight(&self, id: &str) -> Result<InsightAnswer, StoreError> {
        if let Some(record) = self.get(&[id])?.pop() {
            return Ok(InsightAnswer::Explained { id: id.to_owned(), record: Box::new(record) });
        }
        if let Some(failure) = self.failure_for(id)? {
            return Ok(InsightAnswer::Failed { id: id.to_owned(), failure: Box::new(failure) });
        }
        Ok(InsightAnswer::Unknown { id: id.to_owned() })
    }

    /// Whether a record exists for `id` (no block read).
    pub fn contains(&self, id: &str) -> Result<bool, StoreError> {
        self.conn
            .prepare_cached("SELECT 1 FROM insight WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |_| Ok(())).optional())
            .map(|found| found.is_some())
            .map_err(self.sql("looking up a record"))
    }
}

fn row_of(store: &Store, r: &rusqlite::Row<'_>) -> Result<InsightRow, StoreError> {
    let sql = |e| StoreError::Sqlite { path: store.path.clone(), op: "querying records", source: e };
    let id: String = r.get(0).map_err(sql)?;
    let rank: i64 = r.get(1).map_err(sql)?;
    let corrupt =
        |m: String| StoreError::Corrupt { path: store.path.clone(), what: "record", id: id.clone(), message: m };
    let level = rows::level_of(rank).ok_or_else(|| corrupt(format!("level rank {rank}")))?;
    let origin: String = r.get(5).map_err(sql)?;
    let origin = Origin::parse(&origin).ok_or_else(|| corrupt(format!("origin `{origin}`")))?;
    let description: Option<String> = r.get(8).map_err(sql)?;
    let owner: Option<String> = r.get(9).map_err(sql)?;
    let concept: Option<String> = r.get(10).map_err(sql)?;
    let context: Option<String> = r.get(11).map_err(sql)?;
    Ok(InsightRow {
        kind: r.get(2).map_err(sql)?,
        name: r.get(3).map_err(sql)?,
        file: r.get(4).map_err(sql)?,
        origin,
        model: r.get(6).map_err(sql)?,
        confidence: r.get::<_, Option<f64>>(7).map_err(sql)?.unwrap_or(0.0),
        description: json_string(description.as_deref()).unwrap_or_default(),
        concept: concept_label(rank, json_string(owner.as_deref()), concept, json_string(context.as_deref())),
        level,
        id,
    })
}

/// The ledger's `{"<model>":"<mode>"}` text as pairs (unreadable text: none).
fn parse_modes(text: Option<&str>) -> Vec<(String, String)> {
    let Some(serde_json::Value::Object(map)) = text.and_then(|t| serde_json::from_str(t).ok()) else {
        return Vec::new();
    };
    map.into_iter().filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_owned()))).collect()
}

/// `[(model, mode)]` as `{"<model>": "<mode>"}`.
fn modes_as_object<S: serde::Serializer>(modes: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(modes.len()))?;
    for (model, mode) in modes {
        m.serialize_entry(model, mode)?;
    }
    m.end()
}
