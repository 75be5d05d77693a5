//! Building a [`Navigator`] from a model: nodes in preorder, rows, the
//! aggregated graphs and the cycle reports. O(V + E log E), one pass over
//! the edges.

use std::hash::BuildHasher;

use analyzer::{cycles, fold_graph, CodeGraph, FoldOptions, Level, View};
use model::{cmp_utf16, EdgeKind, Model, Provenance};

use crate::vocab::{Category, Role, RoleSet};
use crate::{CycleComponent, CycleEdge, CycleReport, Diagnostics, Link, Navigator, Pool, Row, Tangle, NONE};

/// Longest parent chain walked for one entity (guards parent cycles).
const MAX_WALK: usize = 4096;

pub(crate) fn build(model: &Model, view: &View) -> Navigator {
    let graph = CodeGraph::new(model);
    let n = model.entity_count() as usize;

    // 1. Which entities are nodes, and their categories.
    let cat = categories(model, &graph, view);

    // 2. Tree parents and each parent's children, sorted.
    let tree = Tree::of(model, &graph, &cat);
    let display = &tree.display;

    // 3. Preorder.
    let Preorder { node_of, order, parent, depth, roots, end, children, children_shown } = Preorder::of(&graph, &tree);
    let len = order.len();

    // 4. Per-node data.
    let mut kinds: Vec<String> = Vec::new();
    let mut kind_index: hashbrown::HashMap<&str, u16> = hashbrown::HashMap::new();
    let mut names = Pool::default();
    let mut signatures = Pool::default();
    let mut ids = Pool::default();
    let mut keys = String::new();
    let mut key_start = Vec::with_capacity(len + 1);
    let mut kind = Vec::with_capacity(len);
    let mut category = Vec::with_capacity(len);
    let mut stub = Vec::with_capacity(len);
    let mut anchors = Vec::with_capacity(len);
    let hasher = hashbrown::DefaultHashBuilder::default();
    let mut by_id = hashbrown::HashTable::with_capacity(len);
    for (node, &e) in order.iter().enumerate() {
        let ent = model.entity(e);
        let k = *kind_index.entry(ent.kind()).or_insert_with(|| {
            kinds.push(ent.kind().to_string());
            (kinds.len() - 1) as u16
        });
        kind.push(k);
        category.push(cat[e as usize].expect("a node has a category"));
        stub.push(graph.is_stub(e));
        anchors.push(ent.anchor().map_or((NONE, 0, 0), |a| (a.file, a.start, a.end)));
        let name = display[e as usize];
        names.push(Some(name));
        let signature = ent.signature();
        signatures.push(signature);
        let id = graph.id(e);
        ids.push(Some(id));
        by_id.insert_unique(hasher.hash_one(&**id), node as u32, |&m| hasher.hash_one(ids.get(m).unwrap_or("")));
        key_start.push(keys.len() as u32);
        push_lowercase(&mut keys, name);
        keys.push('\n');
        if let Some(s) = signature.filter(|s| *s != name) {
            push_lowercase(&mut keys, s);
            keys.push('\n');
        }
    }
    key_start.push(keys.len() as u32);

    // 5. Entities: the member node carrying each, its owner, a detail text.
    let (ent_member, ent_owner) = entity_places(model, &graph, &node_of, &category);
    let mut details = Pool::default();
    let mut ent_detail = vec![NONE; n];
    let mut detail_done = vec![false; n];

    // 6. Rows.
    let mut rows: Vec<Row> = Vec::with_capacity(model.edge_count() as usize);
    let mut diagnostics = Diagnostics::default();
    for edge in model.edges() {
        if !view.includes_edge(&graph, edge) {
            continue;
        }
        let (from, to) = (ent_owner[edge.from as usize], ent_owner[edge.to as usize]);
        if from == NONE || to == NONE {
            diagnostics.dropped_deps += 1;
            continue;
        }
        if from == to {
            diagnostics.self_deps += 1;
            continue;
        }
        for e in [edge.from, edge.to] {
            if !detail_done[e as usize] {
                detail_done[e as usize] = true;
                if node_of[e as usize] == NONE {
                    if let Some(d) = entity_detail(model, e) {
                        ent_detail[e as usize] = details.push(Some(&d));
                    }
                }
            }
        }
        let row = |role| Row {
            from,
            to,
            from_ent: edge.from,
            to_ent: edge.to,
            file: edge.anchor.file,
            start: edge.anchor.start,
            end: edge.anchor.end,
            role,
            provenance: edge.provenance,
            kind: edge.kind,
        };
        match edge.kind {
            EdgeKind::Access => {
                let (read, write) = (edge.is_read().unwrap_or(false), edge.is_write().unwrap_or(false));
                if read || !write {
                    rows.push(row(Role::Reads));
                }
                if write {
                    rows.push(row(Role::Writes));
                }
            }
            EdgeKind::Reference => {
                let role = reference_role(model, edge.from, edge.to, node_of[edge.from as usize], &category);
                rows.push(row(role));
            }
            kind => rows.push(row(Role::of_kind(kind).expect("a kind with one role"))),
        }
    }
    let member = |e: u32| ent_member[e as usize];
    rows.sort_unstable_by(|a, b| {
        (a.from, a.role, a.to)
            .cmp(&(b.from, b.role, b.to))
            .then_with(|| (member(a.from_ent), member(a.to_ent)).cmp(&(member(b.from_ent), member(b.to_ent))))
            .then_with(|| {
                (a.file, a.start, a.end, a.from_ent, a.to_ent).cmp(&(b.file, b.start, b.end, b.from_ent, b.to_ent))
            })
    });
    let out_start = offsets(len, rows.iter().map(|r| r.from));
    // Incoming: a stable counting sort by `to` keeps (from, role, …) inside
    // each bucket; a stable sort by role then gives (to, role, from, …).
    let in_start = offsets(len, rows.iter().map(|r| r.to));
    let mut in_fill = in_start.clone();
    let mut in_rows = vec![0u32; rows.len()];
    for (k, r) in rows.iter().enumerate() {
        let slot = &mut in_fill[r.to as usize];
        in_rows[*slot as usize] = k as u32;
        *slot += 1;
    }
    for t in 0..len {
        let bucket = &mut in_rows[in_start[t] as usize..in_start[t + 1] as usize];
        bucket.sort_by_key(|&k| rows[k as usize].role);
    }

    // 7. Owner-level links and fan-in / fan-out.
    let (mut links, links_out, fan_in, fan_out) = owner_links(&rows, &out_start, len, &ent_member);

    // 8. Module-level links: each end rolled up to its owning module.
    let mut module_links = module_links(&rows, &graph, &node_of);

    // 9. Cycle reports, module level first.
    let cycles = [Level::Module, Level::Type].map(|level| cycle_report(&graph, view, level, &node_of)).to_vec();

    for pool in [&mut names, &mut signatures, &mut ids, &mut details] {
        pool.shrink();
    }
    keys.shrink_to_fit();
    rows.shrink_to_fit();
    links.shrink_to_fit();
    module_links.shrink_to_fit();
    Navigator {
        view: view.descriptor().name.clone(),
        files: model.files().to_vec(),
        kinds,
        entity: order,
        parent,
        end,
        depth,
        category,
        stub,
        kind,
        children,
        children_shown,
        names,
        signatures,
        ids,
        anchors,
        fan_in,
        fan_out,
        roots,
        by_id,
        hasher,
        keys,
        key_start,
        ent_member,
        ent_detail,
        details,
        rows,
        out_start,
        in_rows,
        in_start,
        links,
        links_out,
        module_links,
        cycles,
        diagnostics,
    }
}

