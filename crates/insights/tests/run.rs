//! The run loop on the pinned run fixture
//! (`model::builder::examples::pinned_run`; these tests are its reference,
//! docs/formats/units-and-walk.md §8 the rules): package P, class T (field
//! `total`), `getTotal` (a getter), f → g → h. A fake completer answers from
//! the prompt text.

use analyzer::view::View;
use futures_executor::block_on;
use insights::complete::{Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
use insights::plan::{plan_run, Models, PlanOptions, StepStatus};
use insights::record::Usage;
use insights::records::RecordSource;
use insights::run::{run, MemoryBook, Outcome, RunOptions, RunResult};
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use insights::vocab::{FailureKind, Level, Origin};
use serde_json::{json, Value};
use sources::MemorySources;
use std::cell::RefCell;

fn model_with(cycle: bool) -> model::Model {
    model::read_model(model::builder::examples::pinned_run(cycle).as_bytes(), "m.jsonl").unwrap()
}

fn block_for(level: &str, id: &str) -> Value {
    let name = id.rsplit(['/', '.']).next().unwrap_or(id);
    let description = format!("Explains {id}.");
    match level {
        "operation" => json!({"name": name, "description": description, "safe": true, "idempotent": null,
            "owner": "entity", "handlesCommand": null, "emits": [], "preconditions": [], "postconditions": [],
            "invariantsEnforced": [], "usesSpi": [], "domainTerms": [], "confidence": 0.8}),
        "type" => json!({"name": name, "description": description, "concept": "entity", "eventKind": null,
            "interfaceRole": null, "aggregateRoot": null, "containedIn": null, "syncPattern": null, "identity": null,
            "fields": [], "invariants": [], "stateMachine": null, "relatesTo": [], "exposes": [], "dependsOn": [],
            "domainTerms": [], "confidence": 0.5}),
        _ => json!({"name": name, "description": description, "apis": [], "spis": [], "dependsOn": [],
            "concepts": [], "boundedContextHint": null, "sharedKernelHint": null, "ubiquitousLanguage": [],
            "confidence": 0.5}),
    }
}

/// What the fake does for one request.
#[derive(Clone)]
enum Script {
    Answer,
    Malformed,
    Fail(u16),
}

struct Fake {
    requests: RefCell<Vec<CompletionRequest>>,
    /// Per unit id, the scripted behaviour of successive requests (then Answer).
    script: Vec<(String, Vec<Script>)>,
}

impl Fake {
    fn new() -> Fake {
        Fake { requests: RefCell::new(Vec::new()), script: Vec::new() }
    }
    fn with(mut self, id: &str, s: Vec<Script>) -> Fake {
        self.script.push((id.to_owned(), s));
        self
    }
    fn count(&self) -> usize {
        self.requests.borrow().len()
    }
}

impl Completer for Fake {
    fn name(&self) -> String {
        "fake".into()
    }
    fn complete(&self, req: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        // What is asked travels on the request; the prompt text is never parsed.
        let level = req.asking.level.as_str().to_owned();
        let unit = req.asking.unit.clone();
        let earlier = self.requests.borrow().iter().filter(|r| r.asking.unit == unit).count();
        self.requests.borrow_mut().push(req.clone());
        let action = self
            .script
            .iter()
            .find(|(id, _)| *id == unit)
            .and_then(|(_, s)| s.get(earlier).cloned())
            .unwrap_or(Script::Answer);
        let ids: Option<Vec<String>> = req.asking.cycle.then(|| req.asking.members.clone());
        Box::pin(async move {
            let json = match action {
                Script::Fail(status) => {
                    return Err(CompletionError::provider(format!("HTTP {status} from the fake"), Some(status), false))
                }
                Script::Malformed => json!({"name": 3}),
                Script::Answer => match ids {
                    Some(ids) => {
                        json!({"members": ids.iter().map(|id| json!({"id": id, "block": block_for(&level, id)})).collect::<Vec<_>>()})
                    }
                    None => block_for(&level, &unit),
                },
            };
            Ok(Completion {
                json,
                model: format!("{}-served", req.model),
                usage: Some(Usage { prompt_tokens: 100, completion_tokens: 20, cost: Some(0.001) }),
            })
        })
    }
}

fn options() -> PlanOptions {
    PlanOptions {
        models: Models { leaf: "leaf-model".into(), rollup: "rollup-model".into() },
        ..PlanOptions::default()
    }
}

fn run_once(
    m: &model::Model,
    book: &mut MemoryBook,
    fake: &Fake,
    plan_opts: &PlanOptions,
    concurrency: usize,
) -> RunResult {
    let corpus = Corpus::build(m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let plan = plan_run(&corpus, &slicer, book, plan_opts);
    let key_of = |_: &str| None;
    let lines = RefCell::new(Vec::new());
    let on_step = |e: &insights::run::StepEvent| lines.borrow_mut().push(e.line());
    let opts = RunOptions {
        concurrency,
        max_tokens: None,
        previous_failures: book.failures.clone(),
        key_of: &key_of,
        on_step: &on_step,
        stop: None,
    };
    let result = block_on(run(&corpus, &plan, plan_opts, &slicer, book, fake, &opts));
    assert_eq!(lines.borrow().len(), plan.steps.len(), "one progress line per step");
    result
}

const F: &str = "java:p/T.f()";
const G: &str = "java:p/T.g()";
const H: &str = "java:p/T.h()";

#[test]
fn plan_then_run_then_reuse() {
    let m = model_with(false);
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let plan = plan_run(&corpus, &slicer, &MemoryBook::default(), &options());
    let statuses: Vec<(String, StepStatus)> =
        plan.steps.iter().map(|s| (corpus.walk.units[s.unit].id.clone(), s.status)).collect();
    assert!(statuses.contains(&("java:p/T.getTotal()".into(), StepStatus::Template)));
    assert_eq!(plan.estimates.total.calls, 5);
    assert_eq!(plan.estimates.total.completion_tokens, 3 * 450 + 650 + 900);
    assert_eq!(plan.steps.iter().find(|s| corpus.walk.units[s.unit].id == H).unwrap().model, "leaf-model");

    let mut book = MemoryBook::default();
    let fake = Fake::new();
    let r = run_once(&m, &mut book, &fake, &options(), 4);
    assert_eq!((r.counts.records, r.counts.llm, r.counts.template, r.counts.calls), (6, 5, 1, 5));
    assert_eq!((r.counts.failed, r.counts.skipped, r.counts.reused), (0, 0, 0));
    assert_eq!((r.usage.prompt_tokens, r.usage.completion_tokens), (500, 100));
    assert!((r.usage.cost.unwrap() - 0.005).abs() < 1e-12);
    let ids: Vec<&str> = book.sorted().iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, [F, G, "java:p/T.getTotal()", H, "java:p/T", "java:p"]);
    assert_eq!(book.puts, ["java:p/T.getTotal()", H, G, F, "java:p/T", "java:p"].map(String::from));
    let getter = &book.records["java:p/T.getTotal()"];
    assert_eq!((getter.origin, getter.model.as_deref()), (Origin::Template, None));
    assert!(getter.block.description().contains("`total`") && getter.block.description().contains("`T`"));
    let h = &book.records[H];
    assert_eq!(h.model.as_deref(), Some("leaf-model-served"));
    assert_eq!(h.usage, Some(Usage { prompt_tokens: 100, completion_tokens: 20, cost: Some(0.001) }));
    // f's prompt quotes g's fresh description.
    let f_prompt = fake.requests.borrow().iter().find(|q| q.asking.unit == F).unwrap().user.clone();
    assert!(f_prompt.contains(&format!("({G}): Explains {G}.")), "{f_prompt}");

    // A second run: nothing to ask, same records.
    let before = book.records.clone();
    let again = Fake::new();
    let r2 = run_once(&m, &mut book, &again, &options(), 4);
    assert_eq!(again.count(), 0);
    assert_eq!(r2.counts.reused, 5);
    assert_eq!(book.records, before);

    // A different leaf model re-explains the operations and their containers.
    let other = PlanOptions { models: Models { leaf: "other".into(), rollup: "rollup-model".into() }, ..options() };
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let plan = plan_run(&corpus, &slicer, &book, &other);
    let llm: Vec<&str> = plan
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Llm)
        .map(|s| corpus.walk.units[s.unit].id.as_str())
        .collect();
    assert_eq!(llm, [H, G, F, "java:p/T", "java:p"]);
}

