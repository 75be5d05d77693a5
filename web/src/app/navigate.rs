//! The navigator: a virtualized tree of modules → types → members with
//! search, the selection's dependencies grouped by role, its explanation
//! (the three-way answer, stale marking), full-text search over the
//! explanations, and a layered graph of the neighbourhood or of the
//! modules (the cycle report is `cycles.rs`). The selection lives in the
//! address (`#id=…`).

use super::link::send;
use super::state::{group, Running, Tab, Ui};
use crate::insight::{Author, InsightView};
use crate::protocol::{FromWorker, NavTarget, TextHitView, ToWorker, NAV_DEPS_FIRST, NAV_DEPS_PAGE};
use leptos::prelude::*;
use navigator::{DepRowView, DepView, GraphView, NodeView, RoleGroup, SearchResult, TreeRow};
use wasm_bindgen::prelude::*;

/// Tree row height in pixels (the rows are absolutely placed).
const ROW: f64 = 26.0;
/// Rows asked for around the visible window.
const WINDOW: u64 = 120;

/// The navigator's signals.
#[derive(Clone, Copy)]
pub struct NavState {
    /// (nodes, dependency rows, build ms) once built.
    pub ready: RwSignal<Option<(u64, u64, f64)>>,
    /// The window of rows held: (offset, total, rows).
    pub rows: RwSignal<(u64, u64, Vec<TreeRow>)>,
    pub show_stubs: RwSignal<bool>,
    pub query: RwSignal<String>,
    pub search: RwSignal<Option<SearchResult>>,
    pub selected: RwSignal<Option<(NodeView, DepView, InsightView)>>,
    /// The selection's documentation comment (corpus text).
    pub doc: RwSignal<Option<String>>,
    /// The selection's row among the visible rows.
    pub cursor: RwSignal<Option<u64>>,
    pub missing: RwSignal<Option<String>>,
    pub deps_limit: RwSignal<u64>,
    pub graph: RwSignal<Option<GraphView>>,
    /// What the Worker is preparing for the loaded model (`navigator`, `cycles`), if anything.
    pub preparing: RwSignal<Option<String>>,
    pub cycles: super::cycles::CycleState,
    pub text_query: RwSignal<String>,
    pub text_hits: RwSignal<Option<(Vec<TextHitView>, Option<String>)>>,
    /// The tree's scroll position, in rows.
    pub first_row: RwSignal<u64>,
}

impl NavState {
    pub fn new() -> NavState {
        NavState {
            ready: RwSignal::new(None),
            rows: RwSignal::new((0, 0, Vec::new())),
            show_stubs: RwSignal::new(true),
            query: RwSignal::new(String::new()),
            search: RwSignal::new(None),
            selected: RwSignal::new(None),
            doc: RwSignal::new(None),
            cursor: RwSignal::new(None),
            missing: RwSignal::new(None),
            deps_limit: RwSignal::new(NAV_DEPS_FIRST),
            graph: RwSignal::new(None),
            preparing: RwSignal::new(None),
            cycles: super::cycles::CycleState::new(),
            text_query: RwSignal::new(String::new()),
            text_hits: RwSignal::new(None),
            first_row: RwSignal::new(0),
        }
    }

    /// Asks for the rows around the current scroll position.
    pub fn refresh_rows(&self) {
        let first = self.first_row.get_untracked();
        let offset = first.saturating_sub(WINDOW / 4);
        send(&ToWorker::NavRows { offset, limit: WINDOW, show_stubs: self.show_stubs.get_untracked() });
    }

    pub fn select(&self, target: NavTarget) {
        self.deps_limit.set(NAV_DEPS_FIRST);
        send(&ToWorker::NavSelect { target, show_stubs: self.show_stubs.get_untracked() });
    }
}

/// The `#id=` of the address, if any.
fn hash_id() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let encoded = hash.strip_prefix("#id=")?;
    js_sys::decode_uri_component(encoded).ok()?.as_string().filter(|s| !s.is_empty())
}

