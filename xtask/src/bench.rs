//! `cargo xtask bench …`: benchmarks that print figures. Targets live in the
//! issues and results in docs/benchmarks.md; nothing here fails on a target.

use crate::root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod domain;
mod explore;
mod navigator;
mod real_llm;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: Bench,
}

#[derive(clap::Subcommand)]
enum Bench {
    /// Read (parse + validate + build the graph) a model.jsonl: wall time,
    /// throughput and peak memory, natively.
    Read {
        /// The model to read (e.g. from `cargo xtask synth`).
        #[arg(long)]
        model: PathBuf,
        /// Repetitions; the best and the median are printed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Skip the measurement in headless Chromium.
        #[arg(long)]
        no_browser: bool,
    },
    /// Plan a model as `explain MODEL --dry-run` does (read, facts, units,
    /// walk, packs, fingerprints, prompts): wall time, peak memory and where
    /// the time goes, natively and in the Worker in headless Chromium.
    Plan {
        /// The model to plan (e.g. from `cargo xtask synth`).
        #[arg(long)]
        model: PathBuf,
        /// Repetitions; the best and the median are printed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Skip the measurement in headless Chromium.
        #[arg(long)]
        no_browser: bool,
        /// Address-space cap of the native run, in GB: a plan that needs more
        /// fails (and is reported) instead of swapping the machine to a halt.
        #[arg(long, default_value_t = 8)]
        mem_limit_gb: u64,
        /// Give up on the browser run after this many seconds.
        #[arg(long, default_value_t = 900)]
        timeout: u64,
    },
    /// The release page in headless Chromium: a large model loaded and
    /// planned (`?model=URL&plan=1`: wall time, wasm memory, the UI thread's
    /// long tasks), and the bundled demo's first meaningful paint from a warm
    /// HTTP cache (`?demo` opened twice in one browser context).
    Page {
        /// The model to load and plan; by default the Fineract-scale synthetic
        /// model (`synth --entities 240910 --edges 782031 --seed 1`) is
        /// written to a temporary file first.
        #[arg(long)]
        model: Option<PathBuf>,
        /// Repetitions of each part (a fresh browser each); the best and the
        /// median are printed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Give up on a browser run after this many seconds.
        #[arg(long, default_value_t = 900)]
        timeout: u64,
    },
    /// The navigator the Worker builds per model, natively (release): build
    /// time, a search keystroke, the dependency view of the node with the
    /// most rows, the graph views, tree paging.
    Navigator {
        /// The model (e.g. from `cargo xtask synth`).
        #[arg(long)]
        model: PathBuf,
        /// Builds; the best and the median are printed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Then in the release page in headless Chromium (up to 3 runs): the
        /// tree shown once the model is loaded, search keystrokes, and the
        /// node with the most rows selected through its `#id=` link.
        #[arg(long)]
        browser: bool,
        /// Give up on a browser run after this many seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
    },
    /// The domain view of a 28,000-record store: built natively (release)
    /// with its Markdown and JSON, then in the hosted page's Worker after
    /// importing the same records (the Domain tab opened).
    Domain {
        /// Records of the synthetic store.
        #[arg(long, default_value_t = 28_000)]
        records: usize,
        /// Entities of the synthetic model (about a third become units).
        #[arg(long, default_value_t = 90_000)]
        entities: usize,
        #[arg(long, default_value_t = 290_000)]
        edges: usize,
        /// Browser runs (a fresh browser each).
        #[arg(long, default_value_t = 2)]
        runs: usize,
        /// Give up on a browser run after this many seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
    },
    /// Explore natively (release): the name index built for a model, maps
    /// answered for questions picked from it, and on the demo corpus the
    /// size of a map against snippets and source for the same questions.
    Explore {
        /// The model (e.g. from `cargo xtask synth`).
        #[arg(long)]
        model: PathBuf,
        /// Index builds and answers per question; the best and the median are printed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Then the same questions on the release page's Explore tab in
        /// headless Chromium (up to 3 runs): click to answer shown, the
        /// first answer building the index.
        #[arg(long)]
        browser: bool,
        /// Give up on a browser run after this many seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
    },
    /// Side-car import (read + decode + store.import into a fresh store) and
    /// export (store → file) at BroadleafCommerce scale, in a release build:
    /// wall time and peak RSS per phase, and whether the round trip is
    /// byte-identical.
    Sidecar {
        /// Records of the synthetic side-car (`insights::sidecar::synth`).
        #[arg(long, default_value_t = 28206)]
        records: usize,
        /// Seed of the synthetic side-car.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Repetitions; the best and the median are printed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
    /// A whole `explain` run (store commits, side-car export) without the
    /// model's latency: the offline demo completer, then the loopback mock
    /// provider over HTTP. Prints the per-unit overhead of the run loop.
    Run {
        /// The model to explain (e.g. `cargo xtask synth --entities 20000 --edges 60000`).
        #[arg(long)]
        model: PathBuf,
        /// Calls in flight.
        #[arg(long, default_value_t = 4)]
        concurrency: u32,
    },
    /// The whole Java fixture explained by a real local model
    /// (llama-cpp-python's server with SmolLM2-135M, installed by setup)
    /// through the release CLI: requests, refusals, valid answers and median
    /// seconds per call for each output mode, the server's prompt and
    /// completion tokens per second, failures by reason.
    RealLlm {
        /// The `--output-mode`s to run the fixture with, one whole run each.
        #[arg(long = "output-mode", default_values_t = ["detect".to_string()])]
        modes: Vec<String>,
        /// Calls in flight (the server answers one at a time).
        #[arg(long, default_value_t = 1)]
        concurrency: u32,
        /// Cap the calls of each run (`explain --max-calls`): a quick look at
        /// a mode whose answers are slow (an unbounded `json-object` rambles).
        #[arg(long)]
        max_calls: Option<u32>,
    },
}

pub fn run(args: Args) -> crate::Result {
    match args.what {
        Bench::Read { model, runs, no_browser } => {
            read(&model, runs.max(1))?;
            if no_browser {
                return Ok(());
            }
            read_in_browser(&model, runs.clamp(1, 3))
        }
        Bench::Plan { model, runs, no_browser, mem_limit_gb, timeout } => {
            plan(&model, runs.max(1), mem_limit_gb)?;
            if no_browser {
                return Ok(());
            }
            plan_in_browser(&model, runs.clamp(1, 3), timeout)
        }
        Bench::Page { model, runs, timeout } => page(model.as_deref(), runs.max(1), timeout),
        Bench::Navigator { model, runs, browser, timeout } => {
            let node = navigator::run(&model, runs.max(1))?;
            if !browser {
                return Ok(());
            }
            navigator::in_browser(&model, &node, runs.clamp(1, 3), timeout)
        }
        Bench::Domain { records, entities, edges, runs, timeout } => {
            domain::run(records, entities, edges, runs.max(1), timeout)
        }
        Bench::Explore { model, runs, browser, timeout } => {
            let questions = explore::run(&model, runs.max(1))?;
            if !browser {
                return Ok(());
            }
            explore::in_browser(&model, &questions, runs.clamp(1, 3), timeout)
        }
        Bench::Sidecar { records, seed, runs } => sidecar(records, seed, runs.max(1)),
        Bench::Run { model, concurrency } => run_loop(&model, concurrency),
        Bench::RealLlm { modes, concurrency, max_calls } => real_llm::run(&modes, concurrency.max(1), max_calls),
    }
}

/// Builds the release CLI and returns its path.
pub fn release_cli() -> crate::Result<PathBuf> {
    let status = Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["build", "--release", "--quiet", "-p", "cli"])
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err("cargo build --release -p cli failed".into());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"));
    Ok(target.join("release").join("codegraph-insights"))
}

