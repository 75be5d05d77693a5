//! Opening a store (docs/formats/store.md §2–§4): identity pragmas, refusals,
//! and the migration ladder on `user_version`.

use std::path::Path;

use insights::vocab::{INSIGHTS_APPLICATION_ID, INSIGHTS_DB_VERSION};
use rusqlite::{Connection, OpenFlags};

use crate::StoreError;

/// The migration ladder: entry `i` takes a store from version `i` to `i + 1`.
///
/// **Append-only**: a shipped entry is never edited; a schema change is a
/// new entry (and `INSIGHTS_DB_VERSION + 1`).
pub const MIGRATIONS: &[&str] = &[
    // 0 → 1: the tables of §5. Rowid tables (a WITHOUT ROWID b-tree keeps
    // kilobyte rows in interior pages), but `meta`.
    r#"
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE run (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  pid INTEGER,
  provider TEXT,
  leaf TEXT NOT NULL,
  rollup TEXT NOT NULL,
  depth INTEGER NOT NULL,
  llm INTEGER,
  template INTEGER,
  reused INTEGER,
  failed INTEGER,
  calls INTEGER,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  cost REAL,
  aborted TEXT
);

CREATE TABLE insight (
  id TEXT PRIMARY KEY,
  level INTEGER NOT NULL,
  kind TEXT NOT NULL,
  name TEXT,
  file TEXT,
  key_lang TEXT,
  key_module TEXT,
  key_symbol TEXT,
  key_disambiguator TEXT,
  scc TEXT,
  origin TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  model TEXT,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  cost REAL,
  metadata TEXT,
  block TEXT NOT NULL,
  concept TEXT GENERATED ALWAYS AS (block ->> '$.concept') VIRTUAL,
  confidence REAL GENERATED ALWAYS AS (block ->> '$.confidence') VIRTUAL,
  run_id INTEGER REFERENCES run(id)
);
CREATE INDEX insight_concept ON insight(concept) WHERE concept IS NOT NULL;
CREATE INDEX insight_run ON insight(run_id) WHERE run_id IS NOT NULL;

CREATE TABLE failure (
  id TEXT PRIMARY KEY,
  level INTEGER NOT NULL,
  members TEXT NOT NULL,
  key_lang TEXT,
  key_module TEXT,
  key_symbol TEXT,
  key_disambiguator TEXT,
  model TEXT NOT NULL,
  reason TEXT NOT NULL,
  reason_kind TEXT GENERATED ALWAYS AS (reason ->> '$.kind') VIRTUAL,
  status INTEGER GENERATED ALWAYS AS (reason ->> '$.status') VIRTUAL,
  attempts INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  cost REAL,
  run_id INTEGER REFERENCES run(id)
);
"#,
    // 1 → 2: full-text search over explanations: an FTS5 index whose
    // content is the view `insight_text_source` (rowid = the record's rowid;
    // the text is not stored twice). The view is the one definition of what
    // is indexed: the id, the name, the concept (an operation's owner unless
    // unknown, a type's concept, a module's bounded-context hint), the
    // description, every other string of the block (`body`), and the name,
    // id and concept cut before each ASCII capital (`words`:
    // `PriceCalculator` also as `Price Calculator`). Triggers keep the index in the statement
    // that writes a record, so in its transaction, whoever writes (ad-hoc
    // SQL too): before a row changes or goes, its old text is taken out;
    // after it is written, its new text is put in. Unless the meta row
    // `textIndexPaused` exists: an import writes it inside its transaction,
    // empties the index, writes every row, indexes them all in one statement
    // and removes it (FTS5 writes its pending index at every statement's
    // savepoint: row by row, an import took several times as long). The
    // records the store already holds are indexed the same way (FTS5's
    // `rebuild` cannot read this view: inside it SQLite 3.54 finds no
    // `json_tree`).
    r#"
CREATE VIEW insight_text_source (rid, id, name, concept, description, body, words) AS
SELECT rid, id, name, concept, description, body,
  replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
  replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
    name || ' ' || id || ' ' || concept,
    'A', ' A'), 'B', ' B'), 'C', ' C'), 'D', ' D'), 'E', ' E'), 'F', ' F'), 'G', ' G'),
    'H', ' H'), 'I', ' I'), 'J', ' J'), 'K', ' K'), 'L', ' L'), 'M', ' M'), 'N', ' N'),
    'O', ' O'), 'P', ' P'), 'Q', ' Q'), 'R', ' R'), 'S', ' S'), 'T', ' T'), 'U', ' U'),
    'V', ' V'), 'W', ' W'), 'X', ' X'), 'Y', ' Y'), 'Z', ' Z')
