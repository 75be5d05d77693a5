//! Readers, answerInsight (docs/formats/store.md §8) and the store book (§7).
#![cfg(not(target_arch = "wasm32"))] // temp dirs, processes and proptest: native only (see wasm.rs)

mod common;

use common::*;
use insights::records::concept_label;
use insights::records::{RecordSource, RecordSummary};
use insights::run::RecordBook;
use insights::sidecar::synth;
use insights::vocab::{DomainConcept, Level, OperationOwner};
use store::{BeginRun, FinishRun, InsightAnswer, Query, Store, StoreBook, StoreError, BULK_AFTER};

fn begin(s: &Store) -> store::RunHandle {
    s.begin_run(&BeginRun { header: header(), started_at: "2025-06-01T11:00:00.000Z".into(), pid: None }).unwrap()
}

/// f (entity-owned op), g (unknown owner), t/A aggregate 0.9, t/B entity 0.4, P module in context Ordering.
fn fixture(s: &Store) -> store::RunHandle {
    let run = begin(s);
    s.put_unit(
        run,
        "u",
        &[
            with_usage(op("f", OperationOwner::Entity, "Does f."), 100, 20, Some(0.001)),
            with_usage(op("g", OperationOwner::Unknown, "Does g."), 50, 5, None),
            ty("t/A", DomainConcept::Aggregate, 0.9, "A type."),
            ty("t/B", DomainConcept::Entity, 0.4, "B type."),
            module("P", Some("Ordering"), "A module."),
        ],
    )
    .unwrap();
    run
}

fn row_ids(rows: &[store::InsightRow]) -> Vec<&str> {
    rows.iter().map(|r| r.id.as_str()).collect()
}

