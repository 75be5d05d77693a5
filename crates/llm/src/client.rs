//! `LlmClient`: a provider configuration over a transport, with retries and
//! structured-output fallback, exposed as the insights engine's
//! [`Completer`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;

use insights::complete::{Completer, Completion, CompletionError, CompletionRequest, LocalFuture};
use serde_json::Value;

use crate::error::LlmError;
use crate::provider::ProviderConfig;
use crate::retry::{with_retry, RetryPolicy};
use crate::sleep::Sleeper;
use crate::transport::{HttpRequest, HttpResponse, Transport};
use crate::wire::{error_detail, first_chars, parse_reply, request_body, retry_after_ms, LlmResponse, OutputMode};

/// Told before each pause between attempts (to surface waits in a UI).
#[derive(Debug)]
pub struct RetryNotice<'a> {
    /// The attempt that just failed (1-based).
    pub attempt: u32,
    /// The pause before the next one.
    pub wait_ms: u64,
    pub error: &'a LlmError,
}

type RetryHook = Box<dyn Fn(&RetryNotice<'_>)>;

/// A client of one endpoint.
///
/// **Structured output.** Requests start in [`OutputMode::JsonSchema`]. When
/// the endpoint refuses it (a 400/422 whose text names `response_format`,
/// `json_schema` or `json_object`), the same request is re-sent in the next
/// mode ([`OutputMode::JsonObject`], then [`OutputMode::PromptOnly`]), and
/// the mode that was accepted is remembered for that model for the life of
/// the client. [`LlmClient::with_mode`] forces one mode and disables the
/// fallback. The engine validates every answer on receipt in all modes.
pub struct LlmClient<T, S> {
    config: ProviderConfig,
    transport: T,
    sleeper: S,
    retry: RetryPolicy,
    forced: Option<OutputMode>,
    modes: RefCell<HashMap<String, OutputMode>>,
    last_mode: Cell<OutputMode>,
    on_retry: Option<RetryHook>,
    clock: fn() -> u64,
}

impl<T, S> fmt::Debug for LlmClient<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmClient")
            .field("config", &self.config)
            .field("retry", &self.retry)
            .field("forced", &self.forced)
            .field("mode", &self.last_mode.get())
            .finish_non_exhaustive()
    }
}

/// Whether an error is an endpoint refusing the structured-output request.
pub fn is_format_refusal(e: &LlmError) -> bool {
    if !matches!(e.status, Some(400) | Some(422)) {
        return false;
    }
    let m = e.message.to_ascii_lowercase();
    ["response_format", "response format", "json_schema", "json_object", "structured output"]
        .iter()
        .any(|k| m.contains(k))
}

impl<T: Transport, S: Sleeper> LlmClient<T, S> {
    /// A client with the default retry policy (`docs/formats/prompts.md` §10) and mode fallback.
    pub fn new(config: ProviderConfig, transport: T, sleeper: S) -> LlmClient<T, S> {
        LlmClient {
            config,
            transport,
            sleeper,
            retry: RetryPolicy::default(),
            forced: None,
            modes: RefCell::new(HashMap::new()),
            last_mode: Cell::new(OutputMode::JsonSchema),
            on_retry: None,
            clock: crate::now_unix_ms,
        }
    }

    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Always use `mode`; no fallback.
    pub fn with_mode(mut self, mode: OutputMode) -> Self {
        self.forced = Some(mode);
        self.last_mode.set(mode);
        self
    }

    /// Calls `hook` before every pause between attempts.
    pub fn on_retry(mut self, hook: impl Fn(&RetryNotice<'_>) + 'static) -> Self {
        self.on_retry = Some(Box::new(hook));
        self
    }

    /// The clock (Unix ms) that `Retry-After` dates are measured against.
    pub fn with_clock(mut self, clock: fn() -> u64) -> Self {
        self.clock = clock;
        self
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// The structured-output mode of the latest request (before any, the
    /// forced mode or [`OutputMode::JsonSchema`]).
    pub fn mode(&self) -> OutputMode {
        self.last_mode.get()
    }

    /// The mode the next request for `model` will start with.
    pub fn mode_for(&self, model: &str) -> OutputMode {
        self.forced.or_else(|| self.modes.borrow().get(model).copied()).unwrap_or(OutputMode::JsonSchema)
    }

    /// One structured completion: retries, then the mode fallback.
    pub async fn call(&self, request: &CompletionRequest) -> Result<LlmResponse, LlmError> {
        let mut mode = self.mode_for(&request.model);
        loop {
            self.last_mode.set(mode);
            let http = HttpRequest::post_json(self.config.url(), self.config.headers(), request_body(request, mode));
            let notify = |attempt: u32, wait_ms: u64, error: &LlmError| {
                if let Some(hook) = &self.on_retry {
                    hook(&RetryNotice { attempt, wait_ms, error });
                }
            };
            let result = with_retry(&self.retry, &self.sleeper, notify, |_| {
                let http = http.clone();
                async move {
                    match self.transport.send(http).await {
                        Ok(response) => self.interpret(response, &request.model),
                        Err(e) => Err(LlmError::network(format!(
                            "{}: the request got no answer: {}",
                            self.config.label(),
                            e.message
                        ))),
                    }
                }
            })
            .await;
            match result {
                Err(e) if self.forced.is_none() && is_format_refusal(&e) => match mode.fallback() {
                    Some(next) => {
                        self.modes.borrow_mut().insert(request.model.clone(), next);
                        mode = next;
                    }
                    None => return Err(e),
                },
                other => return other,
            }
        }
    }

    fn interpret(&self, response: HttpResponse, model: &str) -> Result<LlmResponse, LlmError> {
        let label = self.config.label();
        let status = response.status;
        if !(200..300).contains(&status) {
            let retry_after = retry_after_ms(response.header("retry-after"), (self.clock)());
            let message = match error_detail(&response.body) {
                Some(detail) => format!("{label}: HTTP {status}: {detail}"),
                None => format!("{label}: HTTP {status}"),
            };
            return Err(LlmError::http(message, status, retry_after));
        }
        let reply: Value = serde_json::from_str(&response.body).map_err(|_| {
            LlmError::final_answer(format!(
                "{label}: the reply (HTTP {status}) is not JSON: {}",
                first_chars(response.body.trim(), 200)
            ))
        })?;
        // Some routers answer 200 with an error object instead of choices.
        if reply.get("choices").is_none() {
            if let Some(error) = reply.get("error") {
                let detail = error_detail(&response.body).unwrap_or_else(|| error.to_string());
                let code = error.get("code").and_then(Value::as_u64).filter(|c| (400..600).contains(c));
                return Err(match code {
                    Some(code) => LlmError::http(format!("{label}: HTTP {code}: {detail}"), code as u16, None),
                    None => LlmError::final_answer(format!("{label}: the reply is an error: {detail}")),
                });
            }
        }
        parse_reply(&reply, model)
    }
}

impl<T: Transport, S: Sleeper> Completer for LlmClient<T, S> {
    fn name(&self) -> String {
        self.config.name()
    }

    fn complete(&self, request: CompletionRequest) -> LocalFuture<'_, Result<Completion, CompletionError>> {
        Box::pin(async move {
            let r = self.call(&request).await?;
            Ok(Completion { json: r.json, model: r.model, usage: r.usage })
        })
    }
}

#[cfg(test)]
mod tests;
