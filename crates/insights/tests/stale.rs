//! Staleness (`insights::stale`) of records a run made: current when nothing
//! changed (the pinned fixture and the upstream Java fixture), and the reason
//! when something did — a leaf's source, the leaf model, the prompt version.

use analyzer::view::View;
use futures_executor::block_on;
use insights::complete::{Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
use insights::plan::{plan_run, Models, PlanOptions, RunPlan};
use insights::record::InsightRecord;
use insights::run::{run, MemoryBook, RunOptions};
use insights::sidecar::{decode, encode, synth, Sidecar};
use insights::slice::SourceSlicer;
use insights::stale::{staleness, stamps_of, Basis, Freshness, StaleReason, Staleness};
use insights::units::Corpus;
use insights::vocab::PROMPT_VERSION;
use serde_json::json;
use sources::{MemorySources, SourceReader};

/// Answers every prompt with a valid block of its level (the words do not
/// matter to staleness), served under another name than the model asked.
struct Blocks;

impl Completer for Blocks {
    fn name(&self) -> String {
        "blocks".into()
    }
    fn complete(&self, req: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        let level = req.asking.level;
        let mut rng = synth::Rng(req.user.len() as u64);
        let mut block = || serde_json::to_value(synth::block(level, &mut rng)).unwrap();
        let json = if req.asking.cycle {
            json!({"members": req.asking.members.iter().map(|id| json!({"id": id, "block": block()})).collect::<Vec<_>>()})
        } else {
            block()
        };
        Box::pin(std::future::ready(Ok(Completion { json, model: format!("{}-served", req.model), usage: None })))
    }
}

fn models(leaf: &str) -> PlanOptions {
    PlanOptions { models: Models { leaf: leaf.into(), rollup: "rollup-model".into() }, ..PlanOptions::default() }
}

/// A fresh run over `m` with `sources`: its side-car, written and read back.
fn explained(m: &model::Model, sources: &dyn SourceReader, options: &PlanOptions) -> Sidecar {
    let corpus = Corpus::build(m, View::all(), None).unwrap();
    let slicer = SourceSlicer::new(sources, options.max_lines);
    let mut book = MemoryBook::default();
    let plan = plan_run(&corpus, &slicer, &book, options);
    let opts = RunOptions {
        concurrency: 2,
        max_tokens: None,
        previous_failures: Default::default(),
        key_of: &|_| None,
        on_step: &|_| {},
        stop: None,
    };
    let result = block_on(run(&corpus, &plan, options, &slicer, &mut book, &Blocks, &opts));
    assert!(result.failures.is_empty(), "{:?}", result.failures);
    let header = insights::session::header(&corpus, options, Some("test"), "model.jsonl");
    let records: Vec<InsightRecord> = book.sorted().into_iter().cloned().collect();
    let sidecar = Sidecar { header, records, failures: vec![], trailer: None, truncated: true };
    decode("model.insights.jsonl", &encode(&sidecar)).unwrap()
}

/// The current plan over `m` with `sources` and `options`.
fn planned<'m>(m: &'m model::Model, sources: &dyn SourceReader, options: &PlanOptions) -> (Corpus<'m>, RunPlan) {
    let corpus = Corpus::build(m, View::all(), None).unwrap();
    let slicer = SourceSlicer::new(sources, options.max_lines);
    let plan = plan_run(&corpus, &slicer, &insights::records::NoRecords, options);
    (corpus, plan)
}

/// The side-car's records judged against the current plan.
fn judged(sidecar: &Sidecar, m: &model::Model, sources: &dyn SourceReader, options: &PlanOptions) -> Staleness {
    let (corpus, plan) = planned(m, sources, options);
    let was = Basis::of_header(&sidecar.header);
    let now = Basis::current(options.models.clone());
    staleness(&stamps_of(&sidecar.records), &was, &now, &corpus.walk, &plan)
}

fn reason(s: &Staleness, id: &str) -> Option<StaleReason> {
    match s.get(id).unwrap_or_else(|| panic!("{id} judged")) {
        Freshness::Current => None,
        Freshness::Stale(r) => Some(r.clone()),
    }
}

const T: &str = "java:p/T";
const P: &str = "java:p";
const GET: &str = "java:p/T.getTotal()";
const F: &str = "java:p/T.f()";
const G: &str = "java:p/T.g()";
const H: &str = "java:p/T.h()";

/// `p/T.java` as the pinned fixture's anchors place it: T on lines 1–40, a
/// getter on 3, f on 5–10, g on 12–17, h on 19–24.
fn sources(h_says: &str) -> MemorySources {
    let mut lines: Vec<String> = (1..=40).map(|n| format!("    // line {n}")).collect();
    lines[0] = "class T {".into();
    lines[2] = "    int getTotal() { return total; }".into();
    lines[4] = "    void f() {".into();
    lines[11] = "    void g() {".into();
    lines[18] = "    void h() {".into();
    lines[20] = format!("        log(\"{h_says}\");");
    let mut src = MemorySources::new();
    src.insert("p/T.java", lines.join("\n")).unwrap();
    src
}

