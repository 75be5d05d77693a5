//! Providers and their resolution from an environment (`docs/formats/prompts.md` §10.1).
//!
//! Keys never go into a URL, a body or a log line: they travel only in
//! headers, and every `Debug` shows them as `<redacted>`.

use std::fmt;

/// A credential. `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }
    /// The value, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The OpenRouter API base.
pub const OPENROUTER_BASE_URL: &str = "https://openrouter.ai/api/v1";
/// The Cloudflare REST API base (§10.1).
pub const CLOUDFLARE_BASE_URL: &str = "https://api.cloudflare.com/client/v4";
/// The Cloudflare AI Gateway host (§10.1).
pub const CLOUDFLARE_GATEWAY_BASE_URL: &str = "https://gateway.ai.cloudflare.com/v1";
/// The app title sent to OpenRouter for attribution.
pub const APP_TITLE: &str = "codegraph";

/// The providers `auto` chooses between, in preference order.
pub const PROVIDERS: [&str; 2] = ["openrouter", "cloudflare"];
/// Every `--provider` value.
pub const PROVIDER_CHOICES: [&str; 5] = ["auto", "openrouter", "cloudflare", "cloudflare-gateway", "openai-compatible"];

pub const OPENROUTER_API_KEY: &str = "OPENROUTER_API_KEY";
pub const CLOUDFLARE_API_TOKEN: &str = "CLOUDFLARE_API_TOKEN";
pub const CLOUDFLARE_ACCOUNT_ID: &str = "CLOUDFLARE_ACCOUNT_ID";
pub const CLOUDFLARE_AI_GATEWAY_ID: &str = "CLOUDFLARE_AI_GATEWAY_ID";
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";

/// A configured endpoint: everything needed to build requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderConfig {
    /// `POST {base}/chat/completions` with a bearer key (§10.1).
    OpenRouter { api_key: Secret, base_url: String },
    /// Cloudflare's REST route `POST {base}/accounts/{account}/ai/v1/chat/completions` (§10.1).
    Cloudflare { api_token: Secret, account_id: String, gateway_id: Option<String>, base_url: String },
    /// The gateway's OpenAI-compatible route
    /// `POST {base}/{account}/{gateway}/compat/chat/completions` (§10.1),
    /// authenticated with `cf-aig-authorization`.
    CloudflareGateway { api_token: Secret, account_id: String, gateway_id: String, base_url: String },
    /// Any OpenAI-compatible `…/v1` base URL; a bearer key only when given.
    OpenAiCompatible { base_url: String, api_key: Option<Secret> },
}

/// `encodeURIComponent`.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn trim_base(base: &str) -> &str {
    base.trim().trim_end_matches('/')
}

impl ProviderConfig {
    pub fn openrouter(api_key: impl Into<String>) -> ProviderConfig {
        ProviderConfig::OpenRouter { api_key: Secret::new(api_key), base_url: OPENROUTER_BASE_URL.into() }
    }

    /// The gateway id is trimmed and dropped when blank.
    pub fn cloudflare(api_token: impl Into<String>, account_id: impl Into<String>, gateway_id: Option<&str>) -> Self {
        ProviderConfig::Cloudflare {
            api_token: Secret::new(api_token),
            account_id: account_id.into().trim().to_owned(),
            gateway_id: gateway_id.map(str::trim).filter(|g| !g.is_empty()).map(str::to_owned),
            base_url: CLOUDFLARE_BASE_URL.into(),
        }
    }

    pub fn cloudflare_gateway(api_token: impl Into<String>, account_id: &str, gateway_id: &str) -> ProviderConfig {
        ProviderConfig::CloudflareGateway {
            api_token: Secret::new(api_token),
            account_id: account_id.trim().to_owned(),
            gateway_id: gateway_id.trim().to_owned(),
            base_url: CLOUDFLARE_GATEWAY_BASE_URL.into(),
        }
    }

