//! One Codex `response_item` payload → steps, and the `event_msg` payloads that give a result's
//! structured verdict. Results keep the text the model was sent; their status comes only from
//! a structured field (an `exit_code` inside a JSON output's `metadata`, a `success` flag, an
//! execution event), never from the words of the output.
//!
//! One cohesive mapping: each payload type is one arm of the same conversion into steps, and the
//! verdict events it reads belong to those steps' results.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{Args, CallOrigin, ResultStatus, Role, StepKind, ToolCall, ToolResult};

use crate::adapters::common::agent::{Session, Verdict};
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::openai::chat;

/// A `response_item` payload's fields read here.
#[derive(Deserialize)]
struct Item<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    name: Option<Value>,
    /// The namespace of a namespaced tool (`mcp__codex_apps__github` for the GitHub app's
    /// `_fetch_pr`, newer releases).
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    call_id: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    action: Option<Value>,
    #[serde(default)]
    output: Option<Value>,
}

/// Hosted tools run by the model's provider: the rollout records the call and its status, not
/// what the model was given back.
const HOSTED: &[(&str, &str)] = &[
    ("web_search_call", "web_search"),
    ("image_generation_call", "image_generation"),
    ("file_search_call", "file_search"),
    ("code_interpreter_call", "code_interpreter"),
];

/// Read one `response_item` payload.
pub(super) fn read_item(raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut Collected) {
    let item: Item<'_> = match serde_json::from_str(raw.get()) {
        Ok(i) => i,
        Err(_) => {
            out.problem(
                cur.at(raw, ptr.to_owned()),
                "a `response_item` payload must be an object",
            );
            return;
        }
    };
    let call_id = id_of(item.call_id.as_ref()).or_else(|| id_of(item.id.as_ref()));
    let kind = item.kind.as_deref().unwrap_or("");
    match kind {
        "message" => {
            let role = match item.role.as_deref() {
                Some("assistant") => Role::Assistant,
                Some("developer" | "system") => Role::System,
                _ => Role::User,
            };
            if let Some(c) = item.content {
                content::read_content(c, role, cur, &child(ptr, "content"), out);
            }
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call" => {
            let name = match (kind, item.name) {
                (_, Some(Value::String(n))) if !n.is_empty() => qualified(item.namespace, n),
                ("local_shell_call", _) => "local_shell".to_owned(),
                ("tool_search_call", _) => "tool_search".to_owned(),
                _ => {
                    let at = cur.at(raw, ptr.to_owned());
                    out.problem(at, format!("a `{kind}` item needs a string `name`"));
                    return;
                }
            };
            let (args, raw_args) = match kind {
                // A free-form tool's input is its argument, as text (an `apply_patch` body).
                "custom_tool_call" => match item.input {
                    Some(Value::String(s)) => (Args::Known(Value::String(s)), None),
                    other => (content::args_owned(other), None),
                },
                "local_shell_call" => (content::args_owned(item.action), None),
                _ if item.arguments.is_some() => chat::arguments(item.arguments),
                _ => (content::args_owned(item.action), None),
            };
            push_call(raw, cur, ptr, call_id, name, args, raw_args, out);
        }
        "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
            let at = cur.step(raw, &[call_id.as_deref().unwrap_or("")], ptr.to_owned());
            let recorded = item.output.is_some();
            let mut result = output_result(call_id, item.output);
            result.content_recorded = recorded;
            out.push(StepKind::ToolResult(result), at);
        }
        _ => {
            let Some((_, name)) = HOSTED.iter().find(|(k, _)| *k == kind) else {
                // Reasoning, compaction markers, ghost snapshots, and item types newer than
                // this reader: nothing to lint.
                return;
            };
            let args = match item.action {
                Some(v @ Value::Object(_)) => Args::Known(v),
                _ => Args::Unknown("a hosted tool call that records no arguments".into()),
            };
            let at = push_call(
                raw,
                cur,
                ptr,
                call_id.clone(),
                (*name).to_owned(),
                args,
                None,
                out,
            );
            // The provider ran it; only its status is recorded.
            let status = match item.status.as_deref() {
                Some("completed") => ResultStatus::Ok,
                Some("failed" | "incomplete") => ResultStatus::Error,
                _ => return,
            };
            let mut result = ToolResult::new(call_id, Value::Null, status);
            result.content_recorded = false;
            out.push(StepKind::ToolResult(result), at);
        }
    }
}

