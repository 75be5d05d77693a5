//! The side-car `<model>.insights.jsonl` (docs/formats/sidecar.md; these tests
//! cover the upstream side-car conformance list): layout, order, validation,
//! JavaScript number text, byte-for-byte round trips, and a golden file.
//!
//! `UPDATE_GOLDEN=1 cargo test -p insights --test sidecar` rewrites
//! `tests/golden/sidecar-small.jsonl` after a deliberate change.

use std::cmp::Ordering;

use insights::blocks::*;
use insights::record::*;
use insights::sidecar::synth::{self, Rng};
use insights::sidecar::*;
use insights::vocab::*;
use proptest::prelude::*;

fn op_block(name: &str, confidence: f64) -> OperationBlock {
    OperationBlock {
        name: name.into(),
        description: format!("Returns the {name}."),
        safe: true,
        idempotent: Some(true),
        owner: OperationOwner::Unknown,
        handles_command: None,
        emits: vec![],
        preconditions: vec![],
        postconditions: vec![],
        invariants_enforced: vec![],
        uses_spi: vec![],
        domain_terms: vec![name.to_lowercase()],
        confidence,
    }
}

fn type_block(name: &str) -> TypeBlock {
    TypeBlock {
        name: name.into(),
        description: format!("The {name} of a customer."),
        concept: DomainConcept::Entity,
        event_kind: None,
        interface_role: None,
        aggregate_root: Some(false),
        contained_in: Some("Order".into()),
        sync_pattern: None,
        identity: Some("id".into()),
        fields: vec![FieldBlock { name: "id".into(), type_: "long".into(), kind: FieldKind::Primitive }],
        invariants: vec![Invariant {
            name: "PositiveQuantity".into(),
            predicate: "quantity > 0".into(),
            enforcement: Enforcement::Rejection,
        }],
        state_machine: Some(StateMachine {
            states: vec!["open".into(), "closed".into()],
            transitions: vec![Transition { from: "open".into(), to: "closed".into(), operation: "close".into() }],
        }),
        relates_to: vec![ConceptRef { name: "Order".into(), concept: DomainConcept::Aggregate }],
        exposes: vec!["close".into()],
        depends_on: vec![PortRef { name: "OrderRepository".into(), role: InterfaceRole::Spi }],
        domain_terms: vec!["line".into()],
        confidence: 0.85,
    }
}

fn module_block(name: &str) -> ModuleBlock {
    ModuleBlock {
        name: name.into(),
        description: format!("Everything about {name}."),
        apis: vec![Api { name: "OrderApi".into(), operations: vec!["submit".into()] }],
        spis: vec![SpiUse { name: "PaymentGateway".into(), capability: "charge a card".into() }],
        depends_on: vec!["catalog".into()],
        concepts: vec![ConceptRef { name: "Order".into(), concept: DomainConcept::Aggregate }],
        bounded_context_hint: Some(BoundedContextHint { name: "Ordering".into(), rationale: "own language".into() }),
        shared_kernel_hint: None,
        ubiquitous_language: vec![Term { term: "order".into(), definition: "what a customer buys".into() }],
        confidence: 0.5,
    }
}

fn fp(c: char) -> String {
    std::iter::repeat_n(c, 64).collect()
}

fn record(id: &str, level: Level, block: Block) -> InsightRecord {
    InsightRecord {
        id: id.into(),
        key: None,
        level,
        kind: match level {
            Level::Operation => "method",
            Level::Type => "class",
            Level::Module => "package",
        }
        .into(),
        name: Some(block.name().to_owned()),
        file: if level == Level::Module { None } else { Some("p/T.java".into()) },
        scc: None,
        origin: Origin::Llm,
        block,
        fingerprint: fp('a'),
        model: Some("openai/gpt-4.1-mini".into()),
        usage: Some(Usage { prompt_tokens: 1200, completion_tokens: 300, cost: Some(0.001) }),
        metadata: None,
    }
}

fn failure(id: &str, level: Level) -> FailureRecord {
    FailureRecord {
        id: id.into(),
        key: None,
        level,
        members: vec![id.into()],
        model: "openai/gpt-4.1-mini".into(),
        reason: FailureReason {
            kind: FailureKind::Provider,
            message: "Payment required".into(),
            status: Some(402),
            retryable: Some(false),
        },
        attempts: 1,
        calls: 0,
        usage: None,
    }
}

fn trailer(records: u64, failed: u64) -> Trailer {
    Trailer {
        counts: TrailerCounts { records, llm: records, template: 0, reused: 0, failed },
        usage: Usage { prompt_tokens: 10, completion_tokens: 5, cost: None },
        generated_at: "2025-06-01T12:00:00.000Z".into(),
    }
}

