//! The `dataset` format: published datasets of agent runs, one trajectory per row, as JSON
//! Lines or a JSON array (SWE-Gym, SWE-smith, Toucan, OpenHands evaluation outputs). A row
//! names its task (`instance_id`, `traj_id`, `id`, `run_id`) and holds the run as
//! OpenAI-style `messages` (with the row's `tools` / `available_tools` as embedded schemas) or
//! as OpenHands `history` events. Rows written by harnesses that call tools through text
//! (SWE-smith and OpenHands' non-function-calling mode: `<function=NAME><parameter=K>V
//! </parameter></function>` in the assistant's message) are read as the calls that markup
//! spells, answered by the next observation; the report says so.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, SchemaSource, StepMeta, ToolSpec, Trace};

use crate::adapters::Emit;
use crate::adapters::common::cursor::{Cursor, child, each_top_value, object_or_issue};
use crate::adapters::common::history::History;
use crate::adapters::common::json_pos::{Line, each_record};
use crate::adapters::common::raw::{self, Members};

/// Where the schemas a row carries are said to come from.
const SCHEMA_SOURCE: &str = "embedded in the dataset row (`tools`)";
/// Most calls read from one message's markup.
const MAX_TEXT_CALLS: usize = 64;

/// Does this record look like a dataset row holding one run?
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let named = ["instance_id", "traj_id"]
        .iter()
        .any(|k| m.contains_key(*k))
        || m.contains_key("available_tools");
    let run = m.get("messages").is_some_and(Value::is_array)
        || m.get("history").is_some_and(Value::is_array)
        || m.get("trajectory").is_some_and(Value::is_array);
    // A row of messages whose assistant turns call tools through markup (SWE-Play).
    let markup = m
        .get("messages")
        .and_then(Value::as_array)
        .is_some_and(|ms| {
            ms.iter().any(|x| {
                x.get("role").and_then(Value::as_str) == Some("assistant")
                    && x.get("content")
                        .and_then(Value::as_str)
                        .is_some_and(|c| c.contains("<function="))
            })
        });
    if named && run || markup { 13 } else { 0 }
}

/// Parse a JSON array of rows (or one row).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    each_top_value(text, &input.path, out, |raw, cur, ptr, id, out| {
        row(raw, cur, ptr, id, input, out);
    });
}

/// Parse JSON Lines: one row a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    each_record(lines, &input.path, out, |raw, line, out| {
        let cur = Cursor::record(&line.text, line.number);
        row(
            raw,
            &cur,
            "",
            &format!("{}:{}", input.path, line.number),
            input,
            out,
        );
    });
}

fn run_id(m: &Members<'_>, default_id: &str) -> String {
    let task = raw::id(m, "traj_id").or_else(|| raw::id(m, "instance_id"));
    match (task, raw::id(m, "run_id")) {
        (Some(t), Some(r)) => format!("{t}/{r}"),
        (Some(t), None) => t,
        (None, _) => raw::id(m, "id").unwrap_or_else(|| default_id.to_owned()),
    }
}

fn row(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let Some(m) = object_or_issue(raw, cur, ptr, &input.path, "a dataset row", out) else {
        return;
    };
    let mut trace = Trace::new(run_id(&m, default_id), input.clone());
    for key in ["tools", "available_tools"] {
        let defs = match raw::value(&m, key) {
            Some(Value::Array(d)) => d,
            Some(Value::String(s)) => serde_json::from_str(&s).unwrap_or_default(),
            _ => Vec::new(),
        };
        for d in defs {
            if let Some((name, schema, _)) = crate::adapters::openai::conv::tool_definition(d, false)
                && !trace.embedded_tools.iter().any(|t| t.name == name)
            {
                let source = SchemaSource(SCHEMA_SOURCE.to_owned());
                trace
                    .embedded_tools
                    .push(ToolSpec::new(name, schema, source));
            }
        }
    }
    if m.contains_key("trajectory") && !m.contains_key("messages") {
        swe_agent_steps(
            &raw::list(&m, "trajectory"),
            cur,
            &child(ptr, "trajectory"),
            &mut trace,
        );
        out.trace(trace);
        return;
    }
    if m.contains_key("history") && !m.contains_key("messages") {
        let events = raw::list(&m, "history");
        crate::adapters::openhands::read_events(&events, cur, &child(ptr, "history"), &mut trace);
        out.trace(trace);
        return;
    }
    let mut history = History::new(cur);
    for (i, msg) in raw::list(&m, "messages").iter().enumerate() {
        let text_call = raw::object(msg)
            .filter(|mm| raw::string(mm, "role").as_deref() == Some("assistant"))
            .and_then(|mm| raw::string(&mm, "content"))
            .and_then(|t| markup_calls(&t).into_iter().next());
        history.message(msg, &child(&child(ptr, "messages"), i), text_call);
    }
    history.finish(&mut trace, &input.path, out, |n| format!("{n} read from `<function=…>` markup in the assistant's text (the row records no tool calls)"));
    out.trace(trace);
}

