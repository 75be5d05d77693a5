//! A real `explain` run on top of the store (docs/formats/cli.md §3.4–§3.7,
//! docs/formats/store.md §9): load what exists, confirm the spending, begin a
//! run, execute with every finished unit committed, finish the run, export the
//! side-car atomically, report. Also `--export` and `--import`.

use super::explain::{ExplainArgs, ProviderChoice};
use crate::Failure;
use insights::complete::Completer;
use insights::plan::{PlanOptions, RunPlan};
use insights::record::{FailureRecord, InsightRecord};
use insights::records::{MemoryRecords, NoRecords, RecordSource, RecordSummary};
use insights::report::Prices;
use insights::run::{RunResult, StepEvent};
use insights::sidecar::{self, Sidecar};
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use store::{ExportStamp, Store, StoreRun};

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
            if let Some(existing) = Existing::open_store(&paths.store, Some(&paths.sidecar))? {
                return Ok(existing);
            }
        }
        if paths.sidecar.is_file() {
            let text = std::fs::read_to_string(&paths.sidecar)
                .map_err(|e| Failure::Usage(format!("{}: cannot be read: {e}", paths.sidecar.display())))?;
            let (sc, truncation) = sidecar::decode_with_truncation(&paths.sidecar.display().to_string(), &text)
                .map_err(|e| Failure::Usage(e.to_string()))?;
            if let Some(why) = truncation {
                crate::say!(
                    "{} is truncated ({why}): its {} intact records will be reused and the remaining units redone",
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

    /// The store at `path` (read-only) when it holds records; `None` when it
    /// is empty. `sidecar` is the side-car it exports to, if any (an edit
    /// made to it since is warned about).
    pub fn open_store(path: &Path, sidecar: Option<&Path>) -> Result<Option<Existing>, Failure> {
        match Store::open_reader(path) {
            Ok(store) if !store.is_empty().map_err(store_error)? => {
                if let Some(sidecar) = sidecar {
                    warn_outside_edit(&store, sidecar);
                }
                let failures = store.failures().map_err(store_error)?;
                let fingerprints = store.fingerprints().map_err(store_error)?;
                Ok(Some(Existing::Store { store: ReadStore { store, fingerprints }, failures }))
            }
            Ok(_) | Err(store::StoreError::Empty { .. }) => Ok(None),
            Err(e) => Err(store_error(e)),
        }
    }

    /// Every record, whole (blocks and all): the store's read once, the
    /// side-car's borrowed.
    pub fn all_records(&self) -> Result<std::borrow::Cow<'_, [InsightRecord]>, Failure> {
        match self {
            Existing::Store { store, .. } => Ok(store.store.records().map_err(store_error)?.into()),
            Existing::Sidecar(sc, _) => Ok(sc.records.as_slice().into()),
            Existing::Nothing => Ok(Vec::new().into()),
        }
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

    /// What staleness reads of every record (fingerprint, and the model its
    /// run asked for, which only a store knows).
    pub fn stamps(&self) -> Result<hashbrown::HashMap<String, insights::stale::Stamp>, Failure> {
        match self {
            Existing::Store { store, .. } => store.store.stamps().map_err(store_error),
            Existing::Sidecar(sc, _) => Ok(insights::stale::stamps_of(&sc.records)),
            Existing::Nothing => Ok(Default::default()),
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

/// The size and modification time (ms since the epoch) of a file, as an export stamp records them.
fn file_stamp(path: &Path) -> Option<(u64, f64)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    Some((meta.len(), mtime_ms))
}

/// Warns when the side-car is not what the store last exported (edited,
/// replaced or cut by something else): the store stays authoritative and
/// the next export overwrites the file; importing it is how to take the edit.
fn warn_outside_edit(store: &Store, sidecar: &Path) {
    let Ok(Some(stamp)) = store.exported() else { return };
    if stamp.path != sidecar.display().to_string() {
        return;
    }
    let Some((size, mtime_ms)) = file_stamp(sidecar) else { return };
    // The stamp went through JSON, whose float parsing may move the last
    // bit: a hundredth of a millisecond apart is the same time.
    if size == stamp.size && (mtime_ms - stamp.mtime_ms).abs() < 0.01 {
        return;
    }
    crate::say!(
        "warning: {} was changed by something else after it was last exported (size {} → {} bytes); the store {} \
         stays authoritative and this run overwrites the file when it exports.\n\
         hint: to take the file's content instead, import it: codegraph-insights explain MODEL --import {}",
        sidecar.display(),
        stamp.size,
        size,
        store.path().display(),
        crate::output::shell_word(sidecar)
    );
}

/// A temporary file beside `path` that no other process picks: the pid and
/// the time in nanoseconds.
fn temp_beside(path: &Path) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let mut s = path.as_os_str().to_owned();
    s.push(format!(".{}-{nanos}.tmp", std::process::id()));
    PathBuf::from(s)
}

/// Writes `path` atomically through a temporary file of its own (fsync,
/// rename); on any failure the temporary file is removed and the old file
/// is left as it was.
pub(crate) fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), String>,
) -> Result<(), Failure> {
    let tmp = temp_beside(path);
    let result = (|| {
        let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: cannot be created: {e}", tmp.display()))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(|e| format!("{}: {}", tmp.display(), e.error()))?;
        file.sync_all().map_err(|e| format!("{}: {e}", tmp.display()))?;
        drop(file);
        std::fs::rename(&tmp, path).map_err(|e| format!("{}: cannot replace it: {e}", path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(Failure::Usage)
}

/// Writes the side-car from the store, atomically, and records the export stamp.
fn write_sidecar(store: &Store, path: &Path) -> Result<(), Failure> {
    write_atomically(path, |w| store.export_to(w).map(|_| ()).map_err(|e| e.to_string()))?;
    let (size, mtime_ms) = file_stamp(path)
        .ok_or_else(|| Failure::Usage(format!("{}: written but cannot be read back", path.display())))?;
    store.mark_exported(&ExportStamp { path: path.display().to_string(), size, mtime_ms }).map_err(store_error)
}

/// `--export`: the side-car from the store as it stands.
pub fn export(paths: &Paths) -> Result<(), Failure> {
    if !paths.store.is_file() {
        return Err(Failure::Usage(format!("{}: no insights store to export", paths.store.display())));
    }
    let store = Store::open_writer(&paths.store).map_err(store_error)?;
    write_sidecar(&store, &paths.sidecar)?;
    crate::say!("exported {} records to {}", store.count().map_err(store_error)?, paths.sidecar.display());
    Ok(())
}

fn confirm(question: &str) -> bool {
    crate::say_inline!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
}

fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// `--import FILE`: replaces the store's records with the side-car's (after
/// confirmation when the store holds any). A cut-short side-car is refused
/// unless `accept_truncated`, and then merged: nothing the file does not
/// mention is deleted. Takes the store's writer lock: refused while a run writes.
pub fn import(paths: &Paths, file: &Path, yes: bool, accept_truncated: bool) -> Result<(), Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Usage(format!("{}: cannot be read: {e}", file.display())))?;
    let (sc, truncation) = sidecar::decode_with_truncation(&file.display().to_string(), &text)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    drop(text);
    let why = truncation.map(|t| t.to_string()).unwrap_or_default();
    if sc.truncated && !accept_truncated {
        return Err(Failure::Usage(format!(
            "{} is cut short ({}): importing it would replace the store's records with only the {} it holds; nothing was imported\n\
             hint: --accept-truncated merges its {} records into {} without removing any",
            file.display(),
            why,
            sc.records.len(),
            sc.records.len(),
            paths.store.display()
        )));
    }
    let store = Store::open_writer(&paths.store).map_err(store_error)?;
    if sc.truncated {
        let (records, failures) = store.merge(&sc).map_err(store_error)?;
        crate::say!(
            "merged {records} records and {failures} failures of {} (cut short: {}) into {}; nothing was removed; it now holds {}",
            file.display(),
            why,
            paths.store.display(),
            store.count().map_err(store_error)?
        );
        return Ok(());
    }
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
                "importing would replace {held} records in {} and there is no terminal to confirm on\n\
                 hint: pass --yes (a backup first: codegraph-insights explain MODEL --export --out BACKUP)",
                paths.store.display()
            )));
        }
        if !confirm(&q) {
            crate::say!("nothing was imported; the store is unchanged");
            return Ok(());
        }
    }
    store.import(&sc).map_err(store_error)?;
    if file == paths.sidecar {
        write_sidecar(&store, &paths.sidecar)?;
    }
    crate::say!(
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

/// The completer the flags ask for, and a line saying which it is. The
/// offline demo answers from `corpus`'s facts.
fn completer<'c>(
    args: &ExplainArgs,
    calls: u64,
    corpus: &'c Corpus<'c>,
) -> Result<(Box<dyn Completer + 'c>, String, String), Failure> {
    let choice = match args.provider {
        ProviderChoice::Demo => {
            return Ok((
                Box::new(llm::demo::DemoCompleter::new(corpus)),
                "demo".into(),
                "the offline demo, written from the model's facts, not an LLM".into(),
            ))
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
    let mode =
        llm::OutputMode::parse_choice(&args.output_mode).map_err(|e| Failure::Usage(format!("--output-mode: {e}")))?;
    let client = llm::client(config)
        .on_retry(|n| {
            crate::say!(
                "  retrying in {:.1} s (attempt {} failed: {})",
                n.wait_ms as f64 / 1000.0,
                n.attempt,
                n.error.message
            )
        })
        .on_mode(|n| match n.refused {
            Some((refused, error)) => {
                crate::say!("  output mode {refused} refused for {}: {}; trying {}", n.model, error.message, n.mode)
            }
            None => crate::say!("  output mode for {}: {} (answered)", n.model, n.mode),
        })
        .with_mode_choice(mode);
    let reason = match mode {
        Some(m) => format!("{reason}; output mode {m}, forced"),
        None => reason,
    };
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
    /// No source reader at all: prompts are built from facts alone.
    pub no_source: bool,
}

pub fn execute(x: Execute<'_>) -> Result<Result<(), Failure>, Failure> {
    let args = x.args;
    let calls = x.plan.estimates.total.calls;
    // No source: say how many units would be explained from facts alone, and
    // never spend on them unattended without the user's word.
    // (The offline demo costs nothing: it is not asked.)
    let paid = args.provider != ProviderChoice::Demo;
    let facts_only =
        if x.no_source && paid && calls > 0 { insights::session::anchored_llm_units(x.corpus, &x.plan) } else { 0 };
    let no_source_line = (facts_only > 0).then(|| {
        format!(
            "no source: {facts_only} unit(s) will be explained from the model's facts only; a later run with --src \
             re-explains (and pays for) them again"
        )
    });
    if let Some(line) = &no_source_line {
        if args.yes && !args.no_source {
            return Err(Failure::Usage(format!(
                "{line}\nhint: give --src DIR|ZIP|TAR.GZ with the model's sources, or --no-source to explain from facts \
                 only anyway"
            )));
        }
    }
    let (completer, provider, reason) = if calls > 0 {
        let (c, name, reason) = completer(args, calls, x.corpus)?;
        (Some(c), name, reason)
    } else {
        (None, String::new(), String::new())
    };
    if let Some(c) = &completer {
        crate::say!("provider: {} ({reason})", c.name());
    }
    if calls > 0 && !args.yes {
        let e = &x.plan.estimates.total;
        if !can_ask() {
            return Err(Failure::Usage(format!(
                "this run would make {calls} model call(s) (~{} input and ~{} output tokens) and there is no terminal to confirm on\nhint: pass --yes to run, or --estimate to see the figures first",
                e.prompt_tokens, e.completion_tokens
            )));
        }
        crate::say!("{}", x.estimate);
        if let Some(line) = &no_source_line {
            crate::say!("{line}");
        }
        let cost = x
            .prices
            .and_then(|p| insights::estimate::cost(e.prompt_tokens, e.completion_tokens, p.input, p.output))
            .map(|c| format!(", ~${c:.4}"))
            .unwrap_or_default();
        if !confirm(&format!(
            "Run {calls} model call(s) (~{} input, ~{} output tokens{cost})?",
            e.prompt_tokens, e.completion_tokens
        )) {
            crate::say!("no call was made and nothing was written");
            return Ok(Ok(()));
        }
    }

    // Write: take the store's writer lock (refused, before any call, while
    // another process writes), adopt a side-car met for the first time, close dead runs.
    let store = Store::open_writer(&x.paths.store).map_err(store_error)?;
    if store.is_empty().map_err(store_error)? && x.paths.sidecar.is_file() {
        let sc = store.import_file(&x.paths.sidecar).map_err(store_error)?;
        crate::say!(
            "imported {} records from {} into {}; the store now holds the paid-for copy and the side-car is its export",
            sc.records.len(),
            x.paths.sidecar.display(),
            x.paths.store.display()
        );
    }
    merge_rescues(&store, x.paths);
    let pid = std::process::id();
    for dead in store.close_open_runs("interrupted").map_err(store_error)? {
        crate::say!(
            "run {} (started {}, process {}) ended without finishing; its {} committed records are kept",
            dead.id,
            dead.started_at,
            dead.pid.map_or("?".into(), |p| p.to_string()),
            dead.records
        );
    }
    let mut run = StoreRun::begin(
        &store,
        &store::Begin {
            corpus: x.corpus,
            slicer: x.slicer,
            options: x.options,
            provider: (!provider.is_empty()).then_some(provider),
            model_path: args.model.display().to_string(),
            pid: Some(pid),
            started_at: now_iso(),
        },
    )
    .map_err(store_error)?;
    // Planned again under the lock: never more calls than the user agreed to.
    let now_calls = run.plan().estimates.total.calls;
    if now_calls > calls {
        return Err(Failure::Usage(format!(
            "{} changed since the plan was shown (another process wrote to it): this run would now make {now_calls} \
             call(s), not {calls}; nothing was sent\nhint: run the same command again to see the new estimate",
            x.paths.store.display()
        )));
    }

    // Debug builds only: `CODEGRAPH_INSIGHTS_TEST_PANIC_AFTER=N` panics after
    // N finished steps, so a test can prove what a bug mid-run leaves behind.
    #[cfg(debug_assertions)]
    let panic_after: Option<usize> =
        std::env::var("CODEGRAPH_INSIGHTS_TEST_PANIC_AFTER").ok().and_then(|v| v.parse().ok());
    let on_step = |e: &StepEvent| {
        crate::say!("{}", e.line());
        #[cfg(debug_assertions)]
        if panic_after.is_some_and(|n| e.done >= n) {
            panic!("test panic after {} steps", e.done);
        }
    };
    let demo = llm::demo::DemoCompleter::new(x.corpus);
    let completer: &dyn Completer = completer.as_deref().unwrap_or(&demo);
    let result = futures_executor::block_on(run.execute(
        x.corpus,
        x.slicer,
        x.options,
        store::Execute {
            completer,
            concurrency: args.concurrency as usize,
            max_tokens: args.max_tokens,
            on_step: &on_step,
            stop: None,
        },
    ));
    match run.finish(&result, now_iso()).map_err(store_error)? {
        store::Ending::StoreRefused { error, rescue } => Ok(store_refused(&error, rescue, &result, x.paths)),
        store::Ending::Finished { eof, rescue } => {
            if let Some((path, hint)) = rescue.and_then(|text| write_rescue(&text, x.paths)) {
                crate::say!("answers paid for but not stored were kept in {}; {hint}", path.display());
            }
            Ok(finish(&store, eof, &result, x.paths, args)?)
        }
    }
}

/// Rescue side-cars an earlier run left beside the store (answers paid for
/// that the store could not take) are merged before anything is planned, so
/// they are never paid for again; each is then renamed `….merged`.
fn merge_rescues(store: &Store, paths: &Paths) {
    let Some(name) = paths.store.file_name().map(|n| format!("{}.rescue-", n.to_string_lossy())) else { return };
    let dir = paths.store.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with(&name) && n.ends_with(".insights.jsonl"))
        })
        .collect();
    found.sort();
    for path in found {
        let merged = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| sidecar::decode(&path.display().to_string(), &text).map_err(|e| e.to_string()))
            .and_then(|sc| store.merge(&sc).map_err(|e| e.to_string()));
        match merged {
            Ok((records, _)) => {
                let mut done = path.as_os_str().to_owned();
                done.push(".merged");
                let _ = std::fs::rename(&path, &done);
                crate::say!(
                    "merged {records} answer(s) paid for earlier from the rescue file {} (kept as {}.merged)",
                    path.display(),
                    path.display()
                );
            }
            Err(e) => crate::say!("warning: the rescue file {} could not be merged: {e}", path.display()),
        }
    }
}

