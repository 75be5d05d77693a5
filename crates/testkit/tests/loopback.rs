//! The real native transport, retry policy and providers against the mock
//! provider on loopback. Waits go to a recording sleeper: nothing sleeps
//! except the mock's scripted delays.

use std::time::{Duration, Instant};

use futures::executor::block_on;
use insights::complete::{Completer, CompletionRequest};
use insights::record::Usage;
use insights::schema::{block_schema, block_schema_name, cycle_schema, cycle_schema_name};
use insights::validate::{validate_block, validate_cycle};
use insights::vocab::Level;
use llm::native::NativeTransport;
use llm::{HttpRequest, LlmClient, OutputMode, ProviderConfig, RecordingSleeper, Transport};
use testkit::{MockConfig, MockProvider};

const OP: &str = "java:com.acme.order/Basket#add(com.acme.order.Item, int)";
const CYCLE: [&str; 2] = ["java:com.acme.order/Basket", "java:com.acme.order/Basket.Cursor"];

fn op_request(id: &str) -> CompletionRequest {
    CompletionRequest {
        asking: insights::complete::Asking {
            unit: id.into(),
            level: Level::Operation,
            members: vec![id.into()],
            cycle: false,
        },
        model: "openai/gpt-5.6-luna".into(),
        system: "You explain code.".into(),
        user: format!("# Unit: operation {id}\n\n## The unit\n(source)\n"),
        schema_name: block_schema_name(Level::Operation),
        schema: block_schema(Level::Operation),
        max_tokens: None,
    }
}

fn cycle_request() -> CompletionRequest {
    CompletionRequest {
        asking: insights::complete::Asking {
            unit: CYCLE[0].into(),
            level: Level::Type,
            members: CYCLE.iter().map(|s| s.to_string()).collect(),
            cycle: true,
        },
        model: "openai/gpt-5.6-luna".into(),
        system: "You explain code.".into(),
        user: format!(
            "# Unit: type {} (a cycle of 2 types)\n\n## Cycle members\nReturn one entry per id: {}.\n",
            CYCLE[0],
            CYCLE.join(", ")
        ),
        schema_name: cycle_schema_name(Level::Type),
        schema: cycle_schema(Level::Type, &CYCLE),
        max_tokens: None,
    }
}

fn transport() -> NativeTransport {
    NativeTransport::with_timeouts(Duration::from_secs(5), Some(Duration::from_secs(20)))
}

fn client_for(config: ProviderConfig) -> (LlmClient<NativeTransport, RecordingSleeper>, RecordingSleeper) {
    let sleeper = RecordingSleeper::new();
    (LlmClient::new(config, transport(), sleeper.clone()), sleeper)
}

fn openai(mock: &MockProvider) -> (LlmClient<NativeTransport, RecordingSleeper>, RecordingSleeper) {
    client_for(ProviderConfig::openai_compatible(&mock.url(), None).unwrap())
}

fn mock(faults: &[&str]) -> MockProvider {
    MockProvider::start(faults.iter().fold(MockConfig::default(), |c, f| c.with(f)))
}

#[test]
fn success() {
    let mock = mock(&[]);
    let (client, sleeper) = openai(&mock);
    let done = block_on(client.complete(op_request(OP))).unwrap();
    assert_eq!(done.model, "openai/gpt-5.6-luna-served");
    assert_eq!(done.usage, Some(Usage { prompt_tokens: 100, completion_tokens: 20, cost: Some(0.001) }));
    let block = validate_block(Level::Operation, &done.json).unwrap();
    assert_eq!(block.name(), "add");
    assert_eq!(mock.count(), 1);
    assert!(sleeper.slept().is_empty());
    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.header("content-type"), Some("application/json"));
    let body = sent.json();
    assert_eq!(body["response_format"]["json_schema"]["name"], "codegraph_operation");
    assert_eq!((body["temperature"].as_f64(), body["stream"].as_bool()), (Some(0.0), Some(false)));
    assert_eq!(client.mode(), OutputMode::JsonSchema);
}

#[test]
fn a_key_travels_only_in_the_header() {
    let mock = mock(&[]);
    let (client, _) = client_for(ProviderConfig::openai_compatible(&mock.url(), Some("sk-loopback")).unwrap());
    block_on(client.complete(op_request(OP))).unwrap();
    let sent = &mock.requests()[0];
    assert_eq!(sent.header("authorization"), Some("Bearer sk-loopback"));
    assert!(!sent.body.contains("sk-loopback") && !sent.path.contains("sk-loopback"));
}

#[test]
fn rate_limited_then_success_honours_retry_after() {
    let mock = mock(&["429:3@1"]);
    let (client, sleeper) = openai(&mock);
    assert!(block_on(client.complete(op_request(OP))).is_ok());
    assert_eq!(mock.count(), 2);
    assert_eq!(sleeper.slept(), [3000]);
    let sent = mock.requests();
    assert_eq!(sent[0].body, sent[1].body, "a retry re-sends the same bytes");

    let mock = self::mock(&["429@1"]);
    let (client, sleeper) = openai(&mock);
    assert!(block_on(client.complete(op_request(OP))).is_ok());
    assert_eq!(sleeper.slept(), [1000]);
}

