//! The `native` format (seed 002): `{"run_id", "steps": [...], "final"}`. A `.json` document is
//! one trace, a JSON array is many, and JSON Lines is one trace per line. Every step is located
//! at the line and column where its JSON begins.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::finding::InputIssue;
use crate::model::{
    CallOrigin, InputRef, LineIndex, Location, Message, ResultStatus, Role, StepKind, StepMeta,
    ToolCall, ToolResult, Trace,
};

use super::json_pos::{Line, error_message, error_position, locate};
use super::{Emit, Parsed, args};

/// Does this record look like a native trace? (`steps` list of typed steps.)
pub fn sniff(record: &Value) -> u8 {
    let Some(steps) = record.get("steps").and_then(Value::as_array) else {
        return 0;
    };
    if steps.is_empty() {
        return 2;
    }
    let typed = steps
        .iter()
        .filter(|s| {
            matches!(
                s.get("type").and_then(Value::as_str),
                Some("message" | "tool_call" | "tool_result")
            )
        })
        .count();
    if typed > 0 { 10 } else { 1 }
}

#[derive(Deserialize)]
struct RawTrace<'a> {
    #[serde(default)]
    run_id: Option<Value>,
    #[serde(default, borrow)]
    steps: Option<Steps<'a>>,
    #[serde(default, rename = "final")]
    final_answer: Option<Value>,
    /// A JSON Lines record that continues the trace of the line before (same `run_id`): how
    /// `tracelint mcp proxy` writes a session one step per line, flushed as it goes.
    #[serde(default)]
    continues: bool,
    /// MCP tools (`tools/list` entries) the run had: the trace's embedded registry.
    #[serde(default)]
    tools: Option<Value>,
    /// Facts of an MCP session (`tracelint mcp proxy`'s header): the record holds only the
    /// tool channel.
    #[serde(default)]
    mcp: Option<Value>,
}

/// A trace's `steps` member: its items as raw JSON (read in the same pass as the trace), or
/// `None` when it is not a list.
struct Steps<'a>(Option<Vec<&'a RawValue>>);

impl<'de: 'a, 'a> Deserialize<'de> for Steps<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Items<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Items<'a> {
            type Value = Steps<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of steps")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    items.push(item);
                }
                Ok(Steps(Some(items)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Steps(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Steps(None))
            }
        }
        d.deserialize_any(Items(std::marker::PhantomData))
    }
}

/// Parse a whole native document (object or array of objects).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let index = LineIndex::new(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => return json_error(&e, 1, input, out),
        };
        if items.is_empty() {
            out.issue(InputIssue::file(
                &input.path,
                "the file holds an empty array: nothing to lint",
            ));
        }
        for (i, raw) in items.iter().enumerate() {
            let default_id = format!("{}[{i}]", input.path);
            parse_trace(text, &index, raw, &format!("/{i}"), &default_id, input, out);
        }
    } else {
        // Otherwise read again to say what is wrong, as a list of traces would be.
        if read_whole(text, &index, &input.path, input, out) {
            return;
        }
        let raw: &RawValue = match serde_json::from_str(text) {
            Ok(r) => r,
            Err(e) => return json_error(&e, 1, input, out),
        };
        parse_trace(text, &index, raw, "", &input.path, input, out);
    }
}

/// Parse native JSON Lines: one trace per line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut out = Continued { out, open: None };
    let out = &mut out;
    for line in lines {
        match line {
            Err(issue) => out.issue(issue),
            Ok(line) => {
                let index = LineIndex::starting_at(&line.text, line.number);
                let default_id = format!("{}:{}", input.path, line.number);
                if read_whole(&line.text, &index, &default_id, input, out) {
                    continue;
                }
                let raw: &RawValue = match serde_json::from_str(&line.text) {
                    Ok(r) => r,
                    Err(e) => {
                        json_error(&e, line.number, input, out);
                        continue;
                    }
                };
                parse_trace(&line.text, &index, raw, "", &default_id, input, out);
            }
        }
    }
    out.flush();
}

/// Joins JSON Lines records marked `continues` (with the same `run_id`) onto the trace before
/// them; every other trace passes through as it comes.
struct Continued<'a> {
    out: &'a mut dyn Emit,
    open: Option<Trace>,
}

impl Continued<'_> {
    fn flush(&mut self) {
        if let Some(t) = self.open.take() {
            self.out.trace(t);
        }
    }
}

