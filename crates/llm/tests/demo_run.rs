//! The offline demo through the engine's run loop, on the demo corpus and the
//! upstream Java fixture: every answer passes the run's validation, every
//! description is labelled and says 2–5 sentences of facts, and two runs
//! answer byte for byte the same.

use std::cell::RefCell;

use analyzer::view::View;
use futures::executor::block_on;
use insights::plan::{plan_run, PlanOptions, StepStatus};
use insights::run::{run, MemoryBook, RunOptions};
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use llm::demo::{DemoCompleter, DEMO_CONFIDENCE, DEMO_LABEL, DEMO_MODEL};
use sources::MemorySources;

fn read(path: &str) -> model::Model {
    let path = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap()
}

/// The sentences after the label, counted outside backticks.
fn sentences(description: &str) -> usize {
    let rest = description.strip_prefix(DEMO_LABEL).expect("labelled");
    let chars: Vec<char> = rest.chars().collect();
    let mut quoted = false;
    let mut n = 0;
    for (i, c) in chars.iter().enumerate() {
        match c {
            '`' => quoted = !quoted,
            '.' if !quoted && chars.get(i + 1).is_none_or(|next| *next == ' ') => n += 1,
            _ => {}
        }
    }
    n
}

/// Runs the whole plan of `path` against the demo: every record as a line
/// (id, block JSON), and how many members the plan asked for.
fn demo_run(path: &str) -> (Vec<String>, usize) {
    let m = read(path);
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let mut book = MemoryBook::default();
    let opts = PlanOptions::default();
    let plan = plan_run(&corpus, &slicer, &book, &opts);
    let asked: usize = plan
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Llm)
        .map(|s| corpus.walk.units[s.unit].members.len())
        .sum();
    let demo = DemoCompleter::new(&corpus);
    let key_of = |_: &str| None;
    let steps = RefCell::new(0);
    let on_step = |_: &insights::run::StepEvent| *steps.borrow_mut() += 1;
    let options = RunOptions {
        concurrency: 3,
        max_tokens: None,
        previous_failures: Default::default(),
        key_of: &key_of,
        on_step: &on_step,
        stop: None,
    };
    let r = block_on(run(&corpus, &plan, &opts, &slicer, &mut book, &demo, &options));
    assert!(r.failures.is_empty(), "{path}: {:?}", r.failures);
    assert!(book.failures.is_empty() && r.aborted.is_none() && r.book_errors.is_empty());
    assert_eq!(*steps.borrow(), plan.steps.len());
    assert_eq!(r.counts.llm as usize, asked, "{path}: every asked member has a record");
    let mut lines = Vec::new();
    for rec in book.sorted().into_iter().filter(|r| r.model.as_deref() == Some(DEMO_MODEL)) {
        let d = rec.block.description();
        assert!(d.starts_with(DEMO_LABEL), "{}: {d}", rec.id);
        assert!((2..=5).contains(&sentences(d)), "{}: {} sentences: {d}", rec.id, sentences(d));
        assert!(!d.contains("holds no facts"), "{}: the plan's own units have facts: {d}", rec.id);
        assert_eq!(rec.block.confidence(), DEMO_CONFIDENCE);
        lines.push(format!("{}\t{}", rec.id, rec.block.to_json()));
    }
    assert_eq!(lines.len(), asked);
    (lines, asked)
}

#[test]
fn the_demo_corpus_runs_with_no_failed_unit_and_the_same_answers_twice() {
    let (first, asked) = demo_run("fixtures/demo/model.jsonl");
    assert_eq!(asked, 107);
    assert_eq!(demo_run("fixtures/demo/model.jsonl").0, first);
}

#[test]
fn the_upstream_java_fixture_runs_with_no_failed_unit_and_the_same_answers_twice() {
    let (first, asked) = demo_run("fixtures/upstream-java/model.jsonl");
    assert_eq!(asked, 70);
    assert_eq!(demo_run("fixtures/upstream-java/model.jsonl").0, first);
    // Its cycles are said to be ones.
    let basket = first.iter().find(|l| l.starts_with("java:com.acme.order/Basket\t")).unwrap();
    assert!(basket.contains("It is in a dependency cycle with `Cursor`."), "{basket}");
}
