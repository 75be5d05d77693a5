//! The Navigate tab: the navigator built once per model, its tree rows, selections and insight panel.

use super::*;

/// The navigator of the loaded model, built the first time it is asked
/// for (so loading and planning do not wait for it).
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

pub(super) fn nav_rows(offset: u64, limit: u64, show_stubs: bool) {
    let Some(nav) = navigator() else { return };
    let (rows, total) =
        STATE.with(|s| nav.rows(&s.borrow().expanded, show_stubs, offset as usize, limit.min(500) as usize));
    post(&FromWorker::NavRows { offset, total: total as u64, rows });
}

/// The insight panel's answer for an entity id: the store's three-way
/// answer, with the freshness of an explained record.
pub(super) fn insight_for(id: &str) -> crate::insight::InsightView {
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else { return crate::insight::InsightView::Unknown { id: id.to_owned() } };
    match store.answer_insight(id) {
        Ok(answer) => {
            let stale = STATE.with(|s| s.borrow().stale.get(id).cloned());
            crate::insight::view_of(&answer, stale)
        }
        Err(_) => crate::insight::InsightView::Unknown { id: id.to_owned() },
    }
}

pub(super) fn nav_select(target: crate::protocol::NavTarget, show_stubs: bool) {
    let Some(nav) = navigator() else { return };
    let node = match target {
        crate::protocol::NavTarget::Node(n) => Some(n).filter(|n| (*n as usize) < nav.len()),
        crate::protocol::NavTarget::Id(ref id) => nav.node_of(id),
    };
    let Some(node) = node else {
        if let crate::protocol::NavTarget::Id(id) = target {
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
    let deps = nav.dependencies(node, 0, crate::protocol::NAV_DEPS_FIRST as usize);
    let doc = loaded().ok().and_then(|(model, _)| {
        let comments = model.entity(nav.entity_index(node)).comments()?;
        Some(comments.join("\n")).filter(|d| !d.trim().is_empty())
    });
    let selection = crate::protocol::Selected { node: view, doc, deps, insight, row: row.map(|r| r as u64) };
    post(&FromWorker::NavSelected { selection: Box::new(selection) });
}

/// The Graph tab's view: a neighbourhood or the module overview, laid out
/// by the navigator (at most `NAV_GRAPH_NODES` nodes).
pub(super) fn nav_graph(node: Option<u32>, externals: bool) {
    let Some(nav) = navigator() else { return };
    let graph = nav.graph(node, crate::protocol::NAV_GRAPH_NODES, externals);
    post(&FromWorker::NavGraph { graph });
}
