//! Tests of the chat-message normaliser: one case per provider shape.

use crate::model::Args;
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