fn set_hash_id(id: &str) {
    let encoded = String::from(js_sys::encode_uri_component(id));
    if hash_id().as_deref() != Some(id) {
        if let Some(w) = web_sys::window() {
            // replaceState: selecting does not flood the history; the link is shareable.
            let _ =
                w.history().and_then(|h| h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#id={encoded}"))));
        }
    }
}

/// Follows `#id=` links typed or pasted while the page is open.
pub fn watch_hash(ui: Ui) {
    let on_hash = Closure::<dyn FnMut()>::new(move || {
        if let Some(id) = hash_id() {
            ui.tab.set(Tab::Navigate);
            ui.nav.select(NavTarget::Id(id));
        }
    });
    if let Some(w) = web_sys::window() {
        w.set_onhashchange(Some(on_hash.as_ref().unchecked_ref()));
    }
    on_hash.forget();
}

/// The Worker's navigator messages.
pub fn apply(ui: Ui, msg: FromWorker) {
    let nav = ui.nav;
    match msg {
        FromWorker::NavReady { nodes, deps, millis } => {
            nav.ready.set(Some((nodes, deps, millis)));
            nav.preparing.set(None);
            nav.selected.set(None);
            nav.search.set(None);
            nav.graph.set(None);
            nav.cycles.reset();
            if ui.tab.get_untracked() == Tab::Cycles {
                nav.cycles.refresh();
            }
            nav.first_row.set(0);
            nav.refresh_rows();
            if let Some(id) = hash_id() {
                ui.tab.set(Tab::Navigate);
                nav.select(NavTarget::Id(id));
            }
        }
        FromWorker::NavRows { offset, total, rows } => nav.rows.set((offset, total, rows)),
        // An answer to an older keystroke is dropped.
        FromWorker::NavSearch { query, result } if query == nav.query.get_untracked() => nav.search.set(Some(result)),
        FromWorker::NavSelected { selection } => {
            let crate::protocol::Selected { node, doc, deps, insight, row } = *selection;
            set_hash_id(&node.id);
            nav.missing.set(None);
            nav.cursor.set(row);
            nav.doc.set(doc);
            nav.selected.set(Some((node, deps, insight)));
            // Reveal: scroll the tree to the row and show it.
            if let Some(r) = row {
                let first = nav.first_row.get_untracked();
                if r < first || r >= first + 20 {
                    let top = r.saturating_sub(5);
                    nav.first_row.set(top);
                    if let Some(el) = document().get_element_by_id("tree-scroll") {
                        el.set_scroll_top((top as f64 * ROW) as i32);
                    }
                }
            }
            nav.refresh_rows();
        }
        FromWorker::NavMissing { id } => nav.missing.set(Some(id)),
        FromWorker::NavDeps { deps } => nav.selected.update(|s| {
            if let Some((n, d, _)) = s {
                if n.node == deps.node {
                    *d = deps;
                }
            }
        }),
        FromWorker::NavGraph { graph } => nav.graph.set(Some(graph)),
        FromWorker::NavPreparing { what } => nav.preparing.set(Some(what)),
        FromWorker::CycleRows { offset, total, cycles, rows } => {
            nav.preparing.update(|p| {
                if p.as_deref() == Some("cycles") {
                    *p = None;
                }
            });
            nav.cycles.apply(offset, total, cycles, rows);
        }
        FromWorker::TextHits { query, hits, message } if query == nav.text_query.get_untracked() => {
            nav.text_hits.set(Some((hits, message)))
        }
        _ => {}
    }
}

/// A new model: the Worker prepares the navigator and the cycle list in its
/// idle time after the load, or when first asked for — now, if the address
/// names a selection or a navigator tab is open.
pub fn model_loaded(ui: Ui) {
    ui.nav.ready.set(None);
    ui.nav.preparing.set(Some("navigator".into()));
    ui.nav.cycles.reset();
    if hash_id().is_some() || ui.tab.get_untracked() != Tab::Explain {
        ui.nav.refresh_rows();
    }
}

/// While a run commits records, the selection's explanation is asked again.
pub fn on_progress(ui: Ui) {
    if ui.tab.get_untracked() != Tab::Navigate {
        return;
    }
    if let Some((node, _, InsightView::Unknown { .. })) = ui.nav.selected.get_untracked() {
        ui.nav.select(NavTarget::Node(node.node));
    }
}

fn glyph(category: &str) -> &'static str {
    match category {
        "module" => "M",
        "type" => "T",
        "operation" => "ƒ",
        _ => "·",
    }
}

