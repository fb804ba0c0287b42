//! The `langfuse` format: a trace download `{"trace": {…}, "observations": [...]}`, the public
//! API's `TraceWithFullDetails` (`{"id", …, "observations": [...]}`), a JSON array of either,
//! or JSON Lines of either. Observations are ordered by `startTime` (ties keep file order);
//! GENERATIONs give the conversation and the calls the model emitted, tool observations (type
//! `TOOL`, a name the generations declared or called, or a producer's tool hint in
//! `metadata.attributes`) give what ran. Every step is located where its observation's JSON
//! begins. Joining and provenance are `assemble`'s; provider message shapes are `chat`'s.
//!
//! One cohesive adapter: the ordering, the generations and the tool observations all feed the one
//! trace an export becomes.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex, Location, ResultStatus, StepMeta, ToolResult, Trace};

use crate::adapters::common::assemble::{LlmUnit, ToolUnit, Unanswered, Unit, assemble};
use crate::adapters::common::chat::{self, Conversation, Side, ToolDef, decode_json_string, str_of};
use crate::adapters::common::json_pos::{Line, error_message, error_position, locate};
use crate::adapters::common::record::{Envelopes, record_args, record_result};
use crate::adapters::{Emit, common::clock};

/// Does this record look like a Langfuse trace export?
pub fn sniff(record: &Value) -> u8 {
    let Some(obs) = record.get("observations").and_then(Value::as_array) else {
        return 0;
    };
    let typed = obs.iter().any(|o| {
        o.get("type").and_then(Value::as_str).is_some_and(|t| {
            matches!(
                t,
                "GENERATION" | "SPAN" | "EVENT" | "TOOL" | "AGENT" | "CHAIN" | "RETRIEVER"
            )
        }) && (o.get("traceId").is_some() || o.get("startTime").is_some())
    });
    if typed {
        10
    } else if record.get("trace").is_some() || obs.is_empty() {
        4
    } else {
        1
    }
}

/// Parse a whole document: one export or an array of exports.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let index = LineIndex::new(text);
    if text.trim_start().starts_with('[') {
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
            parse_export(text, &index, raw, &format!("/{i}"), &default_id, input, out);
        }
    } else {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => parse_export(text, &index, raw, "", &input.path, input, out),
            Err(e) => json_error(&e, 1, input, out),
        }
    }
}

/// Parse JSON Lines: one export per line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    crate::adapters::common::json_pos::each_record(lines, &input.path, out, |raw, line, out| {
        let index = LineIndex::starting_at(&line.text, line.number);
        let id = format!("{}:{}", input.path, line.number);
        parse_export(&line.text, &index, raw, "", &id, input, out);
    });
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

/// One observation, decoded.
struct Obs {
    at: Location,
    id: String,
    kind: String,
    name: String,
    start: Option<i128>,
    meta: StepMeta,
    parent: Option<String>,
    level: Option<String>,
    status_message: Option<String>,
    input: Option<Value>,
    output: Option<Value>,
    /// `metadata.attributes` (the original OTel span attributes), decoded.
    attrs: Map<String, Value>,
    metadata: Map<String, Value>,
    raw: Map<String, Value>,
}

