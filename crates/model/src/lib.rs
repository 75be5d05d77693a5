//! The codegraph model: reading `model.jsonl` into a compact, validated graph.
//!
//! Pure: no files, clocks or network. Bytes arrive through [`read_model`]
//! (any `BufRead`) or are pushed line by line / chunk by chunk into a
//! [`ModelReader`] (the browser Worker feeds it `fetch`/`File` chunks).

pub mod order;

pub use order::{cmp_utf16, sort_utf16, utf16_len};
pub mod json;
pub mod literal;

pub use literal::{Literal, NamedArgument};
