//! Golden values of the analyzer (dossier counts and module imports, the type
//! dependency and import graphs, the cycle reports, view descriptors) on the
//! upstream Java fixture (16 files / 179 entities / 188 edges). These tests
//! are the reference; `docs/formats` does not describe the analyzer.

use std::io::BufReader;

use analyzer::cycles::cycles;
use analyzer::facts::build_domain_facts;
use analyzer::fold::{fold_graph, import_graph, type_dependency_graph, FoldOptions};
use analyzer::{CodeGraph, Framework, Level, View};
use model::{EdgeKind, Model, Provenance};

fn fixture() -> Model {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/upstream-java/model.jsonl");
    let file = std::fs::File::open(path).expect("the upstream fixture is in fixtures/");
    model::read_model(BufReader::new(file), "model.jsonl").expect("the fixture reads")
}

const P: &str = "java:com.acme.order";

fn t(name: &str) -> String {
    format!("{P}/{name}")
}

fn strs<T: AsRef<str>>(v: &[T]) -> Vec<&str> {
    v.iter().map(|s| s.as_ref()).collect()
}

#[test]
fn graph_basics() {
    let m = fixture();
    assert_eq!((m.files().len(), m.entity_count(), m.edge_count()), (16, 179, 188));
    let g = CodeGraph::new(&m);
    let ids: Vec<&str> = g.ids().map(|s| &**s).collect();
    let mut sorted = ids.clone();
    model::sort_utf16(&mut sorted);
    assert_eq!(ids, sorted);
    let basket = g.index_of(&t("Basket")).unwrap();
    let children: Vec<&str> = g.children_of(basket).iter().map(|&c| &**g.id(c)).collect();
    let mut sorted_children = children.clone();
    model::sort_utf16(&mut sorted_children);
    assert_eq!(children, sorted_children);
    assert!(children.contains(&t("Basket.Cursor").as_str()));
    let priceable = g.index_of(&t("Priceable")).unwrap();
    assert!(g.implementers_of(priceable).contains(&g.index_of(&t("Money")).unwrap()));
    // Unplaceable stubs: the only two entities with no module container.
    let unplaced: Vec<&str> =
        g.sorted().iter().filter(|&&i| g.containing_module(i).is_none()).map(|&i| &**g.id(i)).collect();
    assert_eq!(unplaced, vec!["java:com.acme.order.adapter/AuditTrail", t("Invoice").as_str()]);
    let money = g.index_of(&t("Money")).unwrap();
    assert_eq!(g.containing_type(money), Some(money));
    assert_eq!(g.containing_module(money), g.index_of(P));
}

#[test]
fn dossier_counts_and_diagnostics() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let facts = build_domain_facts(&g, &View::all(), None);
    assert_eq!(facts.types.len(), 19);
    assert_eq!(facts.modules.len(), 3);
    let d = &facts.diagnostics;
    assert_eq!((d.types, d.operations, d.invocations, d.accesses, d.throw_sites), (19, 58, 48, 33, 2));
    assert!(d.wiring.is_none());
    let kinds = |k: &str| facts.types.iter().flat_map(|t| &t.operations).filter(|o| &*o.kind == k).count();
    assert_eq!((kinds("constructor"), kinds("method"), kinds("lambda")), (17, 40, 1));
    let lambda_owner = facts.types.iter().find(|t| t.operations.iter().any(|o| &*o.kind == "lambda")).unwrap();
    assert_eq!(&*lambda_owner.id, t("Notifications"));
    // 57 operation units (non-lambda operations; `docs/formats/units-and-walk.md` §2, §7).
    assert_eq!(facts.types.iter().flat_map(|t| &t.operations).filter(|o| &*o.kind != "lambda").count(), 57);
    // No framework: no stereotype, entryPoint false, injectionPoints [].
    assert!(facts.types.iter().all(|t| t.stereotype.is_none() && t.injection_points.is_empty()));
    assert!(facts.types.iter().flat_map(|t| &t.operations).all(|o| !o.entry_point));
    // Lambdas and anonymous classes roll into their enclosing operations.
    let notifications = facts.type_dossier(&t("Notifications")).unwrap();
    let both = notifications.operations.iter().find(|o| o.name.as_deref() == Some("both")).unwrap();
    assert!(!both.invocations.is_empty());
}

#[test]
fn dossier_module_imports() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let facts = build_domain_facts(&g, &View::all(), None);
    let ids: Vec<&str> = facts.modules.iter().map(|m| &*m.id).collect();
    assert_eq!(ids, vec![P, "java:com.acme.order.adapter", "java:com.acme.order.legacy"]);
    let imports = |i: usize| -> Vec<(String, u32, bool)> {
        facts.modules[i].imports.iter().map(|x| (x.to.to_string(), x.count, x.external)).collect()
    };
    assert_eq!(
        imports(0),
        vec![
            ("java:com.megacorp.ledger".into(), 2, true),
            ("java:java.lang.annotation".into(), 2, true),
            ("java:java.time".into(), 1, true),
            ("java:java.util".into(), 4, true),
            ("java:java.util.function".into(), 1, true),
        ]
    );
    assert_eq!(imports(1), vec![("java:com.megacorp.ledger".into(), 1, true)]);
    assert!(imports(2).is_empty());
    assert_eq!(facts.modules[0].imports[0].name.as_deref(), Some("com.megacorp.ledger"));
    // Module types are the dossier types whose containing module it is.
    assert_eq!(facts.modules[1].types.len(), 1);
    assert_eq!(facts.modules[2].types.len(), 1);
    assert_eq!(facts.modules[0].types.len(), 17);
}

