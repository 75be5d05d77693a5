//! The network and the version: a line while the browser is offline, and the
//! notice that a new version of the page is ready. On a hosted page (`cargo
//! xtask dist`) a service worker keeps the version the user has, so the page
//! works offline after its first visit; when it has installed a newer one it
//! fires [`UPDATE_READY`], and the newer version is taken on the next reload
//! (never under a running explain: nothing changes until then).

use super::state::Ui;
use leptos::prelude::*;

/// The event the hosted page's start-up script dispatches on `window` once
/// a new version is installed and waits for a reload.
const UPDATE_READY: &str = "codegraph-insights:update-ready";

#[component]
pub fn Offline() -> impl IntoView {
    let online = RwSignal::new(window().navigator().on_line());
    let _ = window_event_listener_untyped("online", move |_| online.set(true));
    let _ = window_event_listener_untyped("offline", move |_| online.set(false));
    view! {
        <Show when=move || !online.get()>
            <p id="offline" class="connection" role="status">
                <strong>"Offline. "</strong>
                "The demo, and models and sources from this computer, still work; a provider on the internet cannot be reached until the network is back."
            </p>
        </Show>
    }
}

#[component]
pub fn UpdateReady() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let ready = RwSignal::new(false);
    let _ = window_event_listener_untyped(UPDATE_READY, move |_| ready.set(true));
    view! {
        <Show when=move || ready.get()>
            <p id="update-ready" class="connection" role="status">
                "A new version of the page is ready; it is used from the next reload. "
                {move || ui.running_now().then_some("The run goes on with this version; reload once it has ended. ")}
                <button id="update-reload" class="secondary" disabled=move || ui.running_now()
                    on:click=move |_| { let _ = window().location().reload(); }>
                    "Reload now"
                </button>
            </p>
        </Show>
    }
}
