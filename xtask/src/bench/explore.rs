//! `cargo xtask bench explore --model FILE`: explore natively in a release
//! build (`crates/explore/examples/explore_bench.rs`): the graph and the
//! name index built for the model, maps answered for questions picked from
//! it, then the size of a map against snippets and source for the same
//! questions on the demo corpus (characters, and tokens estimated as the
//! engine does: a quarter of the UTF-16 length).

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

pub fn run(model: &Path, runs: usize) -> crate::Result {
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
    for a in v["answers"].as_array().cloned().unwrap_or_default() {
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
    Ok(())
}