#[test]
fn nothing_changed_everything_is_current() {
    let m = model::read_model(model::builder::examples::pinned_run(false).as_bytes(), "m.jsonl").unwrap();
    let src = sources("hello");
    let sidecar = explained(&m, &src, &models("leaf-model"));
    assert_eq!(sidecar.records.len(), 6);
    let s = judged(&sidecar, &m, &src, &models("leaf-model"));
    assert_eq!(s.records.len(), 6);
    assert!(s.records.values().all(Freshness::is_current), "{s:?}");
    assert_eq!(s.stale_count(), 0);
    assert!(s.unplanned.is_empty());
    // The records say they were served by `leaf-model-served`: the model
    // asked is the header's, so that is no reason.
    assert_eq!(sidecar.records.iter().find(|r| r.id == H).unwrap().model.as_deref(), Some("leaf-model-served"));
}

#[test]
fn a_leaf_source_changed_it_and_what_depends_on_it_are_stale() {
    let m = model::read_model(model::builder::examples::pinned_run(false).as_bytes(), "m.jsonl").unwrap();
    let sidecar = explained(&m, &sources("hello"), &models("leaf-model"));
    let s = judged(&sidecar, &m, &sources("goodbye"), &models("leaf-model"));
    assert_eq!(reason(&s, H), Some(StaleReason::Source));
    assert_eq!(reason(&s, G), Some(StaleReason::Dependency { ids: vec![H.into()] }));
    assert_eq!(reason(&s, F), Some(StaleReason::Dependency { ids: vec![G.into()] }));
    assert_eq!(reason(&s, GET), None, "the getter does not depend on h");
    assert_eq!(reason(&s, T), Some(StaleReason::Dependency { ids: vec![F.into(), G.into(), H.into()] }));
    assert_eq!(reason(&s, P), Some(StaleReason::Dependency { ids: vec![T.into()] }));
    assert_eq!(s.stale_count(), 5);
    assert_eq!(
        s.get(G).unwrap().describe(),
        "stale: a unit it depends on changed or is not explained: java:p/T.h()",
        "a sentence for the page"
    );

    // A record gone from the plan is listed, not judged.
    let mut more = sidecar.clone();
    let mut gone = more.records[0].clone();
    gone.id = "java:p/T.removed()".into();
    more.records.push(gone);
    let s = judged(&more, &m, &sources("hello"), &models("leaf-model"));
    assert_eq!(s.unplanned, ["java:p/T.removed()"]);
    assert_eq!(s.stale_count(), 0);
}

#[test]
fn a_different_leaf_model_stales_the_operations_by_model_and_the_rest_by_dependency() {
    let m = model::read_model(model::builder::examples::pinned_run(false).as_bytes(), "m.jsonl").unwrap();
    let src = sources("hello");
    let sidecar = explained(&m, &src, &models("leaf-model"));
    let s = judged(&sidecar, &m, &src, &models("other-leaf"));
    let model = Some(StaleReason::Model { was: "leaf-model".into(), now: "other-leaf".into() });
    for id in [H, G, F, GET] {
        assert_eq!(reason(&s, id), model, "{id}");
    }
    assert_eq!(
        reason(&s, T),
        Some(StaleReason::Dependency { ids: vec![F.into(), G.into(), GET.into(), H.into()] }),
        "the roll-up model is the same"
    );
    assert_eq!(reason(&s, P), Some(StaleReason::Dependency { ids: vec![T.into()] }));
}

#[test]
fn records_of_another_prompt_version_are_stale_by_prompt_version() {
    let m = model::read_model(model::builder::examples::pinned_run(false).as_bytes(), "m.jsonl").unwrap();
    let src = sources("hello");
    let mut older = explained(&m, &src, &models("leaf-model"));
    // What a build with prompt version 0 wrote: its header says so, and
    // every fingerprint hashed it.
    older.header.prompt_version = "0".into();
    for r in &mut older.records {
        r.fingerprint = r.fingerprint.chars().rev().collect();
    }
    let s = judged(&older, &m, &src, &models("other-leaf"));
    let prompt = Some(StaleReason::PromptVersion { was: "0".into(), now: PROMPT_VERSION.into() });
    for id in [H, G, F, GET, T, P] {
        assert_eq!(reason(&s, id), prompt, "{id}");
    }
}

#[test]
fn the_upstream_java_fixture_explained_and_unchanged_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/upstream-java/model.jsonl");
    let m = model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap();
    let src = MemorySources::default(); // its corpus source is not included
    let options = PlanOptions::default();
    let sidecar = explained(&m, &src, &options);
    assert_eq!(sidecar.records.len(), 79, "57 operations, 19 types (two cycles), 3 modules");
    let s = judged(&sidecar, &m, &src, &options);
    assert_eq!(s.records.len(), 79);
    assert_eq!(s.stale_count(), 0, "{s:?}");
    // Depth is hashed: another depth changes every unit's own inputs; the
    // leaves say so, everything above names what it depends on.
    let deeper = PlanOptions { depth: 2, ..PlanOptions::default() };
    let s = judged(&sidecar, &m, &src, &deeper);
    assert_eq!(s.stale_count(), 79);
    let (corpus, _) = planned(&m, &src, &deeper);
    for unit in &corpus.walk.units {
        let expected = if unit.deps.is_empty() { "source" } else { "dependency" };
        for member in &unit.members {
            let Some(Freshness::Stale(r)) = s.get(member) else { panic!("{member}") };
            let kind = serde_json::to_value(r).unwrap()["kind"].as_str().unwrap().to_owned();
            assert_eq!(kind, expected, "{member}");
        }
    }
}
