//! The `opencode` format: OpenCode sessions as `opencode export` writes them, one JSON
//! document `{info: {id, version, directory, parentID?, …}, messages: [{info: {role, id,
//! modelID?, …}, parts: […]}]}`, and the events `opencode run --format json` prints, one a line
//! (`{type, timestamp, sessionID, part}`). A `tool` part is one call and, once it finished, its
//! result: `{callID, tool, state: {status, input, output, error}}`, where `status` is the
//! structured verdict (`completed` ok, `error` failed; `pending` and `running` have no result
//! yet). `text` parts are the message's text; `reasoning`, `step-start`, `step-finish`,
//! `patch`, `file`, `snapshot` and the other parts are not the model's calls: read past. A
//! session that is a sub-agent's (`info.parentID`) is a file, hence a trace, of its own.

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

/// `Trace::attributes` key: the session a sub-agent's session was started from.
pub const ATTR_PARENT: &str = "parent_session";

/// The part types OpenCode writes.
const PART_TYPES: &[&str] = &[
    "text",
    "tool",
    "reasoning",
    "step-start",
    "step-finish",
    "patch",
    "file",
    "snapshot",
    "agent",
    "subtask",
    "retry",
    "compaction",
];

/// How strongly a record looks like an OpenCode export or run event.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    // `opencode export`: `{info: {id: "ses_…", …}, messages: [{info, parts}]}`.
    let info_id = m
        .get("info")
        .and_then(|i| i.get("id"))
        .and_then(Value::as_str);
    if info_id.is_some_and(|i| i.starts_with("ses_")) && m.get("messages").is_some_and(Value::is_array)
    {
        return 12;
    }
    if m.get("info").is_some_and(Value::is_object) && m.get("parts").is_some_and(Value::is_array) {
        return 8;
    }
    // `opencode run --format json`: `{type, sessionID, part: {type, …}}`.
    let part_type = m
        .get("part")
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str);
    if m.get("sessionID").is_some_and(Value::is_string)
        && part_type.is_some_and(|t| PART_TYPES.contains(&t))
    {
        return 12;
    }
    0
}

/// Parse an export (one document) or events saved as an array.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let whole = !text.trim_start().starts_with('[');
    agent::read_document(Reader::new(input), text, input, out, whole);
}

/// Parse `opencode run --format json` events (or exports, one a line).
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(Reader::new(input), lines, input, out);
}

#[derive(Deserialize)]
struct Top<'a> {
    #[serde(default, borrow)]
    info: Option<&'a RawValue>,
    #[serde(default, borrow)]
    messages: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    parts: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    part: Option<&'a RawValue>,
    #[serde(rename = "sessionID", default)]
    session_id: Option<String>,
}

#[derive(Deserialize, Default)]
struct Info {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    directory: Option<String>,
    #[serde(rename = "parentID", default)]
    parent_id: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(rename = "modelID", default)]
    model_id: Option<String>,
    #[serde(default)]
    model: Option<Value>,
}

#[derive(Deserialize)]
struct Part {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    text: Option<String>,
    #[serde(rename = "callID", default)]
    call_id: Option<Value>,
    #[serde(default)]
    tool: Option<Value>,
    #[serde(default)]
    state: Option<State>,
    #[serde(default)]
    synthetic: Option<bool>,
}

