//! The codegraph model: reading `model.jsonl` into a compact, validated graph.
//!
//! Pure: no files, clocks or network. Bytes arrive through [`read_model`]
//! (any `BufRead`) or are pushed line by line / chunk by chunk into a
//! [`ModelReader`] (the browser Worker feeds it `File` chunks).
//!
//! * [`reader`] enforces every rule of the format and stops at the first
//!   broken one with a [`ModelError`] naming the line and the rule;
//!   conformance findings (duplicate keys, self-edges, …) are collected on the
//!   model instead.
//! * [`graph`] holds the result: interned strings, `u32` surrogates, edges in
//!   one array, forward / reverse / containment adjacency.
//! * [`order`] is the one string order of the product (UTF-16 code units).
//!
//! **Must never:** read a file, a clock or the network; panic on any input
//! bytes; hold the model file as one string; order ids by Rust's `str` order
//! (UTF-16 code units only, `cmp_utf16`); link `builder` into a shipped binary
//! (it is behind the feature `builder`).

#[cfg(feature = "builder")]
pub mod builder;
pub mod census;
pub mod error;
pub mod graph;
pub mod json;
pub mod literal;
pub mod order;
pub mod profile;
pub mod reader;
pub mod strings;
pub mod vocab;
mod wire;

pub use census::Census;
pub use error::{Finding, FindingKind, Findings, ModelError, Record, Rule};
pub use graph::{Anchor, Edge, EdgeRef, EntityRef, Header, Model, TraitSet};
pub use literal::{Literal, NamedArgument};
pub use order::{cmp_utf16, sort_utf16, utf16_len};
pub use reader::{read_model, read_model_with_progress, ModelReader};
pub use vocab::{EdgeKind, Provenance, Trait, TraitMask};
