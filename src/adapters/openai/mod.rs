//! The `openai` format: chat message lists in every shape people save them — a JSON array of
//! messages, `{"messages": […]}`, JSON Lines of messages (one conversation), datasets of
//! conversations (tau-bench `{task_id, traj}`, ShareGPT `{conversations}`, one trace each),
//! OpenAI Responses items, Anthropic Messages, and request/response logs (request bodies with
//! `messages`/`input` + `tools`, response bodies with `choices` / `output`, or
//! `{request, response}` pairs) assembled into one conversation. This file owns detection and
//! which records form which trace; `chat.rs`, `responses.rs` and `conv.rs` read them. BFCL
//! benchmark files are tool definitions and prompts, not runs: an input error says so.

pub mod chat;
pub mod conv;
pub mod responses;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex};

use super::Emit;
use super::content::Problem;
use super::cursor::{Cursor, child};
use super::json_pos::{Line, error_message, error_position};

use conv::{Conv, Entry};

/// Roles a chat message may have (OpenAI, Anthropic, ShareGPT spellings).
const ROLES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "function",
    "human",
    "gpt",
    "ai",
    "model",
    "observation",
    "function_call",
];

/// What BFCL benchmark records are, for the input error.
const BFCL: &str = "a BFCL benchmark file (`question` + `function`: prompts and tool definitions, not an agent run, so there are no tool calls to lint)";
const BFCL_MULTI_TURN: &str = "a BFCL multi-turn benchmark file (`question` + `involved_classes`: prompts, not an agent run, so there are no tool calls to lint)";
const BFCL_ANSWERS: &str =
    "a BFCL ground-truth file (`ground_truth`: expected calls, not an agent run)";
const BFCL_DOCS: &str = "BFCL function documentation (tool definitions whose schemas use `\"type\": \"dict\"`, which is not JSON Schema)";

/// How strongly a record looks like an OpenAI / Anthropic / ShareGPT record.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let has = |k: &str| m.contains_key(k);
    let list = |k: &str| m.get(k).is_some_and(Value::is_array);
    if has("steps") {
        return 0;
    }
    if let Some(role) = m.get("role").and_then(Value::as_str) {
        let chatty =
            has("tool_calls") || has("tool_call_id") || has("function_call") || list("content");
        return match (ROLES.contains(&role), chatty) {
            (true, true) => 8,
            (true, false) => 6,
            (false, _) => 1,
        };
    }
    if m.get("from").is_some_and(Value::is_string) && has("value") {
        return 6;
    }
    if let Some(kind) = m.get("type").and_then(Value::as_str)
        && responses::ITEM_TYPES.contains(&kind)
        && (has("call_id") || has("content") || has("summary"))
    {
        return 8;
    }
    if list("traj") || list("conversations") || list("messages") || list("choices") {
        return 10;
    }
    if list("output") && (has("object") || has("id")) {
        return 9;
    }
    if (list("input") || m.get("input").is_some_and(Value::is_string))
        && (has("model") || has("tools"))
    {
        return 8;
    }
    if m.get("request").is_some_and(Value::is_object)
        && m.get("response").is_some_and(Value::is_object)
    {
        return 8;
    }
    0
}

/// When the records are a known shape that is not an agent run, what it is.
pub fn not_a_trace(records: &[Value]) -> Option<&'static str> {
    let first = records.first()?.as_object()?;
    let has = |k: &str| first.contains_key(k);
    if has("question") && has("function") {
        Some(BFCL)
    } else if has("question") && has("involved_classes") {
        Some(BFCL_MULTI_TURN)
    } else if has("ground_truth") && has("id") {
        Some(BFCL_ANSWERS)
    } else if first.get("parameters").and_then(|p| p.get("type")) == Some(&Value::from("dict"))
        && has("name")
    {
        Some(BFCL_DOCS)
    } else {
        None
    }
}

/// Parse an OpenAI-shaped JSON document.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    let mut reader = Reader::new(input);
    let json_issue = |e: &serde_json::Error, out: &mut dyn Emit| {
        let (l, c) = error_position(e, 1);
        out.issue(InputIssue::at(
            &input.path,
            l,
            c,
            format!("invalid JSON: {}", error_message(e)),
        ));
    };
    if text.trim_start().starts_with('[') {
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => return json_issue(&e, out),
        };
        if items.is_empty() {
            out.issue(InputIssue::file(
                &input.path,
                "the file holds an empty array: nothing to lint",
            ));
            return;
        }
        for (i, raw) in items.iter().enumerate() {
            let default_id = format!("{}[{i}]", input.path);
            reader.record(raw, &cur, &child("", i), &default_id, out);
        }
    } else {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => reader.record(raw, &cur, "", &input.path, out),
            Err(e) => return json_issue(&e, out),
        }
    }
    reader.finish(out);
}

