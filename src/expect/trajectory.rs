//! Trajectory expectations: the calls matched per tool by an optimal assignment (or, in `strict`
//! order, an optimal alignment) whose cost puts problems first and differing arguments second, so
//! the diff reported is the smallest.

use std::collections::BTreeMap;

use super::assign::{self, HUNGARIAN_MAX, Op};
use super::status::{Judged, Statuses};
use super::verdict::{
    Call, Miss, Verdict, last_step, show_actual, show_call, trajectory_calls, undecidable,
};
use super::values::{self, ArgDiff};
use super::{ArgsMode, MatchMode, Trajectory};
use crate::model::Trace;

// ---------------------------------------------------------------- trajectories

/// A problem costs `PROBLEM`; among equally many problems, fewer differing arguments win
/// (`ARG_CAP` per pair at most, and `GAP_EXTRA` for an unpaired call, so pairing a call with
/// the closest one of its tool beats leaving both unpaired).
const PROBLEM: i64 = 1_000_000;
const ARG_CAP: i64 = 998;
const GAP_EXTRA: i64 = 999;
const GAP: i64 = PROBLEM + GAP_EXTRA;

/// How one expected call compares with one actual call of the same tool.
pub(super) struct PairCmp {
    pub(super) diffs: Vec<ArgDiff>,
    /// The actual call's arguments are not recorded (and the mode compares them).
    pub(super) unknown: bool,
    /// The step wants a status the call does not have: wanted and seen.
    pub(super) status: Option<String>,
    /// The step wants a status and the trace cannot tell the call's: why.
    pub(super) status_unknown: Option<String>,
}

impl PairCmp {
    pub(super) fn ok(&self) -> bool {
        self.diffs.is_empty()
            && !self.unknown
            && self.status.is_none()
            && self.status_unknown.is_none()
    }

    fn cost(&self) -> i64 {
        if self.ok() {
            0
        } else if self.unknown || self.status_unknown.is_some() {
            PROBLEM + ARG_CAP
        } else {
            PROBLEM + (self.diffs.len() as i64 + i64::from(self.status.is_some())).min(ARG_CAP)
        }
    }

    /// Why the pair does not match, in words (every differing argument, then the status).
    pub(super) fn reasons(&self, mode: &ArgsMode) -> String {
        let mut parts = Vec::new();
        if self.unknown {
            parts.push("its arguments are not recorded".to_owned());
        } else if !self.diffs.is_empty() {
            parts.push(format!(
                "{} ({} arguments)",
                self.diffs
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; "),
                mode.describe()
            ));
        }
        parts.extend(self.status.iter().cloned());
        parts.extend(self.status_unknown.iter().cloned());
        parts.join("; ")
    }
}

pub(super) fn compare(t: &Trajectory, e: usize, a: &Call<'_>) -> PairCmp {
    let exp = &t.calls[e];
    let mode = t.args_mode(&exp.tool);
    let (status, status_unknown) = match exp.status.map(|w| (w, a.judged(w))) {
        None => (None, None),
        Some((_, Some(Judged::Yes))) => (None, None),
        Some((_, Some(Judged::No(why)))) => (Some(why.clone()), None),
        Some((_, Some(Judged::Unknown(why)))) => (None, Some(why.clone())),
        Some((w, None)) => (
            None,
            Some(format!("its status was not judged (wanted `{}`)", w.as_str())),
        ),
    };
    let (diffs, unknown) = if *mode == ArgsMode::Ignore || exp.args.is_none() {
        (Vec::new(), false)
    } else {
        match a.args {
            Ok(v) => (values::diff(mode, exp.args.as_ref(), v), false),
            Err(_) => (Vec::new(), true),
        }
    };
    PairCmp {
        diffs,
        unknown,
        status,
        status_unknown,
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
        } else if cmp.diffs.is_empty() {
            format!(
                "expected call #{} `{}`: the closest call's status differs",
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
        expected: Some(show_ref(exp)),
        actual: Some(show_actual(a)),
        differences: cmp
            .diffs
            .iter()
            .map(ToString::to_string)
            .chain(cmp.status.iter().cloned())
            .collect(),
        related: Vec::new(),
        fields: cmp
            .diffs
            .iter()
            .map(|d| d.key.trim_start_matches('/').to_owned())
            .collect(),
    }
}

/// A reference call as shown in a diff, with the status it wants.
fn show_ref(exp: &super::RefCall) -> String {
    let call = show_call(&exp.tool, exp.args.as_ref());
    match exp.status {
        Some(s) => format!("{call} (status {})", s.as_str()),
        None => call,
    }
}

pub(super) fn trajectory(t: &Trajectory, trace: &Trace, statuses: &dyn Statuses) -> Verdict {
    let actual = trajectory_calls(t, trace, statuses);
    let counts_missing = t.mode != MatchMode::Subset;
    let counts_extra = t.mode != MatchMode::Superset;
    let mut misses = Vec::new();
    let mut note = None;
    let mut unknown_involved = false;
    let mut status_unknown: Option<(String, usize)> = None;
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
            expected: Some(show_ref(exp)),
            actual: None,
            differences: Vec::new(),
            related: Vec::new(),
            fields: Vec::new(),
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
        fields: Vec::new(),
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
                        if let Some(why) = &c.status_unknown {
                            status_unknown.get_or_insert((why.clone(), actual[a].step));
                        }
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
            } else if es.len().saturating_mul(acts.len()) > assign::MATCHING_MAX_PAIRS {
                return undecidable(
                    format!(
                        "`{tool}` has {} reference and {} actual calls: past the matcher's bound of {} pairs",
                        es.len(),
                        acts.len(),
                        assign::MATCHING_MAX_PAIRS
                    ),
                    None,
                );
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
                    if let Some(why) = &c.status_unknown {
                        status_unknown.get_or_insert((why.clone(), actual[a].step));
                    }
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
                    // Unrecorded arguments matter only where a reference call of the tool could
                    // have matched them; a tool the reference never calls is extra by its name.
                    if actual[a].args.is_err() && !es.is_empty() {
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
    if let Some((why, step)) = status_unknown {
        return undecidable(
            format!("the call at step {step} the reference could match: {why}"),
            Some(step),
        );
    }
    Verdict::NotMet { misses, note }
}
