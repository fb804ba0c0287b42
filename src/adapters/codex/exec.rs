//! The events `codex exec --json` prints, one a line: `thread.started` (`thread_id`),
//! `turn.started`, `item.started` / `item.updated` / `item.completed` with an `item` (`id`,
//! `type`, `item_type` in the first releases that printed them), `turn.completed` (`usage`),
//! `turn.failed` (`error`) and `error` (`message`). An item is what Codex did, not what the model
//! sent: a `command_execution` (`command` as the shell ran it, `aggregated_output`,
//! `exit_code`, `status`), a `file_change` (`changes[{path, kind}]`, `status`), an
//! `mcp_tool_call` (`server`, `tool`, `arguments`, `result` / `error`, `status`), a `web_search`
//! (`query`), an `agent_message` (`text`), `reasoning`, a `todo_list` and a non-fatal `error`.
//! Each tool item is a call (`shell` {command: argv}, `apply_patch` {changes}, `mcp__<server>__<tool>`
//! with its arguments, `web_search` {query}), located where it started, and its result, located
//! where it completed; the verdict is the item's `status` and `exit_code`, never its text.
//! Reasoning, plans and warnings are read past. A call Codex refused before running it (an
//! unknown tool, arguments it could not parse, a patch that did not verify) prints no item.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::{Map, Value};
use serde_json::value::RawValue;

use crate::model::{
    Args, CallOrigin, Message, ResultStatus, Role, StepKind, ToolCall, ToolResult,
};

use crate::adapters::common::agent::Session;
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::raw;
use crate::adapters::common::cursor::{Cursor, child};

/// The event types `codex exec --json` prints.
const EVENT_TYPES: &[&str] = &[
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
];

/// The item types of its `item.*` events (`assistant_message`: the first releases' name of
/// `agent_message`).
const ITEM_TYPES: &[&str] = &[
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "agent_message",
    "assistant_message",
    "reasoning",
    "todo_list",
    "error",
];

/// Longest text kept from a failed turn's error for the report's note.
const NOTE_CHARS: usize = 300;

/// How strongly an object looks like a `codex exec --json` event (0: not one).
pub(super) fn sniff(m: &Map<String, Value>) -> u8 {
    let kind = m.get("type").and_then(Value::as_str);
    match kind {
        Some("thread.started") if m.get("thread_id").is_some_and(Value::is_string) => 12,
        Some("item.started" | "item.updated" | "item.completed") => {
            let item_kind = m
                .get("item")
                .and_then(|i| i.get("type").or_else(|| i.get("item_type")))
                .and_then(Value::as_str);
            if item_kind.is_some_and(|k| ITEM_TYPES.contains(&k)) {
                12
            } else if m.get("item").is_some_and(Value::is_object) {
                6
            } else {
                0
            }
        }
        Some("turn.completed") if m.get("usage").is_some_and(Value::is_object) => 10,
        Some("turn.failed") if m.contains_key("error") => 10,
        Some("turn.started") if m.len() <= 2 => 8,
        // A stream error: read past, but part of the same output.
        Some("error") if m.get("message").is_some_and(Value::is_string) && m.len() == 2 => 2,
        _ => 0,
    }
}

/// Is this record a `codex exec --json` event (rather than a rollout line)?
pub(super) fn is_event(raw: &RawValue) -> bool {
    raw::is_typed_event(raw, EVENT_TYPES, "payload")
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    thread_id: Option<String>,
    #[serde(default, borrow)]
    item: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    id: Option<Value>,
    #[serde(rename = "type", default, alias = "item_type")]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    command: Option<Value>,
    #[serde(default)]
    aggregated_output: Option<Value>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    changes: Option<Value>,
    #[serde(default)]
    server: Option<String>,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    query: Option<Value>,
}

/// What one event asks of the reader.
pub(super) enum Step {
    /// Nothing more than the steps collected.
    Read,
    /// A `thread.started`: a run begins (a new trace when the file already holds one).
    Thread(Option<String>),
}

