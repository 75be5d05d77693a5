//! The model builder writes canonical `model.jsonl` (`docs/formats/model.md` §8).

use model::builder::{BuildError, Key, ModelBuilder, Ref};
use model::{Literal, NamedArgument};

const SPOON: &str = r#"{"name":"codegraph-spoon","version":"0.2.0","noClasspath":true}"#;
const N: &str = "com/acme/order/Notifications.java";
const O: &str = "com/acme/order/Order.java";
const S: &str = "com/acme/order/OrderService.java";
const L: &str = "com/acme/order/adapter/LedgerAdapter.java";

/// A slice of the Java fixture, described out of order with the Java layer.
fn acme() -> ModelBuilder {
    let mut b = ModelBuilder::new("java", "fixtures/java/src");
    b.extractor(SPOON);

    // Stubs first, the corpus package last: declaration order is irrelevant.
    b.java_stub_package("java.lang");
    let string = b.java_stub_type("java.lang", "String").id();
    let over = b.java_stub_type("java.lang", "Override").id();
    let invoice = b.java_parentless_stub_type("com.acme.order", "Invoice").id();

    // OrderService before the package it lives in.
    let service = b.java_class(Key::module("com.acme.order"), "OrderService").anchor(S, 8, 30).id();
    let bill = b
        .java_method(service, "bill", &["com.acme.order.Order"])
        .declared_type(invoice)
        .measure("sloc", 5.0) // written key-sorted: cyclomatic first
        .measure("cyclomatic", 1.0)
        .anchor(S, 17, 21)
        .id();
    // Locals before parameters in surrogate order, parameters in declaration order.
    b.java_param(bill, "order").declared_type(Key::new("com.acme.order", "Order")).at(17, 17);
    b.java_local(bill, "invoice", 18).declared_type(invoice).at(18, 18);

    let pkg = b.java_package("com.acme.order").id();
    let order = b.java_class(pkg, "Order").anchor(O, 6, 35).doc("A customer order.").measure("sloc", 20.0).id();
    let max = b.java_field(order, "MAX_LINES").doc("…").constant(Literal::<Ref>::Number("100".into())).at(9, 9).id();

    let notifications = b.java_class(pkg, "Notifications").anchor(N, 6, 39).id();
    let both = b
        .java_method(notifications, "both", &["com.acme.order.Order"])
        .declared_type(Key::new("java.lang", "Runnable"))
        .measure("cyclomatic", 1.0)
        .measure("sloc", 3.0)
        .at(10, 12)
        .id();
    b.java_param(both, "order").declared_type(order).at(10, 10);
    b.java_lambda(both, 11, 22, "()").measure("cyclomatic", 1.0).measure("sloc", 1.0).at(11, 11);
    b.java_stub_type("java.lang", "Runnable");

    let adapter = b.java_subpackage("com.acme.order.adapter", pkg).id();
    b.java_class(adapter, "LedgerAdapter").anchor(L, 6, 15);

    b.edge(
        "reference",
        Key::with_d("com.acme.order", "OrderService.bill(com.acme.order.Order)", "param:order"),
        order,
        "declared",
        (S, 17, 17),
    );
    b.edge("reference", bill, invoice, "declared", (S, 17, 17));
    b.edge("invocation", bill, invoice, "declared", (S, 18, 18));
    b.edge("access", bill, max, "declared", (S, 19, 19)).access(true, false);
    b.edge("annotationUse", bill, over, "declared", (S, 16, 16));
    b.edge("annotationUse", bill, string, "declared", (S, 15, 15))
        .arguments(vec![NamedArgument { name: "value".into(), value: Literal::Type { ty: string } }]);
    b.edge("import", pkg, Key::module("java.lang"), "derived", (S, 3, 3));
    b.edge("import", pkg, Key::module("java.lang"), "derived", (O, 3, 3));
    b
}

fn lines(b: &ModelBuilder) -> Vec<String> {
    b.build().expect("builds").lines().map(str::to_owned).collect()
}

