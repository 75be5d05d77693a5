//! Deterministic synthetic side-cars with realistic sizes, for tests and
//! benchmarks (not part of the API; behind the feature `synth`).

use super::{record_order, Sidecar};
use crate::blocks::*;
use crate::record::*;
use crate::vocab::*;

/// SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "order",
    "customer",
    "price",
    "total",
    "the",
    "of",
    "cart",
    "sku",
    "product",
    "is",
    "returns",
    "when",
    "a",
    "category",
    "catalog",
    "offer",
    "discount",
    "fulfillment",
    "payment",
    "gateway",
    "inventory",
    "shipping",
    "applies",
    "computes",
    "validates",
    "and",
    "to",
    "from",
    "for",
    "with",
    "every",
    "item",
    "line",
    "amount",
    "currency",
    "tax",
    "rule",
    "state",
    "pending",
    "submitted",
    "persists",
    "loads",
    "repository",
    "entity",
    "value",
    "identifier",
    "address",
    "account",
    "session",
    "promotion",
    "qualifier",
    "target",
    "candidate",
];
/// Rare tokens exercising escaping and UTF-16 order.
const ODD: &[&str] = &[
    "naïve",
    "\"quoted\"",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "😀",
    "\u{2028}",
    "nul\u{0}byte",
    "～",
    "</script>",
    "\u{1}",
    "€",
    "日本語",
    "𝔘",
];

/// A phrase of `n` words (rarely an odd token).
pub fn words(rng: &mut Rng, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        if rng.chance(0.01) {
            s.push_str(rng.pick::<&str>(ODD));
        } else {
            s.push_str(rng.pick::<&str>(WORDS));
        }
    }
    s
}

fn name(rng: &mut Rng) -> String {
    let a = rng.pick(WORDS);
    let b = rng.pick(WORDS);
    let mut s = String::new();
    let mut up = true;
    for c in a.chars().chain(b.chars()) {
        s.extend(if up { c.to_uppercase().collect::<Vec<_>>() } else { vec![c] });
        up = false;
    }
    s
}

fn list<T>(rng: &mut Rng, max: usize, mut f: impl FnMut(&mut Rng) -> T) -> Vec<T> {
    let n = rng.below(max + 1);
    (0..n).map(|_| f(rng)).collect()
}

fn opt<T>(rng: &mut Rng, p: f64, f: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    if rng.chance(p) {
        Some(f(rng))
    } else {
        None
    }
}

/// A confidence as models and templates give them: often 1, 0.5-ish
/// round values, sometimes long fractions or tiny numbers.
pub fn confidence(rng: &mut Rng) -> f64 {
    match rng.below(8) {
        0 => 1.0,
        1 => 0.0,
        2 => 0.5,
        3 => 0.85,
        4 => 0.9,
        5 => 1e-7,
        _ => rng.unit(),
    }
}

/// A cost share: `cost / n`, unrounded (long fractions).
pub fn cost(rng: &mut Rng) -> f64 {
    match rng.below(10) {
        0 => 0.001,
        1 => 1e21,
        2 => 0.0,
        _ => (rng.below(100_000) as f64 * 1e-6) / (1 + rng.below(7)) as f64,
    }
}