/// Builds `package`'s example `example` in release and returns its path.
pub fn release_example(package: &str, example: &str) -> crate::Result<PathBuf> {
    let status = Command::new(env!("CARGO"))
        .current_dir(root())
        .args(["build", "--release", "--quiet", "-p", package, "--example", example])
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --release -p {package} --example {example} failed"));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"));
    Ok(target.join("release").join("examples").join(example))
}

/// One measured run of a child process: wall seconds, peak RSS in bytes, stdout.
pub struct Measured {
    pub seconds: f64,
    pub peak_rss: u64,
    pub stdout: Vec<u8>,
}

/// Runs `cmd`, waiting with `wait4` so the peak RSS is that child's alone.
pub fn measure(cmd: &mut Command) -> crate::Result<Measured> {
    use std::io::Read;
    let started = Instant::now();
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().map_err(|e| format!("spawn: {e}"))?;
    let mut stdout = Vec::new();
    child.stdout.take().expect("piped").read_to_end(&mut stdout).map_err(|e| e.to_string())?;
    let mut status = 0;
    // SAFETY: plain syscall on our own child's pid with valid out-pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let seconds = started.elapsed().as_secs_f64();
    if rc != pid {
        return Err(format!("wait4 failed: {}", std::io::Error::last_os_error()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!("{cmd:?} failed (status {status})"));
    }
    Ok(Measured { seconds, peak_rss: usage.ru_maxrss as u64 * 1024, stdout })
}

fn read(model: &Path, runs: usize) -> crate::Result {
    let bytes = std::fs::metadata(model).map_err(|e| format!("{}: {e}", model.display()))?.len();
    let cli = release_cli()?;
    let mut results = Vec::new();
    for _ in 0..runs {
        results.push(measure(Command::new(&cli).args(["model", "check", "--json"]).arg(model))?);
    }
    let summary: serde_json::Value = serde_json::from_slice(&results[0].stdout).map_err(|e| e.to_string())?;
    let mut secs: Vec<f64> = results.iter().map(|r| r.seconds).collect();
    secs.sort_by(f64::total_cmp);
    let best = secs[0];
    let median = secs[secs.len() / 2];
    let peak = results.iter().map(|r| r.peak_rss).max().unwrap_or(0);
    println!("bench read: {}", model.display());
    println!(
        "  model: {:.1} MB, {} files, {} entities, {} edges",
        bytes as f64 / 1e6,
        summary["files"],
        summary["entities"],
        summary["edges"]
    );
    println!(
        "  native (release CLI `model check`, {runs} runs): best {best:.3} s, median {median:.3} s, {:.0} MB/s, peak RSS {:.0} MB",
        bytes as f64 / 1e6 / best,
        peak as f64 / 1e6
    );
    Ok(())
}

/// The same read in the browser: the release page built by Trunk, the model
/// served beside it, read by the Worker; figures reported by the page.
fn read_in_browser(model: &Path, runs: usize) -> crate::Result {
    let served = ServedModel::start(model)?;
    let mut results = Vec::new();
    for run in 1..=runs {
        match browser_run(&served.server, &["tests/bench/read.mjs", "bench/model.jsonl"], 600)? {
            Ok(v) => results.push(v),
            Err(why) => return Err(format!("browser run {run} failed: {why}")),
        }
    }
    drop(served);
    let bytes = std::fs::metadata(model).map(|m| m.len()).unwrap_or(0);
    let (best, median) = best_median(&results, |v| seconds(&v["millis"]));
    let memory = max_of(&results, |v| &v["wasmMemory"]);
    let long_task = max_of(&results, |v| &v["longestUiTaskMs"]);
    println!(
        "  browser (headless Chromium, wasm in the Worker, fetch + read, {runs} runs): best {best:.3} s, median {median:.3} s, {:.0} MB/s, wasm memory {:.0} MB, longest UI-thread task {long_task:.0} ms",
        bytes as f64 / 1e6 / best,
        memory / 1e6,
    );
    Ok(())
}

/// The hosted page (`cargo xtask dist`, base `/`) served on a loopback port
/// with its `_headers` as a static host applies them, and the model beside
/// it as `bench/model.jsonl` (hard-linked, else copied); what is measured is
/// what a user's browser gets.
struct ServedModel {
    server: crate::serve::StaticServer,
    site: PathBuf,
    files: Vec<crate::dist::Written>,
}

impl ServedModel {
    fn start(model: &Path) -> crate::Result<ServedModel> {
        crate::setup::run()?;
        let site = crate::target_dir().join("bench-site");
        let files = crate::dist::build(&site, "/")?;
        let bench_dir = site.join("bench");
        std::fs::create_dir_all(&bench_dir).map_err(|e| e.to_string())?;
        let served = bench_dir.join("model.jsonl");
        let _ = std::fs::remove_file(&served);
        if std::fs::hard_link(model, &served).is_err() {
            std::fs::copy(model, &served).map_err(|e| format!("copy {}: {e}", model.display()))?;
        }
        let server = crate::dist::serve(&site, &site)?;
        Ok(ServedModel { server, site, files })
    }
}

impl Drop for ServedModel {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.site.join("bench"));
    }
}

