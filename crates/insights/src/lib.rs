//! The explain engine (pure, no I/O): from a model and its analyzer facts to
//! every prompt a run would send, in walk order, with fingerprints and an
//! estimate.
//!
//! **Must never:** do I/O, read a clock or randomness, or speak HTTP (model
//! calls go through `complete::Completer`, records through `run::RecordBook`,
//! source through `sources::SourceReader`); hash prompt wording into a
//! fingerprint; parse a prompt's text back to learn what it asks
//! (`complete::Asking` says it); let a model answer become a record without
//! validating it against the block types.
pub mod blocks;
pub mod bounds;
pub mod canonical;
pub mod complete;
pub mod estimate;
pub mod fingerprint;
pub mod pack;
pub mod plan;
pub mod prompt;
pub mod record;
pub mod records;
pub mod report;
pub mod run;
pub mod schema;
pub mod session;
pub mod settings;
pub mod sidecar;
pub mod slice;
pub mod stale;
pub mod templates;
pub mod units;
pub mod validate;
pub mod vocab;
pub mod walk;
