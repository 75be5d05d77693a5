use super::*;

#[test]
fn messages_have_a_type_tag() {
    let json = serde_json::to_value(ToWorker::Hello { protocol: 1 }).unwrap();
    assert_eq!(json, serde_json::json!({"type": "hello", "protocol": 1}));
    // The Worker's messages are externally tagged: `{ "<kind>": { … } }`.
    let json = serde_json::to_value(FromWorker::ready()).unwrap();
    assert_eq!(json, serde_json::json!({"ready": {"version": APP_VERSION, "protocol": PROTOCOL_VERSION}}));
    let json = serde_json::to_value(ToWorker::Plan { settings: PlanSettings::default() }).unwrap();
    assert_eq!(json["type"], "plan");
    assert_eq!(json["settings"]["depth"], 1);
}

#[test]
fn messages_round_trip() {
    let run = RunRequest {
        settings: PlanSettings::default(),
        provider: ProviderSettings::OpenaiCompatible { base_url: "http://127.0.0.1:9/v1".into(), key: "sk-1".into() },
        concurrency: 4,
        max_tokens: Some(4096),
        prices: Some(Prices { input: 0.15, output: 0.6 }),
        output_mode: "json-object-schema".into(),
    };
    for msg in [
        ToWorker::Run { request: run },
        ToWorker::PlanRows {
            query: RowQuery { offset: 10, limit: 50, level: Some("type".into()), ..Default::default() },
        },
        ToWorker::ImportSidecar { name: "m.insights.jsonl".into(), replace: false },
        ToWorker::FetchModels {
            provider: ProviderSettings::OpenRouter { key: String::new() },
            asked_for: "openrouter  false".into(),
        },
        ToWorker::Stop,
        ToWorker::CycleRows { offset: 120, limit: 120 },
        ToWorker::Domain,
        ToWorker::DomainZip,
    ] {
        let back: ToWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
        assert_eq!(back, msg);
    }
    for msg in [
        FromWorker::ready(),
        FromWorker::Error { message: "x".into() },
        FromWorker::LoadProgress { input: Input::Source, bytes: 3, total: None },
        FromWorker::ImportNeedsConfirm { held: 3, incoming: 4, name: "x".into(), truncated: None, foreign: None },
        FromWorker::ImportNeedsConfirm {
            held: 0,
            incoming: 39,
            name: "x".into(),
            truncated: Some("it has no eof line".into()),
            foreign: Some("it seems to be another model's side-car".into()),
        },
        FromWorker::Imported { records: 39, failures: 0, merged: true },
        FromWorker::ProviderModels {
            provider: "openrouter".into(),
            asked_for: "openrouter  false".into(),
            models: vec![
                ListedModel { id: "a/b".into(), prices: Some(Prices { input: 0.15, output: 0.6 }) },
                ListedModel { id: "c/d".into(), prices: None },
            ],
            message: None,
        },
        FromWorker::NavPreparing { what: "cycles".into() },
        FromWorker::CycleRows {
            offset: 0,
            total: 3,
            cycles: 1,
            rows: vec![
                crate::cycles::CycleRow::Member { node: 4, name: "Basket".into() },
                crate::cycles::CycleRow::Link {
                    from: 4,
                    from_name: "Basket".into(),
                    to: 5,
                    to_name: "Cursor".into(),
                    count: 2,
                    feedback: true,
                },
            ],
        },
    ] {
        let back: FromWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
        assert_eq!(back, msg);
    }
}