    /// `base_url` is the API root, e.g. `http://127.0.0.1:8080/v1`. It must be
    /// `http(s)://` and carry no credentials.
    pub fn openai_compatible(base_url: &str, api_key: Option<&str>) -> Result<ProviderConfig, String> {
        let base = check_base_url(base_url)?;
        Ok(ProviderConfig::OpenAiCompatible {
            base_url: base,
            api_key: api_key.map(str::trim).filter(|k| !k.is_empty()).map(Secret::new),
        })
    }

    /// The same provider at another base URL (a proxy, or a mock server).
    pub fn with_base_url(mut self, base: &str) -> Result<ProviderConfig, String> {
        let base = check_base_url(base)?;
        match &mut self {
            ProviderConfig::OpenRouter { base_url, .. }
            | ProviderConfig::Cloudflare { base_url, .. }
            | ProviderConfig::CloudflareGateway { base_url, .. }
            | ProviderConfig::OpenAiCompatible { base_url, .. } => *base_url = base,
        }
        Ok(self)
    }

    /// The progress label: `openrouter`, `cloudflare`, `cloudflare/<gateway>`,
    /// `cloudflare-gateway/<gateway>`, `openai-compatible`.
    pub fn name(&self) -> String {
        match self {
            ProviderConfig::OpenRouter { .. } => "openrouter".into(),
            ProviderConfig::Cloudflare { gateway_id: None, .. } => "cloudflare".into(),
            ProviderConfig::Cloudflare { gateway_id: Some(g), .. } => format!("cloudflare/{g}"),
            ProviderConfig::CloudflareGateway { gateway_id, .. } => format!("cloudflare-gateway/{gateway_id}"),
            ProviderConfig::OpenAiCompatible { .. } => "openai-compatible".into(),
        }
    }

    /// The prefix of this provider's error messages.
    pub fn label(&self) -> &'static str {
        match self {
            ProviderConfig::OpenRouter { .. } => "OpenRouter",
            ProviderConfig::Cloudflare { .. } => "Cloudflare AI",
            ProviderConfig::CloudflareGateway { .. } => "Cloudflare AI Gateway",
            ProviderConfig::OpenAiCompatible { .. } => "OpenAI-compatible endpoint",
        }
    }

    /// The chat-completions URL (never holds a key).
    pub fn url(&self) -> String {
        match self {
            ProviderConfig::OpenRouter { base_url, .. } | ProviderConfig::OpenAiCompatible { base_url, .. } => {
                format!("{}/chat/completions", trim_base(base_url))
            }
            ProviderConfig::Cloudflare { account_id, base_url, .. } => {
                format!("{}/accounts/{}/ai/v1/chat/completions", trim_base(base_url), encode_component(account_id))
            }
            ProviderConfig::CloudflareGateway { account_id, gateway_id, base_url, .. } => format!(
                "{}/{}/{}/compat/chat/completions",
                trim_base(base_url),
                encode_component(account_id),
                encode_component(gateway_id)
            ),
        }
    }

    /// The request headers, lower-case names, the credential included.
    pub fn headers(&self) -> Vec<(String, String)> {
        let h = |k: &str, v: String| (k.to_owned(), v);
        let json = h("content-type", "application/json".into());
        match self {
            ProviderConfig::OpenRouter { api_key, .. } => {
                vec![h("authorization", format!("Bearer {}", api_key.expose())), json, h("x-title", APP_TITLE.into())]
            }
            ProviderConfig::Cloudflare { api_token, gateway_id, .. } => {
                let mut v = vec![h("authorization", format!("Bearer {}", api_token.expose())), json];
                if let Some(g) = gateway_id {
                    v.push(h("cf-aig-gateway-id", g.clone()));
                }
                v
            }
            ProviderConfig::CloudflareGateway { api_token, .. } => {
                vec![h("cf-aig-authorization", format!("Bearer {}", api_token.expose())), json]
            }
            ProviderConfig::OpenAiCompatible { api_key, .. } => {
                let mut v = Vec::with_capacity(2);
                if let Some(k) = api_key {
                    v.push(h("authorization", format!("Bearer {}", k.expose())));
                }
                v.push(json);
                v
            }
        }
    }
}

