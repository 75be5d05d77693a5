//! `codegraph-insights insights [MODEL] [--store FILE | --out FILE] [--json]
//! [--id ID | --failures | --runs | --stats | --level … --concept … --min-confidence X --max-confidence X --limit N]`
//!
//! The reader (docs/formats/cli.md §4, docs/formats/store.md §8): it opens
//! only the store, read-only (`query_only`), and answers one question per
//! invocation. The model file is never opened; it only says which store.
//! Nothing is written and a missing store is never created.

use std::path::PathBuf;

use insights::blocks::Block;
use insights::record::{FailureRecord, InsightRecord, Usage};
use insights::sidecar::{block_json, encode_failure, encode_header, encode_record};
use insights::vocab::Level;
use serde::Serialize;
use serde_json::value::RawValue;
use store::{InsightAnswer, InsightRow, Query, RunRow, Stats, Store};

use crate::output::shell_word;
use crate::Failure;
use explore::visible;

const SUMMARY_KIND: &str = "codegraph.insightsSummary/1";
const LIST_KIND: &str = "codegraph.insightsList/1";
const FAILURES_KIND: &str = "codegraph.insightsFailures/1";
const RUNS_KIND: &str = "codegraph.insightsRuns/1";

/// A whole number ≥ 1.
fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{s:?} is not a whole number ≥ 1")),
    }
}

/// A confidence: a number from 0 to 1.
fn unit_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?} is not a confidence between 0 and 1 (e.g. 0.5)")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelArg {
    Operation,
    Type,
    Module,
}

impl From<LevelArg> for Level {
    fn from(l: LevelArg) -> Level {
        match l {
            LevelArg::Operation => Level::Operation,
            LevelArg::Type => Level::Type,
            LevelArg::Module => Level::Module,
        }
    }
}

