//! The plan: settings, totals (as `explain --dry-run`), a chart of calls and
//! tokens per level and per layer, and the walk as a paged, filterable table.

use super::state::{group, Load, Planning, Ui, PAGE};
use crate::protocol::{Figures, PlanSettings, PlanView};
use leptos::prelude::*;

fn num<T: std::str::FromStr>(s: &str) -> Option<T> {
    s.trim().parse().ok()
}

#[component]
pub fn PlanPanel() -> impl IntoView {
    view! {
        <section id="plan" class="panel" aria-labelledby="plan-title">
            <h2 id="plan-title">"Plan"</h2>
            <PlanStatus />
            <Settings />
            <details id="plan-details">
                <summary>"Plan details: per level, per layer, every unit"</summary>
                <PlanFigures />
                <Table />
            </details>
        </section>
    }
}

#[component]
fn Settings() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let s = ui.settings;
    let set = move |f: fn(&mut PlanSettings, &str), v: String| s.update(|s| f(s, &v));
    view! {
        <details id="settings">
            <summary>"Plan settings: depth, source lines, cycles, scope, a cap on calls"</summary>
            <div class="form">
                <label>"Depth "
                    <select id="set-depth" on:change=move |ev| set(|s, v| s.depth = num(v).unwrap_or(1), event_target_value(&ev))>
                        <option value="1" selected=move || s.get().depth == 1>"1: direct dependencies"</option>
                        <option value="2" selected=move || s.get().depth == 2>"2: and theirs"</option>
                    </select>
                </label>
                <label>"Max lines of source per unit "
                    <input id="set-max-lines" type="number" min="1" prop:value=move || s.get().max_lines.to_string()
                        on:change=move |ev| set(|s, v| s.max_lines = num(v).unwrap_or(0), event_target_value(&ev)) />
                </label>
                <label>"Largest cycle asked at once "
                    <input id="set-max-scc" type="number" min="1" prop:value=move || s.get().max_scc.to_string()
                        on:change=move |ev| set(|s, v| s.max_scc = num(v).unwrap_or(0), event_target_value(&ev)) />
                </label>
                <label>"Max calls "
                    <input id="set-max-calls" type="number" min="1" placeholder="no cap"
                        prop:value=move || s.get().max_calls.map(|c| c.to_string()).unwrap_or_default()
                        on:change=move |ev| set(|s, v| s.max_calls = if v.trim().is_empty() { None } else { Some(num(v).unwrap_or(0)) }, event_target_value(&ev)) />
                </label>
                <label class="wide">"Scope (module or type ids, one per line; empty: everything) "
                    <textarea id="set-scope" rows="2" placeholder="java:com.acme.order"
                        prop:value=move || s.get().scope.join("\n")
                        on:change=move |ev| set(|s, v| s.scope = v.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect(), event_target_value(&ev))></textarea>
                </label>
                <ScopePicker />
                <label><input id="set-force" type="checkbox" prop:checked=move || s.get().force
                    on:change=move |ev| s.update(|s| s.force = event_target_checked(&ev)) />" Force: explain again what is already explained"</label>
                <label><input id="set-retry" type="checkbox" prop:checked=move || s.get().retry_failed
                    on:change=move |ev| s.update(|s| s.retry_failed = event_target_checked(&ev)) />" Only the recorded failures (and what depends on them)"</label>
                <button id="plan-button" on:click=move |_| ui.plan() disabled=move || !matches!(ui.load.get(), Load::Loaded(_)) || ui.running_now()>"Plan again"</button>
                <p class="hint wide">"Every change plans again at once; the summary above follows."</p>
            </div>
        </details>
    }
}

/// Find modules and types by name and add them to the scope.
#[component]
fn ScopePicker() -> impl IntoView {
    let ui = expect_context::<Ui>();
    view! {
        <div class="scope-picker wide">
            <label>"Add to the scope: "
                <input id="scope-find" type="search" placeholder="a module or type name"
                    on:input=move |ev| super::link::send(&crate::protocol::ToWorker::SuggestScope { text: event_target_value(&ev) }) />
            </label>
            <ul id="scope-suggestions">
                {move || {
                    let (ids, matching) = ui.suggestions.get();
                    let more = matching.saturating_sub(ids.len() as u64);
                    let items = ids.into_iter().map(|id| {
                        let add = id.clone();
                        view! {
                            <li><button class="add-scope" on:click=move |_| ui.settings.update(|s| {
                                if !s.scope.contains(&add) { s.scope.push(add.clone()); }
                            })>"+"</button>" "<code>{id}</code></li>
                        }
                    }).collect::<Vec<_>>();
                    view! { {items} {(more > 0).then(|| view! { <li class="hint">{format!("… and {more} more: type more of the name")}</li> })} }
                }}
            </ul>
        </div>
    }
}