impl Emit for Continued<'_> {
    fn trace(&mut self, trace: Trace) {
        let joins = trace.attribute(ATTR_CONTINUES).is_some()
            && self.open.as_ref().is_some_and(|o| o.run_id == trace.run_id);
        let mut trace = trace;
        trace.attributes.retain(|(k, _)| k != ATTR_CONTINUES);
        if !joins {
            self.flush();
            self.open = Some(trace);
            return;
        }
        let Some(open) = self.open.as_mut() else {
            return;
        };
        for step in trace.steps {
            open.push(step.kind, step.at, step.meta);
        }
        for spec in trace.embedded_tools {
            if !open.embedded_tools.iter().any(|t| t.name == spec.name) {
                open.embedded_tools.push(spec);
            }
        }
        for a in trace.attributes {
            if !open.attributes.contains(&a) {
                open.attributes.push(a);
            }
        }
        open.partial |= trace.partial;
        if trace.final_answer.is_some() {
            open.final_answer = trace.final_answer;
        }
    }
    fn issue(&mut self, issue: InputIssue) {
        self.out.issue(issue);
    }
    fn note(&mut self, note: String) {
        self.out.note(note);
    }
}

/// A transient attribute: this line's trace continues the one before.
const ATTR_CONTINUES: &str = "native.continues";

/// Parse a native document given as a string (tests and the library API).
pub fn parse_str(text: &str, path: &str) -> Parsed {
    let input = InputRef {
        path: path.to_owned(),
        format: "native".to_owned(),
    };
    let mut parsed = Parsed::default();
    parse_document(text, &input, &mut parsed);
    parsed
}

fn json_error(e: &serde_json::Error, first_line: u32, input: &InputRef, out: &mut dyn Emit) {
    let (line, col) = error_position(e, first_line);
    out.issue(InputIssue::at(
        &input.path,
        line,
        col,
        format!("invalid JSON: {}", error_message(e)),
    ));
}

/// Read `text` as one well-formed trace in one pass (the usual case) and emit it; false, with
/// nothing emitted, when it is not one (the caller then reads it again to say why).
fn read_whole(
    text: &str,
    index: &LineIndex,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) -> bool {
    let Ok(rt) = serde_json::from_str::<RawTrace<'_>>(text) else {
        return false;
    };
    let at = index.location(text, text.len() - text.trim_start().len(), "");
    build_trace(text, index, rt, at, "", default_id, input, out);
    true
}

fn parse_trace(
    text: &str,
    index: &LineIndex,
    raw: &RawValue,
    pointer: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let at = locate(text, index, raw, pointer.to_owned());
    let issue = |msg: String| InputIssue::at(&input.path, at.line, at.column, msg);
    let rt: RawTrace<'_> = match serde_json::from_str(raw.get()) {
        Ok(t) => t,
        Err(e) if raw.get().starts_with('{') => {
            return out.issue(issue(format!("not a native trace: {}", error_message(&e))));
        }
        Err(_) => {
            return out.issue(issue(
                "not a native trace: expected an object with a `steps` list (pass `--input-format` if this is another format)".into(),
            ));
        }
    };
    build_trace(text, index, rt, at, pointer, default_id, input, out);
}

