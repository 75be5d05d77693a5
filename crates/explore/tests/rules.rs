//! One test per rule every map keeps (issue 7), on the demo corpus.

mod common;

use common::{ask, ask_with, caps, demo_graph, demo_model, demo_sources, records_of, request, sidecar};
use explore::{plan_verdict, ExploreMap, Mode, NoExplanations, RecordExplanations, Request, Why, ECHO_CHARS};
use sources::SourceReader;

fn names(map: &ExploreMap) -> Vec<&str> {
    map.symbols.items.iter().map(|s| s.at.name.as_str()).collect()
}

fn requested(map: &ExploreMap) -> Vec<&str> {
    map.symbols.items.iter().filter(|s| matches!(s.why, Why::Named | Why::Anchor)).map(|s| s.at.name.as_str()).collect()
}

// ------------------------------------------------------------------ query resolution

#[test]
fn exact_and_qualified_names_resolve() {
    let map = ask("Compare finish in RentalService with Rental#finish() and `Station.dock`");
    // `finish` is requested as a member of the named `RentalService`, right after it.
    assert_eq!(requested(&map), ["RentalService", "RentalService.finish", "Rental.finish", "Station.dock"]);
    assert!(map.summary.not_found.is_empty());
    let map = ask("com.pedalpoint.rental.RentalService.finish or pedalpoint.billing.Invoice");
    assert_eq!(requested(&map), ["RentalService.finish", "Invoice"]);
    let map = ask("org.other.RentalService.finish");
    assert_eq!(map.summary.not_found, ["org.other.RentalService.finish"]);
    let map = ask("NoSuchThing.atAll and RentalService");
    assert_eq!(map.summary.not_found, ["NoSuchThing.atAll"]);
    assert!(map.to_markdown().contains("Not found in the model: `NoSuchThing.atAll`."));
}

#[test]
fn file_line_anchors_resolve_to_the_enclosing_symbol() {
    // Line 53 is the `throw` inside RentalService.finish (lines 50–58).
    let map = ask("what happens at rental/RentalService.java:53");
    assert_eq!(requested(&map), ["RentalService.finish"]);
    assert_eq!(map.symbols.items[0].why, Why::Anchor);
    // A range picks the operations starting in it.
    let map = ask("com/pedalpoint/billing/BillingService.java#L25-L40");
    assert_eq!(requested(&map), ["BillingService.setPolicy", "BillingService.policyFor"]);
    // A line outside every symbol says so.
    let map = ask("RentalService.java:2");
    assert!(requested(&map).is_empty());
    assert!(map.summary.notes.iter().any(|n| n.contains("no symbol of the model is at line 2")), "{:?}", map.summary);
}

#[test]
fn quoted_phrases_are_matched_in_the_source_when_it_is_loaded() {
    let map = ask("where is \"No open rental\" thrown?");
    assert_eq!(map.symbols.items[0].at.name, "RentalService.finish");
    assert_eq!(map.symbols.items[0].why, Why::Phrase);
    assert!(map.summary.notes.iter().any(|n| n.contains("is in the source 1 time")), "{:?}", map.summary.notes);
    // Without source the phrase is not searched, and the map says so.
    let map = ask_with(&request("where is \"No open rental\" thrown?"), None, &NoExplanations);
    assert!(map.symbols.items.iter().all(|s| s.why != Why::Phrase));
    assert!(map.summary.notes.iter().any(|n| n.contains("was not searched for: no source is loaded here")));
}

#[test]
fn words_match_names_signatures_and_explanations_at_a_lower_weight() {
    let (graph, _) = demo_graph();
    // A name match: the word `overdue` names `sweepOverdue` and `checkOverdue`.
    let map = ask("overdue");
    assert!(names(&map)[..3].iter().all(|n| n.to_lowercase().contains("overdue")), "{:?}", names(&map));
    // A signature match: `Money` is a parameter or return type only.
    let map = ask("money");
    assert!(names(&map).contains(&"Money"));
    assert!(map.symbols.items.iter().any(|s| s.signature.as_deref().is_some_and(|s| s.contains("Money"))));
    // An explanation match: a word only an explanation holds finds its symbol, below a name match.
    let mut index = explore::ExploreIndex::build(graph);
    index.set_explanations(
        graph,
        [("java:com.pedalpoint.billing/Invoice.markPaid()", "Settles the tab: flips the zeppelin flag.")],
    );
    let ask_indexed = |q: &str| {
        explore::Explorer { graph, index: &index, sources: None, explanations: &NoExplanations }.answer(&request(q))
    };
    let map = ask_indexed("zeppelin");
    assert_eq!(names(&map)[0], "Invoice.markPaid");
    let map = ask_indexed("zeppelin station");
    let station = names(&map).iter().position(|n| *n == "Station").expect("the name match");
    let paid = names(&map).iter().position(|n| *n == "Invoice.markPaid").expect("the explanation match");
    assert!(station < paid, "{:?}", names(&map));
}

