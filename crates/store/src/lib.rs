//! The insights store `<model>.insights.db` (insights.md §16): the SQLite
//! working copy of every record bought. Every finished unit is one
//! transaction; the side-car `<model>.insights.jsonl` is its export, byte
//! for byte what `insights::sidecar` encodes.
//!
//! It is not a cache: an older store is migrated (an append-only ladder on
//! `user_version`), a newer one or a foreign SQLite file is refused without
//! touching a byte. Ids are ordered in code (UTF-16 code units), never by
//! SQLite's `ORDER BY`; column strings holding U+0000 are refused at write.
//!
//! Natively the writer runs in WAL with `synchronous = NORMAL`; on wasm32
//! (`rusqlite` over `sqlite-wasm-rs`, OPFS) there is no WAL, and the
//! single-writer rule has no process ids to check (an open point).

mod book;
mod error;
mod open;
mod paths;
mod process;
mod read;
mod rows;
mod store;

pub use book::StoreBook;
pub use error::StoreError;
pub use open::MIGRATIONS;
pub use paths::{sidecar_path_for, store_path_for};
pub use process::is_process_alive;
pub use read::{ByLevel, ByOrigin, InsightAnswer, InsightRow, Query, RunCounts, RunModels, RunRow, Stats};
pub use store::{BeginRun, ExportStamp, FinishRun, OpenRun, RunHandle, Store};

/// Re-exported so callers can run ad-hoc SQL on [`Store::connection`].
pub use rusqlite;
