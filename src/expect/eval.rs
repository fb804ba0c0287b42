//! Evaluating one expectation on one trace: a tri-state verdict. Trajectories are matched per
//! tool by an optimal assignment (or, in `strict` order, an optimal alignment) whose cost puts
//! the number of problems first and the number of differing arguments second, so the diff
//! reported is the smallest; assertions judge each call of their tool as matching, not
//! matching, or undecidable (arguments not recorded, result missing), and a verdict the
//! undecidable calls could change is undecidable, never a pass.

use std::collections::BTreeMap;

use serde_json::Value;

use super::assign::{self, HUNGARIAN_MAX, Op};
use super::values::{self, ArgDiff};
use super::{ArgsMode, CallFilter, Check, Condition, MatchMode, Trajectory};
use crate::model::{Args, FailureOutcome, Pairing, ResultStatus, Role, StepKind, Trace};

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
}

/// Why an expectation cannot be decided on a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Undecided {
    /// The reason: lowercase, no trailing period.
    pub reason: String,
    /// The step it concerns, when one.
    pub step: Option<usize>,
}

fn undecidable(reason: impl Into<String>, step: Option<usize>) -> Verdict {
    Verdict::Undecidable(Undecided {
        reason: reason.into(),
        step,
    })
}

fn not_met(misses: Vec<Miss>) -> Verdict {
    Verdict::NotMet { misses, note: None }
}

/// One actual call.
struct Call<'t> {
    step: usize,
    name: &'t str,
    args: Result<&'t Value, &'t str>,
}

fn calls(trace: &Trace) -> Vec<Call<'_>> {
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

fn show_call(name: &str, args: Option<&Value>) -> String {
    match args {
        Some(v) => format!("{name} {}", values::short(v)),
        None => name.to_owned(),
    }
}

fn show_actual(c: &Call<'_>) -> String {
    match c.args {
        Ok(v) => show_call(c.name, Some(v)),
        Err(_) => format!("{} (arguments not recorded)", c.name),
    }
}

fn last_step(trace: &Trace) -> Option<usize> {
    trace.steps.last().map(|s| s.index)
}

/// Evaluate a check on a trace.
pub(super) fn evaluate(check: &Check, trace: &Trace) -> Verdict {
    match check {
        Check::Trajectory(t) => trajectory(t, trace),
        Check::FinalAnswer(conds) => final_answer(conds, trace),
        _ => assertion(check, trace),
    }
}

// ---------------------------------------------------------------- trajectories

/// A problem costs `PROBLEM`; among equally many problems, fewer differing arguments win
/// (`ARG_CAP` per pair at most, and `GAP_EXTRA` for an unpaired call, so pairing a call with
/// the closest one of its tool beats leaving both unpaired).
const PROBLEM: i64 = 1_000_000;
const ARG_CAP: i64 = 998;
const GAP_EXTRA: i64 = 999;
const GAP: i64 = PROBLEM + GAP_EXTRA;

/// How one expected call compares with one actual call of the same tool.
struct PairCmp {
    diffs: Vec<ArgDiff>,
    /// The actual call's arguments are not recorded (and the mode compares them).
    unknown: bool,
}

impl PairCmp {
    fn ok(&self) -> bool {
        self.diffs.is_empty() && !self.unknown
    }

    fn cost(&self) -> i64 {
        if self.ok() {
            0
        } else if self.unknown {
            PROBLEM + ARG_CAP
        } else {
            PROBLEM + (self.diffs.len() as i64).min(ARG_CAP)
        }
    }
}

fn compare(t: &Trajectory, e: usize, a: &Call<'_>) -> PairCmp {
    let exp = &t.calls[e];
    let mode = t.args_mode(&exp.tool);
    if *mode == ArgsMode::Ignore || exp.args.is_none() {
        return PairCmp {
            diffs: Vec::new(),
            unknown: false,
        };
    }
    match a.args {
        Ok(v) => PairCmp {
            diffs: values::diff(mode, exp.args.as_ref(), v),
            unknown: false,
        },
        Err(_) => PairCmp {
            diffs: Vec::new(),
            unknown: true,
        },
    }
}

