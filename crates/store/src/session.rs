//! A run on top of the store, written once for every shell (the CLI and the
//! page's Worker): close what a dead writer left open, plan against the
//! store, begin a run, execute it with every finished unit committed, and
//! end it — finished with its trailer, or, when the store refused a write,
//! closed with the reason and the answers it could not take handed back as
//! a rescue side-car. The shells supply the store (a file or OPFS), the
//! completer, the clock (`started_at` / `finished_at`) and where narration
//! goes (`on_step`); they export the side-car and word the summary.

use insights::complete::Completer;
use insights::plan::{PlanOptions, RunPlan};
use insights::record::{FailureRecord, SidecarHeader, Trailer};
use insights::run::{RunOptions, RunResult, StepEvent};
use insights::slice::SourceSlicer;
use insights::units::Corpus;

use crate::{BeginRun, FinishRun, RunHandle, Store, StoreBook, StoreError};

/// What a run begins with, besides the store.
pub struct Begin<'a> {
    pub corpus: &'a Corpus<'a>,
    pub slicer: &'a SourceSlicer<'a>,
    pub options: &'a PlanOptions,
    /// The provider's name (`openrouter`, `cloudflare/…`, `demo`); `None`
    /// keeps the one the store's header names.
    pub provider: Option<String>,
    /// The model as the user named it (a path, a file name or a URL).
    pub model_path: String,
    /// The writing process (natively); `None` in a browser.
    pub pid: Option<u32>,
    /// ISO-8601, from the shell's clock.
    pub started_at: String,
}

/// How a run calls and narrates, besides the plan.
pub struct Execute<'a> {
    pub completer: &'a dyn Completer,
    pub concurrency: usize,
    pub max_tokens: Option<u32>,
    pub on_step: &'a dyn Fn(&StepEvent),
    /// Asked before each call-needing step: `true` stops there (a user's stop).
    pub stop: Option<&'a dyn Fn() -> bool>,
}

/// How a run ended in the store.
#[derive(Debug)]
pub enum Ending {
    /// Finished: the trailer written, the owed failures stored; `rescue`
    /// holds answers paid for that could not be committed (the chunks of a
    /// cycle answered before the run halted or a later chunk failed).
    Finished { eof: Trailer, rescue: Option<String> },
    /// The store refused a write, so the run stopped: it is closed with
    /// the reason, and what the store could not take is `rescue` (a
    /// side-car without trailer, to be kept elsewhere and merged later).
    StoreRefused { error: String, rescue: Option<String> },
}

/// A run begun on a store: closed as `interrupted` if it is dropped without
/// [`StoreRun::finish`] (an error, a panic unwinding), so the ledger never
/// shows a dead run as live.
pub struct StoreRun<'s> {
    store: &'s Store,
    book: StoreBook<'s>,
    handle: RunHandle,
    header: SidecarHeader,
    plan: RunPlan,
    previous_failures: hashbrown::HashMap<String, FailureRecord>,
    open: bool,
}

impl<'s> StoreRun<'s> {
    /// Plans against what the store holds now (it may hold more than the plan
    /// shown before: another tab, an adopted side-car) and begins a run.
    pub fn begin(store: &'s Store, b: &Begin<'_>) -> Result<StoreRun<'s>, StoreError> {
        let previous_failures = store.failures()?.into_iter().map(|f| (f.id.clone(), f)).collect();
        let mut book = StoreBook::new(store)?;
        let plan = insights::plan::plan_run(b.corpus, b.slicer, &book, b.options);
        let provider = b.provider.clone().or_else(|| store.header().ok().flatten().and_then(|h| h.provider));
        let header = insights::session::header(b.corpus, b.options, provider.as_deref(), &b.model_path);
        let handle =
            store.begin_run(&BeginRun { header: header.clone(), started_at: b.started_at.clone(), pid: b.pid })?;
        book.begin(handle);
        Ok(StoreRun { store, book, handle, header, plan, previous_failures, open: true })
    }

    /// The plan the run executes.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// The header the run began with (a rescue side-car's).
    pub fn header(&self) -> &SidecarHeader {
        &self.header
    }

    /// The run's ledger handle.
    pub fn handle(&self) -> RunHandle {
        self.handle
    }

    /// Runs the plan: every finished unit is committed before `on_step`
    /// hears of it; failures are stored the moment they happen.
    pub async fn execute(
        &mut self,
        corpus: &Corpus<'_>,
        slicer: &SourceSlicer<'_>,
        options: &PlanOptions,
        x: Execute<'_>,
    ) -> RunResult {
        let key_of = |id: &str| insights::session::natural_key(corpus, id);
        let run_options = RunOptions {
            concurrency: x.concurrency.max(1),
            max_tokens: x.max_tokens,
            previous_failures: std::mem::take(&mut self.previous_failures),
            key_of: &key_of,
            on_step: x.on_step,
            stop: x.stop,
        };
        insights::run::run(corpus, &self.plan, options, slicer, &mut self.book, x.completer, &run_options).await
    }

    /// Ends the run: finished (trailer, owed failures, calls, the abort
    /// reason), or — when the store refused a write — closed with that
    /// reason and the rescue side-car handed back.
    pub fn finish(mut self, result: &RunResult, finished_at: String) -> Result<Ending, StoreError> {
        if let Some(first) = result.book_errors.first() {
            let error = first.clone();
            if self.store.close_run(self.handle.id, &format!("store refused a write: {error}")).unwrap_or(false) {
                self.open = false;
            }
            return Ok(Ending::StoreRefused { error, rescue: insights::session::rescue_sidecar(&self.header, result) });
        }
        let eof = insights::session::trailer(result, self.store.count()?, finished_at);
        self.store.finish_run(
            self.handle,
            &FinishRun {
                eof: eof.clone(),
                failures: result.failures.clone(),
                calls: Some(result.counts.calls),
                aborted: insights::session::aborted_text(result),
                output_modes: result.output_modes.clone(),
            },
        )?;
        self.open = false;
        Ok(Ending::Finished { eof, rescue: insights::session::rescue_sidecar(&self.header, result) })
    }
}

impl Drop for StoreRun<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.store.close_run(self.handle.id, "interrupted");
        }
    }
}
