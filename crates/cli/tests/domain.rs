//! `codegraph-insights domain` on the demo corpus: the demo explained
//! offline, then a few blocks of its side-car edited to give known concepts,
//! bounded-context hints, ubiquitous-language terms (one defined differently
//! in two contexts), a state machine, commands and events, and markup
//! (`<script>x</script>`, `<img src=x>`, a `"` quote, `[brackets]`, a
//! backtick, a `%%{init: …}%%` directive) in names and definitions; one source line changed so that a few
//! records are stale. The Markdown files are compared with the golden files
//! in `tests/golden/domain/`; the JSON form, the missing-explanations errors
//! and a closed stdout are checked too.
//!
//! To rewrite the golden files after a deliberate change to the view or its
//! Markdown: `UPDATE_GOLDEN=1 cargo test -p cli --test domain`, then read the
//! diff (`git diff crates/cli/tests/golden`) before committing it.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{json, Value};

mod common;

use common::{bin, demo, ok, text};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/domain")
}

fn tmp(name: &str) -> PathBuf {
    common::tmp_dir("domain", name)
}

fn domain(cwd: &Path, args: &[&str]) -> Output {
    bin().current_dir(cwd).arg("domain").args(args).output().unwrap()
}

/// What a hostile answer carries.
const SCRIPT: &str = "<script>x</script>";

const RENTAL_MODULE: &str = "java:com.pedalpoint.rental";
const BILLING_MODULE: &str = "java:com.pedalpoint.billing";
const FLEET_MODULE: &str = "java:com.pedalpoint.fleet";
const RENTAL: &str = "java:com.pedalpoint.rental/Rental";
const STATUS: &str = "java:com.pedalpoint.rental/Rental.Status";
const CUSTOMER: &str = "java:com.pedalpoint.rental/Customer";
const TIER: &str = "java:com.pedalpoint.rental/Customer.Tier";
const SERVICE: &str = "java:com.pedalpoint.rental/RentalService";
const FINISH: &str = "java:com.pedalpoint.rental/RentalService.finish(java.lang.String,java.lang.String,long)";
const INVOICE: &str = "java:com.pedalpoint.billing/Invoice";
const DECLINED: &str = "java:com.pedalpoint.billing/PaymentDeclinedException";
const INVOICE_OP: &str = "java:com.pedalpoint.billing/BillingService.invoice(com.pedalpoint.rental.Rental,long)";
const FLEET: &str = "java:com.pedalpoint.fleet/Fleet";
const RESERVE: &str = "java:com.pedalpoint.fleet/Fleet.reserveAt(java.lang.String,com.pedalpoint.fleet.BikeType)";
const STATION: &str = "java:com.pedalpoint.fleet/Station";
const BIKE: &str = "java:com.pedalpoint.fleet/Bike";
const MONEY: &str = "java:com.pedalpoint.common/Money";

