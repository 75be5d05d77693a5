#![allow(dead_code)]
//! Helpers shared by the CLI's tests: the binary without a provider key in
//! its environment, the demo corpus, a fresh temporary directory, and the
//! output of a run as text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `codegraph-insights`, with no provider key in its environment (a test
/// never reaches a provider).
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_codegraph-insights"));
    c.env_remove("OPENROUTER_API_KEY").env_remove("CLOUDFLARE_API_TOKEN").env_remove("OPENAI_API_KEY");
    c
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A file of the demo corpus (`fixtures/demo`).
pub fn demo(rel: &str) -> String {
    workspace().join("fixtures/demo").join(rel).display().to_string()
}

/// An empty directory `cgi-<suite>-<pid>-<name>` under the system's temp dir.
pub fn tmp_dir(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cgi-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// The stdout of a run that must succeed (its stderr if it did not).
pub fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}