FROM (
  SELECT i.rowid AS rid, i.id AS id, coalesce(i.name, '') AS name,
    coalesce(CASE i.level
      WHEN 0 THEN nullif(i.block ->> '$.owner', 'unknown')
      WHEN 1 THEN i.concept
      ELSE i.block ->> '$.boundedContextHint.name'
    END, '') AS concept,
    coalesce(i.block ->> '$.description', '') AS description,
    coalesce((SELECT group_concat(t.value, ' ') FROM json_tree(i.block) AS t
      WHERE t.type = 'text'
        AND t.fullkey NOT IN ('$.description', '$.owner', '$.concept', '$.boundedContextHint.name')), '') AS body
  FROM insight AS i
);

CREATE VIRTUAL TABLE insight_text USING fts5(
  id, name, concept, description, body, words,
  content = 'insight_text_source', content_rowid = 'rid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER insight_text_insert AFTER INSERT ON insight
  WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'textIndexPaused') BEGIN
  INSERT INTO insight_text (rowid, id, name, concept, description, body, words)
    SELECT * FROM insight_text_source WHERE rid = new.rowid;
END;

CREATE TRIGGER insight_text_unindex BEFORE UPDATE OF id, level, name, block ON insight
  WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'textIndexPaused') BEGIN
  INSERT INTO insight_text (insight_text, rowid, id, name, concept, description, body, words)
    SELECT 'delete', * FROM insight_text_source WHERE rid = old.rowid;
END;

CREATE TRIGGER insight_text_update AFTER UPDATE OF id, level, name, block ON insight
  WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'textIndexPaused') BEGIN
  INSERT INTO insight_text (rowid, id, name, concept, description, body, words)
    SELECT * FROM insight_text_source WHERE rid = new.rowid;
END;

CREATE TRIGGER insight_text_delete BEFORE DELETE ON insight
  WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'textIndexPaused') BEGIN
  INSERT INTO insight_text (insight_text, rowid, id, name, concept, description, body, words)
    SELECT 'delete', * FROM insight_text_source WHERE rid = old.rowid;
END;

INSERT INTO insight_text (rowid, id, name, concept, description, body, words)
  SELECT * FROM insight_text_source;
"#,
    // 2 → 3: the structured-output mode each model answered in (JSON
    // object text `{"<model>":"<mode>"}`; NULL for earlier runs, the demo,
    // or a run that got no answer).
    r#"
ALTER TABLE run ADD COLUMN output_modes TEXT;
"#,
];

const _: () = assert!(MIGRATIONS.len() == INSIGHTS_DB_VERSION as usize);

/// The writer's journal natively: WAL, `synchronous = NORMAL`.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) const WRITER_JOURNAL: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;";
/// The writer's journal on OPFS (no WAL in the wasm build): a rollback
/// journal truncated, not deleted, at commit (the pool keeps its slot), and
/// every commit flushed. See docs/benchmarks.md "Store on OPFS".
#[cfg(target_arch = "wasm32")]
pub(crate) const WRITER_JOURNAL: &str = "PRAGMA journal_mode = TRUNCATE; PRAGMA synchronous = FULL;";

