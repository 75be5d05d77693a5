//! Golden maps on the demo corpus (fixtures/demo): three questions in map
//! mode, one with the explanations of an imported side-car, one in each
//! source mode and one JSON form. `UPDATE_GOLDEN=1 cargo test -p explore
//! --test golden` rewrites them.

mod common;

use common::{ask, ask_with, demo_graph, demo_model, demo_sources, golden, records_of, request, sidecar};
use explore::{plan_verdict, Mode, RecordExplanations, Request};

#[test]
fn how_is_a_rental_priced() {
    golden("rental-priced.md", &ask("how is a rental priced?").to_markdown());
}

#[test]
fn a_qualified_name() {
    golden("rentalservice-finish.md", &ask("RentalService.finish").to_markdown());
}

#[test]
fn a_file_line_anchor() {
    golden("billing-anchor.md", &ask("com/pedalpoint/billing/BillingService.java:44").to_markdown());
}

#[test]
fn snippets_and_source_modes() {
    let q = "PricingPolicy.quote MemberPricing";
    let snippets = ask_with(
        &Request { flag: Some(Mode::Snippets), ..request(q) },
        Some(&demo_sources()),
        &explore::NoExplanations,
    );
    golden("pricing-snippets.md", &snippets.to_markdown());
    let source =
        ask_with(&Request { flag: Some(Mode::Source), ..request(q) }, Some(&demo_sources()), &explore::NoExplanations);
    golden("pricing-source.md", &source.to_markdown());
}

#[test]
fn the_json_form() {
    let map = ask("RentalService.finish");
    let value: serde_json::Value = serde_json::from_str(&map.to_json()).expect("JSON");
    golden("rentalservice-finish.json", &(serde_json::to_string_pretty(&value).unwrap() + "\n"));
}

#[test]
fn with_an_imported_sidecar() {
    let sc = sidecar();
    let records = records_of(&sc);
    let corpus = insights::units::Corpus::build(demo_model(), analyzer::view::View::all(), None).expect("a corpus");
    let src = demo_sources();
    let stamps = insights::stale::stamps_of(&sc.records);
    let verdict = plan_verdict(&corpus, &src, &records, &stamps, Some(&sc.header));
    let (graph, _) = demo_graph();
    let mut index = explore::ExploreIndex::build(graph);
    index.set_explanations(graph, sc.records.iter().map(|r| (r.id.as_str(), r.block.description())));
    let x = RecordExplanations { records: &records, verdict: Some(&verdict) };
    let map = explore::Explorer { graph, index: &index, sources: Some(&src), explanations: &x }
        .answer(&request("how is a rental priced?"));
    golden("rental-priced.sidecar.md", &map.to_markdown());
}