/// Phase 1: which entities are nodes (kept by the view), and their categories:
/// modules and types by their traits, members when their parent is an owner.
fn categories(model: &Model, graph: &CodeGraph<'_>, view: &View) -> Vec<Option<Category>> {
    let n = model.entity_count() as usize;
    let mut cat: Vec<Option<Category>> = vec![None; n];
    for i in 0..n as u32 {
        if view.keeps_entity(graph, i) {
            cat[i as usize] = Category::of_container(model.entity(i).trait_mask());
        }
    }
    for i in 0..n as u32 {
        let e = model.entity(i);
        if cat[i as usize].is_some() || !view.keeps_entity(graph, i) {
            continue;
        }
        let Some(p) = e.parent().filter(|&p| (p as usize) < n) else { continue };
        if cat[p as usize].is_some_and(Category::is_owner) {
            cat[i as usize] = Category::of_member(e.trait_mask());
        }
    }
    cat
}

/// Phase 2: the tree's parents and children. A member hangs under its
/// parent; a module or type under the nearest ancestor that is a module or
/// type node. Candidates (every node) are sorted by (category, name, id);
/// each parent's children keep that order (a stable counting sort).
struct Tree<'m> {
    /// Every node entity, sorted.
    candidates: Vec<u32>,
    /// Entity → its tree parent entity, or `NONE`.
    tree_parent: Vec<u32>,
    /// Entity → the name it is shown by ("" for non-nodes).
    display: Vec<&'m str>,
    child_offsets: Vec<u32>,
    child_items: Vec<u32>,
}

