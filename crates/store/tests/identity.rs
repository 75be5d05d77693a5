//! Opening: identity pragmas, migration from nothing, refusals that leave
//! the file untouched, readers (docs/formats/store.md §2–§4, §8).
#![cfg(not(target_arch = "wasm32"))] // temp dirs, processes and proptest: native only (see wasm.rs)

mod common;

use common::*;
use insights::vocab::{Level, INSIGHTS_APPLICATION_ID, INSIGHTS_DB_VERSION};
use store::rusqlite::Connection;
use store::{ExportStamp, Store, StoreError};

fn pragma(path: &std::path::Path, name: &str) -> i64 {
    let conn = Connection::open(path).unwrap();
    conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
}

#[test]
fn a_new_store_is_stamped_reopened_and_leaves_one_file() {
    let dir = TempDir::new("new");
    let path = dir.path("m.insights.db");
    let s = Store::open_writer(&path).unwrap();
    assert!(s.is_empty().unwrap());
    assert_eq!(s.header().unwrap(), None);
    let journal: String = s.connection().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(journal, "wal");
    let sync: i64 = s.connection().query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap();
    assert_eq!(sync, 1, "NORMAL");
    let run = s.begin_run(&store::BeginRun { header: header(), started_at: "t0".into(), pid: Some(7) }).unwrap();
    s.put_unit(run, "a", &[rec("a", Level::Operation)]).unwrap();
    let stamp = ExportStamp { path: "/x/m.insights.jsonl".into(), size: 12, mtime_ms: 34.5 };
    s.mark_exported(&stamp).unwrap();
    s.close().unwrap();
    assert_eq!(dir.files(), ["m.insights.db"], "a clean close checkpoints: no -wal / -shm left");
    assert_eq!(pragma(&path, "application_id"), INSIGHTS_APPLICATION_ID as i64);
    assert_eq!(pragma(&path, "application_id"), 1_128_745_265);
    assert_eq!(pragma(&path, "user_version"), INSIGHTS_DB_VERSION as i64);

    let s = Store::open_writer(&path).unwrap();
    assert!(!s.is_empty().unwrap());
    assert_eq!(s.header().unwrap(), Some(header()));
    assert_eq!(s.records().unwrap(), vec![rec("a", Level::Operation)]);
    assert_eq!(s.exported().unwrap(), Some(stamp));
    s.close().unwrap();
}

#[test]
fn a_zero_byte_file_is_refused_by_writers_and_readers_untouched() {
    let dir = TempDir::new("empty");
    let path = dir.path("m.insights.db");
    std::fs::write(&path, b"").unwrap();
    for err in [Store::open_writer(&path).err().unwrap(), Store::open_reader(&path).err().unwrap()] {
        assert!(matches!(err, StoreError::ZeroBytes { .. }), "{err:?}");
        assert!(err.to_string().contains("not an insights store") && err.to_string().contains("0 bytes"), "{err}");
    }
    assert_eq!(bytes(&path), b"");
    assert_eq!(dir.files(), ["m.insights.db"], "nothing written beside it");
}

#[test]
fn a_new_store_has_the_schema_of_every_rung() {
    let dir = TempDir::new("schema");
    let path = dir.path("m.insights.db");
    let s = Store::open_writer(&path).unwrap();
    let tables: Vec<String> = s
        .connection()
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        tables,
        [
            "failure",
            "insight",
            "insight_text",
            "insight_text_config",
            "insight_text_data",
            "insight_text_docsize",
            "insight_text_idx",
            "meta",
            "run"
        ]
    );
    let indexes: Vec<String> = s
        .connection()
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(indexes, ["insight_concept", "insight_run"]);
    s.close().unwrap();
    assert_eq!(pragma(&path, "user_version"), INSIGHTS_DB_VERSION as i64);
    assert_eq!(pragma(&path, "application_id"), INSIGHTS_APPLICATION_ID as i64);
}

