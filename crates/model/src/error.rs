//! Read errors (the model is unusable) and findings (it is usable, but not
//! clean). Both name the line; errors also name the rule that was broken.

use std::fmt;

/// Which record a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    Header,
    File,
    Entity,
    Edge,
    Eof,
}

impl Record {
    pub fn as_str(self) -> &'static str {
        match self {
            Record::Header => "header",
            Record::File => "file",
            Record::Entity => "entity",
            Record::Edge => "edge",
            Record::Eof => "eof",
        }
    }
}

/// The rule of the model format (`docs/formats/model.md` §5) that a model broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The input could not be read (an I/O error from the caller's reader).
    Io,
    /// A line is not UTF-8.
    Utf8,
    /// A line is not a JSON object.
    Json,
    /// A record lacks a key, or a key has the wrong type or value (§3).
    Schema,
    /// `header → f* → e* → x* → eof`, the header on line 1, one of each (§2).
    SectionOrder,
    /// `i` of files and entities dense from 0 (§3.2, §3.3).
    Dense,
    /// A dictionary index out of range, a repeated or unknown name (§3.1).
    Dictionary,
    /// A declared trait's key is missing or ill-typed (§3.3).
    TraitKey,
    /// A reference to an entity or file the model does not have (§3.3, §3.4, §4.3).
    Closure,
    /// A natural key that cannot be rendered as an id (§3.3, §4.1).
    Identity,
    /// An entity that is its own parent, or parents that form a ring:
    /// containment is a forest (§4.4).
    Containment,
    /// No `eof`, or its counts disagree with the body (§3.5).
    Trailer,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Io => "io",
            Rule::Utf8 => "utf8",
            Rule::Json => "json",
            Rule::Schema => "schema",
            Rule::SectionOrder => "section-order",
            Rule::Dense => "dense-surrogates",
            Rule::Dictionary => "dictionary",
            Rule::TraitKey => "trait-keys",
            Rule::Closure => "reference-closure",
            Rule::Identity => "natural-key",
            Rule::Containment => "containment",
            Rule::Trailer => "eof-counts",
        }
    }
}

/// Why a model could not be read. Displays as
/// `model.jsonl:412: edge "o" refers to entity 9001, but the model has 179 entities`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// The name the caller gave the input (a file name).
    pub source_name: String,
    /// Physical line, 1-based; 0 when the error is about the input as a whole.
    pub line: u64,
    pub record: Option<Record>,
    pub rule: Rule,
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source_name)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        f.write_str(": ")?;
        if let Some(r) = self.record {
            write!(f, "{} ", r.as_str())?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ModelError {}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// Two entities share a natural key.
    DuplicateKey,
    /// An edge from an entity to itself.
    SelfEdge,
    /// A record type this reader does not know; the line was skipped.
    UnknownRecordType,
    /// Entities or edges not in canonical order.
    NotCanonical,
    /// A trait-contributed key on an entity that does not declare the trait.
    KeyWithoutTrait,
    /// A kind/trait combination outside the language profile (§5).
    Profile,
    /// `candidates` present but empty.
    EmptyCandidates,
}

impl FindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::DuplicateKey => "duplicate-key",
            FindingKind::SelfEdge => "self-edge",
            FindingKind::UnknownRecordType => "unknown-record-type",
            FindingKind::NotCanonical => "not-canonical",
            FindingKind::KeyWithoutTrait => "key-without-trait",
            FindingKind::Profile => "profile",
            FindingKind::EmptyCandidates => "empty-candidates",
        }
    }
}

/// A conformance finding: the model reads, but this is not as it should be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub line: u64,
    pub kind: FindingKind,
    pub message: String,
}

/// Findings, kept up to a cap per kind, with the full count of each kind.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    pub kept: Vec<Finding>,
    pub counts: std::collections::BTreeMap<FindingKind, u64>,
}

impl Findings {
    /// How many findings of one kind are kept with their text.
    pub const KEEP_PER_KIND: u64 = 20;

    pub fn push(&mut self, line: u64, kind: FindingKind, message: impl FnOnce() -> String) {
        let n = self.counts.entry(kind).or_insert(0);
        *n += 1;
        if *n <= Self::KEEP_PER_KIND {
            self.kept.push(Finding { line, kind, message: message() });
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// How many of a kind were counted but not kept.
    pub fn not_kept(&self) -> u64 {
        self.total() - self.kept.len() as u64
    }
}
