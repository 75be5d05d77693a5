//! `cargo xtask bench explore --model FILE`: explore natively in a release
//! build (`crates/explore/examples/explore_bench.rs`): the graph and the
//! name index built for the model, maps answered for questions picked from
//! it, then the size of a map against snippets and source for the same
//! questions on the demo corpus (characters, and tokens estimated as the
//! engine does: a quarter of the UTF-16 length). With `--browser`, the same
//! questions (and the bare name of the first) asked on the release page's
//! Explore tab in headless Chromium (`tests/bench/explore.mjs`).

use std::path::Path;
use std::process::Command;

use crate::root;

/// The demo questions of the size comparison (also the golden maps').
const DEMO_QUESTIONS: [&str; 4] = [
    "how is a rental priced?",
    "RentalService.finish",
    "com/pedalpoint/billing/BillingService.java:44",
    "how does a bike get handed out and taken back?",
];

/// The native figures; returns the questions asked of the model.
pub fn run(model: &Path, runs: usize) -> crate::Result<Vec<String>> {
    let exe = super::release_example("explore", "explore_bench")?;
    let json = |m: &super::Measured| -> crate::Result<serde_json::Value> {
        serde_json::from_slice(&m.stdout).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&m.stdout)))
    };
    let m = super::measure(Command::new(&exe).arg("time").arg(model).arg(runs.to_string()))?;
    let v = json(&m)?;
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    println!(
        "bench explore: {} ({} files, {} entities, {} edges; peak RSS of the process {:.0} MB)",
        model.display(),
        v["files"],
        v["entities"],
        v["edges"],
        m.peak_rss as f64 / 1e6
    );
    println!(
        "  read {:.0} ms, CodeGraph {:.0} ms, name index ({} symbols, {runs} builds): best {:.0} ms, median {:.0} ms",
        f(&v["readMs"]),
        f(&v["graphMs"]),
        v["index"]["symbols"],
        f(&v["index"]["bestMs"]),
        f(&v["index"]["medianMs"]),
    );
    let mut questions = Vec::new();
    for a in v["answers"].as_array().cloned().unwrap_or_default() {
        questions.extend(a["question"].as_str().map(str::to_owned));
        println!(
            "  map of {:?}: best {:.1} ms, median {:.1} ms; {} chars (~{} tokens), {} listed of {} matched, flow {} steps",
            a["question"].as_str().unwrap_or(""),
            f(&a["bestMs"]),
            f(&a["medianMs"]),
            a["chars"],
            a["tokens"],
            a["listed"],
            a["matched"],
            a["flow"],
        );
    }
    let demo = root().join("fixtures/demo");
    let m = super::measure(
        Command::new(&exe)
            .arg("sizes")
            .arg(demo.join("model.jsonl"))
            .arg(demo.join("demo-src.zip"))
            .args(DEMO_QUESTIONS),
    )?;
    let v = json(&m)?;
    println!("  size on the demo corpus (characters / estimated tokens): map | snippets | source");
    for row in v["sizes"].as_array().cloned().unwrap_or_default() {
        let part = |mode: &str| format!("{} / {}", row[mode]["chars"], row[mode]["tokens"]);
        println!(
            "    {:?}: {} | {} | {} (map = {:.0} % of source)",
            row["question"].as_str().unwrap_or(""),
            part("map"),
            part("snippets"),
            part("source"),
            f(&row["map"]["chars"]) * 100.0 / f(&row["source"]["chars"]).max(1.0),
        );
    }
    Ok(questions)
}

/// The browser part: `runs` fresh browsers on the release page, each asking
/// `questions` on the Explore tab once the model is loaded, after the bare
/// name of the first (`Type.method` → `method`), which builds the index.
pub fn in_browser(model: &Path, questions: &[String], runs: usize, timeout: u64) -> crate::Result {
    let bare = questions.first().and_then(|q| q.rsplit('.').next()).unwrap_or("String").to_owned();
    let asked: Vec<&str> = std::iter::once(bare.as_str()).chain(questions.iter().map(String::as_str)).collect();
    let timeout_arg = timeout.to_string();
    let mut args = vec!["tests/bench/explore.mjs", "bench/model.jsonl", &timeout_arg];
    args.extend(&asked);
    let results = super::served_browser_runs(model, &args, runs, timeout + 60)?;
    if results.is_empty() {
        return Ok(());
    }
    let navigator = if results.iter().all(|v| v["navigatorBuilt"].as_bool() == Some(true)) {
        "its navigator built"
    } else {
        "the navigator not built in every run"
    };
    println!(
        "  browser (release page in headless Chromium, ?model=URL then the Explore tab, asked once the model is loaded and the Worker idle, {navigator}; a fresh browser per run, {} runs; times: best / median; target <= 500 ms):",
        results.len()
    );
    let answers = |v: &serde_json::Value| v["answers"].as_array().cloned().unwrap_or_default();
    for (i, a) in answers(&results[0]).iter().enumerate() {
        let at = |key: &str| -> (f64, f64) {
            let values: Vec<f64> =
                results.iter().filter_map(|v| answers(v).get(i).and_then(|a| a[key].as_f64())).collect();
            if values.is_empty() {
                return (f64::NAN, f64::NAN);
            }
            super::best_median(&values, |x| *x)
        };
        let when = match i {
            0 => "first answer, builds the index",
            _ if i == asked.len() => "the first question again",
            _ => "later",
        };
        let (ms, ms_median) = at("ms");
        let (painted, painted_median) = at("paintedMs");
        let (worker, worker_median) = at("workerMillis");
        let (index, index_median) = at("indexMillis");
        let index =
            if index > 0.0 { format!(", of which the index {index:.0} / {index_median:.0} ms") } else { String::new() };
        let shown = results.iter().all(|v| answers(v).get(i).is_some_and(|a| a["shown"].as_bool() == Some(true)));
        println!(
            "    {:?} ({when}): click -> answer shown {ms:.0} / {ms_median:.0} ms, painted {painted:.0} / {painted_median:.0} ms; the Worker's own figure {worker:.0} / {worker_median:.0} ms{index}; {} chars, {} symbols{}",
            a["question"].as_str().unwrap_or(""),
            a["chars"],
            a["symbols"],
            if shown { "" } else { " (the map shown did not repeat the question)" },
        );
    }
    for v in &results {
        for p in v["problems"].as_array().into_iter().flatten() {
            println!("  problem: {p}");
        }
    }
    Ok(())
}
