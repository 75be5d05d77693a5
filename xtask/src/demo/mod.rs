//! `cargo xtask demo`: writes the offline demo corpus's model and source
//! archive from the Java sources under `fixtures/demo/src/main/java`.
//!
//! * `fixtures/demo/model.jsonl`: built with `model::builder` from what the
//!   sources really declare and do ([`java`] parses them, [`emit`] resolves
//!   names and walks bodies), so anchors, signatures and edges follow the code.
//! * `fixtures/demo/demo-src.zip`: the same sources at the model's paths
//!   (the archive's top level is the model's root), stored uncompressed with
//!   a fixed timestamp and sorted entries, so the bytes are a function of the
//!   sources alone.
//!
//! Both are checked in; a test fails when they differ from what this writes
//! (regenerate with `cargo xtask demo` or `UPDATE_DEMO=1 cargo test -p xtask demo`).

pub mod emit;
pub mod java;

use std::io::Write;
use std::path::Path;

/// The model, relative to the workspace root.
pub const MODEL: &str = "fixtures/demo/model.jsonl";
/// The source archive, relative to the workspace root.
pub const ARCHIVE: &str = "fixtures/demo/demo-src.zip";

#[derive(clap::Args)]
pub struct Args {
    /// Only compare with the checked-in files (exit 1 when they differ); write nothing.
    #[arg(long)]
    check: bool,
}

/// What the generator writes.
pub struct Demo {
    pub model: String,
    pub archive: Vec<u8>,
    pub sources: Vec<(String, String)>,
}

pub fn run(args: Args) -> crate::Result {
    let root = crate::root();
    let demo = generate(&root)?;
    let outputs = [(MODEL, demo.model.as_bytes()), (ARCHIVE, demo.archive.as_slice())];
    let mut stale = Vec::new();
    for (rel, bytes) in outputs {
        let path = root.join(rel);
        if std::fs::read(&path).ok().as_deref() == Some(bytes) {
            continue;
        }
        stale.push(rel);
        if !args.check {
            std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    let lines = demo.sources.iter().map(|(_, s)| s.lines().count()).sum::<usize>();
    println!(
        "demo: {} Java files ({lines} lines) -> {MODEL} ({} bytes), {ARCHIVE} ({} bytes)",
        demo.sources.len(),
        demo.model.len(),
        demo.archive.len()
    );
    match (args.check, stale.is_empty()) {
        (_, true) => println!("demo: up to date"),
        (true, false) => return Err(format!("out of date: {} (run `cargo xtask demo`)", stale.join(", "))),
        (false, false) => println!("demo: wrote {}", stale.join(", ")),
    }
    Ok(())
}

/// The Java sources under the corpus root: (path relative to it, text), by path.
pub fn sources(root: &Path) -> crate::Result<Vec<(String, String)>> {
    let base = root.join(emit::ROOT);
    let mut out = Vec::new();
    let mut dirs = vec![base.clone()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "java") {
                let rel = path.strip_prefix(&base).expect("below the root");
                let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                out.push((rel, text));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Builds the model and the archive from the sources in the workspace at `root`.
pub fn generate(root: &Path) -> crate::Result<Demo> {
    let sources = sources(root)?;
    let mut files = Vec::new();
    for (path, text) in &sources {
        files.push(java::parse(path, text)?);
    }
    let builder = emit::build(&files)?;
    let model = builder.build().map_err(|e| format!("demo model: {e}"))?;
    let archive = archive(&sources).map_err(|e| format!("demo archive: {e}"))?;
    Ok(Demo { model, archive, sources })
}

/// A zip of the sources: stored, sorted, fixed timestamp and permissions.
fn archive(sources: &[(String, String)]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    use zip::write::SimpleFileOptions;
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, text) in sources {
        zip.start_file(path.as_str(), options)?;
        zip.write_all(text.as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}

#[cfg(test)]
mod tests;