/// A namespaced MCP tool's full name, as Codex CLI names MCP tools elsewhere: namespace
/// `mcp__codex_apps__github` and name `_fetch_pr` are `mcp__codex_apps__github_fetch_pr` (the
/// server `codex_apps`, the tool `github_fetch_pr`, as its `mcp_tool_call_end` says). Other
/// namespaces leave the name as recorded.
fn qualified(namespace: Option<String>, name: String) -> String {
    match namespace {
        Some(ns) if ns.starts_with("mcp__") && name.starts_with('_') => format!("{ns}{name}"),
        Some(ns) if ns.starts_with("mcp__") => format!("{ns}__{name}"),
        _ => name,
    }
}

#[allow(clippy::too_many_arguments)]
fn push_call(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    call_id: Option<String>,
    name: String,
    args: Args,
    raw_args: Option<String>,
    out: &mut Collected,
) -> crate::model::Location {
    let at = cur.step(
        raw,
        &[call_id.as_deref().unwrap_or(""), &name],
        ptr.to_owned(),
    );
    out.push(
        StepKind::ToolCall(ToolCall {
            call_id,
            name,
            args,
            raw_args,
            origin: CallOrigin::Model,
        }),
        at.clone(),
    );
    at
}

/// A function output in any of its shapes: a string (plain text, or the older shell tools'
/// JSON `{"output", "metadata": {"exit_code"}}`), an array of content items, or an object with
/// `content` and a `success` flag.
fn output_result(call_id: Option<String>, output: Option<Value>) -> ToolResult {
    let mut verdict = None;
    let content = match output {
        Some(Value::String(s)) => {
            verdict = exit_metadata(&s).or_else(|| router_refusal(&s));
            Value::String(s)
        }
        Some(Value::Object(mut o)) => {
            verdict = match o.get("success") {
                Some(Value::Bool(true)) => Some((ResultStatus::Ok, None)),
                Some(Value::Bool(false)) => Some((ResultStatus::Error, None)),
                _ => None,
            };
            match o.remove("content") {
                Some(c) if o.contains_key("success") || o.is_empty() => {
                    content::result_content(Some(c))
                }
                Some(c) => {
                    o.insert("content".into(), c);
                    Value::Object(o)
                }
                None => Value::Object(o),
            }
        }
        other => content::result_content(other),
    };
    let mut result = ToolResult::new(call_id, content, ResultStatus::Unknown);
    if let Some((status, error)) = verdict {
        result.status = status;
        result.error = error;
    }
    result
}

/// The structured exit status inside an older shell tool's JSON output
/// (`{"output": …, "metadata": {"exit_code": N, …}}`).
fn exit_metadata(text: &str) -> Option<(ResultStatus, Option<String>)> {
    if !text.trim_start().starts_with('{') || !text.contains("\"metadata\"") {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let code = v.get("metadata")?.get("exit_code")?.as_i64()?;
    Some(exit_verdict(code))
}

/// The answer Codex's tool router itself writes for a call it has no handler for
/// (`unsupported call: NAME`, `unsupported custom tool call: NAME`): the call was never run, so
/// the result is an error, whatever the name.
fn router_refusal(text: &str) -> Option<(ResultStatus, Option<String>)> {
    let refused = text.starts_with("unsupported call:")
        || text.starts_with("unsupported custom tool call:");
    refused.then(|| {
        let line: String = text.lines().next().unwrap_or(text).chars().take(200).collect();
        (ResultStatus::Error, Some(line))
    })
}

fn exit_verdict(code: i64) -> (ResultStatus, Option<String>) {
    if code == 0 {
        (ResultStatus::Ok, None)
    } else {
        (ResultStatus::Error, Some(format!("exit code {code}")))
    }
}

/// An `event_msg` payload's fields read here.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    call_id: Option<Value>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    stderr: Option<String>,
    #[serde(default)]
    invocation: Option<Invocation>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    item: Option<Value>,
}

