//! The run loop (docs/formats/units-and-walk.md §8): layers in walk order, up
//! to `concurrency` calls in flight within a layer, every finished unit handed
//! to the record book at once (one store transaction), failures recorded
//! the moment they happen, fatal provider statuses stopping new calls.
//!
//! Pure: model calls go through the [`Completer`] port, records through the
//! [`RecordBook`] port; time and I/O belong to the caller. The loop is a
//! future driven on one thread (`block_on` natively, `spawn_local` in the
//! Worker); calls overlap inside the completer.

use crate::blocks::Block;
use crate::complete::{Asking, Completer, CompletionError, CompletionRequest};
use crate::plan::{unit_fingerprint, PlanOptions, PlanStep, RunPlan, StepStatus};
use crate::prompt::{repair_message, Prompt, Shape};
use crate::record::{FailureReason, FailureRecord, InsightRecord, NaturalKey, Usage};
use crate::records::RecordSource;
use crate::schema::{block_schema, cycle_schema};
use crate::slice::SourceSlicer;
use crate::templates::templated_block;
use crate::units::Corpus;
use crate::validate::{validate_block, validate_cycle, validation_text};
use crate::vocab::{FailureKind, Level, Origin, FATAL_STATUSES};
use crate::walk::Unit;
use futures_util::stream::{self, StreamExt};
use hashbrown::HashMap;
use std::cell::RefCell;

/// Where records go during a run (the store, or memory for tests and dry
/// runs). `put` of a finished unit is one transaction: after it returns,
/// later prompts can quote the unit.
pub trait RecordBook: RecordSource {
    fn put(&mut self, unit_id: &str, records: &[InsightRecord]) -> Result<(), String>;
    /// A failure row, written the moment it happens.
    fn fail(&mut self, failure: &FailureRecord) -> Result<(), String>;
}

/// Options of a run beyond the plan's.
pub struct RunOptions<'a> {
    /// Calls in flight at once within a layer (≥ 1).
    pub concurrency: usize,
    /// Output cap per answer (`--max-tokens`), sent only when set.
    pub max_tokens: Option<u32>,
    /// Failures owed from earlier runs, by unit id.
    pub previous_failures: HashMap<String, FailureRecord>,
    /// The natural key of an id, when known.
    pub key_of: &'a dyn Fn(&str) -> Option<NaturalKey>,
    /// Called once per finished step, in finishing order.
    pub on_step: &'a dyn Fn(&StepEvent),
    /// Asked before each call-needing step: `true` stops the run there (a
    /// user's abort). Calls in flight finish and are kept; the steps not
    /// begun end as [`Outcome::Stopped`] and stay owed, without failure rows.
    pub stop: Option<&'a dyn Fn() -> bool>,
}

/// What happened to one step.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Calls made and records written.
    Done {
        calls: u32,
        usage: Usage,
        records: usize,
    },
    Template,
    Reuse,
    Skipped(StepStatus),
    /// A call-needing step after a fatal status.
    NotAttempted,
    /// A call-needing step not begun because the user stopped the run.
    Stopped,
    Failed {
        calls: u32,
        message: String,
    },
    /// Calls made and answered, but the book refused the records (or had
    /// already refused a write): they are in [`RunResult::unsaved`].
    Unsaved {
        calls: u32,
        usage: Usage,
        records: usize,
    },
}

/// One finished step, for progress displays.
#[derive(Clone, Debug)]
pub struct StepEvent {
    /// 1-based count of finished steps.
    pub done: usize,
    pub total: usize,
    pub level: Level,
    pub unit_id: String,
    pub members: usize,
    pub outcome: Outcome,
}

