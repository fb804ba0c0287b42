//! Input formats → the canonical model. `InputFormat`, content-based detection (never the file
//! name), and `parse_reader`, which decides between a JSON document and JSON Lines, streams JSON
//! Lines record by record, and hands each adapter its body. Adapters never see rules, sources or
//! reports; a problem with one record is an `InputIssue`, and the rest is still read.

pub mod agent;
pub mod args;
pub mod assemble;
pub mod atif;
pub mod chat;
pub mod claude;
pub mod cline;
pub mod clock;
pub mod codex;
pub mod content;
pub mod copilot;
pub mod cursor;
pub mod dataset;
pub mod empty;
pub mod gemini;
pub mod history;
pub mod inspect;
pub mod json_pos;
pub mod langfuse;
pub mod langsmith;
pub mod miniswe;
pub mod native;
pub mod openai;
pub mod openhands;
pub mod otel;
pub mod raw;
pub mod record;
#[cfg(test)]
mod snapshot;
pub mod sweagent;
#[cfg(test)]
mod testing;

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde_json::Value;

use crate::finding::InputIssue;
use crate::model::{InputRef, Trace};

use json_pos::{Line, LineReader};

/// The input formats tracelint reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputFormat {
    /// Seed 002's native trace JSON.
    Native,
    /// Claude Code session JSONL, Claude CLI `stream-json`, flat tool-use event lines.
    Claude,
    /// OpenAI chat messages / Responses items, ShareGPT, Anthropic Messages.
    OpenAi,
    /// Langfuse trace exports.
    Langfuse,
    /// OpenTelemetry spans: OpenInference, OTLP JSON, GenAI semantic conventions.
    Otel,
    /// Codex CLI rollouts.
    Codex,
    /// Gemini CLI sessions (JSON or JSON Lines).
    GeminiCli,
    /// Cline task histories and SDK sessions.
    Cline,
    /// GitHub Copilot CLI `events.jsonl`.
    CopilotCli,
    /// Inspect AI eval logs (`.json`, and `.eval` zip archives).
    Inspect,
    /// Harbor ATIF trajectories (`agent/trajectory.json`).
    Atif,
    /// SWE-agent `.traj` trajectories.
    SweAgent,
    /// mini-swe-agent trajectories (current, and legacy bash blocks in text).
    MiniSwe,
    /// OpenHands trajectories (an array of events).
    OpenHands,
    /// LangSmith run trees (`child_runs` nested).
    LangSmith,
    /// Datasets of agent runs, one trajectory per row (SWE-Gym, SWE-smith, Toucan, …).
    Dataset,
}

