use super::*;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |k: &str| map.get(k).cloned()
}

const CF: [(&str, &str); 2] = [(CLOUDFLARE_API_TOKEN, "cf-tok"), (CLOUDFLARE_ACCOUNT_ID, "acc-1")];

#[test]
fn auto_resolution_table() {
    let r = resolution(&ProviderChoice::Auto, &env(&[(OPENROUTER_API_KEY, "sk-or")]));
    assert_eq!(
        (r.provider, r.missing, r.reason.as_str()),
        (ProviderChoice::OpenRouter, vec![], "OPENROUTER_API_KEY set")
    );
    let r = resolution(&ProviderChoice::Auto, &env(&CF));
    assert_eq!(
        (r.provider, r.missing, r.reason.as_str()),
        (ProviderChoice::Cloudflare, vec![], "CLOUDFLARE_API_TOKEN + CLOUDFLARE_ACCOUNT_ID set")
    );
    let both = [(OPENROUTER_API_KEY, "sk-or"), CF[0], CF[1]];
    let r = resolution(&ProviderChoice::Auto, &env(&both));
    assert_eq!(r.provider, ProviderChoice::OpenRouter);
    assert!(r.missing.is_empty());
    assert!(r.reason.contains("both") && r.reason.contains("--provider cloudflare"), "{}", r.reason);
    let r = resolution(&ProviderChoice::Auto, &env(&[(OPENROUTER_API_KEY, "  "), (CLOUDFLARE_API_TOKEN, "t")]));
    assert_eq!((r.provider, r.missing), (ProviderChoice::OpenRouter, vec![OPENROUTER_API_KEY]));
    assert!(r.reason.contains("no provider is configured"));
}

#[test]
fn explicit_choices() {
    let r = resolution(&ProviderChoice::Cloudflare, &env(&[(CLOUDFLARE_ACCOUNT_ID, "a"), (OPENROUTER_API_KEY, "k")]));
    assert_eq!((r.missing, r.reason.as_str()), (vec![CLOUDFLARE_API_TOKEN], "--provider cloudflare"));
    let r = resolution(&ProviderChoice::OpenRouter, &env(&CF));
    assert_eq!(r.missing, vec![OPENROUTER_API_KEY]);
    let r = resolution(&ProviderChoice::CloudflareGateway, &env(&CF));
    assert_eq!(r.missing, vec![CLOUDFLARE_AI_GATEWAY_ID]);
}

