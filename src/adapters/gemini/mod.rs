//! The `gemini-cli` format: Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/`), either one
//! `ConversationRecord` JSON document (`{sessionId, projectHash, startTime, messages[], kind?}`)
//! or the JSON Lines log that replaced it: a metadata line, message records (a record repeating
//! an earlier `id` replaces it in place), `{"$set": {…}}` updates (a `messages` list replaces
//! every message so far) and `{"$rewindTo": id}` (that message and every later one are
//! dropped). A `gemini` message's `toolCalls[]` carry each call with its result inside
//! (`result[].functionResponse.response.output|error`) and a `status`, the one structured
//! verdict (`success` ok, `error` / `cancelled` failed). The `functionResponse` parts the CLI
//! also writes as `user` messages are the same results, read once. A sub-agent's session
//! (`kind: subagent`, `chats/<parent session>/<id>.jsonl`) is a file, hence a trace, of its own.
//! The session records no CLI version: its start time is kept for the built-in schemas.
//! The transcript `gemini -p … --output-format stream-json` prints is read too (`stream.rs`):
//! a log whose records are stream events is read as one, each `init` event beginning a trace
//! (several runs printed into one file are a trace each).

mod messages;
mod stream;

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{ContextKind, InputRef};

use crate::adapters::Emit;
use crate::adapters::common::agent::{self, Session};
use crate::adapters::common::content::Item;
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::{Line, error_message};

/// `Trace::attributes` key: when the session started (the CLI records no version; the
/// built-in schemas of the release current then are used).
pub const ATTR_STARTED: &str = "session_started";
/// `Trace::attributes` key: `main` or `subagent`.
pub const ATTR_KIND: &str = "session_kind";

/// Message types a session's records have (`bob-shell` is a fork's name for `gemini`).
const MESSAGE_TYPES: &[&str] = &["user", "gemini", "info", "error", "warning", "bob-shell"];

/// How strongly a record looks like a Gemini CLI session record.
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let has = |k: &str| m.contains_key(k);
    let event = stream::sniff(m);
    if event > 0 {
        return event;
    }
    if m.get("sessionId").is_some_and(Value::is_string)
        && m.get("projectHash").is_some_and(Value::is_string)
    {
        return 12;
    }
    if m.len() == 1 && (m.get("$set").is_some_and(Value::is_object) || has("$rewindTo")) {
        return 10;
    }
    let typed = m
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| MESSAGE_TYPES.contains(&t));
    if typed && m.get("id").is_some_and(Value::is_string) && has("timestamp") && !has("role") {
        return if has("toolCalls") || has("tokens") || has("thoughts") {
            10
        } else {
            8
        };
    }
    0
}

/// Parse a session JSON Lines log.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    agent::read_lines(Reader::new(input, false), lines, input, out);
}

/// Parse a `ConversationRecord` document.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    agent::read_document(Reader::new(input, true), text, input, out, true);
}

/// The session's metadata (a document's top level, a log's first line or a `$set`).
#[derive(Deserialize, Default)]
struct Meta<'a> {
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
    #[serde(rename = "startTime", default)]
    start_time: Option<String>,
    #[serde(rename = "projectHash", default)]
    project_hash: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    directories: Option<Vec<String>>,
    #[serde(default, borrow)]
    messages: Option<&'a RawValue>,
}

/// A log line's control fields.
#[derive(Deserialize)]
struct Control<'a> {
    #[serde(rename = "$set", default, borrow)]
    set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", default)]
    rewind_to: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(rename = "sessionId", default)]
    session_id: Option<Value>,
    #[serde(default, borrow)]
    messages: Option<&'a RawValue>,
}

struct Reader<'i> {
    input: &'i InputRef,
    session: Session,
    session_id: Option<String>,
    /// The session's `projectHash`: the SHA-256 of the directory the CLI ran in.
    project_hash: Option<String>,
    /// The messages in order: (id, the steps read from its latest record).
    messages: Vec<(String, Vec<Item>)>,
    by_id: HashMap<String, usize>,
    /// Reading a whole `ConversationRecord` document, not a log.
    document: bool,
    /// The state of a stream-json transcript's reading.
    stream: stream::Stream,
    /// Stream-json runs begun (their `init` events): each is a trace.
    stream_runs: usize,
}

