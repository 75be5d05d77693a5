//! The explain engine (pure, no I/O): from a model and its analyzer facts to
//! every prompt a run would send, in walk order, with fingerprints and an
//! estimate.
pub mod blocks;
pub mod schema;
pub mod vocab;
