//! The view of the demo model with a hand-built store: known concepts,
//! hints and terms, a term defined two ways, a stale record, a failed unit,
//! units without a record.

use super::*;
use insights::record::FailureReason;
use insights::vocab::{FailureKind, Origin};
use serde_json::{json, Value};

const RENTAL: &str = "java:com.pedalpoint.rental/Rental";
const CUSTOMER: &str = "java:com.pedalpoint.rental/Customer";
const TIER: &str = "java:com.pedalpoint.rental/Customer.Tier";
const SERVICE: &str = "java:com.pedalpoint.rental/RentalService";
const FINISH: &str = "java:com.pedalpoint.rental/RentalService.finish(java.lang.String,java.lang.String,long)";
const INVOICE: &str = "java:com.pedalpoint.billing/Invoice";
const FLEET: &str = "java:com.pedalpoint.fleet/Fleet";
const RESERVE: &str = "java:com.pedalpoint.fleet/Fleet.reserveAt(java.lang.String,com.pedalpoint.fleet.BikeType)";
const STATION: &str = "java:com.pedalpoint.fleet/Station";
const BIKE: &str = "java:com.pedalpoint.fleet/Bike";
const BIKE_TYPE: &str = "java:com.pedalpoint.fleet/BikeType";
const MONEY: &str = "java:com.pedalpoint.common/Money";

fn facts() -> DomainFacts {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/demo/model.jsonl");
    let m = model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap();
    let corpus = insights::units::Corpus::build(&m, analyzer::view::View::all(), None).unwrap();
    corpus.facts
}

fn record(id: &str, level: Level, block: Value) -> InsightRecord {
    let block = match level {
        Level::Operation => Block::Operation(serde_json::from_value(block).unwrap()),
        Level::Type => Block::Type(serde_json::from_value(block).unwrap()),
        Level::Module => Block::Module(serde_json::from_value(block).unwrap()),
    };
    InsightRecord {
        id: id.into(),
        key: None,
        level,
        kind: "x".into(),
        name: None,
        file: None,
        scc: None,
        origin: Origin::Llm,
        block,
        fingerprint: "f".into(),
        model: Some("m".into()),
        usage: None,
        metadata: None,
    }
}

fn module(
    name: &str,
    hint: Option<(&str, &str)>,
    terms: &[(&str, &str)],
    depends: &[&str],
    kernel: Option<&str>,
) -> Value {
    json!({
        "name": name, "description": format!("The module {name}."), "apis": [], "spis": [],
        "dependsOn": depends, "concepts": [],
        "boundedContextHint": hint.map(|(n, r)| json!({"name": n, "rationale": r})),
        "sharedKernelHint": kernel,
        "ubiquitousLanguage": terms.iter().map(|(t, d)| json!({"term": t, "definition": d})).collect::<Vec<_>>(),
        "confidence": 0.8
    })
}

fn ty(name: &str, description: &str, concept: &str, extra: Value) -> Value {
    let mut b = json!({
        "name": name, "description": description, "concept": concept, "eventKind": null, "interfaceRole": null,
        "aggregateRoot": null, "containedIn": null, "syncPattern": null, "identity": null, "fields": [],
        "invariants": [], "stateMachine": null, "relatesTo": [], "exposes": [], "dependsOn": [],
        "domainTerms": [], "confidence": 0.9
    });
    for (k, v) in extra.as_object().unwrap() {
        b[k] = v.clone();
    }
    b
}

fn op(name: &str, command: Option<&str>, emits: &[&str], terms: &[&str]) -> Value {
    json!({
        "name": name, "description": format!("{name} does its work."), "safe": false, "idempotent": null,
        "owner": "applicationService", "handlesCommand": command,
        "emits": emits.iter().map(|e| json!({"name": e, "kind": "internal"})).collect::<Vec<_>>(),
        "preconditions": [], "postconditions": [], "invariantsEnforced": [], "usesSpi": [],
        "domainTerms": terms, "confidence": 0.7
    })
}