impl agent::Records for Reader<'_> {
    fn record(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        if self.document {
            self.conversation(raw, cur, ptr, out);
        } else {
            self.line(raw, cur, ptr, out);
        }
    }
    fn mark_partial(&mut self) {
        self.session.partial = true;
    }
    fn finish(mut self, out: &mut dyn Emit) {
        self.stream.flush(&mut self.session);
        let session_id = self.session_id.take().or(self.stream.session_id.take());
        // A result the CLI also wrote as a `user` message's `functionResponse` part is read
        // once, from its call.
        let mut answered = std::collections::HashSet::new();
        for (_, items) in std::mem::take(&mut self.messages) {
            for item in items {
                if let crate::model::StepKind::ToolResult(r) = &item.kind
                    && let Some(id) = &r.call_id
                    && !answered.insert(id.clone())
                {
                    continue;
                }
                self.session.items.push(item);
            }
        }
        // The session names its working directory only as a hash: a directory the calls name
        // (or one of its parents) that has that hash is the one.
        if !self
            .session
            .context
            .iter()
            .any(|(k, _)| *k == ContextKind::WorkingDirectory)
            && let Some(hash) = &self.project_hash
            && let Some(root) = project_root(hash, &self.session.items)
        {
            self.session
                .context(ContextKind::WorkingDirectory, Some(&root));
        }
        self.session.emit(session_id, self.input, out);
    }
}

impl<'i> Reader<'i> {
    fn new(input: &'i InputRef, document: bool) -> Self {
        let mut session = Session::default();
        session.attribute(
            crate::model::ATTR_AGENT,
            Some(crate::model::AGENT_GEMINI_CLI),
        );
        Self {
            input,
            session,
            session_id: None,
            project_hash: None,
            messages: Vec::new(),
            by_id: HashMap::new(),
            document,
            stream: stream::Stream::default(),
            stream_runs: 0,
        }
    }

    /// Emit the stream-json run read so far as a trace, and start the next one afresh.
    fn end_stream_run(&mut self, out: &mut dyn Emit) {
        let fresh = Self::new(self.input, self.document);
        let mut done = std::mem::replace(&mut self.session, fresh.session);
        self.stream.flush(&mut done);
        let id = self.stream.session_id.take();
        self.stream = stream::Stream::default();
        done.emit(id, self.input, out);
    }

    /// A whole `ConversationRecord`.
    fn conversation(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        match serde_json::from_str::<Meta<'_>>(raw.get()) {
            Ok(meta) => {
                let messages = meta.messages;
                self.meta(meta);
                match messages {
                    Some(list) => self.message_list(list, cur, &child(ptr, "messages"), out),
                    None => {
                        self.problem(raw, cur, ptr, "a Gemini CLI session needs `messages`", out)
                    }
                }
            }
            Err(e) => {
                let why = format!("unreadable Gemini CLI session: {}", error_message(&e));
                self.problem(raw, cur, ptr, &why, out);
            }
        }
    }

    /// One line of a session log, or an event of a stream-json transcript.
    fn line(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        if stream::is_event(raw) {
            if stream::is_init(raw) {
                // Another run printed into the same file: the run before is a trace of its own.
                if self.stream_runs > 0 {
                    self.end_stream_run(out);
                }
                self.stream_runs += 1;
            }
            let got = self
                .stream
                .event(raw, cur, ptr, &mut self.session, ATTR_STARTED);
            let input = self.input;
            self.session
                .add(got, &crate::model::StepMeta::default(), input, out);
            return;
        }
        let Ok(ctl) = serde_json::from_str::<Control<'_>>(raw.get()) else {
            self.problem(
                raw,
                cur,
                ptr,
                "not a Gemini CLI session record: expected a JSON object",
                out,
            );
            return;
        };
        if let Some(set) = ctl.set {
            if let Ok(meta) = serde_json::from_str::<Meta<'_>>(set.get()) {
                let messages = meta.messages;
                self.meta(meta);
                if let Some(list) = messages {
                    self.messages.clear();
                    self.by_id.clear();
                    let p = child(&child(ptr, "$set"), "messages");
                    self.message_list(list, cur, &p, out);
                }
            }
        } else if let Some(to) = ctl.rewind_to {
            // That message and every later one are gone; an id not found drops them all.
            let at = to
                .as_str()
                .and_then(|id| self.by_id.get(id).copied())
                .unwrap_or(0);
            for (id, _) in self.messages.drain(at..) {
                self.by_id.remove(&id);
            }
        } else if ctl.id.is_some_and(|v| v.is_string()) {
            self.message(raw, cur, ptr, out);
        } else if ctl.session_id.is_some() && ctl.messages.is_some() {
            // A whole `ConversationRecord` written on one line (not pretty-printed): read as
            // the document it is.
            self.conversation(raw, cur, ptr, out);
        } else if ctl.session_id.is_some() {
            if let Ok(meta) = serde_json::from_str::<Meta<'_>>(raw.get()) {
                self.meta(meta);
            }
        } else {
            self.problem(
                raw,
                cur,
                ptr,
                "not a Gemini CLI session record: no `id`, `$set`, `$rewindTo` or `sessionId`",
                out,
            );
        }
    }

    fn meta(&mut self, meta: Meta<'_>) {
        if self.session_id.is_none() {
            self.session_id = meta.session_id.filter(|s| !s.is_empty());
        }
        if self.project_hash.is_none() {
            self.project_hash = meta.project_hash.filter(|h| h.len() == 64);
        }
        self.session
            .attribute(ATTR_STARTED, meta.start_time.as_deref());
        self.session.attribute(ATTR_KIND, meta.kind.as_deref());
        for dir in meta.directories.iter().flatten() {
            self.session
                .context(ContextKind::WorkingDirectory, Some(dir.as_str()));
        }
    }

    fn message_list(&mut self, list: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        match serde_json::from_str::<Vec<&RawValue>>(list.get()) {
            Ok(items) => {
                for (i, m) in items.iter().enumerate() {
                    self.message(m, cur, &child(ptr, i), out);
                }
            }
            Err(_) => self.problem(list, cur, ptr, "`messages` must be a list", out),
        }
    }

    /// A message record: its steps replace those of an earlier record with the same id.
    fn message(&mut self, raw: &RawValue, cur: &Cursor<'_>, ptr: &str, out: &mut dyn Emit) {
        let Some((id, got)) = messages::read(raw, cur, ptr, &mut self.session) else {
            self.problem(
                raw,
                cur,
                ptr,
                "a Gemini CLI message needs a string `id`",
                out,
            );
            return;
        };
        for p in &got.problems {
            self.session
                .problem(&p.at, p.message.clone(), self.input, out);
        }
        match self.by_id.get(&id) {
            Some(&i) => self.messages[i].1 = got.items,
            None => {
                self.by_id.insert(id.clone(), self.messages.len());
                self.messages.push((id, got.items));
            }
        }
    }

    fn problem(
        &mut self,
        raw: &RawValue,
        cur: &Cursor<'_>,
        ptr: &str,
        why: &str,
        out: &mut dyn Emit,
    ) {
        let input = self.input;
        self.session.problem_at(raw, cur, ptr, why, input, out);
    }
}

