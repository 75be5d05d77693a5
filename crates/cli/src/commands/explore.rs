//! `codegraph-insights explore MODEL "QUESTION" [--src DIR|ZIP|TAR.GZ] [--mode map|snippets|source] [--json]`
//!
//! A question in, a compact map out (crates/explore): the symbols that
//! matter with file:line and signatures, the call path among them, where
//! dispatch leaves the static graph, what depends on them, and the one-line
//! explanations already bought. Explanations are read from the store
//! `<model>.insights.db` (read-only) if present, else from the side-car
//! `<model>.insights.jsonl`, else there are none; they are checked against
//! the current plan when source is available. Nothing is written.

use std::path::PathBuf;

use explore::{ExploreIndex, Explorer, Mode, NoExplanations, RecordExplanations, Request};

use crate::commands::run::{Existing, Paths};
use crate::output::{emit, shell_word};
use crate::Failure;

/// The environment variable holding the user's default mode.
pub const MODE_VARIABLE: &str = "CODEGRAPH_EXPLORE_MODE";

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// No bodies: symbols, flow, dispatch, blast radius, relationships.
    Map,
    /// The map plus the first 12 lines of each symbol.
    Snippets,
    /// The map plus the symbols' source, within a budget.
    Source,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Map => Mode::Map,
            ModeArg::Snippets => Mode::Snippets,
            ModeArg::Source => Mode::Source,
        }
    }
}

/// Answer a question about the code with a compact map.
#[derive(clap::Args, Debug)]
#[command(after_help = "The question may name symbols (RentalService.finish, Rental#finish), point at lines \
(Fleet.java:40, a/B.java:12-30), quote a phrase to find in the source (\"no open rental\") or just ask in \
words; `mode:snippets` inside it overrides --mode, which overrides CODEGRAPH_EXPLORE_MODE, which overrides \
map. The map goes to stdout (Markdown, or one JSON line with --json); notes go to stderr. Exit status: 0 \
answered, 2 usage error or unusable input.")]
pub struct ExploreArgs {
    /// The model file (model.jsonl).
    pub model: PathBuf,
    /// The question: names, file:line anchors, quoted phrases, words.
    pub question: String,
    /// Source root the anchors are relative to: a directory, a .zip or a .tar.gz
    /// (default: the model's recorded root).
    #[arg(long, value_name = "DIR|ZIP|TAR.GZ")]
    pub src: Option<PathBuf>,
    /// How much source the map carries (default: $CODEGRAPH_EXPLORE_MODE, else map).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// The side-car explain wrote with --out: read it, or the store beside it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The map as one JSON line on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The user's setting, from the environment.
fn mode_setting() -> Result<Option<Mode>, Failure> {
    match std::env::var(MODE_VARIABLE) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => Mode::parse(&v).map(Some).ok_or_else(|| {
            Failure::Usage(format!(
                "{MODE_VARIABLE}={v:?} is not a mode\nhint: map, snippets or source (or unset it for map)"
            ))
        }),
        Err(_) => Ok(None),
    }
}

pub fn run(args: ExploreArgs) -> Result<(), Failure> {
    if args.question.trim().is_empty() {
        return Err(Failure::Usage(
            "the question is empty\nhint: e.g. codegraph-insights explore model.jsonl \"how is an order priced?\""
                .into(),
        ));
    }
    let setting = mode_setting()?;
    let m = crate::input::read_model_file(&args.model).map_err(|e| Failure::Usage(e.to_string()))?;
    if !m.findings().is_empty() {
        crate::say!(
            "warning: the model has {} finding(s); see `codegraph-insights model check {}`",
            m.findings().total(),
            args.model.display()
        );
    }
    let existing = Existing::load(&Paths::for_model(&args.model, args.out.as_deref()))?;
    let header = existing.header()?;
    // The corpus is needed to check explanations against the current plan.
    let corpus = match &header {
        Some(h) if existing.found() => {
            let view = analyzer::view::View::from_filters(&h.source.view.filters);
            Some(
                insights::units::Corpus::build(&m, view, None)
                    .map_err(|e| Failure::Usage(format!("{}: {e}", args.model.display())))?,
            )
        }
        _ => None,
    };
    let probe = corpus
        .as_ref()
        .and_then(|c| c.probe_file())
        .or_else(|| m.entities().find_map(|e| e.anchor()).map(|a| m.file(a.file).to_owned()));
    let src = crate::sources::open_sources(args.src.as_deref(), &m, probe)?;
    match (&src.note, &src.reader) {
        (Some(note), None) => crate::say!("{note}: no source, so no bodies; give --src DIR|ZIP|TAR.GZ to include them"),
        (Some(note), Some(_)) => crate::say!("{note}"),
        (None, _) => {}
    }
    let own_graph;
    let graph = match &corpus {
        Some(c) => &c.graph,
        None => {
            own_graph = analyzer::CodeGraph::new(&m);
            &own_graph
        }
    };
    let mut index = ExploreIndex::build(graph);
    let descriptions = existing.descriptions()?;
    index.set_explanations(graph, descriptions.iter().map(|(id, d)| (id.as_str(), d.as_str())));
    let current = match (&corpus, &src.reader) {
        (Some(c), Some(reader)) => {
            let stamps = existing.stamps()?;
            Some(explore::plan_verdict(c, reader.as_ref(), existing.records(), &stamps, header.as_ref()))
        }
        (Some(_), None) => {
            crate::say!("explanations are not checked against the code: no source is loaded");
            None
        }
        _ => None,
    };
    let records = RecordExplanations { records: existing.records(), verdict: current.as_ref() };
    let explanations: &dyn explore::Explanations = if existing.found() { &records } else { &NoExplanations };
    let src_flag = args.src.as_deref().map(|s| format!(" --src {}", shell_word(s))).unwrap_or_default();
    let out_flag = args.out.as_deref().map(|s| format!(" --out {}", shell_word(s))).unwrap_or_default();
    let body_hint = format!(
        "codegraph-insights explore {} \"{{name}}\" --mode source{src_flag}{out_flag}",
        shell_word(&args.model)
    );
    let explorer = Explorer { graph, index: &index, sources: src.reader.as_deref(), explanations };
    let map = explorer.answer(&Request {
        question: &args.question,
        flag: args.mode.map(Mode::from),
        setting,
        body_hint: Some(body_hint),
        ..Request::default()
    });
    if args.json {
        emit(&(map.to_json() + "\n"));
    } else {
        emit(&map.to_markdown());
    }
    Ok(())
}
