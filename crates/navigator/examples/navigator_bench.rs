//! The navigator benchmark behind `cargo xtask bench navigator` (release
//! build): reads a model, builds the navigator `runs` times, then times what
//! the page asks per user action. Prints one JSON object on stdout.
//!
//! ```text
//! navigator_bench MODEL RUNS
//! ```

use std::io::BufReader;
use std::time::Instant;

use hashbrown::HashSet;
use navigator::Navigator;

/// CPU time of this thread in ms (Linux `schedstat`), to tell the work from
/// the waiting on a shared machine.
fn cpu_ms() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e6)
}

fn millis(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Best of `times` runs of `f`, in milliseconds, and its last result.
fn best<T>(times: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..times {
        let t = Instant::now();
        let out = f();
        best = best.min(millis(t));
        last = Some(out);
    }
    (best, last.expect("times >= 1"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: navigator_bench MODEL RUNS");
    let runs: usize = args.next().map_or(3, |r| r.parse().expect("RUNS is a number")).max(1);
    let t = Instant::now();
    let file = std::fs::File::open(&path).expect("open the model");
    let model = model::read_model(BufReader::with_capacity(1 << 20, file), &path).expect("read the model");
    let read_ms = millis(t);

    let mut builds = Vec::new();
    let mut cpu = Vec::new();
    let mut nav = None;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_ms());
        let built = Navigator::build(&model);
        builds.push(millis(t));
        if let (Some(before), Some(after)) = (c, cpu_ms()) {
            cpu.push(after - before);
        }
        nav = Some(built);
        // The previous navigator is dropped outside the measurement.
    }
    builds.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let nav = nav.expect("runs >= 1");

    // Search: every keystroke of a few queries (prefixes), best of 5 each.
    let mut search = Vec::new();
    for word in ["accrualsavings", "getamount", "(java.lang.string", "zzzq"] {
        for end in 1..=word.len() {
            let q = &word[..end];
            let (ms, result) = best(5, || nav.search(q, 200));
            search.push(serde_json::json!({"query": q, "ms": ms, "total": result.total}));
        }
    }
    let search_max = search.iter().map(|s| s["ms"].as_f64().unwrap_or(0.0)).fold(0.0, f64::max);
    let mut sorted: Vec<f64> = search.iter().map(|s| s["ms"].as_f64().unwrap_or(0.0)).collect();
    sorted.sort_by(f64::total_cmp);
    let search_median = sorted[sorted.len() / 2];

    // The node with the most rows (incoming + outgoing).
    let (top, top_rows) = (0..nav.len() as u32)
        .map(|n| {
            let d = nav.dependencies(n, 0, 0);
            (n, d.incoming_total + d.outgoing_total)
        })
        .max_by_key(|&(n, rows)| (rows, std::cmp::Reverse(n)))
        .unwrap_or((0, 0));
    let (deps_ms, deps) = best(5, || nav.dependencies(top, 0, 200));
    let deps_bytes = serde_json::to_string(&deps).map_or(0, |s| s.len());
    let (neighbourhood_ms, graph) = best(3, || nav.neighbourhood(top, 1200));
    let (overview_ms, overview) = best(3, || nav.module_overview(1200));
    // The Graph tab's views as the page asks for them (cap 120), externals
    // off (the default) and on: layout time, size, route points and JSON.
    let page_view = |g: &navigator::GraphView, ms: f64| {
        let points: usize = g.edges.iter().map(|e| e.points.len()).sum();
        let bytes = serde_json::to_string(g).map_or(0, |s| s.len());
        serde_json::json!({"ms": ms, "nodes": g.nodes.len(), "edges": g.edges.len(), "points": points,
            "feedback": g.edges.iter().filter(|e| e.feedback).count(), "jsonBytes": bytes, "width": g.width, "height": g.height})
    };
    let mut graph_page = serde_json::Map::new();
    for (key, center) in [("neighbourhood", Some(top)), ("moduleOverview", None)] {
        for externals in [false, true] {
            let (ms, g) = best(3, || nav.graph(center, 120, externals));
            let name = format!("{key}{}", if externals { "Externals" } else { "" });
            graph_page.insert(name, page_view(&g, ms));
        }
    }
    let (cycles_ms, _) = best(3, || nav.cycles());
    let all: HashSet<u32> = (0..nav.len() as u32).collect();
    let (rows_ms, (_, visible)) = best(5, || nav.rows(&all, true, 100_000, 100));
    let collapsed = HashSet::new();
    let (rows_collapsed_ms, _) = best(5, || nav.rows(&collapsed, true, 0, 100));
    let target = nav.len() as u32 - 1;
    let (row_index_ms, _) = best(5, || nav.row_index(&all, true, target));

    let out = serde_json::json!({
        "entities": model.entity_count(),
        "edges": model.edge_count(),
        "nodes": nav.len(),
        "rows": nav.dep_count(),
        "diagnostics": {"selfDeps": nav.diagnostics().self_deps, "droppedDeps": nav.diagnostics().dropped_deps},
        "heapBytes": nav.heap_bytes(),
        "readMs": read_ms,
        "buildMs": {"best": builds[0], "median": builds[builds.len() / 2]},
        "buildCpuMs": cpu.first().map(|b| serde_json::json!({"best": b, "median": cpu[cpu.len() / 2]})),
        "search": {"maxMs": search_max, "medianMs": search_median, "keystrokes": search},
        "dependencies": {"node": nav.id(top), "rows": top_rows, "ms": deps_ms, "jsonBytes": deps_bytes},
        "neighbourhood": {"ms": neighbourhood_ms, "nodes": graph.nodes.len(), "edges": graph.edges.len(), "leftOut": graph.left_out},
        "moduleOverview": {"ms": overview_ms, "nodes": overview.nodes.len(), "edges": overview.edges.len(), "leftOut": overview.left_out},
        "graphPage": graph_page,
        "cyclesMs": cycles_ms,
        "treeRows": {"allExpanded": visible, "pageAt100kMs": rows_ms, "collapsedMs": rows_collapsed_ms, "rowIndexLastMs": row_index_ms},
    });
    println!("{out}");
}
