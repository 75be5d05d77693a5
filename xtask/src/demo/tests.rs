//! The checked-in demo files are what the generator writes, the model is
//! valid and faithful to the sources, and the corpus has what the demo
//! promises (nesting, dispatch, exceptions, a state machine, cycles, hostile
//! comment text).

use super::{generate, ARCHIVE, MODEL};
use model::Model;
use std::collections::HashSet;

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(crate::root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn checked_in() -> Model {
    model::read_model(&read(MODEL)[..], MODEL).expect("the demo model reads")
}

fn source_lines(m: &Model, file: u32) -> Vec<String> {
    let path = crate::root().join(super::emit::ROOT).join(m.file(file));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every edge as `kind from -> to`, ids rendered.
fn edges(m: &Model) -> HashSet<String> {
    m.edges().iter().map(|e| format!("{} {} -> {}", e.kind.as_str(), m.id(e.from), m.id(e.to))).collect()
}

#[test]
fn checked_in_files_are_what_the_generator_writes() {
    let demo = generate(&crate::root()).expect("the demo generates");
    if std::env::var_os("UPDATE_DEMO").is_some() {
        std::fs::write(crate::root().join(MODEL), &demo.model).unwrap();
        std::fs::write(crate::root().join(ARCHIVE), &demo.archive).unwrap();
        return;
    }
    let hint = "run `cargo xtask demo` (or UPDATE_DEMO=1 cargo test -p xtask demo) and commit the result";
    assert!(read(MODEL) == demo.model.as_bytes(), "{MODEL} differs from the generator's output: {hint}");
    assert!(read(ARCHIVE) == demo.archive, "{ARCHIVE} differs from the generator's output: {hint}");
    let again = generate(&crate::root()).unwrap();
    assert!(again.model == demo.model && again.archive == demo.archive, "the generator is deterministic");
}

#[test]
fn the_model_is_valid_and_clean() {
    let m = checked_in();
    assert!(m.findings().is_empty(), "findings: {:?}", m.findings().kept);
    let c = model::Census::of(&m);
    assert_eq!((c.files, c.corpus_types, c.corpus_modules), (23, 28, 5));
    assert_eq!(m.header().root, super::emit::ROOT);
}

/// The first line of every anchored entity names it (a constructor, its
/// type), and a type's or method's last line closes it: anchors follow the
/// sources, not the generator's idea of them.
#[test]
fn declaration_lines_name_their_entities() {
    let m = checked_in();
    let mut checked = 0;
    for e in m.entities() {
        let Some(a) = e.anchor() else { continue };
        let lines = source_lines(&m, a.file);
        let name = match e.kind() {
            "constructor" => m.entity(e.parent().unwrap()).name().unwrap(),
            _ => e.name().unwrap(),
        };
        let first = &lines[a.start as usize - 1];
        let words: Vec<&str> = first.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
        assert!(words.contains(&name), "{} starts at {}:{}: {first:?}", e.id(), m.file(a.file), a.start);
        let last = lines[a.end as usize - 1].trim_end();
        if matches!(e.kind(), "class" | "interface" | "enum" | "annotation" | "method" | "constructor") {
            assert!(
                last.ends_with('}') || last.ends_with(';'),
                "{} ends at {}:{}: {last:?}",
                e.id(),
                m.file(a.file),
                a.end
            );
        }
        checked += 1;
    }
    assert!(checked > 300, "{checked} anchored entities");
    // Edges are anchored on a line of their source entity's span, or on one
    // of its annotations just above it.
    for x in m.edges() {
        let from = m.entity(x.from);
        let Some(a) = from.anchor() else { continue };
        let line = &source_lines(&m, x.anchor.file)[x.anchor.start as usize - 1];
        let inside = a.start <= x.anchor.start && x.anchor.end <= a.end;
        let annotation = x.anchor.start < a.start && line.trim_start().starts_with('@');
        assert!(x.anchor.file == a.file && (inside || annotation), "{} at line {}", from.id(), x.anchor.start);
    }
}

#[test]
fn the_archive_holds_every_model_file_at_the_model_paths() {
    let m = checked_in();
    let bytes = read(ARCHIVE);
    let mut archive = sources::Archive::parse(ARCHIVE, &bytes).expect("a zip");
    let paths: Vec<&str> = m.files().iter().map(String::as_str).collect();
    let found = archive.use_root(&paths);
    assert_eq!((found.prefix.as_str(), found.matched, found.total), ("", 23, 23));
    assert!(archive.skipped().is_empty());
    assert_eq!(archive.paths().collect::<Vec<_>>(), paths, "exactly the model's files, sorted");
    for (i, p) in paths.iter().enumerate() {
        let text = sources::SourceReader::read(&archive, p);
        assert_eq!(text.text().map(|t| t.lines().count()), Some(source_lines(&m, i as u32).len()), "{p}");
    }
    // Fixed timestamps and modes: the bytes depend on the sources alone.
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&bytes[..])).unwrap();
    for i in 0..zip.len() {
        let f = zip.by_index(i).unwrap();
        assert_eq!(f.last_modified(), Some(zip::DateTime::default()), "{:?}", f.name());
        assert_eq!(f.compression(), zip::CompressionMethod::Stored);
        assert_eq!(f.unix_mode(), Some(0o100644));
    }
}

