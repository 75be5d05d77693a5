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

/// Starts the run now. `remember`: the provider settings are saved (a run
/// the user confirmed); the demo's own tour does not overwrite them.
pub(super) fn start(ui: Ui, remember: bool) {
    ui.confirm.set(false);
    if remember {
        // A run the user confirmed: the demo's tour, if one was waiting, is over.
        ui.tour.set(super::state::Tour::Off);
        save_provider(&ui.provider);
    }
    if let Planning::Planned(p) = ui.planning.get_untracked() {
        ui.run_plan.set(Some(p));
    }
    ui.run_started.set(js_sys::Date::now());
    ui.running.set(Running::Starting);
    send(&ToWorker::Run { request: request(&ui) });
}

fn cost_text(p: &PlanView, prices: Option<Prices>, demo: bool) -> String {
    if demo {
        return "free with the offline demo".into();
    }
    match p.cost(prices) {
        Some(c) => format!("about {}", dollars(c)),
        None => "enter prices per million tokens to see the cost".into(),
    }
}

/// `$0.1234`: dollars with four decimals, everywhere on the page.
pub fn dollars(c: f64) -> String {
    format!("${c:.4}")
}

/// Asks the Worker for the provider's model list, once per provider
/// configuration (the demo has none).
fn fetch_models(ui: Ui) {
    let p = ui.provider;
    let kind = p.kind.get_untracked();
    if kind == "demo" {
        return;
    }
    // Which list: the provider, its URL, and whether a key is there (a
    // server's list may need one). A failed read is asked again next time.
    let key = format!("{kind} {} {}", p.base_url.get_untracked().trim(), !p.key.get_untracked().trim().is_empty());
    if ui.models_for.get_untracked() != key {
        ui.models_for.set(key.clone());
        ui.models.set((Vec::new(), Some("reading the provider's model list…".into())));
        send(&ToWorker::FetchModels { provider: list_settings(&p), asked_for: key });
    }
}

/// The provider settings a model list or price read needs: OpenRouter's list
/// is public, so its key stays on the page.
fn list_settings(p: &ProviderForm) -> ProviderSettings {
    match provider_settings(p) {
        ProviderSettings::OpenRouter { .. } => ProviderSettings::OpenRouter { key: String::new() },
        other => other,
    }
}

/// Fills the prices in from the provider's list when it names `model`.
pub(super) fn prices_from_list(ui: Ui, model: &str) -> bool {
    let found = ui.models.with_untracked(|(list, _)| list.iter().find(|m| m.id == model).and_then(|m| m.prices));
    if let Some(pr) = found {
        ui.provider.price_in.set(format!("{}", pr.input));
        ui.provider.price_out.set(format!("{}", pr.output));
    }
    found.is_some()
}

fn focus(id: &str) {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        if let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
            let _ = el.focus();
        }
    }
}

/// The Explain button's click: a confirmation, or what is missing, said
/// beside the control that needs it (focused).
fn ask_to_run(ui: Ui) {
    let missing = provider_settings(&ui.provider).missing_fields();
    if let Some((field, _)) = missing.first() {
        ui.show_missing.set(true);
        focus(field);
    } else {
        ui.show_missing.set(false);
        ui.confirm.set(true);
        // The dialog is below the sticky summary: bring it into view, focused.
        request_animation_frame(move || {
            if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("confirm"))
            {
                el.scroll_into_view();
            }
            focus("confirm-run");
        });
    }
}