fn check_base_url(base: &str) -> Result<String, String> {
    let b = trim_base(base);
    let rest = b
        .strip_prefix("https://")
        .or_else(|| b.strip_prefix("http://"))
        .ok_or_else(|| format!("the base URL must start with http:// or https://, not `{b}`"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() {
        return Err(format!("the base URL `{b}` has no host"));
    }
    if authority.contains('@') || b.contains('?') || b.contains('#') {
        return Err(
            "the base URL must not carry credentials, a query or a fragment; pass keys through the environment".into(),
        );
    }
    Ok(b.to_owned())
}

/// What `--provider` asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderChoice {
    /// Pick from the environment (§10.1).
    Auto,
    OpenRouter,
    Cloudflare,
    CloudflareGateway,
    OpenAiCompatible {
        base_url: String,
    },
}

impl ProviderChoice {
    /// Reads `--provider NAME` (one of [`PROVIDER_CHOICES`]) and `--base-url`
    /// (required by, and only allowed with, `openai-compatible`).
    pub fn parse(name: &str, base_url: Option<&str>) -> Result<ProviderChoice, String> {
        let choice = match name {
            "auto" => ProviderChoice::Auto,
            "openrouter" => ProviderChoice::OpenRouter,
            "cloudflare" => ProviderChoice::Cloudflare,
            "cloudflare-gateway" => ProviderChoice::CloudflareGateway,
            "openai-compatible" => {
                let base =
                    base_url.ok_or("--provider openai-compatible needs --base-url (e.g. http://127.0.0.1:8080/v1)")?;
                return Ok(ProviderChoice::OpenAiCompatible { base_url: check_base_url(base)? });
            }
            other => {
                return Err(format!("unknown provider `{other}`; expected one of: {}", PROVIDER_CHOICES.join(", ")))
            }
        };
        if base_url.is_some() {
            return Err(format!("--base-url goes with --provider openai-compatible, not `{name}`"));
        }
        Ok(choice)
    }

    /// The `--provider` value.
    pub fn name(&self) -> &'static str {
        match self {
            ProviderChoice::Auto => "auto",
            ProviderChoice::OpenRouter => "openrouter",
            ProviderChoice::Cloudflare => "cloudflare",
            ProviderChoice::CloudflareGateway => "cloudflare-gateway",
            ProviderChoice::OpenAiCompatible { .. } => "openai-compatible",
        }
    }

    /// The variables this provider cannot do without.
    pub fn required(&self) -> &'static [&'static str] {
        match self {
            ProviderChoice::Auto => &[],
            ProviderChoice::OpenRouter => &[OPENROUTER_API_KEY],
            ProviderChoice::Cloudflare => &[CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID],
            ProviderChoice::CloudflareGateway => {
                &[CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_AI_GATEWAY_ID]
            }
            ProviderChoice::OpenAiCompatible { .. } => &[],
        }
    }
}

/// `resolveProvider` (§10.1): the provider, its missing required variables, and why it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// Never [`ProviderChoice::Auto`].
    pub provider: ProviderChoice,
    pub missing: Vec<&'static str>,
    pub reason: String,
}