impl StepEvent {
    /// `[<k>/<N>] <level> <unit id>[ (+<m-1> in cycle)]: <outcome>`.
    pub fn line(&self) -> String {
        let cycle = if self.members > 1 { format!(" (+{} in cycle)", self.members - 1) } else { String::new() };
        let outcome = match &self.outcome {
            Outcome::Done { calls, usage, .. } => format!(
                "{calls} call{}, {}+{} tokens",
                if *calls == 1 { "" } else { "s" },
                usage.prompt_tokens,
                usage.completion_tokens
            ),
            Outcome::Template => "template".into(),
            Outcome::Reuse => "reuse".into(),
            Outcome::Skipped(s) => s.as_str().into(),
            Outcome::NotAttempted => "not attempted (run aborted)".into(),
            Outcome::Stopped => "not begun (run stopped)".into(),
            Outcome::Failed { message, .. } => format!("FAILED {message}"),
            Outcome::Unsaved { calls, .. } => format!(
                "{calls} call{}, answered but NOT SAVED (the store refused the write; kept for the rescue file)",
                if *calls == 1 { "" } else { "s" }
            ),
        };
        format!("[{}/{}] {} {}{cycle}: {outcome}", self.done, self.total, self.level.as_str(), self.unit_id)
    }
}

/// Counts of a run (§8): `llm` counts records, `template`, `failed`
/// and `skipped` count units, `reused` counts members.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounts {
    pub records: u64,
    pub llm: u64,
    pub template: u64,
    pub reused: u64,
    pub failed: u64,
    pub skipped: u64,
    pub calls: u64,
}

/// Why a run stopped sending calls.
#[derive(Clone, Debug, PartialEq)]
pub struct Abort {
    pub unit: String,
    pub reason: FailureReason,
    pub not_attempted: u64,
}

/// The end of a run.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub counts: RunCounts,
    pub usage: Usage,
    /// Owed failures (this run's and carried ones), side-car order.
    pub failures: Vec<FailureRecord>,
    pub aborted: Option<Abort>,
    /// Errors of the record book (a store that refused a write). The first
    /// one halts the run like a fatal provider status: calls in flight
    /// settle, no further call starts; their answers are in `unsaved`.
    pub book_errors: Vec<String>,
    /// Records that were paid for (or templated) but that the book refused
    /// or that were answered after it failed: the shell keeps them
    /// elsewhere (a rescue side-car), since the store cannot take them.
    pub unsaved: Vec<InsightRecord>,
    /// Failure rows the book refused, kept for the same rescue.
    pub unsaved_failures: Vec<FailureRecord>,
    /// The user stopped the run before every step was begun.
    pub stopped: bool,
    /// `(model, output mode)` for each of the plan's models the completer
    /// knows a mode for ([`Completer::output_mode`]): leaf first.
    pub output_modes: Vec<(String, String)>,
}

struct State {
    counts: RunCounts,
    usage: Usage,
    failures: Vec<FailureRecord>,
    abort: Option<Abort>,
    done: usize,
    book_errors: Vec<String>,
    unsaved: Vec<InsightRecord>,
    unsaved_failures: Vec<FailureRecord>,
    /// The user stopped the run (some steps were not begun).
    stopped: bool,
}

impl State {
    /// No further call starts: a fatal status, or a book that refused a write.
    fn halted(&self) -> bool {
        self.abort.is_some() || !self.book_errors.is_empty()
    }

    /// Hands a finished unit to the book, unless it already failed: then
    /// (and when this put fails) the records are kept in `unsaved`.
    fn put(&mut self, book: &RefCell<&mut dyn RecordBook>, unit_id: &str, records: Vec<InsightRecord>) -> bool {
        if self.book_errors.is_empty() {
            match book.borrow_mut().put(unit_id, &records) {
                Ok(()) => return true,
                Err(e) => self.book_errors.push(e),
            }
        }
        self.unsaved.extend(records);
        false
    }
}

/// One call's answer, validated: (id, block) pairs and the usage share.
struct Answered {
    blocks: Vec<(String, Block)>,
    model: String,
    usage: Option<Usage>,
}

fn share(usage: &Option<Usage>, n: usize) -> Option<Usage> {
    let u = usage.as_ref()?;
    let n = n.max(1) as f64;
    // JavaScript Math.round: halves round up.
    let round = |x: u64| ((x as f64 / n) + 0.5).floor() as u64;
    Some(Usage {
        prompt_tokens: round(u.prompt_tokens),
        completion_tokens: round(u.completion_tokens),
        cost: u.cost.map(|c| c / n),
    })
}

