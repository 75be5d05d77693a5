//! `codegraph-insights explain MODEL [--src DIR|ZIP|TAR.GZ] [--dry-run | --estimate] [--json] …`

use std::path::PathBuf;

/// A whole number ≥ 1 (the spec's integer options).
fn positive(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{s:?} is not a whole number ≥ 1")),
    }
}

/// A model slug: not empty.
fn slug(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Err("a model slug is needed, e.g. openai/gpt-5.6-luna".into());
    }
    Ok(s.to_owned())
}

/// A price in USD per million tokens: a finite number ≥ 0.
fn price(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err(format!("{s:?} is not a price in USD per million tokens (e.g. --price-in 0.15 --price-out 0.6)")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Framework {
    Spring,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderChoice {
    Auto,
    Openrouter,
    Cloudflare,
    #[value(name = "cloudflare-gateway")]
    CloudflareGateway,
    #[value(name = "openai-compatible")]
    OpenaiCompatible,
    /// The offline demo: blocks written from the prompt alone, no network, labelled as not an LLM.
    Demo,
}

/// Explain every operation, type and module, leaves first.
#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The model file (model.jsonl).
    pub model: PathBuf,
    /// Source root the anchors are relative to: a directory, a .zip or a .tar.gz
    /// (default: the model's recorded root).
    #[arg(long, value_name = "DIR|ZIP|TAR.GZ")]
    pub src: Option<PathBuf>,
    /// The side-car to write (default: <model>.insights.jsonl beside the model).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Where calls go.
    #[arg(long, value_enum, default_value_t = ProviderChoice::Auto)]
    pub provider: ProviderChoice,
    /// Base URL of an OpenAI-compatible server (with --provider openai-compatible), e.g. http://127.0.0.1:8080/v1.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// How answers are asked to be structured. `detect` negotiates with the endpoint, from strict
    /// json-schema down to prompt-only; a mode name forces that mode (see README "Local models").
    #[arg(long, value_name = "MODE", default_value = llm::wire::DETECT,
          value_parser = clap::builder::PossibleValuesParser::new(llm::OutputMode::CHOICES))]
    pub output_mode: String,
    /// Write the side-car from the store and stop (no model read, no call).
    #[arg(long, conflicts_with = "import")]
    pub export: bool,
    /// Replace the store's records with a side-car's, then stop (asks first unless --yes).
    #[arg(long, value_name = "FILE")]
    pub import: Option<PathBuf>,
    /// With --import: take a cut-short side-car (no eof line, or fewer records than its eof
    /// counts) by merging its records into the store; nothing is removed.
    #[arg(long, requires = "import")]
    pub accept_truncated: bool,
    /// Run even though no source is available: units are explained from the model's facts only
    /// (needed with --yes when there is no source; a later run with --src re-explains them).
    #[arg(long)]
    pub no_source: bool,
    /// Model for operations (the leaves).
    #[arg(long = "model", value_name = "SLUG", value_parser = slug, default_value = insights::plan::DEFAULT_MODEL)]
    pub leaf_model: String,
    /// Model for types and modules (default: --model).
    #[arg(long, value_name = "SLUG", value_parser = slug)]
    pub rollup_model: Option<String>,
    /// How deep dependency explanations are quoted in a prompt.
    #[arg(long, value_parser = positive, default_value_t = 1)]
    pub depth: u32,
    /// Call budget: later call-needing units are skipped (a dependency-consistent prefix runs).
    #[arg(long, value_parser = positive)]
    pub max_calls: Option<u32>,
    /// Output cap per answer (not sent unless given).
    #[arg(long, value_parser = positive)]
    pub max_tokens: Option<u32>,
    /// Calls in flight at once, within a layer.
    #[arg(long, value_parser = positive, default_value_t = 4)]
    pub concurrency: u32,
    /// Source lines per unit before the middle is elided.
    #[arg(long, value_parser = positive, default_value_t = 200)]
    pub max_lines: u32,
    /// Most cycle members per call; bigger cycles are split into chunks.
    #[arg(long, value_parser = positive, default_value_t = 12)]
    pub max_scc: u32,
    /// Restrict calls to units within these module or type ids (comma-separated).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub scope: Vec<String>,
    /// Add a framework's stereotypes and entry points to the facts.
    #[arg(long, value_enum)]
    pub framework: Option<Framework>,
    /// View: drop stub entities and their edges.
    #[arg(long)]
    pub internal_only: bool,
    /// View: keep only declared facts.
    #[arg(long)]
    pub declared_only: bool,
    /// Print the plan; no call, no key needed, nothing written.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the token volume (and cost with prices); no call. Wins over --dry-run.
    #[arg(long)]
    pub estimate: bool,
    /// Input price, USD per million tokens.
    #[arg(long, value_parser = price, value_name = "USD", allow_hyphen_values = true)]
    pub price_in: Option<f64>,
    /// Output price, USD per million tokens.
    #[arg(long, value_parser = price, value_name = "USD", allow_hyphen_values = true)]
    pub price_out: Option<f64>,
    /// Re-explain everything, ignoring matching fingerprints.
    #[arg(long)]
    pub force: bool,
    /// Explain only the recorded failures and their direct dependents.
    #[arg(long, conflicts_with = "scope")]
    pub retry_failed: bool,
    /// Run without the estimate-and-confirm question.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Machine-readable output on stdout.
    #[arg(long)]
    pub json: bool,
    /// Print to stderr, as each phase ends, `timing PHASE MS` (read, corpus,
    /// plan.packs, plan.fingerprints, plan.prompts, plan.other, report, total).
    #[arg(long)]
    pub timings: bool,
}

