//! The model-call port (`docs/formats/prompts.md` §10): the engine asks a
//! [`Completer`] for one structured completion and reads errors
//! structurally. Providers (HTTP, the offline demo, test doubles) implement
//! it outside this crate.

use crate::record::Usage;
use crate::vocab::Level;
use std::future::Future;
use std::pin::Pin;

/// Which unit a request asks about, carried beside the prompt so that no
/// completer, progress view or test double reads it back from the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asking {
    /// The unit id (a cycle's first member).
    pub unit: String,
    pub level: Level,
    /// The ids this request asks for: the one member of a block prompt, or a
    /// cycle chunk's members (the ids the cycle schema enumerates).
    pub members: Vec<String>,
    /// The cycle shape (`{members: [{id, block}]}`) rather than one block.
    pub cycle: bool,
}

/// One structured completion.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletionRequest {
    /// What is asked, structurally.
    pub asking: Asking,
    /// Provider slug, e.g. `openai/gpt-5.6-luna`.
    pub model: String,
    pub system: String,
    pub user: String,
    /// `codegraph_<level>` or `codegraph_<level>_cycle`.
    pub schema_name: String,
    /// The strict JSON Schema the answer must follow (serialized in its
    /// property order; [`crate::bounds::bounded`] gives its bounded form).
    pub schema: crate::schema::StrictSchema,
    /// Output cap, only when the user set one (`--max-tokens`).
    pub max_tokens: Option<u32>,
}

/// What came back: unvalidated JSON, the model that served it, usage.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub json: serde_json::Value,
    pub model: String,
    pub usage: Option<Usage>,
}

/// A failed call, read structurally: a status and/or a retryable flag make
/// it a `provider` failure; neither makes it an `error`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CompletionError {
    pub message: String,
    pub status: Option<u16>,
    pub retryable: Option<bool>,
    /// Further calls would meet the same answer, so the run stops sending
    /// them, like after a fatal status (e.g. a provider asking to wait
    /// longer than a run waits).
    pub stops_run: bool,
    /// The call was never sent: the user stopped the run while it waited
    /// (a paused run). The unit ends like a step not begun: owed, with no
    /// failure row.
    pub withdrawn: bool,
}

impl CompletionError {
    /// An error that is the provider's answer (a status, or a client error like a cut answer).
    pub fn provider(message: impl Into<String>, status: Option<u16>, retryable: bool) -> Self {
        CompletionError {
            message: message.into(),
            status,
            retryable: Some(retryable),
            stops_run: false,
            withdrawn: false,
        }
    }
    /// Anything else.
    pub fn other(message: impl Into<String>) -> Self {
        CompletionError { message: message.into(), status: None, retryable: None, stops_run: false, withdrawn: false }
    }
    /// A call taken back before it was sent (the run was stopped while it waited).
    pub fn withdrawn() -> Self {
        CompletionError { withdrawn: true, ..CompletionError::other("not sent: the run was stopped") }
    }
    /// The same error, stopping the run.
    pub fn stopping_the_run(self) -> Self {
        CompletionError { stops_run: true, ..self }
    }
}

/// A boxed future that need not be `Send` (the browser is single-threaded).
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// The model-call port.
pub trait Completer {
    /// A short label for progress lines (`openrouter`, `cloudflare/<gateway>`, `demo`, …).
    fn name(&self) -> String;
    fn complete(&self, request: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>>;
    /// How answers for `model` are asked to be structured, once known (an
    /// HTTP client's negotiated output mode, e.g. `json-object-schema`);
    /// `None` for a completer that has no such notion or has not answered yet.
    fn output_mode(&self, model: &str) -> Option<String> {
        let _ = model;
        None
    }
}
