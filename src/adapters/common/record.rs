//! A tool's own record of one execution (a Langfuse TOOL observation, an OTel TOOL span) →
//! arguments and result, read the same way by every adapter that has such records: JSON-string
//! values decoded, Python-literal dicts parsed, `@observe`'s `{"args": […], "kwargs": {…}}`
//! envelope and LangSmith's `{"input": {…}}` opened, LangChain `ToolMessage` results unwrapped
//! (their `status: "error"` is a structured error), MCP `isError` honoured. Lossy records become
//! `Args::Unknown` / `content_recorded: false` with a reason, never a made-up `{}`.

use serde_json::{Map, Value};

use crate::model::{Args, ResultStatus};

use crate::adapters::common::args;
use crate::adapters::common::chat::{decode_json_string, str_of};

/// How a record wraps its arguments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Envelopes {
    /// LangSmith tool runs record `{"input": <the arguments>}`.
    pub langsmith_input: bool,
}

/// Arguments from a tool's record. `missing` says why when there is no record at all.
pub fn record_args(value: Option<&Value>, env: Envelopes, missing: &str) -> (Args, Option<String>) {
    match value {
        None | Some(Value::Null) => (Args::Unknown(missing.to_owned()), None),
        Some(Value::String(s)) => {
            let raw = Some(s.clone());
            match decode_json_string(s) {
                Some(inner @ (Value::Object(_) | Value::Array(_))) => {
                    (record_args(Some(&inner), env, missing).0, raw)
                }
                _ if s.trim_start().starts_with(['{', '[']) => (args::from_text(s), raw),
                _ if s.trim().is_empty() => (
                    Args::Unknown("recorded as an empty value, without parameter names".into()),
                    raw,
                ),
                _ => (
                    Args::Unknown("recorded as a bare value, without parameter names".into()),
                    raw,
                ),
            }
        }
        Some(Value::Object(o)) => (object_args(o, env), None),
        Some(Value::Array(_)) => (
            Args::Unknown("recorded positionally, without parameter names".into()),
            None,
        ),
        Some(_) => (
            Args::Unknown("recorded as a bare value, without parameter names".into()),
            None,
        ),
    }
}

fn object_args(o: &Map<String, Value>, env: Envelopes) -> Args {
    // `@observe` (and smolagents, LangSmith) record a Python call as `{"args": [...], "kwargs":
    // {...}}`. Only exactly that shape is an envelope: a tool may have a parameter named `args`.
    if o.len() == 2
        && let (Some(Value::Array(pos)), Some(Value::Object(kw))) = (o.get("args"), o.get("kwargs"))
    {
        return if pos.is_empty() {
            Args::Known(Value::Object(kw.clone()))
        } else {
            Args::Unknown(format!(
                "recorded positionally ({} argument{} in `args`), without parameter names",
                pos.len(),
                if pos.len() == 1 { "" } else { "s" }
            ))
        };
    }
    if env.langsmith_input
        && o.len() == 1
        && let Some(Value::Object(inner)) = o.get("input")
    {
        return Args::Known(Value::Object(inner.clone()));
    }
    Args::Known(Value::Object(o.clone()))
}

/// A tool's result as its record holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedResult {
    /// The content (a JSON string decoded to the value it encodes).
    pub content: Value,
    /// False when the record has no output at all.
    pub recorded: bool,
    /// The call id the result names (a LangChain `ToolMessage`'s `tool_call_id`).
    pub call_id: Option<String>,
    /// A structured status inside the record (`ToolMessage.status`, MCP `isError`).
    pub status: ResultStatus,
}

/// Deepest nesting of envelopes opened.
const MAX_DEPTH: usize = 6;

/// Read a tool's output record.
pub fn record_result(value: Option<&Value>) -> RecordedResult {
    let mut out = RecordedResult {
        content: Value::Null,
        recorded: false,
        call_id: None,
        status: ResultStatus::Unknown,
    };
    if let Some(v) = value.filter(|v| !v.is_null()) {
        out.recorded = true;
        out.content = open(v, 0, &mut out.call_id, &mut out.status);
    }
    out
}

