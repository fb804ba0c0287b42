//! Gemini CLI's `--output-format stream-json` transcript: one event a line, `{type, timestamp,
//! …}` with `type` one of `init` (`session_id`, `model`), `message` (`role`: `user` or
//! `assistant`, `content`; an assistant's text arrives in `delta: true` pieces, joined here
//! into one message), `tool_use` (`tool_name`, `tool_id`, `parameters`: the call as the CLI
//! ran it, its name as the CLI records it, MCP tools included), `tool_result` (`tool_id`,
//! `status`: `success` or `error`, the one structured verdict; `output`, the text the CLI
//! displays, absent or empty for tools whose display is not text; `error{type, message}`, the
//! text the model was given), `error` (the CLI warning its user, never sent to the model: read
//! past) and `result` (the run's end: `status`, `stats`). The stream records no CLI version: the
//! `init` event's time stands for the session's start.

use serde::Deserialize;
use serde_json::{Map, Value};
use serde_json::value::RawValue;

use crate::model::{
    CallOrigin, Location, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall, ToolResult,
};

use crate::adapters::common::agent::Session;
use crate::adapters::common::content::{self, Collected, Item, id_of};
use crate::adapters::common::raw;
use crate::adapters::common::cursor::Cursor;

/// The event types of a stream-json transcript.
pub(super) const EVENT_TYPES: &[&str] = &["init", "message", "tool_use", "tool_result", "error", "result"];

/// How strongly an object looks like a stream-json event (0: not one).
pub(super) fn sniff(m: &Map<String, Value>) -> u8 {
    let has = |k: &str| m.contains_key(k);
    let string = |k: &str| m.get(k).is_some_and(Value::is_string);
    match m.get("type").and_then(Value::as_str) {
        Some("init") if string("session_id") && has("model") => 12,
        Some("tool_use") if string("tool_name") && has("tool_id") && has("parameters") => 12,
        Some("tool_result") if has("tool_id") && string("status") => 12,
        Some("result") if string("status") && m.get("stats").is_some_and(Value::is_object) => 10,
        Some("message")
            if string("timestamp")
                && string("content")
                && matches!(m.get("role").and_then(Value::as_str), Some("user" | "assistant"))
                && !has("id") =>
        {
            if has("delta") { 10 } else { 6 }
        }
        Some("error") if string("severity") && string("message") && !has("id") => 8,
        _ => 0,
    }
}

/// Is this record a stream-json event (rather than a session log record)?
pub(super) fn is_event(raw: &RawValue) -> bool {
    raw::is_typed_event(raw, EVENT_TYPES, "id")
}

/// Is this event an `init` (a run's start)?
pub(super) fn is_init(raw: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "type", default, borrow)]
        kind: Option<&'a str>,
    }
    serde_json::from_str::<Head<'_>>(raw.get()).is_ok_and(|h| h.kind == Some("init"))
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    delta: Option<bool>,
    #[serde(default)]
    tool_name: Option<Value>,
    #[serde(default)]
    tool_id: Option<Value>,
    #[serde(default)]
    parameters: Option<Value>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

/// A message being assembled from `delta` pieces.
struct Pending {
    role: Role,
    text: String,
    at: Location,
    meta: StepMeta,
}

/// The reading state of one transcript.
#[derive(Default)]
pub(super) struct Stream {
    /// The `session_id` of the `init` event.
    pub(super) session_id: Option<String>,
    /// The assistant's or user's text not yet ended by another event.
    pending: Option<Pending>,
}

