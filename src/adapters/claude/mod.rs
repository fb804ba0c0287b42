//! The `claude` format: Claude Code session JSONL (`~/.claude/projects/<cwd>/<session>.jsonl`),
//! sub-agent files (`agent-<id>.jsonl`, `subagents/agent-<id>.jsonl`), the Claude CLI
//! `stream-json` output (as JSON Lines, or one pretty-printed event per document), and seed 000's
//! flat event lines (`{"type":"tool_use","name","input"}`, `{"tool_calls":[…]}`, legacy
//! `function_call`). One session file is one main trace; each sub-agent is a trace of its own
//! (FORMATS.md §1). This file owns detection and the record-by-record reading; `session.rs`
//! owns which trace a record belongs to. Never reads other files, never guesses error-ness.

mod newer;
mod session;
mod record;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex, Role};

use crate::adapters::common::content::{self, Collected};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::{Line, error_message, error_position};
use crate::adapters::{Emit, openai};

pub use newer::{SERVER_TOOLS_SOURCE, companion};
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use session::MIRROR_ATTRIBUTE;
use session::{Session, ThreadKey};
use record::{Record};

/// How strongly a record looks like a Claude Code / stream-json / flat event record.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let kind = m.get("type").and_then(Value::as_str);
    let has = |k: &str| m.contains_key(k);
    let envelope = has("uuid") || has("parentUuid") || has("sessionId") || has("isSidechain");
    match kind {
        Some("user" | "assistant") if has("message") && (envelope || has("session_id")) => 10,
        Some("user" | "assistant") if has("message") || has("content") && !has("role") => 4,
        Some("summary") if has("leafUuid") => 10,
        Some("progress") if has("data") && envelope => 10,
        Some("system" | "result") if has("subtype") && (envelope || has("session_id")) => 10,
        Some("file-history-snapshot") if has("snapshot") || has("messageId") => 10,
        Some("queue-operation") if has("operation") => 10,
        Some("attachment") if envelope => 8,
        // Gemini CLI's stream-json names its calls `tool_name` too, with `tool_id` and
        // `parameters`, which no Claude event has.
        Some("tool_use") if has("tool_id") && has("parameters") && !has("input") => 0,
        Some("tool_use") if has("name") && has("input") || has("tool_name") => 8,
        Some("tool_result") if has("tool_use_id") || has("tool_output") => 6,
        Some(_) => 0,
        None if has("role") || has("steps") => 0,
        None if m.get("tool_calls").is_some_and(Value::is_array) => 6,
        None if m.get("function_call").is_some_and(Value::is_object) => 6,
        None if m.get("name").is_some_and(Value::is_string) && has("input") => 5,
        None => 0,
    }
}

/// Parse Claude JSON Lines: a session file, a sub-agent file, stream-json output or flat events.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut session = Session::new(input.clone());
    for line in lines {
        match line {
            Err(issue) => {
                session.mark_partial();
                out.issue(issue);
            }
            Ok(line) => {
                let cur = Cursor::record(&line.text, line.number);
                // Most lines are read in one pass: the record's fields straight from the line,
                // its message's content split into blocks on the way (`MsgBlocks`); a message
                // of another shape is read from its raw value. A line that does not read as a
                // record, and a tool or flat event (located as a whole), are read through the
                // line's raw value, as before.
                match serde_json::from_str::<Record<'_, MsgBlocks<'_>>>(&line.text) {
                    Ok(rec) if !located_whole(&rec) => {
                        read_fields(&mut session, rec, None, &cur, "", out);
                        continue;
                    }
                    // Located whole (its type says so, however its message reads).
                    Ok(_) => {}
                    Err(_) => {
                        if let Ok(rec) = serde_json::from_str::<Record<'_>>(&line.text)
                            && !located_whole(&rec)
                        {
                            read_fields(&mut session, rec, None, &cur, "", out);
                            continue;
                        }
                    }
                }
                let raw: &RawValue = match serde_json::from_str(&line.text) {
                    Ok(r) => r,
                    Err(e) => {
                        let (l, c) = error_position(&e, line.number);
                        session.mark_partial();
                        out.issue(InputIssue::at(
                            &input.path,
                            l,
                            c,
                            format!("invalid JSON: {}", error_message(&e)),
                        ));
                        continue;
                    }
                };
                read_record(&mut session, raw, &cur, "", out);
            }
        }
    }
    session.finish(out);
}

