//! Message content shared by the chat-shaped adapters (Claude Code, OpenAI chat, Anthropic
//! Messages, Responses): typed content parts and Anthropic content blocks become steps. Runs of
//! text parts → one `Message`; `tool_use` → a `ToolCall` whose arguments are the `input` value;
//! `tool_result` → a `ToolResult` whose status comes from `is_error` only (`true` → error,
//! `false` → ok, absent → unknown: text is never read for error-ness here). Thinking, images and
//! unknown block types are read past. Knows nothing of envelopes, files or traces.
//!
//! One cohesive mapping: each content part or block type is one arm of the same conversion into
//! steps.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{
    Args, CallOrigin, Location, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall,
    ToolResult,
};

use crate::adapters::common::args;
use crate::adapters::common::cursor::{Cursor, child};

/// One step read from a record, not yet placed in a trace.
#[derive(Debug, Clone)]
pub struct Item {
    /// What happened.
    pub kind: StepKind,
    /// Where its JSON is.
    pub at: Location,
    /// Facts about it.
    pub meta: StepMeta,
}

impl Item {
    /// An item with no meta.
    pub fn new(kind: StepKind, at: Location) -> Self {
        Self {
            kind,
            at,
            meta: StepMeta::default(),
        }
    }
}

/// A part of a record that could not be read (the rest still is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where.
    pub at: Location,
    /// What is wrong.
    pub message: String,
}

/// Steps and problems read from one record.
#[derive(Debug, Default)]
pub struct Collected {
    /// The steps, in record order.
    pub items: Vec<Item>,
    /// What could not be read.
    pub problems: Vec<Problem>,
}

impl Collected {
    /// Record a problem.
    pub fn problem(&mut self, at: Location, message: impl Into<String>) {
        self.problems.push(Problem {
            at,
            message: message.into(),
        });
    }

    /// Add a step.
    pub fn push(&mut self, kind: StepKind, at: Location) {
        self.items.push(Item::new(kind, at));
    }
}

/// An Anthropic content block, or a typed content part (OpenAI `text` / `input_text` /
/// `output_text`), or a flat tool event line (seed 000, oh-my-opencode's `tool_name` spelling,
/// converted sessions' `tool_id` and `output`).
#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    /// The call id of a converted session's block, on the call and on its result alike.
    #[serde(default)]
    tool_id: Option<Value>,
    #[serde(default, alias = "tool_name")]
    name: Option<Value>,
    #[serde(default, alias = "tool_input")]
    input: Option<Value>,
    #[serde(default)]
    tool_use_id: Option<Value>,
    #[serde(default, alias = "tool_output", alias = "output")]
    content: Option<Value>,
    #[serde(default)]
    is_error: Option<Value>,
    #[serde(default)]
    text: Option<Value>,
}

/// Read message content: a string (one message), an array of parts and blocks, or one block by
/// itself (converted sessions that write one content block a line).
pub fn read_content(
    content: &RawValue,
    role: Role,
    cur: &Cursor<'_>,
    pointer: &str,
    out: &mut Collected,
) {
    match content.get().as_bytes().first() {
        Some(b'"') => {
            if let Ok(text) = serde_json::from_str::<String>(content.get())
                && !text.trim().is_empty()
            {
                out.push(
                    StepKind::Message(Message {
                        role,
                        content: text,
                    }),
                    cur.at(content, pointer.to_owned()),
                );
            }
        }
        Some(b'[') => match serde_json::from_str::<Vec<&RawValue>>(content.get()) {
            Ok(blocks) => read_blocks(&blocks, true, role, cur, pointer, out),
            Err(e) => out.problem(
                cur.at(content, pointer.to_owned()),
                format!("unreadable content: {}", crate::adapters::common::json_pos::error_message(&e)),
            ),
        },
        Some(b'{') => read_blocks(&[content], false, role, cur, pointer, out),
        Some(b'n') => {}
        _ => out.problem(
            cur.at(content, pointer.to_owned()),
            "content is neither a string nor a list of blocks",
        ),
    }
}