fn small() -> Sidecar {
    let mut getter = record("java:p/T.getTotal()", Level::Operation, Block::Operation(op_block("getTotal", 1.0)));
    getter.origin = Origin::Template;
    getter.model = None;
    getter.usage = None;
    let mut submit = record("java:p/T.submit(Order)", Level::Operation, Block::Operation(op_block("submit", 0.5)));
    submit.key = Some(NaturalKey {
        lang: "java".into(),
        module: "p".into(),
        symbol: "T.submit".into(),
        disambiguator: Some("(Order)".into()),
    });
    submit.usage = Some(Usage { prompt_tokens: 400, completion_tokens: 150, cost: Some(0.0047 / 3.0) });
    submit.fingerprint = "0f3c9a1e7b2d4c6e8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5".into();
    if let Block::Operation(b) = &mut submit.block {
        b.description = "Submits the \"order\" \\ net of tax.\n\tThen\u{2028}notifies 😀 </script>\u{1}".into();
        b.handles_command = Some("SubmitOrder".into());
        b.idempotent = None;
    }
    let mut line = record("java:p/Line", Level::Type, Block::Type(type_block("OrderLine")));
    line.scc = Some(vec!["java:p/Line".into(), "java:p/Order".into()]);
    let mut order = record("java:p/Order", Level::Type, Block::Type(type_block("Order")));
    order.scc = line.scc.clone();
    order.metadata = Some([("reviewed".to_owned(), "yes".to_owned())].into_iter().collect());
    let catalog = record("java:catalog", Level::Module, Block::Module(module_block("catalog")));
    let ordering = record("java:p", Level::Module, Block::Module(module_block("ordering")));
    Sidecar {
        header: synth::header(),
        records: vec![getter, submit, line, order, catalog, ordering],
        failures: vec![failure("java:p/T.refund()", Level::Operation)],
        trailer: Some(trailer(6, 1)),
        truncated: false,
    }
}

fn tags(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["t"].as_str().unwrap().to_owned())
        .collect()
}

// --- golden ---------------------------------------------------------------

#[test]
fn golden_small_sidecar() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/sidecar-small.jsonl");
    let text = encode(&small());
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let golden = std::fs::read_to_string(path).expect("golden file (UPDATE_GOLDEN=1 writes it)");
    assert_eq!(text, golden);
    let back = decode("sidecar-small.jsonl", &golden).unwrap();
    assert_eq!(back, small());
    assert_eq!(encode(&back), golden);
    assert_eq!(tags(&golden), ["header", "i", "i", "i", "i", "i", "i", "f", "eof"]);
}

// --- layout and round trips -------------------------------------------------

#[test]
fn encode_decode_identity_on_sorted_records() {
    let s = synth::synthetic(400, 7);
    let text = encode(&s);
    assert!(text.ends_with("}\n"));
    assert!(!text.contains("\n\n"));
    let back = decode("x.insights.jsonl", &text).unwrap();
    assert!(!back.truncated);
    assert_eq!(back, s);
    assert_eq!(encode(&back), text);
}

#[test]
fn body_is_independent_of_input_order() {
    let s = synth::synthetic(200, 3);
    let mut shuffled = s.clone();
    let mut rng = Rng(99);
    for i in (1..shuffled.records.len()).rev() {
        shuffled.records.swap(i, rng.below(i + 1));
    }
    shuffled.failures.reverse();
    shuffled.failures.extend([failure("java:z", Level::Module), failure("java:a", Level::Operation)]);
    let mut sorted = s.clone();
    sorted.failures.extend([failure("java:z", Level::Module), failure("java:a", Level::Operation)]);
    assert_ne!(shuffled.records, s.records);
    assert_eq!(encode(&shuffled), encode(&sorted));
}

#[test]
fn order_is_level_rank_then_utf16_id() {
    let b = |l: Level| match l {
        Level::Operation => Block::Operation(op_block("x", 1.0)),
        Level::Type => Block::Type(type_block("x")),
        Level::Module => Block::Module(module_block("x")),
    };
    let mut s = small();
    s.records = vec![
        record("a", Level::Module, b(Level::Module)),
        record("a/～", Level::Operation, b(Level::Operation)),
        record("b", Level::Type, b(Level::Type)),
        record("a/😀", Level::Operation, b(Level::Operation)),
        record("A", Level::Type, b(Level::Type)),
    ];
    let back = decode("x", &encode(&s)).unwrap();
    let ids: Vec<(&str, Level)> = back.records.iter().map(|r| (r.id.as_str(), r.level)).collect();
    assert_eq!(
        ids,
        [
            ("a/😀", Level::Operation),
            ("a/～", Level::Operation),
            ("A", Level::Type),
            ("b", Level::Type),
            ("a", Level::Module)
        ]
    );
    assert_eq!(record_order(&s.records[3], &s.records[1]), Ordering::Less);
}

