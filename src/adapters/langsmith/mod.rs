//! The `langsmith` format: a LangSmith run tree as the API returns it (`Client.read_run(id,
//! load_child_runs=True)`, the UI's export): a run `{id, name, run_type, inputs, outputs,
//! error, start_time, dotted_order, child_runs[]}` with its children nested; a JSON array of
//! such trees, or JSON Lines of them, is one trace per root. The tree's runs are read in
//! execution order (`dotted_order`, else `start_time`, else tree order): `llm` / `chat_model`
//! runs are model calls (their input and output conversations, through `chat`), `tool` runs the
//! tools' records (LangSmith's `{"input": …}` envelope and LangChain `ToolMessage` outputs
//! opened by `record`). A run's own `error` (or `status: "error"`) is a structured error. The
//! call a model emitted and the tool run that executed it are one call (`assemble`).

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, ResultStatus, StepMeta, ToolResult, Trace};

use crate::adapters::Emit;
use crate::adapters::common::assemble::{LlmUnit, ToolUnit, Unanswered, Unit, assemble};
use crate::adapters::common::chat::{self, Side, ToolDef};
use crate::adapters::common::cursor::{Cursor, child, each_top_value};
use crate::adapters::common::json_pos::{Line, each_record};
use crate::adapters::common::raw;
use crate::adapters::common::record::{Envelopes, record_args, record_result};

/// Deepest nesting of child runs read.
const MAX_DEPTH: usize = 64;

/// Does this record look like a LangSmith run?
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let typed = m.get("run_type").is_some_and(Value::is_string);
    if typed && (m.contains_key("child_runs") || m.contains_key("inputs")) && m.contains_key("id") {
        12
    } else {
        0
    }
}

/// Parse a run tree (or an array of them).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    each_top_value(text, &input.path, out, |raw, cur, ptr, _, out| {
        tree(raw, cur, ptr, input, out);
    });
}

/// Parse JSON Lines of run trees, one a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    each_record(lines, &input.path, out, |raw, line, out| {
        tree(
            raw,
            &Cursor::record(&line.text, line.number),
            "",
            input,
            out,
        );
    });
}

/// One run of the tree, read.
struct Run<'a> {
    raw: &'a RawValue,
    ptr: String,
    order: (String, usize),
    run_type: String,
    name: String,
    id: String,
    inputs: Option<Value>,
    outputs: Option<Value>,
    error: Option<String>,
    meta: StepMeta,
    tools: Vec<ToolDef>,
}

fn tree(raw: &RawValue, cur: &Cursor<'_>, ptr: &str, input: &InputRef, out: &mut dyn Emit) {
    let mut runs = Vec::new();
    if let Err(why) = collect(raw, ptr, 0, &mut runs) {
        let at = cur.at(raw, ptr.to_owned());
        out.issue(InputIssue::at(&input.path, at.line, at.column, why));
        return;
    }
    let Some(root) = runs.first() else { return };
    let mut trace = Trace::new(root.id.clone(), input.clone());
    runs.sort_by(|a, b| a.order.cmp(&b.order));
    let mut declared = std::collections::HashSet::new();
    let mut units = Vec::new();
    for r in &runs {
        for t in &r.tools {
            if declared.insert(t.name.clone()) {
                trace.embedded_tools.push(t.to_spec());
            }
        }
        let at = cur.step(r.raw, &["\"run_type\"", "\"name\""], r.ptr.clone());
        match r.run_type.as_str() {
            "llm" | "chat_model" => {
                let read = |v: &Option<Value>, side| {
                    v.as_ref()
                        .map(|v| chat::read(v, side).messages)
                        .unwrap_or_default()
                };
                units.push(Unit::Llm(LlmUnit {
                    at,
                    meta: r.meta.clone(),
                    input: read(&r.inputs, Side::Input),
                    output: read(&r.outputs, Side::Output),
                }));
            }
            "tool" => units.push(Unit::Tool(tool_unit(r, at))),
            _ => {}
        }
    }
    if !units.iter().any(|u| matches!(u, Unit::Llm(_)))
        && let Some(first) = runs
            .iter()
            .find(|r| r.ptr == ptr)
            .and_then(|r| r.inputs.as_ref())
    {
        // No model run: the root's input is the best record of what the agent was asked.
        let messages = chat::read(first, Side::Input).messages;
        if !messages.is_empty() {
            let at = cur.at(raw, ptr.to_owned());
            units.insert(
                0,
                Unit::Llm(LlmUnit {
                    at,
                    meta: StepMeta::default(),
                    input: messages,
                    output: Vec::new(),
                }),
            );
        }
    }
    assemble(units, &mut trace, Unanswered::KeepWithoutToolRecords);
    out.trace(trace);
}