/// A random block of `level`, realistic in size.
pub fn block(level: Level, rng: &mut Rng) -> Block {
    match level {
        Level::Operation => {
            let len = 45 + rng.below(60);
            Block::Operation(OperationBlock {
                name: name(rng),
                description: words(rng, len),
                safe: rng.chance(0.5),
                idempotent: opt(rng, 0.7, |r| r.chance(0.5)),
                owner: *rng.pick(OperationOwner::ALL),
                handles_command: opt(rng, 0.2, name),
                emits: list(rng, 2, |r| Emit { name: name(r), kind: *r.pick(EventKind::ALL) }),
                preconditions: list(rng, 2, |r| Precondition {
                    name: name(r),
                    predicate: words(r, 6),
                    violation_reason: words(r, 8),
                }),
                postconditions: list(rng, 2, |r| Postcondition { name: name(r), predicate: words(r, 7) }),
                invariants_enforced: list(rng, 2, |r| words(r, 5)),
                uses_spi: list(rng, 1, |r| SpiUse { name: name(r), capability: words(r, 4) }),
                domain_terms: list(rng, 4, |r| r.pick(WORDS).to_string()),
                confidence: confidence(rng),
            })
        }
        Level::Type => {
            let len = 70 + rng.below(100);
            Block::Type(TypeBlock {
                name: name(rng),
                description: words(rng, len),
                concept: *rng.pick(DomainConcept::ALL),
                event_kind: opt(rng, 0.1, |r| *r.pick(EventKind::ALL)),
                interface_role: opt(rng, 0.2, |r| *r.pick(InterfaceRole::ALL)),
                aggregate_root: opt(rng, 0.3, |r| r.chance(0.5)),
                contained_in: opt(rng, 0.2, name),
                sync_pattern: opt(rng, 0.1, |r| *r.pick(SyncPattern::ALL)),
                identity: opt(rng, 0.4, name),
                fields: list(rng, 8, |r| FieldBlock { name: name(r), type_: name(r), kind: *r.pick(FieldKind::ALL) }),
                invariants: list(rng, 3, |r| Invariant {
                    name: name(r),
                    predicate: words(r, 8),
                    enforcement: *r.pick(Enforcement::ALL),
                }),
                state_machine: opt(rng, 0.15, |r| StateMachine {
                    states: list(r, 4, name),
                    transitions: list(r, 4, |r| Transition { from: name(r), to: name(r), operation: name(r) }),
                }),
                relates_to: list(rng, 4, |r| ConceptRef { name: name(r), concept: *r.pick(DomainConcept::ALL) }),
                exposes: list(rng, 6, name),
                depends_on: list(rng, 2, |r| PortRef { name: name(r), role: *r.pick(InterfaceRole::ALL) }),
                domain_terms: list(rng, 6, |r| r.pick(WORDS).to_string()),
                confidence: confidence(rng),
            })
        }
        Level::Module => {
            let len = 110 + rng.below(120);
            Block::Module(ModuleBlock {
                name: name(rng),
                description: words(rng, len),
                apis: list(rng, 4, |r| Api { name: name(r), operations: list(r, 5, name) }),
                spis: list(rng, 3, |r| SpiUse { name: name(r), capability: words(r, 5) }),
                depends_on: list(rng, 5, name),
                concepts: list(rng, 6, |r| ConceptRef { name: name(r), concept: *r.pick(DomainConcept::ALL) }),
                bounded_context_hint: opt(rng, 0.5, |r| BoundedContextHint { name: name(r), rationale: words(r, 15) }),
                shared_kernel_hint: opt(rng, 0.1, |r| words(r, 6)),
                ubiquitous_language: list(rng, 6, |r| Term { term: name(r), definition: words(r, 10) }),
                confidence: confidence(rng),
            })
        }
    }
}

