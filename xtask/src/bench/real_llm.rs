//! `cargo xtask bench real-llm`: the whole Java fixture explained by a real
//! local model (llama-cpp-python's server with SmolLM2-135M,
//! [`crate::local_llm`]) through the release CLI, with a recording proxy on
//! loopback between them. Prints, per output mode: requests, refusals,
//! answered calls, answers that validated (the unit got a record), the
//! median seconds per answered call; then the server's prompt and completion
//! tokens per second (from its own timings) and the failures by reason.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

use super::{best_median, release_cli};
use crate::local_llm::{LlamaServer, MODEL_ALIAS};

/// One request the proxy forwarded.
struct Call {
    mode: &'static str,
    status: u16,
    seconds: f64,
    /// `<level> <id>` from the prompt's `# Unit:` line.
    unit: String,
}

fn mode_of(body: &Value) -> &'static str {
    match body.pointer("/response_format/type").and_then(Value::as_str) {
        Some("json_schema") => "json-schema",
        Some("json_object") if body.pointer("/response_format/schema").is_some() => "json-object-schema",
        Some("json_object") => "json-object",
        _ => "prompt-only",
    }
}

fn unit_of(body: &Value) -> String {
    let user = body.pointer("/messages/1/content").and_then(Value::as_str).unwrap_or_default();
    user.lines().find_map(|l| l.strip_prefix("# Unit: ")).unwrap_or("?").trim().to_owned()
}

/// A loopback proxy to `upstream` that records every chat request.
fn proxy(upstream: String, calls: Arc<Mutex<Vec<Call>>>) -> crate::Result<String> {
    let server = tiny_http::Server::http("127.0.0.1:0").map_err(|e| format!("proxy: {e}"))?;
    let port = server.server_addr().to_ip().map(|a| a.port()).ok_or("proxy: no port")?;
    std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(900)))
            .build()
            .into();
        for mut request in server.incoming_requests() {
            let mut body = String::new();
            let _ = request.as_reader().read_to_string(&mut body);
            let path = request.url().trim_start_matches("/v1").to_owned();
            let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let started = Instant::now();
            let answer = agent
                .post(&format!("{upstream}{path}"))
                .header("content-type", "application/json")
                .send(body.as_bytes());
            let (status, text) = match answer {
                Ok(mut r) => (r.status().as_u16(), r.body_mut().read_to_string().unwrap_or_default()),
                Err(e) => (502, format!("{{\"error\":\"proxy: {e}\"}}")),
            };
            calls.lock().unwrap().push(Call {
                mode: mode_of(&parsed),
                status,
                seconds: started.elapsed().as_secs_f64(),
                unit: unit_of(&parsed),
            });
            let header = tiny_http::Header::from_bytes("content-type", "application/json").unwrap();
            let _ =
                request.respond(tiny_http::Response::from_string(text).with_status_code(status).with_header(header));
        }
    });
    Ok(format!("http://127.0.0.1:{port}/v1"))
}

/// Sums the server's `prompt eval time = X ms / N tokens` and `eval time =
/// X ms / N runs` lines from `from` on: (prompt tokens, ms, completion tokens, ms).
fn server_timings(log: &str) -> (f64, f64, f64, f64) {
    let figures = |line: &str| -> Option<(f64, f64)> {
        let rest = line.split_once("= ")?.1;
        let ms: f64 = rest.split_whitespace().next()?.parse().ok()?;
        let n: f64 = rest.split_once("/ ")?.1.split_whitespace().next()?.parse().ok()?;
        Some((n, ms))
    };
    let (mut pt, mut pms, mut ct, mut cms) = (0.0, 0.0, 0.0, 0.0);
    for line in log.lines().filter(|l| l.starts_with("llama_perf_context_print:")) {
        if line.contains("prompt eval time") {
            if let Some((n, ms)) = figures(line) {
                pt += n;
                pms += ms;
            }
        } else if line.contains(" eval time") {
            if let Some((n, ms)) = figures(line) {
                ct += n;
                cms += ms;
            }
        }
    }
    (pt, pms, ct, cms)
}

