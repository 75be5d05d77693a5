//! The mock provider server.

use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use insights::complete::Asking;
use insights::vocab::Level;
use llm::demo::placeholder_answer;
use serde_json::{json, Value};

use crate::fault::{Fault, FaultRule};
use crate::http::{read_request, write_response, Request, Response};

/// Usage of every default answer: prompt and completion tokens.
pub const MOCK_USAGE: (u64, u64) = (100, 20);
/// Cost of every default answer, USD.
pub const MOCK_COST: f64 = 0.001;

/// How the mock behaves.
#[derive(Clone, Debug)]
pub struct MockConfig {
    /// Applied in order; a `Delay` adds a pause, the first other fault wins.
    pub faults: Vec<FaultRule>,
    /// Whether `response_format: json_schema` is accepted (else a refusal naming it).
    pub json_schema: bool,
    /// Whether `response_format: {type: json_object, schema}` is accepted
    /// (else a refusal naming the schema).
    pub json_object_schema: bool,
    /// Whether `response_format: json_object` is accepted (else a refusal naming it).
    pub json_object: bool,
    /// The status of a refusal: 400 like OpenAI, 500 like llama-cpp-python.
    pub refusal_status: u16,
}

impl Default for MockConfig {
    fn default() -> MockConfig {
        MockConfig {
            faults: Vec::new(),
            json_schema: true,
            json_object_schema: true,
            json_object: true,
            refusal_status: 400,
        }
    }
}

impl MockConfig {
    /// What llama-cpp-python's server accepts: `json_object` with or without
    /// a schema; `json_schema` refused with a 500 naming `response_format`.
    pub fn llama_cpp_python() -> MockConfig {
        MockConfig { json_schema: false, refusal_status: 500, ..MockConfig::default() }
    }

    /// Adds a fault rule.
    pub fn fault(mut self, rule: FaultRule) -> MockConfig {
        self.faults.push(rule);
        self
    }

    /// Adds a fault rule in its command-line form (see [`FaultRule::parse`]); panics on a typo.
    pub fn with(self, rule: &str) -> MockConfig {
        self.fault(FaultRule::parse(rule).unwrap_or_else(|e| panic!("fault {rule}: {e}")))
    }
}

/// A chat-completion request as received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRequest {
    /// 1-based arrival order among chat-completion requests.
    pub number: usize,
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

struct State {
    config: MockConfig,
    requests: Mutex<Vec<RecordedRequest>>,
    counter: AtomicUsize,
    stopping: AtomicBool,
}

/// A running mock provider on `127.0.0.1`. Stops when dropped.
pub struct MockProvider {
    addr: SocketAddr,
    state: Arc<State>,
    thread: Option<JoinHandle<()>>,
}

impl MockProvider {
    /// Starts on a free port.
    pub fn start(config: MockConfig) -> MockProvider {
        MockProvider::start_on(0, config).expect("bind 127.0.0.1:0")
    }

    /// Starts on `port` (0 = any free port).
    pub fn start_on(port: u16, config: MockConfig) -> std::io::Result<MockProvider> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            config,
            requests: Mutex::new(Vec::new()),
            counter: AtomicUsize::new(0),
            stopping: AtomicBool::new(false),
        });
        let shared = state.clone();
        let thread = std::thread::Builder::new().name("mock-provider".into()).spawn(move || {
            for stream in listener.incoming() {
                if shared.stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let state = shared.clone();
                let _ = std::thread::Builder::new().name("mock-conn".into()).spawn(move || serve(stream, &state));
            }
        })?;
        Ok(MockProvider { addr, state, thread: Some(thread) })
    }

    /// The OpenAI-compatible base URL: `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The OpenRouter-shaped base URL: `http://127.0.0.1:PORT/api/v1`.
    pub fn openrouter_url(&self) -> String {
        format!("http://{}/api/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT` (any path ending in `/chat/completions` is served).
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every chat-completion request received, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        let mut v = self.state.requests.lock().unwrap().clone();
        v.sort_by_key(|r| r.number);
        v
    }

    /// How many chat-completion requests arrived.
    pub fn count(&self) -> usize {
        self.state.counter.load(Ordering::SeqCst)
    }

    /// The request bodies, parsed.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().iter().map(RecordedRequest::json).collect()
    }

    /// Stops accepting and waits for the accept loop to end.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.state.stopping.store(true, Ordering::SeqCst);
            let _ = TcpStream::connect(self.addr); // wakes the accept loop
            let _ = thread.join();
        }
    }
}

