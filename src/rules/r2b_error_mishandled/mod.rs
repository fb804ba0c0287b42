//! R2b error_mishandled, by dataflow: a value that only a failed result supplied (nothing else
//! the agent observed carries it: user/system text, a successful result; another failed result
//! is not a source) used by a later call. A side-effecting consumer is a `hard_defect`; a value
//! that first went through a call that handed it back (a lookup that may have confirmed it), or
//! a consumer that is not side-effecting, is a `candidate`. Retries of the failed tool are
//! handling, not misuse. Every later call is checked and each failure is reported once, at its
//! worst use. A failed result nobody used whose tool was never called again is a candidate
//! "not retried". A result recording a refusal (the user or a permission system declined the
//! call) is no failed value: nothing ran, and stopping after it is correct. Significant values: strings of ≥ 4 chars (trimmed), numbers with |x| ≥ 100.

use std::collections::HashMap;

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, Role, Step, StepKind, ToolCall};

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::outcome::{Outcome, refused, results_recorded};
use crate::analysis::provenance::{Derivation, Provenance};

mod report;
mod values;

use values::{keys_of, leaves, shown};
pub(crate) use values::speaks_of_failure;

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R2b,
    kind: FindingType::ErrorMishandled,
    summary: "a value only a failed result supplied is used by a later call",
    tiers: &[Tier::HardDefect, Tier::Candidate],
    unit: "tool calls",
    explanation: include_str!("../docs/R2b.md"),
};

/// Values followed per failed result; past this, a suppression says so.
const VALUES_PER_FAILURE: usize = 1024;

pub(crate) struct ErrorMishandled;

/// One failed result and what became of its values.
struct Failure {
    step: usize,
    tool: Option<String>,
    retried: bool,
    /// A later call used a value this result carried (even if an earlier failure supplied it
    /// first and the use is reported there).
    used: bool,
    /// The agent's next words (its text before its next call, or its final answer) speak of a
    /// failure: it saw this one and said so.
    acknowledged: bool,
    uses: Vec<Use>,
}

/// One later call that used values only a failure supplied.
struct Use {
    call: usize,
    tool: String,
    field: Option<String>,
    values: Vec<String>,
    tier: Tier,
    side_effecting: bool,
    via: Option<usize>,
}

/// A value only a failure has supplied so far.
struct Taint {
    failure: usize,
    /// Later failures that carried the same value.
    also: Vec<usize>,
    value: Value,
    shown: String,
    handed_back: Option<usize>,
}

impl Rule for ErrorMishandled {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        results_recorded(cx.trace)
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let steps = &cx.trace.steps;
        // A refused call (the user or a permission system declined it) ran nothing: it
        // supplied no value, and stopping after it is what the agent was told to do.
        let failed: Vec<bool> = steps
            .iter()
            .map(|s| {
                cx.outcome(s.index).is_some_and(Outcome::failed)
                    && !s.as_result().is_some_and(refused)
            })
            .collect();
        if !failed.contains(&true) {
            for s in steps {
                if let Some(c) = s.as_call() {
                    out.count_tool(Some(&c.name), matches!(c.args, Args::Known(_)));
                }
            }
            return;
        }
        let mut walk = Walk {
            cx,
            clean: Provenance::new(),
            pending: Vec::new(),
            taints: HashMap::default(),
            failures: Vec::new(),
            awaiting_retry: HashMap::default(),
            unanswered: Vec::new(),
        };
        for step in steps {
            walk.step(step, failed[step.index], out);
        }
        if cx
            .trace
            .final_answer
            .as_deref()
            .is_some_and(speaks_of_failure)
        {
            walk.acknowledge();
        }
        walk.report(out);
    }
}

