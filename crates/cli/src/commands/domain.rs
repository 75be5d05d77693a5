//! `codegraph-insights domain MODEL [--store FILE | --out SIDECAR] [--format md|json] [--out-dir DIR] [--src DIR|ZIP|TAR.GZ]`
//!
//! The domain at a glance (crates/domain): bounded contexts, their
//! aggregates, commands and events, the context map and the glossary, from
//! the explanations `explain` bought and the model's structure. The
//! explanations are read from a store, read-only (`--store FILE`, else the
//! one beside the side-car: `<model>.insights.db`, or beside `--out`), else
//! from the side-car itself; nothing is found → exit 2 (a store is never
//! created). With source (`--src`, or the model's recorded root) each record
//! is checked against the current plan and a stale one is marked; without,
//! every record is taken as current and stderr says so.
//!
//! `--format md` (the default) writes `index.md` and one `<context>.md` per
//! bounded context, with Mermaid diagrams, into `--out-dir` (default
//! `<model stem>.domain/` beside the model); `--format json` writes the
//! `codegraph.domainView/1` JSON as one line on stdout, or to
//! `DIR/domain.json` with `--out-dir`. Every file is written atomically (a
//! temporary file in the same directory, then a rename).

use std::path::{Path, PathBuf};

use crate::commands::run::{write_atomically, Existing, Paths};
use crate::output::{emit, shell_word};
use crate::Failure;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// Markdown files with Mermaid diagrams: index.md and one file per bounded context.
    Md,
    /// The codegraph.domainView/1 JSON.
    Json,
}