#[test]
fn header_round_trips() {
    let mut h = synth::header();
    let line = encode_header(&h);
    assert!(line.starts_with(r#"{"t":"header","kind":"codegraph.insights/1","generatedBy":"@codegraph/insights","promptVersion":"1","metamodel":"specy.domain/3","models":{"leaf":"#));
    assert_eq!(decode_header(&line).unwrap(), h);
    h.provider = None;
    let line = encode_header(&h);
    assert!(!line.contains("provider"));
    assert!(line.contains(r#""depth":1,"source":{"paths":["broadleaf.specy.json"],"langs":["java"],"view":{"name":"domain","filters":["-test"]}}}"#));
    assert_eq!(decode_header(&line).unwrap(), h);
}

#[test]
fn missing_or_mismatched_trailer_means_truncated() {
    let mut s = small();
    s.trailer = None;
    let cut = decode("x", &encode(&s)).unwrap();
    assert!(cut.truncated);
    assert_eq!(cut.trailer, None);

    s.trailer = Some(trailer(5, 1));
    assert!(decode("x", &encode(&s)).unwrap().truncated);

    // Failures do not count: 6 records, 1 failure, eof says 6.
    s.trailer = Some(trailer(6, 1));
    assert!(!decode("x", &encode(&s)).unwrap().truncated);
}

#[test]
fn a_later_trailer_replaces_an_earlier_one() {
    let s = small();
    let text = encode(&s);
    let late = encode_trailer(&trailer(99, 0));
    let back = decode("x", &format!("{text}{late}\n")).unwrap();
    assert_eq!(back.trailer.unwrap().counts.records, 99);
    assert!(back.truncated);
}

#[test]
fn failures_sit_between_records_and_eof_sorted() {
    let mut s = small();
    s.failures = vec![
        failure("java:p/Z", Level::Type),
        failure("java:m", Level::Module),
        failure("java:p/A.a()", Level::Operation),
    ];
    let text = encode(&s);
    assert_eq!(tags(&text), ["header", "i", "i", "i", "i", "i", "i", "f", "f", "f", "eof"]);
    let back = decode("x", &text).unwrap();
    let ids: Vec<&str> = back.failures.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["java:p/A.a()", "java:p/Z", "java:m"]);
    assert!(!back.truncated, "failures do not count as records");
    let mut sorted = s.clone();
    sorted.failures.sort_by(failure_order);
    assert_eq!(back, sorted);

    let mut tagged = small();
    tagged.records.truncate(0);
    tagged.failures = s.failures.clone();
    tagged.trailer = Some(trailer(0, 3));
    assert_eq!(tags(&encode(&tagged)), ["header", "f", "f", "f", "eof"]);

    s.failures.clear();
    assert_eq!(decode("x", &encode(&s)).unwrap().failures, []);
}

#[test]
fn failure_record_wire_shape() {
    let line = encode_failure(&failure("java:p", Level::Module));
    assert_eq!(
        line,
        r#"{"t":"f","id":"java:p","level":"module","members":["java:p"],"model":"openai/gpt-4.1-mini","reason":{"kind":"provider","message":"Payment required","status":402,"retryable":false},"attempts":1,"calls":0}"#
    );
    assert_eq!(decode_failure(&line).unwrap(), failure("java:p", Level::Module));
}

#[test]
fn trailer_wire_shape() {
    let mut t = trailer(3, 1);
    t.usage.cost = Some(4.7);
    let line = encode_trailer(&t);
    assert_eq!(
        line,
        r#"{"t":"eof","counts":{"records":3,"llm":3,"template":0,"reused":0,"failed":1},"usage":{"promptTokens":10,"completionTokens":5,"cost":4.7},"generatedAt":"2025-06-01T12:00:00.000Z"}"#
    );
    assert_eq!(decode_trailer(&line).unwrap(), t);
}

// --- errors -------------------------------------------------------------------

#[test]
fn foreign_header_kind_is_a_header_error() {
    let text = encode(&small()).replacen("codegraph.insights/1", "codegraph.insights/2", 1);
    let err = decode("m.insights.jsonl", &text).unwrap_err();
    assert!(matches!(err, SidecarError::Header { .. }), "{err:?}");
    assert!(err.to_string().contains("m.insights.jsonl"), "{err}");
    assert!(err.to_string().contains("codegraph.insights/2"), "{err}");

    let err = decode("m", "not json\n").unwrap_err();
    assert!(matches!(err, SidecarError::Header { .. }), "{err:?}");
    let first_record = encode_record(&small().records[0]);
    assert!(matches!(decode("m", &first_record).unwrap_err(), SidecarError::Header { .. }));
}

#[test]
fn malformed_record_is_a_record_error_naming_the_line() {
    let text = encode(&small());
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[2] = lines[2].replace(r#""origin":"llm""#, r#""origin":"human""#);
    let err = decode("m.insights.jsonl", &(lines.join("\n") + "\n")).unwrap_err();
    match &err {
        SidecarError::Record { name, line, message } => {
            assert_eq!((name.as_str(), *line), ("m.insights.jsonl", 3));
            assert!(message.contains("origin"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let shown = err.to_string();
    assert!(shown.contains("m.insights.jsonl") && shown.contains("line 3"), "{shown}");

    // Not JSON at all: a JSON error naming the line (blank lines counted).
    let err = decode("m", &format!("{}\n\n{{oops\n", lines[0])).unwrap_err();
    assert!(matches!(err, SidecarError::Json { line: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("line 3"));
}

#[test]
fn malformed_failure_is_a_failure_error() {
    let mut s = small();
    s.trailer = None;
    let text = encode(&s).replace(r#""attempts":1"#, r#""attempts":0"#);
    let err = decode("m", &text).unwrap_err();
    assert!(matches!(err, SidecarError::Failure { line: 8, .. }), "{err:?}");
    assert!(err.to_string().contains("attempts"), "{err}");
    let no_members = encode_failure(&failure("x", Level::Type)).replace(r#"["x"]"#, "[]");
    assert!(decode_failure(&no_members).unwrap_err().contains("members"));
}

#[test]
fn malformed_trailer_is_reported() {
    let text = encode(&small()).replace(r#""failed":1"#, r#""failed":-1"#);
    let err = decode("m", &text).unwrap_err();
    assert!(matches!(err, SidecarError::Record { line: 9, .. }), "{err:?}");
    assert!(err.to_string().contains("eof"), "{err}");
}

#[test]
fn empty_file_is_an_empty_error() {
    for text in ["", "\n", "  \n\t\n\u{feff}\n\u{a0}"] {
        let err = decode("e.insights.jsonl", text).unwrap_err();
        assert_eq!(err, SidecarError::Empty { name: "e.insights.jsonl".into() });
        assert!(err.to_string().contains("e.insights.jsonl"));
    }
}

#[test]
fn operation_block_under_level_type_is_rejected() {
    let r = record("java:p/T.a()", Level::Operation, Block::Operation(op_block("a", 1.0)));
    let line = encode_record(&r).replace(r#""level":"operation""#, r#""level":"type""#);
    let err = decode_record(&line).unwrap_err();
    assert!(err.contains("type block"), "{err}");
    assert!(err.contains("block.concept"), "{err}");
    let text = format!("{}\n{line}\n", encode_header(&synth::header()));
    assert!(matches!(decode("m", &text).unwrap_err(), SidecarError::Record { line: 2, .. }));
    // …and the same block under its own level is fine.
    assert_eq!(decode_record(&encode_record(&r)).unwrap(), r);
}

/// `small()` as lines (header, six records, one failure, eof), with `edit`
/// applied, joined back into a side-car text.
fn small_lines_with(edit: impl FnOnce(&mut Vec<String>)) -> String {
    let mut lines: Vec<String> = encode(&small()).lines().map(str::to_owned).collect();
    edit(&mut lines);
    lines.join("\n") + "\n"
}

#[test]
fn a_repeated_record_id_is_refused_naming_both_lines() {
    // The same line twice (lines 2 and 4, a blank line 3 counted).
    let getter = encode_record(&small().records[0]);
    let text = small_lines_with(|l| l.insert(2, format!("\n{getter}")));
    let err = decode("x.insights.jsonl", &text).unwrap_err();
    assert_eq!(
        err,
        SidecarError::DuplicateId {
            name: "x.insights.jsonl".into(),
            line: 4,
            first_line: 2,
            id: "java:p/T.getTotal()".into(),
            failure: false
        }
    );
    assert_eq!(err.to_string(), r#"x.insights.jsonl:4: record "java:p/T.getTotal()" repeats the id of line 2"#);

    // A store keys records by id alone: the same id at another level repeats it too.
    let mut other = small().records[4].clone(); // a module
    other.id = "java:p/Line".into(); // the id of the type on line 4
    let text = small_lines_with(|l| l.insert(6, encode_record(&other)));
    let err = decode("x.insights.jsonl", &text).unwrap_err();
    assert_eq!(err.to_string(), r#"x.insights.jsonl:7: record "java:p/Line" repeats the id of line 4"#);
}

#[test]
fn a_repeated_failure_id_is_refused_but_may_equal_a_record_id() {
    let refund = encode_failure(&failure("java:p/T.refund()", Level::Operation));
    let text = small_lines_with(|l| l.insert(8, refund));
    let err = decode("x.insights.jsonl", &text).unwrap_err();
    assert!(matches!(&err, SidecarError::DuplicateId { line: 9, first_line: 8, failure: true, .. }), "{err:?}");
    assert_eq!(err.to_string(), r#"x.insights.jsonl:9: failure record "java:p/T.refund()" repeats the id of line 8"#);

    // Records and failures are kept apart: a failure for an explained unit is not a repeat.
    let same_as_record = encode_failure(&failure("java:p/T.getTotal()", Level::Operation));
    let text = small_lines_with(|l| l.insert(8, same_as_record));
    assert_eq!(decode("x", &text).unwrap().failures.len(), 2);
}

#[test]
fn a_nul_in_a_column_string_is_refused_naming_the_line_and_the_key() {
    let nul = |edit: &dyn Fn(&mut InsightRecord)| {
        let mut r = small().records[1].clone(); // has every optional column, key with disambiguator
        edit(&mut r);
        let text = small_lines_with(|l| l[2] = encode_record(&r));
        decode("x.insights.jsonl", &text).unwrap_err()
    };
    let err = nul(&|r| r.id = "java:p/T.sub\u{0}mit(Order)".into());
    assert_eq!(err, SidecarError::Nul { name: "x.insights.jsonl".into(), line: 3, field: "id", failure: false });
    assert_eq!(
        err.to_string(),
        "x.insights.jsonl:3: the id of this record contains U+0000, which an insights store cannot keep"
    );
    type Edit = fn(&mut InsightRecord);
    let cases: [(&str, Edit); 9] = [
        ("kind", |r| r.kind.push('\0')),
        ("name", |r| r.name = Some("\0".into())),
        ("file", |r| r.file = Some("p/\0.java".into())),
        ("fingerprint", |r| r.fingerprint = format!("{}\0", "0".repeat(63))),
        ("model", |r| r.model = Some("m\0".into())),
        ("key.lang", |r| r.key.as_mut().unwrap().lang.push('\0')),
        ("key.module", |r| r.key.as_mut().unwrap().module.push('\0')),
        ("key.symbol", |r| r.key.as_mut().unwrap().symbol.push('\0')),
        ("key.disambiguator", |r| r.key.as_mut().unwrap().disambiguator = Some("(\0)".into())),
    ];
    for (field, edit) in cases {
        let err = nul(&edit);
        assert!(matches!(&err, SidecarError::Nul { line: 3, field: f, failure: false, .. } if *f == field), "{err:?}");
        assert!(err.to_string().contains(&format!("the {field} of this record contains U+0000")), "{err}");
    }

    // Failure records: id, model and key parts.
    let mut f = failure("java:p/T.re\u{0}fund()", Level::Operation);
    let text = small_lines_with(|l| l[7] = encode_failure(&f));
    assert_eq!(
        decode("x.insights.jsonl", &text).unwrap_err().to_string(),
        "x.insights.jsonl:8: the id of this failure record contains U+0000, which an insights store cannot keep"
    );
    f.id = "java:p/T.refund()".into();
    f.model = "m\0".into();
    let text = small_lines_with(|l| l[7] = encode_failure(&f));
    assert!(matches!(
        decode("x", &text).unwrap_err(),
        SidecarError::Nul { line: 8, field: "model", failure: true, .. }
    ));
    f.model = "m".into();
    f.key =
        Some(NaturalKey { lang: "java".into(), module: "p\0".into(), symbol: "T.refund".into(), disambiguator: None });
    let text = small_lines_with(|l| l[7] = encode_failure(&f));
    assert!(matches!(decode("x", &text).unwrap_err(), SidecarError::Nul { field: "key.module", failure: true, .. }));

    // Text a store keeps as JSON (block, metadata, scc, members, reason) may hold U+0000.
    let mut s = small();
    if let Block::Operation(b) = &mut s.records[0].block {
        b.description = "a \u{0} inside".into();
    }
    s.records[3].metadata = Some([("n\0".to_owned(), "v\0".to_owned())].into_iter().collect());
    s.records[2].scc = Some(vec!["java:p/Line".into(), "java:p/Order\0".into()]);
    s.failures[0].members = vec!["x\0".into()];
    s.failures[0].reason.message = "no \0 credits".into();
    assert_eq!(decode("x", &encode(&s)).unwrap(), s);
}

#[test]
fn a_truncated_sidecar_says_why() {
    let mut s = small();
    s.trailer = None;
    let (cut, why) = decode_with_truncation("x", &encode(&s)).unwrap();
    assert!(cut.truncated);
    assert_eq!(why, Some(Truncation::NoTrailer));
    assert_eq!(cut.truncation(), why);
    assert_eq!(why.unwrap().to_string(), "it has no eof line");

    s.trailer = Some(trailer(79, 1));
    let (cut, why) = decode_with_truncation("x", &encode(&s)).unwrap();
    assert!(cut.truncated);
    assert_eq!(why, Some(Truncation::Count { counted: 79, read: 6 }));
    assert_eq!(cut.truncation(), why);
    assert_eq!(why.unwrap().to_string(), "its eof counts 79 records but 6 were read");
    assert_eq!(Truncation::Count { counted: 1, read: 0 }.to_string(), "its eof counts 1 record but 0 were read");
    assert_eq!(Truncation::Count { counted: 0, read: 1 }.to_string(), "its eof counts 0 records but 1 was read");

    // Whole: no reason, and `decode` agrees with `decode_with_truncation`.
    let whole = encode(&small());
    let (back, why) = decode_with_truncation("x", &whole).unwrap();
    assert_eq!((why, back.truncation()), (None, None));
    assert_eq!(back, decode("x", &whole).unwrap());

    // A record appended after the eof line (line 9): the count no longer matches.
    let extra = record("java:p/T.extra()", Level::Operation, Block::Operation(op_block("extra", 1.0)));
    let appended = format!("{whole}{}\n", encode_record(&extra));
    let (back, why) = decode_with_truncation("x", &appended).unwrap();
    assert!(back.truncated);
    let why = why.unwrap();
    assert_eq!(why, Truncation::RecordAfterTrailer { record_line: 10, trailer_line: 9, counted: 6, read: 7 });
    assert_eq!(
        why.to_string(),
        "a record (line 10) follows its eof line (line 9), which counts 6 records but 7 were read"
    );
    assert_eq!(back.truncation(), Some(Truncation::Count { counted: 6, read: 7 }), "no line numbers without the text");

    // A later eof replaces the earlier one: records before it are not "after eof".
    let recounted = format!("{appended}{}\n", encode_trailer(&trailer(8, 1)));
    let (back, why) = decode_with_truncation("x", &recounted).unwrap();
    assert_eq!(why, Some(Truncation::Count { counted: 8, read: 7 }));
    assert_eq!(back.trailer.unwrap().counts.records, 8);
    let (back, why) = decode_with_truncation("x", &format!("{appended}{}\n", encode_trailer(&trailer(7, 1)))).unwrap();
    assert!(!back.truncated && why.is_none());
}

// --- field rules ------------------------------------------------------------------

#[test]
fn numbers_are_written_the_javascript_way() {
    let mut r = record("java:p/T.a()", Level::Operation, Block::Operation(op_block("a", 1.0)));
    assert!(encode_record(&r).contains(r#""confidence":1},"#), "{}", encode_record(&r));
    assert!(encode_record(&r).contains(r#""cost":0.001}"#));
    r.block = Block::Operation(op_block("a", 0.5));
    r.usage = Some(Usage { prompt_tokens: 1, completion_tokens: 2, cost: Some(1e21) });
    let line = encode_record(&r);
    assert!(line.contains(r#""confidence":0.5},"#), "{line}");
    assert!(line.contains(r#""usage":{"promptTokens":1,"completionTokens":2,"cost":1e+21}"#), "{line}");
    r.block = Block::Operation(op_block("a", 0.0));
    r.usage = Some(Usage { prompt_tokens: 0, completion_tokens: 0, cost: Some(1e-7) });
    let line = encode_record(&r);
    assert!(line.contains(r#""confidence":0},"#) && line.contains(r#""cost":1e-7}"#), "{line}");
    assert!(!line.contains(".0,") && !line.contains(".0}"));
    // `1.0` in a file reads as 1 and is written back as `1`.
    let back = decode_record(&line.replace(r#""confidence":0}"#, r#""confidence":1.0}"#)).unwrap();
    assert_eq!(back.block.confidence(), 1.0);
    assert!(encode_record(&back).contains(r#""confidence":1},"#));
}

#[test]
fn record_key_order_and_absent_keys() {
    let mut r = small().records[3].clone(); // type with scc + metadata
    r.key = Some(NaturalKey { lang: "java".into(), module: "p".into(), symbol: "Order".into(), disambiguator: None });
    let line = encode_record(&r);
    let keys: Vec<String> = {
        // Top-level keys in text order (values never contain `,"x":` at depth 1 here).
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let mut ks: Vec<(usize, String)> =
            v.as_object().unwrap().keys().map(|k| (line.find(&format!("\"{k}\":")).unwrap(), k.clone())).collect();
        ks.sort();
        ks.into_iter().map(|(_, k)| k).collect()
    };
    assert_eq!(
        keys,
        [
            "t",
            "id",
            "key",
            "level",
            "kind",
            "name",
            "file",
            "scc",
            "origin",
            "block",
            "fingerprint",
            "model",
            "usage",
            "metadata"
        ]
    );
    assert!(line.contains(r#""key":{"lang":"java","module":"p","symbol":"Order"},"level":"type""#), "{line}");
    assert!(line.contains(r#""eventKind":null,"interfaceRole":null"#));
    assert!(line.ends_with(r#""metadata":{"reviewed":"yes"}}"#));
    let bare =
        InsightRecord { key: None, name: None, file: None, scc: None, model: None, usage: None, metadata: None, ..r };
    let line = encode_record(&bare);
    assert!(line.starts_with(r#"{"t":"i","id":"java:p/Order","level":"type","kind":"class","origin":"llm","block":{"#));
    assert!(line.ends_with(&format!(r#"}},"fingerprint":"{}"}}"#, fp('a'))));
    assert!(!line.contains("null,\"fingerprint\""));
}

#[test]
fn unknown_keys_are_stripped_and_nested_objects_reordered() {
    let r = small().records[4].clone();
    let line = encode_record(&r);
    let noisy = line
        .replacen(r#"{"t":"i","#, r#"{"extra":[1,{"x":null}],"t":"i","#, 1)
        .replace(
            r#""boundedContextHint":{"name":"Ordering","rationale":"own language"}"#,
            r#""boundedContextHint":{"rationale":"own language","why":true,"name":"Ordering"}"#,
        )
        .replacen(r#""confidence":0.5"#, r#""confidence":0.5,"mood":"sure""#, 1);
    assert_ne!(noisy, line);
    let back = decode_record(&noisy).unwrap();
    assert_eq!(back, r);
    assert_eq!(encode_record(&back), line);
}

#[test]
fn strict_types_and_safe_integers() {
    let r = small().records[1].clone();
    let line = encode_record(&r);
    let with = |from: &str, to: &str| {
        assert!(line.contains(from), "{from} not in {line}");
        decode_record(&line.replacen(from, to, 1))
    };
    assert!(with(r#""promptTokens":400"#, r#""promptTokens":9007199254740992"#).unwrap_err().contains("safe"));
    assert!(with(r#""promptTokens":400"#, r#""promptTokens":1.5"#).unwrap_err().contains("integer"));
    assert!(with(r#""promptTokens":400"#, r#""promptTokens":-1"#).unwrap_err().contains("at least 0"));
    assert!(with(r#""promptTokens":400"#, r#""promptTokens":"400""#).is_err());
    assert_eq!(with(r#""promptTokens":400"#, r#""promptTokens":4e2"#).unwrap(), r);
    assert_eq!(
        with(r#""promptTokens":400"#, r#""promptTokens":9007199254740991"#).unwrap().usage.unwrap().prompt_tokens,
        9007199254740991
    );
    assert!(with(r#""safe":true"#, r#""safe":"true""#).unwrap_err().contains("block.safe"));
    assert!(with(r#""idempotent":null,"#, "").unwrap_err().contains("block.idempotent"));
    assert!(with(r#""handlesCommand":"SubmitOrder""#, r#""handlesCommand":null"#).is_ok());
    assert!(with(r#""owner":"unknown""#, r#""owner":"nobody""#).is_err());
    assert!(with(r#""model":"openai/gpt-4.1-mini""#, r#""model":null"#).unwrap_err().contains("model"));
    assert!(with(r#""id":"java:p/T.submit(Order)""#, r#""id":"""#).unwrap_err().contains("empty"));
    assert!(with(r#""t":"i""#, r#""t":"x""#).is_err());
    assert!(with(r#""disambiguator":"(Order)""#, r#""disambiguator":7"#).is_err());
    // Any number is a valid cost; the fingerprint is only length-checked.
    assert!(with(r#""cost":0.0015666666666666667"#, r#""cost":-3"#).is_ok());
    let f = &r.fingerprint;
    assert!(with(f, &fp('Z')).is_ok());
    assert!(with(f, &f[1..]).unwrap_err().contains("64"));
}

#[test]
fn blocks_alone_round_trip() {
    for b in [Block::Operation(op_block("a", 1.0)), Block::Type(type_block("T")), Block::Module(module_block("m"))] {
        let json = block_json(&b);
        assert_eq!(decode_block(b.level(), &json).unwrap(), b);
        let other = if b.level() == Level::Module { Level::Operation } else { Level::Module };
        assert!(decode_block(other, &json).is_err());
    }
    assert_eq!(
        block_json(&Block::Operation(op_block("a", 1.0))),
        Block::Operation(op_block("a", 1.0)).to_json().replace("1.0}", "1}")
    );
    // Decoding keeps the confidence as written (clamping is receipt-side).
    let json = block_json(&Block::Operation(op_block("a", 1.5)));
    assert_eq!(decode_block(Level::Operation, &json).unwrap().confidence(), 1.5);
}

#[test]
fn lone_surrogates_decode_to_replacement_characters() {
    let r = small().records[0].clone();
    let line =
        encode_record(&r).replace(r#""description":"Returns the getTotal.""#, r#""description":"cut \ud83d here""#);
    let back = decode_record(&line).unwrap();
    assert_eq!(back.block.description(), "cut \u{FFFD} here");
    assert!(encode_record(&back).contains("\"cut \u{FFFD} here\""));
}

#[test]
fn crlf_and_blank_lines_are_tolerated() {
    let text = encode(&small());
    let crlf = text.replace('\n', "\r\n\n   \n");
    assert_eq!(decode("x", &crlf).unwrap(), small());
}

#[test]
fn streaming_writer_matches_encode_and_refuses_unsorted_records() {
    let s = synth::synthetic(150, 11);
    let mut w = SidecarWriter::new(Vec::new(), &s.header).unwrap();
    for f in s.failures.iter().rev() {
        w.failure(f).unwrap();
    }
    for r in &s.records {
        w.record(r).unwrap();
    }
    assert_eq!(w.records_written(), 150);
    let bytes = w.finish(s.trailer.as_ref()).unwrap();
    assert_eq!(String::from_utf8(bytes).unwrap(), encode(&s));

    let mut w = SidecarWriter::new(Vec::new(), &s.header).unwrap();
    w.record(&s.records[5]).unwrap();
    let err = w.record(&s.records[4]).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    // An equal record is not out of order for the writer…
    w.record(&s.records[5]).unwrap();
    w.record(&s.records[6]).unwrap();
    let text = String::from_utf8(w.finish(None).unwrap()).unwrap();
    assert_eq!(text.lines().count(), 4);
    // …but a side-car repeating an id does not decode (a store would keep one).
    assert!(matches!(decode("x", &text), Err(SidecarError::DuplicateId { line: 3, first_line: 2, .. })));
    let mut w = SidecarWriter::new(Vec::new(), &s.header).unwrap();
    w.record(&s.records[5]).unwrap();
    w.record(&s.records[6]).unwrap();
    let text = String::from_utf8(w.finish(None).unwrap()).unwrap();
    assert!(decode("x", &text).unwrap().truncated);
}

#[test]
fn synthetic_is_deterministic_and_realistic() {
    let a = synth::synthetic(2000, 5);
    assert_eq!(a, synth::synthetic(2000, 5));
    assert_ne!(a.records, synth::synthetic(2000, 6).records);
    let text = encode(&a);
    let per_record = text.len() as f64 / 2000.0;
    assert!((1400.0..2000.0).contains(&per_record), "{per_record} bytes per record");
    let ops = a.records.iter().filter(|r| r.level == Level::Operation).count();
    assert!((1600..1860).contains(&ops), "{ops}");
}

// --- property -------------------------------------------------------------------

fn id_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!['a', 'B', '/', '.', '(', '～', '😀', 'é', '"', '\\']), 1..6)
        .prop_map(|cs| cs.into_iter().collect())
}

fn set_confidence(b: &mut Block, c: f64) {
    match b {
        Block::Operation(x) => x.confidence = c,
        Block::Type(x) => x.confidence = c,
        Block::Module(x) => x.confidence = c,
    }
}

prop_compose! {
    fn record_strategy()(id in id_strategy(), level in 0usize..3, seed in any::<u64>(), conf in prop::option::weighted(0.3, any::<f64>()))
        -> InsightRecord {
        let mut r = synth::record(id, Level::ALL[level], &mut Rng(seed));
        if let Some(c) = conf.filter(|c| c.is_finite()) {
            set_confidence(&mut r.block, c);
        }
        r
    }
}

prop_compose! {
    fn failure_strategy()(id in id_strategy(), level in 0usize..3, seed in any::<u64>()) -> FailureRecord {
        synth::failure(id, Level::ALL[level], &mut Rng(seed))
    }
}

prop_compose! {
    fn sidecar_strategy()(
        mut records in prop::collection::vec(record_strategy(), 0..12),
        mut failures in prop::collection::vec(failure_strategy(), 0..4),
        counted in 0u64..14,
        with_trailer in any::<bool>(),
        cost in prop::option::of(any::<f64>().prop_filter("finite", |c| c.is_finite())),
        provider in prop::option::of("[a-z～😀]{0,5}"),
    ) -> Sidecar {
        // Ids are unique within records and within failures (a repeat does not decode).
        let mut seen = std::collections::HashSet::new();
        records.retain(|r| seen.insert(r.id.clone()));
        let mut seen = std::collections::HashSet::new();
        failures.retain(|f| seen.insert(f.id.clone()));
        records.sort_by(record_order);
        failures.sort_by(failure_order);
        let trailer = with_trailer.then(|| Trailer {
            counts: TrailerCounts { records: counted, llm: 1, template: 2, reused: 3, failed: failures.len() as u64 },
            usage: Usage { prompt_tokens: 7, completion_tokens: 8, cost },
            generated_at: "2025-06-01T12:00:00.000Z".into(),
        });
        let truncated = trailer.as_ref().is_none_or(|t| t.counts.records != records.len() as u64);
        let mut header = synth::header();
        header.provider = provider;
        Sidecar { header, records, failures, trailer, truncated }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn decode_encode_round_trips_byte_for_byte(x in sidecar_strategy()) {
        let text = encode(&x);
        let back = decode("p.insights.jsonl", &text).unwrap();
        prop_assert_eq!(&back, &x);
        prop_assert_eq!(encode(&back), text.clone());
        for (line, r) in text.lines().skip(1).zip(&x.records) {
            prop_assert_eq!(decode_record(line).unwrap(), r.clone());
        }
    }
}
