//! The `copilot-cli` format: GitHub Copilot CLI sessions
//! (`~/.copilot/session-state/<id>/events.jsonl`), one `{type, data, id, timestamp, parentId}`
//! event a line. `assistant.message` events carry the model's text and its `toolRequests[]`
//! (the calls); `tool.execution_complete` answers one by `toolCallId` with `success` (the
//! structured verdict) and `result.content` or `error.message`; `user.message` and
//! `system.message` are the conversation's other turns; `session.start` gives the CLI version,
//! the model and the working directory. `tool.execution_start` mirrors a request (read only
//! when no request recorded the call); every other event is read past.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{
    Args, CallOrigin, ContextKind, InputRef, Message, ResultStatus, Role, StepKind, StepMeta,
    ToolCall, ToolResult,
};

use crate::adapters::Emit;
use crate::adapters::common::agent::{self, Records, Session};
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::Line;

/// Event types a session's lines have (the ones read, and a few always present).
const EVENT_TYPES: &[&str] = &[
    "session.start",
    "session.shutdown",
    "user.message",
    "system.message",
    "assistant.message",
    "assistant.turn_start",
    "assistant.turn_end",
    "tool.execution_start",
    "tool.execution_complete",
    "session.usage_record",
];

/// How strongly a record looks like a Copilot CLI event.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let kind = m.get("type").and_then(Value::as_str).unwrap_or("");
    if !m.get("data").is_some_and(Value::is_object) {
        return 0;
    }
    if EVENT_TYPES.contains(&kind) {
        return 10;
    }
    // Newer event types on the same envelope.
    if kind.contains('.') && m.contains_key("id") && m.contains_key("timestamp") {
        return 3;
    }
    0
}

/// Parse a session's `events.jsonl`.
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
struct Event<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    timestamp: Option<String>,
}

