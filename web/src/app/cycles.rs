//! The Cycles tab: the cycle report of the loaded model (module, then type
//! level), virtualised: the Worker builds the list once per model as rows
//! of one height ([`crate::cycles`]) and the page asks for the window
//! around the scroll position, as the navigator's tree does. Members link
//! to the navigator.

use super::link::send;
use super::state::{group, Tab, Ui};
use crate::cycles::CycleRow;
use crate::protocol::{NavTarget, ToWorker};
use leptos::prelude::*;

/// Row height in pixels (the rows are absolutely placed; CSS keeps them on one line).
const ROW: f64 = 24.0;
/// Rows asked for around the visible window.
const WINDOW: u64 = 120;

/// A window of the list: (offset, rows in all, cycles in all, rows).
pub type Window = (u64, u64, u64, Vec<CycleRow>);

/// The Cycles tab's signals.
#[derive(Clone, Copy)]
pub struct CycleState {
    /// The window held, once the Worker has the list.
    pub rows: RwSignal<Option<Window>>,
    /// The scroll position, in rows.
    pub first_row: RwSignal<u64>,
}

impl CycleState {
    pub fn new() -> CycleState {
        CycleState { rows: RwSignal::new(None), first_row: RwSignal::new(0) }
    }

    /// A new model (or navigator): nothing is held.
    pub fn reset(&self) {
        self.rows.set(None);
        self.first_row.set(0);
        if let Some(el) = document().get_element_by_id("cycles-scroll") {
            el.set_scroll_top(0);
        }
    }

    /// Asks for the rows around the current scroll position (the Worker
    /// answers once its list is built).
    pub fn refresh(&self) {
        let first = self.first_row.get_untracked();
        send(&ToWorker::CycleRows { offset: first.saturating_sub(WINDOW / 4), limit: WINDOW });
    }

    pub fn apply(&self, offset: u64, total: u64, cycles: u64, rows: Vec<CycleRow>) {
        self.rows.set(Some((offset, total, cycles, rows)));
    }
}

impl Default for CycleState {
    fn default() -> Self {
        Self::new()
    }
}

/// "preparing…" while the Worker builds what a tab needs (`what`: its word, or `None`: the navigator).
pub fn preparing_text(what: Option<&str>) -> String {
    let what = match what {
        Some("cycles") => "the cycle list",
        _ => "the navigator",
    };
    format!("Preparing {what}… (the Worker builds it once per model, after loading)")
}

fn row_view(ui: Ui, at: u64, row: CycleRow) -> AnyView {
    let nav = ui.nav;
    let top = format!("top: {}px", at as f64 * ROW);
    let go = move |n: u32| {
        ui.tab.set(Tab::Navigate);
        nav.select(NavTarget::Node(n));
    };
    match row {
        CycleRow::Level { level, cycles, feedback_links, feedback_weight, cyclic_weight } => view! {
            <div class="cycle-row cycle-level" style=top data-level=level.clone() data-components=cycles.to_string()>
                <strong>{format!("{level} cycles: {}", group(cycles))}</strong>
                {(cycles > 0).then(|| view! {
                    <span class="meta">{format!(" · {} link(s) to cut, weight {} of {}", group(feedback_links), group(feedback_weight), group(cyclic_weight))}</span>
                })}
            </div>
        }
        .into_any(),
        CycleRow::NoCycle { level } => view! {
            <div class="cycle-row cycle-none hint" style=top data-level=level>"None at this level."</div>
        }
        .into_any(),
        CycleRow::Cycle { level, index, members, links, feedback_links, weight, feedback_weight, tangle_metric } => view! {
            <div class="cycle-row cycle" style=top data-level=level.clone() data-index=index.to_string()>
                {format!(
                    "{level} cycle {index}: {} members, {} links (weight {}); cut {} link(s), weight {} (tangle {:.2})",
                    group(members), group(links), group(weight), group(feedback_links), group(feedback_weight), tangle_metric
                )}
            </div>
        }
        .into_any(),
        CycleRow::Member { node, name } => view! {
            <div class="cycle-row cycle-member" style=top>
                <button class="link member" data-node=node.to_string() on:click=move |_| go(node)>{name}</button>
            </div>
        }
        .into_any(),
        CycleRow::Link { from_name, to_name, count, feedback, .. } => view! {
            <div class="cycle-row cycle-link" class:feedback=feedback style=top>
                {format!("{from_name} → {to_name} ({count} link(s)){}", if feedback { " · cut here to break the cycle" } else { "" })}
            </div>
        }
        .into_any(),
    }
}

#[component]
pub fn CyclesPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let cycles = ui.nav.cycles;
    let on_scroll = move |ev: web_sys::Event| {
        let el: web_sys::Element = event_target(&ev);
        let first = (el.scroll_top() as f64 / ROW).floor() as u64;
        cycles.first_row.set(first);
        if let Some((offset, total, _, rows)) = cycles.rows.get_untracked() {
            let held_end = offset + rows.len() as u64;
            if first < offset || (first + 40 > held_end && held_end < total) {
                cycles.refresh();
            }
        }
    };
    view! {
        <section id="cycles" class="panel cycles-panel">
            {move || match cycles.rows.with(|r| r.as_ref().map(|(_, total, n, _)| (*total, *n))) {
                None => view! {
                    <p class="hint preparing" id="cycles-preparing">{move || preparing_text(ui.nav.preparing.get().as_deref().or(Some("cycles")))}</p>
                }.into_any(),
                Some((total, n)) => view! {
                    <p class="hint" id="cycles-facts" data-cycles=n.to_string() data-total=total.to_string()>
                        {format!("{} cycle(s) · {} rows; a member opens in Navigate", group(n), group(total))}
                    </p>
                }.into_any(),
            }}
            <div id="cycles-scroll" class="cycles-scroll" on:scroll=on_scroll>
                <div class="cycles-space" style=move || format!("height: {}px", cycles.rows.with(|r| r.as_ref().map_or(0, |x| x.1)) as f64 * ROW)>
                    {move || cycles.rows.get().map(|(offset, _, _, rows)| {
                        rows.into_iter().enumerate().map(|(i, r)| row_view(ui, offset + i as u64, r)).collect::<Vec<_>>()
                    })}
                </div>
            </div>
        </section>
    }
}