/// SWE-agent turns as nebius publishes them (`{role: system|user|ai, text, system_prompt}`):
/// the model's turn holds one fenced command, which SWE-agent ran; the next user turn is its
/// output.
fn swe_agent_steps(turns: &[&RawValue], cur: &Cursor<'_>, ptr: &str, trace: &mut Trace) {
    use crate::model::{
        Args, CallOrigin, Message, ResultStatus, Role, StepKind, ToolCall, ToolResult,
    };
    let mut pending: Option<String> = None;
    let mut parsed = 0;
    for (i, t) in turns.iter().enumerate() {
        let Some(m) = raw::object(t) else { continue };
        let text = raw::string(&m, "text")
            .or_else(|| raw::string(&m, "system_prompt"))
            .unwrap_or_default();
        let at = cur.step(t, &["\"text\"", "\"system_prompt\""], child(ptr, i));
        let meta = StepMeta::default();
        match raw::string(&m, "role").as_deref() {
            Some("system") => {
                let m = Message {
                    role: Role::System,
                    content: text,
                };
                trace.push(StepKind::Message(m), at, meta);
            }
            Some("user") => match pending.take() {
                Some(id) => {
                    let r = ToolResult::new(Some(id), Value::String(text), ResultStatus::Unknown);
                    trace.push(StepKind::ToolResult(r), at, meta);
                }
                None => {
                    let m = Message {
                        role: Role::User,
                        content: text,
                    };
                    trace.push(StepKind::Message(m), at, meta);
                }
            },
            _ => {
                trace.push(
                    StepKind::Message(Message {
                        role: Role::Assistant,
                        content: text.clone(),
                    }),
                    at.clone(),
                    meta.clone(),
                );
                if let Some(command) = fenced_command(&text) {
                    parsed += 1;
                    let id = format!("action-{parsed}");
                    let name = command
                        .split_whitespace()
                        .next()
                        .unwrap_or("bash")
                        .to_owned();
                    trace.push(
                        StepKind::ToolCall(ToolCall {
                            call_id: Some(id.clone()),
                            name,
                            args: Args::Known(serde_json::json!({ "command": command })),
                            raw_args: None,
                            origin: CallOrigin::Model,
                        }),
                        at,
                        meta,
                    );
                    pending = Some(id);
                }
            }
        }
    }
    if parsed > 0 {
        trace.add_note(format!(
            "{parsed} call{} parsed by tracelint from the command block in the model's text (SWE-agent's text format records no tool calls)",
            if parsed == 1 { " was" } else { "s were" }
        ));
    }
}

/// The command of the last fenced block of a SWE-agent turn (the one it runs).
fn fenced_command(text: &str) -> Option<String> {
    let end = text.rfind("```")?;
    let start = text[..end].rfind("```")?;
    let block = &text[start + 3..end];
    let body = block.split_once('\n').map_or(block, |(lang, rest)| {
        if lang.trim().contains(' ') {
            block
        } else {
            rest
        }
    });
    let cmd = body.trim();
    (!cmd.is_empty()).then(|| cmd.to_owned())
}