#[test]
fn query_filters_sort_and_limit_after_sorting() {
    let dir = TempDir::new("query");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    fixture(&s);
    let all = s.query(&Query::default()).unwrap();
    assert_eq!(row_ids(&all), ["f", "g", "t/A", "t/B", "P"]);
    assert_eq!(all[0].concept.as_deref(), Some("owned by entity"));
    assert_eq!(all[0].description, "Does f.");
    assert_eq!(all[1].concept, None, "owner unknown → no label");
    assert_eq!(all[2].concept.as_deref(), Some("aggregate"));
    assert_eq!(all[2].confidence, 0.9);
    assert_eq!(all[4].concept.as_deref(), Some("context: Ordering"));
    let q = |q: Query| row_ids(&s.query(&q).unwrap()).into_iter().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(q(Query { concept: Some("aggregate".into()), ..Query::default() }), ["t/A"]);
    assert_eq!(q(Query { level: Some(Level::Type), ..Query::default() }), ["t/A", "t/B"]);
    assert_eq!(q(Query { level: Some(Level::Type), max_confidence: Some(0.5), ..Query::default() }), ["t/B"]);
    assert_eq!(q(Query { level: Some(Level::Type), min_confidence: Some(0.5), ..Query::default() }), ["t/A"]);
    assert_eq!(q(Query { ids: Some(vec!["P".into(), "g".into(), "zz".into()]), ..Query::default() }), ["g", "P"]);
    assert_eq!(q(Query { limit: Some(3), ..Query::default() }), ["f", "g", "t/A"]);
    let many: Vec<String> = (0..1200).map(|i| format!("x{i}")).chain(["t/B".to_string()]).collect();
    assert_eq!(q(Query { ids: Some(many), ..Query::default() }), ["t/B"]);
    let json = serde_json::to_string(&all[4]).unwrap();
    assert!(json.starts_with(r#"{"id":"P","level":"module","kind":"package""#), "{json}");
}

#[test]
fn stats_shape_and_usage_from_records() {
    let dir = TempDir::new("stats");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = fixture(&s);
    s.fail(run, &failure("h", Level::Operation, &["h"], 1)).unwrap();
    let stats = s.stats().unwrap();
    let mut want = serde_json::json!({
        "records": 5, "failures": 1,
        "byLevel": {"operation": 2, "type": 2, "module": 1},
        "byOrigin": {"llm": 0, "template": 0},
        "byConcept": {"aggregate": 1, "entity": 1},
        "usage": {"promptTokens": 150, "completionTokens": 25, "cost": 0.001}
    });
    let llm = s.records().unwrap().iter().filter(|r| r.origin == insights::vocab::Origin::Llm).count();
    // One scan reads the same records, in its own order.
    let mut scanned = s.scan_records().unwrap();
    scanned.sort_by(|a, b| a.id.cmp(&b.id));
    let mut sorted = s.records().unwrap();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(scanned, sorted);
    want["byOrigin"]["llm"] = llm.into();
    want["byOrigin"]["template"] = (5 - llm).into();
    assert_eq!(serde_json::to_value(&stats).unwrap(), want);

    let t = TempDir::new("stats-nocost");
    let s = Store::open_writer(t.path("s.db")).unwrap();
    let run = begin(&s);
    s.put_unit(run, "g", &[with_usage(op("g", OperationOwner::Unknown, "g"), 1, 2, None)]).unwrap();
    let json = serde_json::to_value(s.stats().unwrap()).unwrap();
    assert_eq!(json["usage"], serde_json::json!({"promptTokens": 1, "completionTokens": 2}));
}

#[test]
fn runs_ledger_rows() {
    let dir = TempDir::new("runs");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let first = fixture(&s);
    s.finish_run(
        first,
        &FinishRun {
            eof: trailer(5, 0),
            failures: vec![],
            calls: Some(3),
            aborted: Some("402: no credits".into()),
            output_modes: vec![
                ("openai/gpt-4.1-mini".into(), "json-schema".into()),
                ("anthropic/claude-sonnet-4.5".into(), "json-object".into()),
            ],
        },
    )
    .unwrap();
    let second = begin(&s);
    s.close_run(second.id, "interrupted").unwrap();
    let third = begin(&s);
    let runs = serde_json::to_value(s.runs().unwrap()).unwrap();
    let models = serde_json::json!({"leaf": "openai/gpt-4.1-mini", "rollup": "anthropic/claude-sonnet-4.5"});
    assert_eq!(
        runs,
        serde_json::json!([
            {"id": first.id, "startedAt": "2025-06-01T11:00:00.000Z", "finishedAt": "2025-06-01T12:00:00.000Z",
             "provider": "openrouter", "models": models, "depth": 1,
             "counts": {"llm": 5, "template": 0, "reused": 0, "failed": 0, "calls": 3},
             "usage": {"promptTokens": 100, "completionTokens": 20, "cost": 0.001},
             "aborted": "402: no credits",
             "outputModes": {"openai/gpt-4.1-mini": "json-schema", "anthropic/claude-sonnet-4.5": "json-object"}},
            {"id": second.id, "startedAt": "2025-06-01T11:00:00.000Z", "finishedAt": "2025-06-01T11:00:00.000Z",
             "provider": "openrouter", "models": models, "depth": 1, "aborted": "interrupted"},
            {"id": third.id, "startedAt": "2025-06-01T11:00:00.000Z",
             "provider": "openrouter", "models": models, "depth": 1},
        ])
    );
}

#[test]
fn answer_insight_three_ways() {
    let dir = TempDir::new("answer");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let run = fixture(&s);
    s.fail(run, &failure("cyc", Level::Operation, &["c1", "c2", "c3"], 2)).unwrap();

    let a = s.answer_insight("f").unwrap();
    assert!(matches!(&a, InsightAnswer::Explained { record, .. } if record.id == "f"));
    let json: serde_json::Value = serde_json::from_str(&a.to_json()).unwrap();
    assert_eq!(json["kind"], "codegraph.insight/1");
    assert_eq!(json["status"], "explained");
    assert_eq!(json["record"]["t"], "i");
    assert_eq!(json["record"]["block"]["description"], "Does f.");
    assert!(a
        .to_json()
        .starts_with(r#"{"kind":"codegraph.insight/1","id":"f","status":"explained","record":{"t":"i","id":"f""#));

    let a = s.answer_insight("c2").unwrap();
    match &a {
        InsightAnswer::Failed { id, failure } => {
            assert_eq!(id, "c2");
            assert_eq!(failure.id, "cyc");
            assert_eq!(failure.attempts, 2);
        }
        other => panic!("{other:?}"),
    }
    let json: serde_json::Value = serde_json::from_str(&a.to_json()).unwrap();
    assert_eq!(json["status"], "failed");
    assert_eq!(json["failure"]["reason"]["status"], 402);
    assert!(matches!(s.answer_insight("cyc").unwrap(), InsightAnswer::Failed { .. }));

    let a = s.answer_insight("nobody").unwrap();
    assert_eq!(a, InsightAnswer::Unknown { id: "nobody".into() });
    assert_eq!(a.to_json(), r#"{"kind":"codegraph.insight/1","id":"nobody","status":"unknown"}"#);
}

#[test]
fn store_book_reads_fingerprints_once_and_memoizes_summaries() {
    let dir = TempDir::new("book");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    fixture(&s);
    let mut book = StoreBook::new(&s).unwrap();
    assert_eq!(book.size(), 5);
    assert_eq!(book.fingerprint("f"), Some(op("f", OperationOwner::Entity, "").fingerprint));
    assert_eq!(
        book.summary("t/A"),
        Some(RecordSummary { description: "A type.".into(), concept: Some("aggregate".into()) })
    );
    assert_eq!(
        book.summary("f"),
        Some(RecordSummary { description: "Does f.".into(), concept: Some("owned by entity".into()) })
    );
    assert_eq!(
        book.summary("P"),
        Some(RecordSummary { description: "A module.".into(), concept: Some("context: Ordering".into()) })
    );
    assert_eq!(book.summary("nope"), None);
    assert_eq!(book.fingerprint("nope"), None);
    let reads = book.summary_reads();
    for _ in 0..1000 {
        book.summary("t/B");
    }
    assert_eq!(book.summary_reads(), reads + 1, "read once for 1,000 quotes");

    // put is refused before begin.
    let err = book.put("n", &[rec("n", Level::Operation)]).unwrap_err();
    assert!(matches!(err, StoreError::NoRun { .. }), "{err:?}");
    assert!(RecordBook::put(&mut book, "n", &[rec("n", Level::Operation)]).unwrap_err().contains("no run is open"));
    assert!(!s.contains("n").unwrap());

    let run = begin(&s);
    book.begin(run);
    s.fail(run, &failure("n", Level::Operation, &["n"], 1)).unwrap();
    let n = op("n", OperationOwner::Repository, "Does n.");
    book.put("n", std::slice::from_ref(&n)).unwrap();
    assert_eq!(book.size(), 6);
    assert_eq!(book.fingerprint("n"), Some(n.fingerprint.clone()));
    assert_eq!(book.summary("n").unwrap().concept.as_deref(), Some("owned by repository"));
    assert!(s.failures().unwrap().is_empty(), "the unit's failure is cleared");
    assert_eq!(s.get(&["n"]).unwrap(), vec![n.clone()]);
    // Replacing does not grow the book, and the new summary wins.
    let mut n2 = op("n", OperationOwner::Entity, "Does n again.");
    n2.fingerprint = "f".repeat(64);
    book.put("n", std::slice::from_ref(&n2)).unwrap();
    assert_eq!(book.size(), 6);
    assert_eq!(book.fingerprint("n"), Some("f".repeat(64)));
    assert_eq!(book.summary("n").unwrap().description, "Does n again.");
    RecordBook::fail(&mut book, &failure("m", Level::Operation, &["m"], 1)).unwrap();
    assert_eq!(s.failures().unwrap().len(), 1);
}

#[test]
fn a_book_asked_for_many_summaries_reads_them_all_in_one_scan() {
    let dir = TempDir::new("bulk");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    let sidecar = synth::synthetic(BULK_AFTER * 2, 5);
    s.import(&sidecar).unwrap();
    let records = &sidecar.records;
    let mut book = StoreBook::new(&s).unwrap();
    // Two records the book has fingerprints of are gone from the database.
    let (first, last) = (&records[0].id, &records[records.len() - 1].id);
    for id in [first, last] {
        s.connection().execute("DELETE FROM insight WHERE id = ?1", [id]).unwrap();
    }
    assert_eq!(book.summary(first), None);
    assert_eq!(book.summary_reads(), 1);
    for (i, r) in records[1..records.len() - 1].iter().enumerate() {
        assert_eq!(book.summary(&r.id), Some(RecordSummary::of(r)), "{}", r.id);
        assert_eq!(book.summary_reads(), (i + 2).min(BULK_AFTER + 1), "one query each, then one scan");
    }
    // After the scan a record it did not find is missing without a query.
    assert_eq!(book.summary(last), None);
    assert_eq!(book.summary_reads(), BULK_AFTER + 1);
    // What the book commits after the scan is what it quotes.
    let run = begin(&s);
    book.begin(run);
    let second = &records[1].id;
    book.put(second, &[op(second, OperationOwner::Repository, "Replaced.")]).unwrap();
    assert_eq!(book.summary(second).unwrap().description, "Replaced.");
    assert_eq!(book.summary_reads(), BULK_AFTER + 1);
}

#[test]
fn the_sql_summary_equals_the_in_code_summary() {
    let dir = TempDir::new("summaries");
    let s = Store::open_writer(dir.path("s.db")).unwrap();
    for seed in 1..=3 {
        let sidecar = synth::synthetic(400, seed);
        s.import(&sidecar).unwrap();
        for r in &sidecar.records {
            let want = RecordSummary::of(r);
            assert_eq!(s.summary(&r.id).unwrap(), Some(want), "{}", r.id);
        }
        let all = s.summaries().unwrap();
        assert_eq!(all.len(), sidecar.records.len());
        for r in &sidecar.records {
            assert_eq!(all.get(&r.id), Some(&RecordSummary::of(r)), "{}", r.id);
        }
        let rows = s.query(&Query::default()).unwrap();
        for (row, r) in rows.iter().zip(&sidecar.records) {
            assert_eq!(row.id, r.id);
            assert_eq!(row.concept, concept_label(&r.block));
            assert_eq!(row.description, r.block.description());
            assert_eq!(row.confidence, r.block.confidence());
        }
    }
    assert_eq!(s.summary("missing").unwrap(), None);
}
