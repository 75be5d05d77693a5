//! A run's progress as the page shows it (pure, tested natively): the
//! engine's step events folded into counts per outcome and per layer, the
//! newest lines, and the end-of-run report.

use insights::run::{Outcome, RunResult, StepEvent};
use std::collections::VecDeque;
use web::protocol::{AbortView, FailureView, Prices, ProgressCounts, RunProgress, RunReport};

/// Progress lines kept for the page.
pub const RECENT: usize = 8;

/// Folds step events into what the page shows.
#[derive(Debug, Clone)]
pub struct Progress {
    counts: ProgressCounts,
    reported_cost: Option<f64>,
    prices: Option<Prices>,
    /// Index = layer: (finished, steps).
    layers: Vec<(u64, u64)>,
    recent: VecDeque<String>,
}

impl Progress {
    /// A run of steps whose layers are `step_layers` (walk order).
    pub fn new(step_layers: impl IntoIterator<Item = u32>, prices: Option<Prices>) -> Progress {
        let mut layers: Vec<(u64, u64)> = Vec::new();
        let mut total = 0;
        for l in step_layers {
            let l = l as usize;
            if layers.len() <= l {
                layers.resize(l + 1, (0, 0));
            }
            layers[l].1 += 1;
            total += 1;
        }
        Progress {
            counts: ProgressCounts { total, ..ProgressCounts::default() },
            reported_cost: None,
            prices,
            layers,
            recent: VecDeque::with_capacity(RECENT),
        }
    }

