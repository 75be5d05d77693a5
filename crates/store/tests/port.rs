//! Port operations (docs/formats/store.md §7): runs, units, failures, import /
//! export identity, order, text hazards.
#![cfg(not(target_arch = "wasm32"))] // temp dirs, processes and proptest: native only (see wasm.rs)

mod common;

use common::*;
use insights::record::InsightRecord;
use insights::sidecar::{decode, encode, synth};
use insights::vocab::{DomainConcept, Level, OperationOwner};
use store::{BeginRun, FinishRun, Store, StoreError};

fn begin(s: &Store, pid: Option<u32>) -> store::RunHandle {
    s.begin_run(&BeginRun { header: header(), started_at: "2025-06-01T11:00:00.000Z".into(), pid }).unwrap()
}

fn ids(records: &[InsightRecord]) -> Vec<&str> {
    records.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn import_then_export_is_byte_identical() {
    let dir = TempDir::new("identity");
    for (n, seed) in [(0, 1), (1, 2), (37, 3), (1234, 4)] {
        let s = Store::open_writer(dir.path(&format!("s{seed}.db"))).unwrap();
        let sidecar = synth::synthetic(n, seed);
        let text = encode(&sidecar);
        let decoded = decode("synthetic", &text).unwrap();
        s.import(&decoded).unwrap();
        assert_eq!(s.export_string().unwrap(), text, "n = {n}");
        assert!(s.max_rows_fetched() <= 500, "{}", s.max_rows_fetched());
        assert_eq!(s.records().unwrap(), decoded.records);
        assert_eq!(s.failures().unwrap(), decoded.failures);
        assert_eq!(s.eof().unwrap(), decoded.trailer);
        assert_eq!(s.fingerprints().unwrap().len(), n);
        s.close().unwrap();
    }
}

#[test]
fn export_streams_across_chunk_boundaries_into_a_writer() {
    let dir = TempDir::new("stream");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let sidecar = synth::synthetic(1001, 9);
    s.import(&sidecar).unwrap();
    let out = std::fs::File::create(dir.path("out.jsonl")).unwrap();
    s.export_to(std::io::BufWriter::new(out)).unwrap();
    assert_eq!(std::fs::read_to_string(dir.path("out.jsonl")).unwrap(), encode(&sidecar));
    assert_eq!(s.max_rows_fetched(), 500);
}

#[test]
fn a_file_without_trailer_exports_without_one_and_decodes_truncated() {
    let dir = TempDir::new("truncated");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let mut sidecar = synth::synthetic(20, 5);
    sidecar.trailer = None;
    let text = encode(&sidecar);
    s.import(&decode("x", &text).unwrap()).unwrap();
    let out = s.export_string().unwrap();
    assert_eq!(out, text);
    assert!(decode("x", &out).unwrap().truncated);
}

#[test]
fn order_is_utf16_not_utf8() {
    let dir = TempDir::new("utf16");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = begin(&s, None);
    // UTF-8 bytes put `～` (EF BD 9E) before `😀` (F0 9F 98 80); UTF-16 units the other way (D83D < FF5E).
    let records = vec![rec("a/～", Level::Operation), rec("a/😀", Level::Operation), rec("T", Level::Type)];
    s.put_unit(run, "u", &records).unwrap();
    assert_eq!(ids(&s.records().unwrap()), ["a/😀", "a/～", "T"]);
    assert_eq!(ids(&s.get(&["T", "a/～", "a/😀", "nope"]).unwrap()), ["a/😀", "a/～", "T"]);
    let by_sql: Vec<String> = s
        .connection()
        .prepare("SELECT id FROM insight WHERE level = 0 ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(by_sql, ["a/～", "a/😀"], "SQLite's own order differs, which is why order is decided in code");
    let text = s.export_string().unwrap();
    let exported = decode("x", &text).unwrap();
    assert_eq!(ids(&exported.records), ["a/😀", "a/～", "T"]);
    let fresh = Store::open_writer(dir.path("t.db")).unwrap();
    fresh.import(&exported).unwrap();
    assert_eq!(fresh.export_string().unwrap(), text);
}

#[test]
fn a_nul_in_a_column_string_refuses_the_whole_unit() {
    let dir = TempDir::new("nul");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = begin(&s, None);
    s.fail(run, &failure("u", Level::Type, &["u"], 1)).unwrap();
    let bad = rec("a\u{0}b", Level::Operation);
    let err = s.put_unit(run, "u", &[rec("ok", Level::Operation), bad]).unwrap_err();
    assert!(matches!(err, StoreError::Nul { what: "id", .. }), "{err:?}");
    assert!(err.to_string().contains("U+0000"), "{err}");
    assert_eq!(s.count().unwrap(), 0, "nothing of the unit was written");
    assert_eq!(s.failures().unwrap().len(), 1, "the unit's failure stays");

    for field in ["kind", "name", "file", "fingerprint", "model", "key"] {
        let mut r = rec("x", Level::Operation);
        match field {
            "kind" => r.kind = "k\u{0}".into(),
            "name" => r.name = Some("n\u{0}".into()),
            "file" => r.file = Some("f\u{0}".into()),
            "fingerprint" => r.fingerprint = format!("{}\u{0}", "0".repeat(63)),
            "model" => r.model = Some("m\u{0}".into()),
            _ => {
                r.key = Some(insights::record::NaturalKey {
                    lang: "java".into(),
                    module: "m".into(),
                    symbol: "s\u{0}".into(),
                    disambiguator: None,
                })
            }
        }
        let err = s.put_unit(run, "x", &[r]).unwrap_err();
        assert!(err.to_string().contains("U+0000"), "{field}: {err}");
    }
    let err = s.fail(run, &failure("f\u{0}", Level::Type, &["f"], 1)).unwrap_err();
    assert!(err.to_string().contains("U+0000"), "{err}");
    let mut sidecar = synth::synthetic(5, 1);
    sidecar.records[3].id.push('\u{0}');
    assert!(s.import(&sidecar).unwrap_err().to_string().contains("U+0000"));
    assert_eq!(s.count().unwrap(), 0);

    // NUL inside JSON-text fields (block, reason, metadata) survives as an escape.
    let mut r = op("y", OperationOwner::Entity, "has a \u{0} inside");
    r.metadata = Some([("note".to_string(), "n\u{0}".to_string())].into_iter().collect());
    s.put_unit(run, "y", std::slice::from_ref(&r)).unwrap();
    assert_eq!(s.get(&["y"]).unwrap(), vec![r]);
    assert_eq!(s.failures().unwrap()[0].reason.message, "no credits \u{0} left");
}

#[test]
fn an_invalid_record_stores_nothing_and_leaves_the_failure() {
    let dir = TempDir::new("invalid");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = begin(&s, None);
    s.fail(run, &failure("c", Level::Operation, &["c1", "c2"], 1)).unwrap();
    let mut short = rec("c2", Level::Operation);
    short.fingerprint = "short".into();
    let err = s.put_unit(run, "c", &[rec("c1", Level::Operation), short]).unwrap_err();
    assert!(matches!(err, StoreError::Invalid { .. }), "{err:?}");
    assert!(err.to_string().contains("fingerprint"), "{err}");
    let mut mismatched = rec("c1", Level::Type);
    mismatched.block = rec("c1", Level::Operation).block;
    assert!(s.put_unit(run, "c", &[mismatched]).is_err());
    assert_eq!(s.count().unwrap(), 0);
    assert_eq!(s.failures().unwrap().len(), 1);
}

#[test]
fn failure_lifecycle_and_run_transactions() {
    let dir = TempDir::new("lifecycle");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let mut sidecar = synth::synthetic(3, 2);
    sidecar.failures.clear();
    s.import(&sidecar).unwrap();
    assert!(s.eof().unwrap().is_some());

    let run = begin(&s, Some(std::process::id()));
    assert_eq!(s.eof().unwrap(), None, "eof withdrawn while a run is open");
    s.fail(run, &failure("h", Level::Operation, &["h"], 1)).unwrap();
    s.fail(run, &failure("g", Level::Operation, &["g"], 1)).unwrap();
    s.fail(run, &failure("h", Level::Operation, &["h"], 2)).unwrap();
    let f = s.failures().unwrap();
    assert_eq!(f.iter().map(|f| (f.id.as_str(), f.attempts)).collect::<Vec<_>>(), [("g", 1), ("h", 2)], "upserted");

    s.put_unit(run, "g", &[rec("g", Level::Operation)]).unwrap();
    assert_eq!(s.failures().unwrap().iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), ["h"]);
    assert_eq!(s.open_runs().unwrap()[0].records, 1);

    let owed = vec![failure("P", Level::Module, &["P"], 1), failure("h", Level::Operation, &["h"], 3)];
    let eof = trailer(4, 2);
    s.finish_run(
        run,
        &FinishRun { eof: eof.clone(), failures: owed.clone(), calls: Some(5), aborted: None, output_modes: vec![] },
    )
    .unwrap();
    let sorted = vec![owed[1].clone(), owed[0].clone()];
    assert_eq!(s.failures().unwrap(), sorted, "the owed set replaces the table, sorted (operation before module)");
    assert_eq!(s.eof().unwrap(), Some(eof));
    assert!(s.open_runs().unwrap().is_empty());
    let runs = s.runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].finished_at.as_deref(), Some("2025-06-01T12:00:00.000Z"));
    assert_eq!(runs[0].counts.unwrap().calls, Some(5));
}

