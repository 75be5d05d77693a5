//! Hand-run profile of planning a large model (not a test): the same work as
//! `codegraph-insights explain MODEL --dry-run` (no source, no records,
//! default options), timed per unit, then the units that cost the most.
//!
//! ```text
//! cargo run --release -p insights --example plan_profile -- /tmp/fineract.jsonl [TOP] [--walk-only]
//! ```
//!
//! It also splits `Corpus::build` into graph + facts and units + walk (by
//! building the graph and facts once more on their own), and prints the
//! walk's shape: the largest units and how many dependency lines the packs
//! list in all (a dependency that is a cycle lists every member), which is
//! what planning time and memory grow with. `--walk-only` stops there.

use insights::plan::PlanOptions;
use insights::records::NoRecords;
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use std::io::BufReader;
use std::time::{Duration, Instant};

struct Cost {
    unit: usize,
    pack: Duration,
    prompts: Duration,
    prompt_bytes: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let walk_only = args.iter().any(|a| a == "--walk-only");
    let mut args = args.into_iter().filter(|a| a != "--walk-only");
    let path = args.next().expect("usage: plan_profile <model.jsonl> [TOP] [--walk-only]");
    let top: usize = args.next().map(|s| s.parse().expect("TOP is a number")).unwrap_or(10);
    let t = Instant::now();
    let file = std::fs::File::open(&path).expect("open the model");
    let model = model::read_model(BufReader::with_capacity(1 << 20, file), &path).expect("read the model");
    println!("read: {:?} ({} entities, {} edges)", t.elapsed(), model.entity_count(), model.edge_count());

    let t = Instant::now();
    let graph = analyzer::CodeGraph::new(&model);
    let facts = analyzer::build_domain_facts(&graph, &analyzer::View::all(), None);
    let graph_facts = t.elapsed();
    drop((facts, graph));
    let t = Instant::now();
    let corpus = Corpus::build(&model, analyzer::View::all(), None).expect("walk");
    let corpus_time = t.elapsed();
    println!(
        "corpus: {corpus_time:?} (graph + facts alone: {graph_facts:?}, so units + walk ≈ {:?}); {} units in {} layers",
        corpus_time.saturating_sub(graph_facts),
        corpus.walk.units.len(),
        corpus.walk.layers.len()
    );

    let mut sizes: Vec<(usize, &str)> = corpus.walk.units.iter().map(|u| (u.members.len(), u.id.as_str())).collect();
    sizes.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
    println!("largest units (members): {:?}", &sizes[..sizes.len().min(5)]);
    let mut dep_lines = 0u64;
    let mut chunked = 0u64;
    for u in &corpus.walk.units {
        for d in &u.deps {
            dep_lines += corpus.walk.unit(d).map_or(1, |x| x.members.len()) as u64;
        }
        let chunks = u.members.len().div_ceil(12) as u64;
        chunked += chunks * u.members.len() as u64;
    }
    println!(
        "dependency lines over all packs: {dep_lines}; member lines over all cycle chunks (max-scc 12): {chunked}"
    );
    if walk_only {
        return;
    }

    let options = PlanOptions::default();
    let sources = sources::MemorySources::default();
    let slicer = SourceSlicer::new(&sources, options.max_lines);
    let mut costs = Vec::with_capacity(corpus.walk.units.len());
    let (mut packs, mut prompts) = (Duration::ZERO, Duration::ZERO);
    for (unit_index, unit) in corpus.walk.units.iter().enumerate() {
        let t = Instant::now();
        let pack = corpus.pack(unit, options.depth, &slicer, &NoRecords);
        let pack_time = t.elapsed();
        let t = Instant::now();
        let rendered = insights::prompt::render(&pack, options.max_scc);
        let prompt_bytes = rendered.iter().map(|p| p.system.len() + p.user.len()).sum();
        drop(rendered);
        let prompt_time = t.elapsed();
        packs += pack_time;
        prompts += prompt_time;
        costs.push(Cost { unit: unit_index, pack: pack_time, prompts: prompt_time, prompt_bytes });
    }
    println!("packs: {packs:?}, prompts (every unit, templates included): {prompts:?}");
    costs.sort_by_key(|c| std::cmp::Reverse(c.pack + c.prompts));
    println!("costliest {top} units (pack, prompts, prompt bytes, members, deps, level, id):");
    for c in costs.iter().take(top) {
        let u = &corpus.walk.units[c.unit];
        println!(
            "  {:>10.1?} {:>10.1?} {:>10} {:>6} {:>6} {:?} {}",
            c.pack,
            c.prompts,
            c.prompt_bytes,
            u.members.len(),
            u.deps.len(),
            u.level,
            u.id
        );
    }
}
