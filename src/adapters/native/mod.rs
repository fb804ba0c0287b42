//! The `native` format (seed 002): `{"run_id", "steps": [...], "final"}`. A `.json` document is
//! one trace, a JSON array is many, and JSON Lines is one trace per line. Every step is located
//! at the line and column where its JSON begins.

mod step;
mod trace;
mod raw;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex, Location, Trace};

use crate::adapters::common::json_pos::{Line, error_message, error_position};
use crate::adapters::{Emit, Parsed};
use trace::{build_trace, parse_trace};
use raw::{ATTR_CONTINUES, RawTrace, Steps};

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

/// Parse a native document given as a string (tests and the library API).
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
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

/// The location of the first step (used when a trace has no step but needs a position).
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn start_of(trace: &Trace) -> Location {
    trace
        .steps
        .first()
        .map(|s| s.at.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
