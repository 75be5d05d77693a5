//! `LlmError` (`docs/formats/prompts.md` §10): the one error a consumer of the client sees.

use insights::complete::CompletionError;
use insights::vocab::FATAL_STATUSES;

/// A failed completion. `retryable` is decided once, at construction.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    pub message: String,
    /// The HTTP status, when the provider answered.
    pub status: Option<u16>,
    pub retryable: bool,
    /// The provider's `Retry-After`, in milliseconds, when it sent one.
    pub retry_after_ms: Option<u64>,
}

/// `isRetryableStatus`: no status (a network failure), 408, 429 and every
/// status ≥ 500 are worth another attempt; nothing else is.
pub fn is_retryable_status(status: Option<u16>) -> bool {
    match status {
        None => true,
        Some(s) => s == 408 || s == 429 || s >= 500,
    }
}

impl LlmError {
    /// A non-2xx answer: retryable as its status says.
    pub fn http(message: impl Into<String>, status: u16, retry_after_ms: Option<u64>) -> LlmError {
        LlmError {
            message: message.into(),
            status: Some(status),
            retryable: is_retryable_status(Some(status)),
            retry_after_ms,
        }
    }

    /// The request never got an answer (DNS, refused, reset, timeout): retryable.
    pub fn network(message: impl Into<String>) -> LlmError {
        LlmError { message: message.into(), status: None, retryable: true, retry_after_ms: None }
    }

    /// A final answer that cannot be used (empty, refused, not JSON, cut): no
    /// status, never retried.
    pub fn final_answer(message: impl Into<String>) -> LlmError {
        LlmError { message: message.into(), status: None, retryable: false, retry_after_ms: None }
    }

    /// The provider's `Retry-After` is longer than a run waits
    /// ([`crate::retry::MAX_RETRY_AFTER_MS`]): the run stops instead of sleeping.
    pub fn asks_too_long_a_wait(&self) -> bool {
        self.retry_after_ms.is_some_and(|ms| ms > crate::retry::MAX_RETRY_AFTER_MS)
    }

    /// 401, 402 or 403: the run stops (`docs/formats/prompts.md` §10,
    /// `docs/formats/units-and-walk.md` §8).
    pub fn is_fatal(&self) -> bool {
        self.status.is_some_and(|s| FATAL_STATUSES.contains(&s))
    }
}

impl From<LlmError> for CompletionError {
    fn from(e: LlmError) -> CompletionError {
        let stops = e.asks_too_long_a_wait();
        let c = CompletionError::provider(e.message, e.status, e.retryable);
        if stops {
            c.stopping_the_run()
        } else {
            c
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_statuses() {
        for (status, want) in [
            (None, true),
            (Some(408), true),
            (Some(429), true),
            (Some(500), true),
            (Some(503), true),
            (Some(599), true),
            (Some(400), false),
            (Some(401), false),
            (Some(402), false),
            (Some(403), false),
            (Some(404), false),
            (Some(422), false),
        ] {
            assert_eq!(is_retryable_status(status), want, "{status:?}");
        }
    }

    #[test]
    fn maps_to_a_provider_failure() {
        let e: CompletionError = LlmError::http("OpenRouter: HTTP 402: no credits", 402, None).into();
        assert_eq!(e, CompletionError::provider("OpenRouter: HTTP 402: no credits", Some(402), false));
        let e: CompletionError = LlmError::network("reset").into();
        assert_eq!((e.status, e.retryable), (None, Some(true)));
        assert!(LlmError::http("x", 403, None).is_fatal());
        assert!(!LlmError::http("x", 429, None).is_fatal());
        assert!(!LlmError::final_answer("x").retryable);
    }
}