#[test]
fn dossier_json_is_100_827_bytes() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let json = build_domain_facts(&g, &View::all(), None).to_json_string();
    assert!(
        json.starts_with("{\n  \"kind\": \"codegraph.domainFacts/1\",\n  \"generatedBy\": \"@codegraph/analyzer\",")
    );
    assert!(json.ends_with("}\n"));
    assert!(json.contains("\"type\": \"java:java.lang.annotation/RetentionPolicy\""));
    assert!(!json.contains(".0,\n") && !json.contains(".0\n"), "metrics are written as JavaScript numbers");
    assert_eq!(json.len(), 100_827);
    // Byte-deterministic.
    assert_eq!(json, build_domain_facts(&CodeGraph::new(&m), &View::all(), None).to_json_string());
}

#[test]
fn dossier_under_spring_and_views() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let facts = build_domain_facts(&g, &View::all(), Some(Framework::Spring));
    assert_eq!(facts.framework, Some("spring"));
    assert_eq!(facts.diagnostics.wiring, Some(Default::default()));
    let json = facts.to_json_string();
    assert!(json.contains("\"framework\": \"spring\""));
    assert!(json.contains("\"wiring\": {\n      \"unresolvedTypes\": 0,"));
    let internal = build_domain_facts(&g, &View::internal_only(), None);
    assert_eq!(internal.types.len(), 19);
    assert_eq!(internal.view.name, "internalOnly");
    assert!(internal.types.iter().flat_map(|t| &t.operations).flat_map(|o| &o.invocations).all(|i| !i.external));
}

#[test]
fn type_dependency_graph_golden() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let folded = type_dependency_graph(&g, &View::all());
    assert_eq!(folded.nodes.len(), 39);
    assert_eq!(folded.nodes.iter().filter(|n| n.is_stub).count(), 20);
    assert_eq!(folded.edges.len(), 78);
    assert_eq!(folded.total_weight(), 177);
    assert_eq!(folded.folded_edges, 177);
    assert_eq!(folded.dropped_edges, 11);
    assert_eq!(folded.edges.iter().filter(|e| e.self_loop).count(), 12);
    assert_eq!(folded.unfoldable_entities.len(), 10);
    assert!(folded.unfoldable_entities.iter().all(|id| g.has_trait(g.index_of(id).unwrap(), model::Trait::Module)));
    let kinds = folded.edges.iter().fold(analyzer::fold::KindSet::default(), |k, e| k.union(e.kinds));
    assert_eq!(kinds.len(), 7);
    assert!(!kinds.contains(EdgeKind::Import));
    let batch_money = folded.outgoing(&t("Batch")).iter().find(|e| *e.to == *t("Money")).unwrap();
    assert_eq!(batch_money.count, 7);
    assert_eq!(batch_money.kinds.names(), vec!["invocation", "reference"]);
    assert_eq!(
        strs(&folded.dependencies_of(&t("OrderService"))),
        vec![
            "java:com.acme.order.legacy/List",
            &t("AbstractOrder"),
            &t("Invoice"),
            &t("Order"),
            "java:com.megacorp.ledger/LedgerClient",
            "java:java.util/List",
        ]
    );
    let dependents = folded.dependents_of(&t("Money"));
    let names: Vec<String> =
        ["AbstractOrder", "Batch", "Channel", "Discountable", "Notifications", "Order", "Priceable"]
            .iter()
            .map(|n| t(n))
            .collect();
    assert_eq!(strs(&dependents), strs(&names));
    let base: u32 = folded.incoming(&t("Money")).iter().filter(|e| !e.self_loop).map(|e| e.count).sum();
    assert_eq!(base, 18);

    let internal = type_dependency_graph(&g, &View::internal_only());
    assert_eq!((internal.nodes.len(), internal.edges.len()), (19, 39));
    assert_eq!(internal.view.name, "internalOnly");
}