/// The block fields each edited record gets (merged over the demo's block).
fn edits() -> Vec<(&'static str, Value)> {
    vec![
        (
            RENTAL_MODULE,
            json!({
                "boundedContextHint": {"name": "Rentals", "rationale": format!("owns the {SCRIPT} lifecycle")},
                "ubiquitousLanguage": [
                    {"term": "Rental", "definition": "a bike hired by a \"customer\""},
                    {"term": "Tier `level`", "definition": "a [member] level, see <img src=x>"}
                ],
                "confidence": 0.8
            }),
        ),
        (
            BILLING_MODULE,
            json!({
                "boundedContextHint": {"name": "  rentals ", "rationale": "billing is part of renting"},
                "ubiquitousLanguage": [{"term": "Invoice", "definition": "what a customer pays & owes"}],
                "confidence": 0.7
            }),
        ),
        (
            FLEET_MODULE,
            json!({
                "boundedContextHint": {"name": "Fleet [ops]", "rationale": "bikes and stations"},
                "ubiquitousLanguage": [{"term": "rental", "definition": "a bike out of its `station`"}],
                "sharedKernelHint": "station ids are shared with rentals",
                "confidence": 0.9
            }),
        ),
        (
            RENTAL,
            json!({
                "name": "Rental", "description": "One hire of a bike.", "concept": "aggregate", "aggregateRoot": true,
                "fields": [
                    {"name": "customer", "type": "Customer", "kind": "entityReference"},
                    {"name": "status", "type": "Status", "kind": "enum"}
                ],
                "relatesTo": [{"name": "Bike", "concept": "entity"}],
                "stateMachine": {
                    "states": ["OPEN", "FINISHED", format!("CANCELLED {SCRIPT}"), "LATE %%{init: {}}%%"],
                    "transitions": [
                        {"from": "OPEN", "to": "FINISHED", "operation": "finish"},
                        {"from": "OPEN", "to": "LATE %%{init: {}}%%", "operation": "overdue 100%"},
                        {"from": "OPEN", "to": format!("CANCELLED {SCRIPT}"), "operation": "cancel(\"now\") --> [x]"}
                    ]
                },
                "domainTerms": ["Rental"], "confidence": 0.9
            }),
        ),
        (STATUS, json!({"name": "Status", "description": "Where a rental is.", "concept": "enum", "confidence": 0.9})),
        (
            CUSTOMER,
            json!({
                "name": "Customer \"rider\"", "description": "A rider with a membership tier.", "concept": "entity",
                "containedIn": "Rental",
                "fields": [{"name": "tier", "type": "Tier", "kind": "valueType"}],
                "confidence": 0.85
            }),
        ),
        (
            TIER,
            json!({"name": "Tier `level`", "description": "How much a rider pays.", "concept": "valueType", "confidence": 0.9}),
        ),
        (
            SERVICE,
            json!({"name": "Rental desk [front]", "description": "Starts and ends hires.", "concept": "applicationService", "confidence": 0.8}),
        ),
        (
            INVOICE,
            json!({"name": "Invoice", "description": "What is billed.", "concept": "valueType", "confidence": 0.75}),
        ),
        (
            DECLINED,
            json!({"name": "Payment declined", "description": "A card said no.", "concept": "event", "eventKind": "error", "confidence": 0.6}),
        ),
        (
            FLEET,
            json!({"name": "Fleet", "description": "All stations.", "concept": "domainService", "confidence": 0.9}),
        ),
        (
            STATION,
            json!({"name": "Station", "description": "Where bikes wait.", "concept": "entity", "confidence": 0.9}),
        ),
        (
            BIKE,
            json!({"name": format!("Bike <img src=x> {SCRIPT}"), "description": "A bike.", "concept": "entity", "confidence": 0.9}),
        ),
        (MONEY, json!({"name": "Money", "description": "An amount.", "concept": "valueType", "confidence": 0.95})),
        (
            FINISH,
            json!({
                "handlesCommand": "FinishRental",
                "emits": [{"name": "RentalFinished", "kind": "internal"}],
                "domainTerms": ["Rental"]
            }),
        ),
        (RESERVE, json!({"handlesCommand": format!("Reserve {SCRIPT}")})),
        (INVOICE_OP, json!({"emits": [{"name": "Invoice issued #1", "kind": "external"}]})),
    ]
}

/// The demo explained offline in `dir` (a copy of the model, the sources
/// unpacked in `dir/src`), its side-car edited by [`edits`], the store the
/// run wrote removed so that the side-car is what `domain` reads, and one
/// line of `RentalService.finish` changed so that its records are stale.
fn hostile(name: &str) -> PathBuf {
    let dir = tmp(name);
    std::fs::copy(demo("model.jsonl"), dir.join("model.jsonl")).unwrap();
    let run = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--provider", "demo", "--src", &demo("demo-src.zip"), "--yes"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let path = dir.join("model.insights.jsonl");
    let mut lines: Vec<Value> =
        std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (id, patch) in edits() {
        let line = lines.iter_mut().find(|l| l["id"] == id).unwrap_or_else(|| panic!("the demo explains {id}"));
        for (k, v) in patch.as_object().unwrap() {
            assert!(line["block"].get(k).is_some(), "{id}: the block has no {k}");
            line["block"][k] = v.clone();
        }
    }
    let out: String = lines.iter().map(|l| serde_json::to_string(l).unwrap() + "\n").collect();
    std::fs::write(&path, out).unwrap();
    std::fs::remove_file(dir.join("model.insights.db")).unwrap();
    let zip = std::fs::read(demo("demo-src.zip")).unwrap();
    zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap().extract(dir.join("src")).unwrap();
    let file = dir.join("src/com/pedalpoint/rental/RentalService.java");
    let java = std::fs::read_to_string(&file).unwrap();
    assert!(java.contains("No open rental "));
    std::fs::write(&file, java.replace("No open rental ", "No such rental ")).unwrap();
    dir
}