/// Parse OpenAI-shaped JSON Lines: messages (one conversation), conversations (one trace each),
/// or a request/response log.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut reader = Reader::new(input);
    for line in lines {
        match line {
            Err(issue) => {
                reader.stream.partial();
                out.issue(issue);
            }
            Ok(line) => {
                let raw: &RawValue = match serde_json::from_str(&line.text) {
                    Ok(r) => r,
                    Err(e) => {
                        let (l, c) = error_position(&e, line.number);
                        reader.stream.partial();
                        out.issue(InputIssue::at(
                            &input.path,
                            l,
                            c,
                            format!("invalid JSON: {}", error_message(&e)),
                        ));
                        continue;
                    }
                };
                let cur = Cursor::record(&line.text, line.number);
                let default_id = format!("{}:{}", input.path, line.number);
                reader.record(raw, &cur, "", &default_id, out);
            }
        }
    }
    reader.finish(out);
}

/// The top-level fields that say what a record is.
#[derive(Deserialize, Default)]
struct Body<'a> {
    #[serde(default)]
    role: Option<Value>,
    #[serde(default)]
    from: Option<Value>,
    #[serde(rename = "type", default)]
    kind: Option<Value>,
    #[serde(default, borrow)]
    messages: Option<&'a RawValue>,
    #[serde(default, borrow)]
    traj: Option<&'a RawValue>,
    #[serde(default, borrow)]
    conversations: Option<&'a RawValue>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    output: Option<&'a RawValue>,
    #[serde(default, borrow)]
    choices: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tools: Option<&'a RawValue>,
    #[serde(default, borrow)]
    functions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    instructions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    system: Option<&'a RawValue>,
    #[serde(default, borrow)]
    request: Option<&'a RawValue>,
    #[serde(default, borrow)]
    response: Option<&'a RawValue>,
    #[serde(default, borrow)]
    body: Option<&'a RawValue>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    previous_response_id: Option<Value>,
    #[serde(default)]
    question: Option<Value>,
    #[serde(default)]
    function: Option<Value>,
    #[serde(default)]
    task_id: Option<Value>,
    #[serde(default)]
    trial: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    status: Option<Value>,
    #[serde(default)]
    status_code: Option<Value>,
    #[serde(default, rename = "statusCode")]
    status_code_camel: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

impl Body<'_> {
    fn is_message(&self) -> bool {
        matches!(self.role, Some(Value::String(_)))
            || matches!(self.from, Some(Value::String(_)))
            || matches!(&self.kind, Some(Value::String(k)) if responses::ITEM_TYPES.contains(&k.as_str()))
    }

    fn conversation(&self) -> Option<(&RawValue, &'static str)> {
        self.messages
            .map(|m| (m, "messages"))
            .or(self.traj.map(|t| (t, "traj")))
            .or(self.conversations.map(|c| (c, "conversations")))
    }
}