fn request(unit: &str, prompt: &Prompt, model: &str, level: Level, max_tokens: Option<u32>) -> CompletionRequest {
    let ids: Vec<&str> = prompt.member_ids.iter().map(String::as_str).collect();
    let schema = match prompt.shape {
        Shape::Block => block_schema(level),
        Shape::Scc => cycle_schema(level, &ids),
    };
    CompletionRequest {
        asking: Asking {
            unit: unit.to_owned(),
            level,
            members: prompt.member_ids.clone(),
            cycle: prompt.shape == Shape::Scc,
        },
        model: model.to_owned(),
        system: prompt.system.clone(),
        user: prompt.user.clone(),
        schema_name: prompt.schema_name.clone(),
        schema,
        max_tokens,
    }
}

fn validate(prompt: &Prompt, level: Level, json: &serde_json::Value) -> Result<Vec<(String, Block)>, String> {
    match prompt.shape {
        Shape::Block => validate_block(level, json)
            .map(|b| vec![(prompt.member_ids[0].clone(), b)])
            .map_err(|i| validation_text(&i)),
        Shape::Scc => {
            let ids: Vec<&str> = prompt.member_ids.iter().map(String::as_str).collect();
            validate_cycle(level, &ids, json).map_err(|i| validation_text(&i))
        }
    }
}

/// Why one prompt failed: the reason and the calls it made.
struct PromptFailure {
    reason: FailureReason,
    /// Never sent ([`CompletionError::withdrawn`]): the step ends as not begun.
    withdrawn: bool,
    /// The completer said no further call should start.
    stops_run: bool,
}

fn reason_of(e: CompletionError) -> FailureReason {
    if e.status.is_some() || e.retryable.is_some() {
        FailureReason { kind: FailureKind::Provider, message: e.message, status: e.status, retryable: e.retryable }
    } else {
        FailureReason { kind: FailureKind::Error, message: e.message, status: None, retryable: None }
    }
}

/// Asks one prompt, with one repair re-ask after an invalid answer.
async fn ask(
    completer: &dyn Completer,
    prompt: &Prompt,
    model: &str,
    unit: &Unit,
    max_tokens: Option<u32>,
    calls: &mut u32,
    usage: &mut Usage,
) -> Result<Answered, PromptFailure> {
    let level = unit.level;
    let mut req = request(&unit.id, prompt, model, level, max_tokens);
    let mut repaired = false;
    loop {
        // A call the provider refused (an HTTP error, no answer) is not a
        // call: only answers count (docs/formats/units-and-walk.md §8: a 402
        // has `calls: 0`).
        let completion = match completer.complete(req.clone()).await {
            Ok(c) => c,
            Err(e) => {
                // An answer that came back but cannot be used (not JSON, cut at the
                // cap: no status, final) was billed, so it is a call; a refusal
                // (a status) or no answer at all is not.
                if e.status.is_none() && e.retryable == Some(false) {
                    *calls += 1;
                }
                return Err(PromptFailure { stops_run: e.stops_run, withdrawn: e.withdrawn, reason: reason_of(e) });
            }
        };
        *calls += 1;
        if let Some(u) = &completion.usage {
            usage.add(u);
        }
        match validate(prompt, level, &completion.json) {
            Ok(blocks) => return Ok(Answered { blocks, model: completion.model, usage: completion.usage }),
            Err(text) if !repaired => {
                repaired = true;
                req.user = repair_message(&prompt.user, &text);
            }
            Err(text) => {
                return Err(PromptFailure {
                    stops_run: false,
                    withdrawn: false,
                    reason: FailureReason {
                        kind: FailureKind::InvalidAnswer,
                        message: format!("the answer was still invalid after one repair: {text}"),
                        status: None,
                        retryable: None,
                    },
                })
            }
        }
    }
}

fn record_envelope(corpus: &Corpus, id: &str, level: Level) -> (String, Option<String>, Option<String>) {
    match level {
        Level::Operation => match corpus.operation(id) {
            Some((op, _)) => (
                op.kind.to_string(),
                op.name.as_ref().map(|n| n.to_string()),
                op.anchor.as_ref().map(|a| a.file.to_string()),
            ),
            None => ("operation".into(), None, None),
        },
        Level::Type => match corpus.dossier(id) {
            Some(d) => (
                d.kind.to_string(),
                d.name.as_ref().map(|n| n.to_string()),
                d.anchor.as_ref().map(|a| a.file.to_string()),
            ),
            None => ("type".into(), None, None),
        },
        Level::Module => {
            (corpus.module_kind(id), corpus.module_fact(id).and_then(|m| m.name.as_ref().map(|n| n.to_string())), None)
        }
    }
}

