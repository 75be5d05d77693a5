//! The chat-completions contract (`docs/formats/prompts.md` §10), built and
//! parsed once for every provider: the request body for an [`OutputMode`], the
//! reply parser, the error detail of a non-2xx body, and `Retry-After`.

use insights::complete::CompletionRequest;
use insights::record::Usage;
use serde::Serialize;
use serde_json::Value;

use crate::error::LlmError;

/// How the answer's shape is asked for. Endpoints differ: some take a strict
/// JSON Schema, some only "a JSON object", some neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputMode {
    /// `response_format: {type: "json_schema", json_schema: {name, strict: true, schema}}`.
    JsonSchema,
    /// `response_format: {type: "json_object"}`, the schema in the system message.
    JsonObject,
    /// No `response_format`; the schema in the system message (the engine
    /// validates the answer on receipt, as always).
    PromptOnly,
}

impl OutputMode {
    /// Every mode, in fallback order.
    pub const ALL: [OutputMode; 3] = [OutputMode::JsonSchema, OutputMode::JsonObject, OutputMode::PromptOnly];

    /// `json_schema`, `json_object` or `prompt`.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputMode::JsonSchema => "json_schema",
            OutputMode::JsonObject => "json_object",
            OutputMode::PromptOnly => "prompt",
        }
    }

    /// The mode named by [`OutputMode::as_str`].
    pub fn parse(s: &str) -> Option<OutputMode> {
        OutputMode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The next mode to try after an endpoint refused this one.
    pub fn fallback(self) -> Option<OutputMode> {
        match self {
            OutputMode::JsonSchema => Some(OutputMode::JsonObject),
            OutputMode::JsonObject => Some(OutputMode::PromptOnly),
            OutputMode::PromptOnly => None,
        }
    }
}

impl std::fmt::Display for OutputMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct JsonSchemaFormat<'a> {
    name: &'a str,
    strict: bool,
    schema: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseFormat<'a> {
    JsonSchema { json_schema: JsonSchemaFormat<'a> },
    JsonObject,
}

/// The wire body, fields in the order they are sent.
#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: [Message<'a>; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
    temperature: f64,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

/// The system message with the schema spelled out, for the modes where the
/// endpoint does not enforce it.
pub fn system_with_schema(request: &CompletionRequest) -> String {
    let schema = serde_json::to_string_pretty(&request.json_schema).unwrap_or_default();
    format!(
        "{}\n\n## Answer format\nAnswer with one JSON document and nothing else: no prose, no Markdown fence. It must \
         follow this JSON Schema (`{}`) exactly; every property is required, null where the schema allows it:\n{}\n",
        request.system.trim_end(),
        request.schema_name,
        schema
    )
}

/// The serialized request body: model, messages `[system, user]`, the
/// response format of `mode`, `temperature` 0, `stream` false, `max_tokens`
/// only when asked. Never a key.
pub fn request_body(request: &CompletionRequest, mode: OutputMode) -> String {
    let system = match mode {
        OutputMode::JsonSchema => request.system.clone(),
        OutputMode::JsonObject | OutputMode::PromptOnly => system_with_schema(request),
    };
    let response_format = match mode {
        OutputMode::JsonSchema => Some(ResponseFormat::JsonSchema {
            json_schema: JsonSchemaFormat { name: &request.schema_name, strict: true, schema: &request.json_schema },
        }),
        OutputMode::JsonObject => Some(ResponseFormat::JsonObject),
        OutputMode::PromptOnly => None,
    };
    let body = ChatBody {
        model: &request.model,
        messages: [Message { role: "system", content: &system }, Message { role: "user", content: &request.user }],
        response_format,
        temperature: 0.0,
        stream: false,
        max_tokens: request.max_tokens,
    };
    serde_json::to_string(&body).expect("a chat body always serializes")
}

/// A parsed, unvalidated answer (§10).
#[derive(Clone, Debug, PartialEq)]
pub struct LlmResponse {
    pub json: Value,
    /// The raw text the model returned.
    pub text: String,
    /// The model that served the request (else the one asked for).
    pub model: String,
    pub usage: Option<Usage>,
}

/// The first `n` characters of `s` (characters, not bytes).
pub fn first_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn get<'a>(v: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    v.get(camel).or_else(|| v.get(snake))
}

/// Usage from a reply's `usage` (camelCase or snake_case); both token counts
/// must be numbers. `cost` only when it is a number.
pub fn usage_of(reply: &Value) -> Option<Usage> {
    let u = reply.get("usage")?;
    let tokens = |camel, snake| get(u, camel, snake).and_then(Value::as_f64).filter(|x| x.is_finite() && *x >= 0.0);
    let prompt = tokens("promptTokens", "prompt_tokens")?;
    let completion = tokens("completionTokens", "completion_tokens")?;
    Some(Usage {
        prompt_tokens: prompt.round() as u64,
        completion_tokens: completion.round() as u64,
        cost: u.get("cost").and_then(Value::as_f64),
    })
}

