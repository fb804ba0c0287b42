//! The `atif` format: Harbor's Agent Trajectory Interchange Format (`agent/trajectory.json`,
//! ATIF-v1.0 to v1.8), the one file Harbor writes for every agent it runs. A step is a user,
//! system or agent turn; an agent step's `tool_calls[]` are calls and its `observation.results[]`
//! their results by `source_call_id` (a result naming no call answers the step's last call: the
//! one terminal screen Terminus records for a batch of keystrokes). ATIF has no result status,
//! so a result is an error only from the signals producers write (`extra.is_error`,
//! `extra.tool_result_is_error`, `extra.tool_result_metadata.is_error`, an error `extra.status`,
//! Harbor's `[error] tool reported failure` line) and a success from their opposites or exit
//! code 0. Steps copied in after a context summary (`is_copied_context`) are context: their text
//! is read, their calls are not replayed. `agent.tool_definitions` are embedded schemas,
//! `agent.extra.cwds` / `git_branches` context, `subagent_trajectories[]` traces of their own.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{
    Args, CallOrigin, ContextKind, InputRef, Location, Message, ResultStatus, Role, SchemaSource,
    StepKind, StepMeta, ToolCall, ToolResult, ToolSpec, Trace,
};

use crate::adapters::Emit;
use crate::adapters::common::args;
use crate::adapters::common::cursor::{Cursor, child, each_top_value, object_or_issue};
use crate::adapters::common::json_pos::{Line, each_record};
use crate::adapters::common::raw::{self, Members};

/// Where the schemas a trajectory carries are said to come from.
const SCHEMA_SOURCE: &str = "embedded in the trajectory (ATIF `agent.tool_definitions`)";
/// Deepest nesting of embedded sub-agent trajectories read.
const MAX_SUBAGENT_DEPTH: usize = 8;
/// Harbor's line at the end of a result the tool reported as failed.
const HARBOR_FAILURE: &str = "[error] tool reported failure";

/// Does this record look like an ATIF trajectory?
pub fn sniff(record: &Value) -> u8 {
    let version = record.get("schema_version").and_then(Value::as_str);
    let steps = record.get("steps").is_some_and(Value::is_array);
    match version {
        Some(v) if v.starts_with("ATIF") && steps => 12,
        Some(_) if steps && record.get("agent").is_some_and(Value::is_object) => 6,
        _ => 0,
    }
}

/// Parse a trajectory document (or an array of them).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    each_top_value(text, &input.path, out, |raw, cur, ptr, id, out| {
        trajectory(raw, cur, ptr, id, 0, input, out);
    });
}

/// Parse JSON Lines of trajectories, one a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    each_record(lines, &input.path, out, |raw, line, out| {
        let cur = Cursor::record(&line.text, line.number);
        let id = format!("{}:{}", input.path, line.number);
        trajectory(raw, &cur, "", &id, 0, input, out);
    });
}

fn trajectory(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    default_id: &str,
    depth: usize,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let Some(m) = object_or_issue(raw, cur, ptr, &input.path, "an ATIF trajectory", out) else {
        return;
    };
    let run_id = raw::string(&m, "session_id")
        .or_else(|| raw::string(&m, "trajectory_id"))
        .unwrap_or_else(|| default_id.to_owned());
    let mut trace = Trace::new(run_id.clone(), input.clone());
    if let Some(agent) = m.get("agent").and_then(|a| raw::object(a)) {
        agent_facts(&agent, &mut trace);
    }
    for (i, step) in raw::list(&m, "steps").iter().enumerate() {
        read_step(step, cur, &child(&child(ptr, "steps"), i), &mut trace);
    }
    out.trace(trace);
    for (i, sub) in raw::list(&m, "subagent_trajectories").iter().enumerate() {
        if depth >= MAX_SUBAGENT_DEPTH {
            out.issue(InputIssue::file(
                &input.path,
                format!("sub-agent trajectories nested deeper than {MAX_SUBAGENT_DEPTH}: not read"),
            ));
            break;
        }
        let id = format!("{run_id}/subagent-{}", i + 1);
        let p = child(&child(ptr, "subagent_trajectories"), i);
        trajectory(sub, cur, &p, &id, depth + 1, input, out);
    }
}

/// The agent's tool definitions (embedded schemas) and what it was given (working directories,
/// git branches).
fn agent_facts(agent: &Members<'_>, trace: &mut Trace) {
    if let Some(Value::Array(defs)) = raw::value(agent, "tool_definitions") {
        for def in defs {
            let Some((name, schema, _)) = crate::adapters::openai::conv::tool_definition(def, false) else {
                continue;
            };
            if !trace.embedded_tools.iter().any(|t| t.name == name) {
                let source = SchemaSource(SCHEMA_SOURCE.to_owned());
                trace
                    .embedded_tools
                    .push(ToolSpec::new(name, schema, source));
            }
        }
    }
    if let Some(v) = raw::string(agent, "version") {
        trace.attributes.push((
            "agent".into(),
            format!("{} {v}", raw::string(agent, "name").unwrap_or_default()),
        ));
    }
    if let Some(Value::Object(extra)) = raw::value(agent, "extra") {
        for (key, kind) in [
            ("cwds", ContextKind::WorkingDirectory),
            ("cwd", ContextKind::WorkingDirectory),
            ("git_branches", ContextKind::GitBranch),
        ] {
            match extra.get(key) {
                Some(Value::Array(items)) => {
                    for v in items.iter().filter_map(Value::as_str) {
                        trace.add_context(kind, v);
                    }
                }
                Some(Value::String(v)) => trace.add_context(kind, v.clone()),
                _ => {}
            }
        }
    }
}