/// The plan in four figures and the one primary action; it stays in view
/// (sticky) while the settings below change and re-plan.
#[component]
pub fn SummaryCard() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        if !matches!(ui.load.get(), super::state::Load::Loaded(_)) {
            return None;
        }
        let plan = ui.last_plan.get()?;
        let planning = matches!(ui.planning.get(), Planning::Running);
        let demo = ui.provider.kind.get() == "demo";
        let pr = prices(&ui.provider);
        let cost = if demo {
            view! { <dd id="summary-cost">"free"</dd> }.into_any()
        } else {
            match plan.cost(pr) {
                Some(c) => view! { <dd id="summary-cost">{format!("~{}", dollars(c))}</dd> }.into_any(),
                None => view! {
                    <dd id="summary-cost"><button class="link" on:click=move |_| focus("price-in")>"set a price"</button></dd>
                }
                .into_any(),
            }
        };
        let missing = provider_settings_tracked(&ui.provider);
        let show_missing = ui.show_missing.get();
        Some(view! {
            <section id="summary" class="card summary-card" aria-label="The plan in short" data-planning=planning.to_string()>
                <dl>
                    <div><dt>"units"</dt><dd id="summary-units">{group(plan.total.units)}</dd></div>
                    <div><dt>"calls"</dt><dd id="summary-calls">{group(plan.total.calls)}</dd></div>
                    <div><dt>"tokens"</dt><dd id="summary-tokens">{format!("~{}", group(plan.total.prompt_tokens + plan.total.completion_tokens))}</dd></div>
                    <div><dt>"cost"</dt>{cost}</div>
                </dl>
                <div class="go">
                    <button id="run-button" class="primary big"
                        disabled=move || ui.running_now() || ui.store.get().is_none_or(|s| s.read_only.is_some())
                        on:click=move |_| ask_to_run(ui)>
                        "Explain…"
                    </button>
                    <p id="estimate" class="hint" data-calls=plan.total.calls.to_string()>
                        {if planning { "updating the plan…".to_owned() } else { format!(
                            "{} call(s), ~{} input and ~{} output tokens: {}",
                            group(plan.total.calls), group(plan.total.prompt_tokens), group(plan.total.completion_tokens), cost_text(&plan, pr, demo)
                        ) }}
                    </p>
                    {(show_missing && !missing.is_empty()).then(|| view! {
                        <p id="run-error" class="field-error" role="alert">{format!("{} See Provider and model, below.", need_text(missing[0].0, missing[0].1))}</p>
                    })}
                </div>
            </section>
        })
    }
}

/// The run: the confirmation, the live progress and the report.
#[component]
pub fn RunPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let shown = move || ui.confirm.get() || !matches!(ui.running.get(), Running::Idle);
    view! {
        <section id="run" class="panel" class:hidden=move || !shown() aria-label="The run">
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
                    group(r.counts.llm), group(r.counts.failed), group(r.counts.calls)
                ),
            }}</p>
        </section>
    }
}

