//! The explain plan on the upstream Java fixture (no source): the golden
//! reference figures of docs/formats/units-and-walk.md §7.

use analyzer::view::View;
use insights::plan::{plan_run, PlanOptions, StepStatus};
use insights::records::NoRecords;
use insights::slice::SourceSlicer;
use insights::units::Corpus;
use insights::vocab::Level;
use sources::MemorySources;

fn fixture() -> model::Model {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/upstream-java/model.jsonl");
    model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap()
}

#[test]
fn units_layers_and_calls_match_the_reference() {
    let m = fixture();
    let corpus = Corpus::build(&m, View::all(), None).unwrap();
    let walk = &corpus.walk;
    assert_eq!(walk.units.len(), 77);
    assert_eq!(walk.layers.len(), 8);
    let members: usize = walk.units.iter().map(|u| u.members.len()).sum();
    assert_eq!(members, 79);
    let count = |l: Level| walk.units.iter().filter(|u| u.level == l).count();
    assert_eq!((count(Level::Operation), count(Level::Type), count(Level::Module)), (57, 17, 3));
    let mut cycles: Vec<Vec<&str>> =
        walk.units.iter().filter(|u| u.is_cycle()).map(|u| u.members.iter().map(String::as_str).collect()).collect();
    cycles.sort();
    assert_eq!(
        cycles,
        vec![
            vec!["java:com.acme.order/Basket", "java:com.acme.order/Basket.Cursor"],
            vec!["java:com.acme.order/Money", "java:com.acme.order/Priceable"],
        ]
    );
    for (i, u) in walk.units.iter().enumerate() {
        for d in &u.deps {
            assert!(walk.unit_index(d).unwrap() < i, "{d} must come before {}", u.id);
        }
    }

    let sources = MemorySources::default();
    let slicer = SourceSlicer::new(&sources, 200);
    let plan = plan_run(&corpus, &slicer, &NoRecords, &PlanOptions::default());
    let e = &plan.estimates;
    assert_eq!((e.level(Level::Operation).units, e.level(Level::Operation).calls), (57, 48));
    assert_eq!((e.level(Level::Type).units, e.level(Level::Type).calls), (17, 17));
    assert_eq!((e.level(Level::Module).units, e.level(Level::Module).calls), (3, 3));
    assert_eq!(e.total.calls, 68);
    assert_eq!(e.status(StepStatus::Llm), 68);
    assert_eq!(e.status(StepStatus::Template), 9);
    // Completion tokens: 48 × 450 + (15 + 2 × 2) × 650 + 3 × 900.
    assert_eq!(e.total.completion_tokens, 48 * 450 + 19 * 650 + 3 * 900);
    assert!(e.total.prompt_tokens > 30_000, "{}", e.total.prompt_tokens);
    // Templates have no throws and only external calls.
    for s in plan.steps.iter().filter(|s| s.status == StepStatus::Template) {
        let (op, _) = corpus.operation(&walk.units[s.unit].id).unwrap();
        assert!(op.throws.is_empty() && op.invocations.iter().all(|i| i.external));
    }
}