/// `--timings`: wall-clock milliseconds per phase, printed as each one ends.
struct Timings {
    on: bool,
    started: Instant,
    last: Instant,
}

impl Timings {
    fn new(on: bool) -> Timings {
        let now = Instant::now();
        Timings { on, started: now, last: now }
    }

    /// Ends the phase running since the previous call.
    fn end(&mut self, phase: &str) {
        let now = Instant::now();
        if self.on {
            crate::say!("timing {phase} {:.1} ms", (now - self.last).as_secs_f64() * 1e3);
        }
        self.last = now;
    }

    fn total(&self) {
        if self.on {
            crate::say!("timing total {:.1} ms", self.started.elapsed().as_secs_f64() * 1e3);
        }
    }
}

use crate::Failure;
use insights::plan::{plan_run_observed, PlanPhase};
use insights::report::{self, Prices};
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use std::time::{Duration, Instant};

/// Prices, when both are given.
fn prices(args: &ExplainArgs) -> Result<Option<Prices>, Failure> {
    match (args.price_in, args.price_out) {
        (Some(input), Some(output)) => Ok(Some(Prices { input, output })),
        (None, None) => Ok(None),
        _ => Err(Failure::Usage(
            "--price-in and --price-out go together (USD per million tokens)\nhint: e.g. --price-in 0.15 --price-out 0.6"
                .into(),
        )),
    }
}