/// The reading state of one `codex exec --json` output.
#[derive(Default)]
pub(super) struct Exec {
    /// Items whose call has been read (from its `item.started`).
    called: HashSet<String>,
    /// Items whose result has been read.
    done: HashSet<String>,
}

impl Exec {
    /// Forget the items of the run before (a new `thread.started`).
    pub(super) fn reset(&mut self) {
        self.called.clear();
        self.done.clear();
    }

    /// Read one event: its steps go to `got`; a failed turn's message to the session's notes.
    pub(super) fn event(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        session: &mut Session,
        got: &mut Collected,
    ) -> Step {
        let Ok(ev) = serde_json::from_str::<Event<'_>>(raw.get()) else {
            got.problem(
                cur.at(raw, ptr.to_owned()),
                "not a `codex exec --json` event: expected an object with a `type`",
            );
            return Step::Read;
        };
        match ev.kind.as_deref() {
            Some("thread.started") => return Step::Thread(ev.thread_id.filter(|s| !s.is_empty())),
            Some("turn.failed") => {
                let why = ev
                    .error
                    .as_ref()
                    .and_then(|e| e.get("message").and_then(Value::as_str).or(e.as_str()))
                    .unwrap_or("no message");
                let why: String = why.chars().take(NOTE_CHARS).collect();
                session.attributes.push((
                    crate::model::ATTR_NOTE.to_owned(),
                    format!("a turn of this `codex exec` run failed: {why}"),
                ));
            }
            Some(k @ ("item.started" | "item.updated" | "item.completed")) => {
                if let Some(item) = ev.item {
                    let completed = k == "item.completed";
                    self.item(item, cur, &child(ptr, "item"), completed, got);
                }
            }
            _ => {}
        }
        Step::Read
    }

    fn item(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        completed: bool,
        got: &mut Collected,
    ) {
        // Through a `Value`: a web search's item names its `id` twice (the item's and the
        // search's); the later one is kept.
        let item = serde_json::from_str::<Value>(raw.get())
            .ok()
            .filter(Value::is_object)
            .and_then(|v| serde_json::from_value::<Item>(v).ok());
        let Some(item) = item else {
            got.problem(cur.at(raw, ptr.to_owned()), "an item must be an object");
            return;
        };
        let id = id_of(item.id.as_ref());
        let kind = item.kind.clone().unwrap_or_default();
        let kind = kind.as_str();
        if matches!(kind, "agent_message" | "assistant_message") {
            if completed && let Some(text) = item.text.filter(|t| !t.trim().is_empty()) {
                got.push(
                    StepKind::Message(Message {
                        role: Role::Assistant,
                        content: text,
                    }),
                    cur.at(raw, ptr.to_owned()),
                );
            }
            return;
        }
        let Some((name, args)) = call_of(kind, &item) else {
            // Reasoning, plans, warnings, and item types newer than this reader.
            return;
        };
        let Some(id) = id else {
            got.problem(
                cur.at(raw, ptr.to_owned()),
                format!("a `{kind}` item needs an `id`"),
            );
            return;
        };
        if self.done.contains(&id) {
            return;
        }
        if self.called.insert(id.clone()) {
            let at = cur.step(raw, &[&id], ptr.to_owned());
            got.push(
                StepKind::ToolCall(ToolCall {
                    call_id: Some(id.clone()),
                    name,
                    args,
                    raw_args: None,
                    // What Codex recorded of the call it ran, not the model's own emission.
                    origin: CallOrigin::ToolRecord,
                }),
                at,
            );
        }
        if !completed {
            return;
        }
        self.done.insert(id.clone());
        let at = cur.step(raw, &[&id], ptr.to_owned());
        got.push(StepKind::ToolResult(result_of(kind, id, item)), at);
    }
}

