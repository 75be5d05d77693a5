//! The Graph tab: a node's neighbourhood or the module overview, as laid out
//! by the navigator in the Worker (`navigator::GraphView`: boxes in layer
//! bands left to right, routes through their own slots). This module only
//! draws it: edges under the boxes with arrowheads, the simple name in each
//! box and the full id as its title, a legend of what is drawn, fit-to-view,
//! zoom (buttons, wheel, pinch, keys) and pan (drag, arrow keys), and the
//! externals toggle (asks the Worker again).

use super::link::send;
use super::state::{Tab, Ui};
use crate::protocol::{NavTarget, ToWorker};
use leptos::prelude::*;
use navigator::{GraphEdge, GraphView};
use wasm_bindgen::JsCast;

/// The smallest first scale (screen pixels per drawing unit) at which a
/// 12 px label still reads.
const READABLE: f64 = 0.75;

/// The view box: x, y, width, height in drawing units.
type ViewBox = (f64, f64, f64, f64);

/// Asks for a graph (the neighbourhood of `node`, or the module overview),
/// externals as the graph on show has them (hidden at first).
pub fn ask(ui: Ui, node: Option<u32>) {
    let externals = ui.nav.graph.get_untracked().is_some_and(|g| g.externals);
    send(&ToWorker::NavGraph { node, externals });
}

#[component]
pub fn GraphPanel() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let nav = ui.nav;
    let selected = move || nav.selected.get().map(|(n, _, _)| n.node);
    let on_externals = move |ev: web_sys::Event| {
        let externals = event_target_checked(&ev);
        let node = nav.graph.get_untracked().and_then(|g| g.center);
        send(&ToWorker::NavGraph { node, externals });
    };
    view! {
        <section id="graph" class="panel graph-panel">
            {move || nav.ready.get().is_none().then(|| view! { <p class="hint preparing">{move || super::cycles::preparing_text(nav.preparing.get().as_deref())}</p> })}
            <div class="graph-controls">
                <button id="graph-modules" on:click=move |_| ask(ui, None)>"Modules overview"</button>
                <button id="graph-selection" disabled=move || selected().is_none()
                    on:click=move |_| if let Some(n) = selected() { ask(ui, Some(n)) }>"Neighbourhood of the selection"</button>
                <label class="graph-externals">
                    <input id="graph-externals" type="checkbox" prop:checked=move || nav.graph.get().is_some_and(|g| g.externals) on:change=on_externals />
                    " Show externals"
                    {move || nav.graph.get().filter(|g| !g.externals && g.externals_hidden > 0).map(|g| {
                        view! { <span class="hint" id="graph-externals-hidden">{format!(" ({} hidden)", g.externals_hidden)}</span> }
                    })}
                </label>
            </div>
            {move || nav.graph.get().map(|g| view! { <GraphCanvas graph=g on_pick=Callback::new(move |n: u32| {
                ui.tab.set(Tab::Navigate);
                nav.select(NavTarget::Node(n));
            }) /> })}
        </section>
    }
}

/// The class that colours an edge (and picks its arrowhead).
fn hue(e: &GraphEdge) -> &'static str {
    if e.inferred {
        "inferred"
    } else {
        match e.direction.as_str() {
            "in" => "in",
            "out" => "out",
            _ => "none",
        }
    }
}

/// The view box that shows `(x, y)` (drawing units) where the pointer is.
fn to_drawing(svg: &web_sys::Element, v: ViewBox, client: (f64, f64)) -> (f64, f64) {
    let r = svg.get_bounding_client_rect();
    let s = (r.width() / v.2).min(r.height() / v.3).max(1e-9);
    let (ox, oy) = ((r.width() - v.2 * s) / 2.0, (r.height() - v.3 * s) / 2.0);
    (v.0 + (client.0 - r.left() - ox) / s, v.1 + (client.1 - r.top() - oy) / s)
}

