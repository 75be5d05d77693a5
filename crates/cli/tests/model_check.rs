//! `codegraph-insights model check` as a user runs it: a real process,
//! real files, exit codes and streams.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_codegraph-insights"))
}

fn fixture() -> String {
    format!("{}/../../fixtures/upstream-java/model.jsonl", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn fixture_json_reports_the_census() {
    let out = bin().args(["model", "check", &fixture(), "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!((v["files"].as_u64(), v["entities"].as_u64(), v["edges"].as_u64()), (Some(16), Some(179), Some(188)));
    let ek = &v["edgeKinds"];
    for (k, n) in [
        ("reference", 77),
        ("invocation", 48),
        ("access", 33),
        ("import", 11),
        ("annotationUse", 10),
        ("inheritance", 4),
        ("interfaceImplementation", 3),
        ("throws", 2),
    ] {
        assert_eq!(ek[k].as_u64(), Some(n), "{k}");
    }
    assert_eq!(v["provenance"]["declared"], 185);
    assert_eq!(v["provenance"]["derived"], 3);
    assert_eq!(v["corpus"]["types"], 19);
    assert_eq!(v["stub"]["types"], 20);
    assert_eq!(v["kinds"]["class"], 34);
    assert_eq!(v["findings"].as_array().map(|a| a.len()), Some(0));
    // The artifact is deterministic and alone on stdout.
    let again = bin().args(["model", "check", &fixture(), "--json"]).output().unwrap();
    assert_eq!(out.stdout, again.stdout);
    assert!(out.stderr.is_empty());
}

#[test]
fn fixture_text_report() {
    let out = bin().args(["model", "check", &fixture()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(": valid model"), "{text}");
    assert!(text.contains("  reference                        77\n"), "{text}");
    assert!(text.contains("  types            19 corpus, 20 stub\n"), "{text}");
    assert!(text.contains("findings: none"));
}

#[test]
fn a_broken_model_exits_2_naming_the_line() {
    let dir = std::env::temp_dir().join(format!("cgi-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.jsonl");
    let text = std::fs::read_to_string(fixture()).unwrap();
    let broken = text.replacen(
        r#"{"t":"x","k":2,"f":0,"o":154,"p":1,"anchor":[9,3,3]}"#,
        r#"{"t":"x","k":2,"f":0,"o":9001,"p":1,"anchor":[9,3,3]}"#,
        1,
    );
    assert_ne!(broken, text);
    std::fs::write(&path, broken).unwrap();

    let out = bin().args(["model", "check"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.ends_with(":197: edge \"o\" refers to entity 9001, but the model has 179 entities\n"), "{err}");
    assert!(err.starts_with("codegraph-insights: "), "{err}");

    let out = bin().args(["model", "check", "--json"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["error"]["line"], 197);
    assert_eq!(v["error"]["rule"], "reference-closure");
    assert_eq!(v["error"]["record"], "edge");

    // Truncation is detected.
    let cut: String = text.lines().take(300).collect::<Vec<_>>().join("\n");
    std::fs::write(&path, cut).unwrap();
    let out = bin().args(["model", "check"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("without an \"eof\" record: the file is truncated"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_file_and_bad_flags_are_usage_errors() {
    let out = bin().args(["model", "check", "/nonexistent/model.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("codegraph-insights: /nonexistent/model.jsonl: cannot be opened: "), "{err}");

    let out = bin().args(["model", "check", &fixture(), "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("codegraph-insights "));
}