fn read_step(raw: &RawValue, cur: &Cursor<'_>, ptr: &str, trace: &mut Trace) {
    let Some(s) = raw::object(raw) else { return };
    let meta = StepMeta {
        timestamp: raw::string(&s, "timestamp"),
        model: raw::string(&s, "model_name"),
        source_id: raw::id(&s, "step_id"),
        ..StepMeta::default()
    };
    let role = match raw::string(&s, "source").as_deref() {
        Some("user") => Role::User,
        Some("system") => Role::System,
        _ => Role::Assistant,
    };
    let copied = matches!(raw::value(&s, "is_copied_context"), Some(Value::Bool(true)));
    let text = raw::value(&s, "message")
        .map(|v| crate::adapters::common::content::text_of(Some(&v)))
        .unwrap_or_default();
    if !text.trim().is_empty() {
        let at = cur.step(raw, &["\"message\""], ptr.to_owned());
        trace.push(
            StepKind::Message(Message {
                role,
                content: text,
            }),
            at,
            meta.clone(),
        );
    }
    let calls = raw::list(&s, "tool_calls");
    let results = s
        .get("observation")
        .and_then(|o| raw::object(o))
        .map(|o| raw::list(&o, "results"))
        .unwrap_or_default();
    if copied {
        // Context restated after a summary: what it says was observed, nothing ran again.
        for r in &results {
            if let Some(c) = raw::object(r).and_then(|m| raw::value(&m, "content")) {
                let content = crate::adapters::common::content::text_of(Some(&c));
                if !content.trim().is_empty() {
                    let at = cur.at(r, ptr.to_owned());
                    trace.push(
                        StepKind::Message(Message {
                            role: Role::Tool,
                            content,
                        }),
                        at,
                        meta.clone(),
                    );
                }
            }
        }
        return;
    }
    let mut last_call = None;
    for (i, c) in calls.iter().enumerate() {
        let Some(call) = raw::object(c) else { continue };
        let Some(name) = raw::string(&call, "function_name") else {
            continue;
        };
        let call_id = raw::id(&call, "tool_call_id");
        let args = match raw::value(&call, "arguments") {
            Some(v @ Value::Object(_)) => Args::Known(v),
            other => args::from_value(other.as_ref()),
        };
        let p = child(&child(ptr, "tool_calls"), i);
        let at = cur.step(c, &[call_id.as_deref().unwrap_or(""), &name], p);
        last_call = call_id.clone();
        trace.push(
            StepKind::ToolCall(ToolCall {
                call_id,
                name,
                args,
                raw_args: None,
                origin: CallOrigin::Model,
            }),
            at,
            meta.clone(),
        );
    }
    for (i, r) in results.iter().enumerate() {
        let Some(res) = raw::object(r) else { continue };
        if res.contains_key("subagent_trajectory_ref") && !res.contains_key("content") {
            continue;
        }
        let call_id = raw::id(&res, "source_call_id").or_else(|| last_call.clone());
        let content = match raw::value(&res, "content") {
            Some(Value::Array(parts)) => {
                Value::String(crate::adapters::common::content::text_of(Some(&Value::Array(parts))))
            }
            Some(v) => v,
            None => Value::Null,
        };
        let status = status_of(&res, &content);
        let p = child(&child(&child(ptr, "observation"), "results"), i);
        let at: Location = cur.step(r, &[call_id.as_deref().unwrap_or("")], p);
        let mut result = ToolResult::new(call_id, content, status);
        result.content_recorded = res.contains_key("content");
        trace.push(StepKind::ToolResult(result), at, meta.clone());
    }
}

/// A result's status from the structured signals producers write; unknown otherwise.
fn status_of(res: &Members<'_>, content: &Value) -> ResultStatus {
    let extra = raw::value(res, "extra");
    let flag = |v: Option<&Value>| match v {
        Some(Value::Bool(true)) => Some(ResultStatus::Error),
        Some(Value::Bool(false)) => Some(ResultStatus::Ok),
        _ => None,
    };
    if let Some(e) = extra.as_ref() {
        let meta = e.get("tool_result_metadata");
        for signal in [
            e.get("is_error"),
            e.get("tool_result_is_error"),
            meta.and_then(|m| m.get("is_error")),
        ] {
            if let Some(s) = flag(signal) {
                return s;
            }
        }
        match e
            .get("status")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("error" | "failed" | "failure") => return ResultStatus::Error,
            Some("success" | "ok" | "completed") => return ResultStatus::Ok,
            _ => {}
        }
        let code = ["exit_code", "returncode", "return_code"]
            .iter()
            .find_map(|k| {
                e.get(*k)
                    .or_else(|| e.get("metadata").and_then(|m| m.get(*k)))
            })
            .and_then(Value::as_i64);
        if code == Some(0) {
            return ResultStatus::Ok;
        }
    }
    if content
        .as_str()
        .is_some_and(|t| t.trim_end().ends_with(HARBOR_FAILURE))
    {
        return ResultStatus::Error;
    }
    ResultStatus::Unknown
}

#[cfg(test)]
mod tests;
