//! The `swe-agent` format: SWE-agent's `.traj` files `{environment, trajectory[], history[],
//! info, replay_config?}`. `history[]` is the conversation the model saw: with function calling,
//! assistant messages carry `tool_calls` and observations are `role: "tool"` messages naming
//! their calls in a plural `tool_call_ids`; without it, SWE-agent parsed an `action` (a command
//! line) from the model's text, which is read as a call of the command's tool, answered by the
//! next observation — the report says those calls were parsed from text. `info.exit_status`
//! other than a submission is a note about the run. Demonstration messages SWE-agent injects
//! into the history (`is_demo`) are left out: they are an example, not this run.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, Trace};

use crate::adapters::Emit;
use crate::adapters::common::cursor::{Cursor, child, each_top_value, object_or_issue};
use crate::adapters::common::history::History;
use crate::adapters::common::json_pos::{Line, each_record};
use crate::adapters::common::raw::{self, Members};

/// Does this record look like a SWE-agent trajectory?
pub fn sniff(record: &Value) -> u8 {
    let history = record.get("history").is_some_and(Value::is_array);
    let traj = record.get("trajectory").is_some_and(Value::is_array);
    match (history, traj) {
        (true, true) => 12,
        (true, false) if record.get("info").is_some_and(Value::is_object) => 9,
        _ => 0,
    }
}

/// Parse a `.traj` document.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    each_top_value(text, &input.path, out, |raw, cur, ptr, id, out| {
        read(raw, cur, ptr, id, input, out);
    });
}

/// Parse JSON Lines of trajectories (a dataset), one a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    each_record(lines, &input.path, out, |raw, line, out| {
        let cur = Cursor::record(&line.text, line.number);
        let id = format!("{}:{}", input.path, line.number);
        read(raw, &cur, "", &id, input, out);
    });
}

/// One trajectory into a trace.
pub fn read(
    raw: &RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    default_id: &str,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let Some(m) = object_or_issue(raw, cur, ptr, &input.path, "a SWE-agent trajectory", out) else {
        return;
    };
    let mut trace = Trace::new(run_id(&m, default_id), input.clone());
    read_into(&m, cur, ptr, &mut trace, &input.path, out);
    out.trace(trace);
}

/// The call an `action` stands for. SWE-agent's XML function calling
/// (`parse_function: xml_function_calling`) records no tool call: the model's text holds
/// `<function=NAME><parameter=…>` markup (read whole when complete; when SWE-agent cut the
/// text after the opening tag, the tool is that NAME with the action as its `command`).
/// Otherwise the action is an ACI command line, named by its first word (`open`, `edit`,
/// `submit`).
fn action_call(action: &str, content: Option<&str>) -> (String, Value) {
    if let Some(text) = content {
        if let Some(call) = crate::adapters::dataset::markup_calls(text).into_iter().next() {
            return call;
        }
        if let Some(name) = markup_name(text) {
            return (name, serde_json::json!({ "command": action.trim_end() }));
        }
    }
    let name = action
        .split_whitespace()
        .next()
        .unwrap_or("bash")
        .to_owned();
    (name, serde_json::json!({ "command": action.trim_end() }))
}

/// NAME of the first `<function=NAME>` in `text`, when it is one word.
fn markup_name(text: &str) -> Option<String> {
    let after = &text[text.find("<function=")? + "<function=".len()..];
    let name = after[..after.find('>')?].trim();
    (!name.is_empty() && name.len() <= 64 && !name.contains(char::is_whitespace))
        .then(|| name.to_owned())
}

fn run_id(m: &Members<'_>, default_id: &str) -> String {
    raw::id(m, "instance_id")
        .or_else(|| raw::id(m, "traj_id"))
        .or_else(|| raw::id(m, "id"))
        .unwrap_or_else(|| default_id.to_owned())
}

/// Read a trajectory's history into `trace`; what could not be read is an input issue.
pub fn read_into(
    m: &Members<'_>,
    cur: &Cursor<'_>,
    ptr: &str,
    trace: &mut Trace,
    path: &str,
    out: &mut dyn Emit,
) {
    let mut history = History::new(cur);
    let messages = raw::list(m, "history");
    for (i, msg) in messages.iter().enumerate() {
        let Some(mm) = raw::object(msg) else { continue };
        if matches!(raw::value(&mm, "is_demo"), Some(Value::Bool(true))) {
            continue;
        }
        let action = raw::string(&mm, "action").filter(|a| !a.trim().is_empty());
        let content = raw::string(&mm, "content");
        let text_call = action.map(|a| action_call(&a, content.as_deref()));
        history.message(msg, &child(&child(ptr, "history"), i), text_call);
    }
    history.finish(trace, path, out, |n| {
        format!("{n} read from the `action` SWE-agent parsed out of the model's text (no tool call was recorded)")
    });
    if let Some(Value::Object(info)) = raw::value(m, "info") {
        if let Some(status) = info.get("exit_status").and_then(Value::as_str)
            && !status.is_empty()
            && !status.starts_with("submitted")
        {
            trace.add_note(format!(
                "the run ended with SWE-agent exit status `{status}`"
            ));
        }
        if let Some(sub) = info.get("submission").and_then(Value::as_str)
            && !sub.trim().is_empty()
        {
            trace.final_answer = Some(sub.to_owned());
        }
    }
}

#[cfg(test)]
mod tests;