/// The message content: a string, or the `text` of every part joined.
fn content_text(message: &Value) -> Option<String> {
    match message.get("content")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect()),
        _ => None,
    }
}

/// The inner body when the whole text is one Markdown fence (optionally
/// tagged `json`), else the text itself.
pub fn strip_fence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else { return t };
    let Some(inner) = rest.strip_suffix("```") else { return t };
    let Some((tag, body)) = inner.split_once('\n') else { return t };
    let tag = tag.trim();
    if !(tag.is_empty() || tag.eq_ignore_ascii_case("json")) || body.contains("```") {
        return t;
    }
    body.trim()
}

/// The error for an answer cut at the output-token cap (§10).
pub fn cut_error(usage: Option<&Usage>) -> LlmError {
    let after = match usage {
        Some(u) => format!(" after {} completion tokens", u.completion_tokens),
        None => String::new(),
    };
    LlmError::final_answer(format!(
        "the answer was cut at max_tokens: the model stopped{after} because it reached the output-token cap \
         (finish_reason \"length\"), so the JSON is incomplete; raise the cap (--max-tokens) and try again"
    ))
}

/// Parses a chat-completion reply object (§10): content text, usage, the
/// length cut, refusal, empty text, a Markdown fence, JSON.
pub fn parse_reply(reply: &Value, requested_model: &str) -> Result<LlmResponse, LlmError> {
    let choice = reply.get("choices").and_then(|c| c.get(0));
    let message = choice.and_then(|c| c.get("message"));
    let text = message.and_then(content_text).unwrap_or_default();
    let usage = usage_of(reply);
    let cut = choice.and_then(|c| get(c, "finishReason", "finish_reason")).and_then(Value::as_str) == Some("length");
    if text.trim().is_empty() {
        if cut {
            return Err(cut_error(usage.as_ref()));
        }
        if let Some(refusal) = message.and_then(|m| m.get("refusal")).and_then(Value::as_str) {
            if !refusal.trim().is_empty() {
                return Err(LlmError::final_answer(format!("the model refused to answer: {}", refusal.trim())));
            }
        }
        return Err(LlmError::final_answer("the completion had no content (an empty answer)"));
    }
    let body = strip_fence(&text);
    let json: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(_) if cut => return Err(cut_error(usage.as_ref())),
        Err(_) => {
            return Err(LlmError::final_answer(format!(
                "the completion was not JSON; it began with: {}",
                first_chars(body, 200)
            )))
        }
    };
    let model = reply.get("model").and_then(Value::as_str).unwrap_or(requested_model).to_owned();
    Ok(LlmResponse { json, text, model, usage })
}

/// The detail of a non-2xx body (§10): `errors[].message` joined with
/// `"; "`, else `error` when a string, else `error.message`, else the first
/// 200 characters of the body. `None` for an empty body.
pub fn error_detail(body: &str) -> Option<String> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        if let Some(errors) = v.get("errors").and_then(Value::as_array) {
            let messages: Vec<&str> = errors.iter().filter_map(|e| e.get("message").and_then(Value::as_str)).collect();
            if !messages.is_empty() {
                return Some(messages.join("; "));
            }
        }
        match v.get("error") {
            Some(Value::String(s)) => return Some(s.clone()),
            Some(e) => {
                if let Some(m) = e.get("message").and_then(Value::as_str) {
                    return Some(m.to_owned());
                }
            }
            None => {}
        }
    }
    let t = body.trim();
    (!t.is_empty()).then(|| first_chars(t, 200).to_owned())
}

/// `retryAfterOf`: the `retry-after` header in milliseconds — seconds
/// (fractions allowed) or an HTTP date relative to `now_ms` — clamped ≥ 0;
/// `None` when absent, empty or unreadable.
pub fn retry_after_ms(value: Option<&str>, now_ms: u64) -> Option<u64> {
    let v = value?.trim();
    if v.is_empty() {
        return None;
    }
    if let Ok(seconds) = v.parse::<f64>() {
        if seconds.is_finite() {
            return Some((seconds * 1000.0).round().max(0.0) as u64);
        }
        return None;
    }
    let date = httpdate::parse_http_date(v).ok()?;
    let at = date.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as u64;
    Some(at.saturating_sub(now_ms))
}

#[cfg(test)]
mod tests;
