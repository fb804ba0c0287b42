//! R8 duplicate_side_effect: a call to a tool declared side-effecting (and not idempotent)
//! repeats an equivalent earlier call (same tool, same normalised arguments) that did not fail:
//! a `hard_event` when that call succeeded (the effect happened twice: a card charged twice),
//! a `candidate` when its outcome is unknown. A repeat after a failure is a retry and never a
//! finding; the same idempotency key sent twice is deduplicated by the tool. Linear: the latest
//! non-failed equivalent call is a hash lookup.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, ToolSpec};

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::calls::CallKey;
use crate::analysis::contract::{Verdict, verdict};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R8,
    kind: FindingType::DuplicateSideEffect,
    summary: "a non-idempotent side effect repeated with the same arguments after it succeeded",
    tiers: &[Tier::HardEvent, Tier::Candidate],
    unit: "side-effecting calls",
    explanation: include_str!("docs/R8.md"),
};

pub(crate) struct DuplicateSideEffect;

/// A declared, non-idempotent side effect.
fn repeats_matter(spec: Option<&ToolSpec>) -> bool {
    spec.is_some_and(|s| s.metadata.is_side_effecting() && s.metadata.idempotent != Some(true))
}

impl Rule for DuplicateSideEffect {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        if cx.registry.iter().any(|s| repeats_matter(Some(s))) {
            Ok(())
        } else {
            Err("not applicable: no tool declares `side_effecting: true` without `idempotent: true`, so no repeat is a duplicate side effect".into())
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let recs = cx.calls();
        // The latest equivalent call that did not fail, by key (index into `recs`).
        let mut latest: HashMap<&CallKey, usize> = HashMap::new();
        let mut seen_tools: HashSet<&str> = HashSet::new();
        for (i, r) in recs.iter().enumerate() {
            if !repeats_matter(cx.spec(&r.call.name)) {
                continue;
            }
            let first_of_tool = seen_tools.insert(r.call.name.as_str());
            let Some(key) = r.key.as_ref() else {
                out.count(false);
                if !first_of_tool {
                    out.suppress(
                        r.step,
                        Some(&r.call.name),
                        format!(
                            "arguments not recorded: cannot tell whether it repeats an earlier `{}` call",
                            r.call.name
                        ),
                    );
                }
                continue;
            };
            out.count(true);
            let own = verdict(cx, r.step.index);
            if let Some(&p) = latest.get(key) {
                let same_key = idempotency_key(&recs[p].call.args)
                    .is_some_and(|k| Some(k) == idempotency_key(&r.call.args));
                if !same_key {
                    report(cx, recs, p, i, out);
                }
            }
            if !own.failed() {
                latest.insert(key, i);
            }
        }
    }
}

