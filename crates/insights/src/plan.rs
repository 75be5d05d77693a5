//! The plan (docs/formats/units-and-walk.md §7): what a run would do with every
//! unit, in walk order — its status, the calls it needs, its fingerprint and
//! the tokens it is expected to cost.

use crate::vocab::{Level, TemplateKind};
use hashbrown::HashMap;

/// The model asked when none is named (`--model`).
pub const DEFAULT_MODEL: &str = "openai/gpt-5.6-luna";

/// What a run does with one unit (the step statuses users see).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepStatus {
    Llm,
    Template,
    Reuse,
    SkipScope,
    SkipBudget,
}

impl StepStatus {
    pub const ALL: [StepStatus; 5] =
        [StepStatus::Llm, StepStatus::Template, StepStatus::Reuse, StepStatus::SkipScope, StepStatus::SkipBudget];

    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Llm => "llm",
            StepStatus::Template => "template",
            StepStatus::Reuse => "reuse",
            StepStatus::SkipScope => "skip-scope",
            StepStatus::SkipBudget => "skip-budget",
        }
    }
}

/// The models a run asks: one for operations (the leaves), one for types and modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Models {
    pub leaf: String,
    pub rollup: String,
}

impl Models {
    /// The model asked for a unit of `level`.
    pub fn for_level(&self, level: Level) -> &str {
        match level {
            Level::Operation => &self.leaf,
            Level::Type | Level::Module => &self.rollup,
        }
    }
}

/// One unit's step.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStep {
    /// Index into the walk's units.
    pub unit: usize,
    pub status: StepStatus,
    pub model: String,
    pub fingerprint: String,
    pub template: Option<TemplateKind>,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// Totals of one level or of the whole plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Units (every unit of the level, whatever its status).
    pub units: u64,
}

/// The plan's estimate: totals, per level, per status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Estimates {
    pub total: Totals,
    /// Indexed by `Level as usize` (operation, type, module).
    pub by_level: [Totals; 3],
    /// Units per status, indexed like [`StepStatus::ALL`].
    pub by_status: [u64; 5],
}

impl Estimates {
    pub fn level(&self, level: Level) -> &Totals {
        &self.by_level[level as usize]
    }
    pub fn status(&self, status: StepStatus) -> u64 {
        self.by_status[StepStatus::ALL.iter().position(|s| *s == status).expect("every status is listed")]
    }
}

/// Every step of a run, in walk order, with the estimate.
#[derive(Clone, Debug, Default)]
pub struct RunPlan {
    pub steps: Vec<PlanStep>,
    /// Unit id → planned fingerprint.
    pub fingerprints: HashMap<String, String>,
    pub estimates: Estimates,
}

impl RunPlan {
    /// Sums the steps into the estimate (`levels[i]` = level of step i's unit).
    pub fn total_up(steps: &[PlanStep], level_of_step: impl Fn(&PlanStep) -> Level) -> Estimates {
        let mut e = Estimates::default();
        for s in steps {
            let level = level_of_step(s);
            let l = &mut e.by_level[level as usize];
            l.units += 1;
            l.calls += s.calls;
            l.prompt_tokens += s.prompt_tokens;
            l.completion_tokens += s.completion_tokens;
            e.total.units += 1;
            e.total.calls += s.calls;
            e.total.prompt_tokens += s.prompt_tokens;
            e.total.completion_tokens += s.completion_tokens;
            e.by_status[StepStatus::ALL.iter().position(|x| *x == s.status).expect("listed")] += 1;
        }
        e
    }
}

/// The fingerprint of `unit` (docs/formats/fingerprints.md §3) from its pack
/// and the plan-time fingerprints of its dependency units (`""` when unknown).
pub fn unit_fingerprint(
    unit: &crate::walk::Unit,
    pack: &crate::pack::ContextPack,
    depth: u32,
    model: &str,
    missing_dependencies: &[&str],
    dependency_fingerprints: &[&str],
) -> String {
    crate::fingerprint::FingerprintParts {
        comments: &pack.comments,
        dependency_fingerprints,
        depth,
        facts_digest: &pack.facts_digest,
        level: unit.level,
        members: &unit.members,
        missing_dependencies,
        model,
        signatures: &pack.signatures,
        sources: &pack.sources,
    }
    .fingerprint()
}

/// Options that shape a plan (and, through the fingerprint, reuse).
#[derive(Clone, Debug)]
pub struct PlanOptions {
    pub models: Models,
    pub depth: u32,
    pub max_lines: u32,
    pub max_scc: u32,
    pub force: bool,
    pub max_calls: Option<u64>,
    pub scope: Option<crate::units::Scope>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            models: Models { leaf: DEFAULT_MODEL.into(), rollup: DEFAULT_MODEL.into() },
            depth: 1,
            max_lines: crate::slice::DEFAULT_MAX_LINES,
            max_scc: 12,
            force: false,
            max_calls: None,
            scope: None,
        }
    }
}