#[test]
fn a_killed_run_shows_as_open_with_its_records_and_is_closed_as_interrupted() {
    let dir = TempDir::new("killed");
    let path = dir.path("s.db");
    {
        let s = Store::open_writer(&path).unwrap();
        let run = begin(&s, Some(4_000_000));
        s.put_unit(run, "u", &[rec("u1", Level::Operation), rec("u2", Level::Operation)]).unwrap();
        s.fail(run, &failure("v", Level::Operation, &["v"], 1)).unwrap();
        // A kill: no finish, no close. (The process's end releases the writer
        // lock; a real SIGKILL is the CLI's test `killed_mid_run_…`.)
        drop(s);
    }
    let s = Store::open_writer(&path).unwrap();
    let open = s.open_runs().unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].records, 2);
    assert_eq!(open[0].pid, Some(4_000_000));
    assert_eq!(s.failures().unwrap().len(), 1);
    assert_eq!(s.eof().unwrap(), None);
    let exported = decode("x", &s.export_string().unwrap()).unwrap();
    assert!(exported.truncated && exported.trailer.is_none());
    assert_eq!(exported.records.len(), 2);

    // pid 4,000,000 is above any pid_max: gone, so handed back to be closed.
    let dead = s.check_writers(std::process::id()).unwrap();
    assert_eq!(dead, open);
    assert!(s.close_run(dead[0].id, "interrupted").unwrap());
    assert!(!s.close_run(dead[0].id, "again").unwrap(), "only while still open");
    let runs = s.runs().unwrap();
    assert_eq!(runs[0].finished_at.as_deref(), Some(runs[0].started_at.as_str()));
    assert_eq!(runs[0].aborted.as_deref(), Some("interrupted"));
    assert_eq!(runs[0].counts, None);
    assert_eq!(runs[0].usage, None);
    assert!(s.open_runs().unwrap().is_empty());
}