/// A value counts only when non-empty after trimming.
fn present(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    env(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

fn missing_of(choice: &ProviderChoice, env: &dyn Fn(&str) -> Option<String>) -> Vec<&'static str> {
    choice.required().iter().copied().filter(|v| present(env, v).is_none()).collect()
}

/// The resolution rules of §10.1.
pub fn resolution(choice: &ProviderChoice, env: &dyn Fn(&str) -> Option<String>) -> Resolution {
    if *choice != ProviderChoice::Auto {
        return Resolution {
            provider: choice.clone(),
            missing: missing_of(choice, env),
            reason: format!("--provider {}", choice.name()),
        };
    }
    let openrouter = missing_of(&ProviderChoice::OpenRouter, env).is_empty();
    let cloudflare = missing_of(&ProviderChoice::Cloudflare, env).is_empty();
    let set = |c: &ProviderChoice| format!("{} set", c.required().join(" + "));
    match (openrouter, cloudflare) {
        (true, false) => {
            Resolution { provider: ProviderChoice::OpenRouter, missing: vec![], reason: set(&ProviderChoice::OpenRouter) }
        }
        (false, true) => {
            Resolution { provider: ProviderChoice::Cloudflare, missing: vec![], reason: set(&ProviderChoice::Cloudflare) }
        }
        (true, true) => Resolution {
            provider: ProviderChoice::OpenRouter,
            missing: vec![],
            reason: "both OpenRouter and Cloudflare are configured; using OpenRouter (pass --provider cloudflare to use \
                     Cloudflare)"
                .into(),
        },
        (false, false) => Resolution {
            provider: ProviderChoice::OpenRouter,
            missing: vec![OPENROUTER_API_KEY],
            reason: format!(
                "no provider is configured: set {OPENROUTER_API_KEY}, or {CLOUDFLARE_API_TOKEN} + {CLOUDFLARE_ACCOUNT_ID}"
            ),
        },
    }
}

/// A provider was chosen but a required variable is absent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot use the {provider} provider: {} not set ({reason})", missing.join(", "))]
pub struct MissingCredentials {
    pub provider: String,
    /// The missing variable names.
    pub missing: Vec<String>,
    /// Why this provider was chosen.
    pub reason: String,
}

/// Resolves `choice` over `env` (a process environment, or a settings store
/// in a browser) into a complete configuration and the reason for it —
/// never a half-configured one.
pub fn resolve_provider(
    choice: &ProviderChoice,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(ProviderConfig, String), MissingCredentials> {
    let r = resolution(choice, env);
    if !r.missing.is_empty() {
        return Err(MissingCredentials {
            provider: r.provider.name().into(),
            missing: r.missing.iter().map(|s| s.to_string()).collect(),
            reason: r.reason,
        });
    }
    let var = |name: &str| present(env, name).unwrap_or_default();
    let config = match &r.provider {
        ProviderChoice::OpenRouter => ProviderConfig::openrouter(var(OPENROUTER_API_KEY)),
        ProviderChoice::Cloudflare => ProviderConfig::cloudflare(
            var(CLOUDFLARE_API_TOKEN),
            var(CLOUDFLARE_ACCOUNT_ID),
            present(env, CLOUDFLARE_AI_GATEWAY_ID).as_deref(),
        ),
        ProviderChoice::CloudflareGateway => ProviderConfig::cloudflare_gateway(
            var(CLOUDFLARE_API_TOKEN),
            &var(CLOUDFLARE_ACCOUNT_ID),
            &var(CLOUDFLARE_AI_GATEWAY_ID),
        ),
        ProviderChoice::OpenAiCompatible { base_url } => ProviderConfig::OpenAiCompatible {
            base_url: base_url.clone(),
            api_key: present(env, OPENAI_API_KEY).map(Secret::new),
        },
        ProviderChoice::Auto => unreachable!("resolution never returns auto"),
    };
    let reason = match &r.provider {
        ProviderChoice::OpenAiCompatible { .. } if present(env, OPENAI_API_KEY).is_some() => {
            format!("{}; {OPENAI_API_KEY} set", r.reason)
        }
        ProviderChoice::OpenAiCompatible { .. } => format!("{}; no {OPENAI_API_KEY}, sending no key", r.reason),
        _ => r.reason,
    };
    Ok((config, reason))
}

/// The process environment, for [`resolve_provider`].
#[cfg(not(target_arch = "wasm32"))]
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests;