/// The trace read as `rt`, which begins at `at` in `text`, with its steps.
#[allow(clippy::too_many_arguments)]
fn build_trace(
    text: &str,
    index: &LineIndex,
    rt: RawTrace<'_>,
    at: Location,
    pointer: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let issue = |msg: String| InputIssue::at(&input.path, at.line, at.column, msg);
    let Some(Steps(steps)) = rt.steps else {
        return out.issue(issue("not a native trace: missing `steps` list".into()));
    };
    let Some(steps) = steps else {
        return out.issue(issue("not a native trace: `steps` is not a list".into()));
    };
    let run_id = match rt.run_id {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => default_id.to_owned(),
    };
    let mut trace = Trace::new(run_id, input.clone());
    if rt.continues {
        trace
            .attributes
            .push((ATTR_CONTINUES.to_owned(), String::new()));
    }
    if let Some(recorder) = rt
        .mcp
        .as_ref()
        .and_then(|m| m.get("recorder"))
        .and_then(Value::as_str)
    {
        trace.attributes.push((
            crate::model::ATTR_TOOLS_ONLY.to_owned(),
            format!("an MCP session recorded by {recorder}"),
        ));
        let faults = rt
            .mcp
            .as_ref()
            .and_then(|m| m.get("injection"))
            .and_then(|i| i.get("faults"))
            .and_then(Value::as_array);
        if let Some(faults) = faults {
            let names: Vec<&str> = faults.iter().filter_map(Value::as_str).collect();
            trace
                .attributes
                .push((crate::model::ATTR_INJECTION.to_owned(), names.join(",")));
        }
    }
    if let Some(Value::Array(tools)) = &rt.tools {
        for t in tools {
            if let Some(spec) = mcp_tool(t)
                && !trace.embedded_tools.iter().any(|e| e.name == spec.name)
            {
                trace.embedded_tools.push(spec);
            }
        }
    }
    trace.final_answer = match rt.final_answer {
        Some(Value::String(s)) => Some(s),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    for (j, step_raw) in steps.iter().enumerate() {
        let loc = locate(text, index, step_raw, format!("{pointer}/steps/{j}"));
        match parse_step(step_raw) {
            Ok((kind, meta, schema)) => {
                // The Python tracelint's native calls may carry the schema the tool ran with.
                if let (StepKind::ToolCall(c), Some(schema)) = (&kind, schema)
                    && !trace.embedded_tools.iter().any(|t| t.name == c.name)
                {
                    trace.embedded_tools.push(crate::model::ToolSpec::new(
                        c.name.clone(),
                        Some(schema),
                        crate::model::SchemaSource(NATIVE_SCHEMA_SOURCE.to_owned()),
                    ));
                }
                trace.push(kind, loc, meta);
            }
            Err(msg) => {
                trace.partial = true;
                out.issue(InputIssue::at(
                    &input.path,
                    loc.line,
                    loc.column,
                    format!("step {j}: {msg}"),
                ));
            }
        }
    }
    out.trace(trace);
}

/// Where a native trace's `tools` come from, in reports.
const NATIVE_TOOLS_SOURCE: &str = "embedded in the trace (MCP `tools/list` in native `tools`)";

/// An MCP `Tool` from a native trace's `tools` list: its input and output schemas, and the
/// behaviour its annotations state (never the spec's defaults: an unstated hint is undeclared).
fn mcp_tool(t: &Value) -> Option<crate::model::ToolSpec> {
    let name = t.get("name")?.as_str()?;
    let schema = t
        .get("inputSchema")
        .or_else(|| t.get("input_schema"))
        .filter(|s| s.is_object())
        .cloned();
    let mut spec = crate::model::ToolSpec::new(
        name,
        schema,
        crate::model::SchemaSource(NATIVE_TOOLS_SOURCE.to_owned()),
    );
    spec.output_schema = t.get("outputSchema").filter(|s| s.is_object()).cloned();
    let hint = |k: &str| {
        t.get("annotations")
            .and_then(|a| a.get(k))
            .and_then(Value::as_bool)
    };
    match (hint("readOnlyHint"), hint("destructiveHint")) {
        (Some(true), _) => spec.metadata.side_effecting = Some(false),
        (Some(false), _) | (_, Some(true)) => spec.metadata.side_effecting = Some(true),
        _ => {}
    }
    if hint("idempotentHint") == Some(true) {
        spec.metadata.idempotent = Some(true);
    }
    Some(spec)
}

/// Where a native call's own `schema` comes from, in reports.
const NATIVE_SCHEMA_SOURCE: &str = "embedded in the trace (native `tool_call.schema`)";

fn parse_step(raw: &RawValue) -> Result<(StepKind, StepMeta, Option<Value>), String> {
    let v: Value = serde_json::from_str(raw.get())
        .map_err(|e| format!("invalid JSON: {}", error_message(&e)))?;
    let Value::Object(mut m) = v else {
        return Err("a step must be an object".into());
    };
    let meta = parse_meta(m.get("meta"));
    let mut schema = None;
    let kind = match m.get("type").and_then(Value::as_str) {
        Some("message") => StepKind::Message(Message {
            role: parse_role(m.get("role"))?,
            content: text_of(m.get("content")),
        }),
        Some("tool_call") => {
            schema = m.remove("schema").filter(Value::is_object);
            let name = match m.get("name") {
                Some(Value::String(s)) => s.clone(),
                _ => return Err("a `tool_call` needs a string `name`".into()),
            };
            let raw_args = m
                .get("raw_text")
                .or_else(|| m.get("raw_args"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            // The step is ours: its arguments are moved out, not copied.
            let explicit = m.remove("args");
            // Arguments recorded as a string are their own raw text.
            let text_args = match (&raw_args, &explicit) {
                (None, Some(Value::String(t))) => Some(t.clone()),
                _ => None,
            };
            let absent = match &explicit {
                None | Some(Value::Null) => true,
                Some(Value::Object(o)) => o.is_empty(),
                Some(_) => false,
            };
            let args = match raw_args.as_deref() {
                Some(raw) if absent => args::from_text(raw),
                Some(raw) => match args::from_text(raw) {
                    m @ crate::model::Args::Malformed(_) => m,
                    _ => args::from_owned(explicit),
                },
                None => args::from_owned(explicit),
            };
            let origin = match m.get("origin").and_then(Value::as_str) {
                Some("tool" | "tool_record") => CallOrigin::ToolRecord,
                _ => CallOrigin::Model,
            };
            StepKind::ToolCall(ToolCall {
                call_id: id_of(m.get("call_id")),
                name,
                raw_args: raw_args.or(text_args),
                args,
                origin,
            })
        }
        Some("tool_result") => StepKind::ToolResult(parse_result(&mut m)),
        Some(other) => {
            return Err(format!(
                "unknown step type `{other}` (expected `message`, `tool_call` or `tool_result`)"
            ));
        }
        None => return Err("missing step `type`".into()),
    };
    Ok((kind, meta, schema))
}

fn parse_result(m: &mut Map<String, Value>) -> ToolResult {
    let content_recorded = m.contains_key("content");
    // Moved out of the step, not copied.
    let content = m.remove("content").unwrap_or(Value::Null);
    let http_status = m.get("http_status").and_then(status_code);
    let error = match m.get("error") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Bool(true)) => Some("error".to_owned()),
        Some(v @ Value::Object(_)) => Some(v.to_string()),
        _ => None,
    };
    let explicit = match m.get("status") {
        Some(Value::String(s)) => match s.to_ascii_lowercase().as_str() {
            "ok" | "success" | "succeeded" | "completed" => ResultStatus::Ok,
            "error" | "failed" | "failure" => ResultStatus::Error,
            _ => ResultStatus::Unknown,
        },
        _ => ResultStatus::Unknown,
    };
    let is_error = m.get("is_error").and_then(Value::as_bool);
    let status = if error.is_some()
        || is_error == Some(true)
        || http_status.is_some_and(|c| c >= 400)
        || explicit == ResultStatus::Error
    {
        ResultStatus::Error
    } else if explicit == ResultStatus::Ok || is_error == Some(false) {
        ResultStatus::Ok
    } else {
        ResultStatus::Unknown
    };
    ToolResult {
        call_id: id_of(m.get("call_id")),
        content,
        status,
        error,
        http_status,
        content_recorded,
        structured_cache: Default::default(),
    }
}

fn status_code(v: &Value) -> Option<u16> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|c| u16::try_from(c).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn parse_role(v: Option<&Value>) -> Result<Role, String> {
    match v.and_then(Value::as_str) {
        Some("user" | "human") => Ok(Role::User),
        Some("assistant" | "ai" | "model") => Ok(Role::Assistant),
        Some("system" | "developer") => Ok(Role::System),
        Some("tool" | "function") => Ok(Role::Tool),
        Some(other) => Err(format!("unknown message role `{other}`")),
        None => Err("a `message` needs a `role`".into()),
    }
}

/// A call id written as a string or a number.
fn id_of(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Message text: the string itself, typed blocks' text joined, or JSON text for anything else.
fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items))
            if items
                .iter()
                .all(|i| i.get("text").is_some_and(Value::is_string)) =>
        {
            items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Some(other) => other.to_string(),
    }
}

fn parse_meta(v: Option<&Value>) -> StepMeta {
    let Some(Value::Object(m)) = v else {
        return StepMeta::default();
    };
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    StepMeta {
        timestamp: s("timestamp"),
        duration_ms: m.get("duration_ms").and_then(Value::as_f64),
        model: s("model"),
        parent_id: s("parent_id"),
        source_id: s("id").or_else(|| s("span_id")),
        retry_attempt: m
            .get("retry_attempt")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok()),
        injected: m.get("injected").and_then(Value::as_bool).unwrap_or(false),
        fault_injection_id: s("fault_injection_id"),
    }
}

/// The location of the first step (used when a trace has no step but needs a position).
pub fn start_of(trace: &Trace) -> Location {
    trace
        .steps
        .first()
        .map(|s| s.at.clone())
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "native_tests.rs"]
mod tests;