/// Read a content list's blocks, already split (`read_content` on the list would read the
/// same): for a reader that took them out of the enclosing message in the same pass.
pub fn read_content_list(
    blocks: &[&RawValue],
    role: Role,
    cur: &Cursor<'_>,
    pointer: &str,
    out: &mut Collected,
) {
    read_blocks(blocks, true, role, cur, pointer, out);
}

/// Read blocks in order; `listed` says they are the items of a list (each at its index under
/// `pointer`) rather than one block at `pointer` itself.
fn read_blocks(
    blocks: &[&RawValue],
    listed: bool,
    role: Role,
    cur: &Cursor<'_>,
    pointer: &str,
    out: &mut Collected,
) {
    // Consecutive text parts form one message, located at the first of them.
    let mut text: Option<(String, Location)> = None;
    let flush = |text: &mut Option<(String, Location)>, out: &mut Collected| {
        if let Some((t, at)) = text.take()
            && !t.trim().is_empty()
        {
            out.push(StepKind::Message(Message { role, content: t }), at);
        }
    };
    for (i, raw) in blocks.iter().enumerate() {
        let ptr = if listed {
            child(pointer, i)
        } else {
            pointer.to_owned()
        };
        if raw.get().starts_with('"') {
            // A bare string part.
            let s: String = serde_json::from_str(raw.get()).unwrap_or_default();
            append_text(&mut text, s, || cur.at(raw, ptr.clone()));
            continue;
        }
        let block: Block = match serde_json::from_str(raw.get()) {
            Ok(b) => b,
            Err(e) => {
                // A block nested past the limit is an object too deep to read, not "not an
                // object".
                let why = if raw.get().starts_with('{') {
                    format!("block {i}: {}", crate::adapters::common::json_pos::error_message(&e))
                } else {
                    format!("block {i} is not an object")
                };
                out.problem(cur.at(raw, ptr), why);
                continue;
            }
        };
        match block.kind.as_deref() {
            Some("text" | "input_text" | "output_text" | "refusal") | None => {
                if let Some(Value::String(s)) = block.text {
                    append_text(&mut text, s, || cur.step(raw, &["\"text\":"], ptr.clone()));
                }
            }
            Some(kind) if is_call(kind) => {
                flush(&mut text, out);
                read_call(block, raw, cur, ptr, out);
            }
            Some(kind) if is_result(kind) => {
                flush(&mut text, out);
                read_result(block, raw, cur, ptr, out);
            }
            Some(_) => {}
        }
    }
    flush(&mut text, out);
}

fn append_text(text: &mut Option<(String, Location)>, s: String, at: impl FnOnce() -> Location) {
    match text {
        Some((t, _)) => {
            t.push('\n');
            t.push_str(&s);
        }
        None => *text = Some((s, at())),
    }
}

fn is_call(kind: &str) -> bool {
    matches!(kind, "tool_use" | "server_tool_use" | "mcp_tool_use")
}

fn is_result(kind: &str) -> bool {
    kind == "tool_result" || kind.ends_with("_tool_result") || kind.ends_with("_tool_result_error")
}

/// A server tool's error, as its result block says it (`advisor_tool_result_error`,
/// `web_search_tool_result_error`: the block type itself, or the type of its `content`): the
/// error code.
fn server_tool_error(kind: &str, content: Option<&Value>) -> Option<String> {
    let inner = content.and_then(|c| c.get("type")).and_then(Value::as_str);
    let code = || {
        content
            .and_then(|c| c.get("error_code"))
            .and_then(Value::as_str)
            .map_or_else(|| "the server tool failed".to_owned(), str::to_owned)
    };
    (kind.ends_with("_tool_result_error")
        || inner.is_some_and(|t| t.ends_with("_tool_result_error")))
    .then(code)
}

/// Whether a message body is one tool result block by itself (`{"type": "tool_result", …}`), as
/// converted sessions write a result line, rather than a tool's own JSON output.
pub fn is_result_block(body: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Kind {
        #[serde(rename = "type", default)]
        kind: Option<Value>,
    }
    body.get().starts_with('{')
        && serde_json::from_str::<Kind>(body.get())
            .ok()
            .and_then(|k| k.kind)
            .is_some_and(|k| k.as_str().is_some_and(is_result))
}