#[derive(Deserialize, Default)]
struct Data<'a> {
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
    #[serde(rename = "copilotVersion", default)]
    copilot_version: Option<String>,
    #[serde(rename = "selectedModel", default)]
    selected_model: Option<String>,
    #[serde(default)]
    context: Option<Value>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    model: Option<String>,
    #[serde(rename = "toolRequests", default, borrow)]
    tool_requests: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", default)]
    tool_call_id: Option<Value>,
    #[serde(rename = "toolName", default)]
    tool_name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Request {
    #[serde(rename = "toolCallId", default)]
    tool_call_id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    arguments: Option<Value>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
    id: Option<String>,
    /// Call ids the model's requests recorded.
    requested: std::collections::HashSet<String>,
    /// A `session.start` event was read.
    started: bool,
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        let mut session = Session::default();
        session.attribute(
            crate::model::ATTR_AGENT,
            Some(crate::model::AGENT_COPILOT_CLI),
        );
        Self {
            input,
            session,
            id: None,
            requested: std::collections::HashSet::new(),
            started: false,
        }
    }

    fn event(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Ok(ev) = serde_json::from_str::<Event<'_>>(raw.get()) else {
            let input = self.input;
            let why = "not a Copilot CLI event: expected a JSON object";
            self.session.problem_at(raw, cur, ptr, why, input, out);
            return;
        };
        let Some(data_raw) = ev.data else { return };
        let Ok(data) = serde_json::from_str::<Data<'_>>(data_raw.get()) else {
            return;
        };
        let dptr = child(ptr, "data");
        let meta = StepMeta {
            timestamp: ev.timestamp.clone(),
            source_id: ev.id.clone(),
            model: data.model.clone(),
            ..StepMeta::default()
        };
        let mut got = Collected::default();
        let text_at = |got: &mut Collected, role: Role, content: &Option<Value>| {
            if let Some(Value::String(t)) = content
                && !t.trim().is_empty()
            {
                let at = cur.step(data_raw, &["\"content\":"], dptr.clone());
                got.push(
                    StepKind::Message(Message {
                        role,
                        content: t.clone(),
                    }),
                    at,
                );
            }
        };
        match ev.kind.as_deref().unwrap_or("") {
            "session.start" => {
                self.started = true;
                self.id = self.id.take().or(data.session_id);
                let s = &mut self.session;
                s.attribute(
                    crate::model::ATTR_AGENT_VERSION,
                    data.copilot_version.as_deref(),
                );
                s.attribute(crate::model::ATTR_MODEL, data.selected_model.as_deref());
                let cwd = data.context.as_ref().and_then(|c| c.get("cwd"));
                s.context(ContextKind::WorkingDirectory, cwd.and_then(Value::as_str));
                let branch = data.context.as_ref().and_then(|c| c.get("branch"));
                s.context(ContextKind::GitBranch, branch.and_then(Value::as_str));
            }
            "user.message" => text_at(&mut got, Role::User, &data.content),
            "system.message" => text_at(&mut got, Role::System, &data.content),
            "assistant.message" => {
                text_at(&mut got, Role::Assistant, &data.content);
                if let Some(reqs) = data.tool_requests {
                    self.requests(reqs, cur, &child(&dptr, "toolRequests"), &mut got);
                }
            }
            "tool.execution_start" => {
                // Only a call no request recorded (an agent-internal or MCP invocation).
                let id = id_of(data.tool_call_id.as_ref());
                if let (Some(id), Some(name)) = (id, data.tool_name)
                    && self.requested.insert(id.clone())
                {
                    let at = cur.step(data_raw, &[&id], dptr.clone());
                    got.push(
                        StepKind::ToolCall(ToolCall {
                            call_id: Some(id),
                            name,
                            args: content::args_owned(data.arguments),
                            raw_args: None,
                            origin: CallOrigin::ToolRecord,
                        }),
                        at,
                    );
                }
            }
            "tool.execution_complete" => {
                let id = id_of(data.tool_call_id.as_ref());
                let at = cur.step(data_raw, &[id.as_deref().unwrap_or("")], dptr.clone());
                let error = data.error.as_ref().map(|e| {
                    e.get("message")
                        .and_then(Value::as_str)
                        .map_or_else(|| e.to_string(), str::to_owned)
                });
                let body = data
                    .result
                    .as_ref()
                    .and_then(|r| r.get("content").cloned().or_else(|| Some(r.clone())));
                let recorded = body.is_some() || error.is_some();
                let content = match body {
                    Some(b) => content::result_content(Some(b)),
                    None => error.clone().map_or(Value::Null, Value::String),
                };
                let status = match data.success {
                    Some(true) => ResultStatus::Ok,
                    Some(false) => ResultStatus::Error,
                    None => ResultStatus::Unknown,
                };
                let mut r = ToolResult::new(id, content, status);
                r.error = error;
                r.content_recorded = recorded;
                got.push(StepKind::ToolResult(r), at);
            }
            _ => {}
        }
        self.session.add(got, &meta, self.input, out);
    }

    fn requests(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, got: &mut Collected) {
        let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(raw.get()) else {
            got.problem(cur.at(raw, ptr.to_owned()), "`toolRequests` must be a list");
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let iptr = child(ptr, i);
            let Ok(req) = serde_json::from_str::<Request>(item.get()) else {
                got.problem(cur.at(item, iptr), "a tool request must be an object");
                continue;
            };
            let Some(Value::String(name)) = req.name else {
                got.problem(cur.at(item, iptr), "a tool request needs a string `name`");
                continue;
            };
            let id = id_of(req.tool_call_id.as_ref());
            if let Some(id) = &id {
                self.requested.insert(id.clone());
            }
            // A free-form (custom) tool's call, `custom_call_…` as the model API names it,
            // takes its input as text (an `apply_patch` body), not as JSON to be parsed.
            let freeform = id.as_deref().is_some_and(|i| i.starts_with("custom_call_"));
            let (args, raw_args) = match req.arguments {
                Some(Value::String(s)) if freeform => (Args::Known(Value::String(s)), None),
                Some(Value::String(s)) => (crate::adapters::common::args::from_text(&s), Some(s)),
                Some(v @ Value::Object(_)) => (Args::Known(v), None),
                other => (content::args_owned(other), None),
            };
            let at = cur.step(item, &[id.as_deref().unwrap_or(""), &name], iptr);
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
    }
}

impl Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        self.event(raw, cur, ptr, out);
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(mut self, out: &mut dyn Emit) {
        if !self.started {
            // The events of `copilot -p … --output-format json` (or a log cut short at its
            // start): no working directory, and neither the instructions nor the environment
            // the session began with.
            self.session.attribute(
                crate::model::ATTR_PROMPT_UNRECORDED,
                Some(
                    "a Copilot CLI record without its `session.start` event names no working directory and holds none of the instructions the session began with",
                ),
            );
        }
        self.session.emit(self.id, self.input, out);
    }
}

