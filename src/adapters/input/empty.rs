//! Never a silent empty pass: an input read as some format that yields no tool call while its
//! records plainly hold tool calls (a `tool_use` block, a non-empty `toolCalls` list, a
//! `function_call` item …) is an input error naming what was seen, where, and the formats it
//! resembles; an input with no such record that yields no call gets a note saying it holds
//! none. Every adapter goes through this check (`parse_reader`), so a newer or renamed variant
//! of a format can never be reported clean with "0 tool calls".

use std::sync::LazyLock;

use regex::bytes::{Regex, RegexBuilder};

use crate::finding::InputIssue;
use crate::model::{Role, Trace};

use crate::adapters::common::json_pos::Line;
use crate::adapters::{Emit, InputFormat, common::json_pos};

/// A key or value that only a record holding a tool call (or a tool's result, which answers
/// one) has. Lists and objects must be non-empty (`"tool_calls": []` holds none).
static CALL_MARK: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = r#"(?x)
        "(?P<list> tool_calls | toolCalls | toolRequests | tool_uses | function_calls ) " \s* : \s* \[ \s* \{
      | "(?P<object> functionCall | function_call | tool_call | toolCall ) " \s* : \s* \{
      | "type" \s* : \s* "(?P<kind> tool_use | server_tool_use | mcp_tool_use | function_call
            | custom_tool_call | local_shell_call | tool_call | tool-call | toolRequest ) "
      | "(?P<name> tool_name | toolName | tool_call_id | toolCallId | tool_use_id ) " \s* : \s* " [^"]
      | "type" \s* : \s* "(?P<result> tool_result | function_call_output | custom_tool_call_output
            | tool-result ) "
      | "(?P<response> functionResponse | function_response ) " \s* : \s* \{
    "#;
    RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .expect("the tool-call mark pattern is valid")
});

/// Bytes of one line or document searched for a mark (bounds the work on a huge record).
const SCAN_BYTES: usize = 4 << 20;

/// The first record that holds a tool call (and the first that holds a result), as seen by
/// the text scan.
#[derive(Debug, Default)]
pub struct Scan {
    /// The call mark found (`toolCalls`, `tool_use`, …) and the line it is on.
    found: Option<(String, u32)>,
    /// The first result mark (`tool_result`, `functionResponse`, …) and its line.
    result: Option<(String, u32)>,
    /// Formats whose detection scores the marked record above zero.
    resembles: Vec<InputFormat>,
    /// Records looked at.
    records: usize,
}

impl Scan {
    /// Look at one JSON Lines record (until a call mark is found).
    pub fn line(&mut self, line: Option<&Line>) {
        let Some(line) = line else { return };
        self.records += 1;
        if self.found.is_none() {
            self.look(&line.text, |_| line.number, 4);
        }
    }

    /// Look at a whole document.
    pub fn document(&mut self, text: &str) {
        self.records += 1;
        let bytes = &text.as_bytes()[..text.len().min(SCAN_BYTES)];
        self.look(
            text,
            |at| {
                let line = 1 + memchr::memchr_iter(b'\n', &bytes[..at]).count();
                u32::try_from(line).unwrap_or(u32::MAX)
            },
            5,
        );
    }

    /// Record the first call mark (and the first result mark before it) in `text`; `line`
    /// turns a byte offset into a line number.
    fn look(&mut self, text: &str, line: impl Fn(usize) -> u32, depth: usize) {
        let bytes = &text.as_bytes()[..text.len().min(SCAN_BYTES)];
        let before = (self.found.is_some(), self.result.is_some());
        for m in CALL_MARK.captures_iter(bytes) {
            let at = line(m.get(0).map_or(0, |g| g.start()));
            let (name, is_call) = mark_name(&m);
            if is_call {
                self.found = Some((name, at));
                break;
            }
            if self.result.is_none() {
                self.result = Some((name, at));
            }
        }
        if (self.found.is_some(), self.result.is_some()) != before
            && let Ok(v) = json_pos::skim(text, depth)
        {
            let records = match v {
                serde_json::Value::Array(items) => items,
                other => vec![other],
            };
            self.resembles = resembling(&records);
        }
    }
}

/// The first mark in a text, and whether it is a call's (else a result's).
#[cfg(test)]
fn mark(text: &str) -> Option<(String, bool)> {
    let bytes = &text.as_bytes()[..text.len().min(SCAN_BYTES)];
    CALL_MARK.captures(bytes).map(|m| mark_name(&m))
}

