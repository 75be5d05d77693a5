//! `cargo xtask mock-provider`: start the mock chat-completions provider of
//! the test kit by hand (for the page or the CLI against loopback) and print
//! its URL. Runs until interrupted.

use testkit::{FaultRule, MockConfig, MockProvider};

#[derive(clap::Args)]
pub struct Args {
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// A fault, FAULT[@WHEN] (repeatable). FAULT: 429, 429:SECONDS (with Retry-After), a status (401, 402, 403,
    /// 500, 503, …), malformed, not-json, missing-member, length, drop, slow:MS. WHEN: a request number, unit=ID,
    /// or * (default).
    #[arg(long = "fault", value_name = "FAULT[@WHEN]")]
    faults: Vec<String>,
    /// Refuse `response_format: json_schema` with a 400 (as some endpoints do).
    #[arg(long)]
    no_json_schema: bool,
    /// Refuse `response_format: json_object` with a schema.
    #[arg(long)]
    no_json_object_schema: bool,
    /// Refuse `response_format: json_object` with a 400.
    #[arg(long)]
    no_json_object: bool,
    /// Refusals answer 500, as llama-cpp-python's server does (default 400).
    #[arg(long)]
    refuse_with_500: bool,
}

pub fn run(args: Args) -> crate::Result {
    let faults = args.faults.iter().map(|f| FaultRule::parse(f)).collect::<Result<Vec<_>, _>>()?;
    let config = MockConfig {
        faults,
        json_schema: !args.no_json_schema,
        json_object_schema: !args.no_json_object_schema,
        json_object: !args.no_json_object,
        refusal_status: if args.refuse_with_500 { 500 } else { 400 },
    };
    let mock =
        MockProvider::start_on(args.port, config).map_err(|e| format!("cannot listen on port {}: {e}", args.port))?;
    println!("mock provider: {}", mock.url());
    println!("  OpenRouter path: {}", mock.openrouter_url());
    println!("  use: --provider openai-compatible --base-url {}", mock.url());
    println!("  (Ctrl-C to stop)");
    loop {
        std::thread::park();
    }
}