/// Writer (migrates, WAL) or reader (`query_only`, never migrates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Writer,
    Reader,
}

/// What the file says about itself.
struct Identity {
    version: u32,
    tables: u32,
    application_id: u32,
}

fn open_error(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Open { path: path.to_owned(), message: e.to_string() }
}

fn identity(path: &Path, conn: &Connection) -> Result<Identity, StoreError> {
    let read = || -> rusqlite::Result<Identity> {
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        let application_id: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        Ok(Identity { version: version as u32, tables: tables as u32, application_id: application_id as u32 })
    };
    read().map_err(|e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => {
            StoreError::NotSqlite { path: path.to_owned(), message: e.to_string() }
        }
        _ => open_error(path, e),
    })
}

/// The open sequence of §3. Nothing is written before every refusal
/// has been ruled out.
pub(crate) fn open(path: &Path, mode: Mode) -> Result<(Connection, u32), StoreError> {
    open_with(path, mode, MIGRATIONS)
}

/// A `file:` URI for `path` (`%`, `?` and `#` escaped) with `query`.
#[cfg(not(target_arch = "wasm32"))]
fn uri(path: &Path, query: &str) -> String {
    let mut s = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => s.push_str("%25"),
            '?' => s.push_str("%3f"),
            '#' => s.push_str("%23"),
            c => s.push(c),
        }
    }
    s.push('?');
    s.push_str(query);
    s
}

/// A reader where the store's side files cannot be made (a read-only
/// directory or file system, a store file without write permission): the
/// database opened `immutable`, so SQLite creates no `-wal` / `-shm` and
/// takes no lock. Nobody can be writing there (a writer needs those files
/// and its `-lock`); commits a killed writer left in a `-wal` are not seen.
#[cfg(not(target_arch = "wasm32"))]
fn immutable_reader(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(uri(path, "immutable=1"), flags).map_err(|e| open_error(path, e))
}

/// Whether a reader's open failed because SQLite could not write beside the store.
#[cfg(not(target_arch = "wasm32"))]
fn cannot_write_beside(e: &StoreError) -> bool {
    match e {
        StoreError::Open { message, .. } => {
            message.contains("readonly") || message.contains("read-only") || message.contains("unable to open")
        }
        _ => false,
    }
}

pub(crate) fn open_with(path: &Path, mode: Mode, ladder: &[&str]) -> Result<(Connection, u32), StoreError> {
    #[cfg(not(target_arch = "wasm32"))]
    if mode == Mode::Reader {
        return match open_on(path, mode, ladder, None) {
            Err(e) if cannot_write_beside(&e) && path.is_file() => {
                open_on(path, mode, ladder, Some(immutable_reader(path)?))
            }
            other => other,
        };
    }
    open_on(path, mode, ladder, None)
}