/// A mark's name, and whether it marks a call (else a result).
fn mark_name(m: &regex::bytes::Captures<'_>) -> (String, bool) {
    ["list", "object", "kind", "name", "result", "response"]
        .iter()
        .find_map(|g| m.name(g).map(|v| (*g, v)))
        .map(|(g, v)| {
            let name = String::from_utf8_lossy(v.as_bytes()).into_owned();
            let is_call = !matches!(g, "result" | "response")
                && !matches!(name.as_str(), "tool_call_id" | "toolCallId" | "tool_use_id");
            (name, is_call)
        })
        .unwrap_or_default()
}

fn resembling(records: &[serde_json::Value]) -> Vec<InputFormat> {
    InputFormat::ALL
        .iter()
        .copied()
        .filter(|f| records.iter().any(|r| f.sniff(r) > 0))
        .collect()
}

/// Passes an adapter's output on, counting the traces and tool calls it emits.
pub struct Tally<'a> {
    out: &'a mut dyn Emit,
    traces: usize,
    calls: usize,
    results: usize,
    /// Assistant messages read.
    model_turns: usize,
    issues: usize,
}

impl<'a> Tally<'a> {
    /// Count what goes to `out`.
    pub fn new(out: &'a mut dyn Emit) -> Self {
        Self {
            out,
            traces: 0,
            calls: 0,
            results: 0,
            model_turns: 0,
            issues: 0,
        }
    }

    /// Calls were read, or the adapter already said what it could not read: `finish` says
    /// nothing, whatever a scan found (so a whole document need not be scanned).
    pub fn settled(&self) -> bool {
        self.calls > 0 || self.issues > 0
    }

    /// The input is read: no call while a record holds one, or results that answer no call
    /// read (more than one, or one that was not read either), is an input error; no call and
    /// no such record is a note.
    pub fn finish(self, path: &str, format: InputFormat, scan: &Scan) {
        if self.settled() {
            return;
        }
        // Results with no call read mean the calls were not read, unless no turn of the model
        // was read either: the file holds results without the turns that made their calls (an
        // Inspect AI test log holds such a sample), and a note says so.
        if self.results > 1 && scan.found.is_none() && self.model_turns == 0 {
            self.out.note(format!(
                "no tool calls: {} tool results read as `{format}` answer calls the file does not hold",
                self.results
            ));
            return;
        }
        let unread = match (&scan.found, &scan.result) {
            (Some(found), _) => Some(found),
            (None, Some(found)) if self.results != 1 => Some(found),
            (None, Some(_)) => return,
            (None, None) => None,
        };
        match unread {
            Some((mark, line)) => {
                let others: Vec<&str> = scan
                    .resembles
                    .iter()
                    .filter(|f| **f != format)
                    .map(|f| f.name())
                    .collect();
                let resembles = if others.is_empty() {
                    String::new()
                } else {
                    format!(" (it also resembles {})", others.join(", "))
                };
                self.out.issue(InputIssue::at(
                    path,
                    *line,
                    0,
                    format!(
                        "read as `{format}` but no tool call came out of it, though its records hold tool calls or results (`{mark}` on line {line}): it may be another format or a newer version of this one{resembles}; pass `--input-format` to choose"
                    ),
                ));
            }
            // Results that answer no call: the calls were not read.
            None if self.results > 1 => self.out.issue(InputIssue::file(
                path,
                format!(
                    "read as `{format}`: {} tool results but no tool call came out of it; the file may be another format or a newer version of this one; pass `--input-format` to choose",
                    self.results
                ),
            )),
            None if self.traces > 0 => self.out.note(format!(
                "no tool calls: {} record{} read as `{format}`, none of them a tool call",
                scan.records,
                if scan.records == 1 { "" } else { "s" }
            )),
            None => {}
        }
    }
}