/// Bounded contexts, their map and the glossary, from what explain stored.
#[derive(clap::Args, Debug)]
#[command(after_help = "Explanations are read from the store (read-only: --store FILE, else the one beside \
the side-car) or else from the side-car (<model>.insights.jsonl, or --out SIDECAR); run `explain` first. \
--format md writes index.md (coverage, the context map, the contexts, shared kernels, the glossary) and one \
<context>.md per bounded context (modules, aggregates as Mermaid class diagrams, lifecycles as state \
diagrams, commands, events, terms, what is not explained) into --out-dir, default <model stem>.domain/ beside \
the model (model.jsonl -> model.domain/); the directory is created if missing and files of the same names are \
replaced, each atomically. --format json writes one codegraph.domainView/1 line to stdout, or DIR/domain.json \
with --out-dir. With source (--src, else the model's recorded root) records that no longer match the code are \
marked stale; without, they are taken as current. What was written goes to stderr. Exit status: 0 written, 2 \
usage error or unusable input (no explanations, an unreadable store or side-car, a directory that cannot be \
written).")]
pub struct DomainArgs {
    /// The model file (model.jsonl).
    pub model: PathBuf,
    /// Read this store (read-only) instead of the one beside the side-car.
    #[arg(long, value_name = "FILE", conflicts_with = "out")]
    pub store: Option<PathBuf>,
    /// The side-car explain wrote with --out: read the store beside it, else the side-car.
    #[arg(long, value_name = "SIDECAR")]
    pub out: Option<PathBuf>,
    /// Markdown files with Mermaid diagrams, or the JSON view.
    #[arg(long, value_enum, default_value_t = FormatArg::Md)]
    pub format: FormatArg,
    /// Where the files go (md: default <model stem>.domain/ beside the model; json: stdout unless given).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Source root the anchors are relative to, to check the explanations against the code: a
    /// directory, a .zip or a .tar.gz (default: the model's recorded root).
    #[arg(long, value_name = "DIR|ZIP|TAR.GZ")]
    pub src: Option<PathBuf>,
}

/// `<model stem>.domain` beside the model: `a/model.jsonl` → `a/model.domain`.
pub fn default_out_dir(model: &Path) -> PathBuf {
    let name = model.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    model.with_file_name(domain::markdown::folder_for(&name))
}

/// The explanations: the store named, else the store or side-car of the model.
fn existing(args: &DomainArgs) -> Result<Existing, Failure> {
    let model_word = shell_word(&args.model);
    if let Some(store) = &args.store {
        if !store.is_file() {
            return Err(Failure::Usage(format!(
                "--store {}: no insights store there\nhint: `codegraph-insights explain {model_word}` writes one \
                 beside the model; without --store the store or side-car beside the model is read",
                store.display()
            )));
        }
        return Existing::open_store(store, None)?.ok_or_else(|| {
            Failure::Usage(format!(
                "--store {}: the store holds no explanations yet\nhint: `codegraph-insights explain {model_word} \
                 --out {}` fills it",
                store.display(),
                shell_word(&store.with_extension("jsonl"))
            ))
        });
    }
    let paths = Paths::for_model(&args.model, args.out.as_deref());
    let existing = Existing::load(&paths)?;
    if !existing.found() {
        let out_flag = args.out.as_deref().map(|o| format!(" --out {}", shell_word(o))).unwrap_or_default();
        let empty = if paths.store.is_file() { " (it holds no records)" } else { "" };
        return Err(Failure::Usage(format!(
            "no explanations of {} to read: looked for the store {}{empty} and the side-car {}\n\
             hint: run `codegraph-insights explain {model_word}{out_flag}` first (`--provider demo` explains \
             offline from the model's facts); --store FILE reads a store kept elsewhere",
            args.model.display(),
            paths.store.display(),
            paths.sidecar.display()
        )));
    }
    Ok(existing)
}

pub fn run(args: DomainArgs) -> Result<(), Failure> {
    let m = crate::input::read_model_file(&args.model).map_err(|e| Failure::Usage(e.to_string()))?;
    if !m.findings().is_empty() {
        crate::say!(
            "warning: the model has {} finding(s); see `codegraph-insights model check {}`",
            m.findings().total(),
            shell_word(&args.model)
        );
    }
    let existing = existing(&args)?;
    let header = existing.header()?;
    // The view the records were made in (their units), as explore builds it.
    let view = header
        .as_ref()
        .map_or_else(analyzer::view::View::all, |h| analyzer::view::View::from_filters(&h.source.view.filters));
    let corpus = insights::units::Corpus::build(&m, view, None)
        .map_err(|e| Failure::Usage(format!("{}: {e}", args.model.display())))?;
    let probe = corpus.probe_file();
    let src = crate::sources::open_sources(args.src.as_deref(), &m, probe)?;
    if let Some(note) = &src.note {
        crate::say!("{note}");
    }
    let stale = match &src.reader {
        Some(reader) => {
            let stamps = existing.stamps()?;
            explore::plan_verdict(&corpus, reader.as_ref(), existing.records(), &stamps, header.as_ref()).reasons()
        }
        None => {
            crate::say!(
                "explanations are not checked against the code: no source is loaded, so every record is taken as \
                 current; give --src DIR|ZIP|TAR.GZ to mark the stale ones"
            );
            Default::default()
        }
    };
    let records = existing.all_records()?;
    let failures = existing.failures();
    let view = domain::domain_view(&domain::Inputs {
        facts: &corpus.facts,
        records: &records,
        failures: &failures,
        stale: &stale,
    });
    match (args.format, &args.out_dir) {
        (FormatArg::Json, None) => {
            emit(&(view.to_json() + "\n"));
            crate::say!("{}", view.coverage_line());
        }
        (FormatArg::Json, Some(dir)) => {
            make_dir(dir)?;
            let path = dir.join("domain.json");
            write_file(&path, &(view.to_json() + "\n"))?;
            crate::say!("wrote {}: {}", path.display(), view.coverage_line());
        }
        (FormatArg::Md, dir) => {
            let dir = dir.clone().unwrap_or_else(|| default_out_dir(&args.model));
            make_dir(&dir)?;
            let files = domain::markdown::files(&view);
            for (name, text) in &files {
                write_file(&dir.join(name), text)?;
            }
            crate::say!(
                "wrote {} files to {} (index.md and {} context(s)): {}",
                files.len(),
                dir.display(),
                files.len() - 1,
                view.coverage_line()
            );
            others_left(&dir, &files);
        }
    }
    Ok(())
}

/// Creates `dir` (and its parents) unless it is there.
fn make_dir(dir: &Path) -> Result<(), Failure> {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::Usage(format!("--out-dir {}: is there but is not a directory", dir.display())));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Usage(format!("--out-dir {}: the directory cannot be created: {e}", dir.display())))
}

/// Writes one file atomically: a failure never leaves half of it.
fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    write_atomically(path, |w| w.write_all(text.as_bytes()).map_err(|e| format!("{}: {e}", path.display())))
}

/// Says which Markdown files of the directory this run did not write (the
/// contexts of an earlier run, say): they are left as they are.
fn others_left(dir: &Path, written: &[(String, String)]) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut others: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && !written.iter().any(|(w, _)| w == n))
        .collect();
    if others.is_empty() {
        return;
    }
    others.sort();
    let shown = others.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    let more = if others.len() > 5 { format!(" and {} more", others.len() - 5) } else { String::new() };
    crate::say!(
        "note: {} also holds {} other Markdown file(s) this run did not write, left as they are: {shown}{more}",
        dir.display(),
        others.len()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_directory_is_beside_the_model() {
        assert_eq!(default_out_dir(Path::new("a/model.jsonl")), Path::new("a/model.domain"));
        assert_eq!(default_out_dir(Path::new("shop-codegraph.jsonl")), Path::new("shop-codegraph.domain"));
        assert_eq!(default_out_dir(Path::new("/x/model")), Path::new("/x/model.domain"));
        assert_eq!(default_out_dir(Path::new(".jsonl")), Path::new(".jsonl.domain"));
    }
}
