//! The store's port operations (docs/formats/store.md §7).

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};

use hashbrown::{HashMap, HashSet};
use insights::record::{FailureRecord, InsightRecord, SidecarHeader, Trailer};
use insights::records::RecordSummary;
use insights::sidecar::{
    decode_header, decode_trailer, encode_header, encode_trailer, failure_order, record_order, Sidecar, SidecarWriter,
};
use insights::stale::Stamp;
use insights::vocab::GET_CHUNK;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::open::{self, Mode};
use crate::rows::{self, BoundRow};
use crate::StoreError;

/// The store `<model>.insights.db`: the working copy of every record bought.
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    mode: Mode,
    /// The format version of the file as opened: a writer's is current (it
    /// migrated); a reader's may be older (nothing is migrated).
    version: u32,
    /// Block rows fetched by the largest single read so far (tests: never
    /// more than [`GET_CHUNK`]).
    max_fetched: Cell<usize>,
    /// In a browser: this worker's one connection to the file.
    #[cfg(target_arch = "wasm32")]
    _claim: crate::opfs::Claim,
    /// Natively, a writer: the store's writer lock, held while the store is open.
    #[cfg(not(target_arch = "wasm32"))]
    _lock: Option<crate::lock::WriterLock>,
}

/// An open run, as handed out by [`Store::begin_run`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunHandle {
    pub id: i64,
}

/// What a run starts with.
#[derive(Clone, Debug)]
pub struct BeginRun {
    pub header: SidecarHeader,
    /// ISO-8601.
    pub started_at: String,
    /// The writing process (natively); `None` where there is no process id
    /// (a browser: the page's Web Lock owns the store, see
    /// [`Store::close_open_runs`]).
    pub pid: Option<u32>,
}

/// What a run ends with.
#[derive(Clone, Debug)]
pub struct FinishRun {
    pub eof: Trailer,
    /// The owed failures: they replace the failure table.
    pub failures: Vec<FailureRecord>,
    pub calls: Option<u64>,
    /// `<status or kind>: <message>` of a fatal abort.
    pub aborted: Option<String>,
    /// The output mode each model answered in (`insights::run::RunResult::output_modes`).
    pub output_modes: Vec<(String, String)>,
}

/// A run without `finished_at`: still writing, or killed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenRun {
    pub id: i64,
    pub started_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Records committed by that run so far.
    pub records: u64,
}

/// Where and when the last side-car was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportStamp {
    pub path: String,
    pub size: u64,
    pub mtime_ms: f64,
}

impl Store {
    /// Opens (creating or migrating) the store for writing: natively WAL,
    /// `synchronous = NORMAL`; in a browser a rollback journal (`TRUNCATE`,
    /// `synchronous = FULL`) on the OPFS pool, which must be installed
    /// ([`crate::opfs::install`]). Foreign keys on. Refuses a foreign SQLite
    /// file and a newer store without touching them; in a browser, also a
    /// store already open in this worker ([`StoreError::InUse`]).
    pub fn open_writer(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        Store::opened(path.as_ref(), Mode::Writer)
    }

    /// Opens an existing, current store for reading (`query_only`): an
    /// empty, older, newer or foreign file is refused; nothing is migrated.
    /// In a browser a reader is still the file's one connection: it is
    /// refused while a writer has the store open in this worker.
    pub fn open_reader(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        Store::opened(path.as_ref(), Mode::Reader)
    }

