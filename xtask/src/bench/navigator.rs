//! `cargo xtask bench navigator --model FILE`: the navigator the Worker
//! builds per loaded model, natively in a release build
//! (`crates/navigator/examples/navigator_bench.rs`): build time, a search
//! keystroke, the dependency view of the node with the most rows, the graph
//! views and tree paging.

use std::path::Path;
use std::process::Command;

pub fn run(model: &Path, runs: usize) -> crate::Result {
    let exe = super::release_example("navigator", "navigator_bench")?;
    let m = super::measure(Command::new(&exe).arg(model).arg(runs.to_string()))?;
    let v: serde_json::Value =
        serde_json::from_slice(&m.stdout).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&m.stdout)))?;
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let bytes = std::fs::metadata(model).map(|m| m.len()).unwrap_or(0);
    println!(
        "bench navigator: {} ({:.0} MB, {} entities, {} edges): {} nodes, {} dependency rows ({} self-owner, {} dropped)",
        model.display(),
        bytes as f64 / 1e6,
        v["entities"],
        v["edges"],
        v["nodes"],
        v["rows"],
        v["diagnostics"]["selfDeps"],
        v["diagnostics"]["droppedDeps"],
    );
    let cpu = match v["buildCpuMs"].as_object() {
        Some(c) => format!(" (CPU time best {:.3} s, median {:.3} s)", f(&c["best"]) / 1e3, f(&c["median"]) / 1e3),
        None => String::new(),
    };
    println!(
        "  build (native, release, {runs} runs): wall best {:.3} s, median {:.3} s{cpu}; navigator heap {:.0} MB; peak RSS of the process {:.0} MB (model included)",
        f(&v["buildMs"]["best"]) / 1e3,
        f(&v["buildMs"]["median"]) / 1e3,
        f(&v["heapBytes"]) / 1e6,
        m.peak_rss as f64 / 1e6,
    );
    let keys = v["search"]["keystrokes"].as_array().cloned().unwrap_or_default();
    let first = keys.first().cloned().unwrap_or_default();
    println!(
        "  search, one keystroke (cap 200, {} keystrokes of 4 queries, best of 5 each): median {:.1} ms, max {:.1} ms; \"{}\" {:.1} ms for {} matches",
        keys.len(),
        f(&v["search"]["medianMs"]),
        f(&v["search"]["maxMs"]),
        first["query"].as_str().unwrap_or(""),
        f(&first["ms"]),
        first["total"],
    );
    let d = &v["dependencies"];
    println!(
        "  dependencies() of the node with the most rows ({}, {} rows), first page of 200 per role: {:.2} ms ({:.0} KB as JSON)",
        d["node"].as_str().unwrap_or(""),
        d["rows"],
        f(&d["ms"]),
        f(&d["jsonBytes"]) / 1e3,
    );
    let (n, o) = (&v["neighbourhood"], &v["moduleOverview"]);
    println!(
        "  neighbourhood(that node, 1200): {:.1} ms ({} nodes, {} edges, {} left out); module_overview(1200): {:.1} ms ({} nodes, {} edges)",
        f(&n["ms"]),
        n["nodes"],
        n["edges"],
        n["leftOut"],
        f(&o["ms"]),
        o["nodes"],
        o["edges"],
    );
    let t = &v["treeRows"];
    println!(
        "  tree: rows() page at offset 100,000 of {} (all expanded) {:.2} ms, collapsed {:.3} ms; row_index of the last node {:.2} ms; cycles() {:.2} ms",
        t["allExpanded"],
        f(&t["pageAt100kMs"]),
        f(&t["collapsedMs"]),
        f(&t["rowIndexLastMs"]),
        f(&v["cyclesMs"]),
    );
    Ok(())
}
