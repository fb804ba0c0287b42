//! `Reader`: the records of one file, in order, into traces — messages and items into one
//! conversation, a request log's bodies into runs, datasets of conversations into a trace each.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{ContextKind, InputRef};

use crate::adapters::Emit;
use crate::adapters::common::content::Problem;
use crate::adapters::common::cursor::{Cursor, child};
use super::BFCL;
use super::body::{Body, Split, failure, http_status};
use super::conv::{Conv, Entry};

/// Reads the records of one file into traces.
pub(super) struct Reader<'i> {
    input: &'i InputRef,
    /// Messages, items and logged bodies of the file, in order: one conversation (a request
    /// log that holds several runs has one at a time).
    pub(super) stream: Conv,
    /// Runs of a request log read so far, the current one included.
    runs: usize,
}

impl<'i> Reader<'i> {
    pub(super) fn new(input: &'i InputRef) -> Self {
        Self {
            input,
            stream: Conv::new(input.path.clone(), input.clone()),
            runs: 1,
        }
    }

    /// A logged request that does not continue the conversation: the run so far is finished
    /// and another begins.
    pub(super) fn next_run(&mut self, out: &mut dyn Emit) {
        self.runs += 1;
        let next = Conv::new(
            format!("{}#{}", self.input.path, self.runs),
            self.input.clone(),
        );
        let done = std::mem::replace(&mut self.stream, next);
        if done.touched || !done.is_empty() {
            for t in done.finish() {
                out.trace(t);
            }
        }
    }

    pub(super) fn record(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        default_id: &str,
        out: &mut dyn Emit,
    ) {
        // A dataset's conversation (most records of a dataset file) is read in one pass, its
        // list split as the record is read; anything else, or a list that does not read as one,
        // is read as before.
        if raw.get().starts_with('{')
            && let Ok(body) = serde_json::from_str::<Body<'_, Split<'_>>>(raw.get())
            && body.is_dataset()
            && let Some((list, key)) = body.conversation_split()
        {
            self.dataset(&body, List::Split(list), key, cur, ptr, default_id, out);
            return;
        }
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
            self.dataset(&body, List::Raw(list), key, cur, ptr, default_id, out);
        } else if session_metadata(raw) {
            // A session file's metadata line before its messages (nanobot's `{"_type":
            // "metadata", "key", "created_at", …}`): nothing to lint.
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
    pub(super) fn logged(
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
    pub(super) fn take_tools(&mut self, body: &Body<'_>) {
        if let Some(t) = body.tools {
            self.stream.tools(t, false);
        }
        if let Some(f) = body.functions {
            self.stream.tools(f, true);
        }
    }

    /// A logged request body (`messages`, `input`, `system`, `instructions`); false when it
    /// holds none of them.
    pub(super) fn request(
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
    pub(super) fn dataset<L>(
        &mut self,
        body: &Body<'_, L>,
        list: List<'_>,
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
        let mut conv = Conv::whole(run_id, self.input.clone());
        if let Some(cwd) = body.meta.and_then(session_cwd) {
            conv.context(ContextKind::WorkingDirectory, cwd);
        }
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
        let mut problems = Vec::new();
        match list {
            List::Split(split) => entries.extend(
                split
                    .iter()
                    .enumerate()
                    .map(|(i, raw)| (Entry::Item(raw), child(&p, i))),
            ),
            List::Raw(list) if list.get().starts_with('[') => {
                entries.extend(items(list, &p, Entry::Item));
            }
            List::Raw(list) => problems.push(Problem {
                at: cur.at(list, p),
                message: format!("`{key}` is not a list"),
            }),
        }
        conv.append(&entries, cur, &mut problems);
        if !problems.is_empty() {
            conv.partial();
        }
        self.report(problems, out);
        for t in conv.finish() {
            out.trace(t);
        }
    }

    pub(super) fn report(&mut self, problems: Vec<Problem>, out: &mut dyn Emit) {
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

    pub(super) fn finish(self, out: &mut dyn Emit) {
        if self.stream.touched || !self.stream.is_empty() {
            for t in self.stream.finish() {
                out.trace(t);
            }
        }
    }
}

/// The elements of a list as entries, with their pointers.
/// A conversation's list: its raw value, or its items already split.
pub(super) enum List<'a> {
    Raw(&'a RawValue),
    Split(&'a [&'a RawValue]),
}

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

/// Is this record a chat session file's metadata line (`{"_type": "metadata", …}`)?
/// The working directory a converted session's metadata keeps (`meta.session_meta.cwd`, as
/// converters of Claude Code, Codex and OpenCode sessions write it).
fn session_cwd(meta: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(default)]
        session_meta: Option<SessionMeta>,
    }
    #[derive(serde::Deserialize)]
    struct SessionMeta {
        #[serde(default)]
        cwd: Option<Value>,
    }
    let meta: Meta = serde_json::from_str(meta.get()).ok()?;
    match meta.session_meta?.cwd? {
        Value::String(s) if !s.trim().is_empty() => Some(s),
        _ => None,
    }
}

fn session_metadata(raw: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "_type", default)]
        kind: Option<serde_json::Value>,
        #[serde(default)]
        role: Option<serde_json::Value>,
    }
    serde_json::from_str::<Meta>(raw.get())
        .is_ok_and(|m| m.role.is_none() && m.kind.as_ref().and_then(|k| k.as_str()) == Some("metadata"))
}
