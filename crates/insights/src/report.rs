//! What `explain --dry-run` and `--estimate` print (docs/formats/cli.md
//! §3.2, §3.3), text and JSON. The CLI prints these; the page shows the
//! same figures from the same plan.

use crate::estimate::cost;
use crate::plan::{Models, RunPlan, StepStatus, Totals};
use crate::vocab::Level;
use crate::walk::Walk;
use serde::Serialize;
use std::fmt::Write;

/// Prices in USD per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
}

/// Groups digits by thousands with a space (`12 345`), whatever the locale.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

const LEVELS: [Level; 3] = [Level::Operation, Level::Type, Level::Module];

fn layer_count(walk: &Walk) -> usize {
    walk.layers.len()
}

/// The `--dry-run` text.
pub fn plan_text(walk: &Walk, plan: &RunPlan, models: &Models, depth: u32) -> String {
    let e = &plan.estimates;
    let mut out = String::new();
    let _ = writeln!(out, "explain plan: {} units in {} layers", walk.units.len(), layer_count(walk));
    for level in LEVELS {
        let t = e.level(level);
        let _ = writeln!(
            out,
            "  {:<9} {:>6} units {:>6} calls ~{} prompt tokens",
            level.as_str(),
            t.units,
            t.calls,
            t.prompt_tokens
        );
    }
    let statuses: Vec<String> = StepStatus::ALL.iter().map(|s| format!("{} {}", s.as_str(), e.status(*s))).collect();
    let _ = writeln!(out, "  statuses: {}", statuses.join(", "));
    let _ = writeln!(out, "  models: {} (operations), {} (types, modules); depth {depth}", models.leaf, models.rollup);
    let _ = writeln!(
        out,
        "  total: {} calls, ~{} prompt tokens in, ~{} completion tokens out",
        e.total.calls, e.total.prompt_tokens, e.total.completion_tokens
    );
    out.push('\n');
    for step in &plan.steps {
        let u = &walk.units[step.unit];
        let _ = write!(out, "{:<11} L{} {:<9} {}", step.status.as_str(), u.layer, u.level.as_str(), u.id);
        if u.members.len() > 1 {
            let _ = write!(out, " cycle({})", u.members.len());
        }
        if step.calls > 0 {
            let _ = write!(out, " calls={} ~{}tok", step.calls, step.prompt_tokens);
        }
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LevelJson {
    calls: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    units: u64,
}

impl From<&Totals> for LevelJson {
    fn from(t: &Totals) -> Self {
        LevelJson {
            calls: t.calls,
            prompt_tokens: t.prompt_tokens,
            completion_tokens: t.completion_tokens,
            units: t.units,
        }
    }
}

#[derive(Serialize)]
struct ByLevelJson {
    operation: LevelJson,
    #[serde(rename = "type")]
    ty: LevelJson,
    module: LevelJson,
}

#[derive(Serialize)]
struct ByStatusJson {
    llm: u64,
    template: u64,
    reuse: u64,
    #[serde(rename = "skip-scope")]
    skip_scope: u64,
    #[serde(rename = "skip-budget")]
    skip_budget: u64,
}

#[derive(Serialize)]
struct ModelsJson<'a> {
    leaf: &'a str,
    rollup: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EstimatesJson {
    calls: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    by_level: ByLevelJson,
    by_status: ByStatusJson,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepJson<'a> {
    id: &'a str,
    level: &'static str,
    members: &'a [String],
    layer: u32,
    status: &'static str,
    model: &'a str,
    calls: u64,
    prompt_tokens: u64,
}

#[derive(Serialize)]
struct PlanJson<'a> {
    kind: &'static str,
    models: ModelsJson<'a>,
    depth: u32,
    estimates: EstimatesJson,
    steps: Vec<StepJson<'a>>,
}

fn by_level(plan: &RunPlan) -> ByLevelJson {
    let e = &plan.estimates;
    ByLevelJson {
        operation: e.level(Level::Operation).into(),
        ty: e.level(Level::Type).into(),
        module: e.level(Level::Module).into(),
    }
}

fn by_status(plan: &RunPlan) -> ByStatusJson {
    let e = &plan.estimates;
    ByStatusJson {
        llm: e.status(StepStatus::Llm),
        template: e.status(StepStatus::Template),
        reuse: e.status(StepStatus::Reuse),
        skip_scope: e.status(StepStatus::SkipScope),
        skip_budget: e.status(StepStatus::SkipBudget),
    }
}

/// The `--dry-run --json` line (`codegraph.explainPlan/1`), without a newline.
pub fn plan_json(walk: &Walk, plan: &RunPlan, models: &Models, depth: u32) -> String {
    let e = &plan.estimates;
    let doc = PlanJson {
        kind: "codegraph.explainPlan/1",
        models: ModelsJson { leaf: &models.leaf, rollup: &models.rollup },
        depth,
        estimates: EstimatesJson {
            calls: e.total.calls,
            prompt_tokens: e.total.prompt_tokens,
            completion_tokens: e.total.completion_tokens,
            by_level: by_level(plan),
            by_status: by_status(plan),
        },
        steps: plan
            .steps
            .iter()
            .map(|s| {
                let u = &walk.units[s.unit];
                StepJson {
                    id: &u.id,
                    level: u.level.as_str(),
                    members: &u.members,
                    layer: u.layer,
                    status: s.status.as_str(),
                    model: &s.model,
                    calls: s.calls,
                    prompt_tokens: s.prompt_tokens,
                }
            })
            .collect(),
    };
    serde_json::to_string(&doc).expect("plain data serializes")
}

/// What the estimate's figures assume and leave out (one sentence each).
pub const ASSUMPTION_PROMPT: &str =
    "input tokens are the rendered prompts' length (system and user message) at 4 characters per token";
pub const ASSUMPTION_COMPLETION: &str =
    "output tokens are per-level averages measured on earlier runs: 450 per operation, 650 per type, 900 per module block asked for";
pub const ASSUMPTION_EXCLUDED: &str =
    "repair re-asks and rate-limit retries are not counted; records already explained are reused, not sent again";

/// The `--estimate` text (also shown on stderr before a real run is confirmed).
pub fn estimate_text(
    model_paths: &[String],
    walk: &Walk,
    plan: &RunPlan,
    models: &Models,
    depth: u32,
    prices: Option<Prices>,
) -> String {
    let e = &plan.estimates;
    let mut out = String::new();
    let _ = writeln!(out, "explain estimate: {}", model_paths.join(" "));
    let _ = writeln!(
        out,
        "  units: {} (operation {}, type {}, module {}) in {} layers",
        grouped(e.total.units),
        grouped(e.level(Level::Operation).units),
        grouped(e.level(Level::Type).units),
        grouped(e.level(Level::Module).units),
        layer_count(walk)
    );
    let _ = writeln!(
        out,
        "  calls: {} (template {}, reuse {}, skipped {})",
        grouped(e.total.calls),
        grouped(e.status(StepStatus::Template)),
        grouped(e.status(StepStatus::Reuse)),
        grouped(e.status(StepStatus::SkipScope) + e.status(StepStatus::SkipBudget))
    );
    let _ = writeln!(out, "  models: {} (operations), {} (types, modules); depth {depth}", models.leaf, models.rollup);
    out.push('\n');
    let _ = writeln!(out, "  {:<10}{:>7}{:>14}{:>14}", "level", "calls", "input tokens", "output tokens");
    // The rows are the codegraph CLI's: each column one character wider than
    // the header's, so the text is byte for byte what that CLI prints.
    let row = |out: &mut String, name: &str, t: &Totals| {
        let _ = writeln!(
            out,
            "  {:<11}{:>8}{:>15}{:>15}",
            name,
            grouped(t.calls),
            grouped(t.prompt_tokens),
            grouped(t.completion_tokens)
        );
    };
    for level in LEVELS {
        row(&mut out, level.as_str(), e.level(level));
    }
    row(&mut out, "total", &e.total);
    out.push('\n');
    match prices.and_then(|p| cost(e.total.prompt_tokens, e.total.completion_tokens, p.input, p.output).map(|c| (p, c)))
    {
        Some((p, c)) => {
            let _ = writeln!(
                out,
                "  cost at ${}/M in, ${}/M out: ${c:.4}",
                model::json::js_number(p.input),
                model::json::js_number(p.output)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  for a cost, give the prices in USD per million tokens: --price-in USD --price-out USD"
            );
        }
    }
    let _ = writeln!(out, "  Figures: {ASSUMPTION_PROMPT}; {ASSUMPTION_COMPLETION}.");
    let _ = writeln!(out, "  Not included: {ASSUMPTION_EXCLUDED}.");
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssumptionsJson {
    prompt_tokens: &'static str,
    completion_tokens: &'static str,
    excluded: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EstimateJson<'a> {
    kind: &'static str,
    models: ModelsJson<'a>,
    depth: u32,
    units: u64,
    layers: usize,
    calls: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    by_level: ByLevelJson,
    by_status: ByStatusJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    price_in: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    price_out: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    assumptions: AssumptionsJson,
}

/// The `--estimate --json` line (`codegraph.explainEstimate/1`), without a newline.
pub fn estimate_json(walk: &Walk, plan: &RunPlan, models: &Models, depth: u32, prices: Option<Prices>) -> String {
    let e = &plan.estimates;
    let doc = EstimateJson {
        kind: "codegraph.explainEstimate/1",
        models: ModelsJson { leaf: &models.leaf, rollup: &models.rollup },
        depth,
        units: e.total.units,
        layers: layer_count(walk),
        calls: e.total.calls,
        prompt_tokens: e.total.prompt_tokens,
        completion_tokens: e.total.completion_tokens,
        by_level: by_level(plan),
        by_status: by_status(plan),
        price_in: prices.map(|p| p.input),
        price_out: prices.map(|p| p.output),
        cost: prices.and_then(|p| cost(e.total.prompt_tokens, e.total.completion_tokens, p.input, p.output)),
        assumptions: AssumptionsJson {
            prompt_tokens: ASSUMPTION_PROMPT,
            completion_tokens: ASSUMPTION_COMPLETION,
            excluded: ASSUMPTION_EXCLUDED,
        },
    };
    serde_json::to_string(&doc).expect("plain data serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_with_a_space() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1 000");
        assert_eq!(grouped(12345), "12 345");
        assert_eq!(grouped(1234567), "1 234 567");
    }
}