#[test]
fn a_live_writer_of_another_process_refuses_a_second_one() {
    let dir = TempDir::new("busy");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    // pid 1 is alive (init), and never this test.
    let run = begin(&s, Some(1));
    let err = s.check_writers(std::process::id()).unwrap_err();
    assert!(matches!(err, StoreError::Busy { pid: 1, .. }), "{err:?}");
    assert!(err.to_string().contains("another run is writing"), "{err}");
    // Our own open run is not "another" writer.
    s.close_run(run.id, "interrupted").unwrap();
    begin(&s, Some(std::process::id()));
    assert_eq!(s.check_writers(std::process::id()).unwrap().len(), 1);
}

#[test]
fn the_ledger_survives_an_import_the_content_does_not() {
    let dir = TempDir::new("ledger");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = begin(&s, None);
    s.put_unit(run, "old", &[rec("old", Level::Operation)]).unwrap();
    s.finish_run(
        run,
        &FinishRun { eof: trailer(1, 0), failures: vec![], calls: Some(1), aborted: None, output_modes: vec![] },
    )
    .unwrap();
    s.mark_exported(&store::ExportStamp { path: "p".into(), size: 1, mtime_ms: 2.0 }).unwrap();
    let sidecar = synth::synthetic(4, 8);
    s.import(&sidecar).unwrap();
    assert_eq!(s.runs().unwrap().len(), 1);
    assert!(!s.contains("old").unwrap());
    assert_eq!(s.count().unwrap(), 4);
    assert_eq!(s.exported().unwrap(), None, "the stamp is dropped");
    assert_eq!(s.header().unwrap(), Some(sidecar.header.clone()));
    let run_ids: i64 =
        s.connection().query_row("SELECT count(*) FROM insight WHERE run_id IS NOT NULL", [], |r| r.get(0)).unwrap();
    assert_eq!(run_ids, 0, "imported rows belong to no run");
}

