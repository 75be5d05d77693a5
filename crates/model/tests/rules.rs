//! One malformed model per rule of `docs/formats/model.md` §5, each with the
//! exact error it must produce, plus the findings that are reported but not
//! fatal.

use model::{read_model, FindingKind, Model, ModelError, Rule};

const HEADER: &str = r#"{"t":"header","schemaVersion":"1.0.0","lang":"demo","extractor":{"name":"x","version":"1"},"root":"src","dict":{"kinds":["class","method","package"],"traits":["TChildOf","TInvocable","TModule","TNamed","TSourceAnchor","TType"],"edges":["access","annotationUse","reference"],"provenance":["declared"]}}"#;
const FILE: &str = r#"{"t":"f","i":0,"path":"a/A.java"}"#;
const PKG: &str = r#"{"t":"e","i":0,"k":2,"tr":[3,2],"m":0,"s":"a","name":"a","isStub":false,"definedIn":[0]}"#;
const TYPE: &str =
    r#"{"t":"e","i":1,"k":0,"tr":[3,5,0,4],"m":0,"s":"A","name":"A","isStub":false,"parent":0,"anchor":[0,1,10]}"#;
const METHOD: &str = r#"{"t":"e","i":2,"k":1,"tr":[3,1,0,4],"m":0,"s":"A.f()","name":"f","signature":"f()","parent":1,"anchor":[0,2,3]}"#;
const EDGE: &str = r#"{"t":"x","k":2,"f":2,"o":1,"p":0,"anchor":[0,2,2]}"#;
const EOF: &str = r#"{"t":"eof","counts":{"files":1,"entities":3,"edges":1}}"#;

fn base() -> Vec<String> {
    [HEADER, FILE, PKG, TYPE, METHOD, EDGE, EOF].iter().map(|s| s.to_string()).collect()
}

fn read(lines: &[String]) -> Result<Model, ModelError> {
    read_model(lines.join("\n").as_bytes(), "model.jsonl")
}

/// The base model with line `n` (1-based) replaced.
fn with(n: usize, line: &str) -> Vec<String> {
    let mut l = base();
    l[n - 1] = line.to_owned();
    l
}

fn fails(lines: Vec<String>, rule: Rule, message: &str) {
    let e = read(&lines).err().unwrap_or_else(|| panic!("expected {message:?}, but the model read"));
    assert_eq!(e.to_string(), message);
    assert_eq!(e.rule, rule, "rule for {message}");
}

#[test]
fn the_base_model_is_clean() {
    let m = read(&base()).unwrap();
    assert_eq!(m.entity_count(), 3);
    assert!(m.findings().is_empty(), "{:?}", m.findings().kept);
    assert_eq!(m.id(2), "demo:a/A.f()");
}

