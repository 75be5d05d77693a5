//! What is already explained (docs/formats/prompts.md §1,
//! docs/formats/blocks.md §8, docs/formats/store.md §7): the plan asks a
//! record source only for fingerprints; a prompt quotes only a description
//! and a concept label. Blocks are never read to plan.

use crate::blocks::Block;
use crate::record::InsightRecord;
use crate::vocab::Level;
use hashbrown::HashMap;

/// What a prompt quotes of an explained member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSummary {
    pub description: String,
    /// The concept label (docs/formats/blocks.md §8), if any.
    pub concept: Option<String>,
}

impl RecordSummary {
    /// What a prompt quotes of a record.
    pub fn of(record: &InsightRecord) -> RecordSummary {
        RecordSummary { description: record.block.description().to_owned(), concept: concept_label(&record.block) }
    }
}

/// The concept label (docs/formats/blocks.md §8), one rule for prompts, the store
/// and readers: `owned by <owner>` for an operation (none when the owner is
/// unknown), the concept of a type, `context: <hint>` for a module with a
/// bounded-context hint. Takes the block's parts so a store can apply it without
/// decoding a block.
pub fn concept_label_of(
    level: Level,
    owner: Option<&str>,
    concept: Option<&str>,
    context: Option<&str>,
) -> Option<String> {
    match level {
        Level::Operation => owner.filter(|o| *o != "unknown").map(|o| format!("owned by {o}")),
        Level::Type => concept.map(str::to_owned),
        Level::Module => context.map(|c| format!("context: {c}")),
    }
}

/// The concept label of a block.
pub fn concept_label(block: &Block) -> Option<String> {
    match block {
        Block::Operation(b) => concept_label_of(Level::Operation, Some(b.owner.as_str()), None, None),
        Block::Type(b) => concept_label_of(Level::Type, None, Some(b.concept.as_str()), None),
        Block::Module(b) => {
            concept_label_of(Level::Module, None, None, b.bounded_context_hint.as_ref().map(|h| h.name.as_str()))
        }
    }
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
