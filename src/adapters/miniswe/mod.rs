//! The `mini-swe-agent` format. Current files `{info{model_stats, config, exit_status,
//! submission}, messages[], trajectory_format: "mini-swe-agent-1.x"}`: in tool mode the
//! assistant's `tool_calls` and `role: "tool"` results with `extra.returncode` (0 is a success)
//! and `extra.exception_info` (an error); the last `role: "exit"` message and `info.exit_status`
//! say how the run ended. The legacy format is a bare array of chat messages whose actions are
//! bash blocks in the assistant's text (```` ```bash ```` or ```` ```mswea_bash_command ````):
//! a message with exactly one block (what mini-swe-agent executes) is a call of a `bash` tool,
//! its next user message (`<returncode>…`) the result — calls parsed by us from text, which the
//! report says.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex, Trace};

use crate::adapters::Emit;
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::history::History;
use crate::adapters::common::json_pos::{Line, each_record, json_issue};
use crate::adapters::common::raw;

/// The fences mini-swe-agent reads an action from.
const FENCES: &[&str] = &["```mswea_bash_command", "```bash"];

/// Does this record look like a mini-swe-agent trajectory (or, for the legacy format, one of
/// its messages)?
pub fn sniff(record: &Value) -> u8 {
    if record
        .get("trajectory_format")
        .and_then(Value::as_str)
        .is_some_and(|f| f.starts_with("mini-swe-agent"))
    {
        return 14;
    }
    // A legacy message: only mini-swe-agent's own markers, never a bash block alone (any chat
    // may hold one).
    let text = record.get("content").and_then(Value::as_str).unwrap_or("");
    let role = record.get("role").and_then(Value::as_str);
    let marked = text.contains("```mswea_bash_command")
        || role == Some("user") && text.trim_start().starts_with("<returncode>")
        || role == Some("system") && text.contains("exactly ONE bash code block");
    if marked { 10 } else { 0 }
}

/// Parse a trajectory document: a current object, or a legacy array of messages.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let raw: &RawValue = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return json_issue(&e, 1, &input.path, out),
    };
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    let (messages, ptr, info) = match raw::array(raw) {
        Some(items) => (items, String::new(), None),
        None => {
            let Some(m) = raw::object(raw) else {
                out.issue(InputIssue::file(
                    &input.path,
                    "a mini-swe-agent trajectory must be a JSON object or an array of messages",
                ));
                return;
            };
            (
                raw::list(&m, "messages"),
                "/messages".to_owned(),
                raw::value(&m, "info"),
            )
        }
    };
    read(&messages, &cur, &ptr, info, &input.path, input, out);
}

/// Parse JSON Lines: one trajectory a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    each_record(lines, &input.path, out, |raw, line, out| {
        let cur = Cursor::record(&line.text, line.number);
        let id = format!("{}:{}", input.path, line.number);
        let Some(m) = raw::object(raw) else { return };
        read(
            &raw::list(&m, "messages"),
            &cur,
            "/messages",
            raw::value(&m, "info"),
            &id,
            input,
            out,
        );
    });
}

/// The one action of a legacy assistant message, or `None` unless it holds exactly one block.
fn bash_block(text: &str) -> Option<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = FENCES
        .iter()
        .filter_map(|f| rest.find(f).map(|i| (i, f.len())))
        .min()
    {
        let body = &rest[start.0 + start.1..];
        let Some(nl) = body.find('\n') else { break };
        let body = &body[nl + 1..];
        let Some(end) = body.find("```") else { break };
        found.push(body[..end].trim().to_owned());
        rest = &body[end + 3..];
    }
    (found.len() == 1)
        .then(|| found.remove(0))
        .filter(|c| !c.is_empty())
}

fn read(
    messages: &[&RawValue],
    cur: &Cursor<'_>,
    ptr: &str,
    info: Option<Value>,
    run_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut trace = Trace::new(run_id, input.clone());
    let mut history = History::new(cur);
    let tool_mode = messages.iter().any(|m| {
        raw::object(m).is_some_and(|m| m.get("tool_calls").is_some_and(|c| c.get() != "null"))
    });
    for (i, msg) in messages.iter().enumerate() {
        let text_call = if tool_mode {
            None
        } else {
            raw::object(msg)
                .filter(|m| raw::string(m, "role").as_deref() == Some("assistant"))
                .and_then(|m| raw::string(&m, "content"))
                .and_then(|t| bash_block(&t))
                .map(|c| ("bash".to_owned(), serde_json::json!({ "command": c })))
        };
        history.message(msg, &child(ptr, i), text_call);
        if let Some(m) = raw::object(msg)
            && raw::string(&m, "role").as_deref() == Some("exit")
            && let Some(status) = raw::string(&m, "content")
        {
            note_exit(&status, &mut trace);
        }
    }
    history.finish(&mut trace, &input.path, out, |n| format!("{n} parsed by tracelint from bash blocks in the assistant's text (mini-swe-agent's legacy format records no tool calls)"));
    if let Some(Value::Object(info)) = info {
        if let Some(status) = info.get("exit_status").and_then(Value::as_str) {
            note_exit(status, &mut trace);
        }
        if let Some(sub) = info
            .get("submission")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
        {
            trace.final_answer = Some(sub.to_owned());
        }
    }
    out.trace(trace);
}

fn note_exit(status: &str, trace: &mut Trace) {
    if !status.is_empty() && status != "Submitted" && status != "submitted" {
        trace.add_note(format!(
            "the run ended with mini-swe-agent exit status `{status}`"
        ));
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod blocks {
    use super::*;

    #[test]
    fn exactly_one_block_is_an_action() {
        assert_eq!(
            bash_block("THOUGHT\n```bash\nls -la\n```").as_deref(),
            Some("ls -la")
        );
        assert_eq!(
            bash_block("x\n```mswea_bash_command\necho hi\n```\n").as_deref(),
            Some("echo hi")
        );
        assert_eq!(bash_block("```bash\na\n```\n```bash\nb\n```"), None);
        assert_eq!(bash_block("no block"), None);
        assert_eq!(bash_block("```bash\nunterminated"), None);
    }
}