fn open(v: &Value, depth: usize, call_id: &mut Option<String>, status: &mut ResultStatus) -> Value {
    if depth > MAX_DEPTH {
        return v.clone();
    }
    match v {
        Value::String(s) => match decode_json_string(s) {
            Some(inner) => open(&inner, depth + 1, call_id, status),
            None => v.clone(),
        },
        Value::Object(o) => {
            // A serialized LangChain object: its kwargs hold the message.
            if o.get("lc").is_some()
                && let Some(Value::Object(kw)) = o.get("kwargs")
                && o.get("id")
                    .and_then(Value::as_array)
                    .and_then(|a| a.last())
                    .and_then(Value::as_str)
                    == Some("ToolMessage")
            {
                return tool_message(kw, depth, call_id, status);
            }
            if o.get("type").and_then(Value::as_str) == Some("tool")
                && o.contains_key("content")
                && (o.contains_key("tool_call_id") || o.contains_key("status"))
            {
                return tool_message(o, depth, call_id, status);
            }
            // LangSmith wraps a tool's output as `{"output": <ToolMessage>}`.
            if o.len() == 1
                && let Some(inner @ Value::Object(io)) = o.get("output")
                && (io.get("type").and_then(Value::as_str) == Some("tool") || io.contains_key("lc"))
            {
                return open(inner, depth + 1, call_id, status);
            }
            // MCP `CallToolResult`: `isError` is the tool's own structured verdict.
            if o.get("content").is_some_and(Value::is_array)
                && let Some(Value::Bool(is_error)) = o.get("isError")
            {
                *status = if *is_error {
                    ResultStatus::Error
                } else {
                    ResultStatus::Ok
                };
            }
            v.clone()
        }
        _ => v.clone(),
    }
}

fn tool_message(
    m: &Map<String, Value>,
    depth: usize,
    call_id: &mut Option<String>,
    status: &mut ResultStatus,
) -> Value {
    if call_id.is_none() {
        *call_id = str_of(m.get("tool_call_id"));
    }
    match m.get("status").and_then(Value::as_str) {
        Some("error") => *status = ResultStatus::Error,
        Some("success") => *status = ResultStatus::Ok,
        _ => {}
    }
    let content = m.get("content").cloned().unwrap_or(Value::Null);
    match &content {
        // Keep a string result as the tool wrote it; open only further envelopes.
        Value::String(s) => match decode_json_string(s) {
            Some(inner @ Value::Object(_)) => open(&inner, depth + 1, call_id, status),
            _ => content,
        },
        _ => open(&content, depth + 1, call_id, status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Args {
        record_args(Some(&v), Envelopes::default(), "absent").0
    }

    #[test]
    fn argument_records() {
        assert_eq!(args(json!({"a": 1})), Args::Known(json!({"a": 1})));
        assert_eq!(args(json!("{\"a\": 1}")), Args::Known(json!({"a": 1})));
        assert_eq!(
            args(json!("{'query': 'x'}")),
            Args::Known(json!({"query": "x"}))
        );
        assert!(matches!(args(json!("{\"a\": ")), Args::Malformed(_)));
        assert!(matches!(args(json!("Tokyo")), Args::Unknown(r) if r.contains("bare value")));
        assert_eq!(
            record_args(None, Envelopes::default(), "absent").0,
            Args::Unknown("absent".into())
        );
    }

    #[test]
    fn observe_envelope_is_opened_only_when_it_is_one() {
        assert_eq!(
            args(json!({"args": [], "kwargs": {"q": 1}})),
            Args::Known(json!({"q": 1}))
        );
        assert!(matches!(
            args(json!({"args": ["programming"], "kwargs": {}})),
            Args::Unknown(r) if r.contains("positionally (1 argument")
        ));
        // A real parameter named `args`.
        assert_eq!(
            args(json!({"command": "ls", "args": ["-l"]})),
            Args::Known(json!({"command": "ls", "args": ["-l"]}))
        );
        let env = Envelopes {
            langsmith_input: true,
        };
        assert_eq!(
            record_args(Some(&json!({"input": {"city": "Berlin"}})), env, "").0,
            Args::Known(json!({"city": "Berlin"}))
        );
    }

    #[test]
    fn tool_message_results() {
        let r = record_result(Some(&json!(
            "{\"content\": \"[1]\", \"type\": \"tool\", \"tool_call_id\": \"c\", \"status\": \"error\"}"
        )));
        assert_eq!(r.content, json!("[1]"));
        assert_eq!(r.call_id.as_deref(), Some("c"));
        assert_eq!(r.status, ResultStatus::Error);
        let r = record_result(Some(
            &json!({"content": [{"type": "text", "text": "x"}], "isError": true}),
        ));
        assert_eq!(r.status, ResultStatus::Error);
        let r = record_result(Some(&json!("\"plain\"")));
        assert_eq!((r.content, r.recorded), (json!("plain"), true));
        assert!(!record_result(Some(&Value::Null)).recorded);
    }
}