#[cfg(test)]
mod tests {
    use crate::adapters::testing::{
        assert_not_an_empty_pass, counted, counts, misplaced_steps, repo_fixture, summary,
    };
    use crate::adapters::{InputFormat, parse_bytes};
    use crate::model::ResultStatus;

    const FILE: &str = "events.jsonl";

    #[test]
    fn a_real_session() {
        let (parsed, text) = repo_fixture("copilot-cli", FILE, InputFormat::CopilotCli);
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        insta::assert_json_snapshot!("copilot-cli-1.0.102", summary(&parsed));
        let t = &parsed.traces[0];
        // Counted from the raw events: 7 tool requests, 7 completions, 3 with `success: false`.
        assert_eq!(counts(t), counted(7, 7, 3, 0));
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        let errors: Vec<&str> = t
            .steps
            .iter()
            .filter_map(|s| s.as_result())
            .filter(|r| r.status == ResultStatus::Error)
            .filter_map(|r| r.error.as_deref())
            .collect();
        assert_eq!(
            errors,
            [
                "\"path\": Required",
                "\"command\": Expected string, received number",
                "Tool 'no_such_tool' does not exist."
            ]
        );
        assert_eq!(
            t.attribute(crate::model::ATTR_AGENT_VERSION),
            Some("1.0.102")
        );
        assert_eq!(t.attribute(crate::model::ATTR_MODEL), Some("gpt-4.1"));
        assert!(!t.context.is_empty());
    }

    /// Acceptance 5 of issue 24: never an empty pass.
    #[test]
    fn truncated_and_renamed_sessions_are_never_an_empty_pass() {
        let (_, text) = repo_fixture("copilot-cli", FILE, InputFormat::CopilotCli);
        let cut = &text[..text.len() / 2];
        let (_, parsed) = parse_bytes(cut.as_bytes(), "cut.jsonl", None);
        assert!(parsed.traces[0].call_count() > 0);
        let renamed = text.replace("\"toolRequests\"", "\"requests\"");
        let (format, parsed) = parse_bytes(renamed.as_bytes(), "renamed.jsonl", None);
        assert_eq!(format, Some(InputFormat::CopilotCli));
        // The calls are still recorded by their execution events.
        assert!(parsed.traces[0].call_count() > 0);
        let renamed = renamed.replace("\"tool.execution_start\"", "\"tool.started\"");
        let (_, parsed) = parse_bytes(renamed.as_bytes(), "renamed.jsonl", None);
        assert_not_an_empty_pass(&parsed);
    }

    /// A free-form tool's call (`custom_call_…`, an `apply_patch` body as its input) is text the
    /// tool takes, never malformed JSON; a function call's unparsable arguments still are.
    #[test]
    fn a_free_form_tool_takes_its_input_as_text() {
        let session = concat!(
            r#"{"type":"session.start","data":{"sessionId":"s","version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-12-02T00:58:06.182Z","context":{"cwd":"/w"}},"id":"1","timestamp":"2026-12-02T00:58:06.182Z","parentId":null}"#,
            "\n",
            r#"{"type":"user.message","data":{"content":"add a plan"},"id":"2","timestamp":"2026-12-02T00:58:07.000Z","parentId":"1"}"#,
            "\n",
            r#"{"type":"assistant.message","data":{"messageId":"m","content":"","toolRequests":[{"toolCallId":"custom_call_A","name":"apply_patch","arguments":"*** Begin Patch\n*** Add File: plan.md\n+# Plan\n*** End Patch\n"},{"toolCallId":"call_B","name":"view","arguments":"{\"path\": "}]},"id":"3","timestamp":"2026-12-02T00:58:08.000Z","parentId":"2"}"#,
            "\n",
        );
        let (_, parsed) = parse_bytes(session.as_bytes(), "events.jsonl", None);
        let calls: Vec<_> = parsed.traces[0]
            .steps
            .iter()
            .filter_map(|s| s.as_call())
            .collect();
        assert_eq!(calls.len(), 2, "{:?}", parsed.issues);
        assert_eq!(
            calls[0].args.known().and_then(|v| v.as_str()),
            Some("*** Begin Patch\n*** Add File: plan.md\n+# Plan\n*** End Patch\n")
        );
        assert!(calls[0].raw_args.is_none());
        assert!(calls[1].args.known().is_none(), "{:?}", calls[1].args);
    }
}