#[derive(Deserialize)]
struct State {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
    id: Option<String>,
    /// Call ids read, and whether their result was (a run's events repeat a part as it
    /// changes).
    calls_seen: std::collections::HashMap<String, usize>,
    /// How many calls of an export had each call id.
    owners: std::collections::HashMap<String, usize>,
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(crate::model::ATTR_AGENT, Some(crate::model::AGENT_OPENCODE));
        Self {
            input,
            session,
            id: None,
            calls_seen: std::collections::HashMap::new(),
            owners: std::collections::HashMap::new(),
        }
    }

    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Ok(top) = serde_json::from_str::<Top<'_>>(raw.get()) else {
            let input = self.input;
            let why = "not an OpenCode session or event: expected a JSON object";
            self.session.problem_at(raw, cur, ptr, why, input, out);
            return;
        };
        if let Some(messages) = top.messages {
            if let Some(info) = top.info {
                self.session_info(info);
            }
            for (i, m) in messages.iter().enumerate() {
                self.message(m, cur, &child(&child(ptr, "messages"), i), out);
            }
        } else if top.parts.is_some() {
            self.message(raw, cur, ptr, out);
        } else if let Some(part) = top.part {
            if self.id.is_none() {
                self.id = top.session_id.filter(|s| !s.is_empty());
            }
            let mut got = Collected::default();
            self.part(part, Role::Assistant, true, cur, &child(ptr, "part"), &mut got);
            self.session.add(got, &StepMeta::default(), self.input, out);
        } else {
            let input = self.input;
            let why = "not an OpenCode session or event: no `messages`, `parts` or `part`";
            self.session.problem_at(raw, cur, ptr, why, input, out);
        }
    }

    fn session_info(&mut self, raw: &RawValue) {
        let info: Info = serde_json::from_str(raw.get()).unwrap_or_default();
        if self.id.is_none() {
            self.id = info.id.filter(|s| !s.is_empty());
        }
        let s = &mut self.session;
        s.attribute(crate::model::ATTR_AGENT_VERSION, info.version.as_deref());
        s.attribute(ATTR_PARENT, info.parent_id.as_deref());
        s.context(ContextKind::WorkingDirectory, info.directory.as_deref());
    }

    /// A message `{info, parts}`.
    fn message(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Ok(top) = serde_json::from_str::<Top<'_>>(raw.get()) else {
            let input = self.input;
            self.session
                .problem_at(raw, cur, ptr, "an OpenCode message must be an object", input, out);
            return;
        };
        let info: Info = top
            .info
            .and_then(|i| serde_json::from_str(i.get()).ok())
            .unwrap_or_default();
        let role = match info.role.as_deref() {
            Some("user") => Role::User,
            _ => Role::Assistant,
        };
        let model = info.model_id.clone().or_else(|| {
            info.model
                .as_ref()
                .and_then(|m| m.get("modelID"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        if role == Role::Assistant {
            self.session
                .attribute(crate::model::ATTR_MODEL, model.as_deref());
        }
        let meta = StepMeta {
            source_id: info.id.clone(),
            model: if role == Role::Assistant { model } else { None },
            ..StepMeta::default()
        };
        let mut got = Collected::default();
        for (i, p) in top.parts.iter().flatten().enumerate() {
            self.part(p, role, false, cur, &child(&child(ptr, "parts"), i), &mut got);
        }
        self.session.add(got, &meta, self.input, out);
    }

    fn part(
        &mut self,
        raw: &RawValue,
        role: Role,
        event: bool,
        cur: &Cursor<'_>,
        ptr: &str,
        got: &mut Collected,
    ) {
        let Ok(part) = serde_json::from_str::<Part>(raw.get()) else {
            got.problem(cur.at(raw, ptr.to_owned()), "an OpenCode part must be an object");
            return;
        };
        match part.kind.as_deref() {
            Some("text") if part.synthetic != Some(true) => {
                if let Some(t) = part.text.filter(|t| !t.trim().is_empty()) {
                    // Cited at the line of its `text` (a pretty-printed export spreads a part
                    // over lines).
                    let at = cur.step(raw, &["\"text\":"], ptr.to_owned());
                    got.push(StepKind::Message(Message { role, content: t }), at);
                }
            }
            Some("tool") => self.tool(raw, part, event, cur, ptr, got),
            _ => {}
        }
    }

    /// A `tool` part: the call, and its result once it finished. A run's events repeat a part
    /// (same part `id`) as it changes: there the call is read once, its result from the
    /// finished copy. In an export each part is its own call; a call id an earlier call already
    /// has (an export with its ids redacted) is told apart (`<id>#<n>`), so each result still
    /// answers its own call.
    fn tool(
        &mut self,
        raw: &RawValue,
        part: Part,
        event: bool,
        cur: &Cursor<'_>,
        ptr: &str,
        got: &mut Collected,
    ) {
        let part_id = id_of(part.id.as_ref());
        let mut id = id_of(part.call_id.as_ref());
        if !event && let Some(call) = &id {
            let n = self.owners.entry(call.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                id = Some(format!("{call}#{n}"));
            }
        }
        let Some(Value::String(name)) = part.tool else {
            got.problem(cur.at(raw, ptr.to_owned()), "a `tool` part needs a string `tool`");
            return;
        };
        let state = part.state.unwrap_or(State {
            status: None,
            input: None,
            output: None,
            error: None,
        });
        let at = cur.step(raw, &[id.as_deref().unwrap_or(""), &name], ptr.to_owned());
        let key = if event {
            part_id.or_else(|| id.clone()).unwrap_or_default()
        } else {
            String::new()
        };
        let seen = !key.is_empty() && self.calls_seen.contains_key(&key);
        if !seen {
            got.push(
                StepKind::ToolCall(ToolCall {
                    call_id: id.clone(),
                    name,
                    args: content::args_owned(state.input),
                    raw_args: None,
                    origin: CallOrigin::Model,
                }),
                at.clone(),
            );
            if !key.is_empty() {
                self.calls_seen.insert(key.clone(), 0);
            }
        }
        let status = match state.status.as_deref() {
            Some("completed") => ResultStatus::Ok,
            Some("error") => ResultStatus::Error,
            _ => return,
        };
        if !key.is_empty() {
            let answered = self.calls_seen.entry(key).or_insert(0);
            if *answered > 0 {
                return;
            }
            *answered += 1;
        }
        let error = state
            .error
            .filter(|e| !e.is_null())
            .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_owned));
        let (content, recorded) = match (state.output, &error) {
            (Some(o), _) if !o.is_null() => (content::result_content(Some(o)), true),
            (_, Some(e)) => (Value::String(e.clone()), true),
            _ => (Value::Null, false),
        };
        let mut r = ToolResult::new(id, content, status);
        r.error = error;
        r.content_recorded = recorded;
        got.push(StepKind::ToolResult(r), at);
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
        self.session.emit(self.id, self.input, out);
    }
}

#[cfg(test)]
mod tests;
