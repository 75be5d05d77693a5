//! `codegraph-insights insights` as a user runs it, over a real store that
//! `explain --provider demo` built from the upstream Java fixture (79
//! records: 70 explained, 9 templated).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_codegraph-insights"))
}

fn fixture() -> String {
    format!("{}/../../fixtures/upstream-java/model.jsonl", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cgi-insights-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

/// A copy of the fixture in a fresh directory, explained by the offline demo.
fn explained(name: &str) -> (PathBuf, PathBuf) {
    let dir = tmp(name);
    let model = dir.join("model.jsonl");
    std::fs::copy(fixture(), &model).unwrap();
    let out = bin().arg("explain").arg(&model).args(["--provider", "demo", "--yes"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.join("model.insights.db").is_file());
    (dir, model)
}

/// Runs `insights MODEL ARGS…`.
fn insights(model: &Path, args: &[&str]) -> Output {
    bin().arg("insights").arg(model).args(args).output().unwrap()
}

const ORDER: &str = "java:com.acme.order/Order";
const CTOR: &str = "java:com.acme.order/Order.<init>(java.lang.String)";
const BASKET: &str = "java:com.acme.order/Basket";
const CURSOR: &str = "java:com.acme.order/Basket.Cursor";

/// A second store holding the demo's records minus three, owed as two
/// failures: the constructor (a provider 402) and the Basket cycle (one row
/// for both members). Made the way a user would: export, edit, import.
fn with_failures(name: &str) -> (PathBuf, PathBuf) {
    let (src_dir, _) = explained(&format!("{name}-src"));
    let sidecar = text(&std::fs::read(src_dir.join("model.insights.jsonl")).unwrap());
    let dropped = [CTOR, BASKET, CURSOR];
    let mut lines: Vec<String> = sidecar
        .lines()
        .filter(|l| !dropped.iter().any(|id| l.starts_with(&format!("{{\"t\":\"i\",\"id\":{}", serde_json::json!(id)))))
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), sidecar.lines().count() - 3);
    let eof = lines.pop().unwrap();
    assert!(eof.starts_with("{\"t\":\"eof\""), "{eof}");
    let ctor = serde_json::json!(CTOR);
    lines.push(format!(
        "{{\"t\":\"f\",\"id\":{ctor},\"level\":\"operation\",\"members\":[{ctor}],\"model\":\"openai/gpt-4.1-mini\",\
         \"reason\":{{\"kind\":\"provider\",\"message\":\"Payment required\\nsee your account\",\"status\":402,\
         \"retryable\":false}},\"attempts\":1,\"calls\":0}}"
    ));
    lines.push(format!(
        "{{\"t\":\"f\",\"id\":\"{BASKET}\",\"level\":\"type\",\"members\":[\"{BASKET}\",\"{CURSOR}\"],\
         \"model\":\"openai/gpt-4.1-mini\",\"reason\":{{\"kind\":\"invalid-answer\",\"message\":\"a member is \
         missing\"}},\"attempts\":2,\"calls\":2}}"
    ));
    lines.push(eof.replace("\"records\":79", "\"records\":76").replace("\"failed\":0", "\"failed\":2"));
    let dir = tmp(name);
    let file = dir.join("edited.insights.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let model = dir.join("model.jsonl");
    std::fs::copy(fixture(), &model).unwrap();
    let out = bin().arg("explain").arg(&model).arg("--import").arg(&file).arg("--yes").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&src_dir);
    (dir, model)
}

#[test]
fn summary_counts_what_the_store_holds() {
    let (dir, model) = explained("summary");
    let out = insights(&model, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], format!("insights: {}", dir.join("model.insights.db").display()));
    assert_eq!(lines[1], "79 records: operation 57, type 19, module 3; explained 70, templated 9");
    assert!(lines[2].starts_with("models: ") && lines[2].ends_with("; depth 1; provider demo"), "{t}");
    assert!(lines[3].starts_with("concepts: "), "{t}");
    assert!(lines[4].contains("none owed"), "{t}");
    assert!(lines[5].contains("0 prompt + 0 completion tokens"), "{t}");
    assert_eq!(lines[6], "ledger: 1 run, 68 calls, 0 + 0 tokens");
    assert_eq!(lines.len(), 7, "{t}");
    assert!(out.stderr.is_empty());
    // --stats asks the same question explicitly.
    assert_eq!(insights(&model, &["--stats"]).stdout, out.stdout);

    let out = insights(&model, &["--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["kind"], "codegraph.insightsSummary/1");
    assert_eq!(v["store"], dir.join("model.insights.db").display().to_string());
    assert_eq!(v["header"]["kind"], "codegraph.insights/1");
    assert_eq!(v["header"]["provider"], "demo");
    let s = &v["stats"];
    assert_eq!(s["records"], 79);
    assert_eq!(s["failures"], 0);
    assert_eq!(s["byLevel"], serde_json::json!({"operation": 57, "type": 19, "module": 3}));
    assert_eq!(s["byOrigin"], serde_json::json!({"llm": 70, "template": 9}));
    assert_eq!(s["byConcept"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum::<u64>(), 19);
    assert_eq!(s["usage"]["promptTokens"], 0);
    assert_eq!(v["runs"].as_array().unwrap().len(), 1);
    // Identical inputs, identical bytes.
    assert_eq!(insights(&model, &["--json"]).stdout, out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_query_lists_rows_by_level_with_a_limit() {
    let (dir, model) = explained("list");
    let out = insights(&model, &["--level", "type", "--limit", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let rows: Vec<Vec<&str>> = t.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 5, "{t}");
    for r in &rows {
        assert_eq!(r.len(), 4, "{r:?}");
        assert!(r[0].starts_with("java:"), "{r:?}");
        assert_eq!(r[2], "0.10", "{r:?}");
        assert!(r[3].starts_with("Written from the code's facts, not by an LLM: `"), "{r:?}");
    }
    let ids: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "side-car order");

    let out = insights(&model, &["--level", "type", "--limit", "5", "--json"]);
    let v = json(&out);
    assert_eq!(v["kind"], "codegraph.insightsList/1");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for r in rows {
        assert_eq!(r["level"], "type");
        for key in ["id", "kind", "origin", "confidence", "description"] {
            assert!(r.get(key).is_some(), "{key} in {r}");
        }
        assert!(r.get("block").is_none(), "rows never carry blocks");
    }
    assert_eq!(rows.iter().map(|r| r["id"].as_str().unwrap()).collect::<Vec<_>>(), ids);

    // Without a limit: every operation; a concept filter; several ids.
    assert_eq!(text(&insights(&model, &["--level", "operation"]).stdout).lines().count(), 57);
    assert_eq!(text(&insights(&model, &["--level", "module"]).stdout).lines().count(), 3);
    let out = insights(&model, &["--id", &format!("{CTOR},{ORDER}"), "--json"]);
    let got: Vec<String> = json(&out)["rows"].as_array().unwrap().iter().map(|r| r["id"].to_string()).collect();
    assert_eq!(got, [serde_json::json!(CTOR).to_string(), serde_json::json!(ORDER).to_string()]);
    let out = insights(&model, &["--id", ORDER, "--id", BASKET]);
    assert_eq!(text(&out.stdout).lines().count(), 2);

    // Confidence: templated members are certain, demo blocks are not.
    let t = text(&insights(&model, &["--min-confidence", "0.5"]).stdout);
    assert_eq!(t.lines().count(), 9, "{t}");
    assert!(t.lines().all(|l| l.split('\t').nth(2) == Some("1.00")), "{t}");
    assert_eq!(text(&insights(&model, &["--max-confidence", "0.5"]).stdout).lines().count(), 70);

    // Nothing matches: a note on stderr, still exit 0.
    let out = insights(&model, &["--level", "module", "--min-confidence", "0.5"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("no record matches"), "{}", text(&out.stderr));
    let out = insights(&model, &["--concept", "aggregate", "--json"]);
    assert_eq!(json(&out)["rows"], serde_json::json!([]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_explained_id_shows_its_record() {
    let (dir, model) = explained("one");
    let out = insights(&model, &["--id", ORDER]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], ORDER);
    assert!(lines[1].starts_with("  type (class) · ") && lines[1].ends_with(" · confidence 0.10"), "{t}");
    assert!(lines[2].starts_with("  com/acme/order/Order.java · llm"), "{t}");
    assert_eq!(lines[3], "");
    assert_eq!(
        lines[4],
        "Written from the code's facts, not by an LLM: `Order` is a class in the module `com.acme.order` that extends \
         `AbstractOrder`. Its fields are `MAX_LINES`, `channel: Channel` and `trail: StringBuilder`. Its methods are \
         `channel` and `discount`; it has 2 constructors. Within the code base it depends on `AbstractOrder`, \
         `Audited`, `Channel` and `Money`; `Notifications` and `OrderService` depend on it.",
        "{t}"
    );
    assert!(t.contains("\n{\n  \"name\": \"Order\",\n"), "{t}");
    assert!(!t.contains("\"description\""), "the description is shown once, as text: {t}");
    assert!(t.ends_with("\n}\n"), "{t}");

    let out = insights(&model, &["--id", ORDER, "--json"]);
    assert_eq!(out.status.code(), Some(0));
    // The record exactly as the side-car carries it.
    let line = text(&out.stdout);
    let sidecar = text(&std::fs::read(dir.join("model.insights.jsonl")).unwrap());
    assert!(sidecar.lines().any(|l| l == line.trim_end()), "{line}");
    let v = json(&out);
    assert_eq!(v["t"], "i");
    assert_eq!(v["id"], ORDER);
    assert_eq!(v["level"], "type");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_id_nobody_asked_about_is_unknown() {
    let (dir, model) = explained("unknown");
    // A parameter of an operation: an entity of the model, not a unit.
    let param = format!("{CTOR}#p0");
    let out = insights(&model, &["--id", &param]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains(&param) && err.contains("model.insights.db"), "{err}");
    assert!(err.contains("\nhint: "), "{err}");

    let out = insights(&model, &["--id", &param, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v = json(&out);
    assert_eq!(v, serde_json::json!({"kind": "codegraph.insight/1", "id": param, "status": "unknown"}));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_id_exits_3_and_says_why() {
    let (dir, model) = with_failures("failed");
    let out = insights(&model, &["--id", CTOR]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains(CTOR) && err.contains("provider 402: Payment required see your account"), "{err}");
    assert!(err.contains("1 attempt with openai/gpt-4.1-mini"), "{err}");
    assert!(err.contains("--retry-failed"), "{err}");

    let out = insights(&model, &["--id", CTOR, "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let v = json(&out);
    assert_eq!(v["kind"], "codegraph.insight/1");
    assert_eq!(v["status"], "failed");
    assert_eq!(v["failure"]["t"], "f");
    assert_eq!(v["failure"]["reason"]["status"], 402);

    // A failed cycle is one row owed for all its members.
    let out = insights(&model, &["--id", CURSOR, "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let v = json(&out);
    assert_eq!(v["id"], CURSOR);
    assert_eq!(v["failure"]["id"], BASKET);
    assert!(text(&out.stderr).contains(&format!("cycle unit {BASKET}")), "{}", text(&out.stderr));

    // The others are still explained.
    assert_eq!(insights(&model, &["--id", ORDER]).status.code(), Some(0));

    // --failures: one tab-separated line per owed unit.
    let out = insights(&model, &["--failures"]);
    assert_eq!(out.status.code(), Some(0));
    let t = text(&out.stdout);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{CTOR}\toperation\tprovider 402\t1 attempt\tPayment required"),
            format!("{BASKET}\ttype\tinvalid-answer\t2 attempts\ta member is missing"),
        ]
    );
    let v = json(&insights(&model, &["--failures", "--json"]));
    assert_eq!(v["kind"], "codegraph.insightsFailures/1");
    assert_eq!(v["failures"].as_array().unwrap().len(), 2);
    assert_eq!(v["failures"][1]["members"], serde_json::json!([BASKET, CURSOR]));

    // The summary points at them; the ledger is empty (imported content).
    let t = text(&insights(&model, &[]).stdout);
    assert!(t.contains("76 records: operation 56, type 17, module 3"), "{t}");
    assert!(t.contains("failures: 2 units owed"), "{t}");
    assert!(t.contains("insights --failures") || t.contains("--failures`"), "{t}");
    assert!(t.contains("ledger: empty"), "{t}");
    let out = insights(&model, &["--runs"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("ledger is empty"), "{}", text(&out.stderr));
    let v = json(&insights(&model, &["--runs", "--json"]));
    assert_eq!(v, serde_json::json!({"kind": "codegraph.insightsRuns/1", "runs": []}));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_list_the_ledger() {
    let (dir, model) = explained("runs");
    let out = insights(&model, &["--runs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 1, "{t}");
    let cols: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(cols.len(), 5, "{t}");
    assert_eq!(cols[0], "#1");
    assert!(cols[1].contains(" → ") && !cols[1].contains('…'), "{t}");
    assert!(!cols[2].contains(','), "one model for both levels: {t}");
    assert_eq!(cols[3], "70 explained, 9 templated, 0 reused, 0 failed");
    assert_eq!(cols[4], "68 calls, 0 + 0 tokens");

    let v = json(&insights(&model, &["--runs", "--json"]));
    assert_eq!(v["kind"], "codegraph.insightsRuns/1");
    let run = &v["runs"][0];
    assert_eq!(run["id"], 1);
    assert_eq!(run["provider"], "demo");
    assert_eq!(run["depth"], 1);
    assert_eq!(run["counts"], serde_json::json!({"llm": 70, "template": 9, "reused": 0, "failed": 0, "calls": 68}));
    assert!(run["startedAt"].is_string() && run["finishedAt"].is_string());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_store_is_a_usage_error_and_is_not_created() {
    let dir = tmp("missing");
    let model = dir.join("model.jsonl");
    std::fs::copy(fixture(), &model).unwrap();
    let out = insights(&model, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains(&dir.join("model.insights.db").display().to_string()), "{err}");
    assert!(err.contains("codegraph-insights explain") && err.contains("--store"), "{err}");
    assert!(!dir.join("model.insights.db").exists());

    // --store names another file; the model need not exist at all.
    let elsewhere = dir.join("nowhere.db");
    let out = bin().arg("insights").arg("--store").arg(&elsewhere).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nowhere.db"));
    assert!(!elsewhere.exists());

    // A file that is not a store is refused, named, and left alone.
    std::fs::write(&elsewhere, "not sqlite at all, just text of some length to be safe.......").unwrap();
    let before = std::fs::read(&elsewhere).unwrap();
    let out = bin().arg("insights").arg("--store").arg(&elsewhere).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nowhere.db"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&elsewhere).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_question_per_invocation_and_flag_values_are_checked() {
    let (dir, model) = explained("flags");
    for (args, named) in [
        (vec!["--id", ORDER, "--runs"], ["--id", "--runs"]),
        (vec!["--failures", "--level", "type"], ["--failures", "--level"]),
        (vec!["--id", ORDER, "--limit", "3"], ["--id", "--limit"]),
        (vec!["--stats", "--runs"], ["--runs", "--stats"]),
    ] {
        let out = insights(&model, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(named.iter().all(|f| err.contains(f)), "{args:?}: {err}");
    }
    for args in [["--min-confidence", "1.5"], ["--max-confidence", "-0.1"], ["--limit", "0"], ["--level", "package"]] {
        let out = insights(&model, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(args[0]) && err.contains(args[1]), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn out_and_store_select_the_same_store() {
    let (dir, model) = explained("where");
    let by_model = insights(&model, &["--json"]);
    let by_out = bin()
        .arg("insights")
        .arg("--out")
        .arg(dir.join("model.insights.jsonl"))
        .arg(&model)
        .arg("--json")
        .output()
        .unwrap();
    let by_store =
        bin().arg("insights").arg("--store").arg(dir.join("model.insights.db")).arg("--json").output().unwrap();
    for o in [&by_out, &by_store] {
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert_eq!(o.stdout, by_model.stdout);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_reader_never_writes() {
    let (dir, model) = with_failures("readonly");
    let listing = |d: &Path| {
        let mut names: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    let db = dir.join("model.insights.db");
    let before = std::fs::read(&db).unwrap();
    let modified = std::fs::metadata(&db).unwrap().modified().unwrap();
    let names = listing(&dir);
    let questions: [&[&str]; 9] = [
        &[],
        &["--json"],
        &["--level", "type"],
        &["--id", ORDER],
        &["--id", CTOR],
        &["--id", "java:nobody/Asked"],
        &["--failures"],
        &["--runs", "--json"],
        &["--min-confidence", "0.2", "--json"],
    ];
    for args in questions {
        let out = insights(&model, args);
        assert!(matches!(out.status.code(), Some(0 | 2 | 3)), "{args:?}: {}", text(&out.stderr));
    }
    assert_eq!(std::fs::read(&db).unwrap(), before, "the store's bytes");
    assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), modified);
    assert_eq!(listing(&dir), names, "no file added or left behind");
    let _ = std::fs::remove_dir_all(&dir);
}