#[component]
pub fn NavigatePanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let nav = ui.nav;
    view! {
        <section id="navigate" class="panel navigate">
            {move || match nav.ready.get() {
                None => view! { <p class="hint preparing" id="nav-preparing">{move || super::cycles::preparing_text(nav.preparing.get().as_deref())}</p> }.into_any(),
                Some((nodes, deps, millis)) => view! {
                    <p id="nav-facts" class="hint" data-nodes=nodes.to_string() data-millis=millis.to_string()>
                        {format!("{} nodes · {} dependency rows", group(nodes), group(deps))}
                    </p>
                }.into_any(),
            }}
            <TextSearch />
            <div class="nav-body">
                <Tree />
                <Selection />
            </div>
        </section>
    }
}

#[component]
fn TextSearch() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let nav = ui.nav;
    let on_input = move |ev: web_sys::Event| {
        let q = event_target_value(&ev);
        nav.text_query.set(q.clone());
        if q.trim().is_empty() {
            nav.text_hits.set(None);
        } else {
            send(&ToWorker::TextSearch { query: q });
        }
    };
    view! {
        <div class="text-search">
            <label>"Search the explanations "
                <input id="text-search" type="search" placeholder="what the code means, e.g. where is pricing decided?" on:input=on_input />
            </label>
            {move || nav.text_hits.get().map(|(hits, message)| view! {
                <div id="text-hits">
                    {message.map(|m| view! { <p class="hint">{m}</p> })}
                    {hits.is_empty().then(|| view! { <p class="hint">"No explanation matches."</p> })}
                    <ul>
                        {hits.into_iter().map(|h| {
                            let node = h.node;
                            view! {
                                <li class="text-hit">
                                    <button class="link" disabled=node.is_none() on:click=move |_| if let Some(n) = node { nav.select(NavTarget::Node(n)) }>
                                        {h.name.clone().unwrap_or_else(|| h.id.clone())}
                                    </button>
                                    <span class="badge">{h.level}</span>
                                    {h.concept.map(|c| view! { <code class="concept">{c}</code> })}
                                    <span class="snippet inference">{h.snippet}</span>
                                </li>
                            }
                        }).collect::<Vec<_>>()}
                    </ul>
                </div>
            })}
        </div>
    }
}

/// Keyboard: ↑ ↓ move, → expands, ← collapses or goes to the parent, Enter selects, `/` searches.
fn on_tree_key(ui: Ui, ev: web_sys::KeyboardEvent) {
    let nav = ui.nav;
    let (offset, total, rows) = nav.rows.get_untracked();
    let cursor = nav.cursor.get_untracked().unwrap_or(offset);
    let row_at = |i: u64| rows.get(i.checked_sub(offset)? as usize).cloned();
    let key = ev.key();
    let target = match key.as_str() {
        "ArrowDown" => Some(cursor.saturating_add(1).min(total.saturating_sub(1))),
        "ArrowUp" => Some(cursor.saturating_sub(1)),
        "ArrowRight" | "ArrowLeft" | "Enter" => {
            ev.prevent_default();
            if let Some(r) = row_at(cursor) {
                let toggle =
                    (key == "ArrowRight" && r.has_children && !r.expanded) || (key == "ArrowLeft" && r.expanded);
                if toggle {
                    send(&ToWorker::NavToggle { node: r.node });
                    nav.refresh_rows();
                } else if key == "ArrowLeft" {
                    if let Some((n, _, _)) = nav.selected.get_untracked() {
                        if let Some(p) = n.parent {
                            nav.select(NavTarget::Node(p));
                        }
                    }
                } else if key == "Enter" {
                    nav.select(NavTarget::Node(r.node));
                }
            }
            None
        }
        _ => None,
    };
    if let Some(t) = target {
        ev.prevent_default();
        if let Some(r) = row_at(t) {
            nav.select(NavTarget::Node(r.node));
        }
    }
}

