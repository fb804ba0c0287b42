//! What the contract rules (R8–R13) share: how a call's outcome reads (through R2a's reading of
//! its result, `outcome::Outcome`), which tools are declared side-effecting, how an argument
//! value compares between two calls, and how a value is quoted in a message. No rule logic.

use serde_json::Value;

use crate::model::{Step, ToolCall};

use super::outcome::Outcome;
use super::context::TraceCx;

/// How a call ended, as the trace records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict<'a> {
    /// No result was recorded for it.
    NoResult,
    /// Its result says it succeeded (an explicit ok, `failure_when` no match, exit 0, a shell
    /// convention): `result` is the result's step.
    Succeeded { result: usize, how: &'a str },
    /// Its result says it failed (a structured error or a declared failure).
    Failed {
        result: usize,
        how: &'a str,
        /// A structured error (transport, HTTP, `isError`), not a declared domain failure.
        structured: bool,
    },
    /// It has a result that says neither; `absent` names the `failure_when` field missing.
    Unknown {
        result: usize,
        absent: Option<&'a str>,
        recorded: bool,
    },
}

impl Verdict<'_> {
    /// The result's step, when there is one.
    pub(crate) fn result(&self) -> Option<usize> {
        match *self {
            Verdict::NoResult => None,
            Verdict::Succeeded { result, .. }
            | Verdict::Failed { result, .. }
            | Verdict::Unknown { result, .. } => Some(result),
        }
    }

    /// Failed by a structured signal or a declared failure.
    pub(crate) fn failed(&self) -> bool {
        matches!(self, Verdict::Failed { .. })
    }
}

/// The verdict on the call at step `call`, read from its paired result.
pub(crate) fn verdict<'c>(cx: &'c TraceCx<'_>, call: usize) -> Verdict<'c> {
    let Some(result) = cx.pairing.result_for(call) else {
        return Verdict::NoResult;
    };
    match cx.outcome(result) {
        None => Verdict::NoResult,
        Some(Outcome::Fine(how)) => Verdict::Succeeded { result, how },
        Some(Outcome::Error(detail)) => Verdict::Failed {
            result,
            how: if detail.is_empty() {
                "a structured error"
            } else {
                detail
            },
            structured: true,
        },
        Some(Outcome::DeclaredFailure(what)) => Verdict::Failed {
            result,
            how: what,
            structured: false,
        },
        Some(Outcome::Unknown { declared_absent }) => Verdict::Unknown {
            result,
            absent: declared_absent.as_deref(),
            recorded: true,
        },
        Some(Outcome::NotRecorded) => Verdict::Unknown {
            result,
            absent: None,
            recorded: false,
        },
    }
}

/// Whether the registry declares the tool side-effecting.
pub(crate) fn side_effecting(cx: &TraceCx<'_>, name: &str) -> bool {
    cx.spec(name)
        .is_some_and(|s| s.metadata.is_side_effecting())
}

/// Every tool call of the trace with its step.
pub(crate) fn calls<'a>(cx: &TraceCx<'a>) -> impl Iterator<Item = (&'a Step, &'a ToolCall)> {
    cx.trace
        .steps
        .iter()
        .filter_map(|s| s.as_call().map(|c| (s, c)))
}

/// An argument value as two calls compare it: a string trimmed and case-folded, a number by
/// its value (`1`, `1.0` and `"1"` alike), anything else as canonical JSON.
pub(crate) fn comparable(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let t = s.trim();
            match t.parse::<f64>() {
                Ok(n) if n.is_finite() && !t.is_empty() => number_text(n),
                _ => caseless::default_case_fold_str(t),
            }
        }
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), number_text),
        other => other.to_string(),
    }
}

fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// A value quoted in a message: a string in backticks, cut at 80 characters.
pub(crate) fn quoted(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(80) {
        Some((i, _)) => format!("`{}…`", flat[..i].replace('`', "'")),
        None => format!("`{}`", flat.replace('`', "'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A hang detector, not a speed limit: 30,000 steps with every contract rule active (side
    /// effects repeated, preconditions, output schemas, a carried schema, URLs in arguments and
    /// results) finish well inside a minute even unoptimised, which no per-call rescan of the
    /// trace would. The findings prove each rule did its work.
    #[test]
    fn the_contract_rules_stay_linear_on_a_long_trace() {
        let tools = r#"{"tools": {
            "lookup": {"metadata": {"failure_when": {"pointer": "/status", "in": ["missing"]}}},
            "charge": {"metadata": {"side_effecting": true,
                       "failure_when": {"pointer": "/status", "in": ["declined"]},
                       "requires": [{"tool": "lookup", "same": ["id"]}]}},
            "clock": {"output_schema": {"type": "object", "required": ["now"]}},
            "fetch": {"schema": {"type": "object", "properties": {"url": {"type": "string"}}}}},
            "off_limits": {"sources": ["tbench.ai"]}}"#;
        let n = 5_000;
        let mut steps = Vec::with_capacity(6 * n);
        for i in 0..n {
            let (a, b, c) = (3 * i, 3 * i + 1, 3 * i + 2);
            let id = i % 500;
            steps.push(format!(r#"{{"type": "tool_call", "call_id": "{a}", "name": "lookup", "args": {{"id": {id}}}}}"#));
            steps.push(format!(
                r#"{{"type": "tool_result", "call_id": "{a}", "content": {{"status": "ok"}}}}"#
            ));
            steps.push(format!(r#"{{"type": "tool_call", "call_id": "{b}", "name": "charge", "args": {{"id": {id}}}}}"#));
            steps.push(format!(
                r#"{{"type": "tool_result", "call_id": "{b}", "content": {{"status": "paid"}}}}"#
            ));
            let (name, args, result) = if i % 2 == 0 {
                ("clock", "{}".to_owned(), r#"{"when": 1}"#.to_owned())
            } else {
                (
                    "fetch",
                    format!(
                        r#"{{"url": "https://example.com/{i}"}}, "schema": {{"type": "array"}}"#
                    ),
                    format!(r#""see https://example.org/{i} and https://www.tbench.ai/t/{i}""#),
                )
            };
            steps.push(format!(
                r#"{{"type": "tool_call", "call_id": "{c}", "name": "{name}", "args": {args}}}"#
            ));
            steps.push(format!(
                r#"{{"type": "tool_result", "call_id": "{c}", "content": {result}}}"#
            ));
        }
        let trace = format!(r#"{{"run_id": "long", "steps": [{}]}}"#, steps.join(",\n"));
        let started = std::time::Instant::now();
        let found = crate::rules::testing::findings(&trace, tools);
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
        let count = |id: crate::finding::RuleId| found.iter().filter(|f| f.rule == id).count();
        use crate::finding::RuleId::*;
        // Every charge after the first 500 repeats an earlier paid one; every clock result lacks
        // `now`; the fetch results show an off-limits URL; `fetch` carries a drifted schema.
        assert_eq!(count(R8), n - 500);
        assert_eq!(count(R9), 0);
        assert_eq!(count(R10), n / 2);
        assert_eq!(count(R11), 1);
        assert_eq!(count(R12), 0);
        assert_eq!(count(R13), n / 2);
    }

    #[test]
    fn values_compare_by_what_they_say() {
        assert_eq!(comparable(&json!(" A-1 ")), comparable(&json!("a-1")));
        assert_eq!(comparable(&json!(1)), comparable(&json!("1")));
        assert_eq!(comparable(&json!(1.0)), comparable(&json!(1)));
        assert_ne!(comparable(&json!("A-100")), comparable(&json!("A100")));
        assert_ne!(comparable(&json!(1.5)), comparable(&json!(15)));
        assert_eq!(comparable(&json!({"b": 1, "a": 2})), r#"{"a":2,"b":1}"#);
        assert_eq!(quoted(&json!("x`y")), "`x'y`");
    }
}