/// `timing PHASE MS` lines that `explain --timings` prints to stderr.
fn phase_lines(stderr: &str) -> Vec<(String, f64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("timing ")?.strip_suffix(" ms")?;
            let (name, ms) = rest.rsplit_once(' ')?;
            Some((name.to_owned(), ms.parse().ok()?))
        })
        .collect()
}

fn print_phases(phases: &[(String, f64)]) {
    let line: Vec<String> = phases.iter().map(|(name, ms)| format!("{name} {ms:.0}")).collect();
    println!("  phases (ms): {}", line.join(", "));
}

/// The native plan: the release CLI's `explain --dry-run --json --timings`,
/// its wall time and peak RSS, and the phase split it reports.
fn plan(model: &Path, runs: usize, mem_limit_gb: u64) -> crate::Result {
    use std::os::unix::process::CommandExt;
    let cli = release_cli()?;
    let err_path = std::env::temp_dir().join(format!("xtask-bench-plan-{}.stderr", std::process::id()));
    println!("bench plan: {}", model.display());
    let mut results = Vec::new();
    for run in 1..=runs {
        let err_file = std::fs::File::create(&err_path).map_err(|e| format!("{}: {e}", err_path.display()))?;
        let mut cmd = Command::new(&cli);
        cmd.arg("explain").arg(model).args(["--dry-run", "--json", "--timings"]).stderr(err_file);
        let limit = mem_limit_gb.saturating_mul(1 << 30);
        // SAFETY: only setrlimit (async-signal-safe) runs between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let rl = libc::rlimit { rlim_cur: limit as libc::rlim_t, rlim_max: limit as libc::rlim_t };
                if libc::setrlimit(libc::RLIMIT_AS, &rl) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let started = Instant::now();
        let measured = measure(&mut cmd);
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        let _ = std::fs::remove_file(&err_path);
        match measured {
            Ok(m) => results.push((m, phase_lines(&stderr))),
            Err(e) => {
                println!(
                    "  native run {run}: FAILED after {:.1} s ({e}); address space capped at {mem_limit_gb} GB (--mem-limit-gb)",
                    started.elapsed().as_secs_f64()
                );
                for l in stderr.lines().filter(|l| !l.starts_with("timing ")).take(5) {
                    println!("    stderr: {l}");
                }
                print_phases(&phase_lines(&stderr));
                return Ok(());
            }
        }
    }
    let plan: serde_json::Value = serde_json::from_slice(&results[0].0.stdout).map_err(|e| e.to_string())?;
    let e = &plan["estimates"];
    println!(
        "  plan: {} units, {} calls, {} prompt tokens, {} completion tokens",
        plan["steps"].as_array().map_or(0, Vec::len),
        e["calls"],
        e["promptTokens"],
        e["completionTokens"]
    );
    let mut secs: Vec<f64> = results.iter().map(|(m, _)| m.seconds).collect();
    secs.sort_by(f64::total_cmp);
    let peak = results.iter().map(|(m, _)| m.peak_rss).max().unwrap_or(0);
    println!(
        "  native (release CLI `explain --dry-run --json --timings`, {runs} runs): best {:.3} s, median {:.3} s, peak RSS {:.0} MB",
        secs[0],
        secs[secs.len() / 2],
        peak as f64 / 1e6
    );
    let best = results.iter().min_by(|a, b| a.0.seconds.total_cmp(&b.0.seconds)).expect("one run at least");
    print_phases(&best.1);
    Ok(())
}