impl Stream {
    /// Read one event into `session` (`started`: the attribute the `init` event's time is
    /// kept under).
    pub(super) fn event(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        session: &mut Session,
        started: &str,
    ) -> Collected {
        let mut got = Collected::default();
        let ev = match serde_json::from_str::<Event>(raw.get()) {
            Ok(ev) => ev,
            Err(_) => {
                got.problem(
                    cur.at(raw, ptr.to_owned()),
                    "not a Gemini CLI stream-json event: expected an object with a `type`",
                );
                return got;
            }
        };
        let meta = StepMeta {
            timestamp: ev.timestamp.clone(),
            ..StepMeta::default()
        };
        let kind = ev.kind.as_deref().unwrap_or("");
        if kind != "message" {
            self.flush(session);
        }
        match kind {
            "init" => {
                if self.session_id.is_none() {
                    self.session_id = ev.session_id.filter(|s| !s.is_empty());
                }
                session.attribute(crate::model::ATTR_MODEL, ev.model.as_deref());
                session.attribute(started, ev.timestamp.as_deref());
            }
            "message" => self.message(raw, cur, ptr, ev, meta, session),
            "tool_use" => {
                let id = id_of(ev.tool_id.as_ref());
                let Some(Value::String(name)) = ev.tool_name else {
                    got.problem(
                        cur.at(raw, ptr.to_owned()),
                        "a stream-json `tool_use` event needs a string `tool_name`",
                    );
                    return got;
                };
                let at = cur.step(raw, &[id.as_deref().unwrap_or(""), &name], ptr.to_owned());
                let mut item = Item::new(
                    StepKind::ToolCall(ToolCall {
                        call_id: id,
                        name,
                        args: content::args_owned(ev.parameters),
                        raw_args: None,
                        origin: CallOrigin::Model,
                    }),
                    at,
                );
                item.meta = meta;
                got.items.push(item);
            }
            "tool_result" => {
                let id = id_of(ev.tool_id.as_ref());
                let at = cur.step(raw, &[id.as_deref().unwrap_or("")], ptr.to_owned());
                let status = match ev.status.as_deref() {
                    Some("success") => ResultStatus::Ok,
                    Some("error") => ResultStatus::Error,
                    _ => ResultStatus::Unknown,
                };
                // The model was given the error's message (the result's content when there is
                // one); `output` is what the CLI displays.
                let error = ev.error.as_ref().filter(|e| !e.is_null()).map(|e| {
                    e.get("message")
                        .and_then(Value::as_str)
                        .map_or_else(|| e.to_string(), str::to_owned)
                });
                let shown = ev.output.filter(|o| match o {
                    Value::String(s) => !s.is_empty(),
                    other => !other.is_null(),
                });
                let (content, recorded) = match (shown, &error) {
                    (_, Some(e)) => (Value::String(e.clone()), true),
                    (Some(o), None) => (content::result_content(Some(o)), true),
                    // No text shown (a file written, a listing displayed as a widget): the
                    // stream does not record what the model was given.
                    (None, None) => (Value::Null, false),
                };
                let mut r = ToolResult::new(id, content, status);
                r.error = match (status, error) {
                    (ResultStatus::Error, None) => r.content.as_str().map(str::to_owned),
                    (_, e) => e,
                };
                r.content_recorded = recorded;
                let mut item = Item::new(StepKind::ToolResult(r), at);
                item.meta = meta;
                got.items.push(item);
            }
            // `error`: a warning to the user; `result`: the end of the run.
            _ => {}
        }
        got
    }

    /// A `message` event: text of the user or the assistant; `delta` pieces of one turn join.
    fn message(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        ev: Event,
        meta: StepMeta,
        session: &mut Session,
    ) {
        let role = match ev.role.as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                self.flush(session);
                return;
            }
        };
        let text = match ev.content {
            Some(Value::String(s)) => s,
            other => content::text_of(other.as_ref()),
        };
        let delta = ev.delta == Some(true);
        if let Some(p) = &mut self.pending
            && delta
            && p.role == role
        {
            p.text.push_str(&text);
            return;
        }
        self.flush(session);
        self.pending = Some(Pending {
            role,
            text,
            at: cur.at(raw, ptr.to_owned()),
            meta,
        });
        if !delta {
            self.flush(session);
        }
    }

    /// End the message being assembled.
    pub(super) fn flush(&mut self, session: &mut Session) {
        if let Some(p) = self.pending.take()
            && !p.text.trim().is_empty()
        {
            let mut item = Item::new(
                StepKind::Message(Message {
                    role: p.role,
                    content: p.text,
                }),
                p.at,
            );
            item.meta = p.meta;
            session.items.push(item);
        }
    }
}
