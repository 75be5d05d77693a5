//! The chat-completions contract (`docs/formats/prompts.md` §10), built and
//! parsed once for every provider: the request body for an [`OutputMode`], the
//! reply parser, the error detail of a non-2xx body, and `Retry-After`.

use insights::bounds::{bounded, Bounded};
use insights::complete::CompletionRequest;
use insights::record::Usage;
use insights::schema::StrictSchema;
use serde::Serialize;
use serde_json::Value;

use crate::error::LlmError;

/// How the answer's shape is asked for. Endpoints differ: hosted ones take a
/// strict JSON Schema; llama.cpp-based servers turn a schema given with
/// `json_object` into a decoding grammar; some take only "a JSON object";
/// some nothing at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputMode {
    /// `response_format: {type: "json_schema", json_schema: {name, strict: true, schema}}`.
    JsonSchema,
    /// `response_format: {type: "json_object", schema: <bounded schema>}` (the
    /// llama.cpp / vLLM extension; [`insights::bounds`]), the schema also in
    /// the system message.
    JsonObjectSchema,
    /// `response_format: {type: "json_object"}`, the schema in the system message.
    JsonObject,
    /// No `response_format`; the schema in the system message (the engine
    /// validates the answer on receipt, as always).
    PromptOnly,
}

impl OutputMode {
    /// Every mode, in negotiation order.
    pub const ALL: [OutputMode; 4] =
        [OutputMode::JsonSchema, OutputMode::JsonObjectSchema, OutputMode::JsonObject, OutputMode::PromptOnly];

    /// The name the CLI, the page, the ledger and the progress use:
    /// `json-schema`, `json-object-schema`, `json-object`, `prompt-only`.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputMode::JsonSchema => "json-schema",
            OutputMode::JsonObjectSchema => "json-object-schema",
            OutputMode::JsonObject => "json-object",
            OutputMode::PromptOnly => "prompt-only",
        }
    }

    /// The mode named by [`OutputMode::as_str`].
    pub fn parse(s: &str) -> Option<OutputMode> {
        OutputMode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// A user's choice: `detect` (negotiate, `None`) or a mode name; the
    /// error lists every accepted name.
    pub fn parse_choice(s: &str) -> Result<Option<OutputMode>, String> {
        if s == DETECT {
            return Ok(None);
        }
        OutputMode::parse(s)
            .map(Some)
            .ok_or_else(|| format!("output mode {s:?} is not one of {}", OutputMode::CHOICES.join(", ")))
    }

    /// Every name [`OutputMode::parse_choice`] accepts, `detect` first.
    pub const CHOICES: [&'static str; 5] = [DETECT, "json-schema", "json-object-schema", "json-object", "prompt-only"];

    /// The next mode to try after an endpoint refused this one.
    pub fn fallback(self) -> Option<OutputMode> {
        match self {
            OutputMode::JsonSchema => Some(OutputMode::JsonObjectSchema),
            OutputMode::JsonObjectSchema => Some(OutputMode::JsonObject),
            OutputMode::JsonObject => Some(OutputMode::PromptOnly),
            OutputMode::PromptOnly => None,
        }
    }
}

/// The choice that negotiates the mode with the endpoint (the default).
pub const DETECT: &str = "detect";

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
    schema: &'a StrictSchema,
}

#[derive(Serialize)]
struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    json_schema: Option<JsonSchemaFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<Bounded<'a>>,
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
/// endpoint does not enforce the strict schema.
pub fn system_with_schema(request: &CompletionRequest) -> String {
    format!(
        "{}\n\n## Answer format\nAnswer with one JSON document and nothing else: no prose, no Markdown fence. It must \
         follow this JSON Schema (`{}`) exactly; every property is required, null where the schema allows it:\n{}\n",
        request.system.trim_end(),
        request.schema_name,
        request.schema.to_json_pretty()
    )
}

