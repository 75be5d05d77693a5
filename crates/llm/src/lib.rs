//! The model-provider client (`docs/formats/prompts.md` §10): the only
//! component that speaks HTTP to a model. It implements the insights engine's
//! [`insights::complete::Completer`] port over
//!
//! * a one-function [`Transport`] (native: blocking `ureq` in a thread per
//!   request; browser: `fetch` through `gloo-net`; tests: [`fake::FakeTransport`]);
//! * the OpenAI chat-completions contract, built and parsed once ([`wire`]);
//! * the providers of [`provider`] (OpenRouter, Cloudflare AI Gateway's REST
//!   and OpenAI-compatible routes, any OpenAI-compatible base URL) and their
//!   resolution from an environment;
//! * structured-output modes, negotiated per endpoint and model ([`OutputMode`]);
//! * the retry policy of §10 with an injectable [`Sleeper`].
//!
//! [`demo::DemoCompleter`] answers offline, without any provider.
//!
//! **Must never:** put a key in a URL, a log line, `Debug` output, the store or
//! the side-car; retry a refusal or a fatal status as if it were transient;
//! sleep for a provider's `Retry-After` longer than
//! `retry::MAX_RETRY_AFTER_MS`.

pub mod client;
pub mod demo;
pub mod error;
pub mod fake;
pub mod prices;
pub mod provider;
pub mod retry;
pub mod sleep;
pub mod transport;
pub mod wire;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

#[cfg(target_arch = "wasm32")]
pub mod browser;

pub use client::{LlmClient, ModeNotice, RetryNotice};
pub use error::{is_retryable_status, LlmError};
pub use provider::{resolve_provider, MissingCredentials, ProviderChoice, ProviderConfig, Secret};
pub use retry::RetryPolicy;
pub use sleep::{RecordingSleeper, Sleeper};
pub use transport::{HttpRequest, HttpResponse, Transport, TransportError};
pub use wire::{LlmResponse, OutputMode};

pub use insights::complete::{Completer, Completion, CompletionError, CompletionRequest, LocalFuture};

/// The transport of this target: [`native::NativeTransport`] or [`browser::FetchTransport`].
#[cfg(not(target_arch = "wasm32"))]
pub type DefaultTransport = native::NativeTransport;
/// The transport of this target: [`native::NativeTransport`] or [`browser::FetchTransport`].
#[cfg(target_arch = "wasm32")]
pub type DefaultTransport = browser::FetchTransport;

/// The sleeper of this target: [`native::ThreadSleeper`] or [`browser::TimerSleeper`].
#[cfg(not(target_arch = "wasm32"))]
pub type DefaultSleeper = native::ThreadSleeper;
/// The sleeper of this target: [`native::ThreadSleeper`] or [`browser::TimerSleeper`].
#[cfg(target_arch = "wasm32")]
pub type DefaultSleeper = browser::TimerSleeper;

/// A client for `config` over this target's transport and timers, with the
/// default retry policy.
pub fn client(config: ProviderConfig) -> LlmClient<DefaultTransport, DefaultSleeper> {
    LlmClient::new(config, DefaultTransport::default(), DefaultSleeper::default())
}

/// Milliseconds since the Unix epoch (for `Retry-After` dates).
pub fn now_unix_ms() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now().max(0.0) as u64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }
}
