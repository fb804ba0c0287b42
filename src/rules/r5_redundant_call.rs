//! R5 redundant_call: a non-adjacent repeat of a call (same tool, same normalised arguments)
//! that returned an identical result with no declared side-effecting call between (nor an
//! undeclared one that plainly writes: `effects::looks_like_a_write`), so the first result
//! could have been reused. Tools between whose side effects are not declared are named
//! as unverified. A call with no recorded result is never a repeat (disclosed as not checked).
//! Adjacent repeats are R4's business. Always a `candidate`. Linear: the previous identical call
//! is a hash lookup and "a side effect between" is a prefix-count difference.

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasherDefault;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::automaton::SymbolHasher;
use crate::analysis::calls::{CallKey, CallRecord};
use crate::analysis::normalize::same_result;

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
        let recs = cx.calls();
        let n = recs.len();
        // side_effects[i] = declared side-effecting calls among recs[..i].
        let mut side_effects = vec![0usize; n + 1];
        // next_unverified[i] = first call at or after i whose side effects are not declared.
        let mut next_unverified = vec![n; n + 1];
        for (i, r) in recs.iter().enumerate() {
            let declared = cx
                .spec(&r.call.name)
                .and_then(|s| s.metadata.side_effecting);
            // A call that declares nothing but plainly writes (an editor's `str_replace`, a
            // `sed -i`, a redirect to a file) counts too: an identical result after it is a
            // check that the change left this alone, not a wasted call.
            let writes = match declared {
                Some(d) => d,
                None => crate::analysis::effects::looks_like_a_write(r.call),
            };
            side_effects[i + 1] = side_effects[i] + usize::from(writes);
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
        let mut last: HashMap<&CallKey, usize, BuildHasherDefault<SymbolHasher>> =
            HashMap::default();
        for (i, r) in recs.iter().enumerate() {
            let Some(key) = r.key.as_ref() else {
                out.count_tool(Some(&r.call.name), false);
                continue;
            };
            let Some(result) = r.result else {
                out.count_tool(Some(&r.call.name), false);
                if last.contains_key(key) {
                    out.suppress(
                        r.step,
                        Some(&r.call.name),
                        "no result recorded: never a repeat of an earlier identical call, so not checked for redundancy",
                    );
                }
                continue;
            };
            out.count_tool(Some(&r.call.name), true);
            if let Some(&p) = last.get(key)
                && p + 1 != i
                && recs[p]
                    .result
                    .is_some_and(|earlier| same_result(earlier, result))
                && side_effects[i] == side_effects[p + 1]
            {
                report(recs, p, i, &next_unverified, out);
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

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    fn call(i: usize, name: &str, arg: &str) -> String {
        format!(
            r#"{{"type": "tool_call", "call_id": "{i}", "name": "{name}", "args": {{"x": "{arg}"}}}},
               {{"type": "tool_result", "call_id": "{i}", "status": "ok", "content": "r-{name}-{arg}"}}"#
        )
    }

    fn trace(calls: &[(&str, &str)]) -> String {
        let steps: Vec<String> = calls
            .iter()
            .enumerate()
            .map(|(i, (n, a))| call(i, n, a))
            .collect();
        format!(r#"{{"run_id": "r", "steps": [{}]}}"#, steps.join(","))
    }

    const TOOLS: &str = r#"{"tools": {
        "read": {"metadata": {"side_effecting": false}},
        "write": {"metadata": {"side_effecting": true}}
    }}"#;

    fn r5(out: &str) -> Vec<&str> {
        out.lines()
            .filter(|l| !l.starts_with("coverage") && l.contains(" R5 "))
            .collect()
    }

    #[test]
    fn only_a_side_effect_between_the_pair_matters() {
        let t = trace(&[
            ("read", "a"),
            ("read", "b"),
            ("read", "a"),
            ("write", "z"),
            ("read", "a"),
        ]);
        let out = lint(&t, Some(TOOLS), Default::default());
        // (0, 2) is redundant; (2, 4) has a write between.
        assert_eq!(r5(&out).len(), 1, "{out}");
        assert!(
            out.contains("repeats an identical call made 2 calls earlier"),
            "{out}"
        );
    }

    #[test]
    fn undeclared_tools_between_are_named_sorted_and_capped() {
        let mut calls = vec![("read", "a")];
        let names = ["u7", "u3", "u1", "u3", "u6", "u2", "u5", "u4"];
        calls.extend(names.iter().map(|n| (*n, "q")));
        calls.push(("read", "a"));
        let out = lint(&trace(&calls), Some(TOOLS), Default::default());
        // The first five distinct names in call order (u7 u3 u1 u6 u2), sorted; more follow.
        assert!(
            out.contains(
                "(unverified: `u1`, `u2`, `u3`, `u6`, `u7`, … ran between, side effects not declared)"
            ),
            "{out}"
        );
    }

    #[test]
    fn an_undeclared_call_that_writes_is_a_change_between() {
        // A test re-run after `sed -i` is a check, not a waste; after `cat` it is a repeat.
        let step = |i: usize, cmd: &str, out: &str| {
            format!(
                r#"{{"type": "tool_call", "call_id": "{i}", "name": "bash", "args": {{"command": "{cmd}"}}}},
                   {{"type": "tool_result", "call_id": "{i}", "status": "ok", "content": "{out}"}}"#
            )
        };
        let run = |between: &str| {
            let steps = [
                step(0, "python repro.py", "Error: 1"),
                step(1, between, "ok"),
                step(2, "python repro.py", "Error: 1"),
            ];
            let t = format!(r#"{{"run_id": "r", "steps": [{}]}}"#, steps.join(","));
            r5(&lint(&t, None, Default::default())).len()
        };
        assert_eq!(run("sed -i 's/a/b/' x.py"), 0);
        assert_eq!(run("cat x.py"), 1);
    }
}