impl<'m> Tree<'m> {
    fn of(model: &'m Model, graph: &CodeGraph<'_>, cat: &[Option<Category>]) -> Tree<'m> {
        let n = model.entity_count() as usize;
        let mut tree_parent = vec![NONE; n];
        let mut candidates: Vec<u32> = Vec::new();
        for i in 0..n as u32 {
            let Some(c) = cat[i as usize] else { continue };
            candidates.push(i);
            let mut p = model.entity(i).parent();
            if !c.is_owner() {
                tree_parent[i as usize] = p.expect("a member has a parent");
                continue;
            }
            for _ in 0..MAX_WALK {
                match p {
                    Some(q) if (q as usize) < n && q != i => {
                        if cat[q as usize].is_some_and(Category::is_owner) {
                            tree_parent[i as usize] = q;
                            break;
                        }
                        p = model.entity(q).parent();
                    }
                    _ => break,
                }
            }
        }
        let display: Vec<&str> =
            (0..n as u32).map(|i| if cat[i as usize].is_some() { display_name(model.entity(i)) } else { "" }).collect();
        candidates.sort_unstable_by(|&a, &b| {
            cat[a as usize]
                .cmp(&cat[b as usize])
                .then_with(|| cmp_utf16(display[a as usize], display[b as usize]))
                .then_with(|| graph.cmp(a, b))
        });
        let mut child_offsets = vec![0u32; n + 1];
        for &c in &candidates {
            let p = tree_parent[c as usize];
            if p != NONE {
                child_offsets[p as usize + 1] += 1;
            }
        }
        for i in 0..n {
            child_offsets[i + 1] += child_offsets[i];
        }
        let mut fill = child_offsets.clone();
        let mut child_items = vec![0u32; child_offsets[n] as usize];
        for &c in &candidates {
            let p = tree_parent[c as usize];
            if p != NONE {
                child_items[fill[p as usize] as usize] = c;
                fill[p as usize] += 1;
            }
        }
        Tree { candidates, tree_parent, display, child_offsets, child_items }
    }

    fn children_of(&self, e: u32) -> &[u32] {
        &self.child_items[self.child_offsets[e as usize] as usize..self.child_offsets[e as usize + 1] as usize]
    }
}

/// Phase 3: the nodes in preorder. Roots first in sorted order; then, should
/// a parent cycle leave candidates unreached, each of them becomes a root.
struct Preorder {
    node_of: Vec<u32>,
    order: Vec<u32>,
    parent: Vec<u32>,
    depth: Vec<u32>,
    roots: Vec<u32>,
    end: Vec<u32>,
    children: Vec<u32>,
    children_shown: Vec<u32>,
}