#[test]
fn utf8_and_json() {
    let mut bytes = base().join("\n").into_bytes();
    let at = bytes.windows(3).position(|w| w == b"\"A\"").unwrap() + 1;
    bytes[at] = 0xFF;
    let e = read_model(&bytes[..], "model.jsonl").err().unwrap();
    assert_eq!(e.rule, Rule::Utf8);
    assert_eq!(e.to_string(), "model.jsonl:4: is not valid UTF-8 (at byte 48)");

    fails(
        with(3, r#"{"t":"e","i":0"#),
        Rule::Json,
        "model.jsonl:3: is not valid JSON: EOF while parsing an object (column 14)",
    );
    fails(with(3, "[1,2]"), Rule::Json, "model.jsonl:3: is not a JSON object (each line holds one record)");
    fails(with(3, r#"{"i":0,"k":2}"#), Rule::Schema, "model.jsonl:3: has no string \"t\" key naming the record type");
    fails(
        with(3, &format!("{PKG} x")),
        Rule::Json,
        "model.jsonl:3: is not valid JSON: trailing characters (column 90)",
    );
}

#[test]
fn section_order() {
    let mut l = base();
    l.swap(0, 1);
    fails(l, Rule::SectionOrder, "model.jsonl:1: file is on line 1, but line 1 must be the header record");
    let mut l = base();
    l.insert(0, String::new());
    fails(l, Rule::SectionOrder, "model.jsonl:1: is blank, but line 1 must be the header record");
    let mut l = base();
    l.insert(2, HEADER.into());
    fails(
        l,
        Rule::SectionOrder,
        "model.jsonl:3: header appears a second time (a model has exactly one header, on line 1)",
    );
    let mut l = base();
    l.insert(4, r#"{"t":"f","i":1,"path":"b.java"}"#.into());
    fails(
        l,
        Rule::SectionOrder,
        "model.jsonl:5: file comes after the entity records began (the order is header, files, entities, edges, eof)",
    );
    let mut l = base();
    l.insert(6, TYPE.into());
    fails(
        l,
        Rule::SectionOrder,
        "model.jsonl:7: entity comes after the edge records began (the order is header, files, entities, edges, eof)",
    );
    let mut l = base();
    l.push(EDGE.into());
    fails(l, Rule::SectionOrder, "model.jsonl:8: edge comes after the eof record, which must be last");
    fails(vec![], Rule::SectionOrder, "model.jsonl: is empty: a model starts with a header record on line 1");
    // Blank lines elsewhere are fine.
    let mut l = base();
    l.insert(3, "   ".into());
    l.push(String::new());
    assert!(read(&l).is_ok());
}

#[test]
fn dense_surrogates() {
    fails(
        with(2, r#"{"t":"f","i":1,"path":"a/A.java"}"#),
        Rule::Dense,
        "model.jsonl:2: file \"i\" is 1, but the next file must be 0 (file indexes are dense from 0)",
    );
    fails(
        with(4, &TYPE.replace(r#""i":1"#, r#""i":2"#)),
        Rule::Dense,
        "model.jsonl:4: entity \"i\" is 2, but the next entity must be 1 (surrogates are dense from 0)",
    );
}

#[test]
fn dictionaries() {
    fails(
        with(4, &TYPE.replace(r#""k":0"#, r#""k":3"#)),
        Rule::Dictionary,
        "model.jsonl:4: entity \"k\" is 3, but dict.kinds has 3 entries",
    );
    fails(
        with(4, &TYPE.replace(r#""tr":[3,5,0,4]"#, r#""tr":[3,5,0,9]"#)),
        Rule::Dictionary,
        "model.jsonl:4: entity \"tr\" lists 9, but dict.traits has 6 entries",
    );
    fails(
        with(6, &EDGE.replace(r#""k":2"#, r#""k":7"#)),
        Rule::Dictionary,
        "model.jsonl:6: edge \"k\" is 7, but dict.edges has 3 entries",
    );
    fails(
        with(6, &EDGE.replace(r#""p":0"#, r#""p":1"#)),
        Rule::Dictionary,
        "model.jsonl:6: edge \"p\" is 1, but dict.provenance has 1 entries",
    );
    fails(
        with(1, &HEADER.replace(r#""method","package""#, r#""method","method""#)),
        Rule::Dictionary,
        "model.jsonl:1: header dict.kinds lists \"method\" twice",
    );
    fails(with(1, &HEADER.replace(r#""TType""#, r#""TBogus""#)), Rule::Dictionary, "model.jsonl:1: header dict.traits lists \"TBogus\", which is not one of the 19 known: TNamed, TSourceAnchor, TComment, TWithChildren, TChildOf, TAttachedTo, TModule, TType, TWithInheritances, TWithImplements, TTypedEntity, TInvocable, TWithParameters, TWithLocalVariables, TWithInvocations, TStructural, TWithAccesses, TMetrics, TWithValue");
    fails(
        with(1, &HEADER.replace(r#""reference""#, r#""access""#)),
        Rule::Dictionary,
        "model.jsonl:1: header dict.edges lists \"access\" twice",
    );
    fails(with(1, &HEADER.replace(r#"["declared"]"#, r#"["declared","guessed"]"#)), Rule::Dictionary, "model.jsonl:1: header dict.provenance lists \"guessed\", which is not one of the 4 known: declared, derived, dynamic-candidate, generated");
}

#[test]
fn trait_keys() {
    fails(
        with(4, &TYPE.replace(r#""name":"A","#, "")),
        Rule::TraitKey,
        "model.jsonl:4: entity declares TNamed but lacks \"name\" (a non-empty string)",
    );
    fails(
        with(4, &TYPE.replace(r#","anchor":[0,1,10]"#, "")),
        Rule::TraitKey,
        "model.jsonl:4: entity declares TSourceAnchor but lacks \"anchor\" ([file, start, end])",
    );
    fails(
        with(5, &METHOD.replace(r#""signature":"f()","#, "")),
        Rule::TraitKey,
        "model.jsonl:5: entity declares TInvocable but lacks \"signature\" (a string)",
    );
    fails(
        with(3, &PKG.replace(r#","definedIn":[0]"#, "")),
        Rule::TraitKey,
        "model.jsonl:3: entity declares TModule but lacks \"definedIn\" (an array of file indexes)",
    );
    fails(
        with(4, &TYPE.replace(r#""isStub":false,"#, "")),
        Rule::TraitKey,
        "model.jsonl:4: entity declares TType but lacks \"isStub\" (a boolean)",
    );
    fails(
        with(4, &TYPE.replace(r#""name":"A""#, r#""name":"""#)),
        Rule::TraitKey,
        "model.jsonl:4: entity \"name\" must be a non-empty string",
    );
}

#[test]
fn closure() {
    fails(
        with(6, &EDGE.replace(r#""o":1"#, r#""o":9001"#)),
        Rule::Closure,
        "model.jsonl:6: edge \"o\" refers to entity 9001, but the model has 3 entities",
    );
    fails(
        with(6, &EDGE.replace(r#""f":2"#, r#""f":3"#)),
        Rule::Closure,
        "model.jsonl:6: edge \"f\" refers to entity 3, but the model has 3 entities",
    );
    fails(
        with(6, &EDGE.replace(r#""anchor""#, r#""candidates":[1,5],"anchor""#)),
        Rule::Closure,
        "model.jsonl:6: edge \"candidates\" refers to entity 5, but the model has 3 entities",
    );
    // A forward reference is allowed while entities arrive, and checked when they end.
    fails(
        with(4, &TYPE.replace(r#""parent":0"#, r#""parent":7"#)),
        Rule::Closure,
        "model.jsonl:4: entity \"parent\" refers to entity 7, but the model has 3 entities",
    );
    let mut no_edges = base();
    no_edges.remove(5);
    no_edges[5] = EOF.replace(r#""edges":1"#, r#""edges":0"#);
    no_edges[3] = TYPE.replace(r#""parent":0"#, r#""parent":3"#);
    fails(no_edges, Rule::Closure, "model.jsonl:4: entity \"parent\" refers to entity 3, but the model has 3 entities");
    fails(
        with(4, &TYPE.replace(r#""anchor":[0,1,10]"#, r#""anchor":[1,1,10]"#)),
        Rule::Closure,
        "model.jsonl:4: entity \"anchor\" refers to file 1, but the model has 1 files",
    );
    fails(
        with(3, &PKG.replace(r#""definedIn":[0]"#, r#""definedIn":[0,4]"#)),
        Rule::Closure,
        "model.jsonl:3: entity \"definedIn\" refers to file 4, but the model has 1 files",
    );
    fails(
        with(4, &TYPE.replace(r#""m":0"#, r#""m":2"#)),
        Rule::Closure,
        "model.jsonl:4: entity \"m\" is 2, after its own \"i\" 1: a module comes before what it holds",
    );
    fails(
        with(5, &METHOD.replace(r#""m":0"#, r#""m":1"#)),
        Rule::Closure,
        "model.jsonl:5: entity \"m\" refers to entity 1, which is not a module (its own \"m\" is not itself)",
    );
    let forward_value = TYPE.replace(r#""anchor""#, r#""value":{"k":"enum","type":12,"name":"X"},"anchor""#);
    fails(
        with(4, &forward_value),
        Rule::Closure,
        "model.jsonl:4: entity \"value\" refers to entity 12, but the model has 3 entities",
    );
}

#[test]
fn natural_keys() {
    fails(
        with(4, &TYPE.replace(r#""s":"A""#, r##""s":"A#1""##)),
        Rule::Identity,
        "model.jsonl:4: entity symbol \"A#1\" may not contain '#'",
    );
    fails(
        with(3, &PKG.replace(r#""s":"a""#, r#""s":"a/b""#)),
        Rule::Identity,
        "model.jsonl:3: entity module path \"a/b\" may not contain '/' or '#'",
    );
    fails(
        with(4, &TYPE.replace(r#""s":"A","#, r#""s":"A","d":"","#)),
        Rule::Identity,
        "model.jsonl:4: entity \"d\" must be non-empty and without NUL when present",
    );
    fails(
        with(1, &HEADER.replace(r#""lang":"demo""#, r#""lang":"de:mo""#)),
        Rule::Identity,
        "model.jsonl:1: header \"lang\" is \"de:mo\": it must be non-empty, without ':' or NUL",
    );
    // A disambiguator may contain '#'.
    let ok = read(&with(4, &TYPE.replace(r#""s":"A","#, r##""s":"A","d":"x#y","##))).unwrap();
    assert_eq!(ok.id(1), "demo:a/A#x#y");
}

#[test]
fn trailer() {
    let mut l = base();
    l.pop();
    fails(
        l,
        Rule::Trailer,
        "model.jsonl: ends after line 6 inside the edge section, without an \"eof\" record: the file is truncated",
    );
    fails(
        with(7, &EOF.replace(r#""entities":3"#, r#""entities":4"#)),
        Rule::Trailer,
        "model.jsonl:7: eof counts 4 entities, but the model has 3: the file was truncated or edited",
    );
    fails(with(7, r#"{"t":"eof"}"#), Rule::Schema, "model.jsonl:7: eof lacks \"counts\" ({files, entities, edges})");
    // A file cut in the middle of a line.
    let text = base().join("\n");
    let cut = &text.as_bytes()[..text.len() - 30];
    let e = read_model(cut, "model.jsonl").err().unwrap();
    assert_eq!(e.to_string(), "model.jsonl:7: is not valid JSON: EOF while parsing a string (column 25)");
    assert_eq!(e.rule, Rule::Json);
}

#[test]
fn schema() {
    fails(
        with(4, &TYPE.replace(r#""parent":0"#, r#""parent":"x""#)),
        Rule::Schema,
        "model.jsonl:4: entity key \"parent\": invalid type: string \"x\", expected a whole number ≥ 0 (column 88)",
    );
    fails(
        with(4, &TYPE.replace(r#""parent":0"#, r#""parent":-1"#)),
        Rule::Schema,
        "model.jsonl:4: entity key \"parent\": invalid value: integer `-1`, expected a whole number ≥ 0 (column 87)",
    );
    fails(
        with(4, &TYPE.replace(r#""name":"A""#, r#""name":"A","name":"B""#)),
        Rule::Schema,
        "model.jsonl:4: entity key \"name\" appears twice (column 67)",
    );
    fails(
        with(4, &TYPE.replace(r#","anchor":[0,1,10]"#, r#","anchor":[0,9,3]"#)),
        Rule::Schema,
        "model.jsonl:4: entity \"anchor\" spans lines 9 to 3: lines are 1-based and the start may not pass the end",
    );
    fails(
        with(4, &TYPE.replace(r#","anchor":[0,1,10]"#, r#","anchor":[0,1]"#)),
        Rule::Schema,
        "model.jsonl:4: entity key \"anchor\": invalid length 2, expected an array of length 3 (column 101)",
    );
    fails(
        with(6, &EDGE.replace(r#""anchor""#, r#""isRead":true,"isWrite":false,"anchor""#)),
        Rule::Schema,
        "model.jsonl:6: edge has \"isRead\"/\"isWrite\", which only access edges carry",
    );
    fails(
        with(6, &EDGE.replace(r#""k":2"#, r#""k":0"#)),
        Rule::Schema,
        "model.jsonl:6: edge is an access but lacks \"isRead\" or \"isWrite\" (both are always written)",
    );
    fails(
        with(6, &EDGE.replace(r#""anchor""#, r#""arguments":[],"anchor""#)),
        Rule::Schema,
        "model.jsonl:6: edge has \"arguments\", which only annotationUse edges carry",
    );
    fails(
        with(6, &EDGE.replace(r#","anchor":[0,2,2]"#, "")),
        Rule::Schema,
        "model.jsonl:6: edge lacks \"anchor\" ([file, start, end])",
    );
    fails(with(2, r#"{"t":"f","i":0}"#), Rule::Schema, "model.jsonl:2: file lacks \"path\"");
    fails(
        with(1, &HEADER.replace(r#""root":"src","#, "")),
        Rule::Schema,
        "model.jsonl:1: header lacks \"root\" (the analysed source root)",
    );
    let bad_literal = TYPE.replace(r#""anchor""#, r#""value":{"k":"weird"},"anchor""#);
    fails(with(4, &bad_literal), Rule::Schema, "model.jsonl:4: entity \"value\": unknown literal kind \"weird\" (expected string, number, boolean, null, enum, type, array, annotation or unevaluated)");
    let ann = EDGE
        .replace(r#""k":2"#, r#""k":1"#)
        .replace(r#""anchor""#, r#""arguments":[{"name":"value","value":{"k":"type","type":99}}],"anchor""#);
    fails(
        with(6, &ann),
        Rule::Closure,
        "model.jsonl:6: edge \"arguments\" refers to entity 99, but the model has 3 entities",
    );
    fails(
        with(4, &TYPE.replace(r#""tr":[3,5,0,4]"#, r#""tr":[3,5,0,4,3]"#)),
        Rule::Schema,
        "model.jsonl:4: entity \"tr\" lists TNamed twice",
    );
}

#[test]
fn findings_are_reported_not_fatal() {
    let dup =
        r#"{"t":"e","i":2,"k":0,"tr":[3,5,0,4],"m":0,"s":"A","name":"A2","isStub":false,"parent":0,"anchor":[0,1,10]}"#;
    let l: Vec<String> = [
        HEADER,
        FILE,
        PKG,
        // Unknown keys survive as raw JSON.
        &TYPE.replace(r#""anchor""#, r#""defaults":1,"zeta":{"a":[1, 2]},"anchor""#),
        dup, // the same natural key as line 4
        &METHOD.replace(r#""i":2"#, r#""i":3"#),
        &EDGE.replace(r#""f":2,"o":1"#, r#""f":3,"o":3"#), // a self-edge
        &EDGE.replace(r#""f":2"#, r#""f":3"#),             // (3,1) after (3,3): out of order
        r#"{"t":"note","text":"hello"}"#,                  // an unknown record type
        &EOF.replace(r#""entities":3,"edges":1"#, r#""entities":4,"edges":2"#),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let m = read(&l).unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<FindingKind> = m.findings().kept.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [FindingKind::DuplicateKey, FindingKind::SelfEdge, FindingKind::NotCanonical, FindingKind::UnknownRecordType]
    );
    let msgs: Vec<String> = m.findings().kept.iter().map(|f| format!("{}: {}", f.line, f.message)).collect();
    assert_eq!(msgs[0], "5: natural key demo:a/A is declared twice");
    assert_eq!(msgs[1], "7: reference edge from demo:a/A.f() to itself");
    assert_eq!(msgs[2], "8: edge is out of canonical order (from, to, kind, anchor, provenance)");
    assert_eq!(msgs[3], "9: unknown record type \"note\"; the line was skipped");
    assert_eq!(
        m.entity(1).extensions(),
        &[("defaults".to_string(), "1".to_string()), ("zeta".to_string(), r#"{"a":[1, 2]}"#.to_string())]
    );

    // A trait key without its trait, and a Java profile mismatch.
    let l = with(4, &TYPE.replace(r#""anchor""#, r#""signature":"x","anchor""#));
    let m = read(&l).unwrap();
    assert_eq!(m.findings().kept[0].kind, FindingKind::KeyWithoutTrait);
    assert_eq!(m.findings().kept[0].message, "entity has \"signature\" without declaring TInvocable");
    let java: Vec<String> = base().iter().map(|s| s.replace(r#""lang":"demo""#, r#""lang":"java""#)).collect();
    let m = read(&java).unwrap();
    let profile: Vec<&str> = m.findings().kept.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(profile[0], "a Java package must declare TWithChildren");
}

#[test]
fn errors_stick_and_chunks_split_anywhere() {
    let text = base().join("\n");
    let mut r = model::ModelReader::new("m.jsonl");
    r.push_chunk(text.as_bytes()).unwrap();
    let m = r.finish().unwrap();
    assert_eq!(m.edge_count(), 1);

    let mut r = model::ModelReader::new("m.jsonl");
    let bad = with(6, &EDGE.replace(r#""o":1"#, r#""o":5"#)).join("\n");
    let first = r.push_chunk(bad.as_bytes()).unwrap_err();
    assert_eq!(r.push_line(EOF.as_bytes()).unwrap_err(), first);
    assert_eq!(r.finish().unwrap_err(), first);
}

// ---- U+0000 in strings the insights store keeps (names, kinds, key parts, paths)

#[test]
fn nul_in_a_name_is_refused_on_its_line() {
    fails(
        with(4, &TYPE.replace(r#""name":"A""#, r#""name":"A\u0000B""#)),
        Rule::Schema,
        "model.jsonl:4: entity \"name\" \"A\\0B\" holds U+0000 (NUL), which no name, kind, natural-key part or path may contain",
    );
    // On a later line, after a blank one, and on a name no trait licenses.
    let mut l = with(5, &METHOD.replace(r#""name":"f""#, r#""name":"\u0000""#));
    l.insert(3, String::new());
    fails(
        l,
        Rule::Schema,
        "model.jsonl:6: entity \"name\" \"\\0\" holds U+0000 (NUL), which no name, kind, natural-key part or path may contain",
    );
    // Odd names are not NUL: spaces, other control characters, any Unicode.
    let odd = r#""name":"a b\u0001\t\u00e9 \ud83d\ude00 <init> $1""#;
    let m = read(&with(4, &TYPE.replace(r#""name":"A""#, odd))).unwrap();
    assert_eq!(m.entity(1).name(), Some("a b\u{1}\t\u{e9} \u{1F600} <init> $1"));
}

#[test]
fn nul_in_a_kind_is_refused_like_every_other_store_kept_key() {
    fails(
        with(1, &HEADER.replace(r#""class","method""#, r#""cl\u0000ass","method""#)),
        Rule::Dictionary,
        "model.jsonl:1: header dict.kinds lists \"cl\\0ass\": it holds U+0000 (NUL), which no name, kind, natural-key part or path may contain",
    );
    // The other columns of the store: id parts and the file path.
    fails(
        with(1, &HEADER.replace(r#""lang":"demo""#, r#""lang":"de\u0000mo""#)),
        Rule::Identity,
        "model.jsonl:1: header \"lang\" is \"de\\0mo\": it must be non-empty, without ':' or NUL",
    );
    fails(
        with(3, &PKG.replace(r#""s":"a""#, r#""s":"a\u0000""#)),
        Rule::Identity,
        "model.jsonl:3: entity \"s\" contains NUL",
    );
    fails(
        with(4, &TYPE.replace(r#""s":"A""#, r#""s":"A\u0000""#)),
        Rule::Identity,
        "model.jsonl:4: entity \"s\" contains NUL",
    );
    fails(
        with(4, &TYPE.replace(r#""s":"A","#, r#""s":"A","d":"x\u0000","#)),
        Rule::Identity,
        "model.jsonl:4: entity \"d\" must be non-empty and without NUL when present",
    );
    fails(
        with(2, r#"{"t":"f","i":0,"path":"a/\u0000.java"}"#),
        Rule::Schema,
        "model.jsonl:2: file \"path\" must be a non-empty path without NUL",
    );
}

// ---- containment is a forest: no entity is its own parent, no ring of parents

#[test]
fn an_entity_that_is_its_own_parent_is_refused() {
    fails(
        with(4, &TYPE.replace(r#""parent":0"#, r#""parent":1"#)),
        Rule::Containment,
        "model.jsonl:4: entity demo:a/A is its own parent (\"parent\" is 1, its own \"i\")",
    );
    // The module entity too (it has no other parent to reach).
    let pkg = PKG.replace(r#""tr":[3,2]"#, r#""tr":[3,0,2]"#).replace(r#","definedIn""#, r#","parent":0,"definedIn""#);
    fails(
        with(3, &pkg),
        Rule::Containment,
        "model.jsonl:3: entity demo:a is its own parent (\"parent\" is 0, its own \"i\")",
    );
}

#[test]
fn two_parents_in_a_ring_are_refused() {
    // A's parent is f() (a forward reference), f()'s parent is A: the ring
    // closes on line 5, where its last entity is read.
    let l = with(4, &TYPE.replace(r#""parent":0"#, r#""parent":2"#));
    fails(
        l,
        Rule::Containment,
        "model.jsonl:5: entity \"parent\" never reaches a root: the parents of demo:a/A.f() form a ring: demo:a/A.f() → demo:a/A → demo:a/A.f()",
    );
}

#[test]
fn three_parents_in_a_ring_are_refused() {
    // a → f() → A → a, with a blank line before f() (the line is still right)
    // and no edges (the ring is found when the entities end at the eof).
    let pkg = PKG.replace(r#""tr":[3,2]"#, r#""tr":[3,0,2]"#).replace(r#","definedIn""#, r#","parent":2,"definedIn""#);
    let mut l = with(3, &pkg);
    l.remove(5);
    l[5] = EOF.replace(r#""edges":1"#, r#""edges":0"#);
    l.insert(4, "  ".into());
    fails(
        l,
        Rule::Containment,
        "model.jsonl:6: entity \"parent\" never reaches a root: the parents of demo:a/A.f() form a ring: demo:a/A.f() → demo:a/A → demo:a → demo:a/A.f()",
    );
}

/// A demo model: module `a`, then `E000000…` under it (canonical order =
/// the order given); `parent(k)` is the parent of `E{k}` (`None`: the module).
fn chain(n: usize, parent: impl Fn(usize) -> Option<usize>) -> String {
    use model::builder::{Key, ModelBuilder};
    let key = |k: usize| Key::new("a", format!("E{k:06}"));
    let mut b = ModelBuilder::new("demo", "src");
    b.entity(Key::module("a"), "package")
        .traits(&["TNamed", "TWithChildren", "TModule"])
        .name("a")
        .is_stub(false)
        .defined_in(Vec::<&str>::new());
    for k in 0..n {
        let p = parent(k).map_or_else(|| Key::module("a"), key);
        b.entity(key(k), "class").traits(&["TNamed", "TChildOf", "TWithChildren"]).name(&format!("E{k}")).parent(p);
    }
    b.build().unwrap()
}

#[test]
fn a_long_ring_is_named_by_its_closing_entity_and_shortened() {
    // E0..E9 hang off the ring E10 → E11 → … → E29 → E10 (entity 1 is E0 on line 3).
    let text = chain(40, |k| match k {
        0..=9 => Some(k + 1),
        10..=28 => Some(k + 1),
        29 => Some(10),
        _ => None,
    });
    let e = read_model(text.as_bytes(), "model.jsonl").unwrap_err();
    assert_eq!(e.rule, Rule::Containment);
    assert_eq!(
        e.to_string(),
        "model.jsonl:32: entity \"parent\" never reaches a root: the parents of demo:a/E000029 form a ring: \
         demo:a/E000029 → demo:a/E000010 → demo:a/E000011 → demo:a/E000012 → demo:a/E000013 → \
         demo:a/E000014 → demo:a/E000015 → … (13 more) → demo:a/E000029"
    );
}

#[test]
fn a_deep_parent_chain_still_reads() {
    // 100,000 levels deep, parents pointing backward and (another model) all
    // forward: each reads, in linear time and without recursion.
    let n = 100_000;
    for text in [chain(n, |k| k.checked_sub(1)), chain(n, |k| (k + 1 < n).then_some(k + 1))] {
        let m = read_model(text.as_bytes(), "model.jsonl").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.entity_count() as usize, n + 1);
        let (mut at, mut depth) = (m.entity_count() - 1, 0);
        if m.entity(1).parent() != Some(0) {
            at = 1; // the forward chain: E0 is the deepest
        }
        while let Some(p) = m.entity(at).parent() {
            at = p;
            depth += 1;
        }
        assert_eq!((at, depth), (0, n));
    }
}