impl InputFormat {
    /// Every format, in detection order.
    pub const ALL: &'static [InputFormat] = &[
        InputFormat::Native,
        InputFormat::Claude,
        InputFormat::OpenAi,
        InputFormat::Langfuse,
        InputFormat::Otel,
        InputFormat::Codex,
        InputFormat::GeminiCli,
        InputFormat::Cline,
        InputFormat::CopilotCli,
        InputFormat::Inspect,
        InputFormat::Atif,
        InputFormat::SweAgent,
        InputFormat::MiniSwe,
        InputFormat::OpenHands,
        InputFormat::LangSmith,
        InputFormat::Dataset,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Native => "native",
            InputFormat::Claude => "claude",
            InputFormat::OpenAi => "openai",
            InputFormat::Langfuse => "langfuse",
            InputFormat::Otel => "otel",
            InputFormat::Codex => "codex",
            InputFormat::GeminiCli => "gemini-cli",
            InputFormat::Cline => "cline",
            InputFormat::CopilotCli => "copilot-cli",
            InputFormat::Inspect => "inspect",
            InputFormat::Atif => "atif",
            InputFormat::SweAgent => "swe-agent",
            InputFormat::MiniSwe => "mini-swe-agent",
            InputFormat::OpenHands => "openhands",
            InputFormat::LangSmith => "langsmith",
            InputFormat::Dataset => "dataset",
        }
    }

    /// Parse a format name (`openinference` is an alias of `otel`).
    pub fn parse(s: &str) -> Option<InputFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "native" => Some(InputFormat::Native),
            "claude" | "claude-code" => Some(InputFormat::Claude),
            "openai" => Some(InputFormat::OpenAi),
            "langfuse" => Some(InputFormat::Langfuse),
            "otel" | "openinference" | "opentelemetry" => Some(InputFormat::Otel),
            "codex" | "codex-cli" => Some(InputFormat::Codex),
            "gemini-cli" | "gemini" => Some(InputFormat::GeminiCli),
            "cline" => Some(InputFormat::Cline),
            "copilot-cli" | "copilot" => Some(InputFormat::CopilotCli),
            "inspect" | "inspect-ai" | "inspect_ai" => Some(InputFormat::Inspect),
            "atif" | "harbor" => Some(InputFormat::Atif),
            "swe-agent" | "swe_agent" | "sweagent" => Some(InputFormat::SweAgent),
            "mini-swe-agent" | "mini_swe_agent" | "mini" => Some(InputFormat::MiniSwe),
            "openhands" => Some(InputFormat::OpenHands),
            "langsmith" => Some(InputFormat::LangSmith),
            "dataset" => Some(InputFormat::Dataset),
            _ => None,
        }
    }

    fn sniff(self, record: &Value) -> u8 {
        match self {
            InputFormat::Native => native::sniff(record),
            InputFormat::Claude => claude::sniff(record),
            InputFormat::OpenAi => openai::sniff(record),
            InputFormat::Langfuse => langfuse::sniff(record),
            InputFormat::Otel => otel::sniff(record),
            InputFormat::Codex => codex::sniff(record),
            InputFormat::GeminiCli => gemini::sniff(record),
            InputFormat::Cline => cline::sniff(record),
            InputFormat::CopilotCli => copilot::sniff(record),
            InputFormat::Inspect => inspect::sniff(record),
            InputFormat::Atif => atif::sniff(record),
            InputFormat::SweAgent => sweagent::sniff(record),
            InputFormat::MiniSwe => miniswe::sniff(record),
            InputFormat::OpenHands => openhands::sniff(record),
            InputFormat::LangSmith => langsmith::sniff(record),
            InputFormat::Dataset => dataset::sniff(record),
        }
    }
}

impl std::fmt::Display for InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an adapter sends what it reads: traces (one at a time, so JSON Lines can stream) and
/// input issues.
pub trait Emit {
    /// A finished trace.
    fn trace(&mut self, trace: Trace);
    /// A problem with the input; the adapter keeps reading.
    fn issue(&mut self, issue: InputIssue);
    /// A fact about the input worth a line in the report (not a problem).
    fn note(&mut self, _note: String) {}
}

/// Everything read from one input, collected.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The traces, in input order.
    pub traces: Vec<Trace>,
    /// Problems with the input.
    pub issues: Vec<InputIssue>,
    /// Notes about the input.
    pub notes: Vec<String>,
}

impl Emit for Parsed {
    fn trace(&mut self, trace: Trace) {
        self.traces.push(trace);
    }
    fn issue(&mut self, issue: InputIssue) {
        self.issues.push(issue);
    }
    fn note(&mut self, note: String) {
        self.notes.push(note);
    }
}

/// How the input is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// One JSON document (object or array).
    Document,
    /// JSON Lines: one record per line.
    Lines,
}

/// What detection sees: the container and the first records, skimmed.
#[derive(Debug)]
pub struct Head {
    /// The layout.
    pub container: Container,
    /// The first records: a document's top-level object, the elements of a top-level array, or
    /// the first lines.
    pub records: Vec<Value>,
}

/// Number of JSON Lines records detection looks at.
const DETECT_LINES: usize = 8;