#[component]
fn Tree() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let nav = ui.nav;
    let on_query = move |ev: web_sys::Event| {
        let q = event_target_value(&ev);
        nav.query.set(q.clone());
        if q.trim().is_empty() {
            nav.search.set(None);
        } else {
            send(&ToWorker::NavSearch { query: q });
        }
    };
    let on_scroll = move |ev: web_sys::Event| {
        let el: web_sys::Element = event_target(&ev);
        let first = (el.scroll_top() as f64 / ROW).floor() as u64;
        nav.first_row.set(first);
        let (offset, total, rows) = nav.rows.get_untracked();
        let held_end = offset + rows.len() as u64;
        if first < offset || (first + 40 > held_end && held_end < total) {
            nav.refresh_rows();
        }
    };
    let search_ref = NodeRef::<leptos::html::Input>::new();
    // `/` anywhere on the navigator focuses the tree search.
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let typing = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if ev.key() == "/" && !typing {
            ev.prevent_default();
            if let Some(i) = search_ref.get() {
                let _ = i.focus();
            }
        }
    };
    let _ = window_event_listener(leptos::ev::keydown, on_key);
    view! {
        <div class="tree-panel">
            <input id="tree-search" node_ref=search_ref type="search" placeholder="find a name or signature (press / )" on:input=on_query />
            <label class="hint"><input id="show-stubs" type="checkbox" prop:checked=move || nav.show_stubs.get()
                on:change=move |ev| { nav.show_stubs.set(event_target_checked(&ev)); nav.refresh_rows(); } />" show externals"</label>
            {move || nav.search.get().map(|r| {
                let note = if r.total == 0 {
                    "nothing matches".to_owned()
                } else if r.capped {
                    format!("the first {} matches; type more to narrow", r.hits.len())
                } else {
                    format!("{} match(es)", r.total)
                };
                view! {
                    <div id="search-results">
                        <p class="hint" id="search-note">{note}</p>
                        <ul>
                            {r.hits.into_iter().map(|h| {
                                let n = h.node;
                                view! {
                                    <li class="hit" on:click=move |_| nav.select(NavTarget::Node(n))>
                                        <span class="glyph">{glyph(&h.category)}</span>
                                        <span class="name">{h.name}</span>
                                        <span class="crumb">{h.breadcrumb}</span>
                                    </li>
                                }
                            }).collect::<Vec<_>>()}
                        </ul>
                    </div>
                }
            })}
            // An ARIA tree: the scroll box holds the focus, the cursor's row is
            // its active descendant (the rows are virtualised, so only those
            // in view exist).
            <div id="tree-scroll" class="tree-scroll" tabindex="0" role="tree" aria-label="Modules, types and operations"
                aria-activedescendant=move || {
                    let (offset, _, rows) = nav.rows.get();
                    nav.cursor.get().and_then(|c| c.checked_sub(offset)).and_then(|i| rows.get(i as usize)).map(|r| format!("tree-row-{}", r.node))
                }
                on:scroll=on_scroll on:keydown=move |ev| on_tree_key(ui, ev)>
                <div class="tree-space" style=move || format!("height: {}px", nav.rows.get().1 as f64 * ROW)>
                    {move || {
                        let (offset, _, rows) = nav.rows.get();
                        let cursor = nav.cursor.get();
                        rows.into_iter().enumerate().map(|(i, r)| {
                            let at = offset + i as u64;
                            let top = format!("top: {}px; padding-left: {}px", at as f64 * ROW, 6 + r.depth * 14);
                            let n = r.node;
                            let twisty = if !r.has_children { " " } else if r.expanded { "▾" } else { "▸" };
                            view! {
                                <div class="tree-row" class:stub=r.stub class:selected=cursor == Some(at) style=top data-node=n.to_string()
                                    id=format!("tree-row-{n}") role="treeitem"
                                    aria-selected=(cursor == Some(at)).to_string()
                                    aria-expanded=r.has_children.then(|| r.expanded.to_string())
                                    on:click=move |_| nav.select(NavTarget::Node(n))>
                                    <span class="twisty" on:click=move |ev| {
                                        ev.stop_propagation();
                                        send(&ToWorker::NavToggle { node: n });
                                        nav.refresh_rows();
                                    }>{twisty}</span>
                                    <span class="glyph">{glyph(&r.category)}</span>
                                    <span class="name">{r.name}</span>
                                </div>
                            }
                            // The tree level (1 = a root row): this Leptos has no typed `aria-level`.
                            .add_any_attr(leptos::tachys::html::attribute::custom::custom_attribute("aria-level", (r.depth + 1).to_string()))
                        }).collect::<Vec<_>>()
                    }}
                </div>
            </div>
        </div>
    }
}

