//! One Gemini CLI message record → steps: a `user` message's text (and the `functionResponse`
//! parts it may echo), a `gemini` message's text and its `toolCalls[]`, each a call and, once
//! it finished, its result, located at the call and at its `result`. `info`, `error` and
//! `warning` records are the CLI talking to the user, never sent to the model: read past.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{
    CallOrigin, ContextKind, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall, ToolResult,
};

use crate::adapters::common::agent::Session;
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "toolCalls", default, borrow)]
    tool_calls: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct Call<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(rename = "resultDisplay", default)]
    result_display: Option<Value>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(rename = "displayName", default)]
    display_name: Option<String>,
}

/// A content part (`{"text"}`, `{"functionResponse"}`, …).
#[derive(Deserialize)]
struct Part {
    #[serde(default)]
    text: Option<String>,
    #[serde(rename = "functionResponse", default)]
    function_response: Option<FunctionResponse>,
}

#[derive(Deserialize)]
struct FunctionResponse {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    response: Option<Value>,
}

/// Read one message record: its id and steps (problems inside it included).
pub(super) fn read(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    session: &mut Session,
) -> Option<(String, Collected)> {
    let msg: Msg<'_> = serde_json::from_str(raw.get()).ok()?;
    let id = id_of(msg.id.as_ref())?;
    let mut got = Collected::default();
    let meta = StepMeta {
        timestamp: msg.timestamp.clone(),
        source_id: Some(id.clone()),
        ..StepMeta::default()
    };
    let role = match msg.kind.as_deref() {
        Some("user") => Role::User,
        Some("gemini" | "bob-shell") => Role::Assistant,
        _ => return Some((id, got)),
    };
    if role == Role::Assistant {
        session.attribute(crate::model::ATTR_MODEL, msg.model.as_deref());
    }
    if let Some(c) = msg.content {
        read_content(c, role, cur, &child(ptr, "content"), session, &mut got);
    }
    for (i, call) in msg.tool_calls.iter().flatten().enumerate() {
        read_call(call, cur, &child(&child(ptr, "toolCalls"), i), &mut got);
    }
    for item in &mut got.items {
        item.meta.timestamp = item
            .meta
            .timestamp
            .take()
            .or_else(|| meta.timestamp.clone());
        item.meta.source_id.clone_from(&meta.source_id);
        if role == Role::Assistant && !matches!(item.kind, StepKind::ToolResult(_)) {
            item.meta.model.clone_from(&msg.model);
        }
    }
    Some((id, got))
}

/// A message's `content`: a string, or parts whose text forms one message; `functionResponse`
/// parts are results (kept only where no call's own record holds them).
fn read_content(
    raw: &RawValue,
    role: Role,
    cur: &Cursor<'_>,
    ptr: &str,
    session: &mut Session,
    got: &mut Collected,
) {
    let mut text: Option<(String, crate::model::Location)> = None;
    match raw.get().as_bytes().first() {
        Some(b'"') => {
            if let Ok(s) = serde_json::from_str::<String>(raw.get()) {
                text = Some((s, cur.at(raw, ptr.to_owned())));
            }
        }
        Some(b'[') => {
            let Ok(parts) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
                got.problem(cur.at(raw, ptr.to_owned()), "unreadable message content");
                return;
            };
            for (i, p) in parts.iter().enumerate() {
                let Ok(part) = serde_json::from_str::<Part>(p.get()) else {
                    continue;
                };
                let at = || cur.at(p, child(ptr, i));
                if let Some(t) = part.text {
                    match &mut text {
                        Some((s, _)) => {
                            s.push('\n');
                            s.push_str(&t);
                        }
                        None => text = Some((t, at())),
                    }
                } else if let Some(fr) = part.function_response {
                    // An `error` in the response is the CLI's structured verdict.
                    let (content, error) = response_of(fr.response);
                    let status = if error.is_some() {
                        ResultStatus::Error
                    } else {
                        ResultStatus::Unknown
                    };
                    let mut r = ToolResult::new(id_of(fr.id.as_ref()), content, status);
                    r.error = error;
                    got.push(StepKind::ToolResult(r), at());
                }
            }
        }
        _ => {}
    }
    if let Some((t, at)) = text
        && !t.trim().is_empty()
    {
        if role == Role::User {
            for dir in workspace_directories(&t) {
                session.context(ContextKind::WorkingDirectory, Some(dir));
            }
        }
        got.items.insert(
            0,
            crate::adapters::common::content::Item::new(StepKind::Message(Message { role, content: t }), at),
        );
    }
}

/// The directories the CLI's session context lists under `Workspace Directories:`.
fn workspace_directories(text: &str) -> impl Iterator<Item = &str> {
    let block = text
        .find("Workspace Directories:")
        .map(|i| &text[i..])
        .unwrap_or_default();
    block
        .lines()
        .skip(1)
        .map_while(|l| l.trim_start().strip_prefix("- "))
        .map(str::trim)
        .filter(|d| d.starts_with('/') || d.get(1..3) == Some(":\\"))
}

