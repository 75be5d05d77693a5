//! The Domain tab: what the explanations bought, at a glance. The Worker
//! builds the view (`domain`) from the store and the model, and lays its
//! context map out (`navigator::layered`); this module draws the map with the
//! Graph tab's canvas, shows the chosen context (its modules, aggregates,
//! concepts, commands and events, terms, what is not explained), the
//! glossary with a filter, and the coverage line. Every unit is a link that
//! selects it in Navigate. Answer text is shown as text.

use super::graph::GraphCanvas;
use super::link::send;
use super::state::{Tab, Ui};
use crate::protocol::{DomainShown, NavTarget, ToWorker};
use domain::{Concept, Context, DomainView};
use leptos::prelude::*;

/// Terms listed at once (the filter reaches the others).
const GLOSSARY_SHOWN: usize = 200;

/// The tab's signals.
#[derive(Clone, Copy)]
pub struct DomainState {
    /// The last view (or why there is none); `None` until asked.
    pub shown: RwSignal<Option<Result<DomainShown, String>>>,
    /// The context on show, by key.
    pub context: RwSignal<Option<String>>,
    pub filter: RwSignal<String>,
    /// A view was asked and has not come yet.
    pub asking: RwSignal<bool>,
}

impl DomainState {
    pub fn new() -> Self {
        DomainState {
            shown: RwSignal::new(None),
            context: RwSignal::new(None),
            filter: RwSignal::new(String::new()),
            asking: RwSignal::new(false),
        }
    }

    pub fn ask(&self) {
        self.asking.set(true);
        send(&ToWorker::Domain);
    }

    /// The Worker's answer.
    pub fn arrived(&self, shown: Result<Box<DomainShown>, String>) {
        self.asking.set(false);
        let shown = shown.map(|b| *b);
        if let Ok(s) = &shown {
            // Keep the context on show if it is still there, else the first
            // with an aggregate, else the first.
            let keep = self.context.get_untracked().filter(|k| s.view.context(k).is_some());
            let first = s.view.contexts.iter().find(|c| !c.aggregates.is_empty()).or(s.view.contexts.first());
            self.context.set(keep.or_else(|| first.map(|c| c.key.clone())));
        }
        self.shown.set(Some(shown));
    }
}

impl Default for DomainState {
    fn default() -> Self {
        Self::new()
    }
}

/// Selects `id` in Navigate.
fn open(ui: Ui, id: &str) {
    ui.tab.set(Tab::Navigate);
    ui.nav.select(NavTarget::Id(id.to_owned()));
}

/// A unit as a link into Navigate: its name, its id as the title.
fn unit(ui: Ui, name: String, id: String) -> impl IntoView {
    let title = id.clone();
    view! { <button class="link unit" data-id=id.clone() title=title on:click=move |_| open(ui, &id)>{name}</button> }
}

fn simple(id: &str) -> String {
    let tail = id.rsplit('/').next().unwrap_or(id);
    tail.to_owned()
}

fn concept_item(ui: Ui, c: &Concept) -> impl IntoView {
    let kind = c.event_kind.clone().map(|k| format!(" ({k})"));
    view! {
        <li class="concept" data-concept=c.concept.as_str() class:stale=c.stale>
            {unit(ui, c.name.clone(), c.id.clone())}
            <span class="hint">{format!(" {}", c.concept.as_str())}{kind}{format!(" · confidence {:.2}", c.confidence)}</span>
            {c.stale.then(|| view! { <span class="badge warn">" stale"</span> })}
        </li>
    }
}

fn concept_list(ui: Ui, title: &'static str, list: &[Concept]) -> Option<impl IntoView> {
    (!list.is_empty()).then(|| {
        view! {
            <h4>{title}</h4>
            <ul class="concepts">{list.iter().map(|c| concept_item(ui, c)).collect::<Vec<_>>()}</ul>
        }
    })
}

