//! A check's tri-state verdict (`Verdict`: met, not met with its misses, undecidable with the
//! reason) and the actual calls of a trace as every check reads them (`Call`), with how they are
//! shown in a diff.

use serde_json::Value;

use super::values;
use crate::model::{Args, Trace};

/// The outcome of one expectation on one trace.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The run did what was expected.
    Met,
    /// It did not: what differs, smallest diff first.
    NotMet {
        /// Each difference (never empty).
        misses: Vec<Miss>,
        /// A disclosure about how the diff was found (past the optimal matcher's bound).
        note: Option<String>,
    },
    /// The trace does not say enough to decide.
    Undecidable(Undecided),
}

impl Verdict {
    /// True when met.
    pub fn is_met(&self) -> bool {
        matches!(self, Verdict::Met)
    }
}

/// One way the run differs from the expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Miss {
    /// What differs: lowercase, no trailing period.
    pub message: String,
    /// The step it is seen at (the actual call; for something missing, the step where it should
    /// have come or the run's last step). `None` only for an empty trace.
    pub step: Option<usize>,
    /// The expected call (`tool {args}`), when one is involved.
    pub expected: Option<String>,
    /// The closest actual call (`tool {args}`), when there is one.
    pub actual: Option<String>,
    /// Argument-level differences (`` `/id` expected "A", got "B" ``).
    pub differences: Vec<String>,
    /// Other steps involved (the earlier call an ordering is measured against).
    pub related: Vec<usize>,
    /// The top-level arguments that differ (`order_ref`), for `[[ignore]]`'s `field`.
    pub fields: Vec<String>,
}

/// Why an expectation cannot be decided on a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Undecided {
    /// The reason: lowercase, no trailing period.
    pub reason: String,
    /// The step it concerns, when one.
    pub step: Option<usize>,
}

pub(super) fn undecidable(reason: impl Into<String>, step: Option<usize>) -> Verdict {
    Verdict::Undecidable(Undecided {
        reason: reason.into(),
        step,
    })
}

pub(super) fn not_met(misses: Vec<Miss>) -> Verdict {
    Verdict::NotMet { misses, note: None }
}

/// One actual call.
pub(super) struct Call<'t> {
    pub(super) step: usize,
    pub(super) name: &'t str,
    pub(super) args: Result<&'t Value, &'t str>,
}

pub(super) fn calls(trace: &Trace) -> Vec<Call<'_>> {
    trace
        .steps
        .iter()
        .filter_map(|s| {
            let c = s.as_call()?;
            Some(Call {
                step: s.index,
                name: &c.name,
                args: match &c.args {
                    Args::Known(v) => Ok(v),
                    Args::Malformed(why) | Args::Unknown(why) => Err(why.as_str()),
                },
            })
        })
        .collect()
}

pub(super) fn show_call(name: &str, args: Option<&Value>) -> String {
    match args {
        Some(v) => format!("{name} {}", values::short(v)),
        None => name.to_owned(),
    }
}

pub(super) fn show_actual(c: &Call<'_>) -> String {
    match c.args {
        Ok(v) => show_call(c.name, Some(v)),
        Err(_) => format!("{} (arguments not recorded)", c.name),
    }
}

pub(super) fn last_step(trace: &Trace) -> Option<usize> {
    trace.steps.last().map(|s| s.index)
}
