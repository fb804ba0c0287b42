//! A step's status: what an expectation may require of a call (`status = "ok"`, `"error"`,
//! `"retried"`), what the run shows of each call (`Seen`, from an oracle the caller gives: the
//! result's structured status by default, the linter's full verdict from rule E1), and the
//! judgement of one against the other, which names what was wanted and what was seen.

use crate::model::{Pairing, ResultStatus, Trace};

/// What a step requires of its call's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    /// The call succeeded.
    Ok,
    /// The call failed.
    Error,
    /// The call failed, and a retry of the same tool right after it succeeded.
    Retried,
}

impl StepStatus {
    /// The status as written.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Ok => "ok",
            StepStatus::Error => "error",
            StepStatus::Retried => "retried",
        }
    }

    pub(super) fn parse(s: &str) -> Result<Self, String> {
        match s {
            "ok" => Ok(StepStatus::Ok),
            "error" => Ok(StepStatus::Error),
            "retried" => Ok(StepStatus::Retried),
            other => Err(format!(
                "unknown `status` {other:?} (expected \"ok\", \"error\" or \"retried\")"
            )),
        }
    }
}

/// What the run shows of one call's outcome; the text says how it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// It succeeded.
    Ok(String),
    /// It failed.
    Error(String),
    /// The trace does not say.
    CannotTell(String),
}

/// Tells the outcome of the call at a step.
pub trait Statuses {
    /// The outcome of the call at step `call`.
    fn seen(&self, trace: &Trace, pairing: &Pairing, call: usize) -> Seen;
}

/// The default oracle: the paired result's structured status only (a format that marks only
/// failures cannot tell a success).
pub struct Structured;

impl Statuses for Structured {
    fn seen(&self, trace: &Trace, pairing: &Pairing, call: usize) -> Seen {
        let Some(r) = pairing
            .result_for(call)
            .and_then(|r| trace.steps.get(r)?.as_result())
        else {
            return Seen::CannotTell(
                "it has no result (the run ended or the result was not captured)".into(),
            );
        };
        match r.status {
            ResultStatus::Ok => Seen::Ok("its result's status is ok".into()),
            ResultStatus::Error => Seen::Error("its result's status is error".into()),
            ResultStatus::Unknown => {
                Seen::CannotTell("its result carries no status (the format may mark only failures)".into())
            }
        }
    }
}

/// The outcome of every call of a trace, by step, with what a retry chain after it shows.
pub(super) struct Outcomes {
    seen: Vec<Option<Seen>>,
    /// Per call step: the step of the next call, when it is a call of the same tool.
    next_same: Vec<Option<usize>>,
    /// Per call step: the previous call is a failed call of the same tool (this one retries it).
    is_retry: Vec<bool>,
}

impl Outcomes {
    pub(super) fn new(trace: &Trace, statuses: &dyn Statuses) -> Self {
        let pairing = Pairing::new(trace);
        let n = trace.steps.len();
        let mut seen = vec![None; n];
        let mut next_same = vec![None; n];
        let mut is_retry = vec![false; n];
        let mut previous: Option<(usize, &str)> = None;
        for s in &trace.steps {
            let Some(c) = s.as_call() else { continue };
            let here = statuses.seen(trace, &pairing, s.index);
            if let Some((p, name)) = previous
                && name == c.name
            {
                next_same[p] = Some(s.index);
                is_retry[s.index] = matches!(seen[p], Some(Seen::Error(_)));
            }
            seen[s.index] = Some(here);
            previous = Some((s.index, &c.name));
        }
        Self {
            seen,
            next_same,
            is_retry,
        }
    }

    /// What the run shows of the call at `step`.
    pub(super) fn seen(&self, step: usize) -> Seen {
        self.seen
            .get(step)
            .cloned()
            .flatten()
            .unwrap_or_else(|| Seen::CannotTell("it is not a call".into()))
    }

    /// The call at `step` is a retry of a failed call of the same tool just before it.
    pub(super) fn is_retry(&self, step: usize) -> bool {
        self.is_retry.get(step).copied().unwrap_or(false)
    }

    /// The last call of the retry chain that begins at `step` (itself when none follows).
    pub(super) fn chain_end(&self, step: usize) -> usize {
        let mut at = step;
        let mut hops = 0;
        while let Some(next) = self.next_same.get(at).copied().flatten()
            && matches!(self.seen(at), Seen::Error(_))
            && hops < self.seen.len()
        {
            at = next;
            hops += 1;
        }
        at
    }

    /// Judge the call at `step` against a wanted status.
    pub(super) fn judge(&self, want: StepStatus, step: usize) -> Judged {
        let seen = self.seen(step);
        match (want, seen) {
            (_, Seen::CannotTell(why)) => Judged::Unknown(format!(
                "status wanted `{}`, and {why}",
                want.as_str()
            )),
            (StepStatus::Ok, Seen::Ok(_)) | (StepStatus::Error, Seen::Error(_)) => Judged::Yes,
            (StepStatus::Ok, Seen::Error(why)) => {
                Judged::No(format!("status wanted `ok`, seen `error` ({why})"))
            }
            (StepStatus::Error, Seen::Ok(why)) => {
                Judged::No(format!("status wanted `error`, seen `ok` ({why})"))
            }
            (StepStatus::Retried, Seen::Ok(why)) => Judged::No(format!(
                "status wanted `retried` (a failure, then a successful retry), seen `ok` at the first try ({why})"
            )),
            (StepStatus::Retried, Seen::Error(why)) => {
                if self.is_retry(step) {
                    return Judged::No(format!(
                        "status wanted `retried`, but this call is itself a retry of the call before it ({why})"
                    ));
                }
                let end = self.chain_end(step);
                match self.seen(end) {
                    Seen::Ok(_) if end != step => Judged::Yes,
                    Seen::CannotTell(t) => Judged::Unknown(format!(
                        "status wanted `retried`: the call failed ({why}), and for its retry at step {end}, {t}"
                    )),
                    _ if end == step => Judged::No(format!(
                        "status wanted `retried`, seen `error` with no retry of the tool right after it ({why})"
                    )),
                    _ => Judged::No(format!(
                        "status wanted `retried`, seen `error` and every retry up to step {end} failed too ({why})"
                    )),
                }
            }
        }
    }
}

/// A call judged against a wanted status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Judged {
    Yes,
    No(String),
    Unknown(String),
}