#[test]
fn fatal_statuses_make_one_request() {
    for status in [401, 402, 403] {
        let mock = mock(&[&status.to_string()]);
        let (client, sleeper) = openai(&mock);
        let e = block_on(client.complete(op_request(OP))).unwrap_err();
        assert_eq!((e.status, e.retryable), (Some(status), Some(false)));
        assert!(e.message.contains(&format!("HTTP {status}")) && e.message.contains("(mock)"), "{}", e.message);
        assert_eq!(mock.count(), 1);
        assert!(sleeper.slept().is_empty());
    }
}

#[test]
fn server_errors_six_times_give_up() {
    for status in ["500", "503"] {
        let mock = mock(&[status]);
        let (client, sleeper) = openai(&mock);
        let e = block_on(client.complete(op_request(OP))).unwrap_err();
        assert_eq!(e.status, Some(status.parse().unwrap()));
        assert_eq!(e.retryable, Some(true));
        assert_eq!(mock.count(), 6);
        assert_eq!(sleeper.slept(), [1000, 2000, 4000, 8000, 16000]);
    }
}

#[test]
fn malformed_json_is_final() {
    let mock = mock(&["malformed"]);
    let (client, sleeper) = openai(&mock);
    let e = block_on(client.complete(op_request(OP))).unwrap_err();
    assert!(e.message.contains("not JSON"), "{}", e.message);
    assert_eq!((e.status, e.retryable, mock.count()), (None, Some(false), 1));
    assert!(sleeper.slept().is_empty());

    let mock = self::mock(&["not-json"]);
    let (client, _) = openai(&mock);
    let e = block_on(client.complete(op_request(OP))).unwrap_err();
    assert!(e.message.contains("not JSON") && e.message.contains("Sure!"), "{}", e.message);
}

#[test]
fn length_cut() {
    let mock = mock(&["length"]);
    let (client, _) = openai(&mock);
    let e = block_on(client.complete(CompletionRequest { max_tokens: Some(64), ..op_request(OP) })).unwrap_err();
    assert!(
        e.message.contains("cut at max_tokens") && e.message.contains("after 64 completion tokens"),
        "{}",
        e.message
    );
    assert_eq!((e.status, e.retryable, mock.count()), (None, Some(false), 1));
    assert_eq!(mock.bodies()[0]["max_tokens"], 64);
}

#[test]
fn a_dropped_connection_is_retried() {
    let mock = mock(&["drop@1"]);
    let (client, sleeper) = openai(&mock);
    let done = block_on(client.complete(op_request(OP))).unwrap();
    assert!(validate_block(Level::Operation, &done.json).is_ok());
    assert_eq!(mock.count(), 2);
    assert_eq!(sleeper.slept(), [1000]);

    let mock = self::mock(&["drop"]);
    let (client, sleeper) = openai(&mock);
    let e = block_on(client.complete(op_request(OP))).unwrap_err();
    assert_eq!((e.status, e.retryable, mock.count()), (None, Some(true), 6));
    assert_eq!(sleeper.slept().len(), 5);
}

#[test]
fn cycles_and_a_missing_member() {
    let mock = mock(&[]);
    let (client, _) = openai(&mock);
    let done = block_on(client.complete(cycle_request())).unwrap();
    assert_eq!(validate_cycle(Level::Type, &CYCLE, &done.json).unwrap().len(), 2);

    let mock = self::mock(&[&format!("missing-member@unit={}", CYCLE[1])]);
    let (client, _) = openai(&mock);
    let done = block_on(client.complete(cycle_request())).unwrap();
    let issues = validate_cycle(Level::Type, &CYCLE, &done.json).unwrap_err();
    assert!(format!("{issues:?}").contains(CYCLE[1]));
}

#[test]
fn faults_per_unit() {
    let other = "java:com.acme.order/Basket#clear()";
    let mock = mock(&[&format!("403@unit={OP}")]);
    let (client, _) = openai(&mock);
    assert_eq!(block_on(client.complete(op_request(OP))).unwrap_err().status, Some(403));
    assert!(block_on(client.complete(op_request(other))).is_ok());
    assert_eq!(block_on(client.complete(op_request(OP))).unwrap_err().status, Some(403));
    assert_eq!(mock.count(), 3);
}

#[test]
fn calls_are_in_flight_together() {
    let mock = mock(&["slow:500"]);
    let (client, _) = openai(&mock);
    let start = Instant::now();
    let results = block_on(futures::future::join_all((0..4).map(|i| client.complete(op_request(&format!("{OP}{i}"))))));
    let took = start.elapsed();
    assert!(results.iter().all(Result::is_ok));
    // One after the other would take 2 s.
    assert!(took >= Duration::from_millis(500) && took < Duration::from_millis(1700), "{took:?}");
    assert_eq!(mock.count(), 4);
}