/// What the provider still needs beside `field`: a warning, an error once
/// Explain was pressed.
fn need(ui: Ui, field: &'static str) -> impl Fn() -> Option<AnyView> + Send + Sync + 'static {
    move || {
        let missing = provider_settings_tracked(&ui.provider);
        missing.into_iter().find(|(f, _)| *f == field).map(|(_, what)| {
            let id = format!("{field}-error");
            let why = need_text(field, what);
            if ui.show_missing.get() {
                view! { <p class="field-error" id=id role="alert">{why}</p> }.into_any()
            } else {
                view! { <p class="field-warn" id=id>{why}</p> }.into_any()
            }
        })
    }
}

/// A provider field the provider may still need: its label, the input, and
/// what it needs beside it (the input's description; invalid once Explain
/// was pressed).
#[component]
fn NeededField(
    id: &'static str,
    #[prop(into)] label: Signal<&'static str>,
    kind: &'static str,
    value: RwSignal<String>,
    #[prop(optional)] placeholder: Option<&'static str>,
    #[prop(optional)] autocomplete: Option<&'static str>,
    #[prop(optional)] wide: bool,
) -> impl IntoView {
    let ui = expect_context::<Ui>();
    view! {
        <div class=if wide { "field span-2" } else { "field" }><label for=id>{move || label.get()}</label>
            <input id=id type=kind placeholder=placeholder autocomplete=autocomplete prop:value=move || value.get()
                aria-describedby=described(ui, id) aria-invalid=invalid(ui, id)
                on:input=move |ev| value.set(event_target_value(&ev)) />
            {need(ui, id)}
        </div>
    }
}

/// One card for who explains: provider, model and roll-up model, key,
/// prices, and the less common knobs.
#[component]
pub fn ProviderCard() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let p = ui.provider;
    let s = ui.settings;
    let kind = move || p.kind.get();
    view! {
        <section id="provider-card" class="panel" aria-labelledby="provider-title">
            <div class="card-head">
                <h2 id="provider-title">"Provider and model"</h2>
                <p class="hint">{move || if kind() == "demo" {
                    "The offline demo writes from the code's facts; it is free and sends nothing."
                } else {
                    "The key stays in this tab's memory and goes only to the provider: never into the store, the side-car, a log or an address."
                }}</p>
            </div>
            <div id="provider" class="grid-form">
                <label class="field"><span>"Provider"</span>
                    <select id="provider-kind" on:change=move |ev| { p.kind.set(event_target_value(&ev)); ui.show_missing.set(false); }>
                        <option value="demo" selected=move || kind() == "demo">"Offline demo (no network, not an LLM)"</option>
                        <option value="openrouter" selected=move || kind() == "openrouter">"OpenRouter"</option>
                        <option value="cloudflare-gateway" selected=move || kind() == "cloudflare-gateway">"Cloudflare AI Gateway"</option>
                        <option value="openai-compatible" selected=move || kind() == "openai-compatible">"OpenAI-compatible URL"</option>
                    </select>
                </label>
                <Show when=move || kind() == "openai-compatible">
                    <NeededField id="provider-base-url" label="Base URL" kind="url" value=p.base_url
                        placeholder="http://127.0.0.1:8000/v1" wide=true />
                </Show>
                <Show when=move || kind() == "cloudflare-gateway">
                    <NeededField id="provider-account" label="Account id" kind="text" value=p.account />
                    <NeededField id="provider-gateway" label="Gateway id" kind="text" value=p.gateway />
                </Show>
                <Show when=move || kind() != "demo">
                    <NeededField id="provider-key" kind="password" value=p.key autocomplete="off"
                        label=Signal::derive(move || if kind() == "cloudflare-gateway" { "API token" } else { "API key" }) />
                </Show>
                <div class="field"><label for="set-model">"Model"</label>
                    <input id="set-model" type="text" list="model-list" autocomplete="off" prop:value=move || s.get().model
                        aria-describedby="model-list-note"
                        on:focus=move |_| fetch_models(ui)
                        on:change=move |ev| {
                            let v = event_target_value(&ev).trim().to_owned();
                            prices_from_list(ui, &v);
                            s.update(|s| s.model = v);
                        } />
                    {move || ui.models.with(|(list, note)| {
                        let text = note.clone().or_else(|| (!list.is_empty()).then(|| format!(
                            "{} models listed by the provider; picking one fills its prices in", group(list.len() as u64)
                        )));
                        view! { <p id="model-list-note" class="hint">{text}</p> }
                    })}
                </div>
                <datalist id="model-list">
                    {move || ui.models.with(|(list, _)| list.iter().map(|m| {
                        let label = m.prices.map(|pr| format!("${} in, ${} out per M tokens", pr.input, pr.output)).unwrap_or_default();
                        view! { <option value=m.id.clone()>{label}</option> }
                    }).collect_view())}
                </datalist>
                <label class="field"><span>"Roll-up model (types, modules)"</span>
                    <input id="set-rollup" type="text" list="model-list" autocomplete="off" placeholder="same as the model" prop:value=move || s.get().rollup_model.unwrap_or_default()
                        on:focus=move |_| fetch_models(ui)
                        on:change=move |ev| { let v = event_target_value(&ev); s.update(|s| s.rollup_model = Some(v.trim().to_owned()).filter(|v| !v.is_empty())) } />
                </label>
                <label class="field"><span>"Price in ($/M tokens)"</span>
                    <input id="price-in" type="text" inputmode="decimal" prop:value=move || p.price_in.get() on:input=move |ev| p.price_in.set(event_target_value(&ev)) /></label>
                <label class="field"><span>"Price out ($/M tokens)"</span>
                    <input id="price-out" type="text" inputmode="decimal" prop:value=move || p.price_out.get() on:input=move |ev| p.price_out.set(event_target_value(&ev)) /></label>
                <div class="field"><span aria-hidden="true">" "</span>
                    <button id="fetch-prices" on:click=move |_| {
                        let model = ui.settings.get_untracked().model;
                        send(&ToWorker::FetchPrices { provider: list_settings(&p), model });
                    }>"Prices from the provider"</button>
                </div>
            </div>
            <details id="provider-more">
                <summary>"More: calls at once, output cap, structured output, the key on this device"</summary>
                <div class="grid-form">
                    <label class="field"><span>"Calls at once"</span>
                        <input id="concurrency" type="number" min="1" max="32" prop:value=move || p.concurrency.get() on:input=move |ev| p.concurrency.set(event_target_value(&ev)) /></label>
                    <label class="field"><span>"Max output tokens"</span>
                        <input id="max-tokens" type="number" min="1" placeholder="provider default" prop:value=move || p.max_tokens.get() on:input=move |ev| p.max_tokens.set(event_target_value(&ev)) /></label>
                    <Show when=move || kind() != "demo">
                        <label class="field span-2"><span>"Structured output"</span>
                            <select id="output-mode" on:change=move |ev| p.output_mode.set(event_target_value(&ev))>
                                {llm::OutputMode::CHOICES.into_iter().map(|m| view! {
                                    <option value=m selected=move || p.output_mode.get() == m>{output_mode_label(m)}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <div class="field span-2">
                            <label><input id="remember-key" type="checkbox" prop:checked=move || p.remember.get()
                                on:change=move |ev| p.remember.set(event_target_checked(&ev)) />" Remember the key on this device"</label>
                            <button id="forget-key" on:click=move |_| forget_key(&p)>"Forget the key"</button>
                        </div>
                        <p class="hint wide">
                            "OpenRouter and Cloudflare's AI Gateway answer browsers; Cloudflare's REST API does not (CORS), so use the gateway route or the codegraph-insights CLI."
                        </p>
                    </Show>
                </div>
            </details>
        </section>
    }
}

/// What a field still needs, as a sentence.
fn need_text(field: &str, what: &str) -> String {
    let also = if field == "provider-key" { " (planning and reading prices work without it)" } else { "" };
    format!("Needed to explain: {what}{also}.")
}

/// The field's description (its message) and whether it is invalid (after
/// Explain was pressed), for `aria-describedby` / `aria-invalid`.
fn described(ui: Ui, field: &'static str) -> impl Fn() -> Option<String> + Send + Sync + 'static {
    move || provider_settings_tracked(&ui.provider).iter().any(|(f, _)| *f == field).then(|| format!("{field}-error"))
}

fn invalid(ui: Ui, field: &'static str) -> impl Fn() -> Option<&'static str> + Send + Sync + 'static {
    move || {
        (ui.show_missing.get() && provider_settings_tracked(&ui.provider).iter().any(|(f, _)| *f == field))
            .then_some("true")
    }
}

/// [`ProviderSettings::missing_fields`] of the form, tracking its signals.
fn provider_settings_tracked(p: &ProviderForm) -> Vec<(&'static str, &'static str)> {
    // Read every field tracked, so the messages follow the typing.
    let _ = (p.kind.get(), p.key.get(), p.account.get(), p.gateway.get(), p.base_url.get());
    provider_settings(p).missing_fields()
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
                <div id="confirm" class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-title">
                    <h3 id="confirm-title">"Send these calls?"</h3>
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
                    <button id="confirm-run" class="primary" on:click=move |_| start(ui, true)>{
                        if !matches!(provider, ProviderSettings::Demo) && p.facts_only_units > 0 { "Run without source" } else { "Run" }
                    }</button>
                    <button id="cancel-run" on:click=move |_| ui.confirm.set(false)>"Cancel"</button>
                </div>
            }
        })
    }
}

