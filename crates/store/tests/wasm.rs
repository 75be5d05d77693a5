//! The store on OPFS in a dedicated worker of headless Chromium
//! (`cargo xtask test --only wasm`): created, committed per unit through
//! `StoreBook`, reopened and read back, migrated, refusing foreign files and
//! bytes, listed, exported, imported and deleted, searched as text; and its figures
//! (`bench_store_on_opfs`, printed with `--nocapture`).
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use insights::records::RecordSource;
use insights::run::RecordBook;
use insights::sidecar::decode;
use insights::vocab::{Level, INSIGHTS_APPLICATION_ID, INSIGHTS_DB_VERSION};
use serde_json::json;
use store::opfs::{self, OpfsPool, StoredStore};
use store::rusqlite::Connection;
use store::{BeginRun, FinishRun, Store, StoreBook, StoreError};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

thread_local! {
    /// How long the first install in this worker took (ms).
    static FIRST_INSTALL: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
}

/// The pool (timing the first install in this worker).
async fn installed() -> OpfsPool {
    let t0 = now_ms();
    let pool = opfs::install().await.unwrap();
    let ms = now_ms() - t0;
    FIRST_INSTALL.with(|first| first.set(Some(first.get().unwrap_or(ms))));
    pool
}

/// The pool, with `names` deleted (a rerun in the same profile starts clean).
async fn pool_without(names: &[&str]) -> OpfsPool {
    let pool = installed().await;
    for name in names {
        pool.delete(name).unwrap();
    }
    pool
}

fn begin(s: &Store) -> store::RunHandle {
    s.begin_run(&BeginRun { header: header(), started_at: "2025-06-01T11:00:00.000Z".into(), pid: None }).unwrap()
}

fn pragma<T: store::rusqlite::types::FromSql>(s: &Store, name: &str) -> T {
    s.connection().query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
}

fn ids(s: &Store) -> Vec<String> {
    s.records().unwrap().into_iter().map(|r| r.id).collect()
}

/// A raw SQLite file in the pool, written by `sql` (not through `Store`).
fn raw(name: &str, sql: &str) {
    let conn = Connection::open(name).unwrap();
    conn.execute_batch(sql).unwrap();
    conn.close().unwrap();
}

#[wasm_bindgen_test]
async fn a_store_commits_units_through_the_book_and_reads_them_back_after_reopening() {
    let name = store::store_name_for("fixtures/java/src", "model.jsonl");
    let pool = pool_without(&[&name]).await;
    let s = pool.open_writer(&name).await.unwrap();
    assert!(s.is_empty().unwrap());
    assert_eq!(pragma::<String>(&s, "journal_mode"), "truncate", "no WAL in the wasm build");
    assert_eq!(pragma::<i64>(&s, "synchronous"), 2, "FULL: every commit flushed");
    assert_eq!(pragma::<i64>(&s, "application_id"), INSIGHTS_APPLICATION_ID as i64);
    assert_eq!(pragma::<i64>(&s, "user_version"), INSIGHTS_DB_VERSION as i64);

    let run = begin(&s);
    let mut book = StoreBook::new(&s).unwrap();
    book.begin(run);
    RecordBook::put(&mut book, "f", &[rec("f", Level::Operation)]).unwrap();
    RecordBook::put(&mut book, "c", &[rec("c1", Level::Operation), rec("c2", Level::Operation)]).unwrap();
    RecordBook::fail(&mut book, &failure("g", Level::Operation, &["g"], 1)).unwrap();
    assert_eq!(book.size(), 3);
    assert_eq!(book.fingerprint("c2"), Some(rec("c2", Level::Operation).fingerprint));
    drop(book);
    // The worker stops writing without finishing (a closed tab): no close.
    drop(s);

    let s = Store::open_writer(&name).unwrap();
    assert_eq!(ids(&s), ["c1", "c2", "f"]);
    assert_eq!(s.records().unwrap()[2], rec("f", Level::Operation));
    assert_eq!(s.failures().unwrap(), [failure("g", Level::Operation, &["g"], 1)]);
    assert_eq!(s.eof().unwrap(), None);
    let exported = decode("x", &s.export_string().unwrap()).unwrap();
    assert!(exported.truncated && exported.records.len() == 3);
    // No pids in a browser: the Web Lock holder closes every open run.
    let open = s.open_runs().unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!((open[0].pid, open[0].records), (None, 3));
    assert_eq!(s.close_open_runs("interrupted").unwrap(), open);
    assert!(s.open_runs().unwrap().is_empty());
    assert!(s.close_open_runs("interrupted").unwrap().is_empty());
    let runs = s.runs().unwrap();
    assert_eq!(runs[0].aborted.as_deref(), Some("interrupted"));
    assert_eq!(runs[0].finished_at.as_deref(), Some(runs[0].started_at.as_str()));

    let run = begin(&s);
    s.put_unit(run, "g", &[rec("g", Level::Operation)]).unwrap();
    let eof = trailer(4, 0);
    s.finish_run(
        run,
        &FinishRun { eof: eof.clone(), failures: vec![], calls: Some(1), aborted: None, output_modes: vec![] },
    )
    .unwrap();
    s.close().unwrap();

    let r = Store::open_reader(&name).unwrap();
    assert_eq!(ids(&r), ["c1", "c2", "f", "g"]);
    assert!(r.failures().unwrap().is_empty());
    assert_eq!(r.eof().unwrap(), Some(eof));
    assert_eq!(r.runs().unwrap().len(), 2);
    assert!(matches!(r.put_unit(run, "h", &[]), Err(StoreError::ReadOnly { .. })));
    r.close().unwrap();
    assert!(pool.delete(&name).unwrap());
}