    fn opened(path: &Path, mode: Mode) -> Result<Store, StoreError> {
        #[cfg(target_arch = "wasm32")]
        let claim = crate::opfs::Claim::take(path)?;
        // One writer at a time, decided before the file is opened for writing
        // (and before it is judged: a writer creating the store makes it zero
        // bytes for an instant, under this lock).
        #[cfg(not(target_arch = "wasm32"))]
        let lock = match mode {
            Mode::Writer => Some(crate::lock::WriterLock::take(path)?),
            Mode::Reader => None,
        };
        #[cfg(not(target_arch = "wasm32"))]
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            // A reader that meets a writer creating the store (its lock file
            // is there) sees an empty store, not a damaged one.
            if mode == Mode::Reader && crate::lock::lock_path_for(path).exists() {
                return Err(StoreError::Empty { path: path.to_owned() });
            }
            return Err(StoreError::ZeroBytes { path: path.to_owned() });
        }
        let (conn, version) = open::open(path, mode)?;
        Ok(Store {
            conn,
            path: path.to_owned(),
            mode,
            version,
            max_fetched: Cell::new(0),
            #[cfg(target_arch = "wasm32")]
            _claim: claim,
            #[cfg(not(target_arch = "wasm32"))]
            _lock: lock,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's format version (`user_version`): current for a writer,
    /// possibly older for a reader, which never migrates.
    pub fn format_version(&self) -> u32 {
        self.version
    }

    /// Refuses an operation that needs format `needed` on an older file.
    pub(crate) fn needs_format(&self, needed: u32) -> Result<(), StoreError> {
        if self.version >= needed {
            return Ok(());
        }
        Err(StoreError::Older {
            path: self.path.clone(),
            version: self.version,
            current: crate::MIGRATIONS.len() as u32,
        })
    }

    /// True for a store opened by [`Store::open_reader`].
    pub fn is_read_only(&self) -> bool {
        self.mode == Mode::Reader
    }

    /// The SQLite connection, for ad-hoc SQL (a reader's refuses writes).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The most block rows a single read has fetched at once.
    pub fn max_rows_fetched(&self) -> usize {
        self.max_fetched.get()
    }

    pub(crate) fn sql(&self, op: &'static str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite { path: self.path.clone(), op, source }
    }

    fn writable(&self, op: &'static str) -> Result<(), StoreError> {
        match self.mode {
            Mode::Writer => Ok(()),
            Mode::Reader => Err(StoreError::ReadOnly { path: self.path.clone(), op }),
        }
    }

    fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .map_err(self.sql("reading meta"))
    }

    fn set_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, value],
        )?;
        Ok(())
    }

    fn drop_meta(conn: &Connection, key: &str) -> rusqlite::Result<()> {
        conn.execute("DELETE FROM meta WHERE key = ?1", [key])?;
        Ok(())
    }

    /// No header: nothing imported, no run begun.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        Ok(self.meta("header")?.is_none())
    }

    /// The header of the last import or run.
    pub fn header(&self) -> Result<Option<SidecarHeader>, StoreError> {
        self.meta("header")?.map(|text| decode_header(&text).map_err(|m| self.corrupt_meta("header", m))).transpose()
    }

    /// The trailer of the last finished run or import; `None` while a run is
    /// open or after a kill.
    pub fn eof(&self) -> Result<Option<Trailer>, StoreError> {
        self.meta("eof")?.map(|text| decode_trailer(&text).map_err(|m| self.corrupt_meta("eof", m))).transpose()
    }

    fn corrupt_meta(&self, key: &str, message: String) -> StoreError {
        StoreError::Corrupt { path: self.path.clone(), what: "meta row", id: key.to_owned(), message }
    }

    /// The stamp of the last side-car written.
    pub fn exported(&self) -> Result<Option<ExportStamp>, StoreError> {
        self.meta("exported")?
            .map(|text| serde_json::from_str(&text).map_err(|e| self.corrupt_meta("exported", e.to_string())))
            .transpose()
    }

    /// Records where and when a side-car was written.
    pub fn mark_exported(&self, stamp: &ExportStamp) -> Result<(), StoreError> {
        self.writable("marking an export")?;
        let text = serde_json::to_string(stamp).expect("stamps serialize");
        Self::set_meta(&self.conn, "exported", &text).map_err(self.sql("marking an export"))
    }

    /// The database's size in bytes (pages × page size), as SQLite sees it.
    pub fn size_bytes(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(self.sql("measuring the store"))
    }

    /// Number of records.
    pub fn count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM insight", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(self.sql("counting records"))
    }

    /// id → fingerprint of every record: one scan, no blocks.
    pub fn fingerprints(&self) -> Result<HashMap<String, String>, StoreError> {
        let op = "reading fingerprints";
        let mut stmt = self.conn.prepare("SELECT id, fingerprint FROM insight").map_err(self.sql(op))?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(self.sql(op))?;
        rows.collect::<Result<HashMap<_, _>, _>>().map_err(self.sql(op))
    }

    /// id → what staleness reads of every record ([`insights::stale`]): its
    /// fingerprint and the model its run asked for its level (`None` for an
    /// imported record: the header's then). One scan, no blocks.
    pub fn stamps(&self) -> Result<HashMap<String, Stamp>, StoreError> {
        let op = "reading fingerprints";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT i.id, i.fingerprint, CASE WHEN i.level = 0 THEN r.leaf ELSE r.rollup END \
                 FROM insight AS i LEFT JOIN run AS r ON r.id = i.run_id",
            )
            .map_err(self.sql(op))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, Stamp { fingerprint: r.get(1)?, model: r.get(2)? })))
            .map_err(self.sql(op))?;
        rows.collect::<Result<HashMap<_, _>, _>>().map_err(self.sql(op))
    }

    /// Every (level, id), sorted in code by (rank, id in UTF-16 order).
    fn sorted_ids(&self) -> Result<Vec<(i64, String)>, StoreError> {
        let op = "listing record ids";
        let mut stmt = self.conn.prepare("SELECT level, id FROM insight").map_err(self.sql(op))?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(self.sql(op))?;
        let mut ids = rows.collect::<Result<Vec<(i64, String)>, _>>().map_err(self.sql(op))?;
        ids.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| model::cmp_utf16(&a.1, &b.1)));
        Ok(ids)
    }

    /// What a prompt quotes of a record (one query, no whole block read):
    /// the description and the concept label (docs/formats/blocks.md §8).
    pub fn summary(&self, id: &str) -> Result<Option<RecordSummary>, StoreError> {
        let op = "reading a summary";
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {SUMMARY_PARTS} FROM insight WHERE id = ?1"))
            .map_err(self.sql(op))?;
        stmt.query_row([id], summary_parts).optional().map_err(self.sql(op)).map(|found| found.map(summary_of))
    }

    /// [`Store::summary`] of every record, in one table scan (id → summary).
    pub fn summaries(&self) -> Result<HashMap<String, RecordSummary>, StoreError> {
        let op = "reading summaries";
        let mut stmt = self.conn.prepare(&format!("SELECT id, {SUMMARY_PARTS} FROM insight")).map_err(self.sql(op))?;
        let rows = stmt
            .query_map([], |r| {
                let id: String = r.get(0)?;
                let parts = summary_parts_at(r, 1)?;
                Ok((id, summary_of(parts)))
            })
            .map_err(self.sql(op))?;
        rows.collect::<Result<HashMap<_, _>, _>>().map_err(self.sql(op))
    }

    /// The records that exist among `ids`, side-car order; read in chunks of
    /// [`GET_CHUNK`].
    pub fn get<S: AsRef<str>>(&self, ids: &[S]) -> Result<Vec<InsightRecord>, StoreError> {
        let mut seen = HashSet::with_capacity(ids.len());
        let unique: Vec<&str> = ids.iter().map(AsRef::as_ref).filter(|id| seen.insert(*id)).collect();
        let mut out = Vec::with_capacity(unique.len());
        for chunk in unique.chunks(GET_CHUNK) {
            self.fetch(chunk, &mut out)?;
        }
        out.sort_by(record_order);
        Ok(out)
    }

    /// One `IN (…)` read of at most [`GET_CHUNK`] ids, appended unsorted.
    fn fetch(&self, ids: &[&str], out: &mut Vec<InsightRecord>) -> Result<(), StoreError> {
        let op = "reading records";
        let sql = format!("SELECT {} FROM insight WHERE id IN ({})", rows::record_select(), placeholders(ids.len()));
        let mut stmt = self.conn.prepare_cached(&sql).map_err(self.sql(op))?;
        let mut rows = stmt.query(rusqlite::params_from_iter(ids)).map_err(self.sql(op))?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(self.sql(op))? {
            out.push(rows::read_record(&self.path, row)?);
            n += 1;
        }
        if n > self.max_fetched.get() {
            self.max_fetched.set(n);
        }
        Ok(())
    }

    /// Every record in side-car order (tests and small corpora).
    pub fn records(&self) -> Result<Vec<InsightRecord>, StoreError> {
        let ids = self.sorted_ids()?;
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(GET_CHUNK) {
            let ids: Vec<&str> = chunk.iter().map(|(_, id)| id.as_str()).collect();
            let mut part = Vec::with_capacity(ids.len());
            self.fetch(&ids, &mut part)?;
            part.sort_by(record_order);
            out.extend(part);
        }
        Ok(out)
    }

    /// Every record, in no particular order, in one scan of the table (the
    /// domain view of a large store: no id list, no `IN` chunks, no sort).
    pub fn scan_records(&self) -> Result<Vec<InsightRecord>, StoreError> {
        let op = "reading records";
        let sql = format!("SELECT {} FROM insight", rows::record_select());
        let mut stmt = self.conn.prepare(&sql).map_err(self.sql(op))?;
        let mut rows = stmt.query([]).map_err(self.sql(op))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(self.sql(op))? {
            out.push(rows::read_record(&self.path, row)?);
        }
        Ok(out)
    }

    /// Every failure row, sorted like the side-car.
    pub fn failures(&self) -> Result<Vec<FailureRecord>, StoreError> {
        let op = "reading failures";
        let mut stmt =
            self.conn.prepare(&format!("SELECT {} FROM failure", rows::failure_select())).map_err(self.sql(op))?;
        let mut rows = stmt.query([]).map_err(self.sql(op))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(self.sql(op))? {
            out.push(rows::read_failure(&self.path, row)?);
        }
        out.sort_by(failure_order);
        Ok(out)
    }

    /// Runs without `finished_at`, with how many records each committed.
    pub fn open_runs(&self) -> Result<Vec<OpenRun>, StoreError> {
        let op = "listing open runs";
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.started_at, r.pid, (SELECT count(*) FROM insight i WHERE i.run_id = r.id) \
                 FROM run r WHERE r.finished_at IS NULL ORDER BY r.id",
            )
            .map_err(self.sql(op))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(OpenRun {
                    id: r.get(0)?,
                    started_at: r.get(1)?,
                    pid: r.get::<_, Option<i64>>(2)?.and_then(|p| u32::try_from(p).ok()),
                    records: r.get::<_, i64>(3)? as u64,
                })
            })
            .map_err(self.sql(op))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sql(op))
    }

    /// The single-writer rule (docs/formats/store.md §9): an open run of
    /// another live process refuses this writer ([`StoreError::Busy`]); the
    /// open runs whose process is gone are returned, for the caller to close as
    /// `interrupted` once it writes. A run without a pid counts as gone.
    /// Native only: a browser has no process ids ([`Store::close_open_runs`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn check_writers(&self, my_pid: u32) -> Result<Vec<OpenRun>, StoreError> {
        let mut dead = Vec::new();
        for run in self.open_runs()? {
            match run.pid {
                Some(pid) if pid != my_pid && crate::process::is_process_alive(pid) => {
                    return Err(StoreError::Busy {
                        path: self.path.clone(),
                        pid,
                        run: run.id,
                        started_at: run.started_at,
                    })
                }
                _ => dead.push(run),
            }
        }
        Ok(dead)
    }

    /// Closes every open run as `aborted` (e.g. `interrupted`) in one
    /// statement and returns them, with the records each had committed
    /// (kept and reused). A writer calls it: it holds the store's lock
    /// (natively the OS lock, in a browser the page's Web Lock), so no other
    /// writer is alive and every open run was left by one that is gone. (A
    /// pid check on top would refuse a reused pid, or, where pids cannot be
    /// checked, every crashed run.)
    pub fn close_open_runs(&self, aborted: &str) -> Result<Vec<OpenRun>, StoreError> {
        self.writable("closing open runs")?;
        let runs = self.open_runs()?;
        if !runs.is_empty() {
            self.conn
                .execute(
                    "UPDATE run SET finished_at = started_at, aborted = ?1 WHERE finished_at IS NULL",
                    params![aborted],
                )
                .map_err(self.sql("closing open runs"))?;
        }
        Ok(runs)
    }

    /// Replaces the content by a side-car, in one transaction: every record
    /// and failure row deleted, the side-car's inserted (no run), header
    /// set, eof set or dropped, the export stamp dropped. The run ledger is
    /// kept. Everything is checked before the first row is bound.
    pub fn import(&self, sidecar: &Sidecar) -> Result<(), StoreError> {
        self.writable("import")?;
        let op = "importing a side-car";
        let records: Vec<BoundRow> =
            sidecar.records.iter().map(|r| rows::record_row(&self.path, r, None)).collect::<Result<_, _>>()?;
        let failures: Vec<BoundRow> =
            sidecar.failures.iter().map(|f| rows::failure_row(&self.path, f, None)).collect::<Result<_, _>>()?;
        let header = encode_header(&sidecar.header);
        let eof = sidecar.trailer.as_ref().map(encode_trailer);
        let tx = self.conn.unchecked_transaction().map_err(self.sql(op))?;
        crate::search::pause_text_index(&tx).map_err(self.sql(op))?;
        tx.execute_batch("DELETE FROM insight; DELETE FROM failure;").map_err(self.sql(op))?;
        {
            let mut put = tx.prepare(&rows::upsert_sql("insight", rows::INSIGHT_COLUMNS)).map_err(self.sql(op))?;
            for row in &records {
                put.execute(rusqlite::params_from_iter(row.params())).map_err(self.sql(op))?;
            }
            let mut put = tx.prepare(&rows::upsert_sql("failure", rows::FAILURE_COLUMNS)).map_err(self.sql(op))?;
            for row in &failures {
                put.execute(rusqlite::params_from_iter(row.params())).map_err(self.sql(op))?;
            }
        }
        crate::search::index_all_text(&tx).map_err(self.sql(op))?;
        Self::set_meta(&tx, "header", &header).map_err(self.sql(op))?;
        match &eof {
            Some(eof) => Self::set_meta(&tx, "eof", eof).map_err(self.sql(op))?,
            None => Self::drop_meta(&tx, "eof").map_err(self.sql(op))?,
        }
        Self::drop_meta(&tx, "exported").map_err(self.sql(op))?;
        tx.commit().map_err(self.sql(op))
    }

    /// Merges a side-car into the store, in one transaction, deleting
    /// nothing the store explains: a record of the file is written (no run)
    /// when the store has none for its id or has one with the same
    /// fingerprint; every failure of the file whose unit has no record
    /// afterwards is upserted, and failures now explained are dropped; the
    /// header is set only when the store has none; a trailer the store holds
    /// gets its record and failure counts updated, so an export still
    /// decodes as complete. The way to take a cut-short side-car (an
    /// accident, or a rescue file written when the store could not commit)
    /// without losing what the file does not mention. Returns the records
    /// and failures written (a record kept from the store is not counted).
    pub fn merge(&self, sidecar: &Sidecar) -> Result<(u64, u64), StoreError> {
        self.writable("merge")?;
        let op = "merging a side-car";
        let records: Vec<BoundRow> =
            sidecar.records.iter().map(|r| rows::record_row(&self.path, r, None)).collect::<Result<_, _>>()?;
        let ids: HashSet<&str> = sidecar.records.iter().map(|r| r.id.as_str()).collect();
        let tx = self.conn.unchecked_transaction().map_err(self.sql(op))?;
        // A record the store holds is replaced only by one made from the same
        // inputs (same fingerprint: an edit of the same explanation); a record
        // for other inputs (an older rescue, a stale file) never overwrites it.
        let mut written = 0u64;
        {
            let sql = rows::upsert_sql("insight", rows::INSIGHT_COLUMNS)
                + " WHERE insight.fingerprint = excluded.fingerprint";
            let mut put = tx.prepare(&sql).map_err(self.sql(op))?;
            for row in &records {
                written += put.execute(rusqlite::params_from_iter(row.params())).map_err(self.sql(op))? as u64;
            }
        }
        let mut failures = 0u64;
        {
            let mut has = tx.prepare("SELECT 1 FROM insight WHERE id = ?1").map_err(self.sql(op))?;
            let mut put = tx.prepare(&rows::upsert_sql("failure", rows::FAILURE_COLUMNS)).map_err(self.sql(op))?;
            for f in &sidecar.failures {
                if ids.contains(f.id.as_str()) || has.exists([&f.id]).map_err(self.sql(op))? {
                    continue;
                }
                let row = rows::failure_row(&self.path, f, None)?;
                put.execute(rusqlite::params_from_iter(row.params())).map_err(self.sql(op))?;
                failures += 1;
            }
        }
        // A failure whose members all have records now is no longer owed.
        tx.execute(
            "DELETE FROM failure WHERE NOT EXISTS (SELECT 1 FROM json_each(failure.members) AS m \
             WHERE m.value NOT IN (SELECT id FROM insight))",
            [],
        )
        .map_err(self.sql(op))?;
        let header: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key = 'header'", [], |r| r.get(0))
            .optional()
            .map_err(self.sql(op))?;
        if header.is_none() {
            Self::set_meta(&tx, "header", &encode_header(&sidecar.header)).map_err(self.sql(op))?;
        }
        let eof: Option<String> = tx
            .query_row("SELECT value FROM meta WHERE key = 'eof'", [], |r| r.get(0))
            .optional()
            .map_err(self.sql(op))?;
        if let Some(text) = eof {
            let mut eof = decode_trailer(&text).map_err(|m| self.corrupt_meta("eof", m))?;
            let count = |sql: &str| tx.query_row(sql, [], |r| r.get::<_, i64>(0)).map(|n| n as u64);
            eof.counts.records = count("SELECT count(*) FROM insight").map_err(self.sql(op))?;
            eof.counts.failed = count("SELECT count(*) FROM failure").map_err(self.sql(op))?;
            Self::set_meta(&tx, "eof", &encode_trailer(&eof)).map_err(self.sql(op))?;
        }
        tx.commit().map_err(self.sql(op))?;
        Ok((written, failures))
    }

    /// Reads, decodes (strictly) and imports a side-car file (native: a
    /// browser decodes the side-car's bytes and calls [`Store::import`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn import_file(&self, path: impl AsRef<Path>) -> Result<Sidecar, StoreError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| StoreError::Io {
            path: path.to_owned(),
            op: "reading the side-car",
            source,
        })?;
        let sidecar = insights::sidecar::decode(&path.display().to_string(), &text)?;
        drop(text);
        self.import(&sidecar)?;
        Ok(sidecar)
    }

    /// Opens a run: a ledger row, the run's header, the trailer withdrawn.
    pub fn begin_run(&self, begin: &BeginRun) -> Result<RunHandle, StoreError> {
        self.writable("beginning a run")?;
        let op = "beginning a run";
        let h = &begin.header;
        let tx = self.conn.unchecked_transaction().map_err(self.sql(op))?;
        tx.execute(
            "INSERT INTO run (started_at, pid, provider, leaf, rollup, depth) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![begin.started_at, begin.pid, h.provider, h.models.leaf, h.models.rollup, h.depth],
        )
        .map_err(self.sql(op))?;
        let id = tx.last_insert_rowid();
        Self::set_meta(&tx, "header", &encode_header(h)).map_err(self.sql(op))?;
        Self::drop_meta(&tx, "eof").map_err(self.sql(op))?;
        tx.commit().map_err(self.sql(op))?;
        Ok(RunHandle { id })
    }

    /// Commits a finished unit: every record upserted with the run, the
    /// unit's failure row deleted — one transaction, all or nothing. A bad
    /// record (checked before the first bind) writes nothing.
    pub fn put_unit(&self, run: RunHandle, unit_id: &str, records: &[InsightRecord]) -> Result<(), StoreError> {
        self.writable("committing a unit")?;
        let op = "committing a unit";
        let rows: Vec<BoundRow> =
            records.iter().map(|r| rows::record_row(&self.path, r, Some(run.id))).collect::<Result<_, _>>()?;
        let tx = self.conn.unchecked_transaction().map_err(self.sql(op))?;
        {
            let mut put =
                tx.prepare_cached(&rows::upsert_sql("insight", rows::INSIGHT_COLUMNS)).map_err(self.sql(op))?;
            for row in &rows {
                put.execute(rusqlite::params_from_iter(row.params())).map_err(self.sql(op))?;
            }
            tx.prepare_cached("DELETE FROM failure WHERE id = ?1")
                .and_then(|mut s| s.execute([unit_id]))
                .map_err(self.sql(op))?;
        }
        tx.commit().map_err(self.sql(op))
    }

    /// Records a failure the moment it happens (autocommit upsert).
    pub fn fail(&self, run: RunHandle, failure: &FailureRecord) -> Result<(), StoreError> {
        self.writable("recording a failure")?;
        let row = rows::failure_row(&self.path, failure, Some(run.id))?;
        self.conn
            .prepare_cached(&rows::upsert_sql("failure", rows::FAILURE_COLUMNS))
            .and_then(|mut s| s.execute(rusqlite::params_from_iter(row.params())))
            .map(|_| ())
            .map_err(self.sql("recording a failure"))
    }

    /// Closes a run: the failure table replaced by the owed set, the trailer
    /// set, the ledger row completed.
    pub fn finish_run(&self, run: RunHandle, finish: &FinishRun) -> Result<(), StoreError> {
        self.writable("finishing a run")?;
        let op = "finishing a run";
        let rows: Vec<BoundRow> =
            finish.failures.iter().map(|f| rows::failure_row(&self.path, f, Some(run.id))).collect::<Result<_, _>>()?;
        let eof = &finish.eof;
        let tx = self.conn.unchecked_transaction().map_err(self.sql(op))?;
        tx.execute_batch("DELETE FROM failure").map_err(self.sql(op))?;
        {
            let mut put =
                tx.prepare_cached(&rows::upsert_sql("failure", rows::FAILURE_COLUMNS)).map_err(self.sql(op))?;
            for row in &rows {
                put.execute(rusqlite::params_from_iter(row.params())).map_err(self.sql(op))?;
            }
        }
        Self::set_meta(&tx, "eof", &encode_trailer(eof)).map_err(self.sql(op))?;
        tx.execute(
            "UPDATE run SET finished_at = ?2, llm = ?3, template = ?4, reused = ?5, failed = ?6, calls = ?7, \
             prompt_tokens = ?8, completion_tokens = ?9, cost = ?10, aborted = ?11, output_modes = ?12 WHERE id = ?1",
            params![
                run.id,
                eof.generated_at,
                eof.counts.llm as i64,
                eof.counts.template as i64,
                eof.counts.reused as i64,
                eof.counts.failed as i64,
                finish.calls.map(|c| c as i64),
                eof.usage.prompt_tokens as i64,
                eof.usage.completion_tokens as i64,
                eof.usage.cost,
                finish.aborted,
                modes_text(&finish.output_modes),
            ],
        )
        .map_err(self.sql(op))?;
        tx.commit().map_err(self.sql(op))
    }

    /// Closes a run whose process is gone: `finished_at = started_at`,
    /// `aborted` = the reason (e.g. `interrupted`); only if still open.
    /// Returns whether a run was closed.
    pub fn close_run(&self, id: i64, aborted: &str) -> Result<bool, StoreError> {
        self.writable("closing a run")?;
        self.conn
            .execute(
                "UPDATE run SET finished_at = started_at, aborted = ?2 WHERE id = ?1 AND finished_at IS NULL",
                params![id, aborted],
            )
            .map(|n| n > 0)
            .map_err(self.sql("closing a run"))
    }

    /// Streams the side-car: header, records in side-car order ([`GET_CHUNK`]
    /// block rows at a time), failures, the trailer if present (none while a
    /// run is open or after a kill: the export then decodes as truncated).
    /// Refused for an empty store. Returns the writer.
    pub fn export_to<W: Write>(&self, w: W) -> Result<W, StoreError> {
        let io = |source| StoreError::Io { path: self.path.clone(), op: "writing the export", source };
        let header = self.header()?.ok_or_else(|| StoreError::NothingToExport { path: self.path.clone() })?;
        let ids = self.sorted_ids()?;
        let mut writer = SidecarWriter::new(w, &header).map_err(io)?;
        let mut part = Vec::with_capacity(GET_CHUNK);
        let mut chunk_ids = Vec::with_capacity(GET_CHUNK);
        for chunk in ids.chunks(GET_CHUNK) {
            chunk_ids.clear();
            chunk_ids.extend(chunk.iter().map(|(_, id)| id.as_str()));
            part.clear();
            self.fetch(&chunk_ids, &mut part)?;
            part.sort_by(record_order);
            for r in &part {
                writer.record(r).map_err(io)?;
            }
        }
        for f in self.failures()? {
            writer.failure(&f).map_err(io)?;
        }
        let eof = self.eof()?;
        writer.finish(eof.as_ref()).map_err(io)
    }

    /// The export as text (tests and small stores).
    pub fn export_string(&self) -> Result<String, StoreError> {
        let bytes = self.export_to(Vec::new())?;
        Ok(String::from_utf8(bytes).expect("the encoder writes UTF-8"))
    }

    /// Closes the database; natively a writer checkpoints first, leaving one
    /// file. In a browser the file may then be exported or deleted.
    pub fn close(self) -> Result<(), StoreError> {
        if self.mode == Mode::Writer {
            #[cfg(not(target_arch = "wasm32"))]
            self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").map_err(self.sql("checkpointing"))?;
        }
        let path = self.path.clone();
        self.conn.close().map_err(|(_, source)| StoreError::Sqlite { path, op: "closing", source })
    }
}

