//! The page: a Leptos CSR app that starts the dedicated Worker, sends it
//! what the user does and shows what it says. It renders only: the model,
//! the plan, the run and the store live in the Worker. Everything from the
//! corpus or a model answer is rendered as text, never as HTML.
//!
//! * [`state`]: the page's signals and the messages that change them;
//! * [`link`]: the Worker link (posting, files beside messages, downloads);
//! * the panels, top to bottom: [`load`], [`plan`], [`run`], [`keep`].

mod cycles;
mod domain;
mod explore;
mod graph;
mod keep;
mod link;
mod load;
mod navigate;
mod offline;
mod plan;
mod run;
mod state;

use leptos::prelude::*;
use state::Ui;

pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}

#[component]
fn App() -> impl IntoView {
    let ui = Ui::new();
    provide_context(ui);
    navigate::watch_hash(ui);
    // Settings re-plan as they change (the summary keeps the last figures
    // meanwhile); before a store is open there is nothing to plan yet.
    Effect::watch(
        move || ui.settings.get(),
        move |_, _, _| {
            if ui.store.get_untracked().is_some()
                && matches!(ui.load.get_untracked(), state::Load::Loaded(_))
                && !ui.is_running()
            {
                ui.plan();
            }
        },
        false,
    );
    // The Domain tab follows the store: a run's commits or an import ask
    // for the view again while it is open.
    Effect::watch(
        move || ui.store.get().map(|s| (s.records, s.failures)),
        move |_, _, _| {
            if ui.tab.get_untracked() == state::Tab::Domain {
                ui.domain.ask();
            }
        },
        false,
    );
    if let Err(e) = link::spawn(ui) {
        ui.worker_problem(format!("the worker failed to start: {e}"));
    }
    let dragging = RwSignal::new(false);
    view! {
        <main
            class:dragging=move || dragging.get()
            on:dragover=move |ev| { load::on_dragover(ev); dragging.set(true); }
            on:dragleave=move |ev: web_sys::DragEvent| if ev.related_target().is_none() { dragging.set(false) }
            on:drop=move |ev| { dragging.set(false); load::on_drop(ui, ev) }
        >
            <header class="top">
                <h1>"codegraph insights"</h1>
                <p class="lede">"Explain a codebase with an LLM, bottom-up, in your browser."</p>
            </header>
            <offline::Offline />
            <offline::UpdateReady />
            // Shown only when something is wrong with the Worker (it failed
            // to start, or speaks another protocol); tests read its state.
            <p id="worker-status" class="status" role="status" data-testid="worker-status"
                data-state=move || ui.worker_state.get()>{move || ui.status.get()}</p>
            <navigate::Tabs />
            // Notices (downloads, imports, prices, the Worker's errors): one
            // place, under the tabs, on every tab.
            <div id="notices" aria-live="polite">
                {move || ui.notice.get().map(|n| view! {
                    <p id="notice" role="status">{n}<button class="dismiss" aria-label="Dismiss" on:click=move |_| ui.notice.set(None)>"×"</button></p>
                })}
            </div>
            <div id="panel-explain" role="tabpanel" aria-labelledby="tab-explain" class="tab-body" class:hidden=move || ui.tab.get() != state::Tab::Explain>
                <load::LoadPanel />
                <run::SummaryCard />
                <run::RunPanel />
                <Show when=move || matches!(ui.load.get(), state::Load::Loaded(_))>
                    <run::ProviderCard />
                    <plan::PlanPanel />
                    <keep::KeepPanel />
                </Show>
            </div>
            <Show when=move || ui.tab.get() == state::Tab::Navigate>
                <div id="panel-navigate" role="tabpanel" aria-labelledby="tab-navigate"><navigate::NavigatePanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Graph>
                <div id="panel-graph" role="tabpanel" aria-labelledby="tab-graph"><graph::GraphPanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Cycles>
                <div id="panel-cycles" role="tabpanel" aria-labelledby="tab-cycles"><cycles::CyclesPanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Explore>
                <div id="panel-explore" role="tabpanel" aria-labelledby="tab-explore"><explore::ExplorePanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Domain>
                <div id="panel-domain" role="tabpanel" aria-labelledby="tab-domain"><domain::DomainPanel /></div>
            </Show>
        </main>
    }
}
