//! What a coding agent's own runtime said about a call, read from the result it recorded: it
//! refused the arguments (Claude Code's `InputValidationError`, Codex CLI's "failed to parse
//! function arguments", Gemini CLI's "params must …"), it said the tool does not exist, it ran
//! the call (any other answer: the runtime checks arguments before it asks for permission or
//! runs anything), or there is no verdict to read (no result, or a result the runtime wrote for
//! a call it never reached: an interrupt, a cancelled batch).
//!
//! The texts were read in real sessions and in sessions made by running each CLI against a
//! scripted model (`fixtures/real/{claude-code,codex,gemini-cli}`).

use super::{AGENT_CLAUDE_CODE, AGENT_CODEX, AGENT_GEMINI_CLI, ResultStatus, ToolResult};

/// The source name users write for Claude Code's built-in schemas.
pub const BUILTIN_CLAUDE_CODE: &str = "builtin:claude-code";
/// The source name users write for the Codex CLI's built-in schemas.
pub const BUILTIN_CODEX: &str = "builtin:codex";
/// The source name users write for the Gemini CLI's built-in schemas.
pub const BUILTIN_GEMINI_CLI: &str = "builtin:gemini-cli";

/// The coding agents whose runtime verdicts are read (by their `ATTR_AGENT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// Claude Code.
    ClaudeCode,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    GeminiCli,
}

impl Runtime {
    /// The runtime of the agent a trace's `agent` attribute names, if its verdicts are read.
    pub fn of(agent: Option<&str>) -> Option<Runtime> {
        match agent? {
            AGENT_CLAUDE_CODE => Some(Runtime::ClaudeCode),
            AGENT_CODEX => Some(Runtime::Codex),
            AGENT_GEMINI_CLI => Some(Runtime::GeminiCli),
            _ => None,
        }
    }

    /// The source name of its built-in schemas (`builtin:codex`).
    pub fn builtin_source(self) -> &'static str {
        match self {
            Runtime::ClaudeCode => BUILTIN_CLAUDE_CODE,
            Runtime::Codex => BUILTIN_CODEX,
            Runtime::GeminiCli => BUILTIN_GEMINI_CLI,
        }
    }

    /// Whether a schema source (`builtin:codex@0.171.0 gpt-5.5`) is one of its built-in
    /// captures, not a schema a user gave.
    pub fn is_builtin(self, source: &str) -> bool {
        source
            .strip_prefix(self.builtin_source())
            .is_some_and(|rest| rest.starts_with('@'))
    }
}

/// The runtime's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It refused the arguments; the message it gave.
    Refused(String),
    /// It said the tool does not exist.
    UnknownTool,
    /// It accepted the arguments and ran (or asked to run) the call.
    Ran,
    /// Nothing to judge by: no result, or one written for a call the runtime never reached.
    None,
}

/// How much of a result's text is read: every verdict is said at its start.
const HEAD: usize = 400;

/// The verdict of `agent`'s runtime on a call, from its result (`None`: no result recorded).
pub fn verdict(agent: Runtime, result: Option<&ToolResult>) -> Verdict {
    let Some(r) = result else {
        return Verdict::None;
    };
    let text = head(r);
    let t = text.trim_start();
    match agent {
        Runtime::ClaudeCode => {
            let inner = t.strip_prefix("<tool_use_error>").unwrap_or(t).trim_start();
            if inner.starts_with("InputValidationError") {
                Verdict::Refused(message(inner))
            } else if inner.starts_with("Error: No such tool available")
                || inner.starts_with("No such tool available")
            {
                Verdict::UnknownTool
            } else if inner.starts_with("[Request interrupted by user")
                || inner.starts_with("Sibling tool call errored")
                || inner.starts_with("Interrupted by user")
                || inner.starts_with("Cancelled: parallel tool call")
            {
                Verdict::None
            } else {
                Verdict::Ran
            }
        }
        Runtime::Codex => {
            if t.starts_with("failed to parse function arguments") {
                Verdict::Refused(message(t))
            } else if t.starts_with("unsupported call") || t.starts_with("unsupported custom tool call")
            {
                Verdict::UnknownTool
            } else if t == "aborted" || t.starts_with("aborted by user") {
                Verdict::None
            } else {
                Verdict::Ran
            }
        }
        Runtime::GeminiCli => {
            if t.starts_with("params must") || t.starts_with("params/") {
                Verdict::Refused(message(t))
            } else if t.starts_with("Tool \"") && t.contains("\" not found") {
                Verdict::UnknownTool
            } else if r.status == ResultStatus::Error
                && (t == "cancelled" || t.starts_with("[Operation Cancelled]"))
            {
                Verdict::None
            } else {
                Verdict::Ran
            }
        }
    }
}

