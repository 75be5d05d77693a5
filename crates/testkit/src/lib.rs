//! Test support (native only).
//!
//! [`MockProvider`] is a chat-completions server on `127.0.0.1` that answers
//! every request with placeholder blocks ([`llm::demo::placeholder_answer`]), records what
//! it was sent, and misbehaves on demand ([`Fault`], per request number or
//! per unit id). It speaks plain HTTP/1.1 over `std::net` (one thread per
//! connection, `Connection: close`) rather than through an HTTP server crate,
//! because a test needs to drop a connection without an answer, which a
//! server library does not let one do.
//!
//! **Must never:** be a dependency of a shipped binary or the page; reach
//! beyond 127.0.0.1.

mod fault;
mod http;
mod server;

pub use fault::{Fault, FaultRule, When};
pub use server::{MockConfig, MockProvider, RecordedRequest, MOCK_COST, MOCK_USAGE};