fn mismatch(t: &Trajectory, e: usize, a: &Call<'_>, cmp: &PairCmp) -> Miss {
    let exp = &t.calls[e];
    Miss {
        message: if cmp.unknown {
            format!(
                "expected call #{} `{}`: the closest call's arguments are not recorded",
                e + 1,
                exp.tool
            )
        } else {
            format!(
                "expected call #{} `{}`: the closest call differs in {} ({} arguments)",
                e + 1,
                exp.tool,
                cmp.diffs
                    .iter()
                    .map(|d| format!("`{}`", d.key))
                    .collect::<Vec<_>>()
                    .join(", "),
                t.args_mode(&exp.tool).describe()
            )
        },
        step: Some(a.step),
        expected: Some(show_call(&exp.tool, exp.args.as_ref())),
        actual: Some(show_actual(a)),
        differences: cmp.diffs.iter().map(ToString::to_string).collect(),
        related: Vec::new(),
    }
}

fn trajectory(t: &Trajectory, trace: &Trace) -> Verdict {
    let actual = calls(trace);
    let counts_missing = t.mode != MatchMode::Subset;
    let counts_extra = t.mode != MatchMode::Superset;
    let mut misses = Vec::new();
    let mut note = None;
    let mut unknown_involved = false;
    let missing = |e: usize, at: Option<usize>, ordered: bool| {
        let exp = &t.calls[e];
        Miss {
            message: if ordered {
                format!(
                    "expected call #{} `{}` is missing here: the order broke",
                    e + 1,
                    exp.tool
                )
            } else {
                format!("expected call #{} `{}` was never made", e + 1, exp.tool)
            },
            step: at,
            expected: Some(show_call(&exp.tool, exp.args.as_ref())),
            actual: None,
            differences: Vec::new(),
            related: Vec::new(),
        }
    };
    let extra = |a: &Call<'_>, ordered: bool| Miss {
        message: if ordered {
            format!("unexpected call `{}` here: the order broke", a.name)
        } else {
            format!(
                "unexpected call `{}`: the reference has no such call",
                a.name
            )
        },
        step: Some(a.step),
        expected: None,
        actual: Some(show_actual(a)),
        differences: Vec::new(),
        related: Vec::new(),
    };
    if t.mode == MatchMode::Strict {
        let cmp = |e: usize, a: usize| {
            (t.calls[e].tool == actual[a].name).then(|| compare(t, e, &actual[a]).cost())
        };
        let Some(ops) = assign::align(t.calls.len(), actual.len(), cmp, GAP) else {
            return undecidable(
                format!(
                    "the reference has {} calls and the run {}: past the strict matcher's bound of {} pairs",
                    t.calls.len(),
                    actual.len(),
                    assign::ALIGN_MAX_CELLS
                ),
                None,
            );
        };
        for (k, op) in ops.iter().enumerate() {
            match *op {
                Op::Pair(e, a) => {
                    let c = compare(t, e, &actual[a]);
                    if !c.ok() {
                        unknown_involved |= c.unknown;
                        misses.push(mismatch(t, e, &actual[a], &c));
                    }
                }
                Op::Missing(e) => {
                    // Seen where the next actual call is (or at the run's end).
                    let at = ops[k..]
                        .iter()
                        .find_map(|o| match o {
                            Op::Pair(_, a) | Op::Extra(a) => Some(actual[*a].step),
                            Op::Missing(_) => None,
                        })
                        .or_else(|| last_step(trace));
                    misses.push(missing(e, at, true));
                }
                Op::Extra(a) => misses.push(extra(&actual[a], true)),
            }
        }
    } else {
        // Calls of different tools never pair: one assignment per tool.
        let mut groups: BTreeMap<&str, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
        for (e, c) in t.calls.iter().enumerate() {
            groups.entry(c.tool.as_str()).or_default().0.push(e);
        }
        for (a, c) in actual.iter().enumerate() {
            groups.entry(c.name).or_default().1.push(a);
        }
        let mut found: Vec<(usize, Miss)> = Vec::new(); // (sort key, miss)
        for (tool, (es, acts)) in &groups {
            let n = es.len() + acts.len();
            let miss_cost = if counts_missing { GAP } else { 0 };
            let extra_cost = if counts_extra { GAP } else { 0 };
            let mut pairs: Vec<(usize, usize)> = Vec::new();
            let mut lone_e: Vec<usize> = Vec::new();
            let mut lone_a: Vec<usize> = Vec::new();
            if n <= HUNGARIAN_MAX {
                // Rows: expected then one dummy per actual; columns: actual then one dummy per
                // expected. A dummy pairing is "left unpaired".
                let (ne, na) = (es.len(), acts.len());
                let cost: Vec<Vec<i64>> = (0..n)
                    .map(|r| {
                        (0..n)
                            .map(|c| match (r < ne, c < na) {
                                (true, true) => compare(t, es[r], &actual[acts[c]]).cost(),
                                (true, false) => miss_cost,
                                (false, true) => extra_cost,
                                (false, false) => 0,
                            })
                            .collect()
                    })
                    .collect();
                let of_row = assign::hungarian(&cost);
                let mut taken = vec![false; na];
                for (r, &c) in of_row.iter().enumerate().take(ne) {
                    if c < na {
                        pairs.push((es[r], acts[c]));
                        taken[c] = true;
                    } else {
                        lone_e.push(es[r]);
                    }
                }
                lone_a.extend((0..na).filter(|&c| !taken[c]).map(|c| acts[c]));
            } else {
                let adj: Vec<Vec<usize>> = es
                    .iter()
                    .map(|&e| {
                        (0..acts.len())
                            .filter(|&c| compare(t, e, &actual[acts[c]]).ok())
                            .collect()
                    })
                    .collect();
                let m = assign::max_matching(&adj, acts.len());
                let mut taken = vec![false; acts.len()];
                for (i, got) in m.iter().enumerate() {
                    match got {
                        Some(c) => {
                            pairs.push((es[i], acts[*c]));
                            taken[*c] = true;
                        }
                        None => lone_e.push(es[i]),
                    }
                }
                lone_a.extend((0..acts.len()).filter(|&c| !taken[c]).map(|c| acts[c]));
                note = Some(format!(
                    "`{tool}` has {n} expected and actual calls, past the optimal matcher's bound of {HUNGARIAN_MAX}: the verdict is exact (a maximum matching) but the diff is not minimised"
                ));
            }
            for (e, a) in pairs {
                let c = compare(t, e, &actual[a]);
                if !c.ok() {
                    unknown_involved |= c.unknown;
                    found.push((actual[a].step, mismatch(t, e, &actual[a], &c)));
                }
            }
            if counts_missing {
                for e in lone_e {
                    let at = last_step(trace);
                    found.push((usize::MAX, missing(e, at, false)));
                }
            }
            if counts_extra {
                for a in lone_a {
                    if actual[a].args.is_err() {
                        unknown_involved = true;
                    }
                    found.push((actual[a].step, extra(&actual[a], false)));
                }
            }
        }
        found.sort_by_key(|(k, _)| *k);
        misses.extend(found.into_iter().map(|(_, m)| m));
    }
    if misses.is_empty() {
        return Verdict::Met;
    }
    if unknown_involved {
        let step = misses.iter().find_map(|m| m.step);
        return undecidable(
            "a call the reference could match has arguments the trace did not record",
            step,
        );
    }
    Verdict::NotMet { misses, note }
}

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