/// The first line of a refusal, bounded.
fn message(t: &str) -> String {
    let line = t
        .split("\\n")
        .next()
        .unwrap_or(t)
        .lines()
        .next()
        .unwrap_or(t)
        .trim_end_matches("</tool_use_error>")
        .trim();
    let mut out: String = line.chars().take(200).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

/// The start of a result's text: its error, else its content (a string, or the text of its
/// first text block).
fn head(r: &ToolResult) -> String {
    let s: &str = if let Some(e) = &r.error {
        e
    } else {
        match &r.content {
            serde_json::Value::String(s) => s,
            serde_json::Value::Array(items) => items
                .iter()
                .find_map(|i| i.get("text").and_then(serde_json::Value::as_str).or(i.as_str()))
                .unwrap_or(""),
            serde_json::Value::Object(o) => o
                .get("output")
                .or_else(|| o.get("error"))
                .or_else(|| o.get("text"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or(""),
            _ => "",
        }
    };
    let mut end = s.len().min(HEAD);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(content: serde_json::Value, status: ResultStatus, error: Option<&str>) -> ToolResult {
        let mut r = ToolResult::new(Some("c".into()), content, status);
        r.error = error.map(str::to_owned);
        r
    }

    #[test]
    fn each_runtime_s_refusals_and_answers() {
        let cases: &[(Runtime, ToolResult, Verdict)] = &[
            (
                Runtime::ClaudeCode,
                result(
                    json!("<tool_use_error>InputValidationError: EnterPlanMode failed due to the following issue:\nAn unexpected parameter `reason` was provided</tool_use_error>"),
                    ResultStatus::Error,
                    None,
                ),
                Verdict::Refused("InputValidationError: EnterPlanMode failed due to the following issue:".into()),
            ),
            (
                Runtime::ClaudeCode,
                result(json!([{"type": "text", "text": "Monitor started (task b1)"}]), ResultStatus::Unknown, None),
                Verdict::Ran,
            ),
            (
                Runtime::ClaudeCode,
                result(json!("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"), ResultStatus::Error, None),
                Verdict::Ran,
            ),
            (
                Runtime::ClaudeCode,
                result(json!("<tool_use_error>Error: No such tool available: Frob</tool_use_error>"), ResultStatus::Error, None),
                Verdict::UnknownTool,
            ),
            (
                Runtime::ClaudeCode,
                result(json!("[Request interrupted by user for tool use]"), ResultStatus::Error, None),
                Verdict::None,
            ),
            (
                Runtime::Codex,
                result(json!("failed to parse function arguments: missing field `cmd` at line 1 column 2"), ResultStatus::Unknown, None),
                Verdict::Refused("failed to parse function arguments: missing field `cmd` at line 1 column 2".into()),
            ),
            (
                Runtime::Codex,
                result(json!("unsupported call: frobnicate"), ResultStatus::Unknown, None),
                Verdict::UnknownTool,
            ),
            (
                Runtime::Codex,
                result(json!({"output": "Exit code: 0\nhello"}), ResultStatus::Ok, None),
                Verdict::Ran,
            ),
            (
                Runtime::GeminiCli,
                result(json!(null), ResultStatus::Error, Some("params must have required property 'file_path'")),
                Verdict::Refused("params must have required property 'file_path'".into()),
            ),
            (
                Runtime::GeminiCli,
                result(json!(null), ResultStatus::Error, Some("params/command must be string")),
                Verdict::Refused("params/command must be string".into()),
            ),
            (
                Runtime::GeminiCli,
                result(json!(null), ResultStatus::Error, Some("Tool \"no_such_tool\" not found. Did you mean one of: \"write_todos\"?")),
                Verdict::UnknownTool,
            ),
            (
                Runtime::GeminiCli,
                result(json!(null), ResultStatus::Error, Some("cancelled")),
                Verdict::None,
            ),
            (
                Runtime::GeminiCli,
                result(json!(null), ResultStatus::Error, Some("File not found: /x")),
                Verdict::Ran,
            ),
        ];
        for (agent, r, want) in cases {
            assert_eq!(&verdict(*agent, Some(r)), want, "{agent:?} {r:?}");
        }
        assert_eq!(verdict(Runtime::Codex, None), Verdict::None);
    }
}
