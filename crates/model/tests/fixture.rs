//! The upstream Java fixture (16 files / 179 entities / 188 edges) read
//! through the public API: census golden values and decoded shapes.

use model::{read_model, Census, EdgeKind, Literal, Model, Trait};
use std::path::PathBuf;

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/upstream-java/model.jsonl")
}

fn fixture() -> Model {
    let f = std::fs::File::open(fixture_path()).expect("fixture present");
    read_model(std::io::BufReader::new(f), "model.jsonl").expect("the fixture reads cleanly")
}

fn find(m: &Model, id: &str) -> u32 {
    m.entities().find(|e| e.id() == id).unwrap_or_else(|| panic!("{id} not in model")).index()
}

#[test]
fn census_matches_the_golden_values() {
    let m = fixture();
    let c = Census::of(&m);
    assert_eq!((c.files, c.entities, c.edges), (16, 179, 188));
    let kinds: Vec<(&str, u64)> = c.kinds.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(
        kinds,
        [
            ("annotation", 1),
            ("attribute", 21),
            ("class", 34),
            ("constructor", 19),
            ("enum", 1),
            ("interface", 2),
            ("lambda", 6),
            ("localVariable", 6),
            ("method", 43),
            ("package", 10),
            ("parameter", 35),
            ("record", 1)
        ]
    );
    let edges = Census::ranked(&c.edge_kinds);
    assert_eq!(
        edges,
        [
            ("reference", 77),
            ("invocation", 48),
            ("access", 33),
            ("import", 11),
            ("annotationUse", 10),
            ("inheritance", 4),
            ("interfaceImplementation", 3),
            ("throws", 2)
        ]
    );
    assert_eq!(Census::ranked(&c.provenance), [("declared", 185), ("derived", 3)]);
    assert_eq!((c.corpus_types, c.stub_types), (19, 20));
    assert_eq!((c.corpus_modules, c.stub_modules), (3, 7));
    assert!(m.findings().is_empty(), "findings: {:?}", m.findings().kept);
}

#[test]
fn ids_render_as_the_spec_shows() {
    let m = fixture();
    assert_eq!(m.id(0), "java:com.acme.order");
    assert_eq!(m.id(138), "java:com.acme.order.adapter");
    assert_eq!(m.id(111), "java:com.acme.order/OrderService.bill(com.acme.order.Order)");
    assert_eq!(m.id(112), "java:com.acme.order/OrderService.bill(com.acme.order.Order)#local:invoice:18");
    assert_eq!(m.id(70), "java:com.acme.order/Notifications#com/acme/order/Notifications.java:11:22");
    assert_eq!(m.id(59), "java:com.acme.order/Invoice");
    assert_eq!(m.id(164), "java:java.lang/String");
    // Surrogate order is canonical natural-key order.
    let ids: Vec<String> = m.entities().map(|e| e.id()).collect();
    assert_eq!(ids.len(), 179);
}

#[test]
fn entities_decode_with_their_keys() {
    let m = fixture();
    let bill = m.entity(111);
    assert_eq!(bill.kind(), "method");
    assert_eq!(bill.name(), Some("bill"));
    assert_eq!(bill.signature(), Some("bill(com.acme.order.Order)"));
    assert_eq!(bill.declared_type(), Some(59));
    assert_eq!(bill.parent(), Some(103));
    assert_eq!(bill.parameters(), Some(&[113][..]));
    assert_eq!(bill.local_variables(), Some(&[112][..]));
    let metrics: Vec<_> = bill.metrics().unwrap().collect();
    assert_eq!(metrics, [("cyclomatic", 1.0), ("sloc", 5.0)]);
    let a = bill.anchor().unwrap();
    assert_eq!((m.file(a.file), a.start, a.end), ("com/acme/order/OrderService.java", 17, 21));
    assert!(!bill.is_stub());
    assert!(bill.has_trait(Trait::Invocable));
    assert_eq!(bill.traits()[0], Trait::Named);

    let max_lines = m.entity(97);
    assert_eq!(max_lines.value(), Some(&Literal::Number("100".into())));
    assert_eq!(max_lines.comments().map(|c| c.len()), Some(1));

    let pkg = m.entity(0);
    assert!(pkg.is_module_entity());
    assert_eq!(pkg.defined_in().unwrap().len(), 14);
    assert_eq!(pkg.symbol(), "");
    assert_eq!(pkg.module_path(), "com.acme.order");

    assert!(m.entity(164).is_stub());
    assert!(m.entity(59).is_stub() && m.entity(59).parent().is_none());

    // Order's constructor parameters keep declaration order, not surrogate order.
    let ctor = find(&m, "java:com.acme.order/Order.<init>(java.lang.String,com.acme.order.Channel)");
    assert_eq!(m.entity(ctor).parameters(), Some(&[96, 95][..]));
}

#[test]
fn edges_and_adjacency() {
    let m = fixture();
    // Derived module imports to the unresolvable ledger package.
    let derived: Vec<_> = m.edges().iter().filter(|e| e.provenance == model::Provenance::Derived).collect();
    assert_eq!(derived.len(), 3);
    assert!(derived.iter().all(|e| e.kind == EdgeKind::Import));

    // bill invokes the stub type Invoice (a `new Invoice(..)`).
    let out: Vec<_> = m.entity(111).outgoing().iter().map(|&x| m.edge(x)).collect();
    assert!(out.iter().any(|e| e.kind == EdgeKind::Invocation && e.to == 59));
    assert!(m.entity(59).incoming().iter().any(|&x| m.edge(x).from == 111));

    // The annotationUse with an enum argument: @Retention(RUNTIME).
    let retention = m
        .edges()
        .iter()
        .enumerate()
        .find(|(_, e)| e.kind == EdgeKind::AnnotationUse && e.to == 168)
        .map(|(i, _)| m.edge(i as u32))
        .unwrap();
    assert_eq!(retention.arguments().len(), 1);
    assert_eq!(retention.arguments()[0].value, Literal::Enum { ty: 169, name: "RUNTIME".into() });

    // Access edges carry both flags.
    let access: Vec<_> = m.edges().iter().filter(|e| e.kind == EdgeKind::Access).collect();
    assert_eq!(access.len(), 33);
    assert!(access.iter().all(|e| e.is_read().is_some() && e.is_write().is_some()));

    // Children are the inverse of parent.
    assert!(m.children(103).contains(&111));
    let total_children: usize = (0..m.entity_count()).map(|i| m.children(i).len()).sum();
    assert_eq!(total_children, m.entities().filter(|e| e.parent().is_some()).count());
    let total_out: usize = (0..m.entity_count()).map(|i| m.outgoing(i).len()).sum();
    assert_eq!(total_out, 188);
}

#[test]
fn chunked_input_reads_the_same() {
    let bytes = std::fs::read(fixture_path()).unwrap();
    let whole = read_model(&bytes[..], "model.jsonl").unwrap();
    for chunk in [1usize, 7, 4096] {
        let mut r = model::ModelReader::new("model.jsonl");
        for c in bytes.chunks(chunk) {
            r.push_chunk(c).unwrap();
        }
        let m = r.finish().unwrap();
        assert_eq!(Census::of(&m), Census::of(&whole));
        assert_eq!(m.id(112), whole.id(112));
    }
}