fn read_call(raw: &RawValue, cur: &Cursor<'_>, ptr: &str, got: &mut Collected) {
    let Ok(call) = serde_json::from_str::<Call<'_>>(raw.get()) else {
        got.problem(cur.at(raw, ptr.to_owned()), "a tool call must be an object");
        return;
    };
    let call_id = id_of(call.id.as_ref());
    let Some(Value::String(name)) = call.name else {
        got.problem(
            cur.at(raw, ptr.to_owned()),
            "a tool call needs a string `name`",
        );
        return;
    };
    let name = mcp_name(name, call.display_name.as_deref());
    let at = cur.step(
        raw,
        &[call_id.as_deref().unwrap_or(""), &name],
        ptr.to_owned(),
    );
    got.push(
        StepKind::ToolCall(ToolCall {
            call_id: call_id.clone(),
            name,
            args: content::args_owned(call.args),
            raw_args: None,
            origin: CallOrigin::Model,
        }),
        at.clone(),
    );
    let status = match call.status.as_deref() {
        Some("success") => ResultStatus::Ok,
        Some("error" | "cancelled") => ResultStatus::Error,
        // Scheduled, validating, awaiting approval, executing: not finished, no result.
        _ => return,
    };
    let (mut content, mut recorded, mut error) = (serde_json::Value::Null, false, None);
    let mut result_at = at;
    if let Some(r) = call.result {
        result_at = cur.step(r, &[call_id.as_deref().unwrap_or("")], child(ptr, "result"));
        recorded = true;
        (content, error) = result_of(r);
    } else if let Some(d) = call.result_display.filter(|d| !d.is_null()) {
        recorded = true;
        content = d;
    }
    if status == ResultStatus::Error && error.is_none() {
        error = match call.status.as_deref() {
            Some("cancelled") => Some("cancelled".to_owned()),
            _ => content.as_str().map(str::to_owned),
        };
    }
    let mut result = ToolResult::new(call_id, content, status);
    result.content_recorded = recorded;
    result.error = error;
    let mut item = crate::adapters::common::content::Item::new(StepKind::ToolResult(result), result_at);
    item.meta.timestamp = call.timestamp;
    got.items.push(item);
}

/// A call's `result`: `functionResponse` parts (their outputs joined), or a string; and the
/// error text a response carries.
fn result_of(raw: &RawValue) -> (Value, Option<String>) {
    let Ok(v) = serde_json::from_str::<Value>(raw.get()) else {
        return (Value::Null, None);
    };
    let Value::Array(parts) = v else {
        return (v, None);
    };
    let mut texts = Vec::new();
    let mut error = None;
    let mut other = Vec::new();
    for p in parts {
        match p.get("functionResponse").and_then(|f| f.get("response")) {
            Some(resp) => {
                let (c, e) = response_of(Some(resp.clone()));
                if e.is_some() {
                    error = e;
                }
                match c {
                    Value::String(s) => texts.push(s),
                    other_value => other.push(other_value),
                }
            }
            None => match p.get("text").and_then(Value::as_str) {
                Some(t) => texts.push(t.to_owned()),
                None => other.push(p),
            },
        }
    }
    let content = if other.is_empty() {
        Value::String(texts.join("\n"))
    } else {
        other.extend(texts.into_iter().map(Value::String));
        content::result_content(Some(Value::Array(other)))
    };
    (content, error)
}

/// A `functionResponse.response`: `{output}` or `{error}` (the text the model was given), or
/// another object kept as it is.
fn response_of(resp: Option<Value>) -> (Value, Option<String>) {
    match resp {
        Some(Value::Object(mut o)) if o.len() == 1 && o.contains_key("output") => {
            (o.remove("output").unwrap_or_default(), None)
        }
        Some(Value::Object(mut o)) if o.len() == 1 && o.contains_key("error") => {
            let e = o.remove("error").unwrap_or_default();
            let text = e.as_str().map_or_else(|| e.to_string(), str::to_owned);
            (Value::String(text.clone()), Some(text))
        }
        Some(v) => (v, None),
        None => (Value::Null, None),
    }
}

/// An MCP tool's name as the CLI's newer releases record it, `mcp_<server>_<tool>`, for a call
/// an older release recorded under the tool's bare name (`get_file_contents`) with the server
/// in its display name (`get_file_contents (github MCP Server)`). Other names stay as recorded.
fn mcp_name(name: String, display: Option<&str>) -> String {
    let server = display
        .and_then(|d| d.strip_prefix(name.as_str()))
        .and_then(|rest| rest.strip_prefix(" ("))
        .and_then(|rest| rest.strip_suffix(" MCP Server)"))
        .filter(|s| !s.is_empty() && !s.contains(['(', ')']));
    match server {
        Some(server) if !name.starts_with("mcp_") => format!("mcp_{server}_{name}"),
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::mcp_name;

    #[test]
    fn bare_mcp_tool_names_get_their_server() {
        let cases = [
            ("get_file_contents", Some("get_file_contents (github MCP Server)"), "mcp_github_get_file_contents"),
            // Already qualified (newer releases), or no MCP server named: as recorded.
            ("mcp_everything_echo", Some("echo (everything MCP Server)"), "mcp_everything_echo"),
            ("read_file", Some("ReadFile"), "read_file"),
            ("echo", Some("other (x MCP Server)"), "echo"),
            ("echo", None, "echo"),
        ];
        for (name, display, want) in cases {
            assert_eq!(mcp_name(name.to_owned(), display), want, "{name} {display:?}");
        }
    }
}
