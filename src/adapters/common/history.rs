//! A coding agent's message history → steps, for the harnesses that keep an OpenAI-like list
//! (SWE-agent `history[]`, mini-swe-agent `messages[]`, dataset rows): system, user and
//! assistant messages through the chat reader (`tool_calls` with their argument strings kept
//! for R6); tool messages answering one call (`tool_call_id`) or several (SWE-agent's plural
//! `tool_call_ids`), whose `extra.returncode` 0 is a success and `extra.exception_info` an
//! error. A harness that parses its actions out of the assistant's text (SWE-agent's `action`,
//! mini-swe-agent's legacy bash blocks) hands the parsed call in: it becomes a call, and the
//! next user message (the observation) its result.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{Args, CallOrigin, ResultStatus, StepKind, ToolCall, ToolResult};

use crate::adapters::common::content::{self, Collected};
use crate::adapters::common::cursor::Cursor;
use crate::adapters::openai::chat::{self, Legacy};
use crate::adapters::common::raw::{self, Members};

/// Reads one history into items.
pub struct History<'c, 't> {
    cur: &'c Cursor<'t>,
    legacy: Legacy,
    /// What was read.
    pub out: Collected,
    /// The id of a call parsed from text, waiting for the observation that answers it.
    pending: Option<String>,
    /// Calls parsed from text so far.
    pub text_calls: usize,
}

impl<'c, 't> History<'c, 't> {
    /// A reader over `cur`.
    pub fn new(cur: &'c Cursor<'t>) -> Self {
        Self {
            cur,
            legacy: Legacy::default(),
            out: Collected::default(),
            pending: None,
            text_calls: 0,
        }
    }

    /// Read one message. `text_call` is the call the harness parsed from this message's text,
    /// as (tool name, arguments), when it did.
    pub fn message(&mut self, raw: &RawValue, ptr: &str, text_call: Option<(String, Value)>) {
        let Some(m) = raw::object(raw) else {
            self.out.problem(
                self.cur.at(raw, ptr.to_owned()),
                "a message must be an object",
            );
            return;
        };
        let role = raw::string(&m, "role").unwrap_or_default();
        match role.as_str() {
            "tool" => self.tool(raw, ptr, &m),
            "user" if self.pending.is_some() => {
                let id = self.pending.take();
                let body = raw::value(&m, "content");
                let status = match body.as_ref().and_then(Value::as_str).map(returncode) {
                    Some(Some(0)) => ResultStatus::Ok,
                    _ => ResultStatus::Unknown,
                };
                let at = self.cur.step(raw, &["\"content\""], ptr.to_owned());
                let result = ToolResult::new(id, content::result_content(body), status);
                self.out.push(StepKind::ToolResult(result), at);
            }
            // mini-swe-agent's last message says how the run ended; not a turn.
            "exit" => {}
            _ => {
                let has_calls = m.get("tool_calls").is_some_and(|c| c.get() != "null");
                chat::read_message(raw, self.cur, ptr, &mut self.legacy, &mut self.out);
                if role == "assistant"
                    && !has_calls
                    && let Some((name, args)) = text_call
                {
                    self.text_calls += 1;
                    let id = format!("action-{}", self.text_calls);
                    let at = self
                        .cur
                        .step(raw, &["\"action\"", "\"content\""], ptr.to_owned());
                    self.out.push(
                        StepKind::ToolCall(ToolCall {
                            call_id: Some(id.clone()),
                            name,
                            args: Args::Known(args),
                            raw_args: None,
                            origin: CallOrigin::Model,
                        }),
                        at,
                    );
                    self.pending = Some(id);
                }
            }
        }
    }

    fn tool(&mut self, raw: &RawValue, ptr: &str, m: &Members<'_>) {
        let mut ids: Vec<String> = match raw::value(m, "tool_call_ids") {
            Some(Value::Array(ids)) => ids.iter().filter_map(|i| content::id_of(Some(i))).collect(),
            _ => Vec::new(),
        };
        if ids.is_empty() {
            ids.extend(raw::id(m, "tool_call_id"));
        }
        let extra = raw::value(m, "extra");
        let exception = extra
            .as_ref()
            .and_then(|e| e.get("exception_info"))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned);
        let code = extra
            .as_ref()
            .and_then(|e| e.get("returncode"))
            .and_then(Value::as_i64);
        let status = match (&exception, code) {
            (Some(_), _) => ResultStatus::Error,
            (None, Some(0)) => ResultStatus::Ok,
            _ => ResultStatus::Unknown,
        };
        let body = content::result_content(raw::value(m, "content"));
        let at = |id: &str| self.cur.step(raw, &[id], ptr.to_owned());
        let located: Vec<_> = if ids.is_empty() {
            vec![(None, self.cur.at(raw, ptr.to_owned()))]
        } else {
            ids.iter().map(|id| (Some(id.clone()), at(id))).collect()
        };
        for (id, at) in located {
            let mut result = ToolResult::new(id, body.clone(), status);
            result.error.clone_from(&exception);
            self.out.push(StepKind::ToolResult(result), at);
        }
    }
}

impl History<'_, '_> {
    /// Append what was read to `trace`: the steps; a note (`said`, given "N calls were" or
    /// "1 call was") when calls were parsed from text; what could not be read as input issues,
    /// the trace marked partial.
    pub fn finish(
        self,
        trace: &mut crate::model::Trace,
        path: &str,
        out: &mut dyn crate::adapters::Emit,
        said: impl FnOnce(&str) -> String,
    ) {
        if self.text_calls > 0 {
            let n = self.text_calls;
            trace.add_note(said(&if n == 1 {
                "1 call was".to_owned()
            } else {
                format!("{n} calls were")
            }));
        }
        for item in self.out.items {
            trace.push(item.kind, item.at, crate::model::StepMeta::default());
        }
        for p in self.out.problems {
            trace.partial = true;
            out.issue(crate::finding::InputIssue::at(
                path,
                p.at.line,
                p.at.column,
                p.message,
            ));
        }
    }
}

/// The exit status a harness writes at the start of an observation (`<returncode>N</returncode>`).
pub fn returncode(text: &str) -> Option<i64> {
    let rest = text.trim_start().strip_prefix("<returncode>")?;
    rest[..rest.find("</returncode>")?].trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returncodes() {
        assert_eq!(returncode("<returncode>0</returncode>\n<output>"), Some(0));
        assert_eq!(returncode(" <returncode>127</returncode>"), Some(127));
        assert_eq!(returncode("exit 0"), None);
        assert_eq!(returncode("<returncode>x</returncode>"), None);
    }
}