fn figures_row(name: String, f: Figures) -> impl IntoView {
    view! {
        <tr>
            <th scope="row">{name}</th>
            <td data-label="units">{group(f.units)}</td>
            <td data-label="calls">{group(f.calls)}</td>
            <td data-label="prompt tokens">{group(f.prompt_tokens)}</td>
            <td data-label="completion tokens">{group(f.completion_tokens)}</td>
        </tr>
    }
}

/// Bars of calls per layer (the widest layer is full width).
fn layer_chart(p: &PlanView) -> impl IntoView {
    let max = p.by_layer.iter().map(|f| f.calls.max(f.units)).max().unwrap_or(1).max(1) as f64;
    // At most 60 bars: layers are bucketed beyond that.
    let per = p.by_layer.len().div_ceil(60).max(1);
    let bars: Vec<_> = p
        .by_layer
        .chunks(per)
        .enumerate()
        .map(|(i, chunk)| {
            let calls: u64 = chunk.iter().map(|f| f.calls).sum();
            let units: u64 = chunk.iter().map(|f| f.units).sum();
            let tokens: u64 = chunk.iter().map(|f| f.prompt_tokens + f.completion_tokens).sum();
            let first = i * per;
            let label = if per == 1 {
                format!("layer {first}")
            } else {
                format!("layers {first}–{}", first + chunk.len() - 1)
            };
            let title = format!("{label}: {} units, {} calls, ~{} tokens", group(units), group(calls), group(tokens));
            let units_w = format!("width: {:.1}%", units as f64 / (max * per as f64) * 100.0);
            let calls_w = format!("width: {:.1}%", calls as f64 / (max * per as f64) * 100.0);
            view! {
                <div class="bar-row" title=title.clone()>
                    <span class="bar-label">{label}</span>
                    <span class="bars">
                        <span class="bar units" style=units_w></span>
                        <span class="bar calls" style=calls_w></span>
                    </span>
                    <span class="bar-value">{format!("{} / {}", group(units), group(calls))}</span>
                </div>
            }
        })
        .collect();
    view! {
        <figure id="layer-chart">
            <figcaption>"Units (light) and calls (dark) per layer, leaves first"</figcaption>
            {bars}
        </figure>
    }
}

#[component]
fn PlanStatus() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || match ui.planning.get() {
        Planning::Idle => ().into_any(),
        Planning::Running => view! { <p id="plan-status" data-state="planning">"planning…"</p> }.into_any(),
        Planning::Failed(message) => view! {
            <div id="plan-status" class="error" role="alert" data-state="failed">
                <p>"The model could not be planned."</p>
                <p class="error-text">{message}</p>
            </div>
        }
        .into_any(),
        Planning::Planned(p) => {
            let statuses = p
                .by_status
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(s, n)| format!("{s} {}", group(*n)))
                .collect::<Vec<_>>()
                .join(" · ");
            view! {
                <div
                    id="plan-status"
                    data-state="planned"
                    data-millis=p.millis.to_string()
                    data-wasm-memory=p.wasm_memory_bytes.to_string()
                    data-units=p.total.units.to_string()
                    data-calls=p.total.calls.to_string()
                    data-layers=p.layers.to_string()
                    data-templated=p.status("template").to_string()
                    data-reused=p.status("reuse").to_string()
                >
                    <p class="totals">{p.describe()}</p>
                    <p class="hint">{format!("by status: {statuses} · {} cycle unit(s)", group(p.cycles))}</p>
                    {p.notes.iter().map(|n| view! { <p class="hint note">{n.clone()}</p> }).collect::<Vec<_>>()}
                </div>
            }
            .into_any()
        }
    }
}

