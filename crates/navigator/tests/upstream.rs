//! The navigator on the upstream Java fixture (16 files, 179 entities, 188
//! edges): the tree, lookups, search, dependency rows, paging, cycles and the
//! two graph views.

mod common;

use common::{assert_layered, names, node};
use hashbrown::HashSet;
use navigator::{GraphView, Navigator, NodeId, Role};

fn fixture() -> (model::Model, Navigator) {
    let model = common::model("upstream-java/model.jsonl");
    let nav = Navigator::build(&model);
    (model, nav)
}

const P: &str = "java:com.acme.order";

#[test]
fn nodes_are_modules_types_and_their_flat_members() {
    let (model, nav) = fixture();
    assert_eq!((model.entity_count(), model.edge_count()), (179, 188));
    // 10 packages, 39 types (19 corpus, 20 stub), 58 operations (17
    // constructors + 40 methods + the field-initializer lambda; members of
    // anonymous classes are not nodes), 20 attributes.
    let count = |c: &str| (0..nav.len() as NodeId).filter(|&n| nav.node(n).category == c).count();
    assert_eq!((count("module"), count("type"), count("operation"), count("attribute")), (10, 39, 58, 20));
    assert_eq!(nav.len(), 127);
    assert_eq!(nav.view_name(), "all");
    // Parameters, locals and anonymous-class members have no node.
    assert_eq!(nav.node_of(&format!("{P}/AbstractOrder.<init>(java.lang.String)#param:reference")), None);
    assert_eq!(nav.node_of(&format!("{P}/Batch#com/acme/order/Batch.java:48:32.price()")), None);
    assert_eq!(nav.node_of("java:nowhere/Nothing"), None);
}

#[test]
fn roots_and_nesting_follow_the_model() {
    let (_, nav) = fixture();
    // Modules first (by name), then the parentless stub types.
    assert_eq!(
        names(&nav, nav.roots().iter().copied()),
        [
            "com.acme.order",
            "com.megacorp.ledger",
            "java.io",
            "java.lang",
            "java.lang.annotation",
            "java.time",
            "java.util",
            "java.util.function",
            "AuditTrail",
            "Invoice"
        ]
    );
    let order = node(&nav, P);
    assert_eq!(order, 0);
    // Sub-packages nest as declared (parent: 0), then the package's types.
    let children: Vec<NodeId> = nav.children(order).collect();
    assert_eq!(
        names(&nav, children.iter().copied()),
        [
            "com.acme.order.adapter",
            "com.acme.order.legacy",
            "AbstractOrder",
            "Audited",
            "Basket",
            "Batch",
            "Channel",
            "Discountable",
            "EmptyBasketException",
            "Money",
            "Notifications",
            "Order",
            "OrderService",
            "Priceable",
            "Reporting",
            "StockGuard"
        ]
    );
    // Nested types under their outer type, before the operations, then attributes.
    let basket = node(&nav, &format!("{P}/Basket"));
    assert_eq!(
        names(&nav, nav.children(basket)),
        ["Cursor", "Line", "<init>()", "add", "cursor", "total", "lines", "total"]
    );
    let cursor = node(&nav, &format!("{P}/Basket.Cursor"));
    assert_eq!(nav.parent(cursor), Some(basket));
    assert_eq!(nav.ancestors(cursor), vec![order, basket]);
    let discount = node(&nav, &format!("{P}/Basket.Line.Discount"));
    assert_eq!(names(&nav, nav.ancestors(discount)), ["com.acme.order", "Basket", "Line"]);
    assert!(nav.ancestors(order).is_empty());
    // A stub type under its stub package.
    let string = node(&nav, "java:java.lang/String");
    assert_eq!(names(&nav, nav.ancestors(string)), ["java.lang"]);
    assert!(nav.node(string).stub);
}

