//! `cargo xtask bench …`: benchmarks that print figures. Targets live in the
//! issues and results in docs/benchmarks.md; nothing here fails on a target.

use crate::root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

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
    crate::setup::run()?;
    crate::serve::trunk_build(true)?;
    let dist = root().join("dist");
    let bench_dir = dist.join("bench");
    std::fs::create_dir_all(&bench_dir).map_err(|e| e.to_string())?;
    let served = bench_dir.join("model.jsonl");
    let _ = std::fs::remove_file(&served);
    if std::fs::hard_link(model, &served).is_err() {
        std::fs::copy(model, &served).map_err(|e| format!("copy {}: {e}", model.display()))?;
    }
    let server = crate::serve::StaticServer::start(&dist, 0)?;
    let mut results = Vec::new();
    for _ in 0..runs {
        let out = Command::new("node")
            .current_dir(root())
            .arg("tests/bench/read.mjs")
            .arg("bench/model.jsonl")
            .env("E2E_BASE_URL", server.url())
            .output()
            .map_err(|e| format!("node: {e}"))?;
        if !out.status.success() {
            return Err(format!("browser bench failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let line = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(line.trim()).map_err(|e| format!("{e}: {line}"))?;
        results.push(v);
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&bench_dir);
    let bytes = std::fs::metadata(model).map(|m| m.len()).unwrap_or(0);
    let mut secs: Vec<f64> = results.iter().map(|v| v["millis"].as_f64().unwrap_or(0.0) / 1000.0).collect();
    secs.sort_by(f64::total_cmp);
    let memory = results.iter().filter_map(|v| v["wasmMemory"].as_u64()).max().unwrap_or(0);
    let long_task = results.iter().filter_map(|v| v["longestUiTaskMs"].as_f64()).fold(0.0, f64::max);
    println!(
        "  browser (headless Chromium, wasm in the Worker, fetch + read, {runs} runs): best {:.3} s, median {:.3} s, {:.0} MB/s, wasm memory {:.0} MB, longest UI-thread task {:.0} ms",
        secs[0],
        secs[secs.len() / 2],
        bytes as f64 / 1e6 / secs[0],
        memory as f64 / 1e6,
        long_task
    );
    Ok(())
}