/// The same plan in the browser: the Worker reads the model, then plans it
/// (`?model=URL&plan=1`); figures reported by the page.
fn plan_in_browser(model: &Path, runs: usize, timeout: u64) -> crate::Result {
    let served = ServedModel::start(model)?;
    let mut results = Vec::new();
    let timeout_arg = timeout.to_string();
    for run in 1..=runs {
        let started = Instant::now();
        match browser_run(&served.server, &["tests/bench/plan.mjs", "bench/model.jsonl", &timeout_arg], timeout + 30)? {
            Ok(v) => results.push(v),
            Err(why) => {
                println!("  browser run {run}: FAILED after {:.1} s: {why}", started.elapsed().as_secs_f64());
                return Ok(());
            }
        }
    }
    drop(served);
    let (best, median) = best_median(&results, |v| seconds(&v["millis"]));
    let (read_best, _) = best_median(&results, |v| seconds(&v["readMillis"]));
    println!("  browser: {}", results[0]["text"].as_str().unwrap_or(""));
    println!(
        "  browser (headless Chromium, wasm in the Worker, corpus + plan after the read, {runs} runs): best {best:.3} s, median {median:.3} s, wasm memory {:.0} MB (after the read {:.0} MB, read best {read_best:.3} s)",
        max_of(&results, |v| &v["wasmMemory"]) / 1e6,
        max_of(&results, |v| &v["readWasmMemory"]) / 1e6,
    );
    Ok(())
}

/// One run of a browser benchmark script (`node SCRIPT ARGS…` against the
/// served page, killed after `timeout` seconds): the JSON line it prints, or
/// why it failed (the thrown error's message).
/// Up to `runs` runs of one browser script, stopping at the first that
/// fails (said on stdout with its time, `what` naming the runs).
fn browser_runs(
    server: &crate::serve::StaticServer,
    what: &str,
    script_and_args: &[&str],
    timeout: u64,
    runs: usize,
) -> crate::Result<Vec<serde_json::Value>> {
    let mut results = Vec::new();
    for run in 1..=runs {
        let started = Instant::now();
        match browser_run(server, script_and_args, timeout)? {
            Ok(v) => results.push(v),
            Err(why) => {
                println!("  {what} run {run}: FAILED after {:.1} s: {why}", started.elapsed().as_secs_f64());
                break;
            }
        }
    }
    Ok(results)
}

fn browser_run(
    server: &crate::serve::StaticServer,
    script_and_args: &[&str],
    timeout: u64,
) -> crate::Result<Result<serde_json::Value, String>> {
    let out = Command::new("timeout")
        .current_dir(root())
        .arg(timeout.to_string())
        .arg("node")
        .args(script_and_args)
        .env("E2E_BASE_URL", server.url())
        .output()
        .map_err(|e| format!("node: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let why: Vec<&str> = stderr
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("Error"))
            .take_while(|l| !l.trim_start().starts_with("at "))
            .collect();
        let why = if why.is_empty() { format!("no message ({})", out.status) } else { why.join(" / ") };
        return Ok(Err(why));
    }
    let line = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(line.trim()).map(Ok).map_err(|e| format!("{e}: {line}"))
}

