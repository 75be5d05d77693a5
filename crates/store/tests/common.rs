#![allow(dead_code)]
//! Helpers shared by the store tests: temp dirs (native) and hand-made
//! records (everywhere, also in the browser tests).

#[cfg(not(target_arch = "wasm32"))]
use std::path::{Path, PathBuf};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::atomic::{AtomicUsize, Ordering};

use insights::blocks::{Block, BoundedContextHint};
use insights::record::{FailureReason, FailureRecord, InsightRecord, SidecarHeader, Trailer, TrailerCounts, Usage};
use insights::sidecar::{decode_block, synth, Sidecar};
use insights::vocab::{DomainConcept, FailureKind, Level, OperationOwner};
use serde_json::json;

/// A fresh directory under the system temp dir, removed on drop.
#[cfg(not(target_arch = "wasm32"))]
pub struct TempDir(pub PathBuf);

#[cfg(not(target_arch = "wasm32"))]
impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "store-test-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// File names in the directory, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

pub fn header() -> SidecarHeader {
    synth::header()
}

pub fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// A realistic record for `id` (deterministic in the id).
pub fn rec(id: &str, level: Level) -> InsightRecord {
    let mut rng = synth::Rng(seed_of(id));
    let mut r = synth::record(id.to_owned(), level, &mut rng);
    r.scc = None;
    r.usage = None;
    r
}

/// An operation record with this owner and description.
pub fn op(id: &str, owner: OperationOwner, description: &str) -> InsightRecord {
    let mut r = rec(id, Level::Operation);
    if let Block::Operation(b) = &mut r.block {
        b.owner = owner;
        b.description = description.into();
    }
    r
}

/// A type record with this concept, confidence and description.
pub fn ty(id: &str, concept: DomainConcept, confidence: f64, description: &str) -> InsightRecord {
    let mut r = rec(id, Level::Type);
    if let Block::Type(b) = &mut r.block {
        b.concept = concept;
        b.confidence = confidence;
        b.description = description.into();
    }
    r
}

/// A module record with (or without) a bounded-context hint.
pub fn module(id: &str, context: Option<&str>, description: &str) -> InsightRecord {
    let mut r = rec(id, Level::Module);
    if let Block::Module(b) = &mut r.block {
        b.bounded_context_hint = context.map(|c| BoundedContextHint { name: c.into(), rationale: "why".into() });
        b.description = description.into();
    }
    r
}

pub fn with_usage(mut r: InsightRecord, prompt: u64, completion: u64, cost: Option<f64>) -> InsightRecord {
    r.usage = Some(Usage { prompt_tokens: prompt, completion_tokens: completion, cost });
    r
}

pub fn failure(id: &str, level: Level, members: &[&str], attempts: u32) -> FailureRecord {
    FailureRecord {
        id: id.into(),
        key: None,
        level,
        members: members.iter().map(|m| m.to_string()).collect(),
        model: "leaf-model".into(),
        reason: FailureReason {
            kind: FailureKind::Provider,
            message: "no credits \u{0} left".into(),
            status: Some(402),
            retryable: Some(false),
        },
        attempts,
        calls: 0,
        usage: None,
    }
}

pub fn trailer(records: u64, failed: u64) -> Trailer {
    Trailer {
        counts: TrailerCounts { records, llm: records, template: 0, reused: 0, failed },
        usage: Usage { prompt_tokens: 100, completion_tokens: 20, cost: Some(0.001) },
        generated_at: "2025-06-01T12:00:00.000Z".into(),
    }
}

/// A record whose block holds only what is given (no synthetic words).
pub fn plain(id: &str, level: Level, name: &str, description: &str, extra: serde_json::Value) -> InsightRecord {
    let mut block = match level {
        Level::Operation => json!({"name": name, "description": description, "safe": true, "idempotent": null,
            "owner": "unknown", "handlesCommand": null, "emits": [], "preconditions": [], "postconditions": [],
            "invariantsEnforced": [], "usesSpi": [], "domainTerms": [], "confidence": 0.8}),
        Level::Type => json!({"name": name, "description": description, "concept": "entity", "eventKind": null,
            "interfaceRole": null, "aggregateRoot": null, "containedIn": null, "syncPattern": null, "identity": null,
            "fields": [], "invariants": [], "stateMachine": null, "relatesTo": [], "exposes": [], "dependsOn": [],
            "domainTerms": [], "confidence": 0.5}),
        Level::Module => json!({"name": name, "description": description, "apis": [], "spis": [], "dependsOn": [],
            "concepts": [], "boundedContextHint": null, "sharedKernelHint": null, "ubiquitousLanguage": [],
            "confidence": 0.5}),
    };
    for (k, v) in extra.as_object().unwrap() {
        block[k] = v.clone();
    }
    let mut r = rec(id, level);
    r.name = Some(name.to_owned());
    r.block = decode_block(level, &block.to_string()).unwrap();
    r
}

/// The small shop the search tests search.
pub fn shop() -> Vec<InsightRecord> {
    vec![
        plain(
            "java:shop/PriceCalculator.quote(Cart)",
            Level::Operation,
            "quote",
            "Decides the final price of a cart: applies every discount, then the sales tax.",
            json!({"owner": "domainService", "domainTerms": ["discount", "tax"]}),
        ),
        plain(
            "java:shop/Cart.add(Item)",
            Level::Operation,
            "add",
            "Adds an item to the cart and keeps its lines sorted.",
            json!({"preconditions": [{"name": "inStock", "predicate": "the item is in stock",
                "violationReason": "nothing left to sell"}]}),
        ),
        plain(
            "java:shop/Cart",
            Level::Type,
            "Cart",
            "What a customer intends to buy, line by line.",
            json!({"concept": "aggregate", "domainTerms": ["basket"]}),
        ),
        plain(
            "java:shop/Receipt",
            Level::Type,
            "Receipt",
            "A printed record of a finished sale. Prices are copied so later price changes do not alter it.",
            json!({"concept": "valueType"}),
        ),
        plain(
            "java:shop",
            Level::Module,
            "shop",
            "The checkout: carts, quotes and receipts.",
            json!({"boundedContextHint": {"name": "Checkout", "rationale": "one language of selling"}}),
        ),
    ]
}

pub fn sidecar_of(records: Vec<InsightRecord>) -> Sidecar {
    let mut records = records;
    records.sort_by(insights::sidecar::record_order);
    Sidecar { header: header(), records, failures: vec![], trailer: None, truncated: true }
}

/// Column `column` of every row `sql` returns, as text.
pub fn texts(conn: &store::rusqlite::Connection, sql: &str, column: usize) -> Vec<String> {
    let mut stmt = conn.prepare(sql).unwrap();
    let rows = stmt.query_map([], |r| r.get(column)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}
