//! Hand-run timing of the analyzer stages on a large model (not a test):
//!
//! ```text
//! cargo run --release -p analyzer --example timing -- /tmp/fineract.jsonl
//! ```

use std::io::BufReader;
use std::time::Instant;

use analyzer::{build_domain_facts, condense, cycles, import_graph, type_dependency_graph, CodeGraph, View};

fn main() {
    let path = std::env::args().nth(1).expect("usage: timing <model.jsonl>");
    let start = Instant::now();
    let file = std::fs::File::open(&path).expect("open the model");
    let model = model::read_model(BufReader::with_capacity(1 << 20, file), &path).expect("read the model");
    println!("read: {:?} ({} entities, {} edges)", start.elapsed(), model.entity_count(), model.edge_count());

    let view = View::all();
    let total = Instant::now();
    let t = Instant::now();
    let graph = CodeGraph::new(&model);
    println!("CodeGraph::new: {:?}", t.elapsed());

    let t = Instant::now();
    let facts = build_domain_facts(&graph, &view, None);
    println!(
        "dossier: {:?} ({} types, {} operations, {} invocations)",
        t.elapsed(),
        facts.types.len(),
        facts.diagnostics.operations,
        facts.diagnostics.invocations
    );

    let t = Instant::now();
    let types = type_dependency_graph(&graph, &view);
    println!("type graph: {:?} ({} nodes, {} edges)", t.elapsed(), types.nodes.len(), types.edges.len());

    let t = Instant::now();
    let imports = import_graph(&graph, &view);
    println!("import graph: {:?} ({} nodes, {} edges)", t.elapsed(), imports.nodes.len(), imports.edges.len());

    let t = Instant::now();
    let condensed = condense(&types.successor_lists());
    println!("condense (type graph): {:?} ({} components)", t.elapsed(), condensed.components.len());
    println!("total (graph + dossier + type graph + import graph + condense): {:?}", total.elapsed());

    let t = Instant::now();
    let report = cycles(&types, None);
    println!(
        "type cycles: {:?} ({} components, tangle {})",
        t.elapsed(),
        report.components.len(),
        report.tangle.metric
    );
    let t = Instant::now();
    let json = facts.to_json_string();
    println!("dossier JSON: {:?} ({} bytes)", t.elapsed(), json.len());
}
