//! `cargo xtask bench navigator --model FILE [--browser]`: the navigator the
//! Worker builds per loaded model, natively in a release build
//! (`crates/navigator/examples/navigator_bench.rs`): build time, a search
//! keystroke, the dependency view of the node with the most rows, the graph
//! views and tree paging. With `--browser`, the same in the release page in
//! headless Chromium (`tests/bench/navigator.mjs`): the tree shown after the
//! model is loaded, search keystrokes answered, and the node with the most
//! rows selected through its `#id=` link.

use std::path::Path;
use std::process::Command;

/// The native figures; returns the id of the node with the most dependency rows.
pub fn run(model: &Path, runs: usize) -> crate::Result<String> {
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
    let page = &v["graphPage"];
    for (key, what) in [("neighbourhood", "neighbourhood of that node"), ("moduleOverview", "module overview")] {
        let view = |g: &serde_json::Value| {
            format!(
                "{:.1} ms ({} nodes, {} edges, {} back, {} route points, {:.0}×{:.0} px, {:.0} KB as JSON)",
                f(&g["ms"]),
                g["nodes"],
                g["edges"],
                g["feedback"],
                g["points"],
                f(&g["width"]),
                f(&g["height"]),
                f(&g["jsonBytes"]) / 1e3,
            )
        };
        println!(
            "  graph tab (Sugiyama layout, cap 120, best of 3): {what}: {}; externals shown: {}",
            view(&page[key]),
            view(&page[format!("{key}Externals")]),
        );
    }
    let t = &v["treeRows"];
    println!(
        "  tree: rows() page at offset 100,000 of {} (all expanded) {:.2} ms, collapsed {:.3} ms; row_index of the last node {:.2} ms; cycles() {:.2} ms",
        t["allExpanded"],
        f(&t["pageAt100kMs"]),
        f(&t["collapsedMs"]),
        f(&t["rowIndexLastMs"]),
        f(&v["cyclesMs"]),
    );
    Ok(d["node"].as_str().unwrap_or_default().to_owned())
}

/// The browser part: `runs` fresh browsers on the release page, each opening
/// the model on the Navigate tab, typing searches and selecting `node`.
pub fn in_browser(model: &Path, node: &str, runs: usize, timeout: u64) -> crate::Result {
    let args = ["tests/bench/navigator.mjs", "bench/model.jsonl", node, &timeout.to_string()];
    let results = super::served_browser_runs(model, &args, runs, timeout + 60)?;
    if results.is_empty() {
        return Ok(());
    }
    let n = results.len();
    let ms = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    let spread = |values: &[f64]| {
        let (best, median) = super::best_median(values, |x| *x);
        let worst = values.iter().copied().fold(f64::NAN, f64::max);
        let missing = values.iter().filter(|x| x.is_nan()).count();
        let missing = if missing > 0 { format!(" ({missing} not answered in time)") } else { String::new() };
        format!("best {best:.0} ms, median {median:.0} ms, worst {worst:.0} ms{missing}")
    };
    let each = |key: &str| -> Vec<f64> { results.iter().map(|v| ms(&v["tree"][key])).collect() };
    println!(
        "  browser (release page in headless Chromium, ?model=URL then the Navigate tab, a fresh browser per run, {n} runs):"
    );
    println!("  tree: the Worker's read {}", spread(&each("readMillis")));
    println!(
        "    navigator build, the Worker's own figure (#nav-facts[data-millis]): {}",
        spread(&each("buildMillis"))
    );
    println!(
        "    model loaded -> first .tree-row in the DOM: {} (target <= 1.5 s)",
        spread(&each("loadedToTreeRowMs"))
    );
    let words = |key: &str| -> String {
        let w: Vec<&str> = results[0][key].as_array().into_iter().flatten().filter_map(|w| w.as_str()).collect();
        w.join(", ")
    };
    let keys: Vec<&serde_json::Value> =
        results.iter().flat_map(|v| v["search"].as_array().into_iter().flatten()).collect();
    for (label, typed, queries) in [
        ("typed one character at a time", true, format!("every prefix of {}", words("typedWords"))),
        ("pasted at once", false, words("pastedWords")),
    ] {
        let group: Vec<&serde_json::Value> =
            keys.iter().copied().filter(|k| k["typed"].as_bool() == Some(typed)).collect();
        let pick = |key: &str| -> Vec<f64> { group.iter().map(|k| ms(&k[key])).collect() };
        let rendered = pick("ms");
        let over = rendered.iter().filter(|x| **x > 50.0).count();
        println!("  search, {label} ({} keystrokes: {queries}):", rendered.len());
        println!(
            "    input -> answer rendered {} (target <= 50 ms; over it: {over}); Worker answer received {}; next frame painted {}",
            spread(&rendered),
            spread(&pick("receivedMs")),
            spread(&pick("paintedMs"))
        );
    }
    let first: Vec<&serde_json::Value> = results.iter().filter_map(|v| v["selections"].get(0)).collect();
    let later: Vec<&serde_json::Value> =
        results.iter().flat_map(|v| v["selections"].as_array().into_iter().flatten().skip(1)).collect();
    if let Some(s0) = first.first() {
        println!(
            "  select {node} by setting location.hash (incoming {}, outgoing {}; {} .dep-row rendered, the first page of each role):",
            s0["incoming"], s0["outgoing"], s0["rowsRendered"]
        );
    }
    for (label, group) in [("first selection in the page", &first), ("selected again", &later)] {
        if group.is_empty() {
            continue;
        }
        let pick = |key: &str| -> Vec<f64> { group.iter().map(|s| ms(&s[key])).collect() };
        println!(
            "    {label} ({}): hash set -> first .dep-row in the DOM {} (target <= 100 ms); Worker answer received {}; next frame painted {}; longest UI-thread task {}",
            group.len(),
            spread(&pick("ms")),
            spread(&pick("answerReceivedMs")),
            spread(&pick("paintedMs")),
            spread(&pick("longestUiTaskMs"))
        );
    }
    for v in &results {
        for p in v["problems"].as_array().into_iter().flatten() {
            println!("  problem: {p}");
        }
    }
    Ok(())
}