/// Read what `explain` stored: a summary, a filtered list, one id, the owed failures or the run ledger.
#[derive(clap::Args, Debug)]
#[command(after_help = "One question per invocation; with none, the summary. The store is opened read-only and \
never created. Exit status: 0 answered, 3 the id asked with --id failed, 2 usage error (an id the store knows \
nothing about, a missing or unreadable store, conflicting flags).")]
pub struct InsightsArgs {
    /// The model file whose store to read (default: <current-dir-name>-codegraph.jsonl). It is never opened.
    pub model: Option<PathBuf>,
    /// Read this store instead of <model>.insights.db.
    #[arg(long, value_name = "FILE", conflicts_with = "out")]
    pub store: Option<PathBuf>,
    /// The side-car explain wrote with --out: read the store beside it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// One id: is it explained, failed or unknown? Several ids (repeated, or a comma list; commas inside
    /// parentheses belong to the id): list those that have a record.
    #[arg(long, value_name = "ID")]
    pub id: Vec<String>,
    /// List only this level.
    #[arg(long, value_enum)]
    pub level: Option<LevelArg>,
    /// List only types of this concept (e.g. aggregate, valueType).
    #[arg(long, value_name = "NAME")]
    pub concept: Option<String>,
    /// List only records at least this confident (0..1).
    #[arg(long, value_parser = unit_interval, value_name = "X", allow_hyphen_values = true)]
    pub min_confidence: Option<f64>,
    /// List only records at most this confident (0..1).
    #[arg(long, value_parser = unit_interval, value_name = "X", allow_hyphen_values = true)]
    pub max_confidence: Option<f64>,
    /// List at most N rows (after sorting).
    #[arg(long, value_parser = positive, value_name = "N")]
    pub limit: Option<usize>,
    /// The summary (also what you get with no question at all).
    #[arg(long)]
    pub stats: bool,
    /// The units that were asked for and are still owed.
    #[arg(long)]
    pub failures: bool,
    /// The run ledger, oldest first.
    #[arg(long)]
    pub runs: bool,
    /// Machine-readable output on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The one question asked.
enum Mode {
    Summary,
    One(String),
    Failures,
    Runs,
    List(Query),
}

/// Splits an `--id` value on commas that are not inside brackets, so that
/// `a/T.m(int,long),a/T` is two ids.
fn split_ids(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in value.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(value[start..i].to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(value[start..].to_owned());
    out.into_iter().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
}

fn mode_of(args: &InsightsArgs) -> Result<Mode, Failure> {
    let ids: Vec<String> = args.id.iter().flat_map(|v| split_ids(v)).collect();
    if !args.id.is_empty() && ids.is_empty() {
        return Err(Failure::Usage("--id was given without an id".to_owned()));
    }
    // The questions asked, each named by the flag that asked it.
    let mut asked: Vec<&str> = Vec::new();
    if ids.len() == 1 {
        asked.push("--id");
    }
    if args.failures {
        asked.push("--failures");
    }
    if args.runs {
        asked.push("--runs");
    }
    if args.stats {
        asked.push("--stats");
    }
    let filters = [
        (ids.len() > 1, "--id"),
        (args.level.is_some(), "--level"),
        (args.concept.is_some(), "--concept"),
        (args.min_confidence.is_some(), "--min-confidence"),
        (args.max_confidence.is_some(), "--max-confidence"),
        (args.limit.is_some(), "--limit"),
    ];
    if let Some((_, flag)) = filters.iter().find(|(on, _)| *on) {
        asked.push(flag);
    }
    if asked.len() > 1 {
        return Err(Failure::Usage(format!(
            "{} and {} ask two different questions; ask one per invocation\n\
             hint: --id ID, --failures, --runs, --stats and the list filters (--level, --concept, \
             --min-confidence, --max-confidence, --limit, several --id) each make a question of their own",
            asked[0], asked[1]
        )));
    }
    Ok(match asked.first().copied() {
        Some("--id") if ids.len() == 1 => Mode::One(ids.into_iter().next().expect("one id")),
        Some("--failures") => Mode::Failures,
        Some("--runs") => Mode::Runs,
        Some("--stats") | None => Mode::Summary,
        Some(_) => Mode::List(Query {
            ids: (ids.len() > 1).then_some(ids),
            level: args.level.map(Level::from),
            concept: args.concept.clone(),
            min_confidence: args.min_confidence,
            max_confidence: args.max_confidence,
            limit: args.limit,
        }),
    })
}

/// Where the store is, and how a pointer to another command names it.
struct Location {
    store: PathBuf,
    /// The model as given (or defaulted), for `explain` pointers.
    model: Option<PathBuf>,
    defaulted: bool,
    /// Arguments that select the same store in another `insights` call.
    insights_args: String,
    /// Arguments that select the same side-car in an `explain` call.
    explain_args: String,
}

fn default_model() -> PathBuf {
    let name = std::env::current_dir()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "model".to_owned());
    PathBuf::from(format!("{name}-codegraph.jsonl"))
}

fn locate(args: &InsightsArgs) -> Location {
    let (model, defaulted) = match (&args.model, &args.store) {
        (Some(m), _) => (Some(m.clone()), false),
        (None, Some(_)) => (None, false),
        (None, None) => (Some(default_model()), true),
    };
    let model_word = model.as_deref().map(shell_word).unwrap_or_else(|| "MODEL".to_owned());
    let (store, insights_args, explain_args) = match (&args.store, &args.out) {
        (Some(s), _) => (s.clone(), format!("--store {}", shell_word(s)), model_word),
        (None, Some(out)) => {
            let explain = format!("{model_word} --out {}", shell_word(out));
            (store::store_path_for(out), explain.clone(), explain)
        }
        (None, None) => {
            let store = store::store_path_for(store::sidecar_path_for(model.as_deref().expect("a model")));
            let insights = if defaulted { String::new() } else { model_word.clone() };
            (store, insights, model_word)
        }
    };
    Location { store, model, defaulted, insights_args, explain_args }
}

impl Location {
    fn insights_command(&self, flag: &str) -> String {
        if self.insights_args.is_empty() {
            format!("codegraph-insights insights {flag}")
        } else {
            format!("codegraph-insights insights {} {flag}", self.insights_args)
        }
    }
    fn explain_command(&self, flag: &str) -> String {
        format!("codegraph-insights explain {} {flag}", self.explain_args)
    }
}

pub fn run(args: InsightsArgs) -> Result<(), Failure> {
    let mode = mode_of(&args)?;
    let loc = locate(&args);
    let store = open(&loc)?;
    let fail = |e: store::StoreError| Failure::Usage(e.to_string());
    match mode {
        Mode::Summary => summary(&store, &loc, args.json).map_err(fail),
        Mode::List(q) => list(&store, &q, args.json).map_err(fail),
        Mode::Failures => failures(&store, &loc, args.json).map_err(fail),
        Mode::Runs => runs(&store, args.json).map_err(fail),
        Mode::One(id) => one(&store, &loc, &id, args.json),
    }
}

/// Opens the store read-only; a missing file is a usage error, never created.
fn open(loc: &Location) -> Result<Store, Failure> {
    let path = &loc.store;
    if !path.exists() {
        let made_by = match (&loc.model, loc.defaulted) {
            (Some(m), true) => {
                format!(" (the store of {}, the default model name here since no model was given)", m.display())
            }
            _ => String::new(),
        };
        return Err(Failure::Usage(format!(
            "{}: no insights store here{made_by}\n\
             hint: `{}` creates it; --store FILE reads a store kept elsewhere",
            path.display(),
            loc.explain_command("").trim_end(),
        )));
    }
    Store::open_reader(path).map_err(|e| Failure::Usage(e.to_string()))
}

/// Writes the artifact to stdout; a closed pipe is not an error.
fn emit(text: &str) -> Result<(), store::StoreError> {
    crate::output::emit(text);
    Ok(())
}

fn json_line<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string(value).expect("reader answers serialize");
    s.push('\n');
    s
}

