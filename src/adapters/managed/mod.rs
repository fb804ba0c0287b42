//! The `managed-agents` format: the session events of Claude Managed Agents (the Anthropic API's
//! hosted agent sessions), one a line, bare (`{"type": "agent.tool_use", "id", "name",
//! "input"}`) or as exports keep them, wrapped with a summary (`{"role", "kind", "time", "raw":
//! <event>}`). `agent.tool_use` (and `agent.mcp_tool_use`, `agent.custom_tool_use`) events are
//! the calls, named by their `id`; `agent.tool_result` (`agent.mcp_tool_result`) events answer
//! the call their `tool_use_id` (`mcp_tool_use_id`) names, `is_error` their verdict.
//! `agent.message` is the model's text, `user.message` and `user.define_outcome` the user's;
//! status, span and usage events are not the model's calls: read past. A file is one trace.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{CallOrigin, InputRef, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall, ToolResult};

use crate::adapters::Emit;
use crate::adapters::common::agent::{self, Records, Session};
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::Line;

/// The prefixes of the session events' types.
const EVENT_PREFIXES: &[&str] = &["agent.", "user.", "session.", "span."];

/// Whether `t` is a session event's type.
fn is_event_type(t: &str) -> bool {
    EVENT_PREFIXES.iter().any(|p| t.starts_with(p)) && t.len() < 64
}

/// How strongly a record looks like a Managed Agents session event.
pub fn sniff(record: &Value) -> u8 {
    let event_type = |v: &Value| {
        v.get("type")
            .and_then(Value::as_str)
            .is_some_and(is_event_type)
    };
    match record.get("raw") {
        // The export's wrapper: its own `role` and `kind` over the event.
        Some(raw) if event_type(raw) && record.get("kind").is_some() => 12,
        _ if event_type(record)
            && record.get("id").and_then(Value::as_str).is_some_and(|i| i.starts_with("sevt_")) =>
        {
            12
        }
        _ => 0,
    }
}

/// Parse events one a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(Reader::new(input), lines, input, out);
}

/// Parse events saved as one JSON array.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    agent::read_document(Reader::new(input), text, input, out, false);
}

#[derive(Deserialize)]
struct Wrapper<'a> {
    #[serde(default, borrow)]
    raw: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    tool_use_id: Option<Value>,
    #[serde(default)]
    mcp_tool_use_id: Option<Value>,
    #[serde(default)]
    custom_tool_use_id: Option<Value>,
    #[serde(default)]
    is_error: Option<Value>,
    #[serde(default)]
    processed_at: Option<String>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(
            crate::model::ATTR_AGENT,
            Some(crate::model::AGENT_MANAGED_AGENTS),
        );
        Self { input, session }
    }

    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let (event, eptr) = match serde_json::from_str::<Wrapper<'_>>(raw.get()) {
            Ok(Wrapper { raw: Some(inner) }) => (inner, child(ptr, "raw")),
            Ok(_) => (raw, ptr.to_owned()),
            Err(_) => {
                let why = "not a Managed Agents session event: expected a JSON object";
                self.session.problem_at(raw, cur, ptr, why, self.input, out);
                return;
            }
        };
        let Ok(e) = serde_json::from_str::<Event<'_>>(event.get()) else {
            let why = "not a Managed Agents session event: expected an object with a string `type`";
            self.session.problem_at(event, cur, &eptr, why, self.input, out);
            return;
        };
        let meta = StepMeta {
            timestamp: e.processed_at.clone(),
            source_id: id_of(e.id.as_ref()),
            ..StepMeta::default()
        };
        let mut got = Collected::default();
        let cptr = child(&eptr, "content");
        match e.kind.as_deref() {
            Some("user.message") | Some("agent.message") => {
                let role = if e.kind.as_deref() == Some("user.message") {
                    Role::User
                } else {
                    Role::Assistant
                };
                if let Some(c) = e.content {
                    content::read_content(c, role, cur, &cptr, &mut got);
                }
            }
            Some("user.define_outcome") => {
                if let Some(d) = e.description.filter(|d| !d.trim().is_empty()) {
                    got.push(
                        StepKind::Message(Message {
                            role: Role::User,
                            content: d,
                        }),
                        cur.at(event, eptr.clone()),
                    );
                }
            }
            Some("agent.tool_use" | "agent.mcp_tool_use" | "agent.custom_tool_use") => {
                let id = id_of(e.id.as_ref());
                let Some(Value::String(name)) = e.name else {
                    got.problem(
                        cur.at(event, eptr.clone()),
                        "a Managed Agents tool use needs a string `name`",
                    );
                    self.session.add(got, &meta, self.input, out);
                    return;
                };
                let at = cur.step(event, &[id.as_deref().unwrap_or(""), &name], eptr.clone());
                let (args, raw_args) = match e.input {
                    Some(Value::String(s)) => (crate::adapters::common::args::from_text(&s), Some(s)),
                    other => (content::args_owned(other), None),
                };
                got.push(
                    StepKind::ToolCall(ToolCall {
                        call_id: id,
                        name,
                        args,
                        raw_args,
                        origin: CallOrigin::Model,
                    }),
                    at,
                );
            }
            Some("agent.tool_result" | "agent.mcp_tool_result" | "agent.custom_tool_result") => {
                let id = id_of(
                    e.tool_use_id
                        .as_ref()
                        .or(e.mcp_tool_use_id.as_ref())
                        .or(e.custom_tool_use_id.as_ref()),
                );
                let body: Option<Value> = e.content.and_then(|c| serde_json::from_str(c.get()).ok());
                let recorded = body.is_some();
                let status = match e.is_error {
                    Some(Value::Bool(true)) => ResultStatus::Error,
                    Some(Value::Bool(false)) => ResultStatus::Ok,
                    _ => ResultStatus::Unknown,
                };
                let mut r = ToolResult::new(id.clone(), content::result_content(body), status);
                if status == ResultStatus::Error {
                    r.error = r.content.as_str().map(str::to_owned);
                }
                r.content_recorded = recorded;
                let at = cur.step(event, &[id.as_deref().unwrap_or("")], eptr.clone());
                got.push(StepKind::ToolResult(r), at);
            }
            Some(t) if is_event_type(t) => {}
            _ => {
                let why = "not a Managed Agents session event: expected an object with a string `type`";
                self.session.problem_at(event, cur, &eptr, why, self.input, out);
                return;
            }
        }
        self.session.add(got, &meta, self.input, out);
    }
}

impl Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        Reader::record(self, raw, cur, ptr, out);
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(self, out: &mut dyn Emit) {
        self.session.emit(None, self.input, out);
    }
}

#[cfg(test)]
mod tests;
