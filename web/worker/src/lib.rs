//! The page's dedicated Worker: it holds the model, the sources, the plan,
//! the run and the store, and talks to the page only through
//! [`web::protocol`] messages.
//!
//! Pure (compiled and tested natively too):
//! * [`planning`]: settings → plan → the page's view and table of it;
//! * [`progress`]: step events → the run's progress and report;
//! * [`insight`]: a store's answer for one id → the insight panel's view.
//!
//! Browser only (wasm32): `worker`, the wiring to the browser (fetch, files,
//! OPFS, Web Locks, timers) and the message loop.
//!
//! **Must never:** send anything to a provider before the page confirmed the
//! estimate; write a key into the store, a log or a URL.

pub mod insight;
pub mod planning;
pub mod progress;

#[cfg(test)]
pub(crate) mod testing {
    /// The upstream Java fixture.
    pub fn fixture() -> model::Model {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/upstream-java/model.jsonl");
        model::read_model(std::io::BufReader::new(std::fs::File::open(path).unwrap()), "model.jsonl").unwrap()
    }
}

#[cfg(target_arch = "wasm32")]
pub mod worker;
