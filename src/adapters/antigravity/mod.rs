//! The `antigravity` format: Google Antigravity's step logs, the trajectory its agent keeps of a
//! conversation ("cascade") and its language server returns (`GetCascadeTrajectory`:
//! `{trajectory: {trajectoryId, cascadeId, steps}, status}`; `GetCascadeTrajectorySteps`:
//! `{steps}`; the `<id>.trajectory.json` files written beside a CLI conversation:
//! `{trajectoryId, cascadeId, steps}`), or the steps one a line. Each step is `{type:
//! "CORTEX_STEP_TYPE_…", status: "CORTEX_STEP_STATUS_…", metadata, <payload>}`, its payload
//! under the type's camel-case name (`RUN_COMMAND` → `runCommand`).
//!
//! A `PLANNER_RESPONSE` step is the model's turn: `plannerResponse.response` its text,
//! `plannerResponse.toolCalls` its calls (`{id, name, argumentsJson}`). Each call is then run as
//! a step of its own whose `metadata.toolCall` names the call (`VIEW_FILE`, `RUN_COMMAND`,
//! `CODE_ACTION`, `GREP_SEARCH`, …): that step is the call's result, its payload what the tool
//! returned, its status the verdict (`DONE`; `ERROR` with the step's `error` saying why, e.g. a
//! permission the user denied; `CANCELED`). A step still `PENDING`, `RUNNING` or `WAITING` has
//! no result yet. An `ERROR_MESSAGE` step (`errorMessage.error`) that names a call, or follows
//! a turn whose calls got no step, is the error of that call (a call the agent refused: an
//! unknown tool, arguments it could not parse); any other is a note about the run. A tool step
//! whose call no turn announced is read as that call too. `USER_INPUT` steps are the user's
//! turns (`userInput.userResponse`, or its `items`' text). Other steps (checkpoints, memory,
//! ephemeral and system messages, …) are not the model's calls: read past.
//!
//! A file is one trace, named by its trajectory's `cascadeId` (else its `trajectoryId`, else
//! the conversation folder it is kept in: `brain/<id>/`).
//!
//! The transcripts Antigravity writes beside a conversation (`transcript*.jsonl`: steps with a
//! `step_index` and bare types such as `PLANNER_RESPONSE`) are read by `transcript`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{
    CallOrigin, InputRef, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall, ToolResult,
};

use crate::adapters::Emit;
use crate::adapters::common::agent::{self, Records, Session};
use crate::adapters::common::content::{Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::Line;

/// `Trace::attributes` key: when the conversation started (its first step's time).
pub const ATTR_STARTED: &str = "session_started";

/// The prefix of every step type.
const STEP_TYPE: &str = "CORTEX_STEP_TYPE_";

/// The prefix of every step status.
const STEP_STATUS: &str = "CORTEX_STEP_STATUS_";

/// Characters of an error kept as a result's error text.
const ERROR_CHARS: usize = 2000;

/// How strongly a record looks like an Antigravity step or trajectory.
pub fn sniff(record: &Value) -> u8 {
    let is_step = |v: &Value| {
        v.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with(STEP_TYPE))
    };
    let steps_of = |v: &Value| -> Option<Vec<Value>> {
        match v.get("steps")? {
            Value::Array(a) => Some(a.clone()),
            Value::Object(o) => o.get("steps")?.as_array().cloned(),
            _ => None,
        }
    };
    if is_step(record) {
        return 12;
    }
    let transcript = shape::sniff(record);
    if transcript > 0 {
        return transcript;
    }
    let trajectory = record.get("trajectory").filter(|t| t.is_object());
    let steps = steps_of(record).or_else(|| trajectory.and_then(steps_of));
    match steps {
        Some(s) if !s.is_empty() && s.iter().all(is_step) => 12,
        Some(s)
            if s.is_empty()
                && (record.get("cascadeId").is_some()
                    || trajectory.is_some_and(|t| t.get("cascadeId").is_some())) =>
        {
            6
        }
        _ => 0,
    }
}

/// Parse steps or trajectories one a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(Reader::new(input), lines, input, out);
}

/// Parse a trajectory document, or an array of steps.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    agent::read_document(Reader::new(input), text, input, out, false);
}