#[test]
fn the_domain_view_crosses_to_the_page_whole() {
    let concept = domain::Concept {
        id: "java:p/Order".into(),
        name: "Order <b>".into(),
        concept: insights::vocab::DomainConcept::Aggregate,
        event_kind: None,
        confidence: 0.8,
        stale: true,
    };
    let mut view: domain::DomainView =
        serde_json::from_str(r#"{"format":"codegraph.domainView/1","coverage":{"operations":{"units":0,"explained":0,"stale":0,"failed":0,"unexplained":0},"types":{"units":2,"explained":1,"stale":1,"failed":0,"unexplained":1},"modules":{"units":1,"explained":1,"stale":0,"failed":0,"unexplained":0}},"contexts":[],"contextMap":[],"sharedKernels":[],"glossary":[]}"#)
            .unwrap();
    view.contexts.push(domain::Context {
        key: "ordering".into(),
        name: "Ordering".into(),
        hinted: true,
        aggregates: vec![domain::Aggregate {
            root: concept.clone(),
            entities: vec![],
            value_types: vec![],
            relations: vec![],
        }],
        entities: vec![concept],
        terms: vec!["Order".into()],
        unexplained: vec![domain::UnitRef {
            id: "java:p/Line".into(),
            level: insights::vocab::Level::Type,
            status: domain::Status::Unexplained,
        }],
        ..Default::default()
    });
    let boxes = [navigator::Boxed {
        id: "ordering".into(),
        name: "Ordering".into(),
        label: "Ordering".into(),
        category: "context".into(),
    }];
    let map = navigator::layered(&boxes, &[]);
    for msg in [
        FromWorker::Domain {
            shown: Ok(Box::new(DomainShown {
                view,
                map,
                hidden_edges: 3,
                millis: 12.5,
                phases: vec![("view".into(), 4.0)],
                unchecked: None,
            })),
        },
        FromWorker::Domain { shown: Err("no store is open".into()) },
        FromWorker::DomainZip { name: "model.domain.zip".into() },
    ] {
        let back: FromWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
        assert_eq!(back, msg);
    }
}

#[test]
fn a_key_never_shows_in_debug_output() {
    let secret = "sk-or-v1-very-secret";
    for p in [
        ProviderSettings::OpenRouter { key: secret.into() },
        ProviderSettings::CloudflareGateway { token: secret.into(), account: "acc".into(), gateway: "gw".into() },
        ProviderSettings::OpenaiCompatible { base_url: "https://x".into(), key: secret.into() },
    ] {
        let msg = ToWorker::Run {
            request: RunRequest {
                settings: PlanSettings::default(),
                provider: p,
                concurrency: 1,
                max_tokens: None,
                prices: None,
                output_mode: "detect".into(),
            },
        };
        let text = format!("{msg:?}");
        assert!(!text.contains(secret), "{text}");
        assert!(text.contains("<redacted>"), "{text}");
    }
}

#[test]
fn provider_settings_say_what_is_missing_and_feed_the_resolver() {
    assert_eq!(ProviderSettings::Demo.missing(), None);
    assert_eq!(ProviderSettings::OpenRouter { key: "  ".into() }.missing().as_deref(), Some("an OpenRouter API key"));
    let cf = ProviderSettings::CloudflareGateway { token: "t".into(), account: "".into(), gateway: "".into() };
    assert_eq!(cf.missing().as_deref(), Some("Cloudflare AI Gateway needs an account id, a gateway id"));
    assert!(cf.config().unwrap_err().contains("an account id"));
    let oa = ProviderSettings::OpenaiCompatible { base_url: "ftp://x".into(), key: String::new() };
    assert!(oa.missing().unwrap().contains("http://"));
    // Typed configurations, no environment in between.
    let oa = ProviderSettings::OpenaiCompatible { base_url: " http://127.0.0.1:8080/v1 ".into(), key: " ".into() };
    let c = oa.config().unwrap().unwrap();
    assert_eq!(c.name(), "openai-compatible");
    assert!(c.headers().iter().all(|(k, _)| k != "authorization"), "no key: none is sent");
    let or = ProviderSettings::OpenRouter { key: " sk-or-secret ".into() };
    let c = or.config().unwrap().unwrap();
    assert!(!format!("{c:?}").contains("sk-or-secret"), "redacted");
    assert_eq!(ProviderSettings::Demo.config(), Ok(None));
    // Field by field, for the page to say beside each control.
    assert_eq!(ProviderSettings::Demo.missing_fields(), vec![]);
    let fields = |p: &ProviderSettings| p.missing_fields().into_iter().map(|(f, _)| f).collect::<Vec<_>>();
    assert_eq!(fields(&ProviderSettings::OpenRouter { key: " ".into() }), vec!["provider-key"]);
    assert_eq!(fields(&ProviderSettings::OpenRouter { key: "k".into() }), Vec::<&str>::new());
    assert_eq!(fields(&cf), vec!["provider-account", "provider-gateway"]);
    let oa = ProviderSettings::OpenaiCompatible { base_url: "".into(), key: String::new() };
    assert_eq!(fields(&oa), vec!["provider-base-url"]);
    assert!(oa.missing_fields()[0].1.contains("http://"));
}

#[test]
fn plan_settings_are_checked_like_the_cli_flags() {
    assert_eq!(PlanSettings::default().check(), Ok(()));
    let bad = PlanSettings { max_calls: Some(0), ..PlanSettings::default() };
    assert!(bad.check().unwrap_err().to_string().contains("max calls"));
    // The engine's rule, the CLI's too: a depth of at least 1.
    let bad = PlanSettings { depth: 0, ..PlanSettings::default() };
    assert!(bad.check().unwrap_err().to_string().contains("depth"));
    assert_eq!(PlanSettings { depth: 3, ..PlanSettings::default() }.check(), Ok(()));
    let s = PlanSettings { model: " a ".into(), rollup_model: Some(" ".into()), ..PlanSettings::default() };
    let o = s.options(None);
    assert_eq!((o.models.leaf.as_str(), o.models.rollup.as_str()), ("a", "a"));
}

#[test]
fn a_load_error_names_line_and_rule() {
    let e = model::read_model(&b"{\"t\":\"f\",\"i\":0,\"path\":\"a\"}\n"[..], "m.jsonl").unwrap_err();
    let le = LoadError::from(&e);
    assert_eq!(le.line, 1);
    assert_eq!(le.rule, "section-order");
    assert_eq!(le.text, "m.jsonl:1: file is on line 1, but line 1 must be the header record");
    let msg = FromWorker::ModelFailed { error: le };
    let back: FromWorker = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
    assert_eq!(back, msg);
}

#[test]
fn a_summary_describes_the_fixture() {
    let m = crate::testing::fixture();
    let s = ModelSummary::of(&m, "model.jsonl", 1, 1500.0, 2 << 20);
    assert_eq!(
        s.describe(),
        "model.jsonl: 16 files, 179 entities, 188 edges (19 corpus types, 20 stub types, 3 modules), read in 1.50 s"
    );
}

#[test]
fn hello_is_answered_with_ready_or_a_mismatch() {
    assert_eq!(hello(PROTOCOL_VERSION), FromWorker::ready());
    assert!(matches!(hello(PROTOCOL_VERSION + 1), FromWorker::Error { .. }));
}

#[test]
fn a_source_summary_reads_well() {
    let s = SourceSummary { name: "src.zip".into(), files: 20, matched: 16, wanted: 16, root: "shop".into() };
    assert_eq!(s.describe(), "src.zip: 20 files, rooted at \"shop\": 16 of the model's 16 files found");
}

#[test]
fn a_run_request_without_an_output_mode_detects_it() {
    let mut v = serde_json::to_value(RunRequest {
        settings: PlanSettings::default(),
        provider: ProviderSettings::Demo,
        concurrency: 1,
        max_tokens: None,
        prices: None,
        output_mode: "prompt-only".into(),
    })
    .unwrap();
    assert_eq!(v["output_mode"], "prompt-only");
    v.as_object_mut().unwrap().remove("output_mode");
    let back: RunRequest = serde_json::from_value(v).unwrap();
    assert_eq!(back.output_mode, "detect");
    // The page offers exactly the names the CLI accepts.
    assert_eq!(llm::OutputMode::CHOICES[0], back.output_mode);
}

#[test]
fn cycle_messages_have_their_wire_names() {
    let json = serde_json::to_value(ToWorker::CycleRows { offset: 0, limit: 120 }).unwrap();
    assert_eq!(json, serde_json::json!({"type": "cycle_rows", "offset": 0, "limit": 120}));
    let json = serde_json::to_value(FromWorker::NavPreparing { what: "navigator".into() }).unwrap();
    assert_eq!(json, serde_json::json!({"nav_preparing": {"what": "navigator"}}));
    let row = serde_json::to_value(crate::cycles::CycleRow::NoCycle { level: "module".into() }).unwrap();
    assert_eq!(row, serde_json::json!({"row": "no_cycle", "level": "module"}));
}