/// Parse a Claude JSON document: one pretty-printed stream-json event (or flat event), or an
/// array of them.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    let mut session = Session::new(input.clone());
    let issue = |e: &serde_json::Error, out: &mut dyn Emit| {
        let (l, c) = error_position(e, 1);
        out.issue(InputIssue::at(
            &input.path,
            l,
            c,
            format!("invalid JSON: {}", error_message(e)),
        ));
    };
    if text.trim_start().starts_with('[') {
        match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) => {
                for (i, raw) in items.iter().enumerate() {
                    read_record(&mut session, raw, &cur, &child("", i), out);
                }
            }
            Err(e) => return issue(&e, out),
        }
    } else {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => read_record(&mut session, raw, &cur, "", out),
            Err(e) => return issue(&e, out),
        }
    }
    session.finish(out);
}

/// `Msg` whose content is a list, its blocks split as it is read (`read_message`).
#[derive(Deserialize)]
struct MsgBlocks<'a> {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(borrow)]
    content: Vec<&'a RawValue>,
}

/// A record's `message` as `read_fields` gets it: its raw value, or already read.
trait MessageBody {
    /// Read the message at `pointer` (its role, else `role`) into `got`; the model of an
    /// assistant message.
    fn read(self, role: Role, cur: &Cursor<'_>, pointer: &str, got: &mut Collected)
    -> Option<String>;
}

impl MessageBody for &RawValue {
    fn read(self, role: Role, cur: &Cursor<'_>, pointer: &str, got: &mut Collected) -> Option<String> {
        read_message(self, role, cur, pointer, got)
    }
}

impl MessageBody for MsgBlocks<'_> {
    fn read(self, role: Role, cur: &Cursor<'_>, pointer: &str, got: &mut Collected) -> Option<String> {
        let role = message_role(self.role.as_deref(), role);
        content::read_content_list(&self.content, role, cur, &child(pointer, "content"), got);
        self.model.filter(|_| role == Role::Assistant)
    }
}

/// A message's role as it says it, else the record's.
fn message_role(said: Option<&str>, role: Role) -> Role {
    match said {
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        _ => role,
    }
}

/// An Anthropic message inside a record.
#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

/// A `progress` line's `data`.
#[derive(Deserialize)]
struct Progress<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(rename = "agentId", default)]
    agent_id: Option<String>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
}

/// The record an `agent_progress` line mirrors.
#[derive(Deserialize)]
struct Mirrored<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
}

/// Is this `tool_use` / `tool_result` line Gemini CLI's stream-json event (`tool_id` with
/// `parameters` or `status`), which a Claude reading would strip of its arguments and verdict?
fn gemini_stream_event(raw: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Keys<'a> {
        #[serde(default, borrow)]
        tool_id: Option<&'a RawValue>,
        #[serde(default, borrow)]
        parameters: Option<&'a RawValue>,
        #[serde(default, borrow)]
        status: Option<&'a RawValue>,
        #[serde(default, borrow)]
        id: Option<&'a RawValue>,
        #[serde(default, borrow)]
        tool_use_id: Option<&'a RawValue>,
        #[serde(default, borrow)]
        input: Option<&'a RawValue>,
    }
    serde_json::from_str::<Keys<'_>>(raw.get()).is_ok_and(|k| {
        k.tool_id.is_some()
            && (k.parameters.is_some() || k.status.is_some())
            && k.id.is_none()
            && k.tool_use_id.is_none()
            && k.input.is_none()
    })
}

/// Read one record into the session.
fn read_record(
    session: &mut Session,
    raw: &RawValue,
    cur: &Cursor<'_>,
    prefix: &str,
    out: &mut dyn Emit,
) {
    let rec: Record<'_> = match serde_json::from_str(raw.get()) {
        Ok(r) => r,
        Err(e) => {
            let at = cur.at(raw, prefix.to_owned());
            let what = if raw.get().starts_with('{') {
                format!("unreadable Claude Code record: {}", error_message(&e))
            } else {
                "not a Claude Code record: expected a JSON object".to_owned()
            };
            session.problem(&at, what, out);
            return;
        }
    };
    read_fields(session, rec, Some(raw), cur, prefix, out);
}

