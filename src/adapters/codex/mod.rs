//! The `codex` format: Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`), one
//! `{timestamp, type, payload}` record a line. `response_item` records are the conversation:
//! messages, `function_call` (JSON-string arguments, kept raw for R6), `custom_tool_call` (a
//! free-form tool such as `apply_patch`, whose arguments are its raw text, never malformed
//! JSON), `local_shell_call`, hosted tool calls (`web_search_call`, …) and their outputs.
//! `session_meta` / `turn_context` give the CLI version, the model and the working directory;
//! `event_msg` records mirror the UI, and a few of them carry the one structured verdict a
//! result has (`exec_command_end.exit_code`, `patch_apply_end.success`,
//! `mcp_tool_call_end.result`, `item_completed` items' `exit_code` / `status`). Compaction and
//! newer record types are read past. The rollouts of the CLI's first releases (a header `{id,
//! timestamp, instructions, git}`, `{"record_type": "state"}` lines, items with no envelope) are
//! read too. Never reads text for error-ness.

mod exec;
mod items;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{ContextKind, InputRef, StepMeta};

use crate::adapters::Emit;
use crate::adapters::common::agent::{self, Session};
use crate::adapters::common::content::Collected;
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::{Line, error_message};

/// `Trace::attributes` key: the Codex CLI version the session records.
pub const ATTR_CLI_VERSION: &str = "codex_cli_version";
/// `Trace::attributes` key: when the session started (its `session_meta`'s `timestamp`).
pub const ATTR_STARTED: &str = "session_started";
/// `Trace::attributes` key: the model the session's first turn ran.
pub const ATTR_MODEL: &str = crate::model::ATTR_MODEL;

/// The note a trace read from `codex exec --json` events carries.
const EXEC_NOTE: &str = "read from `codex exec --json` events, which record what Codex ran (commands as its shell ran them, file changes, MCP calls) rather than the calls its model sent: no Codex CLI schemas are applied; the session's rollout under ~/.codex/sessions/ has the calls as sent";

/// Record types a rollout line has.
const RECORD_TYPES: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
];

/// How strongly a record looks like a Codex rollout line.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let event = exec::sniff(m);
    if event > 0 {
        return event;
    }
    let kind = m.get("type").and_then(Value::as_str);
    // The rollouts of the CLI's first releases: a header `{id, timestamp, instructions, git}`,
    // `{"record_type": "state"}` lines, and the conversation's items with no envelope.
    if kind.is_none()
        && m.get("id").is_some_and(Value::is_string)
        && m.contains_key("timestamp")
        && (m.contains_key("instructions") || m.contains_key("git"))
        && !m.contains_key("role")
    {
        return 12;
    }
    if m.len() == 1 && m.get("record_type").is_some_and(Value::is_string) {
        return 10;
    }
    if kind.is_some_and(|k| crate::adapters::openai::responses::ITEM_TYPES.contains(&k))
        && !m.contains_key("payload")
    {
        return 2;
    }
    match (kind, m.get("payload")) {
        (Some("session_meta"), Some(Value::Object(p)))
            if p.contains_key("cli_version") || p.contains_key("originator") =>
        {
            12
        }
        (Some(k), Some(Value::Object(_))) if RECORD_TYPES.contains(&k) => 10,
        // Newer record types (`world_state`, `token_usage_record`) on a rollout's envelope.
        (Some(_), Some(Value::Object(_))) if m.contains_key("timestamp") => 2,
        _ => 0,
    }
}

/// Parse a rollout (JSON Lines).
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(Reader::new(input), lines, input, out);
}

/// Parse a rollout saved as one JSON document (an array of records, or one record).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    agent::read_document(Reader::new(input), text, input, out, false);
}

/// A rollout line's envelope.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default, borrow)]
    payload: Option<&'a RawValue>,
}

/// `session_meta.payload` (and the fields of `turn_context.payload` read here).
#[derive(Deserialize, Default)]
struct Meta {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    cli_version: Option<String>,
    #[serde(default)]
    originator: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    model_provider: Option<String>,
    #[serde(default)]
    git: Option<Git>,
    #[serde(default)]
    instructions: Option<Value>,
    #[serde(default)]
    base_instructions: Option<Value>,
}

#[derive(Deserialize, Default)]
struct Git {
    #[serde(default)]
    branch: Option<String>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
    session_id: Option<String>,
    /// Call ids of the calls read so far (an `mcp_tool_call_end` for a call the rollout never
    /// recorded as a `function_call` stands for the call itself).
    call_ids: std::collections::HashSet<String>,
    /// The reading state of a `codex exec --json` output.
    exec: exec::Exec,
    /// A `codex exec --json` run has begun (its `thread.started` or first event read).
    exec_run: bool,
}

