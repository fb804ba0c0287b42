//! One Inspect sample (one epoch of one dataset sample) → one trace. `messages[]` give the
//! conversation: assistant `tool_calls` (arguments already parsed by Inspect; a `parse_error`
//! means the model's text was not valid JSON, so the arguments are malformed), tool messages
//! answering them by `tool_call_id` (a structured `error{type, message}` is an error),
//! server-side `tool_use` content (a provider's web search) as a call with its result.
//! `events[]` add what messages may have lost: `model` events' `tools[]` are the schemas the
//! model was offered (embedded schemas), and `tool` events are the record of every call, so a
//! call trimmed from the messages (history truncation) is read from its event, in event order,
//! and an `error` recorded only on the event still makes the result an error. Content condensed
//! into `attachments` (`attachment://<hash>`) is read back.
//!
//! One cohesive mapping: messages and events describe the same calls and are reconciled in one pass
//! over the sample.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{
    Args, CallOrigin, InputRef, Message, ResultStatus, Role, SchemaSource, StepKind, StepMeta,
    ToolCall, ToolResult, ToolSpec, Trace,
};

use crate::adapters::Emit;
use crate::adapters::common::args;
use crate::adapters::common::content::Item;
use crate::adapters::common::cursor::{Cursor, child, object_or_issue};
use crate::adapters::common::raw::{self, Members};

/// Where the schemas a log carries are said to come from.
const SCHEMA_SOURCE: &str = "embedded in the log (Inspect model event `tools`)";

/// Deepest nesting walked when reading attachments back into a value.
const MAX_DEPTH: usize = 32;

/// One `tool` event: Inspect's own record of a call and its outcome.
struct ToolEvent<'a> {
    raw: &'a RawValue,
    ptr: String,
    id: Option<String>,
    function: String,
    arguments: Option<Value>,
    result: Option<Value>,
    error: Option<String>,
}

/// Read one sample into a trace. `member` is the `.eval` member it came from.
pub(super) fn read(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    member: Option<&str>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let Some(m) = object_or_issue(raw, cur, ptr, &input.path, "an Inspect sample", out) else {
        return;
    };
    let run_id = match member {
        Some(name) => name.to_owned(),
        None => format!(
            "{}/epoch-{}",
            raw::id(&m, "id").unwrap_or_else(|| "sample".into()),
            raw::id(&m, "epoch").unwrap_or_else(|| "1".into())
        ),
    };
    let mut trace = Trace::new(run_id, input.clone());
    let attachments: HashMap<String, String> = match raw::value(&m, "attachments") {
        Some(Value::Object(a)) => a
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some((k, s)),
                _ => None,
            })
            .collect(),
        _ => HashMap::new(),
    };
    let att = Attachments(&attachments);
    let events = read_events(&m, ptr, &att, &mut trace);
    let mut reader = Messages {
        cur,
        att: &att,
        items: Vec::new(),
        call_events: Vec::new(),
    };
    for (i, msg) in raw::list(&m, "messages").iter().enumerate() {
        reader.message(msg, &child(&child(ptr, "messages"), i));
    }
    let Messages {
        items, call_events, ..
    } = reader;
    merge(items, call_events, &events, cur, &mut trace);
    if let Some(Value::Object(o)) = raw::value(&m, "output") {
        trace.final_answer = o
            .get("completion")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
    }
    if let Some(err) = raw::value(&m, "error") {
        let msg = err
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| err.to_string(), str::to_owned);
        trace.add_note(format!(
            "the sample ended in an error: {}",
            msg.chars().take(200).collect::<String>()
        ));
    }
    out.trace(trace);
}

/// The attachments of a sample: `attachment://<hash>` strings read back.
struct Attachments<'a>(&'a HashMap<String, String>);

impl Attachments<'_> {
    fn string(&self, s: String) -> String {
        match s.strip_prefix("attachment://").and_then(|k| self.0.get(k)) {
            Some(text) => text.clone(),
            None => s,
        }
    }

    fn value(&self, v: Value, depth: usize) -> Value {
        if depth > MAX_DEPTH || self.0.is_empty() {
            return v;
        }
        match v {
            Value::String(s) => Value::String(self.string(s)),
            Value::Array(a) => {
                Value::Array(a.into_iter().map(|x| self.value(x, depth + 1)).collect())
            }
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .map(|(k, x)| (k, self.value(x, depth + 1)))
                    .collect(),
            ),
            other => other,
        }
    }
}

