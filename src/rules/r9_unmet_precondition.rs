//! R9 unmet_precondition: a tool ran although a call its contract `requires` had failed, or had
//! not returned, first. The latest *returned* call of the required tool (matching the dependent
//! call on the `same` arguments) decides: a retry that passes satisfies it, a later failure
//! un-satisfies it, and a call still in flight is no check. Success is read as R2a reads it;
//! what the trace cannot show is disclosed as not checked, never passed. One pass over the
//! steps, with the latest outcome per (requirement, argument values) in a hash map.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Requirement, Step, ToolCall};

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::contract::{Verdict, comparable, quoted, verdict};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R9,
    kind: FindingType::UnmetPrecondition,
    summary: "a tool ran although a call its contract `requires` had failed or not returned first",
    tiers: &[Tier::HardDefect],
    unit: "calls with declared preconditions",
    explanation: include_str!("docs/R9.md"),
};

pub(crate) struct UnmetPrecondition;

/// The values a call gives the `same` arguments, comparable; `Err` names what is missing.
fn scope<'c>(call: &'c ToolCall, same: &'c [String]) -> Result<Vec<String>, Missing<'c>> {
    let Some(args) = call.args.known() else {
        return Err(Missing::Args);
    };
    same.iter()
        .map(|a| {
            args.get(a)
                .filter(|v| !v.is_null())
                .map(comparable)
                .ok_or(Missing::Field(a))
        })
        .collect()
}

enum Missing<'c> {
    Args,
    Field(&'c str),
}

/// What the trace shows of one requirement so far.
#[derive(Default)]
struct Seen {
    /// By the `same` values: the latest returned call (its step) of the required tool.
    returned: HashMap<Vec<String>, usize>,
    /// `same` values of calls made (returned or not).
    called: HashSet<Vec<String>>,
    /// A call that returned although its `same` values are unknown (arguments not recorded).
    unscoped_returned: bool,
}

impl Rule for UnmetPrecondition {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        if cx.registry.iter().any(|s| !s.metadata.requires.is_empty()) {
            Ok(())
        } else {
            Err("not applicable: no tool declares `requires`".into())
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let steps = &cx.trace.steps;
        // Every distinct requirement of the tools the trace calls, and which ones each required
        // tool's calls feed.
        let mut kinds: Vec<&Requirement> = Vec::new();
        let mut feeds: HashMap<&str, Vec<usize>> = HashMap::new();
        for (_, call) in crate::analysis::contract::calls(cx) {
            let Some(spec) = cx.spec(&call.name) else {
                continue;
            };
            for r in &spec.metadata.requires {
                if !kinds.iter().any(|k| k.tool == r.tool && k.same == r.same) {
                    feeds.entry(r.tool.as_str()).or_default().push(kinds.len());
                    kinds.push(r);
                }
            }
        }
        if kinds.is_empty() {
            return;
        }
        let kind_of = |r: &Requirement| {
            kinds
                .iter()
                .position(|k| k.tool == r.tool && k.same == r.same)
        };
        let mut seen: Vec<Seen> = kinds.iter().map(|_| Seen::default()).collect();
        for step in steps {
            if let Some(call) = step.as_call() {
                if let Some(spec) = cx.spec(&call.name)
                    && !spec.metadata.requires.is_empty()
                {
                    let mut decided = true;
                    for r in &spec.metadata.requires {
                        let Some(k) = kind_of(r) else { continue };
                        decided &= judge(cx, step, call, r, &seen[k], out);
                    }
                    out.count(decided);
                }
                for &k in feeds.get(call.name.as_str()).into_iter().flatten() {
                    if let Ok(key) = scope(call, &kinds[k].same) {
                        seen[k].called.insert(key);
                    }
                }
            } else if step.as_result().is_some()
                && let Some(c) = cx.pairing.call_for(step.index)
                && let Some(call) = steps.get(c).and_then(Step::as_call)
            {
                for &k in feeds.get(call.name.as_str()).into_iter().flatten() {
                    match scope(call, &kinds[k].same) {
                        Ok(key) => {
                            seen[k].returned.insert(key, c);
                        }
                        // Unrecorded arguments may have been the required ones.
                        Err(Missing::Args) => seen[k].unscoped_returned = true,
                        // Recorded without a `same` argument: not the same entity.
                        Err(Missing::Field(_)) => {}
                    }
                }
            }
        }
    }
}