fn anchor_text(a: &navigator::Anchor) -> String {
    if a.start == a.end {
        format!("{}:{}", a.file, a.start)
    } else {
        format!("{}:{}–{}", a.file, a.start, a.end)
    }
}

#[component]
fn Selection() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let nav = ui.nav;
    move || {
        if let Some(id) = nav.missing.get() {
            return view! { <div id="selection" class="error" role="alert">{format!("This model has no entity {id}: the link may come from another version of the model.")}</div> }.into_any();
        }
        let Some((node, deps, insight)) = nav.selected.get() else {
            return view! {
                <div id="selection" class="hint">"Select a module, type or operation in the tree to see what depends on it, what it depends on, and what it means."</div>
            }
            .into_any();
        };
        let anchor = node.anchor.as_ref().map(anchor_text);
        let n = node.node;
        view! {
            <div id="selection" data-id=node.id.clone() data-category=node.category.clone()>
                <p class="crumb sel-crumb">{node.breadcrumb.join(" › ")}</p>
                <h2 class="sel-name">
                    <code>{node.signature.clone().unwrap_or_else(|| node.name.clone())}</code>
                    " "<span class="badge">{node.kind.clone()}</span>
                    {node.stub.then(|| view! { " "<span class="badge muted">"external"</span> })}
                </h2>
                <p class="facts">
                    {format!("fan-in {} · fan-out {} distinct counterparts", deps.fan_in, deps.fan_out)}
                    {anchor.map(|a| view! { " · "<code>{a}</code> })}
 " · "<button class="link" id="explore-this" on:click={
                        let q = node.signature.clone().map(|_| node.name.clone()).unwrap_or_else(|| node.name.clone());
                        let q = if node.category == "operation" { format!("{}.{q}", node.breadcrumb.last().cloned().unwrap_or_default()) } else { q };
                        move |_| { ui.tab.set(Tab::Explore); super::explore::ask(ui, q.clone()); }
                    }>"explore it"</button>
                    " · "<button class="link" id="show-graph" on:click=move |_| { ui.tab.set(Tab::Graph); super::graph::ask(ui, Some(n)); }>"graph of its neighbourhood"</button>
                </p>
                {nav.doc.get_untracked().map(|d| view! {
                    <details id="doc" class="doc"><summary>"Documentation (from the source)"</summary><pre>{d}</pre></details>
                })}
                <InsightPanel insight=insight />
                <div class="panes">
                    <Pane title="Incoming" class_name="incoming" groups=deps.incoming.clone() empty="Nothing in this model depends on it." />
                    <Pane title="Outgoing" class_name="outgoing" groups=deps.outgoing.clone() empty="It depends on nothing in this model." />
                </div>
            </div>
        }
        .into_any()
    }
}

