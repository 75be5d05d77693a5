//! The navigator on the demo corpus (fixtures/demo, PedalPoint: 28 types in
//! 5 packages): nested types, dispatch through interfaces, thrown
//! exceptions, the package cycle fleet ⇄ rental and the two type cycles; and
//! on small built models: compound assignments, inferred provenance, views.

mod common;

use common::{assert_layered, names, node};
use hashbrown::HashSet;
use model::builder::ModelBuilder;
use navigator::{Navigator, NodeId};

fn demo() -> Navigator {
    Navigator::build(&common::model("demo/model.jsonl"))
}

const P: &str = "java:com.pedalpoint";

#[test]
fn packages_nest_and_nested_types_sit_under_their_outer_type() {
    let nav = demo();
    let root = node(&nav, P);
    assert_eq!(nav.roots()[0], root);
    assert_eq!(
        names(&nav, nav.children(root).take(4)),
        ["com.pedalpoint.billing", "com.pedalpoint.common", "com.pedalpoint.fleet", "com.pedalpoint.rental"]
    );
    for (outer, inner) in [
        ("fleet/Fleet", "fleet/Fleet.Availability"),
        ("fleet/MaintenanceLog", "fleet/MaintenanceLog.Entry"),
        ("billing/Invoice", "billing/Invoice.Line"),
        ("rental/Rental", "rental/Rental.Status"),
        ("rental/Customer", "rental/Customer.Tier"),
    ] {
        let (module, outer) = outer.split_once('/').unwrap();
        let inner = inner.split_once('/').unwrap().1;
        let o = node(&nav, &format!("{P}.{module}/{outer}"));
        let i = node(&nav, &format!("{P}.{module}/{inner}"));
        assert_eq!(nav.parent(i), Some(o), "{inner} under {outer}");
        assert_eq!(nav.node(i).breadcrumb, [P[5..].to_string(), format!("com.pedalpoint.{module}"), outer.to_string()]);
        // The nested type comes first among the outer type's children.
        assert_eq!(nav.children(o).next(), Some(i));
    }
    // Expanding the path to a nested type reveals it right after its outer type.
    let fleet = node(&nav, &format!("{P}.fleet/Fleet"));
    let availability = node(&nav, &format!("{P}.fleet/Fleet.Availability"));
    let expanded: HashSet<NodeId> = nav.ancestors(availability).into_iter().chain([fleet]).collect();
    let at = nav.row_index(&expanded, false, availability).unwrap();
    let (rows, _) = nav.rows(&expanded, false, at - 1, 2);
    assert_eq!((rows[0].node, rows[1].node, rows[1].depth), (fleet, availability, 3));
}

#[test]
fn dispatch_through_an_interface() {
    let nav = demo();
    let policy = node(&nav, &format!("{P}.billing/PricingPolicy"));
    let d = nav.dependencies(policy, 0, 200);
    let implementers = d.incoming.iter().find(|g| g.role == "implements").expect("implementations");
    let mut who: Vec<&str> = implementers.rows.iter().map(|r| r.counterpart_name.as_str()).collect();
    who.sort();
    assert_eq!(who, ["DayPassPricing", "HourlyPricing", "MemberPricing"]);
    assert_eq!(implementers.label, "Interface implementation");
    // Calls through the interface land on its operations.
    let calls = d.incoming.iter().find(|g| g.role == "invokes").expect("calls through the interface");
    let callers: HashSet<(&str, &str)> = calls
        .rows
        .iter()
        .map(|r| (r.counterpart_name.as_str(), r.counterpart_member.as_deref().unwrap_or("")))
        .collect();
    assert!(callers.iter().any(|(t, m)| *t == "BillingService" && m.starts_with("invoice(")), "{callers:?}");
    assert!(callers.iter().any(|(t, m)| *t == "MemberPricing" && m.starts_with("quote(")), "{callers:?}");
    // The operation a call lands on shows it as carried.
    let quote = nav.children(policy).find(|&c| nav.name(c) == "quote").unwrap();
    let d = nav.dependencies(quote, 0, 200);
    assert!(d.incoming.iter().all(|g| g.role == "invokes"));
    assert!(d.incoming[0].rows.iter().all(|r| r.member.as_deref() == nav.node(quote).signature.as_deref()));
    // The gateway and its one implementation.
    let gateway = node(&nav, &format!("{P}.billing/PaymentGateway"));
    let d = nav.dependencies(gateway, 0, 200);
    let impls = d.incoming.iter().find(|g| g.role == "implements").unwrap();
    assert_eq!(impls.rows.iter().map(|r| r.counterpart_name.as_str()).collect::<Vec<_>>(), ["CardTerminal"]);
}