struct Walk<'a, 'c> {
    cx: &'c TraceCx<'a>,
    /// Everything clean observed so far (never a failed result), indexed only when asked:
    /// most traces never use a failed result's value, and then nothing is indexed.
    clean: Provenance,
    /// Clean sources (step indices) observed but not yet in `clean`, in trace order.
    pending: Vec<usize>,
    taints: HashMap<String, Taint, foldhash::quality::RandomState>,
    failures: Vec<Failure>,
    /// Failures per tool whose tool has not been called again yet.
    awaiting_retry: HashMap<String, Vec<usize>, foldhash::quality::RandomState>,
    /// Failures since the agent's last call: its next words may acknowledge them.
    unanswered: Vec<usize>,
}

impl Walk<'_, '_> {
    fn step(&mut self, step: &Step, failed: bool, out: &mut Sink) {
        match &step.kind {
            StepKind::Message(m) if m.role != Role::Assistant => {
                self.observe_clean(step.index, None, |p| p.add_text(&m.content));
            }
            StepKind::Message(m) => {
                if speaks_of_failure(&m.content) {
                    self.acknowledge();
                }
            }
            StepKind::ToolCall(call) => {
                self.unanswered.clear();
                self.call(step, call, out);
            }
            StepKind::ToolResult(r) if failed => self.failure(step, r.structured(), out),
            StepKind::ToolResult(r) if r.content_recorded => {
                let call = self.cx.pairing.call_for(step.index);
                self.observe_clean(step.index, call, |p| p.add_result(r));
            }
            StepKind::ToolResult(_) => {}
        }
    }

    /// A clean source joins the clean index. A later clean source that carries a value only a
    /// failure supplied takes that value off the failure (checked when the value is used, by
    /// the clean index), except when the source is the result of a call the value was passed
    /// to: that call handed it back, which makes a later use a candidate naming it. Only the
    /// call's own tainted arguments are looked at, so a clean source costs its own size.
    fn observe_clean(
        &mut self,
        index: usize,
        call_step: Option<usize>,
        add: impl Fn(&mut Provenance),
    ) {
        let call = call_step
            .and_then(|i| self.cx.trace.steps.get(i))
            .and_then(Step::as_call);
        if let Some(call) = call.filter(|_| !self.taints.is_empty()) {
            let mut passed = Vec::new();
            let mut buf = String::new();
            leaves(call.args.known(), 0, &mut |_, v| {
                keys_of(v, &mut buf, |k| {
                    if self.taints.contains_key(k) {
                        passed.push(k.to_owned());
                    }
                });
            });
            if !passed.is_empty() {
                let mut source = Provenance::new();
                add(&mut source);
                for key in passed {
                    let Some(value) = self
                        .taints
                        .get(&key)
                        .filter(|t| t.handed_back.is_none())
                        .map(|t| t.value.clone())
                    else {
                        continue;
                    };
                    if source.check(&value) != Derivation::Derivable {
                        continue;
                    }
                    // Handed back, unless something clean carried it already.
                    catch_up(&mut self.clean, &mut self.pending, self.cx.trace);
                    if self.clean.check(&value) == Derivation::Derivable {
                        self.taints.remove(&key);
                    } else if let Some(t) = self.taints.get_mut(&key) {
                        t.handed_back = call_step;
                    }
                }
            }
        }
        self.pending.push(index);
    }

    /// The agent spoke of a failure: every failure since its last call was acknowledged.
    fn acknowledge(&mut self) {
        for f in self.unanswered.drain(..) {
            self.failures[f].acknowledged = true;
        }
    }