fn files_in(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Every `<` of the Markdown outside code spans is backslash-escaped
/// (`\\<script\\>`), and a Mermaid block has none but its
/// `<<aggregateRoot>>` annotations (labels say `#lt;`).
fn assert_no_raw_markup(name: &str, body: &str) {
    let mut in_diagram = false;
    for (n, line) in body.lines().enumerate() {
        if line.starts_with("```") {
            in_diagram = line == "```mermaid";
            continue;
        }
        if in_diagram {
            let rest = line.replace("<<aggregateRoot>>", "");
            assert!(!rest.contains('<'), "{name}:{}: a raw < in a diagram: {line}", n + 1);
            continue;
        }
        // Outside code spans (ids such as `T.<init>()` are literal there).
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '\\' => i += 2,
                '`' => {
                    let run = chars[i..].iter().take_while(|&&c| c == '`').count();
                    let fence: String = "`".repeat(run);
                    let rest: String = chars[i + run..].iter().collect();
                    let end =
                        rest.find(&fence).unwrap_or_else(|| panic!("{name}:{}: an open code span: {line}", n + 1));
                    i += run + rest[..end].chars().count() + run;
                }
                '<' => panic!("{name}:{}: a raw < in Markdown: {line}", n + 1),
                _ => i += 1,
            }
        }
    }
    assert!(!in_diagram, "{name}: a diagram is left open");
}

#[test]
fn markdown_matches_the_golden_files_and_keeps_markup_as_text() {
    let dir = hostile("golden");
    let out = domain(&dir, &["model.jsonl", "--src", "src", "--out-dir", "D"]);
    ok(&out);
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "wrote 5 files to D (index.md and 4 context(s)): 28 of 28 types explained, 2 stale; 5 of 5 modules"
        ),
        "{err}"
    );
    assert!(!err.contains("not checked"), "{err}");
    let written = files_in(&dir.join("D"));
    let golden = golden_dir();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        std::fs::create_dir_all(&golden).unwrap();
        for (name, body) in &written {
            std::fs::write(golden.join(name), body).unwrap();
        }
    }
    let expected = files_in(&golden);
    let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&written),
        names(&expected),
        "the files written and the golden ones (UPDATE_GOLDEN=1 rewrites them)"
    );
    for ((name, got), (_, want)) in written.iter().zip(&expected) {
        assert_eq!(got, want, "{name} differs from tests/golden/domain/{name} (UPDATE_GOLDEN=1 rewrites it)");
    }
    // Markup is text: escaped in Markdown, entity-coded in diagram labels.
    for (name, body) in &written {
        assert_no_raw_markup(name, body);
    }
    let index = &written.iter().find(|(n, _)| n == "index.md").unwrap().1;
    assert!(index.contains("```mermaid\nflowchart LR\n"), "{index}");
    assert!(index.contains("\"Fleet [ops]\""), "{index}");
    assert!(index.contains("- **Rental** — **defined differently in two contexts**"), "{index}");
    assert!(index.contains("a bike hired by a \"customer\""), "{index}");
    assert!(index.contains("\\[member\\] level, see \\<img src=x\\>"), "{index}");
    let rentals = &written.iter().find(|(n, _)| n == "rentals.md").unwrap().1;
    assert!(rentals.contains("owns the \\<script\\>x\\</script\\> lifecycle"), "{rentals}");
    assert!(rentals.contains("```mermaid\nclassDiagram\n"), "{rentals}");
    assert!(rentals.contains("```mermaid\nstateDiagram-v2\n"), "{rentals}");
    assert!(rentals.contains("#lt;script#gt;x#lt;/script#gt;"), "{rentals}");
    assert!(rentals.contains("state \"LATE #37;#37;{init: {}}#37;#37;\" as s3"), "{rentals}");
    assert!(rentals.contains("Customer #quot;rider#quot;") && rentals.contains("Tier #96;level#96;"), "{rentals}");
    assert!(rentals.contains("- Rental desk \\[front\\] `java:com.pedalpoint.rental/RentalService` — applicationService, confidence 0.80, **stale**"), "{rentals}");
    assert!(
        rentals.contains(
            "- FinishRental: `java:com.pedalpoint.rental/RentalService.finish(java.lang.String,java.lang.String,long)`"
        ),
        "{rentals}"
    );
}

