//! The explain engine (pure, no I/O): from a model and its analyzer facts to
//! every prompt a run would send, in walk order, with fingerprints and an
//! estimate.
pub mod blocks;
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
