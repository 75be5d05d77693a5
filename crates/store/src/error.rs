//! Why the store refused or failed. Every message names the file and the
//! reason; the CLI maps any of them to exit status 2.

use std::path::PathBuf;

/// An error of the insights store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite could not open the file at all (missing for a reader, a
    /// directory, no permission…).
    #[error("{}: cannot open the insights store: {message}", path.display())]
    Open { path: PathBuf, message: String },
    /// The file exists but is not an SQLite database.
    #[error("{}: not an insights store: the file is not an SQLite database ({message}); it was left untouched", path.display())]
    NotSqlite { path: PathBuf, message: String },
    /// An SQLite database of another application (`application_id` is not CGI1).
    #[error(
        "{}: not an insights store: this SQLite database belongs to something else (application_id {application_id:#010x}, an insights store has 0x43474931); it was left untouched",
        path.display()
    )]
    Foreign { path: PathBuf, application_id: u32 },
    /// A reader was pointed at an empty file (no tables).
    #[error("{}: not an insights store: the database is empty (a writing run creates the store)", path.display())]
    Empty { path: PathBuf },
    /// A reader found an older format; only a writer migrates.
    #[error(
        "{}: the insights store has format version {version}, older than this program's {current}; a writing run migrates it, a reader does not",
        path.display()
    )]
    Older { path: PathBuf, version: u32, current: u32 },
    /// Written by a newer program: refused, bytes untouched.
    #[error(
        "{}: the insights store was written by a newer version of this program (format version {version}; this one knows up to {current}); it was left untouched",
        path.display()
    )]
    Newer { path: PathBuf, version: u32, current: u32 },
    /// A migration step failed and was rolled back.
    #[error(
        "{}: migrating the insights store from format version {from} failed ({message}); the store was left at version {left_at}",
        path.display()
    )]
    Migration { path: PathBuf, from: u32, left_at: u32, message: String },
    /// A column string holding U+0000 (docs/formats/store.md §6).
    #[error("{}: the {what} of `{}` contains U+0000, which the store refuses in its columns; nothing of this write was stored", path.display(), id.escape_debug())]
    Nul { path: PathBuf, what: &'static str, id: String },
    /// A record or failure that does not satisfy the side-car schema.
    #[error("{}: invalid {what} `{}`: {message}; nothing of this write was stored", path.display(), id.escape_debug())]
    Invalid { path: PathBuf, what: &'static str, id: String, message: String },
    /// A write operation on a store opened by a reader.
    #[error("{}: the insights store is open read-only; {op} needs a writer", path.display())]
    ReadOnly { path: PathBuf, op: &'static str },
    /// Export of a store that holds nothing (no header).
    #[error("{}: the insights store is empty (no header): there is nothing to export", path.display())]
    NothingToExport { path: PathBuf },
    /// In a browser: a second connection to a store already open in this
    /// worker, or an export or deletion of an open store (the OPFS pool
    /// does not coordinate two connections to one file).
    #[error("{}: the insights store is open in this worker; close it first", path.display())]
    InUse { path: PathBuf },
    /// In a browser: the Origin Private File System pool failed (not a
    /// dedicated worker, the pool held by another tab, quota, a missing name…).
    #[error("{}: {op}: {message}", path.display())]
    Opfs { path: PathBuf, op: &'static str, message: String },
    /// In a browser: bytes offered as a store, refused before anything was
    /// written (not SQLite, another application's database, a newer store,
    /// a name taken…).
    #[error("{}: cannot import: {reason}; nothing was written", path.display())]
    ImportRefused { path: PathBuf, reason: String },
    /// Another live process has a run open on this store.
    #[error("{}: another run is writing this insights store (process {pid}, run {run} started {started_at}); wait for it to finish", path.display())]
    Busy { path: PathBuf, pid: u32, run: i64, started_at: String },
    /// Another open writer holds the store's writer lock (natively: the
    /// file `<store>-lock`), in another process or in this one.
    #[error(
        "{}: another codegraph-insights process{} is writing this insights store; wait for it to finish (running both would pay for the same calls twice)",
        path.display(),
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    Locked { path: PathBuf, pid: Option<u32> },
    /// A store file of zero bytes: not created by this program (a writer
    /// creates the schema in the same transaction as the file's first page).
    #[error("{}: the file is empty (0 bytes), so it is not an insights store (a run killed while it created the store leaves one); it was left untouched. Remove it to start a new store, or restore it from a backup", path.display())]
    ZeroBytes { path: PathBuf },
    /// A store book was asked to commit before a run was begun.
    #[error("{}: no run is open on the insights store: begin a run before committing records", path.display())]
    NoRun { path: PathBuf },
    /// A stored row that does not read back as a valid record.
    #[error("{}: a stored {what} (`{}`) cannot be read back: {message}", path.display(), id.escape_debug())]
    Corrupt { path: PathBuf, what: &'static str, id: String, message: String },
    /// SQLite failed during an operation.
    #[error("{}: {op}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// Writing an export failed.
    #[error("{}: {op}: {source}", path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// A side-car that does not decode (import).
    #[error(transparent)]
    Sidecar(#[from] insights::sidecar::SidecarError),
}
