//! Receipt-side validation (docs/formats/blocks.md §7) and the repair
//! validation text (docs/formats/prompts.md §8).

use insights::blocks::{Block, OperationBlock};
use insights::validate::{check, validate_block, validate_cycle, validation_text, Issue};
use insights::vocab::{Level, OperationOwner};
use serde_json::{json, Value};

fn op_answer() -> Value {
    json!({
        "name": "Get total",
        "description": "Returns the total.",
        "safe": true,
        "idempotent": null,
        "owner": "valueType",
        "handlesCommand": null,
        "emits": [{"name": "TotalRead", "kind": "internal"}],
        "preconditions": [{"name": "p", "predicate": "x > 0", "violationReason": "x must be positive"}],
        "postconditions": [],
        "invariantsEnforced": [],
        "usesSpi": [],
        "domainTerms": ["total"],
        "confidence": 0.75
    })
}

fn type_answer() -> Value {
    json!({
        "name": "Order", "description": "An order.", "concept": "aggregate",
        "eventKind": null, "interfaceRole": null, "aggregateRoot": true, "containedIn": null,
        "syncPattern": null, "identity": "id",
        "fields": [{"name": "id", "type": "long", "kind": "primitive"}],
        "invariants": [{"name": "positive", "predicate": "total >= 0", "enforcement": "rejection"}],
        "stateMachine": {"states": ["NEW", "PAID"], "transitions": [{"from": "NEW", "to": "PAID", "operation": "pay"}]},
        "relatesTo": [], "exposes": ["pay"], "dependsOn": [{"name": "Payments", "role": "SPI"}],
        "domainTerms": [], "confidence": 1
    })
}

fn messages(issues: &[Issue]) -> Vec<String> {
    issues.iter().map(Issue::to_string).collect()
}

#[test]
fn a_valid_block_is_accepted_and_unknown_keys_are_stripped() {
    let mut answer = op_answer();
    answer["extra"] = json!("ignored");
    answer["emits"][0]["note"] = json!(1);
    let Block::Operation(b) = validate_block(Level::Operation, &answer).unwrap() else { panic!() };
    assert_eq!(b.owner, OperationOwner::ValueType);
    assert_eq!(b.idempotent, None);
    assert_eq!(b.preconditions[0].violation_reason, "x must be positive");
    assert_eq!(b.confidence, 0.75);
    let cleaned = check(&insights::schema::block_schema(Level::Operation), &answer).unwrap();
    assert!(cleaned.get("extra").is_none());
    assert!(cleaned["emits"][0].get("note").is_none());
    assert!(validate_block(Level::Type, &type_answer()).is_ok());
}

#[test]
fn confidence_is_clamped() {
    for (c, want) in [(json!(7), 1.0), (json!(-3.5), 0.0), (json!(0.25), 0.25), (json!(1e300), 1.0)] {
        let mut answer = op_answer();
        answer["confidence"] = c;
        assert_eq!(validate_block(Level::Operation, &answer).unwrap().confidence(), want);
    }
}

#[test]
fn wrong_types_missing_properties_and_bad_literals_fail_with_paths() {
    let mut answer = op_answer();
    answer["safe"] = json!("yes");
    answer["idempotent"] = json!(1);
    answer["owner"] = json!("controller");
    answer["emits"][0]["kind"] = json!("domain");
    answer.as_object_mut().unwrap().remove("handlesCommand");
    answer.as_object_mut().unwrap().remove("domainTerms");
    let issues = validate_block(Level::Operation, &answer).unwrap_err();
    assert_eq!(
        messages(&issues),
        [
            "safe: expected a boolean (true or false), found a string",
            "idempotent: expected a boolean (true or false) or null, found the number 1",
            "owner: `controller` is not an allowed value; use one of: entity, aggregate, domainService, applicationService, infrastructureService, repository, valueType, unknown",
            "handlesCommand: this required property is missing (give null when it does not apply)",
            "emits.0.kind: `domain` is not an allowed value; use one of: internal, external, error, temporal",
            "domainTerms: this required property is missing",
        ]
    );
    let root = validate_block(Level::Operation, &json!([1])).unwrap_err();
    assert_eq!(messages(&root), ["(root): expected an object, found an array"]);
}

