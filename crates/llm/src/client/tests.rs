use super::*;
use crate::fake::{chat_reply, FakeTransport};
use crate::sleep::RecordingSleeper;
use crate::transport::HttpResponse;
use futures::executor::block_on;
use insights::record::Usage;
use serde_json::json;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

fn request() -> CompletionRequest {
    CompletionRequest {
        asking: insights::complete::Asking {
            unit: "a#b()".into(),
            level: insights::vocab::Level::Operation,
            members: vec!["a#b()".into()],
            cycle: false,
        },
        model: "openai/gpt-5.6-luna".into(),
        system: "sys".into(),
        user: "# Unit: operation a#b()\n".into(),
        schema_name: "codegraph_operation".into(),
        schema: insights::schema::StrictSchema::Object(Vec::new()),
        max_tokens: None,
    }
}

fn client(config: ProviderConfig) -> (LlmClient<FakeTransport, RecordingSleeper>, FakeTransport, RecordingSleeper) {
    let t = FakeTransport::new();
    let s = RecordingSleeper::new();
    (LlmClient::new(config, t.clone(), s.clone()), t, s)
}

fn openrouter() -> ProviderConfig {
    ProviderConfig::openrouter("sk-or-KEY")
}

fn ok_reply() -> HttpResponse {
    let mut v = chat_reply(r#"{"ok":true}"#);
    v["model"] = json!("openai/gpt-5.6-luna-2026");
    v["usage"] = json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "cost": 0.001});
    HttpResponse::new(200, v.to_string())
}

