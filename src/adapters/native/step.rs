//! One native step (`message`, `tool_call`, `tool_result`) → a `StepKind` with its metadata: role,
//! arguments, result status and code, ids and text.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::model::{
    CallOrigin, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall, ToolResult,
};

use crate::adapters::common::args;
use crate::adapters::common::json_pos::error_message;

/// Where a native call's own `schema` comes from, in reports.
pub(super) const NATIVE_SCHEMA_SOURCE: &str = "embedded in the trace (native `tool_call.schema`)";

pub(super) fn parse_step(raw: &RawValue) -> Result<(StepKind, StepMeta, Option<Value>), String> {
    let v: Value = serde_json::from_str(raw.get())
        .map_err(|e| format!("invalid JSON: {}", error_message(&e)))?;
    let Value::Object(mut m) = v else {
        return Err("a step must be an object".into());
    };
    let meta = parse_meta(m.get("meta"));
    let mut schema = None;
    let kind = match m.get("type").and_then(Value::as_str) {
        Some("message") => StepKind::Message(Message {
            role: parse_role(m.get("role"))?,
            // Moved out of the step, not copied.
            content: text_of(m.remove("content")),
        }),
        Some("tool_call") => {
            schema = m.remove("schema").filter(Value::is_object);
            let name = match m.get("name") {
                Some(Value::String(s)) => s.clone(),
                _ => return Err("a `tool_call` needs a string `name`".into()),
            };
            let raw_args = m
                .get("raw_text")
                .or_else(|| m.get("raw_args"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            // The step is ours: its arguments are moved out, not copied.
            let explicit = m.remove("args");
            // Arguments recorded as a string are their own raw text.
            let text_args = match (&raw_args, &explicit) {
                (None, Some(Value::String(t))) => Some(t.clone()),
                _ => None,
            };
            let absent = match &explicit {
                None | Some(Value::Null) => true,
                Some(Value::Object(o)) => o.is_empty(),
                Some(_) => false,
            };
            let args = match raw_args.as_deref() {
                Some(raw) if absent => args::from_text(raw),
                Some(raw) => match args::from_text(raw) {
                    m @ crate::model::Args::Malformed(_) => m,
                    _ => args::from_owned(explicit),
                },
                None => args::from_owned(explicit),
            };
            let origin = match m.get("origin").and_then(Value::as_str) {
                Some("tool" | "tool_record") => CallOrigin::ToolRecord,
                _ => CallOrigin::Model,
            };
            StepKind::ToolCall(ToolCall {
                call_id: id_of(m.get("call_id")),
                name,
                raw_args: raw_args.or(text_args),
                args,
                origin,
            })
        }
        Some("tool_result") => StepKind::ToolResult(parse_result(&mut m)),
        Some(other) => {
            return Err(format!(
                "unknown step type `{other}` (expected `message`, `tool_call` or `tool_result`)"
            ));
        }
        None => return Err("missing step `type`".into()),
    };
    Ok((kind, meta, schema))
}

fn parse_result(m: &mut Map<String, Value>) -> ToolResult {
    let content_recorded = m.contains_key("content");
    // Moved out of the step, not copied.
    let content = m.remove("content").unwrap_or(Value::Null);
    let http_status = m.get("http_status").and_then(status_code);
    let error = match m.get("error") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Bool(true)) => Some("error".to_owned()),
        Some(v @ Value::Object(_)) => Some(v.to_string()),
        _ => None,
    };
    let explicit = match m.get("status") {
        Some(Value::String(s)) => match s.to_ascii_lowercase().as_str() {
            "ok" | "success" | "succeeded" | "completed" => ResultStatus::Ok,
            "error" | "failed" | "failure" => ResultStatus::Error,
            _ => ResultStatus::Unknown,
        },
        _ => ResultStatus::Unknown,
    };
    let is_error = m.get("is_error").and_then(Value::as_bool);
    let status = if error.is_some()
        || is_error == Some(true)
        || http_status.is_some_and(|c| c >= 400)
        || explicit == ResultStatus::Error
    {
        ResultStatus::Error
    } else if explicit == ResultStatus::Ok || is_error == Some(false) {
        ResultStatus::Ok
    } else {
        ResultStatus::Unknown
    };
    ToolResult {
        call_id: id_of(m.get("call_id")),
        content,
        status,
        error,
        http_status,
        content_recorded,
        structured_cache: Default::default(),
    }
}

fn status_code(v: &Value) -> Option<u16> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|c| u16::try_from(c).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn parse_role(v: Option<&Value>) -> Result<Role, String> {
    match v.and_then(Value::as_str) {
        Some("user" | "human") => Ok(Role::User),
        Some("assistant" | "ai" | "model") => Ok(Role::Assistant),
        Some("system" | "developer") => Ok(Role::System),
        Some("tool" | "function") => Ok(Role::Tool),
        Some(other) => Err(format!("unknown message role `{other}`")),
        None => Err("a `message` needs a `role`".into()),
    }
}

/// A call id written as a string or a number.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Message text: the string itself, typed blocks' text joined, or JSON text for anything else.
fn text_of(v: Option<Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(Value::Array(items))
            if items
                .iter()
                .all(|i| i.get("text").is_some_and(Value::is_string)) =>
        {
            items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Some(other) => other.to_string(),
    }
}

fn parse_meta(v: Option<&Value>) -> StepMeta {
    let Some(Value::Object(m)) = v else {
        return StepMeta::default();
    };
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    StepMeta {
        timestamp: s("timestamp"),
        duration_ms: m.get("duration_ms").and_then(Value::as_f64),
        model: s("model"),
        parent_id: s("parent_id"),
        source_id: s("id").or_else(|| s("span_id")),
        retry_attempt: m
            .get("retry_attempt")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok()),
        injected: m.get("injected").and_then(Value::as_bool).unwrap_or(false),
        fault_injection_id: s("fault_injection_id"),
    }
}
