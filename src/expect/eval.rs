//! Evaluating one expectation on one trace: a tri-state verdict (`verdict.rs` holds it and the
//! actual calls every check reads). This file holds the dispatch; `trajectory.rs` matches trajectories (the
//! smallest diff by an optimal assignment or alignment), `assertion.rs` judges assertions and
//! final-answer conditions (a verdict the undecidable calls could change is undecidable, never a
//! pass).

use super::Check;
use super::status::Statuses;
use super::verdict::Verdict;
use crate::model::Trace;

use super::assertion::{assertion, final_answer};
use super::trajectory::trajectory;

/// Evaluate a check on a trace.
pub(super) fn evaluate(check: &Check, trace: &Trace, statuses: &dyn Statuses) -> Verdict {
    match check {
        Check::Trajectory(t) => trajectory(t, trace, statuses),
        Check::FinalAnswer(conds) => final_answer(conds, trace),
        _ => assertion(check, trace, statuses),
    }
}
