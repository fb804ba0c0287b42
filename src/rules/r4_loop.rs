//! R4 loop: ≥ 3 consecutive calls with the same tool and normalised arguments that returned
//! identical results (a repeat whose output changed is progress). Not a loop: a tool declared
//! `polling`; a waiting state (`status: pending`, …) that later advances; a call that waits on
//! something running (a tool named for waiting, all input arguments empty, a `sleep`/`wait`
//! command), flagged only when the trace ended still waiting. A call with no recorded result
//! is never identical to another; where it could have formed a loop it is disclosed as not
//! checked. Always a `candidate`.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, ToolCall};

use super::{Rule, Sink, TraceCx, evidence};
use crate::analysis::automaton::SymbolHasher;
use crate::analysis::calls::{CallKey, CallRecord};
use crate::analysis::normalize::{result_class, same_result};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R4,
    kind: FindingType::Loop,
    summary: "the same call repeated 3+ times in a row with identical results",
    tiers: &[Tier::Candidate],
    unit: "tool calls",
    explanation: include_str!("docs/R4.md"),
};

/// Consecutive identical calls that make a loop.
const MIN_RUN: usize = 3;

pub(crate) struct Loop;

impl Rule for Loop {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let recs = cx.calls();
        for r in recs {
            out.count_tool(Some(&r.call.name), r.key.is_some() && r.result.is_some());
        }
        let advances = later_different(recs);
        let n = recs.len();
        let mut i = 0;
        while i < n {
            let end = run_end(recs, i);
            if end - i >= MIN_RUN {
                judge(cx, &recs[i..end], end == n, advances[end - 1], out);
            }
            i = end.max(i + 1);
        }
        disclose_unchecked(recs, out);
    }
}

/// The end (exclusive) of the run of identical calls starting at `i`; `i + 1` when call `i`
/// cannot be compared (unknown arguments or no recorded result).
fn run_end(recs: &[CallRecord<'_>], i: usize) -> usize {
    let (Some(key), Some(result)) = (&recs[i].key, recs[i].result) else {
        return i + 1;
    };
    let mut j = i + 1;
    while let Some(r) = recs.get(j) {
        match (&r.key, r.result) {
            (Some(k), Some(res)) if k == key && same_result(res, result) => j += 1,
            _ => break,
        }
    }
    j
}

/// A run of ≥ 3 identical calls: a loop unless it is polling or waiting.
fn judge(cx: &TraceCx<'_>, run: &[CallRecord<'_>], at_end: bool, advances: bool, out: &mut Sink) {
    let first = &run[0];
    let name = first.call.name.as_str();
    if cx.spec(name).is_some_and(|s| s.metadata.polling) {
        return;
    }
    let waiting_state = result_class(first.result).is_waiting();
    let waiting_call = waits(first.call);
    let message = if waiting_state {
        if advances {
            return;
        }
        format!(
            "`{name}` returned the same waiting state {} times in a row and it never advanced",
            run.len()
        )
    } else if waiting_call {
        if !at_end {
            return;
        }
        format!(
            "`{name}` polled {} times in a row with an unchanged result, and the trace ended still waiting",
            run.len()
        )
    } else {
        format!(
            "`{name}` called {} times in a row with identical arguments and an identical result",
            run.len()
        )
    };
    let f = out.finding(
        Tier::Candidate,
        first.step,
        Some(name),
        message,
        "the first call",
    );
    for r in &run[1..] {
        f.evidence.push(evidence(r.step, "an identical repeat"));
    }
    f.possible_false_positive = true;
    f.help = Some(if waiting_state || waiting_call {
        "bound the wait (a timeout or a maximum number of polls), or declare the tool `polling`"
            .into()
    } else {
        "add a termination condition, or make each repeat change something (arguments or approach)"
            .into()
    });
}

