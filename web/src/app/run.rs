//! Price, provider and key, the confirmation, and the run: live progress,
//! pause / resume / stop, the failures and "retry failed".

use super::link::{send, storage};
use super::state::{group, Planning, ProviderForm, Running, Ui};
use crate::protocol::{PlanView, Prices, ProviderSettings, RunRequest, ToWorker};
use leptos::prelude::*;

/// localStorage keys. The key is stored only after an explicit opt-in.
const SAVED_SETTINGS: &str = "codegraph-insights.provider";
const SAVED_KEY: &str = "codegraph-insights.key";

/// Restores the provider form (non-secret fields always; the key only if
/// the user asked to remember it on this device).
pub fn restore_provider(p: &ProviderForm) {
    let Some(s) = storage() else { return };
    if let Some(saved) = s.get_item(SAVED_SETTINGS).ok().flatten() {
        let fields: Vec<&str> = saved.split('\u{1f}').collect();
        let field = |i: usize| fields.get(i).map(|v| v.to_string()).unwrap_or_default();
        if fields.len() >= 7 {
            p.kind.set(field(0));
            p.account.set(field(1));
            p.gateway.set(field(2));
            p.base_url.set(field(3));
            p.price_in.set(field(4));
            p.price_out.set(field(5));
            p.concurrency.set(field(6));
        }
        let mode = field(7);
        if llm::OutputMode::CHOICES.contains(&mode.as_str()) {
            p.output_mode.set(mode);
        }
    }
    if let Some(key) = s.get_item(SAVED_KEY).ok().flatten() {
        p.key.set(key);
        p.remember.set(true);
    }
}

fn save_provider(p: &ProviderForm) {
    let Some(s) = storage() else { return };
    let fields = [
        p.kind.get_untracked(),
        p.account.get_untracked(),
        p.gateway.get_untracked(),
        p.base_url.get_untracked(),
        p.price_in.get_untracked(),
        p.price_out.get_untracked(),
        p.concurrency.get_untracked(),
        p.output_mode.get_untracked(),
    ];
    let _ = s.set_item(SAVED_SETTINGS, &fields.join("\u{1f}"));
    if p.remember.get_untracked() {
        let _ = s.set_item(SAVED_KEY, &p.key.get_untracked());
    }
}

fn forget_key(p: &ProviderForm) {
    if let Some(s) = storage() {
        let _ = s.remove_item(SAVED_KEY);
    }
    p.remember.set(false);
    p.key.set(String::new());
}

/// What each structured-output choice means, for the select.
fn output_mode_label(mode: &str) -> &'static str {
    match mode {
        "json-schema" => "json-schema (strict schema: hosted providers)",
        "json-object-schema" => "json-object-schema (bounded schema as a grammar: llama.cpp servers)",
        "json-object" => "json-object (any JSON object; schema in the prompt)",
        "prompt-only" => "prompt-only (schema in the prompt only)",
        _ => "detect (negotiate with the server)",
    }
}

fn prices(p: &ProviderForm) -> Option<Prices> {
    let input = p.price_in.get().trim().parse::<f64>().ok()?;
    let output = p.price_out.get().trim().parse::<f64>().ok()?;
    Some(Prices { input, output })
}

fn provider_settings(p: &ProviderForm) -> ProviderSettings {
    let key = p.key.get_untracked();
    match p.kind.get_untracked().as_str() {
        "openrouter" => ProviderSettings::OpenRouter { key },
        "cloudflare-gateway" => ProviderSettings::CloudflareGateway {
            token: key,
            account: p.account.get_untracked(),
            gateway: p.gateway.get_untracked(),
        },
        "openai-compatible" => ProviderSettings::OpenaiCompatible { base_url: p.base_url.get_untracked(), key },
        _ => ProviderSettings::Demo,
    }
}

fn request(ui: &Ui) -> RunRequest {
    let p = &ui.provider;
    RunRequest {
        settings: ui.settings.get_untracked(),
        provider: provider_settings(p),
        concurrency: p.concurrency.get_untracked().trim().parse().unwrap_or(4).clamp(1, 32),
        max_tokens: p.max_tokens.get_untracked().trim().parse().ok(),
        prices: prices(p),
        output_mode: p.output_mode.get_untracked(),
    }
}

fn start(ui: Ui) {
    ui.confirm.set(false);
    save_provider(&ui.provider);
    ui.running.set(Running::Starting);
    send(&ToWorker::Run { request: request(&ui) });
}

fn cost_text(p: &PlanView, prices: Option<Prices>, demo: bool) -> String {
    if demo {
        return "free with the offline demo".into();
    }
    match p.cost(prices) {
        Some(c) => format!("about ${c:.4}"),
        None => "enter prices per million tokens to see the cost".into(),
    }
}

