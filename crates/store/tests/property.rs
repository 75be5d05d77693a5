//! Property: any side-car the schema admits survives `decode → import →
//! export` byte for byte (arbitrary Unicode in every text; no U+0000 in
//! column strings, which the store refuses by design).
#![cfg(not(target_arch = "wasm32"))] // temp dirs, processes and proptest: native only (see wasm.rs)

mod common;

use common::TempDir;
use insights::blocks::Block;
use insights::sidecar::{decode, encode, synth};
use proptest::prelude::*;
use store::Store;

fn column_text() -> impl Strategy<Value = String> {
    "[^\u{0}]{1,12}"
}

fn any_text() -> impl Strategy<Value = String> {
    any::<String>()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn decode_import_export_is_the_identity(
        seed in 0u64..1_000_000,
        n in 0usize..40,
        ids in proptest::collection::vec(column_text(), 40),
        texts in proptest::collection::vec(any_text(), 40),
        confidence in prop_oneof![Just(0.0), Just(1.0), 0.0f64..=1.0, Just(1e-7)],
    ) {
        let mut sidecar = synth::synthetic(n, seed);
        for (i, r) in sidecar.records.iter_mut().enumerate() {
            r.id = format!("{}#{i}", ids[i]);
            r.name = Some(ids[(i + 1) % ids.len()].clone());
            match &mut r.block {
                Block::Operation(b) => { b.description = texts[i].clone(); b.confidence = confidence; }
                Block::Type(b) => { b.description = texts[i].clone(); b.name = texts[(i + 3) % texts.len()].clone(); }
                Block::Module(b) => b.description = texts[i].clone(),
            }
            if i % 5 == 0 {
                r.metadata = Some([(texts[(i + 1) % texts.len()].clone(), texts[(i + 2) % texts.len()].clone())].into_iter().collect());
            }
        }
        for (i, f) in sidecar.failures.iter_mut().enumerate() {
            f.reason.message = texts[(i + 7) % texts.len()].clone();
        }
        let text = encode(&sidecar);
        let decoded = decode("p", &text).unwrap();
        let dir = TempDir::new("prop");
        let s = Store::open_writer(dir.path("s.db")).unwrap();
        s.import(&decoded).unwrap();
        prop_assert_eq!(s.export_string().unwrap(), text);
        s.close().unwrap();
    }
}
