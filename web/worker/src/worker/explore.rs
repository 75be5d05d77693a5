//! The Explore tab: the explore index kept beside the model, questions, and the full-text search over explanations.

use super::*;
/// Builds the code graph and explore index of `model` unless they are
/// built; returns whether they were.
pub(super) fn explore_cell(model: &Rc<model::Model>) -> bool {
    let built = EXPLORE.with(|e| e.borrow().as_ref().is_some_and(|c| Rc::ptr_eq(c.borrow_owner(), model)));
    if !built {
        let cell = ExploreCell::new(model.clone(), |m| {
            let graph = analyzer::graph::CodeGraph::new(m);
            let index = ::explore::ExploreIndex::build(&graph);
            Explorable { graph, index, explained: u64::MAX }
        });
        EXPLORE.with(|e| *e.borrow_mut() = Some(cell));
    }
    built
}

/// The store's records as explanations, checked against the last plan.
pub(super) fn explore_question(question: String, flag: Option<String>, setting: Option<String>) {
    let Ok((model, _)) = loaded() else {
        post(&FromWorker::Error { message: "load a model to explore it".into() });
        return;
    };
    let started = now_ms();
    let store = STATE.with(|s| s.borrow().store.clone());
    let records: u64 = store.as_ref().and_then(|st| st.count().ok()).unwrap_or(0);
    let built = explore_cell(&model);
    let index_millis = if built { 0.0 } else { now_ms() - started };
    let book = store.as_deref().and_then(|st| store::StoreBook::new(st).ok());
    let verdict = STATE.with(|s| s.borrow().verdict.clone());
    let nav = navigator();
    let answer = EXPLORE.with(|e| {
        let mut e = e.borrow_mut();
        let cell = e.as_mut().expect("built above");
        // The explanation words follow the store (records arrive with runs and imports).
        cell.with_dependent_mut(|_, x| {
            if x.explained != records {
                let texts: Vec<(String, String)> = store
                    .as_deref()
                    .and_then(|st| st.records().ok())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| (r.id.clone(), r.block.description().to_owned()))
                    .collect();
                x.index.set_explanations(&x.graph, texts.iter().map(|(a, b)| (a.as_str(), b.as_str())));
                x.explained = records;
            }
        });
        cell.with_dependent(|_, x| {
            let none = ::explore::NoExplanations;
            let with_records;
            let explanations: &dyn ::explore::Explanations = match &book {
                Some(b) => {
                    with_records = ::explore::RecordExplanations { records: b, verdict: verdict.as_deref() };
                    &with_records
                }
                None => &none,
            };
            let src = source();
            let explorer = ::explore::Explorer {
                graph: &x.graph,
                index: &x.index,
                sources: src.as_deref().map(Source::reader),
                explanations,
            };
            let request = ::explore::Request {
                question: &question,
                flag: flag.as_deref().and_then(::explore::Mode::parse),
                setting: setting.as_deref().and_then(::explore::Mode::parse),
                caps: ::explore::Caps::default(),
                body_hint: Some("select {name} in the Navigate tab".into()),
            };
            explorer.answer(&request)
        })
    });
    let markdown = answer.to_markdown();
    let symbols = answer
        .symbols
        .items
        .iter()
        .map(|s| web::protocol::MapSymbol {
            id: s.at.id.clone(),
            name: s.at.name.clone(),
            kind: s.at.kind.clone(),
            node: nav.as_ref().and_then(|n| n.node_of(&s.at.id)),
            anchor: anchor(&s.at),
            explanation: s.explanation.as_ref().map(|e| e.text.clone()),
            stale: s.explanation.as_ref().is_some_and(|e| e.freshness.as_ref().is_some_and(|f| !f.is_current())),
        })
        .collect();
    let link = |r: &::explore::SymbolRef| web::protocol::MapLink {
        id: r.id.clone(),
        name: r.name.clone(),
        kind: r.kind.clone(),
        node: nav.as_ref().and_then(|n| n.node_of(&r.id)),
        anchor: anchor(r),
    };
    let outline = web::protocol::MapOutline {
        matched: answer.summary.matched as u64,
        files: answer.summary.files as u64,
        not_found: answer.summary.not_found.clone(),
        notes: answer.summary.notes.clone(),
        flow: answer.flow.as_ref().map_or_else(Vec::new, |f| {
            f.steps.iter().map(|s| (s.via.map(|v| v.as_str().to_owned()), link(&s.at))).collect()
        }),
        other_paths: answer.flow.as_ref().map_or(0, |f| f.other_paths as u64),
        blast: answer
            .blast_radius
            .items
            .iter()
            .map(|b| web::protocol::BlastView {
                root: link(&b.root),
                groups: b
                    .groups
                    .iter()
                    // A relation nothing takes part in says nothing.
                    .filter(|g| g.count > 0)
                    .map(|g| web::protocol::BlastGroupView {
                        label: g.label(str::to_owned),
                        names: g.names.items.clone(),
                        more: g.names.omitted as u64,
                    })
                    .collect(),
            })
            .collect(),
        blast_more: answer.blast_radius.omitted as u64,
        dispatch: answer
            .dispatch
            .items
            .iter()
            .map(|d| web::protocol::DispatchView {
                caller: d.caller.as_ref().map(link),
                callee: link(&d.callee),
                supertype: d.supertype.clone(),
                implementations: d.implementations.items.iter().map(link).collect(),
                more: d.implementations.omitted as u64,
            })
            .collect(),
        relationships: answer
            .relationships
            .kinds
            .iter()
            .map(|k| {
                let pairs = k.pairs.items.iter().map(|p| (p.from.clone(), p.to.clone())).collect();
                web::protocol::RelationView { label: k.label.to_owned(), pairs, more: k.pairs.omitted as u64 }
            })
            .collect(),
        more: answer.more.clone(),
    };
    let chars = markdown.chars().count() as u64;
    let answer = web::protocol::ExploreAnswer {
        question,
        mode: format!("{:?}", answer.mode).to_lowercase(),
        tokens: ::explore::estimate_tokens(&markdown),
        markdown,
        symbols,
        outline,
        chars,
        millis: now_ms() - started,
        index_millis,
    };
    post(&FromWorker::Explored { answer });
}

/// `file:line` of a map's symbol, when the model has both.
fn anchor(r: &::explore::SymbolRef) -> Option<String> {
    Some(format!("{}:{}", r.file.as_ref()?, r.line?))
}

pub(super) fn text_search(query: String) {
    let store = STATE.with(|s| s.borrow().store.clone());
    let Some(store) = store else {
        post(&FromWorker::TextHits { query, hits: vec![], message: Some("no store is open in this tab".into()) });
        return;
    };
    let nav = navigator();
    match store.search_text(&query, 50) {
        Ok(hits) => {
            let hits = hits
                .into_iter()
                .map(|h| web::protocol::TextHitView {
                    node: nav.as_ref().and_then(|n| n.node_of(&h.id)),
                    id: h.id,
                    level: h.level.as_str().to_owned(),
                    name: h.name,
                    concept: h.concept,
                    snippet: h.snippet,
                })
                .collect();
            post(&FromWorker::TextHits { query, hits, message: None });
        }
        Err(e) => post(&FromWorker::TextHits { query, hits: vec![], message: Some(e.to_string()) }),
    }
}
