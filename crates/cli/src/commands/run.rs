//! A real `explain` run on top of the store (insights.md §16.8): load what
//! exists, confirm the spending, begin a run, execute with every finished
//! unit committed, finish the run, export the side-car atomically, report.
//! Also `--export` and `--import`.

use super::explain::{ExplainArgs, ProviderChoice};
use crate::Failure;
use insights::complete::Completer;
use insights::plan::{PlanOptions, RunPlan};
use insights::record::FailureRecord;
use insights::records::{MemoryRecords, NoRecords, RecordSource, RecordSummary};
use insights::report::Prices;
use insights::run::{RunOptions, RunResult, StepEvent};
use insights::sidecar::{self, Sidecar};
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use store::{BeginRun, ExportStamp, FinishRun, Store, StoreBook};

/// The side-car and the store beside a model.
pub struct Paths {
    pub sidecar: PathBuf,
    pub store: PathBuf,
}

impl Paths {
    pub fn of(args: &ExplainArgs) -> Paths {
        Paths::for_model(&args.model, args.out.as_deref())
    }

    /// `<model>.insights.jsonl` (or `out`) and the store beside it.
    pub fn for_model(model: &Path, out: Option<&Path>) -> Paths {
        let sidecar = out.map(Path::to_owned).unwrap_or_else(|| store::sidecar_path_for(model));
        let store = store::store_path_for(&sidecar);
        Paths { sidecar, store }
    }
}

fn store_error(e: store::StoreError) -> Failure {
    Failure::Usage(e.to_string())
}

/// What was explained before this run: the store (read-only), else the
/// side-car in memory; nothing is created.
pub enum Existing {
    Store { store: ReadStore, failures: Vec<FailureRecord> },
    Sidecar(Box<Sidecar>, MemoryRecords),
    Nothing,
}

impl Existing {
    pub fn load(paths: &Paths) -> Result<Existing, Failure> {
        if paths.store.is_file() {
            let store = Store::open_reader(&paths.store);
            match store {
                Ok(store) if !store.is_empty().map_err(store_error)? => {
                    let failures = store.failures().map_err(store_error)?;
                    let fingerprints = store.fingerprints().map_err(store_error)?;
                    return Ok(Existing::Store { store: ReadStore { store, fingerprints }, failures });
                }
                Ok(_) => {}
                Err(store::StoreError::Empty { .. }) => {}
                Err(e) => return Err(store_error(e)),
            }
        }
        if paths.sidecar.is_file() {
            let text = std::fs::read_to_string(&paths.sidecar)
                .map_err(|e| Failure::Usage(format!("{}: cannot be read: {e}", paths.sidecar.display())))?;
            let sc = sidecar::decode(&paths.sidecar.display().to_string(), &text)
                .map_err(|e| Failure::Usage(e.to_string()))?;
            if sc.truncated {
                eprintln!(
                    "{} is truncated: its {} intact records will be reused and the remaining units redone",
                    paths.sidecar.display(),
                    sc.records.len()
                );
            }
            let mut mem = MemoryRecords::default();
            for r in &sc.records {
                mem.insert(r.id.clone(), r.fingerprint.clone(), RecordSummary::of(r));
            }
            return Ok(Existing::Sidecar(Box::new(sc), mem));
        }
        Ok(Existing::Nothing)
    }

    pub fn found(&self) -> bool {
        !matches!(self, Existing::Nothing)
    }

    pub fn failures(&self) -> Vec<FailureRecord> {
        match self {
            Existing::Store { failures, .. } => failures.clone(),
            Existing::Sidecar(sc, _) => sc.failures.clone(),
            Existing::Nothing => Vec::new(),
        }
    }

    /// The header of the store or side-car: the models and depth records were made with.
    pub fn header(&self) -> Result<Option<insights::record::SidecarHeader>, Failure> {
        match self {
            Existing::Store { store, .. } => store.store.header().map_err(store_error),
            Existing::Sidecar(sc, _) => Ok(Some(sc.header.clone())),
            Existing::Nothing => Ok(None),
        }
    }

    /// Every record's `(id, description)`.
    pub fn descriptions(&self) -> Result<Vec<(String, String)>, Failure> {
        match self {
            Existing::Store { store, .. } => Ok(store
                .store
                .query(&store::Query::default())
                .map_err(store_error)?
                .into_iter()
                .map(|r| (r.id, r.description))
                .collect()),
            Existing::Sidecar(sc, _) => {
                Ok(sc.records.iter().map(|r| (r.id.clone(), r.block.description().to_owned())).collect())
            }
            Existing::Nothing => Ok(Vec::new()),
        }
    }