fn raw(line: String) -> Box<RawValue> {
    RawValue::from_string(line).expect("the side-car encoder writes JSON")
}

// ---------------------------------------------------------------- text hygiene

/// Text worded by a model or a provider, made safe for one terminal line:
/// line breaks and tabs become spaces, other control characters are shown
/// as symbols (never sent to the terminal).
fn one_line(s: &str) -> String {
    s.chars().map(|c| if c == '\n' || c == '\t' || c == '\r' { ' ' } else { visible(c) }).collect()
}

/// Text worded by a model shown whole: line breaks and tabs are kept, other
/// control characters are shown as symbols.
fn block_text(s: &str) -> String {
    s.chars().map(|c| if c == '\n' || c == '\t' { c } else { visible(c) }).collect()
}

fn first_line(s: &str) -> String {
    one_line(s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim())
}

fn money(cost: Option<f64>) -> String {
    cost.map(|c| format!(", ${c:.4}")).unwrap_or_default()
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

// ---------------------------------------------------------------- summary

#[derive(Serialize)]
struct SummaryJson<'a> {
    kind: &'static str,
    store: String,
    header: Option<Box<RawValue>>,
    stats: &'a Stats,
    runs: &'a [RunRow],
}

fn summary(store: &Store, loc: &Location, json: bool) -> Result<(), store::StoreError> {
    let header = store.header()?;
    let stats = store.stats()?;
    let runs = store.runs()?;
    if json {
        return emit(&json_line(&SummaryJson {
            kind: SUMMARY_KIND,
            store: loc.store.display().to_string(),
            header: header.as_ref().map(|h| raw(encode_header(h))),
            stats: &stats,
            runs: &runs,
        }));
    }
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!("insights: {}", loc.store.display()));
    let (l, o) = (&stats.by_level, &stats.by_origin);
    line(format!(
        "{}: operation {}, type {}, module {}; explained {}, templated {}",
        plural(stats.records, "record", "records"),
        l.operation,
        l.type_,
        l.module,
        o.llm,
        o.template
    ));
    match &header {
        Some(h) => line(format!(
            "models: {} (operations), {} (types, modules); depth {}{}",
            one_line(&h.models.leaf),
            one_line(&h.models.rollup),
            h.depth,
            h.provider.as_deref().map(|p| format!("; provider {}", one_line(p))).unwrap_or_default()
        )),
        None => line("models: not recorded (the store has no header yet)".to_owned()),
    }
    if !stats.by_concept.is_empty() {
        let concepts: Vec<String> = stats.by_concept.iter().map(|(c, n)| format!("{} {n}", one_line(c))).collect();
        line(format!("concepts: {}", concepts.join(", ")));
    }
    if stats.failures == 0 {
        line("failures: none owed — every unit asked for has its records".to_owned());
    } else {
        line(format!(
            "failures: {} owed — see `{}`, ask again with `{}`",
            plural(stats.failures, "unit", "units"),
            loc.insights_command("--failures"),
            loc.explain_command("--retry-failed")
        ));
    }
    let u = &stats.usage;
    line(format!(
        "cost of these records: {} prompt + {} completion tokens{} (their own calls only; failed or replaced calls \
         are counted in the ledger alone)",
        u.prompt_tokens,
        u.completion_tokens,
        money(u.cost)
    ));
    if runs.is_empty() {
        line("ledger: empty — this content came from an imported side-car".to_owned());
    } else {
        let mut usage = Usage::default();
        let mut calls = 0u64;
        for r in &runs {
            calls += r.counts.and_then(|c| c.calls).unwrap_or(0);
            if let Some(ru) = &r.usage {
                usage.add(ru);
            }
        }
        line(format!(
            "ledger: {}, {}, {} + {} tokens{}",
            plural(runs.len() as u64, "run", "runs"),
            plural(calls, "call", "calls"),
            usage.prompt_tokens,
            usage.completion_tokens,
            money(usage.cost)
        ));
    }
    let unfinished = runs.iter().filter(|r| r.counts.is_none()).count() as u64;
    if unfinished > 0 {
        line(format!(
            "unfinished: {} (still running, or killed); the records they stored are kept",
            plural(unfinished, "run", "runs")
        ));
    }
    emit(&out)
}