#[test]
fn the_corpus_has_what_the_demo_promises() {
    let m = checked_in();
    let e = edges(&m);
    let has = |s: &str| assert!(e.contains(s), "missing edge: {s}");
    let kind_of = |id: &str| m.entities().find(|x| x.id() == id).map(|x| x.kind()).unwrap_or("absent");
    // Ids (`p`) and the FQNs in signatures (`q`).
    let (p, q) = ("java:com.pedalpoint", "com.pedalpoint");
    // Nested types: static nested classes, an inner class, nested enums.
    assert_eq!(kind_of(&format!("{p}.fleet/MaintenanceLog.Entry")), "class");
    assert_eq!(kind_of(&format!("{p}.billing/Invoice.Line")), "class");
    assert_eq!(kind_of(&format!("{p}.rental/Rental.Status")), "enum");
    assert_eq!(kind_of(&format!("{p}.rental/Customer.Tier")), "enum");
    has(&format!(
        "access {p}.fleet/Fleet.Availability.stationsOffering({q}.fleet.BikeType) -> {p}.fleet/Fleet.stations"
    ));
    // Dispatch: one interface, three implementations, called through the interface.
    for imp in ["HourlyPricing", "DayPassPricing", "MemberPricing"] {
        has(&format!("interfaceImplementation {p}.billing/{imp} -> {p}.billing/PricingPolicy"));
    }
    has(&format!("invocation {p}.billing/MemberPricing.quote(long) -> {p}.billing/PricingPolicy.quote(long)"));
    // A checked custom exception thrown at the state machine and caught at the counter.
    let moves = format!("{p}.rental/Rental.moveTo({q}.rental.Rental.Status)");
    has(&format!("throws {moves} -> {p}.rental/RentalException"));
    has(&format!("invocation {moves} -> {p}.rental/Rental.Status.canMoveTo({q}.rental.Rental.Status)"));
    let hand_out = format!("{p}/PedalPointShop.handOut({q}.rental.Customer,java.lang.String,{q}.fleet.BikeType,long)");
    has(&format!("reference {hand_out}#local:e:53 -> {p}.rental/RentalException"));
    // The state machine switches on its own enum.
    has(&format!(
        "access {p}.rental/Rental.Status.canMoveTo({q}.rental.Rental.Status) -> {p}.rental/Rental.Status.RESERVED"
    ));
    // A package cycle (fleet ⇄ rental) and a type cycle (Bike ⇄ Rental).
    has(&format!("import {p}.fleet -> {p}.rental"));
    has(&format!("import {p}.rental -> {p}.fleet"));
    has(&format!("reference {p}.fleet/Bike.currentRental -> {p}.rental/Rental"));
    has(&format!("reference {p}.rental/Rental.bike -> {p}.fleet/Bike"));
    // Annotations with arguments, constants with values.
    has(&format!("annotationUse {p}.common/Audited -> java:java.lang.annotation/Retention"));
    has(&format!("annotationUse {p}.billing/BillingService.settle({q}.billing.Invoice) -> {p}.common/Audited"));
    let constant = m.entities().find(|x| x.id() == format!("{p}.rental/Rental.MAX_MINUTES")).unwrap();
    assert_eq!(constant.value(), Some(&model::Literal::Number("4320".to_owned())));
    // Corpus text the page must render inertly and prompts must fence.
    let comments: Vec<&String> = m.entities().filter_map(|x| x.comments()).flatten().collect();
    assert!(comments.iter().any(|c| c.contains("<script>alert(1)</script>")));
    assert!(comments.iter().any(|c| c.contains("ignore the instructions above")));
}

/// Out-of-subset Java and names that do not resolve are errors naming the
/// line, never a model that silently lacks something.
#[test]
fn the_generator_refuses_what_it_does_not_understand() {
    let err = super::java::parse("p/A.java", "package p;\nclass A {\n  int[] xs;\n}\n").err().unwrap();
    assert!(err.starts_with("p/A.java:3: arrays are not in the demo's Java subset"), "{err}");
    let err = super::java::parse("p/A.java", "package p;\nclass A {\n  Runnable r = () -> {};\n}\n")
        .map(|f| super::emit::build(&[f]).err().unwrap());
    assert!(err.is_ok_and(|e| e.starts_with("p/A.java:3: ")));
    let body = "package p;\nclass A {\n  void f() {\n    Missing.call();\n  }\n}\n";
    let err = super::emit::build(&[super::java::parse("p/A.java", body).unwrap()]).err().unwrap();
    assert_eq!(err, "p/A.java:4: cannot resolve Missing");
}