#[component]
pub fn RunPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let planned = move || match ui.planning.get() {
        Planning::Planned(p) => Some(p),
        _ => None,
    };
    view! {
        <section id="run" class="panel">
            <h2>"3. Price, key and run"</h2>
            <Provider />
            {move || planned().map(|p| {
                let pr = prices(&ui.provider);
                view! {
                    <p id="estimate" data-calls=p.total.calls.to_string()>
                        {format!(
                            "{} call(s), ~{} input and ~{} output tokens: {}",
                            group(p.total.calls), group(p.total.prompt_tokens), group(p.total.completion_tokens), cost_text(&p, pr, ui.provider.kind.get() == "demo")
                        )}
                    </p>
                    <button id="run-button"
                        disabled=move || ui.is_running() || ui.store.get().is_none_or(|s| s.read_only.is_some())
                        on:click=move |_| {
                            if let Some(missing) = provider_settings(&ui.provider).missing() {
                                ui.notice.set(Some(format!("the run needs {missing}")));
                            } else {
                                ui.confirm.set(true);
                            }
                        }>
                        "Run…"
                    </button>
                }
            })}
            <Confirm />
            <Progress />
            // What a screen reader announces of a run: its state changes, not every step.
            <p id="run-live" class="sr-only" aria-live="polite">{move || match ui.running.get() {
                Running::Idle => String::new(),
                Running::Starting => "The run is starting.".to_owned(),
                Running::Failed(m) => format!("The run could not start: {m}"),
                Running::Going(p) if p.stopping => "The run is stopping.".to_owned(),
                Running::Going(p) if p.paused => "The run is paused.".to_owned(),
                Running::Going(_) => "The run is going.".to_owned(),
                Running::Finished(r) => format!(
                    "The run {}: {} explained, {} failed, {} calls.",
                    if r.aborted.is_some() { "was stopped by the provider" } else if r.stopped { "was stopped" } else { "finished" },
                    r.counts.llm, r.counts.failed, r.counts.calls
                ),
            }}</p>
        </section>
    }
}

#[component]
fn Provider() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let p = ui.provider;
    let kind = move || p.kind.get();
    view! {
        <div id="provider" class="form">
            <label>"Provider "
                <select id="provider-kind" on:change=move |ev| p.kind.set(event_target_value(&ev))>
                    <option value="demo" selected=move || kind() == "demo">"Offline demo (no network, not an LLM)"</option>
                    <option value="openrouter" selected=move || kind() == "openrouter">"OpenRouter"</option>
                    <option value="cloudflare-gateway" selected=move || kind() == "cloudflare-gateway">"Cloudflare AI Gateway"</option>
                    <option value="openai-compatible" selected=move || kind() == "openai-compatible">"OpenAI-compatible URL"</option>
                </select>
            </label>
            <Show when=move || kind() == "openai-compatible">
                <label>"Base URL "
                    <input id="provider-base-url" type="url" placeholder="http://127.0.0.1:8000/v1" prop:value=move || p.base_url.get()
                        on:input=move |ev| p.base_url.set(event_target_value(&ev)) />
                </label>
            </Show>
            <Show when=move || kind() == "cloudflare-gateway">
                <label>"Account id " <input id="provider-account" type="text" prop:value=move || p.account.get() on:input=move |ev| p.account.set(event_target_value(&ev)) /></label>
                <label>"Gateway id " <input id="provider-gateway" type="text" prop:value=move || p.gateway.get() on:input=move |ev| p.gateway.set(event_target_value(&ev)) /></label>
            </Show>
            <Show when=move || kind() != "demo">
                <label>{move || if kind() == "cloudflare-gateway" { "API token " } else { "API key " }}
                    <input id="provider-key" type="password" autocomplete="off" prop:value=move || p.key.get()
                        on:input=move |ev| p.key.set(event_target_value(&ev)) />
                </label>
                <label><input id="remember-key" type="checkbox" prop:checked=move || p.remember.get()
                    on:change=move |ev| p.remember.set(event_target_checked(&ev)) />" Remember the key on this device"</label>
                <button id="forget-key" on:click=move |_| forget_key(&p)>"Forget the key"</button>
                <p class="hint">
                    "The key stays in this tab's memory and goes only to the provider; it is never written to the store, the side-car, a log or an address. "
                    "OpenRouter and Cloudflare's AI Gateway answer browsers; Cloudflare's REST API does not (CORS), so use the gateway route or the codegraph-insights CLI."
                </p>
            </Show>
            <label>"Price in ($/M tokens) " <input id="price-in" type="text" inputmode="decimal" prop:value=move || p.price_in.get() on:input=move |ev| p.price_in.set(event_target_value(&ev)) /></label>
            <label>"Price out ($/M tokens) " <input id="price-out" type="text" inputmode="decimal" prop:value=move || p.price_out.get() on:input=move |ev| p.price_out.set(event_target_value(&ev)) /></label>
            <button id="fetch-prices" on:click=move |_| {
                let model = ui.settings.get_untracked().model;
                send(&ToWorker::FetchPrices { provider: provider_settings(&p), model });
            }>"Prices from the provider"</button>
            <label>"Calls at once " <input id="concurrency" type="number" min="1" max="32" prop:value=move || p.concurrency.get() on:input=move |ev| p.concurrency.set(event_target_value(&ev)) /></label>
            <label>"Max output tokens " <input id="max-tokens" type="number" min="1" placeholder="provider default" prop:value=move || p.max_tokens.get() on:input=move |ev| p.max_tokens.set(event_target_value(&ev)) /></label>
            <Show when=move || kind() != "demo">
                <label>"Structured output "
                    <select id="output-mode" on:change=move |ev| p.output_mode.set(event_target_value(&ev))>
                        {llm::OutputMode::CHOICES.into_iter().map(|m| view! {
                            <option value=m selected=move || p.output_mode.get() == m>{output_mode_label(m)}</option>
                        }).collect_view()}
                    </select>
                </label>
            </Show>
        </div>
    }
}