impl Preorder {
    fn of(graph: &CodeGraph<'_>, tree: &Tree<'_>) -> Preorder {
        let n = tree.tree_parent.len();
        let mut node_of = vec![NONE; n];
        let mut order: Vec<u32> = Vec::with_capacity(tree.candidates.len());
        let mut parent: Vec<u32> = Vec::with_capacity(tree.candidates.len());
        let mut depth: Vec<u32> = Vec::with_capacity(tree.candidates.len());
        let mut roots = Vec::new();
        let mut stack: Vec<(u32, u32, u32)> = Vec::new();
        let mut visit = |start: u32, stack: &mut Vec<(u32, u32, u32)>, roots: &mut Vec<u32>| {
            if node_of[start as usize] != NONE {
                return;
            }
            roots.push(order.len() as u32);
            stack.push((start, NONE, 0));
            while let Some((e, p, d)) = stack.pop() {
                if node_of[e as usize] != NONE {
                    continue;
                }
                let id = order.len() as u32;
                node_of[e as usize] = id;
                order.push(e);
                parent.push(p);
                depth.push(d);
                for &c in tree.children_of(e).iter().rev() {
                    stack.push((c, id, d + 1));
                }
            }
        };
        for &c in &tree.candidates {
            if tree.tree_parent[c as usize] == NONE {
                visit(c, &mut stack, &mut roots);
            }
        }
        for &c in &tree.candidates {
            visit(c, &mut stack, &mut roots);
        }
        let len = order.len();
        let mut end: Vec<u32> = (1..=len as u32).collect();
        let mut children = vec![0u32; len];
        let mut children_shown = vec![0u32; len];
        for i in (0..len).rev() {
            let p = parent[i];
            if p != NONE {
                end[p as usize] = end[p as usize].max(end[i]);
                children[p as usize] += 1;
                if !graph.is_stub(order[i]) {
                    children_shown[p as usize] += 1;
                }
            }
        }
        Preorder { node_of, order, parent, depth, roots, end, children, children_shown }
    }
}

/// Phase 5: per entity, the member node that carries it (`NONE` when it is
/// an owner or not under a node) and the owner node it belongs to (its type,
/// else its module).
fn entity_places(model: &Model, graph: &CodeGraph<'_>, node_of: &[u32], category: &[Category]) -> (Vec<u32>, Vec<u32>) {
    let n = model.entity_count() as usize;
    let mut ent_member = vec![NONE; n];
    let mut ent_owner = vec![NONE; n];
    for i in 0..n as u32 {
        let mut cur = i;
        for _ in 0..MAX_WALK {
            let node = node_of[cur as usize];
            if node != NONE {
                if !category[node as usize].is_owner() {
                    ent_member[i as usize] = node;
                }
                break;
            }
            match model.entity(cur).parent() {
                Some(p) if (p as usize) < n => cur = p,
                _ => break,
            }
        }
        let placed = |c: Option<u32>| c.map(|c| node_of[c as usize]).filter(|&x| x != NONE);
        ent_owner[i as usize] =
            placed(graph.containing_type(i)).or_else(|| placed(graph.containing_module(i))).unwrap_or(NONE);
    }
    (ent_member, ent_owner)
}