/// Judge one requirement of the dependent call at `step`; false when it cannot be decided.
fn judge(
    cx: &TraceCx<'_>,
    step: &Step,
    call: &ToolCall,
    r: &Requirement,
    seen: &Seen,
    out: &mut Sink,
) -> bool {
    let name = call.name.as_str();
    let req = r.tool.as_str();
    let key = match scope(call, &r.same) {
        Ok(key) => key,
        Err(Missing::Args) => {
            out.suppress(
                step,
                Some(name),
                format!("arguments not recorded: cannot tell which `{req}` call `{name}` requires"),
            );
            return false;
        }
        Err(Missing::Field(a)) => {
            out.suppress(
                step,
                Some(name),
                format!("`{name}` was called without `{a}`, which scopes its precondition on `{req}`: not checked"),
            );
            return false;
        }
    };
    let scoped = scoped_text(call, &r.same);
    let Some(&req_call) = seen.returned.get(&key) else {
        if seen.unscoped_returned {
            out.suppress(
                step,
                Some(name),
                format!("a `{req}` call whose arguments were not recorded returned before `{name}`: cannot tell whether it was the required one{scoped}"),
            );
            return false;
        }
        let what = if r.succeeded {
            format!("a successful `{req}`{scoped}")
        } else {
            format!("a `{req}` call{scoped}")
        };
        let message = if seen.called.contains(&key) {
            format!(
                "`{name}` ran before the required `{req}`{scoped} had returned: a call still in flight is not a check"
            )
        } else {
            format!("`{name}` ran without {what} first")
        };
        let f = out.finding(
            Tier::HardDefect,
            step,
            Some(name),
            message,
            "the call that needed it",
        );
        f.help = Some(format!(
            "call `{req}` first and wait for it to succeed before `{name}`, or correct its `requires` if `{name}` does not need it"
        ));
        return true;
    };
    if !r.succeeded {
        return true;
    }
    match verdict(cx, req_call) {
        Verdict::Succeeded { .. } => true,
        Verdict::Failed { result, how, .. } => {
            let shown = how.trim_end_matches('.');
            let f = out.finding(
                Tier::HardDefect,
                step,
                Some(name),
                format!("`{name}` ran after the required `{req}`{scoped} failed ({shown})"),
                "the call that needed it",
            );
            if let Some(s) = cx.trace.steps.get(result) {
                f.evidence
                    .push(evidence(s, "the required call's failed result"));
            }
            f.help = Some(format!(
                "gate `{name}` on `{req}` succeeding: retry or stop when it fails"
            ));
            true
        }
        Verdict::Unknown {
            absent, recorded, ..
        } => {
            let why = match (recorded, absent) {
                (false, _) => "its result was not recorded".to_owned(),
                (true, Some(p)) => {
                    format!("the field its `failure_when` reads (`{p}`) is absent from its result")
                }
                (true, None) => format!(
                    "its result shows no structured outcome and `{req}` declares no `failure_when` to read it (declare one)"
                ),
            };
            out.suppress(
                step,
                Some(name),
                format!(
                    "cannot verify the required `{req}`{scoped} succeeded before `{name}`: {why}"
                ),
            );
            false
        }
        // `returned` holds only calls whose result arrived.
        Verdict::NoResult => false,
    }
}

