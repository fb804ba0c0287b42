//! One OpenAI Responses API item → steps: `message` items (through `chat.rs`), `function_call`
//! / `function_call_output` joined by `call_id` (not the `fc_…` item `id`), custom tool calls,
//! and `mcp_call` items, whose `error` is the one structured error signal the format has.
//! Reasoning and built-in tool items (`web_search_call`, …) are read past.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{Args, CallOrigin, ResultStatus, StepKind, ToolCall, ToolResult};

use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::Cursor;
use super::chat::{self, Legacy};

/// Item types this reader turns into steps.
pub const ITEM_TYPES: &[&str] = &[
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "mcp_call",
    "reasoning",
];

#[derive(Deserialize)]
struct ItemRaw<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    call_id: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

/// Read one Responses item (a `message` item or a role-only input message goes to `chat.rs`).
pub fn read_item(
    raw: &RawValue,
    cur: &Cursor<'_>,
    pointer: &str,
    legacy: &mut Legacy,
    out: &mut Collected,
) {
    let item: ItemRaw<'_> = match serde_json::from_str(raw.get()) {
        Ok(i) => i,
        Err(_) => {
            out.problem(cur.at(raw, pointer.to_owned()), "an item must be an object");
            return;
        }
    };
    let call_id = id_of(item.call_id.as_ref()).or_else(|| id_of(item.id.as_ref()));
    match item.kind.as_deref() {
        Some("message") | None => chat::read_message(raw, cur, pointer, legacy, out),
        Some(kind @ ("function_call" | "custom_tool_call" | "mcp_call")) => {
            let Some(Value::String(name)) = item.name else {
                out.problem(
                    cur.at(raw, pointer.to_owned()),
                    format!("a `{kind}` item needs a string `name`"),
                );
                return;
            };
            let (args, raw_args) = if kind == "custom_tool_call" {
                let why = "a custom tool's free-form input, not JSON arguments";
                (Args::Unknown(why.into()), None)
            } else {
                chat::arguments(item.arguments)
            };
            let at = cur.step(
                raw,
                &[call_id.as_deref().unwrap_or(""), &name],
                pointer.to_owned(),
            );
            out.push(
                StepKind::ToolCall(ToolCall {
                    call_id: call_id.clone(),
                    name,
                    args,
                    raw_args,
                    origin: CallOrigin::Model,
                }),
                at.clone(),
            );
            // An MCP call item carries its own outcome.
            if kind == "mcp_call" && (item.output.is_some() || item.error.is_some()) {
                let error = match item.error {
                    Some(Value::Null) | None => None,
                    Some(Value::String(s)) => Some(s),
                    Some(other) => Some(other.to_string()),
                };
                let status = if error.is_some() {
                    ResultStatus::Error
                } else {
                    ResultStatus::Unknown
                };
                let mut result =
                    ToolResult::new(call_id, content::result_content(item.output), status);
                result.error = error;
                out.push(StepKind::ToolResult(result), at);
            }
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let at = cur.step(raw, &[call_id.as_deref().unwrap_or("")], pointer.to_owned());
            let recorded = item.output.is_some();
            let mut result = ToolResult::new(
                call_id,
                content::result_content(item.output),
                ResultStatus::Unknown,
            );
            result.content_recorded = recorded;
            out.push(StepKind::ToolResult(result), at);
        }
        // Reasoning, built-in tools (web/file search, computer, code interpreter), and item types
        // newer than this reader: nothing to lint.
        Some(_) => {}
    }
}