#[wasm_bindgen_test]
async fn one_connection_per_store_in_a_worker() {
    let name = "/in-use.insights.db";
    let pool = pool_without(&[name]).await;
    let w = pool.open_writer(name).await.unwrap();
    for err in [Store::open_reader(name).err().unwrap(), Store::open_writer(name).err().unwrap()] {
        assert!(matches!(err, StoreError::InUse { .. }), "{err:?}");
        assert!(err.to_string().contains("open in this worker"), "{err}");
    }
    assert!(matches!(pool.export(name), Err(StoreError::InUse { .. })));
    assert!(matches!(pool.delete(name), Err(StoreError::InUse { .. })));
    let listed = pool.list().unwrap();
    assert!(listed.contains(&StoredStore { name: name.into(), size: None }), "{listed:?}");
    w.close().unwrap();
    let r = Store::open_reader(name).unwrap();
    drop(r);
    assert!(pool.export(name).unwrap().starts_with(b"SQLite format 3\0"));
    assert!(pool.delete(name).unwrap());
}

#[wasm_bindgen_test]
async fn the_migration_ladder_runs_on_opfs() {
    let (old, older, newer) = ("/v0.insights.db", "/older.insights.db", "/newer.insights.db");
    let pool = pool_without(&[old, older, newer]).await;
    // A store at user_version 0 with our application_id and no tables yet.
    raw(old, &format!("PRAGMA application_id = {INSIGHTS_APPLICATION_ID};"));
    let err = Store::open_reader(old).err().unwrap();
    assert!(matches!(err, StoreError::Empty { .. }), "{err:?}");
    let s = Store::open_writer(old).unwrap();
    assert_eq!(pragma::<i64>(&s, "user_version"), INSIGHTS_DB_VERSION as i64);
    let tables: i64 = s
        .connection()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'run', 'insight', 'failure')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 4);
    s.close().unwrap();
    Store::open_reader(old).unwrap().close().unwrap();

    // A reader never migrates: an older store is refused.
    pool.open_writer(older).await.unwrap().close().unwrap();
    raw(older, "PRAGMA user_version = 0");
    let err = Store::open_reader(older).err().unwrap();
    assert!(matches!(err, StoreError::Older { version: 0, current: INSIGHTS_DB_VERSION, .. }), "{err:?}");

    // A newer store is refused by both, its bytes unchanged.
    let s = pool.open_writer(newer).await.unwrap();
    begin(&s);
    s.close().unwrap();
    let version = INSIGHTS_DB_VERSION + 1;
    raw(newer, &format!("PRAGMA user_version = {version}"));
    let before = pool.export(newer).unwrap();
    for err in [Store::open_writer(newer).err().unwrap(), Store::open_reader(newer).err().unwrap()] {
        assert!(
            matches!(err, StoreError::Newer { version: v, current: INSIGHTS_DB_VERSION, .. } if v == version),
            "{err:?}"
        );
    }
    assert_eq!(pool.export(newer).unwrap(), before);
    for name in [old, older, newer] {
        pool.delete(name).unwrap();
    }
}