#[test]
fn missing_credentials_name_the_variables() {
    let e = resolve_provider(&ProviderChoice::Cloudflare, &env(&[])).unwrap_err();
    assert_eq!(e.provider, "cloudflare");
    assert_eq!(e.missing, ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_ACCOUNT_ID"]);
    let text = e.to_string();
    assert!(text.contains("cloudflare") && text.contains("CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID"), "{text}");
    let e = resolve_provider(&ProviderChoice::Auto, &env(&[])).unwrap_err();
    assert!(e.to_string().contains("OPENROUTER_API_KEY"));
}

#[test]
fn configs_from_the_environment() {
    let (c, reason) = resolve_provider(&ProviderChoice::Auto, &env(&[(OPENROUTER_API_KEY, " sk-or-1 ")])).unwrap();
    assert_eq!(c, ProviderConfig::openrouter("sk-or-1"));
    assert_eq!(reason, "OPENROUTER_API_KEY set");
    assert_eq!(c.url(), "https://openrouter.ai/api/v1/chat/completions");
    assert_eq!(
        c.headers(),
        [
            ("authorization".to_string(), "Bearer sk-or-1".to_string()),
            ("content-type".into(), "application/json".into()),
            ("x-title".into(), "codegraph".into())
        ]
    );
    assert_eq!(c.name(), "openrouter");

    let (c, _) = resolve_provider(&ProviderChoice::Cloudflare, &env(&CF)).unwrap();
    assert_eq!(c.url(), "https://api.cloudflare.com/client/v4/accounts/acc-1/ai/v1/chat/completions");
    assert_eq!(c.name(), "cloudflare");
    assert!(!c.headers().iter().any(|(k, _)| k == "cf-aig-gateway-id"));
    let with_gw = [CF[0], (CLOUDFLARE_ACCOUNT_ID, "a/b"), (CLOUDFLARE_AI_GATEWAY_ID, " gw-1 ")];
    let (c, _) = resolve_provider(&ProviderChoice::Cloudflare, &env(&with_gw)).unwrap();
    assert_eq!(c.url(), "https://api.cloudflare.com/client/v4/accounts/a%2Fb/ai/v1/chat/completions");
    assert_eq!(c.name(), "cloudflare/gw-1");
    assert!(c.headers().contains(&("cf-aig-gateway-id".into(), "gw-1".into())));
    assert!(c.headers().contains(&("authorization".into(), "Bearer cf-tok".into())));
    let blank_gw = [CF[0], CF[1], (CLOUDFLARE_AI_GATEWAY_ID, "  ")];
    assert_eq!(resolve_provider(&ProviderChoice::Cloudflare, &env(&blank_gw)).unwrap().0.name(), "cloudflare");

    let (c, _) = resolve_provider(&ProviderChoice::CloudflareGateway, &env(&with_gw)).unwrap();
    assert_eq!(c.url(), "https://gateway.ai.cloudflare.com/v1/a%2Fb/gw-1/compat/chat/completions");
    assert_eq!(c.headers()[0], ("cf-aig-authorization".into(), "Bearer cf-tok".into()));
    assert_eq!(c.name(), "cloudflare-gateway/gw-1");
}

#[test]
fn openai_compatible() {
    let choice = ProviderChoice::parse("openai-compatible", Some("http://127.0.0.1:9/v1/")).unwrap();
    let (c, reason) = resolve_provider(&choice, &env(&[])).unwrap();
    assert_eq!(c.url(), "http://127.0.0.1:9/v1/chat/completions");
    assert_eq!(c.headers(), [("content-type".to_string(), "application/json".to_string())]);
    assert!(reason.starts_with("--provider openai-compatible") && reason.contains("no OPENAI_API_KEY"));
    let (c, _) = resolve_provider(&choice, &env(&[(OPENAI_API_KEY, "sk-oa")])).unwrap();
    assert_eq!(c.headers()[0], ("authorization".into(), "Bearer sk-oa".into()));
    assert!(ProviderChoice::parse("openai-compatible", None).is_err());
    assert!(ProviderChoice::parse("openai-compatible", Some("ftp://x")).is_err());
    assert!(ProviderChoice::parse("openai-compatible", Some("http://user:pw@host/v1")).is_err());
    assert!(ProviderChoice::parse("openrouter", Some("http://x/v1")).is_err());
    assert!(ProviderChoice::parse("bedrock", None).is_err());
    for name in ["auto", "openrouter", "cloudflare", "cloudflare-gateway"] {
        assert_eq!(ProviderChoice::parse(name, None).unwrap().name(), name);
    }
}

#[test]
fn keys_never_show() {
    let configs = [
        ProviderConfig::openrouter("sk-or-SECRET"),
        ProviderConfig::cloudflare("cf-SECRET", "acc", Some("gw")),
        ProviderConfig::cloudflare_gateway("cf-SECRET", "acc", "gw"),
        ProviderConfig::openai_compatible("http://h/v1", Some("sk-SECRET")).unwrap(),
    ];
    for c in &configs {
        let shown = format!("{c:?} {:#?} {}", c, c.url());
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("<redacted>"));
        assert_eq!(c.headers().iter().filter(|(_, v)| v.contains("SECRET")).count(), 1);
    }
    assert_eq!(format!("{}", Secret::new("x")), "<redacted>");
    let (c, _) = resolve_provider(&ProviderChoice::Auto, &env(&[(OPENROUTER_API_KEY, "sk-or-SECRET")])).unwrap();
    assert!(!format!("{c:?}").contains("SECRET"));
}

#[test]
fn encodes_components() {
    assert_eq!(encode_component("a/b c?é"), "a%2Fb%20c%3F%C3%A9");
    assert_eq!(encode_component("acc-1_x.y~"), "acc-1_x.y~");
}