#[test]
fn preorder_and_sorted_children_everywhere() {
    let (_, nav) = fixture();
    let mut seen = 0usize;
    for n in 0..nav.len() as NodeId {
        let v = nav.node(n);
        assert_eq!(nav.node_of(&v.id), Some(n), "every node has its id");
        if let Some(p) = v.parent {
            assert!(p < n, "a parent precedes its children");
        }
        let kids: Vec<NodeId> = nav.children(n).collect();
        assert_eq!(kids.len() as u32, v.children);
        seen += kids.len();
        let key = |c: NodeId| (nav.category(c), nav.name(c).to_string());
        assert!(kids.windows(2).all(|w| key(w[0]) <= key(w[1])), "children of {} sorted", v.name);
        assert_eq!(v.breadcrumb, names(&nav, nav.ancestors(n)));
    }
    assert_eq!(seen + nav.roots().len(), nav.len());
}

#[test]
fn node_view_carries_id_anchor_and_fans() {
    let (_, nav) = fixture();
    let money = nav.node(node(&nav, &format!("{P}/Money")));
    assert_eq!(money.name, "Money");
    assert_eq!((money.kind.as_str(), money.category.as_str(), money.stub), ("record", "type", false));
    assert_eq!(money.breadcrumb, ["com.acme.order"]);
    let anchor = money.anchor.expect("an anchor");
    assert_eq!((anchor.file.as_str(), anchor.start, anchor.end), ("com/acme/order/Money.java", 4, 18));
    // dependentsOf(Money): 7 distinct; Money depends on Priceable and Override.
    assert_eq!((money.fan_in, money.fan_out), (7, 2));
    // A constructor shows its signature as its name; members keep their ids.
    let init = nav.node(node(&nav, &format!("{P}/Money.<init>(long)")));
    assert_eq!((init.name.as_str(), init.signature.as_deref()), ("<init>(long)", Some("<init>(long)")));
    assert_eq!(init.category, "operation");
    let json = serde_json::to_string(&init).unwrap();
    assert_eq!(serde_json::from_str::<navigator::NodeView>(&json).unwrap(), init);
}

#[test]
fn tree_rows_expand_page_and_hide_stubs() {
    let (_, nav) = fixture();
    let none = HashSet::new();
    let (rows, total) = nav.rows(&none, true, 0, 100);
    assert_eq!(total, 10);
    assert_eq!(rows.iter().map(|r| r.node).collect::<Vec<_>>(), nav.roots());
    assert!(rows
        .iter()
        .all(|r| r.depth == 0 && !r.expanded && r.has_children == (r.name != "AuditTrail" && r.name != "Invoice")));
    // Externals hidden: only the corpus package is left.
    let (rows, total) = nav.rows(&none, false, 0, 100);
    assert_eq!((total, names(&nav, rows.iter().map(|r| r.node))), (1, vec!["com.acme.order".to_string()]));

    let order = node(&nav, P);
    let basket = node(&nav, &format!("{P}/Basket"));
    let expanded: HashSet<NodeId> = [order, basket].into_iter().collect();
    let (rows, total) = nav.rows(&expanded, true, 0, usize::MAX);
    assert_eq!(total, 10 + 16 + 8);
    assert_eq!(rows.len(), total);
    let cursor = node(&nav, &format!("{P}/Basket.Cursor"));
    let at = rows.iter().position(|r| r.node == cursor).unwrap();
    assert_eq!(at, 6);
    assert_eq!((rows[at].depth, rows[at].has_children, rows[at].expanded), (2, true, false));
    assert!(rows[5].expanded && rows[5].node == basket);
    // Paging is a window on the same sequence.
    let (page, total2) = nav.rows(&expanded, true, 5, 3);
    assert_eq!(total2, total);
    assert_eq!(page, rows[5..8].to_vec());
    let (page, _) = nav.rows(&expanded, true, total, 10);
    assert!(page.is_empty());

    // row_index: the ancestors count as expanded.
    assert_eq!(nav.row_index(&none, true, cursor), Some(6));
    assert_eq!(nav.row_index(&expanded, true, cursor), Some(6));
    assert_eq!(nav.row_index(&none, true, order), Some(0));
    let string = node(&nav, "java:java.lang/String");
    assert_eq!(nav.row_index(&none, false, string), None);
    let idx = nav.row_index(&none, true, string).unwrap();
    let mut reveal = none.clone();
    reveal.extend(nav.ancestors(string));
    let (rows, _) = nav.rows(&reveal, true, 0, usize::MAX);
    assert_eq!(rows[idx].node, string);
    // Every node's row index agrees with the fully expanded listing.
    let all: HashSet<NodeId> = (0..nav.len() as NodeId).collect();
    let (rows, total) = nav.rows(&all, true, 0, usize::MAX);
    assert_eq!(total, nav.len());
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.node, i as NodeId, "fully expanded = preorder");
        assert_eq!(nav.row_index(&all, true, r.node), Some(i));
    }
}

