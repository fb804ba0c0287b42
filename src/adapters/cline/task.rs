//! Reading Cline messages (task history and SDK session alike) into one session: assistant
//! `tool_use` blocks are calls; a user text block `[<tool> for '…'] Result:` answers the
//! earliest waiting call (of that name when one waits), a `tool_result` block the call it names.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{
    ContextKind, InputRef, Message, ResultStatus, Role, StepKind, StepMeta, ToolResult,
};

use crate::adapters::Emit;
use crate::adapters::common::agent::{Records, Session};
use crate::adapters::common::content::{self, Collected};
use crate::adapters::common::cursor::{Cursor, child};

/// Reads one Cline conversation.
pub(crate) struct Reader<'i> {
    input: &'i InputRef,
    pub(super) session: Session,
    pub(super) id: Option<String>,
    /// Calls not answered yet: (call id, tool name), in order.
    waiting: Vec<(Option<String>, String)>,
}

impl<'i> Reader<'i> {
    pub(crate) fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(crate::model::ATTR_AGENT, Some(crate::model::AGENT_CLINE));
        Self {
            input,
            session,
            id: None,
            waiting: Vec::new(),
        }
    }

    /// The SDK metadata that goes with the messages read.
    pub(crate) fn sdk_metadata(&mut self, meta: Option<Value>) {
        if let Some(m) = meta {
            self.id = super::apply_metadata(&m, &mut self.session);
        }
    }

    /// A list of messages.
    pub(super) fn messages(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        out: &mut dyn Emit,
    ) {
        match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
            Ok(items) => {
                for (i, m) in items.iter().enumerate() {
                    self.message(m, cur, &child(ptr, i), out);
                }
            }
            Err(_) => self.problem(raw, cur, ptr, "Cline `messages` must be a list", out),
        }
    }

    fn problem(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        why: &str,
        out: &mut dyn Emit,
    ) {
        let input = self.input;
        self.session.problem_at(raw, cur, ptr, why, input, out);
    }

    fn message(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Ok(m) = serde_json::from_str::<Msg<'_>>(raw.get()) else {
            self.problem(raw, cur, ptr, "a Cline message must be an object", out);
            return;
        };
        let meta = StepMeta {
            timestamp: m.ts.as_ref().map(ToString::to_string),
            model: m.model_info.as_ref().and_then(|i| {
                i.get("modelId")
                    .or_else(|| i.get("id"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
            source_id: m.id.clone(),
            ..StepMeta::default()
        };
        let role = match m.role.as_deref() {
            Some("assistant") => Role::Assistant,
            Some("user") => Role::User,
            Some("system") => Role::System,
            _ => {
                self.problem(raw, cur, ptr, "a Cline message needs a `role`", out);
                return;
            }
        };
        let Some(content) = m.content else { return };
        let cptr = child(ptr, "content");
        let mut got = Collected::default();
        if role == Role::User && content.get().starts_with('[') {
            self.user_blocks(content, cur, &cptr, &mut got);
        } else {
            content::read_content(content, role, cur, &cptr, &mut got);
        }
        for item in &mut got.items {
            match &item.kind {
                StepKind::ToolCall(c) => {
                    self.waiting.push((c.call_id.clone(), c.name.clone()));
                    item.meta.model.clone_from(&meta.model);
                }
                StepKind::Message(msg) if role == Role::User => {
                    for dir in working_directories(&msg.content) {
                        self.session
                            .context(ContextKind::WorkingDirectory, Some(dir));
                    }
                }
                _ => {}
            }
            item.meta.timestamp.clone_from(&meta.timestamp);
            item.meta.source_id.clone_from(&meta.source_id);
        }
        self.session
            .attribute(crate::model::ATTR_MODEL, meta.model.as_deref());
        self.session.add(got, &StepMeta::default(), self.input, out);
    }

    /// A user message's blocks: its text, the results the harness wrote as text, and
    /// `tool_result` blocks.
    fn user_blocks(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, got: &mut Collected) {
        let Ok(blocks) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
            got.problem(cur.at(raw, ptr.to_owned()), "unreadable message content");
            return;
        };
        let mut text: Option<(String, crate::model::Location)> = None;
        let flush = |text: &mut Option<(String, crate::model::Location)>, got: &mut Collected| {
            if let Some((t, at)) = text.take()
                && !t.trim().is_empty()
            {
                got.push(
                    StepKind::Message(Message {
                        role: Role::User,
                        content: t,
                    }),
                    at,
                );
            }
        };
        for (i, b) in blocks.iter().enumerate() {
            let bptr = child(ptr, i);
            let Ok(block) = serde_json::from_str::<Block>(b.get()) else {
                continue;
            };
            match block.kind.as_deref() {
                Some("text") | None => {
                    let Some(t) = block.text else { continue };
                    if let Some((name, body)) = result_label(&t) {
                        flush(&mut text, got);
                        let call_id = self.answer(Some(name), None);
                        let at = cur.step(b, &["Result:"], bptr);
                        let result = ToolResult::new(
                            call_id,
                            Value::String(body.to_owned()),
                            ResultStatus::Unknown,
                        );
                        got.push(StepKind::ToolResult(result), at);
                    } else {
                        match &mut text {
                            Some((s, _)) => {
                                s.push('\n');
                                s.push_str(&t);
                            }
                            None => text = Some((t, cur.at(b, bptr))),
                        }
                    }
                }
                Some(kind) if kind == "tool_result" || kind.ends_with("_tool_result") => {
                    flush(&mut text, got);
                    let mut one = Collected::default();
                    content::read_tool_block(b, cur, &bptr, &mut one);
                    for mut item in one.items {
                        if let StepKind::ToolResult(r) = &mut item.kind {
                            let id = r.call_id.clone();
                            self.answer(None, id.as_deref());
                            if r.status == ResultStatus::Unknown
                                && let Some((status, error)) = request_verdict(&r.content)
                            {
                                r.status = status;
                                r.error = error;
                            }
                        }
                        got.items.push(item);
                    }
                    got.problems.extend(one.problems);
                }
                Some(_) => {}
            }
        }
        flush(&mut text, got);
    }

    /// Take the call a result answers: the one with `id`, else the earliest waiting call of
    /// `name`, else the earliest waiting call. Its id, if it has one.
    fn answer(&mut self, name: Option<&str>, id: Option<&str>) -> Option<String> {
        let at = match id {
            Some(id) => self
                .waiting
                .iter()
                .position(|(c, _)| c.as_deref() == Some(id)),
            None => name
                .and_then(|n| self.waiting.iter().position(|(_, w)| w == n))
                .or((!self.waiting.is_empty()).then_some(0)),
        };
        match at {
            Some(i) => self.waiting.remove(i).0,
            None => id.map(str::to_owned),
        }
    }
}

impl Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        if raw.get().starts_with('[') {
            self.messages(raw, cur, ptr, out);
        } else if !sdk_messages(self, raw, cur, ptr, out) {
            self.message(raw, cur, ptr, out);
        }
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(self, out: &mut dyn Emit) {
        self.session.emit(self.id, self.input, out);
    }
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    ts: Option<Value>,
    #[serde(rename = "modelInfo", default)]
    model_info: Option<Value>,
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

/// `[<tool> for '<summary>'] Result:` (or `[<tool>] Result:`) at the start of a text: the tool
/// name and the result's text.
fn result_label(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('[')?;
    let (first, body) = rest.split_once('\n').unwrap_or((rest, ""));
    let head = first.trim_end().strip_suffix("] Result:")?;
    let name = head.split_once(" for ").map_or(head, |(n, _)| n).trim();
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some((name, body))
}

/// The working directory Cline's environment details name (`# Current Working Directory (…)`).
fn working_directories(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        l.strip_prefix("# Current Working Directory (")?
            .split_once(')')
            .map(|(dir, _)| dir.trim())
            .filter(|d| !d.is_empty())
    })
}

