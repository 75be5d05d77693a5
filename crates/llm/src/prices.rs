//! Prices from the provider's model list (`GET {base}/models`), so a user
//! need not type them: OpenRouter lists `pricing.prompt` and
//! `pricing.completion` in USD per token; other OpenAI-compatible servers
//! usually list no prices, and Cloudflare's routes have no such list.

use crate::provider::ProviderConfig;
use crate::transport::{HttpRequest, Transport};

/// USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelPrices {
    pub input: f64,
    pub output: f64,
}

/// The model-list URL of a provider that has one.
pub fn models_url(config: &ProviderConfig) -> Option<String> {
    match config {
        ProviderConfig::OpenRouter { base_url, .. } | ProviderConfig::OpenAiCompatible { base_url, .. } => {
            Some(format!("{}/models", base_url.trim().trim_end_matches('/')))
        }
        ProviderConfig::Cloudflare { .. } | ProviderConfig::CloudflareGateway { .. } => None,
    }
}

/// One model of a provider's list, with its prices when the list gives them.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedModel {
    pub id: String,
    pub prices: Option<ModelPrices>,
}

/// Every model of a model-list body, in the list's order.
pub fn parse_models(body: &str) -> Result<Vec<ListedModel>, String> {
    let json: serde_json::Value = serde_json::from_str(body).map_err(|e| format!("the model list is not JSON: {e}"))?;
    let list = json.get("data").and_then(|d| d.as_array()).ok_or("the model list has no `data` array")?;
    Ok(list
        .iter()
        .filter_map(|entry| {
            let id = entry.get("id")?.as_str()?.trim();
            // Per-token prices, written as strings by OpenRouter (numbers accepted too).
            let per_token = |key: &str| -> Option<f64> {
                let v = entry.get("pricing")?.get(key)?;
                v.as_f64().or_else(|| v.as_str()?.trim().parse().ok()).filter(|p: &f64| p.is_finite() && *p >= 0.0)
            };
            let prices = match (per_token("prompt"), per_token("completion")) {
                (Some(i), Some(o)) => Some(ModelPrices { input: per_million(i), output: per_million(o) }),
                _ => None,
            };
            (!id.is_empty()).then(|| ListedModel { id: id.to_owned(), prices })
        })
        .collect())
}

/// The prices of `model` in a model-list body; `Ok(None)` when the list
/// does not name the model or gives it no prices.
pub fn parse_prices(body: &str, model: &str) -> Result<Option<ModelPrices>, String> {
    Ok(parse_models(body)?.into_iter().find(|m| m.id == model).and_then(|m| m.prices))
}

/// USD per token → per million tokens, rounded to a millionth of a dollar
/// (`0.00000015` is `0.15`, not `0.15000000000000002`).
fn per_million(per_token: f64) -> f64 {
    (per_token * 1e12).round() / 1e6
}

/// Reads the provider's model list (`Ok(empty)` for a provider without one).
pub async fn model_list<T: Transport>(transport: &T, config: &ProviderConfig) -> Result<Vec<ListedModel>, String> {
    let Some(url) = models_url(config) else { return Ok(Vec::new()) };
    // OpenRouter's list is public: no key is sent for it (and none leaves for a read).
    let headers = match config {
        ProviderConfig::OpenAiCompatible { .. } => {
            config.headers().into_iter().filter(|(k, _)| k == "authorization").collect()
        }
        _ => Vec::new(),
    };
    let request = HttpRequest { method: "GET".into(), url: url.clone(), headers, body: String::new() };
    let response = transport.send(request).await.map_err(|e| format!("{url}: {e}"))?;
    if response.status != 200 {
        return Err(format!("{url}: HTTP {}", response.status));
    }
    parse_models(&response.body)
}

/// Asks the provider's model list for `model`'s prices.
pub async fn model_prices<T: Transport>(
    transport: &T,
    config: &ProviderConfig,
    model: &str,
) -> Result<Option<ModelPrices>, String> {
    if models_url(config).is_none() {
        return Ok(None);
    }
    Ok(model_list(transport, config).await?.into_iter().find(|m| m.id == model).and_then(|m| m.prices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeTransport;
    use crate::transport::HttpResponse;

    const LIST: &str = r#"{"data":[{"id":"a/b","pricing":{"prompt":"0.00000015","completion":"0.0000006"}},{"id":"c/free","pricing":{"prompt":"0","completion":"0"}},{"id":"d/none"}]}"#;

    #[test]
    fn prices_are_read_per_million_tokens() {
        let p = parse_prices(LIST, "a/b").unwrap().unwrap();
        assert_eq!((p.input, p.output), (0.15, 0.6));
        assert_eq!(format!("{}", p.input), "0.15");
        assert_eq!(parse_prices(LIST, "c/free").unwrap(), Some(ModelPrices { input: 0.0, output: 0.0 }));
        assert_eq!(parse_prices(LIST, "d/none").unwrap(), None);
        assert_eq!(parse_prices(LIST, "x/unknown").unwrap(), None);
        assert!(parse_prices("<html>", "a/b").unwrap_err().contains("not JSON"));
        assert!(parse_prices("{}", "a/b").unwrap_err().contains("`data`"));
        let ids: Vec<(String, bool)> =
            parse_models(LIST).unwrap().into_iter().map(|m| (m.id, m.prices.is_some())).collect();
        assert_eq!(ids, vec![("a/b".into(), true), ("c/free".into(), true), ("d/none".into(), false)]);
    }

    #[test]
    fn the_list_is_asked_without_the_openrouter_key() {
        let fake = FakeTransport::new();
        fake.reply(HttpResponse { status: 200, headers: vec![], body: LIST.into() });
        let config = ProviderConfig::openrouter("sk-or-secret");
        let p = futures::executor::block_on(model_prices(&fake, &config, "a/b")).unwrap();
        assert!(p.is_some());
        let sent = fake.requests();
        assert_eq!(sent[0].method, "GET");
        assert!(sent[0].url.ends_with("/models"), "{}", sent[0].url);
        assert!(sent[0].headers.is_empty(), "no key for a public list");
        let cf = ProviderConfig::cloudflare_gateway("t", "acc", "gw");
        assert_eq!(futures::executor::block_on(model_prices(&fake, &cf, "a/b")).unwrap(), None);
        assert_eq!(fake.count(), 1, "no request for a provider without a list");
    }

    #[test]
    fn a_refusal_names_the_url_and_status() {
        let fake = FakeTransport::new();
        fake.reply(HttpResponse { status: 404, headers: vec![], body: String::new() });
        let config = ProviderConfig::openai_compatible("http://127.0.0.1:9/v1", None).unwrap();
        let e = futures::executor::block_on(model_prices(&fake, &config, "a/b")).unwrap_err();
        assert_eq!(e, "http://127.0.0.1:9/v1/models: HTTP 404");
    }
}