fn entity_line(lines: &[String], i: usize) -> &str {
    let prefix = format!(r#"{{"t":"e","i":{i},"#);
    lines.iter().find(|l| l.starts_with(&prefix)).expect("entity exists")
}

#[test]
fn java_slice_reproduces_the_fixture_lines() {
    let out = lines(&acme());
    // Same 18 traits as the fixture, hence the same trait indices as in the fixture's lines.
    assert_eq!(
        out[0],
        r#"{"t":"header","schemaVersion":"1.0.0","lang":"java","extractor":{"name":"codegraph-spoon","version":"0.2.0","noClasspath":true},"root":"fixtures/java/src","dict":{"kinds":["attribute","class","lambda","localVariable","method","package","parameter"],"traits":["TChildOf","TComment","TInvocable","TMetrics","TModule","TNamed","TSourceAnchor","TStructural","TType","TTypedEntity","TWithAccesses","TWithChildren","TWithImplements","TWithInheritances","TWithInvocations","TWithLocalVariables","TWithParameters","TWithValue"],"edges":["access","annotationUse","import","invocation","reference"],"provenance":["declared","derived"]}}"#
    );
    assert_eq!(
        &out[1..5],
        [
            r#"{"t":"f","i":0,"path":"com/acme/order/Notifications.java"}"#,
            r#"{"t":"f","i":1,"path":"com/acme/order/Order.java"}"#,
            r#"{"t":"f","i":2,"path":"com/acme/order/OrderService.java"}"#,
            r#"{"t":"f","i":3,"path":"com/acme/order/adapter/LedgerAdapter.java"}"#,
        ]
    );
    // Canonical order: 0 com.acme.order, 1 Invoice, 2 Notifications, 3 its
    // lambda, 4 both(..), 5 its param, 6 Order, 7 MAX_LINES, 8 OrderService,
    // 9 bill(..), 10 local, 11 param, 12 .adapter, 13 LedgerAdapter,
    // 14 java.lang, 15 Override, 16 Runnable, 17 String.
    let expect = [
        // a package (definedIn: the files of its top-level types)
        r#"{"t":"e","i":0,"k":5,"tr":[5,11,4],"m":0,"s":"com.acme.order","name":"com.acme.order","isStub":false,"definedIn":[0,1,2]}"#,
        // a stub type
        r#"{"t":"e","i":1,"k":1,"tr":[5,8],"m":0,"s":"Invoice","name":"Invoice","isStub":true}"#,
        // a lambda
        r#"{"t":"e","i":3,"k":2,"tr":[6,11,0,2,16,15,14,10,3],"m":0,"s":"Notifications","d":"com/acme/order/Notifications.java:11:22","signature":"()","parent":4,"parameters":[],"localVariables":[],"metrics":{"cyclomatic":1,"sloc":1},"anchor":[0,11,11]}"#,
        r#"{"t":"e","i":6,"k":1,"tr":[5,6,1,11,0,8,13,12,3],"m":0,"s":"Order","name":"Order","isStub":false,"parent":0,"comments":["A customer order."],"metrics":{"sloc":20},"anchor":[1,6,35]}"#,
        // a field with a constant value
        r#"{"t":"e","i":7,"k":0,"tr":[5,6,1,0,9,7,17],"m":0,"s":"Order.MAX_LINES","name":"MAX_LINES","parent":6,"comments":["…"],"value":{"k":"number","v":"100"},"anchor":[1,9,9]}"#,
        r#"{"t":"e","i":8,"k":1,"tr":[5,6,11,0,8,13,12],"m":0,"s":"OrderService","name":"OrderService","isStub":false,"parent":0,"anchor":[2,8,30]}"#,
        // a method
        r#"{"t":"e","i":9,"k":4,"tr":[5,6,11,0,9,2,16,15,14,10,3],"m":0,"s":"OrderService.bill(com.acme.order.Order)","name":"bill","signature":"bill(com.acme.order.Order)","declaredType":1,"parent":8,"parameters":[11],"localVariables":[10],"metrics":{"cyclomatic":1,"sloc":5},"anchor":[2,17,21]}"#,
        // a local variable
        r#"{"t":"e","i":10,"k":3,"tr":[5,6,0,9,7],"m":0,"s":"OrderService.bill(com.acme.order.Order)","d":"local:invoice:18","name":"invoice","declaredType":1,"parent":9,"anchor":[2,18,18]}"#,
        r#"{"t":"e","i":11,"k":6,"tr":[5,6,0,9,7],"m":0,"s":"OrderService.bill(com.acme.order.Order)","d":"param:order","name":"order","declaredType":6,"parent":9,"anchor":[2,17,17]}"#,
        // a sub-package
        r#"{"t":"e","i":12,"k":5,"tr":[5,11,0,4],"m":12,"s":"com.acme.order.adapter","name":"com.acme.order.adapter","isStub":false,"parent":0,"definedIn":[3]}"#,
        // a stub package
        r#"{"t":"e","i":14,"k":5,"tr":[5,11,4],"m":14,"s":"java.lang","name":"java.lang","isStub":true,"definedIn":[]}"#,
        r#"{"t":"e","i":17,"k":1,"tr":[5,0,8],"m":14,"s":"String","name":"String","isStub":true,"parent":14}"#,
    ];
    for want in expect {
        let i: usize = want[13..].split(',').next().unwrap().parse().unwrap();
        assert_eq!(entity_line(&out, i), want);
    }
    let edges: Vec<&str> = out.iter().filter(|l| l.starts_with(r#"{"t":"x""#)).map(String::as_str).collect();
    assert_eq!(
        edges,
        [
            // f, then o, then kind NAME, then anchor file, start, end.
            r#"{"t":"x","k":2,"f":0,"o":14,"p":1,"anchor":[1,3,3]}"#,
            r#"{"t":"x","k":2,"f":0,"o":14,"p":1,"anchor":[2,3,3]}"#,
            r#"{"t":"x","k":3,"f":9,"o":1,"p":0,"anchor":[2,18,18]}"#,
            r#"{"t":"x","k":4,"f":9,"o":1,"p":0,"anchor":[2,17,17]}"#,
            r#"{"t":"x","k":0,"f":9,"o":7,"p":0,"isRead":true,"isWrite":false,"anchor":[2,19,19]}"#,
            r#"{"t":"x","k":1,"f":9,"o":15,"p":0,"anchor":[2,16,16]}"#,
            r#"{"t":"x","k":1,"f":9,"o":17,"p":0,"arguments":[{"name":"value","value":{"k":"type","type":17}}],"anchor":[2,15,15]}"#,
            r#"{"t":"x","k":4,"f":11,"o":6,"p":0,"anchor":[2,17,17]}"#,
        ]
    );
    assert_eq!(out.last().unwrap(), r#"{"t":"eof","counts":{"files":4,"entities":18,"edges":8}}"#);
    assert_eq!(out.len(), 1 + 4 + 18 + 8 + 1);
}

#[test]
fn anonymous_class_members_extend_the_disambiguator() {
    let mut b = ModelBuilder::new("java", "src");
    let pkg = b.java_package("com.acme.order").id();
    let batch = b.java_class(pkg, "Batch").anchor("com/acme/order/Batch.java", 10, 70).id();
    let running = b.java_method(batch, "running", &[]).anchor("com/acme/order/Batch.java", 47, 61).id();
    let anon = b.java_anonymous_class(running, 48, 32, "com.acme.order.Priceable").at(48, 60).id();
    let scaled = b.java_method(anon, "scaled", &["com.acme.order.Money"]).at(57, 59).id();
    b.java_param(scaled, "base").at(57, 57);
    let out = b.build().unwrap();
    assert!(
        out.contains(
            r#""s":"Batch","d":"com/acme/order/Batch.java:48:32","signature":"com.acme.order.Priceable()","parent":5,"#
        ),
        "{out}"
    );
    assert!(
        out.contains(
            r#""s":"Batch","d":"com/acme/order/Batch.java:48:32.scaled(com.acme.order.Money)#param:base","name":"base""#
        ),
        "{out}"
    );
    // implicit constructors sit on the type's span with cyclomatic 1 only
    let mut b = ModelBuilder::new("java", "src");
    let pkg = b.java_package("p").id();
    let t = b.java_class(pkg, "T").anchor("p/T.java", 3, 9).id();
    b.java_implicit_constructor(t);
    let out = b.build().unwrap();
    assert!(out.contains(r#"{"t":"e","i":2,"k":1,"tr":[5,8,0,1,13,12,11,7,2],"m":0,"s":"T.<init>()","signature":"<init>()","parent":1,"parameters":[],"localVariables":[],"metrics":{"cyclomatic":1},"anchor":[0,3,9]}"#), "{out}");
}

#[test]
fn generic_api_writes_every_key_in_format_order() {
    let mut b = ModelBuilder::new("csharp", "src");
    b.extractor(r#"{"name":"x","version":"1"}"#).repository(r#"{"remote":"r","commit":"c","root":"."}"#);
    let m = Key::module("N");
    let t = Key::new("N", "T");
    let f = Key::new("N", "T.F(System.Int32)");
    let p = Key::with_d("N", "T.F(System.Int32)", "param:x");
    b.entity(&m, "namespace")
        .traits(&["TNamed", "TModule"])
        .name("N")
        .is_stub(false)
        .defined_in(["b.cs", "a.cs", "b.cs"]);
    // Every key at once, set in reverse order; written in the key order of
    // `docs/formats/model.md` §8.
    b.entity(&f, "method")
        .extension("zeta", "[1, 2]")
        .extension("defaults", "1")
        .anchor("a.cs", 1, 2)
        .space(["value"])
        .value(Literal::Enum { ty: t.clone(), name: "A".into() })
        .metrics([("sloc", 2.5), ("cyclomatic", 1e21)])
        .comments(["c1", "c\"2"])
        .defined_in(["a.cs"])
        .local_variables(Vec::<Key>::new())
        .parameters([&p])
        .attached_to(&t)
        .parent(&t)
        .is_stub(false)
        .declared_type(&t)
        .signature("F(int)")
        .name("F")
        .traits(&["TWithValue", "TNamed"]);
    b.entity(&t, "class").traits(&["TNamed", "TType"]).name("T").is_stub(false);
    b.entity(&p, "parameter").traits(&["TNamed"]).name("x");
    b.edge("invocation", &f, &t, "dynamic-candidate", ("b.cs", 4, 5))
        .source_file("a.cs")
        .arguments(vec![NamedArgument { name: "value".into(), value: Literal::<Key>::Null }])
        .access(true, true)
        .candidates([&t, &p]);
    let out = b.build().unwrap();
    let want = [
        r#"{"t":"header","schemaVersion":"1.0.0","lang":"csharp","extractor":{"name":"x","version":"1"},"root":"src","repository":{"remote":"r","commit":"c","root":"."},"dict":{"kinds":["class","method","namespace","parameter"],"traits":["TModule","TNamed","TType","TWithValue"],"edges":["invocation"],"provenance":["dynamic-candidate"]}}"#,
        r#"{"t":"f","i":0,"path":"a.cs"}"#,
        r#"{"t":"f","i":1,"path":"b.cs"}"#,
        r#"{"t":"e","i":0,"k":2,"tr":[1,0],"m":0,"s":"N","name":"N","isStub":false,"definedIn":[0,1]}"#,
        r#"{"t":"e","i":1,"k":0,"tr":[1,2],"m":0,"s":"T","name":"T","isStub":false}"#,
        r#"{"t":"e","i":2,"k":1,"tr":[3,1],"m":0,"s":"T.F(System.Int32)","name":"F","signature":"F(int)","declaredType":1,"isStub":false,"parent":1,"attachedTo":1,"parameters":[3],"localVariables":[],"definedIn":[0],"comments":["c1","c\"2"],"metrics":{"cyclomatic":1e+21,"sloc":2.5},"value":{"k":"enum","type":1,"name":"A"},"space":["value"],"anchor":[0,1,2],"defaults":1,"zeta":[1, 2]}"#,
        r#"{"t":"e","i":3,"k":3,"tr":[1],"m":0,"s":"T.F(System.Int32)","d":"param:x","name":"x"}"#,
        r#"{"t":"x","k":0,"f":2,"o":1,"p":0,"candidates":[1,3],"isRead":true,"isWrite":true,"arguments":[{"name":"value","value":{"k":"null"}}],"sourceFile":0,"anchor":[1,4,5]}"#,
        r#"{"t":"eof","counts":{"files":2,"entities":4,"edges":1}}"#,
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
    assert!(out.ends_with('\n'));
}

#[test]
fn dictionaries_hold_only_used_names() {
    let mut b = ModelBuilder::new("java", "src");
    let m = Key::module("m");
    b.entity(&m, "package").traits(&["TNamed", "TWithChildren", "TModule"]);
    // Traits replaced before build: TComment and TSourceAnchor are not used.
    b.entity(Key::new("m", "A"), "class").traits(&["TComment", "TSourceAnchor"]).traits(&["TType"]);
    // An edge kind and provenance used once; a file used only by an edge.
    b.edge("throws", Key::new("m", "A"), &m, "generated", ("x.java", 1, 1));
    let out = b.build().unwrap();
    let header = out.lines().next().unwrap();
    assert!(
        header.ends_with(r#""dict":{"kinds":["class","package"],"traits":["TModule","TNamed","TType","TWithChildren"],"edges":["throws"],"provenance":["generated"]}}"#),
        "{header}"
    );
    assert!(out.contains(r#"{"t":"e","i":1,"k":0,"tr":[2],"m":0,"s":"A"}"#), "{out}");
    assert!(out.contains(r#"{"t":"f","i":0,"path":"x.java"}"#));
    // An empty model: empty dictionaries and zero counts.
    let out = ModelBuilder::new("java", "src").build().unwrap();
    assert!(out.contains(r#""dict":{"kinds":[],"traits":[],"edges":[],"provenance":[]}}"#), "{out}");
    assert!(out.ends_with("{\"t\":\"eof\",\"counts\":{\"files\":0,\"entities\":0,\"edges\":0}}\n"));
}

#[test]
fn canonical_order_is_utf16() {
    let mut b = ModelBuilder::new("java", "src");
    // The `unicode` fixture's pin: U+20000 sorts before U+FF21 in UTF-16.
    for s in ["ＡFullwidth", "𠀀Supplementary", "plain"] {
        b.entity(Key::new("m", s), "class").traits(&["TNamed"]).name(s).anchor(&format!("{s}.java"), 1, 1);
    }
    // `m/z` sorts before `m.x/a` (module compared first), unlike rendered ids.
    b.entity(Key::new("m", "z"), "class");
    b.entity(Key::new("m.x", "a"), "class");
    b.entity(Key::module("m.x"), "package");
    b.entity(Key::module("m"), "package");
    // Absent disambiguator first, then present ones in UTF-16 order.
    b.entity(Key::with_d("m", "z", "b"), "class");
    b.entity(Key::with_d("m", "z", "a"), "class");
    let out = b.build().unwrap();
    let s: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with(r#"{"t":"e""#))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            format!("{}#{}", v["s"].as_str().unwrap(), v["d"].as_str().unwrap_or("-"))
        })
        .collect();
    assert_eq!(s, ["m#-", "plain#-", "z#-", "z#a", "z#b", "𠀀Supplementary#-", "ＡFullwidth#-", "m.x#-", "a#-"]);
    let files: Vec<&str> = out.lines().filter(|l| l.starts_with(r#"{"t":"f""#)).collect();
    assert_eq!(
        files,
        [
            r#"{"t":"f","i":0,"path":"plain.java"}"#,
            r#"{"t":"f","i":1,"path":"𠀀Supplementary.java"}"#,
            r#"{"t":"f","i":2,"path":"ＡFullwidth.java"}"#,
        ]
    );
    // Module of m.x/a is m.x (surrogate 7), not m.
    assert!(out.contains(r#"{"t":"e","i":8,"k":0,"tr":[],"m":7,"s":"a"}"#), "{out}");
}

#[test]
fn errors_name_the_problem() {
    let base = || {
        let mut b = ModelBuilder::new("java", "src");
        b.java_package("p");
        b
    };
    let mut b = base();
    b.java_class(Key::module("p"), "A").anchor("p/A.java", 1, 2).declared_type(Key::new("q", "Gone"));
    match b.build() {
        Err(BuildError::MissingRef(id)) => assert_eq!(id, "java:q/Gone"),
        other => panic!("{other:?}"),
    }
    let mut b = base();
    b.edge("reference", Key::module("p"), Key::with_d("p", "A", "param:x"), "declared", ("f", 1, 1));
    assert!(matches!(b.build(), Err(BuildError::MissingRef(id)) if id == "java:p/A#param:x"));
    let mut b = base();
    b.java_parentless_stub_type("q", "Orphan");
    assert!(matches!(b.build(), Err(BuildError::MissingModule { module, .. }) if module == "q"));
    let mut b = base();
    b.java_package("p");
    assert!(matches!(b.build(), Err(BuildError::DuplicateKey(id)) if id == "java:p"));
    let mut b = base();
    b.entity(Key::new("p", "a#b"), "class");
    assert!(matches!(b.build(), Err(BuildError::InvalidKey(..))));
    let mut b = base();
    b.extractor("{not json");
    assert!(matches!(b.build(), Err(BuildError::RawJson(..))));
    // A self-edge is a conformance finding for readers, not a builder error.
    let mut b = base();
    b.edge("import", Key::module("p"), Key::module("p"), "declared", ("f", 1, 1));
    assert!(b.build().is_ok());
}

/// Rebuilds the upstream Java fixture through the generic API, describing
/// everything in reverse order, and expects it byte for byte.
#[test]
fn upstream_java_fixture_round_trips() {
    let text = fixture("upstream-java/model.jsonl");
    let rebuilt = rebuild(&text);
    for (n, (got, want)) in rebuilt.lines().zip(text.lines()).enumerate() {
        assert_eq!(got, want, "line {}", n + 1);
    }
    assert_eq!(rebuilt, text);
}

/// Reads a fixture from the workspace's `fixtures/`.
fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Re-describes a model read with serde_json through the builder's generic API.
fn rebuild(text: &str) -> String {
    use serde_json::Value;
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let header = &lines[0];
    let dict = &header["dict"];
    let names = |k: &str| -> Vec<String> {
        dict[k].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
    };
    let (kinds, traits, edge_kinds, provs) = (names("kinds"), names("traits"), names("edges"), names("provenance"));
    let files: Vec<String> =
        lines.iter().filter(|v| v["t"] == "f").map(|v| v["path"].as_str().unwrap().to_owned()).collect();
    let ents: Vec<&Value> = lines.iter().filter(|v| v["t"] == "e").collect();
    let keys: Vec<Key> = ents
        .iter()
        .map(|e| {
            let (m, s) = (e["m"].as_u64().unwrap() as usize, e["s"].as_str().unwrap());
            let d = e["d"].as_str().map(str::to_owned);
            if m == e["i"].as_u64().unwrap() as usize {
                Key { module: s.to_owned(), symbol: String::new(), disambiguator: d }
            } else {
                Key { module: ents[m]["s"].as_str().unwrap().to_owned(), symbol: s.to_owned(), disambiguator: d }
            }
        })
        .collect();
    let key = |v: &Value| keys[v.as_u64().unwrap() as usize].clone();
    let keylist = |v: &Value| v.as_array().unwrap().iter().map(key).collect::<Vec<_>>();
    let file = |v: &Value| files[v.as_u64().unwrap() as usize].clone();
    let anchor = |v: &Value| (file(&v[0]), v[1].as_u64().unwrap() as u32, v[2].as_u64().unwrap() as u32);

    let mut b = ModelBuilder::new(header["lang"].as_str().unwrap(), header["root"].as_str().unwrap());
    // serde_json's Value sorts object keys; take the extractor's raw text.
    let raw: std::collections::HashMap<String, &serde_json::value::RawValue> =
        serde_json::from_str(text.lines().next().unwrap()).unwrap();
    b.extractor(raw["extractor"].get());
    assert!(header.get("repository").is_none());
    for f in files.iter().rev() {
        b.file(f);
    }
    for (e, k) in ents.iter().zip(&keys).rev() {
        let mut eb = b.entity(k, &kinds[e["k"].as_u64().unwrap() as usize]);
        let tr: Vec<&str> =
            e["tr"].as_array().unwrap().iter().map(|t| traits[t.as_u64().unwrap() as usize].as_str()).collect();
        eb.traits(&tr);
        if let Some(v) = e.get("name") {
            eb.name(v.as_str().unwrap());
        }
        if let Some(v) = e.get("signature") {
            eb.signature(v.as_str().unwrap());
        }
        if let Some(v) = e.get("declaredType") {
            eb.declared_type(key(v));
        }
        if let Some(v) = e.get("isStub") {
            eb.is_stub(v.as_bool().unwrap());
        }
        if let Some(v) = e.get("parent") {
            eb.parent(key(v));
        }
        if let Some(v) = e.get("parameters") {
            eb.parameters(keylist(v));
        }
        if let Some(v) = e.get("localVariables") {
            eb.local_variables(keylist(v));
        }
        if let Some(v) = e.get("definedIn") {
            eb.defined_in(v.as_array().unwrap().iter().map(file));
        }
        if let Some(v) = e.get("comments") {
            eb.comments(v.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()));
        }
        if let Some(v) = e.get("metrics") {
            eb.metrics(v.as_object().unwrap().iter().map(|(n, x)| (n.clone(), x.as_f64().unwrap())));
        }
        if let Some(v) = e.get("value") {
            eb.value(literal(v, &key));
        }
        if let Some(v) = e.get("anchor") {
            let (p, s, t) = anchor(v);
            eb.anchor(&p, s, t);
        }
    }
    for x in lines.iter().filter(|v| v["t"] == "x").collect::<Vec<_>>().into_iter().rev() {
        let a = anchor(&x["anchor"]);
        let mut xb = b.edge(
            &edge_kinds[x["k"].as_u64().unwrap() as usize],
            key(&x["f"]),
            key(&x["o"]),
            &provs[x["p"].as_u64().unwrap() as usize],
            (&a.0, a.1, a.2),
        );
        if let Some(r) = x.get("isRead") {
            xb.access(r.as_bool().unwrap(), x["isWrite"].as_bool().unwrap());
        }
        if let Some(v) = x.get("arguments") {
            xb.arguments(arguments(v, &key));
        }
    }
    b.build().unwrap()
}

fn literal(v: &serde_json::Value, key: &dyn Fn(&serde_json::Value) -> Key) -> Literal<Key> {
    let s = |k: &str| v[k].as_str().unwrap().to_owned();
    match v["k"].as_str().unwrap() {
        "string" => Literal::String(s("v")),
        "number" => Literal::Number(s("v")),
        "boolean" => Literal::Boolean(v["v"].as_bool().unwrap()),
        "null" => Literal::Null,
        "enum" => Literal::Enum { ty: key(&v["type"]), name: s("name") },
        "type" => Literal::Type { ty: key(&v["type"]) },
        "array" => Literal::Array(v["items"].as_array().unwrap().iter().map(|i| literal(i, key)).collect()),
        "annotation" => Literal::Annotation { ty: key(&v["type"]), arguments: arguments(&v["arguments"], key) },
        "unevaluated" => Literal::Unevaluated(s("source")),
        other => panic!("literal kind {other}"),
    }
}

fn arguments(v: &serde_json::Value, key: &dyn Fn(&serde_json::Value) -> Key) -> Vec<NamedArgument<Key>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| NamedArgument { name: a["name"].as_str().unwrap().to_owned(), value: literal(&a["value"], key) })
        .collect()
}

/// What the builder writes, the reader reads back without errors or findings.
#[test]
fn builder_output_reads_back_clean() {
    let text = acme().build().unwrap();
    let model = model::read_model(text.as_bytes(), "acme").unwrap_or_else(|e| panic!("{e}"));
    assert!(model.findings().is_empty(), "{:?}", model.findings().kept);
    assert_eq!(model.entity_count(), 18);
    assert_eq!(model.edge_count(), 8);
    assert_eq!(model.id(9), "java:com.acme.order/OrderService.bill(com.acme.order.Order)");
    let text = fixture("upstream-java/model.jsonl");
    let model = model::read_model(rebuild(&text).as_bytes(), "fixture").unwrap();
    assert!(model.findings().is_empty(), "{:?}", model.findings().kept);
}