#[test]
fn import_graph_golden() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let imports = import_graph(&g, &View::all());
    assert_eq!(imports.import_diagnostics.import_edges, 11);
    assert!(imports.import_diagnostics.non_module_endpoints.is_empty());
    let pairs: Vec<(String, String, u32)> =
        imports.edges.iter().map(|e| (e.from.to_string(), e.to.to_string(), e.count)).collect();
    let p = |f: &str, to: &str, c: u32| (f.to_string(), to.to_string(), c);
    assert_eq!(
        pairs,
        vec![
            p(P, "java:com.megacorp.ledger", 2),
            p(P, "java:java.lang.annotation", 2),
            p(P, "java:java.time", 1),
            p(P, "java:java.util", 4),
            p(P, "java:java.util.function", 1),
            p("java:com.acme.order.adapter", "java:com.megacorp.ledger", 1),
        ]
    );
    assert_eq!(imports.edges[0].provenances.names(), vec!["derived"]);

    let declared = import_graph(&g, &View::declared_only());
    assert_eq!(declared.edges.len(), 4);
    assert_eq!(declared.total_weight(), 8);
    assert_eq!(declared.import_diagnostics.import_edges, 8);

    let internal = import_graph(&g, &View::internal_only());
    assert_eq!(
        strs(&internal.nodes.iter().map(|n| n.id.clone()).collect::<Vec<_>>()),
        vec![P, "java:com.acme.order.adapter", "java:com.acme.order.legacy"]
    );
    assert!(internal.edges.is_empty());
}

#[test]
fn type_level_cycles_golden() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    for view in [View::all(), View::compose(&[View::internal_only(), View::declared_only()])] {
        let report = cycles(&type_dependency_graph(&g, &view), None);
        let members: Vec<Vec<&str>> = report.components.iter().map(|c| strs(&c.members)).collect();
        assert_eq!(
            members,
            vec![vec![t("Basket").as_str(), &t("Basket.Cursor")], vec![t("Money").as_str(), &t("Priceable")]],
            "view {}",
            view.descriptor().name
        );
        if view.is_identity() {
            let basket = &report.components[0];
            assert_eq!((basket.internal_edge_count, basket.weight), (4, 7));
            let fb: Vec<(&str, &str, u32)> =
                basket.feedback_edges.iter().map(|e| (&*e.from, &*e.to, e.count)).collect();
            assert_eq!(fb, vec![(t("Basket.Cursor").as_str(), t("Basket").as_str(), 1)]);
            assert!((basket.tangle_metric - 1.0 / 3.0).abs() < 1e-12);
            let to_cursor = basket.edges.iter().find(|e| *e.from == *t("Basket") && *e.to == *t("Basket.Cursor"));
            assert_eq!(to_cursor.unwrap().count, 2);
            assert_eq!(basket.edges.iter().filter(|e| e.self_loop).count(), 2);

            let money = &report.components[1];
            assert_eq!((money.internal_edge_count, money.weight), (3, 8));
            let fb: Vec<(&str, &str, u32)> = money.feedback_edges.iter().map(|e| (&*e.from, &*e.to, e.count)).collect();
            assert_eq!(fb, vec![(t("Priceable").as_str(), t("Money").as_str(), 1)]);
            assert_eq!(money.tangle_metric, 0.5);
            let edge = |f: &str, to: &str| money.edges.iter().find(|e| *e.from == *t(f) && *e.to == *t(to)).unwrap();
            assert_eq!(edge("Money", "Priceable").kinds.names(), vec!["interfaceImplementation"]);
            assert_eq!(edge("Priceable", "Money").kinds.names(), vec!["reference"]);
            assert_eq!(edge("Money", "Money").count, 6);
            assert!(edge("Money", "Priceable").all_declared);

            let tangle = &report.tangle;
            assert_eq!((tangle.feedback_edge_count, tangle.feedback_weight, tangle.cyclic_weight), (2, 2, 5));
            assert_eq!(tangle.metric, 0.4);
            assert_eq!(report.self_loops.len(), 12);
        }
    }
}

#[test]
fn module_level_cycles_golden() {
    let m = fixture();
    let g = CodeGraph::new(&m);
    let folded = fold_graph(&g, &FoldOptions::new(Level::Module, &View::all()));
    let report = cycles(&folded, None);
    assert!(report.components.is_empty());
    assert_eq!(strs(&report.self_loops), vec![P, "java:com.acme.order.adapter", "java:com.acme.order.legacy"]);
    assert_eq!(report.tangle.metric, 0.0);
}

#[test]
fn view_descriptors() {
    assert_eq!(View::all().descriptor().name, "all");
    assert!(View::all().descriptor().filters.is_empty());
    let v = View::compose(&[View::internal_only(), View::declared_only()]);
    assert_eq!(v.descriptor().name, "internalOnly+declaredOnly");
    assert_eq!(v.descriptor().filters, vec!["internalOnly", "declaredOnly"]);
    let p = View::provenance_only(&[Provenance::Derived, Provenance::Declared]);
    assert_eq!(p.descriptor().name, "provenance:declared,derived");
    assert_eq!(View::from_flags(true, true), v);
    // A header's filters give the view back.
    assert_eq!(View::from_filters(&v.descriptor().filters), v);
    assert_eq!(View::from_filters(&View::declared_only().descriptor().filters), View::declared_only());
    assert_eq!(View::from_filters::<String>(&[]), View::all());
}