/// Phase 7: owner-level links (the rows of one owner to another, merged) and
/// fan-in / fan-out: distinct counterpart owners, for an owner and for each
/// member by the rows it carries.
fn owner_links(
    rows: &[Row],
    out_start: &[u32],
    len: usize,
    ent_member: &[u32],
) -> (Vec<Link>, Vec<u32>, Vec<u32>, Vec<u32>) {
    let member = |e: u32| ent_member[e as usize];
    let mut links: Vec<Link> = Vec::new();
    let mut links_out = vec![0u32; len + 1];
    let mut scratch: Vec<(u32, Role, Provenance)> = Vec::new();
    for f in 0..len {
        scratch.clear();
        scratch.extend(
            rows[out_start[f] as usize..out_start[f + 1] as usize].iter().map(|r| (r.to, r.role, r.provenance)),
        );
        scratch.sort_unstable_by_key(|s| s.0);
        for &(to, role, provenance) in &scratch {
            match links.last_mut() {
                Some(l) if l.from == f as u32 && l.to == to => l.add(role, provenance),
                _ => links.push(Link::new(f as u32, to, role, provenance)),
            }
        }
        links_out[f + 1] = links.len() as u32;
    }
    let mut fan_in = vec![0u32; len];
    let mut fan_out = vec![0u32; len];
    for l in &links {
        fan_out[l.from as usize] += 1;
        fan_in[l.to as usize] += 1;
    }
    let mut pairs: Vec<u64> = Vec::new();
    for (side, fans) in [(0, &mut fan_out), (1, &mut fan_in)] {
        pairs.clear();
        pairs.extend(rows.iter().filter_map(|r| {
            let (m, other) = if side == 0 { (member(r.from_ent), r.to) } else { (member(r.to_ent), r.from) };
            (m != NONE).then_some((m as u64) << 32 | other as u64)
        }));
        pairs.sort_unstable();
        pairs.dedup();
        for p in &pairs {
            fans[(p >> 32) as usize] += 1;
        }
    }
    (links, links_out, fan_in, fan_out)
}

/// Phase 8: module-level links, each end of a row rolled up to its owning module.
fn module_links(rows: &[Row], graph: &CodeGraph<'_>, node_of: &[u32]) -> Vec<Link> {
    let module_node = |e: u32| graph.containing_module(e).map_or(NONE, |m| node_of[m as usize]);
    let mut module_rows: Vec<(u64, Role, Provenance)> = rows
        .iter()
        .filter_map(|r| {
            let (f, t) = (module_node(r.from_ent), module_node(r.to_ent));
            (f != NONE && t != NONE && f != t).then_some(((f as u64) << 32 | t as u64, r.role, r.provenance))
        })
        .collect();
    module_rows.sort_unstable_by_key(|m| m.0);
    let mut module_links: Vec<Link> = Vec::new();
    for &(key, role, provenance) in &module_rows {
        let (f, t) = ((key >> 32) as u32, key as u32);
        match module_links.last_mut() {
            Some(l) if l.from == f && l.to == t => l.add(role, provenance),
            _ => module_links.push(Link::new(f, t, role, provenance)),
        }
    }
    module_links
}

impl Link {
    fn new(from: u32, to: u32, role: Role, provenance: Provenance) -> Link {
        let mut l = Link { from, to, count: 0, roles: RoleSet::default(), inferred: false };
        l.add(role, provenance);
        l
    }
    fn add(&mut self, role: Role, provenance: Provenance) {
        self.count += 1;
        self.roles.insert(role);
        self.inferred |= provenance != Provenance::Declared;
    }
}

/// `offsets[k]..offsets[k + 1]` = the run of key `k` in a key-sorted list.
fn offsets(len: usize, keys: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut out = vec![0u32; len + 1];
    for k in keys {
        out[k as usize + 1] += 1;
    }
    for i in 0..len {
        out[i + 1] += out[i];
    }
    out
}

fn push_lowercase(out: &mut String, s: &str) {
    if s.is_ascii() {
        out.extend(s.bytes().map(|b| b.to_ascii_lowercase() as char));
    } else {
        out.extend(s.chars().flat_map(char::to_lowercase).filter(|c| *c != '\n'));
    }
}

/// The display name: the name; an unnamed invocable (a constructor, a
/// lambda) shows its signature; else the module path or symbol, else the kind.
fn display_name(e: model::EntityRef<'_>) -> &str {
    e.name()
        .or_else(|| e.signature())
        .or_else(|| if e.is_module_entity() { Some(e.module_path()) } else { None })
        .or_else(|| Some(e.symbol()).filter(|s| !s.is_empty()))
        .unwrap_or_else(|| e.kind())
}