/// "about 2 min left", from the pace so far: calls when the run makes
/// calls, else units. Nothing until there is a pace to go by.
fn time_left(elapsed_ms: f64, calls: u64, est_calls: u64, done: u64, total: u64) -> String {
    let (made, owed) = if est_calls > 0 { (calls, est_calls) } else { (done, total) };
    if made < 2 || elapsed_ms < 1000.0 {
        return "estimating the time left…".into();
    }
    let secs = elapsed_ms / 1000.0 / made as f64 * owed.saturating_sub(made) as f64;
    if secs < 60.0 {
        format!("about {} s left", secs.ceil().max(1.0))
    } else if secs < 3600.0 {
        format!("about {} min left", (secs / 60.0).round())
    } else {
        format!("about {:.1} h left", secs / 3600.0)
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
            let estimate = ui.run_plan.get_untracked();
            let est_calls = estimate.as_ref().map_or(0, |e| e.total.calls);
            let est_tokens = estimate.as_ref().map_or(0, |e| e.total.prompt_tokens + e.total.completion_tokens);
            let est_cost = estimate.as_ref().and_then(|e| e.cost(prices(&ui.provider)));
            let elapsed = (js_sys::Date::now() - ui.run_started.get_untracked()).max(0.0);
            let left = time_left(elapsed, c.calls, est_calls.max(c.calls), c.done, c.total);
            view! {
                <div id="run-status" data-state=state data-done=c.done.to_string() data-total=c.total.to_string() data-calls=c.calls.to_string()>
                    <div class="card-head">
                        <h2>{match state { "stopping" => "Stopping…", "paused" => "Paused", _ => "Explaining…" }}</h2>
                        <p id="run-left" class="hint">{left}</p>
                    </div>
                    <progress max=c.total as f64 value=c.done as f64 aria-label="units finished"></progress>
                    <dl class="run-figures">
                        <div><dt>"calls"</dt><dd id="run-calls">{format!("{} of ~{}", group(c.calls), group(est_calls))}</dd></div>
                        <div><dt>"tokens spent"</dt><dd>{format!("{} of ~{}", group(c.prompt_tokens + c.completion_tokens), group(est_tokens))}</dd></div>
                        <div><dt>"cost"</dt><dd>{match (c.cost, est_cost) {
                            (Some(spent), Some(est)) => format!("{} of ~{}", dollars(spent), dollars(est)),
                            (Some(spent), None) => dollars(spent),
                            (None, _) => "no price set".to_owned(),
                        }}</dd></div>
                        <div><dt>"units"</dt><dd>{format!("{} of {}", group(c.done), group(c.total))}</dd></div>
                    </dl>
                    <p class="hint">{format!(
                        "{} explained · {} templated · {} reused · {} failed · {} skipped",
                        group(c.llm), group(c.template), group(c.reused), group(c.failed), group(c.skipped)
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
                                <span class="bar-value">{format!("{}/{}", group(*d), group(*t))}</span></div>
                        }).collect::<Vec<_>>()}
                    </details>
                    {(!p.in_flight.is_empty()).then(|| view! {
                        <p class="hint asking">"asking: "{p.in_flight.join(" · ")}</p>
                    })}
                    <pre class="recent">{p.recent.join("\n")}</pre>
                </div>
            }
            .into_any()
        }
        Running::Finished(r) => {
            let c = r.counts;
            let highlight = r.highlight.clone();
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
                    <div class="card-head">
                        <h2>{match state { "aborted" => "The provider stopped the run", "stopped" => "Run stopped", _ => "Run finished" }}</h2>
                        {highlight.map(|id| view! {
                            <button id="open-results" class="primary" on:click=move |_| ui.open_results(id.clone())>"Open the results"</button>
                        })}
                    </div>
                    <p class="totals">{format!(
                        "run {state} in {:.1} s: {} explained · {} templated · {} reused · {} failed · {} skipped; {} calls, {} + {} tokens{}; the store holds {} records",
                        r.millis / 1000.0, group(c.llm), group(c.template), group(c.reused), group(c.failed), group(c.skipped), group(c.calls),
                        group(c.prompt_tokens), group(c.completion_tokens),
                        c.cost.map(|c| format!(", {}", dollars(c))).unwrap_or_default(), group(r.records)
                    )}</p>
                    {ui.run_plan.get_untracked().map(|e| view! {
                        <p id="run-versus" class="hint">{format!(
                            "estimated ~{} calls and ~{} tokens{}; spent {} calls and {} tokens{}",
                            group(e.total.calls), group(e.total.prompt_tokens + e.total.completion_tokens),
                            e.cost(prices(&ui.provider)).map(|c| format!(" (~{})", dollars(c))).unwrap_or_default(),
                            group(c.calls), group(c.prompt_tokens + c.completion_tokens),
                            c.cost.map(|c| format!(" ({})", dollars(c))).unwrap_or_default()
                        )}</p>
                    })}
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
                                // (the settings' change re-plans)
                                ui.settings.update(|s| s.retry_failed = true);
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
