//! The Navigate, Graph and Cycles tabs: the navigator and the cycle list
//! built once per model (in the idle time after the load, or when first
//! asked for, whichever comes first), its tree rows, selections and insight panel.

use super::*;

/// The Worker prepares the navigator once no message has arrived for this
/// long (ms) after a load, so the page's plan request (sent on the model's
/// arrival) and a run started at once go first.
const PREPARE_AFTER_QUIET_MS: f64 = 150.0;

/// The navigator of the loaded model, built the first time it is asked
/// for or by [`prepare_soon`] (so loading and planning do not wait for it).
/// The Worker is one thread and the build one task, so a request that
/// arrives during the build is handled after it and finds it built.
pub(super) fn navigator() -> Option<Rc<navigator::Navigator>> {
    if let Some(nav) = STATE.with(|s| s.borrow().nav.clone()) {
        return Some(nav);
    }
    let model = STATE.with(|s| s.borrow().loaded.as_ref().map(|l| l.model.clone()))?;
    build_navigator(&model);
    STATE.with(|s| s.borrow().nav.clone())
}

/// Builds the navigator of a model just read and tells the page.
pub(super) fn build_navigator(model: &model::Model) {
    let started = now_ms();
    let nav = navigator::Navigator::build(model);
    let (nodes, deps) = (nav.len() as u64, nav.dep_count() as u64);
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.nav = Some(Rc::new(nav));
        s.expanded.clear();
    });
    post(&FromWorker::NavReady { nodes, deps, millis: now_ms() - started });
}

/// The cycle list of the loaded model (its rows flattened, [`web::cycles`]), built once.
pub(super) fn cycle_list() -> Option<Rc<web::cycles::CycleList>> {
    if let Some(list) = STATE.with(|s| s.borrow().cycles.clone()) {
        return Some(list);
    }
    let nav = navigator()?;
    let list = Rc::new(web::cycles::CycleList::new(nav.cycles()));
    STATE.with(|s| s.borrow_mut().cycles = Some(list.clone()));
    Some(list)
}

pub(super) fn cycle_rows(offset: u64, limit: u64) {
    let (Some(nav), Some(list)) = (navigator(), cycle_list()) else { return };
    let rows = list.window(offset, limit, |n| nav.name(n).to_owned());
    post(&FromWorker::CycleRows { offset, total: list.total(), cycles: list.cycles(), rows });
}

/// Builds the navigator unless it is built, saying so first.
pub(super) fn prepare_navigator() {
    if STATE.with(|s| s.borrow().nav.is_none() && s.borrow().loaded.is_some()) {
        post(&FromWorker::NavPreparing { what: "navigator".into() });
        navigator();
    }
}

/// After a load: once the Worker has been quiet for
/// [`PREPARE_AFTER_QUIET_MS`] (the plan the page asks for is done, a run
/// has started), builds the navigator, then, a task later, the cycle list,
/// telling the page what it is preparing. Nothing is built twice: what a
/// request already built is skipped, and a newer model stops this one.
pub(super) fn prepare_soon(model: &Rc<model::Model>) {
    let model = Rc::downgrade(model);
    wasm_bindgen_futures::spawn_local(async move {
        let current = |m: &std::rc::Weak<model::Model>| {
            let held = STATE.with(|s| s.borrow().loaded.as_ref().map(|l| Rc::as_ptr(&l.model)));
            held.is_some() && held == Some(m.as_ptr())
        };
        loop {
            let quiet = now_ms() - LAST_MESSAGE_AT.with(Cell::get);
            if quiet >= PREPARE_AFTER_QUIET_MS {
                break;
            }
            gloo_timers::future::TimeoutFuture::new((PREPARE_AFTER_QUIET_MS - quiet).ceil().max(1.0) as u32).await;
        }
        if !current(&model) {
            return;
        }
        prepare_navigator();
        // A task between the two, so a message that came meanwhile goes first.
        gloo_timers::future::TimeoutFuture::new(0).await;
        if current(&model) && STATE.with(|s| s.borrow().cycles.is_none()) {
            post(&FromWorker::NavPreparing { what: "cycles".into() });
            cycle_list();
        }
    });
}

pub(super) fn nav_rows(offset: u64, limit: u64, show_stubs: bool) {
    let Some(nav) = navigator() else { return };
    let (rows, total) =
        STATE.with(|s| nav.rows(&s.borrow().expanded, show_stubs, offset as usize, limit.min(500) as usize));
    post(&FromWorker::NavRows { offset, total: total as u64, rows });
}

/// The insight panel's answer for an entity id: the store's three-way
/// answer, with the freshness of an explained record.
pub(super) fn insight_for(id: &str) -> web::insight::InsightView {
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else { return web::insight::InsightView::Unknown { id: id.to_owned() } };
    match store.answer_insight(id) {
        Ok(answer) => {
            let stale = STATE.with(|s| s.borrow().stale.get(id).cloned());
            crate::insight::view_of(&answer, stale)
        }
        Err(_) => web::insight::InsightView::Unknown { id: id.to_owned() },
    }
}

pub(super) fn nav_select(target: web::protocol::NavTarget, show_stubs: bool) {
    let Some(nav) = navigator() else { return };
    let node = match target {
        web::protocol::NavTarget::Node(n) => Some(n).filter(|n| (*n as usize) < nav.len()),
        web::protocol::NavTarget::Id(ref id) => nav.node_of(id),
    };
    let Some(node) = node else {
        if let web::protocol::NavTarget::Id(id) = target {
            post(&FromWorker::NavMissing { id });
        }
        return;
    };
    let row = STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.expanded.extend(nav.ancestors(node).into_iter().filter(|a| *a != node));
        nav.row_index(&s.expanded, show_stubs, node)
    });
    let view = nav.node(node);
    let insight = insight_for(&view.id);
    let deps = nav.dependencies(node, 0, web::protocol::NAV_DEPS_FIRST as usize);
    let doc = loaded().ok().and_then(|(model, _)| {
        let comments = model.entity(nav.entity_index(node)).comments()?;
        Some(comments.join("\n")).filter(|d| !d.trim().is_empty())
    });
    let selection = web::protocol::Selected { node: view, doc, deps, insight, row: row.map(|r| r as u64) };
    post(&FromWorker::NavSelected { selection: Box::new(selection) });
}

/// The Graph tab's view: a neighbourhood or the module overview, laid out
/// by the navigator (at most `NAV_GRAPH_NODES` nodes).
pub(super) fn nav_graph(node: Option<u32>, externals: bool) {
    let Some(nav) = navigator() else { return };
    let graph = nav.graph(node, web::protocol::NAV_GRAPH_NODES, externals);
    post(&FromWorker::NavGraph { graph });
}