/// Writes a rescue side-car of answers paid for but not committed (beside
/// the store, else in the temporary directory) and returns where, with what
/// the user does with it: one beside the store is merged by the next run.
/// When no place takes it, the answers are printed on stderr instead.
fn write_rescue(text: &str, paths: &Paths) -> Option<(PathBuf, String)> {
    let mut tried = Vec::new();
    for path in rescue_paths(&paths.store) {
        match write_atomically(&path, |w| w.write_all(text.as_bytes()).map_err(|e| e.to_string())) {
            Ok(()) => {
                let import = format!(
                    "codegraph-insights explain MODEL --import {} --accept-truncated",
                    crate::output::shell_word(&path)
                );
                let hint = if path.parent() == paths.store.parent() {
                    format!("the next run merges it before it plans (or: {import})")
                } else {
                    format!("keep them with: {import}")
                };
                return Some((path, hint));
            }
            Err(Failure::Usage(e)) => tried.push(e),
            Err(_) => {}
        }
    }
    crate::say!("the rescue file could not be written ({}); the answers follow on stderr:", tried.join("; "));
    crate::say!("{text}");
    None
}

/// Where a rescue side-car goes: beside the store, else the temporary directory.
fn rescue_paths(store: &Path) -> Vec<PathBuf> {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    let name = format!(
        "{}.rescue-{}-{nanos}.insights.jsonl",
        store.file_name().map_or("store".into(), |n| n.to_string_lossy().into_owned()),
        std::process::id()
    );
    vec![store.with_file_name(&name), std::env::temp_dir().join(&name)]
}

