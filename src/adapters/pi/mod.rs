//! The `pi` format: pi coding-agent sessions (npm `@mariozechner/pi-coding-agent`,
//! `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`), one entry a line. The first line is the
//! header `{"type":"session", version, id, timestamp, cwd}`; `message` entries carry an
//! `AgentMessage` in `message`: a `user` turn (`content` a string or text parts), an
//! `assistant` turn whose `content` holds `text`, `thinking` and `toolCall {id, name,
//! arguments}` items (with its `model`), or a `toolResult` (`toolCallId`, `toolName`,
//! `content` parts, `isError`: the structured verdict). `model_change` gives the model; the
//! other entries (`thinking_level_change`, `compaction`, `branch_summary`, `custom`, `label`,
//! `session_info`, …) and messages of other roles (`bashExecution`, the user's own shell
//! commands; `custom`, `branchSummary`, `compactionSummary`) are not the model's calls: read
//! past. Entries form a tree by `parentId` (a branch the user left stays in the file): every
//! entry is read once, in file order. One file is one trace, named by the header's `id`.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{
    CallOrigin, ContextKind, InputRef, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall,
    ToolResult,
};

use crate::adapters::Emit;
use crate::adapters::common::agent::{self, Records, Session};
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::Line;

/// `Trace::attributes` key: when the session started (its header's time).
pub const ATTR_STARTED: &str = "session_started";

/// The roles of a session's messages.
const ROLES: &[&str] = &[
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
];

/// Entry types besides `session` and `message`.
const ENTRY_TYPES: &[&str] = &[
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

/// How strongly a record looks like a pi session entry.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let has = |k: &str| m.contains_key(k);
    match m.get("type").and_then(Value::as_str) {
        Some("session") if has("cwd") && has("timestamp") && (has("id") || has("version")) => 12,
        Some("message") => {
            let role = m
                .get("message")
                .and_then(|x| x.get("role"))
                .and_then(Value::as_str);
            match role {
                Some(r) if ROLES.contains(&r) && !has("role") => {
                    if r == "toolResult" || has("parentId") { 10 } else { 6 }
                }
                _ => 0,
            }
        }
        Some(t) if ENTRY_TYPES.contains(&t) && has("parentId") => 8,
        _ => 0,
    }
}

/// Parse a session file.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(Reader::new(input), lines, input, out);
}

/// Parse entries saved as one JSON array.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    agent::read_document(Reader::new(input), text, input, out, false);
}

#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(rename = "modelId", default)]
    model_id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(default)]
    role: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    model: Option<String>,
    #[serde(rename = "toolCallId", default)]
    tool_call_id: Option<Value>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
    #[serde(rename = "stopReason", default)]
    stop_reason: Option<String>,
    #[serde(rename = "errorMessage", default)]
    error_message: Option<String>,
}