#[wasm_bindgen_test]
async fn foreign_files_and_bytes_are_refused_untouched() {
    let (foreign, kept, fresh) = ("/foreign.insights.db", "/kept.insights.db", "/fresh.insights.db");
    let pool = pool_without(&[foreign, kept, fresh]).await;
    raw(foreign, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
    let before = pool.export(foreign).unwrap();
    for err in [Store::open_writer(foreign).err().unwrap(), Store::open_reader(foreign).err().unwrap()] {
        assert!(matches!(err, StoreError::Foreign { application_id: 0, .. }), "{err:?}");
        assert!(err.to_string().contains("not an insights store"), "{err}");
    }
    assert_eq!(pool.export(foreign).unwrap(), before);

    // Bytes offered as a store: another application's database, text, a
    // newer store; under a fresh name or the name of a store that exists.
    let s = pool.open_writer(kept).await.unwrap();
    let run = begin(&s);
    s.put_unit(run, "a", &[rec("a", Level::Operation)]).unwrap();
    s.close().unwrap();
    let kept_bytes = pool.export(kept).unwrap();
    let mut newer = kept_bytes.clone();
    newer[60..64].copy_from_slice(&(INSIGHTS_DB_VERSION + 1).to_be_bytes());
    let text = b"this is not a database, just text".repeat(64);
    for (bytes, says) in [
        (&before[..], "belongs to something else"),
        (&text[..], "not an SQLite database"),
        (&newer[..], "newer version"),
    ] {
        for name in [fresh, kept] {
            let err = pool.import(name, bytes).await.unwrap_err();
            assert!(matches!(err, StoreError::ImportRefused { .. }), "{err:?}");
            let msg = err.to_string();
            assert!(msg.contains(says) && msg.contains("nothing was written") && msg.contains(name), "{msg}");
        }
    }
    let err = pool.import(kept, &kept_bytes).await.unwrap_err();
    assert!(err.to_string().contains("a store of this name exists"), "{err}");
    let err = pool.import("kept.db", &kept_bytes).await.unwrap_err();
    assert!(err.to_string().contains("not a store name"), "{err}");
    assert!(!pool.contains(fresh).unwrap());
    assert_eq!(pool.export(kept).unwrap(), kept_bytes);
    let s = Store::open_reader(kept).unwrap();
    assert_eq!(ids(&s), ["a"]);
    s.close().unwrap();
    for name in [foreign, kept] {
        pool.delete(name).unwrap();
    }
}

#[wasm_bindgen_test]
async fn stores_are_listed_exported_imported_and_deleted() {
    let (a, b, copy) = ("/a-list.insights.db", "/b-list.insights.db", "/copy.insights.db");
    let pool = pool_without(&[a, b, copy]).await;
    for (name, n) in [(a, 1), (b, 40)] {
        let s = pool.open_writer(name).await.unwrap();
        let run = begin(&s);
        for i in 0..n {
            let id = format!("{name}/u{i}");
            s.put_unit(run, &id, &[rec(&id, Level::Operation)]).unwrap();
        }
        s.close().unwrap();
    }
    let listed: Vec<StoredStore> = pool.list().unwrap().into_iter().filter(|s| [a, b].contains(&&*s.name)).collect();
    assert_eq!(listed.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), [a, b], "sorted, no journals");
    let (size_a, size_b) = (listed[0].size.unwrap(), listed[1].size.unwrap());
    assert!(size_a > 0 && size_a % 512 == 0 && size_b > size_a, "{listed:?}");
    assert!(pool.list().unwrap().iter().all(|s| !s.name.ends_with("-journal")));

    // Export: an ordinary SQLite file, in rollback-journal mode, of the listed size.
    let bytes = pool.export(b).unwrap();
    assert_eq!(bytes.len() as u64, size_b);
    assert_eq!(&bytes[18..20], [1, 1]);
    store::check_store_image(&bytes).unwrap();

    // Import: bytes a native (WAL) store would have are opened in rollback mode.
    let mut native = bytes.clone();
    native[18] = 2;
    native[19] = 2;
    pool.import(copy, &native).await.unwrap();
    assert_eq!(pool.list().unwrap().iter().find(|s| s.name == copy).and_then(|s| s.size), Some(size_b));
    let s = Store::open_writer(copy).unwrap();
    assert_eq!(pragma::<String>(&s, "journal_mode"), "truncate");
    assert_eq!(s.count().unwrap(), 40);
    let run = begin(&s);
    s.put_unit(run, "more", &[rec("more", Level::Type)]).unwrap();
    s.close().unwrap();
    assert_eq!(Store::open_reader(copy).unwrap().count().unwrap(), 41);

    // Delete: the store and its journal; the name is free again.
    assert!(pool.delete(b).unwrap());
    assert!(!pool.delete(b).unwrap());
    assert!(!pool.contains(b).unwrap());
    assert!(!pool.contains(&format!("{b}-journal")).unwrap());
    let err = pool.export(b).unwrap_err();
    assert!(matches!(err, StoreError::Opfs { .. }) && err.to_string().contains("no store of this name"), "{err}");
    pool.import(b, &bytes).await.unwrap();
    assert_eq!(Store::open_reader(b).unwrap().count().unwrap(), 40);
    for name in [a, b, copy] {
        assert!(pool.delete(name).unwrap());
    }
    // Installing again is the same pool.
    let again = installed().await;
    assert!(!again.contains(a).unwrap());
}