    fn failure(&mut self, step: &Step, content: &Value, out: &mut Sink) {
        let tool = self
            .cx
            .pairing
            .call_for(step.index)
            .and_then(|i| self.cx.trace.steps.get(i))
            .and_then(Step::as_call)
            .map(|c| c.name.clone());
        let index = self.failures.len();
        self.unanswered.push(index);
        if let Some(t) = &tool {
            self.awaiting_retry
                .entry(t.clone())
                .or_default()
                .push(index);
        }
        self.failures.push(Failure {
            step: step.index,
            tool,
            retried: false,
            used: false,
            acknowledged: false,
            uses: Vec::new(),
        });
        let mut followed = 0usize;
        let mut dropped = false;
        // Whether something clean carries a value is asked when a call uses it (against
        // everything observed by then), so a value nobody uses costs one map entry.
        let mut buf = String::new();
        leaves(Some(content), 0, &mut |_, v| {
            keys_of(v, &mut buf, |key| {
                if let Some(t) = self.taints.get_mut(key) {
                    if t.failure != index && t.also.last() != Some(&index) {
                        t.also.push(index);
                    }
                    return;
                }
                if followed >= VALUES_PER_FAILURE {
                    dropped = true;
                    return;
                }
                followed += 1;
                self.taints.insert(
                    key.to_owned(),
                    Taint {
                        failure: index,
                        also: Vec::new(),
                        value: v.clone(),
                        shown: shown(v),
                        handed_back: None,
                    },
                );
            });
        });
        if dropped {
            out.suppress(
                step,
                self.failures[index].tool.as_deref(),
                format!(
                    "the failed result carries more values than are followed ({VALUES_PER_FAILURE}): later uses of the rest are not checked"
                ),
            );
        }
    }

    fn call(&mut self, step: &Step, call: &ToolCall, out: &mut Sink) {
        if let Some(waiting) = self.awaiting_retry.remove(&call.name) {
            for f in waiting {
                self.failures[f].retried = true;
            }
        }
        let Args::Known(args) = &call.args else {
            out.count_tool(Some(&call.name), false);
            if !self.taints.is_empty() && matches!(call.args, Args::Unknown(_)) {
                out.suppress(
                    step,
                    Some(&call.name),
                    "arguments not recorded: cannot tell whether the call used a value only a failed result supplied",
                );
            }
            return;
        };
        out.count_tool(Some(&call.name), true);
        if self.taints.is_empty() {
            return;
        }
        let side_effecting = self
            .cx
            .spec(&call.name)
            .is_some_and(|s| s.metadata.is_side_effecting());
        let mut uses: Vec<(usize, Use)> = Vec::new();
        let mut used: Vec<usize> = Vec::new();
        let mut buf = String::new();
        leaves(Some(args), 0, &mut |field, v| {
            keys_of(v, &mut buf, |key| {
                let Some(t) = self.taints.get(key) else {
                    return;
                };
                let failure = &self.failures[t.failure];
                if failure.tool.as_deref() == Some(call.name.as_str()) {
                    // A retry or recovery of the failed tool is handling the failure.
                    return;
                }
                if t.handed_back.is_none() && {
                    catch_up(&mut self.clean, &mut self.pending, self.cx.trace);
                    self.clean.check(v) == Derivation::Derivable
                } {
                    // Something clean observed since the failure carries it too.
                    return;
                }
                used.push(t.failure);
                used.extend(&t.also);
                let tier = if side_effecting && t.handed_back.is_none() {
                    Tier::HardDefect
                } else {
                    Tier::Candidate
                };
                match uses.iter_mut().find(|(f, _)| *f == t.failure) {
                    Some((_, u)) => {
                        if !u.values.contains(&t.shown) {
                            u.values.push(t.shown.clone());
                        }
                        if tier > u.tier {
                            u.tier = tier;
                            u.via = None;
                        }
                    }
                    None => uses.push((
                        t.failure,
                        Use {
                            call: step.index,
                            tool: call.name.clone(),
                            field: field.map(str::to_owned),
                            values: vec![t.shown.clone()],
                            tier,
                            side_effecting,
                            via: if tier == Tier::Candidate {
                                t.handed_back
                            } else {
                                None
                            },
                        },
                    )),
                }
            });
        });
        for f in used {
            self.failures[f].used = true;
        }
        for (f, u) in uses {
            self.failures[f].uses.push(u);
        }
    }
}

/// Index the clean sources observed since the last catch-up, in trace order.
fn catch_up(clean: &mut Provenance, pending: &mut Vec<usize>, trace: &crate::model::Trace) {
    for i in pending.drain(..) {
        match trace.steps.get(i).map(|s| &s.kind) {
            Some(StepKind::Message(m)) => clean.add_text(&m.content),
            Some(StepKind::ToolResult(r)) => clean.add_result(r),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
