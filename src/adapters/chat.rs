//! Provider-shaped chat messages → one neutral form, for the adapters that find conversations
//! inside observability records (Langfuse generations, OTel LLM spans). Reads OpenAI chat and
//! Responses items, Anthropic content blocks, Gemini `contents`/`parts`, OTel GenAI `parts`,
//! LangChain message dicts (plain and serialized), Vercel AI SDK prompts and tool-call lists,
//! and double-encoded JSON strings of any of these. It owns no trace logic: what becomes a step
//! is decided by `assemble`.

use serde_json::{Map, Value};

use crate::model::{Args, Role, SchemaSource, ToolSpec};

use super::args;

/// One message, whatever shape it came in.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    /// Who wrote it (a Gemini `model` is the assistant, a LangChain `human` the user).
    pub role: Role,
    /// Its text parts, joined with newlines (empty for a call-only turn).
    pub text: String,
    /// Tool calls the message carries (an assistant's requests).
    pub calls: Vec<EmittedCall>,
    /// Tool results the message carries (a `tool` message, Anthropic `tool_result` blocks,
    /// Gemini `function_response` parts, GenAI `tool_call_response` parts).
    pub results: Vec<CarriedResult>,
}

/// A tool call as a model emitted it.
#[derive(Debug, Clone, PartialEq)]
pub struct EmittedCall {
    /// The call id, when recorded.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub args: Args,
    /// The argument text, when the arguments came as a string.
    pub raw: Option<String>,
}

/// A tool result carried inside a message.
#[derive(Debug, Clone, PartialEq)]
pub struct CarriedResult {
    /// The id of the call it answers, when recorded.
    pub call_id: Option<String>,
    /// The tool's name, when recorded.
    pub name: Option<String>,
    /// The result as recorded.
    pub content: Value,
    /// The message's own error flag (Anthropic `is_error`), when present.
    pub is_error: Option<bool>,
}

/// A tool a request offered the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The tool's name.
    pub name: String,
    /// Its parameters' JSON Schema, when given.
    pub schema: Option<Value>,
}

impl ToolDef {
    /// The registry entry for a schema the trace carries.
    pub fn to_spec(&self) -> ToolSpec {
        ToolSpec::new(
            self.name.clone(),
            self.schema.clone(),
            SchemaSource(EMBEDDED.to_owned()),
        )
    }
}

/// The schema source of every tool a trace declares itself.
pub const EMBEDDED: &str = "embedded in the trace";

/// A conversation read from one value: its messages and the tools offered with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The messages, in order.
    pub messages: Vec<ChatMessage>,
    /// Tools offered alongside (an OpenAI request's `tools`, Gemini `function_declarations`…).
    pub tools: Vec<ToolDef>,
}

/// Which side of a model call a value records: a bare string is the user's prompt on the input
/// side and the model's reply on the output side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// What the model was sent.
    Input,
    /// What the model answered.
    Output,
}

/// Deepest nesting of wrappers and double-encoded strings followed.
const MAX_DEPTH: usize = 12;

/// Read a conversation from any supported shape; an unrecognised value gives an empty one.
pub fn read(value: &Value, side: Side) -> Conversation {
    let mut out = Conversation::default();
    read_into(value, side, 0, &mut out);
    out
}