// ------------------------------------------------------------------ caps and omissions

#[test]
fn requested_symbols_come_first_and_one_beyond_the_row_cap_is_still_listed() {
    let q = "how do bikes get rented Rental Fleet.reserveAt Station.undock Customer.getName";
    let map = ask_with(&Request { caps: caps(|c| c.symbols = 2), ..request(q) }, None, &NoExplanations);
    assert_eq!(requested(&map), ["Rental", "Fleet.reserveAt", "Station.undock", "Customer.getName"]);
    assert_eq!(names(&map), requested(&map), "nothing else fits in 2 rows");
    assert!(map.symbols.omitted > 0);
    // Blast radius roots follow the same order.
    assert_eq!(map.blast_radius.items[0].root.name, "Rental");
}

#[test]
fn a_long_multiline_query_does_not_push_the_results_out() {
    let mut q = String::from("RentalService.finish\n");
    while q.chars().count() < 4_000 {
        q.push_str("and then, line after line, the question goes on about nothing in particular\n");
    }
    let map = ask(&q);
    assert!(map.query.chars().count() <= ECHO_CHARS && !map.query.contains('\n'));
    assert_eq!(map.query_chars, q.chars().count());
    assert_eq!(map.symbols.items[0].at.name, "RentalService.finish");
    let md = map.to_markdown();
    // One long unknown name is repeated cut, too.
    let long = format!("RentalService.finish {}", "NoSuch".repeat(700));
    let cut = ask(&long);
    assert_eq!(cut.symbols.items[0].at.name, "RentalService.finish");
    assert!(cut.summary.not_found[0].chars().count() <= 80, "{}", cut.summary.not_found[0]);
    let echo_line = md.lines().find(|l| l.starts_with("**Exploration: ")).expect("the echo");
    assert!(echo_line.chars().count() <= ECHO_CHARS + 20);
    assert!(md.chars().count() <= map.caps.map_chars + 400, "{}", md.chars().count());
}

#[test]
fn every_capped_list_says_what_it_left_out_and_the_counts_add_up() {
    let q = "how is a rental priced and billed";
    let full = ask_with(&Request { caps: caps(|c| c.map_chars = usize::MAX), ..request(q) }, None, &NoExplanations);
    for map_chars in [usize::MAX, 3_000, 1_500, 600] {
        let map = ask_with(&Request { caps: caps(|c| c.map_chars = map_chars), ..request(q) }, None, &NoExplanations);
        let md = map.to_markdown();
        // Symbols: listed + left out = matched.
        assert_eq!(map.symbols.total(), map.summary.matched);
        assert_eq!(map.symbols.omitted > 0, md.contains(&format!("- … and {} more", map.symbols.omitted)));
        // Relationships: per kind, and kinds dropped whole.
        let r = &map.relationships;
        let pairs: usize = r.kinds.iter().map(|k| k.pairs.total()).sum::<usize>() + r.pairs_in_omitted_kinds;
        let full_pairs: usize = full.relationships.kinds.iter().map(|k| k.pairs.total()).sum();
        assert_eq!(pairs, full_pairs, "at {map_chars}");
        assert_eq!(r.kinds.len() + r.kinds_omitted, full.relationships.kinds.len());
        if r.kinds_omitted > 0 {
            assert!(md.contains(&format!("{} relationship kind", r.kinds_omitted)), "{md}");
        }
        for k in &r.kinds {
            assert_eq!(k.pairs.omitted > 0, md.contains(&format!("- … and {} more", k.pairs.omitted)));
        }
        // Blast radius and dispatch: shown + left out = what there was.
        assert_eq!(map.blast_radius.total(), full.blast_radius.total());
        assert_eq!(map.dispatch.total(), full.dispatch.total());
        for b in &map.blast_radius.items {
            for g in &b.groups {
                assert_eq!(g.names.total(), g.count);
            }
        }
        for d in &map.dispatch.items {
            let same = full.dispatch.items.iter().find(|f| f.callee == d.callee).expect("the same note");
            assert_eq!(d.implementations.total(), same.implementations.total());
            assert_eq!(
                d.implementations.items.len() + d.implementations.omitted,
                d.types.max(d.implementations.total())
            );
        }
    }
}