#[test]
fn concurrency_does_not_change_the_records() {
    let m = model_with(false);
    let (mut a, mut b) = (MemoryBook::default(), MemoryBook::default());
    run_once(&m, &mut a, &Fake::new(), &options(), 1);
    run_once(&m, &mut b, &Fake::new(), &options(), 4);
    assert_eq!(a.records, b.records);
}

#[test]
fn a_malformed_answer_is_repaired_once_then_fails() {
    let m = model_with(false);
    let mut book = MemoryBook::default();
    let fake = Fake::new().with(H, vec![Script::Malformed]);
    let r = run_once(&m, &mut book, &fake, &options(), 4);
    assert_eq!(r.counts.calls, 6);
    let second = fake.requests.borrow().iter().filter(|q| q.asking.unit == H).nth(1).unwrap().user.clone();
    assert!(second.contains("## Your previous answer was not valid\n"), "{second}");
    assert!(r.failures.is_empty());

    let mut book = MemoryBook::default();
    let fake = Fake::new().with(H, vec![Script::Malformed, Script::Malformed]);
    let r = run_once(&m, &mut book, &fake, &options(), 4);
    assert_eq!(r.counts.failed, 1);
    assert!(!book.records.contains_key(H));
    let f = &r.failures[0];
    assert_eq!((f.id.as_str(), f.reason.kind, f.calls, f.attempts), (H, FailureKind::InvalidAnswer, 2, 1));
    assert!(book.failures.contains_key(H), "the failure row is written at once");
    let g_prompt = fake.requests.borrow().iter().find(|q| q.asking.unit == G).unwrap().user.clone();
    assert!(g_prompt.contains(&format!("({H}): NOT EXPLAINED")));

    // Next run: h is asked again (attempt 2 if it fails again); g is redone once h exists.
    let fake2 = Fake::new();
    let r2 = run_once(&m, &mut book, &fake2, &options(), 4);
    assert!(r2.failures.is_empty());
    assert!(book.records.contains_key(H) && book.failures.is_empty());
    let asked: Vec<String> = fake2.requests.borrow().iter().map(|q| q.asking.unit.clone()).collect();
    assert!(asked.contains(&H.to_owned()) && asked.contains(&G.to_owned()));
}