/// Read one block that is a tool event by itself (a flat seed-000 line, `{"type":"tool_use",…}`
/// or `{"type":"tool_result",…}`). Returns false when the record is neither.
pub fn read_tool_block(
    raw: &RawValue,
    cur: &Cursor<'_>,
    pointer: &str,
    out: &mut Collected,
) -> bool {
    let Ok(block) = serde_json::from_str::<Block>(raw.get()) else {
        return false;
    };
    match block.kind.as_deref() {
        Some(kind) if is_call(kind) => read_call(block, raw, cur, pointer.to_owned(), out),
        Some(kind) if is_result(kind) => read_result(block, raw, cur, pointer.to_owned(), out),
        _ => return false,
    }
    true
}

fn read_call(block: Block, raw: &RawValue, cur: &Cursor<'_>, ptr: String, out: &mut Collected) {
    let call_id = id_of(block.id.as_ref()).or_else(|| id_of(block.tool_id.as_ref()));
    let Some(Value::String(name)) = block.name else {
        let at = cur.at(raw, ptr);
        out.problem(at, "a `tool_use` block needs a string `name`");
        return;
    };
    let at = cur.step(raw, &[call_id.as_deref().unwrap_or(""), &name], ptr);
    out.push(
        StepKind::ToolCall(ToolCall {
            call_id,
            name,
            args: args_owned(block.input),
            raw_args: None,
            origin: CallOrigin::Model,
        }),
        at,
    );
}

fn read_result(block: Block, raw: &RawValue, cur: &Cursor<'_>, ptr: String, out: &mut Collected) {
    let call_id = id_of(block.tool_use_id.as_ref())
        .or_else(|| id_of(block.id.as_ref()))
        .or_else(|| id_of(block.tool_id.as_ref()));
    let server_error =
        server_tool_error(block.kind.as_deref().unwrap_or(""), block.content.as_ref());
    let status = match block.is_error {
        _ if server_error.is_some() => ResultStatus::Error,
        Some(Value::Bool(true)) => ResultStatus::Error,
        Some(Value::Bool(false)) => ResultStatus::Ok,
        _ => ResultStatus::Unknown,
    };
    let at = cur.step(raw, &[call_id.as_deref().unwrap_or("")], ptr);
    // OpenCode's transcripts keep some outputs as `{"truncated": false}` alone: the output
    // itself is not in the record.
    let unrecorded = matches!(&block.content, Some(Value::Object(m))
        if !m.is_empty() && m.keys().all(|k| k == "truncated"));
    let mut result = ToolResult::new(call_id, result_content(block.content), status);
    result.error = server_error;
    if unrecorded {
        result.content_recorded = false;
    }
    out.push(StepKind::ToolResult(result), at);
}

/// Arguments recorded as a value, taken by value (no clone of a large object).
pub fn args_owned(value: Option<Value>) -> Args {
    match value {
        Some(v @ Value::Object(_)) => Args::Known(v),
        other => args::from_value(other.as_ref()),
    }
}

/// A call id written as a string or a number.
pub fn id_of(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// A result's content as rules read it: a string stays a string; a list of text parts becomes
/// their text joined by newlines (images and documents as `[image]` / `[document]`, so a base64
/// payload is not carried); anything else is kept as recorded.
pub fn result_content(content: Option<Value>) -> Value {
    match content {
        None => Value::Null,
        Some(Value::Array(parts)) => match flatten_parts(&parts) {
            Some(text) => Value::String(text),
            None => Value::Array(parts),
        },
        Some(other) => other,
    }
}

/// Text of content parts, or `None` when a part is not text-like.
fn flatten_parts(parts: &[Value]) -> Option<String> {
    let mut pieces = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            Value::String(s) => pieces.push(s.as_str()),
            Value::Object(m) => match m.get("type").and_then(Value::as_str) {
                Some("text" | "input_text" | "output_text") | None => {
                    pieces.push(m.get("text").and_then(Value::as_str)?);
                }
                Some("image" | "input_image" | "image_url") => pieces.push("[image]"),
                Some("document" | "input_file" | "file") => pieces.push("[document]"),
                Some(_) => return None,
            },
            _ => return None,
        }
    }
    Some(pieces.join("\n"))
}

