//! The `openai` format: chat message lists in every shape people save them — a JSON array of
//! messages, `{"messages": […]}`, JSON Lines of messages (one conversation), datasets of
//! conversations (tau-bench `{task_id, traj}`, ShareGPT `{conversations}`, one trace each),
//! OpenAI Responses items, Anthropic Messages, and request/response logs (request bodies with
//! `messages`/`input` + `tools`, response bodies with `choices` / `output`, or
//! `{request, response}` pairs) assembled into one conversation. This file owns detection and
//! the entry points; `reader.rs` decides which records form which trace (`body.rs` says what a
//! record is); `chat.rs`, `responses.rs` and `conv.rs` read them. BFCL
//! benchmark files are tool definitions and prompts, not runs: an input error says so.

mod body;
pub mod chat;
pub mod conv;
mod reader;
pub mod responses;
mod bfcl;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex, Trace};

use crate::adapters::Emit;
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::{Line, error_message, error_position};

use reader::Reader;
use bfcl::{BFCL, BFCL_ANSWERS, BFCL_DOCS, BFCL_MULTI_TURN};

/// Roles a chat message may have (OpenAI, Anthropic, ShareGPT spellings).
const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
    "human",
    "gpt",
    "ai",
    "model",
    "observation",
    "function_call",
];

/// How strongly a record looks like an OpenAI / Anthropic / ShareGPT record.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let has = |k: &str| m.contains_key(k);
    let list = |k: &str| m.get(k).is_some_and(Value::is_array);
    if has("steps") {
        return 0;
    }
    if let Some(role) = m.get("role").and_then(Value::as_str) {
        let chatty =
            has("tool_calls") || has("tool_call_id") || has("function_call") || list("content");
        return match (ROLES.contains(&role), chatty) {
            (true, true) => 8,
            (true, false) => 6,
            (false, _) => 1,
        };
    }
    if m.get("from").is_some_and(Value::is_string) && has("value") {
        return 6;
    }
    if let Some(kind) = m.get("type").and_then(Value::as_str)
        && responses::ITEM_TYPES.contains(&kind)
        && (has("call_id") || has("content") || has("summary"))
    {
        return 8;
    }
    if list("traj") || list("conversations") || list("messages") || list("choices") {
        return 10;
    }
    if list("output") && (has("object") || has("id")) {
        return 9;
    }
    if (list("input") || m.get("input").is_some_and(Value::is_string))
        && (has("model") || has("tools"))
    {
        return 8;
    }
    if m.get("request").is_some_and(Value::is_object)
        && m.get("response").is_some_and(Value::is_object)
    {
        return 8;
    }
    0
}

/// When the records are a known shape that is not an agent run, what it is.
pub fn not_a_trace(records: &[Value]) -> Option<&'static str> {
    let first = records.first()?.as_object()?;
    let has = |k: &str| first.contains_key(k);
    if has("question") && has("function") {
        Some(BFCL)
    } else if has("question") && has("involved_classes") {
        Some(BFCL_MULTI_TURN)
    } else if has("ground_truth") && has("id") {
        Some(BFCL_ANSWERS)
    } else if first.get("parameters").and_then(|p| p.get("type")) == Some(&Value::from("dict"))
        && has("name")
    {
        Some(BFCL_DOCS)
    } else {
        None
    }
}

/// Parse an OpenAI-shaped JSON document.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    let mut reader = Reader::new(input);
    let json_issue = |e: &serde_json::Error, out: &mut dyn Emit| {
        let (l, c) = error_position(e, 1);
        out.issue(InputIssue::at(
            &input.path,
            l,
            c,
            format!("invalid JSON: {}", error_message(e)),
        ));
    };
    if text.trim_start().starts_with('[') {
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => return json_issue(&e, out),
        };
        if items.is_empty() {
            out.issue(InputIssue::file(
                &input.path,
                "the file holds an empty array: nothing to lint",
            ));
            return;
        }
        for (i, raw) in items.iter().enumerate() {
            let default_id = format!("{}[{i}]", input.path);
            reader.record(raw, &cur, &child("", i), &default_id, out);
        }
    } else {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => reader.record(raw, &cur, "", &input.path, out),
            Err(e) => return json_issue(&e, out),
        }
    }
    reader.finish(out);
}

/// One element of a top-level JSON array, read on its own: its text and where it begins in the
/// file (1-based line, and column in characters).
#[derive(Debug)]
pub struct Element {
    pub text: String,
    pub line: u32,
    pub column: u32,
}

/// Parse an OpenAI-shaped JSON array an element at a time, exactly as `parse_document` reads
/// the whole array: the caller has checked that the file is one valid, non-empty JSON array.
/// An element that cannot be read (or no longer reads as JSON) ends the input with its issue.
pub fn parse_elements(
    elements: &mut dyn Iterator<Item = Result<Element, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut reader = Reader::new(input);
    for (i, element) in elements.enumerate() {
        let element = match element {
            Ok(e) => e,
            Err(issue) => {
                reader.stream.partial();
                out.issue(issue);
                break;
            }
        };
        let raw: &RawValue = match serde_json::from_str(&element.text) {
            Ok(r) => r,
            Err(_) => {
                reader.stream.partial();
                out.issue(InputIssue::at(
                    &input.path,
                    element.line,
                    element.column,
                    "the file changed while it was read; lint it again",
                ));
                break;
            }
        };
        let index = LineIndex::starting_at_column(&element.text, element.line, element.column);
        let cur = Cursor::document(&element.text, &index);
        let default_id = format!("{}[{i}]", input.path);
        // What the element gives is passed on once its text is freed: a trace is then linted
        // without the text it was read from beside it.
        let mut held = Held::default();
        reader.record(raw, &cur, &child("", i), &default_id, &mut held);
        drop(element);
        held.pass_on(out);
    }
    reader.finish(out);
}

/// What reading one element emitted, in order.
#[derive(Default)]
struct Held(Vec<Emitted>);

enum Emitted {
    Trace(Trace),
    Issue(InputIssue),
    Note(String),
}

impl Emit for Held {
    fn trace(&mut self, trace: Trace) {
        self.0.push(Emitted::Trace(trace));
    }
    fn issue(&mut self, issue: InputIssue) {
        self.0.push(Emitted::Issue(issue));
    }
    fn note(&mut self, note: String) {
        self.0.push(Emitted::Note(note));
    }
}

impl Held {
    fn pass_on(self, out: &mut dyn Emit) {
        for emitted in self.0 {
            match emitted {
                Emitted::Trace(t) => out.trace(t),
                Emitted::Issue(i) => out.issue(i),
                Emitted::Note(n) => out.note(n),
            }
        }
    }
}

/// Parse OpenAI-shaped JSON Lines: messages (one conversation), conversations (one trace each),
/// or a request/response log.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut reader = Reader::new(input);
    for line in lines {
        match line {
            Err(issue) => {
                reader.stream.partial();
                out.issue(issue);
            }
            Ok(line) => {
                let raw: &RawValue = match serde_json::from_str(&line.text) {
                    Ok(r) => r,
                    Err(e) => {
                        let (l, c) = error_position(&e, line.number);
                        reader.stream.partial();
                        out.issue(InputIssue::at(
                            &input.path,
                            l,
                            c,
                            format!("invalid JSON: {}", error_message(&e)),
                        ));
                        continue;
                    }
                };
                let cur = Cursor::record(&line.text, line.number);
                let default_id = format!("{}:{}", input.path, line.number);
                reader.record(raw, &cur, "", &default_id, out);
            }
        }
    }
    reader.finish(out);
}

#[cfg(test)]
mod tests;