    pub fn records(&self) -> &dyn RecordSource {
        match self {
            Existing::Store { store, .. } => store,
            Existing::Sidecar(_, mem) => mem,
            Existing::Nothing => &NoRecords,
        }
    }
}

mod store_fingerprints {
    /// The map the store hands out.
    pub type Map = hashbrown::HashMap<String, String>;
}

/// A store opened read-only for planning: fingerprints read once, summaries on demand.
pub struct ReadStore {
    store: Store,
    fingerprints: store_fingerprints::Map,
}

impl RecordSource for ReadStore {
    fn fingerprint(&self, id: &str) -> Option<String> {
        self.fingerprints.get(id).cloned()
    }
    fn summary(&self, id: &str) -> Option<RecordSummary> {
        self.store.summary(id).ok().flatten()
    }
    fn size(&self) -> usize {
        self.fingerprints.len()
    }
}

/// Writes the side-car from the store, atomically (temp file + rename).
fn write_sidecar(store: &Store, path: &Path) -> Result<(), Failure> {
    let tmp = path.with_extension("jsonl.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| Failure::Usage(format!("{}: {e}", tmp.display())))?;
    let w = store.export_to(std::io::BufWriter::with_capacity(1 << 20, file)).map_err(store_error)?;
    let file = w.into_inner().map_err(|e| Failure::Usage(format!("{}: {e}", tmp.display())))?;
    file.sync_all().map_err(|e| Failure::Usage(format!("{}: {e}", tmp.display())))?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let meta = std::fs::metadata(path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    store
        .mark_exported(&ExportStamp { path: path.display().to_string(), size: meta.len(), mtime_ms })
        .map_err(store_error)
}

/// `--export`: the side-car from the store as it stands.
pub fn export(paths: &Paths) -> Result<(), Failure> {
    if !paths.store.is_file() {
        return Err(Failure::Usage(format!("{}: no insights store to export", paths.store.display())));
    }
    let store = Store::open_writer(&paths.store).map_err(store_error)?;
    write_sidecar(&store, &paths.sidecar)?;
    eprintln!("exported {} records to {}", store.count().map_err(store_error)?, paths.sidecar.display());
    Ok(())
}

fn confirm(question: &str) -> bool {
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
}

fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// `--import FILE`: replaces the store's records with the side-car's.
pub fn import(paths: &Paths, file: &Path, yes: bool) -> Result<(), Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Usage(format!("{}: cannot be read: {e}", file.display())))?;
    let sc = sidecar::decode(&file.display().to_string(), &text).map_err(|e| Failure::Usage(e.to_string()))?;
    let store = Store::open_writer(&paths.store).map_err(store_error)?;
    let held = store.count().map_err(store_error)?;
    if held > 0 && !yes {
        let q = format!(
            "{} holds {held} paid-for records; replace them with the {} records of {}?",
            paths.store.display(),
            sc.records.len(),
            file.display()
        );
        if !can_ask() {
            return Err(Failure::Usage(format!(
                "importing would replace {held} records in {} and there is no terminal to confirm on\nhint: pass --yes",
                paths.store.display()
            )));
        }
        if !confirm(&q) {
            eprintln!("nothing was imported");
            return Ok(());
        }
    }
    store.import(&sc).map_err(store_error)?;
    if file == paths.sidecar {
        write_sidecar(&store, &paths.sidecar)?;
    }
    eprintln!(
        "imported {} records and {} failures into {}",
        sc.records.len(),
        sc.failures.len(),
        paths.store.display()
    );
    Ok(())
}