#[component]
fn InsightPanel(insight: InsightView) -> impl IntoView {
    let ui = expect_context::<Ui>();
    match insight {
        InsightView::Unknown { .. } => view! {
            <section id="insight" class="insight none" data-status="unknown">
                <p class="hint">"Not explained yet: run an explanation (Explain tab) or import a side-car."</p>
            </section>
        }
        .into_any(),
        InsightView::Failed { model, attempts, reason, .. } => view! {
            <section id="insight" class="insight failed" data-status="failed">
                <p class="byline"><span class="badge muted">"not explained"</span>" "{model}" · "{format!("{attempts} attempt(s)")}</p>
                <p class="reason"><code>{reason}</code></p>
                <button id="insight-retry" on:click=move |_| {
                    // (the settings' change plans again)
                    ui.settings.update(|s| s.retry_failed = true);
                    ui.tab.set(Tab::Explain);
                }>"Retry the failures"</button>
            </section>
        }
        .into_any(),
        InsightView::Explained { author, model, confidence, description, concept, facts, stale, .. } => {
            let badge = match author {
                Author::Llm => "LLM explanation",
                Author::Template => "templated",
                Author::Demo => "demo (not an LLM)",
            };
            let n = facts.len();
            let is_stale = stale.is_some().to_string();
            view! {
                <section id="insight" class="insight explained inference" data-status="explained" data-stale=is_stale>
                    <p class="byline">
                        <span class="badge inference">{badge}</span>
                        {concept.map(|c| view! { " "<code class="concept">{c}</code> })}
                        {model.map(|m| view! { " · written by "<span class="model">{m}</span> })}
                        " · "<span title="The model's own estimate of how sure it is, from 0 to 1: indicative, not measured.">"confidence "<strong>{format!("{confidence:.2}")}</strong></span>
                    </p>
                    {stale.map(|why| view! { <p id="stale" class="warning">{format!("Stale: {why}. Shown as it was written; a new run refreshes it.")}</p> })}
                    <p class="description">{description}</p>
                    {(n > 0).then(|| view! {
                        <details class="facts-list">
                            <summary>{format!("Domain reading — {n} fact(s)")}</summary>
                            <dl>
                                {facts.into_iter().map(|(l, v)| view! { <dt>{l}</dt><dd>{v}</dd> }).collect::<Vec<_>>()}
                            </dl>
                        </details>
                    })}
                </section>
            }
            .into_any()
        }
    }
}

fn dep_row(ui: Ui, r: DepRowView, incoming: bool) -> impl IntoView {
    let nav = ui.nav;
    let c = r.counterpart;
    let member = r.member.map(|m| format!("{} {m}", if incoming { "on" } else { "via" }));
    let short = r.anchor.as_ref().map(|a| (a.file.rsplit('/').next().unwrap_or(&a.file).to_owned(), anchor_text(a)));
    let inferred = r.provenance != "declared";
    view! {
        <li class="dep-row">
            <button class="link" on:click=move |_| nav.select(NavTarget::Node(c))>{r.counterpart_name}</button>
            {r.counterpart_member.map(|m| view! { " "<code class="member">{m}</code> })}
            <span class="meta">
                {member.map(|m| view! { " "<span>{m}</span> })}
                {r.detail.map(|d| view! { " · "<span>{d}</span> })}
                {inferred.then(|| view! { " "<span class="badge inference">{r.provenance.to_uppercase()}</span> })}
                {short.map(|(s, full)| view! { " "<span class="anchor" title=full>{s}</span> })}
            </span>
            <span class="crumb row-crumb">{r.counterpart_breadcrumb}</span>
        </li>
    }
}

