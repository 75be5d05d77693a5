//! Records: what an explained unit member leaves behind, what a failed unit
//! is owed, and the side-car's header and trailer (docs/formats/sidecar.md
//! §2; docs/formats/units-and-walk.md §8). Field order is wire key order;
//! absent optional keys are omitted (never `null`).

use crate::blocks::Block;
use crate::vocab::{FailureKind, Level, Origin};
use serde::Serialize;
use std::collections::BTreeMap;

/// The natural key of an id, so a re-extraction can re-join records
/// without parsing ids.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NaturalKey {
    pub lang: String,
    pub module: String,
    pub symbol: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disambiguator: Option<String>,
}

/// Tokens (and cost, when the provider reports one) of a call or a share of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        if let Some(c) = other.cost {
            self.cost = Some(self.cost.unwrap_or(0.0) + c);
        }
    }
    pub fn is_zero(&self) -> bool {
        self.prompt_tokens + self.completion_tokens == 0
    }
}

/// One explained unit member (`t: "i"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InsightRecord {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<NaturalKey>,
    pub level: Level,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// All members of the cycle (sorted, this id included); absent off-cycle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scc: Option<Vec<String>>,
    pub origin: Origin,
    pub block: Block,
    pub fingerprint: String,
    /// The model that served the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Never written by a run; tolerated and kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
}

/// Why a unit failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailureReason {
    pub kind: FailureKind,
    /// Verbatim.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
}

/// A unit that was asked for and is owed (`t: "f"`); it lives exactly as
/// long as the gap it describes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailureRecord {
    /// The unit id.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<NaturalKey>,
    pub level: Level,
    /// All unit members, sorted.
    pub members: Vec<String>,
    /// The model asked.
    pub model: String,
    pub reason: FailureReason,
    pub attempts: u32,
    /// Calls this attempt made (the repair included).
    pub calls: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// `{leaf, rollup}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderModels {
    pub leaf: String,
    pub rollup: String,
}

/// The view a run was made under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderView {
    pub name: String,
    pub filters: Vec<String>,
}

/// Where the records came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderSource {
    pub paths: Vec<String>,
    pub langs: Vec<String>,
    pub view: HeaderView,
}

/// The side-car header (`t: "header"`); `kind` is always `codegraph.insights/1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SidecarHeader {
    pub generated_by: String,
    pub prompt_version: String,
    pub metamodel: String,
    pub models: HeaderModels,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub depth: u32,
    pub source: HeaderSource,
}

/// Counts of the trailer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TrailerCounts {
    /// All records in the store / file.
    pub records: u64,
    /// This run's records produced by calls.
    pub llm: u64,
    /// This run's templated units.
    pub template: u64,
    /// This run's reused member records.
    pub reused: u64,
    /// Failure lines in the body (carried-over ones included).
    pub failed: u64,
}

/// The side-car trailer (`t: "eof"`): the only place with a timestamp.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trailer {
    pub counts: TrailerCounts,
    pub usage: Usage,
    /// ISO-8601.
    pub generated_at: String,
}