/// ` for order_id=`B`` (empty without `same`).
fn scoped_text(call: &ToolCall, same: &[String]) -> String {
    if same.is_empty() {
        return String::new();
    }
    let args = call.args.known();
    let parts: Vec<String> = same
        .iter()
        .map(|a| {
            let v = args.and_then(|m| m.get(a)).unwrap_or(&Value::Null);
            format!("{a}={}", quoted(v))
        })
        .collect();
    format!(" for {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    const TOOLS: &str = r#"{"tools": {
        "get_order": {"metadata": {"failure_when": {"pointer": "/status", "in": ["not_found"]}}},
        "refund": {"metadata": {"side_effecting": true,
                   "requires": [{"tool": "get_order", "same": ["order_id"]}]}},
        "ping": {},
        "ship": {"metadata": {"requires": [{"tool": "ping", "succeeded": false}]}}
    }}"#;

    /// Steps: (call id, tool, order id, result content or "-" for none). A result follows its
    /// call unless `later` lists the id, then it comes after every call.
    fn trace(calls: &[(&str, &str, &str, &str)], later: &[&str]) -> String {
        let mut steps = Vec::new();
        let mut deferred = Vec::new();
        for (id, tool, order, content) in calls {
            steps.push(format!(
                r#"{{"type": "tool_call", "call_id": "{id}", "name": "{tool}", "args": {{"order_id": "{order}"}}}}"#
            ));
            if *content != "-" {
                let r = format!(
                    r#"{{"type": "tool_result", "call_id": "{id}", "content": {content}}}"#
                );
                if later.contains(id) {
                    deferred.push(r);
                } else {
                    steps.push(r);
                }
            }
        }
        steps.extend(deferred);
        format!(r#"{{"run_id": "r", "steps": [{}]}}"#, steps.join(",\n"))
    }

    fn r9(out: &str) -> String {
        out.lines()
            .filter(|l| l.contains(" R9 "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    const FOUND: &str = r#"{"status": "found"}"#;
    const MISSING: &str = r#"{"status": "not_found"}"#;

    #[test]
    fn the_latest_returned_call_for_the_same_entity_decides() {
        let out = lint(
            &trace(
                &[
                    ("1", "get_order", "A", FOUND),
                    ("2", "get_order", "B", MISSING),
                    ("3", "refund", "a ", r#""ok""#),
                    ("4", "refund", "B", r#""ok""#),
                    ("5", "get_order", "B", FOUND),
                    ("6", "refund", "B", r#""ok""#),
                    ("7", "get_order", "A", MISSING),
                    ("8", "refund", "A", r#""ok""#),
                    ("9", "refund", "C", r#""ok""#),
                ],
                &[],
            ),
            Some(TOOLS),
            Default::default(),
        );
        insta::assert_snapshot!(r9(&out), @r"
            7:1: hard_defect R9 refund: `refund` ran after the required `get_order` for order_id=`B` failed (`/status` matches `failure_when`)
            15:1: hard_defect R9 refund: `refund` ran after the required `get_order` for order_id=`A` failed (`/status` matches `failure_when`)
            17:1: hard_defect R9 refund: `refund` ran without a successful `get_order` for order_id=`C` first
            coverage R9 5/5 calls with declared preconditions
        ");
    }

    #[test]
    fn in_flight_unknown_and_returned_only() {
        let out = lint(
            &trace(
                &[
                    ("1", "get_order", "A", FOUND),
                    ("2", "refund", "A", r#""ok""#),
                    ("3", "ping", "x", r#""pong""#),
                    ("4", "ship", "x", r#""ok""#),
                    ("5", "get_order", "D", r#"{"other": 1}"#),
                    ("6", "refund", "D", r#""ok""#),
                ],
                &["1"],
            ),
            Some(TOOLS),
            Default::default(),
        );
        insta::assert_snapshot!(r9(&out), @r"
            2:1: hard_defect R9 refund: `refund` ran before the required `get_order` for order_id=`A` had returned: a call still in flight is not a check
            suppressed R9 10:1: cannot verify the required `get_order` for order_id=`D` succeeded before `refund`: the field its `failure_when` reads (`/status`) is absent from its result
            coverage R9 2/3 calls with declared preconditions
        ");
    }
}