fn parse_export(
    text: &str,
    index: &LineIndex,
    raw: &RawValue,
    pointer: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let at = locate(text, index, raw, pointer.to_owned());
    let issue = |msg: &str| InputIssue::at(&input.path, at.line, at.column, msg);
    let top: BTreeMap<String, &RawValue> = match serde_json::from_str(raw.get()) {
        Ok(m) => m,
        Err(_) => {
            return out.issue(issue(
                "not a Langfuse trace export: expected an object with `observations` (pass `--input-format` if this is another format)",
            ));
        }
    };
    let trace_info: Map<String, Value> = top
        .get("trace")
        .and_then(|t| serde_json::from_str(t.get()).ok())
        .unwrap_or_else(|| {
            top.iter()
                .filter(|(k, _)| k.as_str() != "observations")
                .filter_map(|(k, v)| Some((k.clone(), serde_json::from_str(v.get()).ok()?)))
                .collect()
        });
    // The download keeps a second, lossy copy inside `trace` (inputs and outputs dropped): used
    // only when the top-level list is missing.
    let nested: Option<BTreeMap<String, &RawValue>> = top
        .get("trace")
        .and_then(|t| serde_json::from_str(t.get()).ok());
    let (obs_raw, obs_pointer) = match (
        top.get("observations"),
        nested.as_ref().and_then(|n| n.get("observations")),
    ) {
        (Some(o), _) => (*o, format!("{pointer}/observations")),
        (None, Some(o)) => (*o, format!("{pointer}/trace/observations")),
        (None, None) => {
            return out.issue(issue(
                "not a Langfuse trace export: no `observations` list (a trace without observations has nothing to lint)",
            ));
        }
    };
    let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(obs_raw.get()) else {
        return out.issue(issue("`observations` is not a list"));
    };
    let run_id = str_of(trace_info.get("id")).unwrap_or_else(|| default_id.to_owned());
    let mut trace = Trace::new(run_id, input.clone());
    let mut observations = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = locate(text, index, item, format!("{obs_pointer}/{i}"));
        let why = match serde_json::from_str::<Value>(item.get()) {
            Ok(Value::Object(m)) => {
                observations.push(decode(m, at));
                continue;
            }
            Ok(_) => "an observation must be an object".to_owned(),
            Err(e) => format!("invalid JSON: {}", error_message(&e)),
        };
        trace.partial = true;
        out.issue(InputIssue::at(
            &input.path,
            at.line,
            at.column,
            format!("observation {i}: {why}"),
        ));
    }
    // Chronological; ties keep file order (a stable sort).
    observations.sort_by_key(|o| o.start.unwrap_or(i128::MAX));
    let units = units(&observations, &trace_info, &mut trace);
    assemble(units, &mut trace, Unanswered::KeepWithoutToolRecords);
    if trace.steps.is_empty() {
        return out.issue(issue(
            "nothing to lint: the trace's observations carry no tool calls or messages",
        ));
    }
    if let Some(session) = str_of(trace_info.get("sessionId")) {
        trace.attributes.push(("session.id".into(), session));
    }
    out.trace(trace);
}

fn decode(mut m: Map<String, Value>, at: Location) -> Obs {
    let s = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    let start_text = s(&m, "startTime");
    let start = start_text.as_deref().and_then(clock::parse_rfc3339);
    let end = s(&m, "endTime").as_deref().and_then(clock::parse_rfc3339);
    let metadata = match m.remove("metadata").map(decoded) {
        Some(Value::Object(o)) => o,
        _ => Map::new(),
    };
    let attrs = match metadata.get("attributes").cloned().map(decoded) {
        Some(Value::Object(o)) => o,
        _ => Map::new(),
    };
    let id = s(&m, "id").unwrap_or_default();
    let meta = StepMeta {
        timestamp: start_text,
        duration_ms: start.zip(end).map(|(a, b)| (b - a) as f64 / 1e6),
        model: s(&m, "model"),
        parent_id: s(&m, "parentObservationId"),
        source_id: Some(id.clone()).filter(|i| !i.is_empty()),
        ..StepMeta::default()
    };
    Obs {
        at,
        kind: s(&m, "type").unwrap_or_default().to_ascii_uppercase(),
        name: s(&m, "name").unwrap_or_default(),
        start,
        parent: s(&m, "parentObservationId"),
        level: s(&m, "level"),
        status_message: s(&m, "statusMessage"),
        input: m.remove("input").filter(recorded),
        output: m.remove("output").filter(recorded),
        id,
        meta,
        attrs,
        metadata,
        raw: m,
    }
}

/// An input or output the export kept (`null`, also double-encoded as `"null"`, is not kept).
fn recorded(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => s.trim() != "null",
        _ => true,
    }
}

/// A JSON string decoded to the value it holds; anything else as is.
fn decoded(v: Value) -> Value {
    match &v {
        Value::String(s) => decode_json_string(s).unwrap_or(v),
        _ => v,
    }
}