#[test]
fn caps_drop_relationships_first_and_keep_the_flow_and_named_symbols() {
    let q = "PedalPointShop.takeBack RentalService.finish Rental.finish Rental.moveTo how is it billed";
    let roomy = ask_with(&Request { caps: caps(|c| c.map_chars = usize::MAX), ..request(q) }, None, &NoExplanations);
    assert!(roomy.flow.is_some() && !roomy.relationships.kinds.is_empty());
    let tight = ask_with(&Request { caps: caps(|c| c.map_chars = 1_200), ..request(q) }, None, &NoExplanations);
    assert_eq!(tight.flow, roomy.flow, "the flow is never cut");
    assert!(tight.relationships.kinds.is_empty() && tight.relationships.kinds_omitted > 0);
    let named = ["PedalPointShop.takeBack", "RentalService.finish", "Rental.finish", "Rental.moveTo"];
    assert_eq!(&names(&tight)[..4], named, "named symbols outlast the rest");
    assert!(names(&tight).len() < names(&roomy).len());
    // Flow, then the echo.
    let md = tight.to_markdown();
    assert!(md.starts_with("**Flow (call path among the symbols you queried)**"));
    assert!(md.find("**Exploration:").unwrap() > md.find("1. `").unwrap());
}

// ------------------------------------------------------------------ source

#[test]
fn a_markdown_fence_in_an_excerpt_cannot_close_the_map_fence() {
    let mut src = demo_sources();
    let path = "com/pedalpoint/billing/BillingService.java";
    let text = src.read(path).text().cloned().unwrap().to_string();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[43] = "        /* ```` a doc sample\n``` */ long minutes = rental.minutes(now);".replace('\n', " ");
    lines[44] = "```".into();
    src.insert(path, lines.join("\n")).unwrap();
    for mode in [Mode::Snippets, Mode::Source] {
        let map =
            ask_with(&Request { flag: Some(mode), ..request("BillingService.invoice") }, Some(&src), &NoExplanations);
        let md = map.to_markdown();
        let open = md.lines().position(|l| l.starts_with("`````java")).expect("a five-backtick fence");
        let close = md.lines().skip(open + 1).position(|l| l == "`````").expect("its closing fence") + open + 1;
        let inside: Vec<&str> = md.lines().collect::<Vec<_>>()[open + 1..close].to_vec();
        assert!(inside.iter().any(|l| l.ends_with("\t```")), "the excerpt's fence stays inside: {md}");
        assert!(md.lines().skip(close + 1).any(|l| l.starts_with("> ")), "the map goes on after the excerpt");
    }
}

#[test]
fn nothing_promises_source_that_is_omitted() {
    // Map mode with source and a hint: the hint names a way to a body.
    let md = ask("RentalService.finish").to_markdown();
    assert!(md.contains("> Bodies are not included. For one symbol's body: `codegraph-insights explore"));
    // Without source no way to a body is named, whatever the hint.
    let map = ask_with(&request("RentalService.finish"), None, &NoExplanations);
    assert!(map.body_hint.is_none());
    assert!(map.to_markdown().contains("No source is loaded here, so no body can be shown."));
    let map = ask_with(&Request { flag: Some(Mode::Source), ..request("RentalService.finish") }, None, &NoExplanations);
    assert!(map.source.is_none());
    assert!(map.to_markdown().contains("Source mode shows source, but no source is loaded here."));
    // Snippets say how many lines are cut and where.
    let map =
        ask_with(&Request { flag: Some(Mode::Snippets), ..request("Rental") }, Some(&demo_sources()), &NoExplanations);
    let x = &map.source.as_ref().unwrap().excerpts[0];
    assert_eq!(x.text.lines().count(), 12);
    assert!(map.to_markdown().contains(&format!(
        "… {} more lines not shown (lines {}–{})",
        x.omitted_lines,
        x.start + 12,
        x.end
    )));
    // A source budget too small: what is left out is listed with the reason.
    let q = "Rental RentalService Fleet";
    let map = ask_with(
        &Request { flag: Some(Mode::Source), caps: caps(|c| c.source_chars = 2_000), ..request(q) },
        Some(&demo_sources()),
        &NoExplanations,
    );
    let s = map.source.as_ref().unwrap();
    assert!(!s.not_shown.is_empty());
    let md = map.to_markdown();
    assert!(md.contains("Source not shown:") && md.contains("left out to keep the source within 2000 characters"));
    assert!(md.contains("> Some bodies are cut or left out, as marked. For one symbol's body:"));
    // A file that changed since extraction is not shown as the symbol's source.
    let mut short = demo_sources();
    short.insert("com/pedalpoint/rental/RentalService.java", "class RentalService {}\n").unwrap();
    let map = ask_with(
        &Request { flag: Some(Mode::Source), ..request("RentalService.finish") },
        Some(&short),
        &NoExplanations,
    );
    let s = map.source.as_ref().unwrap();
    assert!(s.excerpts.iter().all(|x| !x.file.ends_with("RentalService.java")));
    let finish = s.not_shown.iter().find(|n| n.name == "RentalService.finish").expect("listed as not shown");
    assert!(finish.reason.contains("the file has 1 line, not the 58 the model expects"), "{}", finish.reason);
}

