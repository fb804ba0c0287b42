//! Provider-shaped chat messages → one neutral form, for the adapters that find conversations
//! inside observability records (Langfuse generations, OTel LLM spans). Reads OpenAI chat and
//! Responses items, Anthropic content blocks, Gemini `contents`/`parts`, OTel GenAI `parts`,
//! LangChain message dicts (plain and serialized), Vercel AI SDK prompts and tool-call lists,
//! and double-encoded JSON strings of any of these. It owns no trace logic: what becomes a step
//! is decided by `assemble`.

use serde_json::{Map, Value};

use crate::model::Role;

/// Deepest nesting of wrappers and double-encoded strings followed.
const MAX_DEPTH: usize = 12;

/// A conversation read from one value: its messages and the tools offered with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The messages, in order.
    pub messages: Vec<ChatMessage>,
    /// Tools offered alongside (an OpenAI request's `tools`, Gemini `function_declarations`…).
    pub tools: Vec<ToolDef>,
}

/// Read a conversation from any supported shape; an unrecognised value gives an empty one.
pub fn read(value: &Value, side: Side) -> Conversation {
    let mut out = Conversation::default();
    read_into(value, side, 0, &mut out);
    out
}

fn read_into(value: &Value, side: Side, depth: usize, out: &mut Conversation) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::String(s) => match decode_json_string(s) {
            Some(inner) => read_into(&inner, side, depth + 1, out),
            None if !s.trim().is_empty() => out.messages.push(text_message(
                match side {
                    Side::Input => Role::User,
                    Side::Output => Role::Assistant,
                },
                s.clone(),
            )),
            None => {}
        },
        Value::Array(items) => read_items(items, side, depth, out),
        Value::Object(m) => read_object(m, side, depth, out),
        _ => {}
    }
}

fn read_items(items: &[Value], side: Side, depth: usize, out: &mut Conversation) {
    for item in items {
        let Some(m) = item.as_object() else {
            read_into(item, side, depth + 1, out);
            continue;
        };
        // Vercel AI SDK result lists: `{toolCallId, toolName, input}` items of one reply.
        if let Some(name) = m.get("toolName").and_then(Value::as_str) {
            let call = emitted(
                str_of(m.get("toolCallId")),
                name,
                m.get("input").or_else(|| m.get("args")),
            );
            match out.messages.last_mut() {
                Some(last) if last.role == Role::Assistant && last.text.is_empty() => {
                    last.calls.push(call);
                }
                _ => {
                    let mut msg = text_message(Role::Assistant, String::new());
                    msg.calls.push(call);
                    out.messages.push(msg);
                }
            }
            continue;
        }
        read_object(m, side, depth + 1, out);
    }
}

fn read_object(m: &Map<String, Value>, side: Side, depth: usize, out: &mut Conversation) {
    // Wrappers around message lists, most specific first.
    if let Some(Value::Array(msgs)) = m.get("messages") {
        out.tools
            .extend(m.get("tools").map(tool_defs).unwrap_or_default());
        if let Some(Value::String(system)) = m.get("system") {
            out.messages
                .push(text_message(Role::System, system.clone()));
        }
        return read_items(msgs, side, depth, out);
    }
    if let Some(Value::Array(contents)) = m.get("contents") {
        // A Gemini request: `config.system_instruction`, `config.tools[].function_declarations`.
        let config = m.get("config").unwrap_or(&Value::Null);
        let system = config
            .get("system_instruction")
            .or_else(|| config.get("systemInstruction"))
            .or_else(|| m.get("system_instruction"));
        if let Some(sys) = system {
            let text = match sys {
                Value::String(s) => s.clone(),
                other => parts_text(other.get("parts").unwrap_or(other)),
            };
            out.messages.push(text_message(Role::System, text));
        }
        out.tools
            .extend(config.get("tools").map(tool_defs).unwrap_or_default());
        return read_items(contents, side, depth, out);
    }
    if let Some(Value::Object(content)) = m.get("content")
        && (content.contains_key("parts") || content.contains_key("role"))
    {
        // A Gemini / ADK response: `{content: {role, parts}, finish_reason}`.
        return read_object(content, side, depth + 1, out);
    }
    if let Some(Value::Array(cands)) = m.get("candidates") {
        if let Some(first) = cands.first() {
            read_into(first, side, depth + 1, out);
        }
        return;
    }
    if let Some(Value::Array(choices)) = m.get("choices") {
        for c in choices {
            if let Some(msg) = c.get("message").or_else(|| c.get("delta")) {
                read_into(msg, Side::Output, depth + 1, out);
            }
        }
        return;
    }
    if m.get("object").and_then(Value::as_str) == Some("response")
        && let Some(Value::Array(items)) = m.get("output")
    {
        // An OpenAI Responses API response: its output items; `tools` were offered.
        out.tools
            .extend(m.get("tools").map(tool_defs).unwrap_or_default());
        return read_items(items, Side::Output, depth, out);
    }
    if let Some(Value::Array(items)) = m.get("input")
        && m.contains_key("model")
    {
        // An OpenAI Responses API request.
        if let Some(Value::String(sys)) = m.get("instructions") {
            out.messages.push(text_message(Role::System, sys.clone()));
        }
        out.tools
            .extend(m.get("tools").map(tool_defs).unwrap_or_default());
        return read_items(items, side, depth, out);
    }
    if let Some(kwargs) = langchain_serialized(m) {
        let class = lc_class(m).unwrap_or_default();
        let mut msg = kwargs.clone();
        msg.entry("type").or_insert_with(|| Value::String(class));
        return read_object(&msg, side, depth + 1, out);
    }
    if message(m, side, out) {
        return;
    }
    // Single-prompt shapes: Vercel `{prompt, system}`, a GenAI completion `{text}`.
    if let Some(Value::String(system)) = m.get("system") {
        out.messages
            .push(text_message(Role::System, system.clone()));
    }
    if let Some(prompt) = m.get("prompt") {
        match prompt {
            Value::String(p) => out.messages.push(text_message(Role::User, p.clone())),
            other => read_into(other, Side::Input, depth + 1, out),
        }
        return;
    }
    if side == Side::Output
        && let Some(Value::String(text)) = m.get("text")
    {
        out.messages
            .push(text_message(Role::Assistant, text.clone()));
    }
}