#[test]
fn thrown_exceptions_are_type_references_with_a_throw_detail() {
    let nav = demo();
    let ex = node(&nav, &format!("{P}.rental/RentalException"));
    let d = nav.dependencies(ex, 0, 200);
    let refs = d.incoming.iter().find(|g| g.role == "typeReference").unwrap();
    let throwers: HashSet<&str> = refs
        .rows
        .iter()
        .filter(|r| r.detail.as_deref() == Some("throw"))
        .map(|r| r.counterpart_name.as_str())
        .collect();
    assert_eq!(throwers, ["Rental", "RentalService"].into_iter().collect());
    // Inheritance from the JDK.
    let extends = d.outgoing.iter().find(|g| g.role == "extends").unwrap();
    assert_eq!(extends.rows[0].counterpart_name, "Exception");
}

#[test]
fn the_package_cycle_and_the_type_cycles() {
    let nav = demo();
    let reports = nav.cycles();
    let ids = |c: &navigator::CycleComponent| c.members.iter().map(|&m| nav.id(m).to_string()).collect::<Vec<_>>();
    assert_eq!(reports[0].level, "module");
    assert_eq!(
        reports[0].components.iter().map(ids).collect::<Vec<_>>(),
        [vec![format!("{P}.fleet"), format!("{P}.rental")]]
    );
    let cut: Vec<_> = reports[0].components[0].edges.iter().filter(|e| e.feedback).collect();
    assert_eq!(cut.len(), 1);
    assert!(cut[0].from != cut[0].to);
    assert_eq!(reports[1].level, "type");
    assert_eq!(
        reports[1].components.iter().map(ids).collect::<Vec<_>>(),
        [
            vec![format!("{P}.fleet/Bike"), format!("{P}.rental/Rental")],
            vec![format!("{P}.fleet/Fleet"), format!("{P}.fleet/Fleet.Availability")]
        ]
    );
    // In the module overview the fleet ⇄ rental cycle is closed by one edge
    // running back; every other link goes left to right.
    let g = nav.module_overview(1200);
    assert_layered(&g);
    for e in &g.edges {
        let pair = [nav.name(e.from), nav.name(e.to)];
        let cycle = pair.contains(&"com.pedalpoint.fleet") && pair.contains(&"com.pedalpoint.rental");
        assert!(!e.feedback || cycle, "{pair:?} runs back");
    }
    assert_eq!(g.edges.iter().filter(|e| e.feedback).count(), 1);
    // The shop wires everything: it depends on every corpus package but its own.
    let shop_pkg = node(&nav, P);
    let out: HashSet<&str> = g.edges.iter().filter(|e| e.from == shop_pkg).map(|e| nav.name(e.to)).collect();
    for m in ["billing", "common", "fleet", "rental"] {
        assert!(out.contains(format!("com.pedalpoint.{m}").as_str()), "{out:?}");
    }
}

#[test]
fn a_neighbourhood_with_a_cycle() {
    let nav = demo();
    let bike = node(&nav, &format!("{P}.fleet/Bike"));
    let rental = node(&nav, &format!("{P}.rental/Rental"));
    let g = nav.neighbourhood(bike, 1200);
    assert_layered(&g);
    let into = g.edges.iter().find(|e| e.direction == "in" && e.from == rental).expect("Rental → Bike");
    let out = g.edges.iter().find(|e| e.direction == "out" && e.to == rental).expect("Bike → Rental");
    assert!(into.feedback != out.feedback, "one of Bike ⇄ Rental runs back");
}

#[test]
fn every_demo_view_is_readable() {
    let nav = demo();
    // Every node's neighbourhood and the module overview, externals on and off.
    let views = common::assert_every_view_is_readable(&nav, 120);
    assert_eq!(views, 2 * (nav.len() + 1));
    // Externals off: the overview hides the stub modules and says how many.
    let all = nav.graph(None, 120, true);
    let corpus = nav.graph(None, 120, false);
    let stubs = all.nodes.iter().filter(|v| v.stub).count();
    assert!(stubs > 0);
    assert_eq!((corpus.nodes.len(), corpus.externals_hidden), (all.nodes.len() - stubs, stubs));
    assert!(!corpus.externals && all.externals);
    // Labels are simple names: a package keeps its name, a type its own.
    let bike = node(&nav, &format!("{P}.fleet/Bike"));
    let g = nav.graph(Some(bike), 120, false);
    assert_eq!(g.nodes[0].label, "Bike");
    assert_eq!(g.nodes[0].id, format!("{P}.fleet/Bike"));
}

