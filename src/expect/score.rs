//! Scores with reasons for a trajectory expectation: how many reference calls the run made (by
//! the expectation's argument mode), as precision, recall and F1; an alignment of the run
//! against the reference as edit operations (missing, extra, substituted, out of order); and,
//! for every reference step, why it did or did not match. The score stands beside the verdict:
//! it never changes it, except through `min_score`, which passes a run that is close enough.
//!
//! Matches are counted as the verdict counts them: in `strict` order a match must keep the
//! order (the longest common subsequence of matching calls); in every other mode calls match in
//! any order (a maximum matching per tool). A call out of order is named but not counted.

use super::assign::{self, Op};
use super::trajectory::compare;
#[cfg(test)]
use super::verdict::Call;
use super::status::Statuses;
use super::verdict::trajectory_calls;
use super::{MatchMode, Trajectory};
use crate::model::Trace;
pub use crate::model::score::{Edit, EditKind, Score, StepDiff};

/// Precision, recall and F1 of `matched` calls out of `expected` and `actual`.
pub fn ratios(matched: usize, expected: usize, actual: usize) -> (f64, f64, f64) {
    let part = |n: usize| {
        if n == 0 {
            1.0
        } else {
            matched as f64 / n as f64
        }
    };
    let (p, r) = (part(actual), part(expected));
    let f1 = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    (p, r, f1)
}

