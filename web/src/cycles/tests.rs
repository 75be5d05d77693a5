use super::*;
use navigator::{CycleComponent, CycleEdge, Tangle};

fn edge(from: u32, to: u32, count: u32, feedback: bool) -> CycleEdge {
    CycleEdge { from, to, count, provenances: vec!["declared".into()], all_declared: true, feedback }
}

fn tangle(links: usize) -> Tangle {
    Tangle { feedback_edge_count: links, feedback_weight: links as u64, cyclic_weight: 10, metric: 0.1 }
}

/// Module level: none. Type level: a cycle of 2 (2 links, one cut) and one of 3 (3 links, one cut).
fn reports() -> Vec<CycleReport> {
    vec![
        CycleReport { level: "module".into(), components: vec![], tangle: tangle(0) },
        CycleReport {
            level: "type".into(),
            components: vec![
                CycleComponent {
                    members: vec![1, 2],
                    edges: vec![edge(1, 2, 3, false), edge(2, 1, 1, true)],
                    weight: 4,
                    feedback_weight: 1,
                    tangle_metric: 0.25,
                },
                CycleComponent {
                    members: vec![5, 6, 7],
                    edges: vec![edge(5, 6, 1, false), edge(6, 7, 1, false), edge(7, 5, 2, true)],
                    weight: 4,
                    feedback_weight: 2,
                    tangle_metric: 0.5,
                },
            ],
            tangle: tangle(2),
        },
    ]
}

fn name(n: u32) -> String {
    format!("N{n}")
}

fn kinds(rows: &[CycleRow]) -> Vec<String> {
    rows.iter()
        .map(|r| match r {
            CycleRow::Level { level, cycles, .. } => format!("level {level} {cycles}"),
            CycleRow::NoCycle { level } => format!("none {level}"),
            CycleRow::Cycle { level, index, members, links, feedback_links, .. } => {
                format!("cycle {level} {index}: {members} members, {links} links, {feedback_links} cut")
            }
            CycleRow::Member { node, name } => format!("member {node} {name}"),
            CycleRow::Link { from_name, to_name, count, feedback, .. } => {
                format!("link {from_name}->{to_name} x{count}{}", if *feedback { " cut" } else { "" })
            }
        })
        .collect()
}

#[test]
fn every_row_in_order() {
    let list = CycleList::new(reports());
    // module: heading + none; type: heading, cycle 1 (1 + 2 + 2), cycle 2 (1 + 3 + 3).
    assert_eq!(list.total(), 2 + 1 + 5 + 7);
    assert_eq!(list.cycles(), 2);
    assert_eq!(
        kinds(&list.window(0, 100, name)),
        [
            "level module 0",
            "none module",
            "level type 2",
            "cycle type 1: 2 members, 2 links, 1 cut",
            "member 1 N1",
            "member 2 N2",
            "link N1->N2 x3",
            "link N2->N1 x1 cut",
            "cycle type 2: 3 members, 3 links, 1 cut",
            "member 5 N5",
            "member 6 N6",
            "member 7 N7",
            "link N5->N6 x1",
            "link N6->N7 x1",
            "link N7->N5 x2 cut",
        ]
    );
}

#[test]
fn a_window_is_the_same_rows_as_the_whole_list_cut() {
    let list = CycleList::new(reports());
    let all = list.window(0, list.total(), name);
    for offset in 0..=list.total() + 1 {
        for limit in 0..5 {
            let want: Vec<CycleRow> = all.iter().skip(offset as usize).take(limit as usize).cloned().collect();
            assert_eq!(list.window(offset, limit, name), want, "offset {offset}, limit {limit}");
        }
    }
}

#[test]
fn a_window_is_capped_and_the_last_row_is_reachable() {
    let big = CycleReport {
        level: "type".into(),
        components: vec![CycleComponent {
            members: (0..1000).collect(),
            edges: (0..1000).map(|i| edge(i, (i + 1) % 1000, 1, i == 999)).collect(),
            weight: 1000,
            feedback_weight: 1,
            tangle_metric: 0.001,
        }],
        tangle: tangle(1),
    };
    let list = CycleList::new(vec![big]);
    assert_eq!(list.total(), 1 + 1 + 1000 + 1000);
    assert_eq!(list.window(0, 10_000, name).len(), MAX_WINDOW);
    let last = list.window(list.total() - 1, 120, name);
    assert_eq!(kinds(&last), ["link N999->N0 x1 cut"]);
    assert!(list.window(list.total(), 120, name).is_empty());
}

#[test]
fn no_report_is_an_empty_list() {
    let list = CycleList::new(vec![]);
    assert_eq!(list.total(), 0);
    assert!(list.window(0, 10, name).is_empty());
}