impl Drop for MockProvider {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn cors(r: Response, req: &Request) -> Response {
    let allow =
        req.header("access-control-request-headers").unwrap_or("authorization, content-type, x-title").to_owned();
    r.with_header("Access-Control-Allow-Origin", "*")
        .with_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        .with_header("Access-Control-Allow-Headers", &allow)
        .with_header("Access-Control-Expose-Headers", "retry-after")
        .with_header("Access-Control-Max-Age", "600")
}

fn error_body(status: u16, message: &str) -> String {
    json!({"error": {"code": status, "message": message}}).to_string()
}

/// `GET …/models`: an OpenRouter-shaped model list with per-token prices
/// (the default model at $0.15 / $0.60 per million tokens).
pub const MODEL_LIST: &str = r#"{"data":[{"id":"openai/gpt-5.6-luna","pricing":{"prompt":"0.00000015","completion":"0.0000006"}},{"id":"mock/free","pricing":{"prompt":"0","completion":"0"}}]}"#;

fn serve(mut stream: TcpStream, state: &State) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(Some(req)) = read_request(&mut stream) else {
        let _ = stream.shutdown(Shutdown::Both);
        return;
    };
    let path = req.path.split('?').next().unwrap_or_default().to_owned();
    let response = if req.method == "OPTIONS" {
        Some(Response { status: 204, headers: vec![], body: String::new() })
    } else if req.method == "POST" && path.ends_with("/chat/completions") {
        chat(&req, &path, state)
    } else if req.method == "GET" && path.ends_with("/models") {
        Some(Response::json(200, MODEL_LIST.to_owned()))
    } else {
        Some(Response::json(404, error_body(404, &format!("no route for {} {path}", req.method))))
    };
    // `None` is a dropped connection: close without a word.
    if let Some(r) = response {
        let _ = write_response(&mut stream, &cors(r, &req));
    }
    let _ = stream.shutdown(Shutdown::Both);
}

fn text_of(body: &Value, role: &str) -> String {
    let messages = body.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
    messages
        .iter()
        .find(|m| m.get("role").and_then(Value::as_str) == Some(role))
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

// This server stands in for a remote provider: it sees only the wire (the
// prompt's text and the schema), never the engine's `Asking`, so it is the
// one place that reads the unit back from the prompt — as a real server's
// logs would.

/// `# Unit: <level> <id>[ (a cycle of …)]` → (level, id).
fn unit_line(user: &str) -> Option<(Level, String)> {
    let line = user.lines().find_map(|l| l.strip_prefix("# Unit: "))?;
    let (level, rest) = line.split_once(' ')?;
    let level = Level::parse(level)?;
    let id = match rest.find(" (a cycle of ") {
        Some(i) => &rest[..i],
        None => rest,
    };
    Some((level, id.trim().to_owned()))
}

/// The ids of `Return one entry per id: a, b.`
fn cycle_line(user: &str) -> Option<Vec<String>> {
    let line = user.lines().find_map(|l| l.strip_prefix("Return one entry per id: "))?;
    let line = line.trim_end().strip_suffix('.').unwrap_or(line.trim_end());
    Some(line.split(", ").map(str::to_owned).filter(|s| !s.is_empty()).collect())
}

/// What a request on the wire asks: the level from the schema name (else the
/// `# Unit:` line), the unit, and a cycle's members from the schema's id enum
/// (else the prompt's `Return one entry per id:` line).
fn asking_of(user: &str, schema_name: &str, schema: &Value) -> Result<Asking, String> {
    let named = schema_name.strip_prefix("codegraph_").and_then(|rest| match rest.strip_suffix("_cycle") {
        Some(level) => Level::parse(level).map(|l| (l, true)),
        None => Level::parse(rest).map(|l| (l, false)),
    });
    let unit = unit_line(user);
    let level = named
        .map(|(l, _)| l)
        .or(unit.as_ref().map(|(l, _)| *l))
        .ok_or("no codegraph_<level> schema name and no `# Unit:` line")?;
    let cycle = named.map_or_else(|| cycle_line(user).is_some(), |(_, c)| c);
    let unit = unit.map(|(_, id)| id);
    let members = if cycle {
        schema
            .pointer("/properties/members/items/properties/id/enum")
            .and_then(Value::as_array)
            .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_owned).collect::<Vec<_>>())
            .filter(|ids| !ids.is_empty())
            .or_else(|| cycle_line(user))
            .ok_or("no id list in the schema or the prompt")?
    } else {
        vec![unit.clone().ok_or("no `# Unit: <level> <id>` line")?]
    };
    Ok(Asking { unit: unit.unwrap_or_else(|| members[0].clone()), level, members, cycle })
}

/// The unit ids a request is about: its `# Unit:` id and its cycle members.
fn units_of(user: &str, schema: &Value) -> Vec<String> {
    let mut ids: Vec<String> = unit_line(user).map(|(_, id)| vec![id]).unwrap_or_default();
    if let Some(enumerated) = schema.pointer("/properties/members/items/properties/id/enum").and_then(Value::as_array) {
        ids.extend(enumerated.iter().filter_map(Value::as_str).map(str::to_owned));
    } else if let Some(members) = cycle_line(user) {
        ids.extend(members);
    }
    ids
}

