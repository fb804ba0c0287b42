//! Input formats → the canonical model. Each format has its own folder (`claude/`, `codex/`,
//! `otel/`, …); the way in from a file or bytes is `input/` (`InputFormat`, content-based
//! detection — never the file name —, and `parse_reader`, which decides between a JSON document
//! and JSON Lines and streams JSON Lines record by record); the pieces the readers share
//! (positions, content, arguments, chat messages, `Emit`) are `common/`. This file hands each
//! format its body. Adapters never see rules, sources or reports; a problem with one record is
//! an `InputIssue`, and the rest is still read.

pub mod antigravity;
pub mod atif;
pub mod claude;
pub mod cline;
pub mod codex;
pub mod common;
pub mod copilot;
pub mod dataset;
pub mod gemini;
pub mod input;
pub mod inspect;
pub mod langfuse;
pub mod langsmith;
pub mod managed;
pub mod miniswe;
pub mod native;
pub mod openai;
pub mod opencode;
pub mod openhands;
pub mod otel;
pub mod pi;
pub mod sweagent;
#[cfg(test)]
mod testing;

use crate::finding::InputIssue;
use crate::model::{InputRef, Trace};

use common::json_pos::{self, Line};

pub use common::body::Body;
pub use common::emit::{Emit, Parsed};
pub use input::detect::{Container, Head, are_tool_definitions, detect};
pub use input::file::{parse_bytes, parse_file};
pub(crate) use input::file::{file_format, load_whole, read_path};
pub use input::format::InputFormat;
pub use crate::inputs::NOT_A_TRACE_NOTE;
pub use common::limits::{EMPTY_FILE, Limits, NOT_A_TRACE};
pub use input::read::{ReadOptions, ReadOutcome, parse_reader};

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
        (InputFormat::OpenCode, Body::Document(text)) => {
            opencode::parse_document(text, input, out);
        }
        (InputFormat::OpenCode, Body::Lines(lines)) => opencode::parse_lines(lines, input, out),
        (InputFormat::Antigravity, Body::Document(text)) => {
            antigravity::parse_document(text, input, out);
        }
        (InputFormat::Antigravity, Body::Lines(lines)) => {
            antigravity::parse_lines(lines, input, out);
        }
        (InputFormat::ManagedAgents, Body::Document(text)) => {
            managed::parse_document(text, input, out);
        }
        (InputFormat::ManagedAgents, Body::Lines(lines)) => {
            managed::parse_lines(lines, input, out);
        }
        (InputFormat::Pi, Body::Document(text)) => pi::parse_document(text, input, out),
        (InputFormat::Pi, Body::Lines(lines)) => pi::parse_lines(lines, input, out),
        (InputFormat::Dataset, Body::Document(text)) => dataset::parse_document(text, input, out),
        (InputFormat::Dataset, Body::Lines(lines)) => dataset::parse_lines(lines, input, out),
        (InputFormat::OpenHands, Body::Lines(lines)) => openhands_lines(lines, input, out),
    }
}

/// OpenHands events one a line: one trajectory.
fn openhands_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
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
                    let cur = common::cursor::Cursor::record(&line.text, line.number);
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

#[cfg(test)]
mod tests;
