//! The strict-mode schemas: compatibility checker over every level and shape,
//! golden files compared byte for byte (`UPDATE_GOLDEN=1` rewrites them), and
//! the upstream conformance items for the schema (this file is their
//! reference).

use std::path::PathBuf;

use insights::schema::{
    block_schema, block_schema_name, cycle_schema, cycle_schema_name, is_valid_schema_name, strict_violations,
    strictify, StrictSchema,
};
use insights::vocab::{DomainConcept, Level};
use serde_json::json;

fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to write it)", path.display()));
    assert!(expected == actual, "{} differs from the generated schema:\n{actual}", path.display());
}

fn pretty(s: &StrictSchema) -> String {
    s.to_json_pretty() + "\n"
}

#[test]
fn golden_schemas() {
    golden("schema-operation.json", &pretty(&block_schema(Level::Operation)));
    golden("schema-type.json", &pretty(&block_schema(Level::Type)));
    golden("schema-module.json", &pretty(&block_schema(Level::Module)));
    golden("schema-type-cycle.json", &pretty(&cycle_schema(Level::Type, &["java:p/A", "java:p/B"])));
}

#[test]
fn every_level_and_shape_is_strict_compatible() {
    for level in Level::ALL {
        for (name, schema) in [
            (block_schema_name(*level), block_schema(*level)),
            (cycle_schema_name(*level), cycle_schema(*level, &["a", "b", "c"])),
        ] {
            assert!(is_valid_schema_name(&name), "{name}");
            let violations = strict_violations(&schema.to_value());
            assert!(violations.is_empty(), "{name}: {violations:#?}");
            // The compact text is the same document.
            let reparsed: serde_json::Value = serde_json::from_str(&schema.to_json()).unwrap();
            assert_eq!(reparsed, schema.to_value());
        }
    }
}

#[test]
fn object_keys_in_fixed_order_and_properties_in_spec_order() {
    let op = block_schema(Level::Operation).to_json();
    assert!(op.starts_with(r#"{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},"safe":{"type":"boolean"},"idempotent":{"anyOf":[{"type":"boolean"},{"type":"null"}]},"owner":{"type":"string","enum":["entity","#), "{op}");
    assert!(op.ends_with(r#""required":["name","description","safe","idempotent","owner","handlesCommand","emits","preconditions","postconditions","invariantsEnforced","usesSpi","domainTerms","confidence"],"additionalProperties":false}"#), "{op}");
    let ty = block_schema(Level::Type);
    let StrictSchema::Object(props) = &ty else { panic!() };
    let names: Vec<&str> = props.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "name",
            "description",
            "concept",
            "eventKind",
            "interfaceRole",
            "aggregateRoot",
            "containedIn",
            "syncPattern",
            "identity",
            "fields",
            "invariants",
            "stateMachine",
            "relatesTo",
            "exposes",
            "dependsOn",
            "domainTerms",
            "confidence"
        ]
    );
    let module = block_schema(Level::Module);
    let StrictSchema::Object(props) = &module else { panic!() };
    let names: Vec<&str> = props.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "name",
            "description",
            "apis",
            "spis",
            "dependsOn",
            "concepts",
            "boundedContextHint",
            "sharedKernelHint",
            "ubiquitousLanguage",
            "confidence"
        ]
    );
    assert_eq!(module.property("confidence"), Some(&StrictSchema::Number), "no min/max on confidence");
}

#[test]
fn type_concept_enum_is_the_vocabulary_in_order() {
    let concepts: Vec<String> = DomainConcept::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    assert_eq!(block_schema(Level::Type).property("concept"), Some(&StrictSchema::Enum(concepts)));
    // A nullable enum.
    assert_eq!(
        block_schema(Level::Type).property("interfaceRole").unwrap().to_json(),
        r#"{"anyOf":[{"type":"string","enum":["API","SPI"]},{"type":"null"}]}"#
    );
}

#[test]
fn strictify_is_idempotent() {
    for level in Level::ALL {
        for s in [block_schema(*level), cycle_schema(*level, &["x"])] {
            let again = strictify(&s.to_value()).unwrap();
            assert_eq!(again, s);
            assert_eq!(again.to_json(), s.to_json());
        }
    }
}

#[test]
fn strictify_drops_forbidden_keywords_and_normalizes_nullables() {
    let raw = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "x",
        "title": "T",
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "pattern": "^a", "minLength": 1, "maxLength": 3, "format": "email"},
            "n": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "e": {"type": ["string", "null"], "enum": ["a", "b", null]},
            "o": {"anyOf": [{"type": "object", "properties": {"k": {"type": "integer", "format": "uint32"}}}, {"type": "null"}]},
            "arr": {"type": "array", "items": {"type": "boolean"}, "description": "d"}
        },
        "required": ["n", "pattern"]
    });
    let s = strictify(&raw).unwrap();
    assert_eq!(
        s.to_json(),
        r#"{"type":"object","properties":{"n":{"anyOf":[{"type":"number"},{"type":"null"}]},"pattern":{"type":"string"},"arr":{"type":"array","items":{"type":"boolean"}},"e":{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null"}]},"o":{"anyOf":[{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"],"additionalProperties":false},{"type":"null"}]}},"required":["n","pattern","arr","e","o"],"additionalProperties":false}"#
    );
    assert!(strict_violations(&s.to_value()).is_empty());
    assert!(!strict_violations(&raw).is_empty());
    assert!(strictify(&json!({"$ref": "#/$defs/X"})).unwrap_err().contains("$ref"));
    assert!(strictify(&json!({"anyOf": [{"type": "string"}, {"type": "number"}]})).is_err());
}

#[test]
fn checker_reports_each_violation() {
    let bad = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "format": "date"}, "b": {"type": "object", "properties": {}}},
        "required": ["a"]
    });
    let v = strict_violations(&bad);
    assert!(v.iter().any(|m| m.contains("(root): `additionalProperties` is not false")), "{v:?}");
    assert!(v.iter().any(|m| m.contains("(root): `required`")), "{v:?}");
    assert!(v.iter().any(|m| m.contains("(root).a: forbidden keyword `format`")), "{v:?}");
    assert!(v.iter().any(|m| m.contains("(root).b: `additionalProperties` is not false")), "{v:?}");
}

#[test]
fn cycle_schema_ids_are_the_asked_ids() {
    let s = cycle_schema(Level::Operation, &["c0", "c1", "c0", "c2"]);
    let text = s.to_json();
    assert!(
        text.starts_with(r#"{"type":"object","properties":{"members":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","enum":["c0","c1","c2"]},"block":{"type":"object","#),
        "{text}"
    );
    assert!(text.ends_with(r#""required":["id","block"],"additionalProperties":false}}},"required":["members"],"additionalProperties":false}"#), "{text}");
    assert_eq!(block_schema_name(Level::Operation), "codegraph_operation");
    assert_eq!(cycle_schema_name(Level::Module), "codegraph_module_cycle");
    assert!(!is_valid_schema_name("codegraph operation"));
    assert!(!is_valid_schema_name(&"a".repeat(65)));
}
