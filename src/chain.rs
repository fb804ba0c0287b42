//! Where each run first went wrong, and what followed from it: the "first failure" of a trace is
//! its earliest hard finding (or, with none, the earliest candidate a person would look at
//! first), and its chain is every later finding of the same run that cites a step already in
//! the chain (an error → the call that reused its value → the side effect; a loop's first call →
//! its repeats). Computed from the findings alone, the steps they cite being the trace's own
//! steps, so `report` can rebuild it from shards; reporters show it first.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::finding::{Finding, Tier};
use crate::model::Location;

/// Most steps a chain lists (a loop of thousands of repeats is counted, not listed).
pub const MAX_STEPS: usize = 12;
/// Most findings a chain lists after its first failure.
pub const MAX_FOLLOWS: usize = 32;
/// Most findings of one run looked at when chaining (untrusted input: a run may carry a great
/// many); the rest never join a chain.
pub(crate) const MAX_LOOKED_AT: usize = 4096;

/// One run's first failure and the findings that follow from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// Index into the findings given: the first failure.
    pub head: usize,
    /// Indices of the findings that follow from it, in step order (at most `MAX_FOLLOWS`).
    pub follows: Vec<usize>,
    /// Findings that follow from it beyond `follows`.
    pub more_follows: usize,
    /// The steps the chain passes through, in step order (at most `MAX_STEPS`).
    pub steps: Vec<ChainStep>,
    /// Steps beyond `steps`.
    pub more_steps: usize,
}

/// One step of a chain: a step some finding of the chain cites.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainStep {
    /// Step index in the trace.
    pub step: usize,
    /// Where the step is in its input.
    pub at: Location,
    /// What the step shows, in the words of the first finding of the chain that cites it.
    pub note: Cow<'static, str>,
    /// Index into the findings given: that finding.
    pub finding: usize,
}

/// The step a finding happens at: its primary evidence's step.
fn step_of(f: &Finding) -> usize {
    f.evidence.first().map_or(0, |e| e.step)
}

/// How early a finding is, and how much a person should look at it first: earlier steps first,
/// then the surer tier, then a finding that is not a possible false positive, then rule order.
fn first_key(f: &Finding) -> (usize, std::cmp::Reverse<Tier>, bool, crate::finding::RuleId) {
    (
        step_of(f),
        std::cmp::Reverse(f.tier),
        f.possible_false_positive,
        f.rule,
    )
}

/// The first failure of every run with an active trace finding, in the order of the findings
/// given (by input, then the head's place). Ignored findings, and tool-definition findings, take
/// no part.
pub fn first_failures(findings: &[Finding]) -> Vec<Chain> {
    let mut runs: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
    for (i, f) in findings.iter().enumerate() {
        if f.ignored.is_some() || f.rule.is_tool_rule() || f.evidence.is_empty() {
            continue;
        }
        let run = runs.entry((f.input, f.run_id.as_str())).or_default();
        if run.len() < MAX_LOOKED_AT {
            run.push(i);
        }
    }
    let mut chains: Vec<Chain> = runs
        .into_values()
        .filter_map(|run| chain_of(findings, run))
        .collect();
    chains.sort_by(|a, b| {
        findings[a.head]
            .sort_key()
            .cmp(&findings[b.head].sort_key())
    });
    chains
}