/// Reads the records of one file into traces.
struct Reader<'i> {
    input: &'i InputRef,
    /// Messages, items and logged bodies of the file, in order: one conversation (a request
    /// log that holds several runs has one at a time).
    stream: Conv,
    /// Runs of a request log read so far, the current one included.
    runs: usize,
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef) -> Self {
        Self {
            input,
            stream: Conv::new(input.path.clone(), input.clone()),
            runs: 1,
        }
    }

    /// A logged request that does not continue the conversation: the run so far is finished
    /// and another begins.
    fn next_run(&mut self, out: &mut dyn Emit) {
        self.runs += 1;
        let next = Conv::new(
            format!("{}#{}", self.input.path, self.runs),
            self.input.clone(),
        );
        let done = std::mem::replace(&mut self.stream, next);
        if done.touched || !done.is_empty() {
            out.trace(done.finish());
        }
    }

    fn record(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        default_id: &str,
        out: &mut dyn Emit,
    ) {
        let mut problems = Vec::new();
        let body: Body<'_> = if raw.get().starts_with('{') {
            serde_json::from_str(raw.get()).unwrap_or_default()
        } else {
            Body::default()
        };
        if body.is_message() {
            self.stream
                .append(&[(Entry::Item(raw), ptr.to_owned())], cur, &mut problems);
        } else if body.question.is_some() && body.function.is_some() {
            problems.push(Problem {
                at: cur.at(raw, ptr.to_owned()),
                message: format!("not an agent run: this is {BFCL}"),
            });
        } else if body.request.is_some() || body.response.is_some() {
            for (part, key) in [(body.request, "request"), (body.response, "response")] {
                let Some(part) = part else { continue };
                let wrapper: Body<'_> = serde_json::from_str(part.get()).unwrap_or_default();
                let status = http_status(&wrapper);
                let (part, inner, key) = match wrapper.body {
                    Some(b) if b.get().starts_with('{') => (
                        b,
                        serde_json::from_str(b.get()).unwrap_or_default(),
                        child(&child(ptr, key), "body"),
                    ),
                    _ => (part, wrapper, child(ptr, key)),
                };
                if key.starts_with(&child(ptr, "response"))
                    && let Some(why) = failure(status, &inner)
                {
                    // The model call failed: a fact about the run, not a tool's error.
                    let line = cur.at(part, key).line;
                    self.stream.note(format!(
                        "a model request failed (line {line}: {why}): a fact about the run, not a tool error"
                    ));
                    continue;
                }
                if !self.logged(part, &inner, cur, &key, out, &mut problems) {
                    problems.push(Problem {
                        at: cur.at(part, key),
                        message: "the logged body holds no messages, input or output".into(),
                    });
                }
            }
        } else if let Some((list, key)) = body.conversation().filter(|_| body.model.is_none()) {
            self.dataset(&body, list, key, cur, ptr, default_id, out);
        } else if !self.logged(raw, &body, cur, ptr, out, &mut problems) {
            let keys = keys_of(raw);
            problems.push(Problem {
                at: cur.at(raw, ptr.to_owned()),
                message: if keys.is_empty() {
                    "not a chat message, conversation, request or response: expected a JSON object"
                        .into()
                } else {
                    format!("not a chat message, conversation, request or response (keys {keys})")
                },
            });
        }
        self.report(problems, out);
    }

    /// A logged request or response body; false when it is neither.
    #[allow(clippy::too_many_arguments)]
    fn logged(
        &mut self,
        raw: &RawValue,
        body: &Body<'_>,
        cur: &Cursor<'_>,
        ptr: &str,
        out: &mut dyn Emit,
        problems: &mut Vec<Problem>,
    ) -> bool {
        let output = body.output.filter(|o| o.get().starts_with('['));
        if body.choices.is_none() && output.is_none() && !body.is_message() {
            // A request: it re-sends the conversation, or starts another run.
            return self.request(body, cur, ptr, out, problems);
        }
        self.take_tools(body);
        if body.is_message() {
            // An Anthropic Messages response: one assistant message.
            self.stream
                .append(&[(Entry::Item(raw), ptr.to_owned())], cur, problems);
            return true;
        }
        if let Some(choices) = body.choices {
            // A chat completion: the first choice's message continues the conversation.
            let first = serde_json::from_str::<Vec<&RawValue>>(choices.get())
                .ok()
                .and_then(|c| c.first().copied());
            let fields = first.and_then(|c| {
                serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(c.get()).ok()
            });
            let p = child(&child(ptr, "choices"), 0);
            match fields.as_ref().map(|f| (f.get("message"), f.get("delta"))) {
                Some((Some(m), _)) => {
                    let p = child(&p, "message");
                    self.stream.append(&[(Entry::Item(m), p)], cur, problems);
                }
                Some((None, Some(d))) => problems.push(Problem {
                    at: cur.at(d, child(&p, "delta")),
                    message: "a streamed chunk (`choices[].delta`) is not assembled into calls: log the final response instead".into(),
                }),
                _ => self.stream.touched = true,
            }
            return true;
        }
        if let Some(output) = output {
            let entries = items(output, &child(ptr, "output"), Entry::Item);
            self.stream.append(&entries, cur, problems);
            return true;
        }
        false
    }

    /// The tool definitions a logged body carries (`tools`, legacy `functions`).
    fn take_tools(&mut self, body: &Body<'_>) {
        if let Some(t) = body.tools {
            self.stream.tools(t, false);
        }
        if let Some(f) = body.functions {
            self.stream.tools(f, true);
        }
    }

    /// A logged request body (`messages`, `input`, `system`, `instructions`); false when it
    /// holds none of them.
    fn request(
        &mut self,
        body: &Body<'_>,
        cur: &Cursor<'_>,
        ptr: &str,
        out: &mut dyn Emit,
        problems: &mut Vec<Problem>,
    ) -> bool {
        let mut entries = Vec::new();
        if let Some(i) = body.instructions.filter(|i| i.get().starts_with('"')) {
            entries.push((Entry::System(i), child(ptr, "instructions")));
        }
        if let Some(s) = body.system {
            entries.push((Entry::System(s), child(ptr, "system")));
        }
        if let Some((list, key)) = body.conversation() {
            entries.extend(items(list, &child(ptr, key), Entry::Item));
        } else if let Some(input) = body.input {
            let p = child(ptr, "input");
            if input.get().starts_with('"') {
                entries.push((Entry::User(input), p));
            } else {
                entries.extend(items(input, &p, Entry::Item));
            }
        } else {
            return false;
        }
        let incremental = matches!(body.previous_response_id, Some(Value::String(_)));
        let mut resent = self.stream.resent(&entries, incremental, cur);
        if !self.stream.continued_by(resent, entries.len(), incremental) {
            self.next_run(out);
            resent = 0;
        }
        self.take_tools(body);
        self.stream.request(&entries, resent, cur, problems);
        true
    }

    /// A conversation record of a dataset (tau-bench, ShareGPT, saved message lists): its own
    /// trace, emitted at once.
    #[allow(clippy::too_many_arguments)]
    fn dataset(
        &mut self,
        body: &Body<'_>,
        list: &RawValue,
        key: &str,
        cur: &Cursor<'_>,
        ptr: &str,
        default_id: &str,
        out: &mut dyn Emit,
    ) {
        let run_id = match (&body.task_id, &body.trial, &body.id) {
            (Some(t), Some(trial), _) => format!("task-{}/trial-{}", plain(t), plain(trial)),
            (Some(t), None, _) => format!("task-{}", plain(t)),
            (None, _, Some(id @ (Value::String(_) | Value::Number(_)))) => plain(id),
            _ => default_id.to_owned(),
        };
        let mut conv = Conv::new(run_id, self.input.clone());
        if let Some(t) = body.tools {
            conv.tools(t, false);
        }
        if let Some(f) = body.functions {
            conv.tools(f, true);
        }
        let mut entries = Vec::new();
        if let Some(s) = body.system {
            entries.push((Entry::System(s), child(ptr, "system")));
        }
        let p = child(ptr, key);
        if list.get().starts_with('[') {
            entries.extend(items(list, &p, Entry::Item));
        }
        let mut problems = Vec::new();
        if !list.get().starts_with('[') {
            problems.push(Problem {
                at: cur.at(list, p),
                message: format!("`{key}` is not a list"),
            });
        }
        conv.append(&entries, cur, &mut problems);
        if !problems.is_empty() {
            conv.partial();
        }
        self.report(problems, out);
        out.trace(conv.finish());
    }

    fn report(&mut self, problems: Vec<Problem>, out: &mut dyn Emit) {
        if !problems.is_empty() {
            self.stream.partial();
        }
        for p in problems {
            out.issue(InputIssue::at(
                &self.input.path,
                p.at.line,
                p.at.column,
                p.message,
            ));
        }
    }

    fn finish(self, out: &mut dyn Emit) {
        if self.stream.touched || !self.stream.is_empty() {
            out.trace(self.stream.finish());
        }
    }
}