/// The role of a `reference` edge by the end it leaves from.
fn reference_role(model: &Model, from: u32, to: u32, from_node: u32, category: &[Category]) -> Role {
    if from_node != NONE {
        return match category[from_node as usize] {
            Category::Attribute => Role::FieldType,
            Category::Operation if model.entity(from).declared_type() == Some(to) => Role::ReturnType,
            _ => Role::TypeReference,
        };
    }
    match position_in_parent(model, from) {
        Some(Slot::Parameter(_)) => Role::ParameterType,
        Some(Slot::Local) => Role::LocalVariableType,
        None => Role::TypeReference,
    }
}

enum Slot {
    /// 1-based position.
    Parameter(usize),
    Local,
}

/// Whether entity `e` is a parameter or a local of its parent.
fn position_in_parent(model: &Model, e: u32) -> Option<Slot> {
    let p = model.entity(e).parent().filter(|&p| p < model.entity_count())?;
    let parent = model.entity(p);
    if let Some(k) = parent.parameters().and_then(|ps| ps.iter().position(|&x| x == e)) {
        return Some(Slot::Parameter(k + 1));
    }
    parent.local_variables().is_some_and(|ls| ls.contains(&e)).then_some(Slot::Local)
}

/// A detail text for an edge end that is not a node.
fn entity_detail(model: &Model, e: u32) -> Option<String> {
    let ent = model.entity(e);
    let name = ent.name().or_else(|| ent.signature());
    Some(match (position_in_parent(model, e), name) {
        (Some(Slot::Parameter(k)), Some(name)) => format!("parameter #{k} ({name})"),
        (Some(Slot::Parameter(k)), None) => format!("parameter #{k}"),
        (Some(Slot::Local), Some(name)) => format!("local variable ({name})"),
        (Some(Slot::Local), None) => "local variable".to_string(),
        (None, Some(name)) => format!("{} {name}", ent.kind()),
        (None, None) => ent.kind().to_string(),
    })
}

/// `analyzer::cycles` over the fold at `level`, on node ids.
fn cycle_report(graph: &CodeGraph<'_>, view: &View, level: Level, node_of: &[u32]) -> CycleReport {
    let folded = fold_graph(graph, &FoldOptions::new(level, view));
    let report = cycles(&folded, None);
    let node = |id: &str| graph.index_of(id).map(|e| node_of[e as usize]).filter(|&x| x != NONE);
    let components = report
        .components
        .iter()
        .map(|c| {
            // A set, not a scan per link: a tangle of thousands of types has
            // tens of thousands of links and of feedback links.
            let cut: hashbrown::HashSet<(&str, &str)> = c.feedback_edges.iter().map(|f| (&*f.from, &*f.to)).collect();
            CycleComponent {
                members: c.members.iter().filter_map(|m| node(m)).collect(),
                edges: c
                    .edges
                    .iter()
                    .filter_map(|e| {
                        Some(CycleEdge {
                            from: node(&e.from)?,
                            to: node(&e.to)?,
                            count: e.count,
                            provenances: e.provenances.names().into_iter().map(str::to_string).collect(),
                            all_declared: e.all_declared,
                            feedback: cut.contains(&(&*e.from, &*e.to)),
                        })
                    })
                    .collect(),
                weight: c.weight,
                feedback_weight: c.feedback_weight,
                tangle_metric: c.tangle_metric,
            }
        })
        .collect();
    let t = &report.tangle;
    CycleReport {
        level: level.as_str().to_string(),
        components,
        tangle: Tangle {
            feedback_edge_count: t.feedback_edge_count,
            feedback_weight: t.feedback_weight,
            cyclic_weight: t.cyclic_weight,
            metric: t.metric,
        },
    }
}
