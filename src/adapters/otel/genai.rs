//! OTel GenAI semantic conventions and the framework dialects that ride on OTel: GenAI
//! `gen_ai.input.messages` / `gen_ai.output.messages` / `gen_ai.system_instructions` (JSON
//! strings or values), the deprecated `gen_ai.prompt` / `gen_ai.completion` strings, tool
//! definitions, and the Vercel AI SDK's `ai.prompt*` / `ai.response.*` attributes. Messages end
//! in `chat`'s form; what a span is (LLM, tool, other) is decided in `read`.

use serde_json::Value;

use crate::adapters::common::chat::{self, ChatMessage, Conversation, Side, ToolDef, decode_json_string};
use crate::model::Role;

use super::attrs::Attrs;

/// A value that may be JSON written as a string.
pub fn json_attr(attrs: &Attrs, key: &str) -> Option<Value> {
    match attrs.get(key)? {
        Value::String(s) => Some(decode_json_string(s).unwrap_or_else(|| Value::String(s.clone()))),
        Value::Null => None,
        other => Some(other.clone()),
    }
}

/// The GenAI input messages, system instructions first.
pub fn input_messages(attrs: &Attrs) -> Option<Conversation> {
    let messages = json_attr(attrs, "gen_ai.input.messages")?;
    let mut conv = Conversation::default();
    if let Some(sys) = json_attr(attrs, "gen_ai.system_instructions") {
        let text = match &sys {
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| {
                    p.get("content")
                        .or_else(|| p.get("text"))
                        .and_then(Value::as_str)
                })
                .collect::<Vec<_>>()
                .join("\n"),
            other => chat::value_text(other),
        };
        if !text.is_empty() {
            conv.messages.push(ChatMessage {
                role: Role::System,
                text,
                calls: Vec::new(),
                results: Vec::new(),
            });
        }
    }
    let read = chat::read(&messages, Side::Input);
    conv.messages.extend(read.messages);
    conv.tools.extend(read.tools);
    Some(conv)
}

/// The GenAI output messages.
pub fn output_messages(attrs: &Attrs) -> Option<Conversation> {
    json_attr(attrs, "gen_ai.output.messages").map(|v| chat::read(&v, Side::Output))
}

/// Deprecated whole-conversation strings (`gen_ai.prompt`, `gen_ai.completion`).
pub fn deprecated(attrs: &Attrs, key: &str, side: Side) -> Option<Conversation> {
    json_attr(attrs, key).map(|v| chat::read(&v, side))
}

/// Tool definitions a GenAI or Vercel span offered.
pub fn offered_tools(attrs: &Attrs) -> Vec<ToolDef> {
    ["gen_ai.tool.definitions", "ai.prompt.tools"]
        .iter()
        .filter_map(|k| attrs.get(*k))
        .flat_map(chat::tool_defs)
        .collect()
}

/// The Vercel AI SDK's prompt (`ai.prompt.messages`, else `ai.prompt`).
pub fn vercel_input(attrs: &Attrs) -> Option<Conversation> {
    json_attr(attrs, "ai.prompt.messages")
        .or_else(|| json_attr(attrs, "ai.prompt"))
        .map(|v| chat::read(&v, Side::Input))
}

/// The Vercel AI SDK's reply: `ai.response.text` (or `.object`) and `ai.response.toolCalls`.
pub fn vercel_output(attrs: &Attrs) -> Option<Conversation> {
    let text = attrs
        .get("ai.response.text")
        .or_else(|| attrs.get("ai.response.object"))
        .map(chat::value_text);
    let calls = json_attr(attrs, "ai.response.toolCalls");
    if text.is_none() && calls.is_none() {
        return None;
    }
    let mut conv = Conversation::default();
    let mut msg = ChatMessage {
        role: Role::Assistant,
        text: text.unwrap_or_default(),
        calls: Vec::new(),
        results: Vec::new(),
    };
    if let Some(calls) = calls {
        for m in chat::read(&calls, Side::Output).messages {
            msg.calls.extend(m.calls);
        }
    }
    conv.messages.push(msg);
    Some(conv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::otel::attrs;
    use crate::model::Args;
    use serde_json::json;

    #[test]
    fn genai_messages_with_system_instructions() {
        let a = attrs::read(Some(&json!({
            "gen_ai.system_instructions": "[{\"type\": \"text\", \"content\": \"be kind\"}]",
            "gen_ai.input.messages": "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Weather in Paris?\"}]}]",
            "gen_ai.output.messages": "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"1\",\"name\":\"w\",\"arguments\":{\"l\":\"Paris\"}}]}]"
        })));
        let input = input_messages(&a).unwrap();
        let texts: Vec<_> = input
            .messages
            .iter()
            .map(|m| (m.role, m.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [(Role::System, "be kind"), (Role::User, "Weather in Paris?")]
        );
        let out = output_messages(&a).unwrap();
        assert_eq!(
            out.messages[0].calls[0].args,
            Args::Known(json!({"l": "Paris"}))
        );
    }

    #[test]
    fn vercel_reply_with_tool_calls() {
        let a = attrs::read(Some(&json!({
            "ai.response.text": "",
            "ai.response.toolCalls": "[{\"toolCallType\":\"function\",\"toolCallId\":\"c\",\"toolName\":\"w\",\"args\":\"{\\\"x\\\":1}\"}]"
        })));
        let out = vercel_output(&a).unwrap();
        assert_eq!(out.messages[0].calls[0].id.as_deref(), Some("c"));
        assert_eq!(out.messages[0].calls[0].args, Args::Known(json!({"x": 1})));
    }
}
