//! A check's tri-state verdict (`Verdict`: met, not met with its misses, undecidable with the
//! reason) and the actual calls of a trace as every check reads them (`Call`), with how they are
//! shown in a diff.

use serde_json::Value;

use super::Trajectory;
use super::status::{Judged, Outcomes, StepStatus, Statuses};
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
    /// How it stands against each status a step may want (`ok`, `error`, `retried`), when a
    /// step wants one.
    pub(super) status: Option<Box<[Judged; 3]>>,
}

impl Call<'_> {
    /// How the call stands against a wanted status (`None`: no status was judged).
    pub(super) fn judged(&self, want: StepStatus) -> Option<&Judged> {
        let i = match want {
            StepStatus::Ok => 0,
            StepStatus::Error => 1,
            StepStatus::Retried => 2,
        };
        self.status.as_ref().map(|j| &j[i])
    }
}

/// The actual calls a trajectory is matched against. When a reference step wants a status,
/// each call is judged for it; for a tool with a `retried` step, a failed call and the retries
/// of the same tool right after it stand as one call (the last attempt's arguments, judged as
/// a retry from the first attempt).
pub(super) fn trajectory_calls<'t>(
    t: &Trajectory,
    trace: &'t Trace,
    statuses: &dyn Statuses,
) -> Vec<Call<'t>> {
    let all = calls(trace);
    if t.calls.iter().all(|c| c.status.is_none()) {
        return all;
    }
    let o = Outcomes::new(trace, statuses);
    let retried: Vec<&str> = t
        .calls
        .iter()
        .filter(|c| c.status == Some(StepStatus::Retried))
        .map(|c| c.tool.as_str())
        .collect();
    let mut out = Vec::with_capacity(all.len());
    let mut it = all.into_iter().peekable();
    while let Some(mut c) = it.next() {
        let head = c.step;
        if retried.contains(&c.name) && !o.is_retry(head) {
            let end = o.chain_end(head);
            while c.step < end {
                match it.next_if(|n| n.step <= end) {
                    Some(n) => c = n,
                    None => break,
                }
            }
        }
        c.status = Some(Box::new([
            o.judge(StepStatus::Ok, head),
            o.judge(StepStatus::Error, head),
            o.judge(StepStatus::Retried, head),
        ]));
        out.push(c);
    }
    out
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
                status: None,
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