/// Flatten a run and its descendants (tree order) into `runs`.
fn collect<'a>(
    raw: &'a RawValue,
    ptr: &str,
    depth: usize,
    runs: &mut Vec<Run<'a>>,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "child runs nested deeper than {MAX_DEPTH}: not read"
        ));
    }
    let m = raw::object(raw).ok_or("a LangSmith run must be a JSON object")?;
    let inputs = raw::value(&m, "inputs");
    let outputs = raw::value(&m, "outputs");
    let error = raw::value(&m, "error")
        .map(|e| match e {
            Value::String(s) => s,
            other => other.to_string(),
        })
        .filter(|e| !e.trim().is_empty())
        .or_else(|| {
            (raw::string(&m, "status").as_deref() == Some("error"))
                .then(|| "status error".to_owned())
        });
    let mut tools = Vec::new();
    for defs in [
        inputs.as_ref().and_then(|i| i.get("tools")),
        raw::value(&m, "extra")
            .as_ref()
            .and_then(|e| e.pointer("/invocation_params/tools"))
            .cloned()
            .as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        tools.extend(chat::tool_defs(defs));
    }
    let start = raw::string(&m, "start_time").unwrap_or_default();
    let order = raw::string(&m, "dotted_order").unwrap_or(start.clone());
    runs.push(Run {
        raw,
        ptr: ptr.to_owned(),
        order: (order, runs.len()),
        run_type: raw::string(&m, "run_type").unwrap_or_default(),
        name: raw::string(&m, "name").unwrap_or_default(),
        id: raw::id(&m, "id").unwrap_or_else(|| format!("run{}", runs.len())),
        inputs,
        outputs,
        error,
        meta: StepMeta {
            timestamp: (!start.is_empty()).then_some(start),
            source_id: raw::id(&m, "id"),
            parent_id: raw::id(&m, "parent_run_id"),
            ..StepMeta::default()
        },
        tools,
    });
    for (i, c) in raw::list(&m, "child_runs").iter().enumerate() {
        collect(c, &child(&child(ptr, "child_runs"), i), depth + 1, runs)?;
    }
    Ok(())
}

fn tool_unit(r: &Run<'_>, at: crate::model::Location) -> ToolUnit {
    let env = Envelopes {
        langsmith_input: true,
    };
    let (args, raw_args) = record_args(
        r.inputs.as_ref(),
        env,
        "not recorded: the tool run has no inputs",
    );
    // A tool that raised records `{"output": null}` beside its error.
    let outputs = match &r.outputs {
        Some(Value::Object(o)) if r.error.is_some() && o.values().all(Value::is_null) => None,
        other => other.as_ref(),
    };
    let recorded = record_result(outputs);
    let status = if r.error.is_some() {
        ResultStatus::Error
    } else {
        recorded.status
    };
    let mut result = ToolResult::new(None, recorded.content, status);
    result.content_recorded = recorded.recorded || r.error.is_some();
    result.error = r
        .error
        .as_ref()
        .map(|e| e.lines().next().unwrap_or(e).chars().take(300).collect());
    ToolUnit {
        at,
        meta: r.meta.clone(),
        name: r.name.clone(),
        call_id: recorded.call_id,
        fallback_id: r.id.clone(),
        args,
        raw_args,
        result,
    }
}

#[cfg(test)]
mod tests;
