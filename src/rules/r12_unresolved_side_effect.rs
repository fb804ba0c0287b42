//! R12 unresolved_side_effect: a tool declared side-effecting whose last call in the run has no
//! resolved outcome: no result was recorded, its result says neither success nor failure (read
//! as R2a reads it), or it failed with a structured error (a timeout or a 500 may come after
//! the effect) and no later call of it succeeded. Judged per tool on its last call, so a later
//! success resolves an earlier failure. A declared failure (`failure_when` matched) is a
//! resolved outcome. Always a `candidate`: a missing result may be a cut-off capture. One pass.

use std::collections::HashMap;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};

use crate::model::Step;

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::contract::{Verdict, side_effecting, verdict};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R12,
    kind: FindingType::UnresolvedSideEffect,
    summary: "a side-effecting call whose outcome the run never resolved",
    tiers: &[Tier::Candidate],
    unit: "side-effecting tools",
    explanation: include_str!("docs/R12.md"),
};

pub(crate) struct UnresolvedSideEffect;

impl Rule for UnresolvedSideEffect {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        if cx.registry.iter().any(|s| s.metadata.is_side_effecting()) {
            Ok(())
        } else {
            Err("not applicable: no tool declares `side_effecting: true`".into())
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let steps = &cx.trace.steps;
        // The last call of each side-effecting tool, in order of first appearance.
        let mut last: Vec<usize> = Vec::new();
        let mut slot: HashMap<&str, usize> = HashMap::new();
        // The last step that is a call or a result: after it the run did nothing observable.
        let mut last_activity = None;
        for s in steps {
            let Some(call) = s.as_call() else {
                if s.as_result().is_some() {
                    last_activity = Some(s.index);
                }
                continue;
            };
            last_activity = Some(s.index);
            if !side_effecting(cx, &call.name) {
                continue;
            }
            match slot.get(call.name.as_str()) {
                Some(&i) => last[i] = s.index,
                None => {
                    slot.insert(call.name.as_str(), last.len());
                    last.push(s.index);
                }
            }
        }
        for at in last {
            out.count(true);
            let step = &steps[at];
            let name = step.as_call().map_or("", |c| c.name.as_str());
            let v = verdict(cx, at);
            if let Verdict::Failed { result, .. } = v
                && rejected(step, steps.get(result))
            {
                continue;
            }
            let (message, help, pff) = match v {
                Verdict::Succeeded { .. } | Verdict::Failed { structured: false, .. } => continue,
                Verdict::NoResult | Verdict::Unknown { recorded: false, .. } => (
                    format!(
                        "`{name}` side effect is unresolved: its last call has no recorded result, so the run never saw whether it happened"
                    ),
                    "record the call's result, or confirm the effect with a read-back call before ending".to_owned(),
                    // At the very end, the capture may simply have been cut off.
                    last_activity.is_none_or(|l| l <= at),
                ),
                Verdict::Failed { how, .. } => (
                    format!(
                        "`{name}` side effect is unresolved: its last call failed ({how}) and no later call of it succeeded; a failed side effect may still have happened"
                    ),
                    "confirm whether the effect happened (a read-back call), or retry with an idempotency key".to_owned(),
                    false,
                ),
                Verdict::Unknown { absent, .. } => (
                    match absent {
                        Some(p) => format!(
                            "`{name}` side effect is unresolved: its last result lacks `{p}`, the field its `failure_when` reads"
                        ),
                        None => format!(
                            "`{name}` side effect is unresolved: its last result says neither success nor failure (no status, and `{name}` declares no `failure_when`)"
                        ),
                    },
                    format!(
                        "declare `failure_when` for `{name}` so its result is classified, or record the result's status"
                    ),
                    true,
                ),
            };
            let f = out.finding(Tier::Candidate, step, Some(name), message, "its last call");
            if let Some(r) = v.result().and_then(|r| steps.get(r)) {
                f.evidence.push(evidence(r, "its result"));
            }
            f.possible_false_positive = pff;
            f.help = Some(help);
        }
    }
}