/// `runs` runs of a browser benchmark script (`script_and_args`, which name
/// the model as `bench/model.jsonl`) against the release page with `model`
/// served beside it, each killed after `timeout` seconds: the JSON line of
/// every run until one fails, which is printed.
fn served_browser_runs(
    model: &Path,
    script_and_args: &[&str],
    runs: usize,
    timeout: u64,
) -> crate::Result<Vec<serde_json::Value>> {
    let served = ServedModel::start(model)?;
    let mut results = Vec::new();
    for run in 1..=runs {
        let started = Instant::now();
        match browser_run(&served.server, script_and_args, timeout)? {
            Ok(v) => results.push(v),
            Err(why) => {
                println!("  browser run {run}: FAILED after {:.1} s: {why}", started.elapsed().as_secs_f64());
                break;
            }
        }
    }
    Ok(results)
}

/// Milliseconds (a JSON number) as seconds; NaN when absent.
fn seconds(ms: &serde_json::Value) -> f64 {
    ms.as_f64().map_or(f64::NAN, |ms| ms / 1000.0)
}

/// The best (smallest) and the median of `f` over `runs` (at least one).
fn best_median<T>(runs: &[T], f: impl Fn(&T) -> f64) -> (f64, f64) {
    let mut v: Vec<f64> = runs.iter().map(f).collect();
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2])
}

/// The largest number `f` picks out of the runs' JSON (0 when none is a number).
fn max_of(runs: &[serde_json::Value], f: impl Fn(&serde_json::Value) -> &serde_json::Value) -> f64 {
    runs.iter().filter_map(|v| f(v).as_f64()).fold(0.0, f64::max)
}

