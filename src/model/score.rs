//! How close a run came to a reference trajectory (rule E1's score with reasons): the numbers
//! and the per-step reasons a finding carries and every reporter shows. Computed by the
//! expectations (`expect::score`); kept here, beside the finding that holds it.

use serde::Serialize;

/// How close a run came to a reference trajectory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// Reference calls the run made (in order, for `strict`).
    pub matched: usize,
    /// Calls in the reference.
    pub expected: usize,
    /// Calls in the run.
    pub actual: usize,
    /// `matched / actual` (1 when the run made no call).
    pub precision: f64,
    /// `matched / expected` (1 when the reference has no call).
    pub recall: f64,
    /// The harmonic mean of precision and recall (1 when both sequences are empty).
    pub f1: f64,
    /// The expectation's threshold, when it has one.
    pub min_score: Option<f64>,
    /// What turns the run into the reference, in reference order then run order.
    pub edits: Vec<Edit>,
    /// Why each reference step did or did not match, in reference order.
    pub steps: Vec<StepDiff>,
}

/// One kind of edit between the run and the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    /// A reference call the run never made.
    Missing,
    /// A call the reference does not have.
    Extra,
    /// The reference call was made with different arguments.
    Substituted,
    /// The reference call was made, but not in the reference's order (`strict` only).
    OutOfOrder,
}

/// One edit operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edit {
    /// What kind.
    pub kind: EditKind,
    /// The reference call (1-based), unless the edit is an extra call.
    pub reference: Option<usize>,
    /// The run's step, unless the edit is a missing call.
    pub step: Option<usize>,
    /// The tool (the reference's, or the run's for an extra call).
    pub tool: String,
}

/// Why one reference step did or did not match.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepDiff {
    /// The reference call (1-based).
    pub reference: usize,
    /// Its tool.
    pub tool: String,
    /// The run's step it lines up with, if any (matched, substituted or out of order).
    pub step: Option<usize>,
    /// Whether it counts as matched.
    pub matched: bool,
    /// Why: lowercase, no trailing period.
    pub why: String,
}

impl Score {
    /// The headline: `F1 0.857 (precision 1.000 = 3/3, recall 0.750 = 3/4)`.
    pub fn summary(&self) -> String {
        format!(
            "F1 {:.3} (precision {:.3} = {}/{}, recall {:.3} = {}/{})",
            self.f1,
            self.precision,
            self.matched,
            self.actual,
            self.recall,
            self.matched,
            self.expected
        ) + &self
            .min_score
            .map(|m| format!(", below min_score {m}"))
            .unwrap_or_default()
    }
}
