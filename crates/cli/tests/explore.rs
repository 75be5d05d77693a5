//! `codegraph-insights explore` on the demo corpus: the map on stdout
//! (Markdown or JSON), the mode's precedence (question → --mode →
//! CODEGRAPH_EXPLORE_MODE → map), explanations from the store, else the
//! side-car, else none, flagged stale when the source changed, and usage
//! errors (exit 2) that name what is wrong.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::{demo, ok, text};

fn bin() -> Command {
    let mut c = common::bin();
    c.env_remove("CODEGRAPH_EXPLORE_MODE");
    c
}

fn tmp(name: &str) -> PathBuf {
    common::tmp_dir("explore", name)
}

fn explore(cwd: &Path, args: &[&str]) -> Output {
    bin().current_dir(cwd).arg("explore").args(args).output().unwrap()
}

/// A copy of the demo model in a fresh directory (so a side-car or store can sit beside it).
fn model_in(name: &str) -> (PathBuf, String) {
    let dir = tmp(name);
    std::fs::copy(demo("model.jsonl"), dir.join("model.jsonl")).unwrap();
    (dir, "model.jsonl".to_owned())
}

#[test]
fn a_map_from_the_zip_without_explanations() {
    let (dir, model) = model_in("plain");
    let out = explore(&dir, &[&model, "RentalService.finish", "--src", &demo("demo-src.zip")]);
    let md = ok(&out);
    assert!(md.starts_with("**Exploration: RentalService.finish**\n"), "{md}");
    assert!(md.contains("- `RentalService.finish` (method) com/pedalpoint/rental/RentalService.java:50"));
    assert!(md.contains("No explanations are loaded for this model."));
    assert!(md.contains(&format!(
        "For one symbol's body: `codegraph-insights explore model.jsonl \"RentalService.finish\" --mode source --src {}`",
        demo("demo-src.zip")
    )));
    assert!(!md.contains("**Source Code**"));
    assert!(text(&out.stderr).contains("23 of the model's 23 files found"));
}

#[test]
fn json_and_the_mode_precedence() {
    let (dir, model) = model_in("modes");
    let zip = demo("demo-src.zip");
    let json = ok(&explore(&dir, &[&model, "Rental", "--src", &zip, "--json"]));
    let v: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap();
    assert_eq!(v["kind"], "codegraph.exploreMap/1");
    assert_eq!(v["mode"], "map");
    assert_eq!(v["symbols"]["items"][0]["name"], "Rental");
    let mode = |args: &[&str], env: Option<&str>| {
        let mut c = bin();
        c.current_dir(&dir).arg("explore").args([model.as_str(), "--src", &zip, "--json"]).args(args);
        if let Some(e) = env {
            c.env("CODEGRAPH_EXPLORE_MODE", e);
        }
        let v: serde_json::Value = serde_json::from_str(ok(&c.output().unwrap()).trim_end()).unwrap();
        v["mode"].as_str().unwrap().to_owned()
    };
    assert_eq!(mode(&["Rental"], Some("source")), "source");
    assert_eq!(mode(&["Rental", "--mode", "snippets"], Some("source")), "snippets");
    assert_eq!(mode(&["Rental mode:map", "--mode", "snippets"], Some("source")), "map");
    let md = ok(&explore(&dir, &[&model, "Rental", "--src", &zip, "--mode", "snippets"]));
    assert!(md.contains("**Source Code**") && md.contains("```java\n9\tpublic class Rental {"), "{md}");
}

#[test]
fn explanations_from_the_sidecar_then_the_store_and_stale_when_the_source_changed() {
    let (dir, model) = model_in("explained");
    let src = dir.join("src");
    // The demo sources as a directory the test may change.
    let zip = std::fs::read(demo("demo-src.zip")).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    archive.extract(&src).unwrap();
    let src_arg = src.display().to_string();
    let run = bin()
        .current_dir(&dir)
        .args(["explain", &model, "--provider", "demo", "--yes", "--src", &src_arg])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    // The store is there: it answers.
    let md = ok(&explore(&dir, &[&model, "RentalService.finish", "--src", &src_arg]));
    // The demo's explanation, from the model's facts: what it calls, first.
    assert!(
        md.contains(
            "  - *generated:* Written from the code's facts, not by an LLM: The method `finish` of `RentalService` calls \
             `new RentalException`, `Rent…\n"
        ),
        "{md}"
    );
    assert!(md.contains("; none is stale."), "{md}");
    // Without the store, the side-car answers the same.
    std::fs::rename(dir.join("model.insights.db"), dir.join("away.db")).unwrap();
    let from_sidecar = ok(&explore(&dir, &[&model, "RentalService.finish", "--src", &src_arg]));
    assert_eq!(from_sidecar, md);
    // A changed line inside RentalService.finish: its explanation is stale.
    let file = src.join("com/pedalpoint/rental/RentalService.java");
    let java = std::fs::read_to_string(&file).unwrap().replace("No open rental ", "No such rental ");
    std::fs::write(&file, java).unwrap();
    let md = ok(&explore(&dir, &[&model, "RentalService.finish", "--src", &src_arg]));
    assert!(md.contains("- `RentalService.finish` (method) com/pedalpoint/rental/RentalService.java:50 — `finish(String, String, long): Rental`\n  - *generated, stale (the code changed since it was explained):*"), "{md}");
    // No source at all: not checked, and said so.
    let out = explore(&dir, &[&model, "RentalService.finish"]);
    let md = ok(&out);
    assert!(md.contains("not checked against the current code"), "{md}");
    assert!(md.contains("No source is loaded here, so no body can be shown."));
    assert!(text(&out.stderr).contains("explanations are not checked against the code: no source is loaded"));
}

#[test]
fn usage_errors_name_what_is_wrong() {
    let (dir, model) = model_in("errors");
    let out = explore(&dir, &[&model, "  "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the question is empty"));
    let out = explore(&dir, &["missing.jsonl", "Rental"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing.jsonl"), "{}", text(&out.stderr));
    let out = explore(&dir, &[&model, "Rental", "--src", "nowhere.zip"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--src nowhere.zip: cannot be read"));
    let out = explore(&dir, &[&model, "Rental", "--mode", "full"]);
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .current_dir(&dir)
        .env("CODEGRAPH_EXPLORE_MODE", "verbose")
        .args(["explore", &model, "Rental"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("CODEGRAPH_EXPLORE_MODE=\"verbose\" is not a mode"));
    std::fs::write(dir.join("bad.jsonl"), "{\"t\":\"header\"}\n").unwrap();
    let out = explore(&dir, &["bad.jsonl", "Rental"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.jsonl"), "{}", text(&out.stderr));
}
