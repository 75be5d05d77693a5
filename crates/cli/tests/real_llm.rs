//! `codegraph-insights explain` against a real local model nobody here wrote:
//! llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct.
//!
//! Ignored in a plain `cargo test`: `cargo xtask test` (stage `real-llm`)
//! starts the server and runs this with `--ignored`, `CGI_LLM_URL` and
//! `CGI_LLM_MODEL` set. Run with `--ignored` but without them, it fails and
//! says so (never a silent pass).

use std::path::Path;
use std::process::Output;

use serde_json::Value;

/// The module the run is scoped to: two operations, a type, the module.
const SCOPE: &str = "java:com.acme.order.adapter";

fn need(name: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{name} is not set: this test runs through `cargo xtask test --only real-llm`, which starts the local server")
    })
}

mod common;

use common::bin;

fn workdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cgi-real-llm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let fixture = format!("{}/../../fixtures/upstream-java/model.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(fixture, d.join("model.jsonl")).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn explain(dir: &Path, url: &str, model: &str, extra: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .args(["explain", "model.jsonl", "--provider", "openai-compatible", "--base-url", url, "--model", model])
        .args(["--scope", SCOPE, "--no-source", "--yes", "--json", "--concurrency", "1"])
        .args(extra)
        .output()
        .unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Units the scoped plan sends to the model.
fn planned_llm_units(dir: &Path, model: &str) -> Vec<Value> {
    let out = bin()
        .current_dir(dir)
        .args(["explain", "model.jsonl", "--dry-run", "--json", "--model", model, "--scope", SCOPE])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    plan["steps"].as_array().unwrap().iter().filter(|s| s["status"] == "llm").cloned().collect()
}

#[test]
#[ignore = "needs a real local LLM server: run `cargo xtask test --only real-llm`"]
fn smollm2_on_llama_cpp_python_explains_a_module() {
    let url = need("CGI_LLM_URL");
    let model = need("CGI_LLM_MODEL");
    let dir = workdir("module");
    let owed = planned_llm_units(&dir, &model);
    assert!(owed.len() >= 3, "{owed:?}");

    let started = std::time::Instant::now();
    let out = explain(&dir, &url, &model, &[]);
    let err = text(&out.stderr);
    eprintln!("{err}");
    eprintln!("first run: {:.1} s", started.elapsed().as_secs_f64());
    // 0: all explained; 3: failures owed (a weak model may write an invalid block).
    assert!(matches!(out.status.code(), Some(0) | Some(3)), "{err}");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();

    // The negotiated mode: the server refuses strict json_schema (HTTP 500)
    // and takes json_object with the bounded schema.
    assert_eq!(summary["outputModes"][&model], "json-object-schema", "{summary}");
    assert!(err.contains("output mode json-schema refused") && err.contains("HTTP 500"), "{err}");
    assert!(!err.contains("retrying"), "a refusal is never retried: {err}");

    let sidecar = dir.join("model.insights.jsonl");
    let all = lines(&sidecar);
    let records: Vec<&Value> = all.iter().filter(|l| l["t"] == "i" && l["origin"] == "llm").collect();
    let failures: Vec<&Value> = all.iter().filter(|l| l["t"] == "f").collect();
    // Every validated answer became a record; every other unit has a failure
    // record that carries the reason.
    for unit in &owed {
        let members: Vec<&str> = unit["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let explained = members.iter().all(|m| records.iter().any(|r| r["id"] == *m));
        let failed = failures.iter().any(|f| f["id"] == unit["id"]);
        assert!(explained != failed, "{}: explained {explained}, failed {failed}", unit["id"]);
    }
    for f in &failures {
        let reason = f["reason"]["message"].as_str().unwrap_or_default();
        assert!(!reason.trim().is_empty(), "{f}");
        // No unit failed for a format reason: the mode negotiation took care of it.
        for format in ["response_format", "json_schema", "not JSON", "cut at max_tokens"] {
            assert!(!reason.contains(format), "a format failure: {f}");
        }
    }
    assert_eq!(records.len() as u64, summary["counts"]["llm"].as_u64().unwrap());
    assert!(records.iter().all(|r| r["model"] == model.as_str()), "served by the local model");
    let valid = records.len() as f64 / (records.len() + failures.len()).max(1) as f64;
    eprintln!("valid answers: {} of {} ({:.0} %)", records.len(), records.len() + failures.len(), valid * 100.0);

    // A re-run makes no call for a committed unit: only the failures are asked again.
    let again = explain(&dir, &url, &model, &[]);
    let again_err = text(&again.stderr);
    assert!(matches!(again.status.code(), Some(0) | Some(3)), "{again_err}");
    let second: Value = serde_json::from_slice(&again.stdout).unwrap();
    let calls = second["counts"]["calls"].as_u64().unwrap();
    // (A unit asked again may need its one repair call.)
    assert!(calls <= 2 * failures.len() as u64, "{calls} calls for {} failed unit(s): {again_err}", failures.len());
    let kept = lines(&sidecar);
    for r in &records {
        assert!(kept.iter().any(|k| k["id"] == r["id"] && k["block"] == r["block"]), "{} changed", r["id"]);
    }

    // The side-car round-trips byte for byte: export, import elsewhere, export.
    let first_export = std::fs::read(&sidecar).unwrap();
    let other = workdir("roundtrip");
    std::fs::copy(&sidecar, other.join("in.insights.jsonl")).unwrap();
    let import = bin()
        .current_dir(&other)
        .args(["explain", "model.jsonl", "--yes", "--import", "in.insights.jsonl"])
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    let export = bin().current_dir(&other).args(["explain", "model.jsonl", "--export"]).output().unwrap();
    assert_eq!(export.status.code(), Some(0), "{}", text(&export.stderr));
    assert!(
        std::fs::read(other.join("model.insights.jsonl")).unwrap() == first_export,
        "the side-car changed on a round trip"
    );
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&other).ok();
}