/// The `tool` events (in order), and the schemas of `model` events into the trace.
fn read_events<'a>(
    m: &Members<'a>,
    ptr: &str,
    att: &Attachments<'_>,
    trace: &mut Trace,
) -> Vec<ToolEvent<'a>> {
    let mut events = Vec::new();
    let mut declared = HashSet::new();
    for (i, ev) in raw::list(m, "events").iter().enumerate() {
        let Some(e) = raw::object(ev) else { continue };
        match raw::string(&e, "event").as_deref() {
            Some("model") => {
                for tool in raw::list(&e, "tools") {
                    let Some(t) = raw::object(tool) else { continue };
                    let Some(name) = raw::string(&t, "name") else {
                        continue;
                    };
                    if declared.insert(name.clone()) {
                        let schema = raw::value(&t, "parameters").filter(Value::is_object);
                        trace.embedded_tools.push(ToolSpec::new(
                            name,
                            schema,
                            SchemaSource(SCHEMA_SOURCE.to_owned()),
                        ));
                    }
                }
            }
            Some("tool") => {
                let Some(function) = raw::string(&e, "function") else {
                    continue;
                };
                events.push(ToolEvent {
                    raw: ev,
                    ptr: child(&child(ptr, "events"), i),
                    id: raw::id(&e, "id"),
                    function,
                    arguments: raw::value(&e, "arguments").map(|v| att.value(v, 0)),
                    result: raw::value(&e, "result").map(|v| att.value(v, 0)),
                    error: raw::value(&e, "error").map(|v| error_text(&v)),
                });
            }
            _ => {}
        }
    }
    events
}

/// A `ToolCallError` (`{type, message}`) as one line of text.
fn error_text(v: &Value) -> String {
    let kind = v.get("type").and_then(Value::as_str);
    let message = v.get("message").and_then(Value::as_str);
    match (kind, message) {
        (Some(k), Some(m)) => format!("{k}: {m}"),
        (Some(k), None) => k.to_owned(),
        (None, Some(m)) => m.to_owned(),
        (None, None) => v.to_string(),
    }
}

/// Reads messages into items.
struct Messages<'c, 't> {
    cur: &'c Cursor<'t>,
    att: &'c Attachments<'c>,
    items: Vec<Item>,
    /// For each call item (by item index), its call id.
    call_events: Vec<(usize, Option<String>)>,
}

impl Messages<'_, '_> {
    fn message(&mut self, raw: &RawValue, ptr: &str) {
        let Some(m) = raw::object(raw) else { return };
        let role = raw::string(&m, "role").unwrap_or_default();
        let content = raw::value(&m, "content").map(|v| self.att.value(v, 0));
        let text = content.as_ref().map(message_text).unwrap_or_default();
        match role.as_str() {
            "system" | "user" | "assistant" => {
                let role = match role.as_str() {
                    "system" => Role::System,
                    "user" => Role::User,
                    _ => Role::Assistant,
                };
                if !text.trim().is_empty() {
                    let at = self.cur.step(raw, &["\"content\""], ptr.to_owned());
                    self.push(
                        StepKind::Message(Message {
                            role,
                            content: text,
                        }),
                        at,
                    );
                }
                if let Some(Value::Array(parts)) = &content {
                    self.server_tool_uses(raw, parts, ptr);
                }
                for (i, call) in raw::list(&m, "tool_calls").iter().enumerate() {
                    self.call(call, &child(&child(ptr, "tool_calls"), i));
                }
            }
            "tool" => {
                let call_id = raw::id(&m, "tool_call_id");
                let error = raw::value(&m, "error").map(|v| error_text(&v));
                let status = if error.is_some() {
                    ResultStatus::Error
                } else {
                    ResultStatus::Unknown
                };
                let body = match content {
                    Some(Value::Array(parts)) => Value::String(message_text(&Value::Array(parts))),
                    Some(v) => v,
                    None => Value::Null,
                };
                let mut result = ToolResult::new(call_id.clone(), body, status);
                result.error = error;
                let at = self
                    .cur
                    .step(raw, &[call_id.as_deref().unwrap_or("")], ptr.to_owned());
                self.push(StepKind::ToolResult(result), at);
            }
            _ => {}
        }
    }

    fn call(&mut self, raw: &RawValue, ptr: &str) {
        let Some(c) = raw::object(raw) else { return };
        let Some(name) = raw::string(&c, "function") else {
            return;
        };
        let call_id = raw::id(&c, "id");
        let args = match raw::string(&c, "parse_error") {
            Some(why) => Args::Malformed(parse_error_reason(&why)),
            None => match raw::value(&c, "arguments").map(|v| self.att.value(v, 0)) {
                Some(v @ Value::Object(_)) => Args::Known(v),
                other => args::from_value(other.as_ref()),
            },
        };
        let at = self.cur.step(
            raw,
            &[call_id.as_deref().unwrap_or(""), &name],
            ptr.to_owned(),
        );
        self.call_events.push((self.items.len(), call_id.clone()));
        self.push(
            StepKind::ToolCall(ToolCall {
                call_id,
                name,
                args,
                raw_args: None,
                origin: CallOrigin::Model,
            }),
            at,
        );
    }

