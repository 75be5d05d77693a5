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

/// Told when the output mode for a model changes or is first confirmed
/// (to show the negotiation in a UI).
#[derive(Debug)]
pub struct ModeNotice<'a> {
    pub model: &'a str,
    /// The mode now used.
    pub mode: OutputMode,
    /// The mode the endpoint just refused, and its answer; `None` when
    /// `mode` was confirmed by a first answer.
    pub refused: Option<(OutputMode, &'a LlmError)>,
}

type RetryHook = Box<dyn Fn(&RetryNotice<'_>)>;
type ModeHook = Box<dyn Fn(&ModeNotice<'_>)>;

/// A client of one endpoint.
///
/// **Structured output** (`docs/formats/prompts.md` §10.2). Requests start
/// in [`OutputMode::JsonSchema`]. When the endpoint refuses it — any 4xx or
/// 5xx but 401–403, 408 and 429 whose text names `response_format`,
/// `json_schema`, a schema or an unsupported parameter
/// ([`is_format_refusal`]) — the same request is re-sent at once, without a
/// retry pause, in the next mode of [`OutputMode::ALL`], and the accepted
/// mode is remembered for that model for the life of the client (a client is
/// one endpoint). [`LlmClient::with_mode`] forces one mode and disables the
/// negotiation. The engine validates every answer on receipt in all modes.
pub struct LlmClient<T, S> {
    config: ProviderConfig,
    transport: T,
    sleeper: S,
    retry: RetryPolicy,
    forced: Option<OutputMode>,
    /// Per model: the mode to start with, and whether an answer confirmed it.
    modes: RefCell<HashMap<String, (OutputMode, bool)>>,
    last_mode: Cell<OutputMode>,
    on_retry: Option<RetryHook>,
    on_mode: Option<ModeHook>,
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

/// Whether an error is an endpoint refusing the structured-output request:
/// an HTTP error other than 401/402/403 (credentials), 408 and 429 (load)
/// whose text names `response_format`, `json_schema`, `json_object` or
/// structured output, or names a schema or a grammar (unless it merely
/// echoes the prompt's `## Answer format` section back). An "unsupported
/// parameter" alone is not one: `max_tokens` can be that parameter, and no
/// output mode would change the answer. Servers differ in the status:
/// OpenAI-style APIs answer 400, vLLM 400 or 422, llama-cpp-python 500 (its
/// request validation).
pub fn is_format_refusal(e: &LlmError) -> bool {
    let Some(status) = e.status else { return false };
    if !(400..600).contains(&status) || [401, 402, 403, 408, 429].contains(&status) {
        return false;
    }
    let m = e.message.to_ascii_lowercase();
    let named = ["response_format", "response format", "json_schema", "json_object", "structured output"];
    if named.iter().any(|k| m.contains(k)) {
        return true;
    }
    (m.contains("schema") || m.contains("grammar")) && !m.contains("## answer format")
}

impl<T: Transport, S: Sleeper> LlmClient<T, S> {
    /// A client with the default retry policy (`docs/formats/prompts.md` §10) and mode negotiation.
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
            on_mode: None,
            clock: crate::now_unix_ms,
        }
    }

    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Always use `mode`; no negotiation.
    pub fn with_mode(mut self, mode: OutputMode) -> Self {
        self.forced = Some(mode);
        self.last_mode.set(mode);
        self
    }

    /// `Some(mode)`: [`LlmClient::with_mode`]; `None` (`detect`): negotiate.
    pub fn with_mode_choice(self, choice: Option<OutputMode>) -> Self {
        match choice {
            Some(mode) => self.with_mode(mode),
            None => self,
        }
    }

    /// Calls `hook` before every pause between attempts.
    pub fn on_retry(mut self, hook: impl Fn(&RetryNotice<'_>) + 'static) -> Self {
        self.on_retry = Some(Box::new(hook));
        self
    }

    /// Calls `hook` when a model's output mode is refused (and the next one
    /// tried) or first confirmed by an answer.
    pub fn on_mode(mut self, hook: impl Fn(&ModeNotice<'_>) + 'static) -> Self {
        self.on_mode = Some(Box::new(hook));
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
        self.forced.or_else(|| self.modes.borrow().get(model).map(|m| m.0)).unwrap_or(OutputMode::JsonSchema)
    }

    /// The mode an answer for `model` came back in; `None` before any answer
    /// (a forced mode too is reported only once the endpoint answered in it).
    pub fn confirmed_mode(&self, model: &str) -> Option<OutputMode> {
        self.modes.borrow().get(model).filter(|m| m.1).map(|m| m.0)
    }

    fn notify(&self, notice: ModeNotice<'_>) {
        if let Some(hook) = &self.on_mode {
            hook(&notice);
        }
    }

    /// After `mode` was refused for `model`: the mode to try next (the one
    /// another request already moved on to, if further), or `None` when
    /// every mode was refused.
    fn next_mode(&self, model: &str, mode: OutputMode, error: &LlmError) -> Option<OutputMode> {
        let rank = |m: OutputMode| OutputMode::ALL.iter().position(|x| *x == m).unwrap_or(0);
        let known = self.modes.borrow().get(model).map(|m| m.0);
        if let Some(known) = known.filter(|k| rank(*k) > rank(mode)) {
            return Some(known);
        }
        let next = mode.fallback()?;
        self.modes.borrow_mut().insert(model.to_owned(), (next, false));
        self.notify(ModeNotice { model, mode: next, refused: Some((mode, error)) });
        Some(next)
    }

    fn confirm(&self, model: &str, mode: OutputMode) {
        let first = {
            let mut modes = self.modes.borrow_mut();
            let entry = modes.entry(model.to_owned()).or_insert((mode, false));
            let first = entry.0 == mode && !entry.1;
            if entry.0 == mode {
                entry.1 = true;
            }
            first
        };
        if first {
            self.notify(ModeNotice { model, mode, refused: None });
        }
    }

    /// One structured completion: retries, then the mode negotiation.
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
                    let answer = match self.transport.send(http).await {
                        Ok(response) => self.interpret(response, &request.model),
                        Err(e) => Err(LlmError::network(format!(
                            "{}: the request got no answer: {}",
                            self.config.label(),
                            e.message
                        ))),
                    };
                    // A refusal is the endpoint's final word on this mode,
                    // whatever its status: never worth a retry.
                    answer.map_err(|e| if is_format_refusal(&e) { LlmError { retryable: false, ..e } } else { e })
                }
            })
            .await;
            match result {
                Err(e) if self.forced.is_none() && is_format_refusal(&e) => {
                    match self.next_mode(&request.model, mode, &e) {
                        Some(next) => mode = next,
                        None => return Err(e),
                    }
                }
                Ok(answer) => {
                    self.confirm(&request.model, mode);
                    return Ok(answer);
                }
                Err(e) => {
                    // A final answer that could not be used (not JSON, cut)
                    // still proves the endpoint accepted the mode.
                    if e.status.is_none() && !e.retryable {
                        self.confirm(&request.model, mode);
                    }
                    return Err(e);
                }
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

    fn output_mode(&self, model: &str) -> Option<String> {
        self.confirmed_mode(model).map(|m| m.as_str().to_owned())
    }
}

#[cfg(test)]
mod tests;