/// The store refused a write mid-run (a full disk, an I/O error): the run
/// stopped sending calls, the calls in flight settled, and what the store
/// could not take is written to a rescue side-car. The run is closed (as
/// `interrupted` if even that fails); exit 2.
fn store_refused(error: &str, rescue: Option<String>, result: &RunResult, paths: &Paths) -> Result<(), Failure> {
    crate::say!("the insights store refused a write, so the run stopped: {error}");
    for e in &result.book_errors[1..] {
        crate::say!("store: {e}");
    }
    let c = &result.counts;
    crate::say!(
        "{} call(s) were made, {} prompt + {} completion tokens; units not begun stay owed and no call was sent for them",
        c.calls, result.usage.prompt_tokens, result.usage.completion_tokens
    );
    if let Some((path, hint)) = rescue.and_then(|text| write_rescue(&text, paths)) {
        crate::say!(
            "{} answer(s) and {} failure(s) the store could not take were written to {}\n\
             hint: once the store can write again (free space, fix the disk), run the same command again: {hint}",
            result.unsaved.len(),
            result.unsaved_failures.len(),
            path.display()
        );
    }
    // The side-car is not rewritten: the old one is left as it was.
    Err(Failure::Exit(2))
}

/// A finished run: the side-car exported, the summary told.
fn finish(
    store: &Store,
    eof: insights::record::Trailer,
    result: &RunResult,
    paths: &Paths,
    args: &ExplainArgs,
) -> Result<Result<(), Failure>, Failure> {
    let c = &result.counts;
    write_sidecar(store, &paths.sidecar)?;

    crate::say!(
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
    crate::say!(
        "{} call(s), {} prompt + {} completion tokens{cost}",
        c.calls,
        result.usage.prompt_tokens,
        result.usage.completion_tokens
    );
    if !result.output_modes.is_empty() {
        let modes: Vec<String> = result.output_modes.iter().map(|(model, mode)| format!("{mode} ({model})")).collect();
        crate::say!("output mode: {}", modes.join(", "));
    }
    for f in &result.failures {
        crate::say!("failed: {}: {}", f.id, f.reason.message);
    }
    for e in &result.book_errors {
        crate::say!("store: {e}");
    }
    if let Some(a) = &result.aborted {
        crate::say!(
            "the provider refused a call with status {} at {}; further calls would meet the same refusal, so none was sent and {} unit(s) were not attempted. {}: run the same command again then; it retries the failures and continues where this run stopped.",
            a.reason.status.map_or("?".into(), |s| s.to_string()),
            a.unit,
            a.not_attempted,
            if a.reason.status == Some(429) { "Wait until the provider accepts calls again" } else { "Fix the account" }
        );
        if a.reason.status == Some(402) && args.max_tokens.is_none() {
            crate::say!(
                "hint: without --max-tokens a call is priced as if it used the model's whole output window; a cap such as --max-tokens 16384 lowers the balance each call needs"
            );
        }
    } else if !result.failures.is_empty() {
        crate::say!(
            "{} failure(s) are recorded in {}; after fixing the cause, --retry-failed re-runs only those",
            result.failures.len(),
            paths.sidecar.display()
        );
    }
    if args.json {
        let summary = summary_line(&eof, result, &paths.sidecar);
        // The run is over: a reader that went away loses only this summary.
        if let Err(crate::output::StdoutError::Failed(e)) =
            crate::output::write_artifact(&mut std::io::stdout().lock(), &format!("{summary}\n"))
        {
            crate::say!("codegraph-insights: cannot write the summary to stdout: {e}");
        }
    }
    if result.failures.is_empty() && result.book_errors.is_empty() {
        Ok(Ok(()))
    } else {
        Ok(Err(Failure::Exit(3)))
    }
}

/// The `--json` summary (`codegraph.explainSummary/1`): keys in the
/// documented order, absent values omitted (never `null`), failures as their
/// side-car records.
fn summary_line(eof: &insights::record::Trailer, result: &RunResult, out: &std::path::Path) -> String {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Counts {
        records: u64,
        llm: u64,
        template: u64,
        reused: u64,
        failed: u64,
        skipped: u64,
        calls: u64,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Aborted<'a> {
        unit: &'a str,
        reason: &'a str,
        not_attempted: u64,
    }
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Summary<'a> {
        kind: &'static str,
        out: String,
        counts: Counts,
        usage: &'a insights::record::Usage,
        #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
        output_modes: serde_json::Map<String, serde_json::Value>,
        failures: Vec<Box<serde_json::value::RawValue>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        aborted: Option<Aborted<'a>>,
    }
    let c = &result.counts;
    let summary = Summary {
        kind: "codegraph.explainSummary/1",
        out: out.display().to_string(),
        counts: Counts {
            records: eof.counts.records,
            llm: c.llm,
            template: c.template,
            reused: c.reused,
            failed: c.failed,
            skipped: c.skipped,
            calls: c.calls,
        },
        usage: &result.usage,
        output_modes: result
            .output_modes
            .iter()
            .map(|(model, mode)| (model.clone(), serde_json::Value::String(mode.clone())))
            .collect(),
        failures: result
            .failures
            .iter()
            .filter_map(|f| serde_json::value::RawValue::from_string(sidecar::encode_failure(f)).ok())
            .collect(),
        aborted: result.aborted.as_ref().map(|a| Aborted {
            unit: &a.unit,
            reason: &a.reason.message,
            not_attempted: a.not_attempted,
        }),
    };
    serde_json::to_string(&summary).expect("a summary always serializes")
}