pub fn run(args: ExplainArgs) -> Result<(), Failure> {
    let prices = prices(&args)?;
    let paths = crate::commands::run::Paths::of(&args);
    if args.export {
        return crate::commands::run::export(&paths);
    }
    if let Some(file) = &args.import {
        return crate::commands::run::import(&paths, file, args.yes, args.accept_truncated);
    }
    let mut timings = Timings::new(args.timings);
    let m = crate::input::read_model_file(&args.model).map_err(|e| Failure::Usage(e.to_string()))?;
    timings.end("read");
    let view = analyzer::view::View::from_flags(args.internal_only, args.declared_only);
    let framework = args.framework.map(|Framework::Spring| analyzer::framework::Framework::Spring);
    let corpus =
        Corpus::build(&m, view, framework).map_err(|e| Failure::Usage(format!("{}: {e}", args.model.display())))?;
    timings.end("corpus");
    let existing = crate::commands::run::Existing::load(&paths)?;
    let mut failed_members = Vec::new();
    if args.retry_failed {
        let failures = existing.failures();
        if !existing.found() {
            return Err(Failure::Usage(format!(
                "--retry-failed needs recorded failures, but neither {} nor {} exists",
                paths.store.display(),
                paths.sidecar.display()
            )));
        }
        if failures.is_empty() {
            crate::say!("nothing to retry: {} records no failure", paths.sidecar.display());
            return Ok(());
        }
        crate::say!("retrying {} failed unit(s) and their direct dependents", failures.len());
        for line in insights::session::retry_reason_lines(&failures) {
            crate::say!("{line}");
        }
        failed_members = failures.into_iter().flat_map(|f| f.members).collect();
    }
    // The engine's one resolver from settings to plan options (the page uses it too).
    let settings = insights::settings::PlanSettings {
        depth: args.depth,
        max_lines: args.max_lines,
        max_scc: args.max_scc,
        scope: args.scope.clone(),
        max_calls: args.max_calls.map(u64::from),
        force: args.force,
        retry_failed: args.retry_failed,
        model: args.leaf_model.clone(),
        rollup_model: args.rollup_model.clone(),
    };
    let options = settings.resolve(&corpus, &failed_members).map_err(|e| match e {
        insights::settings::SettingsError::Scope(e) => Failure::Usage(format!(
            "{e}\nhint: `codegraph-insights model check` counts the model; ids look like java:com.acme.order or java:com.acme.order/Order"
        )),
        other => Failure::Usage(other.to_string()),
    })?;
    let models = options.models.clone();
    let src = crate::sources::open_sources(args.src.as_deref(), &m, corpus.probe_file())?;
    match (&src.note, &src.reader) {
        (Some(note), None) => {
            crate::say!("{note}: planning from facts only; give --src DIR|ZIP|TAR.GZ to include source")
        }
        (Some(note), Some(_)) => crate::say!("{note}"),
        (None, _) => {}
    }
    if args.retry_failed {
        if let Some(note) = existing.header()?.and_then(|h| insights::session::settings_note(&h, &options)) {
            crate::say!("{note}");
        }
    }
    let slicer = SourceSlicer::new(src.reader_or_empty(), args.max_lines);
    timings.end("sources");
    let mut spent = [Duration::ZERO; PlanPhase::ALL.len()];
    let mut last = Instant::now();
    let plan = plan_run_observed(&corpus, &slicer, existing.records(), &options, &mut |phase| {
        if args.timings {
            let now = Instant::now();
            spent[phase as usize] += now - last;
            last = now;
        }
    });
    timings.last = Instant::now();
    if args.timings {
        for phase in PlanPhase::ALL {
            crate::say!("timing plan.{} {:.1} ms", phase.as_str(), spent[phase as usize].as_secs_f64() * 1e3);
        }
    }
    let misses = slicer.miss_reasons();
    if !misses.is_empty() && src.reader.is_some() {
        crate::say!(
            "{} source file(s) could not be read, so their units are planned without source; first: {} ({:?})",
            misses.len(),
            misses[0].0,
            misses[0].1
        );
    }
    let lossy = slicer.lossy_files();
    if let Some((file, l)) = lossy.first() {
        crate::say!(
            "{} source file(s) are not UTF-8 and were read with replacement characters; first: {}",
            lossy.len(),
            l.describe(file)
        );
    }
    let model_paths = vec![args.model.display().to_string()];
    if args.estimate || args.dry_run {
        let out = match (args.estimate, args.json) {
            (true, true) => report::estimate_json(&corpus.walk, &plan, &models, args.depth, prices) + "\n",
            (true, false) => report::estimate_text(&model_paths, &corpus.walk, &plan, &models, args.depth, prices),
            (false, true) => report::plan_json(&corpus.walk, &plan, &models, args.depth) + "\n",
            (false, false) => report::plan_text(&corpus.walk, &plan, &models, args.depth),
        };
        crate::output::emit(&out);
        timings.end("report");
        let outcome = not_clean(&m, &args);
        // The process ends with this answer: the operating system takes the
        // plan, corpus and model back at once, faster than freeing their
        // millions of allocations one by one (a fifth of a second at Fineract scale).
        std::mem::forget(plan);
        std::mem::forget(corpus);
        std::mem::forget(m);
        timings.total();
        return outcome;
    }
    drop(existing);
    let estimate = report::estimate_text(&model_paths, &corpus.walk, &plan, &models, args.depth, prices);
    let outcome = crate::commands::run::execute(crate::commands::run::Execute {
        args: &args,
        paths: &paths,
        corpus: &corpus,
        slicer: &slicer,
        options: &options,
        plan,
        estimate,
        prices,
        no_source: src.reader.is_none(),
    })?;
    // A failed run's own exit code (2: the store refused a write; 3: failures
    // owed) wins over the model's findings; the warning is printed either way.
    let clean = not_clean(&m, &args);
    outcome?;
    clean
}

/// Exit 3 (after a warning) when the model has findings.
fn not_clean(m: &model::Model, args: &ExplainArgs) -> Result<(), Failure> {
    if m.findings().is_empty() {
        return Ok(());
    }
    crate::say!(
        "warning: the model has {} finding(s); the walk was built anyway (see `codegraph-insights model check {}`)",
        m.findings().total(),
        args.model.display()
    );
    Err(Failure::Exit(3))
}