/// Read one message object of any supported shape into `out`; false when `m` is not a message.
fn message(m: &Map<String, Value>, side: Side, out: &mut Conversation) -> bool {
    let mut split = Vec::new();
    let Some(msg) = one_message(m, side, out, &mut split) else {
        return false;
    };
    // A message with nothing of its own (a tool definition LangChain wrote as a message, a
    // GenAI message of tool responses only) adds nothing itself.
    if !(msg.text.is_empty() && msg.calls.is_empty() && msg.results.is_empty()) {
        out.messages.push(msg);
    }
    out.messages.extend(split);
    true
}

/// One message, or `None` when `m` is not one. GenAI `tool_call_response` parts become their
/// own `tool` messages in `split` (as Langfuse's ChatML reads them).
fn one_message(
    m: &Map<String, Value>,
    side: Side,
    out: &mut Conversation,
    split: &mut Vec<ChatMessage>,
) -> Option<ChatMessage> {
    let kind = m.get("type").and_then(Value::as_str);
    // OpenAI Responses items.
    match kind {
        Some("function_call" | "custom_tool_call") => {
            let mut msg = text_message(Role::Assistant, String::new());
            let id = str_of(m.get("call_id")).or_else(|| str_of(m.get("id")));
            let name = m.get("name").and_then(Value::as_str).unwrap_or_default();
            msg.calls.push(emitted(
                id,
                name,
                m.get("arguments").or_else(|| m.get("input")),
            ));
            return Some(msg);
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            let content = m.get("output").cloned().unwrap_or(Value::Null);
            let mut msg = text_message(Role::Tool, value_text(&content));
            msg.results.push(CarriedResult {
                call_id: str_of(m.get("call_id")),
                name: None,
                content,
                is_error: None,
            });
            return Some(msg);
        }
        Some("reasoning") => return None,
        _ => {}
    }
    let role_text = m
        .get("role")
        .and_then(Value::as_str)
        .or(kind.filter(|k| matches!(*k, "human" | "ai" | "system" | "tool" | "function")))
        .or_else(|| {
            (m.contains_key("parts") || m.contains_key("content"))
                .then_some(match side {
                    Side::Input => "user",
                    Side::Output => "assistant",
                })
                .filter(|_| m.contains_key("parts"))
        })?;
    let role = role_of(role_text)?;
    // LangChain writes tool definitions as `tool` messages whose content is the definition.
    if role == Role::Tool
        && let Some(content @ Value::Object(c)) = m.get("content")
        && c.get("type").and_then(Value::as_str) == Some("function")
    {
        out.tools
            .extend(tool_defs(&Value::Array(vec![content.clone()])));
        return Some(text_message(Role::Tool, String::new()));
    }
    let mut msg = text_message(role, String::new());
    let body = m.get("content").or_else(|| m.get("parts"));
    let mut texts = Vec::new();
    match body {
        Some(Value::String(s)) => texts.push(s.clone()),
        Some(Value::Array(parts)) => {
            for p in parts {
                if p.get("type").and_then(Value::as_str) == Some("tool_call_response") {
                    let mut own = text_message(Role::Tool, String::new());
                    let mut own_text = Vec::new();
                    read_part(p, &mut own, &mut own_text);
                    own.text = own_text.join("\n");
                    split.push(own);
                } else {
                    read_part(p, &mut msg, &mut texts);
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => texts.push(value_text(other)),
    }
    msg.text = texts.join("\n");
    let kwargs = m.get("additional_kwargs");
    let calls = m
        .get("tool_calls")
        .filter(|c| c.as_array().is_some_and(|a| !a.is_empty()))
        .or_else(|| kwargs.and_then(|k| k.get("tool_calls")));
    if let Some(Value::Array(calls)) = calls {
        msg.calls.extend(calls.iter().filter_map(call_of));
    }
    if let Some(fc) = m
        .get("function_call")
        .or_else(|| kwargs.and_then(|k| k.get("function_call")))
        .filter(|v| v.is_object())
    {
        msg.calls.extend(call_of(fc));
    }
    if role == Role::Tool && msg.results.is_empty() && split.is_empty() {
        let content = match body {
            Some(Value::String(s)) => Value::String(s.clone()),
            Some(other) => other.clone(),
            None => Value::Null,
        };
        msg.results.push(CarriedResult {
            call_id: str_of(m.get("tool_call_id")).or_else(|| str_of(m.get("id"))),
            name: str_of(m.get("name")),
            content,
            is_error: (m.get("status").and_then(Value::as_str) == Some("error")).then_some(true),
        });
    }
    Some(msg)
}

mod parts;
mod tools;
mod message;

pub use parts::{emitted, str_of, value_text};
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use tools::{EMBEDDED, ToolDef, tool_defs};

use parts::{
    call_of, langchain_serialized, lc_class, parts_text, read_part, role_of, text_message,
};
pub use message::{CarriedResult, ChatMessage, EmittedCall, Side, decode_json_string};

#[cfg(test)]
mod tests;
