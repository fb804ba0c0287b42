//! The `cline` format: Cline's task history (`tasks/<id>/api_conversation_history.json`, an
//! array of Anthropic messages with `ts` / `modelInfo`) and the Cline SDK's session
//! (`sessions/<id>/<id>.messages.json` `{version, agent, sessionId, messages[]}`, with the
//! `<id>.json` metadata beside it). In a task history the harness answers a `tool_use` not with
//! a `tool_result` block but with the next user message's text block
//! `[<tool> for '<summary>'] Result:\n…`, paired here to the earliest unanswered call before it
//! (of that name when one is waiting); its text is the result, whose status no record gives.
//! The `[ERROR] You did not use a tool…` turns stay user messages. An SDK session's
//! `tool_result` blocks carry `is_error`, and its tools' outputs a `success` flag per request:
//! both are structured verdicts. The metadata file alone is read through the messages file it
//! names; `ui_messages.json` and `task_metadata.json` are companions, not conversations.

mod metadata;
mod task;

use serde_json::Value;

use crate::finding::InputIssue;
use crate::model::InputRef;

use crate::adapters::Emit;
use crate::adapters::common::agent;
use crate::adapters::common::json_pos::Line;
use metadata::apply_metadata;

/// How strongly a record looks like a Cline record.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let has = |k: &str| m.contains_key(k);
    // A task history message: an Anthropic message with Cline's `ts` (and `modelInfo`).
    if m.get("role").is_some_and(Value::is_string) && m.get("content").is_some() {
        return match (has("modelInfo"), m.get("ts").is_some_and(Value::is_number)) {
            (true, _) => 12,
            (false, true) => 9,
            _ => 0,
        };
    }
    // An SDK session's messages file, or its metadata.
    if has("sessionId") && m.get("messages").is_some_and(Value::is_array) && has("agent") {
        return 12;
    }
    if is_sdk_metadata(record) {
        return 12;
    }
    0
}

/// Whether a record is a Cline SDK session's metadata (`<id>.json`).
pub fn is_sdk_metadata(record: &Value) -> bool {
    record.get("session_id").is_some_and(Value::is_string)
        && record.get("messages_path").is_some_and(Value::is_string)
}

/// What a Cline companion file is (not a conversation), for the input error or the skip note.
pub fn companion(records: &[Value]) -> Option<&'static str> {
    let first = records.first()?.as_object()?;
    if first.get("ts").is_some_and(Value::is_number)
        && first
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t == "say" || t == "ask")
    {
        return Some(
            "Cline's UI message log (`ui_messages.json`), not the conversation: lint `api_conversation_history.json` beside it",
        );
    }
    if first.contains_key("files_in_context") || first.contains_key("environment_history") {
        return Some(
            "Cline's task metadata (`task_metadata.json`), not the conversation: lint `api_conversation_history.json` beside it",
        );
    }
    None
}

/// Parse a Cline JSON document: a task history, an SDK messages file, or SDK metadata (read
/// through the messages file it names).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    if text.trim_start().starts_with('[') {
        agent::read_document(task::Reader::new(input), text, input, out, true);
        return;
    }
    let Ok(top) = serde_json::from_str::<Value>(text) else {
        agent::read_document(task::Reader::new(input), text, input, out, true);
        return;
    };
    if is_sdk_metadata(&top) {
        return through_metadata(&top, input, out);
    }
    let mut reader = task::Reader::new(input);
    reader.sdk_metadata(sibling_metadata(&input.path));
    agent::read_document(reader, text, input, out, true);
}

/// A task history saved as JSON Lines (one message a line).
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(task::Reader::new(input), lines, input, out);
}

/// An SDK session's metadata file: the conversation is in the file it names (or the
/// `<id>.messages.json` beside it).
fn through_metadata(meta: &Value, input: &InputRef, out: &mut dyn Emit) {
    let path = std::path::Path::new(&input.path);
    let named = meta.get("messages_path").and_then(Value::as_str);
    let beside = path.with_extension("messages.json");
    let candidates = [
        beside.clone(),
        named.map(std::path::PathBuf::from).unwrap_or_default(),
    ];
    let Some(found) = candidates.iter().find(|p| p.is_file()) else {
        out.issue(InputIssue::file(
            &input.path,
            format!(
                "a Cline session's metadata: its conversation `{}` is not there; lint the messages file",
                beside.display()
            ),
        ));
        return;
    };
    let text = match read_bounded(found) {
        Ok(t) => t,
        Err(e) => {
            out.issue(InputIssue::file(
                &input.path,
                format!(
                    "cannot read the session's messages `{}`: {e}",
                    found.display()
                ),
            ));
            return;
        }
    };
    out.note(format!(
        "a Cline session's metadata: its conversation is read from `{}`",
        found.display()
    ));
    let messages = InputRef {
        path: found.display().to_string(),
        format: input.format.clone(),
    };
    let mut reader = task::Reader::new(&messages);
    reader.sdk_metadata(Some(meta.clone()));
    agent::read_document(reader, &text, &messages, out, true);
}

/// The SDK metadata beside a messages file (`<id>.json` for `<id>.messages.json`).
fn sibling_metadata(path: &str) -> Option<Value> {
    let meta = path
        .strip_suffix(".messages.json")
        .map(|p| format!("{p}.json"))?;
    let text = read_bounded(std::path::Path::new(&meta)).ok()?;
    serde_json::from_str(&text).ok().filter(is_sdk_metadata)
}

/// Largest companion file read.
const MAX_COMPANION: u64 = 256 << 20;

fn read_bounded(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    // A path a session names may be anything: never a pipe (a wait) or a device (endless).
    crate::inputs::open(path, crate::inputs::Pipes::Refuse)?
        .take(MAX_COMPANION)
        .read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests;