/// Does reading this record need its whole raw value: a tool event or a flat event (no
/// `type`), which are located (and read) as a whole?
fn located_whole<M>(rec: &Record<'_, M>) -> bool {
    matches!(
        rec.kind.as_deref(),
        None | Some("tool_use" | "tool_result" | "server_tool_use" | "mcp_tool_use")
    )
}

/// Read one record's fields into the session. `raw`, the record's whole value, is read only
/// for the records `located_whole` names, and `read_record` always gives it.
fn read_fields<M: MessageBody>(
    session: &mut Session,
    rec: Record<'_, M>,
    raw: Option<&RawValue>,
    cur: &Cursor<'_>,
    prefix: &str,
    out: &mut dyn Emit,
) {
    session.note_context(
        rec.session_id
            .as_deref()
            .or(rec.session_id_snake.as_deref()),
        rec.version
            .as_deref()
            .or(rec.claude_code_version.as_deref()),
    );
    session.note_environment(rec.cwd.as_deref(), rec.git_branch.as_deref());
    session.note_plan(rec.slug.as_deref());
    let mut got = Collected::default();
    let key;
    let mut meta_uuid = rec.uuid.clone();
    let mut timestamp = rec.timestamp.clone();
    let mut model = None;
    match rec.kind.as_deref() {
        Some(kind @ ("user" | "assistant")) => {
            let role = if kind == "user" {
                Role::User
            } else {
                Role::Assistant
            };
            key = session.key_for_line(&rec);
            if let Some(m) = rec.message {
                model = m.read(role, cur, &child(prefix, "message"), &mut got);
            } else if let Some(c) = rec.content {
                content::read_content(c, role, cur, &child(prefix, "content"), &mut got);
            }
        }
        Some("progress") => {
            let Some(data) = rec.data else { return };
            let Ok(p) = serde_json::from_str::<Progress<'_>>(data.get()) else {
                return;
            };
            if p.kind.as_deref() != Some("agent_progress") {
                return;
            }
            let (Some(agent), Some(m)) = (p.agent_id, p.message) else {
                return;
            };
            let Ok(mirrored) = serde_json::from_str::<Mirrored<'_>>(m.get()) else {
                return;
            };
            let role = match mirrored.kind.as_deref() {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                _ => return,
            };
            key = ThreadKey::Agent(agent);
            session.mirror(&key, rec.parent_tool_use_id_camel.as_deref());
            meta_uuid = mirrored.uuid;
            timestamp = mirrored.timestamp.or(timestamp);
            if let Some(inner) = mirrored.message {
                let ptr = child(&child(&child(prefix, "data"), "message"), "message");
                model = read_message(inner, role, cur, &ptr, &mut got);
            }
        }
        Some("system") => {
            if rec.subtype.as_deref() == Some("init") {
                session.init(rec.tools, rec.model.as_deref());
            }
            return;
        }
        Some("result") => {
            if let Some(Value::String(s)) = rec.result {
                session.final_answer(s);
            }
            return;
        }
        Some("tool_use" | "tool_result" | "server_tool_use" | "mcp_tool_use") => {
            let Some(raw) = raw else { return };
            if gemini_stream_event(raw) {
                let at = cur.at(raw, prefix.to_owned());
                session.problem(
                    &at,
                    "a Gemini CLI stream-json event (`tool_id`), not a Claude Code record: read the file with `--input-format gemini-cli`".into(),
                    out,
                );
                return;
            }
            key = ThreadKey::Main;
            content::read_tool_block(raw, cur, prefix, &mut got);
        }
        // What Claude Code put in the user's turn beside the user's words: text the agent
        // observed from there on.
        Some("attachment") => {
            let Some(text) = rec.attachment.and_then(attachment_text) else {
                return;
            };
            key = session.key_for_line(&rec);
            if let Some(a) = rec.attachment {
                got.push(
                    crate::model::StepKind::Message(crate::model::Message {
                        role: Role::User,
                        content: text,
                    }),
                    cur.at(a, child(prefix, "attachment")),
                );
            }
        }
        // summary, queue-operation, file-history-snapshot, and types newer than this reader:
        // nothing to lint, read past.
        Some(_) => return,
        None => {
            let Some(raw) = raw else { return };
            key = ThreadKey::Main;
            if let Some(calls) = rec.tool_calls {
                openai::chat::read_tool_calls(calls, cur, &child(prefix, "tool_calls"), &mut got);
            } else if let Some(call) = rec.function_call {
                let ptr = child(prefix, "function_call");
                openai::chat::read_function_call(call, cur, &ptr, None, &mut got);
            } else if let (Some(Value::String(name)), Some(input)) = (rec.name, rec.input) {
                let args = content::args_owned(serde_json::from_str(input.get()).ok());
                let at = cur.step(raw, &[&name], prefix.to_owned());
                got.push(
                    crate::model::StepKind::ToolCall(crate::model::ToolCall {
                        call_id: None,
                        name,
                        args,
                        raw_args: None,
                        origin: crate::model::CallOrigin::Model,
                    }),
                    at,
                );
            } else {
                let at = cur.at(raw, prefix.to_owned());
                session.problem(
                    &at,
                    "not a Claude Code record: no `type`, and not a flat tool event".into(),
                    out,
                );
                return;
            }
        }
    }
    for item in &mut got.items {
        item.meta.timestamp.clone_from(&timestamp);
        item.meta.source_id.clone_from(&meta_uuid);
        item.meta.parent_id.clone_from(&rec.parent_uuid);
        if matches!(
            item.kind,
            crate::model::StepKind::ToolCall(_) | crate::model::StepKind::Message(_)
        ) {
            item.meta.model.clone_from(&model);
        }
    }
    session.newer(&mut got);
    session.add(&key, got, out);
}

