//! Runs in headless Chromium (a dedicated worker, like the app's own) via
//! `wasm-bindgen-test-runner`: `cargo xtask test --only wasm`.
#![cfg(target_arch = "wasm32")]

use std::cmp::Ordering;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
fn cmp_utf16_orders_in_a_browser_worker() {
    assert_eq!(model::cmp_utf16("a", "b"), Ordering::Less);
}
