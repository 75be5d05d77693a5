//! The page: a Leptos CSR app that starts the dedicated Worker, sends it
//! what the user does and shows what it says. It renders only: the model,
//! the plan, the run and the store live in the Worker. Everything from the
//! corpus or a model answer is rendered as text, never as HTML.
//!
//! * [`state`]: the page's signals and the messages that change them;
//! * [`link`]: the Worker link (posting, files beside messages, downloads);
//! * the panels, top to bottom: [`load`], [`plan`], [`run`], [`keep`].

mod explore;
mod graph;
mod keep;
mod link;
mod load;
mod navigate;
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
    if let Err(e) = link::spawn(ui) {
        ui.status.set(format!("the worker failed to start: {e}"));
    }
    view! {
        <main on:dragover=load::on_dragover on:drop=move |ev| load::on_drop(ui, ev)>
            <header>
                <h1>"codegraph insights"</h1>
                <p class="lede">
                    "Explain a codebase with an LLM, bottom-up, in your browser. Your model, source and key stay here; the only requests that leave go to the provider you choose."
                </p>
                <p id="worker-status" class="status" data-testid="worker-status">{move || ui.status.get()}</p>
            </header>
            <navigate::Tabs />
            <div id="panel-explain" role="tabpanel" aria-labelledby="tab-explain" class="tab-body" class:hidden=move || ui.tab.get() != state::Tab::Explain>
                <load::LoadPanel />
                <plan::PlanPanel />
                <run::RunPanel />
                <keep::KeepPanel />
            </div>
            <Show when=move || ui.tab.get() == state::Tab::Navigate>
                <div id="panel-navigate" role="tabpanel" aria-labelledby="tab-navigate"><navigate::NavigatePanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Graph>
                <div id="panel-graph" role="tabpanel" aria-labelledby="tab-graph"><graph::GraphPanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Cycles>
                <div id="panel-cycles" role="tabpanel" aria-labelledby="tab-cycles"><navigate::CyclesPanel /></div>
            </Show>
            <Show when=move || ui.tab.get() == state::Tab::Explore>
                <div id="panel-explore" role="tabpanel" aria-labelledby="tab-explore"><explore::ExplorePanel /></div>
            </Show>
        </main>
    }
}