/// Decode a string that holds JSON (double-encoded records); `None` when it does not.
pub fn decode_json_string(s: &str) -> Option<Value> {
    let t = s.trim();
    if !(t.starts_with('{') || t.starts_with('[') || t.starts_with('"')) {
        return None;
    }
    serde_json::from_str(t).ok()
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

/// One content part / block of any supported shape.
fn read_part(p: &Value, msg: &mut ChatMessage, texts: &mut Vec<String>) {
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
fn call_of(v: &Value) -> Option<EmittedCall> {
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

/// Tool definitions in any list shape (OpenAI, flat, Anthropic, Gemini `function_declarations`,
/// JSON strings of these, or a map of name → definition).
pub fn tool_defs(v: &Value) -> Vec<ToolDef> {
    let mut out = Vec::new();
    collect_defs(v, None, 0, &mut out);
    out
}

fn collect_defs(v: &Value, key_name: Option<&str>, depth: usize, out: &mut Vec<ToolDef>) {
    if depth > 4 {
        return;
    }
    match v {
        Value::String(s) => {
            if let Some(inner) = decode_json_string(s) {
                collect_defs(&inner, key_name, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for i in items {
                collect_defs(i, None, depth + 1, out);
            }
        }
        Value::Object(o) => {
            if let Some(decls) = o
                .get("function_declarations")
                .or_else(|| o.get("functionDeclarations"))
            {
                return collect_defs(decls, None, depth + 1, out);
            }
            let f = o.get("function").filter(|f| f.is_object()).unwrap_or(v);
            let name = f.get("name").and_then(Value::as_str).or(key_name);
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                if key_name.is_none() && depth == 0 {
                    // A map of name → definition.
                    for (k, def) in o {
                        if def.is_object() {
                            collect_defs(def, Some(k), depth + 1, out);
                        }
                    }
                }
                return;
            };
            let schema = [
                "parameters",
                "input_schema",
                "inputSchema",
                "parameters_json_schema",
                "json_schema",
            ]
            .iter()
            .find_map(|k| f.get(*k))
            .and_then(|s| match s {
                Value::String(text) => decode_json_string(text),
                other => Some(other.clone()),
            })
            .filter(Value::is_object);
            out.push(ToolDef {
                name: name.to_owned(),
                schema,
            });
        }
        _ => {}
    }
}

fn text_message(role: Role, text: String) -> ChatMessage {
    ChatMessage {
        role,
        text,
        calls: Vec::new(),
        results: Vec::new(),
    }
}

fn role_of(s: &str) -> Option<Role> {
    match s.to_ascii_lowercase().as_str() {
        "user" | "human" => Some(Role::User),
        "assistant" | "ai" | "model" | "bot" => Some(Role::Assistant),
        "system" | "developer" => Some(Role::System),
        "tool" | "function" | "ipython" => Some(Role::Tool),
        _ => None,
    }
}

/// Text of a Gemini `parts` list (or any list of `{text}` parts).
fn parts_text(v: &Value) -> String {
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
fn langchain_serialized(m: &Map<String, Value>) -> Option<&Map<String, Value>> {
    (m.get("lc").is_some() && m.get("type").and_then(Value::as_str) == Some("constructor"))
        .then(|| m.get("kwargs").and_then(Value::as_object))
        .flatten()
}

/// The LangChain message type of a serialized object's class (`HumanMessage` → `human`).
fn lc_class(m: &Map<String, Value>) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roles_and_text(c: &Conversation) -> Vec<(Role, &str)> {
        c.messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect()
    }

    #[test]
    fn openai_chat_with_tool_calls_and_results() {
        let v = json!({"messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"}
        ], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]});
        let c = read(&v, Side::Input);
        assert_eq!(
            roles_and_text(&c),
            [
                (Role::System, "be brief"),
                (Role::User, "hi"),
                (Role::Assistant, ""),
                (Role::Tool, "done")
            ]
        );
        let call = &c.messages[2].calls[0];
        assert_eq!(call.id.as_deref(), Some("c1"));
        assert_eq!(call.args, Args::Known(json!({"a": 1})));
        assert_eq!(call.raw.as_deref(), Some("{\"a\": 1}"));
        assert_eq!(c.messages[3].results[0].call_id.as_deref(), Some("c1"));
        assert_eq!(c.tools[0].name, "f");
    }

    #[test]
    fn double_encoded_anthropic_blocks() {
        let inner = json!({"role": "assistant", "content": [
            {"type": "text", "text": "checking"},
            {"type": "tool_use", "id": "toolu_1", "name": "get", "input": {"city": "Berlin"}}]});
        let c = read(&Value::String(inner.to_string()), Side::Output);
        assert_eq!(roles_and_text(&c), [(Role::Assistant, "checking")]);
        assert_eq!(
            c.messages[0].calls[0].args,
            Args::Known(json!({"city": "Berlin"}))
        );
    }

    #[test]
    fn gemini_request_and_response() {
        let req = json!({"model": "g", "config": {"system_instruction": "greet",
            "tools": [{"function_declarations": [{"name": "say_hello"}]}]},
            "contents": [{"role": "user", "parts": [{"text": "hi"}]},
                         {"role": "model", "parts": [{"function_call": {"args": {}, "name": "say_hello"}}]},
                         {"role": "user", "parts": [{"function_response": {"name": "say_hello", "response": {"g": "hello"}}}]}]});
        let c = read(&req, Side::Input);
        assert_eq!(
            roles_and_text(&c),
            [
                (Role::System, "greet"),
                (Role::User, "hi"),
                (Role::Assistant, ""),
                (Role::User, "{\"g\":\"hello\"}")
            ]
        );
        assert_eq!(c.messages[3].results[0].name.as_deref(), Some("say_hello"));
        assert_eq!(
            c.tools,
            [ToolDef {
                name: "say_hello".into(),
                schema: None
            }]
        );
        let resp = json!({"content": {"parts": [{"text": "Hello!"}], "role": "model"}, "finish_reason": "STOP"});
        assert_eq!(
            roles_and_text(&read(&resp, Side::Output)),
            [(Role::Assistant, "Hello!")]
        );
    }

    #[test]
    fn genai_parts_responses_items_and_vercel_lists() {
        let genai = json!([{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c", "response": "sunny"}]}]);
        let c = read(&genai, Side::Input);
        assert_eq!(roles_and_text(&c), [(Role::Tool, "sunny")]);
        assert_eq!(c.messages[0].results[0].call_id.as_deref(), Some("c"));

        let responses = json!({"object": "response", "output": [
            {"type": "function_call", "call_id": "call_1", "id": "fc_1", "name": "w", "arguments": "{\"city\":\"Tokyo\"}"}],
            "tools": [{"type": "function", "name": "w", "parameters": {"type": "object"}}]});
        let c = read(&responses, Side::Output);
        assert_eq!(c.messages[0].calls[0].id.as_deref(), Some("call_1"));
        assert_eq!(c.tools[0].name, "w");

        let vercel = json!([{"toolCallId": "a", "toolName": "w", "input": "{\"x\":1}"},
                            {"toolCallId": "b", "toolName": "w", "input": "{\"x\":2}"}]);
        let c = read(&vercel, Side::Output);
        assert_eq!(c.messages.len(), 1);
        assert_eq!(c.messages[0].calls.len(), 2);
    }

    #[test]
    fn langchain_messages_and_tool_definitions_as_messages() {
        let v = json!([
            {"role": "user", "content": "q"},
            {"role": "tool", "content": {"type": "function", "function": {"name": "Web-Search", "parameters": {"type": "object"}}}},
            {"content": "", "type": "ai", "additional_kwargs": {"tool_calls": [
                {"id": "c", "function": {"arguments": "{\"query\":\"x\"}", "name": "Web-Search"}, "type": "function"}]}},
            {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
             "kwargs": {"content": "r", "tool_call_id": "c", "status": "error"}}
        ]);
        let c = read(&v, Side::Input);
        assert_eq!(
            roles_and_text(&c),
            [(Role::User, "q"), (Role::Assistant, ""), (Role::Tool, "r")]
        );
        assert_eq!(c.tools[0].name, "Web-Search");
        assert_eq!(c.messages[1].calls[0].name, "Web-Search");
        assert_eq!(c.messages[2].results[0].is_error, Some(true));
    }

    #[test]
    fn plain_strings_and_unknown_values() {
        assert_eq!(
            roles_and_text(&read(&json!("hello"), Side::Input)),
            [(Role::User, "hello")]
        );
        assert_eq!(
            roles_and_text(&read(&json!({"prompt": "p"}), Side::Input)),
            [(Role::User, "p")]
        );
        assert!(read(&json!({"foo": 1}), Side::Input).messages.is_empty());
        assert!(read(&json!(42), Side::Input).messages.is_empty());
    }

    #[test]
    fn missing_arguments_are_unknown_not_empty() {
        let c = emitted(None, "f", None);
        assert!(matches!(c.args, Args::Unknown(_)));
        let c = emitted(Some(String::new()), "f", Some(&json!("")));
        assert_eq!(c.args, Args::Known(json!({})));
        assert_eq!(c.id, None);
    }
}
