//! The planning settings every shell offers (the CLI's planning flags, the
//! page's plan settings) and the one resolver from them to the engine's
//! [`PlanOptions`]: the checks, the defaults, the models (the roll-up model
//! defaults to the leaf model) and the scope (listed ids, or the recorded
//! failures and their direct dependents).

use crate::plan::{Models, PlanOptions};
use crate::units::{Corpus, Scope};
use serde::{Deserialize, Serialize};

/// The planning settings, as a user gives them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanSettings {
    /// How deep dependency explanations are quoted (≥ 1).
    pub depth: u32,
    /// Source lines per unit before the middle is elided (≥ 1).
    pub max_lines: u32,
    /// Most cycle members per call (≥ 1).
    pub max_scc: u32,
    /// Module or type ids (`java:com.acme.order`); empty: everything.
    pub scope: Vec<String>,
    /// Call budget; `None`: no cap.
    pub max_calls: Option<u64>,
    pub force: bool,
    /// Re-run only the recorded failures and their direct dependents.
    pub retry_failed: bool,
    /// The model for operations (the leaves).
    pub model: String,
    /// Types and modules; `None` (or blank): the same as `model`.
    pub rollup_model: Option<String>,
}

impl Default for PlanSettings {
    fn default() -> Self {
        let d = PlanOptions::default();
        PlanSettings {
            depth: d.depth,
            max_lines: d.max_lines,
            max_scc: d.max_scc,
            scope: Vec::new(),
            max_calls: None,
            force: false,
            retry_failed: false,
            model: d.models.leaf,
            rollup_model: None,
        }
    }
}

/// Why settings do not make a plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// A value out of range; the message names the setting.
    #[error("{0}")]
    Invalid(String),
    /// Retrying failures with none recorded.
    #[error("there is no recorded failure to retry")]
    NothingToRetry,
    /// A scope id the corpus does not have.
    #[error("{0}")]
    Scope(#[from] crate::units::ScopeError),
    /// Both a scope and retrying failures: each says which units to explain.
    #[error("a scope and retrying the failures both choose the units to explain: give one of them")]
    ScopeAndRetry,
}

impl PlanSettings {
    /// The range checks (the same for every shell).
    pub fn check(&self) -> Result<(), SettingsError> {
        let bad = |m: &str| Err(SettingsError::Invalid(m.to_owned()));
        if self.depth == 0 {
            return bad("depth must be at least 1");
        }
        if self.max_lines == 0 {
            return bad("max lines must be at least 1");
        }
        if self.max_scc == 0 {
            return bad("max cycle size must be at least 1");
        }
        if self.max_calls == Some(0) {
            return bad("max calls must be at least 1 (leave it empty for no cap)");
        }
        if self.model.trim().is_empty() {
            return bad("the model name is empty");
        }
        Ok(())
    }

    /// The scope asked for: listed ids, or the recorded failures (their
    /// members) and their direct dependents.
    pub fn scope(&self, corpus: &Corpus<'_>, failed_members: &[String]) -> Result<Option<Scope>, SettingsError> {
        let ids: Vec<String> = self.scope.iter().map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
        if self.retry_failed {
            if !ids.is_empty() {
                return Err(SettingsError::ScopeAndRetry);
            }
            if failed_members.is_empty() {
                return Err(SettingsError::NothingToRetry);
            }
            return Ok(Some(corpus.retry_scope(failed_members.iter().map(String::as_str))));
        }
        if ids.is_empty() {
            return Ok(None);
        }
        Ok(Some(corpus.scope(&ids)?))
    }

    /// The engine's options with a resolved scope.
    pub fn options(&self, scope: Option<Scope>) -> PlanOptions {
        let leaf = self.model.trim().to_owned();
        let rollup = self.rollup_model.as_deref().map(str::trim).filter(|r| !r.is_empty()).unwrap_or(&leaf).to_owned();
        PlanOptions {
            models: Models { leaf, rollup },
            depth: self.depth,
            max_lines: self.max_lines,
            max_scc: self.max_scc,
            force: self.force,
            max_calls: self.max_calls,
            scope,
        }
    }

    /// Checked, scoped and resolved: what [`crate::plan::plan_run`] takes.
    pub fn resolve(&self, corpus: &Corpus<'_>, failed_members: &[String]) -> Result<PlanOptions, SettingsError> {
        self.check()?;
        Ok(self.options(self.scope(corpus, failed_members)?))
    }
}
