//! One native trace record → a `Trace`: its run id, steps (each located where its JSON begins),
//! final answer, and the MCP tool schemas it embeds.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex, Location, StepKind, Trace};

use crate::adapters::Emit;
use crate::adapters::common::json_pos::{error_message, locate};
use super::step::{NATIVE_SCHEMA_SOURCE, parse_step};
use super::{ATTR_CONTINUES, RawTrace, Steps};

pub(super) fn parse_trace(
    text: &str,
    index: &LineIndex,
    raw: &RawValue,
    pointer: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let at = locate(text, index, raw, pointer.to_owned());
    let issue = |msg: String| InputIssue::at(&input.path, at.line, at.column, msg);
    let rt: RawTrace<'_> = match serde_json::from_str(raw.get()) {
        Ok(t) => t,
        Err(e) if raw.get().starts_with('{') => {
            return out.issue(issue(format!("not a native trace: {}", error_message(&e))));
        }
        Err(_) => {
            return out.issue(issue(
                "not a native trace: expected an object with a `steps` list (pass `--input-format` if this is another format)".into(),
            ));
        }
    };
    build_trace(text, index, rt, at, pointer, default_id, input, out);
}

/// The trace read as `rt`, which begins at `at` in `text`, with its steps.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_trace(
    text: &str,
    index: &LineIndex,
    rt: RawTrace<'_>,
    at: Location,
    pointer: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let issue = |msg: String| InputIssue::at(&input.path, at.line, at.column, msg);
    let Some(Steps(steps)) = rt.steps else {
        return out.issue(issue("not a native trace: missing `steps` list".into()));
    };
    let Some(steps) = steps else {
        return out.issue(issue("not a native trace: `steps` is not a list".into()));
    };
    let run_id = match rt.run_id {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => default_id.to_owned(),
    };
    let mut trace = Trace::new(run_id, input.clone());
    if rt.continues {
        trace
            .attributes
            .push((ATTR_CONTINUES.to_owned(), String::new()));
    }
    if let Some(recorder) = rt
        .mcp
        .as_ref()
        .and_then(|m| m.get("recorder"))
        .and_then(Value::as_str)
    {
        trace.attributes.push((
            crate::model::ATTR_TOOLS_ONLY.to_owned(),
            format!("an MCP session recorded by {recorder}"),
        ));
        let faults = rt
            .mcp
            .as_ref()
            .and_then(|m| m.get("injection"))
            .and_then(|i| i.get("faults"))
            .and_then(Value::as_array);
        if let Some(faults) = faults {
            let names: Vec<&str> = faults.iter().filter_map(Value::as_str).collect();
            trace
                .attributes
                .push((crate::model::ATTR_INJECTION.to_owned(), names.join(",")));
        }
    }
    if let Some(Value::Array(tools)) = &rt.tools {
        for t in tools {
            if let Some(spec) = mcp_tool(t)
                && !trace.embedded_tools.iter().any(|e| e.name == spec.name)
            {
                trace.embedded_tools.push(spec);
            }
        }
    }
    trace.final_answer = match rt.final_answer {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    for (j, step_raw) in steps.iter().enumerate() {
        let loc = locate(text, index, step_raw, format!("{pointer}/steps/{j}"));
        match parse_step(step_raw) {
            Ok((kind, meta, schema)) => {
                // The Python tracelint's native calls may carry the schema the tool ran with.
                if let (StepKind::ToolCall(c), Some(schema)) = (&kind, schema)
                    && !trace.embedded_tools.iter().any(|t| t.name == c.name)
                {
                    trace.embedded_tools.push(crate::model::ToolSpec::new(
                        c.name.clone(),
                        Some(schema),
                        crate::model::SchemaSource(NATIVE_SCHEMA_SOURCE.to_owned()),
                    ));
                }
                trace.push(kind, loc, meta);
            }
            Err(msg) => {
                trace.partial = true;
                out.issue(InputIssue::at(
                    &input.path,
                    loc.line,
                    loc.column,
                    format!("step {j}: {msg}"),
                ));
            }
        }
    }
    out.trace(trace);
}

/// Where a native trace's `tools` come from, in reports.
const NATIVE_TOOLS_SOURCE: &str = "embedded in the trace (MCP `tools/list` in native `tools`)";

/// An MCP `Tool` from a native trace's `tools` list: its input and output schemas, and the
/// behaviour its annotations state (never the spec's defaults: an unstated hint is undeclared).
fn mcp_tool(t: &Value) -> Option<crate::model::ToolSpec> {
    let name = t.get("name")?.as_str()?;
    let schema = t
        .get("inputSchema")
        .or_else(|| t.get("input_schema"))
        .filter(|s| s.is_object())
        .cloned();
    let mut spec = crate::model::ToolSpec::new(
        name,
        schema,
        crate::model::SchemaSource(NATIVE_TOOLS_SOURCE.to_owned()),
    );
    spec.output_schema = t.get("outputSchema").filter(|s| s.is_object()).cloned();
    let hint = |k: &str| {
        t.get("annotations")
            .and_then(|a| a.get(k))
            .and_then(Value::as_bool)
    };
    match (hint("readOnlyHint"), hint("destructiveHint")) {
        (Some(true), _) => spec.metadata.side_effecting = Some(false),
        (Some(false), _) | (_, Some(true)) => spec.metadata.side_effecting = Some(true),
        _ => {}
    }
    if hint("idempotentHint") == Some(true) {
        spec.metadata.idempotent = Some(true);
    }
    spec.metadata.open_world = hint("openWorldHint");
    Some(spec)
}
