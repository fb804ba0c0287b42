//! Antigravity's conversation transcripts: the `transcript*.jsonl` files it writes under a
//! conversation's `brain/<id>/.system_generated/logs/`, one step a line: `{step_index, source,
//! type, status, created_at, content?, thinking?, tool_calls?, error?, exit_code?}` with bare
//! step types (`USER_INPUT`, `PLANNER_RESPONSE`, `RUN_COMMAND`, `VIEW_FILE`, …).
//!
//! A `PLANNER_RESPONSE` is the model's turn: `content` its text, `tool_calls` its calls
//! (`{name, args}`, no ids: each gets one of its own). The calls are run as the steps of other
//! types that follow the turn, in order, each of the type its tool writes (`run_command` →
//! `RUN_COMMAND`, `replace_file_content` → `CODE_ACTION`, …): that step's `content` is what the
//! model was shown, its `status` and a command's `exit_code` the verdict. A step still
//! `RUNNING` (a command moved to the background) was answered, with no verdict yet. A step
//! written just before the turn that asked for it (the log is not always in order) is kept
//! until that turn is read. An `ERROR_MESSAGE` (`error`) after a turn whose call got no step is
//! that call's error (a call the agent could not parse); otherwise a note about the run. Steps
//! whose `source` is the user (a file the user opened or edited) are not the model's calls:
//! they are read as user messages; the text of system steps (ephemeral and system messages,
//! checkpoints, history) as system messages.
//!
//! Some releases write each argument as JSON text (`"EndLine": "179"`, `"Cwd": "\"/src\""`):
//! such arguments are read as the values they spell.

use serde::Deserialize;
use serde_json::{Map, Value};
use serde_json::value::RawValue;

use crate::model::{
    Args, CallOrigin, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall, ToolResult,
};

use crate::adapters::Emit;
use crate::adapters::common::content::Collected;
use crate::adapters::common::cursor::{Cursor, child};

use super::shape::Held;
use super::{ATTR_STARTED, ERROR_CHARS, Pending, Reader};

/// Results read before the turn that asked for them, kept at most.
const HELD: usize = 16;

/// Steps that are not a tool's run: the user's and the system's, and the model's own turns.
const NOT_TOOLS: [&str; 9] = [
    "USER_INPUT",
    "PLANNER_RESPONSE",
    "ERROR_MESSAGE",
    "EPHEMERAL_MESSAGE",
    "SYSTEM_MESSAGE",
    "CHECKPOINT",
    "CONVERSATION_HISTORY",
    "KNOWLEDGE_ARTIFACTS",
    "MEMORY",
];

#[derive(Deserialize)]
struct Step<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    step_index: Option<u64>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tool_calls: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    exit_code: Option<Value>,
}

#[derive(Deserialize)]
struct Call {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    args: Option<Value>,
}