impl agent::Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        self.read(raw, cur, ptr, out);
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(self, out: &mut dyn Emit) {
        self.session.emit(self.session_id, self.input, out);
    }
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(crate::model::ATTR_AGENT, Some(crate::model::AGENT_CODEX));
        Self {
            input,
            session,
            session_id: None,
            call_ids: std::collections::HashSet::new(),
            exec: exec::Exec::default(),
            exec_run: false,
        }
    }

    /// A session read from `codex exec --json` events: what Codex ran, not the calls as its
    /// model sent them, so it names no agent whose built-in schemas would judge them.
    fn exec_session() -> Session {
        let mut session = Session::default();
        session.attributes.push((
            crate::model::ATTR_NOTE.to_owned(),
            EXEC_NOTE.to_owned(),
        ));
        session.attributes.push((
            crate::model::ATTR_PROMPT_UNRECORDED.to_owned(),
            "`codex exec --json` events do not include the prompt".to_owned(),
        ));
        session
    }

    /// One `codex exec --json` event.
    fn exec_event(&mut self, raw: &RawValue, cur: &Cursor<'_>, prefix: &str, out: &mut dyn Emit) {
        if !self.exec_run {
            self.exec_run = true;
            // Rollout records before it (none, in a file the CLI printed) are a trace of their own.
            let before = std::mem::replace(&mut self.session, Self::exec_session());
            if !before.items.is_empty() {
                before.emit(self.session_id.take(), self.input, out);
            }
            self.session_id = None;
        }
        let mut got = Collected::default();
        let step = self
            .exec
            .event(raw, cur, prefix, &mut self.session, &mut got);
        if let exec::Step::Thread(id) = step {
            // Another run printed into the same file: the run before is a trace of its own.
            if self.session_id.is_some() || !self.session.items.is_empty() {
                let done = std::mem::replace(&mut self.session, Self::exec_session());
                done.emit(self.session_id.take(), self.input, out);
                self.exec.reset();
            }
            self.session_id = id;
        }
        self.session.add(got, &StepMeta::default(), self.input, out);
    }

    fn read(&mut self, raw: &RawValue, cur: &Cursor<'_>, prefix: &str, out: &mut dyn Emit) {
        if exec::is_event(raw) {
            self.exec_event(raw, cur, prefix, out);
            return;
        }
        let rec: Record<'_> = match serde_json::from_str(raw.get()) {
            Ok(r) => r,
            Err(e) => {
                let at = cur.at(raw, prefix.to_owned());
                let what = if raw.get().starts_with('{') {
                    format!("unreadable Codex rollout record: {}", error_message(&e))
                } else {
                    "not a Codex rollout record: expected a JSON object".to_owned()
                };
                self.session.problem(&at, what, self.input, out);
                return;
            }
        };
        let Some(payload) = rec.payload else {
            // A first release's rollout: its header, its `record_type` lines, and items with
            // no envelope.
            if rec.kind.is_none() && raw.get().contains("\"record_type\"") {
                return;
            }
            if rec.kind.is_none()
                && let Ok(m) = serde_json::from_str::<Meta>(raw.get())
                && m.id.is_some()
            {
                self.session_meta(raw);
                return;
            }
            if rec
                .kind
                .as_deref()
                .is_some_and(|k| crate::adapters::openai::responses::ITEM_TYPES.contains(&k))
            {
                let mut got = Collected::default();
                items::read_item(raw, cur, prefix, &mut got);
                for item in &got.items {
                    if let crate::model::StepKind::ToolCall(c) = &item.kind
                        && let Some(id) = &c.call_id
                    {
                        self.call_ids.insert(id.clone());
                    }
                }
                let meta = StepMeta::default();
                self.session.add(got, &meta, self.input, out);
                return;
            }
            if rec.kind.is_none() {
                let at = cur.at(raw, prefix.to_owned());
                self.session.problem(
                    &at,
                    "not a Codex rollout record: no `type` and no `payload`".into(),
                    self.input,
                    out,
                );
            }
            return;
        };
        let ptr = child(prefix, "payload");
        let meta = StepMeta {
            timestamp: rec.timestamp.clone(),
            ..StepMeta::default()
        };
        match rec.kind.as_deref() {
            Some("session_meta") => self.session_meta(payload),
            Some("turn_context") => {
                if let Ok(m) = serde_json::from_str::<Meta>(payload.get()) {
                    self.session
                        .context(ContextKind::WorkingDirectory, m.cwd.as_deref());
                    self.session.attribute(ATTR_MODEL, m.model.as_deref());
                }
            }
            Some("response_item") => {
                let mut got = Collected::default();
                items::read_item(payload, cur, &ptr, &mut got);
                for item in &got.items {
                    if let crate::model::StepKind::ToolCall(c) = &item.kind
                        && let Some(id) = &c.call_id
                    {
                        self.call_ids.insert(id.clone());
                    }
                }
                self.session.add(got, &meta, self.input, out);
            }
            Some("event_msg") => {
                let mut got = Collected::default();
                items::read_event(
                    payload,
                    cur,
                    &ptr,
                    &self.call_ids,
                    &mut self.session,
                    &mut got,
                );
                self.session.add(got, &meta, self.input, out);
            }
            // `compacted` (a summary standing in for earlier turns, which stay in the file),
            // and record types newer than this reader: nothing to lint.
            _ => {}
        }
    }

    fn session_meta(&mut self, payload: &RawValue) {
        let Ok(m) = serde_json::from_str::<Meta>(payload.get()) else {
            return;
        };
        if self.session_id.is_none() {
            self.session_id = m.id.clone().filter(|s| !s.is_empty());
        }
        let s = &mut self.session;
        s.attribute(ATTR_STARTED, m.timestamp.as_deref());
        s.attribute(ATTR_CLI_VERSION, m.cli_version.as_deref());
        s.attribute(crate::model::ATTR_AGENT_VERSION, m.cli_version.as_deref());
        s.attribute("originator", m.originator.as_deref());
        s.attribute("model_provider", m.model_provider.as_deref());
        s.attribute(ATTR_MODEL, m.model.as_deref());
        s.context(ContextKind::WorkingDirectory, m.cwd.as_deref());
        s.context(
            ContextKind::GitBranch,
            m.git.as_ref().and_then(|g| g.branch.as_deref()),
        );
        for instructions in [&m.instructions, &m.base_instructions] {
            let text = match instructions {
                Some(Value::String(t)) => Some(t.as_str()),
                Some(Value::Object(o)) => o.get("text").and_then(Value::as_str),
                _ => None,
            };
            s.context(ContextKind::Instructions, text);
        }
    }
}

#[cfg(test)]
mod tests;