#[test]
fn search_matches_names_and_signatures_with_breadcrumbs() {
    let (_, nav) = fixture();
    let r = nav.search("Cursor", 200);
    // The type Basket.Cursor and the method Basket.cursor().
    assert_eq!(r.total, 2);
    assert!(!r.capped);
    let hit = r.hits.iter().find(|h| h.category == "type").unwrap();
    assert_eq!((hit.name.as_str(), hit.breadcrumb.as_str()), ("Cursor", "com.acme.order › Basket"));
    let method = r.hits.iter().find(|h| h.category == "operation").unwrap();
    assert_eq!((method.name.as_str(), method.signature.as_deref()), ("cursor", Some("cursor()")));
    // Case does not matter; an empty query matches nothing.
    assert_eq!(nav.search("CURSOR", 200), r);
    assert_eq!(nav.search("  ", 200).total, 0);
    // A signature match: `join` and `lines` take `java.lang.String[]`.
    let sig = nav.search("string[]", 200);
    assert_eq!(names(&nav, sig.hits.iter().map(|h| h.node)), ["join", "lines"]);
    assert!(sig.hits.iter().all(|h| h.breadcrumb == "com.acme.order › Reporting"));
    // The cap: hits stop, the total does not.
    let all = nav.search("e", 1000);
    assert!(all.total > 20 && !all.capped);
    let capped = nav.search("e", 5);
    assert_eq!((capped.hits.len(), capped.total, capped.capped), (5, all.total, true));
    assert_eq!(capped.hits[..], all.hits[..5]);
    // Hits come in tree order.
    assert!(all.hits.windows(2).all(|w| w[0].node < w[1].node));
}