// ---------------------------------------------------------------- list

#[derive(Serialize)]
struct ListJson<'a> {
    kind: &'static str,
    rows: &'a [InsightRow],
}

fn list(store: &Store, q: &Query, json: bool) -> Result<(), store::StoreError> {
    let rows = store.query(q)?;
    if rows.is_empty() {
        crate::say!("codegraph-insights: no record matches these filters");
    } else if let Some(ids) = &q.ids {
        let missing = ids.len() - rows.len().min(ids.len());
        let filtered = q.level.is_some()
            || q.concept.is_some()
            || q.min_confidence.is_some()
            || q.max_confidence.is_some()
            || q.limit.is_some();
        if missing > 0 && !filtered {
            crate::say!("codegraph-insights: {missing} of the ids asked for have no record (--id ID alone says why)");
        }
    }
    if json {
        return emit(&json_line(&ListJson { kind: LIST_KIND, rows: &rows }));
    }
    let mut out = String::new();
    for r in &rows {
        let label = r.concept.clone().unwrap_or_else(|| r.level.as_str().to_owned());
        out.push_str(&format!(
            "{}\t{}\t{:.2}\t{}\n",
            one_line(&r.id),
            one_line(&label),
            r.confidence,
            first_line(&r.description)
        ));
    }
    emit(&out)
}

// ---------------------------------------------------------------- failures

#[derive(Serialize)]
struct FailuresJson {
    kind: &'static str,
    failures: Vec<Box<RawValue>>,
}

fn reason(f: &FailureRecord) -> String {
    match f.reason.status {
        Some(status) => format!("{} {status}", f.reason.kind.as_str()),
        None => f.reason.kind.as_str().to_owned(),
    }
}