/// For each call: does a later call with the same key return a recorded result that differs
/// from this call's? (One reverse pass, one comparison per call.)
fn later_different(recs: &[CallRecord<'_>]) -> Vec<bool> {
    let mut out = vec![false; recs.len()];
    let mut nearest_later: HashMap<&CallKey, usize, BuildHasherDefault<SymbolHasher>> =
        HashMap::default();
    for i in (0..recs.len()).rev() {
        let (Some(key), Some(result)) = (recs[i].key.as_ref(), recs[i].result) else {
            continue;
        };
        if let Some(&k) = nearest_later.get(key)
            && let Some(later) = recs[k].result
        {
            out[i] = !same_result(later, result) || out[k];
        }
        nearest_later.insert(key, i);
    }
    out
}

/// Name tokens of a tool that waits.
const WAIT_TOKENS: &[&str] = &["wait", "poll", "sleep", "waiting", "polling"];

/// A call that waits on something running: a tool named for waiting, input arguments that
/// are all empty (keystrokes sent to nothing), or a `sleep` / `wait` shell command.
fn waits(call: &ToolCall) -> bool {
    let tokens = name_tokens(&call.name);
    if tokens.iter().any(|t| WAIT_TOKENS.contains(&t.as_str())) {
        return true;
    }
    let Args::Known(Value::Object(args)) = &call.args else {
        return false;
    };
    if !args.is_empty() && args.values().all(crate::analysis::normalize::is_empty) {
        return true;
    }
    args.values().filter_map(Value::as_str).any(|cmd| {
        cmd.split(['|', ';', '&', '\n'])
            .any(|stage| matches!(stage.split_whitespace().next(), Some("sleep" | "wait")))
    })
}

/// `wait_for_job` → wait, for, job; `pollStatus` → poll, status.
fn name_tokens(name: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                tokens.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            tokens.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    tokens
}

/// Calls that could have been part of a loop but cannot be compared: unknown arguments inside
/// a run of ≥ 3 consecutive calls to the same tool; no recorded result inside a run of ≥ 3
/// consecutive calls with the same arguments.
fn disclose_unchecked(recs: &[CallRecord<'_>], out: &mut Sink) {
    for run in runs_by(recs, |a, b| a.call.name == b.call.name) {
        for r in run.iter().filter(|r| r.key.is_none()) {
            out.suppress(
                r.step,
                Some(&r.call.name),
                "arguments not recorded: not checked for loops",
            );
        }
    }
    for run in runs_by(recs, |a, b| a.key.is_some() && a.key == b.key) {
        for r in run.iter().filter(|r| r.result.is_none()) {
            out.suppress(
                r.step,
                Some(&r.call.name),
                "no result recorded: never identical to another call, so not checked for loops",
            );
        }
    }
}

/// Maximal runs of ≥ 3 consecutive calls that `same` pairs up.
fn runs_by<'r, 'a>(
    recs: &'r [CallRecord<'a>],
    same: impl Fn(&CallRecord<'a>, &CallRecord<'a>) -> bool,
) -> Vec<&'r [CallRecord<'a>]> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < recs.len() {
        let mut j = i + 1;
        while j < recs.len() && same(&recs[i], &recs[j]) {
            j += 1;
        }
        if j - i >= MIN_RUN {
            runs.push(&recs[i..j]);
        }
        i = j;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_tokens_split_snake_and_camel_case() {
        assert_eq!(name_tokens("wait_for_job"), ["wait", "for", "job"]);
        assert_eq!(name_tokens("pollJobStatus"), ["poll", "job", "status"]);
        assert_eq!(name_tokens("TaskOutput"), ["task", "output"]);
    }
}

#[cfg(test)]
mod trace_tests {
    use crate::rules::testing::lint;

    fn r4(out: &str) -> Vec<&str> {
        out.lines()
            .filter(|l| {
                !l.starts_with("coverage") && (l.contains(" R4 ") || l.starts_with("suppressed R4"))
            })
            .collect()
    }

    fn steps(items: &[(&str, &str, Option<&str>)]) -> String {
        let s: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, (name, args, result))| {
                let call = format!(
                    r#"{{"type": "tool_call", "call_id": "{i}", "name": "{name}", "args": {args}}}"#
                );
                match result {
                    Some(r) => format!(
                        r#"{call}, {{"type": "tool_result", "call_id": "{i}", "status": "ok", "content": {r}}}"#
                    ),
                    None => call,
                }
            })
            .collect();
        format!(r#"{{"run_id": "r", "steps": [{}]}}"#, s.join(","))
    }

    #[test]
    fn two_loops_in_one_trace_are_two_findings() {
        let a = ("check", r#"{"x": 1}"#, Some(r#""same""#));
        let b = ("check", r#"{"x": 1}"#, Some(r#""other""#));
        let out = lint(&steps(&[a, a, a, b, b, b]), None, Default::default());
        assert_eq!(r4(&out).len(), 2, "{out}");
    }

    #[test]
    fn a_waiting_state_that_advances_later_is_not_a_loop() {
        let p = ("job", r#"{"id": "j"}"#, Some(r#"{"status": "queued"}"#));
        let other = ("read", r#"{"p": "log"}"#, Some(r#""x""#));
        let done = ("job", r#"{"id": "j"}"#, Some(r#"{"status": "done"}"#));
        let out = lint(&steps(&[p, p, p, other, done]), None, Default::default());
        assert!(r4(&out).is_empty(), "{out}");
        let out = lint(&steps(&[p, p, p, other]), None, Default::default());
        assert_eq!(r4(&out).len(), 1, "{out}");
    }

    #[test]
    fn empty_keystrokes_wait_and_are_flagged_only_at_the_end() {
        let k = ("send_keys", r#"{"keys": ""}"#, Some(r#""$ ""#));
        let other = ("read", r#"{"p": "log"}"#, Some(r#""x""#));
        assert!(r4(&lint(&steps(&[k, k, k, other]), None, Default::default())).is_empty());
        let out = lint(&steps(&[k, k, k]), None, Default::default());
        assert!(out.contains("the trace ended still waiting"), "{out}");
    }

    #[test]
    fn unknown_arguments_in_a_run_of_one_tool_are_disclosed() {
        let known = ("check", r#"{"x": 1}"#, Some(r#""same""#));
        let unknown = ("check", "null", Some(r#""same""#));
        let out = lint(&steps(&[known, unknown, known]), None, Default::default());
        assert_eq!(
            r4(&out),
            ["suppressed R4 1:176: arguments not recorded: not checked for loops"],
            "{out}"
        );
    }
}
