//! The page of codegraph insights, and what it shares with its Worker.
//!
//! Pure (compiled and tested natively too):
//! * [`protocol`]: the typed messages between page and Worker;
//! * [`cycles`]: the Cycles tab's list as rows of one height, windowed;
//! * [`insight`]: the three-way answer for one id, as the insight panel shows it.
//!
//! Browser only (wasm32):
//! * `app`: the Leptos CSR page (renders, never holds the model);
//! * `wire`: a protocol message to and from a JS value.
//!
//! The Worker (the model, sources, plan, run and store) is the crate
//! `web-worker` (`web/worker/`), a module of its own: this crate links none
//! of the store, the sources or the analyzer, so the page's wasm carries
//! nothing of what the Worker does.
//!
//! **Must never:** hold the model, plan rows or records on the UI thread (the
//! Worker does); render corpus or model text as HTML; write a key anywhere but
//! the tab's memory (or, opted in, localStorage); send anything before the user
//! confirmed the estimate.

pub mod cycles;
pub mod insight;
pub mod protocol;

#[cfg(test)]
pub(crate) mod testing {
    /// The upstream Java fixture.
    pub fn fixture() -> model::Model {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/upstream-java/model.jsonl");
        model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap()
    }
}

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod wire;