#[test]
fn openrouter_request_shape_and_no_key_in_body() {
    let (c, t, _) = client(openrouter());
    t.reply(ok_reply());
    let done = block_on(c.complete(request())).unwrap();
    assert_eq!(done.json, json!({"ok": true}));
    assert_eq!(done.model, "openai/gpt-5.6-luna-2026");
    assert_eq!(done.usage, Some(Usage { prompt_tokens: 100, completion_tokens: 20, cost: Some(0.001) }));
    let sent = &t.requests()[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.url, "https://openrouter.ai/api/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-or-KEY"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(sent.header("x-title"), Some("codegraph"));
    assert!(!sent.body.contains("sk-or-KEY") && !sent.body.contains("apiKey"));
    assert!(!sent.url.contains("KEY"));
    let body = &t.bodies()[0];
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(body["stream"], false);
    assert!(body.get("max_tokens").is_none());
    assert_eq!(c.name(), "openrouter");
    assert_eq!(c.mode(), OutputMode::JsonSchema);
    assert!(!format!("{c:?}").contains("sk-or-KEY"));
    assert!(!format!("{sent:?}").contains("sk-or-KEY"));
}

#[test]
fn max_tokens_only_when_set() {
    let (c, t, _) = client(openrouter());
    t.reply(ok_reply());
    block_on(c.complete(CompletionRequest { max_tokens: Some(16384), ..request() })).unwrap();
    assert_eq!(t.bodies()[0]["max_tokens"], 16384);
}

#[test]
fn cloudflare_rest_route() {
    let (c, t, s) = client(ProviderConfig::cloudflare("cf-TOKEN", "acc-1", Some("gw")));
    t.reply(HttpResponse::new(429, r#"{"errors":[{"message":"slow down"}]}"#).with_header("retry-after", "2"));
    let mut v = chat_reply("{}");
    v.as_object_mut().unwrap().remove("model");
    t.reply(HttpResponse::new(200, v.to_string()));
    let done = block_on(c.complete(request())).unwrap();
    assert_eq!(done.model, "openai/gpt-5.6-luna");
    assert_eq!(done.usage, Some(Usage { prompt_tokens: 10, completion_tokens: 5, cost: None }));
    assert_eq!(s.slept(), [2000]);
    let sent = t.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].body, sent[1].body);
    assert_eq!(sent[0].url, "https://api.cloudflare.com/client/v4/accounts/acc-1/ai/v1/chat/completions");
    assert_eq!(sent[0].header("cf-aig-gateway-id"), Some("gw"));
    assert_eq!(c.name(), "cloudflare/gw");
}

#[test]
fn http_errors_quote_the_provider() {
    let (c, t, s) = client(ProviderConfig::cloudflare("t", "a", None));
    t.reply(HttpResponse::new(401, r#"{"errors":[{"message":"Authentication error"}],"success":false}"#));
    let e = block_on(c.complete(request())).unwrap_err();
    assert_eq!((e.status, e.retryable), (Some(401), Some(false)));
    assert!(e.message.contains("HTTP 401") && e.message.contains("Authentication error"), "{}", e.message);
    assert_eq!(t.count(), 1);
    assert!(s.slept().is_empty());
}

#[test]
fn fatal_statuses_are_not_retried() {
    for status in [401, 402, 403, 400, 404] {
        let (c, t, _) = client(openrouter());
        t.reply(
            HttpResponse::new(status, r#"{"error":{"code":402,"message":"Insufficient credits"}}"#)
                .with_header("Retry-After", "3"),
        );
        let e = block_on(c.call(&request())).unwrap_err();
        assert_eq!(e.status, Some(status));
        assert!(!e.retryable);
        assert_eq!(e.is_fatal(), [401, 402, 403].contains(&status));
        assert_eq!(t.count(), 1, "{status}");
    }
}

#[test]
fn retries_network_errors_and_5xx_then_gives_up_with_the_last() {
    let (c, t, s) = client(openrouter());
    t.fail("connection reset");
    t.reply(HttpResponse::new(503, "upstream down"));
    t.reply(ok_reply());
    assert!(block_on(c.call(&request())).is_ok());
    assert_eq!(s.slept(), [1000, 2000]);

    let (c, t, s) = client(openrouter());
    t.respond_with(|_, n| Ok(HttpResponse::new(500, format!("{{\"error\":\"boom {n}\"}}"))));
    let e = block_on(c.call(&request())).unwrap_err();
    assert_eq!(t.count(), 6);
    assert_eq!(s.slept(), [1000, 2000, 4000, 8000, 16000]);
    assert_eq!(e.message, "OpenRouter: HTTP 500: boom 6");
    assert!(e.retryable);

    let (c, t, _) = client(openrouter());
    t.respond_with(|_, _| Err(crate::transport::TransportError::new("dns failure")));
    let e = block_on(c.call(&request())).unwrap_err();
    assert_eq!((e.status, e.retryable, t.count()), (None, true, 6));
    assert!(e.message.starts_with("OpenRouter: ") && e.message.contains("dns failure"));
}

#[test]
fn retry_notices_and_policy() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let log = seen.clone();
    let t = FakeTransport::new();
    let c = LlmClient::new(openrouter(), t.clone(), RecordingSleeper::new())
        .with_retry(RetryPolicy { attempts: 2, base_ms: 5, max_ms: 100 })
        .on_retry(move |n| log.borrow_mut().push((n.attempt, n.wait_ms, n.error.status)));
    t.respond_with(|_, _| Ok(HttpResponse::new(429, "")));
    let e = block_on(c.call(&request())).unwrap_err();
    assert_eq!(e.message, "OpenRouter: HTTP 429");
    assert_eq!(*seen.borrow(), [(1, 5, Some(429))]);
}

#[test]
fn retry_after_date_uses_the_clock() {
    let t = FakeTransport::new();
    let s = RecordingSleeper::new();
    let c = LlmClient::new(openrouter(), t.clone(), s.clone()).with_clock(|| 1_700_000_000_000);
    t.reply(HttpResponse::new(503, "").with_header("Retry-After", "Tue, 14 Nov 2023 22:13:32 GMT"));
    t.reply(ok_reply());
    block_on(c.call(&request())).unwrap();
    assert_eq!(s.slept(), [12_000]);
}

#[test]
fn parse_failures_are_final() {
    let (c, t, _) = client(openrouter());
    t.reply(HttpResponse::new(200, "<html>gateway</html>"));
    let e = block_on(c.complete(request())).unwrap_err();
    assert!(e.message.contains("not JSON") && e.message.contains("<html>gateway</html>"), "{}", e.message);
    assert_eq!((e.status, e.retryable, t.count()), (None, Some(false), 1));

    let (c, t, _) = client(openrouter());
    t.reply_content("I think the answer is 42");
    let e = block_on(c.complete(request())).unwrap_err();
    assert!(e.message.contains("not JSON"));
    assert_eq!(t.count(), 1);

    let (c, t, _) = client(openrouter());
    let mut cut = chat_reply(r#"{"name": "Add ite"#);
    cut["choices"][0]["finish_reason"] = json!("length");
    t.reply_json(&cut);
    let e = block_on(c.complete(request())).unwrap_err();
    assert!(e.message.contains("cut at max_tokens") && e.message.contains("after 5 completion tokens"));
    assert_eq!((e.status, e.retryable, t.count()), (None, Some(false), 1));
}

#[test]
fn a_200_with_an_error_object() {
    let (c, t, _) = client(openrouter());
    t.reply(HttpResponse::new(200, r#"{"error":{"code":502,"message":"provider returned error"}}"#));
    t.reply(ok_reply());
    assert!(block_on(c.call(&request())).is_ok());
    assert_eq!(t.count(), 2);
}

fn refuse(what: &str) -> HttpResponse {
    HttpResponse::new(
        400,
        format!(
            r#"{{"error":{{"message":"Invalid parameter: 'response_format' of type '{what}' is not supported with this model."}}}}"#
        ),
    )
}

/// What llama-cpp-python's server answers a `json_schema` request: a 500
/// whose validation text names the field.
fn llama_cpp_python_refusal() -> HttpResponse {
    HttpResponse::new(
        500,
        r#"{"error":{"message":"1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}","type":"internal_server_error","param":null,"code":null}}"#,
    )
}

fn local() -> ProviderConfig {
    ProviderConfig::openai_compatible("http://127.0.0.1:1/v1", None).unwrap()
}

#[test]
fn structured_output_negotiates_in_order_and_remembers() {
    let (c, t, s) = client(local());
    let seen = Rc::new(RefCell::new(Vec::new()));
    let log = seen.clone();
    let c = c.on_mode(move |n| log.borrow_mut().push((n.mode, n.refused.map(|(m, e)| (m, e.status)))));
    t.reply(refuse("json_schema"));
    t.reply(HttpResponse::new(422, r#"{"detail":"response_format.schema: extra fields not permitted"}"#));
    t.reply(refuse("json_object"));
    t.reply(ok_reply());
    t.reply(ok_reply());
    assert_eq!(c.output_mode("openai/gpt-5.6-luna"), None);
    block_on(c.call(&request())).unwrap();
    assert_eq!(c.mode(), OutputMode::PromptOnly);
    let bodies = t.bodies();
    assert_eq!(bodies[0]["response_format"]["type"], "json_schema");
    assert_eq!(bodies[1]["response_format"]["type"], "json_object");
    assert_eq!(bodies[1]["response_format"]["schema"]["type"], "object");
    assert!(bodies[1]["messages"][0]["content"].as_str().unwrap().contains("## Answer format"));
    assert_eq!(bodies[2]["response_format"], json!({"type": "json_object"}));
    assert!(bodies[3].get("response_format").is_none());
    // No pause between modes: a refusal is not a transient error.
    assert!(s.slept().is_empty());
    assert_eq!(
        *seen.borrow(),
        [
            (OutputMode::JsonObjectSchema, Some((OutputMode::JsonSchema, Some(400)))),
            (OutputMode::JsonObject, Some((OutputMode::JsonObjectSchema, Some(422)))),
            (OutputMode::PromptOnly, Some((OutputMode::JsonObject, Some(400)))),
            (OutputMode::PromptOnly, None),
        ]
    );
    // The next request for the same model starts where the last one ended.
    block_on(c.call(&request())).unwrap();
    assert_eq!(t.count(), 5);
    assert!(t.bodies()[4].get("response_format").is_none());
    assert_eq!(c.mode_for("openai/gpt-5.6-luna"), OutputMode::PromptOnly);
    assert_eq!(c.output_mode("openai/gpt-5.6-luna").as_deref(), Some("prompt-only"));
    assert_eq!(seen.borrow().len(), 4, "a confirmed mode is told once");
    // Another model starts over.
    assert_eq!(c.mode_for("other/model"), OutputMode::JsonSchema);
}

#[test]
fn a_500_naming_response_format_is_a_refusal_not_an_outage() {
    let (c, t, s) = client(local());
    t.reply(llama_cpp_python_refusal());
    t.reply(ok_reply());
    block_on(c.call(&request())).unwrap();
    assert_eq!((t.count(), c.mode()), (2, OutputMode::JsonObjectSchema));
    assert!(s.slept().is_empty(), "{:?}", s.slept());
    // Forced, the refusal is final at once (no six attempts).
    let (c, t, s) = client(local());
    let c = c.with_mode(OutputMode::JsonSchema);
    t.respond_with(|_, _| Ok(llama_cpp_python_refusal()));
    let e = block_on(c.call(&request())).unwrap_err();
    assert_eq!((e.status, e.retryable, t.count()), (Some(500), false, 1));
    assert!(s.slept().is_empty());
    // A 500 that names nothing of the kind stays a transient error.
    let (c, t, s) = client(local());
    t.reply(HttpResponse::new(500, r#"{"error":"out of memory"}"#));
    t.reply(ok_reply());
    block_on(c.call(&request())).unwrap();
    assert_eq!((s.slept(), c.mode()), (vec![1000], OutputMode::JsonSchema));
}

#[test]
fn refusals_are_read_from_what_the_server_says() {
    let e = |status, m: &str| LlmError::http(m, status, None);
    for (status, m) in [
        (400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
        (400, "Unsupported parameter: 'response_format.schema'"),
        (400, "grammar: unsupported keyword"),
        (422, "json_schema is not supported by this backend"),
        (400, "Unrecognized request argument supplied: response_format"),
        (500, "Failed to parse grammar from schema"),
        (501, "structured outputs are not implemented"),
    ] {
        assert!(is_format_refusal(&e(status, m)), "{status} {m}");
    }
    for (status, m) in [
        (400, "model not found"),
        (401, "invalid json_schema key"),
        (429, "rate limit on response_format requests"),
        (500, "internal error"),
        // No output mode changes these.
        (400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
        (400, "This model's maximum context length is 8192 tokens. Your messages: ... ## Answer format ... JSON Schema ..."),
    ] {
        assert!(!is_format_refusal(&e(status, m)), "{status} {m}");
    }
    assert!(!is_format_refusal(&LlmError::network("response_format")));
}

/// A transport whose answers arrive only after every request in flight was
/// sent (each answer waits one turn of the executor), so that calls overlap.
#[derive(Clone, Default)]
struct Overlapping {
    bodies: Rc<RefCell<Vec<Value>>>,
}

struct Later(Option<Result<HttpResponse, crate::transport::TransportError>>, bool);

impl std::future::Future for Later {
    type Output = Result<HttpResponse, crate::transport::TransportError>;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        if !self.1 {
            self.1 = true;
            cx.waker().wake_by_ref();
            return std::task::Poll::Pending;
        }
        std::task::Poll::Ready(self.0.take().expect("polled after ready"))
    }
}

impl Transport for Overlapping {
    fn send(&self, req: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, crate::transport::TransportError>> {
        let v: Value = serde_json::from_str(&req.body).unwrap();
        let answer = match v.pointer("/response_format/type").and_then(Value::as_str) {
            Some("json_schema") => refuse("json_schema"),
            _ => ok_reply(),
        };
        self.bodies.borrow_mut().push(v);
        Box::pin(Later(Some(Ok(answer)), false))
    }
}

#[test]
fn concurrent_refusals_move_once() {
    let t = Overlapping::default();
    let seen = Rc::new(Cell::new(0));
    let n = seen.clone();
    let c = LlmClient::new(local(), t.clone(), RecordingSleeper::new()).on_mode(move |m| {
        if m.refused.is_some() {
            n.set(n.get() + 1)
        }
    });
    let (a, b) = block_on(futures::future::join(c.call(&request()), c.call(&request())));
    assert!(a.is_ok() && b.is_ok());
    let kinds: Vec<String> =
        t.bodies.borrow().iter().map(|b| b.pointer("/response_format/type").unwrap().to_string()).collect();
    // Both went out in json_schema before either answer; both moved on.
    assert_eq!(kinds, ["\"json_schema\"", "\"json_schema\"", "\"json_object\"", "\"json_object\""]);
    assert_eq!(c.mode_for("openai/gpt-5.6-luna"), OutputMode::JsonObjectSchema);
    assert_eq!(seen.get(), 1, "one notice for one move");
}

#[test]
fn json_object_with_a_schema_is_enough_for_some() {
    let (c, t, _) = client(openrouter());
    t.reply(refuse("json_schema"));
    t.reply(ok_reply());
    block_on(c.call(&request())).unwrap();
    assert_eq!(c.mode(), OutputMode::JsonObjectSchema);
    assert_eq!(t.count(), 2);
}

#[test]
fn an_unusable_answer_still_confirms_the_mode() {
    let (c, t, _) = client(local());
    t.reply(refuse("json_schema"));
    t.reply_content("I think the answer is 42");
    let e = block_on(c.complete(request())).unwrap_err();
    assert!(e.message.contains("not JSON"));
    assert_eq!(c.output_mode("openai/gpt-5.6-luna").as_deref(), Some("json-object-schema"));
}

#[test]
fn other_400s_do_not_fall_back_and_forced_modes_never_do() {
    let (c, t, _) = client(openrouter());
    t.reply(HttpResponse::new(400, r#"{"error":{"message":"model not found"}}"#));
    assert_eq!(block_on(c.call(&request())).unwrap_err().status, Some(400));
    assert_eq!((t.count(), c.mode()), (1, OutputMode::JsonSchema));

    let (c, t, _) = client(openrouter());
    let c = c.with_mode(OutputMode::JsonSchema);
    t.reply(refuse("json_schema"));
    assert_eq!(block_on(c.call(&request())).unwrap_err().status, Some(400));
    assert_eq!(t.count(), 1);

    let (c, t, _) = client(openrouter());
    let c = c.with_mode(OutputMode::PromptOnly);
    assert_eq!(c.mode(), OutputMode::PromptOnly);
    // Forced, a mode is reported only once the endpoint answered in it.
    assert_eq!(c.output_mode("openai/gpt-5.6-luna"), None);
    t.reply(ok_reply());
    block_on(c.call(&request())).unwrap();
    assert!(t.bodies()[0].get("response_format").is_none());
    assert_eq!(c.output_mode("openai/gpt-5.6-luna").as_deref(), Some("prompt-only"));

    let (c, t, _) = client(openrouter());
    t.reply(refuse("json_schema")).reply(refuse("json_object")).reply(refuse("json_object")).reply(refuse("prompt"));
    let e = block_on(c.call(&request())).unwrap_err();
    assert_eq!((e.status, t.count()), (Some(400), 4));
}

#[test]
fn calls_overlap_on_one_client() {
    let (c, t, _) = client(openrouter());
    t.respond_with(|_, _| Ok(ok_reply()));
    let (a, b) = block_on(futures::future::join(c.complete(request()), c.complete(request())));
    assert!(a.is_ok() && b.is_ok());
    assert_eq!(t.count(), 2);
}