/// `cargo xtask bench page`: the release page in headless Chromium. First a
/// large model, loaded and planned (`?model=URL&plan=1`) in a fresh browser
/// per run: wall time from navigation start and from the moment loading
/// starts, the Worker's read and plan times and wasm memory, and the UI
/// thread's long tasks before, while loading and while planning. Then the
/// bundled demo opened twice in one browser context: its second load (warm
/// HTTP cache) until the model summary and the plan are shown.
fn page(model: Option<&Path>, runs: usize, timeout: u64) -> crate::Result {
    let tmp = std::env::temp_dir().join(format!("xtask-bench-page-{}", std::process::id()));
    let model = match model {
        Some(m) => m.to_path_buf(),
        None => {
            let (entities, edges, seed) = (240_910, 782_031, 1);
            println!("bench page: writing the Fineract-scale model (synth --entities {entities} --edges {edges} --seed {seed})");
            std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
            let out = tmp.join("fineract.jsonl");
            let file = std::fs::File::create(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            crate::synth::generate(entities, edges, seed)?.write_to(file).map_err(|e| format!("synth: {e}"))?;
            out
        }
    };
    let result = page_runs(&model, runs, timeout);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn page_runs(model: &Path, runs: usize, timeout: u64) -> crate::Result {
    let served = ServedModel::start(model)?;
    let bytes = std::fs::metadata(model).map(|m| m.len()).unwrap_or(0);
    println!(
        "bench page: {} ({:.1} MB), hosted page (cargo xtask dist) at {}",
        model.display(),
        bytes as f64 / 1e6,
        served.server.url()
    );
    let timeout_arg = timeout.to_string();
    let model_args = ["tests/bench/page.mjs", "model", "bench/model.jsonl", &timeout_arg];
    let results = browser_runs(&served.server, "model", &model_args, timeout + 30, runs)?;
    if !results.is_empty() {
        print_model_runs(&results);
    }
    let start_args = ["tests/bench/page.mjs", "runstart", "bench/model.jsonl", &timeout_arg];
    let starts = browser_runs(&served.server, "run-start", &start_args, timeout + 30, runs)?;
    if !starts.is_empty() {
        let (best, median) = best_median(&starts, |v| v["confirmToRunningMs"].as_f64().unwrap_or(f64::NAN));
        let (after, _) = best_median(&starts, |v| v["planToConfirmMs"].as_f64().unwrap_or(f64::NAN));
        println!(
            "  a run confirmed as soon as the plan is shown ({after:.0} ms after it at best; the Worker is preparing the navigator), {} runs: confirm -> first progress shown best {best:.0} ms, median {median:.0} ms",
            starts.len()
        );
    }
    let drop_args = ["tests/bench/page.mjs", "drop", "fixtures/upstream-java/model.jsonl"];
    let drops = browser_runs(&served.server, "drop", &drop_args, 180, runs)?;
    if !drops.is_empty() {
        print_drop_runs(&drops);
    }
    let demos = browser_runs(&served.server, "demo", &["tests/bench/page.mjs", "demo"], 180, runs)?;
    if !demos.is_empty() {
        print_demo_runs(&demos);
    }
    // The bytes of a first visit as a host serves the `cargo xtask dist` folder.
    let (raw, gz, br) = crate::dist::first_visit(&served.site, &served.files);
    println!(
        "  first visit of the hosted folder (cargo xtask dist): {:.2} MB raw, {:.2} MB gzip, {:.2} MB brotli (the demo's fixtures not counted)",
        raw as f64 / 1e6,
        gz as f64 / 1e6,
        br as f64 / 1e6
    );
    Ok(())
}

/// The upstream Java fixture dropped on the landing: drop → plan shown (target ≤ 1 s).
fn print_drop_runs(results: &[serde_json::Value]) {
    let n = results.len();
    let line = |what: &str, f: &dyn Fn(&serde_json::Value) -> f64| {
        let (best, median) = best_median(results, f);
        println!("  {what}: best {best:.3} s, median {median:.3} s");
    };
    println!(
        "  the upstream Java fixture dropped on the landing, {n} runs ({} units, {} calls):",
        results[0]["units"], results[0]["calls"]
    );
    line("drop -> plan shown (target <= 1 s)", &|v| seconds(&v["plannedAt"]) - seconds(&v["droppedAt"]));
    line("  drop -> model shown", &|v| seconds(&v["loadedAt"]) - seconds(&v["droppedAt"]));
    line("  plan, the Worker's own figure", &|v| seconds(&v["millis"]));
    println!("  longest UI-thread task after the drop: {:.0} ms", max_of(results, |v| &v["longTasks"]["longestMs"]));
}

fn print_model_runs(results: &[serde_json::Value]) {
    let n = results.len();
    let line = |what: &str, f: &dyn Fn(&serde_json::Value) -> f64| {
        let (best, median) = best_median(results, f);
        println!("  {what}: best {best:.3} s, median {median:.3} s");
    };
    println!("  {}", results[0]["text"].as_str().unwrap_or("").lines().next().unwrap_or(""));
    println!("  model, ?model=URL&plan=1 in a fresh browser, {n} runs:");
    line("load + plan, navigation start -> plan shown", &|v| seconds(&v["plannedAt"]));
    line("load + plan, loading starts -> plan shown", &|v| seconds(&v["plannedAt"]) - seconds(&v["readingAt"]));
    line("  navigation start -> loading starts (page and Worker start)", &|v| seconds(&v["readingAt"]));
    line("  read (fetch + parse + graph), the Worker's own figure", &|v| seconds(&v["readMillis"]));
    if results.iter().any(|v| v["navMillis"].is_number()) {
        line("  navigator build, the Worker's own figure (in its idle time after the load and the plan)", &|v| {
            seconds(&v["navMillis"])
        });
    }
    line("  plan (corpus + plan), the Worker's own figure", &|v| seconds(&v["millis"]));
    line("  model loaded -> plan shown", &|v| seconds(&v["plannedAt"]) - seconds(&v["loadedAt"]));
    println!(
        "  wasm memory (Worker): {:.0} MB after the plan, {:.0} MB after the read; page JS heap {:.0} MB",
        max_of(results, |v| &v["wasmMemory"]) / 1e6,
        max_of(results, |v| &v["readWasmMemory"]) / 1e6,
        max_of(results, |v| &v["jsHeap"]) / 1e6
    );
    if results.iter().any(|v| v["treeAfterPlanMs"].is_number()) {
        println!("  Navigate opened the moment the plan is shown, then Cycles:");
        line("  plan shown -> first Navigate tree row in the DOM (target <= 1.5 s)", &|v| {
            seconds(&v["treeAfterPlanMs"])
        });
        line("  Cycles tab clicked -> first cycle row in the DOM (target <= 1 s)", &|v| {
            seconds(&v["cycles"]["firstRowMs"])
        });
        let c = &results[0]["cycles"];
        println!(
            "    cycles listed: {} in {} rows; rows in the DOM: {} (at most {})",
            c["cycles"],
            c["rows"],
            c["domRows"],
            max_of(results, |v| &v["cycles"]["domRows"])
        );
        println!(
            "    UI-thread long tasks from the Cycles click until 1 s after its first row: at most {} per run, longest {:.0} ms (target <= 100 ms); while opening Navigate: longest {:.0} ms",
            max_of(results, |v| &v["cycles"]["longTasks"]["count"]),
            max_of(results, |v| &v["cycles"]["longTasks"]["longestMs"]),
            max_of(results, |v| &v["longTasks"]["navigate"]["longestMs"])
        );
    }
    for phase in ["startup", "loading", "planning"] {
        let worst = results
            .iter()
            .max_by(|a, b| {
                let longest = |v: &serde_json::Value| v["longTasks"][phase]["longestMs"].as_f64().unwrap_or(0.0);
                longest(a).total_cmp(&longest(b))
            })
            .expect("one run at least");
        let when = match worst["longTasks"][phase]["longestAt"].as_f64() {
            Some(at) => format!(
                " (at {:.2} s; that run's loading started at {:.2} s, model loaded at {:.2} s, plan shown at {:.2} s)",
                at / 1e3,
                seconds(&worst["readingAt"]),
                seconds(&worst["loadedAt"]),
                seconds(&worst["plannedAt"])
            ),
            None => String::new(),
        };
        println!(
            "  UI-thread long tasks {phase}: at most {} per run, longest {:.0} ms{when}",
            max_of(results, |v| &v["longTasks"][phase]["count"]),
            max_of(results, |v| &v["longTasks"][phase]["longestMs"])
        );
    }
}

fn print_demo_runs(demos: &[serde_json::Value]) {
    println!(
        "  demo, ?demo opened twice in one browser context (cold: a fresh profile; warm: the second load), {} runs:",
        demos.len()
    );
    for load in ["cold", "warm"] {
        let ms = |what: &str, key: &str| {
            let (best, median) = best_median(demos, |v| v[load][key].as_f64().unwrap_or(f64::NAN));
            format!("{what} best {best:.0} ms, median {median:.0} ms")
        };
        println!(
            "  {load} load: {}; {}; {}; {}",
            ms("first contentful paint", "firstContentfulPaint"),
            ms("model summary shown", "modelShownAt"),
            ms("plan shown", "planShownAt"),
            ms("source shown", "sourceShownAt"),
        );
        let kb = |who: &str, what: &str| max_of(demos, |v| &v[load][who][what]);
        println!(
            "    fetched (at most): page {:.0} kB in {} files, Worker {:.0} kB in {} files; UI-thread long tasks: at most {} per run, longest {:.0} ms",
            kb("page", "bytes") / 1e3,
            kb("page", "files"),
            kb("worker", "bytes") / 1e3,
            kb("worker", "files"),
            max_of(demos, |v| &v[load]["longTasks"]["count"]),
            max_of(demos, |v| &v[load]["longTasks"]["longestMs"]),
        );
        // The run with the median plan time, step by step.
        let mut order: Vec<&serde_json::Value> = demos.iter().map(|v| &v[load]).collect();
        order.sort_by(|a, b| {
            a["planShownAt"].as_f64().unwrap_or(0.0).total_cmp(&b["planShownAt"].as_f64().unwrap_or(0.0))
        });
        let m = order[order.len() / 2];
        let arrived = |who: &str, suffix: &str| {
            m[who]["arrived"]
                .as_object()
                .and_then(|o| o.iter().find(|(k, _)| k.ends_with(suffix)))
                .and_then(|(_, t)| t.as_f64())
        };
        let steps = [
            ("page wasm fetched", arrived("page", "_bg.wasm")),
            ("first contentful paint", m["firstContentfulPaint"].as_f64()),
            ("Worker started", m["worker"]["startedAt"].as_f64()),
            ("Worker wasm fetched", arrived("worker", "worker_bg.wasm")),
            ("model fetched", arrived("worker", "model.jsonl")),
            ("model shown", m["modelShownAt"].as_f64()),
            ("source shown", m["sourceShownAt"].as_f64()),
            ("plan shown", m["planShownAt"].as_f64()),
        ];
        let steps: Vec<String> = steps.iter().filter_map(|(what, t)| t.map(|t| format!("{what} {t:.0}"))).collect();
        println!(
            "    median run (ms since navigation start): {}; the Worker's read {} ms, plan {} ms; store read-only: {}",
            steps.join(", "),
            m["readMillis"],
            m["planMillis"],
            m["storeReadOnly"].as_str().unwrap_or("?")
        );
    }
}

/// `cargo xtask bench sidecar`: the release example
/// `crates/store/examples/sidecar_bench.rs` generates a synthetic side-car,
/// then imports, exports and searches it, one process per phase (so each peak RSS,
/// taken with `wait4`, is that phase's alone).
fn sidecar(records: usize, seed: u64, runs: usize) -> crate::Result {
    let exe = release_example("store", "sidecar_bench")?;
    let dir = std::env::temp_dir().join(format!("xtask-bench-sidecar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let input = dir.join("in.insights.jsonl");
    let db = dir.join("in.insights.db");
    let output = dir.join("out.insights.jsonl");
    let json = |m: &Measured| -> crate::Result<serde_json::Value> {
        serde_json::from_slice(&m.stdout).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&m.stdout)))
    };
    let result = (|| -> crate::Result {
        let generated =
            measure(Command::new(&exe).arg("gen").arg(records.to_string()).arg(seed.to_string()).arg(&input))?;
        let g = json(&generated)?;
        let mut imports = Vec::new();
        let mut exports = Vec::new();
        for _ in 0..runs {
            let m = measure(Command::new(&exe).arg("import").arg(&input).arg(&db))?;
            let v = json(&m)?;
            imports.push((m, v));
            let m = measure(Command::new(&exe).arg("export").arg(&db).arg(&output))?;
            let v = json(&m)?;
            exports.push((m, v));
        }
        let identical =
            std::fs::read(&input).map_err(|e| e.to_string())? == std::fs::read(&output).map_err(|e| e.to_string())?;
        let summary = |v: &[(Measured, serde_json::Value)]| {
            let mut secs: Vec<f64> = v.iter().map(|(m, _)| m.seconds).collect();
            secs.sort_by(f64::total_cmp);
            let best = v.iter().min_by(|a, b| a.0.seconds.total_cmp(&b.0.seconds)).expect("runs >= 1");
            let peak = v.iter().map(|(m, _)| m.peak_rss).max().unwrap_or(0);
            (secs[0], secs[secs.len() / 2], peak, best.1.clone())
        };
        let (ib, im, ipeak, isplit) = summary(&imports);
        let (eb, em, epeak, esplit) = summary(&exports);
        let mb = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0) / 1e6;
        println!("bench sidecar: synthetic({records}, {seed}), {:.1} MB", mb(&g["bytes"]));
        println!(
            "  import (read + decode + store.import, fresh store, {runs} runs): best {ib:.3} s, median {im:.3} s, peak RSS {:.0} MB",
            ipeak as f64 / 1e6
        );
        println!(
            "    split of the best (ms): read {}, decode {}, store {}; store file {:.1} MB",
            isplit["readMs"],
            isplit["decodeMs"],
            isplit["storeMs"],
            mb(&isplit["dbBytes"])
        );
        println!(
            "  export (store -> file, {runs} runs): best {eb:.3} s, median {em:.3} s, peak RSS {:.0} MB, at most {} block rows at once",
            epeak as f64 / 1e6,
            esplit["maxRowsFetched"]
        );
        println!("  round trip byte-identical: {}", if identical { "yes" } else { "NO" });
        // Full-text search on the imported store (a reader), each query repeated.
        let searched = json(&measure(Command::new(&exe).arg("search").arg(&db))?)?;
        for q in searched["queries"].as_array().into_iter().flatten() {
            println!(
                "  search_text({}, 20): {} hits, best {} ms, median {} ms of {}",
                q["query"], q["hits"], q["bestMs"], q["medianMs"], searched["repeats"]
            );
        }
        if identical {
            Ok(())
        } else {
            Err("the exported side-car differs from the imported one".into())
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Per-unit overhead of a real run (no model latency): the release CLI's
/// `explain` with the offline demo completer and with the loopback mock
/// provider, each into a fresh store, minus the plan-only time.
fn run_loop(model: &Path, concurrency: u32) -> crate::Result {
    let cli = release_cli()?;
    let dir = std::env::temp_dir().join(format!("cgi-bench-run-{}", std::process::id()));
    let fresh = || -> crate::Result<PathBuf> {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let m = dir.join("model.jsonl");
        if std::fs::hard_link(model, &m).is_err() {
            std::fs::copy(model, &m).map_err(|e| e.to_string())?;
        }
        Ok(m)
    };
    let m = fresh()?;
    let plan = measure(
        Command::new(&cli).args(["explain", "--dry-run", "--json"]).arg(&m).stderr(std::process::Stdio::null()),
    )?;
    let planned: serde_json::Value = serde_json::from_slice(&plan.stdout).map_err(|e| e.to_string())?;
    let units = planned["steps"].as_array().map_or(0, |s| s.len());
    println!("bench run: {} ({units} units, {} calls planned)", model.display(), planned["estimates"]["calls"]);
    println!("  plan only: {:.3} s, peak RSS {:.0} MB", plan.seconds, plan.peak_rss as f64 / 1e6);
    let server = testkit::MockProvider::start(testkit::MockConfig::default());
    let url = server.url();
    let concurrency = concurrency.to_string();
    for (label, extra) in [
        ("demo completer (no HTTP)", vec!["--provider", "demo"]),
        (
            "mock provider over loopback HTTP",
            vec!["--provider", "openai-compatible", "--base-url", url.as_str(), "--no-source"],
        ),
    ] {
        let m = fresh()?;
        let r = measure(
            Command::new(&cli)
                .args(["explain", "--yes", "--json", "--concurrency", &concurrency])
                .args(&extra)
                .arg(&m)
                .stderr(std::process::Stdio::null()),
        )?;
        let summary: serde_json::Value = serde_json::from_slice(&r.stdout).map_err(|e| e.to_string())?;
        let calls = summary["counts"]["calls"].as_u64().unwrap_or(0);
        let records = summary["counts"]["records"].as_u64().unwrap_or(0);
        let sidecar = std::fs::metadata(dir.join("model.insights.jsonl")).map(|m| m.len()).unwrap_or(0);
        let per_unit_ms = (r.seconds - plan.seconds).max(0.0) * 1000.0 / units.max(1) as f64;
        println!(
            "  {label}: {:.3} s for {calls} calls and {records} records (side-car {:.1} MB), peak RSS {:.0} MB; run-loop overhead {per_unit_ms:.2} ms per unit beyond planning",
            r.seconds,
            sidecar as f64 / 1e6,
            r.peak_rss as f64 / 1e6
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
