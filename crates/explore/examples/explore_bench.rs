//! The explore benchmark behind `cargo xtask bench explore` (release
//! build). Prints one JSON object on stdout.
//!
//! ```text
//! explore_bench time MODEL RUNS        # graph + index build, map answers
//! explore_bench sizes MODEL SRC Q…     # map vs snippets vs source, per question
//! ```
//!
//! `time` asks four questions picked from the model itself (the operation
//! with the most callers by qualified name, the same by `file:line`, it and
//! one of its callers, and a prose question from the words of its type)
//! plus a fixed prose question, each `RUNS` times, best and median.

use std::io::BufReader;
use std::time::Instant;

use analyzer::CodeGraph;
use explore::{estimate_tokens, Class, ExploreIndex, Explorer, Mode, NoExplanations, Request};
use serde_json::json;

fn millis(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn best_and_median(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[0], ms[ms.len() / 2])
}

fn read(path: &str) -> model::Model {
    let file = std::fs::File::open(path).expect("open the model");
    model::read_model(BufReader::with_capacity(1 << 20, file), path).expect("read the model")
}

/// Questions drawn from the model: its most-called operation by name, by
/// anchor, with a caller, and in words.
fn questions(graph: &CodeGraph<'_>, index: &ExploreIndex) -> Vec<String> {
    let top = (0..graph.len() as u32)
        .filter(|&i| index.class(i) == Some(Class::Operation) && graph.entity(i).anchor().is_some())
        .max_by_key(|&i| (graph.callers_of(i).len(), std::cmp::Reverse(graph.rank(i))))
        .expect("an operation");
    let name = explore::qualified_name(graph, top).to_owned();
    let a = graph.entity(top).anchor().expect("anchored");
    let caller = graph.callers_of(top).iter().copied().find(|&c| index.class(c) == Some(Class::Operation));
    let mut out = vec![name.clone(), format!("{}:{}", graph.file(a.file), a.start + 1)];
    if let Some(c) = caller {
        out.push(format!("{} {name}", explore::qualified_name(graph, c)));
    }
    let words: Vec<String> = name.split('.').next().unwrap_or(&name).chars().fold(Vec::new(), |mut w, c| {
        if c.is_uppercase() || w.is_empty() {
            w.push(String::new());
        }
        w.last_mut().expect("a word").extend(c.to_lowercase());
        w
    });
    out.push(format!("how does the {} work?", words.join(" ")));
    out.push("how is a loan charge calculated and posted to the journal?".to_owned());
    out
}

fn time(path: &str, runs: usize) -> serde_json::Value {
    let t = Instant::now();
    let model = read(path);
    let read_ms = millis(t);
    let t = Instant::now();
    let graph = CodeGraph::new(&model);
    let graph_ms = millis(t);
    let mut builds = Vec::new();
    let mut index = ExploreIndex::default();
    for _ in 0..runs {
        let t = Instant::now();
        index = ExploreIndex::build(&graph);
        builds.push(millis(t));
    }
    let (build_best, build_median) = best_and_median(builds);
    let explorer = Explorer { graph: &graph, index: &index, sources: None, explanations: &NoExplanations };
    let mut answers = Vec::new();
    for q in questions(&graph, &index) {
        let mut ms = Vec::new();
        let mut map = None;
        for _ in 0..runs.max(3) {
            let t = Instant::now();
            let m = explorer.answer(&Request { question: &q, ..Request::default() });
            let md = m.to_markdown();
            ms.push(millis(t));
            map = Some((m, md));
        }
        let (m, md) = map.expect("answered");
        let (best, median) = best_and_median(ms);
        answers.push(json!({
            "question": q, "bestMs": best, "medianMs": median,
            "chars": md.chars().count(), "tokens": estimate_tokens(&md),
            "matched": m.summary.matched, "listed": m.symbols.items.len(),
            "flow": m.flow.as_ref().map_or(0, |f| f.steps.len()),
        }));
    }
    json!({
        "entities": model.entity_count(), "edges": model.edge_count(), "files": model.files().len(),
        "readMs": read_ms, "graphMs": graph_ms,
        "index": {"bestMs": build_best, "medianMs": build_median, "symbols": index.symbols()},
        "answers": answers,
    })
}

fn sizes(path: &str, src: &str, questions: &[String]) -> serde_json::Value {
    let model = read(path);
    let graph = CodeGraph::new(&model);
    let index = ExploreIndex::build(&graph);
    let bytes = std::fs::read(src).expect("read the sources");
    let mut archive = sources::Archive::parse(src, &bytes).expect("an archive");
    let paths: Vec<&str> = model.files().iter().map(String::as_str).collect();
    archive.use_root(&paths);
    let explorer = Explorer { graph: &graph, index: &index, sources: Some(&archive), explanations: &NoExplanations };
    let rows: Vec<serde_json::Value> = questions
        .iter()
        .map(|q| {
            let mut row = json!({ "question": q });
            for mode in Mode::ALL {
                let md =
                    explorer.answer(&Request { question: q, flag: Some(mode), ..Request::default() }).to_markdown();
                row[mode.as_str()] = json!({ "chars": md.chars().count(), "tokens": estimate_tokens(&md) });
            }
            row
        })
        .collect();
    json!({ "sizes": rows })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = match args.first().map(String::as_str) {
        Some("time") if args.len() >= 2 => time(&args[1], args.get(2).map_or(3, |r| r.parse().expect("RUNS")).max(1)),
        Some("sizes") if args.len() >= 4 => sizes(&args[1], &args[2], &args[3..]),
        _ => {
            eprintln!("usage: explore_bench time MODEL RUNS | explore_bench sizes MODEL SRC QUESTION…");
            std::process::exit(2);
        }
    };
    println!("{out}");
}
