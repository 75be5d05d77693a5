//! What is already explained (insights.md §14): the plan asks a record
//! source only for fingerprints; a prompt quotes only a description and a
//! concept label. Blocks are never read to plan.

use hashbrown::HashMap;

/// What a prompt quotes of an explained member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSummary {
    pub description: String,
    /// The concept label (§14.3), if any.
    pub concept: Option<String>,
}

/// Read access to existing records.
pub trait RecordSource {
    /// The fingerprint of the record of `id`, if there is one.
    fn fingerprint(&self, id: &str) -> Option<String>;
    /// What a prompt shows of the record of `id`.
    fn summary(&self, id: &str) -> Option<RecordSummary>;
    /// Number of records.
    fn size(&self) -> usize;
}

/// No records at all (a first run, or a plan without a store).
pub struct NoRecords;

impl RecordSource for NoRecords {
    fn fingerprint(&self, _: &str) -> Option<String> {
        None
    }
    fn summary(&self, _: &str) -> Option<RecordSummary> {
        None
    }
    fn size(&self) -> usize {
        0
    }
}

/// Records held in memory: id → (fingerprint, summary).
#[derive(Clone, Debug, Default)]
pub struct MemoryRecords {
    map: HashMap<String, (String, RecordSummary)>,
}

impl MemoryRecords {
    pub fn insert(&mut self, id: impl Into<String>, fingerprint: impl Into<String>, summary: RecordSummary) {
        self.map.insert(id.into(), (fingerprint.into(), summary));
    }
}

impl RecordSource for MemoryRecords {
    fn fingerprint(&self, id: &str) -> Option<String> {
        self.map.get(id).map(|(f, _)| f.clone())
    }
    fn summary(&self, id: &str) -> Option<RecordSummary> {
        self.map.get(id).map(|(_, s)| s.clone())
    }
    fn size(&self) -> usize {
        self.map.len()
    }
}