#[test]
fn an_operation_block_under_level_type_is_rejected() {
    let issues = validate_block(Level::Type, &op_answer()).unwrap_err();
    assert!(messages(&issues).contains(&"concept: this required property is missing".to_owned()), "{issues:?}");
}

#[test]
fn nested_nullable_object() {
    let mut answer = type_answer();
    answer["stateMachine"] = json!("none");
    let issues = validate_block(Level::Type, &answer).unwrap_err();
    assert_eq!(messages(&issues), ["stateMachine: expected an object or null, found a string"]);
    answer["stateMachine"] = json!({"states": ["A"], "transitions": [{"from": "A", "to": "B"}]});
    let issues = validate_block(Level::Type, &answer).unwrap_err();
    assert_eq!(messages(&issues), ["stateMachine.transitions.0.operation: this required property is missing"]);
    answer["stateMachine"] = Value::Null;
    assert!(validate_block(Level::Type, &answer).is_ok());
}

#[test]
fn validation_text_quotes_at_most_eight_issues() {
    let issues: Vec<Issue> =
        (0..10).map(|i| Issue::new(&["a".into(), i.to_string()], format!("problem {i}"))).collect();
    let text = validation_text(&issues);
    assert_eq!(text.matches("; ").count(), 7);
    assert!(text.starts_with("a.0: problem 0; a.1: problem 1"));
    assert!(text.ends_with("a.7: problem 7"));
    assert_eq!(validation_text(&[Issue::new(&[], "bad")]), "(root): bad");
}

fn cycle(entries: &[(&str, Value)]) -> Value {
    json!({"members": entries.iter().map(|(id, b)| json!({"id": id, "block": b})).collect::<Vec<_>>()})
}

#[test]
fn cycle_structure() {
    // Structurally an empty list is fine; nothing asked, nothing missing.
    assert_eq!(validate_cycle(Level::Operation, &[], &json!({"members": []})).unwrap(), vec![]);
    // An entry without its block is rejected.
    let issues = validate_cycle(Level::Operation, &["c0"], &json!({"members": [{"id": "c0"}]})).unwrap_err();
    assert_eq!(messages(&issues), ["members.0.block: this required property is missing"]);
    let issues = validate_cycle(Level::Operation, &["c0"], &json!({})).unwrap_err();
    assert_eq!(messages(&issues), ["members: this required property is missing"]);
}

#[test]
fn cycle_entries_mapped_by_id_later_duplicates_win_in_asked_order() {
    let mut second = op_answer();
    second["name"] = json!("Second");
    second["confidence"] = json!(4);
    let answer = cycle(&[("c1", op_answer()), ("c0", op_answer()), ("c1", second)]);
    let blocks = validate_cycle(Level::Operation, &["c0", "c1"], &answer).unwrap();
    assert_eq!(blocks.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["c0", "c1"]);
    assert_eq!(blocks[1].1.name(), "Second");
    assert_eq!(blocks[1].1.confidence(), 1.0);
}

#[test]
fn cycle_missing_and_stray_ids_are_named() {
    let answer = cycle(&[("c1", op_answer()), ("zz", op_answer()), ("yy", op_answer())]);
    let issues = validate_cycle(Level::Operation, &["c0", "c1", "c2"], &answer).unwrap_err();
    assert_eq!(
        messages(&issues),
        [
            "members: these ids were not asked for: zz, yy; answer only for: c0, c1, c2",
            "members: no entry for the member(s) c0, c2",
        ]
    );
}

#[test]
fn a_cycle_block_is_validated_with_its_path() {
    let mut bad = op_answer();
    bad["safe"] = Value::Null;
    let issues = validate_cycle(Level::Operation, &["c0"], &cycle(&[("c0", bad)])).unwrap_err();
    assert_eq!(messages(&issues), ["members.0.block.safe: expected a boolean (true or false), found null"]);
}

#[test]
fn round_trip_of_a_serialized_block() {
    let Block::Operation(b) = validate_block(Level::Operation, &op_answer()).unwrap() else { panic!() };
    let again: Value = serde_json::from_str(&Block::Operation(b.clone()).to_json()).unwrap();
    let Block::Operation(b2) = validate_block(Level::Operation, &again).unwrap() else { panic!() };
    assert_eq!(b, b2);
    let _: OperationBlock = b2;
}
