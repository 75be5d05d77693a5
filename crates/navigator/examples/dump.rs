//! Prints a navigator's tree, a node's dependencies and the cycle reports
//! (a hand-run look at a model, not a test):
//!
//! ```text
//! cargo run -p navigator --example dump -- fixtures/upstream-java/model.jsonl [entity id]
//! ```

use std::io::BufReader;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: dump <model.jsonl> [entity id]");
    let file = std::fs::File::open(&path).expect("open the model");
    let model = model::read_model(BufReader::new(file), &path).expect("read the model");
    let nav = navigator::Navigator::build(&model);
    match args.next() {
        None => {
            let all: hashbrown::HashSet<u32> = (0..nav.len() as u32).collect();
            let (rows, total) = nav.rows(&all, true, 0, usize::MAX);
            println!("{} nodes, {} rows, {total} tree rows, {:?}", nav.len(), nav.dep_count(), nav.diagnostics());
            for r in rows {
                let v = nav.node(r.node);
                println!(
                    "{:>4} {}{} [{}] {} in {} out {}",
                    r.node,
                    "  ".repeat(r.depth as usize),
                    r.name,
                    v.category,
                    v.kind,
                    v.fan_in,
                    v.fan_out
                );
            }
            println!("{}", serde_json::to_string_pretty(&nav.cycles()).expect("json"));
            println!("{}", serde_json::to_string(&nav.module_overview(50)).expect("json"));
        }
        Some(id) => {
            let n = nav.node_of(&id).expect("a node id");
            println!("{}", serde_json::to_string_pretty(&nav.node(n)).expect("json"));
            println!("{}", serde_json::to_string_pretty(&nav.dependencies(n, 0, 200)).expect("json"));
            println!("{}", serde_json::to_string_pretty(&nav.neighbourhood(n, 30)).expect("json"));
        }
    }
}
