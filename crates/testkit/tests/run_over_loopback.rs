//! The insights run loop driving the real client over loopback: the mock
//! provider answers with demo blocks, a fatal status aborts the run after one
//! request, and an answer missing a cycle member gets its one repair re-ask.

use std::cell::RefCell;
use std::time::Duration;

use analyzer::view::View;
use futures::executor::block_on;
use insights::plan::{plan_run, Models, PlanOptions};
use insights::run::{run, MemoryBook, RunOptions, RunResult};
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use insights::vocab::FailureKind;
use llm::demo::PLACEHOLDER_MARK;
use llm::native::NativeTransport;
use llm::{LlmClient, ProviderConfig, RecordingSleeper};
use sources::MemorySources;
use testkit::{MockConfig, MockProvider};

fn model_with(cycle: bool) -> model::Model {
    model::read_model(model::builder::examples::pinned_run(cycle).as_bytes(), "m.jsonl").unwrap()
}

const F: &str = "java:p/T.f()";
const H: &str = "java:p/T.h()";

fn run_against(m: &model::Model, mock: &MockProvider, book: &mut MemoryBook) -> RunResult {
    let opts = PlanOptions {
        models: Models { leaf: "leaf-model".into(), rollup: "rollup-model".into() },
        ..PlanOptions::default()
    };
    let corpus = Corpus::build(m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let plan = plan_run(&corpus, &slicer, book, &opts);
    let transport = NativeTransport::with_timeouts(Duration::from_secs(5), Some(Duration::from_secs(20)));
    let client = LlmClient::new(
        ProviderConfig::openai_compatible(&mock.url(), None).unwrap(),
        transport,
        RecordingSleeper::new(),
    );
    let key_of = |_: &str| None;
    let lines = RefCell::new(Vec::new());
    let on_step = |e: &insights::run::StepEvent| lines.borrow_mut().push(e.line());
    let options = RunOptions {
        concurrency: 4,
        max_tokens: None,
        previous_failures: book.failures.clone(),
        key_of: &key_of,
        on_step: &on_step,
        stop: None,
    };
    block_on(run(&corpus, &plan, &opts, &slicer, book, &client, &options))
}

#[test]
fn a_whole_run_over_loopback() {
    let mock = MockProvider::start(MockConfig::default());
    let mut book = MemoryBook::default();
    let r = run_against(&model_with(false), &mock, &mut book);
    assert_eq!((r.counts.records, r.counts.llm, r.counts.template, r.counts.calls), (6, 5, 1, 5));
    assert_eq!((r.usage.prompt_tokens, r.usage.completion_tokens), (500, 100));
    assert!((r.usage.cost.unwrap() - 0.005).abs() < 1e-12);
    assert_eq!(mock.count(), 5);
    let h = &book.records[H];
    assert_eq!(h.model.as_deref(), Some("leaf-model-served"));
    assert!(h.block.description().starts_with(PLACEHOLDER_MARK));
    assert!(r.failures.is_empty() && r.aborted.is_none());
}

#[test]
fn a_fatal_status_aborts_after_one_request() {
    let mock = MockProvider::start(MockConfig::default().with(&format!("402@unit={H}")));
    let mut book = MemoryBook::default();
    let r = run_against(&model_with(false), &mock, &mut book);
    assert_eq!(mock.count(), 1);
    let aborted = r.aborted.expect("aborted");
    assert_eq!(aborted.unit, H);
    assert_eq!(aborted.not_attempted, 4);
    assert_eq!(r.failures.len(), 1);
    let reason = &r.failures[0].reason;
    assert_eq!((reason.kind, reason.status, reason.retryable), (FailureKind::Provider, Some(402), Some(false)));
    assert!(reason.message.contains("Insufficient credits"), "{}", reason.message);
}

#[test]
fn a_missing_cycle_member_is_repaired_once() {
    let mock = MockProvider::start(MockConfig::default().with(&format!("missing-member@unit={F}")));
    let mut book = MemoryBook::default();
    let r = run_against(&model_with(true), &mock, &mut book);
    // Every cycle answer misses a member: the repair fails too.
    assert_eq!(r.failures.len(), 1);
    assert_eq!(r.failures[0].reason.kind, FailureKind::InvalidAnswer);
    assert_eq!(r.failures[0].calls, 2);

    let mock = MockProvider::start(MockConfig::default().with("missing-member@1"));
    let mut book = MemoryBook::default();
    let r = run_against(&model_with(true), &mock, &mut book);
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let second = mock.requests()[1].json();
    let user = second["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("## Your previous answer was not valid"), "{user}");
    assert!(book.records.contains_key(F));
}
