//! Expectations (issue 30): what a run should have done, checked against what it did. An
//! expectations file (`--expect FILE`, or `[[expect]]` tables in `tracelint.toml`) holds
//! reasoned expectations, each selecting traces by input path glob and/or run id: a reference
//! trajectory (inline or a recorded trace in any input format) matched by an optimal assignment,
//! or an assertion (`called`, `not_called`, `count`, `before`/`after`, conditions on results and
//! on the final answer) written in the `failure_when` predicate language. Evaluation is pure:
//! a trace in, one tri-state `Verdict` per expectation out (met, not met with the smallest diff,
//! or undecidable with the reason). Rule E1 turns verdicts into findings and suppressions; the
//! scorecard uses the same verdicts as its oracle. No printing, no exit codes here.

mod assertion;
pub mod assign;
mod error;
mod eval;
mod expectation;
mod fields;
mod parse;
mod raw;
mod score;
mod spec;
mod status;
mod trajectory;
mod values;
mod verdict;

use crate::model::Trace;

#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use verdict::{Miss, Undecided, Verdict};
pub use error::ExpectError;
pub use score::{EditKind, Score};
pub use spec::{
    ArgsMode, Bounds, CallFilter, Check, Condition, ExpectFile, Expectation, MatchMode, RefCall,
    Select, Trajectory,
};
pub use status::{Seen, StepStatus, Statuses, Structured};

/// Largest expectations file read, in bytes.
pub const MAX_EXPECT_FILE: u64 = 16 << 20;

impl ExpectFile {
    /// Read and parse an expectations file (references resolve against its folder).
    pub fn from_path(path: &std::path::Path) -> Result<Self, ExpectError> {
        let display = path.display().to_string();
        let text = crate::inputs::read_text(
            path,
            MAX_EXPECT_FILE,
            crate::inputs::Pipes::Refuse,
        )
        .map_err(|e| ExpectError {
            location: display.clone(),
            message: format!("cannot read the expectations file: {e}"),
        })?;
        Self::from_str(&text, &display)
    }

    /// Parse expectations text; `path` names it in messages and is the base of `reference`
    /// paths.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str, path: &str) -> Result<Self, ExpectError> {
        let base = std::path::Path::new(path)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        parse::parse_file(text, path, base)
    }

    /// Parse expectations text shown as `shown` in messages, whose `reference` paths resolve
    /// against `base`.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn from_text_at(
        text: &str,
        shown: &str,
        base: &std::path::Path,
    ) -> Result<Self, ExpectError> {
        parse::parse_file(text, shown, base)
    }

    /// The `[[expect]]` tables of a `tracelint.toml` (or `[tool.tracelint]` in a
    /// `pyproject.toml`); `None` when it has none.
    pub fn from_config_text(text: &str, path: &str) -> Result<Option<Self>, ExpectError> {
        let base = std::path::Path::new(path)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        parse::parse_config(text, path, base)
    }

    /// Add another file's expectations after these.
    pub fn extend(&mut self, other: ExpectFile) {
        if self.path.is_empty() {
            self.path = other.path;
        }
        self.expectations.extend(other.expectations);
    }

    /// The expectations that select `trace`.
    pub fn applying_to<'s, 't>(
        &'s self,
        trace: &'t Trace,
    ) -> impl Iterator<Item = &'s Expectation> + use<'s, 't> {
        self.expectations.iter().filter(move |e| e.selects(trace))
    }

    /// Evaluate every expectation that selects `trace`, in file order.
    pub fn evaluate<'s>(&'s self, trace: &Trace) -> Vec<(&'s Expectation, Verdict)> {
        self.applying_to(trace)
            .map(|e| (e, e.evaluate(trace)))
            .collect()
    }
}

impl Expectation {
    /// Does this expectation apply to `trace`?
    pub fn selects(&self, trace: &Trace) -> bool {
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: false,
            require_literal_leading_dot: false,
        };
        let path = trace.source.path.as_str();
        let short = path.strip_prefix("./").unwrap_or(path);
        (self.select.paths.is_empty()
            || self
                .select
                .paths
                .iter()
                .any(|g| g.matches_with(short, opts) || g.matches_with(path, opts)))
            && (self.select.run_ids.is_empty()
                || self
                    .select
                    .run_ids
                    .iter()
                    .any(|g| g.matches_with(&trace.run_id, opts)))
    }

    /// Check `trace` against this expectation (whether or not it selects it), telling a
    /// call's success by its result's structured status alone. A trajectory with `min_score`
    /// is met when it differs but its F1 score reaches the threshold.
    pub fn evaluate(&self, trace: &Trace) -> Verdict {
        self.evaluate_with(trace, &Structured)
    }

    /// `evaluate`, telling a call's success with `statuses` (rule E1 gives the linter's
    /// verdict: structured status, the tool's `failure_when`, R2a's structured signals).
    pub fn evaluate_with(&self, trace: &Trace, statuses: &dyn Statuses) -> Verdict {
        let verdict = eval::evaluate(&self.check, trace, statuses);
        if let (Verdict::NotMet { .. }, Check::Trajectory(t)) = (&verdict, &self.check)
            && let Some(min) = t.min_score
            && score::score(t, trace, statuses).is_some_and(|s| s.f1 >= min)
        {
            return Verdict::Met;
        }
        verdict
    }

    /// The score of `trace` against this expectation's reference trajectory, with the reasons;
    /// `None` for an assertion, or past the matchers' bounds.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn score(&self, trace: &Trace) -> Option<Score> {
        self.score_with(trace, &Structured)
    }

    /// `score`, telling a call's success with `statuses`.
    pub fn score_with(&self, trace: &Trace, statuses: &dyn Statuses) -> Option<Score> {
        match &self.check {
            Check::Trajectory(t) => score::score(t, trace, statuses),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