/// The calls `<function=NAME><parameter=KEY>VALUE</parameter>…</function>` markup spells.
pub fn markup_calls(text: &str) -> Vec<(String, Value)> {
    let mut calls = Vec::new();
    let mut rest = text;
    while calls.len() < MAX_TEXT_CALLS {
        let Some(start) = rest.find("<function=") else {
            break;
        };
        let after = &rest[start + "<function=".len()..];
        let Some(close) = after.find('>') else { break };
        let name = after[..close].trim().to_owned();
        let body = &after[close + 1..];
        let Some(end) = body.find("</function>") else {
            break;
        };
        let mut args = serde_json::Map::new();
        let mut params = &body[..end];
        while let Some(p) = params.find("<parameter=") {
            let after = &params[p + "<parameter=".len()..];
            let Some(close) = after.find('>') else { break };
            let key = after[..close].trim().to_owned();
            let value = &after[close + 1..];
            let Some(stop) = value.find("</parameter>") else {
                break;
            };
            let v = value[..stop].strip_prefix('\n').unwrap_or(&value[..stop]);
            let v = v.strip_suffix('\n').unwrap_or(v);
            args.insert(key, Value::String(v.to_owned()));
            params = &value[stop..];
        }
        if !name.is_empty() && !name.contains(char::is_whitespace) {
            calls.push((name, Value::Object(args)));
        }
        rest = &body[end..];
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::testing::counts;
    use crate::adapters::{InputFormat, parse_bytes};

    #[test]
    fn markup_spells_calls() {
        let calls = markup_calls(
            "look:\n<function=bash>\n<parameter=command>ls -la</parameter>\n</function>\nthen <function=str_replace_editor><parameter=command>view</parameter><parameter=path>/a.py</parameter></function>",
        );
        assert_eq!(
            calls,
            [
                ("bash".to_owned(), serde_json::json!({"command": "ls -la"})),
                (
                    "str_replace_editor".to_owned(),
                    serde_json::json!({"command": "view", "path": "/a.py"})
                ),
            ]
        );
        assert!(markup_calls("<function=bash><parameter=command>ls").is_empty());
    }

    #[test]
    fn rows_are_traces_with_their_tools() {
        let rows = [
            r#"{"instance_id": "a__b-1", "run_id": "r1", "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}], "messages": [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "a.py"}]}"#,
            r#"{"instance_id": "a__b-2", "traj_id": "a__b-2.x", "messages": [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "<function=bash>\n<parameter=command>cat a.py</parameter>\n</function>"}, {"role": "user", "content": "OBSERVATION:\nprint(1)"}]}"#,
        ];
        let (f, p) = parse_bytes(rows.join("\n").as_bytes(), "d.jsonl", None);
        assert_eq!(f, Some(InputFormat::Dataset));
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
        assert_eq!(ids, ["a__b-1/r1", "a__b-2.x"]);
        assert_eq!(p.traces[0].embedded_tools.len(), 1);
        for t in &p.traces {
            let c = counts(t);
            assert_eq!(
                (c.calls, c.results, c.unanswered),
                (1, 1, 0),
                "{}",
                t.run_id
            );
        }
        assert_eq!(p.traces[1].attributes.len(), 1);
    }
}

#[cfg(test)]
mod real {
    use crate::adapters::testing::{Counts, counts, misplaced_steps};
    use crate::adapters::{InputFormat, parse_bytes};

    /// OpenHands' own evaluation output (`evaluation/benchmarks/multi_swe_bench/examples/
    /// output.jsonl`): three Multi-SWE-bench runs, one a row, each its `history` of events with
    /// the tools in its system event. Counted independently: 105 actions with
    /// `tool_call_metadata`, 103 observations naming them by `cause`.
    #[test]
    fn openhands_evaluation_rows() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real/dataset/openhands-multi-swe-bench-output.jsonl");
        let text = std::fs::read_to_string(path).unwrap();
        let (f, p) = parse_bytes(text.as_bytes(), "o.jsonl", None);
        assert_eq!(f, Some(InputFormat::Dataset));
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        assert_eq!(p.traces.len(), 3);
        let c = p
            .traces
            .iter()
            .map(counts)
            .fold(Counts::default(), |a, b| a + b);
        assert_eq!((c.calls, c.results), (105, 103));
        assert!(p.traces.iter().all(|t| t.embedded_tools.len() == 4));
        let bad = misplaced_steps(&text, &p.traces);
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}