fn failures(store: &Store, loc: &Location, json: bool) -> Result<(), store::StoreError> {
    let failures = store.failures()?;
    if failures.is_empty() {
        crate::say!("codegraph-insights: no failure is owed — every unit asked for has its records");
    }
    if json {
        let failures = failures.iter().map(|f| raw(encode_failure(f))).collect();
        return emit(&json_line(&FailuresJson { kind: FAILURES_KIND, failures }));
    }
    let mut out = String::new();
    for f in &failures {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            one_line(&f.id),
            f.level.as_str(),
            reason(f),
            plural(f.attempts.into(), "attempt", "attempts"),
            first_line(&f.reason.message)
        ));
    }
    emit(&out)?;
    if !failures.is_empty() {
        crate::say!("codegraph-insights: to ask again: {}", loc.explain_command("--retry-failed"));
    }
    Ok(())
}

// ---------------------------------------------------------------- runs

#[derive(Serialize)]
struct RunsJson<'a> {
    kind: &'static str,
    runs: &'a [RunRow],
}

fn runs(store: &Store, json: bool) -> Result<(), store::StoreError> {
    let runs = store.runs()?;
    if runs.is_empty() {
        crate::say!("codegraph-insights: the run ledger is empty — this content came from an imported side-car");
    }
    if json {
        return emit(&json_line(&RunsJson { kind: RUNS_KIND, runs: &runs }));
    }
    let mut out = String::new();
    for r in &runs {
        let models = if r.models.leaf == r.models.rollup {
            one_line(&r.models.leaf)
        } else {
            format!("{}, {}", one_line(&r.models.leaf), one_line(&r.models.rollup))
        };
        let aborted = r.aborted.as_deref().map(|a| format!(" ({})", one_line(a))).unwrap_or_default();
        let counts = match &r.counts {
            Some(c) => format!(
                "{} explained, {} templated, {} reused, {} failed{aborted}",
                c.llm, c.template, c.reused, c.failed
            ),
            None => format!("never finished{aborted}"),
        };
        let usage = r.usage.unwrap_or_default();
        let calls = r.counts.and_then(|c| c.calls).unwrap_or(0);
        let modes = if r.output_modes.is_empty() {
            String::new()
        } else {
            let modes: Vec<String> = r
                .output_modes
                .iter()
                .map(|(model, mode)| format!("{} ({})", one_line(mode), one_line(model)))
                .collect();
            format!("\toutput mode {}", modes.join(", "))
        };
        out.push_str(&format!(
            "#{}\t{} → {}\t{models}\t{counts}\t{}, {} + {} tokens{}{modes}\n",
            r.id,
            one_line(&r.started_at),
            r.finished_at.as_deref().map(one_line).unwrap_or_else(|| "…".to_owned()),
            plural(calls, "call", "calls"),
            usage.prompt_tokens,
            usage.completion_tokens,
            money(usage.cost)
        ));
    }
    emit(&out)
}

// ---------------------------------------------------------------- one id

fn one(store: &Store, loc: &Location, id: &str, json: bool) -> Result<(), Failure> {
    let fail = |e: store::StoreError| Failure::Usage(e.to_string());
    let answer = store.answer_insight(id).map_err(fail)?;
    match &answer {
        InsightAnswer::Explained { record, .. } => {
            let text = if json {
                let mut line = encode_record(record);
                line.push('\n');
                line
            } else {
                explained_text(record)
            };
            emit(&text).map_err(fail)
        }
        InsightAnswer::Failed { failure, .. } => {
            if json {
                emit(&format!("{}\n", answer.to_json())).map_err(fail)?;
            }
            let unit = if failure.id == id {
                String::new()
            } else {
                format!(" (it is owed with the cycle unit {})", one_line(&failure.id))
            };
            crate::say!(
                "codegraph-insights: {} is not explained{unit}: {}: {}\n  {} with {}\n  to ask again: {}",
                one_line(id),
                reason(failure),
                one_line(&failure.reason.message),
                plural(failure.attempts.into(), "attempt", "attempts"),
                one_line(&failure.model),
                loc.explain_command("--retry-failed")
            );
            Err(Failure::Exit(3))
        }
        InsightAnswer::Unknown { .. } => {
            if json {
                emit(&format!("{}\n", answer.to_json())).map_err(fail)?;
            }
            Err(Failure::Usage(format!(
                "{} has no explanation in {}: no record, and no failure owed for it\n\
                 hint: only operations, types and modules are explained; `{}` lists what the store holds",
                one_line(id),
                loc.store.display(),
                loc.insights_command("--level type")
            )))
        }
    }
}