#[wasm_bindgen_test]
async fn explanations_are_searched_as_text_on_opfs() {
    let name = "/search.insights.db";
    let pool = pool_without(&[name]).await;
    let s = pool.open_writer(name).await.unwrap();
    let fts5: i64 = s
        .connection()
        .query_row("SELECT count(*) FROM pragma_compile_options WHERE compile_options = 'ENABLE_FTS5'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(fts5, 1, "sqlite-wasm-rs is built with FTS5");
    s.import(&sidecar_of(shop())).unwrap();
    let hits = s.search_text("where is pricing decided?", 10).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].id, "java:shop/PriceCalculator.quote(Cart)");
    assert_eq!(hits[0].concept.as_deref(), Some("owned by domainService"));
    assert!(hits[0].snippet.contains("«Decides»"), "{}", hits[0].snippet);
    for query in ["NEAR(price", "\"", "price*)", "AND OR NOT", ""] {
        s.search_text(query, 10).unwrap();
    }
    // A unit committed through the book is found at once; the transaction
    // that wrote it indexed it.
    let run = begin(&s);
    let mut book = StoreBook::new(&s).unwrap();
    book.begin(run);
    let till = plain("java:shop/Till.open()", Level::Operation, "open", "Opens the till for a shift.", json!({}));
    RecordBook::put(&mut book, "java:shop/Till.open()", &[till]).unwrap();
    drop(book);
    let found: Vec<String> = s.search_text("shift", 10).unwrap().into_iter().map(|h| h.id).collect();
    assert_eq!(found, ["java:shop/Till.open()"]);
    s.close().unwrap();

    let r = Store::open_reader(name).unwrap();
    let found: Vec<String> = r.search_text("checkout", 10).unwrap().into_iter().map(|h| h.id).collect();
    assert_eq!(found, ["java:shop"]);
    r.close().unwrap();
    assert!(pool.delete(name).unwrap());
}

/// Milliseconds since the worker started (`performance.now()`).
fn now_ms() -> f64 {
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).unwrap();
    let now = js_sys::Reflect::get(&performance, &"now".into()).unwrap();
    js_sys::Function::from(now).call0(&performance).unwrap().as_f64().unwrap()
}