fn store() -> (Vec<InsightRecord>, Vec<FailureRecord>, HashMap<String, String>) {
    let records = vec![
        record(
            "java:com.pedalpoint.rental",
            Level::Module,
            module(
                "Rentals",
                Some(("Rentals", "owns the rental lifecycle")),
                &[("Rental", "a bike hired by a customer"), ("Tier", "a customer's membership level")],
                &["com.pedalpoint.fleet"],
                None,
            ),
        ),
        record(
            "java:com.pedalpoint.billing",
            Level::Module,
            module(
                "Billing",
                Some(("  Rentals ", "billing is part of renting")),
                &[("Invoice", "what a customer pays")],
                &[],
                None,
            ),
        ),
        record(
            "java:com.pedalpoint.fleet",
            Level::Module,
            module(
                "Fleet",
                Some(("Fleet", "bikes and stations")),
                &[("rental", "a bike out of its station")],
                &[],
                Some("station ids are shared with rentals"),
            ),
        ),
        record(
            RENTAL,
            Level::Type,
            ty(
                "Rental",
                "One hire of a bike.",
                "aggregate",
                json!({
                    "aggregateRoot": true,
                    "fields": [{"name": "customer", "type": "Customer", "kind": "entityReference"},
                               {"name": "status", "type": "Status", "kind": "enum"}],
                    "relatesTo": [{"name": "Bike", "concept": "entity"}],
                    "stateMachine": {"states": ["OPEN", "FINISHED"], "transitions": [{"from": "OPEN", "to": "FINISHED", "operation": "finish"}]},
                    "domainTerms": ["Rental"]
                }),
            ),
        ),
        record(
            CUSTOMER,
            Level::Type,
            ty(
                "Customer",
                "A rider with a membership tier.",
                "entity",
                json!({"containedIn": "Rental", "fields": [{"name": "tier", "type": "Tier", "kind": "valueType"}]}),
            ),
        ),
        record(TIER, Level::Type, ty("Tier", "How much a rider pays.", "valueType", json!({}))),
        record(SERVICE, Level::Type, ty("Rental desk", "Starts and ends hires.", "applicationService", json!({}))),
        record(INVOICE, Level::Type, ty("Invoice", "What is billed.", "valueType", json!({}))),
        record(FLEET, Level::Type, ty("Fleet", "All stations.", "domainService", json!({}))),
        record(STATION, Level::Type, ty("Station", "Where bikes wait.", "entity", json!({}))),
        record(BIKE, Level::Type, ty("Bike", "A bike.", "entity", json!({}))),
        record(MONEY, Level::Type, ty("Money", "An amount.", "valueType", json!({}))),
        record(FINISH, Level::Operation, op("finish", Some("FinishRental"), &["RentalFinished"], &["Rental"])),
        record(RESERVE, Level::Operation, op("reserveAt", Some("RentalFinished"), &[], &[])),
    ];
    let failure = |id: &str, level| FailureRecord {
        id: id.into(),
        key: None,
        level,
        members: vec![id.into()],
        model: "m".into(),
        reason: FailureReason {
            kind: FailureKind::InvalidAnswer,
            message: "not JSON".into(),
            status: None,
            retryable: None,
        },
        attempts: 2,
        calls: 2,
        usage: None,
    };
    let failures = vec![failure("java:com.pedalpoint", Level::Module), failure(BIKE_TYPE, Level::Type)];
    let stale = HashMap::from([(BIKE.to_owned(), "its source changed".to_owned())]);
    (records, failures, stale)
}

fn view() -> DomainView {
    let facts = facts();
    let (records, failures, stale) = store();
    domain_view(&Inputs { facts: &facts, records: &records, failures: &failures, stale: &stale })
}

fn ids(list: &[Concept]) -> Vec<&str> {
    list.iter().map(|c| c.id.as_str()).collect()
}

#[test]
fn modules_are_grouped_by_their_hint_and_the_others_stand_alone() {
    let v = view();
    let names: Vec<(&str, &str, bool)> =
        v.contexts.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.hinted)).collect();
    assert_eq!(
        names,
        [
            ("com-pedalpoint", "com.pedalpoint", false),
            ("com-pedalpoint-common", "com.pedalpoint.common", false),
            ("fleet", "Fleet", true),
            ("rentals", "Rentals", true),
        ]
    );
    let rentals = v.context("rentals").unwrap();
    let modules: Vec<(&str, Status, Option<&str>)> =
        rentals.modules.iter().map(|m| (m.id.as_str(), m.status, m.rationale.as_deref())).collect();
    assert_eq!(
        modules,
        [
            ("java:com.pedalpoint.billing", Status::Explained, Some("billing is part of renting")),
            ("java:com.pedalpoint.rental", Status::Explained, Some("owns the rental lifecycle")),
        ]
    );
    assert_eq!(rentals.modules[1].confidence, Some(0.8));
    // A module without a record, and one that failed: their own contexts,
    // no concept given, listed as what they are.
    let common = v.context("com-pedalpoint-common").unwrap();
    assert_eq!(common.modules[0].status, Status::Unexplained);
    assert!(common.unexplained.iter().any(|u| u.id == "java:com.pedalpoint.common" && u.status == Status::Unexplained));
    assert_eq!(ids(&common.value_types), [MONEY], "a type's own record still counts in a module without one");
    let top = v.context("com-pedalpoint").unwrap();
    assert_eq!(top.modules[0].status, Status::Failed);
    assert!(top.aggregates.is_empty() && top.entities.is_empty() && top.services.is_empty());
}