#[test]
fn json_on_stdout_or_in_the_directory_and_unchecked_without_source() {
    let dir = hostile("json");
    let out = domain(&dir, &["model.jsonl", "--format", "json"]);
    let line = ok(&out);
    assert_eq!(line.matches('\n').count(), 1, "one line");
    let v: Value = serde_json::from_str(line.trim_end()).unwrap();
    assert_eq!(v["format"], "codegraph.domainView/1");
    let err = text(&out.stderr);
    // The model's recorded root is not under `dir`: no source, said so, nothing stale.
    assert!(err.contains("explanations are not checked against the code: no source is loaded"), "{err}");
    assert_eq!(v["coverage"]["types"]["stale"], 0);
    let keys: Vec<&str> = v["contexts"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["com-pedalpoint", "com-pedalpoint-common", "fleet-ops", "rentals"]);
    // With the source: the changed method and what stands on it are stale.
    let out = domain(&dir, &["model.jsonl", "--format", "json", "--src", "src", "--out-dir", "J"]);
    assert_eq!(ok(&out), "", "the JSON went to the directory");
    assert!(
        text(&out.stderr).contains("wrote J/domain.json: 28 of 28 types explained, 2 stale"),
        "{}",
        text(&out.stderr)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("J/domain.json")).unwrap()).unwrap();
    assert_eq!(v["format"], "codegraph.domainView/1");
    assert_eq!(v["coverage"]["types"]["stale"], 2);
    // The default directory for Markdown is beside the model; no temporary file is left.
    ok(&domain(&dir, &["model.jsonl"]));
    let names: Vec<String> = files_in(&dir.join("model.domain")).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["com-pedalpoint-common.md", "com-pedalpoint.md", "fleet-ops.md", "index.md", "rentals.md"]);
    // A store is read before the side-car: the store explain --import makes from it says the same.
    let import = bin()
        .current_dir(&dir)
        .args(["explain", "model.jsonl", "--import", "model.insights.jsonl", "--yes"])
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    let from_store = ok(&domain(&dir, &["model.jsonl", "--format", "json", "--store", "model.insights.db"]));
    let from_sidecar = ok(&domain(&dir, &["model.jsonl", "--format", "json", "--out", "model.insights.jsonl"]));
    assert_eq!(from_store, line);
    assert_eq!(from_sidecar, line);
}

#[test]
fn no_explanations_is_a_usage_error_naming_what_was_looked_for() {
    let dir = tmp("none");
    std::fs::copy(demo("model.jsonl"), dir.join("model.jsonl")).unwrap();
    let out = domain(&dir, &["model.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "no explanations of model.jsonl to read: looked for the store model.insights.db and the side-car \
             model.insights.jsonl"
        ),
        "{err}"
    );
    assert!(err.contains("hint: run `codegraph-insights explain model.jsonl` first"), "{err}");
    assert!(!dir.join("model.insights.db").exists(), "no store is created");
    assert!(!dir.join("model.domain").exists(), "nothing is written");
    let out = domain(&dir, &["model.jsonl", "--out", "elsewhere.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("the store elsewhere.db and the side-car elsewhere.jsonl"), "{err}");
    assert!(err.contains("explain model.jsonl --out elsewhere.jsonl"), "{err}");
    let out = domain(&dir, &["model.jsonl", "--store", "kept.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--store kept.db: no insights store there"), "{}", text(&out.stderr));
    assert!(!dir.join("kept.db").exists(), "no store is created");
    // Not a side-car, not a store, not a model: each named.
    std::fs::write(dir.join("model.insights.jsonl"), "not json\n").unwrap();
    let out = domain(&dir, &["model.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("model.insights.jsonl"), "{}", text(&out.stderr));
    std::fs::write(dir.join("bad.db"), "not a store").unwrap();
    let out = domain(&dir, &["model.jsonl", "--store", "bad.db"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.db"), "{}", text(&out.stderr));
    let out = domain(&dir, &["missing.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing.jsonl"), "{}", text(&out.stderr));
    let out = domain(&dir, &["model.jsonl", "--store", "a.db", "--out", "b.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "--store and --out conflict");
}

#[test]
fn an_unwritable_directory_and_a_closed_stdout() {
    let dir = hostile("io");
    std::fs::write(dir.join("F"), "a file").unwrap();
    let out = domain(&dir, &["model.jsonl", "--out-dir", "F"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--out-dir F: is there but is not a directory"), "{}", text(&out.stderr));
    let out = domain(&dir, &["model.jsonl", "--out-dir", "F/sub"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--out-dir F/sub"), "{}", text(&out.stderr));
    // The reader of stdout went away before the JSON was written: quiet, exit 0.
    let mut child = bin()
        .current_dir(&dir)
        .args(["domain", "model.jsonl", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("internal error"), "{}", text(&out.stderr));
}
