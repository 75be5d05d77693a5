//! The Cycles tab's list, flattened into rows of one height so the page
//! shows a window of it (as the navigator's tree does): built once per
//! model in the Worker from the navigator's cycle reports, then asked for
//! a window at a time ([`CycleList::window`]).
//!
//! Per level (module, then type): a [`CycleRow::Level`] heading, then
//! [`CycleRow::NoCycle`] when the level has none, else per cycle a
//! [`CycleRow::Cycle`] heading, one [`CycleRow::Member`] per member (sorted
//! by id, as the report lists them) and one [`CycleRow::Link`] per internal
//! link (sorted by (from id, to id); the feedback set marked).

use navigator::CycleReport;
use serde::{Deserialize, Serialize};

/// Rows sent at most per window.
pub const MAX_WINDOW: usize = 500;

/// One row of the Cycles list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "row", rename_all = "snake_case")]
pub enum CycleRow {
    /// A level's heading: its cycles and the links that cut them all.
    Level { level: String, cycles: u64, feedback_links: u64, feedback_weight: u64, cyclic_weight: u64 },
    /// The level has no cycle.
    NoCycle { level: String },
    /// A cycle's heading (`index` from 1 within its level).
    Cycle {
        level: String,
        index: u64,
        members: u64,
        links: u64,
        feedback_links: u64,
        weight: u64,
        feedback_weight: u64,
        tangle_metric: f64,
    },
    /// A member of the cycle above, with its navigator node.
    Member { node: u32, name: String },
    /// An internal link of the cycle above: `count` base edges; `feedback`
    /// when it is in the cut that breaks the cycle.
    Link { from: u32, from_name: String, to: u32, to_name: String, count: u32, feedback: bool },
}

/// A run of rows: a level's heading (and its "none" row), or one cycle.
#[derive(Debug, Clone, Copy)]
struct Segment {
    /// First row.
    start: u64,
    level: u32,
    /// `None`: the level's heading.
    cycle: Option<u32>,
}

/// The flattened cycle list of one model.
#[derive(Debug, Clone, Default)]
pub struct CycleList {
    reports: Vec<CycleReport>,
    segments: Vec<Segment>,
    total: u64,
}

impl CycleList {
    /// The list of `reports` (module level first, as the navigator gives them).
    pub fn new(reports: Vec<CycleReport>) -> CycleList {
        let mut segments = Vec::new();
        let mut at = 0u64;
        for (l, r) in reports.iter().enumerate() {
            segments.push(Segment { start: at, level: l as u32, cycle: None });
            at += if r.components.is_empty() { 2 } else { 1 };
            for (c, comp) in r.components.iter().enumerate() {
                segments.push(Segment { start: at, level: l as u32, cycle: Some(c as u32) });
                at += 1 + comp.members.len() as u64 + comp.edges.len() as u64;
            }
        }
        CycleList { reports, segments, total: at }
    }

    /// Rows in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Cycles in all levels.
    pub fn cycles(&self) -> u64 {
        self.reports.iter().map(|r| r.components.len() as u64).sum()
    }

    /// Rows `offset..offset + limit` (at most [`MAX_WINDOW`]; fewer at the
    /// end), members named by `name`.
    pub fn window(&self, offset: u64, limit: u64, name: impl Fn(u32) -> String) -> Vec<CycleRow> {
        let end = offset.saturating_add(limit.min(MAX_WINDOW as u64)).min(self.total);
        let mut rows = Vec::with_capacity(end.saturating_sub(offset) as usize);
        if offset >= end {
            return rows;
        }
        let mut s = self.segments.partition_point(|seg| seg.start <= offset) - 1;
        let mut row = offset;
        while row < end {
            let seg = self.segments[s];
            let seg_end = self.segments.get(s + 1).map_or(self.total, |n| n.start);
            let report = &self.reports[seg.level as usize];
            while row < end.min(seg_end) {
                let i = row - seg.start;
                rows.push(match seg.cycle {
                    None if i == 0 => CycleRow::Level {
                        level: report.level.clone(),
                        cycles: report.components.len() as u64,
                        feedback_links: report.tangle.feedback_edge_count as u64,
                        feedback_weight: report.tangle.feedback_weight,
                        cyclic_weight: report.tangle.cyclic_weight,
                    },
                    None => CycleRow::NoCycle { level: report.level.clone() },
                    Some(c) => {
                        let comp = &report.components[c as usize];
                        let (m, e) = (comp.members.len() as u64, comp.edges.len() as u64);
                        if i == 0 {
                            CycleRow::Cycle {
                                level: report.level.clone(),
                                index: u64::from(c) + 1,
                                members: m,
                                links: e,
                                feedback_links: comp.edges.iter().filter(|e| e.feedback).count() as u64,
                                weight: comp.weight,
                                feedback_weight: comp.feedback_weight,
                                tangle_metric: comp.tangle_metric,
                            }
                        } else if i <= m {
                            let node = comp.members[(i - 1) as usize];
                            CycleRow::Member { node, name: name(node) }
                        } else {
                            let e = &comp.edges[(i - 1 - m) as usize];
                            CycleRow::Link {
                                from: e.from,
                                from_name: name(e.from),
                                to: e.to,
                                to_name: name(e.to),
                                count: e.count,
                                feedback: e.feedback,
                            }
                        }
                    }
                });
                row += 1;
            }
            s += 1;
        }
        rows
    }
}

#[cfg(test)]
mod tests;
