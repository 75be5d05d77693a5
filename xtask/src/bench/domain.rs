//! `cargo xtask bench domain`: the domain view at a 28,000-record store.
//!
//! A synthetic model (`synth`, about 30,000 units) gets synthetic
//! explanations for its first RECORDS units (`crates/domain/examples/
//! domain_bench.rs`, release: hints, concepts, terms, events; one in twenty
//! stale); natively the view is built several times (best and median) with
//! its Markdown and JSON; then the hosted page imports the same records as
//! a side-car and opens the Domain tab (`tests/bench/domain.mjs`): click to
//! coverage shown, and the Worker's own figure (facts, records, view and
//! the map's layout).

use super::{best_median, browser_run, release_example, ServedModel};
use crate::root;
use std::process::Command;

pub fn run(records: usize, entities: usize, edges: usize, runs: usize, timeout: u64) -> crate::Result {
    let tmp = std::env::temp_dir().join(format!("xtask-bench-domain-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let result = measure(&tmp, records, entities, edges, runs, timeout);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn measure(
    tmp: &std::path::Path,
    records: usize,
    entities: usize,
    edges: usize,
    runs: usize,
    timeout: u64,
) -> crate::Result {
    let model = tmp.join("model.jsonl");
    let file = std::fs::File::create(&model).map_err(|e| format!("{}: {e}", model.display()))?;
    crate::synth::generate(entities, edges, 1)?.write_to(file).map_err(|e| format!("synth: {e}"))?;
    let sidecar = tmp.join("model.insights.jsonl");
    let bench = release_example("domain", "domain_bench")?;
    let out = Command::new(&bench)
        .current_dir(root())
        .arg(&model)
        .arg(records.to_string())
        .arg("1")
        .arg(&sidecar)
        .output()
        .map_err(|e| format!("{}: {e}", bench.display()))?;
    if !out.status.success() {
        return Err(format!("domain_bench failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let n: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("domain_bench printed no figures: {e}"))?;
    println!(
        "bench domain: synth --entities {entities} --edges {edges} ({} units), {} records ({:.1} MB side-car), {} stale",
        n["units"],
        n["records"],
        n["sidecarBytes"].as_f64().unwrap_or(0.0) / 1e6,
        n["stale"]
    );
    println!(
        "  native (release), {} runs: the view best {:.0} ms, median {:.0} ms (target <= 1 s); the model's facts {:.0} ms before it; Markdown {:.0} ms ({} files, {:.1} MB), JSON {:.0} ms ({:.1} MB)",
        5,
        n["viewBestMs"].as_f64().unwrap_or(f64::NAN),
        n["viewMedianMs"].as_f64().unwrap_or(f64::NAN),
        n["factsMs"].as_f64().unwrap_or(f64::NAN),
        n["markdownMs"].as_f64().unwrap_or(f64::NAN),
        n["files"],
        n["markdownBytes"].as_f64().unwrap_or(0.0) / 1e6,
        n["jsonMs"].as_f64().unwrap_or(f64::NAN),
        n["jsonBytes"].as_f64().unwrap_or(0.0) / 1e6,
    );
    println!(
        "  the view: {} contexts, {} context-map edges, {} terms; the map drawn: {} boxes, {} edges ({} weaker left out), laid out in {:.0} ms",
        n["contexts"],
        n["edges"],
        n["terms"],
        n["mapBoxes"],
        n["mapEdges"],
        n["mapHidden"],
        n["mapMs"].as_f64().unwrap_or(f64::NAN)
    );

    let served = ServedModel::start(&model)?;
    let sidecar_arg = sidecar.to_string_lossy().into_owned();
    let (records_arg, timeout_arg) = (records.to_string(), timeout.to_string());
    // A person's browser (a profile on disk), `runs` times; then once in a
    // private window, where OPFS is kept in memory behind a slower call.
    for (mode, runs) in [("profile", runs), ("private", 1)] {
        let args = ["tests/bench/domain.mjs", "bench/model.jsonl", &sidecar_arg, &records_arg, &timeout_arg, mode];
        let mut results = Vec::new();
        for run in 1..=runs {
            match browser_run(&served.server, &args, timeout + 60)? {
                Ok(v) => results.push(v),
                Err(why) => {
                    println!("  browser run {run} ({mode}): FAILED: {why}");
                    break;
                }
            }
        }
        if results.is_empty() {
            return Err(format!("no browser run of the Domain tab finished ({mode})"));
        }
        let (worker_best, worker_median) = best_median(&results, |v| v["workerMs"].as_f64().unwrap_or(f64::NAN));
        let (shown_best, shown_median) = best_median(&results, |v| v["shownMs"].as_f64().unwrap_or(f64::NAN));
        let (import_best, _) = best_median(&results, |v| v["importMs"].as_f64().unwrap_or(f64::NAN));
        let browser = if mode == "profile" { "a browser profile on disk" } else { "a private window" };
        println!(
            "  the Worker (hosted page, headless Chromium, {browser}), {} runs: the view built best {:.0} ms, median {:.0} ms (target <= 2 s); Domain tab clicked -> coverage shown best {:.0} ms, median {:.0} ms; the side-car's import before it {:.1} s",
            results.len(),
            worker_best,
            worker_median,
            shown_best,
            shown_median,
            import_best / 1e3
        );
        println!(
            "    the Worker's phases (ms), first run: {}",
            results[0]["figures"]["phases"].as_str().unwrap_or("?")
        );
        println!(
            "    {} context boxes drawn{}; {}",
            results[0]["boxes"],
            results[0]["leftOut"].as_str().map(|s| format!(" ({s})")).unwrap_or_default(),
            results[0]["figures"]["text"].as_str().unwrap_or("")
        );
    }
    Ok(())
}