#[test]
fn empty_store_get_and_fingerprints() {
    let dir = TempDir::new("get");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    assert!(s.is_empty().unwrap());
    let err = s.export_string().unwrap_err();
    assert!(matches!(err, StoreError::NothingToExport { .. }), "{err:?}");
    let sidecar = synth::synthetic(2600, 3);
    s.import(&sidecar).unwrap();
    assert!(!s.is_empty().unwrap());
    let fps = s.fingerprints().unwrap();
    assert_eq!(fps.len(), 2600);
    assert!(sidecar.records.iter().all(|r| fps[&r.id] == r.fingerprint));
    assert!(s.get::<&str>(&[]).unwrap().is_empty());
    let mut wanted: Vec<String> = sidecar.records.iter().rev().take(2500).map(|r| r.id.clone()).collect();
    wanted.push("missing".into());
    wanted.push(wanted[0].clone());
    let got = s.get(&wanted).unwrap();
    assert_eq!(got.len(), 2500);
    assert_eq!(got[..], sidecar.records[100..]);
    assert!(s.max_rows_fetched() <= 500);
}

#[test]
fn generated_columns_answer_sql() {
    let dir = TempDir::new("sql");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = begin(&s, None);
    s.put_unit(
        run,
        "t",
        &[ty("t/A", DomainConcept::Aggregate, 0.9, "A type."), ty("t/B", DomainConcept::Entity, 0.4, "B")],
    )
    .unwrap();
    s.put_unit(run, "f", &[op("f", OperationOwner::Entity, "Does f.")]).unwrap();
    let rows: Vec<(String, f64)> = s
        .connection()
        .prepare("SELECT id, confidence FROM insight WHERE concept = 'aggregate'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, [("t/A".to_string(), 0.9)]);
    let plan: String = s
        .connection()
        .query_row("EXPLAIN QUERY PLAN SELECT id FROM insight WHERE concept = 'aggregate'", [], |r| r.get(3))
        .unwrap();
    assert!(plan.contains("insight_concept"), "{plan}");
    s.fail(run, &failure("P", insights::vocab::Level::Module, &["P"], 1)).unwrap();
    let (kind, status): (String, i64) = s
        .connection()
        .query_row("SELECT reason_kind, status FROM failure WHERE id = 'P'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((kind.as_str(), status), ("provider", 402));
}

#[test]
fn one_writer_at_a_time_holds_the_store_until_it_is_closed() {
    let dir = TempDir::new("lock");
    let path = dir.path("s.db");
    let w = Store::open_writer(&path).unwrap();
    let err = Store::open_writer(&path).err().unwrap();
    assert!(matches!(err, StoreError::Locked { pid: Some(p), .. } if p == std::process::id()), "{err:?}");
    assert!(err.to_string().contains(&format!("(pid {}) is writing", std::process::id())), "{err}");
    // A reader is never refused.
    assert!(Store::open_reader(&path).is_ok());
    w.close().unwrap();
    assert_eq!(dir.files(), ["s.db"], "a clean close removes the lock file");
    let again = Store::open_writer(&path).unwrap();
    drop(again);
    assert!(Store::open_writer(&path).is_ok(), "dropped, the lock is free");
}

#[test]
fn a_writer_closes_a_dead_writers_run_as_interrupted() {
    let dir = TempDir::new("session");
    let path = dir.path("s.db");
    let s = Store::open_writer(&path).unwrap();
    // A dead writer's open run (pid 4,000,000 is above any pid_max) is closed as interrupted.
    begin(&s, Some(4_000_000));
    let closed = s.close_open_runs("interrupted").unwrap();
    assert_eq!(closed.len(), 1);
    assert!(s.open_runs().unwrap().is_empty());
    assert_eq!(s.runs().unwrap()[0].aborted.as_deref(), Some("interrupted"));
    assert!(s.size_bytes().unwrap() > 0);
}

#[test]
fn a_merge_never_replaces_a_record_made_from_other_inputs_and_drops_failures_it_explains() {
    let dir = TempDir::new("merge");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = begin(&s, None);
    s.put_unit(run, "a", &[rec("a", Level::Operation)]).unwrap();
    s.fail(run, &failure("b", Level::Operation, &["b"], 1)).unwrap();
    let mut sc = insights::sidecar::decode("x", &s.export_string().unwrap()).unwrap();
    // The file's `a` was made from other inputs (an older rescue); its `b` explains the failed unit.
    let mut a = sc.records[0].clone();
    a.fingerprint = "f".repeat(64);
    let mut b = rec("b", Level::Operation);
    b.fingerprint = "e".repeat(64);
    sc.records = vec![a, b];
    sc.failures.clear();
    let (written, _) = s.merge(&sc).unwrap();
    assert_eq!(written, 1, "only b is written");
    let fps = s.fingerprints().unwrap();
    assert_eq!(fps["a"], rec("a", Level::Operation).fingerprint, "the store's a is kept");
    assert!(fps.contains_key("b"));
    assert!(s.failures().unwrap().is_empty(), "b's failure is no longer owed");
}