#[cfg(test)]
mod tests;

/// Hashes tried in search of a session's project directory (each a prefix of a path a call
/// names), and strings read from one call's arguments.
const MAX_ROOT_HASHES: usize = 4096;
const MAX_STRINGS_A_CALL: usize = 64;

/// The directory whose SHA-256 (of its path as text, as Gemini CLI files a session under
/// `~/.gemini/tmp/<projectHash>/`) is `hash`, among the absolute paths the session's calls name
/// and their parents.
fn project_root(hash: &str, items: &[Item]) -> Option<String> {
    let hash = hash.to_ascii_lowercase();
    let mut tried = std::collections::HashSet::new();
    for item in items {
        let mut strings = Vec::new();
        match &item.kind {
            crate::model::StepKind::ToolCall(call) => {
                if let crate::model::Args::Known(args) = &call.args {
                    absolute_paths(args, 0, &mut strings);
                }
            }
            // "Successfully created and wrote to new file: /…/work/hello.txt."
            crate::model::StepKind::ToolResult(r) => absolute_paths(&r.content, 0, &mut strings),
            _ => {}
        }
        for path in strings {
            let ends = path
                .char_indices()
                .filter(|&(i, c)| i > 0 && (c == '/' || c == '\\'))
                .map(|(i, _)| i)
                .chain([path.trim_end_matches(['/', '\\']).len()]);
            for end in ends {
                let dir = &path[..end];
                if dir.len() < 2 || !tried.insert(dir.to_owned()) {
                    continue;
                }
                // A Windows directory named with `/` in a call is filed under its `\\` form.
                let native = (dir.as_bytes().get(1) == Some(&b':')).then(|| dir.replace('/', "\\"));
                for text in [Some(dir), native.as_deref()].into_iter().flatten() {
                    if crate::digest::hex(&crate::digest::sha256(text.as_bytes())) == hash {
                        return Some(text.to_owned());
                    }
                }
                if tried.len() >= MAX_ROOT_HASHES {
                    return None;
                }
            }
        }
    }
    None
}

/// Absolute paths (`/…`, `C:\…`, `C:/…`) among a value's strings, a few levels deep: the
/// words of a string's first 64 KiB that are one, edge punctuation aside.
fn absolute_paths<'v>(v: &'v Value, depth: usize, out: &mut Vec<&'v str>) {
    if out.len() >= MAX_STRINGS_A_CALL || depth > 4 {
        return;
    }
    let absolute = |s: &str| {
        let b = s.as_bytes();
        let drive = b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'/' || b[2] == b'\\');
        (b.first() == Some(&b'/') && b.get(1) != Some(&b'/')) || drive
    };
    match v {
        Value::String(s) => {
            let mut end = s.len().min(64 << 10);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let head = &s[..end];
            for word in head.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`')) {
                let word = word.trim_end_matches(['.', ',', ':', ';', ')', ']']);
                if out.len() < MAX_STRINGS_A_CALL && word.len() > 1 && absolute(word) {
                    out.push(word);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| absolute_paths(x, depth + 1, out)),
        Value::Object(m) => m.values().for_each(|x| absolute_paths(x, depth + 1, out)),
        _ => {}
    }
}