/// A model with a compound assignment across types and an inferred call.
fn built() -> model::Model {
    let mut b = ModelBuilder::new("java", "src");
    let pkg = b.java_package("p").id();
    let counter = b.java_class(pkg, "Counter").anchor("p/Counter.java", 1, 9).id();
    let hits = b.java_field(counter, "hits").anchor("p/Counter.java", 2, 2).id();
    let user = b.java_class(pkg, "User").anchor("p/User.java", 1, 9).id();
    let bump = b.java_method(user, "bump", &["p.Counter"]).anchor("p/User.java", 2, 4).id();
    let c = b.java_param(bump, "c").id();
    let helper = b.java_method(user, "helper", &[]).anchor("p/User.java", 5, 6).id();
    let other = b.java_method(counter, "reset", &[]).anchor("p/Counter.java", 3, 4).id();
    b.edge("access", bump, hits, "declared", ("p/User.java", 3, 3)).access(true, true);
    b.edge("reference", c, counter, "declared", ("p/User.java", 2, 2));
    b.edge("invocation", helper, other, "dynamic-candidate", ("p/User.java", 6, 6));
    b.edge("invocation", bump, helper, "declared", ("p/User.java", 3, 3));
    let text = b.build().expect("a model");
    model::read_model(text.as_bytes(), "m.jsonl").expect("valid")
}

#[test]
fn a_compound_assignment_reads_and_writes() {
    let nav = Navigator::build(&built());
    let user = node(&nav, "java:p/User");
    let d = nav.dependencies(user, 0, 200);
    let roles: Vec<(&str, usize)> = d.outgoing.iter().map(|g| (g.role.as_str(), g.total)).collect();
    assert_eq!(roles, [("invokes", 1), ("reads", 1), ("writes", 1), ("parameterType", 1)]);
    assert_eq!(d.fan_out, 1);
    let read = &d.outgoing[1].rows[0];
    assert_eq!((read.member.as_deref(), read.counterpart_member.as_deref()), (Some("bump(p.Counter)"), Some("hits")));
    assert_eq!(d.outgoing[3].rows[0].detail.as_deref(), Some("parameter #1 (c)"));
    // The inferred call keeps its provenance; the graph edge is flagged.
    assert_eq!(d.outgoing[0].rows[0].provenance, "dynamic-candidate");
    let g = nav.neighbourhood(user, 10);
    assert!(g.edges.iter().all(|e| e.inferred));
    // One base edge inside User (bump → helper) is a self-owner edge.
    assert_eq!((nav.dep_count(), nav.diagnostics().self_deps), (4, 1));
    // The field carries the read and the write.
    let hits = node(&nav, "java:p/Counter.hits");
    let d = nav.dependencies(hits, 0, 200);
    let roles: Vec<&str> = d.incoming.iter().map(|g| g.role.as_str()).collect();
    assert_eq!(roles, ["reads", "writes"]);
    assert_eq!((d.fan_in, d.incoming_total), (1, 2));
}

#[test]
fn the_internal_only_view_has_no_stubs() {
    let m = common::model("demo/model.jsonl");
    let all = Navigator::build(&m);
    let internal = Navigator::build_with_view(&m, &analyzer::View::internal_only());
    assert_eq!(internal.view_name(), "internalOnly");
    assert!((0..internal.len() as NodeId).all(|n| !internal.node(n).stub));
    let stubs = (0..all.len() as NodeId).filter(|&n| all.node(n).stub).count();
    assert_eq!(internal.len(), all.len() - stubs);
    assert!(internal.dep_count() < all.dep_count());
    assert_eq!(internal.node_of("java:java.lang/String"), None);
    // The same cycles: none of them involves a stub.
    assert_eq!(internal.cycles().len(), 2);
    assert_eq!(internal.cycles()[1].components.len(), all.cycles()[1].components.len());
}