#[test]
fn structured_output_negotiation_against_the_mock() {
    // llama-cpp-python: json_schema refused with a 500; the bounded schema taken.
    let mock = MockProvider::start(MockConfig::llama_cpp_python());
    let (client, sleeper) = openai(&mock);
    let done = block_on(client.complete(op_request(OP))).unwrap();
    assert!(validate_block(Level::Operation, &done.json).is_ok());
    assert_eq!(client.mode(), OutputMode::JsonObjectSchema);
    assert!(sleeper.slept().is_empty(), "a refusal is not retried: {:?}", sleeper.slept());
    block_on(client.complete(op_request(OP))).unwrap();
    let bodies = mock.bodies();
    let formats: Vec<String> = bodies.iter().map(|b| b["response_format"]["type"].to_string()).collect();
    assert_eq!(formats, ["\"json_schema\"", "\"json_object\"", "\"json_object\""]);
    assert_eq!(bodies[1]["response_format"]["schema"]["properties"]["description"]["maxLength"], 400);
    assert_eq!(client.output_mode("openai/gpt-5.6-luna").as_deref(), Some("json-object-schema"));

    // A server that takes json_object but not its schema.
    let mock =
        MockProvider::start(MockConfig { json_schema: false, json_object_schema: false, ..MockConfig::default() });
    let (client, _) = openai(&mock);
    block_on(client.complete(op_request(OP))).unwrap();
    assert_eq!((client.mode(), mock.count()), (OutputMode::JsonObject, 3));

    let mock = MockProvider::start(MockConfig {
        json_schema: false,
        json_object_schema: false,
        json_object: false,
        ..MockConfig::default()
    });
    let (client, _) = openai(&mock);
    let done = block_on(client.complete(cycle_request())).unwrap();
    assert!(validate_cycle(Level::Type, &CYCLE, &done.json).is_ok());
    assert_eq!((client.mode(), mock.count()), (OutputMode::PromptOnly, 4));
}

#[test]
fn openrouter_and_cloudflare_routes() {
    let mock = mock(&[]);
    let config = ProviderConfig::openrouter("sk-or-test").with_base_url(&mock.openrouter_url()).unwrap();
    let (client, _) = client_for(config);
    block_on(client.complete(op_request(OP))).unwrap();
    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/api/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-or-test"));
    assert_eq!(sent.header("x-title"), Some("codegraph"));

    let config = ProviderConfig::cloudflare("cf-test", "acc/1", Some("gw"))
        .with_base_url(&format!("{}/client/v4", mock.origin()))
        .unwrap();
    let (client, _) = client_for(config);
    block_on(client.complete(op_request(OP))).unwrap();
    let sent = &mock.requests()[1];
    assert_eq!(sent.path, "/client/v4/accounts/acc%2F1/ai/v1/chat/completions");
    assert_eq!(sent.header("cf-aig-gateway-id"), Some("gw"));
}

#[test]
fn cors_preflight() {
    let mock = mock(&[]);
    let preflight = HttpRequest {
        method: "OPTIONS".into(),
        url: format!("{}/chat/completions", mock.url()),
        headers: vec![
            ("origin".into(), "http://127.0.0.1:8080".into()),
            ("access-control-request-method".into(), "POST".into()),
            ("access-control-request-headers".into(), "authorization, content-type, x-title".into()),
        ],
        body: String::new(),
    };
    let r = block_on(transport().send(preflight)).unwrap();
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert_eq!(r.header("access-control-allow-headers"), Some("authorization, content-type, x-title"));
    assert!(r.header("access-control-allow-methods").unwrap().contains("POST"));
    assert_eq!(mock.count(), 0, "a preflight is not a completion");
    let (client, _) = openai(&mock);
    block_on(client.complete(op_request(OP))).unwrap();
    // Answers carry CORS headers too (checked on the raw transport).
    let raw = block_on(transport().send(HttpRequest::post_json(
        format!("{}/chat/completions", mock.url()),
        vec![("content-type".into(), "application/json".into())],
        mock.requests()[0].body.clone(),
    )))
    .unwrap();
    assert_eq!((raw.status, raw.header("access-control-allow-origin")), (200, Some("*")));
}

#[test]
fn the_model_list_unknown_paths_and_stop() {
    let mock = mock(&[]);
    let get = |path: &str| {
        block_on(transport().send(HttpRequest {
            method: "GET".into(),
            url: format!("{}{path}", mock.url()),
            headers: vec![],
            body: String::new(),
        }))
        .unwrap()
    };
    let models = get("/models");
    assert_eq!(models.status, 200);
    let prices = llm::prices::parse_prices(&models.body, insights::plan::DEFAULT_MODEL).unwrap().unwrap();
    assert_eq!((prices.input, prices.output), (0.15, 0.6));
    assert_eq!(get("/nothing/here").status, 404);
    let url = mock.url();
    mock.stop();
    let r = block_on(transport().send(HttpRequest::post_json(format!("{url}/chat/completions"), vec![], "{}".into())));
    assert!(r.is_err(), "{r:?}");
}
