//! Explore: a question in, a compact map out (names, `file:line`, the flow,
//! dispatch, what depends on what, the explanations already bought), with
//! links into the navigator, a mode switch, and "copy as Markdown" — the
//! map is what a user pastes into an LLM chat.

use super::link::{send, storage, url_param};
use super::state::{group, Tab, Ui};
use crate::protocol::{ExploreAnswer, MapLink, NavTarget, ToWorker};
use leptos::prelude::*;

/// The user's mode setting (localStorage).
const SAVED_MODE: &str = "codegraph-insights.explore-mode";

/// `?mode=` of the address (the flag of the precedence).
fn mode_param() -> Option<String> {
    url_param("mode").filter(|m| !m.is_empty())
}

/// Asks the Worker for the map of `question`.
pub fn ask(ui: Ui, question: String) {
    ui.explore_question.set(question.clone());
    ui.explore_busy.set(true);
    send(&ToWorker::Explore { question, flag: mode_param(), setting: Some(ui.explore_mode.get_untracked()) });
}

pub fn restore_mode() -> String {
    storage().and_then(|s| s.get_item(SAVED_MODE).ok().flatten()).unwrap_or_else(|| "map".into())
}

fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

#[component]
pub fn ExplorePanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let input = RwSignal::new(ui.explore_question.get_untracked());
    let submit = move || {
        let q = input.get_untracked();
        if !q.trim().is_empty() {
            ask(ui, q);
        }
    };
    view! {
        <section id="explore" class="panel">
            <div class="form">
                <label class="wide">"Ask about the code "
                    <textarea id="explore-question" rows="2" placeholder="how is a rental priced?  ·  RentalService.finish  ·  BillingService.java:44  ·  \"a quoted phrase\""
                        prop:value=move || input.get()
                        on:input=move |ev| input.set(event_target_value(&ev))
                        on:keydown=move |ev: web_sys::KeyboardEvent| if ev.key() == "Enter" && !ev.shift_key() { ev.prevent_default(); submit(); }></textarea>
                </label>
                <label>"Mode "
                    <select id="explore-mode" on:change=move |ev| {
                        let m = event_target_value(&ev);
                        if let Some(s) = storage() { let _ = s.set_item(SAVED_MODE, &m); }
                        ui.explore_mode.set(m);
                        submit();
                    }>
                        {["map", "snippets", "source"].into_iter().map(|m| view! {
                            <option value=m selected=move || ui.explore_mode.get() == m>{m}</option>
                        }).collect::<Vec<_>>()}
                    </select>
                </label>
                <button id="explore-ask" on:click=move |_| submit()>"Explore"</button>
            </div>
            <p class="hint">"Names, signatures, file:line anchors and words are matched; explanations already bought are shown beside each symbol, marked as generated. In the question, mode:snippets or mode:source overrides the mode."</p>
            {move || ui.explore_busy.get().then(|| view! { <p class="hint">"exploring…"</p> })}
            {move || ui.explored.get().map(|a| answer_view(ui, a))}
        </section>
    }
}

/// A link into the navigator (disabled when the symbol has no node there).
fn nav_link(ui: Ui, l: MapLink) -> impl IntoView {
    let node = l.node;
    view! {
        <button class="link" title=l.id.clone() disabled=node.is_none()
            on:click=move |_| if let Some(n) = node { ui.tab.set(Tab::Navigate); ui.nav.select(NavTarget::Node(n)); }>
            {l.name}
        </button>
        " "<span class="badge">{l.kind}</span>
        {l.anchor.map(|a| view! { " "<code class="anchor">{a}</code> })}
    }
}

/// A name the map gives without an id: asking about it is the link.
fn ask_link(ui: Ui, name: String) -> impl IntoView {
    let q = name.clone();
    view! { <button class="link" title="explore this" on:click=move |_| ask(ui, q.clone())>{name}</button> }
}

/// `… and N more`: what a capped list of the map left out.
fn and_more(n: u64) -> String {
    format!("… and {} more", group(n))
}

fn more_item(n: u64) -> Option<impl IntoView> {
    (n > 0).then(|| view! { <li class="hint">{and_more(n)}</li> })
}

fn more_span(n: u64) -> Option<impl IntoView> {
    (n > 0).then(|| view! { <span class="hint">{and_more(n)}</span> })
}