impl Reader<'_> {
    /// One transcript step.
    pub(super) fn transcript_step(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        out: &mut dyn Emit,
    ) {
        let Ok(step) = serde_json::from_str::<Step<'_>>(raw.get()) else {
            let why = "not an Antigravity transcript step: expected an object with a string `type`";
            self.session.problem_at(raw, cur, ptr, why, self.input, out);
            return;
        };
        let Some(kind) = step.kind.as_deref() else {
            let why = "not an Antigravity transcript step: no string `type`";
            self.session.problem_at(raw, cur, ptr, why, self.input, out);
            return;
        };
        let meta = StepMeta {
            timestamp: step.created_at.clone(),
            ..StepMeta::default()
        };
        self.session.attribute(ATTR_STARTED, step.created_at.as_deref());
        let text = step.content.and_then(|c| serde_json::from_str::<String>(c.get()).ok());
        let text_at = |cur: &Cursor<'_>| match step.content {
            Some(c) => cur.at(c, child(ptr, "content")),
            None => cur.at(raw, ptr.to_owned()),
        };
        let mut got = Collected::default();
        match kind {
            "USER_INPUT" => {
                if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                    got.push(
                        StepKind::Message(Message {
                            role: Role::User,
                            content: t,
                        }),
                        text_at(cur),
                    );
                }
            }
            "PLANNER_RESPONSE" => {
                self.turns += 1;
                // Only this turn's calls are answered by the steps that follow it: those of the
                // turns before stay unanswered.
                self.pending.clear();
                if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                    got.push(
                        StepKind::Message(Message {
                            role: Role::Assistant,
                            content: t,
                        }),
                        text_at(cur),
                    );
                }
                if let Some(calls) = step.tool_calls {
                    self.transcript_calls(calls, cur, &child(ptr, "tool_calls"), &mut got);
                }
                self.claim_held(step.step_index, &mut got);
            }
            "ERROR_MESSAGE" => {
                let error = match &step.error {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(v @ Value::Object(_)) => {
                        serde_json::from_value::<super::ErrorInfo>(v.clone())
                            .ok()
                            .and_then(|e| e.text())
                    }
                    _ => text.clone(),
                }
                .map(|s| s.trim().chars().take(ERROR_CHARS).collect::<String>())
                .filter(|s| !s.is_empty());
                self.error_message(error, None, raw, cur, ptr, &mut got);
            }
            // What the system told the model (reminders, a summary of truncated history): read
            // as system messages, so values the model took from them count as observed.
            k if NOT_TOOLS.contains(&k) => {
                if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                    let m = Message {
                        role: Role::System,
                        content: t,
                    };
                    got.push(StepKind::Message(m), text_at(cur));
                }
            }
            // A file the user opened or changed: not the model's call, but what it was shown.
            _ if step.source.as_deref().is_some_and(|s| s.starts_with("USER")) => {
                if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                    let m = Message {
                        role: Role::User,
                        content: t,
                    };
                    got.push(StepKind::Message(m), text_at(cur));
                }
            }
            _ => {
                let result = tool_result(&step, text);
                let at = cur.step(raw, &["\"content\""], ptr.to_owned());
                self.tool_run(kind, step.step_index, result, at, &mut got);
            }
        }
        self.session.add(got, &meta, self.input, out);
    }

    /// A turn's `tool_calls`.
    fn transcript_calls(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, got: &mut Collected) {
        let Ok(list) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
            got.problem(cur.at(raw, ptr.to_owned()), "an Antigravity turn's `tool_calls` must be a list");
            return;
        };
        for (i, c) in list.iter().enumerate() {
            let at_ptr = child(ptr, i);
            let Ok(call) = serde_json::from_str::<Call>(c.get()) else {
                got.problem(cur.at(c, at_ptr), "an Antigravity tool call must be an object");
                continue;
            };
            let Some(Value::String(name)) = call.name else {
                got.problem(cur.at(c, at_ptr), "an Antigravity tool call needs a string `name`");
                continue;
            };
            let id = self.call_id(None);
            self.seen.insert(id.clone());
            let args = match call.args {
                Some(Value::Object(map)) => Args::Known(Value::Object(decoded(map))),
                other => crate::adapters::common::content::args_owned(other),
            };
            got.push(
                StepKind::ToolCall(ToolCall {
                    call_id: Some(id.clone()),
                    name: name.clone(),
                    args,
                    raw_args: None,
                    origin: CallOrigin::Model,
                }),
                cur.step(c, &[&name], at_ptr),
            );
            self.pending.push(Pending {
                id,
                turn: self.turns,
                tool: Some(name),
            });
        }
    }

    /// A tool's step: the result of the current turn's first call its type answers; kept for
    /// the next turn when it has none (it was written before the turn that asked for it).
    fn tool_run(
        &mut self,
        kind: &str,
        index: Option<u64>,
        mut result: ToolResult,
        at: crate::model::Location,
        got: &mut Collected,
    ) {
        let turn = self.turns;
        let found = self
            .pending
            .iter()
            .position(|p| p.turn == turn && answers(p.tool.as_deref(), kind));
        match (found, index) {
            (Some(i), _) => {
                let p = self.pending.remove(i);
                result.call_id = Some(p.id);
                got.push(StepKind::ToolResult(result), at);
            }
            (None, Some(index)) if self.held.len() < HELD => self.held.push(Held {
                index,
                kind: kind.to_owned(),
                result,
                at,
            }),
            // No call asked for it: read past.
            _ => {}
        }
    }

    /// Steps kept for this turn: each one numbered after it answers the turn's first call of
    /// its type. The others are dropped (no call asked for them).
    fn claim_held(&mut self, index: Option<u64>, got: &mut Collected) {
        let turn = self.turns;
        for h in std::mem::take(&mut self.held) {
            if index.is_some_and(|i| i >= h.index) {
                continue;
            }
            let found = self
                .pending
                .iter()
                .position(|p| p.turn == turn && answers(p.tool.as_deref(), &h.kind));
            if let Some(i) = found {
                let p = self.pending.remove(i);
                let mut r = h.result;
                r.call_id = Some(p.id);
                got.push(StepKind::ToolResult(r), h.at);
            }
        }
    }
}