#[test]
fn money_dependents_grouped_by_role() {
    let (_, nav) = fixture();
    let money = node(&nav, &format!("{P}/Money"));
    let d = nav.dependencies(money, 0, 200);
    assert_eq!((d.node, d.fan_in, d.fan_out), (money, 7, 2));
    let groups: Vec<(String, String, usize)> =
        d.incoming.iter().map(|g| (g.role.clone(), g.label.clone(), g.total)).collect();
    let expect = |v: &[(&str, &str, usize)]| -> Vec<(String, String, usize)> {
        v.iter().map(|(r, l, n)| (r.to_string(), l.to_string(), *n)).collect()
    };
    assert_eq!(
        groups,
        expect(&[
            ("invokes", "Invocations", 5),
            ("returnType", "Return type", 5),
            ("parameterType", "Parameter type", 2),
            ("fieldType", "Field type", 2),
            ("typeReference", "Type reference", 4),
        ])
    );
    // 18 base edges from 7 distinct dependants (the type dependency graph).
    assert_eq!(d.incoming_total, 18);
    let mut dependants: Vec<String> =
        d.incoming.iter().flat_map(|g| g.rows.iter().map(|r| r.counterpart_name.clone())).collect();
    dependants.sort();
    dependants.dedup();
    assert_eq!(
        dependants,
        ["AbstractOrder", "Batch", "Channel", "Discountable", "Notifications", "Order", "Priceable"]
    );
    // Groups follow the fixed role order.
    let order: Vec<Role> = d.incoming.iter().map(|g| Role::from_name(&g.role).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    // A row: counterpart, the member it lands on, the counterpart's member, provenance, anchor.
    let invokes = &d.incoming[0].rows;
    let from_order = invokes.iter().find(|r| r.counterpart_name == "Order").unwrap();
    assert_eq!(from_order.member.as_deref(), Some("times(int)"));
    assert_eq!(from_order.counterpart_member.as_deref(), Some("discount(int)"));
    assert_eq!(from_order.counterpart_member_node, nav.node_of(&format!("{P}/Order.discount(int)")));
    assert_eq!(from_order.counterpart_breadcrumb, "com.acme.order");
    assert_eq!(from_order.provenance, "declared");
    let a = from_order.anchor.as_ref().unwrap();
    assert_eq!((a.file.as_str(), a.start, a.end), ("com/acme/order/Order.java", 33, 33));
    // Parameters are a row's detail.
    let params = &d.incoming[2].rows;
    let details: Vec<Option<&str>> = params.iter().map(|r| r.detail.as_deref()).collect();
    assert_eq!(details, [Some("parameter #2 (prices)"), Some("parameter #1 (base)")]);
    assert_eq!(params[0].counterpart_member.as_deref(), Some("<init>(int[],com.acme.order.Money[])"));
    // Outgoing: implements Priceable; the @Override on price() is a type reference.
    let out: Vec<(String, usize)> = d.outgoing.iter().map(|g| (g.role.clone(), g.total)).collect();
    assert_eq!(out, [("implements".to_string(), 1), ("typeReference".to_string(), 1)]);
    let over = &d.outgoing[1].rows[0];
    assert_eq!((over.counterpart_name.as_str(), over.detail.as_deref()), ("Override", Some("annotation")));
    assert_eq!(over.member.as_deref(), Some("price()"));
    assert_eq!(over.counterpart_breadcrumb, "java.lang");
}

#[test]
fn an_operation_shows_the_rows_it_carries() {
    let (_, nav) = fixture();
    let discount = node(&nav, &format!("{P}/Order.discount(int)"));
    let d = nav.dependencies(discount, 0, 200);
    assert_eq!((d.fan_in, d.fan_out, d.incoming_total, d.outgoing_total), (0, 5, 0, 6));
    let rows: Vec<(String, String, Option<String>, Option<String>)> = d
        .outgoing
        .iter()
        .flat_map(|g| {
            g.rows
                .iter()
                .map(|r| (g.role.clone(), r.counterpart_name.clone(), r.counterpart_member.clone(), r.detail.clone()))
        })
        .collect();
    let s = |v: &str| v.to_string();
    assert_eq!(
        rows,
        [
            (s("invokes"), s("Money"), Some(s("times(int)")), None),
            (s("reads"), s("AbstractOrder"), Some(s("total")), None),
            (s("reads"), s("LedgerClient"), None, None),
            (s("returnType"), s("Money"), None, None),
            (s("typeReference"), s("Audited"), None, Some(s("annotation"))),
            (s("typeReference"), s("Override"), None, Some(s("annotation"))),
        ]
    );
    assert!(d.outgoing.iter().flat_map(|g| &g.rows).all(|r| r.member.as_deref() == Some("discount(int)")));
    // The rows it lands on: Money.zero() is invoked from four types.
    let zero = node(&nav, &format!("{P}/Money.zero()"));
    let d = nav.dependencies(zero, 0, 200);
    assert_eq!((d.fan_in, d.incoming_total, d.outgoing_total), (4, 4, 0));
    assert_eq!(d.incoming[0].role, "invokes");
    // A field: Order.trail's declared type is a field-type row.
    let trail = node(&nav, &format!("{P}/Order.trail"));
    let d = nav.dependencies(trail, 0, 200);
    assert_eq!(d.outgoing[0].role, "fieldType");
    assert_eq!(d.outgoing[0].rows[0].counterpart_name, "StringBuilder");
    // A local variable's type.
    let bill = node(&nav, &format!("{P}/OrderService.bill(com.acme.order.Order)"));
    let d = nav.dependencies(bill, 0, 200);
    let local = d.outgoing.iter().find(|g| g.role == "localVariableType").unwrap();
    assert_eq!(local.rows[0].detail.as_deref(), Some("local variable (invoice)"));
    // A throw site and its `throws` clause.
    let ensure = node(&nav, &format!("{P}/StockGuard.ensure(int)"));
    let d = nav.dependencies(ensure, 0, 200);
    let details: Vec<Option<&str>> = d.outgoing.iter().flat_map(|g| &g.rows).map(|r| r.detail.as_deref()).collect();
    assert_eq!(details.iter().filter(|d| **d == Some("throw")).count(), 2);
}

#[test]
fn rows_page_per_group() {
    let (_, nav) = fixture();
    let money = node(&nav, &format!("{P}/Money"));
    let all = nav.dependencies(money, 0, 200);
    let page = nav.dependencies(money, 2, 2);
    assert_eq!(page.incoming.len(), all.incoming.len());
    for (p, a) in page.incoming.iter().zip(&all.incoming) {
        assert_eq!(p.total, a.total);
        let end = a.rows.len().min(4);
        assert_eq!(p.rows[..], a.rows[2.min(end)..end]);
    }
    let past = nav.dependencies(money, 50, 200);
    assert!(past.incoming.iter().all(|g| g.rows.is_empty() && g.total > 0));
    assert_eq!(past.incoming_total, 18);
    let unknown = nav.dependencies(nav.len() as NodeId, 0, 200);
    assert!(unknown.incoming.is_empty() && unknown.outgoing.is_empty());
    assert!(nav.ancestors(nav.len() as NodeId).is_empty());
    assert_eq!(nav.neighbourhood(nav.len() as NodeId, 10).nodes.len(), 0);
    let none = nav.dependencies(money, 0, 0);
    assert_eq!((none.incoming_total, none.outgoing_total), (18, 2));
}

#[test]
fn self_owner_edges_are_counted_not_shown() {
    let (_, nav) = fixture();
    let d = nav.diagnostics();
    assert_eq!(d.dropped_deps, 0);
    // Every row crosses owners.
    for n in 0..nav.len() as NodeId {
        let v = nav.dependencies(n, 0, 1000);
        for g in v.incoming.iter().chain(&v.outgoing) {
            for r in &g.rows {
                assert_ne!(Some(r.counterpart), Some(n).filter(|_| nav.category(n).is_owner()));
            }
        }
    }
    // Rows + self-owner edges = base edges (the fixture's two compound
    // assignments stay inside their types).
    assert_eq!(nav.dep_count() as u64 + d.self_deps, 188);
}

#[test]
fn the_two_type_cycles_and_no_module_cycle() {
    let (_, nav) = fixture();
    let reports = nav.cycles();
    assert_eq!(reports.iter().map(|r| r.level.as_str()).collect::<Vec<_>>(), ["module", "type"]);
    assert!(reports[0].components.is_empty());
    let types = &reports[1];
    let members: Vec<Vec<String>> =
        types.components.iter().map(|c| c.members.iter().map(|&m| nav.id(m).to_string()).collect()).collect();
    assert_eq!(
        members,
        [
            vec![format!("{P}/Basket"), format!("{P}/Basket.Cursor")],
            vec![format!("{P}/Money"), format!("{P}/Priceable")]
        ]
    );
    let basket = &types.components[0];
    assert_eq!((basket.weight, basket.feedback_weight), (7, 1));
    let cut: Vec<(String, String)> = basket
        .edges
        .iter()
        .filter(|e| e.feedback)
        .map(|e| (nav.name(e.from).to_string(), nav.name(e.to).to_string()))
        .collect();
    assert_eq!(cut, [("Cursor".to_string(), "Basket".to_string())]);
    let money = &types.components[1];
    assert_eq!((money.weight, money.feedback_weight, money.edges.len()), (8, 1, 3));
    let cut: Vec<(&str, &str)> =
        money.edges.iter().filter(|e| e.feedback).map(|e| (nav.name(e.from), nav.name(e.to))).collect();
    assert_eq!(cut, [("Priceable", "Money")]);
    assert!(money.edges.iter().all(|e| e.all_declared && e.provenances == ["declared"]));
    assert_eq!(types.tangle.metric, 0.4);
    assert_eq!(types.tangle.feedback_edge_count, 2);
}

#[test]
fn the_neighbourhood_reads_in_one_direction() {
    let (_, nav) = fixture();
    let money = node(&nav, &format!("{P}/Money"));
    let g = nav.neighbourhood(money, 100);
    assert_eq!(g.center, Some(money));
    assert_eq!(g.left_out, 0);
    assert_eq!(g.nodes.len(), 1 + 7 + 1, "Money, its 7 dependants, Override");
    assert_layered(&g);
    let layer = |n: NodeId| g.nodes.iter().find(|v| v.node == n).unwrap().layer;
    for e in &g.edges {
        match e.direction.as_str() {
            "in" => assert_eq!(e.to, money),
            "out" => assert_eq!(e.from, money),
            _ => assert!(e.from != money && e.to != money),
        }
    }
    // Dependants to the left; of Priceable ⇄ Money (a cycle) one edge runs back.
    let priceable = node(&nav, &format!("{P}/Priceable"));
    for e in g.edges.iter().filter(|e| e.direction == "in" && e.from != priceable) {
        assert!(layer(e.from) < layer(money));
    }
    let pair: Vec<bool> = g
        .edges
        .iter()
        .filter(|e| (e.from, e.to) == (priceable, money) || (e.from, e.to) == (money, priceable))
        .map(|e| e.feedback)
        .collect();
    assert_eq!(pair.len(), 2);
    assert!(pair[0] != pair[1], "{pair:?}");
    let from_batch = g.edges.iter().find(|e| e.to == money && nav.name(e.from) == "Batch").unwrap();
    assert_eq!(from_batch.count, 7);
    assert_eq!(from_batch.roles, ["invokes", "parameterType", "fieldType", "typeReference"]);
    assert!(!from_batch.inferred);
    // The cut keeps the heaviest.
    let small = nav.neighbourhood(money, 3);
    assert_eq!((small.nodes.len(), small.left_out), (3, 6));
    assert_eq!(small.nodes[0].node, money);
    assert_eq!(nav.name(small.nodes[1].node), "Batch");
    assert_layered(&small);
    // An operation: a star of the members and owners it touches.
    let discount = node(&nav, &format!("{P}/Order.discount(int)"));
    let g = nav.neighbourhood(discount, 100);
    assert_layered(&g);
    assert_eq!(g.nodes.len(), 1 + 6);
    assert!(g.edges.iter().all(|e| e.direction == "out" && e.from == discount));
    assert!(g.nodes.iter().any(|v| v.name == "times" && v.category == "operation"));
}

#[test]
fn the_module_overview_rolls_rows_up_to_modules() {
    let (_, nav) = fixture();
    let g = nav.module_overview(1200);
    assert_eq!((g.center, g.nodes.len(), g.left_out), (None, 10, 0));
    assert!(g.nodes.iter().all(|v| v.category == "module"));
    assert!(g.edges.iter().all(|e| e.from != e.to && e.direction == "none"));
    assert_layered(&g);
    let order = node(&nav, P);
    let ledger = node(&nav, "java:com.megacorp.ledger");
    let edge = g.edges.iter().find(|e| e.from == order && e.to == ledger).unwrap();
    assert!(edge.inferred, "the derived imports");
    assert!(edge.roles.contains(&"import".to_string()));
    // java.lang is the most depended-on module: the cap keeps it.
    let top = nav.module_overview(1);
    assert_eq!((top.nodes.len(), top.left_out), (1, 9));
    assert_eq!(top.nodes[0].name, "java.lang");
    assert_eq!(top.nodes[0].fan_in, g.nodes.iter().find(|v| v.name == "java.lang").unwrap().fan_in);
}

#[test]
fn every_upstream_view_is_readable() {
    let (_, nav) = fixture();
    assert_eq!(common::assert_every_view_is_readable(&nav, 120), 2 * (127 + 1));
    // A package reads as its last segment, a member as its own name.
    let discount = node(&nav, &format!("{P}/Order.discount(int)"));
    let g = nav.graph(Some(discount), 120, true);
    assert!(g.nodes.iter().any(|v| v.label == "times" && v.id.ends_with("Money.times(int)")), "{:?}", g.nodes);
    let overview = nav.graph(None, 120, true);
    let lang = overview.nodes.iter().find(|v| v.name == "java.lang").expect("java.lang");
    assert_eq!((lang.label.as_str(), lang.id.as_str()), ("lang", "java:java.lang"));
}

#[test]
fn views_serialize() {
    let (_, nav) = fixture();
    let money = node(&nav, &format!("{P}/Money"));
    let d = nav.dependencies(money, 0, 200);
    let back: navigator::DepView = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
    let g = nav.neighbourhood(money, 50);
    let back: GraphView = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
    assert_eq!(back, g);
    let c = nav.cycles();
    let back: Vec<navigator::CycleReport> = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
}
