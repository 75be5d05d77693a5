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
    /// The domain at a glance: bounded contexts, aggregates, the context map and the glossary, as Markdown with Mermaid diagrams or JSON.
    Domain(Box<commands::domain::DomainArgs>),
}

/// How a command failed.
pub enum Failure {
    /// Bad flags or unusable input: exit 2, the message on stderr.
    Usage(String),
    /// Already reported (e.g. JSON on stdout): exit with this code.
    Exit(u8),
}

fn main() -> ExitCode {
    // A panic is a bug in this tool: say so plainly (never a stack dump for a
    // user), exit 1. A run that was writing is closed as interrupted while
    // the panic unwinds (`store::StoreRun`'s `Drop`); its commits stay.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        say!(
            "codegraph-insights: internal error (a bug in this tool, not in your model): {what}{place}\n\
             Please report it with the command you ran. Records already committed to the store are kept."
        );
    }));
    let result = std::panic::catch_unwind(|| {
        let cli = Cli::parse();
        match cli.command {
            Command::Model(cmd) => commands::model::run(cmd),
            Command::Explain(args) => commands::explain::run(*args),
            Command::Insights(args) => commands::insights::run(*args),
            Command::Explore(args) => commands::explore::run(*args),
            Command::Domain(args) => commands::domain::run(*args),
        }
    });
    let Ok(result) = result else { return ExitCode::from(1) };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            say!("codegraph-insights: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Exit(code)) => ExitCode::from(code),
    }
}