    /// One finished step of `layer`.
    pub fn step(&mut self, e: &StepEvent, layer: u32) {
        let c = &mut self.counts;
        c.done += 1;
        match &e.outcome {
            Outcome::Done { calls, usage, .. } => {
                c.llm += 1;
                c.calls += u64::from(*calls);
                c.prompt_tokens += usage.prompt_tokens;
                c.completion_tokens += usage.completion_tokens;
                if let Some(cost) = usage.cost {
                    self.reported_cost = Some(self.reported_cost.unwrap_or(0.0) + cost);
                }
            }
            Outcome::Template => c.template += 1,
            Outcome::Reuse => c.reused += 1,
            Outcome::Skipped(_) | Outcome::NotAttempted | Outcome::Stopped => c.skipped += 1,
            Outcome::Failed { calls, .. } => {
                c.failed += 1;
                c.calls += u64::from(*calls);
            }
            Outcome::Unsaved { calls, usage, .. } => {
                c.calls += u64::from(*calls);
                c.prompt_tokens += usage.prompt_tokens;
                c.completion_tokens += usage.completion_tokens;
            }
        }
        if let Some(l) = self.layers.get_mut(layer as usize) {
            l.0 += 1;
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(e.line());
    }

    /// The cost so far: the provider's figure when it reports one, else
    /// the tokens at the given prices.
    fn cost(&self, prompt_tokens: u64, completion_tokens: u64) -> Option<f64> {
        self.reported_cost.or_else(|| {
            let p = self.prices?;
            insights::estimate::cost(prompt_tokens, completion_tokens, p.input, p.output)
        })
    }

    pub fn counts(&self) -> ProgressCounts {
        ProgressCounts { cost: self.cost(self.counts.prompt_tokens, self.counts.completion_tokens), ..self.counts }
    }

    /// The message for the page.
    pub fn snapshot(&self, in_flight: Vec<String>, paused: bool, stopping: bool) -> RunProgress {
        RunProgress {
            counts: self.counts(),
            layers: self.layers.clone(),
            recent: self.recent.iter().cloned().collect(),
            in_flight,
            paused,
            stopping,
            output_mode: None,
        }
    }

    /// The end-of-run report, from the engine's result.
    pub fn report(&self, result: &RunResult, records: u64, millis: f64) -> RunReport {
        let r = &result.counts;
        let counts = ProgressCounts {
            done: self.counts.done,
            total: self.counts.total,
            llm: self.counts.llm,
            template: r.template,
            reused: self.counts.reused,
            failed: result.failures.len() as u64,
            skipped: r.skipped,
            calls: r.calls,
            prompt_tokens: result.usage.prompt_tokens,
            completion_tokens: result.usage.completion_tokens,
            cost: result.usage.cost.or_else(|| self.cost(result.usage.prompt_tokens, result.usage.completion_tokens)),
        };
        RunReport {
            counts,
            records,
            failures: result
                .failures
                .iter()
                .map(|f| FailureView {
                    id: f.id.clone(),
                    level: f.level.as_str().to_owned(),
                    kind: f.reason.kind.as_str().to_owned(),
                    status: f.reason.status,
                    message: f.reason.message.clone(),
                })
                .collect(),
            aborted: result.aborted.as_ref().map(|a| AbortView {
                unit: a.unit.clone(),
                status: a.reason.status,
                message: a.reason.message.clone(),
                advice: insights::session::abort_advice(a.reason.status).to_owned(),
                not_attempted: a.not_attempted,
            }),
            stopped: result.stopped,
            store_errors: result.book_errors.clone(),
            millis,
            output_modes: result.output_modes.clone(),
            highlight: None,
        }
    }
}

/// How a call in flight is listed: `<level> <unit id>`, from what the
/// request asks (never from its prompt text), cut to 200 characters.
pub fn in_flight_label(asking: &insights::complete::Asking) -> String {
    format!("{} {}", asking.level.as_str(), asking.unit).chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use insights::record::Usage;
    use insights::vocab::Level;

    fn event(outcome: Outcome) -> StepEvent {
        StepEvent { done: 0, total: 0, level: Level::Operation, unit_id: "java:p/T.f()".into(), members: 1, outcome }
    }

    #[test]
    fn steps_fold_into_counts_layers_and_lines() {
        let mut p = Progress::new([0, 0, 1, 2], Some(Prices { input: 1.0, output: 2.0 }));
        assert_eq!(p.counts().total, 4);
        let usage = Usage { prompt_tokens: 1_000_000, completion_tokens: 500_000, cost: None };
        p.step(&event(Outcome::Done { calls: 1, usage, records: 1 }), 0);
        p.step(&event(Outcome::Template), 0);
        p.step(&event(Outcome::Failed { calls: 2, message: "x".into() }), 1);
        let s = p.snapshot(vec!["operation java:p/T.g()".into()], true, false);
        assert_eq!((s.counts.done, s.counts.llm, s.counts.template, s.counts.failed, s.counts.calls), (3, 1, 1, 1, 3));
        assert_eq!(s.counts.cost, Some(2.0), "1M input at $1 + 0.5M output at $2");
        assert_eq!(s.layers, vec![(2, 2), (1, 1), (0, 1)]);
        assert_eq!(s.recent.len(), 3);
        assert!(s.recent[2].contains("FAILED x"), "{:?}", s.recent);
        assert!(s.paused);
        for _ in 0..20 {
            p.step(&event(Outcome::Reuse), 2);
        }
        assert_eq!(p.snapshot(vec![], false, false).recent.len(), RECENT);
    }

    #[test]
    fn a_reported_cost_wins_over_prices() {
        let mut p = Progress::new([0], Some(Prices { input: 100.0, output: 100.0 }));
        let usage = Usage { prompt_tokens: 10, completion_tokens: 10, cost: Some(0.25) };
        p.step(&event(Outcome::Done { calls: 1, usage, records: 1 }), 0);
        assert_eq!(p.counts().cost, Some(0.25));
    }

    #[test]
    fn the_unit_of_a_prompt_is_its_first_line() {
        let asking = insights::complete::Asking {
            unit: "java:p/T.f()".into(),
            level: insights::vocab::Level::Operation,
            members: vec!["java:p/T.f()".into()],
            cycle: false,
        };
        assert_eq!(in_flight_label(&asking), "operation java:p/T.f()");
    }
}
