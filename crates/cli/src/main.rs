//! `codegraph-insights`: the native shell over the pure core. Commands parse
//! their flags here, open files, and hand bytes to the core crates; every
//! behaviour lives in a core crate so that the page does the same.
//!
//! Streams: stdout carries the artifact (a report or JSON), stderr carries
//! everything for humans. Exit codes: 0 ok, 1 internal error (a bug in this
//! tool), 2 usage error or unusable input, 3 findings.

mod commands;
mod input;
mod output;
mod sources;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "codegraph-insights",
    version,
    about = "Explain a codebase bottom-up with an LLM, from a codegraph model.jsonl",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Work with a model.jsonl: validate it and count what it holds.
    #[command(subcommand)]
    Model(commands::model::ModelCommand),
    /// Plan (and, later, run) the explanation of every operation, type and module, leaves first.
    Explain(Box<commands::explain::ExplainArgs>),
    /// Read what explain stored: a summary, a filtered list, one id's answer, owed failures or the run ledger.
    Insights(Box<commands::insights::InsightsArgs>),
    /// Answer a question with a compact map: symbols with file:line, the call path, dispatch, dependents, explanations.
    Explore(Box<commands::explore::ExploreArgs>),
}

/// How a command failed.
pub enum Failure {
    /// Bad flags or unusable input: exit 2, the message on stderr.
    Usage(String),
    /// Already reported (e.g. JSON on stdout): exit with this code.
    Exit(u8),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Model(cmd) => commands::model::run(cmd),
        Command::Explain(args) => commands::explain::run(*args),
        Command::Insights(args) => commands::insights::run(*args),
        Command::Explore(args) => commands::explore::run(*args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("codegraph-insights: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Exit(code)) => ExitCode::from(code),
    }
}