/// Runs `plan` (§8): returns when every layer has settled.
pub async fn run(
    corpus: &Corpus<'_>,
    plan: &RunPlan,
    plan_options: &PlanOptions,
    slicer: &SourceSlicer<'_>,
    book: &mut dyn RecordBook,
    completer: &dyn Completer,
    options: &RunOptions<'_>,
) -> RunResult {
    let book: RefCell<&mut dyn RecordBook> = RefCell::new(book);
    let state = RefCell::new(State {
        counts: RunCounts::default(),
        usage: Usage::default(),
        failures: Vec::new(),
        abort: None,
        done: 0,
        book_errors: Vec::new(),
        unsaved: Vec::new(),
        unsaved_failures: Vec::new(),
        stopped: false,
    });
    let total = plan.steps.len();
    let walk = &corpus.walk;
    let mut by_layer: Vec<Vec<&PlanStep>> = vec![Vec::new(); walk.layers.len()];
    for s in &plan.steps {
        by_layer[walk.units[s.unit].layer as usize].push(s);
    }
    for steps in by_layer {
        let width = options.concurrency.max(1);
        let mut pending = stream::iter(
            steps
                .into_iter()
                .map(|step| run_step(corpus, plan, plan_options, slicer, &state, &book, completer, options, step)),
        )
        .buffer_unordered(width);
        while let Some(event) = pending.next().await {
            let mut st = state.borrow_mut();
            st.done += 1;
            let event = StepEvent { done: st.done, total, ..event };
            drop(st);
            (options.on_step)(&event);
        }
    }
    let mut st = state.into_inner();
    // Owed failures: this run's, plus earlier ones for units not attempted whose members still lack a record.
    let failed_now: hashbrown::HashSet<String> = st.failures.iter().map(|f| f.id.clone()).collect();
    for (id, f) in &options.previous_failures {
        if failed_now.contains(id) {
            continue;
        }
        let Some(step) = walk.unit_index(id).and_then(|i| plan.steps.iter().find(|s| s.unit == i)) else { continue };
        let unit = &walk.units[step.unit];
        let not_attempted = matches!(step.status, StepStatus::SkipScope | StepStatus::SkipBudget)
            || (step.status == StepStatus::Llm && (st.halted() || st.stopped) && !explained(&**book.borrow(), unit));
        if not_attempted && !explained(&**book.borrow(), unit) {
            st.failures.push(f.clone());
        }
    }
    st.failures.sort_by(|a, b| (a.level as u8).cmp(&(b.level as u8)).then_with(|| model::cmp_utf16(&a.id, &b.id)));
    st.counts.records = book.borrow().size() as u64;
    let models = &plan_options.models;
    let mut output_modes: Vec<(String, String)> = Vec::new();
    for model in [&models.leaf, &models.rollup] {
        if output_modes.iter().all(|(m, _)| m != model) {
            if let Some(mode) = completer.output_mode(model) {
                output_modes.push((model.clone(), mode));
            }
        }
    }
    RunResult {
        counts: st.counts,
        usage: st.usage,
        failures: st.failures,
        aborted: st.abort,
        book_errors: st.book_errors,
        unsaved: st.unsaved,
        unsaved_failures: st.unsaved_failures,
        stopped: st.stopped,
        output_modes,
    }
}

fn explained(book: &dyn RecordBook, unit: &Unit) -> bool {
    unit.members.iter().all(|m| book.fingerprint(m).is_some())
}