/// The result a tool's step records: its text, and the verdict of its status (and exit code).
fn tool_result(step: &Step<'_>, text: Option<String>) -> ToolResult {
    let error_text = match &step.error {
        Some(Value::String(s)) if !s.trim().is_empty() => {
            Some(s.trim().chars().take(ERROR_CHARS).collect::<String>())
        }
        _ => None,
    };
    let exit = step.exit_code.as_ref().and_then(Value::as_i64);
    let (status, error) = match (step.status.as_deref(), exit) {
        (Some("ERROR"), _) => (
            ResultStatus::Error,
            Some(error_text.unwrap_or_else(|| "the step ended in an error".to_owned())),
        ),
        (Some("CANCELED" | "CANCELLED"), _) => (
            ResultStatus::Error,
            Some(error_text.unwrap_or_else(|| "cancelled".to_owned())),
        ),
        (Some("DONE"), Some(code)) if code != 0 => {
            (ResultStatus::Error, Some(format!("exit code {code}")))
        }
        (Some("DONE"), _) => (ResultStatus::Ok, None),
        _ => (ResultStatus::Unknown, error_text),
    };
    let recorded = text.is_some() || error.is_some();
    let content = text
        .map(Value::String)
        .or_else(|| error.clone().map(Value::String))
        .unwrap_or(Value::Null);
    let mut r = ToolResult::new(None, content, status);
    r.error = error;
    r.content_recorded = recorded;
    r
}

/// Whether a step of type `kind` is the run of a call to `tool`: the type each tool writes;
/// a tool not listed here is answered by the step that follows it, whatever its type.
fn answers(tool: Option<&str>, kind: &str) -> bool {
    let expected = match tool.unwrap_or("") {
        "run_command" => "RUN_COMMAND",
        "view_file" | "view_file_outline" | "view_code_item" => "VIEW_FILE",
        "write_to_file" | "replace_file_content" | "multi_replace_file_content" => "CODE_ACTION",
        "grep_search" => "GREP_SEARCH",
        "list_dir" => "LIST_DIRECTORY",
        "find_by_name" => "FIND",
        "search_web" => "SEARCH_WEB",
        "read_url_content" => "READ_URL_CONTENT",
        "command_status" => "COMMAND_STATUS",
        _ => return true,
    };
    expected == kind
}

/// Arguments as recorded, or, when every one is written as JSON text (some releases do), the
/// values that text spells. A value cut short (the log truncates long fields) stays as written.
pub(super) fn decoded(map: Map<String, Value>) -> Map<String, Value> {
    let spelled = |s: &str| serde_json::from_str::<Value>(s).ok();
    let all_text = !map.is_empty()
        && map.values().all(|v| {
            v.as_str()
                .is_some_and(|s| s.starts_with('"') || spelled(s).is_some())
        })
        && map.values().any(|v| {
            v.as_str()
                .is_some_and(|s| s.starts_with('"') && matches!(spelled(s), Some(Value::String(_))))
        });
    if !all_text {
        return map;
    }
    map.into_iter()
        .map(|(k, v)| {
            let value = match v.as_str().and_then(spelled) {
                Some(d) => d,
                None => v,
            };
            (k, value)
        })
        .collect()
}