/// Attribute keys, in priority order, naming a tool observation's tool.
const TOOL_NAME_KEYS: &[&str] = &["gen_ai.tool.name", "tool.name", "ai.toolCall.name"];
/// Attribute keys naming the call a tool observation answers.
const CALL_ID_KEYS: &[&str] = &[
    "gen_ai.tool.call.id",
    "tool.id",
    "tool_call.id",
    "ai.toolCall.id",
];

/// Where the original span attributes keep a tool's arguments and output, when the observation
/// itself lost them.
const ARG_KEYS: &[&str] = &[
    "input.value",
    "gen_ai.tool.call.arguments",
    "ai.toolCall.args",
    "tool_arguments",
    "gcp.vertex.agent.tool_call_args",
];
const RESULT_KEYS: &[&str] = &[
    "gcp.vertex.agent.tool_response",
    "gen_ai.tool.call.result",
    "ai.toolCall.result",
    "tool_response",
    "output.value",
];

fn is_empty_object(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.is_empty(),
        Value::String(s) => s.trim() == "{}",
        _ => false,
    }
}

fn attr_str(o: &Obs, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| str_of(o.attrs.get(*k)))
}

/// A producer's own "this is a tool run" mark.
fn tool_hint(o: &Obs) -> bool {
    let a = |k: &str| o.attrs.get(k).and_then(Value::as_str);
    a("openinference.span.kind").is_some_and(|k| k.eq_ignore_ascii_case("tool"))
        || a("gen_ai.operation.name") == Some("execute_tool")
        || a("langsmith.span.kind") == Some("tool")
        || a("operation.name").is_some_and(|k| k.starts_with("ai.toolCall"))
        || attr_str(o, TOOL_NAME_KEYS).is_some()
}