impl Emit for Tally<'_> {
    fn trace(&mut self, trace: Trace) {
        self.traces += 1;
        self.calls += trace.call_count();
        self.results += trace
            .steps
            .iter()
            .filter(|s| s.as_result().is_some())
            .count();
        self.model_turns += trace
            .steps
            .iter()
            .filter(|s| s.as_message().is_some_and(|m| m.role == Role::Assistant))
            .count();
        self.out.trace(trace);
    }
    fn issue(&mut self, issue: InputIssue) {
        self.issues += 1;
        self.out.issue(issue);
    }
    fn note(&mut self, note: String) {
        self.out.note(note);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Acceptance 5 of issue 24 for formats other than the agent adapters (theirs are in their
    /// own tests): a real file whose calls are renamed away is an input error, never a clean
    /// pass with 0 tool calls.
    #[test]
    fn renamed_calls_are_never_an_empty_pass_in_any_format() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let shared = root.join("fixtures/real");
        let cases = [
            (
                shared.join("claude-code/erk-b2c8258b-cfa7-4411-82bd-b2817ab24b4d.jsonl"),
                InputFormat::Claude,
                r#""type":"tool_use""#,
            ),
            (
                shared.join("openai-chat/tau-bench-gpt-4o-airline.subset.json"),
                InputFormat::OpenAi,
                r#""tool_calls""#,
            ),
            (
                root.join("fixtures/quickstart/transcript.json"),
                InputFormat::Native,
                r#""tool_call""#,
            ),
            (
                root.join("fixtures/real/atif/atif-swe-test-repo-i1.trajectory.json"),
                InputFormat::Atif,
                r#""tool_calls""#,
            ),
        ];
        for (path, format, key) in cases {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.display().to_string();
            let (_, read) = crate::adapters::parse_bytes(text.as_bytes(), &name, Some(format));
            assert!(
                read.traces.iter().map(Trace::call_count).sum::<usize>() > 0,
                "{name}"
            );
            let renamed = text.replace(key, &key.replace("tool_", "tool_x"));
            assert_ne!(renamed, text, "{name}");
            let (_, read) = crate::adapters::parse_bytes(renamed.as_bytes(), &name, Some(format));
            // An input error (exit 3): the adapter's own (native names the unknown step type),
            // or the empty-pass guard's.
            assert_eq!(read.traces.iter().map(Trace::call_count).sum::<usize>(), 0);
            assert!(
                !read.issues.is_empty(),
                "{name}: a clean pass with 0 tool calls"
            );
        }
    }

    #[test]
    fn results_with_no_model_turn_are_a_note() {
        // Tool results and no assistant turn at all (the calls are not in the file): a note.
        let text = r#"[{"role": "user", "content": "go"},
            {"role": "tool", "tool_call_id": "a", "content": "x"},
            {"role": "tool", "tool_call_id": "b", "content": "y"}]"#;
        let (_, read) =
            crate::adapters::parse_bytes(text.as_bytes(), "r.json", Some(InputFormat::OpenAi));
        assert_eq!(read.issues.len(), 0, "{:?}", read.issues);
        assert_eq!(
            read.notes,
            ["no tool calls: 2 tool results read as `openai` answer calls the file does not hold"]
        );
        // The same with an assistant turn whose calls were not read: an input error.
        let text = text.replace(
            r#"{"role": "user", "content": "go"},"#,
            r#"{"role": "user", "content": "go"}, {"role": "assistant", "content": "on it"},"#,
        );
        let (_, read) =
            crate::adapters::parse_bytes(text.as_bytes(), "r.json", Some(InputFormat::OpenAi));
        assert!(
            read.issues
                .iter()
                .any(|i| i.message.contains("no tool call")),
            "{:?}",
            read.issues
        );
    }

    #[test]
    fn marks_need_a_call_not_an_empty_list() {
        assert_eq!(mark(r#"{"role":"assistant","tool_calls":[]}"#), None);
        assert_eq!(mark(r#"{"role":"assistant","tool_calls": null}"#), None);
        let call = |t: &str| Some((t.to_owned(), true));
        assert_eq!(
            mark(r#"{"tool_calls": [ {"id": "a"}]}"#),
            call("tool_calls")
        );
        assert_eq!(
            mark(r#"{"content":[{"type": "tool_use","id":"x"}]}"#),
            call("tool_use")
        );
        assert_eq!(
            mark(r#"{"type":"gemini","toolCalls":[{"id":"r"}]}"#),
            call("toolCalls")
        );
        assert_eq!(
            mark(r#"{"type":"tool_result","tool_use_id":"t"}"#),
            Some(("tool_result".to_owned(), false))
        );
        // A value that merely mentions the words.
        assert_eq!(mark(r#"{"text":"the tool_calls key"}"#), None);
    }
}
