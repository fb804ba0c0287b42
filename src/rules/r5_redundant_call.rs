//! R5 redundant_call: a non-adjacent repeat of a call (same tool, same normalised arguments)
//! that returned an identical result with no declared side-effecting call between, so the first
//! result could have been reused. Tools between whose side effects are not declared are named
//! as unverified. A call with no recorded result is never a repeat (disclosed as not checked).
//! Adjacent repeats are R4's business. Always a `candidate`. Linear: the previous identical call
//! is a hash lookup and "a side effect between" is a prefix-count difference.

use std::collections::{BTreeSet, HashMap};

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};

use super::calls::{CallRecord, records};
use super::normalize::same_result;
use super::{Rule, Sink, TraceCx, evidence};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R5,
    kind: FindingType::RedundantCall,
    summary: "an identical call repeated with an identical result and no state change between",
    tiers: &[Tier::Candidate],
    unit: "tool calls",
    explanation: include_str!("docs/R5.md"),
};

/// Undeclared tools named in one finding, and calls looked at to find them.
const MAX_NAMED: usize = 5;
const MAX_HOPS: usize = 64;

pub(crate) struct RedundantCall;

impl Rule for RedundantCall {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let recs = records(cx);
        let n = recs.len();
        // side_effects[i] = declared side-effecting calls among recs[..i].
        let mut side_effects = vec![0usize; n + 1];
        // next_unverified[i] = first call at or after i whose side effects are not declared.
        let mut next_unverified = vec![n; n + 1];
        for (i, r) in recs.iter().enumerate() {
            let declared = cx
                .spec(&r.call.name)
                .and_then(|s| s.metadata.side_effecting);
            side_effects[i + 1] = side_effects[i] + usize::from(declared == Some(true));
        }
        for i in (0..n).rev() {
            let declared = cx
                .spec(&recs[i].call.name)
                .and_then(|s| s.metadata.side_effecting);
            next_unverified[i] = if declared.is_none() {
                i
            } else {
                next_unverified[i + 1]
            };
        }
        let mut last: HashMap<&str, usize> = HashMap::new();
        for (i, r) in recs.iter().enumerate() {
            let Some(key) = r.key.as_deref() else {
                out.count(false);
                continue;
            };
            let Some(result) = r.result else {
                out.count(false);
                if last.contains_key(key) {
                    out.suppress(
                        r.step,
                        Some(&r.call.name),
                        "no result recorded: never a repeat of an earlier identical call, so not checked for redundancy",
                    );
                }
                continue;
            };
            out.count(true);
            if let Some(&p) = last.get(key)
                && p + 1 != i
                && recs[p]
                    .result
                    .is_some_and(|earlier| same_result(earlier, result))
                && side_effects[i] == side_effects[p + 1]
            {
                report(&recs, p, i, &next_unverified, out);
            }
            last.insert(key, i);
        }
    }
}

fn report(recs: &[CallRecord<'_>], p: usize, i: usize, next_unverified: &[usize], out: &mut Sink) {
    let mut names = BTreeSet::new();
    let mut k = next_unverified[p + 1];
    let mut hops = 0;
    while k < i && names.len() < MAX_NAMED && hops < MAX_HOPS {
        names.insert(recs[k].call.name.as_str());
        k = next_unverified[k + 1];
        hops += 1;
    }
    let name = recs[i].call.name.as_str();
    let mut message = format!(
        "`{name}` repeats an identical call made {} calls earlier, with an identical result and no declared side effect between",
        i - p
    );
    if !names.is_empty() {
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let more = if k < i { ", …" } else { "" };
        message.push_str(&format!(
            " (unverified: {}{more} ran between, side effects not declared)",
            list.join(", ")
        ));
    }
    let f = out.finding(
        Tier::Candidate,
        recs[i].step,
        Some(name),
        message,
        "the repeated call",
    );
    f.evidence
        .push(evidence(recs[p].step, "the earlier identical call"));
    f.possible_false_positive = true;
    f.help = Some(if names.is_empty() {
        "reuse the first result instead of calling again".into()
    } else {
        "reuse the first result, or declare `side_effecting` for the tools named so the check is certain"
            .into()
    });
}
