use super::*;
use insights::schema::StrictSchema;
use serde_json::json;

fn request(max_tokens: Option<u32>) -> CompletionRequest {
    CompletionRequest {
        asking: insights::complete::Asking {
            unit: "java:a/B#c()".into(),
            level: insights::vocab::Level::Operation,
            members: vec!["java:a/B#c()".into()],
            cycle: false,
        },
        model: "openai/gpt-5.6-luna".into(),
        system: "You explain code.".into(),
        user: "# Unit: operation java:a/B#c()\n".into(),
        schema_name: "codegraph_operation".into(),
        schema: StrictSchema::Object(vec![
            ("name".into(), StrictSchema::String),
            ("terms".into(), StrictSchema::Array(Box::new(StrictSchema::String))),
            ("alias".into(), StrictSchema::Nullable(Box::new(StrictSchema::String))),
        ]),
        max_tokens,
    }
}

#[test]
fn json_schema_body_shape() {
    let body = request_body(&request(None), OutputMode::JsonSchema);
    assert!(body.starts_with(r##"{"model":"openai/gpt-5.6-luna","messages":[{"role":"system","content":"You explain code."},{"role":"user","content":"# Unit: operation java:a/B#c()\n"}],"response_format":{"type":"json_schema","json_schema":{"name":"codegraph_operation","strict":true,"schema":"##), "{body}");
    assert!(body.ends_with(r#""temperature":0.0,"stream":false}"#), "{body}");
    assert!(!body.contains("max_tokens"));
    let v: Value = serde_json::from_str(&request_body(&request(Some(4096)), OutputMode::JsonSchema)).unwrap();
    assert_eq!(v["max_tokens"], 4096);
    assert_eq!(v["temperature"], 0.0);
    assert_eq!(v["response_format"]["json_schema"]["schema"]["required"], json!(["name", "terms", "alias"]));
    // Properties keep their declared order on the wire (not sorted).
    assert!(body_has(
        &request_body(&request(None), OutputMode::JsonSchema),
        r#""properties":{"name":{"type":"string"},"terms":"#
    ));
    // The strict schema has no bounds.
    assert!(!request_body(&request(None), OutputMode::JsonSchema).contains("maxLength"));
    assert!(v.get("reasoning").is_none() && v.get("reasoning_effort").is_none());
}

fn body_has(body: &str, part: &str) -> bool {
    body.contains(part)
}

#[test]
fn json_object_with_a_bounded_schema() {
    let body = request_body(&request(None), OutputMode::JsonObjectSchema);
    assert!(
        body_has(
            &body,
            r#""response_format":{"type":"json_object","schema":{"type":"object","properties":{"name":{"type":"string","maxLength":80},"terms":{"type":"array","items":{"type":"string","maxLength":80},"maxItems":5},"alias":{"anyOf":[{"type":"string","maxLength":80},{"type":"null"}]}},"required":["name","terms","alias"],"additionalProperties":false}},"temperature""#
        ),
        "{body}"
    );
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["messages"][0]["content"].as_str().unwrap().contains("## Answer format"));
    assert!(v.get("max_tokens").is_none());
}

#[test]
fn weaker_modes_put_the_schema_in_the_system_message() {
    let v: Value = serde_json::from_str(&request_body(&request(None), OutputMode::JsonObject)).unwrap();
    assert_eq!(v["response_format"], json!({"type": "json_object"}));
    let system = v["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You explain code.\n\n## Answer format\n"));
    assert!(system.contains("codegraph_operation") && system.contains("\"additionalProperties\": false"));
    assert!(system.find("\"name\"").unwrap() < system.find("\"terms\"").unwrap(), "{system}");
    let v: Value = serde_json::from_str(&request_body(&request(None), OutputMode::PromptOnly)).unwrap();
    assert!(v.get("response_format").is_none());
    assert!(v["messages"][0]["content"].as_str().unwrap().contains("JSON Schema"));
    assert_eq!(v["messages"][1]["content"], "# Unit: operation java:a/B#c()\n");
}

#[test]
fn modes() {
    assert_eq!(OutputMode::JsonSchema.fallback(), Some(OutputMode::JsonObjectSchema));
    assert_eq!(OutputMode::JsonObjectSchema.fallback(), Some(OutputMode::JsonObject));
    assert_eq!(OutputMode::JsonObject.fallback(), Some(OutputMode::PromptOnly));
    assert_eq!(OutputMode::PromptOnly.fallback(), None);
    for m in OutputMode::ALL {
        assert_eq!(OutputMode::parse(m.as_str()), Some(m));
        assert_eq!(OutputMode::parse_choice(m.as_str()), Ok(Some(m)));
        assert!(OutputMode::CHOICES.contains(&m.as_str()));
    }
    assert_eq!(OutputMode::parse_choice("detect"), Ok(None));
    let e = OutputMode::parse_choice("json_object").unwrap_err();
    assert_eq!(
        e,
        r#"output mode "json_object" is not one of detect, json-schema, json-object-schema, json-object, prompt-only"#
    );
}

#[test]
fn answers_as_real_models_write_them() {
    let cases = [
        // Prose around the object.
        ("Sure! Here is the JSON:\n{\"name\": \"x\"}\nHope it helps.", json!({"name": "x"})),
        // A fence inside prose.
        ("The answer:\n```json\n{\"name\": \"x\"}\n```\nDone.", json!({"name": "x"})),
        // A reasoning block first, with braces of its own.
        ("<think>the user wants {an object}; ok</think>\n{\"name\": \"x\"}", json!({"name": "x"})),
        // Trailing commas.
        ("{\"name\": \"x\", \"terms\": [\"a\", \"b\",],}", json!({"name": "x", "terms": ["a", "b"]})),
        // Braces and a comma-brace inside strings are text, not structure.
        ("x {\"name\": \"a } b ,}\", \"q\": \"\\\"{\"}", json!({"name": "a } b ,}", "q": "\"{"})),
        // The first complete object wins.
        ("{\"name\": 1} and {\"name\": 2}", json!({"name": 1})),
    ];
    for (text, want) in cases {
        let r = parse_reply(&reply(json!(text), "stop"), "m").unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(r.json, want, "{text}");
        assert_eq!(r.text, text);
    }
    // An object that opens but never closes is a cut answer, not its nested part.
    let e = parse_reply(&reply(json!("{\"a\": {\"b\": 1}, \"c\": \"tru"), "length"), "m").unwrap_err();
    assert!(e.message.contains("cut at max_tokens"), "{}", e.message);
    let e = parse_reply(&reply(json!("{\"a\": {\"b\": 1}, \"c\": \"tru"), "stop"), "m").unwrap_err();
    assert!(e.message.contains("not JSON"), "{}", e.message);
    assert_eq!(repair_json("[1, 2 ,\n ] \",]\""), "[1, 2 \n ] \",]\"");
    // A raw newline a grammar let into a string (SmolLM2 on llama-cpp-python did).
    let raw = "{\"identity\": \")}\n{\n\t\u{1}\", \"fields\": [],}";
    assert_eq!(repair_json(raw), "{\"identity\": \")}\\n{\\n\\t\\u0001\", \"fields\": []}");
    let r = parse_reply(&reply(json!(raw), "stop"), "m").unwrap();
    assert_eq!(r.json, json!({"identity": ")}\n{\n\t\u{1}", "fields": []}));
    assert_eq!(strip_think("<think>a</think> <think>c</think>d"), "d");
    assert_eq!(strip_think("<think>a</think>b<think>c</think>d"), "b<think>c</think>d");
    // Tags inside the answer are the answer's text.
    let tags = r#"{"description": "parses <think> and </think> tags"}"#;
    assert_eq!(
        parse_reply(&reply(json!(tags), "stop"), "m").unwrap().json["description"],
        "parses <think> and </think> tags"
    );
    // A brace of prose before the object opens nothing.
    let prose = "Fields map to {key: value.\n{\"name\": \"x\"}";
    assert_eq!(parse_reply(&reply(json!(prose), "stop"), "m").unwrap().json, json!({"name": "x"}));
    assert_eq!(strip_think("<think>open {\"a\":1}"), "<think>open {\"a\":1}");
}

#[test]
fn the_answer_in_reasoning_content() {
    let mut v = reply(json!(""), "stop");
    v["choices"][0]["message"]["reasoning_content"] = json!("Thinking... {\"name\": \"x\"}");
    assert_eq!(parse_reply(&v, "m").unwrap().json, json!({"name": "x"}));
    let mut v = reply(Value::Null, "stop");
    v["choices"][0]["message"]["reasoning"] = json!("{\"name\": \"y\"}");
    assert_eq!(parse_reply(&v, "m").unwrap().json, json!({"name": "y"}));
    // Content wins when both are there.
    let mut v = reply(json!("{\"name\": \"c\"}"), "stop");
    v["choices"][0]["message"]["reasoning_content"] = json!("{\"name\": \"r\"}");
    assert_eq!(parse_reply(&v, "m").unwrap().json, json!({"name": "c"}));
}

fn reply(content: Value, finish: &str) -> Value {
    json!({
        "model": "openai/gpt-5.6-luna-2026",
        "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150, "cost": 0.0021,
                  "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0}}
    })
}

#[test]
fn parses_a_string_content_with_usage_and_served_model() {
    let r = parse_reply(&reply(json!(r#"{"name":"x"}"#), "stop"), "openai/gpt-5.6-luna").unwrap();
    assert_eq!(r.json, json!({"name": "x"}));
    assert_eq!(r.text, r#"{"name":"x"}"#);
    assert_eq!(r.model, "openai/gpt-5.6-luna-2026");
    assert_eq!(r.usage, Some(Usage { prompt_tokens: 120, completion_tokens: 30, cost: Some(0.0021) }));
}

#[test]
fn joins_content_parts_and_reads_camel_case() {
    let v = json!({
        "choices": [{"message": {"content": [{"type": "text", "text": "{\"na"}, {"type": "text", "text": "me\":1}"}]}, "finishReason": "stop"}],
        "usage": {"promptTokens": 7, "completionTokens": 3}
    });
    let r = parse_reply(&v, "m/asked").unwrap();
    assert_eq!(r.json, json!({"name": 1}));
    assert_eq!(r.model, "m/asked");
    assert_eq!(r.usage, Some(Usage { prompt_tokens: 7, completion_tokens: 3, cost: None }));
}

#[test]
fn usage_needs_both_numbers() {
    assert_eq!(usage_of(&json!({"usage": {"prompt_tokens": 1}})), None);
    assert_eq!(usage_of(&json!({"usage": {"prompt_tokens": "1", "completion_tokens": 2}})), None);
    assert_eq!(usage_of(&json!({})), None);
    assert_eq!(
        usage_of(&json!({"usage": {"prompt_tokens": 1, "completion_tokens": 2, "cost": "0.1"}})),
        Some(Usage { prompt_tokens: 1, completion_tokens: 2, cost: None })
    );
}

#[test]
fn fences_are_stripped() {
    for text in ["```json\n{\"a\":1}\n```", "```\n{\"a\":1}\n```", "  ```JSON\n{\"a\":1}```  "] {
        let r = parse_reply(&reply(json!(text), "stop"), "m").unwrap();
        assert_eq!(r.json, json!({"a": 1}), "{text}");
    }
    assert_eq!(strip_fence("```python\n{}\n```"), "```python\n{}\n```");
    assert_eq!(strip_fence("{\"a\":1}"), "{\"a\":1}");
}

#[test]
fn cut_answers_say_so() {
    let e = parse_reply(&reply(json!(""), "length"), "m").unwrap_err();
    assert_eq!((e.status, e.retryable), (None, false));
    assert!(e.message.contains("cut at max_tokens"), "{}", e.message);
    assert!(e.message.contains("after 30 completion tokens") && e.message.contains("finish_reason \"length\""));
    assert!(e.message.contains("raise"));
    let e = parse_reply(&reply(json!("{\"name\": \"trunc"), "length"), "m").unwrap_err();
    assert!(e.message.contains("cut at max_tokens"));
    let mut no_usage = reply(json!("{\"na"), "length");
    no_usage.as_object_mut().unwrap().remove("usage");
    let e = parse_reply(&no_usage, "m").unwrap_err();
    assert!(e.message.contains("cut at max_tokens") && !e.message.contains("completion tokens"), "{}", e.message);
    // A complete document is accepted even when the reason is "length".
    assert_eq!(parse_reply(&reply(json!("{\"a\":1}"), "length"), "m").unwrap().json, json!({"a": 1}));
}

#[test]
fn refusal_empty_and_non_json_are_final() {
    let mut refused = reply(Value::Null, "stop");
    refused["choices"][0]["message"]["refusal"] = json!("I can't help with that.");
    let e = parse_reply(&refused, "m").unwrap_err();
    assert!(e.message.contains("refused") && e.message.contains("I can't help with that."));
    assert!(!e.retryable && e.status.is_none());
    let e = parse_reply(&reply(json!("   \n"), "stop"), "m").unwrap_err();
    assert!(e.message.contains("no content") && !e.retryable);
    let e = parse_reply(&json!({"choices": []}), "m").unwrap_err();
    assert!(e.message.contains("no content"));
    let long = format!("Sure! {}", "x".repeat(500));
    let e = parse_reply(&reply(json!(long), "stop"), "m").unwrap_err();
    assert!(e.message.contains("not JSON") && !e.retryable && e.status.is_none());
    assert!(e.message.ends_with(first_chars(&long, 200)));
    assert!(!e.message.contains(&long[..201]));
}

#[test]
fn error_details() {
    assert_eq!(error_detail(r#"{"errors":[{"message":"a"},{"message":"b"}]}"#).as_deref(), Some("a; b"));
    assert_eq!(error_detail(r#"{"error":"bad key"}"#).as_deref(), Some("bad key"));
    assert_eq!(
        error_detail(r#"{"error":{"code":429,"message":"Rate limit exceeded","metadata":{}}}"#).as_deref(),
        Some("Rate limit exceeded")
    );
    let html = format!("<html>{}</html>", "y".repeat(400));
    assert_eq!(error_detail(&html).unwrap(), first_chars(&html, 200));
    assert_eq!(error_detail("  "), None);
    assert_eq!(
        error_detail("{\"error\":{\"message\":\"1 error:\\n  bad\\n\\n  File x\"}}").as_deref(),
        Some("1 error: bad File x")
    );
    assert_eq!(
        error_detail(r#"{"detail":[{"loc":["body","response_format"],"msg":"extra"}]}"#).as_deref(),
        Some(r#"[{"loc":["body","response_format"],"msg":"extra"}]"#)
    );
    assert_eq!(error_detail(r#"{"detail":"Not Found"}"#).as_deref(), Some("Not Found"));
    assert_eq!(first_chars("ééé", 2), "éé");
}

#[test]
fn retry_after_values() {
    let now = 1_700_000_000_000;
    assert_eq!(retry_after_ms(Some("2"), now), Some(2000));
    assert_eq!(retry_after_ms(Some("0.5"), now), Some(500));
    assert_eq!(retry_after_ms(Some("1.0004"), now), Some(1000));
    assert_eq!(retry_after_ms(Some("-3"), now), Some(0));
    assert_eq!(retry_after_ms(Some(""), now), None);
    assert_eq!(retry_after_ms(None, now), None);
    assert_eq!(retry_after_ms(Some("soon"), now), None);
    assert_eq!(retry_after_ms(Some("inf"), now), None);
    // 1_700_000_012_000 ms = Tue, 14 Nov 2023 22:13:32 GMT
    assert_eq!(retry_after_ms(Some("Tue, 14 Nov 2023 22:13:32 GMT"), now), Some(12_000));
    assert_eq!(retry_after_ms(Some("Tue, 14 Nov 2023 22:13:00 GMT"), now), Some(0));
}