/// A record: a step, a trajectory, or a response holding one.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", default)]
    kind: Option<Value>,
    #[serde(default, borrow)]
    steps: Option<&'a RawValue>,
    #[serde(default, borrow)]
    trajectory: Option<&'a RawValue>,
    #[serde(rename = "cascadeId", default)]
    cascade_id: Option<Value>,
    #[serde(rename = "trajectoryId", default)]
    trajectory_id: Option<Value>,
}

/// The fields of a step read here; its payload is looked up by name.
#[derive(Deserialize)]
struct Step<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    metadata: Option<Metadata>,
    #[serde(default)]
    error: Option<ErrorInfo>,
    #[serde(rename = "userInput", default)]
    user_input: Option<UserInput>,
    #[serde(rename = "plannerResponse", default, borrow)]
    planner: Option<&'a RawValue>,
    #[serde(rename = "errorMessage", default)]
    error_message: Option<ErrorMessage>,
}

#[derive(Deserialize, Default)]
struct Metadata {
    #[serde(rename = "createdAt", default)]
    created_at: Option<String>,
    #[serde(rename = "toolCall", default)]
    tool_call: Option<CallSpec>,
    #[serde(rename = "generatorModel", default)]
    generator_model: Option<String>,
}

/// A call as a turn announces it, or as a tool step's metadata names it.
#[derive(Deserialize, Clone)]
struct CallSpec {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(rename = "argumentsJson", default)]
    arguments_json: Option<String>,
    #[serde(default)]
    args: Option<Value>,
}

/// An error's fields, in the order its text is taken from (quoted, as they are in the JSON).
const ERROR_KEYS: [&str; 4] = [
    "\"userErrorMessage\"",
    "\"userMessage\"",
    "\"shortError\"",
    "\"fullError\"",
];

#[derive(Deserialize, Default)]
struct ErrorInfo {
    #[serde(rename = "userErrorMessage", default)]
    user_error_message: Option<String>,
    #[serde(rename = "userMessage", default)]
    user_message: Option<String>,
    #[serde(rename = "shortError", default)]
    short_error: Option<String>,
    #[serde(rename = "fullError", default)]
    full_error: Option<String>,
}

impl ErrorInfo {
    /// What failed, in the words meant for the user first.
    fn text(&self) -> Option<String> {
        let pick = [
            &self.user_error_message,
            &self.user_message,
            &self.short_error,
            &self.full_error,
        ]
        .into_iter()
        .flatten()
        .map(|s| s.trim())
        .find(|s| !s.is_empty())?;
        Some(pick.chars().take(ERROR_CHARS).collect())
    }
}

#[derive(Deserialize)]
struct ErrorMessage {
    #[serde(default)]
    error: Option<ErrorInfo>,
}

#[derive(Deserialize)]
struct UserInput {
    #[serde(rename = "userResponse", default)]
    user_response: Option<String>,
    #[serde(default)]
    items: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct Planner<'a> {
    #[serde(default)]
    response: Option<String>,
    #[serde(rename = "modifiedResponse", default)]
    modified_response: Option<String>,
    #[serde(rename = "toolCalls", default, borrow)]
    tool_calls: Option<Vec<&'a RawValue>>,
}