#[component]
fn Pane(title: &'static str, class_name: &'static str, groups: Vec<RoleGroup>, empty: &'static str) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let nav = ui.nav;
    let total: usize = groups.iter().map(|g| g.total).sum();
    let incoming = class_name == "incoming";
    view! {
        <div class=format!("pane {class_name}") data-total=total.to_string()>
            <h3>{format!("{title} {}", group(total as u64))}</h3>
            {(total == 0).then(|| view! { <p class="hint">{empty}</p> })}
            {groups.into_iter().map(|g| {
                let shown = g.rows.len();
                let left = g.total.saturating_sub(shown);
                view! {
                    <details class="role" open data-role=g.role.clone()>
                        <summary>{g.label}" "<span class="pill">{group(g.total as u64)}</span></summary>
                        <ul>{g.rows.into_iter().map(|r| dep_row(ui, r, incoming)).collect::<Vec<_>>()}</ul>
                        {(left > 0).then(|| view! {
                            <p class="more">
                                {format!("{} not shown ", group(left as u64))}
                                <button class="show-more" on:click=move |_| {
                                    if let Some((n, _, _)) = nav.selected.get_untracked() {
                                        let limit = nav.deps_limit.get_untracked() + NAV_DEPS_PAGE;
                                        nav.deps_limit.set(limit);
                                        send(&ToWorker::NavDeps { node: n.node, limit });
                                    }
                                }>{format!("Show {} more", group(left.min(NAV_DEPS_PAGE as usize) as u64))}</button>
                            </p>
                        })}
                    </details>
                }
            }).collect::<Vec<_>>()}
        </div>
    }
}

/// The tab strip.
#[component]
pub fn Tabs() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let tab = ui.tab;
    let go = move |t: Tab| {
        tab.set(t);
        if matches!(t, Tab::Navigate | Tab::Graph | Tab::Cycles) && ui.nav.ready.get_untracked().is_none() {
            // Asking for rows builds the navigator; NavReady follows.
            ui.nav.refresh_rows();
        }
        match t {
            Tab::Cycles if ui.nav.cycles.rows.get_untracked().is_none() => ui.nav.cycles.refresh(),
            Tab::Graph if ui.nav.graph.get_untracked().is_none() => super::graph::ask(ui, None),
            Tab::Domain => ui.domain.ask(),
            _ => {}
        }
    };
    let running = move || matches!(ui.running.get(), Running::Going(_));
    // Every tab but Explain needs a model.
    let loaded = move || matches!(ui.load.get(), crate::app::state::Load::Loaded(_));
    let usable = move |t: Tab| t == Tab::Explain || loaded();
    // The WAI-ARIA tabs pattern: arrow keys, Home and End move among the
    // usable tabs (and open the one reached); only the selected tab is in
    // the Tab order.
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let open: Vec<Tab> = Tab::ALL.into_iter().filter(|t| usable(*t)).collect();
        let Some(at) = open.iter().position(|t| *t == tab.get_untracked()) else { return };
        let next = match ev.key().as_str() {
            "ArrowRight" => open[(at + 1) % open.len()],
            "ArrowLeft" => open[(at + open.len() - 1) % open.len()],
            "Home" => open[0],
            "End" => open[open.len() - 1],
            _ => return,
        };
        ev.prevent_default();
        go(next);
        if let Some(b) = leptos::prelude::document().get_element_by_id(next.tab_id()) {
            if let Ok(b) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(b) {
                let _ = b.focus();
            }
        }
    };
    view! {
        <nav class="tabs" role="tablist" aria-label="Views" on:keydown=on_key>
            {Tab::ALL.into_iter().map(|t| view! {
                <button id=t.tab_id() role="tab" aria-controls=t.panel_id()
                    aria-selected=move || (tab.get() == t).to_string()
                    tabindex=move || if tab.get() == t { "0" } else { "-1" }
                    disabled=move || !usable(t)
                    title=move || (!usable(t)).then_some("load a model first")
                    class:active=move || tab.get() == t on:click=move |_| go(t)>
                    {t.label()}{move || (t == Tab::Explain && running()).then_some(" ●")}
                </button>
            }).collect::<Vec<_>>()}
        </nav>
    }
}