pub fn run(modes: &[String], concurrency: u32, max_calls: Option<u32>) -> crate::Result {
    let cli = release_cli()?;
    let server = LlamaServer::start()?;
    let fixture = crate::root().join("fixtures/upstream-java/model.jsonl");
    println!(
        "bench real-llm: {} on llama-cpp-python {} ({})",
        MODEL_ALIAS,
        crate::local_llm::LLAMA_CPP_PYTHON,
        server.url()
    );
    for mode in modes {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let url = proxy(server.url(), calls.clone())?;
        let dir = std::env::temp_dir().join(format!("cgi-bench-real-llm-{}-{mode}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let model = dir.join("model.jsonl");
        std::fs::copy(&fixture, &model).map_err(|e| e.to_string())?;
        let log_before = std::fs::read_to_string(server.log()).unwrap_or_default().len();
        let started = Instant::now();
        let out = std::process::Command::new(&cli)
            .current_dir(&dir)
            .args([
                "explain",
                "model.jsonl",
                "--provider",
                "openai-compatible",
                "--base-url",
                &url,
                "--model",
                MODEL_ALIAS,
            ])
            .args(["--no-source", "--yes", "--json", "--output-mode", mode, "--concurrency", &concurrency.to_string()])
            .args(max_calls.map(|n| vec!["--max-calls".to_owned(), n.to_string()]).unwrap_or_default())
            .env_remove("OPENAI_API_KEY")
            .stderr(std::process::Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        let wall = started.elapsed().as_secs_f64();
        let summary: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("the CLI printed no summary ({}): {e}", out.status))?;
        let lines: Vec<Value> = std::fs::read_to_string(dir.join("model.insights.jsonl"))
            .map_err(|e| e.to_string())?
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let explained = |id: &str| lines.iter().any(|l| l["t"] == "i" && l["origin"] == "llm" && l["id"] == id);
        let calls = calls.lock().unwrap();
        println!(
            "\n  --output-mode {mode}: {:.0} s for the whole fixture, exit {}",
            wall,
            out.status.code().unwrap_or(-1)
        );
        println!("    negotiated: {}", summary["outputModes"]);
        for m in ["json-schema", "json-object-schema", "json-object", "prompt-only"] {
            let sent: Vec<&Call> = calls.iter().filter(|c| c.mode == m).collect();
            if sent.is_empty() {
                continue;
            }
            let answered: Vec<&&Call> = sent.iter().filter(|c| c.status == 200).collect();
            // Per unit, not per call: a unit whose first answer did not
            // validate and whose repair did counts once, as recorded; every
            // answered call beyond one per recorded unit did not validate.
            let mut units: Vec<&str> = answered.iter().map(|c| c.unit.as_str()).collect();
            units.sort_unstable();
            units.dedup();
            let recorded = units.iter().filter(|u| u.split_once(' ').is_some_and(|(_, id)| explained(id))).count();
            let refused = sent.len() - answered.len();
            println!(
                "    {m:<19} {:>3} requests, {refused} refused, {:>3} answered for {} units: {recorded} units recorded ({:.1} %), {:.1} % of answers valid; median {:.2} s per answered call",
                sent.len(),
                answered.len(),
                units.len(),
                if units.is_empty() { 0.0 } else { recorded as f64 * 100.0 / units.len() as f64 },
                if answered.is_empty() { 0.0 } else { recorded as f64 * 100.0 / answered.len() as f64 },
                if answered.is_empty() { 0.0 } else { best_median(&answered, |c| c.seconds).1 }
            );
        }
        let failures: Vec<&Value> = lines.iter().filter(|l| l["t"] == "f").collect();
        let format = failures
            .iter()
            .filter(|f| {
                let m = f["reason"]["message"].as_str().unwrap_or_default();
                ["response_format", "json_schema", "not JSON", "cut at max_tokens"].iter().any(|k| m.contains(k))
            })
            .count();
        println!(
            "    counts {}; {} failed unit(s), {format} of them for a format reason",
            summary["counts"],
            failures.len()
        );
        for f in failures.iter().take(5) {
            println!(
                "      {}: {}",
                f["id"],
                llm::wire::first_chars(f["reason"]["message"].as_str().unwrap_or_default(), 160)
            );
        }
        let log = std::fs::read_to_string(server.log()).unwrap_or_default();
        let (pt, pms, ct, cms) = server_timings(&log[log_before.min(log.len())..]);
        println!(
            "    server: {:.0} prompt tokens/s ({pt:.0} tokens), {:.0} completion tokens/s ({ct:.0} tokens)",
            pt / (pms / 1000.0).max(1e-9),
            ct / (cms / 1000.0).max(1e-9)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}