/// A call announced and not yet answered.
struct Pending {
    id: String,
    /// The turn that announced it.
    turn: usize,
    /// The tool it calls.
    tool: Option<String>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
    id: Option<String>,
    /// Calls announced, in order, whose result has not been read.
    pending: Vec<Pending>,
    /// Every call id read (announced or run).
    seen: std::collections::HashSet<String>,
    /// Model turns read.
    turns: usize,
    /// Calls read with no id: each gets one of its own.
    anonymous: usize,
    /// Transcript steps read before the turn that asked for them.
    held: Vec<shape::Held>,
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(
            crate::model::ATTR_AGENT,
            Some(crate::model::AGENT_ANTIGRAVITY),
        );
        Self {
            input,
            session,
            id: None,
            pending: Vec::new(),
            seen: std::collections::HashSet::new(),
            turns: 0,
            anonymous: 0,
            held: Vec::new(),
        }
    }

    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Ok(r) = serde_json::from_str::<Record<'_>>(raw.get()) else {
            let why = "not an Antigravity step or trajectory: expected a JSON object";
            self.session.problem_at(raw, cur, ptr, why, self.input, out);
            return;
        };
        if r.kind.is_some() {
            if shape::is_step(raw) {
                self.transcript_step(raw, cur, ptr, out);
            } else {
                self.step(raw, cur, ptr, out);
            }
            return;
        }
        if self.id.is_none() {
            self.id = id_of(r.cascade_id.as_ref()).or_else(|| id_of(r.trajectory_id.as_ref()));
        }
        if let Some(t) = r.trajectory {
            self.record(t, cur, &child(ptr, "trajectory"), out);
            return;
        }
        let Some(steps) = r.steps else {
            let why = "not an Antigravity step or trajectory: no `type` and no `steps`";
            self.session.problem_at(raw, cur, ptr, why, self.input, out);
            return;
        };
        let sptr = child(ptr, "steps");
        match serde_json::from_str::<Vec<&RawValue>>(steps.get()) {
            Ok(list) => {
                for (i, s) in list.iter().enumerate() {
                    self.step(s, cur, &child(&sptr, i), out);
                }
            }
            // `GetCascadeTrajectorySteps`' response kept whole: `{steps: {steps: […]}}`.
            Err(_) if steps.get().trim_start().starts_with('{') => {
                self.record(steps, cur, &sptr, out);
            }
            Err(_) => {
                let why = "an Antigravity trajectory's `steps` must be a list";
                self.session
                    .problem_at(steps, cur, &sptr, why, self.input, out);
            }
        }
    }

    fn step(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let (Ok(step), Ok(fields)) = (
            serde_json::from_str::<Step<'_>>(raw.get()),
            serde_json::from_str::<BTreeMap<&str, &RawValue>>(raw.get()),
        ) else {
            let why = "not an Antigravity step: expected an object with a string `type`";
            self.session.problem_at(raw, cur, ptr, why, self.input, out);
            return;
        };
        let Some(kind) = step.kind.as_deref().and_then(|k| k.strip_prefix(STEP_TYPE)) else {
            let why = "not an Antigravity step: its `type` is not a `CORTEX_STEP_TYPE_…`";
            self.session.problem_at(raw, cur, ptr, why, self.input, out);
            return;
        };
        let metadata = step.metadata.unwrap_or_default();
        let meta = StepMeta {
            timestamp: metadata.created_at.clone(),
            model: metadata.generator_model.clone(),
            ..StepMeta::default()
        };
        self.session
            .attribute(ATTR_STARTED, metadata.created_at.as_deref());
        self.session
            .attribute(crate::model::ATTR_MODEL, metadata.generator_model.as_deref());
        let status = step
            .status
            .as_deref()
            .map(|s| s.strip_prefix(STEP_STATUS).unwrap_or(s));
        let mut got = Collected::default();
        match kind {
            "USER_INPUT" => {
                if let Some(text) = step.user_input.as_ref().and_then(user_text) {
                    got.push(
                        StepKind::Message(Message {
                            role: Role::User,
                            content: text,
                        }),
                        cur.step(raw, &["\"userResponse\"", "\"text\""], ptr.to_owned()),
                    );
                }
            }
            "PLANNER_RESPONSE" => {
                self.turns += 1;
                if let Some(p) = step.planner {
                    self.planner(p, cur, &child(ptr, "plannerResponse"), &mut got);
                }
            }
            "ERROR_MESSAGE" => {
                let error = step
                    .error_message
                    .and_then(|m| m.error)
                    .or(step.error)
                    .and_then(|e| e.text());
                self.error_message(error, metadata.tool_call.as_ref(), raw, cur, ptr, &mut got);
            }
            _ => {
                if let Some(call) = &metadata.tool_call {
                    let payload = fields.get(payload_key(kind).as_str()).copied();
                    let error = step.error.and_then(|e| e.text());
                    self.tool_step(call, status, payload, error, raw, cur, ptr, &mut got);
                }
            }
        }
        self.session.add(got, &meta, self.input, out);
    }

    /// A model turn: its text, then its calls.
    fn planner(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, got: &mut Collected) {
        let Ok(p) = serde_json::from_str::<Planner<'_>>(raw.get()) else {
            got.problem(
                cur.at(raw, ptr.to_owned()),
                "an Antigravity `plannerResponse` must be an object",
            );
            return;
        };
        let modified = p.modified_response.filter(|t| !t.trim().is_empty());
        let key = if modified.is_some() {
            "\"modifiedResponse\""
        } else {
            "\"response\""
        };
        let text = modified.or(p.response).filter(|t| !t.trim().is_empty());
        if let Some(text) = text {
            got.push(
                StepKind::Message(Message {
                    role: Role::Assistant,
                    content: text,
                }),
                cur.step(raw, &[key], ptr.to_owned()),
            );
        }
        let cptr = child(ptr, "toolCalls");
        for (i, c) in p.tool_calls.unwrap_or_default().iter().enumerate() {
            let at_ptr = child(&cptr, i);
            let Ok(spec) = serde_json::from_str::<CallSpec>(c.get()) else {
                got.problem(cur.at(c, at_ptr), "an Antigravity tool call must be an object");
                continue;
            };
            let Some(Value::String(name)) = &spec.name else {
                got.problem(cur.at(c, at_ptr), "an Antigravity tool call needs a string `name`");
                continue;
            };
            let id = self.call_id(id_of(spec.id.as_ref()));
            if !self.seen.insert(id.clone()) {
                // The same call announced again (a turn streamed twice): read once.
                continue;
            }
            let at = cur.step(c, &[&id, name], at_ptr);
            got.push(call_step(&spec, name, &id), at);
            self.pending.push(Pending {
                id,
                turn: self.turns,
                tool: Some(name.clone()),
            });
        }
    }

    /// A step that ran a call: its result (and the call itself, when no turn announced it).
    #[allow(clippy::too_many_arguments)]
    fn tool_step(
        &mut self,
        call: &CallSpec,
        status: Option<&str>,
        payload: Option<&RawValue>,
        error: Option<String>,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        got: &mut Collected,
    ) {
        let named = id_of(call.id.as_ref());
        let id = match &named {
            Some(id) => id.clone(),
            None => match self.pending.first() {
                // No id: the oldest call still waiting, as the steps run in order.
                Some(p) => p.id.clone(),
                None => self.call_id(None),
            },
        };
        let name = call.name.as_ref().and_then(Value::as_str).unwrap_or("");
        if !self.seen.contains(&id) && !name.is_empty() {
            // A call no turn announced (a log that kept only the tool steps): the step's
            // metadata names it.
            self.seen.insert(id.clone());
            let mptr = child(&child(ptr, "metadata"), "toolCall");
            got.push(call_step(call, name, &id), cur.step(raw, &[&id, name], mptr));
        }
        let (status, error) = match status {
            Some("DONE") => (ResultStatus::Ok, None),
            Some("ERROR") => (
                ResultStatus::Error,
                Some(error.unwrap_or_else(|| "the step ended in an error".to_owned())),
            ),
            Some("CANCELED" | "CANCELLED") => (
                ResultStatus::Error,
                Some(error.unwrap_or_else(|| "cancelled".to_owned())),
            ),
            // Not run yet (pending, waiting for the user's approval, running): no result.
            Some("PENDING" | "RUNNING" | "WAITING" | "GENERATING" | "QUEUED") => return,
            _ => (ResultStatus::Unknown, error),
        };
        self.pending.retain(|p| p.id != id);
        let mut content = payload.map_or(Value::Null, result_content);
        // A step that failed before the tool wrote any output: what failed is its answer.
        if let Some(e) = error.as_ref().filter(|_| !content.is_string()) {
            content = Value::String(e.clone());
        }
        let recorded = payload.is_some() || error.is_some();
        let mut r = ToolResult::new(Some(id.clone()), content, status);
        r.error = error;
        r.content_recorded = recorded;
        got.push(StepKind::ToolResult(r), cur.step(raw, &[&id], ptr.to_owned()));
    }

    /// An `ERROR_MESSAGE` step: the error of the call it names, or of the last turn's call that
    /// got no step; otherwise a note about the run.
    fn error_message(
        &mut self,
        error: Option<String>,
        call: Option<&CallSpec>,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        got: &mut Collected,
    ) {
        let named = call.and_then(|c| id_of(c.id.as_ref()));
        let target = match named {
            Some(id) if self.pending.iter().any(|p| p.id == id) => Some(id),
            Some(_) => None,
            None => self
                .pending
                .iter()
                .rev()
                .find(|p| p.turn == self.turns)
                .map(|p| p.id.clone()),
        };
        let text = error.unwrap_or_else(|| "the agent reported an error".to_owned());
        match target {
            Some(id) => {
                self.pending.retain(|p| p.id != id);
                let mut r = ToolResult::new(
                    Some(id.clone()),
                    Value::String(text.clone()),
                    ResultStatus::Error,
                );
                r.error = Some(text);
                // Cited where the error's text is.
                let at = cur.step(raw, &ERROR_KEYS, ptr.to_owned());
                got.push(StepKind::ToolResult(r), at);
            }
            None => {
                let note = (
                    crate::model::ATTR_NOTE.to_owned(),
                    format!("the agent reported an error: {text}"),
                );
                if !self.session.attributes.contains(&note) {
                    self.session.attributes.push(note);
                }
            }
        }
    }

    /// The call's id, or one of its own for a call recorded without one.
    fn call_id(&mut self, id: Option<String>) -> String {
        id.unwrap_or_else(|| {
            self.anonymous += 1;
            format!("antigravity-call-{}", self.anonymous)
        })
    }
}