/// The verdict of a Cline SDK tool's output: one `{query, result, success, error?}` per
/// request (a list, or one object, maybe as JSON text). Every request succeeded → ok; one
/// failed → error, with its `error`.
fn request_verdict(content: &Value) -> Option<(ResultStatus, Option<String>)> {
    let parsed;
    let v = match content {
        Value::String(_) => {
            parsed = crate::model::json_in_string(content)?;
            &parsed
        }
        other => other,
    };
    let items: Vec<&Value> = match v {
        Value::Array(a) if !a.is_empty() => a.iter().collect(),
        Value::Object(_) => vec![v],
        _ => return None,
    };
    let mut failed = None;
    for item in items {
        match item.get("success")? {
            Value::Bool(true) => {}
            Value::Bool(false) => {
                failed.get_or_insert_with(|| {
                    item.get("error")
                        .and_then(Value::as_str)
                        .map_or_else(|| "a request failed".to_owned(), str::to_owned)
                });
            }
            _ => return None,
        }
    }
    Some(match failed {
        Some(e) => (ResultStatus::Error, Some(e)),
        None => (ResultStatus::Ok, None),
    })
}


/// An SDK messages file's top level.
#[derive(Deserialize)]
pub(super) struct SdkMessages<'a> {
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    origin: Option<Value>,
    #[serde(default, borrow)]
    messages: Option<&'a RawValue>,
    #[serde(default)]
    system_prompt: Option<String>,
}