fn hex64(rng: &mut Rng) -> String {
    (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect()
}

fn usage(rng: &mut Rng) -> Usage {
    Usage { prompt_tokens: rng.below(6000) as u64, completion_tokens: rng.below(900) as u64, cost: opt(rng, 0.8, cost) }
}

/// A random record for `id` at `level` (every optional key sometimes).
pub fn record(id: String, level: Level, rng: &mut Rng) -> InsightRecord {
    let templated = level == Level::Operation && rng.chance(0.35);
    let module = format!("com.acme.{}", rng.pick(WORDS));
    InsightRecord {
        key: opt(rng, 0.7, |r| NaturalKey {
            lang: "java".into(),
            module: module.clone(),
            symbol: name(r),
            disambiguator: opt(r, 0.2, |r| format!("({})", name(r))),
        }),
        level,
        kind: match level {
            Level::Operation => rng.pick(&["method", "constructor"]).to_string(),
            Level::Type => rng.pick(&["class", "interface", "enum", "record"]).to_string(),
            Level::Module => "package".into(),
        },
        name: opt(rng, 0.95, name),
        file: if level == Level::Module {
            None
        } else {
            opt(rng, 0.95, |r| format!("src/main/java/com/acme/{}/{}.java", r.pick(WORDS), name(r)))
        },
        scc: opt(rng, 0.05, |r| {
            let mut v = vec![id.clone(), format!("{id}~{}", r.below(9))];
            model::sort_utf16(&mut v);
            v
        }),
        origin: if templated { Origin::Template } else { Origin::Llm },
        block: block(level, rng),
        fingerprint: hex64(rng),
        model: if templated { None } else { Some("anthropic/claude-sonnet-4.5".into()) },
        usage: if templated { None } else { opt(rng, 0.95, usage) },
        metadata: opt(rng, 0.01, |r| {
            let mut m = std::collections::BTreeMap::new();
            m.insert("10".to_string(), words(r, 1));
            m.insert("9".to_string(), words(r, 1));
            m.insert("note".to_string(), words(r, 3));
            m
        }),
        id,
    }
}

/// A random failure record for unit `id` at `level`.
pub fn failure(id: String, level: Level, rng: &mut Rng) -> FailureRecord {
    let kind = *rng.pick(FailureKind::ALL);
    FailureRecord {
        key: None,
        level,
        members: vec![id.clone()],
        model: "openai/gpt-4.1-mini".into(),
        reason: FailureReason {
            kind,
            message: words(rng, 12),
            status: if kind == FailureKind::Provider { Some(*rng.pick(&[402u16, 429, 500])) } else { None },
            retryable: if kind == FailureKind::Provider { Some(rng.chance(0.5)) } else { None },
        },
        attempts: 1 + rng.below(3) as u32,
        calls: rng.below(3) as u32,
        usage: opt(rng, 0.5, usage),
        id,
    }
}

/// The header of a synthetic side-car.
pub fn header() -> SidecarHeader {
    SidecarHeader {
        generated_by: INSIGHTS_GENERATOR.into(),
        prompt_version: PROMPT_VERSION.into(),
        metamodel: INSIGHTS_METAMODEL.into(),
        models: HeaderModels { leaf: "openai/gpt-4.1-mini".into(), rollup: "anthropic/claude-sonnet-4.5".into() },
        provider: Some("openrouter".into()),
        depth: 1,
        source: HeaderSource {
            paths: vec!["broadleaf.specy.json".into()],
            langs: vec!["java".into()],
            view: HeaderView { name: "domain".into(), filters: vec!["-test".into()] },
        },
    }
}

/// A side-car of `n_records` records (BroadleafCommerce's mix of levels:
/// 86.5 % operations, 11.7 % types, 1.8 % modules; about 1.7 KB per
/// record line), a few failures and a trailer. Records and failures are
/// sorted, so `decode(encode(s)) == s`. Deterministic in `seed`.
pub fn synthetic(n_records: usize, seed: u64) -> Sidecar {
    let mut rng = Rng(seed);
    let mut records = Vec::with_capacity(n_records);
    for i in 0..n_records {
        let x = rng.unit();
        let pkg = rng.pick(WORDS).to_string();
        let ty = name(&mut rng);
        let (level, id) = if x < 0.865 {
            let params = list(&mut rng, 3, name).join(",");
            (Level::Operation, format!("java:org/broadleafcommerce/core/{pkg}/{ty}{i}.{}({params})", name(&mut rng)))
        } else if x < 0.982 {
            (Level::Type, format!("java:org/broadleafcommerce/core/{pkg}/{ty}{i}"))
        } else {
            (Level::Module, format!("java:org/broadleafcommerce/core/{pkg}{i}"))
        };
        records.push(record(id, level, &mut rng));
    }
    records.sort_by(record_order);
    let n_failures = n_records / 2000 + 1;
    let mut failures: Vec<FailureRecord> = (0..n_failures)
        .map(|i| {
            let level = *rng.pick(Level::ALL);
            failure(format!("java:org/broadleafcommerce/failed/F{i}"), level, &mut rng)
        })
        .collect();
    failures.sort_by(super::failure_order);
    let mut total = Usage { prompt_tokens: 0, completion_tokens: 0, cost: Some(0.0) };
    for r in &records {
        if let Some(u) = &r.usage {
            total.add(u);
        }
    }
    let llm = records.iter().filter(|r| r.origin == Origin::Llm).count() as u64;
    let trailer = Trailer {
        counts: TrailerCounts {
            records: records.len() as u64,
            llm,
            template: records.len() as u64 - llm,
            reused: 0,
            failed: failures.len() as u64,
        },
        usage: total,
        generated_at: "2025-06-01T12:00:00.000Z".into(),
    };
    Sidecar { header: header(), records, failures, trailer: Some(trailer), truncated: false }
}