/// The explained layout: a header, the full description, then the rest of
/// the block as indented JSON.
fn explained_text(r: &InsightRecord) -> String {
    let mut out = String::new();
    out.push_str(&one_line(&r.id));
    out.push('\n');
    let mut first = vec![format!("{} ({})", r.level.as_str(), one_line(&r.kind))];
    if let Block::Type(t) = &r.block {
        first.push(t.concept.as_str().to_owned());
    }
    first.push(format!("confidence {:.2}", r.block.confidence()));
    out.push_str(&format!("  {}\n", first.join(" · ")));
    let mut second = Vec::new();
    if let Some(file) = &r.file {
        second.push(one_line(file));
    }
    second.push(r.origin.as_str().to_owned());
    if let Some(model) = &r.model {
        second.push(one_line(model));
    }
    if let Some(u) = &r.usage {
        second.push(format!("{} + {} tokens{}", u.prompt_tokens, u.completion_tokens, money(u.cost)));
    }
    out.push_str(&format!("  {}\n\n", second.join(" · ")));
    let description = block_text(r.block.description().trim_end());
    if !description.is_empty() {
        out.push_str(&description);
        out.push_str("\n\n");
    }
    out.push_str(&pretty(&rest_of_block(&block_json(&r.block))));
    out.push('\n');
    out
}

/// The block's JSON without its `description`, in the block's own key order.
fn rest_of_block(json: &str) -> String {
    struct Fields(Vec<(String, Box<RawValue>)>);
    impl<'de> serde::Deserialize<'de> for Fields {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Fields;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                        out.push(entry);
                    }
                    Ok(Fields(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    let Ok(Fields(fields)) = serde_json::from_str::<Fields>(json) else { return json.to_owned() };
    let parts: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k != "description")
        .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).expect("a string"), v.get()))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// Indents JSON text by two spaces per level (`": "` after keys, empty
/// containers kept on one line). String contents are copied as they are.
fn pretty(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let mut chars = json.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    if s == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if s == '"' {
                        break;
                    }
                }
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                if chars.peek() == Some(&close) {
                    chars.next();
                    out.push(c);
                    out.push(close);
                } else {
                    out.push(c);
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_split_on_top_level_commas_only() {
        assert_eq!(split_ids("a/T.m(int,long),a/T"), ["a/T.m(int,long)", "a/T"]);
        assert_eq!(split_ids("java:p/T"), ["java:p/T"]);
        assert_eq!(split_ids(" a , b ,"), ["a", "b"]);
        assert_eq!(split_ids("x/A.f(int[],java.util.Map<K,V>)"), ["x/A.f(int[],java.util.Map<K,V>)"]);
    }

    #[test]
    fn pretty_json_drops_the_description() {
        let text = pretty(&rest_of_block(r#"{"name":"N","description":"d","fields":[],"x":{"a":[1,"s,{:"]},"c":0.5}"#));
        assert_eq!(text, "{\n  \"name\": \"N\",\n  \"fields\": [],\n  \"x\": {\n    \"a\": [\n      1,\n      \"s,{:\"\n    ]\n  },\n  \"c\": 0.5\n}");
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(one_line("a\tb\nc\u{1b}[31m"), "a b c\u{241b}[31m");
        assert_eq!(block_text("a\n\tb\u{7}\u{85}"), "a\n\tb\u{2407}\u{fffd}");
    }
}