#[test]
fn a_fatal_status_aborts_and_429_does_not() {
    let m = model_with(false);
    let mut book = MemoryBook::default();
    let fake = Fake::new().with(H, vec![Script::Fail(402)]);
    let r = run_once(&m, &mut book, &fake, &options(), 4);
    assert_eq!(fake.count(), 1);
    let abort = r.aborted.expect("402 aborts");
    assert_eq!(abort.unit, H);
    assert_eq!(abort.reason.status, Some(402));
    assert_eq!(abort.not_attempted, 4);
    // A refused call is not a call (docs/formats/units-and-walk.md §8: a 402 is pinned
    // with `calls: 0`).
    assert_eq!((r.counts.failed, r.counts.skipped, r.counts.template, r.counts.calls), (1, 4, 1, 0));
    assert_eq!(r.failures.len(), 1, "units never reached get no failure record");
    assert_eq!((r.failures[0].reason.kind, r.failures[0].calls), (FailureKind::Provider, 0));
    assert_eq!(book.records.len(), 1, "only the getter");

    let mut book = MemoryBook::default();
    let fake = Fake::new().with(H, vec![Script::Fail(429)]);
    let r = run_once(&m, &mut book, &fake, &options(), 4);
    assert!(r.aborted.is_none());
    assert_eq!(fake.count(), 5);
    assert_eq!(r.counts.failed, 1);
}

#[test]
fn a_cycle_is_one_call_and_its_usage_is_shared() {
    let m = model_with(true);
    let mut book = MemoryBook::default();
    let r = run_once(&m, &mut book, &Fake::new(), &options(), 4);
    assert_eq!(r.counts.calls, 3, "the cycle, T and P; the getter is templated");
    for id in [F, G, H] {
        let rec = &book.records[id];
        assert_eq!(rec.scc.as_deref(), Some(&[F.to_owned(), G.to_owned(), H.to_owned()][..]));
        assert_eq!(rec.usage.unwrap().prompt_tokens, 33);
        assert_eq!(rec.level, Level::Operation);
    }
    assert_eq!(r.counts.llm, 5);
    // The book answers fingerprints for every member.
    assert!(book.fingerprint(G).is_some());
}

