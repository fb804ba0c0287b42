//! The `openhands` format: OpenHands (v0) trajectories, a JSON array of events. An action
//! with `tool_call_metadata{function_name, tool_call_id, model_response}` is a call (its
//! arguments read from the model's own response when it holds them, so a malformed emission is
//! R6's evidence; else from the action's `args`); an observation answers the action whose `id`
//! its `cause` names: an `error` observation is an error, a `run` observation whose
//! `extras.metadata.exit_code` is 0 a success. `message` actions are the user's and the agent's
//! turns, a `system` action the system prompt (and its `tools`, when recorded, the embedded
//! schemas). Other events (state changes, recalls) are read past.

use std::collections::HashMap;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{
    Args, CallOrigin, InputRef, LineIndex, Message, ResultStatus, Role, SchemaSource, StepKind,
    StepMeta, ToolCall, ToolResult, ToolSpec, Trace,
};

use crate::adapters::Emit;
use crate::adapters::common::args;
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::json_issue;
use crate::adapters::common::raw::{self, Members};

/// Where the schemas a trajectory carries are said to come from.
const SCHEMA_SOURCE: &str = "embedded in the trajectory (OpenHands system event `tools`)";

/// Does this record (an element of the top-level array) look like an OpenHands event?
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let source = m.get("source").and_then(Value::as_str);
    let kind = m.contains_key("action") || m.contains_key("observation");
    if kind && matches!(source, Some("agent" | "user" | "environment")) && m.contains_key("id") {
        10
    } else {
        0
    }
}

/// Parse a trajectory: an array of events (or `{"history": [...]}`-less arrays only).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let raw: &RawValue = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return json_issue(&e, 1, &input.path, out),
    };
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    let Some(events) = raw::array(raw) else {
        out.issue(InputIssue::file(
            &input.path,
            "an OpenHands trajectory must be a JSON array of events",
        ));
        return;
    };
    let mut trace = Trace::new(input.path.clone(), input.clone());
    read_events(&events, &cur, "", &mut trace);
    out.trace(trace);
}

/// Read events into `trace`.
pub fn read_events(events: &[&RawValue], cur: &Cursor<'_>, ptr: &str, trace: &mut Trace) {
    let mut calls = Calls::default();
    for (i, ev) in events.iter().enumerate() {
        event(ev, cur, child(ptr, i), &mut calls, trace);
    }
}

/// Action id → call id, for observations that name their action by `cause`.
#[derive(Debug, Default)]
pub struct Calls(HashMap<String, String>);

/// Read one event (at `p`) into `trace`.
pub fn event(ev: &RawValue, cur: &Cursor<'_>, p: String, calls: &mut Calls, trace: &mut Trace) {
    let calls = &mut calls.0;
    {
        let Some(e) = raw::object(ev) else { return };
        let meta = StepMeta {
            timestamp: raw::string(&e, "timestamp"),
            source_id: raw::id(&e, "id"),
            ..StepMeta::default()
        };
        if let Some(action) = raw::string(&e, "action") {
            action_event(ev, &e, &action, cur, p, meta, calls, trace);
        } else if let Some(kind) = raw::string(&e, "observation") {
            let Some(call_id) = raw::id(&e, "cause").and_then(|c| calls.get(&c).cloned()) else {
                return;
            };
            let status = match kind.as_str() {
                "error" => ResultStatus::Error,
                _ => match raw::value(&e, "extras")
                    .as_ref()
                    .and_then(|x| {
                        x.get("metadata")
                            .and_then(|m| m.get("exit_code"))
                            .or_else(|| x.get("exit_code"))
                    })
                    .and_then(Value::as_i64)
                {
                    Some(0) => ResultStatus::Ok,
                    _ => ResultStatus::Unknown,
                },
            };
            let content = raw::value(&e, "content").unwrap_or(Value::Null);
            let mut result = ToolResult::new(Some(call_id.clone()), content, status);
            if status == ResultStatus::Error {
                result.error = raw::string(&e, "message");
            }
            // The event's own `content` (a nested model response may hold another).
            let at = cur.at(e.get("content").copied().unwrap_or(ev), p);
            trace.push(StepKind::ToolResult(result), at, meta);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn action_event(
    ev: &RawValue,
    e: &Members<'_>,
    action: &str,
    cur: &Cursor<'_>,
    p: String,
    meta: StepMeta,
    calls: &mut HashMap<String, String>,
    trace: &mut Trace,
) {
    let source = raw::string(e, "source").unwrap_or_default();
    let args_v = raw::value(e, "args");
    if action == "system"
        && let Some(Value::Array(tools)) = args_v.as_ref().and_then(|a| a.get("tools")).cloned()
    {
        {
            for t in tools {
                if let Some((name, schema, _)) = crate::adapters::openai::conv::tool_definition(t, false)
                    && !trace.embedded_tools.iter().any(|s| s.name == name)
                {
                    let source = SchemaSource(SCHEMA_SOURCE.to_owned());
                    trace
                        .embedded_tools
                        .push(ToolSpec::new(name, schema, source));
                }
            }
        }
    }
    let Some(tcm) = e.get("tool_call_metadata").and_then(|t| raw::object(t)) else {
        // A turn: the user's, the agent's, or the system prompt.
        let text = args_v
            .as_ref()
            .and_then(|a| a.get("content"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| raw::string(e, "message"))
            .unwrap_or_default();
        let role = match (action, source.as_str()) {
            ("system", _) => Role::System,
            (_, "user") => Role::User,
            _ => Role::Assistant,
        };
        if matches!(action, "message" | "system") && !text.trim().is_empty() {
            let at = cur.at(e.get("message").copied().unwrap_or(ev), p);
            trace.push(
                StepKind::Message(Message {
                    role,
                    content: text,
                }),
                at,
                meta,
            );
        }
        return;
    };
    let Some(name) = raw::string(&tcm, "function_name") else {
        return;
    };
    let call_id = raw::id(&tcm, "tool_call_id").or_else(|| raw::id(e, "id"));
    let (args, raw_args) = model_arguments(&tcm, call_id.as_deref()).unwrap_or_else(|| {
        let mut a = args_v.clone().unwrap_or(Value::Null);
        // OpenHands adds its own keys to what the model sent.
        if let Value::Object(o) = &mut a {
            for k in [
                "thought",
                "is_input",
                "security_risk",
                "confirmation_state",
                "hidden",
                "blocking",
            ] {
                o.remove(k);
            }
        }
        (args::from_value(Some(&a)), None)
    });
    if let (Some(id), Some(cid)) = (raw::id(e, "id"), &call_id) {
        calls.insert(id, cid.clone());
    }
    let at = cur.step(ev, &[call_id.as_deref().unwrap_or(""), &name], p);
    trace.push(
        StepKind::ToolCall(ToolCall {
            call_id,
            name,
            args,
            raw_args,
            origin: CallOrigin::Model,
        }),
        at,
        meta,
    );
}

/// The arguments the model emitted for this call, from the `model_response` OpenHands kept.
fn model_arguments(tcm: &Members<'_>, call_id: Option<&str>) -> Option<(Args, Option<String>)> {
    let response = raw::value(tcm, "model_response")?;
    let calls = response
        .pointer("/choices/0/message/tool_calls")?
        .as_array()?;
    let call = calls
        .iter()
        .find(|c| c.get("id").and_then(Value::as_str) == call_id)
        .or_else(|| (calls.len() == 1).then(|| &calls[0]))?;
    let text = call.pointer("/function/arguments")?.as_str()?;
    Some((args::from_text(text), Some(text.to_owned())))
}

#[cfg(test)]
mod tests;