/// The text of message content given as a value: a string, or text parts joined by newlines
/// (other parts skipped).
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                Value::Object(m) => m.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str, role: Role) -> Collected {
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let cur = Cursor::record(text, 1);
        let mut out = Collected::default();
        read_content(raw, role, &cur, "/content", &mut out);
        out
    }

    #[test]
    fn blocks_become_steps_with_locations() {
        let out = read(
            r#"[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"thinking","thinking":"x"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]"#,
            Role::Assistant,
        );
        assert!(out.problems.is_empty());
        assert_eq!(out.items.len(), 2);
        match &out.items[0].kind {
            StepKind::Message(m) => assert_eq!(m.content, "a\nb"),
            other => panic!("{other:?}"),
        }
        assert_eq!(out.items[0].at.pointer, "/content/0");
        assert_eq!(out.items[1].at.pointer, "/content/3");
        assert_eq!(out.items[1].at.column, 91);
        match &out.items[1].kind {
            StepKind::ToolCall(c) => {
                assert_eq!(c.call_id.as_deref(), Some("t1"));
                assert_eq!(c.args, Args::Known(json!({"command": "ls"})));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_output_kept_as_its_truncation_flag_alone_is_not_recorded() {
        let out = read(
            r#"[{"type":"tool_result","tool_use_id":"a","tool_output":{"truncated":false}},
                {"type":"tool_result","tool_use_id":"b","tool_output":{"preview":"x = 1","truncated":false}},
                {"type":"tool_result","tool_use_id":"c","tool_output":{}}]"#,
            Role::User,
        );
        let recorded: Vec<bool> = out
            .items
            .iter()
            .map(|i| match &i.kind {
                StepKind::ToolResult(r) => r.content_recorded,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(recorded, [false, true, true]);
    }

    #[test]
    fn result_status_comes_from_is_error_only() {
        let out = read(
            r#"[{"type":"tool_result","tool_use_id":"a","content":"Exit code 1","is_error":true},
                {"type":"tool_result","tool_use_id":"b","content":"Error: boom","is_error":false},
                {"type":"tool_result","tool_use_id":"c","content":[{"type":"text","text":"Error: x"},{"type":"image","source":{"data":"AAAA"}}]}]"#,
            Role::User,
        );
        let got: Vec<(ResultStatus, Value)> = out
            .items
            .iter()
            .map(|i| match &i.kind {
                StepKind::ToolResult(r) => (r.status, r.content.clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (ResultStatus::Error, json!("Exit code 1")),
                (ResultStatus::Ok, json!("Error: boom")),
                (ResultStatus::Unknown, json!("Error: x\n[image]")),
            ]
        );
    }

    #[test]
    fn bad_blocks_are_problems_and_reading_goes_on() {
        let out = read(
            r#"[3, {"type":"tool_use","id":"t"}, {"type":"text","text":"ok"}]"#,
            Role::Assistant,
        );
        let msgs: Vec<&str> = out.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "block 0 is not an object",
                "a `tool_use` block needs a string `name`"
            ]
        );
        assert_eq!(out.items.len(), 1);
    }

    #[test]
    fn server_tool_errors_are_structured() {
        let out = read(
            r#"[{"type":"server_tool_use","id":"s1","name":"advisor","input":{}},
                {"type":"advisor_tool_result","tool_use_id":"s1","content":{"type":"advisor_tool_result_error","error_code":"unavailable"}},
                {"type":"web_search_tool_result_error","tool_use_id":"s2","error_code":"max_uses_exceeded"},
                {"type":"web_search_tool_result","tool_use_id":"s3","content":[]}]"#,
            Role::Assistant,
        );
        let got: Vec<(ResultStatus, Option<String>)> = out
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                StepKind::ToolResult(r) => Some((r.status, r.error.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (ResultStatus::Error, Some("unavailable".into())),
                (ResultStatus::Error, Some("the server tool failed".into())),
                (ResultStatus::Unknown, None),
            ]
        );
    }

    #[test]
    fn unknown_part_types_keep_the_recorded_content() {
        let v = json!([{"type": "search_result", "x": 1}]);
        assert_eq!(result_content(Some(v.clone())), v);
        assert_eq!(result_content(None), Value::Null);
    }
}