/// The plan per level and per layer.
#[component]
fn PlanFigures() -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        let Planning::Planned(p) = ui.planning.get() else { return None };
        Some(view! {
            <div class="table-wrap">
                <table id="level-totals" class="figures-table cards">
                    <thead><tr><th>"level"</th><th>"units"</th><th>"calls"</th><th>"prompt tokens"</th><th>"completion tokens"</th></tr></thead>
                    <tbody>
                        {p.by_level.iter().map(|(l, f)| figures_row(l.clone(), *f)).collect::<Vec<_>>()}
                        {figures_row("all".into(), p.total)}
                    </tbody>
                </table>
            </div>
            {layer_chart(&p)}
        })
    }
}

#[component]
fn Table() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let q = ui.query;
    let refetch = move || ui.fetch_rows();
    let planned = move || matches!(ui.planning.get(), Planning::Planned(_));
    let filter = move |f: fn(&mut crate::protocol::RowQuery, String), v: String| {
        q.update(|q| {
            f(q, v);
            q.offset = 0;
        });
        refetch();
    };
    let page_by = move |delta: i64| {
        q.update(|q| q.offset = (q.offset as i64 + delta * PAGE as i64).max(0) as u64);
        refetch();
    };
    let matching = move || ui.rows.get().map_or(0, |p| p.matching);
    view! {
        <Show when=planned>
            <div id="plan-table-wrap">
                <div class="filters">
                    <label>"Level "
                        <select id="filter-level" on:change=move |ev| filter(|q, v| q.level = Some(v).filter(|v| !v.is_empty()), event_target_value(&ev))>
                            <option value="">"all"</option>
                            {insights::vocab::Level::ALL.iter().map(|l| view! { <option value=l.as_str()>{l.as_str()}</option> }).collect::<Vec<_>>()}
                        </select>
                    </label>
                    <label>"Status "
                        <select id="filter-status" on:change=move |ev| filter(|q, v| q.status = Some(v).filter(|v| !v.is_empty()), event_target_value(&ev))>
                            <option value="">"all"</option>
                            {insights::plan::StepStatus::ALL.iter().map(|s| view! { <option value=s.as_str()>{s.as_str()}</option> }).collect::<Vec<_>>()}
                        </select>
                    </label>
                    <label>"Unit contains "
                        <input id="filter-text" type="search" on:input=move |ev| filter(|q, v| q.text = v, event_target_value(&ev)) />
                    </label>
                    <span id="rows-matching">{move || format!("{} matching", group(matching()))}</span>
                </div>
                <table id="plan-table" class="figures-table cards">
                    <thead>
                        <tr><th>"#"</th><th>"layer"</th><th>"level"</th><th>"unit"</th><th>"cycle"</th><th>"status"</th><th>"calls"</th><th>"tokens (in + out)"</th></tr>
                    </thead>
                    <tbody>
                        {move || ui.rows.get().map(|p| p.rows.into_iter().map(|r| { let (st, lv) = (r.status.clone(), r.level.clone()); view! {
                            <tr data-status=st data-level=lv>
                                <td data-label="#">{group(r.step + 1)}</td>
                                <td data-label="layer">{group(r.layer as u64)}</td>
                                <td data-label="level">{r.level}</td>
                                <td class="unit">{r.unit}</td>
                                <td data-label="cycle">{(r.members > 1).then(|| format!("{} members", group(r.members as u64)))}</td>
                                <td data-label="status">{r.status}</td>
                                <td data-label="calls">{group(r.calls)}</td>
                                <td data-label="tokens (in + out)">{format!("{} + {}", group(r.prompt_tokens), group(r.completion_tokens))}</td>
                            </tr>
                        }}).collect::<Vec<_>>())}
                    </tbody>
                </table>
                <div class="pager">
                    <button id="rows-prev" on:click=move |_| page_by(-1) disabled=move || { q.get().offset == 0 }>"previous"</button>
                    <span>{move || {
                        let o = q.get().offset;
                        let m = matching();
                        if m == 0 { "no rows".to_owned() } else { format!("rows {}–{} of {}", o + 1, (o + PAGE).min(m), group(m)) }
                    }}</span>
                    <button id="rows-next" on:click=move |_| page_by(1) disabled=move || { q.get().offset + PAGE >= matching() }>"next"</button>
                </div>
            </div>
        </Show>
    }
}
