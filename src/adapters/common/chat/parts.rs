//! Message parts and the small readers `chat` builds on: content blocks of every provider
//! (text, tool calls, tool results), call lists, ids, text of values, LangChain serialization.

use serde_json::{Map, Value};

use crate::adapters::common::args;
use crate::model::{Args, Role};

use super::{CarriedResult, ChatMessage, EmittedCall, decode_json_string};

/// One content part / block of any supported shape.
pub(super) fn read_part(p: &Value, msg: &mut ChatMessage, texts: &mut Vec<String>) {
    let Some(o) = p.as_object() else {
        if let Value::String(s) = p {
            texts.push(s.clone());
        }
        return;
    };
    let kind = o.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "text" | "input_text" | "output_text" => {
            if let Some(t) = o
                .get("text")
                .or_else(|| o.get("content"))
                .and_then(Value::as_str)
            {
                texts.push(t.to_owned());
            }
        }
        // Anthropic `tool_use`, GenAI `tool_call`, Vercel `tool-call`.
        "tool_use" | "tool_call" | "tool-call" | "function_call" => {
            let name = o
                .get("name")
                .or_else(|| o.get("toolName"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let id = str_of(o.get("id"))
                .or_else(|| str_of(o.get("toolCallId")))
                .or_else(|| str_of(o.get("call_id")));
            let input = o
                .get("input")
                .or_else(|| o.get("arguments"))
                .or_else(|| o.get("args"));
            msg.calls.push(emitted(id, name, input));
        }
        "tool_result" | "tool_call_response" | "tool-result" | "function_call_output" => {
            let content = o
                .get("content")
                .or_else(|| o.get("response"))
                .or_else(|| o.get("result"))
                .or_else(|| o.get("output"))
                .cloned()
                .unwrap_or(Value::Null);
            texts.push(value_text(&content));
            msg.results.push(CarriedResult {
                call_id: str_of(o.get("tool_use_id"))
                    .or_else(|| str_of(o.get("id")))
                    .or_else(|| str_of(o.get("toolCallId")))
                    .or_else(|| str_of(o.get("call_id"))),
                name: str_of(o.get("toolName")).or_else(|| str_of(o.get("name"))),
                content,
                is_error: o.get("is_error").and_then(Value::as_bool),
            });
        }
        "reasoning" | "thinking" | "redacted_thinking" => {}
        _ => {
            // Gemini parts carry no `type`: `{text}`, `{function_call}`, `{function_response}`.
            if let Some(t) = o.get("text").and_then(Value::as_str) {
                texts.push(t.to_owned());
            } else if let Some(fc) = o.get("function_call").or_else(|| o.get("functionCall")) {
                let name = fc.get("name").and_then(Value::as_str).unwrap_or_default();
                msg.calls
                    .push(emitted(str_of(fc.get("id")), name, fc.get("args")));
            } else if let Some(fr) = o
                .get("function_response")
                .or_else(|| o.get("functionResponse"))
            {
                let content = fr.get("response").cloned().unwrap_or(Value::Null);
                texts.push(value_text(&content));
                msg.results.push(CarriedResult {
                    call_id: str_of(fr.get("id")),
                    name: str_of(fr.get("name")),
                    content,
                    is_error: None,
                });
            }
        }
    }
}

/// A tool call in any list shape: OpenAI `{id, function: {name, arguments}}`, LangChain
/// `{id, name, args}`, flat `{id, name, arguments}`, or a JSON string of one of these (Langfuse
/// `toolCalls`).
pub(super) fn call_of(v: &Value) -> Option<EmittedCall> {
    if let Value::String(s) = v {
        return decode_json_string(s).as_ref().and_then(call_of);
    }
    let o = v.as_object()?;
    let f = o.get("function").filter(|f| f.is_object()).unwrap_or(v);
    let name = f.get("name").and_then(Value::as_str)?;
    let input = f
        .get("arguments")
        .or_else(|| o.get("args"))
        .or_else(|| o.get("input"))
        .or_else(|| o.get("arguments"));
    Some(emitted(str_of(o.get("id")), name, input))
}

/// A call with its arguments read the one way every adapter reads them.
pub fn emitted(id: Option<String>, name: &str, input: Option<&Value>) -> EmittedCall {
    let (args, raw) = match input {
        Some(Value::String(s)) => (args::from_text(s), Some(s.clone())),
        Some(v @ Value::Object(_)) => (Args::Known(v.clone()), None),
        Some(Value::Null) => (Args::Unknown("not recorded".into()), None),
        None => (Args::Unknown("the call records no arguments".into()), None),
        Some(other) => (args::from_value(Some(other)), None),
    };
    EmittedCall {
        id: id.filter(|i| !i.is_empty()),
        name: name.to_owned(),
        args,
        raw,
    }
}

pub(super) fn text_message(role: Role, text: String) -> ChatMessage {
    ChatMessage {
        role,
        text,
        calls: Vec::new(),
        results: Vec::new(),
    }
}

pub(super) fn role_of(s: &str) -> Option<Role> {
    match s.to_ascii_lowercase().as_str() {
        "user" | "human" => Some(Role::User),
        "assistant" | "ai" | "model" | "bot" => Some(Role::Assistant),
        "system" | "developer" => Some(Role::System),
        "tool" | "function" | "ipython" => Some(Role::Tool),
        _ => None,
    }
}

/// Text of a Gemini `parts` list (or any list of `{text}` parts).
pub(super) fn parts_text(v: &Value) -> String {
    let mut msg = text_message(Role::System, String::new());
    let mut texts = Vec::new();
    match v {
        Value::Array(parts) => parts
            .iter()
            .for_each(|p| read_part(p, &mut msg, &mut texts)),
        other => read_part(other, &mut msg, &mut texts),
    }
    texts.join("\n")
}

/// A value's text: a string itself, text blocks joined, anything else as compact JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.get("text").is_some_and(Value::is_string)) =>
        {
            items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        }
        other => other.to_string(),
    }
}

/// An id written as a string or a number.
pub fn str_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The `kwargs` of a LangChain serialized object (`{"lc": 1, "type": "constructor", …}`).
pub(super) fn langchain_serialized(m: &Map<String, Value>) -> Option<&Map<String, Value>> {
    (m.get("lc").is_some() && m.get("type").and_then(Value::as_str) == Some("constructor"))
        .then(|| m.get("kwargs").and_then(Value::as_object))
        .flatten()
}

/// The LangChain message type of a serialized object's class (`HumanMessage` → `human`).
pub(super) fn lc_class(m: &Map<String, Value>) -> Option<String> {
    let class = m.get("id")?.as_array()?.last()?.as_str()?;
    Some(
        match class {
            "HumanMessage" | "HumanMessageChunk" => "human",
            "AIMessage" | "AIMessageChunk" => "ai",
            "SystemMessage" => "system",
            "ToolMessage" => "tool",
            "FunctionMessage" => "function",
            _ => return None,
        }
        .to_owned(),
    )
}