fn open_on(
    path: &Path,
    mode: Mode,
    ladder: &[&str],
    conn: Option<Connection>,
) -> Result<(Connection, u32), StoreError> {
    let current = ladder.len() as u32;
    let flags = match mode {
        Mode::Writer => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        // An ordinary read-write handle made read-only by `query_only`: a
        // read-only file handle can strand `-wal` / `-shm` files.
        Mode::Reader => OpenFlags::SQLITE_OPEN_READ_WRITE,
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match conn {
        Some(c) => c,
        #[cfg(not(target_arch = "wasm32"))]
        None => Connection::open_with_flags(path, flags).map_err(|e| open_error(path, e))?,
        #[cfg(target_arch = "wasm32")]
        None => crate::opfs::connect(path, flags)?,
    };
    let id = identity(path, &conn)?;
    if id.tables > 0 && id.application_id != INSIGHTS_APPLICATION_ID {
        return Err(StoreError::Foreign { path: path.to_owned(), application_id: id.application_id });
    }
    if mode == Mode::Reader {
        if id.tables == 0 {
            return Err(StoreError::Empty { path: path.to_owned() });
        }
        // An older store is read as it is (every format from 1 on holds the
        // tables readers use; what a later format added, like the text
        // index of format 2, answers `Older`); only a writer migrates.
        if id.version == 0 {
            return Err(StoreError::Older { path: path.to_owned(), version: id.version, current });
        }
    }
    if id.version > current {
        return Err(StoreError::Newer { path: path.to_owned(), version: id.version, current });
    }
    let pragma = |sql: &str| conn.execute_batch(sql).map_err(|e| open_error(path, e));
    conn.busy_timeout(std::time::Duration::from_millis(5000)).map_err(|e| open_error(path, e))?;
    if mode == Mode::Reader {
        pragma("PRAGMA query_only = ON;")?;
        return Ok((conn, id.version));
    }
    // WAL + NORMAL: commits survive a process crash without an fsync per
    // unit. SQLite in WebAssembly (OPFS) has no WAL: there every commit is
    // a rollback-journal transaction, flushed (FULL) before it returns.
    pragma(WRITER_JOURNAL)?;
    pragma("PRAGMA foreign_keys = ON;")?;
    for from in id.version..current {
        migrate(&conn, from, ladder[from as usize]).map_err(|e| StoreError::Migration {
            path: path.to_owned(),
            from,
            left_at: from,
            message: e.to_string(),
        })?;
    }
    Ok((conn, current))
}

/// Checks that `bytes` are a database file of an insights store this
/// program can open, without opening it: the SQLite signature, the
/// `application_id` and a `user_version` not newer than the ladder (an older
/// one is migrated by the next writer). The error is the reason, for a
/// refusal of bytes offered as a store (a browser import).
pub fn check_store_image(bytes: &[u8]) -> Result<(), String> {
    let be32 = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if bytes.len() < 100 || !bytes.starts_with(b"SQLite format 3\0") {
        return Err("the bytes are not an SQLite database".into());
    }
    let (version, application_id) = (be32(60), be32(68));
    if application_id != INSIGHTS_APPLICATION_ID {
        return Err(format!(
            "not an insights store: this SQLite database belongs to something else (application_id \
             {application_id:#010x}, an insights store has {INSIGHTS_APPLICATION_ID:#010x})"
        ));
    }
    let current = MIGRATIONS.len() as u32;
    if version > current {
        return Err(format!(
            "the insights store was written by a newer version of this program (format version {version}; this one \
             knows up to {current})"
        ));
    }
    Ok(())
}

/// One rung: in a `BEGIN IMMEDIATE` transaction, run the step and stamp
/// the identity pragmas; rolled back on error.
fn migrate(conn: &Connection, from: u32, step: &str) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = conn.execute_batch(step).and_then(|_| {
        conn.execute_batch(&format!(
            "PRAGMA application_id = {INSIGHTS_APPLICATION_ID}; PRAGMA user_version = {};",
            from + 1
        ))
    });
    match result {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_failing_rung_rolls_back_and_names_the_version_left_at() {
        let dir = std::env::temp_dir().join(format!("store-ladder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ladder.db");
        let _ = std::fs::remove_file(&path);
        let ladder = ["CREATE TABLE a (x);", "CREATE TABLE b (y); INSERT INTO nowhere VALUES (1);"];
        let err = open_with(&path, Mode::Writer, &ladder).map(|_| ()).unwrap_err();
        match &err {
            StoreError::Migration { from: 1, left_at: 1, .. } => {}
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("left at version 1"), "{err}");
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, 1);
        let b: i64 = conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'b'", [], |r| r.get(0)).unwrap();
        assert_eq!(b, 0, "the failed rung left nothing behind");
        drop(conn);
        // The ladder resumes where it stopped once the rung is fixed.
        let fixed = ["CREATE TABLE a (x);", "CREATE TABLE b (y);"];
        let (conn, _) = open_with(&path, Mode::Writer, &fixed).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, 2);
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