/// Now as ISO-8601 (UTC, milliseconds), from the system clock.
fn now_iso() -> String {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (secs, ms) = (d.as_secs() as i64, d.subsec_millis());
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// The completer the flags ask for, and a line saying which it is.
fn completer(args: &ExplainArgs, calls: u64) -> Result<(Box<dyn Completer>, String, String), Failure> {
    let choice = match args.provider {
        ProviderChoice::Demo => {
            return Ok((Box::new(llm::demo::DemoCompleter), "demo".into(), "the offline demo, not an LLM".into()))
        }
        ProviderChoice::Auto => "auto",
        ProviderChoice::Openrouter => "openrouter",
        ProviderChoice::Cloudflare => "cloudflare",
        ProviderChoice::CloudflareGateway => "cloudflare-gateway",
        ProviderChoice::OpenaiCompatible => "openai-compatible",
    };
    let choice = llm::ProviderChoice::parse(choice, args.base_url.as_deref()).map_err(Failure::Usage)?;
    let (config, reason) = llm::resolve_provider(&choice, &llm::provider::process_env).map_err(|e| {
        Failure::Usage(format!(
            "{e}; this run needs {calls} model call(s)\nhint: --dry-run shows the plan without calling (models: {}{})",
            args.leaf_model,
            args.rollup_model.as_ref().map(|r| format!(", {r}")).unwrap_or_default()
        ))
    })?;
    let name = config.name().to_string();
    let mut client = llm::client(config).on_retry(|n| {
        eprintln!(
            "  retrying in {:.1} s (attempt {} failed: {})",
            n.wait_ms as f64 / 1000.0,
            n.attempt,
            n.error.message
        )
    });
    if let Some(mode) = &args.output_mode {
        let mode = llm::OutputMode::parse(mode).ok_or_else(|| {
            Failure::Usage(format!("--output-mode {mode:?} is not one of json-schema, json-object, prompt-only"))
        })?;
        client = client.with_mode(mode);
    }
    Ok((Box::new(client), name, reason))
}

/// Everything a real run needs.
pub struct Execute<'a> {
    pub args: &'a ExplainArgs,
    pub paths: &'a Paths,
    pub corpus: &'a Corpus<'a>,
    pub slicer: &'a SourceSlicer<'a>,
    pub options: &'a PlanOptions,
    pub plan: RunPlan,
    pub estimate: String,
    pub prices: Option<Prices>,
}

pub fn execute(x: Execute<'_>) -> Result<Result<(), Failure>, Failure> {
    let args = x.args;
    let calls = x.plan.estimates.total.calls;
    let (completer, provider, reason) = if calls > 0 {
        let (c, name, reason) = completer(args, calls)?;
        (Some(c), name, reason)
    } else {
        (None, String::new(), String::new())
    };
    if let Some(c) = &completer {
        eprintln!("provider: {} ({reason})", c.name());
    }
    if calls > 0 && !args.yes {
        let e = &x.plan.estimates.total;
        if !can_ask() {
            return Err(Failure::Usage(format!(
                "this run would make {calls} model call(s) (~{} input and ~{} output tokens) and there is no terminal to confirm on\nhint: pass --yes to run, or --estimate to see the figures first",
                e.prompt_tokens, e.completion_tokens
            )));
        }
        eprintln!("{}", x.estimate);
        let cost = x
            .prices
            .and_then(|p| insights::estimate::cost(e.prompt_tokens, e.completion_tokens, p.input, p.output))
            .map(|c| format!(", ~${c:.4}"))
            .unwrap_or_default();
        if !confirm(&format!(
            "Run {calls} model call(s) (~{} input, ~{} output tokens{cost})?",
            e.prompt_tokens, e.completion_tokens
        )) {
            eprintln!("no call was made and nothing was written");
            return Ok(Ok(()));
        }
    }

    // Write: open or create the store, adopt a side-car met for the first time, close dead runs.
    let store = Store::open_writer(&x.paths.store).map_err(store_error)?;
    if store.is_empty().map_err(store_error)? && x.paths.sidecar.is_file() {
        let sc = store.import_file(&x.paths.sidecar).map_err(store_error)?;
        eprintln!(
            "imported {} records from {} into {}; the store now holds the paid-for copy and the side-car is its export",
            sc.records.len(),
            x.paths.sidecar.display(),
            x.paths.store.display()
        );
    }
    let pid = std::process::id();
    for dead in store.check_writers(pid).map_err(store_error)? {
        eprintln!(
            "run {} (started {}, process {}) ended without finishing; its {} committed records are kept",
            dead.id,
            dead.started_at,
            dead.pid.map_or("?".into(), |p| p.to_string()),
            dead.records
        );
        store.close_run(dead.id, "interrupted").map_err(store_error)?;
    }
    let previous_failures = store.failures().map_err(store_error)?.into_iter().map(|f| (f.id.clone(), f)).collect();
    let mut book = StoreBook::new(&store).map_err(store_error)?;
    // Plan again against the store: it may hold what the side-car held, or more.
    let plan = insights::plan::plan_run(x.corpus, x.slicer, &book, x.options);
    let header = insights::session::header(
        x.corpus,
        x.options,
        if provider.is_empty() { store.header().ok().flatten().and_then(|h| h.provider) } else { Some(provider) }
            .as_deref(),
        &args.model.display().to_string(),
    );
    let run = store.begin_run(&BeginRun { header, started_at: now_iso(), pid: Some(pid) }).map_err(store_error)?;
    book.begin(run);

    let key_of = |id: &str| insights::session::natural_key(x.corpus, id);
    let on_step = |e: &StepEvent| eprintln!("{}", e.line());
    let run_options = RunOptions {
        concurrency: args.concurrency as usize,
        max_tokens: args.max_tokens,
        previous_failures,
        key_of: &key_of,
        on_step: &on_step,
        stop: None,
    };
    let demo = llm::demo::DemoCompleter;
    let completer: &dyn Completer = completer.as_deref().unwrap_or(&demo);
    let result = futures_executor::block_on(insights::run::run(
        x.corpus,
        &plan,
        x.options,
        x.slicer,
        &mut book,
        completer,
        &run_options,
    ));
    drop(book);
    finish(&store, run, &result, x.paths, args)
}