fn judge(f: &CallFilter, trace: &Trace, pairing: &Pairing, step: usize) -> Tri {
    let Some(call) = trace.steps[step].as_call() else {
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
    if !f.result.is_empty() || f.status.is_some() {
        let result = pairing
            .result_for(step)
            .and_then(|r| trace.steps[r].as_result());
        match result {
            None => {
                unknown.get_or_insert_with(|| {
                    "its result is missing (the run ended or the result was not captured)"
                        .to_owned()
                });
            }
            Some(r) => {
                if let Some(want) = f.status {
                    if r.status == ResultStatus::Unknown {
                        unknown.get_or_insert_with(|| {
                            "its result has no structured status".to_owned()
                        });
                    } else if r.status != want {
                        return Tri::No(format!("its result's status is not `{}`", status(want)));
                    }
                }
                if !f.result.is_empty() {
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
    }
    match unknown {
        Some(why) => Tri::Unknown(why),
        None => Tri::Yes,
    }
}

fn status(s: ResultStatus) -> &'static str {
    match s {
        ResultStatus::Ok => "ok",
        ResultStatus::Error => "error",
        ResultStatus::Unknown => "unknown",
    }
}

/// The calls of one tool judged against a filter.
struct Judged {
    yes: Vec<usize>,
    no: Vec<(usize, String)>,
    unknown: Vec<(usize, String)>,
}

fn judge_all(f: &CallFilter, trace: &Trace, pairing: &Pairing) -> Judged {
    let mut j = Judged {
        yes: Vec::new(),
        no: Vec::new(),
        unknown: Vec::new(),
    };
    for s in &trace.steps {
        if s.as_call().is_some_and(|c| c.name == f.tool) {
            match judge(f, trace, pairing, s.index) {
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
    if let Some(s) = f.status {
        parts.push(format!("whose result is `{}`", status(s)));
    }
    for c in &f.result {
        parts.push(format!("whose result has `{}`", c.text));
    }
    parts.join(" ")
}

fn actual_at(trace: &Trace, step: usize) -> Option<String> {
    let c = trace.steps[step].as_call()?;
    Some(match &c.args {
        Args::Known(v) => show_call(&c.name, Some(v)),
        _ => format!("{} (arguments not recorded)", c.name),
    })
}

/// "never called" / "no call matched": at the closest call of the tool, or the run's end.
fn absent(f: &CallFilter, j: &Judged, trace: &Trace) -> Vec<Miss> {
    match j.no.first() {
        Some((step, why)) => vec![Miss {
            message: format!(
                "no call to {} was made: the closest call fails: {why}",
                describe(f)
            ),
            step: Some(*step),
            expected: Some(describe(f)),
            actual: actual_at(trace, *step),
            differences: vec![why.clone()],
            related: j.no.iter().skip(1).map(|(s, _)| *s).collect(),
        }],
        None => vec![Miss {
            message: format!("`{}` was never called", f.tool),
            step: last_step(trace),
            expected: Some(describe(f)),
            actual: None,
            differences: Vec::new(),
            related: Vec::new(),
        }],
    }
}

fn first_unknown(j: &Judged) -> Verdict {
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

fn assertion(check: &Check, trace: &Trace) -> Verdict {
    let pairing = Pairing::new(trace);
    let calls_of = |tool: &str| -> Vec<usize> {
        trace
            .steps
            .iter()
            .filter(|s| s.as_call().is_some_and(|c| c.name == tool))
            .map(|s| s.index)
            .collect()
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
            match calls_of(other).into_iter().find(|&s| s < first) {
                None => Verdict::Met,
                Some(early) => {
                    if j.unknown.iter().any(|(s, _)| *s < early) {
                        return first_unknown(&j);
                    }
                    not_met(vec![Miss {
                        message: format!(
                            "the order broke: `{other}` ran at step {early}, before any {}",
                            describe(filter)
                        ),
                        step: Some(early),
                        expected: Some(format!("{} before `{other}`", describe(filter))),
                        actual: actual_at(trace, early),
                        differences: Vec::new(),
                        related: vec![first],
                    }])
                }
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
            let prior = calls_of(other).into_iter().find(|&s| s < first);
            match prior {
                Some(_) => Verdict::Met,
                None => {
                    if j.unknown.iter().any(|(s, _)| *s < first) {
                        return first_unknown(&j);
                    }
                    not_met(vec![Miss {
                        message: format!(
                            "the order broke: {} ran at step {first} with no `{other}` before it",
                            describe(filter)
                        ),
                        step: Some(first),
                        expected: Some(format!("{} after `{other}`", describe(filter))),
                        actual: actual_at(trace, first),
                        differences: Vec::new(),
                        related: Vec::new(),
                    }])
                }
            }
        }
        Check::Trajectory(_) | Check::FinalAnswer(_) => unreachable!("handled by `evaluate`"),
    }
}

// ---------------------------------------------------------------- final answer

fn final_answer(conds: &[Condition], trace: &Trace) -> Verdict {
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
            })
            .collect(),
    )
}