#[test]
fn an_aggregate_holds_its_entities_value_types_relations_and_lifecycle() {
    let v = view();
    let rentals = v.context("rentals").unwrap();
    assert_eq!(rentals.aggregates.len(), 1);
    let a = &rentals.aggregates[0];
    assert_eq!(a.root.id, RENTAL);
    assert_eq!(ids(&a.entities), [CUSTOMER]);
    assert_eq!(ids(&a.value_types), [TIER], "named by a member's field");
    let rel: Vec<(&str, Option<&str>, &str, &str)> =
        a.relations.iter().map(|r| (r.from.as_str(), r.to.as_deref(), r.to_name.as_str(), r.via.as_str())).collect();
    assert_eq!(
        rel,
        [
            (RENTAL, Some(BIKE), "Bike", "relatesTo"),
            (RENTAL, Some(CUSTOMER), "Customer", "customer"),
            (CUSTOMER, Some(TIER), "Tier", "tier"),
        ]
    );
    assert_eq!(ids(&rentals.value_types), [INVOICE], "a value type no aggregate uses");
    assert_eq!(ids(&rentals.services), [SERVICE]);
    assert_eq!(rentals.services[0].name, "Rental desk", "the explanation's name");
    assert_eq!(rentals.state_machines.len(), 1);
    assert_eq!(rentals.state_machines[0].transitions, [("OPEN".into(), "FINISHED".into(), "finish".into())]);
    let fleet = v.context("fleet").unwrap();
    assert_eq!(ids(&fleet.entities), [BIKE, STATION]);
    assert!(fleet.entities[0].stale && !fleet.entities[1].stale);
    assert_eq!(ids(&fleet.services), [FLEET]);
}

#[test]
fn commands_and_events_name_their_operations() {
    let v = view();
    let rentals = v.context("rentals").unwrap();
    assert_eq!(rentals.commands, [Message { name: "FinishRental".into(), kind: None, units: vec![FINISH.into()] }]);
    assert_eq!(
        rentals.emits,
        [Message { name: "RentalFinished".into(), kind: Some("internal".into()), units: vec![FINISH.into()] }]
    );
    // reserveAt "handles" a name that is an emitted event: an event handled.
    let fleet = v.context("fleet").unwrap();
    assert!(fleet.commands.is_empty());
    assert_eq!(fleet.handles, [Message { name: "RentalFinished".into(), kind: None, units: vec![RESERVE.into()] }]);
}

#[test]
fn coverage_counts_what_is_explained_stale_failed_and_missing() {
    let v = view();
    let t = &v.coverage.types;
    assert_eq!((t.units, t.explained, t.stale, t.failed, t.unexplained), (28, 9, 1, 1, 18));
    let m = &v.coverage.modules;
    assert_eq!((m.units, m.explained, m.stale, m.failed, m.unexplained), (5, 3, 0, 1, 1));
    assert_eq!(v.coverage.operations.explained, 2);
    assert_eq!(v.coverage_line(), "9 of 28 types explained, 1 stale, 1 failed; 3 of 5 modules");
    let fleet = v.context("fleet").unwrap();
    assert!(fleet.unexplained.iter().any(|u| u.id == BIKE_TYPE && u.status == Status::Failed));
    assert!(!fleet.unexplained.iter().any(|u| u.id == BIKE), "a stale record is shown, marked");
}