/// The call an item stands for: its name and arguments (`None`: not a tool item).
fn call_of(kind: &str, item: &Item) -> Option<(String, Args)> {
    let one = |key: &str, v: &Option<Value>| {
        let mut m = Map::new();
        if let Some(v) = v {
            m.insert(key.to_owned(), v.clone());
        }
        Args::Known(Value::Object(m))
    };
    Some(match kind {
        "command_execution" => ("shell".to_owned(), one("command", &argv(&item.command))),
        "file_change" => ("apply_patch".to_owned(), one("changes", &item.changes)),
        "web_search" => ("web_search".to_owned(), one("query", &item.query)),
        "mcp_tool_call" => {
            let name = match (&item.server, &item.tool) {
                (Some(s), Some(t)) => format!("mcp__{s}__{t}"),
                (None, Some(t)) => t.clone(),
                _ => "mcp_tool_call".to_owned(),
            };
            (name, content::args_owned(item.arguments.clone()))
        }
        _ => return None,
    })
}

/// A command as Codex's `shell` tool takes it, an argv list: Codex prints the argv it ran joined
/// with shell quoting (`/bin/bash -lc 'ls notes.txt'`), which splits back exactly. A command
/// that does not split (or is no string) stays as printed.
fn argv(command: &Option<Value>) -> Option<Value> {
    match command {
        Some(Value::String(s)) => Some(match shlex::split(s) {
            Some(words) if !words.is_empty() => {
                Value::Array(words.into_iter().map(Value::String).collect())
            }
            _ => Value::String(s.clone()),
        }),
        other => other.clone(),
    }
}

/// A completed item's result: its output and the verdict its `status` and `exit_code` give.
fn result_of(kind: &str, id: String, item: Item) -> ToolResult {
    let failed = item.status.as_deref() == Some("failed");
    let declined = item.status.as_deref() == Some("declined");
    let error_text = item.error.as_ref().and_then(|e| {
        e.get("message")
            .and_then(Value::as_str)
            .or(e.as_str())
            .map(str::to_owned)
    });
    let (content, recorded, mut status, mut error) = match kind {
        "command_execution" => {
            let (status, error) = match item.exit_code {
                Some(0) if !failed && !declined => (ResultStatus::Ok, None),
                Some(0) => (ResultStatus::Error, item.status.clone()),
                Some(code) => (ResultStatus::Error, Some(format!("exit code {code}"))),
                None => (ResultStatus::Unknown, None),
            };
            let recorded = item.aggregated_output.is_some();
            (
                item.aggregated_output.unwrap_or(Value::Null),
                recorded,
                status,
                error,
            )
        }
        "mcp_tool_call" => {
            let body = item
                .result
                .filter(|r| !r.is_null())
                .map(|r| match r {
                    Value::Object(mut o) if o.contains_key("content") => {
                        content::result_content(o.remove("content"))
                    }
                    other => other,
                });
            let recorded = body.is_some() || error_text.is_some();
            let content = body
                .or_else(|| error_text.clone().map(Value::String))
                .unwrap_or(Value::Null);
            let status = match item.status.as_deref() {
                Some("completed") => ResultStatus::Ok,
                _ => ResultStatus::Unknown,
            };
            (content, recorded, status, error_text.clone())
        }
        // A file change and a web search record no output, only their status.
        _ => {
            let status = match item.status.as_deref() {
                Some("completed") | None => ResultStatus::Ok,
                _ => ResultStatus::Unknown,
            };
            (Value::Null, false, status, None)
        }
    };
    if failed || declined {
        status = ResultStatus::Error;
        if error.is_none() {
            // What failed: the error's message, else the output the model was given (an MCP
            // server's error text), else what the status says.
            error = error_text
                .or_else(|| content.as_str().map(|s| s.chars().take(NOTE_CHARS).collect()))
                .or_else(|| {
                    Some(match (declined, kind) {
                        (true, _) => "declined".to_owned(),
                        (false, "file_change") => "patch not applied".to_owned(),
                        _ => "failed".to_owned(),
                    })
                });
        }
    }
    let mut r = ToolResult::new(Some(id), content, status);
    r.error = error;
    r.content_recorded = recorded;
    r
}