fn completion(model: &str, content: &str, finish: &str, completion_tokens: u64) -> Response {
    Response::json(
        200,
        json!({
            "id": "gen-mock",
            "object": "chat.completion",
            "model": format!("{model}-served"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": MOCK_USAGE.0,
                "completion_tokens": completion_tokens,
                "total_tokens": MOCK_USAGE.0 + completion_tokens,
                "cost": MOCK_COST
            }
        })
        .to_string(),
    )
}

/// Answers one chat-completion request; `None` = drop the connection.
fn chat(req: &Request, path: &str, state: &State) -> Option<Response> {
    let number = state.counter.fetch_add(1, Ordering::SeqCst) + 1;
    state.requests.lock().unwrap().push(RecordedRequest {
        number,
        method: req.method.clone(),
        path: path.to_owned(),
        headers: req.headers.clone(),
        body: req.body.clone(),
    });
    let Ok(body) = serde_json::from_str::<Value>(&req.body) else {
        return Some(Response::json(400, error_body(400, "the request body is not JSON")));
    };
    let model = body.get("model").and_then(Value::as_str).unwrap_or("unknown/model").to_owned();
    let format = body.pointer("/response_format/type").and_then(Value::as_str);
    let (schema_name, schema) = match format {
        Some("json_schema") => (
            body.pointer("/response_format/json_schema/name").and_then(Value::as_str).unwrap_or_default().to_owned(),
            body.pointer("/response_format/json_schema/schema").cloned().unwrap_or(Value::Null),
        ),
        Some("json_object") => (String::new(), body.pointer("/response_format/schema").cloned().unwrap_or(Value::Null)),
        _ => (String::new(), Value::Null),
    };
    let with_schema = body.pointer("/response_format/schema").is_some();
    let user = text_of(&body, "user");
    let units = units_of(&user, &schema);
    let rules: Vec<&FaultRule> = state.config.faults.iter().filter(|r| r.applies(number, &units)).collect();
    for rule in &rules {
        if let Fault::Delay(d) = rule.fault {
            std::thread::sleep(d);
        }
    }
    let refuse = |m: &str| {
        let status = state.config.refusal_status;
        Some(Response::json(status, error_body(status, m)))
    };
    if format == Some("json_schema") && !state.config.json_schema {
        return refuse("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model");
    }
    if format == Some("json_object") && with_schema && !state.config.json_object_schema {
        return refuse("Unsupported parameter: 'response_format.schema'");
    }
    if format == Some("json_object") && !state.config.json_object {
        return refuse("Invalid parameter: 'response_format' of type 'json_object' is not supported with this model");
    }
    let fault = rules.iter().map(|r| &r.fault).find(|f| !matches!(f, Fault::Delay(_)));
    let answer = || {
        asking_of(&user, &schema_name, &schema)
            .map(|a| placeholder_answer(&a))
            .map_err(|e| Response::json(400, error_body(400, &format!("mock: {e}"))))
    };
    Some(match fault {
        None => match answer() {
            Ok(a) => completion(&model, &a.to_string(), "stop", MOCK_USAGE.1),
            Err(r) => r,
        },
        Some(Fault::Drop) => return None,
        Some(Fault::RateLimited { retry_after }) => {
            let body = json!({"error": {"code": 429, "message": "Rate limit exceeded",
                                        "metadata": {"error_type": "rate_limit_exceeded"}}});
            let r = Response::json(429, body.to_string());
            match retry_after {
                Some(v) => r.with_header("Retry-After", v),
                None => r,
            }
        }
        Some(Fault::Status(status)) => {
            let text = match status {
                401 => "No auth credentials found (mock)",
                402 => "Insufficient credits (mock)",
                403 => "Key not allowed to use this model (mock)",
                500 => "Internal server error (mock)",
                503 => "No provider available (mock)",
                _ => "Scripted failure (mock)",
            };
            Response::json(*status, error_body(*status, text))
        }
        Some(Fault::MalformedJson) => Response::json(200, r#"{"id":"gen-mock","choices":[{"message":{"content":"#),
        Some(Fault::NotJsonContent) => {
            completion(&model, "Sure! Here is what this code does, in plain words.", "stop", MOCK_USAGE.1)
        }
        Some(Fault::MissingMember) => match answer() {
            Ok(mut a) => {
                if let Some(members) = a.get_mut("members").and_then(Value::as_array_mut) {
                    members.pop();
                }
                completion(&model, &a.to_string(), "stop", MOCK_USAGE.1)
            }
            Err(r) => r,
        },
        Some(Fault::LengthCut) => match answer() {
            Ok(a) => {
                let text = a.to_string();
                let half: String = text.chars().take(text.chars().count() / 2).collect();
                completion(
                    &model,
                    &half,
                    "length",
                    body.get("max_tokens").and_then(Value::as_u64).unwrap_or(MOCK_USAGE.1),
                )
            }
            Err(r) => r,
        },
        Some(Fault::Delay(_)) => unreachable!("delays are filtered out"),
    })
}
