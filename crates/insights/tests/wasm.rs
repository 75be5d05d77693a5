//! The pure engine in a browser: the upstream fixture read, planned and run
//! with an in-memory completer inside a dedicated worker of headless
//! Chromium (`cargo xtask test --only wasm`).
#![cfg(target_arch = "wasm32")]

use analyzer::view::View;
use insights::plan::{plan_run, PlanOptions, StepStatus};
use insights::records::NoRecords;
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

const FIXTURE: &str = include_str!("../../../fixtures/upstream-java/model.jsonl");

#[wasm_bindgen_test]
fn the_fixture_plans_the_same_in_a_worker() {
    let m = model::read_model(FIXTURE.as_bytes(), "model.jsonl").unwrap();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    assert_eq!(corpus.walk.units.len(), 77);
    assert_eq!(corpus.walk.layers.len(), 8);
    let src = sources::MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let plan = plan_run(&corpus, &slicer, &NoRecords, &PlanOptions::default());
    assert_eq!(plan.estimates.total.calls, 68);
    assert_eq!(plan.estimates.status(StepStatus::Template), 9);
    // Fingerprints are the same bytes as natively (the golden vector).
    assert!(plan.steps.iter().all(|s| s.fingerprint.len() == 64));
}

#[wasm_bindgen_test]
fn the_golden_fingerprint_holds_in_wasm() {
    use insights::fingerprint::{fingerprint_of, FingerprintInputs};
    let digest = insights::canonical::digest_of(&serde_json::json!({"calls": []}));
    let fp = fingerprint_of(&FingerprintInputs {
        comments: vec![],
        dependency_fingerprints: vec![],
        depth: 1,
        facts_digest: digest,
        level: insights::vocab::Level::Operation,
        members: vec!["java:p/A.f()".into()],
        missing_dependencies: vec![],
        model: "m".into(),
        signatures: vec!["f()".into()],
        sources: vec!["int f() { return 1; }".into()],
    });
    assert_eq!(fp, "67824a20f9a64208352641092244b335312e6a2c2068a1ed45090ea836ba2d3b");
}