#[component]
pub fn DomainPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let d = ui.domain;
    let download = move |_| send(&ToWorker::DomainZip);
    view! {
        <section id="domain" class="panel graph-panel domain-panel">
            <div class="domain-head">
                <h2>"The domain"</h2>
                <button id="domain-refresh" class="secondary" on:click=move |_| d.ask()>"Refresh"</button>
                <button id="domain-download" class="secondary" disabled=move || !matches!(d.shown.get(), Some(Ok(_)))
                    on:click=download>"Download as Markdown (.zip)"</button>
            </div>
            {move || match d.shown.get() {
                None => view! { <p class="hint preparing">{move || if ui.planning.get() == super::state::Planning::Running {
                    "The plan is being made again (the store changed); the domain view follows it…"
                } else {
                    "Building the domain view…"
                }}</p> }.into_any(),
                Some(Err(why)) => view! { <p id="domain-none" class="hint">{why}</p> }.into_any(),
                Some(Ok(s)) => view! { <DomainBody shown=s /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn DomainBody(shown: DomainShown) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let d = ui.domain;
    let view = shown.view.clone();
    let coverage = view.coverage_line();
    let contexts = view.contexts.clone();
    let pick = Callback::new(move |k: u32| {
        if let Some(c) = contexts.get(k as usize) {
            d.context.set(Some(c.key.clone()));
        }
    });
    let chosen = {
        let view = view.clone();
        move || d.context.get().and_then(|k| view.context(&k).cloned())
    };
    let t = &view.coverage.types;
    let phases = shown.phases.iter().map(|(p, ms)| format!("{p} {ms:.0}")).collect::<Vec<_>>().join(", ");
    view! {
        <p id="domain-coverage" data-millis=format!("{:.1}", shown.millis)
            data-phases=phases data-types=t.units.to_string() data-explained=t.explained.to_string()
            data-stale=t.stale.to_string() data-contexts=view.contexts.len().to_string()>
            {coverage}
            <span class="hint">{format!(" · {} context(s), {} term(s) · built in {:.0} ms", view.contexts.len(), view.glossary.len(), shown.millis)}</span>
        </p>
        {shown.unchecked.clone().map(|u| view! { <p class="hint">{format!("{u}: stale records are not marked.")}</p> })}
        <h3>"Context map"</h3>
        <p class="hint">"An arrow counts the evidence that one context depends on another: dependsOn, calls and type use (hover it for the count). Click a context to see it."</p>
        {(shown.hidden_edges > 0).then(|| view! { <p class="hint" id="domain-hidden-edges">{format!("{} weaker dependencies between the contexts drawn are left out: each context keeps its strongest {}.", shown.hidden_edges, ::domain::map::MAP_EDGES_PER_CONTEXT)}</p> })}
        <div id="domain-map"><GraphCanvas graph=shown.map.clone() on_pick=pick /></div>
        <div class="domain-grid">
            <div id="domain-context-pane">
                {move || chosen().map(|c| view! { <ContextCard context=c /> })}
            </div>
            <Glossary view=view.clone() />
        </div>
    }
}

#[component]
fn ContextCard(context: Context) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let c = context;
    let how =
        if c.hinted { "named by its modules' bounded-context hint" } else { "one module: no bounded-context hint" };
    let t = &c.coverage.types;
    view! {
        <article id="domain-context" class="card" data-key=c.key.clone()>
            <h3>{c.name.clone()}</h3>
            <p class="hint">{format!("{how} · {} of {} types explained", t.explained, t.units)}</p>
            <h4>"Modules"</h4>
            <ul class="modules">
                {c.modules.iter().map(|m| view! {
                    <li>
                        {unit(ui, m.name.clone(), m.id.clone())}
                        <span class="hint">{format!(" {}", m.status.as_str())}{m.confidence.map(|x| format!(" · confidence {x:.2}"))}</span>
                        {m.rationale.clone().map(|r| view! { <span class="rationale">{format!(" — {r}")}</span> })}
                    </li>
                }).collect::<Vec<_>>()}
            </ul>
            {c.aggregates.iter().map(|a| view! {
                <section class="aggregate" data-root=a.root.id.clone()>
                    <h4>"Aggregate "{unit(ui, a.root.name.clone(), a.root.id.clone())}</h4>
                    {(!a.entities.is_empty()).then(|| view! {
                        <p>"Entities: "{a.entities.iter().map(|e| view! { {unit(ui, e.name.clone(), e.id.clone())}" " }).collect::<Vec<_>>()}</p>
                    })}
                    {(!a.value_types.is_empty()).then(|| view! {
                        <p>"Value types: "{a.value_types.iter().map(|e| view! { {unit(ui, e.name.clone(), e.id.clone())}" " }).collect::<Vec<_>>()}</p>
                    })}
                    {(!a.relations.is_empty()).then(|| view! {
                        <ul class="relations">{a.relations.iter().map(|r| view! {
                            <li>{simple(&r.from)}{format!(" → {} ({})", r.to_name, r.via)}</li>
                        }).collect::<Vec<_>>()}</ul>
                    })}
                </section>
            }).collect::<Vec<_>>()}
            {(!c.state_machines.is_empty()).then(|| view! {
                <h4>"Lifecycles"</h4>
                <ul class="lifecycles">{c.state_machines.iter().map(|sm| view! {
                    <li>{unit(ui, sm.name.clone(), sm.id.clone())}{format!(": {}", sm.states.join(" · "))}
                        <ul>{sm.transitions.iter().map(|(f, t, o)| view! { <li>{format!("{f} → {t} ({o})")}</li> }).collect::<Vec<_>>()}</ul>
                    </li>
                }).collect::<Vec<_>>()}</ul>
            })}
            {concept_list(ui, "Entities outside an aggregate", &c.entities)}
            {concept_list(ui, "Value types", &c.value_types)}
            {concept_list(ui, "Repositories", &c.repositories)}
            {concept_list(ui, "Services", &c.services)}
            {concept_list(ui, "Events", &c.events)}
            {concept_list(ui, "Other concepts", &c.other)}
            {[("Commands handled", c.commands.clone()), ("Events emitted", c.emits.clone()), ("Events handled", c.handles.clone())]
                .into_iter()
                .filter(|(_, l)| !l.is_empty())
                .map(|(title, list)| view! {
                    <h4>{title}</h4>
                    <ul class="messages">{list.into_iter().map(|m| view! {
                        <li>{m.name.clone()}{m.kind.clone().map(|k| format!(" ({k})"))}": "
                            {m.units.iter().map(|u| view! { {unit(ui, simple(u), u.clone())}" " }).collect::<Vec<_>>()}</li>
                    }).collect::<Vec<_>>()}</ul>
                })
                .collect::<Vec<_>>()}
            {(!c.terms.is_empty()).then(|| view! {
                <h4>"Terms"</h4>
                <p class="terms">{c.terms.join(" · ")}</p>
            })}
            {(!c.unexplained.is_empty()).then(|| view! {
                <details class="unexplained">
                    <summary>{format!("{} type(s) and module(s) with no explanation to show", c.unexplained.len())}</summary>
                    <ul>{c.unexplained.iter().map(|u| view! {
                        <li data-status=u.status.as_str()>{unit(ui, simple(&u.id), u.id.clone())}{format!(" {} · {}", u.level.as_str(), u.status.as_str())}</li>
                    }).collect::<Vec<_>>()}</ul>
                </details>
            })}
        </article>
    }
}

#[component]
fn Glossary(view: DomainView) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let d = ui.domain;
    let names: Vec<(String, String)> = view.contexts.iter().map(|c| (c.key.clone(), c.name.clone())).collect();
    // Terms a module defines first (those defined two ways leading), then
    // the words answers list; alphabetical within each.
    let mut entries = view.glossary.clone();
    entries.sort_by_key(|g| (!g.conflicting, g.definitions.is_empty()));
    let total = entries.len();
    let list = move || {
        let f = d.filter.get().trim().to_lowercase();
        let names = names.clone();
        let shown: Vec<_> = entries
            .iter()
            .filter(|g| {
                f.is_empty()
                    || g.term.to_lowercase().contains(&f)
                    || g.definitions.iter().any(|x| x.definition.to_lowercase().contains(&f))
            })
            .cloned()
            .collect();
        let count = shown.len();
        // A large glossary shows its first terms; the filter finds the rest.
        let shown: Vec<_> = shown.into_iter().take(GLOSSARY_SHOWN).collect();
        let context_name =
            move |k: &str| names.iter().find(|(key, _)| key == k).map_or(k.to_owned(), |(_, n)| n.clone());
        view! {
            <p class="hint" id="glossary-count">{if count > GLOSSARY_SHOWN {
                format!("{count} of {total} term(s), the first {GLOSSARY_SHOWN} shown: filter to find the others")
            } else {
                format!("{count} of {total} term(s)")
            }}</p>
            <ul id="glossary-terms" tabindex="0" aria-label="Glossary terms">
                {shown.into_iter().map(|g| {
                    let context_name = context_name.clone();
                    view! {
                        <li class="term" data-term=g.term.clone() class:conflicting=g.conflicting>
                            <strong>{g.term.clone()}</strong>
                            {g.conflicting.then(|| view! { <span class="badge warn">" defined differently in two contexts"</span> })}
                            <ul>
                                {g.definitions.iter().map(|x| {
                                    let key = x.context.clone();
                                    view! { <li><button class="link" on:click=move |_| d.context.set(Some(key.clone()))>{context_name(&x.context)}</button>{format!(": {}", x.definition)}</li> }
                                }).collect::<Vec<_>>()}
                                {g.definitions.is_empty().then(|| view! { <li class="hint">"not defined by any module"</li> })}
                            </ul>
                            <p class="hint">{format!("used in {} context(s); named by {} unit(s) ", g.contexts.len(), g.unit_count)}
                                {g.units.iter().take(3).map(|u| view! { {unit(ui, simple(u), u.clone())}" " }).collect::<Vec<_>>()}
                            </p>
                        </li>
                    }
                }).collect::<Vec<_>>()}
            </ul>
        }
    };
    view! {
        <section id="glossary" class="card">
            <h3>"Glossary"</h3>
            <label>"Filter "<input id="glossary-filter" type="search" placeholder="a term or a word of its definition"
                prop:value=move || d.filter.get() on:input=move |ev| d.filter.set(event_target_value(&ev)) /></label>
            {list}
            {(total == 0).then(|| view! { <p class="hint">"No term yet: the explanations name none (the offline demo writes none)."</p> })}
        </section>
    }
}