pub(super) fn pointer_to_messages(ptr: &str) -> String {
    child(ptr, "messages")
}

/// Read an SDK messages file's top level into `reader`; false when it is not one.
pub(super) fn sdk_messages(
    reader: &mut Reader<'_>,
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    out: &mut dyn Emit,
) -> bool {
    let Ok(m) = serde_json::from_str::<SdkMessages<'_>>(raw.get()) else {
        return false;
    };
    let Some(messages) = m.messages else {
        return false;
    };
    reader.id = reader.id.take().or(m.session_id);
    let s = &mut reader.session;
    s.attribute("cline_agent", m.agent.as_deref());
    let version = m
        .origin
        .as_ref()
        .and_then(|o| o.get("version"))
        .and_then(Value::as_str);
    s.attribute(crate::model::ATTR_AGENT_VERSION, version);
    s.context(ContextKind::Instructions, m.system_prompt.as_deref());
    reader.messages(messages, cur, &pointer_to_messages(ptr), out);
    true
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn result_labels() {
        assert_eq!(
            result_label("[read_file for 'notes.txt'] Result:\n1 | x"),
            Some(("read_file", "1 | x"))
        );
        assert_eq!(
            result_label("[subagents] Result:\nok"),
            Some(("subagents", "ok"))
        );
        assert_eq!(result_label("[ERROR] You did not use a tool"), None);
        assert_eq!(result_label("plain text"), None);
    }

    #[test]
    fn sdk_request_verdicts() {
        let ok = serde_json::json!([{"query": "a", "result": "x", "success": true}]);
        assert_eq!(request_verdict(&ok), Some((ResultStatus::Ok, None)));
        let bad = serde_json::json!([{"success": true}, {"success": false, "error": "exit 1"}]);
        assert_eq!(
            request_verdict(&bad),
            Some((ResultStatus::Error, Some("exit 1".into())))
        );
        let text = serde_json::json!("{\"query\":\"edit\",\"success\":true}");
        assert_eq!(request_verdict(&text), Some((ResultStatus::Ok, None)));
        assert_eq!(request_verdict(&serde_json::json!("plain")), None);
        assert_eq!(request_verdict(&serde_json::json!([{"result": 1}])), None);
    }
}
