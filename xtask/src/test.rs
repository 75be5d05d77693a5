//! `cargo xtask test`: every test, in five stages.
//!
//! 0. `lint`: `cargo fmt --all --check`, then clippy with `-D warnings` on
//!    every target natively and on the wasm32 builds (the pure crates, the
//!    store, the page and its Worker).
//! 1. `native`: `cargo test --workspace`.
//! 2. `wasm`: the `wasm-bindgen-test`s of the pure crates and of the store
//!    (SQLite on OPFS), in headless Chromium (a dedicated worker) through
//!    `wasm-bindgen-test-runner` + chromedriver.
//! 3. `e2e`: the hosted page exactly as users get it (`cargo xtask dist
//!    --base /sub/path/`: the optimised modules, the CSP, the service
//!    worker), served under `/sub/path/` on a free 127.0.0.1 port with its
//!    `_headers`; the loopback mock providers (a slow one, one that answers
//!    402 on the third call, one failing a unit); the CLI (to compare
//!    side-cars with); then `node --test tests/e2e/` (playwright-core
//!    driving /usr/bin/chromium).
//!
//! 4. `real-llm`: a real local model (llama-cpp-python's server with
//!    SmolLM2-135M, [`crate::local_llm`]) on a free loopback port: the CLI
//!    test `crates/cli/tests/real_llm.rs` and the page test
//!    `tests/e2e/real-llm.page.mjs` (not matched by `node --test`'s default
//!    pattern, so the `e2e` stage does not run it).
//!
//! All selected stages run even when one fails; the exit code is non-zero
//! if any failed, and the last line reads `N passed, M failed`.

use crate::serve::StaticServer;
use crate::setup::{self, cargo, e2e_dir, run_cmd, which, WASM_TARGET};
use crate::{root, target_dir};
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;
use testkit::{MockConfig, MockProvider};

/// Crates whose tests also run as wasm32 in the browser (the store's on OPFS).
const WASM_CRATES: &[&str] = &["model", "insights", "store"];

/// Chromium flags for wasm-bindgen-test-runner's chromedriver session (it
/// adds `headless`, `no-sandbox` and `disable-dev-shm-usage` itself).
const CHROME_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Stage {
    Lint,
    Native,
    Wasm,
    E2e,
    RealLlm,
}

#[derive(clap::Args)]
pub struct Args {
    /// Skip the stages that need a browser or the local model (wasm, e2e, real-llm).
    #[arg(long, conflicts_with = "only")]
    no_browser: bool,
    /// Run just one stage.
    #[arg(long, value_enum)]
    only: Option<Stage>,
}

pub fn run(args: Args) -> crate::Result {
    setup::run()?;
    let stages: Vec<Stage> = match (args.only, args.no_browser) {
        (Some(stage), _) => vec![stage],
        (None, true) => vec![Stage::Lint, Stage::Native],
        (None, false) => vec![Stage::Lint, Stage::Native, Stage::Wasm, Stage::E2e, Stage::RealLlm],
    };
    let mut results = Vec::new();
    for stage in stages {
        println!("\n==> test stage {stage:?}");
        let started = Instant::now();
        let result = match stage {
            Stage::Lint => lint(),
            Stage::Native => native(),
            Stage::Wasm => wasm(),
            Stage::E2e => e2e(),
            Stage::RealLlm => real_llm(),
        };
        let secs = started.elapsed().as_secs_f64();
        match &result {
            Ok(()) => println!("==> stage {stage:?}: ok ({secs:.1}s)"),
            Err(e) => println!("==> stage {stage:?}: FAILED ({secs:.1}s): {e}"),
        }
        results.push((stage, result.is_ok(), secs));
    }

    println!("\ntest stages:");
    for (stage, ok, secs) in &results {
        let verdict = if *ok { "ok" } else { "FAILED" };
        println!("  {:<8} {verdict:<7} {secs:>7.1}s", format!("{stage:?}"));
    }
    let failed = results.iter().filter(|r| !r.1).count();
    println!("{} passed, {failed} failed", results.len() - failed);
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} test stage(s) failed"))
    }
}

/// Crates built for wasm32 (clippy there too): the pure core, the store, the page.
const WASM_LINTED: &[&str] =
    &["model", "analyzer", "sources", "insights", "explore", "navigator", "store", "llm", "web", "web-worker"];

