//! `cargo xtask <command>`: the project's automation, in Rust so it runs
//! wherever cargo does. Every command that needs tools calls `setup` first.

mod bench;
mod demo;
mod dist;
mod local_llm;
mod mock_provider;
mod serve;
mod setup;
mod synth;
mod test;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Project automation for codegraph insights")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Install what is missing (wasm32 target, clang, Trunk, wasm-bindgen CLI, Chromium, playwright-core,
    /// llama-cpp-python with the SmolLM2 model). Idempotent.
    Setup,
    /// Build the page with Trunk and serve it, with the bundled demo, on 127.0.0.1.
    Serve(serve::Args),
    /// Build the release page into a folder to upload to a static host (`--base` for a sub-path).
    Dist(dist::Args),
    /// Run every test: native workspace tests, wasm tests in headless Chromium, browser end-to-end tests.
    Test(test::Args),
    /// Benchmarks that print figures (see docs/benchmarks.md).
    Bench(bench::Args),
    /// Write a synthetic but realistic model.jsonl.
    Synth(synth::Args),
    /// Write the demo corpus's model.jsonl and source archive from fixtures/demo/src (--check: compare only).
    Demo(demo::Args),
    /// Start the mock chat-completions provider (loopback, optional faults) and print its URL.
    MockProvider(mock_provider::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Setup => setup::run_all(),
        Command::Serve(args) => serve::run(args),
        Command::Dist(args) => dist::run(args),
        Command::Test(args) => test::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Demo(args) => demo::run(args),
        Command::MockProvider(args) => mock_provider::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of `xtask/`).
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives inside the workspace").to_path_buf()
}

/// The cargo target directory (`$CARGO_TARGET_DIR`, else `<root>/target`).
pub fn target_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .map(|p| if p.is_absolute() { p } else { root().join(p) })
        .unwrap_or_else(|| root().join("target"))
}

pub type Result<T = ()> = std::result::Result<T, String>;
