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

/// An item read as both a Responses item and a chat message, in one pass (the fields of
/// `ItemRaw` and `chat::ChatMsg`, each as either reads it): most items are messages.
#[derive(Deserialize)]
struct ItemOrMessage<'a> {
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
    #[serde(default)]
    role: Option<Value>,
    #[serde(default)]
    from: Option<Value>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    value: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_calls: Option<&'a RawValue>,
    #[serde(default, borrow)]
    function_call: Option<&'a RawValue>,
    #[serde(default)]
    tool_call_id: Option<Value>,
    #[serde(rename = "_metadata", default)]
    metadata: Option<Value>,
}

impl<'a> ItemOrMessage<'a> {
    /// An object read so (an array would fill the fields by position, differently from either
    /// reading).
    fn read(raw: &'a RawValue) -> Option<Self> {
        if !raw.get().starts_with('{') {
            return None;
        }
        serde_json::from_str(raw.get()).ok()
    }

    /// The item, and the message when the item is one (`type` `message` or none).
    fn split(self) -> (ItemRaw<'a>, Option<chat::ChatMsg<'a>>) {
        let is_message = matches!(self.kind.as_deref(), Some("message") | None);
        let message = is_message.then(|| chat::ChatMsg {
            role: self.role,
            from: self.from,
            content: self.content,
            value: self.value,
            tool_calls: self.tool_calls,
            function_call: self.function_call,
            tool_call_id: self.tool_call_id,
            name: self.name.clone(),
            metadata: self.metadata,
        });
        let item = ItemRaw {
            kind: self.kind,
            call_id: self.call_id,
            id: self.id,
            name: self.name,
            arguments: self.arguments,
            output: self.output,
            error: self.error,
        };
        (item, message)
    }
}

/// Read one Responses item (a `message` item or a role-only input message goes to `chat.rs`).
pub fn read_item(
    raw: &RawValue,
    cur: &Cursor<'_>,
    pointer: &str,
    legacy: &mut Legacy,
    out: &mut Collected,
) {
    // One pass reads what either reading needs; an item it cannot read (a field of the wrong
    // type for one of them) is read the long way, item first, as before.
    let (item, message) = match ItemOrMessage::read(raw) {
        Some(both) => both.split(),
        None => match serde_json::from_str::<ItemRaw<'_>>(raw.get()) {
            Ok(i) => (i, None),
            Err(_) => {
                out.problem(cur.at(raw, pointer.to_owned()), "an item must be an object");
                return;
            }
        },
    };
    let call_id = id_of(item.call_id.as_ref()).or_else(|| id_of(item.id.as_ref()));
    match item.kind.as_deref() {
        Some("message") | None => match message {
            Some(m) => chat::read_parsed(m, raw, cur, pointer, legacy, out),
            None => chat::read_message(raw, cur, pointer, legacy, out),
        },
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LineIndex;

    /// Every object of every real OpenAI-style fixture, and odd shapes, as JSON texts.
    fn objects() -> Vec<String> {
        fn walk(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    out.push(v.to_string());
                    m.values().for_each(|v| walk(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for dir in ["openai-chat", "openai-responses", "openai-subagents"] {
            for path in crate::adapters::testing::real_files(dir) {
                let text = std::fs::read_to_string(&path).unwrap();
                let values: Vec<Value> = serde_json::Deserializer::from_str(&text)
                    .into_iter::<Value>()
                    .map_while(Result::ok)
                    .collect();
                let values = if values.is_empty() {
                    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
                } else {
                    values
                };
                values.iter().for_each(|v| walk(v, &mut out));
            }
        }
        for odd in [
            r#"{"role":"user","content":"hi","role":"user"}"#,
            r#"{"type":"message","role":5,"content":"x"}"#,
            r#"{"type":7,"role":"user","content":"x"}"#,
            r#"{"role":"tool","name":"f","name":"g","content":"x"}"#,
            r#"{"type":"function_call","name":"get","arguments":"{}","call_id":"c","output":1,"output":2}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}"#,
            r#"{"from":"human","value":"hello"}"#,
            r#"["not","an","item"]"#,
            r#"[null,null,null,null,null,null,null,"user","x"]"#,
            r#"[null,"x"]"#,
        ] {
            out.push(odd.to_owned());
        }
        out
    }

    /// The one-pass reading of an item reads every item as the item-then-message reading does.
    #[test]
    fn an_item_read_in_one_pass_reads_as_in_two() {
        let (mut both, mut long_way) = (0, 0);
        for text in objects() {
            let raw = RawValue::from_string(text.clone()).unwrap();
            let index = LineIndex::new(&text);
            let cur = Cursor::document(&text, &index);
            // The reading before: the item's fields, then the message's from the text again.
            let mut before = Collected::default();
            let mut legacy_before = Legacy::default();
            match serde_json::from_str::<ItemRaw<'_>>(raw.get()) {
                Ok(item) if matches!(item.kind.as_deref(), Some("message") | None) => {
                    chat::read_message(&raw, &cur, "/0", &mut legacy_before, &mut before);
                }
                _ => {}
            }
            let Some(one) = ItemOrMessage::read(&raw) else {
                long_way += 1;
                continue;
            };
            let (item, message) = one.split();
            let Some(m) = message else {
                assert!(!matches!(item.kind.as_deref(), Some("message") | None));
                continue;
            };
            let mut after = Collected::default();
            let mut legacy_after = Legacy::default();
            chat::read_parsed(m, &raw, &cur, "/0", &mut legacy_after, &mut after);
            assert_eq!(format!("{after:?}"), format!("{before:?}"), "{text}");
            assert_eq!(format!("{legacy_after:?}"), format!("{legacy_before:?}"), "{text}");
            both += 1;
        }
        assert!(both > 100, "only {both} items read in one pass");
        assert!(long_way >= 5, "{long_way} items read the long way");
    }
}
