//! `withRetry` (`docs/formats/prompts.md` §10): up to 6 attempts, back-off 1,
//! 2, 4, 8, 16 s (doubling, capped at 30 s), never shorter than the provider's
//! `Retry-After`. Only retryable errors (408, 429, 5xx, no answer) are retried.

use std::future::Future;

use crate::error::LlmError;
use crate::sleep::Sleeper;

/// The longest `Retry-After` a run waits for: 10 minutes. A provider that
/// asks for longer (a daily quota spent, an hour's back-off) stops the run
/// with its message instead of leaving it asleep.
pub const MAX_RETRY_AFTER_MS: u64 = 10 * 60 * 1000;

/// The retry options (defaults: 6 attempts, 1000 ms base, 30000 ms cap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, the first included (at least 1).
    pub attempts: u32,
    /// The first back-off; doubles each retry.
    pub base_ms: u64,
    /// The cap on one back-off.
    pub max_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy { attempts: 6, base_ms: 1000, max_ms: 30_000 }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> RetryPolicy {
        RetryPolicy { attempts: 1, ..RetryPolicy::default() }
    }

    /// The back-off before retry `n` (1-based): `min(max, base · 2^(n−1))`.
    pub fn backoff_ms(&self, n: u32) -> u64 {
        let factor = 1u64.checked_shl(n.saturating_sub(1)).unwrap_or(u64::MAX);
        self.base_ms.saturating_mul(factor).min(self.max_ms)
    }

    /// The pause before retry `n` after `error`: the back-off, or the
    /// provider's `Retry-After` when longer.
    pub fn pause_ms(&self, n: u32, error: &LlmError) -> u64 {
        self.backoff_ms(n).max(error.retry_after_ms.unwrap_or(0))
    }
}

/// Runs `attempt(n)` (n = 1, 2, …) until it succeeds, fails for good, or the
/// attempts run out (then the last error). `on_wait(n, pause, error)` is
/// told before each pause.
pub async fn with_retry<T, F, Fut>(
    policy: &RetryPolicy,
    sleeper: &dyn Sleeper,
    mut on_wait: impl FnMut(u32, u64, &LlmError),
    mut attempt: F,
) -> Result<T, LlmError>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, LlmError>>,
{
    let attempts = policy.attempts.max(1);
    let mut n = 1;
    loop {
        match attempt(n).await {
            Ok(v) => return Ok(v),
            Err(e) if e.asks_too_long_a_wait() => {
                let minutes = e.retry_after_ms.unwrap_or(0).div_ceil(60_000);
                return Err(LlmError {
                    message: format!(
                        "the provider asks to wait {minutes} minute(s) before the next call (Retry-After), longer than \
                         the 10 minutes a run waits, so the run stops; run again later: {}",
                        e.message
                    ),
                    retryable: false,
                    ..e
                });
            }
            Err(e) if e.retryable && n < attempts => {
                let pause = policy.pause_ms(n, &e);
                on_wait(n, pause, &e);
                sleeper.sleep(pause).await;
                n += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sleep::RecordingSleeper;
    use futures::executor::block_on;
    use insights::complete::CompletionError;
    use std::cell::Cell;

    #[test]
    fn backoff_table() {
        let p = RetryPolicy::default();
        let table: Vec<u64> = (1..=6).map(|n| p.backoff_ms(n)).collect();
        assert_eq!(table, [1000, 2000, 4000, 8000, 16000, 30000]);
        assert_eq!(p.backoff_ms(200), 30000);
        assert_eq!(p.pause_ms(1, &LlmError::http("x", 429, Some(12_000))), 12_000);
        assert_eq!(p.pause_ms(3, &LlmError::http("x", 429, Some(10))), 4000);
    }

    fn run(policy: RetryPolicy, errors: Vec<LlmError>) -> (Result<u32, LlmError>, u32, Vec<u64>) {
        let sleeper = RecordingSleeper::new();
        let calls = Cell::new(0);
        let script = std::cell::RefCell::new(errors.into_iter());
        let result = block_on(with_retry(
            &policy,
            &sleeper,
            |_, _, _| {},
            |n| {
                calls.set(calls.get() + 1);
                let next = script.borrow_mut().next();
                async move {
                    match next {
                        Some(e) => Err(e),
                        None => Ok(n),
                    }
                }
            },
        ));
        (result, calls.get(), sleeper.slept())
    }

    #[test]
    fn a_429_then_success_waits_the_base() {
        let (r, calls, slept) = run(RetryPolicy::default(), vec![LlmError::http("busy", 429, None)]);
        assert_eq!((r.unwrap(), calls, slept), (2, 2, vec![1000]));
    }

    #[test]
    fn a_retry_after_over_ten_minutes_stops_instead_of_sleeping() {
        let long = LlmError::http("HTTP 429: daily quota", 429, Some(MAX_RETRY_AFTER_MS + 1));
        let (result, calls, pauses) = run(RetryPolicy::default(), vec![long]);
        let e = result.unwrap_err();
        assert_eq!((calls, pauses.len()), (1, 0), "no sleep, no second attempt");
        assert!(!e.retryable && e.message.contains("11 minute(s)") && e.message.contains("daily quota"), "{e:?}");
        let c: CompletionError = e.into();
        assert!(c.stops_run && c.status == Some(429), "{c:?}");
        // Ten minutes exactly is still waited for.
        let ok = LlmError::http("HTTP 429", 429, Some(MAX_RETRY_AFTER_MS));
        let (_, calls, pauses) = run(RetryPolicy::default(), vec![ok]);
        assert_eq!((calls, pauses), (2, vec![MAX_RETRY_AFTER_MS]));
    }

    #[test]
    fn retry_after_is_obeyed() {
        let (r, _, slept) = run(RetryPolicy::default(), vec![LlmError::http("busy", 429, Some(12_000))]);
        assert!(r.is_ok());
        assert_eq!(slept, [12_000]);
    }

    #[test]
    fn final_errors_are_not_retried() {
        for e in [
            LlmError::http("bad", 400, None),
            LlmError::http("key", 401, None),
            LlmError::http("credits", 402, Some(5000)),
            LlmError::http("perm", 403, None),
            LlmError::final_answer("not JSON"),
        ] {
            let (r, calls, slept) = run(RetryPolicy::default(), vec![e.clone()]);
            assert_eq!((r.unwrap_err(), calls, slept), (e, 1, vec![]));
        }
    }

    #[test]
    fn the_last_error_after_all_attempts() {
        let policy = RetryPolicy { attempts: 3, base_ms: 10, max_ms: 30_000 };
        let errors = vec![LlmError::network("a"), LlmError::http("b", 503, None), LlmError::http("c", 500, None)];
        let (r, calls, slept) = run(policy, errors);
        assert_eq!(r.unwrap_err().message, "c");
        assert_eq!((calls, slept), (3, vec![10, 20]));
        let six: Vec<LlmError> = (0..6).map(|i| LlmError::http(format!("e{i}"), 500, None)).collect();
        let (r, calls, slept) = run(RetryPolicy::default(), six);
        assert_eq!(r.unwrap_err().message, "e5");
        assert_eq!((calls, slept), (6, vec![1000, 2000, 4000, 8000, 16000]));
        let (r, calls, _) = run(RetryPolicy { attempts: 0, ..RetryPolicy::default() }, vec![LlmError::network("x")]);
        assert!(r.is_err());
        assert_eq!(calls, 1);
    }
}