/// The parts of [`plan_run`]'s work, reported to an observer as each part
/// of each unit ends (so a shell can time them; this crate has no clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanPhase {
    /// The unit's context pack was built (`Corpus::pack`, source slicing included).
    Pack,
    /// Its fingerprint was computed (missing dependencies, `fingerprint_of`).
    Fingerprint,
    /// Its prompts were rendered and their tokens counted (units that would be sent).
    Prompts,
    /// The rest: template, reuse, scope and budget decisions, bookkeeping, totals.
    Other,
}

impl PlanPhase {
    pub const ALL: [PlanPhase; 4] = [PlanPhase::Pack, PlanPhase::Fingerprint, PlanPhase::Prompts, PlanPhase::Other];

    pub fn as_str(self) -> &'static str {
        match self {
            PlanPhase::Pack => "packs",
            PlanPhase::Fingerprint => "fingerprints",
            PlanPhase::Prompts => "prompts",
            PlanPhase::Other => "other",
        }
    }
}

/// `planRun` (docs/formats/units-and-walk.md §7): every unit in walk order gets
/// a status, a fingerprint and its estimated calls and tokens. Prompts are
/// measured only for units that would be sent, and only counted (their text is
/// never built).
pub fn plan_run(
    corpus: &crate::units::Corpus,
    slicer: &crate::slice::SourceSlicer,
    records: &dyn crate::records::RecordSource,
    options: &PlanOptions,
) -> RunPlan {
    plan_run_observed(corpus, slicer, records, options, &mut |_| {})
}

/// [`plan_run`], calling `ended(phase)` each time a part of the work ends:
/// the time since the previous call (or since the start) belongs to `phase`.
pub fn plan_run_observed(
    corpus: &crate::units::Corpus,
    slicer: &crate::slice::SourceSlicer,
    records: &dyn crate::records::RecordSource,
    options: &PlanOptions,
    ended: &mut dyn FnMut(PlanPhase),
) -> RunPlan {
    use crate::estimate::completion_tokens_per_block;

    let walk = &corpus.walk;
    let mut steps: Vec<PlanStep> = Vec::with_capacity(walk.units.len());
    let mut remaining = options.max_calls;
    let mut exhausted = false;
    for (index, unit) in walk.units.iter().enumerate() {
        let model = options.models.for_level(unit.level).to_owned();
        ended(PlanPhase::Other);
        let pack = corpus.pack(unit, options.depth, slicer, records);
        ended(PlanPhase::Pack);
        // Every dependency unit comes earlier in the walk: its step is planned.
        let deps = walk.dependency_indexes(index);
        let missing: Vec<&str> = deps
            .iter()
            .filter(|&&d| matches!(steps[d].status, StepStatus::SkipScope | StepStatus::SkipBudget))
            .map(|&d| walk.units[d].id.as_str())
            .collect();
        let dependency_fingerprints: Vec<&str> = deps.iter().map(|&d| steps[d].fingerprint.as_str()).collect();
        let fingerprint = unit_fingerprint(unit, &pack, options.depth, &model, &missing, &dependency_fingerprints);
        ended(PlanPhase::Fingerprint);
        let template =
            (unit.level == Level::Operation && unit.members.len() == 1).then(|| corpus.template_of(&unit.id)).flatten();
        let reusable = !options.force
            && unit.members.iter().all(|m| records.fingerprint(m).as_deref() == Some(fingerprint.as_str()));
        let mut step = PlanStep {
            unit: index,
            status: StepStatus::Llm,
            model,
            fingerprint,
            template,
            calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
        };
        if template.is_some() {
            step.status = StepStatus::Template;
        } else if reusable {
            step.status = StepStatus::Reuse;
        } else if options.scope.as_ref().is_some_and(|s| !corpus.in_scope(s, unit)) {
            step.status = StepStatus::SkipScope;
        } else {
            let mut prompts = crate::prompt::prompts(&pack, options.max_scc);
            let calls = prompts.len() as u64;
            if exhausted || remaining.is_some_and(|r| calls > r) {
                exhausted = true;
                step.status = StepStatus::SkipBudget;
            } else {
                if let Some(r) = remaining.as_mut() {
                    *r -= calls;
                }
                step.calls = calls;
                // User messages are measured without building their text; the
                // shared system message was measured once for its level and shape.
                let system = prompts.system_tokens();
                while let Some((user, blocks)) = prompts.next_user_tokens() {
                    step.prompt_tokens += system + user;
                    step.completion_tokens += completion_tokens_per_block(unit.level) * blocks.max(1) as u64;
                }
            }
            ended(PlanPhase::Prompts);
        }
        steps.push(step);
    }
    let fingerprints = steps.iter().map(|s| (walk.units[s.unit].id.clone(), s.fingerprint.clone())).collect();
    let estimates = RunPlan::total_up(&steps, |s| walk.units[s.unit].level);
    ended(PlanPhase::Other);
    RunPlan { steps, fingerprints, estimates }
}