#[derive(Deserialize)]
struct Invocation {
    #[serde(default)]
    server: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// Read one `event_msg` payload: a structured verdict for a call's result goes to the session;
/// an MCP call the rollout recorded only as its end event becomes a call and a result here.
pub(super) fn read_event(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    calls: &HashSet<String>,
    session: &mut Session,
    out: &mut Collected,
) {
    let Ok(ev) = serde_json::from_str::<Event>(raw.get()) else {
        return;
    };
    let call_id = id_of(ev.call_id.as_ref());
    let verdict = match ev.kind.as_deref() {
        Some("exec_command_end") => ev.exit_code.map(exit_verdict),
        Some("patch_apply_end") => ev.success.map(|ok| {
            if ok {
                (ResultStatus::Ok, None)
            } else {
                let why = ev.stderr.filter(|s| !s.trim().is_empty());
                (
                    ResultStatus::Error,
                    why.or_else(|| Some("patch not applied".into())),
                )
            }
        }),
        Some("mcp_tool_call_end") => {
            let verdict = mcp_verdict(ev.result.as_ref());
            if let Some(id) = &call_id
                && !calls.contains(id)
                && let Some(inv) = &ev.invocation
            {
                mcp_steps(
                    raw,
                    cur,
                    ptr,
                    id,
                    inv,
                    ev.result.as_ref(),
                    verdict.clone(),
                    out,
                );
            }
            verdict
        }
        Some("item_completed") => {
            let item = ev.item.as_ref();
            let id = item.and_then(|i| id_of(i.get("id")));
            if let (Some(id), Some(v)) = (id, item.and_then(item_verdict)) {
                session.verdicts.entry(id).or_insert(Verdict {
                    status: v.0,
                    error: v.1,
                });
            }
            None
        }
        _ => None,
    };
    if let (Some(id), Some((status, error))) = (call_id, verdict) {
        session
            .verdicts
            .entry(id)
            .or_insert(Verdict { status, error });
    }
}

/// The verdict an `item_completed` event's item gives: a command's `exit_code`, a file
/// change's or MCP call's `status`.
fn item_verdict(item: &Value) -> Option<(ResultStatus, Option<String>)> {
    match item.get("type").and_then(Value::as_str)? {
        "CommandExecution" => item
            .get("exit_code")
            .and_then(Value::as_i64)
            .map(exit_verdict),
        "FileChange" | "McpToolCall" => match item.get("status").and_then(Value::as_str)? {
            "completed" => Some((ResultStatus::Ok, None)),
            "failed" => {
                let why = item
                    .get("error")
                    .and_then(|e| e.as_str().or_else(|| e.get("message")?.as_str()))
                    .map(str::to_owned);
                Some((ResultStatus::Error, why))
            }
            _ => None,
        },
        _ => None,
    }
}

/// An MCP call's outcome: `{"Ok": CallToolResult}` (its `isError` is the server's verdict) or
/// `{"Err": message}`.
fn mcp_verdict(result: Option<&Value>) -> Option<(ResultStatus, Option<String>)> {
    let r = result?;
    if let Some(err) = r.get("Err") {
        let msg = err.as_str().map_or_else(|| err.to_string(), str::to_owned);
        return Some((ResultStatus::Error, Some(msg)));
    }
    match r.get("Ok")?.get("isError") {
        Some(Value::Bool(true)) => Some((ResultStatus::Error, None)),
        Some(Value::Bool(false)) => Some((ResultStatus::Ok, None)),
        _ => None,
    }
}

/// An MCP call known only from its end event: the call (as the tool recorded it) and its
/// result, both located at the event.
#[allow(clippy::too_many_arguments)]
fn mcp_steps(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    id: &str,
    inv: &Invocation,
    result: Option<&Value>,
    verdict: Option<(ResultStatus, Option<String>)>,
    out: &mut Collected,
) {
    let name = match (&inv.server, &inv.tool) {
        (Some(s), Some(t)) => format!("{s}__{t}"),
        (None, Some(t)) => t.clone(),
        _ => return,
    };
    let at = cur.step(raw, &[id], ptr.to_owned());
    out.push(
        StepKind::ToolCall(ToolCall {
            call_id: Some(id.to_owned()),
            name,
            args: content::args_owned(inv.arguments.clone()),
            raw_args: None,
            origin: CallOrigin::ToolRecord,
        }),
        at.clone(),
    );
    let body = result
        .and_then(|r| r.get("Ok").or_else(|| r.get("Err")))
        .cloned();
    let recorded = body.is_some();
    let body = match body {
        Some(Value::Object(mut o)) => content::result_content(o.remove("content")),
        other => content::result_content(other),
    };
    let mut r = ToolResult::new(Some(id.to_owned()), body, ResultStatus::Unknown);
    r.content_recorded = recorded;
    if let Some((status, error)) = verdict {
        r.status = status;
        r.error = error;
    }
    out.push(StepKind::ToolResult(r), at);
}