#[component]
fn Confirm() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        let Planning::Planned(p) = ui.planning.get() else { return None };
        ui.confirm.get().then(|| {
            let provider = provider_settings(&ui.provider);
            let who = match &provider {
                ProviderSettings::Demo => "the offline demo (no network, canned answers)".to_owned(),
                ProviderSettings::OpenaiCompatible { base_url, .. } => format!("the OpenAI-compatible server at {base_url}"),
                other => other.name().to_owned(),
            };
            let s = &p.settings;
            view! {
                <div id="confirm" class="dialog" role="dialog" aria-modal="true">
                    <h3>"Send these calls?"</h3>
                    <p>{format!(
                        "{} call(s) to {who}: ~{} input and ~{} output tokens, {}.",
                        group(p.total.calls), group(p.total.prompt_tokens), group(p.total.completion_tokens), cost_text(&p, prices(&ui.provider), matches!(provider, ProviderSettings::Demo))
                    )}</p>
                    <p class="hint">{format!(
                        "{} units: {} templated, {} reused, {} to explain; model {}{}. Every finished unit is saved in this browser at once.",
                        p.total.units, p.status("template"), p.status("reuse"), p.status("llm"), s.model,
                        s.rollup_model.as_ref().map(|r| format!(", roll-up {r}")).unwrap_or_default()
                    )}</p>
                    {(!matches!(provider, ProviderSettings::Demo) && p.facts_only_units > 0).then(|| view! {
                        <p id="confirm-no-source" class="warning">{format!(
                            "No source: {} unit(s) will be explained from the model's facts only. Explaining them again \
                             with the source later is paid again; load the source archive first to avoid that.",
                            group(p.facts_only_units)
                        )}</p>
                    })}
                    <button id="confirm-run" on:click=move |_| start(ui)>{
                        if !matches!(provider, ProviderSettings::Demo) && p.facts_only_units > 0 { "Run without source" } else { "Run" }
                    }</button>
                    <button id="cancel-run" on:click=move |_| ui.confirm.set(false)>"Cancel"</button>
                </div>
            }
        })
    }
}

fn pct(done: u64, total: u64) -> f64 {
    if total == 0 {
        100.0
    } else {
        done as f64 * 100.0 / total as f64
    }
}

