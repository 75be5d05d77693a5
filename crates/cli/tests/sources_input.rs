//! `--src` input as `explain` reads it: a source file that is not valid UTF-8
//! is read lossily (U+FFFD for the bad bytes) from a directory and from an
//! archive alike, instead of being dropped and its units planned without
//! source.

use std::io::Write;
use std::path::{Path, PathBuf};

mod common;

use common::bin;

fn demo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo").join(rel)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cgi-sources-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Copies `from` into `to`, returning every file's path relative to `from`.
fn copy_tree(from: &Path, to: &Path, rel: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(from.join(rel)).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let child = if rel.is_empty() { name } else { format!("{rel}/{name}") };
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(to.join(&child)).unwrap();
            copy_tree(from, to, &child, out);
        } else {
            std::fs::copy(entry.path(), to.join(&child)).unwrap();
            out.push(child);
        }
    }
}

/// `explain --dry-run --json` of the demo model over `src`: the plan and stderr.
fn plan(src: &Path) -> (serde_json::Value, String) {
    let out = bin()
        .args(["explain", &demo("model.jsonl").display().to_string(), "--dry-run", "--json", "--src"])
        .arg(src)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

/// The prompt tokens the plan estimates for the steps of `Money`.
fn money_tokens(plan: &serde_json::Value) -> Vec<u64> {
    plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"].as_str().unwrap().contains("common/Money"))
        .map(|s| s["promptTokens"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_source_file_that_is_not_utf8_is_read_lossily_from_a_directory_and_an_archive() {
    let dir = tmp("lossy");
    let tree = dir.join("src");
    let mut files = Vec::new();
    copy_tree(&demo("src/main/java"), &tree, "", &mut files);
    let clean = plan(&tree).0;

    // A Latin-1 `é` in Money's Javadoc: not UTF-8.
    let money = tree.join("com/pedalpoint/common/Money.java");
    let mut bytes = std::fs::read(&money).unwrap();
    let at = bytes.windows(18).position(|w| w == b"An amount of euros").expect("the Javadoc") + 13;
    bytes[at] = 0xE9;
    std::fs::write(&money, &bytes).unwrap();
    assert!(std::str::from_utf8(&bytes).is_err());

    let (from_dir, err) = plan(&tree);
    // Read, not reported missing; a note names it.
    let note = "1 source file(s) are not UTF-8 and were read with replacement characters; first: \
                com/pedalpoint/common/Money.java is not UTF-8: 1 byte was replaced by U+FFFD";
    assert!(err.contains(note) && !err.contains("could not be read"), "{err}");
    // Its units are planned with its source: their prompts are as large as
    // with the clean file (one byte became one character), not source-less.
    let (clean_tokens, lossy_tokens) = (money_tokens(&clean), money_tokens(&from_dir));
    assert!(!clean_tokens.is_empty() && clean_tokens.len() == lossy_tokens.len());
    for (c, l) in clean_tokens.iter().zip(&lossy_tokens) {
        assert!(c.abs_diff(*l) <= 2, "clean {clean_tokens:?} vs lossy {lossy_tokens:?}");
    }

    // The same tree as a zip: the same plan, the same (lack of) complaint.
    let zip_path = dir.join("src.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for f in &files {
        w.start_file(format!("repo-main/{f}"), opts).unwrap();
        w.write_all(&std::fs::read(tree.join(f)).unwrap()).unwrap();
    }
    w.finish().unwrap();
    let (from_zip, err) = plan(&zip_path);
    assert!(err.contains(note) && !err.contains("could not be read"), "{err}");
    assert_eq!(from_zip, from_dir);
    let _ = std::fs::remove_dir_all(&dir);
}
