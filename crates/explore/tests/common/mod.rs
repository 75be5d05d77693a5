//! The demo corpus for explore's tests: fixtures/demo/model.jsonl, its
//! source zip and a part of a side-car written by the demo provider
//! (`tests/fixtures/demo-part.insights.jsonl`, see its README line in
//! tests/fixtures/README.md).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use explore::{Caps, Explanations, ExploreIndex, ExploreMap, Explorer, NoExplanations, Request};
use insights::records::{MemoryRecords, RecordSummary};
use insights::sidecar::Sidecar;
use sources::{MemorySources, SourceReader};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn demo_model() -> &'static model::Model {
    static MODEL: OnceLock<model::Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        let text = std::fs::read(root().join("fixtures/demo/model.jsonl")).expect("the demo model");
        model::read_model(text.as_slice(), "model.jsonl").expect("a valid model")
    })
}

/// The demo's sources from its zip, as an editable in-memory tree.
pub fn demo_sources() -> MemorySources {
    let bytes = std::fs::read(root().join("fixtures/demo/demo-src.zip")).expect("the demo zip");
    let mut archive = sources::Archive::parse("demo-src.zip", &bytes).expect("a zip");
    let paths: Vec<&str> = demo_model().files().iter().map(String::as_str).collect();
    archive.use_root(&paths);
    let mut tree = MemorySources::new();
    for p in paths {
        let text = archive.read(p).text().cloned().expect("every model file is in the zip");
        tree.insert(p, text).expect("a relative path");
    }
    tree
}

/// The demo side-car part, decoded.
pub fn sidecar() -> Sidecar {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo-part.insights.jsonl");
    let text = std::fs::read_to_string(&path).expect("the side-car fixture");
    insights::sidecar::decode("demo-part.insights.jsonl", &text).expect("a valid side-car")
}

pub fn records_of(sc: &Sidecar) -> MemoryRecords {
    let mut mem = MemoryRecords::default();
    for r in &sc.records {
        mem.insert(r.id.clone(), r.fingerprint.clone(), RecordSummary::of(r));
    }
    mem
}

/// The graph and its index, built once.
pub fn demo_graph() -> &'static (analyzer::CodeGraph<'static>, ExploreIndex) {
    static GRAPH: OnceLock<(analyzer::CodeGraph<'static>, ExploreIndex)> = OnceLock::new();
    GRAPH.get_or_init(|| {
        let g = analyzer::CodeGraph::new(demo_model());
        let index = ExploreIndex::build(&g);
        (g, index)
    })
}

pub const HINT: &str = "codegraph-insights explore model.jsonl \"{name}\" --mode source --src demo-src.zip";

pub fn request(question: &str) -> Request<'_> {
    Request { question, body_hint: Some(HINT.into()), ..Request::default() }
}

/// Answers over the demo with its sources and no explanations.
pub fn ask(question: &str) -> ExploreMap {
    ask_with(&request(question), Some(&demo_sources()), &NoExplanations)
}

pub fn ask_with(request: &Request<'_>, sources: Option<&dyn SourceReader>, x: &dyn Explanations) -> ExploreMap {
    let (graph, index) = demo_graph();
    Explorer { graph, index, sources, explanations: x }.answer(request)
}

pub fn caps(f: impl FnOnce(&mut Caps)) -> Caps {
    let mut c = Caps::default();
    f(&mut c);
    c
}

/// Compares `actual` with `tests/golden/<name>`; `UPDATE_GOLDEN=1` rewrites it.
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("golden written");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1 to write it)", path.display()));
    assert_eq!(actual, expected, "{} differs (UPDATE_GOLDEN=1 rewrites it)", path.display());
}