/// The score of `trace` against `t`; `None` past the matchers' bounds.
pub fn score(t: &Trajectory, trace: &Trace, statuses: &dyn Statuses) -> Option<Score> {
    let actual = trajectory_calls(t, trace, statuses);
    let ok = |e: usize, a: usize| t.calls[e].tool == actual[a].name && compare(t, e, &actual[a]).ok();
    let (ne, na) = (t.calls.len(), actual.len());
    // pair_of[e] = (actual index, counted as matched)
    let mut pair_of: Vec<Option<usize>> = vec![None; ne];
    let mut taken = vec![false; na];
    if t.mode == MatchMode::Strict {
        let ops = assign::align(ne, na, |e, a| ok(e, a).then_some(0), 1)?;
        for op in ops {
            if let Op::Pair(e, a) = op {
                pair_of[e] = Some(a);
                taken[a] = true;
            }
        }
    } else {
        // Calls of different tools never match: one maximum matching per tool.
        let mut tools: Vec<&str> = t.calls.iter().map(|c| c.tool.as_str()).collect();
        tools.sort_unstable();
        tools.dedup();
        for tool in tools {
            let es: Vec<usize> = (0..ne).filter(|&e| t.calls[e].tool == tool).collect();
            let acts: Vec<usize> = (0..na).filter(|&a| actual[a].name == tool).collect();
            if es.len().saturating_mul(acts.len()) > assign::MATCHING_MAX_PAIRS {
                return None;
            }
            let adj: Vec<Vec<usize>> = es
                .iter()
                .map(|&e| (0..acts.len()).filter(|&c| ok(e, acts[c])).collect())
                .collect();
            for (i, got) in assign::max_matching(&adj, acts.len()).iter().enumerate() {
                if let Some(c) = got {
                    pair_of[es[i]] = Some(acts[*c]);
                    taken[acts[*c]] = true;
                }
            }
        }
    }
    let matched = pair_of.iter().filter(|p| p.is_some()).count();
    let (precision, recall, f1) = ratios(matched, ne, na);
    let mut steps: Vec<Option<StepDiff>> = (0..ne)
        .map(|e| {
            pair_of[e].map(|a| StepDiff {
                reference: e + 1,
                tool: t.calls[e].tool.clone(),
                step: Some(actual[a].step),
                matched: true,
                why: format!("matched step {}", actual[a].step),
            })
        })
        .collect();
    let mut edits: Vec<(usize, Edit)> = Vec::new(); // (sort key, edit)
    // Out of order (strict): a matching call the ordered alignment could not use.
    if t.mode == MatchMode::Strict {
        for (e, slot) in steps.iter_mut().enumerate() {
            if slot.is_some() {
                continue;
            }
            if let Some(a) = (0..na).find(|&a| !taken[a] && ok(e, a)) {
                taken[a] = true;
                let step = actual[a].step;
                *slot = Some(StepDiff {
                    reference: e + 1,
                    tool: t.calls[e].tool.clone(),
                    step: Some(step),
                    matched: false,
                    why: format!("made at step {step}, out of the reference's order"),
                });
                edits.push((
                    step,
                    Edit {
                        kind: EditKind::OutOfOrder,
                        reference: Some(e + 1),
                        step: Some(step),
                        tool: t.calls[e].tool.clone(),
                    },
                ));
            }
        }
    }
    // Substituted: the closest free call of the same tool (fewest differing arguments).
    for (e, slot) in steps.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        let exp = &t.calls[e];
        let best = (0..na)
            .filter(|&a| !taken[a] && actual[a].name == exp.tool)
            .map(|a| (compare(t, e, &actual[a]), a))
            .min_by_key(|(c, a)| {
                (
                    c.unknown || c.status_unknown.is_some(),
                    c.diffs.len() + usize::from(c.status.is_some()),
                    *a,
                )
            });
        let why = match best {
            Some((c, a)) => {
                taken[a] = true;
                let step = actual[a].step;
                edits.push((
                    step,
                    Edit {
                        kind: EditKind::Substituted,
                        reference: Some(e + 1),
                        step: Some(step),
                        tool: exp.tool.clone(),
                    },
                ));
                let reason = c.reasons(t.args_mode(&exp.tool));
                StepDiff {
                    reference: e + 1,
                    tool: exp.tool.clone(),
                    step: Some(step),
                    matched: false,
                    why: format!("step {step} called `{}` but {reason}", exp.tool),
                }
            }
            None => {
                edits.push((
                    usize::MAX,
                    Edit {
                        kind: EditKind::Missing,
                        reference: Some(e + 1),
                        step: None,
                        tool: exp.tool.clone(),
                    },
                ));
                let why = if actual.iter().any(|c| c.name == exp.tool) {
                    format!(
                        "never called: every call of `{}` lines up with another reference step",
                        exp.tool
                    )
                } else {
                    format!("never called: the run has no call of `{}`", exp.tool)
                };
                StepDiff {
                    reference: e + 1,
                    tool: exp.tool.clone(),
                    step: None,
                    matched: false,
                    why,
                }
            }
        };
        *slot = Some(why);
    }
    for (a, c) in actual.iter().enumerate() {
        if !taken[a] {
            edits.push((
                c.step,
                Edit {
                    kind: EditKind::Extra,
                    reference: None,
                    step: Some(c.step),
                    tool: c.name.to_owned(),
                },
            ));
        }
    }
    // Reference order for edits on a reference step, then the extra calls in run order.
    edits.sort_by_key(|(k, e)| (e.reference.is_none(), e.reference.unwrap_or(0), *k));
    Some(Score {
        matched,
        expected: ne,
        actual: na,
        precision,
        recall,
        f1,
        min_score: t.min_score,
        edits: edits.into_iter().map(|(_, e)| e).collect(),
        steps: steps.into_iter().map(|s| s.expect("every step decided")).collect(),
    })
}

/// The number of matches `score` counts, found by trying every pairing (tests only: the
/// optimum a brute force finds must equal the matcher's).
#[cfg(test)]
pub(super) fn brute_force_matched(t: &Trajectory, actual: &[Call<'_>]) -> usize {
    fn go(
        t: &Trajectory,
        actual: &[Call<'_>],
        e: usize,
        min_a: usize,
        used: &mut Vec<bool>,
    ) -> usize {
        if e == t.calls.len() {
            return 0;
        }
        // Leave reference call `e` unmatched…
        let mut best = go(t, actual, e + 1, min_a, used);
        // …or match it with any allowed call.
        let start = if t.mode == MatchMode::Strict { min_a } else { 0 };
        for a in start..actual.len() {
            if used[a] || t.calls[e].tool != actual[a].name || !compare(t, e, &actual[a]).ok() {
                continue;
            }
            used[a] = true;
            best = best.max(1 + go(t, actual, e + 1, a + 1, used));
            used[a] = false;
        }
        best
    }
    go(t, actual, 0, 0, &mut vec![false; actual.len()])
}
