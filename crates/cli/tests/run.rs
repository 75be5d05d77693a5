//! `codegraph-insights explain` for real, end to end: a loopback server that
//! speaks the chat-completions shape stands in for the provider.

use std::io::BufRead;
use std::process::Stdio;
use testkit::{FaultRule, MockConfig, MockProvider};

mod common;

use common::bin;

fn workdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cgi-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let fixture = format!("{}/../../fixtures/upstream-java/model.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(fixture, d.join("model.jsonl")).unwrap();
    d
}

fn mock(faults: &[&str]) -> MockProvider {
    MockProvider::start(MockConfig {
        faults: faults.iter().map(|f| FaultRule::parse(f).unwrap()).collect(),
        ..MockConfig::default()
    })
}

fn explain(dir: &std::path::Path, server: &MockProvider, extra: &[&str]) -> std::process::Output {
    bin()
        .current_dir(dir)
        .args(["explain", "model.jsonl", "--provider", "openai-compatible", "--base-url", &server.url(), "--yes"])
        // The fixture's sources are not available: explained from facts, as the user allows.
        .arg("--no-source")
        .args(extra)
        .output()
        .unwrap()
}

fn records(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).filter(|v| v["t"] == "i").collect()
}

#[test]
fn a_full_run_then_a_second_that_reuses_everything() {
    let dir = workdir("full");
    let server = mock(&[]);
    let out = explain(&dir, &server, &["--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(server.count(), 68, "one call per planned call");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["kind"], "codegraph.explainSummary/1");
    assert_eq!(summary["counts"]["calls"], 68);
    assert_eq!(summary["counts"]["template"], 9);
    assert_eq!(summary["counts"]["records"], 79);
    assert_eq!(summary["usage"]["promptTokens"], 6800);
    assert_eq!(summary["outputModes"], serde_json::json!({insights::plan::DEFAULT_MODEL: "json-schema"}));
    // Keys in the documented order; nothing absent is written as null.
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(line.starts_with(r#"{"kind":"codegraph.explainSummary/1","out":"#), "{line}");
    assert!(line.contains(r#""usage":{"promptTokens":6800,"completionTokens":1360,"cost":0.068"#), "{line}");
    assert!(!line.contains("null") && !line.contains("aborted"), "{line}");
    assert!(err.contains("[77/77] module java:com.acme.order: 1 call, 100+20 tokens"), "{err}");
    let recs = records(&dir);
    assert_eq!(recs.len(), 79);
    assert_eq!(recs.iter().filter(|r| r["origin"] == "template").count(), 9);
    assert!(recs.iter().filter(|r| r["origin"] == "llm").all(|r| r["model"].as_str().unwrap().ends_with("-served")));
    let sidecar = std::fs::read(dir.join("model.insights.jsonl")).unwrap();

    let again = mock(&[]);
    let out = explain(&dir, &again, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(again.count(), 0, "everything is reused");
    // The body is identical; only the trailer's counts and timestamp move.
    let second = std::fs::read(dir.join("model.insights.jsonl")).unwrap();
    let body = |b: &[u8]| {
        String::from_utf8_lossy(b).lines().filter(|l| !l.starts_with("{\"t\":\"eof\"")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(body(&sidecar), body(&second));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn changing_one_method_re_explains_exactly_its_dependents() {
    let dir = workdir("change");
    let server = mock(&[]);
    assert_eq!(explain(&dir, &server, &[]).status.code(), Some(0));
    // Change the facts of one method: its cyclomatic complexity.
    let path = dir.join("model.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let target = "\"s\":\"Money.times(int)\",";
    let line = text.lines().find(|l| l.contains(target) && l.contains("\"k\":8")).expect("the method line");
    let changed = line.replacen("\"cyclomatic\":1", "\"cyclomatic\":4", 1);
    assert_ne!(line, changed);
    std::fs::write(&path, text.replacen(line, &changed, 1)).unwrap();

    // Expected: the unit of Money.plus and every unit that depends on it, transitively.
    let m = model::read_model(std::io::BufReader::new(std::fs::File::open(&path).unwrap()), "m").unwrap();
    let corpus = insights::units::Corpus::build(&m, analyzer::view::View::all(), None).unwrap();
    let start = corpus.walk.unit_of("java:com.acme.order/Money.times(int)").unwrap().id.clone();
    let mut moved = std::collections::BTreeSet::new();
    moved.insert(start);
    for u in &corpus.walk.units {
        if u.deps.iter().any(|d| moved.contains(&**d)) {
            moved.insert(u.id.clone());
        }
    }
    let out = bin().current_dir(&dir).args(["explain", "model.jsonl", "--dry-run", "--json"]).output().unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let llm: std::collections::BTreeSet<String> = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "llm")
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(llm, moved);
    assert!(llm.len() > 2 && llm.len() < 20, "{llm:?}");
    let second = mock(&[]);
    assert_eq!(explain(&dir, &second, &[]).status.code(), Some(0));
    assert_eq!(second.count(), moved.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fatal_status_stops_the_run_and_a_rerun_finishes_it() {
    let dir = workdir("abort");
    let server = mock(&["402@3"]);
    let out = explain(&dir, &server, &["--concurrency", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(server.count(), 3, "no call starts after the 402");
    assert!(err.contains("status 402"), "{err}");
    assert!(err.contains("--max-tokens"), "the 402 hint: {err}");
    let text = std::fs::read_to_string(dir.join("model.insights.jsonl")).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("{\"t\":\"f\"")).count(), 1, "only the refused unit is owed");
    let rerun = mock(&[]);
    let out = explain(&dir, &rerun, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(rerun.count(), 68 - 2);
    assert_eq!(records(&dir).len(), 79);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_terminal_and_no_yes_is_a_usage_error_never_an_unasked_spend() {
    let dir = workdir("noterm");
    let server = mock(&[]);
    let out = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--provider", "openai-compatible", "--base-url", &server.url()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert_eq!(server.count(), 0);
    assert!(!dir.join("model.insights.db").exists(), "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn killed_mid_run_the_next_run_reuses_every_committed_unit() {
    let dir = workdir("kill");
    let server = mock(&["slow:150@*"]);
    let mut child = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--provider", "openai-compatible", "--base-url", &server.url(), "--yes"])
        // The fixture's sources are not available: explained from facts, as the user allows.
        .arg("--no-source")
        .args(["--concurrency", "2"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for 20 finished steps, then SIGKILL.
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    let mut seen = 0;
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with('[') {
            seen += 1;
            if seen == 20 {
                break;
            }
        }
    }
    assert_eq!(seen, 20);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let asked_before = server.count();

    // What the store holds now: every unit committed before the kill.
    let store = store::Store::open_reader(dir.join("model.insights.db")).unwrap();
    let committed = store.count().unwrap();
    let open = store.open_runs().unwrap();
    assert_eq!(open.len(), 1, "the killed run is still open");
    drop(store);
    assert!(committed >= 15, "{committed}");

    let second = mock(&[]);
    let out = explain(&dir, &second, &["--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("ended without finishing"), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let templated_again = summary["counts"]["template"].as_u64().unwrap();
    // Reused: every committed llm record; asked: only what was not committed.
    let reused = summary["counts"]["reused"].as_u64().unwrap();
    assert_eq!(reused + templated_again + summary["counts"]["llm"].as_u64().unwrap(), 79);
    assert!(reused >= committed - templated_again, "reused {reused}, committed {committed}");
    assert_eq!(second.count() as u64, summary["counts"]["calls"].as_u64().unwrap());
    assert!(second.count() + (asked_before.min(68)) >= 68, "nothing is skipped");
    let recs = records(&dir);
    assert_eq!(recs.len(), 79, "no record lost");
    let ids: std::collections::BTreeSet<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 79, "no record duplicated");
    let store = store::Store::open_reader(dir.join("model.insights.db")).unwrap();
    assert!(store.open_runs().unwrap().is_empty(), "the killed run was closed as interrupted");
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_server_that_refuses_json_schema_with_a_500_negotiates_at_once() {
    let dir = workdir("negotiate");
    let server = MockProvider::start(MockConfig::llama_cpp_python());
    let start = std::time::Instant::now();
    let out = explain(&dir, &server, &["--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The requests already in flight when the first refusal came back are
    // refused too (one per concurrent call), then every call is in the
    // bounded mode: 68 answered calls, no retry pauses.
    let bodies = server.bodies();
    let refused = bodies.iter().filter(|b| b["response_format"]["type"] == "json_schema").count();
    assert!((1..=4).contains(&refused), "{refused}");
    assert_eq!(server.count(), 68 + refused, "{err}");
    // No retry pauses (a retried refusal would sleep 1 + 2 + 4 + 8 + 16 s).
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
    assert!(!err.contains("retrying"), "{err}");
    assert!(err.contains("output mode json-schema refused for"), "{err}");
    assert!(err.contains("HTTP 500") && err.contains("trying json-object-schema"), "{err}");
    assert!(err.contains("output mode: json-object-schema ("), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["outputModes"], serde_json::json!({insights::plan::DEFAULT_MODEL: "json-object-schema"}));
    assert_eq!(summary["counts"]["failed"], 0);
    assert!(bodies
        .iter()
        .filter(|b| b["response_format"]["type"] != "json_schema")
        .all(|b| b["response_format"]["schema"]["type"] == "object"));
    // The ledger keeps the mode.
    let runs = bin().current_dir(&dir).args(["insights", "model.jsonl", "--runs", "--json"]).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    assert_eq!(
        runs["runs"][0]["outputModes"],
        serde_json::json!({insights::plan::DEFAULT_MODEL: "json-object-schema"})
    );
    let text = bin().current_dir(&dir).args(["insights", "model.jsonl", "--runs"]).output().unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("output mode json-object-schema"));
}

#[test]
fn output_mode_names_are_the_ones_the_help_prints() {
    let help = bin().args(["explain", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("detect, json-schema, json-object-schema, json-object, prompt-only"), "{help}");
    let dir = workdir("modes");
    for mode in ["json-object", "prompt-only", "json-object-schema"] {
        let server = mock(&[]);
        let out = explain(&dir, &server, &["--output-mode", mode, "--max-calls", "1", "--out", "x.jsonl"]);
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("output mode {mode}, forced")));
        std::fs::remove_file(dir.join("model.insights.db")).ok();
    }
    let server = mock(&[]);
    let out = explain(&dir, &server, &["--output-mode", "json_object"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("json_object") && err.contains("json-object-schema"), "{err}");
    assert_eq!(server.count(), 0);
}