fn lint() -> crate::Result {
    run_cmd(cargo().current_dir(root()).args(["fmt", "--all", "--check"]))
        .map_err(|e| format!("{e}\nhint: run `cargo fmt --all`"))?;
    run_cmd(cargo().current_dir(root()).args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;
    let mut wasm = cargo();
    wasm.current_dir(root()).args(["clippy", "--target", WASM_TARGET, "--lib", "--bins"]);
    for krate in WASM_LINTED {
        wasm.args(["-p", krate]);
    }
    run_cmd(wasm.args(["--", "-D", "warnings"]))
}

fn native() -> crate::Result {
    run_cmd(cargo().current_dir(root()).args(["test", "--workspace"]))
}

fn wasm() -> crate::Result {
    let chromedriver = ["/usr/bin/chromedriver"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| which("chromedriver"))
        .ok_or("chromedriver not found (cargo xtask setup installs chromium-driver)")?;

    // Capabilities for the runner's chromedriver session.
    let webdriver_json = target_dir().join("xtask").join("webdriver.json");
    std::fs::create_dir_all(webdriver_json.parent().unwrap()).map_err(|e| e.to_string())?;
    let args: Vec<String> = CHROME_ARGS.iter().map(|a| format!("\"{a}\"")).collect();
    let caps =
        format!("{{\"goog:chromeOptions\": {{\"args\": [{}], \"binary\": \"/usr/bin/chromium\"}}}}\n", args.join(", "));
    std::fs::write(&webdriver_json, caps).map_err(|e| e.to_string())?;

    let mut cmd = cargo();
    cmd.current_dir(root()).args(["test", "--target", WASM_TARGET]);
    for krate in WASM_CRATES {
        cmd.args(["-p", krate]);
    }
    cmd.env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", "wasm-bindgen-test-runner")
        .env("CHROMEDRIVER", &chromedriver)
        .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", &webdriver_json)
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120")
        // Never fall back to Node or another browser.
        .env_remove("GECKODRIVER")
        .env_remove("SAFARIDRIVER")
        .env_remove("WASM_BINDGEN_USE_BROWSER")
        .env_remove("NO_HEADLESS");
    run_cmd(&mut cmd)
}

/// Where the E2E tests' hosted folder is built (`target/e2e-site/sub/path`).
const SITE_BASE: &str = "/sub/path/";

/// The hosted page (`cargo xtask dist --base /sub/path/` into
/// `target/e2e-site`) and the debug CLI, once per `cargo xtask test`;
/// returns the site's root (what a host serves, the page under
/// [`SITE_BASE`]).
fn build_site_and_cli() -> crate::Result<PathBuf> {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    if let Some(site) = BUILT.get() {
        return Ok(site.clone());
    }
    if which("node").is_none() {
        return Err("node is not installed (needed for the browser end-to-end tests)".into());
    }
    let built = Instant::now();
    let site = target_dir().join("e2e-site");
    let _ = std::fs::remove_dir_all(&site);
    crate::dist::build(&site.join(SITE_BASE.trim_matches('/')), SITE_BASE)?;
    println!("e2e: cargo xtask dist --base {SITE_BASE} took {:.1}s", built.elapsed().as_secs_f64());
    run_cmd(cargo().current_dir(root()).args(["build", "-p", "cli"]))?;
    let _ = BUILT.set(site.clone());
    Ok(site)
}

/// The site served as a host serves it (`dist::serve`), and the page's URL.
fn serve_site(site: &std::path::Path) -> crate::Result<(StaticServer, String)> {
    let server = crate::dist::serve(site, &site.join(SITE_BASE.trim_matches('/')))?;
    let url = format!("{}{}", server.url(), SITE_BASE.trim_start_matches('/'));
    Ok((server, url))
}

/// `node --test` from the root, one test file at a time, spec reporter.
fn node_test() -> Command {
    let mut c = Command::new("node");
    c.current_dir(root()).args(["--test", "--test-reporter=spec", "--test-concurrency=1"]);
    c
}

fn real_llm() -> crate::Result {
    let started = Instant::now();
    let llm = crate::local_llm::LlamaServer::start()?;
    println!(
        "real-llm: llama-cpp-python serving {} at {} (ready in {:.1}s)",
        crate::local_llm::MODEL_ALIAS,
        llm.url(),
        started.elapsed().as_secs_f64()
    );
    let cli_test = run_cmd(
        cargo()
            .current_dir(root())
            .args(["test", "-p", "cli", "--test", "real_llm", "--", "--ignored", "--nocapture", "--test-threads=1"])
            .env("CGI_LLM_URL", llm.url())
            .env("CGI_LLM_MODEL", crate::local_llm::MODEL_ALIAS),
    );
    let page_test = build_site_and_cli().and_then(|site| {
        let (_server, url) = serve_site(&site)?;
        let cli = target_dir().join("debug").join("codegraph-insights");
        run_cmd(
            node_test()
                .arg(e2e_dir().join("real-llm.page.mjs"))
                .env("E2E_BASE_URL", &url)
                .env("E2E_LLM_URL", llm.url())
                .env("E2E_LLM_MODEL", crate::local_llm::MODEL_ALIAS)
                .env("E2E_CLI", &cli),
        )
    });
    if cli_test.is_err() || page_test.is_err() {
        println!("real-llm: the server's log ({}) ends:\n{}", llm.log().display(), llm.log_tail());
    }
    cli_test.and(page_test)
}

fn e2e() -> crate::Result {
    let site = build_site_and_cli()?;
    let cli = target_dir().join("debug").join("codegraph-insights");
    let (server, url) = serve_site(&site)?;
    println!("e2e: serving the dist folder at {url}");
    // Slow enough that a reload lands mid-run; and one whose account runs dry.
    let slow = MockProvider::start(MockConfig::default().with("slow:120@*"));
    let broke = MockProvider::start(MockConfig::default().with("402@3"));
    // One unit always answered with nonsense: a failure to show in the navigator.
    let failing = MockProvider::start(MockConfig::default().with("malformed@unit=java:com.acme.order/Money.cents()"));
    let result = run_cmd(
        node_test()
            .arg(e2e_dir())
            .env("E2E_BASE_URL", &url)
            .env("E2E_DIST_DIR", site.join(SITE_BASE.trim_matches('/')))
            .env("E2E_MOCK_SLOW_URL", slow.url())
            .env("E2E_MOCK_402_URL", broke.url())
            .env("E2E_MOCK_FAILING_URL", failing.url())
            .env("E2E_CLI", &cli),
    );
    drop(server);
    slow.stop();
    broke.stop();
    failing.stop();
    result
}
