//! Assertions and final-answer conditions: each call of a tool judged as matching, not matching
//! or undecidable (arguments not recorded, result missing), and a verdict the undecidable calls
//! could change is undecidable, never a pass.

use serde_json::Value;

use super::status::{Judged, Outcomes, StepStatus, Statuses};
use super::verdict::{Miss, Verdict, last_step, not_met, show_call, undecidable};
use super::values::{self};
use super::{Bounds, CallFilter, Check, Condition};
use crate::model::{Args, FailureOutcome, Pairing, Role, StepKind, Trace};

// ---------------------------------------------------------------- assertions

/// How one call stands against a filter.
enum Tri {
    Yes,
    No(String),
    Unknown(String),
}

fn holds(c: &Condition, v: &Value) -> bool {
    c.predicate.evaluate(v) == FailureOutcome::Match
}

fn judge(f: &CallFilter, trace: &Trace, cx: &Cx, step: usize) -> Tri {
    let Some(call) = trace.steps.get(step).and_then(|s| s.as_call()) else {
        return Tri::No("not a call".into());
    };
    let mut unknown = None;
    if !f.args.is_empty() {
        match &call.args {
            Args::Known(v) => {
                if let Some(c) = f.args.iter().find(|c| !holds(c, v)) {
                    return Tri::No(format!("argument condition `{}` does not hold", c.text));
                }
            }
            _ => unknown = Some("its arguments are not recorded".to_owned()),
        }
    }
    if let (Some(want), Some(outcomes)) = (f.status, cx.outcomes.as_ref()) {
        match outcomes.judge(want, step) {
            Judged::Yes => {}
            Judged::No(why) => return Tri::No(why),
            Judged::Unknown(why) => {
                unknown.get_or_insert(why);
            }
        }
    }
    if !f.result.is_empty() {
        let result = cx
            .pairing
            .result_for(step)
            .and_then(|r| trace.steps.get(r)?.as_result());
        match result {
            None => {
                unknown.get_or_insert_with(|| {
                    "its result is missing (the run ended or the result was not captured)"
                        .to_owned()
                });
            }
            Some(r) => {
                if !r.content_recorded {
                    unknown.get_or_insert_with(|| {
                        "its result's content was not recorded".to_owned()
                    });
                } else if let Some(c) = f.result.iter().find(|c| !holds(c, &r.content)) {
                    return Tri::No(format!("result condition `{}` does not hold", c.text));
                }
            }
        }
    }
    match unknown {
        Some(why) => Tri::Unknown(why),
        None => Tri::Yes,
    }
}

/// What judging a call reads beyond the trace: its pairing and, when a filter asks for a
/// status, every call's outcome.
struct Cx {
    pairing: Pairing,
    outcomes: Option<Outcomes>,
}

/// The calls of one tool judged against a filter.
struct Sorted {
    yes: Vec<usize>,
    no: Vec<(usize, String)>,
    unknown: Vec<(usize, String)>,
}

fn judge_all(f: &CallFilter, trace: &Trace, cx: &Cx) -> Sorted {
    let mut j = Sorted {
        yes: Vec::new(),
        no: Vec::new(),
        unknown: Vec::new(),
    };
    for s in &trace.steps {
        if s.as_call().is_some_and(|c| c.name == f.tool) {
            match judge(f, trace, cx, s.index) {
                Tri::Yes => j.yes.push(s.index),
                Tri::No(why) => j.no.push((s.index, why)),
                Tri::Unknown(why) => j.unknown.push((s.index, why)),
            }
        }
    }
    j
}

fn describe(f: &CallFilter) -> String {
    let mut parts = vec![format!("`{}`", f.tool)];
    for c in &f.args {
        parts.push(format!("with `{}`", c.text));
    }
    match f.status {
        Some(StepStatus::Retried) => parts.push("that failed and was retried successfully".into()),
        Some(s) => parts.push(format!("whose result is `{}`", s.as_str())),
        None => {}
    }
    for c in &f.result {
        parts.push(format!("whose result has `{}`", c.text));
    }
    parts.join(" ")
}

fn actual_at(trace: &Trace, step: usize) -> Option<String> {
    let c = trace.steps.get(step)?.as_call()?;
    Some(match &c.args {
        Args::Known(v) => show_call(&c.name, Some(v)),
        _ => format!("{} (arguments not recorded)", c.name),
    })
}

/// "never called" / "no call matched": at the closest call of the tool, or the run's end.
fn absent(f: &CallFilter, j: &Sorted, trace: &Trace) -> Vec<Miss> {
    match j.no.first() {
        Some((step, why)) => vec![Miss {
            message: format!(
                "no call to {} was made: the closest call fails a condition",
                describe(f)
            ),
            step: Some(*step),
            expected: Some(describe(f)),
            actual: actual_at(trace, *step),
            differences: vec![why.clone()],
            related: j.no.iter().skip(1).map(|(s, _)| *s).collect(),
            fields: Vec::new(),
        }],
        None => vec![Miss {
            message: format!("`{}` was never called", f.tool),
            step: last_step(trace),
            expected: Some(describe(f)),
            actual: None,
            differences: Vec::new(),
            related: Vec::new(),
            fields: Vec::new(),
        }],
    }
}