#[derive(Deserialize)]
struct Part {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    arguments: Option<Value>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
    id: Option<String>,
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(crate::model::ATTR_AGENT, Some(crate::model::AGENT_PI));
        Self {
            input,
            session,
            id: None,
        }
    }

    fn entry(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Ok(e) = serde_json::from_str::<Entry<'_>>(raw.get()) else {
            let input = self.input;
            let why = "not a pi session entry: expected a JSON object";
            self.session.problem_at(raw, cur, ptr, why, input, out);
            return;
        };
        let timestamp = match &e.timestamp {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        match e.kind.as_deref() {
            Some("session") => {
                if self.id.is_none() {
                    self.id = id_of(e.id.as_ref());
                }
                let s = &mut self.session;
                s.attribute(ATTR_STARTED, timestamp.as_deref());
                s.context(ContextKind::WorkingDirectory, e.cwd.as_deref());
                s.attribute(crate::model::ATTR_MODEL, e.model.as_deref());
            }
            Some("model_change") => {
                self.session
                    .attribute(crate::model::ATTR_MODEL, e.model_id.as_deref());
            }
            Some("message") => {
                let Some(m) = e.message else {
                    let input = self.input;
                    let why = "a pi `message` entry needs a `message`";
                    self.session.problem_at(raw, cur, ptr, why, input, out);
                    return;
                };
                let meta = StepMeta {
                    timestamp,
                    source_id: id_of(e.id.as_ref()),
                    ..StepMeta::default()
                };
                let got = self.message(m, cur, &child(ptr, "message"), &meta);
                self.session.add(got, &meta, self.input, out);
            }
            _ => {}
        }
    }

    fn message(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, meta: &StepMeta) -> Collected {
        let mut got = Collected::default();
        let Ok(msg) = serde_json::from_str::<Msg<'_>>(raw.get()) else {
            got.problem(cur.at(raw, ptr.to_owned()), "a pi message must be an object");
            return got;
        };
        let cptr = child(ptr, "content");
        match msg.role.as_deref() {
            Some("user") => {
                if let Some(c) = msg.content {
                    content::read_content(c, Role::User, cur, &cptr, &mut got);
                }
            }
            Some("assistant") => {
                self.session
                    .attribute(crate::model::ATTR_MODEL, msg.model.as_deref());
                if let Some(c) = msg.content {
                    assistant_content(c, cur, &cptr, &mut got);
                }
                if msg.stop_reason.as_deref() == Some("error")
                    && let Some(e) = msg.error_message.filter(|e| !e.trim().is_empty())
                {
                    // The model request failed: a fact about the run, not a tool's result.
                    let note = (
                        crate::model::ATTR_NOTE.to_owned(),
                        format!("a model request failed: {}", e.trim()),
                    );
                    if !self.session.attributes.contains(&note) {
                        self.session.attributes.push(note);
                    }
                }
                for item in &mut got.items {
                    if item.meta.is_empty() {
                        item.meta = meta.clone();
                    }
                    item.meta.model.clone_from(&msg.model);
                }
            }
            Some("toolResult") => {
                let id = id_of(msg.tool_call_id.as_ref());
                let at = cur.step(raw, &[id.as_deref().unwrap_or("")], ptr.to_owned());
                let body: Option<Value> =
                    msg.content.and_then(|c| serde_json::from_str(c.get()).ok());
                let recorded = body.is_some();
                let text = content::result_content(body);
                let status = match msg.is_error {
                    Some(true) => ResultStatus::Error,
                    Some(false) => ResultStatus::Ok,
                    None => ResultStatus::Unknown,
                };
                let mut r = ToolResult::new(id, text, status);
                if status == ResultStatus::Error {
                    r.error = r.content.as_str().map(str::to_owned);
                }
                r.content_recorded = recorded;
                got.push(StepKind::ToolResult(r), at);
            }
            _ => {}
        }
        got
    }
}

/// An assistant's `content`: text and `toolCall` items (thinking read past).
fn assistant_content(raw: &RawValue, cur: &Cursor<'_>, ptr: &str, got: &mut Collected) {
    if raw.get().starts_with('"') {
        content::read_content(raw, Role::Assistant, cur, ptr, got);
        return;
    }
    let Ok(parts) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
        got.problem(cur.at(raw, ptr.to_owned()), "an assistant's `content` must be a list");
        return;
    };
    let mut text: Option<(String, crate::model::Location)> = None;
    let mut calls = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let pptr = child(ptr, i);
        let Ok(part) = serde_json::from_str::<Part>(p.get()) else {
            continue;
        };
        match part.kind.as_deref() {
            Some("text") => {
                if let Some(t) = part.text.filter(|t| !t.trim().is_empty()) {
                    match &mut text {
                        Some((s, _)) => {
                            s.push('\n');
                            s.push_str(&t);
                        }
                        None => text = Some((t, cur.at(p, pptr))),
                    }
                }
            }
            Some("toolCall") => {
                let id = id_of(part.id.as_ref());
                let Some(Value::String(name)) = part.name else {
                    got.problem(cur.at(p, pptr), "a `toolCall` needs a string `name`");
                    continue;
                };
                let at = cur.step(p, &[id.as_deref().unwrap_or(""), &name], pptr);
                let (args, raw_args) = match part.arguments {
                    Some(Value::String(s)) => {
                        (crate::adapters::common::args::from_text(&s), Some(s))
                    }
                    other => (content::args_owned(other), None),
                };
                calls.push((
                    StepKind::ToolCall(ToolCall {
                        call_id: id,
                        name,
                        args,
                        raw_args,
                        origin: CallOrigin::Model,
                    }),
                    at,
                ));
            }
            _ => {}
        }
    }
    if let Some((t, at)) = text {
        got.push(
            StepKind::Message(Message {
                role: Role::Assistant,
                content: t,
            }),
            at,
        );
    }
    for (kind, at) in calls {
        got.push(kind, at);
    }
}

impl Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        self.entry(raw, cur, ptr, out);
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(self, out: &mut dyn Emit) {
        self.session.emit(self.id, self.input, out);
    }
}

#[cfg(test)]
mod tests;
