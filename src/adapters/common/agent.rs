//! What the coding-agent session adapters (Codex CLI, Gemini CLI, Cline, Copilot CLI) share:
//! walking the records of a JSON Lines file or a JSON document with a `Cursor` on each (a bad
//! line is an input issue and the rest is read), a session's steps gathered before the trace is
//! built (results whose status only a later record gives are settled at the end), and the
//! trace itself with the producer's attributes and the context the agent was given. Knows no
//! format's fields.

use std::collections::HashMap;

use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{
    ContextKind, InputRef, LineIndex, Location, ResultStatus, StepKind, StepMeta, Trace,
};

use crate::adapters::Emit;
use crate::adapters::common::content::{Collected, Item};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::{Line, error_message, error_position};

/// A reader of one session's records, driven by `read_lines` / `read_document`.
pub trait Records {
    /// Read one record (a line, a document, or an element of a top-level array).
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit);
    /// Part of the input could not be read.
    fn mark_partial(&mut self);
    /// Emit what was read.
    fn finish(self, out: &mut dyn Emit);
}

/// Read a JSON Lines input with `reader`.
pub fn read_lines<R: Records>(
    mut reader: R,
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    if each_line(lines, input, out, |raw, cur, ptr, out| {
        reader.record(raw, cur, ptr, out);
    }) {
        reader.mark_partial();
    }
    reader.finish(out);
}

/// Read a JSON document with `reader`: the whole document as one record (`whole`), or each
/// element of a top-level array. Nothing is emitted when it is not JSON (an issue says why).
pub fn read_document<R: Records>(
    mut reader: R,
    text: &str,
    input: &InputRef,
    out: &mut dyn Emit,
    whole: bool,
) {
    if document(text, input, out, whole, |raw, cur, ptr, out| {
        reader.record(raw, cur, ptr, out);
    }) {
        reader.finish(out);
    }
}

/// Read every JSON Lines record: `f` gets each record's raw value and a cursor on its line.
/// Returns true when a line could not be read (the trace is then partial).
pub fn each_line(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
    mut f: impl FnMut(&RawValue, &Cursor<'_>, &str, &mut dyn Emit),
) -> bool {
    let mut partial = false;
    for line in lines {
        match line {
            Err(issue) => {
                partial = true;
                out.issue(issue);
            }
            Ok(line) => match serde_json::from_str::<&RawValue>(&line.text) {
                Ok(raw) => f(raw, &Cursor::record(&line.text, line.number), "", out),
                Err(e) => {
                    partial = true;
                    let (l, c) = error_position(&e, line.number);
                    out.issue(InputIssue::at(
                        &input.path,
                        l,
                        c,
                        format!("invalid JSON: {}", error_message(&e)),
                    ));
                }
            },
        }
    }
    partial
}

/// Read a JSON document: `f` gets the top-level value (`whole`) or, for a top-level array,
/// each element with its pointer. Returns false when the document is not JSON (an issue says
/// where).
pub fn document(
    text: &str,
    input: &InputRef,
    out: &mut dyn Emit,
    whole: bool,
    mut f: impl FnMut(&RawValue, &Cursor<'_>, &str, &mut dyn Emit),
) -> bool {
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    let fail = |e: &serde_json::Error, out: &mut dyn Emit| {
        let (l, c) = error_position(e, 1);
        out.issue(InputIssue::at(
            &input.path,
            l,
            c,
            format!("invalid JSON: {}", error_message(e)),
        ));
        false
    };
    if !whole && text.trim_start().starts_with('[') {
        match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) => {
                for (i, raw) in items.iter().enumerate() {
                    f(raw, &cur, &child("", i), out);
                }
                true
            }
            Err(e) => fail(&e, out),
        }
    } else {
        match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => {
                f(raw, &cur, "", out);
                true
            }
            Err(e) => fail(&e, out),
        }
    }
}

/// A result's status (and error text) that a record other than the result itself gives: an
/// execution event naming the call, read before or after its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The structured status.
    pub status: ResultStatus,
    /// What failed, when it failed.
    pub error: Option<String>,
}

/// One session's steps as they are read, and what is known about the session.
#[derive(Debug, Default)]
pub struct Session {
    /// The steps, in order.
    pub items: Vec<Item>,
    /// Part of the input could not be read.
    pub partial: bool,
    /// Producer facts, `(key, value)`, first value kept.
    pub attributes: Vec<(String, String)>,
    /// What the agent was given before its first step.
    pub context: Vec<(ContextKind, String)>,
    /// Statuses by call id from other records; applied to results whose own record says
    /// nothing.
    pub verdicts: HashMap<String, Verdict>,
    /// The run's final answer.
    pub final_answer: Option<String>,
}

impl Session {
    /// Record a producer fact once (the first value wins).
    pub fn attribute(&mut self, key: &str, value: Option<&str>) {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return;
        };
        if !self.attributes.iter().any(|(k, _)| k == key) {
            self.attributes.push((key.to_owned(), value.to_owned()));
        }
    }

    /// Record an item of context once.
    pub fn context(&mut self, kind: ContextKind, value: Option<&str>) {
        let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return;
        };
        if !self.context.iter().any(|(k, v)| *k == kind && v == value) {
            self.context.push((kind, value.to_owned()));
        }
    }

    /// Add what one record held; problems become input issues (and the session partial).
    pub fn add(&mut self, got: Collected, meta: &StepMeta, input: &InputRef, out: &mut dyn Emit) {
        for p in got.problems {
            self.problem(&p.at, p.message, input, out);
        }
        for mut item in got.items {
            if item.meta.is_empty() {
                item.meta = meta.clone();
            }
            self.items.push(item);
        }
    }

    /// A record that could not be read.
    pub fn problem(
        &mut self,
        at: &Location,
        message: String,
        input: &InputRef,
        out: &mut dyn Emit,
    ) {
        self.partial = true;
        out.issue(InputIssue::at(&input.path, at.line, at.column, message));
    }

    /// A record (the value `raw` at `ptr`) that could not be read.
    pub fn problem_at(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        why: &str,
        input: &InputRef,
        out: &mut dyn Emit,
    ) {
        let at = cur.at(raw, ptr.to_owned());
        self.problem(&at, why.to_owned(), input, out);
    }

    /// Emit the session as one trace named `id` (the file's path when it records none).
    pub fn emit(self, id: Option<String>, input: &InputRef, out: &mut dyn Emit) {
        let run_id = id.unwrap_or_else(|| input.path.clone());
        out.trace(self.into_trace(run_id, input));
    }

    /// The trace: results whose own record gave no status take the verdict another record gave
    /// for their call.
    pub fn into_trace(self, run_id: String, input: &InputRef) -> Trace {
        let mut trace = Trace::new(run_id, input.clone());
        trace.partial = self.partial;
        trace.attributes = self.attributes;
        trace.final_answer = self.final_answer;
        for (kind, value) in self.context {
            trace.add_context(kind, value);
        }
        for mut item in self.items {
            if let StepKind::ToolResult(r) = &mut item.kind
                && r.status == ResultStatus::Unknown
                && let Some(v) = r.call_id.as_ref().and_then(|id| self.verdicts.get(id))
            {
                r.status = v.status;
                if r.error.is_none() {
                    r.error.clone_from(&v.error);
                }
            }
            trace.push(item.kind, item.at, item.meta);
        }
        trace
    }
}