fn first_unknown(j: &Sorted) -> Verdict {
    let (step, why) = &j.unknown[0];
    undecidable(
        format!(
            "cannot tell whether the call at step {step} matches: {why}{}",
            if j.unknown.len() > 1 {
                format!(" ({} such calls)", j.unknown.len())
            } else {
                String::new()
            }
        ),
        Some(*step),
    )
}

pub(super) fn assertion(check: &Check, trace: &Trace, statuses: &dyn Statuses) -> Verdict {
    let filters: Vec<&CallFilter> = match check {
        Check::Called(f) | Check::NotCalled(f) | Check::Count { filter: f, .. } => vec![f],
        Check::Before { filter, other } | Check::After { filter, other } => vec![filter, other],
        _ => Vec::new(),
    };
    let pairing = Cx {
        pairing: Pairing::new(trace),
        outcomes: filters
            .iter()
            .any(|f| f.status.is_some())
            .then(|| Outcomes::new(trace, statuses)),
    };
    match check {
        Check::Called(f) => {
            let j = judge_all(f, trace, &pairing);
            if !j.yes.is_empty() {
                Verdict::Met
            } else if !j.unknown.is_empty() {
                first_unknown(&j)
            } else {
                not_met(absent(f, &j, trace))
            }
        }
        Check::NotCalled(f) => {
            let j = judge_all(f, trace, &pairing);
            if !j.yes.is_empty() {
                not_met(
                    j.yes
                        .iter()
                        .map(|&s| Miss {
                            message: format!("{} was called, and must not be", describe(f)),
                            step: Some(s),
                            expected: None,
                            actual: actual_at(trace, s),
                            differences: Vec::new(),
                            related: Vec::new(),
                            fields: Vec::new(),
                        })
                        .collect(),
                )
            } else if !j.unknown.is_empty() {
                first_unknown(&j)
            } else {
                Verdict::Met
            }
        }
        Check::Count {
            filter,
            at_least,
            at_most,
        } => {
            let j = judge_all(filter, trace, &pairing);
            let ok = |n: u64| at_least.is_none_or(|l| n >= l) && at_most.is_none_or(|m| n <= m);
            let lo = j.yes.len() as u64;
            let hi = lo + j.unknown.len() as u64;
            // Is every count the undecidable calls allow fine, or none?
            let all_ok = (lo..=hi).all(ok);
            let any_ok = (lo..=hi).any(ok);
            if all_ok {
                Verdict::Met
            } else if any_ok {
                first_unknown(&j)
            } else {
                let bound = match (at_least, at_most) {
                    (Some(l), Some(m)) if l == m => format!("exactly {l}"),
                    (Some(l), Some(m)) => format!("between {l} and {m}"),
                    (Some(l), None) => format!("at least {l}"),
                    (None, Some(m)) => format!("at most {m}"),
                    (None, None) => "any number".into(),
                };
                let step = j
                    .yes
                    .get(at_most.map_or(0, |m| m as usize))
                    .copied()
                    .or_else(|| j.yes.last().copied())
                    .or_else(|| j.no.first().map(|(s, _)| *s))
                    .or_else(|| last_step(trace));
                not_met(vec![Miss {
                    message: format!(
                        "{} was called {lo} time{}, expected {bound}",
                        describe(filter),
                        if lo == 1 { "" } else { "s" }
                    ),
                    step,
                    expected: Some(describe(filter)),
                    actual: step.and_then(|s| actual_at(trace, s)),
                    differences: Vec::new(),
                    related: j.yes.iter().copied().filter(|s| Some(*s) != step).collect(),
                    fields: Vec::new(),
                }])
            }
        }
        Check::Before { filter, other } => {
            let j = judge_all(filter, trace, &pairing);
            let Some(&first) = j.yes.first() else {
                return if j.unknown.is_empty() {
                    not_met(absent(filter, &j, trace))
                } else {
                    first_unknown(&j)
                };
            };
            let o = judge_all(other, trace, &pairing);
            match o.yes.iter().copied().find(|&s| s < first) {
                Some(early) => {
                    // An undecidable call before it may have been the one that came first.
                    if j.unknown.iter().any(|(s, _)| *s < early) {
                        return first_unknown(&j);
                    }
                    not_met(vec![Miss {
                        message: format!(
                            "the order broke: {} ran at step {early}, before any {}",
                            describe(other),
                            describe(filter)
                        ),
                        step: Some(early),
                        expected: Some(format!("{} before {}", describe(filter), describe(other))),
                        actual: actual_at(trace, early),
                        differences: Vec::new(),
                        related: vec![first],
                        fields: Vec::new(),
                    }])
                }
                None if o.unknown.iter().any(|(s, _)| *s < first) => first_unknown(&o),
                None => Verdict::Met,
            }
        }
        Check::After { filter, other } => {
            let j = judge_all(filter, trace, &pairing);
            let Some(&first) = j.yes.first() else {
                return if j.unknown.is_empty() {
                    not_met(absent(filter, &j, trace))
                } else {
                    first_unknown(&j)
                };
            };
            let o = judge_all(other, trace, &pairing);
            if o.yes.iter().any(|&s| s < first) {
                return Verdict::Met;
            }
            if o.unknown.iter().any(|(s, _)| *s < first) {
                return first_unknown(&o);
            }
            if j.unknown.iter().any(|(s, _)| *s < first) {
                return first_unknown(&j);
            }
            not_met(vec![Miss {
                message: format!(
                    "the order broke: {} ran at step {first} with no {} before it",
                    describe(filter),
                    describe(other)
                ),
                step: Some(first),
                expected: Some(format!("{} after {}", describe(filter), describe(other))),
                actual: actual_at(trace, first),
                differences: Vec::new(),
                related: o.yes.first().copied().into_iter().collect(),
                fields: Vec::new(),
            }])
        }
        Check::Turns(b) => size(trace, b, "turn", &turn_starts(trace)),
        Check::Calls(b) => {
            let calls: Vec<usize> = trace
                .steps
                .iter()
                .filter(|s| s.as_call().is_some())
                .map(|s| s.index)
                .collect();
            size(trace, b, "call", &calls)
        }
        Check::Trajectory(_) | Check::FinalAnswer(_) => unreachable!("handled by `evaluate`"),
    }
}

