//! R10 result_contract_violation: a tool's result does not satisfy the output JSON Schema its
//! contract declares (a tools file's `output_schema`, MCP's `outputSchema` from a server or a
//! saved `tools/list`). An MCP result's `structuredContent` is what the schema describes; a
//! result recorded as a JSON string is read as the JSON it holds. A `hard_event`: the output is
//! the tool's, not the agent's. Failed results are R2a's and not validated. Each schema is
//! compiled once per run; each result is validated once.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Step, ToolResult};

use crate::model::schema::Compiled;
use super::{Rule, Sink, TraceCx};
use crate::analysis::contract::verdict;
use crate::analysis::schema_errors;

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R10,
    kind: FindingType::ResultContractViolation,
    summary: "a tool's result violates the output JSON Schema its contract declares",
    tiers: &[Tier::HardEvent],
    unit: "tool results",
    explanation: include_str!("docs/R10.md"),
};

pub(crate) struct ResultContract;

impl Rule for ResultContract {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        if cx.registry.iter().any(|s| s.output_schema.is_some()) {
            Ok(())
        } else {
            Err("not applicable: no tool declares an output schema (`output_schema`, MCP `outputSchema`)".into())
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let steps = &cx.trace.steps;
        let mut compiled: HashMap<&str, Arc<Compiled>> = HashMap::new();
        for step in steps {
            let Some(result) = step.as_result() else {
                continue;
            };
            let Some(call_step) = cx.pairing.call_for(step.index) else {
                continue;
            };
            let Some(call) = steps.get(call_step).and_then(Step::as_call) else {
                continue;
            };
            let Some(schema) = cx.spec(&call.name).and_then(|s| s.output_schema.as_ref()) else {
                continue;
            };
            let name = call.name.as_str();
            if verdict(cx, call_step).failed() {
                // A failed result is R2a's: its content is an error, not the declared output.
                out.count(false);
                continue;
            }
            let Some(instance) = described(result) else {
                out.count(false);
                out.suppress(
                    step,
                    Some(name),
                    "the result's content was not recorded: cannot check it against the output schema",
                );
                continue;
            };
            let validator = compiled
                .entry(name)
                .or_insert_with(|| cx.run.schemas.get(schema));
            let validator = match validator.as_ref() {
                Ok(v) => v,
                Err(reason) => {
                    out.count(false);
                    out.suppress(step, Some(name), format!("output schema: {reason}"));
                    continue;
                }
            };
            out.count(true);
            if validator.is_valid(&instance) {
                continue;
            }
            let errors = schema_errors::errors(validator, &instance);
            if errors.is_empty() {
                continue;
            }
            let details = schema_errors::details(&errors);
            let f = out.finding(
                Tier::HardEvent,
                step,
                Some(name),
                format!(
                    "`{name}` result does not match its output schema: {}",
                    details.join("; ")
                ),
                "the result",
            );
            f.field = schema_errors::first_field(&errors);
            f.details = details;
            f.help = Some(format!(
                "fix `{name}` so its result has the declared shape, or correct its output schema if that is what is wrong"
            ));
        }
    }
}

/// What the output schema describes in a result: an MCP `CallToolResult`'s `structuredContent`;
/// for an MCP result without it, the JSON its single text block holds (or its text); otherwise
/// the content, a JSON string read as the JSON it holds. `None` when nothing was recorded.
fn described(result: &ToolResult) -> Option<Value> {
    if !result.content_recorded {
        return None;
    }
    let content = result.structured();
    if let Value::Object(m) = content {
        if let Some(sc) = m.get("structuredContent") {
            return Some(sc.clone());
        }
        let envelope = m
            .keys()
            .all(|k| matches!(k.as_str(), "content" | "isError" | "_meta"));
        if envelope && let Some(Value::Array(blocks)) = m.get("content") {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            if texts.len() == blocks.len() {
                let text = texts.join("\n");
                let value = Value::String(text);
                return Some(crate::model::json_in_string(&value).unwrap_or(value));
            }
        }
    }
    match content {
        Value::Null => None,
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    const TOOLS: &str = r#"{"tools": {
        "weather": {"output_schema": {"type": "object",
            "properties": {"temp": {"type": "number"}, "unit": {"type": "string"}},
            "required": ["temp"]}},
        "plain": {}
    }}"#;

    fn trace(results: &[&str]) -> String {
        let steps: Vec<String> = results
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                [
                    format!(r#"{{"type": "tool_call", "call_id": "{i}", "name": "weather", "args": {{}}}}"#),
                    format!(r#"{{"type": "tool_result", "call_id": "{i}", {r}}}"#),
                ]
            })
            .collect();
        format!(r#"{{"run_id": "r", "steps": [{}]}}"#, steps.join(",\n"))
    }

    fn r10(out: &str) -> String {
        out.lines()
            .filter(|l| l.contains(" R10 "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn results_are_read_as_the_schema_describes_them() {
        let out = lint(
            &trace(&[
                r#""content": {"temp": "hot", "unit": 5}, "status": "ok""#,
                r#""content": "{\"temp\": 21.5}""#,
                r#""content": "{\"unit\": \"C\"}""#,
                r#""content": {"content": [{"type": "text", "text": "21 degrees"}], "structuredContent": {"temp": 21}}"#,
                r#""content": {"content": [{"type": "text", "text": "{\"temp\": \"x\"}"}], "isError": false}"#,
                r#""content": "boom", "status": "error""#,
                r#""content": null"#,
            ]),
            Some(TOOLS),
            Default::default(),
        );
        insta::assert_snapshot!(r10(&out), @r#"
            2:1: hard_event R10 weather: `weather` result does not match its output schema: /temp: "hot" is not of type "number"; /unit: 5 is not of type "string"
            6:1: hard_event R10 weather: `weather` result does not match its output schema: "temp" is a required property
            10:1: hard_event R10 weather: `weather` result does not match its output schema: /temp: "x" is not of type "number"
            suppressed R10 14:1: the result's content was not recorded: cannot check it against the output schema
            coverage R10 5/7 tool results
        "#);
    }
}