fn report(
    cx: &TraceCx<'_>,
    recs: &[crate::analysis::calls::CallRecord<'_>],
    p: usize,
    i: usize,
    out: &mut Sink,
) {
    let name = recs[i].call.name.as_str();
    let earlier = i - p;
    let ago = if earlier == 1 {
        "just before".to_owned()
    } else {
        format!("{earlier} calls earlier")
    };
    let (tier, message) = match verdict(cx, recs[p].step.index) {
        Verdict::Succeeded { how, .. } => (
            Tier::HardEvent,
            format!(
                "`{name}` repeats an equivalent side-effecting call made {ago}, which succeeded ({how}): the effect happened twice"
            ),
        ),
        Verdict::NoResult => (
            Tier::Candidate,
            format!(
                "`{name}` repeats an equivalent side-effecting call made {ago}, whose result was never recorded: if it succeeded, the effect happened twice"
            ),
        ),
        Verdict::Unknown { .. } => (
            Tier::Candidate,
            format!(
                "`{name}` repeats an equivalent side-effecting call made {ago}, whose result says neither success nor failure: if it succeeded, the effect happened twice"
            ),
        ),
        // Failed calls are never kept as the latest (a repeat after a failure is a retry).
        Verdict::Failed { .. } => return,
    };
    let f = out.finding(tier, recs[i].step, Some(name), message, "the repeated call");
    f.evidence
        .push(evidence(recs[p].step, "the earlier equivalent call"));
    f.possible_false_positive = tier == Tier::Candidate;
    f.help = Some(format!(
        "send an idempotency key or dedupe before calling again; if repeating `{name}` is harmless, declare it `idempotent: true`"
    ));
}

/// The idempotency key a call sends (a top-level argument named like `idempotency_key`,
/// `idempotencyKey` or `Idempotency-Key`), when it sends a non-empty one.
fn idempotency_key(args: &Args) -> Option<&str> {
    let Args::Known(Value::Object(m)) = args else {
        return None;
    };
    m.iter().find_map(|(k, v)| {
        let flat: String = k
            .chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .collect::<String>()
            .to_ascii_lowercase();
        (flat == "idempotencykey")
            .then(|| v.as_str())
            .flatten()
            .filter(|s| !s.trim().is_empty())
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    const TOOLS: &str = r#"{"tools": {
        "charge": {"metadata": {"side_effecting": true}},
        "email": {"metadata": {"side_effecting": true, "idempotent": true}},
        "read": {"metadata": {"side_effecting": false}}
    }}"#;

    fn trace(steps: &[(&str, &str, Option<&str>)]) -> String {
        let mut out = Vec::new();
        for (i, (name, args, status)) in steps.iter().enumerate() {
            out.push(format!(
                r#"{{"type": "tool_call", "call_id": "{i}", "name": "{name}", "args": {args}}}"#
            ));
            match status {
                Some("none") => {}
                Some(s) => out.push(format!(
                    r#"{{"type": "tool_result", "call_id": "{i}", "content": "done", "status": "{s}"}}"#
                )),
                None => out.push(format!(
                    r#"{{"type": "tool_result", "call_id": "{i}", "content": "done"}}"#
                )),
            }
        }
        format!(r#"{{"run_id": "r", "steps": [{}]}}"#, out.join(",\n"))
    }

    fn r8(out: &str) -> Vec<&str> {
        out.lines()
            .filter(|l| l.contains(" R8 ") && !l.starts_with("coverage"))
            .collect()
    }

    #[test]
    fn a_repeat_after_success_is_a_hard_event_after_unknown_a_candidate() {
        let a = r#"{"amount": 5, "to": "x"}"#;
        let b = r#"{"to": "x", "amount": 5, "timestamp": "later"}"#;
        let out = lint(
            &trace(&[
                ("charge", a, Some("ok")),
                ("read", "{}", Some("ok")),
                ("charge", b, None),
                ("charge", a, Some("ok")),
            ]),
            Some(TOOLS),
            Default::default(),
        );
        insta::assert_snapshot!(r8(&out).join("\n"), @r"
        5:1: hard_event R8 charge: `charge` repeats an equivalent side-effecting call made 2 calls earlier, which succeeded (status ok): the effect happened twice
        7:1: candidate R8 charge: `charge` repeats an equivalent side-effecting call made just before, whose result says neither success nor failure: if it succeeded, the effect happened twice
        ");
    }

    #[test]
    fn retries_idempotent_tools_and_one_idempotency_key_are_not_duplicates() {
        let k1 = r#"{"amount": 5, "idempotency_key": "k1"}"#;
        let out = lint(
            &trace(&[
                ("charge", "{}", Some("error")),
                ("charge", "{}", Some("ok")),
                ("email", "{}", Some("ok")),
                ("email", "{}", Some("ok")),
                ("charge", k1, Some("ok")),
                ("charge", k1, Some("ok")),
                ("read", "{}", Some("ok")),
                ("read", "{}", Some("ok")),
            ]),
            Some(TOOLS),
            Default::default(),
        );
        assert!(r8(&out).is_empty(), "{out}");
        assert!(
            out.contains("coverage R8 4/4 side-effecting calls"),
            "{out}"
        );
    }

    #[test]
    fn a_failed_repeat_does_not_hide_the_first_success() {
        let out = lint(
            &trace(&[
                ("charge", "{}", Some("ok")),
                ("charge", "{}", Some("error")),
                ("charge", "{}", Some("ok")),
            ]),
            Some(TOOLS),
            Default::default(),
        );
        let found = r8(&out);
        assert_eq!(found.len(), 2, "{out}");
        assert!(
            found[1].contains("made 2 calls earlier, which succeeded"),
            "{out}"
        );
    }

    #[test]
    fn unknown_arguments_are_disclosed_and_nothing_declared_is_not_applicable() {
        let t = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "charge", "args": {}},
          {"type": "tool_call", "call_id": "2", "name": "charge"}]}"#;
        let out = lint(t, Some(TOOLS), Default::default());
        assert!(
            out.contains("suppressed R8 3:11: arguments not recorded: cannot tell whether it repeats an earlier `charge` call"),
            "{out}"
        );
        let out = lint(t, Some(r#"{"tools": {"charge": {}}}"#), Default::default());
        assert!(!out.contains("suppressed R8"), "{out}");
        assert!(out.contains("coverage R8 0/0"), "{out}");
    }
}