/// Decide the format from content. `Err` names what it looked like and the flag to pass.
pub fn detect(head: &Head) -> Result<InputFormat, String> {
    let mut scores: Vec<(InputFormat, u32)> = InputFormat::ALL
        .iter()
        .map(|f| (*f, head.records.iter().map(|r| u32::from(f.sniff(r))).sum()))
        .collect();
    scores.sort_by_key(|s| std::cmp::Reverse(s.1));
    let (best, score) = scores[0];
    if score == 0
        && let Some(what) = openai::not_a_trace(&head.records)
    {
        return Err(format!(
            "this is {what}; lint the agent's transcript instead, or pass `--input-format` if this file is a trace"
        ));
    }
    if score == 0 && looks_like_tools(head) {
        return Err("this is a tools file, not a trace: pass it with `--tools`".to_owned());
    }
    if score == 0
        && let Some(what) = companion(&head.records)
    {
        return Err(format!("this is {what}"));
    }
    if score == 0 {
        let names: Vec<&str> = InputFormat::ALL.iter().map(|f| f.name()).collect();
        return Err(format!(
            "cannot tell the input format: {}; pass `--input-format {}`",
            describe(head),
            names.join("|")
        ));
    }
    let tied: Vec<&str> = scores
        .iter()
        .filter(|(_, s)| *s == score)
        .map(|(f, _)| f.name())
        .collect();
    if tied.len() > 1 {
        return Err(format!(
            "the input fits several formats ({}); pass `--input-format {}` to choose",
            tied.join(", "),
            tied.join("|")
        ));
    }
    Ok(best)
}

/// What a file that goes with a session (an agent's UI log or metadata) is, when it is one.
fn companion(records: &[Value]) -> Option<&'static str> {
    cline::companion(records)
        .or_else(|| claude::companion(records))
        .or_else(|| own_report(records))
}

/// A report tracelint wrote (`--json`, a SARIF log or a JSON Lines stream saved under a walked
/// directory): output of an earlier run, never a trace.
fn own_report(records: &[Value]) -> Option<&'static str> {
    let first = records.first()?.as_object()?;
    let ours = |tool: Option<&Value>| {
        tool.and_then(|t| t.get("name"))
            .and_then(Value::as_str)
            .is_some_and(|n| n == "tracelint")
    };
    // The JSON report and every JSON Lines record carry `version` and `tool`.
    let json = ours(first.get("tool")) && first.contains_key("version");
    if json {
        return Some("a tracelint report, output of an earlier run, not a trace");
    }
    // Any SARIF log (ours or another tool's) is a report (detection reads only a few levels
    // deep, so the driver's name may not be there to check).
    let sarif = first.get("runs").is_some_and(Value::is_array)
        && (first.get("version").and_then(Value::as_str) == Some("2.1.0")
            || first
                .get("$schema")
                .and_then(Value::as_str)
                .is_some_and(|s| s.contains("sarif")));
    sarif.then_some("a SARIF log (a report), not a trace")
}

