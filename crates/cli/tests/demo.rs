//! The offline demo corpus (`fixtures/demo`) through `codegraph-insights`:
//! its plan figures are pinned here so that a change to the corpus, the
//! generator (`cargo xtask demo`) or the planner that moves them is
//! deliberate; a real run with the demo completer finishes and a second one
//! reuses everything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;

use common::{bin, demo, workspace};

fn tmp(name: &str) -> PathBuf {
    common::tmp_dir("demo", name)
}

fn plan(cwd: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let out = bin()
        .current_dir(cwd)
        .args(["explain", &demo("model.jsonl"), "--dry-run", "--json"])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

/// Units whose members are more than one, by level: the cycles the walk
/// made into one unit.
fn cycles(plan: &serde_json::Value) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for s in plan["steps"].as_array().unwrap() {
        let members: Vec<String> =
            s["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
        if members.len() > 1 {
            out.entry(s["level"].as_str().unwrap().to_owned()).or_default().push(members);
        }
    }
    out
}

#[test]
fn the_demo_plan_figures() {
    let (v, err) = plan(&workspace(), &["--src", &demo("demo-src.zip")]);
    assert!(err.contains("root the archive's top level: 23 of the model's 23 files found"), "{err}");
    assert!(!err.contains("could not be read"), "{err}");
    let e = &v["estimates"];
    let steps = v["steps"].as_array().unwrap();
    let layers: std::collections::BTreeSet<u64> = steps.iter().map(|s| s["layer"].as_u64().unwrap()).collect();
    let figures = serde_json::json!({
        "units": steps.len(),
        "layers": layers.len(),
        "calls": e["calls"],
        "byStatus": e["byStatus"],
        "operation": [e["byLevel"]["operation"]["units"], e["byLevel"]["operation"]["calls"]],
        "type": [e["byLevel"]["type"]["units"], e["byLevel"]["type"]["calls"]],
        "module": [e["byLevel"]["module"]["units"], e["byLevel"]["module"]["calls"]],
    });
    assert_eq!(
        figures,
        serde_json::json!({
            "units": 163,
            "layers": 10,
            "calls": 104,
            "byStatus": {"llm": 104, "template": 59, "reuse": 0, "skip-scope": 0, "skip-budget": 0},
            "operation": [133, 74],
            "type": [26, 26],
            "module": [4, 4],
        }),
        "the demo's plan moved: if that is meant, update this test and fixtures/demo/README.md"
    );
    // Cycles become one unit: two type cycles (Bike ⇄ Rental across packages,
    // Fleet ⇄ its inner Availability) and one package cycle (fleet ⇄ rental).
    let p = "java:com.pedalpoint";
    let expected: BTreeMap<String, Vec<Vec<String>>> = [
        (
            "type".to_owned(),
            vec![
                vec![format!("{p}.fleet/Bike"), format!("{p}.rental/Rental")],
                vec![format!("{p}.fleet/Fleet"), format!("{p}.fleet/Fleet.Availability")],
            ],
        ),
        ("module".to_owned(), vec![vec![format!("{p}.fleet"), format!("{p}.rental")]]),
    ]
    .into();
    assert_eq!(cycles(&v), expected);
    // Dependencies first: a member's unit never comes before what it uses.
    let layer_of = |id: &str| steps.iter().find(|s| s["id"] == id).unwrap()["layer"].as_u64().unwrap();
    assert!(layer_of(&format!("{p}.common/Money")) < layer_of(&format!("{p}.billing/Invoice")));
    assert!(layer_of(&format!("{p}.billing")) < layer_of(p));

    // The same plan from the directory the archive was made of, and from the
    // model's recorded root (relative to the workspace).
    let (dir, _) = plan(Path::new("/"), &["--src", &demo("src/main/java")]);
    assert_eq!(dir, v);
    let (recorded, err) = plan(&workspace(), &[]);
    assert!(!err.contains("facts only"), "{err}");
    assert_eq!(recorded, v);
}

#[test]
fn the_text_plan_shows_templates_and_cycles() {
    let out = bin()
        .current_dir(workspace())
        .args(["explain", "fixtures/demo/model.jsonl", "--src", "fixtures/demo/demo-src.zip", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("explain plan: 163 units in 10 layers\n"), "{text}");
    assert!(text.contains("\n  statuses: llm 104, template 59, reuse 0, skip-scope 0, skip-budget 0\n"), "{text}");
    for templated in [
        "operation java:com.pedalpoint.fleet/Bike.getSerial()",
        "operation java:com.pedalpoint.rental/Customer.setTier(com.pedalpoint.rental.Customer.Tier)",
        "operation java:com.pedalpoint.common/Money.hashCode()",
        "operation java:com.pedalpoint.rental/Rental.<init>(java.lang.String,com.pedalpoint.rental.Customer,com.pedalpoint.fleet.Bike)",
    ] {
        assert!(text.lines().any(|l| l.starts_with("template ") && l.ends_with(templated)), "{templated}\n{text}");
    }
    assert!(text.contains(" type      java:com.pedalpoint.fleet/Bike cycle(2) calls=1 ~"), "{text}");
    assert!(text.contains(" module    java:com.pedalpoint.fleet cycle(2) calls=1 ~"), "{text}");
}

#[test]
fn a_demo_run_finishes_and_a_second_reuses_everything() {
    let dir = tmp("run");
    let out = dir.join("demo.insights.jsonl");
    let run = || {
        let o = bin()
            .args(["explain", &demo("model.jsonl"), "--src", &demo("demo-src.zip"), "--provider", "demo", "--yes"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(0), "{err}");
        err
    };
    let first = run();
    assert!(
        first.contains("166 records in ")
            && first.contains(": 107 explained, 59 templated, 0 reused, 0 failed, 0 skipped"),
        "{first}"
    );
    assert!(first.contains("104 call(s)"), "{first}");
    let records = std::fs::read_to_string(&out).unwrap();
    assert_eq!(records.lines().count(), 1 + 166 + 1, "header, records, trailer");
    let second = run();
    assert!(second.contains(": 0 explained, 59 templated, 107 reused, 0 failed, 0 skipped"), "{second}");
    assert!(second.contains("0 call(s)"), "{second}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh demo run judged by `insights::stale` against a plan made now: every
/// record is current, from the side-car and from the store. After a second
/// run with another model for one unit only, the store still knows which
/// model asked for each older record (its run ledger); the side-car's
/// header only names the last run's.
#[test]
fn a_demo_run_is_current_and_its_store_knows_the_model_each_record_was_asked_of() {
    use insights::plan::{plan_run, Models, PlanOptions};
    use insights::stale::{staleness, stamps_of, Basis, Freshness, StaleReason, Staleness, Stamp};

    let dir = tmp("stale");
    std::fs::copy(demo("model.jsonl"), dir.join("model.jsonl")).unwrap();
    let explain = |extra: &[&str]| {
        let o = bin()
            .current_dir(&dir)
            .args(["explain", "model.jsonl", "--src", &demo("demo-src.zip"), "--provider", "demo", "--yes"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    };
    explain(&[]);
    let text = std::fs::read_to_string(dir.join("model.jsonl")).unwrap();
    let m = model::read_model(text.as_bytes(), "model.jsonl").unwrap();
    let corpus = insights::units::Corpus::build(&m, analyzer::view::View::from_flags(false, false), None).unwrap();
    let zip = std::fs::read(demo("demo-src.zip")).unwrap();
    let src = sources::Archive::parse("demo-src.zip", &zip).unwrap();
    let sidecar = || {
        let text = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
        insights::sidecar::decode("model.insights.jsonl", &text).unwrap()
    };
    let stamps = || store::Store::open_reader(dir.join("model.insights.db")).unwrap().stamps().unwrap();
    // What the records' header says they were made under, against a plan
    // with `leaf` for every level now.
    let judge = |stamps: &hashbrown::HashMap<String, Stamp>, header: &insights::record::SidecarHeader, leaf: &str| {
        let models = Models { leaf: leaf.into(), rollup: leaf.into() };
        let options = PlanOptions { models: models.clone(), depth: header.depth, ..PlanOptions::default() };
        let slicer = insights::slice::SourceSlicer::new(&src, options.max_lines);
        let plan = plan_run(&corpus, &slicer, &insights::records::NoRecords, &options);
        staleness(stamps, &Basis::of_header(header), &Basis::current(models), &corpus.walk, &plan)
    };
    let luna = insights::plan::DEFAULT_MODEL;

    let first = sidecar();
    let from_sidecar = judge(&stamps_of(&first.records), &first.header, luna);
    assert_eq!((from_sidecar.records.len(), from_sidecar.stale_count()), (166, 0));
    let from_store = judge(&stamps(), &first.header, luna);
    assert_eq!((from_store.records.len(), from_store.stale_count()), (166, 0));
    assert!(stamps().values().all(|s| s.model.as_deref() == Some(luna)), "the run's model, not the demo's `demo`");

    // Another model for one type: it and its operations are asked again
    // (templates are written by every run); the rest was asked of the first.
    let terminal = "java:com.pedalpoint.billing/CardTerminal";
    let charge = "java:com.pedalpoint.billing/CardTerminal.charge(java.lang.String,com.pedalpoint.common.Money)";
    explain(&["--model", "other/model", "--scope", terminal]);
    let second = sidecar();
    assert_eq!(second.header.models.leaf, "other/model");
    let from_store: Staleness = judge(&stamps(), &second.header, "other/model");
    let model = Freshness::Stale(StaleReason::Model { was: luna.into(), now: "other/model".into() });
    for op in [charge, "java:com.pedalpoint.billing/CardTerminal.<init>()"] {
        assert_eq!(from_store.get(op), Some(&Freshness::Current), "{op}");
    }
    assert_eq!(from_store.get("java:com.pedalpoint.rental/RentalService"), Some(&model));
    // The type was asked again, but its fingerprint hashed its dependencies
    // as this scoped run planned them (out of scope, still the first
    // model's): they are stale, so it is.
    let Some(Freshness::Stale(StaleReason::Dependency { ids })) = from_store.get(terminal) else {
        panic!("{:?}", from_store.get(terminal))
    };
    assert!(ids.iter().any(|id| id == "java:com.pedalpoint.billing/PaymentGateway"), "{ids:?}");
    let current = from_store.records.values().filter(|f| f.is_current()).count();
    assert_eq!(current, 2 + 59, "the two operations asked again, and the templates");
    let by_model = from_store.records.values().filter(|f| **f == model).count();
    assert_eq!(by_model, 166 - current - 1, "everything else was asked of the first model");
    // The side-car cannot tell: its header names the last run's model only.
    let from_sidecar = judge(&stamps_of(&second.records), &second.header, "other/model");
    assert_ne!(from_sidecar.get("java:com.pedalpoint.rental/RentalService"), Some(&model));
    assert_eq!(from_sidecar.stale_count(), from_store.stale_count());
    std::fs::remove_dir_all(&dir).unwrap();
}