#[test]
fn progress_lines_read_as_the_cli_prints_them() {
    let e = insights::run::StepEvent {
        done: 3,
        total: 6,
        level: Level::Operation,
        unit_id: F.into(),
        members: 3,
        outcome: Outcome::Done {
            calls: 1,
            usage: Usage { prompt_tokens: 100, completion_tokens: 20, cost: None },
            records: 3,
        },
    };
    assert_eq!(e.line(), "[3/6] operation java:p/T.f() (+2 in cycle): 1 call, 100+20 tokens");
}

#[test]
fn a_user_stop_keeps_what_finished_and_leaves_the_rest_owed_without_failures() {
    let m = model_with(false);
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let mut book = MemoryBook::default();
    let plan = plan_run(&corpus, &slicer, &book, &options());
    let fake = Fake::new();
    let key_of = |_: &str| None;
    let outcomes = RefCell::new(Vec::new());
    let on_step = |e: &insights::run::StepEvent| outcomes.borrow_mut().push(e.outcome.clone());
    // Stop once two calls have been made (concurrency 1: the order is the walk's).
    let stop = || fake.count() >= 2;
    let opts = RunOptions {
        concurrency: 1,
        max_tokens: None,
        previous_failures: Default::default(),
        key_of: &key_of,
        on_step: &on_step,
        stop: Some(&stop),
    };
    let r = block_on(run(&corpus, &plan, &options(), &slicer, &mut book, &fake, &opts));
    assert!(r.stopped);
    assert_eq!(fake.count(), 2, "no call is begun after the stop");
    assert_eq!(r.counts.llm, 2);
    assert!(r.failures.is_empty(), "a stop is not a failure");
    let stopped = outcomes.borrow().iter().filter(|o| matches!(o, insights::run::Outcome::Stopped)).count();
    assert_eq!(stopped, 3, "the three other call-needing units were not begun");
    assert_eq!(r.counts.skipped, 3);

    // The next run reuses the two and asks the three.
    let again = Fake::new();
    let r2 = run_once(&m, &mut book, &again, &options(), 2);
    assert_eq!(again.count(), 3);
    assert!(!r2.stopped);
    assert_eq!(book.records.len(), 6);
}

/// A completer whose calls after the first `after` are withdrawn: a run
/// stopped while paused, its parked calls never sent.
struct Withdrawing {
    inner: Fake,
    after: usize,
}

impl Completer for Withdrawing {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn complete(&self, req: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        if self.inner.count() >= self.after {
            return Box::pin(std::future::ready(Err(CompletionError::withdrawn())));
        }
        self.inner.complete(req)
    }
}

#[test]
fn a_call_withdrawn_before_it_is_sent_leaves_its_unit_owed_without_a_failure() {
    let m = model_with(false);
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    let mut book = MemoryBook::default();
    let plan = plan_run(&corpus, &slicer, &book, &options());
    let withdrawing = Withdrawing { inner: Fake::new(), after: 2 };
    let key_of = |_: &str| None;
    let outcomes = RefCell::new(Vec::new());
    let on_step = |e: &insights::run::StepEvent| outcomes.borrow_mut().push(e.outcome.clone());
    let opts = RunOptions {
        concurrency: 1,
        max_tokens: None,
        previous_failures: Default::default(),
        key_of: &key_of,
        on_step: &on_step,
        stop: None,
    };
    let r = block_on(run(&corpus, &plan, &options(), &slicer, &mut book, &withdrawing, &opts));
    assert!(r.stopped, "a withdrawn call means the user stopped the run");
    assert_eq!(withdrawing.inner.count(), 2, "only two calls were sent");
    assert_eq!(r.counts.calls, 2, "a withdrawn call is not a call");
    assert!(r.failures.is_empty(), "a withdrawn call is not a failure");
    let stopped = outcomes.borrow().iter().filter(|o| matches!(o, insights::run::Outcome::Stopped)).count();
    assert_eq!(stopped, 3);
    assert_eq!(r.counts.skipped, 3);
    // Nothing is owed as a failure: the next run simply asks the three.
    let again = Fake::new();
    run_once(&m, &mut book, &again, &options(), 2);
    assert_eq!(again.count(), 3);
}