/// The serialized request body: model, messages `[system, user]`, the
/// response format of `mode`, `temperature` 0, `stream` false, `max_tokens`
/// only when asked. Schemas keep their property order. Never a key.
pub fn request_body(request: &CompletionRequest, mode: OutputMode) -> String {
    let system = match mode {
        OutputMode::JsonSchema => request.system.clone(),
        _ => system_with_schema(request),
    };
    let format = |kind| ResponseFormat { kind, json_schema: None, schema: None };
    let response_format = match mode {
        OutputMode::JsonSchema => Some(ResponseFormat {
            json_schema: Some(JsonSchemaFormat { name: &request.schema_name, strict: true, schema: &request.schema }),
            ..format("json_schema")
        }),
        OutputMode::JsonObjectSchema => {
            Some(ResponseFormat { schema: Some(bounded(&request.schema)), ..format("json_object") })
        }
        OutputMode::JsonObject => Some(format("json_object")),
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

/// The answer's text: the content, or — when the content is empty — the
/// reasoning field some servers put the whole answer in
/// (`reasoning_content`, `reasoning`).
fn answer_text(message: Option<&Value>) -> String {
    let Some(message) = message else { return String::new() };
    let content = content_text(message).unwrap_or_default();
    if !content.trim().is_empty() {
        return content;
    }
    ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message.get(*k).and_then(Value::as_str).filter(|t| !t.trim().is_empty()))
        .map(str::to_owned)
        .unwrap_or(content)
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

/// The text without the `<think>…</think>` blocks it starts with (what
/// reasoning models write before the answer). A block elsewhere is text (an
/// answer may mention the tags); an unclosed one is kept: the answer may be
/// in it.
pub fn strip_think(text: &str) -> &str {
    let mut rest = text;
    while let Some(after) = rest.trim_start().strip_prefix("<think>") {
        let Some(close) = after.find("</think>") else { break };
        rest = &after[close + "</think>".len()..];
    }
    rest
}

/// Whether the `{` at `at` can open a JSON object: whitespace, then `"` or `}`.
fn opens_object(text: &str, at: usize) -> bool {
    matches!(text[at + 1..].trim_start().as_bytes().first(), Some(b'"') | Some(b'}'))
}

/// The two slips of real models that JSON forbids, mended: a comma that
/// directly precedes a closing `}` or `]` (whitespace between) is removed,
/// outside strings; a raw control character inside a string (a newline a
/// grammar let through) is written as its escape.
pub fn repair_json(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                (false, '\n') => {
                    out.push_str("\\n");
                    continue;
                }
                (false, '\r') => {
                    out.push_str("\\r");
                    continue;
                }
                (false, '\t') => {
                    out.push_str("\\t");
                    continue;
                }
                (false, c) if (c as u32) < 0x20 => {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                    continue;
                }
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace());
            if matches!(next, Some(b'}') | Some(b']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The end (exclusive) of the balanced `{…}` that starts at `start`, strings
/// and escapes respected; `None` when it never closes.
fn object_end(text: &str, start: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate().skip(start) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// JSON text, or JSON text after [`repair_json`].
fn lenient(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok().or_else(|| serde_json::from_str(&repair_json(text)).ok())
}

/// The JSON document of an answer as real models write it: the whole text
/// (after dropping `<think>` blocks and one enclosing fence), else the first
/// complete `{…}` object in it (inside prose or a fence); trailing commas
/// and raw control characters in strings are forgiven ([`repair_json`]). `None` when there is no such object.
pub fn answer_json(text: &str) -> Option<Value> {
    let body = strip_fence(strip_think(text));
    if let Some(v) = lenient(body) {
        return Some(v);
    }
    let mut from = 0;
    while let Some(at) = body[from..].find('{').map(|i| from + i) {
        from = at + 1;
        // A brace of prose (`{key: value}`) opens nothing.
        if !opens_object(body, at) {
            continue;
        }
        // An object that never closes is the answer cut short: nothing
        // nested in it is the answer.
        let end = object_end(body, at)?;
        if let Some(v @ Value::Object(_)) = lenient(&body[at..end]) {
            return Some(v);
        }
    }
    None
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

/// Parses a chat-completion reply object (§10): the answer text (content,
/// else a reasoning field), usage, the length cut, refusal, empty text, then
/// the JSON of [`answer_json`].
pub fn parse_reply(reply: &Value, requested_model: &str) -> Result<LlmResponse, LlmError> {
    let choice = reply.get("choices").and_then(|c| c.get(0));
    let message = choice.and_then(|c| c.get("message"));
    let text = answer_text(message);
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
    let json = match answer_json(&text) {
        Some(v) => v,
        None if cut => return Err(cut_error(usage.as_ref())),
        None => {
            return Err(LlmError::final_answer(format!(
                "the completion was not JSON; it began with: {}",
                first_chars(strip_fence(&text), 200)
            )))
        }
    };
    let model = reply.get("model").and_then(Value::as_str).unwrap_or(requested_model).to_owned();
    Ok(LlmResponse { json, text, model, usage })
}

/// The detail of a non-2xx body (§10): `errors[].message` joined with
/// `"; "`, else `error` when a string, else `error.message`, else `detail`
/// (FastAPI, vLLM), else the first 200 characters of the body; on one line
/// (servers put tracebacks in their messages). `None` for an empty body.
pub fn error_detail(body: &str) -> Option<String> {
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        if let Some(errors) = v.get("errors").and_then(Value::as_array) {
            let messages: Vec<&str> = errors.iter().filter_map(|e| e.get("message").and_then(Value::as_str)).collect();
            if !messages.is_empty() {
                return Some(one_line(&messages.join("; ")));
            }
        }
        match v.get("error") {
            Some(Value::String(s)) => return Some(one_line(s)),
            Some(e) => {
                if let Some(m) = e.get("message").and_then(Value::as_str) {
                    return Some(one_line(m));
                }
            }
            None => {}
        }
        match v.get("detail") {
            Some(Value::String(s)) => return Some(one_line(s)),
            Some(d @ (Value::Array(_) | Value::Object(_))) => return Some(first_chars(&d.to_string(), 300).to_owned()),
            _ => {}
        }
    }
    let t = one_line(body);
    (!t.is_empty()).then(|| first_chars(&t, 200).to_owned())
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