/// Drawing units per screen pixel.
fn units_per_pixel(svg: &web_sys::Element, v: ViewBox) -> f64 {
    let r = svg.get_bounding_client_rect();
    1.0 / (r.width() / v.2).min(r.height() / v.3).max(1e-9)
}

/// The drawing of a laid-out graph; a click (or Enter) on a box calls
/// `on_pick` with its node (the Graph tab selects it in Navigate, the
/// Domain tab shows the context).
#[component]
pub fn GraphCanvas(graph: GraphView, on_pick: Callback<u32>) -> impl IntoView {
    let (w, h) = (graph.width.max(1.0), graph.height.max(1.0));
    let full: ViewBox = (0.0, 0.0, w, h);
    let vb = RwSignal::new(full);
    let svg_ref = NodeRef::<leptos::svg::Svg>::new();
    // Zoom by `factor` about a drawing point (the view's centre by default),
    // between 8× the fit and a fifth of it.
    let zoom = move |factor: f64, at: Option<(f64, f64)>| {
        vb.update(|v| {
            let (cx, cy) = at.unwrap_or((v.0 + v.2 / 2.0, v.1 + v.3 / 2.0));
            let nw = (v.2 / factor).clamp((w / 8.0).min(60.0), w * 5.0);
            let k = nw / v.2;
            *v = (cx - (cx - v.0) * k, cy - (cy - v.1) * k, nw, v.3 * k);
        })
    };
    let pan = move |dx: f64, dy: f64| vb.update(|v| *v = (v.0 + dx, v.1 + dy, v.2, v.3));
    let fit = move || vb.set(full);
    let element = move || svg_ref.get().map(|s| s.unchecked_into::<web_sys::Element>());
    // Fit at first; where that would shrink the labels below legibility (a
    // wide graph on a phone), start at a readable scale around the centre
    // (or the middle) instead: Fit still shows it all.
    let focus = graph
        .center
        .and_then(|c| graph.nodes.iter().find(|n| n.node == c))
        .map_or((w / 2.0, h / 2.0), |n| (n.x + n.width / 2.0, n.y + n.height / 2.0));
    svg_ref.on_load(move |svg| {
        let r = svg.unchecked_into::<web_sys::Element>().get_bounding_client_rect();
        let scale = (r.width() / w).min(r.height() / h);
        if r.width() > 0.0 && r.height() > 0.0 && scale < READABLE {
            let (vw, vh) = (r.width() / READABLE, r.height() / READABLE);
            vb.set((focus.0 - vw / 2.0, focus.1 - vh / 2.0, vw, vh));
        }
    });

    // Pointers down (id, client x, y); a drag that moved does not click.
    let pointers = StoredValue::new(Vec::<(i32, f64, f64)>::new());
    let dragged = StoredValue::new(false);
    let on_down = move |ev: web_sys::PointerEvent| {
        if ev.button() != 0 {
            return;
        }
        dragged.set_value(false);
        pointers.update_value(|p| {
            p.retain(|q| q.0 != ev.pointer_id());
            p.push((ev.pointer_id(), f64::from(ev.client_x()), f64::from(ev.client_y())));
        });
    };
    let on_move = move |ev: web_sys::PointerEvent| {
        let Some(svg) = element() else { return };
        let (id, x, y) = (ev.pointer_id(), f64::from(ev.client_x()), f64::from(ev.client_y()));
        let before = pointers.get_value();
        let Some(at) = before.iter().position(|p| p.0 == id) else { return };
        let v = vb.get_untracked();
        match before.len() {
            1 => {
                let (dx, dy) = (x - before[at].1, y - before[at].2);
                if dx.abs() + dy.abs() > 0.0 {
                    let u = units_per_pixel(&svg, v);
                    pan(-dx * u, -dy * u);
                    if dx.abs() + dy.abs() > 2.0 {
                        dragged.set_value(true);
                    }
                }
            }
            2 => {
                // Pinch: the distance between the two pointers scales the view.
                let other = before[1 - at];
                let d0 = ((before[at].1 - other.1).powi(2) + (before[at].2 - other.2).powi(2)).sqrt();
                let d1 = ((x - other.1).powi(2) + (y - other.2).powi(2)).sqrt();
                if d0 > 0.0 && d1 > 0.0 {
                    let mid = to_drawing(&svg, v, ((x + other.1) / 2.0, (y + other.2) / 2.0));
                    zoom(d1 / d0, Some(mid));
                    dragged.set_value(true);
                }
            }
            _ => {}
        }
        pointers.update_value(|p| p[at] = (id, x, y));
    };
    let on_up = move |ev: web_sys::PointerEvent| pointers.update_value(|p| p.retain(|q| q.0 != ev.pointer_id()));
    let on_wheel = move |ev: web_sys::WheelEvent| {
        let Some(svg) = element() else { return };
        ev.prevent_default();
        let at = to_drawing(&svg, vb.get_untracked(), (f64::from(ev.client_x()), f64::from(ev.client_y())));
        zoom((-ev.delta_y() * 0.0015).exp(), Some(at));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let v = vb.get_untracked();
        let step = v.2.min(v.3) * 0.1;
        match ev.key().as_str() {
            "+" | "=" => zoom(1.25, None),
            "-" | "_" => zoom(0.8, None),
            "0" => fit(),
            "ArrowLeft" => pan(-step, 0.0),
            "ArrowRight" => pan(step, 0.0),
            "ArrowUp" => pan(0.0, -step),
            "ArrowDown" => pan(0.0, step),
            _ => return,
        }
        ev.prevent_default();
    };

    let center = graph.center;
    let edges = graph
        .edges
        .iter()
        .filter(|e| !e.points.is_empty())
        .map(|e| {
            let hue = hue(e);
            let class = format!("edge {hue}{}", if e.feedback { " feedback" } else { "" });
            let title = format!(
                "{} link(s){}{}",
                e.count,
                if e.roles.is_empty() { String::new() } else { format!(": {}", e.roles.join(", ")) },
                if e.feedback { " · runs back: it closes a cycle" } else { "" }
            );
            view! {
                <path class=class d=e.path() marker-end=format!("url(#arrow-{hue})") data-from=e.from.to_string() data-to=e.to.to_string()>
                    <title>{title}</title>
                </path>
            }
        })
        .collect::<Vec<_>>();
    let nodes = graph
        .nodes
        .iter()
        .map(|n| {
            let id = n.node;
            let select = move || on_pick.run(id);
            let class = format!("gnode {}", n.category);
            view! {
                <g class=class class:center=center == Some(id) class:stub=n.stub
                    transform=format!("translate({} {})", n.x, n.y) data-node=id.to_string()
                    tabindex="0" role="button" aria-label=n.id.clone()
                    on:click=move |_| {
                        if !dragged.get_value() {
                            select();
                        }
                    }
                    on:keydown=move |ev: web_sys::KeyboardEvent| {
                        if ev.key() == "Enter" || ev.key() == " " {
                            ev.prevent_default();
                            ev.stop_propagation();
                            select();
                        }
                    }>
                    <title>{n.id.clone()}</title>
                    <rect width=n.width.to_string() height=n.height.to_string() rx="4"></rect>
                    <text x=(n.width / 2.0).to_string() y=(n.height / 2.0).to_string() text-anchor="middle" dominant-baseline="central">{n.label.clone()}</text>
                </g>
            }
        })
        .collect::<Vec<_>>();
    let markers = ["in", "out", "none", "inferred"]
        .into_iter()
        .map(|m| {
            view! {
                <marker id=format!("arrow-{m}") class=format!("arrow {m}") viewBox="0 0 10 10" refX="10" refY="5"
                    markerWidth="7" markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
                    <path d="M0 0 L10 5 L0 10 z"></path>
                </marker>
            }
        })
        .collect::<Vec<_>>();
    let height = format!("height: min(75vh, {}px)", h.max(160.0).ceil());
    view! {
        <div class="graph-wrap">
            {(graph.left_out > 0).then(|| view! { <p class="hint" id="graph-left-out">{format!("{} more node(s) not drawn: the graph shows the most connected ones", graph.left_out)}</p> })}
            <div class="graph-zoom" role="group" aria-label="Zoom">
                <button id="graph-zoom-out" aria-label="Zoom out" title="Zoom out (−)" on:click=move |_| zoom(0.8, None)>"−"</button>
                <button id="graph-zoom-in" aria-label="Zoom in" title="Zoom in (+)" on:click=move |_| zoom(1.25, None)>"+"</button>
                <button id="graph-fit" title="Fit to view (0)" on:click=move |_| fit()>"Fit"</button>
                <span class="hint">"drag to pan · wheel or pinch to zoom"</span>
            </div>
            <svg id="graph-svg" node_ref=svg_ref width="100%" style=height tabindex="0" role="group"
                aria-label=format!("{} nodes, {} edges; arrow keys pan, + and − zoom, 0 fits", graph.nodes.len(), graph.edges.len())
                viewBox=move || { let v = vb.get(); format!("{:.2} {:.2} {:.2} {:.2}", v.0, v.1, v.2, v.3) }
                preserveAspectRatio="xMidYMid meet"
                on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up on:pointercancel=on_up on:pointerleave=on_up
                on:wheel=on_wheel on:keydown=on_key>
                <defs>{markers}</defs>
                <g class="edges">{edges}</g>
                <g class="nodes">{nodes}</g>
            </svg>
            <Legend graph=graph />
        </div>
    }
}