/// A book whose puts fail from the `fail_from`-th on (a full disk).
struct FailingBook {
    inner: MemoryBook,
    fail_from: usize,
    puts: usize,
}

impl RecordSource for FailingBook {
    fn fingerprint(&self, id: &str) -> Option<String> {
        self.inner.fingerprint(id)
    }
    fn summary(&self, id: &str) -> Option<insights::records::RecordSummary> {
        self.inner.summary(id)
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
}

impl insights::run::RecordBook for FailingBook {
    fn put(&mut self, unit_id: &str, records: &[insights::record::InsightRecord]) -> Result<(), String> {
        self.puts += 1;
        if self.puts >= self.fail_from {
            return Err("database or disk is full".into());
        }
        insights::run::RecordBook::put(&mut self.inner, unit_id, records)
    }
    fn fail(&mut self, failure: &insights::record::FailureRecord) -> Result<(), String> {
        insights::run::RecordBook::fail(&mut self.inner, failure)
    }
}

#[test]
fn a_refused_commit_halts_the_run_and_keeps_the_answers_for_a_rescue() {
    let m = model_with(false);
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let src = MemorySources::default();
    let slicer = SourceSlicer::new(&src, 200);
    // Walk order at concurrency 1: the getter (template), h, g, f, T, P. The third put fails.
    let mut book = FailingBook { inner: MemoryBook::default(), fail_from: 3, puts: 0 };
    let plan = plan_run(&corpus, &slicer, &book, &options());
    let fake = Fake::new();
    let key_of = |_: &str| None;
    let outcomes = RefCell::new(Vec::new());
    let on_step = |e: &insights::run::StepEvent| outcomes.borrow_mut().push(e.outcome.clone());
    let opts = RunOptions {
        concurrency: 1,
        max_tokens: None,
        previous_failures: Default::default(),
        key_of: &key_of,
        on_step: &on_step,
        stop: None,
    };
    let r = block_on(run(&corpus, &plan, &options(), &slicer, &mut book, &fake, &opts));
    assert_eq!(r.book_errors, vec!["database or disk is full".to_owned()]);
    assert_eq!(fake.count(), 2, "no call starts after the store refused a write");
    assert_eq!(r.counts.calls, 2, "both answers were paid for");
    assert_eq!(r.unsaved.len(), 1, "the answer the store refused is kept for the rescue");
    assert_eq!(book.inner.records.len(), 2, "the getter and the first answer were committed");
    assert!(!book.inner.records.contains_key(&r.unsaved[0].id));
    let o = outcomes.borrow();
    assert!(matches!(o[2], Outcome::Unsaved { calls: 1, .. }), "{:?}", o[2]);
    assert_eq!(o.iter().filter(|x| matches!(x, Outcome::NotAttempted)).count(), 3);
}

#[test]
fn a_cycle_cut_off_between_its_prompts_keeps_the_paid_chunks_for_a_rescue() {
    // The cycle f → g → h asked one member per prompt: the second prompt fails.
    let m = model_with(true);
    let mut book = MemoryBook::default();
    let unit = {
        let corpus = Corpus::build(&m, View::all(), None).unwrap();
        corpus.walk.unit_of(F).unwrap().id.clone()
    };
    let fake = Fake::new().with(&unit, vec![Script::Answer, Script::Fail(500)]);
    let opts = PlanOptions { max_scc: 1, ..options() };
    let r = run_once(&m, &mut book, &fake, &opts, 1);
    assert_eq!(r.failures.len(), 1);
    assert_eq!(r.failures[0].calls, 1, "the answered chunk was a call; the refused one was not");
    assert_eq!(r.unsaved.len(), 1, "the answered chunk's record is kept for the rescue, not dropped");
    assert!(!book.records.contains_key(&r.unsaved[0].id), "a unit is committed whole, never in part");
}
