//! The insight panel's data: the three-way answer for one id (explained,
//! failed, not explained yet) as the page shows it. The Worker makes it from
//! a store's answer (`web-worker`'s `insight::view_of`).

use serde::{Deserialize, Serialize};

/// Who wrote an explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    /// A model, through a provider.
    Llm,
    /// A template decided from facts (trivial members), no model call.
    Template,
    /// The offline demo completer: canned text, not an LLM.
    Demo,
}

/// The answer for one id, as the panel shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum InsightView {
    Explained {
        id: String,
        level: String,
        author: Author,
        /// The model that answered (none for templates).
        model: Option<String>,
        /// Self-reported, 0–1.
        confidence: f64,
        name: String,
        description: String,
        concept: Option<String>,
        /// (label, value) lines of the rest of the block.
        facts: Vec<(String, String)>,
        /// Why the record no longer matches the current model, if it does not.
        stale: Option<String>,
    },
    Failed {
        id: String,
        model: String,
        attempts: u32,
        /// `<kind>[ <status>]: <message>`.
        reason: String,
    },
    /// Nobody asked yet (or this id is not a unit member).
    Unknown { id: String },
}