#[test]
fn the_context_map_counts_its_evidence() {
    let v = view();
    let edge = v.context_map.iter().find(|e| e.from == "rentals" && e.to == "fleet").expect("rentals -> fleet");
    assert_eq!(edge.depends_on, 1, "the rental module's dependsOn");
    assert_eq!(edge.samples[0], ("java:com.pedalpoint.rental".into(), "java:com.pedalpoint.fleet".into()));
    assert!(edge.calls > 0 && edge.type_uses > 0, "{edge:?}");
    assert_eq!(edge.evidence, edge.depends_on + edge.calls + edge.type_uses);
    assert!(edge.samples.len() <= 3 * EVIDENCE_SAMPLES);
    // Every sampled call starts in a rentals unit and ends in a fleet one.
    for (from, to) in &edge.samples[1..] {
        assert!(
            from.contains("pedalpoint.rental")
                || from.contains("pedalpoint.billing")
                || from.contains("pedalpoint.common"),
            "{from}"
        );
        assert!(to.contains("pedalpoint.fleet"), "{to}");
    }
    assert!(v.context_map.iter().all(|e| e.from != e.to));
    assert_eq!(
        v.shared_kernels,
        [SharedKernel {
            module: "java:com.pedalpoint.fleet".into(),
            context: "fleet".into(),
            hint: "station ids are shared with rentals".into(),
            with: v
                .context_map
                .iter()
                .filter(|e| e.from == "fleet" && v.context_map.iter().any(|b| b.from == e.to && b.to == "fleet"))
                .map(|e| e.to.clone())
                .collect(),
        }]
    );
}

#[test]
fn the_glossary_gathers_definitions_uses_and_conflicts() {
    let v = view();
    let terms: Vec<&str> = v.glossary.iter().map(|g| g.term.as_str()).collect();
    assert_eq!(terms, ["Invoice", "Rental", "Tier"]);
    let rental = &v.glossary[1];
    assert!(rental.conflicting, "two meanings in two contexts");
    assert_eq!(
        rental.definitions,
        [
            Definition {
                context: "fleet".into(),
                definition: "a bike out of its station".into(),
                module: "java:com.pedalpoint.fleet".into()
            },
            Definition {
                context: "rentals".into(),
                definition: "a bike hired by a customer".into(),
                module: "java:com.pedalpoint.rental".into()
            },
        ]
    );
    assert_eq!(rental.contexts, ["fleet", "rentals"]);
    assert_eq!(rental.units, [RENTAL, SERVICE, FINISH], "listed among their terms, or in a name (\"Rental desk\")");
    let tier = &v.glossary[2];
    assert!(!tier.conflicting);
    assert_eq!(tier.units, [CUSTOMER, TIER], "named in a description, and by its own name");
    let invoice = &v.glossary[0];
    assert_eq!(invoice.contexts, ["rentals"]);
    assert_eq!(invoice.units, [INVOICE]);
    assert_eq!(v.context("rentals").unwrap().terms, ["Invoice", "Rental", "Tier"]);
    assert_eq!(v.context("fleet").unwrap().terms, ["Rental"]);
}

#[test]
fn the_json_form_names_its_format() {
    let v = view();
    let j: Value = serde_json::from_str(&v.to_json()).unwrap();
    assert_eq!(j["format"], FORMAT);
    assert_eq!(j["contexts"][3]["aggregates"][0]["root"]["concept"], "aggregate");
    assert_eq!(j["coverage"]["types"]["stale"], 1);
}

#[test]
fn markdown_and_mermaid_keep_markup_as_text() {
    assert_eq!(markdown::text("a <script>x</script> `b` *c*"), "a \\<script\\>x\\</script\\> \\`b\\` \\*c\\*");
    assert_eq!(markdown::code("a`b"), "``a`b``");
    assert_eq!(markdown::code("`x"), "`` `x ``");
    assert_eq!(
        markdown::label("say \"hi\" <b>#1</b> `x` & [y]"),
        "\"say #quot;hi#quot; #lt;b#gt;#35;1#lt;/b#gt; #96;x#96; #amp; [y]\""
    );
    assert_eq!(markdown::label("%%{init: {}}%% 5%"), "\"#37;#37;{init: {}}#37;#37; 5#37;\"");
    assert_eq!(markdown::plain("a --> b; c\"d"), "a -- b c d");
    assert_eq!(markdown::plain("<>"), "-");
    let v = view();
    let files = markdown::files(&v);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["index.md", "com-pedalpoint.md", "com-pedalpoint-common.md", "fleet.md", "rentals.md"]);
    let rentals = &files[4].1;
    assert!(rentals.contains("```mermaid\nclassDiagram\n"), "{rentals}");
    assert!(rentals.contains("\n  <<aggregateRoot>> t0\n"), "an annotation Mermaid parses (one word): {rentals}");
    assert!(rentals.contains("```mermaid\nstateDiagram-v2\n"), "{rentals}");
    assert!(files[0].1.contains("```mermaid\nflowchart LR\n"));
    assert!(files[0].1.contains("**Rental** — **defined differently in two contexts**"));
}