/// `?, ?, …` (n times).
pub(crate) fn placeholders(n: usize) -> String {
    let mut s = String::with_capacity(n * 2);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push('?');
    }
    s
}

/// A JSON text projected with `->`, read as a string if it is one.
pub(crate) fn json_string(text: Option<&str>) -> Option<String> {
    match serde_json::from_str::<Value>(text?) {
        Ok(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// The concept label (docs/formats/blocks.md §8) from the projected parts of a block.
pub(crate) fn concept_label(
    level: i64,
    owner: Option<String>,
    concept: Option<String>,
    context: Option<String>,
) -> Option<String> {
    insights::records::concept_label_of(
        rows::level_of(level)?,
        owner.as_deref(),
        concept.as_deref(),
        context.as_deref(),
    )
}

/// The columns [`Store::summary`] projects of a block.
const SUMMARY_PARTS: &str = "level, block -> '$.description', block -> '$.owner', block -> '$.concept', \
     block -> '$.boundedContextHint.name'";

type SummaryParts = (i64, [Option<String>; 4]);

fn summary_parts(r: &rusqlite::Row<'_>) -> rusqlite::Result<SummaryParts> {
    summary_parts_at(r, 0)
}

fn summary_parts_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<SummaryParts> {
    Ok((r.get(at)?, [r.get(at + 1)?, r.get(at + 2)?, r.get(at + 3)?, r.get(at + 4)?]))
}

fn summary_of((level, [description, owner, concept, context]): SummaryParts) -> RecordSummary {
    RecordSummary {
        description: json_string(description.as_deref()).unwrap_or_default(),
        concept: concept_label(
            level,
            json_string(owner.as_deref()),
            json_string(concept.as_deref()),
            json_string(context.as_deref()),
        ),
    }
}

/// `{"<model>":"<mode>",…}`, or `None` for no mode.
fn modes_text(modes: &[(String, String)]) -> Option<String> {
    if modes.is_empty() {
        return None;
    }
    let map: serde_json::Map<String, serde_json::Value> =
        modes.iter().map(|(m, o)| (m.clone(), serde_json::Value::String(o.clone()))).collect();
    Some(serde_json::Value::Object(map).to_string())
}