/// A call step from its announcement (`argumentsJson`, or `args` as an object).
fn call_step(spec: &CallSpec, name: &str, id: &str) -> StepKind {
    let (args, raw_args) = match (&spec.arguments_json, &spec.args) {
        (Some(text), _) => (
            crate::adapters::common::args::from_text(text),
            Some(text.clone()),
        ),
        (None, Some(v)) => (crate::adapters::common::content::args_owned(Some(v.clone())), None),
        (None, None) => (
            crate::model::Args::Unknown("the step log does not record the arguments".to_owned()),
            None,
        ),
    };
    StepKind::ToolCall(ToolCall {
        call_id: Some(id.to_owned()),
        name: name.to_owned(),
        args,
        raw_args,
        origin: CallOrigin::Model,
    })
}

/// What a user turn said.
fn user_text(u: &UserInput) -> Option<String> {
    if let Some(t) = u.user_response.as_ref().filter(|t| !t.trim().is_empty()) {
        return Some(t.clone());
    }
    let texts: Vec<&str> = u
        .items
        .iter()
        .flatten()
        .filter_map(|i| i.get("text").and_then(Value::as_str))
        .filter(|t| !t.trim().is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The payload's field name for a step type: `RUN_COMMAND` → `runCommand`.
fn payload_key(kind: &str) -> String {
    let mut out = String::with_capacity(kind.len());
    for (i, part) in kind.split('_').filter(|p| !p.is_empty()).enumerate() {
        let lower = part.to_ascii_lowercase();
        if i == 0 {
            out.push_str(&lower);
        } else {
            let mut chars = lower.chars();
            if let Some(c) = chars.next() {
                out.push(c.to_ascii_uppercase());
                out.push_str(chars.as_str());
            }
        }
    }
    out
}

/// What a tool step's payload says the tool returned: a command's output, a file's content;
/// else the payload as recorded.
fn result_content(payload: &RawValue) -> Value {
    let Ok(v) = serde_json::from_str::<Value>(payload.get()) else {
        return Value::Null;
    };
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    // `runCommand.combinedOutput`: a string, or `{full}` in newer releases.
    let output = v.get("combinedOutput").and_then(|o| {
        text(Some(o)).or_else(|| text(o.get("full")))
    });
    if let Some(out) = output {
        return Value::String(out);
    }
    if let Some(content) = text(v.get("content")) {
        return Value::String(content);
    }
    v
}

impl Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        Reader::record(self, raw, cur, ptr, out);
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(self, out: &mut dyn Emit) {
        let id = self.id.or_else(|| shape::brain_id(&self.input.path));
        self.session.emit(id, self.input, out);
    }
}

mod shape;
#[cfg(test)]
mod tests;
mod transcript;
#[cfg(test)]
mod transcript_tests;