/// A short description of what the records look like, for detection errors.
fn describe(head: &Head) -> String {
    let container = match head.container {
        Container::Document => "a JSON document",
        Container::Lines => "JSON Lines",
    };
    let keys: Vec<String> = head
        .records
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|m| m.keys().take(6).cloned())
        .take(6)
        .collect();
    if keys.is_empty() {
        format!("it is {container} with no object records")
    } else {
        format!(
            "it is {container} whose records have keys {}",
            keys.iter()
                .map(|k| format!("`{}`", crate::model::location::pointer_token(k)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The body an adapter reads.
pub enum Body<'a> {
    /// A whole JSON document.
    Document(&'a str),
    /// JSON Lines, streamed.
    Lines(&'a mut dyn Iterator<Item = Result<Line, InputIssue>>),
}

/// Run one adapter over a body.
pub fn parse_body(format: InputFormat, body: Body<'_>, input: &InputRef, out: &mut dyn Emit) {
    match (format, body) {
        (InputFormat::Native, Body::Document(text)) => native::parse_document(text, input, out),
        (InputFormat::Native, Body::Lines(lines)) => native::parse_lines(lines, input, out),
        (InputFormat::Claude, Body::Document(text)) => claude::parse_document(text, input, out),
        (InputFormat::Claude, Body::Lines(lines)) => claude::parse_lines(lines, input, out),
        (InputFormat::OpenAi, Body::Document(text)) => openai::parse_document(text, input, out),
        (InputFormat::OpenAi, Body::Lines(lines)) => openai::parse_lines(lines, input, out),
        (InputFormat::Langfuse, Body::Document(text)) => {
            langfuse::parse_document(text, input, out);
        }
        (InputFormat::Langfuse, Body::Lines(lines)) => langfuse::parse_lines(lines, input, out),
        (InputFormat::Otel, Body::Document(text)) => otel::parse_document(text, input, out),
        (InputFormat::Otel, Body::Lines(lines)) => otel::parse_lines(lines, input, out),
        (InputFormat::Codex, Body::Document(text)) => codex::parse_document(text, input, out),
        (InputFormat::Codex, Body::Lines(lines)) => codex::parse_lines(lines, input, out),
        (InputFormat::GeminiCli, Body::Document(text)) => gemini::parse_document(text, input, out),
        (InputFormat::GeminiCli, Body::Lines(lines)) => gemini::parse_lines(lines, input, out),
        (InputFormat::Cline, Body::Document(text)) => cline::parse_document(text, input, out),
        (InputFormat::Cline, Body::Lines(lines)) => cline::parse_lines(lines, input, out),
        (InputFormat::CopilotCli, Body::Document(text)) => {
            copilot::parse_document(text, input, out)
        }
        (InputFormat::CopilotCli, Body::Lines(lines)) => copilot::parse_lines(lines, input, out),
        (InputFormat::Inspect, Body::Document(text)) => inspect::parse_document(text, input, out),
        (InputFormat::Inspect, Body::Lines(lines)) => inspect::parse_lines(lines, input, out),
        (InputFormat::Atif, Body::Document(text)) => atif::parse_document(text, input, out),
        (InputFormat::Atif, Body::Lines(lines)) => atif::parse_lines(lines, input, out),
        (InputFormat::SweAgent, Body::Document(text)) => sweagent::parse_document(text, input, out),
        (InputFormat::SweAgent, Body::Lines(lines)) => sweagent::parse_lines(lines, input, out),
        (InputFormat::MiniSwe, Body::Document(text)) => miniswe::parse_document(text, input, out),
        (InputFormat::MiniSwe, Body::Lines(lines)) => miniswe::parse_lines(lines, input, out),
        (InputFormat::OpenHands, Body::Document(text)) => {
            openhands::parse_document(text, input, out)
        }
        (InputFormat::LangSmith, Body::Document(text)) => {
            langsmith::parse_document(text, input, out);
        }
        (InputFormat::LangSmith, Body::Lines(lines)) => langsmith::parse_lines(lines, input, out),
        (InputFormat::Dataset, Body::Document(text)) => dataset::parse_document(text, input, out),
        (InputFormat::Dataset, Body::Lines(lines)) => dataset::parse_lines(lines, input, out),
        (InputFormat::OpenHands, Body::Lines(lines)) => {
            let mut events = Vec::new();
            for l in lines {
                events.push(l);
            }
            openhands_lines(events, input, out);
        }
    }
}

/// OpenHands events one a line: one trajectory.
fn openhands_lines(lines: Vec<Result<Line, InputIssue>>, input: &InputRef, out: &mut dyn Emit) {
    let mut trace = Trace::new(input.path.clone(), input.clone());
    let mut calls = openhands::Calls::default();
    for line in lines {
        match line {
            Err(issue) => {
                trace.partial = true;
                out.issue(issue);
            }
            Ok(line) => match serde_json::from_str::<&serde_json::value::RawValue>(&line.text) {
                Ok(raw) => {
                    let cur = cursor::Cursor::record(&line.text, line.number);
                    openhands::event(raw, &cur, String::new(), &mut calls, &mut trace);
                }
                Err(e) => {
                    trace.partial = true;
                    json_pos::json_issue(&e, line.number, &input.path, out);
                }
            },
        }
    }
    out.trace(trace);
}

/// How to read one input.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// The format, or `None` to detect it from the content.
    pub format: Option<InputFormat>,
    /// Size limits.
    pub limits: Limits,
    /// Skip (instead of failing on) a file that is a tools file, not a trace: set for files found
    /// by walking a directory.
    pub skip_tools_files: bool,
}

/// What reading one input came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Read as this format (issues, if any, were emitted).
    Read(InputFormat),
    /// A tools file found by a directory walk: skipped.
    SkippedToolsFile,
    /// A file that goes with a session (an agent's UI log or metadata), found by a directory
    /// walk: skipped; the text says what it is.
    SkippedCompanion(&'static str),
    /// Nothing could be read; an issue says why.
    Failed,
}

/// The input error of an empty input (`check` turns it into a note when other inputs are linted).
pub const EMPTY_FILE: &str = "the file is empty: nothing to lint";

/// Does the head look like a tools file (`{"tools": …}`, a `tools/list` reply, an array of tool
/// definitions)?
fn looks_like_tools(head: &Head) -> bool {
    let tool_def = |v: &Value| {
        v.get("name").is_some_and(Value::is_string)
            && ["inputSchema", "input_schema", "parameters"]
                .iter()
                .any(|k| v.get(*k).is_some())
            || v.get("type").and_then(Value::as_str) == Some("function")
                && v.get("function").is_some()
                && v.get("role").is_none()
    };
    // `{"airline": [tools…], "retail": [tools…]}`: named lists of tool definitions.
    let named_lists = |v: &Value| {
        v.as_object().is_some_and(|m| {
            !m.is_empty()
                && m.values().all(|l| {
                    l.as_array()
                        .is_some_and(|a| !a.is_empty() && a.iter().all(tool_def))
                })
        })
    };
    !head.records.is_empty()
        && head.records.iter().all(|r| {
            tool_def(r)
                || named_lists(r)
                || r.get("tools")
                    .is_some_and(|t| t.is_array() || t.is_object())
                    && r.get("steps").is_none()
                    && r.get("messages").is_none()
                || r.get("result").and_then(|x| x.get("tools")).is_some()
        })
}

/// Limits on what one input may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest single record (a JSON Lines line, or a whole JSON document), in bytes.
    pub max_record: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_record: 256 << 20,
        }
    }
}

/// Read one input: decide document vs. JSON Lines, detect the format (unless given), and run
/// the adapter.
pub fn parse_reader<R: BufRead>(
    mut reader: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    let (format, limits) = (opts.format, opts.limits);
    let undetected = |head: &Head, msg: String, out: &mut dyn Emit| {
        if opts.skip_tools_files && looks_like_tools(head) {
            ReadOutcome::SkippedToolsFile
        } else if let (true, Some(what)) = (opts.skip_tools_files, companion(&head.records)) {
            ReadOutcome::SkippedCompanion(what)
        } else {
            out.issue(InputIssue::file(path, msg));
            ReadOutcome::Failed
        }
    };
    let mut first = Vec::new();
    let mut first_truncated = false;
    match read_first_line(
        &mut reader,
        limits.max_record,
        &mut first,
        &mut first_truncated,
    ) {
        Ok(()) => {}
        Err(e) => {
            out.issue(InputIssue::file(path, format!("cannot read: {e}")));
            return ReadOutcome::Failed;
        }
    }
    if inspect::is_zip(&first) && format.is_none_or(|f| f == InputFormat::Inspect) {
        // A zip archive (an Inspect `.eval` log) read from a stream: held in memory, bounded.
        let mut bytes = first;
        let cap = (limits.max_record as u64).saturating_mul(4);
        if let Err(e) = reader
            .take(cap.saturating_sub(bytes.len() as u64) + 1)
            .read_to_end(&mut bytes)
        {
            out.issue(InputIssue::file(path, format!("cannot read: {e}")));
            return ReadOutcome::Failed;
        }
        if bytes.len() as u64 > cap {
            out.issue(InputIssue::file(
                path,
                format!("the archive is larger than the limit of {cap} bytes"),
            ));
            return ReadOutcome::Failed;
        }
        return read_zip(std::io::Cursor::new(bytes), path, opts, out);
    }
    let bom_len = if first.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let first_text = &first[bom_len..];
    let lead = first_text.iter().position(|b| !b.is_ascii_whitespace());
    let is_lines = !first_truncated
        && lead.is_some_and(|i| first_text[i] == b'{')
        && std::str::from_utf8(first_text)
            .ok()
            .is_some_and(|s| serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok());
    if is_lines {
        let rest = LineReader::new(reader, path, limits.max_record).map(|r| {
            r.map(|mut l| {
                l.number += 1;
                l
            })
            .map_err(|mut i| {
                if i.line > 0 {
                    i.line += 1;
                }
                i
            })
        });
        let first_line = LineReader::new(&first[..], path, limits.max_record);
        let mut all = first_line.chain(rest);
        let mut buffered: Vec<Result<Line, InputIssue>> = Vec::new();
        let format = match format {
            Some(f) => f,
            None => {
                for item in all.by_ref() {
                    buffered.push(item);
                    if buffered.iter().filter(|r| r.is_ok()).count() >= DETECT_LINES {
                        break;
                    }
                }
                let records = buffered
                    .iter()
                    .filter_map(|r| r.as_ref().ok())
                    .filter_map(|l| json_pos::skim(&l.text, 4).ok())
                    .collect();
                let head = Head {
                    container: Container::Lines,
                    records,
                };
                match detect(&head) {
                    Ok(f) => f,
                    Err(msg) => return undetected(&head, msg, out),
                }
            }
        };
        let mut scan = empty::Scan::default();
        let mut lines = buffered
            .into_iter()
            .chain(all)
            .inspect(|l| scan.line(l.as_ref().ok()));
        let mut tally = empty::Tally::new(out);
        parse_body(
            format,
            Body::Lines(&mut lines),
            &InputRef {
                path: path.to_owned(),
                format: format.name().to_owned(),
            },
            &mut tally,
        );
        drop(lines);
        tally.finish(path, format, &scan);
        return ReadOutcome::Read(format);
    }
    // A first line past the limit: whether the file is JSON Lines or one document, that line
    // alone is more than may be read.
    if first_truncated {
        out.issue(InputIssue::at(
            path,
            1,
            1,
            format!(
                "line 1 is longer than the limit of {} bytes; raise it with `--max-record-size`",
                limits.max_record
            ),
        ));
        return ReadOutcome::Failed;
    }
    // A whole document: read the rest.
    let mut bytes = first;
    let cap = limits.max_record as u64;
    if let Err(e) = reader
        .take(cap + 1 - (bytes.len() as u64).min(cap))
        .read_to_end(&mut bytes)
    {
        out.issue(InputIssue::file(path, format!("cannot read: {e}")));
        return ReadOutcome::Failed;
    }
    if bytes.len() > limits.max_record {
        out.issue(InputIssue::file(
            path,
            format!(
                "the document is larger than the limit of {} bytes; raise it with `--max-record-size`",
                limits.max_record
            ),
        ));
        return ReadOutcome::Failed;
    }
    let text = match std::str::from_utf8(&bytes[bom_len..]) {
        Ok(t) => t,
        Err(e) => {
            let upto = &bytes[bom_len..bom_len + e.valid_up_to()];
            let line = 1 + memchr::memchr_iter(b'\n', upto).count();
            out.issue(InputIssue::at(
                path,
                u32::try_from(line).unwrap_or(u32::MAX),
                0,
                "invalid UTF-8: the file is not text",
            ));
            return ReadOutcome::Failed;
        }
    };
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        out.issue(InputIssue::file(path, EMPTY_FILE));
        return ReadOutcome::Failed;
    }
    if !trimmed.starts_with(['{', '[']) {
        let (line, col) = first_char_position(text);
        out.issue(InputIssue::at(
            path,
            line,
            col,
            "not JSON: a trace file must hold a JSON object, a JSON array or JSON Lines",
        ));
        return ReadOutcome::Failed;
    }
    let format = match format {
        Some(f) => f,
        None => {
            let top = match json_pos::skim(text, 5).map_err(|e| (first_of_several(text), e)) {
                Ok(v) | Err((Some(v), _)) => v,
                Err((None, e)) => {
                    let (line, col) = json_pos::error_position(&e, 1);
                    out.issue(InputIssue::at(
                        path,
                        line,
                        col,
                        format!("invalid JSON: {}", json_pos::error_message(&e)),
                    ));
                    return ReadOutcome::Failed;
                }
            };
            let records = match top {
                Value::Array(items) => items,
                other => vec![other],
            };
            let head = Head {
                container: Container::Document,
                records,
            };
            match detect(&head) {
                Ok(InputFormat::Cline)
                    if opts.skip_tools_files
                        && head.records.first().is_some_and(cline::is_sdk_metadata)
                        && std::path::Path::new(path)
                            .with_extension("messages.json")
                            .is_file() =>
                {
                    return ReadOutcome::SkippedCompanion(
                        "a Cline session's metadata; its conversation, the `.messages.json` beside it, is linted",
                    );
                }
                Ok(f) => f,
                Err(msg) => return undetected(&head, msg, out),
            }
        }
    };
    let mut tally = empty::Tally::new(out);
    parse_body(
        format,
        Body::Document(text),
        &InputRef {
            path: path.to_owned(),
            format: format.name().to_owned(),
        },
        &mut tally,
    );
    let mut scan = empty::Scan::default();
    scan.document(text);
    tally.finish(path, format, &scan);
    ReadOutcome::Read(format)
}

