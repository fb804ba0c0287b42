//! R6 malformed_arguments: emitted arguments that are not a JSON object. A hard defect when the
//! model emitted them; a candidate when only a tool's own record carries them (which may be a
//! lossy export). Python-literal dicts are parsed by the adapters and never reach here.

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, CallOrigin};

use super::{Rule, Sink, TraceCx};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R6,
    kind: FindingType::MalformedArguments,
    summary: "emitted tool-call arguments are not a JSON object",
    tiers: &[Tier::HardDefect, Tier::Candidate],
    unit: "tool calls",
    explanation: include_str!("docs/R6.md"),
};

pub(crate) struct MalformedArguments;

impl Rule for MalformedArguments {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        for step in &cx.trace.steps {
            let Some(call) = step.as_call() else { continue };
            match &call.args {
                Args::Known(_) => out.count_tool(Some(&call.name), true),
                Args::Unknown(_) => out.count_tool(Some(&call.name), false),
                Args::Malformed(reason) => {
                    out.count_tool(Some(&call.name), true);
                    let (tier, note) = match call.origin {
                        CallOrigin::Model => (Tier::HardDefect, "the arguments the model emitted"),
                        CallOrigin::ToolRecord => {
                            (Tier::Candidate, "the tool's record of its input")
                        }
                    };
                    let f = out.finding(
                        tier,
                        step,
                        Some(&call.name),
                        format!("arguments are not a JSON object: {reason}"),
                        note,
                    );
                    f.possible_false_positive = call.origin == CallOrigin::ToolRecord;
                    f.help = Some(match call.origin {
                        CallOrigin::Model => "fix the model's function-call emission (often truncation at max_tokens or a prompt asking for non-JSON)".into(),
                        CallOrigin::ToolRecord => "check whether the exporter truncated the tool's input before trusting this".into(),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    #[test]
    fn truncated_emission_is_one_hard_defect_and_no_r1() {
        let tools = r#"{"tools": [{"name": "get_order", "inputSchema": {"type": "object",
            "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}]}"#;
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "get_order", "args": {},
           "raw_text": "{\"order_id\": \"45"}
        ]}"#;
        insta::assert_snapshot!(lint(trace, Some(tools), Default::default()), @r"
        2:11: hard_defect R6 get_order: arguments are not a JSON object: EOF while parsing a string at column 16 of the emitted arguments
          help: fix the model's function-call emission (often truncation at max_tokens or a prompt asking for non-JSON)
        suppressed R2a -: no tool results recorded: the trace cannot show whether a call failed
        suppressed R2b -: no tool results recorded: the trace cannot show whether a call failed
        coverage R1 0/1 tool calls
        coverage R2a 0/0 tool results
        coverage R2b 0/1 tool calls
        coverage R3 0/1 tool calls
        coverage R4 0/1 tool calls
        coverage R5 0/1 tool calls
        coverage R6 1/1 tool calls
        coverage R7 1/1 tool calls
        coverage R8 0/0 side-effecting calls
        coverage R9 0/0 calls with declared preconditions
        coverage R10 0/0 tool results
        coverage R11 0/0 tools with both schemas
        coverage R12 0/0 side-effecting tools
        coverage R13 0/0 tool calls
        ");
    }

    #[test]
    fn python_literal_dict_is_arguments() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "raw_text": "{'a': 1, 'b': True, 'c': None}"}
        ]}"#;
        let out = lint(trace, None, Default::default());
        assert!(!out.contains("hard_defect R6"), "{out}");
        assert!(out.contains("coverage R6 1/1"), "{out}");
    }
}