/// The HTTP status a logged request or response records beside its body.
fn http_status(wrapper: &Body<'_>) -> Option<u16> {
    [
        &wrapper.status,
        &wrapper.status_code,
        &wrapper.status_code_camel,
    ]
    .into_iter()
    .flatten()
    .find_map(|v| match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
    .and_then(|n| u16::try_from(n).ok())
    .filter(|n| (100..600).contains(n))
}

/// Why a logged response is a failed model request: an HTTP status of 400 or more, or a body
/// that is an error (OpenAI `{"error": {…}}`, Anthropic `{"type": "error", "error": {…}}`).
fn failure(status: Option<u16>, body: &Body<'_>) -> Option<String> {
    let message = match &body.error {
        Some(Value::Object(e)) => e
            .get("message")
            .and_then(Value::as_str)
            .map(|m| m.chars().take(200).collect::<String>()),
        Some(Value::String(e)) if !e.is_empty() => Some(e.chars().take(200).collect()),
        _ => None,
    };
    let is_error_body =
        matches!(&body.error, Some(Value::Object(e)) if !e.is_empty()) || message.is_some();
    match (status.filter(|s| *s >= 400), message) {
        (Some(s), Some(m)) => Some(format!("HTTP {s}: {m}")),
        (Some(s), None) => Some(format!("HTTP {s}")),
        (None, Some(m)) => Some(format!("error response: {m}")),
        (None, None) => is_error_body.then(|| "error response".to_owned()),
    }
}

/// The elements of a list as entries, with their pointers.
fn items<'a>(
    list: &'a RawValue,
    ptr: &str,
    entry: fn(&'a RawValue) -> Entry<'a>,
) -> Vec<(Entry<'a>, String)> {
    serde_json::from_str::<Vec<&RawValue>>(list.get())
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, raw)| (entry(raw), child(ptr, i)))
        .collect()
}

/// A scalar id as plain text (a string without its quotes).
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The first keys of an object, for messages.
fn keys_of(raw: &RawValue) -> String {
    serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(raw.get())
        .map(|m| {
            m.keys()
                .take(6)
                .map(|k| format!("`{}`", crate::model::location::pointer_token(k)))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