fn answer_view(ui: Ui, a: ExploreAnswer) -> impl IntoView {
    let markdown = a.markdown.clone();
    let listed = a.symbols.len().to_string();
    let o = a.outline.clone();
    view! {
        <div id="explore-answer" data-seq=ui.explore_seq.get_untracked().to_string() data-mode=a.mode.clone() data-chars=a.chars.to_string() data-millis=a.millis.to_string() data-symbols=listed>
            <div class="card-head">
                <p class="hint">{format!(
                    "{} mode · {} matched in {} files · {} characters, ~{} tokens · answered in {:.0} ms{}",
                    a.mode, group(o.matched), group(o.files), group(a.chars), group(a.tokens), a.millis,
                    if a.index_millis > 0.0 { format!(" (the index was built first: {:.0} ms)", a.index_millis) } else { String::new() }
                )}</p>
                <button id="explore-copy" on:click=move |_| { copy(&markdown); ui.notice.set(Some("the map is on the clipboard, as Markdown".into())); }>"Copy as Markdown"</button>
            </div>
            {(!o.not_found.is_empty()).then(|| view! { <p class="warning">{format!("not found: {}", o.not_found.join(", "))}</p> })}
            {o.notes.iter().map(|n| view! { <p class="hint">{n.clone()}</p> }).collect_view()}
            {(!o.flow.is_empty()).then(|| view! {
                <section id="explore-flow" class="map-section">
                    <h3>"Call path"</h3>
                    <ol class="flow">
                        {o.flow.clone().into_iter().map(|(via, l)| view! {
                            <li>{via.map(|v| view! { <span class="via">{if v == "dispatch" { "↳ dispatched to " } else { "→ calls " }}</span> })}{nav_link(ui, l)}</li>
                        }).collect_view()}
                    </ol>
                    {(o.other_paths > 0).then(|| view! { <p class="hint">{format!("{} other call path(s) not shown", group(o.other_paths))}</p> })}
                </section>
            })}
            <section class="map-section">
                <h3>"Symbols"</h3>
                <ul id="explore-symbols">
                    {a.symbols.into_iter().map(|s| {
                        let link = MapLink { id: s.id, name: s.name, kind: s.kind, node: s.node, anchor: s.anchor };
                        view! {
                            <li>
                                {nav_link(ui, link)}
                                {s.explanation.map(|e| view! { <br /><span class="inference" title="generated by a model, not read from the code">{e}</span> })}
                                {s.stale.then(|| view! { " "<span class="badge warning">"stale"</span> })}
                            </li>
                        }
                    }).collect::<Vec<_>>()}
                    {(!o.more.is_empty()).then(|| view! { <li class="hint">"not listed: "{o.more.clone().into_iter().map(|m| view! { {ask_link(ui, m)}" " }).collect_view()}</li> })}
                </ul>
            </section>
            {(!o.blast.is_empty()).then(|| view! {
                <section id="explore-blast" class="map-section">
                    <h3>"Blast radius: what depends on these"</h3>
                    <ul>
                        {o.blast.clone().into_iter().map(|b| view! {
                            <li>{nav_link(ui, b.root)}
                                <ul>
                                    {b.groups.is_empty().then(|| view! { <li class="hint">"nothing in the model depends on it"</li> })}
                                    {b.groups.into_iter().map(|g| view! {
                                        <li><span class="blast-label">{g.label}</span>": "
                                            {g.names.into_iter().map(|n| view! { {ask_link(ui, n)}" " }).collect_view()}
                                            {more_span(g.more)}
                                        </li>
                                    }).collect_view()}
                                </ul>
                            </li>
                        }).collect_view()}
                        {more_item(o.blast_more)}
                    </ul>
                </section>
            })}
            {(!o.dispatch.is_empty()).then(|| view! {
                <section id="explore-dispatch" class="map-section">
                    <h3>"Dispatch: decided at run time"</h3>
                    <ul>
                        {o.dispatch.clone().into_iter().map(|d| view! {
                            <li>
                                {d.caller.map(|c| view! { {nav_link(ui, c)}" calls " })}
                                {nav_link(ui, d.callee)}{format!(" of {}, implemented by ", d.supertype)}
                                {d.implementations.into_iter().map(|i| view! { {nav_link(ui, i)}" " }).collect_view()}
                                {more_span(d.more)}
                            </li>
                        }).collect_view()}
                    </ul>
                </section>
            })}
            {(!o.relationships.is_empty()).then(|| view! {
                <section id="explore-relationships" class="map-section">
                    <h3>"Relationships"</h3>
                    {o.relationships.clone().into_iter().map(|r| view! {
                        <p class="rel-kind">{r.label}</p>
                        <ul>
                            {r.pairs.into_iter().map(|(f, t)| view! { <li>{ask_link(ui, f)}" → "{ask_link(ui, t)}</li> }).collect_view()}
                            {more_item(r.more)}
                        </ul>
                    }).collect_view()}
                </section>
            })}
            <details id="explore-markdown">
                <summary>"The map as Markdown (what \u{201c}Copy as Markdown\u{201d} copies)"</summary>
                <pre id="explore-map" class="map">{a.markdown}</pre>
            </details>
        </div>
    }
}