#[allow(clippy::too_many_arguments)]
async fn run_step(
    corpus: &Corpus<'_>,
    plan: &RunPlan,
    plan_options: &PlanOptions,
    slicer: &SourceSlicer<'_>,
    state: &RefCell<State>,
    book: &RefCell<&mut dyn RecordBook>,
    completer: &dyn Completer,
    options: &RunOptions<'_>,
    step: &PlanStep,
) -> StepEvent {
    let unit = &corpus.walk.units[step.unit];
    let event = |outcome: Outcome| StepEvent {
        done: 0,
        total: 0,
        level: unit.level,
        unit_id: unit.id.clone(),
        members: unit.members.len(),
        outcome,
    };
    match step.status {
        StepStatus::Template => {
            let (op, dossier) = corpus.operation(&unit.id).expect("a templated unit is an operation");
            let kind = step.template.expect("template status has a kind");
            let (k, name, file) = record_envelope(corpus, &unit.id, Level::Operation);
            let record = InsightRecord {
                id: unit.id.clone(),
                key: (options.key_of)(&unit.id),
                level: Level::Operation,
                kind: k,
                name,
                file,
                scc: None,
                origin: Origin::Template,
                block: Block::Operation(templated_block(kind, op, dossier)),
                fingerprint: step.fingerprint.clone(),
                model: None,
                usage: None,
                metadata: None,
            };
            let mut st = state.borrow_mut();
            if st.put(book, &unit.id, vec![record]) {
                st.counts.template += 1;
            }
            event(Outcome::Template)
        }
        StepStatus::Reuse => {
            state.borrow_mut().counts.reused += unit.members.len() as u64;
            event(Outcome::Reuse)
        }
        StepStatus::SkipScope | StepStatus::SkipBudget => {
            state.borrow_mut().counts.skipped += 1;
            event(Outcome::Skipped(step.status))
        }
        StepStatus::Llm => {
            if state.borrow().halted() {
                let mut st = state.borrow_mut();
                st.counts.skipped += 1;
                if let Some(a) = st.abort.as_mut() {
                    a.not_attempted += 1;
                }
                return event(Outcome::NotAttempted);
            }
            if options.stop.is_some_and(|stop| stop()) {
                let mut st = state.borrow_mut();
                st.counts.skipped += 1;
                st.stopped = true;
                return event(Outcome::Stopped);
            }
            // Pack now, against the book as it stands: dependencies explained
            // earlier in this run are quoted.
            let (pack, fingerprint) = {
                let book = book.borrow();
                let records: &dyn RecordSource = &**book;
                let pack = corpus.pack(unit, plan_options.depth, slicer, records);
                let missing: Vec<&str> = unit
                    .deps
                    .iter()
                    .map(|d| &**d)
                    .filter(|d| {
                        corpus.walk.unit(d).is_none_or(|du| du.members.iter().any(|m| records.fingerprint(m).is_none()))
                    })
                    .collect();
                let planned: Vec<&str> =
                    unit.deps.iter().map(|d| plan.fingerprints.get(&**d).map_or("", String::as_str)).collect();
                let fingerprint = unit_fingerprint(unit, &pack, plan_options.depth, &step.model, &missing, &planned);
                (pack, fingerprint)
            };
            let mut calls = 0u32;
            let mut usage = Usage::default();
            let mut answers = Vec::new();
            let mut failure = None;
            let mut withdrawn = false;
            let prompts = crate::prompt::prompts(&pack, plan_options.max_scc);
            let asked = prompts.len();
            for prompt in prompts {
                let prompt = &prompt;
                if state.borrow().halted() {
                    break; // no further call starts after a fatal status or a refused write
                }
                match ask(completer, prompt, &step.model, unit, options.max_tokens, &mut calls, &mut usage).await {
                    Ok(a) => answers.push(a),
                    Err(f) if f.withdrawn => {
                        withdrawn = true;
                        break;
                    }
                    Err(f) => {
                        failure = Some((f.reason, f.stops_run));
                        break;
                    }
                }
            }
            let mut st = state.borrow_mut();
            st.counts.calls += calls as u64;
            st.usage.add(&usage);
            // The records of the prompts answered (all of them, or the first of a
            // cycle's chunks when the run halted or a later chunk failed).
            let answered = answers.len();
            let scc = (unit.members.len() > 1).then(|| unit.members.clone());
            let mut records = Vec::new();
            for answer in std::mem::take(&mut answers) {
                let n = answer.blocks.len();
                let part = share(&answer.usage, n);
                for (id, block) in answer.blocks {
                    let (kind, name, file) = record_envelope(corpus, &id, unit.level);
                    records.push(InsightRecord {
                        key: (options.key_of)(&id),
                        id,
                        level: unit.level,
                        kind,
                        name,
                        file,
                        scc: scc.clone(),
                        origin: Origin::Llm,
                        block,
                        fingerprint: fingerprint.clone(),
                        model: Some(answer.model.clone()),
                        usage: part,
                        metadata: None,
                    });
                }
            }
            if withdrawn && records.is_empty() {
                // Stopped while it waited to be sent: not begun, still owed.
                st.counts.skipped += 1;
                st.stopped = true;
                return event(Outcome::Stopped);
            }
            if failure.is_none() && answered < asked {
                st.counts.skipped += 1;
                if let Some(a) = st.abort.as_mut() {
                    a.not_attempted += 1;
                }
                if records.is_empty() {
                    // The run halted before this unit's first call: it was never asked.
                    return event(Outcome::NotAttempted);
                }
                // Halted between a cycle's prompts: the answers already paid for
                // cannot be committed as the unit (it is committed whole), so they
                // are kept for the rescue side-car.
                let n = records.len();
                st.unsaved.extend(records);
                return event(Outcome::Unsaved { calls, usage, records: n });
            }
            if let Some((reason, stops_run)) = failure {
                // Chunks of a cycle answered before one failed were paid for:
                // kept for the rescue side-car (the unit is committed whole).
                st.unsaved.extend(std::mem::take(&mut records));
                let attempts = options.previous_failures.get(&unit.id).map_or(1, |f| f.attempts + 1);
                let record = FailureRecord {
                    id: unit.id.clone(),
                    key: (options.key_of)(&unit.id),
                    level: unit.level,
                    members: unit.members.clone(),
                    model: step.model.clone(),
                    reason: reason.clone(),
                    attempts,
                    calls,
                    usage: (!usage.is_zero()).then_some(usage),
                };
                st.counts.failed += 1;
                if st.book_errors.is_empty() {
                    if let Err(e) = book.borrow_mut().fail(&record) {
                        st.book_errors.push(e);
                        st.unsaved_failures.push(record.clone());
                    }
                } else {
                    st.unsaved_failures.push(record.clone());
                }
                st.failures.push(record);
                if st.abort.is_none() && (stops_run || reason.status.is_some_and(|s| FATAL_STATUSES.contains(&s))) {
                    st.abort = Some(Abort { unit: unit.id.clone(), reason: reason.clone(), not_attempted: 0 });
                }
                return event(Outcome::Failed { calls, message: reason.message });
            }
            let n = records.len();
            if !st.put(book, &unit.id, records) {
                return event(Outcome::Unsaved { calls, usage, records: n });
            }
            st.counts.llm += n as u64;
            event(Outcome::Done { calls, usage, records: n })
        }
    }
}

