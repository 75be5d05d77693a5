//! The domain view's benchmark (`cargo xtask bench domain` runs it in a
//! release build): `domain_bench MODEL RECORDS SEED SIDECAR_OUT` reads the
//! model, builds its facts, gives its first RECORDS units (modules, types,
//! then operations) synthetic explanations (`insights::sidecar::synth`:
//! hints, concepts, terms, events — deterministic in SEED), one in twenty
//! stale, writes them as a side-car (for the browser half of the bench),
//! then builds the view and its Markdown, several times. It prints one JSON
//! line of figures (milliseconds).

use insights::record::InsightRecord;
use insights::sidecar::synth::{self, Rng};
use insights::vocab::Level;
use std::time::Instant;

const RUNS: usize = 5;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model_path, n, seed, out] = &args[..] else {
        return Err("usage: domain_bench MODEL RECORDS SEED SIDECAR_OUT".into());
    };
    let (n, seed): (usize, u64) = (n.parse()?, seed.parse()?);
    let t = Instant::now();
    let file = std::io::BufReader::new(std::fs::File::open(model_path)?);
    let model = model::read_model(file, model_path)?;
    let read_ms = ms(t);
    let t = Instant::now();
    let corpus = insights::units::Corpus::build(&model, analyzer::view::View::all(), None)?;
    let facts_ms = ms(t);
    let facts = &corpus.facts;

    let mut units: Vec<(String, Level)> = facts.modules.iter().map(|m| (m.id.to_string(), Level::Module)).collect();
    units.extend(facts.types.iter().map(|d| (d.id.to_string(), Level::Type)));
    units.extend(facts.types.iter().flat_map(|d| {
        d.operations.iter().filter(|o| &*o.kind != "lambda").map(|o| (o.id.to_string(), Level::Operation))
    }));
    let all_units = units.len();
    units.truncate(n);
    let mut rng = Rng(seed);
    let mut records: Vec<InsightRecord> =
        units.into_iter().map(|(id, level)| synth::record(id, level, &mut rng)).collect();
    for r in &mut records {
        r.scc = None;
    }
    let stale: hashbrown::HashMap<String, String> =
        records.iter().step_by(20).map(|r| (r.id.clone(), "its source changed".to_owned())).collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    let sidecar = insights::sidecar::Sidecar {
        header: synth::header(),
        records: records.clone(),
        failures: Vec::new(),
        trailer: None,
        truncated: false,
    };
    let text = insights::sidecar::encode(&sidecar);
    std::fs::write(out, &text)?;

    let inputs = domain::Inputs { facts, records: &records, failures: &[], stale: &stale };
    let mut view_ms = Vec::new();
    let mut view = None;
    for _ in 0..RUNS {
        let t = Instant::now();
        view = Some(domain::domain_view(&inputs));
        view_ms.push(ms(t));
    }
    let view = view.expect("one run at least");
    let t = Instant::now();
    let map = domain::map::laid_out(&view);
    let map_ms = ms(t);
    let t = Instant::now();
    let files = domain::markdown::files(&view);
    let markdown_ms = ms(t);
    let t = Instant::now();
    let json = view.to_json();
    let json_ms = ms(t);
    view_ms.sort_by(f64::total_cmp);
    println!(
        r#"{{"units":{all_units},"records":{},"sidecarBytes":{},"readMs":{read_ms:.1},"factsMs":{facts_ms:.1},"viewBestMs":{:.1},"viewMedianMs":{:.1},"markdownMs":{markdown_ms:.1},"mapMs":{map_ms:.1},"mapBoxes":{},"mapEdges":{},"mapHidden":{},"jsonMs":{json_ms:.1},"contexts":{},"edges":{},"terms":{},"files":{},"markdownBytes":{},"jsonBytes":{},"typesExplained":{},"stale":{}}}"#,
        records.len(),
        text.len(),
        view_ms[0],
        view_ms[RUNS / 2],
        map.graph.nodes.len(),
        map.graph.edges.len(),
        map.hidden_edges,
        view.contexts.len(),
        view.context_map.len(),
        view.glossary.len(),
        files.len(),
        files.iter().map(|(_, t)| t.len()).sum::<usize>(),
        json.len(),
        view.coverage.types.explained,
        view.coverage.types.stale + view.coverage.operations.stale + view.coverage.modules.stale,
    );
    Ok(())
}