#[component]
fn Progress() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        match ui.running.get() {
        Running::Idle => ().into_any(),
        Running::Starting => view! { <p id="run-status" data-state="starting">"starting the run…"</p> }.into_any(),
        Running::Failed(m) => view! {
            <div id="run-status" class="error" role="alert" data-state="failed"><p>"The run could not start."</p><p class="error-text">{m}</p></div>
        }
        .into_any(),
        Running::Going(p) => {
            let c = p.counts;
            let state = if p.stopping {
                "stopping"
            } else if p.paused {
                "paused"
            } else {
                "running"
            };
            view! {
                <div id="run-status" data-state=state data-done=c.done.to_string() data-total=c.total.to_string()>
                    <progress max=c.total as f64 value=c.done as f64></progress>
                    <p>{format!(
                        "{state}: {} of {} steps · {} explained · {} templated · {} reused · {} failed · {} skipped · {} remaining",
                        group(c.done), group(c.total), c.llm, c.template, c.reused, c.failed, c.skipped, c.total - c.done
                    )}</p>
                    <p>{format!(
                        "{} calls · {} + {} tokens{}",
                        c.calls, group(c.prompt_tokens), group(c.completion_tokens),
                        c.cost.map(|c| format!(" · ${c:.4}")).unwrap_or_default()
                    )}</p>
                    {p.output_mode.clone().map(|m| view! {
                        <p id="run-mode" class="hint" data-mode=m.split(' ').next().unwrap_or_default().to_owned()>{format!("structured output: {m}")}</p>
                    })}
                    <div class="controls">
                        {if p.paused {
                            view! { <button id="resume-run" on:click=move |_| send(&ToWorker::Resume)>"Resume"</button> }.into_any()
                        } else {
                            view! { <button id="pause-run" on:click=move |_| send(&ToWorker::Pause)>"Pause"</button> }.into_any()
                        }}
                        <button id="stop-run" on:click=move |_| send(&ToWorker::Stop) disabled=p.stopping>"Stop"</button>
                    </div>
                    <details class="layers">
                        <summary>"per layer"</summary>
                        {p.layers.iter().enumerate().map(|(i, (d, t))| view! {
                            <div class="bar-row"><span class="bar-label">{format!("layer {i}")}</span>
                                <span class="bars"><span class="bar calls" style=format!("width: {:.1}%", pct(*d, *t))></span></span>
                                <span class="bar-value">{format!("{d}/{t}")}</span></div>
                        }).collect::<Vec<_>>()}
                    </details>
                    {(!p.in_flight.is_empty()).then(|| view! {
                        <p class="hint">"asking: "{p.in_flight.join(" · ")}</p>
                    })}
                    <pre class="recent">{p.recent.join("\n")}</pre>
                </div>
            }
            .into_any()
        }
        Running::Finished(r) => {
            let c = r.counts;
            let failures = r.failures.clone();
            let state = if r.aborted.is_some() {
                "aborted"
            } else if r.stopped {
                "stopped"
            } else {
                "finished"
            };
            view! {
                <div id="run-status" data-state=state data-records=r.records.to_string() data-failed=c.failed.to_string() data-calls=c.calls.to_string()>
                    <p class="totals">{format!(
                        "run {state} in {:.1} s: {} explained · {} templated · {} reused · {} failed · {} skipped; {} calls, {} + {} tokens{}; the store holds {} records",
                        r.millis / 1000.0, c.llm, c.template, c.reused, c.failed, c.skipped, c.calls,
                        group(c.prompt_tokens), group(c.completion_tokens),
                        c.cost.map(|c| format!(", ${c:.4}")).unwrap_or_default(), group(r.records)
                    )}</p>
                    {(!r.output_modes.is_empty()).then(|| {
                        let modes: Vec<String> = r.output_modes.iter().map(|(model, mode)| format!("{mode} ({model})")).collect();
                        let first = r.output_modes[0].1.clone();
                        view! { <p id="run-mode" class="hint" data-mode=first>{format!("structured output: {}", modes.join(", "))}</p> }
                    })}
                    {r.aborted.map(|a| view! {
                        <div id="run-aborted" class="error" role="alert">
                            <p>{format!("The provider refused a call (status {}) at {}: {}", a.status.map_or("?".into(), |s| s.to_string()), a.unit, a.message)}</p>
                            <p>{format!("{}. {} unit(s) were not attempted; run again once fixed and it continues where it stopped.", a.advice, a.not_attempted)}</p>
                        </div>
                    })}
                    {r.stopped.then(|| view! { <p class="hint">"Stopped: every unit finished before the stop is saved; run again to continue."</p> })}
                    {(!r.store_errors.is_empty()).then(|| view! {
                        <p id="store-refused" class="error" role="alert">
                            "The browser's store refused a write (storage full or an I/O error), so the run stopped: no new call was sent. \
                             The answers it could not keep were downloaded as a rescue side-car (.rescue.insights.jsonl); once there is \
                             space again, import it (it is merged, nothing is removed) and run again to continue."
                        </p>
                    })}
                    {r.store_errors.iter().map(|e| view! { <p class="error">{format!("store: {e}")}</p> }).collect::<Vec<_>>()}
                    {(!failures.is_empty()).then(|| view! {
                        <div id="failures">
                            <h3>{format!("{} failed unit(s)", failures.len())}</h3>
                            {failures.iter().any(|f| f.message.contains("CORS")).then(|| view! {
                                <p class="warning">"The browser could not reach the provider (network or CORS). Some providers refuse calls from web pages: use a gateway route that allows them, or the codegraph-insights CLI."</p>
                            })}
                            <ul>
                                {failures.iter().map(|f| view! {
                                    <li><code>{f.id.clone()}</code>{format!(" ({}): {}{}", f.level, f.status.map(|s| format!("{s} ")).unwrap_or_default(), f.message)}</li>
                                }).collect::<Vec<_>>()}
                            </ul>
                            <button id="retry-failed" on:click=move |_| {
                                // Plans only the failures and their direct dependents; the next run uses it.
                                ui.settings.update(|s| s.retry_failed = true);
                                ui.plan();
                            }>"Retry failed"</button>
                        </div>
                    })}
                </div>
            }
            .into_any()
        }
    }
    }
}