// ------------------------------------------------------------------ explanations

#[test]
fn explanations_are_marked_generated_and_a_stale_one_is_flagged() {
    let sc = sidecar();
    let records = records_of(&sc);
    let corpus = insights::units::Corpus::build(demo_model(), analyzer::view::View::all(), None).unwrap();
    // The demo sources with one message changed inside RentalService.finish.
    let mut changed = demo_sources();
    let path = "com/pedalpoint/rental/RentalService.java";
    let text = changed.read(path).text().cloned().unwrap().replace("No open rental ", "No such rental ");
    changed.insert(path, text).unwrap();
    let stamps = insights::stale::stamps_of(&sc.records);
    let verdict = plan_verdict(&corpus, &changed, &records, &stamps, Some(&sc.header));
    let x = RecordExplanations { records: &records, verdict: Some(&verdict) };
    let map = ask_with(&request("RentalService.finish BillingService.invoice"), Some(&changed), &x);
    let fresh = |name: &str| {
        map.symbols
            .items
            .iter()
            .find(|s| s.at.name == name)
            .and_then(|s| s.explanation.as_ref())
            .map(|e| e.freshness.clone())
    };
    // The one verdict, with its reason (this partial side-car leaves the
    // method's dependencies unexplained, which the verdict names first).
    assert!(
        matches!(fresh("RentalService.finish"), Some(Some(insights::stale::Freshness::Stale(_)))),
        "{:?}",
        fresh("RentalService.finish")
    );
    assert_eq!(fresh("BillingService.invoice"), Some(Some(insights::stale::Freshness::Current)));
    assert!(map.symbols.items.iter().filter_map(|s| s.explanation.as_ref()).all(|e| e.generated));
    let md = map.to_markdown();
    assert!(md.contains("  - *generated, stale (the code changed since it was explained):* [demo"));
    assert!(md.contains("  - *generated:* [demo"));
    assert!(md.contains("Explanations are generated by an LLM, not read from the code"));
    assert!(md.contains("stale (the code changed since)"));
    // Not compared with a plan: not claimed current.
    let unchecked = RecordExplanations { records: &records, verdict: None };
    let map = ask_with(&request("RentalService.finish"), None, &unchecked);
    assert_eq!(map.symbols.items[0].explanation.as_ref().unwrap().freshness, None);
    assert!(map.to_markdown().contains("not checked against the current code"));
}

#[test]
fn a_map_with_no_explanations_and_one_with_an_imported_sidecar() {
    let bare = ask("how is a rental priced?");
    assert!(bare.symbols.items.iter().all(|s| s.explanation.is_none()));
    assert_eq!(bare.summary.explanations.loaded, 0);
    assert!(bare.to_markdown().contains("No explanations are loaded for this model."));
    let sc = sidecar();
    let records = records_of(&sc);
    let corpus = insights::units::Corpus::build(demo_model(), analyzer::view::View::all(), None).unwrap();
    let src = demo_sources();
    let stamps = insights::stale::stamps_of(&sc.records);
    let verdict = plan_verdict(&corpus, &src, &records, &stamps, Some(&sc.header));
    let x = RecordExplanations { records: &records, verdict: Some(&verdict) };
    let map = ask_with(&request("how is a rental priced?"), Some(&src), &x);
    let c = map.summary.explanations;
    assert_eq!(c.loaded, sc.records.len());
    assert!(c.listed > 0 && c.stale == 0 && c.unchecked == 0, "{c:?}");
    for s in &map.symbols.items {
        let has = sc.records.iter().any(|r| r.id == s.at.id);
        assert_eq!(s.explanation.is_some(), has, "{}", s.at.name);
        if let Some(e) = &s.explanation {
            assert!(e.text.chars().count() <= explore::EXPLANATION_CHARS && !e.text.contains('\n'));
        }
    }
}

// ------------------------------------------------------------------ modes

#[test]
fn the_mode_follows_its_precedence() {
    let src = demo_sources();
    let mode =
        |q: &str, flag, setting| ask_with(&Request { flag, setting, ..request(q) }, Some(&src), &NoExplanations).mode;
    assert_eq!(mode("Rental", None, None), Mode::Map);
    assert_eq!(mode("Rental", None, Some(Mode::Source)), Mode::Source);
    assert_eq!(mode("Rental", Some(Mode::Snippets), Some(Mode::Source)), Mode::Snippets);
    assert_eq!(mode("Rental mode:map", Some(Mode::Snippets), Some(Mode::Source)), Mode::Map);
    let map = ask("Rental mode:map");
    assert!(map.source.is_none() && !map.to_markdown().contains("**Source Code**"));
    assert!(names(&map).contains(&"Rental"), "`mode:` is not a word of the question");
}