/// The first of several concatenated JSON documents (the Python console span exporter writes
/// one pretty object per span), skimmed for detection; `None` unless the whole text is such a
/// sequence.
fn first_of_several(text: &str) -> Option<Value> {
    let mut values =
        serde_json::Deserializer::from_str(text).into_iter::<&serde_json::value::RawValue>();
    let first = values.next()?.ok()?;
    let mut more = false;
    for v in values {
        v.ok()?;
        more = true;
    }
    more.then(|| json_pos::skim(first.get(), 5).ok()).flatten()
}

fn first_char_position(text: &str) -> (u32, u32) {
    let offset = text.len() - text.trim_start().len();
    let idx = crate::model::LineIndex::new(text);
    idx.line_col(text, offset)
}

/// Read the first physical line (up to `max` bytes, plus its newline) into `buf`.
fn read_first_line<R: BufRead>(
    reader: &mut R,
    max: usize,
    buf: &mut Vec<u8>,
    truncated: &mut bool,
) -> std::io::Result<()> {
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(());
        }
        let (take, end) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        if end {
            return Ok(());
        }
        if buf.len() > max {
            *truncated = true;
            return Ok(());
        }
    }
}

/// Read one input file. OTel span files — read as `otel`, or recognised as OTLP JSON from their
/// first bytes — are streamed in two passes (`otel::parse_seekable`), so memory follows the
/// largest trace, not the file; everything else goes through `parse_reader`.
pub fn parse_file<R: Read + Seek>(
    mut file: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    let mut head = vec![0; 4096];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                out.issue(InputIssue::file(path, format!("cannot read: {e}")));
                return ReadOutcome::Failed;
            }
        }
    }
    let stream = match opts.format {
        Some(f) => f == InputFormat::Otel,
        None => otel::is_otlp_prefix(&head[..filled]),
    };
    if let Err(e) = file.seek(SeekFrom::Start(0)) {
        out.issue(InputIssue::file(path, format!("cannot read: {e}")));
        return ReadOutcome::Failed;
    }
    if inspect::is_zip(&head[..filled]) && opts.format.is_none_or(|f| f == InputFormat::Inspect) {
        return read_zip(file, path, opts, out);
    }
    if !stream {
        return parse_reader(BufReader::with_capacity(256 << 10, file), path, opts, out);
    }
    let input = InputRef {
        path: path.to_owned(),
        format: InputFormat::Otel.name().to_owned(),
    };
    otel::parse_seekable(file, &input, opts.limits, out);
    ReadOutcome::Read(InputFormat::Otel)
}

/// A zip archive: an Inspect `.eval` log.
fn read_zip<R: Read + Seek>(
    file: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    let input = InputRef {
        path: path.to_owned(),
        format: InputFormat::Inspect.name().to_owned(),
    };
    inspect::parse_zip(file, &input, opts.limits, out);
    ReadOutcome::Read(InputFormat::Inspect)
}

/// Parse a whole input held in memory (library API and tests).
pub fn parse_bytes(
    bytes: &[u8],
    path: &str,
    format: Option<InputFormat>,
) -> (Option<InputFormat>, Parsed) {
    let mut parsed = Parsed::default();
    let opts = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    let f = match parse_reader(bytes, path, &opts, &mut parsed) {
        ReadOutcome::Read(f) => Some(f),
        _ => None,
    };
    (f, parsed)
}

#[cfg(test)]
mod tests;
