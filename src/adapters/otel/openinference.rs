//! OpenInference attributes: flattened message lists (`llm.input_messages.N.message.role`,
//! `…message.contents.K.message_content.text`, `…message.tool_calls.M.tool_call.function.*`,
//! `…message.tool_call_id`), offered tools (`llm.tools.N.tool.json_schema`) and a TOOL span's
//! declared parameters (`tool.parameters`, as a JSON string or flattened). The flattened
//! messages are rebuilt as OpenAI-shaped JSON and read by `chat`, so every dialect ends in one
//! message form.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::adapters::common::chat::{self, ChatMessage, Side, ToolDef, decode_json_string};

use super::attrs::{Attrs, indexed, sub_indexed, unflatten};

/// Messages under a flattened list prefix (`llm.input_messages`, or the legacy OpenLLMetry
/// `gen_ai.prompt` / `gen_ai.completion`, whose groups use `role`, `content`, `tool_calls.M.*`).
pub fn messages(attrs: &Attrs, prefix: &str, side: Side) -> Vec<ChatMessage> {
    let groups = indexed(attrs, prefix);
    if groups.is_empty() {
        return Vec::new();
    }
    let list: Vec<Value> = groups.iter().map(message_value).collect();
    chat::read(&Value::Array(list), side).messages
}

fn message_value(g: &BTreeMap<&str, &Value>) -> Value {
    // OpenInference nests under `message.`; legacy OpenLLMetry does not.
    let (p, call_prefix) = if g.keys().any(|k| k.starts_with("message.")) {
        ("message.", "tool_call.")
    } else {
        ("", "")
    };
    let get = |k: &str| g.get(format!("{p}{k}").as_str()).copied();
    let mut m = Map::new();
    if let Some(role) = get("role") {
        m.insert("role".into(), role.clone());
    }
    let mut parts: Vec<Value> = Vec::new();
    for c in sub_indexed(g, &format!("{p}contents")) {
        let kind = c
            .get("message_content.type")
            .and_then(|v| v.as_str())
            .unwrap_or("text");
        match kind {
            "text" => {
                if let Some(t) = c.get("message_content.text") {
                    parts.push(serde_json::json!({"type": "text", "text": t}));
                }
            }
            "tool_use" | "tool_call" => parts.push(serde_json::json!({
                "type": "tool_call",
                "id": c.get("tool_call.id").copied().cloned().unwrap_or(Value::Null),
                "name": c.get("tool_call.function.name").copied().cloned().unwrap_or(Value::Null),
                "arguments": c.get("tool_call.function.arguments").copied().cloned().unwrap_or(Value::Null),
            })),
            _ => {}
        }
    }
    match (get("content"), parts.is_empty()) {
        (Some(content), true) => {
            m.insert("content".into(), content.clone());
        }
        (content, false) => {
            if let Some(Value::String(s)) = content {
                parts.insert(0, serde_json::json!({"type": "text", "text": s}));
            }
            m.insert("content".into(), Value::Array(parts));
        }
        (None, true) => {}
    }
    let calls: Vec<Value> = sub_indexed(g, &format!("{p}tool_calls"))
        .iter()
        .map(|c| {
            let f = |k: &str| {
                c.get(format!("{call_prefix}{k}").as_str())
                    .copied()
                    .cloned()
            };
            let mut function = Map::new();
            if let Some(name) = f("function.name").or_else(|| f("name")) {
                function.insert("name".into(), name);
            }
            if let Some(args) = f("function.arguments").or_else(|| f("arguments")) {
                function.insert("arguments".into(), args);
            }
            let mut call = Map::new();
            if let Some(id) = f("id") {
                call.insert("id".into(), id);
            }
            call.insert("function".into(), Value::Object(function));
            Value::Object(call)
        })
        .collect();
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    for (key, out) in [("tool_call_id", "tool_call_id"), ("name", "name")] {
        if let Some(v) = get(key) {
            m.insert(out.into(), v.clone());
        }
    }
    Value::Object(m)
}

/// Tools an LLM span offered: `llm.tools.N.tool.json_schema` (OpenAI or Anthropic shape, as a
/// JSON string or an object).
pub fn offered_tools(attrs: &Attrs) -> Vec<ToolDef> {
    indexed(attrs, "llm.tools")
        .iter()
        .flat_map(|g| {
            g.get("tool.json_schema")
                .map(|v| chat::tool_defs(v))
                .unwrap_or_default()
        })
        .collect()
}

/// The parameters a TOOL span declares for its tool: `tool.parameters` as a JSON string or
/// object, or flattened into `tool.parameters.*` keys (Phoenix).
pub fn declared_parameters(attrs: &Attrs) -> Option<Value> {
    match attrs.get("tool.parameters") {
        Some(Value::String(s)) => decode_json_string(s).filter(Value::is_object),
        Some(v @ Value::Object(_)) => Some(v.clone()),
        _ => unflatten(attrs, "tool.parameters"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::otel::attrs;
    use crate::model::{Args, Role};
    use serde_json::json;

    #[test]
    fn flattened_messages_with_calls_contents_and_results() {
        let a = attrs::read(Some(&json!({
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.contents.0.message_content.type": "text",
            "llm.input_messages.0.message.contents.0.message_content.text": "Weather in Paris?",
            "llm.input_messages.1.message.role": "assistant",
            "llm.input_messages.1.message.tool_calls.0.tool_call.id": "1234",
            "llm.input_messages.1.message.tool_calls.0.tool_call.function.name": "get_weather",
            "llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments": "{\"location\":\"Paris\"}",
            "llm.input_messages.2.message.role": "tool",
            "llm.input_messages.2.message.content": "rainy",
            "llm.input_messages.2.message.tool_call_id": "1234"
        })));
        let m = messages(&a, "llm.input_messages", Side::Input);
        assert_eq!(m.len(), 3);
        assert_eq!(
            (m[0].role, m[0].text.as_str()),
            (Role::User, "Weather in Paris?")
        );
        assert_eq!(
            m[1].calls[0].args,
            Args::Known(json!({"location": "Paris"}))
        );
        assert_eq!(m[2].results[0].call_id.as_deref(), Some("1234"));
    }

    #[test]
    fn legacy_openllmetry_groups() {
        let a = attrs::read(Some(&json!({
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.tool_calls.0.id": "c",
            "gen_ai.completion.0.tool_calls.0.name": "f",
            "gen_ai.completion.0.tool_calls.0.arguments": "{\"a\": 1}"
        })));
        let m = messages(&a, "gen_ai.completion", Side::Output);
        assert_eq!(m[0].calls[0].name, "f");
        assert_eq!(m[0].calls[0].id.as_deref(), Some("c"));
    }

    #[test]
    fn offered_and_declared_tools() {
        let a = attrs::read(Some(&json!({
            "llm.tools.0.tool.json_schema": "{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\"}}}",
            "llm.tools.1.tool.json_schema": "{}",
            "tool.parameters": "{\"type\": \"object\", \"properties\": {}}"
        })));
        let tools = offered_tools(&a);
        assert_eq!(tools.len(), 1, "a schema without a name is not a tool");
        assert_eq!(tools[0].schema, Some(json!({"type": "object"})));
        assert_eq!(
            declared_parameters(&a),
            Some(json!({"type": "object", "properties": {}}))
        );
    }
}
