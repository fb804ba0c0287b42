//! R2a tool_error_event: a tool returned an error. A `hard_event` from a structured signal or a
//! declared `failure_when` match; a `candidate` when the text of an unknown-status result
//! begins a line with an error report, when its body carries a failure-looking status, or when
//! it is empty. Shell exit conventions are not errors. A side-effecting tool with no
//! `failure_when` whose result cannot be classified is a per-result suppression. Coverage counts
//! tool results; a result is decided when it is structurally classified. How a result's content
//! reads (status, error line, emptiness) is `analysis::suspicion`'s.

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Step, ToolCall, ToolResult, ToolSpec};

use super::{Rule, Sink, TraceCx};
use crate::analysis::outcome::{Outcome, is_search, results_recorded};
use crate::analysis::suspicion::{result_body_status, result_error_line, result_is_empty};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R2a,
    kind: FindingType::ToolErrorEvent,
    summary: "a tool returned an error",
    tiers: &[Tier::HardEvent, Tier::Candidate],
    unit: "tool results",
    explanation: include_str!("docs/R2a.md"),
};

pub(crate) struct ToolErrorEvent;

impl Rule for ToolErrorEvent {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        results_recorded(cx.trace)
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let steps = &cx.trace.steps;
        for step in steps {
            let (Some(result), Some(outcome)) = (step.as_result(), cx.outcome(step.index)) else {
                continue;
            };
            let call = cx
                .pairing
                .call_for(step.index)
                .and_then(|i| steps.get(i))
                .and_then(Step::as_call);
            let spec = call.and_then(|c| cx.spec(&c.name));
            let tool = call.map(|c| c.name.as_str());
            let shown = Shown(tool);
            match outcome {
                Outcome::Error(detail) => {
                    out.count_tool(tool, true);
                    let f = out.finding(
                        Tier::HardEvent,
                        step,
                        tool,
                        if detail.is_empty() {
                            format!("{shown} returned an error")
                        } else {
                            format!("{shown} returned an error: {detail}")
                        },
                        "the failed result",
                    );
                    f.help = Some("make sure the agent handles or retries the error".into());
                    f.signal = Some("structured");
                }
                Outcome::DeclaredFailure(what) => {
                    out.count_tool(tool, true);
                    let f = out.finding(
                        Tier::HardEvent,
                        step,
                        tool,
                        format!("{shown} returned a declared failure: {what}"),
                        "the failed result",
                    );
                    f.help = Some("make sure the agent handles the failure before going on".into());
                    f.signal = Some("declared");
                }
                Outcome::Fine(_) => out.count_tool(tool, true),
                Outcome::NotRecorded => {
                    out.count_tool(tool, false);
                    out.suppress(
                        step,
                        tool,
                        "the result's content and status were not recorded: cannot tell whether the call failed",
                    );
                }
                // A sub-agent's report quotes errors as its findings: no text heuristics.
                Outcome::Unknown { .. } if spec.is_some_and(|s| s.metadata.result_is_report) => {
                    out.count_tool(tool, false);
                }
                Outcome::Unknown { declared_absent } => {
                    out.count_tool(tool, false);
                    heuristics(step, result, call, spec, declared_absent.as_deref(), out);
                }
            }
        }
    }
}

/// How a message names the tool: `` `name` ``, or "the tool" when the call is unknown. Written
/// only into the messages of findings (most results have none).
struct Shown<'a>(Option<&'a str>);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(t) => write!(f, "`{t}`"),
            None => f.write_str("the tool"),
        }
    }
}

/// The candidate tier: what an unknown-status result's content suggests.
fn heuristics(
    step: &Step,
    result: &ToolResult,
    call: Option<&ToolCall>,
    spec: Option<&ToolSpec>,
    declared_absent: Option<&str>,
    out: &mut Sink,
) {
    let tool = call.map(|c| c.name.as_str());
    let shown = Shown(tool);
    let side_effecting = spec.is_some_and(|s| s.metadata.is_side_effecting());
    let suspicion = if let Some(what) = result_body_status(result) {
        Some((
            format!("{shown} result carries {what}, and the tool declares no `failure_when`"),
            "declare `failure_when` for the tool to make this a certain event (or to say it is data)",
            "status_in_result",
        ))
    } else if let Some(line) = result_error_line(result) {
        Some((
            format!("{shown} result may be an error: a line begins with `{line}`"),
            "if this output is expected, declare `failure_when` for the tool so the result is classified",
            "error_line",
        ))
    } else if result_is_empty(result) && !call.is_some_and(is_search) {
        Some((
            format!("{shown} returned an empty result"),
            "check that the agent noticed the empty result; declare `failure_when` if empty means failure",
            "empty",
        ))
    } else {
        None
    };
    if let Some((message, help, signal)) = suspicion {
        let f = out.finding(Tier::Candidate, step, tool, message, "the result");
        f.possible_false_positive = true;
        f.help = Some(help.into());
        f.signal = Some(signal);
        return;
    }
    let Some(name) = tool.filter(|_| side_effecting) else {
        return;
    };
    let reason = match declared_absent {
        Some(p) => format!(
            "the `failure_when` field `{p}` is absent from the result of side-effecting `{name}`: cannot verify it did not fail"
        ),
        None => format!(
            "side-effecting `{name}` returned an unclassifiable result and declares no `failure_when`: cannot verify it did not fail"
        ),
    };
    out.suppress(step, tool, reason);
}