fn units(observations: &[Obs], trace_info: &Map<String, Value>, trace: &mut Trace) -> Vec<Unit> {
    let generation_parents: HashSet<&str> = observations
        .iter()
        .filter(|o| o.kind == "GENERATION")
        .filter_map(|o| o.parent.as_deref())
        .collect();
    // Read every generation once: its conversation, calls and the tools it was offered.
    let mut convs = Vec::with_capacity(observations.len());
    let mut tools: Vec<ToolDef> = Vec::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    for o in observations {
        if o.kind != "GENERATION" {
            convs.push(None);
            continue;
        }
        let (input, output) = conversation(o);
        for c in [&input, &output] {
            tools.extend(c.tools.iter().cloned());
            known.extend(
                c.messages
                    .iter()
                    .flat_map(|m| m.calls.iter().map(|c| c.name.clone())),
            );
        }
        if let Some(Value::Array(names)) = o.raw.get("toolCallNames") {
            known.extend(names.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        tools.extend(generation_tools(o));
        convs.push(Some((input, output)));
    }
    known.extend(tools.iter().map(|t| t.name.clone()));
    let mut declared = HashSet::new();
    for t in &tools {
        if declared.insert(t.name.clone()) {
            trace.embedded_tools.push(t.to_spec());
        }
    }
    let mut units = Vec::new();
    for (o, conv) in observations.iter().zip(convs) {
        if let Some((input, output)) = conv {
            // A generation wrapping another (Vercel `ai.generateText` around `doGenerate`)
            // repeats its child's exchange: the child is the model call.
            if !generation_parents.contains(o.id.as_str()) {
                units.push(Unit::Llm(LlmUnit {
                    at: o.at.clone(),
                    meta: o.meta.clone(),
                    input: input.messages,
                    output: output.messages,
                }));
            }
            continue;
        }
        let name = attr_str(o, TOOL_NAME_KEYS).unwrap_or_else(|| o.name.clone());
        let is_tool = o.kind == "TOOL"
            || tool_hint(o)
            || (!matches!(o.kind.as_str(), "GENERATION" | "EMBEDDING") && known.contains(&name));
        if is_tool {
            units.push(Unit::Tool(tool_unit(o, name)));
        }
    }
    if !units.iter().any(|u| matches!(u, Unit::Llm(_)))
        && let Some(first) = trace_info.get("input")
    {
        // No generation at all: the trace's own input is the best record of the request.
        let conv = chat::read(first, Side::Input);
        if let Some(o) = observations.first()
            && !conv.messages.is_empty()
        {
            units.insert(
                0,
                Unit::Llm(LlmUnit {
                    at: o.at.clone(),
                    meta: StepMeta::default(),
                    input: conv.messages,
                    output: Vec::new(),
                }),
            );
        }
    }
    units
}

/// A generation's input and output conversations. Langfuse's own `toolCalls` extraction stands
/// in for the output's calls when the output itself was not kept.
fn conversation(o: &Obs) -> (Conversation, Conversation) {
    let input = o
        .input
        .as_ref()
        .map(|v| chat::read(v, Side::Input))
        .unwrap_or_default();
    let mut output = o
        .output
        .as_ref()
        .map(|v| chat::read(v, Side::Output))
        .unwrap_or_default();
    if output.messages.iter().all(|m| m.calls.is_empty())
        && let Some(Value::Array(calls)) = o.raw.get("toolCalls")
        && !calls.is_empty()
    {
        let conv = chat::read(
            &serde_json::json!([{"role": "assistant", "tool_calls": calls}]),
            Side::Output,
        );
        output.messages.extend(conv.messages);
    }
    (input, output)
}

/// Tool definitions a generation's record carries outside its input.
fn generation_tools(o: &Obs) -> Vec<ToolDef> {
    let mut out = Vec::new();
    if let Some(defs) = o.raw.get("toolDefinitions") {
        out.extend(chat::tool_defs(defs));
    }
    if let Some(defs) = o.metadata.get("tools") {
        out.extend(chat::tool_defs(defs));
    }
    for key in ["gen_ai.tool.definitions", "ai.prompt.tools"] {
        if let Some(defs) = o.attrs.get(key) {
            out.extend(chat::tool_defs(defs));
        }
    }
    if let Some(params) = o
        .attrs
        .get("model_request_parameters")
        .cloned()
        .map(decoded)
    {
        for key in ["function_tools", "output_tools"] {
            if let Some(defs) = params.get(key) {
                out.extend(chat::tool_defs(defs));
            }
        }
    }
    out
}

fn tool_unit(o: &Obs, name: String) -> ToolUnit {
    let env = Envelopes {
        langsmith_input: o.attrs.contains_key("langsmith.span.kind"),
    };
    let input = o
        .input
        .as_ref()
        .or_else(|| ARG_KEYS.iter().find_map(|k| o.attrs.get(*k)));
    let (args, raw_args) = record_args(
        input,
        env,
        "not recorded: the Langfuse export has no input for this observation",
    );
    // Some exports keep the tool's output only in the original span attributes (Google ADK's
    // observation output is `{}` while `gcp.vertex.agent.tool_response` holds the response).
    let attr_output = RESULT_KEYS.iter().find_map(|k| o.attrs.get(*k));
    let output = match (&o.output, attr_output) {
        (None, Some(a)) => Some(a),
        (Some(v), Some(a)) if is_empty_object(v) && !is_empty_object(a) => Some(a),
        (v, _) => v.as_ref(),
    };
    let recorded = record_result(output);
    let mut result = ToolResult::new(None, recorded.content, recorded.status);
    result.content_recorded = recorded.recorded;
    if o.level.as_deref() == Some("ERROR") {
        result.status = ResultStatus::Error;
        result.error = Some(
            o.status_message
                .clone()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| "the observation's level is ERROR".to_owned()),
        );
    }
    ToolUnit {
        at: o.at.clone(),
        meta: o.meta.clone(),
        call_id: attr_str(o, CALL_ID_KEYS).or(recorded.call_id),
        fallback_id: o.id.clone(),
        name,
        args,
        raw_args,
        result,
    }
}

#[cfg(test)]
mod tests;