/// Open + create, and commit throughput (one transaction per unit), with the
/// store's journal and two alternatives; `--nocapture` prints the figures.
#[wasm_bindgen_test]
async fn bench_store_on_opfs() {
    const UNITS: usize = 400;
    let pool = installed().await;
    let first = FIRST_INSTALL.with(|first| first.get()).unwrap_or_default();
    console_log!("store on OPFS: first install of the pool in this worker {first:.1} ms");
    for (label, journal) in [
        ("TRUNCATE + FULL (the store's)", None),
        ("DELETE + FULL", Some("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL;")),
        ("TRUNCATE + NORMAL", Some("PRAGMA journal_mode = TRUNCATE; PRAGMA synchronous = NORMAL;")),
    ] {
        for per_unit in [1, 5] {
            let name = format!("/bench-{per_unit}.insights.db");
            pool.delete(&name).unwrap();
            pool.make_room().await.unwrap();
            let t0 = now_ms();
            let s = Store::open_writer(&name).unwrap();
            let opened = now_ms() - t0;
            if let Some(sql) = journal {
                s.connection().execute_batch(sql).unwrap();
            }
            let run = begin(&s);
            let units: Vec<Vec<_>> = (0..UNITS)
                .map(|u| (0..per_unit).map(|i| rec(&format!("p/u{u}.m{i}()"), Level::Operation)).collect())
                .collect();
            let t1 = now_ms();
            for (u, records) in units.iter().enumerate() {
                s.put_unit(run, &format!("u{u}"), records).unwrap();
            }
            let ms = now_ms() - t1;
            let size: i64 = s
                .connection()
                .query_row("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size", [], |r| r.get(0))
                .unwrap();
            s.close().unwrap();
            console_log!(
                "store on OPFS: {label}: open+create {opened:.1} ms; {UNITS} units x {per_unit} record(s): {ms:.0} ms, \
                 {:.2} ms/unit, {:.0} units/s, {:.0} records/s; {:.1} MB",
                ms / UNITS as f64,
                UNITS as f64 * 1000.0 / ms,
                (UNITS * per_unit) as f64 * 1000.0 / ms,
                size as f64 / 1e6
            );
            assert_eq!(Store::open_reader(&name).unwrap().count().unwrap(), (UNITS * per_unit) as u64);
            pool.delete(&name).unwrap();
        }
    }
    // Bulk: a side-car adopted in one transaction, and exported back.
    let name = "/bench-import.insights.db";
    pool.delete(name).unwrap();
    let sidecar = insights::sidecar::synth::synthetic(5000, 7);
    let s = pool.open_writer(name).await.unwrap();
    let t0 = now_ms();
    s.import(&sidecar).unwrap();
    let imported = now_ms() - t0;
    let t1 = now_ms();
    let text = s.export_string().unwrap();
    let exported = now_ms() - t1;
    s.close().unwrap();
    let t2 = now_ms();
    let bytes = pool.export(name).unwrap();
    let downloaded = now_ms() - t2;
    // Read back cold (a new connection has no page in its cache): every
    // record in one table scan, and every summary one query at a time.
    let s = Store::open_reader(name).unwrap();
    let t3 = now_ms();
    let all = s.scan_records().unwrap();
    let scanned = now_ms() - t3;
    s.close().unwrap();
    let s = Store::open_reader(name).unwrap();
    let t4 = now_ms();
    for r in &all {
        s.summary(&r.id).unwrap().unwrap();
    }
    let looked_up = now_ms() - t4;
    s.close().unwrap();
    let s = Store::open_reader(name).unwrap();
    let t5 = now_ms();
    assert_eq!(s.summaries().unwrap().len(), all.len());
    let summaries = now_ms() - t5;
    console_log!(
        "store on OPFS ({} B pages): {} records read cold in one scan {scanned:.0} ms; their summaries one query \
         each {looked_up:.0} ms, in one scan {summaries:.0} ms",
        pragma::<i64>(&s, "page_size"),
        all.len()
    );
    s.close().unwrap();
    console_log!(
        "store on OPFS: side-car of {} records ({:.1} MB): import {imported:.0} ms (one transaction), export \
         {exported:.0} ms; the store's bytes ({:.1} MB) read for download in {downloaded:.0} ms",
        sidecar.records.len(),
        text.len() as f64 / 1e6,
        bytes.len() as f64 / 1e6
    );
    assert_eq!(text, insights::sidecar::encode(&sidecar));
    pool.delete(name).unwrap();
}