/// A record book in memory: records by id, failures by unit id.
#[derive(Clone, Debug, Default)]
pub struct MemoryBook {
    pub records: HashMap<String, InsightRecord>,
    pub failures: HashMap<String, FailureRecord>,
    /// Unit ids in the order they were put.
    pub puts: Vec<String>,
}

impl MemoryBook {
    /// Every record in side-car order (level rank, then id in UTF-16 order).
    pub fn sorted(&self) -> Vec<&InsightRecord> {
        let mut v: Vec<&InsightRecord> = self.records.values().collect();
        v.sort_by(|a, b| (a.level as u8).cmp(&(b.level as u8)).then_with(|| model::cmp_utf16(&a.id, &b.id)));
        v
    }
}

impl RecordSource for MemoryBook {
    fn fingerprint(&self, id: &str) -> Option<String> {
        self.records.get(id).map(|r| r.fingerprint.clone())
    }
    fn summary(&self, id: &str) -> Option<crate::records::RecordSummary> {
        self.records.get(id).map(crate::records::RecordSummary::of)
    }
    fn size(&self) -> usize {
        self.records.len()
    }
}

impl RecordBook for MemoryBook {
    fn put(&mut self, unit_id: &str, records: &[InsightRecord]) -> Result<(), String> {
        for r in records {
            self.records.insert(r.id.clone(), r.clone());
        }
        self.failures.remove(unit_id);
        self.puts.push(unit_id.to_owned());
        Ok(())
    }
    fn fail(&mut self, failure: &FailureRecord) -> Result<(), String> {
        self.failures.insert(failure.id.clone(), failure.clone());
        Ok(())
    }
}