#[test]
fn a_newer_store_is_refused_and_its_bytes_are_unchanged() {
    let dir = TempDir::new("newer");
    let path = dir.path("m.insights.db");
    let s = Store::open_writer(&path).unwrap();
    s.begin_run(&store::BeginRun { header: header(), started_at: "t0".into(), pid: None }).unwrap();
    s.close().unwrap();
    let newer = INSIGHTS_DB_VERSION + 1;
    Connection::open(&path).unwrap().execute_batch(&format!("PRAGMA user_version = {newer}")).unwrap();
    let before = bytes(&path);
    for err in [Store::open_writer(&path).err().unwrap(), Store::open_reader(&path).err().unwrap()] {
        assert!(
            matches!(err, StoreError::Newer { version, current: INSIGHTS_DB_VERSION, .. } if version == newer),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(text.contains("newer") && text.contains("m.insights.db"), "{text}");
    }
    assert_eq!(bytes(&path), before);
    assert_eq!(dir.files(), ["m.insights.db"]);
}

#[test]
fn a_foreign_sqlite_file_is_refused_untouched() {
    let dir = TempDir::new("foreign");
    let path = dir.path("other.db");
    Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
    assert_eq!(pragma(&path, "application_id"), 0);
    let before = bytes(&path);
    for err in [Store::open_writer(&path).err().unwrap(), Store::open_reader(&path).err().unwrap()] {
        assert!(matches!(err, StoreError::Foreign { application_id: 0, .. }), "{err:?}");
        assert!(err.to_string().contains("not an insights store"), "{err}");
    }
    assert_eq!(bytes(&path), before);
    assert_eq!(dir.files(), ["other.db"]);
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_untouched() {
    let dir = TempDir::new("text");
    let path = dir.path("notes.db");
    let text = b"this is not a database, just some text that is long enough to have a header......".repeat(20);
    std::fs::write(&path, &text).unwrap();
    for err in [Store::open_writer(&path).err().unwrap(), Store::open_reader(&path).err().unwrap()] {
        assert!(matches!(err, StoreError::NotSqlite { .. }), "{err:?}");
        assert!(err.to_string().contains("notes.db"), "{err}");
    }
    assert_eq!(bytes(&path), text);
    assert_eq!(dir.files(), ["notes.db"]);
}

#[test]
fn readers_refuse_empty_missing_and_unversioned_stores() {
    let dir = TempDir::new("readers");
    // A database without tables (not a zero-byte file, which is refused as such).
    let empty = dir.path("empty.db");
    Connection::open(&empty).unwrap().execute_batch("PRAGMA user_version = 0; VACUUM;").unwrap();
    let before = bytes(&empty);
    let err = Store::open_reader(&empty).err().unwrap();
    assert!(matches!(err, StoreError::Empty { .. }), "{err:?}");
    assert!(err.to_string().contains("not an insights store"), "{err}");
    assert_eq!(bytes(&empty), before);

    let missing = dir.path("missing.db");
    assert!(matches!(Store::open_reader(&missing), Err(StoreError::Open { .. })));
    assert!(!missing.exists(), "a reader never creates the file");

    let older = dir.path("older.db");
    Store::open_writer(&older).unwrap().close().unwrap();
    Connection::open(&older).unwrap().execute_batch("PRAGMA user_version = 0").unwrap();
    let err = Store::open_reader(&older).err().unwrap();
    assert!(matches!(err, StoreError::Older { version: 0, current: INSIGHTS_DB_VERSION, .. }), "{err:?}");
}

#[test]
fn a_reader_reads_refuses_writes_and_leaves_the_file_as_it_was() {
    let dir = TempDir::new("reader");
    let path = dir.path("m.insights.db");
    let w = Store::open_writer(&path).unwrap();
    let run = w.begin_run(&store::BeginRun { header: header(), started_at: "t0".into(), pid: None }).unwrap();
    w.put_unit(run, "a", &[rec("a", Level::Operation)]).unwrap();
    w.close().unwrap();
    let before = bytes(&path);

    let r = Store::open_reader(&path).unwrap();
    assert!(r.is_read_only());
    assert_eq!(r.records().unwrap().len(), 1);
    assert_eq!(r.stats().unwrap().records, 1);
    let err = r.put_unit(run, "b", &[rec("b", Level::Operation)]).unwrap_err();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    assert!(r.import(&insights::sidecar::synth::synthetic(3, 1)).is_err());
    let raw = r.connection().execute("DELETE FROM insight", []).unwrap_err();
    assert!(raw.to_string().contains("readonly"), "{raw}");
    r.close().unwrap();
    assert_eq!(bytes(&path), before);
    assert_eq!(dir.files(), ["m.insights.db"], "no -wal / -shm stranded");
}

#[test]
fn a_reader_is_not_blocked_by_an_open_writer() {
    let dir = TempDir::new("concurrent");
    let path = dir.path("m.insights.db");
    let w = Store::open_writer(&path).unwrap();
    let run = w.begin_run(&store::BeginRun { header: header(), started_at: "t0".into(), pid: None }).unwrap();
    w.put_unit(run, "a", &[rec("a", Level::Operation)]).unwrap();
    let r = Store::open_reader(&path).unwrap();
    assert_eq!(r.count().unwrap(), 1);
    w.put_unit(run, "b", &[rec("b", Level::Operation)]).unwrap();
    assert_eq!(r.count().unwrap(), 2);
    r.close().unwrap();
    w.close().unwrap();
}

#[test]
fn store_images_are_checked_from_their_header() {
    let dir = TempDir::new("image");
    let path = dir.path("image.db");
    Store::open_writer(&path).unwrap().close().unwrap();
    let mut image = bytes(&path);
    assert_eq!(store::check_store_image(&image), Ok(()));
    image[60..64].copy_from_slice(&0u32.to_be_bytes());
    assert_eq!(store::check_store_image(&image), Ok(()), "an older store is migrated later");
    image[60..64].copy_from_slice(&(INSIGHTS_DB_VERSION + 1).to_be_bytes());
    assert!(store::check_store_image(&image).unwrap_err().contains("newer"));
    image[68..72].copy_from_slice(&0u32.to_be_bytes());
    assert!(store::check_store_image(&image).unwrap_err().contains("application_id 0x00000000"));
    assert!(store::check_store_image(b"not a database").unwrap_err().contains("not an SQLite database"));
    assert!(store::check_store_image(&[0; 4096]).unwrap_err().contains("not an SQLite database"));
}