fn finish(
    store: &Store,
    run: store::RunHandle,
    result: &RunResult,
    paths: &Paths,
    args: &ExplainArgs,
) -> Result<Result<(), Failure>, Failure> {
    let c = &result.counts;
    let eof = insights::session::trailer(result, store.count().map_err(store_error)?, now_iso());
    let aborted = insights::session::aborted_text(result);
    store
        .finish_run(
            run,
            &FinishRun { eof: eof.clone(), failures: result.failures.clone(), calls: Some(c.calls), aborted },
        )
        .map_err(store_error)?;
    write_sidecar(store, &paths.sidecar)?;

    eprintln!(
        "{} records in {}: {} explained, {} templated, {} reused, {} failed, {} skipped",
        eof.counts.records,
        paths.sidecar.display(),
        c.llm,
        c.template,
        c.reused,
        c.failed,
        c.skipped
    );
    let cost = result.usage.cost.map(|c| format!(", ${c:.4}")).unwrap_or_default();
    eprintln!(
        "{} call(s), {} prompt + {} completion tokens{cost}",
        c.calls, result.usage.prompt_tokens, result.usage.completion_tokens
    );
    for f in &result.failures {
        eprintln!("failed: {}: {}", f.id, f.reason.message);
    }
    for e in &result.book_errors {
        eprintln!("store: {e}");
    }
    if let Some(a) = &result.aborted {
        eprintln!(
            "the provider refused a call with status {} at {}; further calls would meet the same refusal, so none was sent and {} unit(s) were not attempted. Fix the account and run the same command again: it retries the failures and continues where this run stopped.",
            a.reason.status.map_or("?".into(), |s| s.to_string()),
            a.unit,
            a.not_attempted
        );
        if a.reason.status == Some(402) && args.max_tokens.is_none() {
            eprintln!(
                "hint: without --max-tokens a call is priced as if it used the model's whole output window; a cap such as --max-tokens 16384 lowers the balance each call needs"
            );
        }
    } else if !result.failures.is_empty() {
        eprintln!(
            "{} failure(s) are recorded in {}; after fixing the cause, --retry-failed re-runs only those",
            result.failures.len(),
            paths.sidecar.display()
        );
    }
    if args.json {
        let summary = serde_json::json!({
            "kind": "codegraph.explainSummary/1",
            "out": paths.sidecar.display().to_string(),
            "counts": {"records": eof.counts.records, "llm": c.llm, "template": c.template, "reused": c.reused,
                "failed": c.failed, "skipped": c.skipped, "calls": c.calls},
            "usage": {"promptTokens": result.usage.prompt_tokens, "completionTokens": result.usage.completion_tokens,
                "cost": result.usage.cost},
            "failures": result.failures.iter().map(|f| serde_json::from_str::<serde_json::Value>(&sidecar::encode_failure(f)).unwrap_or_default()).collect::<Vec<_>>(),
            "aborted": result.aborted.as_ref().map(|a| serde_json::json!({"unit": a.unit, "reason": a.reason.message, "notAttempted": a.not_attempted})),
        });
        println!("{summary}");
    }
    if result.failures.is_empty() && result.book_errors.is_empty() {
        Ok(Ok(()))
    } else {
        Ok(Err(Failure::Exit(3)))
    }
}