/// Most text kept of one attachment (a file's content can be large; what is past this is not
/// searched for the values the agent used).
const ATTACHMENT_TEXT_CAP: usize = 1 << 20;

/// The text of an attachment: every string in it but its own type and the names of the tools
/// that made it (IDE, hook), one per line, at most `ATTACHMENT_TEXT_CAP` bytes; `None` when
/// it holds none.
fn attachment_text(raw: &RawValue) -> Option<String> {
    fn walk(v: &Value, key: &str, out: &mut String, depth: usize) {
        if out.len() >= ATTACHMENT_TEXT_CAP || depth > 16 {
            return;
        }
        match v {
            Value::String(s)
                if !matches!(
                    key,
                    "type" | "ideName" | "hookName" | "hookEvent" | "toolUseID" | "source_uuid"
                        | "commandMode"
                ) =>
            {
                let room = ATTACHMENT_TEXT_CAP - out.len();
                let mut end = s.len().min(room);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                out.push_str(&s[..end]);
                out.push('\n');
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, key, out, depth + 1);
                }
            }
            Value::Object(m) => {
                for (k, item) in m {
                    walk(item, k, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let value: Value = serde_json::from_str(raw.get()).ok()?;
    let mut text = String::new();
    walk(&value, "", &mut text, 0);
    (!text.trim().is_empty()).then_some(text)
}

/// Read an Anthropic message (`{role, model, content}`); returns its model.
fn read_message(
    raw: &RawValue,
    role: Role,
    cur: &Cursor<'_>,
    pointer: &str,
    got: &mut Collected,
) -> Option<String> {
    // The usual message, its content a list of blocks: read with the blocks split in the same
    // pass (no second pass over the content, most of the record's bytes). Anything else, and
    // anything that does not read so, is read as before.
    if let Ok(m) = serde_json::from_str::<MsgBlocks<'_>>(raw.get()) {
        return m.read(role, cur, pointer, got);
    }
    read_any_message(raw, role, cur, pointer, got)
}

/// `read_message` for a message of any shape: the message first, then its content.
fn read_any_message(
    raw: &RawValue,
    role: Role,
    cur: &Cursor<'_>,
    pointer: &str,
    got: &mut Collected,
) -> Option<String> {
    let m: Msg<'_> = match serde_json::from_str(raw.get()) {
        Ok(m) => m,
        Err(e) => {
            got.problem(
                cur.at(raw, pointer.to_owned()),
                format!("unreadable `message`: {}", error_message(&e)),
            );
            return None;
        }
    };
    let role = message_role(m.role.as_deref(), role);
    if let Some(c) = m.content {
        content::read_content(c, role, cur, &child(pointer, "content"), got);
    }
    m.model.filter(|_| role == Role::Assistant)
}

#[cfg(test)]
mod tests;