// ---------------------------------------------------------------- turns and calls

/// The step where each of the agent's turns begins: a turn is a run of the agent's own steps
/// (assistant messages and tool calls) that no user message, tool result or other message
/// interrupts.
pub(super) fn turn_starts(trace: &Trace) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut in_turn = false;
    for s in &trace.steps {
        let agent = match &s.kind {
            StepKind::Message(m) => m.role == Role::Assistant,
            StepKind::ToolCall(_) => true,
            StepKind::ToolResult(_) => false,
        };
        if agent && !in_turn {
            starts.push(s.index);
        }
        in_turn = agent;
    }
    starts
}

/// `turns` / `calls`: the number of items (each at its step) within bounds. Part of a trace
/// that could not be read may hold more, so a partial trace decides only a count already past
/// `max`.
fn size(trace: &Trace, b: &Bounds, unit: &str, at: &[usize]) -> Verdict {
    let n = at.len() as u64;
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let message = format!(
        "the run made {n} {unit}{}, expected {}",
        plural(n),
        b.describe()
    );
    if let Some(m) = b.at_most
        && n > m
    {
        let step = at.get(m as usize).copied();
        return not_met(vec![Miss {
            message,
            step,
            expected: Some(format!("{} {unit}s", b.describe())),
            actual: None,
            differences: vec![format!(
                "{unit} {} of {n} {} at step {}",
                m + 1,
                if unit == "turn" { "begins" } else { "is" },
                step.map_or_else(|| "?".to_owned(), |s| s.to_string())
            )],
            related: Vec::new(),
            fields: Vec::new(),
        }]);
    }
    if trace.partial {
        return undecidable(
            format!(
                "part of the trace could not be read, and it may hold more {unit}s than the {n} counted"
            ),
            last_step(trace),
        );
    }
    if b.holds(n) {
        return Verdict::Met;
    }
    not_met(vec![Miss {
        message,
        step: last_step(trace),
        expected: Some(format!("{} {unit}s", b.describe())),
        actual: None,
        differences: Vec::new(),
        related: Vec::new(),
        fields: Vec::new(),
    }])
}

// ---------------------------------------------------------------- final answer

pub(super) fn final_answer(conds: &[Condition], trace: &Trace) -> Verdict {
    let last_assistant = trace
        .steps
        .iter()
        .rev()
        .find(|s| matches!(&s.kind, StepKind::Message(m) if m.role == Role::Assistant));
    let text = match (&trace.final_answer, last_assistant) {
        (Some(f), _) => f.clone(),
        (None, Some(s)) if s.index + 1 == trace.steps.len() => s
            .as_message()
            .map(|m| m.content.clone())
            .unwrap_or_default(),
        _ => {
            return undecidable(
                "the trace records no final answer (and does not end with an assistant message)",
                last_step(trace),
            );
        }
    };
    let value = Value::String(text);
    let failed: Vec<&Condition> = conds.iter().filter(|c| !holds(c, &value)).collect();
    if failed.is_empty() {
        return Verdict::Met;
    }
    let step = last_assistant.map(|s| s.index).or_else(|| last_step(trace));
    not_met(
        failed
            .into_iter()
            .map(|c| Miss {
                message: format!("the final answer fails `{}`", c.text),
                step,
                expected: Some(c.text.clone()),
                actual: Some(values::short(&value)),
                differences: Vec::new(),
                related: Vec::new(),
                fields: Vec::new(),
            })
            .collect(),
    )
}
