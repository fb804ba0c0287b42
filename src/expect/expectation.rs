//! One raw `[[expect]]` table → an `Expectation`: its kind decided from the keys present, every
//! value checked and placed at its file:line:col, a trajectory's calls and ordering mode.

use std::collections::BTreeMap;

use toml::Spanned;

use super::error::ExpectError;
use super::fields::{
    Here, MAX_REF_CALLS, args_mode, bounds, conditions, glob_list, other_call, status_of,
};
use super::raw::RawExpect;
use super::{ArgsMode, CallFilter, Check, Expectation, MatchMode, RefCall, Select, Trajectory};
use crate::finding::Tier;

pub(super) fn expectation(
    mut raw: RawExpect,
    n: usize,
    span: std::ops::Range<usize>,
    here: &Here<'_>,
) -> Result<Expectation, ExpectError> {
    let id = raw
        .id
        .clone()
        .unwrap_or_else(|| format!("expect#{}", n + 1));
    let why = match &raw.why {
        Some(w) if !w.get_ref().trim().is_empty() => w.get_ref().trim().to_owned(),
        Some(w) => {
            return Err(here.err(w.span(), format!("expectation `{id}` has an empty `why`: say why the run must do this (reasons are mandatory)")));
        }
        None => {
            return Err(here.err(span, format!("expectation `{id}` has no `why`: say why the run must do this (reasons are mandatory)")));
        }
    };
    let tier = match &raw.tier {
        None => Tier::HardDefect,
        Some(t) => Tier::parse(t.get_ref()).ok_or_else(|| {
            here.err(
                t.span(),
                format!(
                    "unknown tier `{}` (expected hard_defect, hard_event or candidate)",
                    t.get_ref()
                ),
            )
        })?,
    };
    let select = Select {
        paths: glob_list(raw.path.take(), "path", here)?,
        run_ids: glob_list(raw.run_id.take(), "run_id", here)?,
    };
    let kinds: Vec<&str> = [
        ("trajectory", raw.trajectory.is_some()),
        ("reference", raw.reference.is_some()),
        ("called", raw.called.is_some()),
        ("not_called", raw.not_called.is_some()),
        ("count", raw.count.is_some()),
        ("final_answer", raw.final_answer.is_some()),
        ("turns", raw.turns.is_some()),
        ("calls", raw.calls.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, on)| on.then_some(k))
    .collect();
    let kind = match kinds.as_slice() {
        [k] => *k,
        [] => {
            return Err(here.err(span, format!("expectation `{id}` checks nothing: give one of `trajectory`, `reference`, `called`, `not_called`, `count`, `final_answer`, `turns`, `calls`")));
        }
        several => {
            return Err(here.err(
                span,
                format!(
                    "expectation `{id}` has several kinds ({}): give exactly one per `[[expect]]`",
                    several
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    };
    // Keys that belong to another kind are errors, never silently ignored.
    let misplaced =
        |key: &str, present: Option<std::ops::Range<usize>>, allowed: &[&str]| match present {
            Some(s) if !allowed.contains(&kind) => Err(here.err(
                s,
                format!(
                    "`{key}` does not apply to a `{kind}` expectation (only to {})",
                    allowed
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            _ => Ok(()),
        };
    let traj = &["trajectory", "reference"];
    let calls = &["called", "not_called", "count"];
    misplaced("match", raw.match_mode.as_ref().map(Spanned::span), traj)?;
    misplaced("args", raw.args.as_ref().map(Spanned::span), traj)?;
    misplaced(
        "min_score",
        raw.min_score.as_ref().map(Spanned::span),
        traj,
    )?;
    misplaced(
        "tool_args",
        raw.tool_args
            .as_ref()
            .and_then(|m| m.values().next().map(Spanned::span)),
        traj,
    )?;
    for (key, v) in [
        ("exactly", &raw.exactly),
        ("at_least", &raw.at_least),
        ("at_most", &raw.at_most),
    ] {
        misplaced(key, v.as_ref().map(Spanned::span), &["count"])?;
    }
    misplaced(
        "before",
        raw.before.as_ref().map(Spanned::span),
        &["called"],
    )?;
    misplaced("after", raw.after.as_ref().map(Spanned::span), &["called"])?;
    misplaced(
        "where",
        raw.where_args
            .as_ref()
            .and_then(|w| w.first().map(Spanned::span)),
        calls,
    )?;
    misplaced(
        "result",
        raw.result
            .as_ref()
            .and_then(|w| w.first().map(Spanned::span)),
        calls,
    )?;
    misplaced("status", raw.status.as_ref().map(Spanned::span), calls)?;
    let check = match kind {
        "trajectory" | "reference" => Check::Trajectory(trajectory(&raw, here)?),
        "final_answer" => Check::FinalAnswer(conditions(raw.final_answer, "final_answer", here)?),
        "turns" => Check::Turns(bounds(raw.turns.as_ref().expect("the kind"), "turns", here)?),
        "calls" => Check::Calls(bounds(raw.calls.as_ref().expect("the kind"), "calls", here)?),
        _ => {
            let tool = raw
                .called
                .as_ref()
                .or(raw.not_called.as_ref())
                .or(raw.count.as_ref())
                .expect("one of the three is set");
            if tool.get_ref().trim().is_empty() {
                return Err(here.err(tool.span(), format!("`{kind}` must name a tool")));
            }
            let status = match &raw.status {
                None => None,
                Some(s) => Some(status_of(s.get_ref()).map_err(|m| here.err(s.span(), m))?),
            };
            let filter = CallFilter {
                tool: tool.get_ref().clone(),
                args: conditions(raw.where_args, "where", here)?,
                result: conditions(raw.result, "result", here)?,
                status,
            };
            match kind {
                "not_called" => Check::NotCalled(filter),
                "count" => {
                    let bound = |v: &Option<Spanned<i64>>,
                                 key: &str|
                     -> Result<Option<u64>, ExpectError> {
                        match v {
                            None => Ok(None),
                            Some(n) => u64::try_from(*n.get_ref()).map(Some).map_err(|_| {
                                here.err(n.span(), format!("`{key}` must be a count (0 or more)"))
                            }),
                        }
                    };
                    let exactly = bound(&raw.exactly, "exactly")?;
                    let mut at_least = bound(&raw.at_least, "at_least")?;
                    let mut at_most = bound(&raw.at_most, "at_most")?;
                    if let Some(x) = exactly {
                        if at_least.is_some() || at_most.is_some() {
                            return Err(here.err(
                                span,
                                "`exactly` cannot be combined with `at_least` or `at_most`",
                            ));
                        }
                        at_least = Some(x);
                        at_most = Some(x);
                    }
                    if at_least.is_none() && at_most.is_none() {
                        return Err(here.err(
                            tool.span(),
                            "a `count` needs `exactly`, `at_least` or `at_most`",
                        ));
                    }
                    if let (Some(l), Some(m)) = (at_least, at_most)
                        && l > m
                    {
                        return Err(here.err(
                            span,
                            format!("`at_least` ({l}) is more than `at_most` ({m})"),
                        ));
                    }
                    Check::Count {
                        filter,
                        at_least,
                        at_most,
                    }
                }
                _ => match (&raw.before, &raw.after) {
                    (Some(_), Some(a)) => {
                        return Err(here.err(
                            a.span(),
                            "give `before` or `after`, not both (write two expectations)",
                        ));
                    }
                    (Some(b), None) => Check::Before {
                        filter,
                        other: other_call(b, "before", here)?,
                    },
                    (None, Some(a)) => Check::After {
                        filter,
                        other: other_call(a, "after", here)?,
                    },
                    (None, None) => Check::Called(filter),
                },
            }
        }
    };
    Ok(Expectation {
        id,
        why,
        tier,
        declared_at: here.at(span),
        select,
        check,
    })
}

pub(super) fn trajectory(raw: &RawExpect, here: &Here<'_>) -> Result<Trajectory, ExpectError> {
    let mode = match &raw.match_mode {
        None => MatchMode::Strict,
        Some(m) => MatchMode::parse(m.get_ref()).ok_or_else(|| {
            here.err(m.span(), format!("unknown `match` {:?} (expected \"strict\", \"unordered\", \"subset\" or \"superset\")", m.get_ref()))
        })?,
    };
    let args = match &raw.args {
        None => ArgsMode::Exact,
        Some(a) => args_mode(
            &Spanned::new(a.span(), toml::Value::String(a.get_ref().clone())),
            "args",
            here,
        )?,
    };
    let mut tool_args = BTreeMap::new();
    for (tool, v) in raw.tool_args.iter().flatten() {
        tool_args.insert(
            tool.clone(),
            args_mode(v, &format!("tool_args.{tool}"), here)?,
        );
    }
    let min_score = match &raw.min_score {
        None => None,
        Some(v) => {
            let n = match v.get_ref() {
                toml::Value::Float(f) => Some(*f),
                toml::Value::Integer(i) => Some(*i as f64),
                _ => None,
            };
            match n {
                Some(n) if (0.0..=1.0).contains(&n) => Some(n),
                _ => {
                    return Err(here.err(
                        v.span(),
                        "`min_score` must be a number from 0 to 1 (the F1 score a run needs to pass)",
                    ));
                }
            }
        }
    };
    let (calls, reference) = match (&raw.trajectory, &raw.reference) {
        (Some(list), None) => {
            if list.len() > MAX_REF_CALLS {
                return Err(ExpectError {
                    location: here.path.to_owned(),
                    message: format!("a `trajectory` of more than {MAX_REF_CALLS} calls"),
                });
            }
            let calls = list
                .iter()
                .map(|c| {
                    let span = c.span();
                    let c = c.get_ref();
                    let args = match &c.args {
                        None => None,
                        Some(t) => Some(serde_json::to_value(t).map_err(|e| ExpectError {
                            location: here.path.to_owned(),
                            message: format!("`trajectory` arguments of `{}`: {e}", c.tool),
                        })?),
                    };
                    let status = match &c.status {
                        None => None,
                        Some(s) => Some(status_of(s).map_err(|m| {
                            here.err(span, format!("`trajectory` call of `{}`: {m}", c.tool))
                        })?),
                    };
                    Ok(RefCall {
                        tool: c.tool.clone(),
                        args,
                        status,
                    })
                })
                .collect::<Result<Vec<_>, ExpectError>>()?;
            (calls, None)
        }
        (None, Some(r)) => {
            let file = here.base.join(r.get_ref());
            let traces = crate::adapters::load_whole(&file).map_err(|e| {
                here.err(
                    r.span(),
                    format!("cannot read the reference trace {}: {e}", file.display()),
                )
            })?;
            let [trace] = traces.as_slice() else {
                return Err(here.err(
                    r.span(),
                    format!(
                        "the reference {} holds {} traces: a reference is one recorded run",
                        file.display(),
                        traces.len()
                    ),
                ));
            };
            if trace.call_count() > MAX_REF_CALLS {
                return Err(here.err(
                    r.span(),
                    format!(
                        "the reference {} has {} calls: more than the {MAX_REF_CALLS} a reference may hold",
                        file.display(),
                        trace.call_count()
                    ),
                ));
            }
            let calls: Vec<RefCall> = trace
                .steps
                .iter()
                .filter_map(|s| s.as_call())
                .map(|c| RefCall {
                    tool: c.name.clone(),
                    args: c.args.known().cloned(),
                    status: None,
                })
                .collect();
            (calls, Some(file.display().to_string()))
        }
        _ => unreachable!("exactly one kind"),
    };
    Ok(Trajectory {
        calls,
        mode,
        args,
        tool_args,
        reference,
        min_score,
    })
}