    /// `tool_use` content parts: a tool the provider ran itself (web search, a remote MCP
    /// call), with its arguments (JSON text) and result.
    fn server_tool_uses(&mut self, raw: &RawValue, parts: &[Value], ptr: &str) {
        for (i, part) in parts.iter().enumerate() {
            let Some(p) = part.as_object() else { continue };
            if p.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            let call_id = p.get("id").and_then(Value::as_str).map(str::to_owned);
            let args = match p.get("arguments") {
                Some(Value::String(s)) => args::from_text(s),
                other => args::from_value(other),
            };
            let at = self.cur.step(
                raw,
                &[call_id.as_deref().unwrap_or(""), name],
                child(&child(ptr, "content"), i),
            );
            self.push(
                StepKind::ToolCall(ToolCall {
                    call_id: call_id.clone(),
                    name: name.to_owned(),
                    args,
                    raw_args: None,
                    origin: CallOrigin::Model,
                }),
                at.clone(),
            );
            let error = p
                .get("error")
                .filter(|e| !e.is_null())
                .map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_owned));
            let status = if error.is_some() {
                ResultStatus::Error
            } else {
                ResultStatus::Unknown
            };
            let content = p.get("result").cloned().unwrap_or(Value::Null);
            let mut result = ToolResult::new(call_id, content, status);
            result.error = error;
            self.push(StepKind::ToolResult(result), at);
        }
    }

    fn push(&mut self, kind: StepKind, at: crate::model::Location) {
        self.items.push(Item::new(kind, at));
    }
}

/// The text of Inspect message content: a string, or its `text` parts (reasoning, images and
/// tool uses left out).
fn message_text(v: &Value) -> String {
    match v {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("text") => {
                    o.get("text").and_then(Value::as_str)
                }
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => crate::adapters::common::content::text_of(Some(other)),
    }
}

/// Inspect's `parse_error` ("Error parsing the following tool call arguments: … Error details:
/// …") said briefly: the parser's own words.
fn parse_error_reason(why: &str) -> String {
    let detail = why
        .rsplit_once("Error details:")
        .map_or(why, |(_, d)| d)
        .trim();
    let first = detail.lines().next().unwrap_or(detail);
    format!(
        "Inspect could not parse the arguments the model emitted: {}",
        first.chars().take(200).collect::<String>()
    )
}

/// Append the message items to the trace, with the calls only `tool` events recorded (trimmed
/// from the messages) placed where their events fall, and event errors carried to results.
fn merge(
    items: Vec<Item>,
    call_events: Vec<(usize, Option<String>)>,
    events: &[ToolEvent<'_>],
    cur: &Cursor<'_>,
    trace: &mut Trace,
) {
    // Events by call id, in order; each message call takes the first unused one.
    let mut by_id: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if let Some(id) = e.id.as_deref() {
            by_id.entry(id).or_default().push_back(i);
        }
    }
    let in_messages: HashSet<&str> = call_events
        .iter()
        .filter_map(|(_, id)| id.as_deref())
        .collect();
    let mut event_of_item: BTreeMap<usize, usize> = BTreeMap::new();
    for (item, id) in &call_events {
        if let Some(e) = id.as_deref().and_then(|id| by_id.get_mut(id)?.pop_front()) {
            event_of_item.insert(*item, e);
        }
    }
    // The latest event error of each call id, for results the messages record without one.
    let mut event_error: HashMap<String, String> = HashMap::new();
    // Events whose call the messages do not hold (by id; an event with no id is never one).
    let mut trimmed: VecDeque<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.id.as_deref().is_some_and(|id| !in_messages.contains(id)))
        .map(|(i, _)| i)
        .collect();
    for (i, mut item) in items.into_iter().enumerate() {
        if let Some(&e) = event_of_item.get(&i) {
            while trimmed.front().is_some_and(|t| *t < e) {
                let t = trimmed.pop_front().unwrap_or_default();
                push_event(&events[t], cur, trace);
            }
            if let (Some(err), Some(id)) = (&events[e].error, &events[e].id) {
                event_error.insert(id.clone(), err.clone());
            }
        }
        if let StepKind::ToolResult(r) = &mut item.kind
            && r.status != ResultStatus::Error
            && let Some(err) = r.call_id.as_ref().and_then(|id| event_error.get(id))
        {
            r.status = ResultStatus::Error;
            r.error = Some(err.clone());
        }
        trace.push(item.kind, item.at, StepMeta::default());
    }
    for t in trimmed {
        push_event(&events[t], cur, trace);
    }
}

/// A call trimmed from the messages, read from its `tool` event: the call and its result.
fn push_event(e: &ToolEvent<'_>, cur: &Cursor<'_>, trace: &mut Trace) {
    let at = cur.step(
        e.raw,
        &[e.id.as_deref().unwrap_or(""), &e.function],
        e.ptr.clone(),
    );
    let args = match &e.arguments {
        Some(v @ Value::Object(_)) => Args::Known(v.clone()),
        other => args::from_value(other.as_ref()),
    };
    trace.push(
        StepKind::ToolCall(ToolCall {
            call_id: e.id.clone(),
            name: e.function.clone(),
            args,
            raw_args: None,
            origin: CallOrigin::Model,
        }),
        at.clone(),
        StepMeta::default(),
    );
    let status = if e.error.is_some() {
        ResultStatus::Error
    } else {
        ResultStatus::Unknown
    };
    let content = match &e.result {
        Some(v @ Value::Array(_)) => Value::String(message_text(v)),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    let mut result = ToolResult::new(e.id.clone(), content, status);
    result.error = e.error.clone();
    trace.push(StepKind::ToolResult(result), at, StepMeta::default());
}
