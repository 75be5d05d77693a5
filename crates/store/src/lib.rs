//! The insights store `<model>.insights.db` (docs/formats/store.md): the SQLite
//! working copy of every record bought. Every finished unit is one
//! transaction; the side-car `<model>.insights.jsonl` is its export, byte
//! for byte what `insights::sidecar` encodes.
//!
//! It is not a cache: an older store is migrated (an append-only ladder on
//! `user_version`), a newer one or a foreign SQLite file is refused without
//! touching a byte. Ids are ordered in code (UTF-16 code units), never by
//! SQLite's `ORDER BY`; column strings holding U+0000 are refused at write.
//!
//! Natively the store is the file `<model>.insights.db` beside the model;
//! the writer runs in WAL with `synchronous = NORMAL`. One writer at a time:
//! a writer takes an operating-system lock on `<store>-lock` before it opens
//! the file and holds it until the store is dropped (a second writer, in any
//! process, is refused with [`StoreError::Locked`] naming the holder's pid);
//! holding it, a writer closes every open run as interrupted
//! ([`Store::close_open_runs`]), naming the process id it recorded.
//!
//! In a browser (wasm32: `rusqlite` over `sqlite-wasm-rs`) the store lives
//! on OPFS in a dedicated Worker, through the SAH-pool VFS that [`opfs`]
//! installs: a rollback journal (no WAL in the wasm build; `TRUNCATE`,
//! `synchronous = FULL`), one connection per file, no process ids — the page
//! holds a Web Lock per store and closes what a killed tab left open with
//! [`Store::close_open_runs`]. [`opfs`] lists, exports, imports and deletes
//! the stores kept in the browser.
//!
//! Explanations are searchable as text ([`Store::search_text`]): an FTS5
//! index over every record, kept by triggers in the transaction that writes
//! the record.
//!
//! **Must never:** rebuild or overwrite a store it cannot read (newer, foreign,
//! zero bytes); let two writers write one store; order ids with SQLite's `ORDER
//! BY`; keep U+0000 in a column; write a side-car other than through
//! `insights::sidecar`'s encoder; speak HTTP.

mod book;
mod error;
#[cfg(not(target_arch = "wasm32"))]
mod lock;
mod open;
#[cfg(target_arch = "wasm32")]
pub mod opfs;
mod paths;
#[cfg(not(target_arch = "wasm32"))]
mod process;
mod read;
mod rows;
mod search;
mod session;
mod store;

pub use book::{StoreBook, BULK_AFTER};
pub use error::StoreError;
#[cfg(not(target_arch = "wasm32"))]
pub use lock::lock_path_for;
pub use open::{check_store_image, MIGRATIONS};
pub use paths::{is_store_name, sidecar_path_for, store_name_for, store_path_for, STORE_NAME_SUFFIX};
#[cfg(not(target_arch = "wasm32"))]
pub use process::is_process_alive;
pub use read::{ByLevel, ByOrigin, InsightAnswer, InsightRow, LedgerCounts, Query, RunModels, RunRow, Stats};
pub use search::{match_queries, TextHit};
pub use session::{Begin, Ending, Execute, StoreRun};
pub use store::{BeginRun, ExportStamp, FinishRun, OpenRun, RunHandle, Store};

/// Re-exported so callers can run ad-hoc SQL on [`Store::connection`].
pub use rusqlite;
