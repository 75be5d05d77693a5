//! The browser side of codegraph insights.
//!
//! * [`protocol`]: the typed messages between page and Worker (pure, also
//!   compiled and tested natively).
//! * `app` (wasm32 only): the Leptos CSR page.
//! * `worker` (wasm32 only): the dedicated Worker that holds all state.

pub mod protocol;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod wire;
#[cfg(target_arch = "wasm32")]
pub mod worker;