/// The chain of one run's findings.
fn chain_of(findings: &[Finding], mut run: Vec<usize>) -> Option<Chain> {
    run.sort_by(|a, b| first_key(&findings[*a]).cmp(&first_key(&findings[*b])));
    // The earliest hard finding; with none, the earliest candidate (one that is not a possible
    // false positive first).
    let head = run
        .iter()
        .copied()
        .find(|i| findings[*i].tier > Tier::Candidate)
        .or_else(|| {
            run.iter()
                .copied()
                .find(|i| !findings[*i].possible_false_positive)
        })
        .or_else(|| run.first().copied())?;
    let head_step = step_of(&findings[head]);
    let mut cited: BTreeSet<usize> = findings[head].evidence.iter().map(|e| e.step).collect();
    let mut joined: Vec<usize> = Vec::new();
    let mut open: Vec<usize> = run
        .iter()
        .copied()
        .filter(|i| *i != head && step_of(&findings[*i]) >= head_step)
        .collect();
    // Joining can make an earlier-looked-at finding reachable (it cites a step a later one
    // brought in): repeat until nothing joins.
    loop {
        let before = joined.len();
        open.retain(|i| {
            let f = &findings[*i];
            if f.evidence.iter().any(|e| cited.contains(&e.step)) {
                cited.extend(f.evidence.iter().map(|e| e.step));
                joined.push(*i);
                false
            } else {
                true
            }
        });
        if joined.len() == before {
            break;
        }
    }
    joined.sort_by(|a, b| first_key(&findings[*a]).cmp(&first_key(&findings[*b])));
    let mut steps: BTreeMap<usize, ChainStep> = BTreeMap::new();
    for i in std::iter::once(head).chain(joined.iter().copied()) {
        for e in &findings[i].evidence {
            steps.entry(e.step).or_insert_with(|| ChainStep {
                step: e.step,
                at: e.at.clone(),
                note: e.note.clone(),
                finding: i,
            });
        }
    }
    let total_steps = steps.len();
    let more_follows = joined.len().saturating_sub(MAX_FOLLOWS);
    joined.truncate(MAX_FOLLOWS);
    Some(Chain {
        head,
        follows: joined,
        more_follows,
        steps: steps.into_values().take(MAX_STEPS).collect(),
        more_steps: total_steps.saturating_sub(MAX_STEPS),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Evidence, RuleId};

    fn finding(rule: RuleId, tier: Tier, run: &str, steps: &[usize]) -> Finding {
        let meta = crate::finding::RuleMeta {
            id: rule,
            kind: crate::finding::FindingType::Loop,
            summary: "",
            tiers: &[],
            unit: "tool calls",
            explanation: "",
        };
        let ev = |s: usize| Evidence {
            step: s,
            at: Location::new(u32::try_from(s).unwrap() + 10, 5, format!("/steps/{s}")),
            note: Cow::Owned(format!("step {s}")),
            excerpt: String::new(),
        };
        let mut f = Finding::new(&meta, tier, run, None, "m", ev(steps[0]));
        f.evidence.extend(steps[1..].iter().map(|s| ev(*s)));
        f
    }

    #[test]
    fn an_error_its_reused_value_and_the_side_effect_chain_from_the_error() {
        let findings = vec![
            // A later, unrelated schema violation, sorted first in the input.
            finding(RuleId::R1, Tier::HardDefect, "a", &[9]),
            finding(RuleId::R2a, Tier::HardEvent, "a", &[2]),
            finding(RuleId::R2b, Tier::HardDefect, "a", &[5, 2, 3]),
            // Cites the side effect's step: it follows too.
            finding(RuleId::R12, Tier::Candidate, "a", &[5]),
            // Another run: its own chain.
            finding(RuleId::R7, Tier::Candidate, "b", &[1]),
        ];
        let chains = first_failures(&findings);
        assert_eq!(chains.len(), 2);
        let of = |run: &str| chains.iter().find(|c| findings[c.head].run_id == run).unwrap();
        let a = of("a");
        assert_eq!((a.head, a.follows.as_slice()), (1, &[2, 3][..]));
        let steps: Vec<(usize, u32, usize)> =
            a.steps.iter().map(|s| (s.step, s.at.line, s.finding)).collect();
        assert_eq!(steps, [(2, 12, 1), (3, 13, 2), (5, 15, 2)]);
        // With no hard finding, the candidate heads its run's chain.
        assert_eq!((of("b").head, of("b").follows.len()), (4, 0));
    }

    #[test]
    fn a_loop_lists_its_first_call_then_its_repeats_within_the_bound() {
        let repeats: Vec<usize> = (0..40).collect();
        let findings = vec![finding(RuleId::R4, Tier::HardEvent, "l", &repeats)];
        let c = &first_failures(&findings)[0];
        assert_eq!(c.steps.first().map(|s| s.step), Some(0));
        assert_eq!((c.steps.len(), c.more_steps), (MAX_STEPS, 40 - MAX_STEPS));
    }

    #[test]
    fn ignored_findings_and_earlier_steps_take_no_part() {
        let mut ignored = finding(RuleId::R2a, Tier::HardEvent, "a", &[1]);
        ignored.ignored = Some("known flaky".into());
        let findings = vec![
            ignored,
            // Before the head, though it cites the head's step: not a consequence.
            finding(RuleId::R3, Tier::Candidate, "a", &[2, 4]),
            finding(RuleId::R1, Tier::HardDefect, "a", &[4]),
        ];
        let chains = first_failures(&findings);
        assert_eq!(chains.len(), 1);
        assert_eq!((chains[0].head, chains[0].follows.len()), (2, 0));
    }
}