/// What every colour, dash and outline of this drawing means (only what it uses).
#[component]
fn Legend(graph: GraphView) -> impl IntoView {
    let mut items: Vec<(&'static str, &'static str, &'static str)> = Vec::new();
    let has = |f: &dyn Fn(&GraphEdge) -> bool| graph.edges.iter().any(f);
    if graph.center.is_some() {
        items.push(("node", "center", "the node this neighbourhood is about"));
    }
    for (cat, text) in [
        ("module", "a module (package, file)"),
        ("type", "a type"),
        ("operation", "an operation"),
        ("attribute", "an attribute"),
        ("context", "a bounded context"),
    ] {
        if graph.nodes.iter().any(|n| n.category == cat && !n.stub && graph.center != Some(n.node)) {
            items.push(("node", cat, text));
        }
    }
    if graph.nodes.iter().any(|n| n.stub) {
        items.push(("node", "stub", "external: outside the corpus (a library)"));
    }
    if has(&|e| hue(e) == "in") {
        items.push(("edge", "in", "depends on the centre"));
    }
    if has(&|e| hue(e) == "out") {
        items.push(("edge", "out", "the centre depends on it"));
    }
    if has(&|e| hue(e) == "none") {
        items.push(("edge", "none", "a dependency between two others"));
    }
    if has(&|e| e.inferred) {
        items.push(("edge", "inferred", "inferred (not declared in the code)"));
    }
    if has(&|e| e.feedback) {
        items.push(("edge", "none feedback", "runs back, right to left: it closes a cycle"));
    }
    view! {
        <div id="graph-legend" class="graph-legend">
            <p class="hint">"Arrows point from the dependant to what it depends on, left to right. Hover a box for its full id; click it to select it."</p>
            <ul>
                {items.into_iter().map(|(shape, class, text)| {
                    let swatch = if shape == "node" {
                        view! { <svg class="swatch" width="26" height="14" aria-hidden="true"><g class=format!("gnode {class}") class:center=class == "center" class:stub=class == "stub"><rect x="1" y="1" width="24" height="12" rx="3"></rect></g></svg> }.into_any()
                    } else {
                        view! { <svg class="swatch" width="30" height="14" aria-hidden="true"><path class=format!("edge {class}") d="M1 7 L29 7"></path></svg> }.into_any()
                    };
                    view! { <li data-legend=class>{swatch}" "{text}</li> }
                }).collect::<Vec<_>>()}
            </ul>
        </div>
    }
}