/// A failure that says the tool never acted: the call's arguments were malformed (the tool
/// could not have run with them), or the request was refused with a 4xx status other than a
/// timeout (408). A timeout or a 5xx may come after the effect was done.
fn rejected(call: &Step, result: Option<&Step>) -> bool {
    if call
        .as_call()
        .is_some_and(|c| matches!(c.args, crate::model::Args::Malformed(_)))
    {
        return true;
    }
    result
        .and_then(Step::as_result)
        .and_then(|r| r.http_status)
        .is_some_and(|code| (400..500).contains(&code) && code != 408)
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{findings, lint};

    const TOOLS: &str = r#"{"tools": {
        "charge": {"metadata": {"side_effecting": true,
                   "failure_when": {"pointer": "/status", "in": ["declined"]}}},
        "email": {"metadata": {"side_effecting": true}},
        "read": {"metadata": {"side_effecting": false}}
    }}"#;

    /// R12's findings as `step: message` (with ` [pff]` for a possible false positive), then
    /// its coverage.
    fn run(steps: &str) -> String {
        let t = format!(r#"{{"run_id": "r", "steps": [{steps}]}}"#);
        let mut out: Vec<String> = findings(&t, TOOLS)
            .iter()
            .filter(|f| f.rule == crate::finding::RuleId::R12)
            .map(|f| {
                let steps: Vec<String> = f.evidence.iter().map(|e| e.step.to_string()).collect();
                let pff = if f.possible_false_positive {
                    " [pff]"
                } else {
                    ""
                };
                format!("{} {}: {}{pff}", f.tier, steps.join(","), f.message)
            })
            .collect();
        let text = lint(&t, Some(TOOLS), Default::default());
        out.extend(
            text.lines()
                .filter(|l| l.starts_with("coverage R12"))
                .map(str::to_owned),
        );
        out.join("\n")
    }

    const CALL_1: &str = r#"{"type": "tool_call", "call_id": "1", "name": "charge", "args": {}}"#;
    const CALL_2: &str = r#"{"type": "tool_call", "call_id": "2", "name": "email", "args": {}}"#;
    const READ: &str = r#"{"type": "tool_call", "call_id": "3", "name": "read", "args": {}},
        {"type": "tool_result", "call_id": "3", "content": "x", "status": "ok"}"#;

    #[test]
    fn the_last_call_of_each_tool_decides() {
        let ok = r#"{"type": "tool_result", "call_id": "1", "content": {"status": "paid"}}"#;
        let declined =
            r#"{"type": "tool_result", "call_id": "1", "content": {"status": "declined"}}"#;
        let error =
            r#"{"type": "tool_result", "call_id": "2", "content": "timeout", "status": "error"}"#;
        let unknown = r#"{"type": "tool_result", "call_id": "2", "content": "sent?"}"#;
        // Resolved: a success, a declared failure, a failure then a success.
        assert_eq!(
            run(&[CALL_1, ok].join(",")),
            "coverage R12 1/1 side-effecting tools"
        );
        assert_eq!(
            run(&[CALL_1, declined].join(",")),
            "coverage R12 1/1 side-effecting tools"
        );
        let fixed = r#"{"type": "tool_call", "call_id": "4", "name": "email", "args": {}},
            {"type": "tool_result", "call_id": "4", "content": "sent", "status": "ok"}"#;
        assert_eq!(
            run(&[CALL_2, error, fixed].join(",")),
            "coverage R12 1/1 side-effecting tools"
        );
        insta::assert_snapshot!(run(&[CALL_2, error].join(",")), @r"
            candidate 0,1: `email` side effect is unresolved: its last call failed (a structured error) and no later call of it succeeded; a failed side effect may still have happened
            coverage R12 1/1 side-effecting tools
        ");
        insta::assert_snapshot!(run(&[CALL_2, unknown, READ].join(",")), @r"
            candidate 0,1: `email` side effect is unresolved: its last result says neither success nor failure (no status, and `email` declares no `failure_when`) [pff]
            coverage R12 1/1 side-effecting tools
        ");
    }

    #[test]
    fn a_missing_result_at_the_very_end_may_be_a_cut_off_capture() {
        insta::assert_snapshot!(run(&[CALL_1, CALL_2].join(",")), @r"
            candidate 0: `charge` side effect is unresolved: its last call has no recorded result, so the run never saw whether it happened
            candidate 1: `email` side effect is unresolved: its last call has no recorded result, so the run never saw whether it happened [pff]
            coverage R12 2/2 side-effecting tools
        ");
        let said = r#"{"type": "message", "role": "assistant", "content": "done"}"#;
        insta::assert_snapshot!(run(&[CALL_1, READ, CALL_2, said].join(",")), @r"
            candidate 0: `charge` side effect is unresolved: its last call has no recorded result, so the run never saw whether it happened
            candidate 3: `email` side effect is unresolved: its last call has no recorded result, so the run never saw whether it happened [pff]
            coverage R12 2/2 side-effecting tools
        ");
    }
}
