//! Keeping results: download the side-car, import one (asking before paid-for
//! records are replaced), and the stores kept in this browser.

use super::link::{send, send_with};
use super::state::{mb, Load, Ui};
use crate::protocol::ToWorker;
use leptos::prelude::*;
use std::cell::RefCell;

thread_local! {
    /// A side-car waiting for the user's confirmation to replace records.
    static PENDING_IMPORT: RefCell<Option<web_sys::File>> = const { RefCell::new(None) };
}

/// Where the page keeps, for each store it opened, the model it belongs to
/// (a store's own name is a file stem and a hash).
const STORE_LABELS: &str = "codegraph-insights.store-labels";

fn labels() -> serde_json::Map<String, serde_json::Value> {
    super::link::storage()
        .and_then(|s| s.get_item(STORE_LABELS).ok().flatten())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Remembers that `store` holds the explanations of the model `file` (whose
/// recorded root is `root`).
pub fn remember_store_label(store: &str, root: &str, file: &str) {
    let file = file.split(['?', '#']).next().unwrap_or_default();
    let file = file.rsplit('/').next().unwrap_or(file);
    let label = if root.is_empty() { file.to_owned() } else { format!("{root} · {file}") };
    let mut map = labels();
    if map.get(store).and_then(|v| v.as_str()) == Some(label.as_str()) {
        return;
    }
    map.insert(store.to_owned(), serde_json::Value::String(label));
    if let Some(s) = super::link::storage() {
        let _ = s.set_item(STORE_LABELS, &serde_json::Value::Object(map).to_string());
    }
}

/// Imports a side-car file (asks the Worker; it answers with a confirmation
/// request when the store already holds records).
pub fn import_file(file: web_sys::File) {
    let name = file.name();
    PENDING_IMPORT.with(|p| *p.borrow_mut() = Some(file.clone()));
    send_with(&ToWorker::ImportSidecar { name, replace: false }, Some(("file", file.into())));
}

fn confirm_import(ui: Ui) {
    ui.import_confirm.set(None);
    if let Some(file) = PENDING_IMPORT.with(|p| p.borrow_mut().take()) {
        send_with(&ToWorker::ImportSidecar { name: file.name(), replace: true }, Some(("file", file.into())));
    }
}

fn cancel_import(ui: Ui) {
    ui.import_confirm.set(None);
    PENDING_IMPORT.with(|p| p.borrow_mut().take());
    ui.notice.set(Some("nothing was imported".into()));
}

#[component]
pub fn KeepPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let has_store = move || ui.store.get().is_some_and(|s| s.read_only.is_none());
    let loaded = move || matches!(ui.load.get(), Load::Loaded(_));
    let on_import = move |ev: web_sys::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|l| l.get(0)) {
            import_file(file);
        }
        input.set_value("");
    };
    view! {
        <section id="keep" class="panel" aria-labelledby="keep-title">
            <div class="card-head">
                <h2 id="keep-title">"Keep"</h2>
                <p class="hint">"Every finished unit is already saved in this browser. The side-car is the file the codegraph CLI reads and writes."</p>
            </div>
            <div class="actions">
                <button id="download-sidecar" disabled=move || !has_store() || ui.store.get().is_none_or(|s| s.records == 0)
                    on:click=move |_| send(&ToWorker::ExportSidecar)>
                    "Download the side-car (.insights.jsonl)"
                </button>
                <label class="button file-button">"Import a side-car…"
                    <input id="pick-sidecar" type="file" accept=".jsonl" disabled=move || !has_store() || !loaded() on:change=on_import />
                </label>
            </div>
            {move || ui.import_confirm.get().map(|q| view! {
                <div id="import-confirm" class="dialog" role="dialog" aria-modal="true">
                    <p>{match &q.truncated {
                        Some(why) => format!(
                            "{} is cut short ({why}). Merge its {} records into the store? Nothing the file does not mention is removed.",
                            q.name, q.incoming
                        ),
                        None if q.held == 0 => format!("Import the {} records of {}?", q.incoming, q.name),
                        None => format!("The store holds {} paid-for records. Replace them with the {} records of {}?", q.held, q.incoming, q.name),
                    }}</p>
                    {q.foreign.clone().map(|why| view! { <p id="import-foreign" class="warning">{format!("{}: {why}. Importing it adds explanations for units this model does not have.", q.name)}</p> })}
                    <button id="confirm-import" on:click=move |_| confirm_import(ui)>{if q.truncated.is_some() { "Merge" } else if q.held == 0 { "Import anyway" } else { "Replace" }}</button>
                    <button id="cancel-import" on:click=move |_| cancel_import(ui)>"Keep the store as it is"</button>
                </div>
            })}
            <h3>"Stores in this browser"</h3>
            <table id="stores" class="figures-table cards">
                <thead><tr><th>"store"</th><th>"size"</th><th></th></tr></thead>
                <tbody>
                    {move || {
                        let known = labels();
                        ui.stores.get().into_iter().map(|s| {
                        let (export_name, delete_name) = (s.name.clone(), s.name.clone());
                        let file = s.name.trim_start_matches('/').to_owned();
                        // The model's root and file name when this browser opened it; the store's file as detail.
                        let model = known.get(&s.name).and_then(|v| v.as_str()).map(str::to_owned);
                        let label = model.clone().unwrap_or_else(|| file.clone());
                        let confirm_text = format!("Delete {label} and every record in it? Records not downloaded are lost.");
                        view! {
                            <tr data-name=s.name.clone() class:current=s.current>
                                <td class="unit"><span class="store-label">{label}</span>{s.current.then_some(" (this model)")}
                                    {model.is_some().then(|| view! { <br /><span class="hint store-file">{file.clone()}</span> })}</td>
                                <td data-label="size">{mb(s.bytes)}</td>
                                <td class="row-actions">
                                    <button class="export-store" on:click=move |_| send(&ToWorker::ExportStore { name: export_name.clone() })>"Download"</button>
                                    <button class="delete-store" disabled=move || ui.running_now() on:click=move |_| {
                                        let ok = web_sys::window().and_then(|w| w.confirm_with_message(&confirm_text).ok()).unwrap_or(false);
                                        if ok {
                                            send(&ToWorker::DeleteStore { name: delete_name.clone() });
                                        }
                                    }>"Delete"</button>
                                </td>
                            </tr>
                        }
                    }).collect::<Vec<_>>()
                    }}
                </tbody>
            </table>
        </section>
    }
}
