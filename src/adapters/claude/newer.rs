//! What Claude Code's newer versions (2.1.68 and later) add to a session, read here so the rest
//! of the reader stays as it was: results too large for the session stored in a `tool-results/`
//! folder beside it (the session keeps a `<persisted-output>` preview naming the file: the
//! file is read when it is there, and the report says which were not), server tools the API
//! runs (`server_tool_use`, ids `srvtoolu_…`: declared by the session itself, so their calls are
//! never unknown tools), and a sub-agent's `agent-<id>.meta.json` beside its file (its
//! description and the call that started it), which is not a conversation itself.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::model::{InputRef, SchemaSource, StepKind, ToolSpec, Trace};

use crate::adapters::Emit;
use crate::adapters::common::content::Collected;

/// Where the names of the server tools a session called are said to come from.
pub const SERVER_TOOLS_SOURCE: &str = "embedded in the trace (a server tool the model's API ran)";

/// Largest stored result read.
const MAX_STORED: u64 = 64 << 20;

/// What a session's newer records added, gathered while reading.
#[derive(Debug, Default)]
pub(super) struct Extras {
    server_tools: BTreeSet<String>,
    read_stored: usize,
    missing_stored: Vec<String>,
}

impl Extras {
    /// Look at one record's steps: read stored results, note server tools.
    pub(super) fn record(&mut self, got: &mut Collected, input: &InputRef, session: Option<&str>) {
        for item in &mut got.items {
            match &mut item.kind {
                StepKind::ToolCall(c)
                    if c.call_id
                        .as_deref()
                        .is_some_and(|i| i.starts_with("srvtoolu_")) =>
                {
                    self.server_tools.insert(c.name.clone());
                }
                StepKind::ToolResult(r) => {
                    let Some(named) = r.content.as_str().and_then(stored_path) else {
                        continue;
                    };
                    match find_stored(named, input, session) {
                        Some(text) => {
                            r.content = Value::String(text);
                            self.read_stored += 1;
                        }
                        None => self.missing_stored.push(named.to_owned()),
                    }
                }
                _ => {}
            }
        }
    }

    /// Put what was gathered into a trace of the session.
    pub(super) fn apply(&self, trace: &mut Trace) {
        for name in &self.server_tools {
            trace.embedded_tools.push(ToolSpec::new(
                name.clone(),
                None,
                SchemaSource(SERVER_TOOLS_SOURCE.to_owned()),
            ));
        }
    }

    /// The notes for the report.
    pub(super) fn notes(&self, out: &mut dyn Emit) {
        if self.read_stored > 0 {
            out.note(format!(
                "{} result{} stored outside the session (`tool-results/`) read from {}",
                self.read_stored,
                if self.read_stored == 1 { "" } else { "s" },
                if self.read_stored == 1 {
                    "its file"
                } else {
                    "their files"
                }
            ));
        }
        if let Some(first) = self.missing_stored.first() {
            out.note(format!(
                "{} result{} stored outside the session not found (`{first}`{}): only the preview the session keeps is read",
                self.missing_stored.len(),
                if self.missing_stored.len() == 1 { "" } else { "s" },
                if self.missing_stored.len() > 1 { " and others" } else { "" }
            ));
        }
    }
}

/// The file a `<persisted-output>` preview names (`Full output saved to: PATH`).
fn stored_path(content: &str) -> Option<&str> {
    if !content.starts_with("<persisted-output>") {
        return None;
    }
    let rest = &content[content.find("saved to: ")? + "saved to: ".len()..];
    let path = rest.split(['\n', ' ']).next()?.trim();
    (!path.is_empty()).then_some(path)
}

/// Read a stored result: at the path the session names (when it is in a `tool-results/`
/// folder), else in the `tool-results/` folder of this session beside the file being read (the
/// session was copied elsewhere).
fn find_stored(named: &str, input: &InputRef, session: Option<&str>) -> Option<String> {
    let file = Path::new(named).file_name()?;
    let here = Path::new(&input.path)
        .parent()
        .unwrap_or_else(|| Path::new(""));
    // Only where Claude Code stores results: a session (a pull request can add one) naming
    // `~/.ssh/id_rsa` or `/etc/shadow` must not get that file read into a report.
    let mut candidates = Vec::new();
    if Path::new(named).parent().and_then(Path::file_name) == Some("tool-results".as_ref()) {
        candidates.push(PathBuf::from(named));
    }
    if let Some(sid) = session {
        candidates.push(here.join(sid).join("tool-results").join(file));
    }
    // A sub-agent's file sits in `<session>/subagents/`.
    if let Some(up) = here.parent() {
        candidates.push(up.join("tool-results").join(file));
    }
    candidates.iter().find_map(|p| read_bounded(p).ok())
}

fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    // A path a session names may be anything: never a pipe (a wait) or a device (endless).
    crate::inputs::open(path, crate::inputs::Pipes::Refuse)?
        .take(MAX_STORED)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// A sub-agent's metadata beside its file (`agent-<id>.meta.json` for `agent-<id>.jsonl`): the
/// attributes it gives (the call that started it, its description and type).
pub(super) fn sub_agent_meta(input: &InputRef) -> Vec<(String, String)> {
    let Some(stem) = input.path.strip_suffix(".jsonl") else {
        return Vec::new();
    };
    let Ok(text) = read_bounded(Path::new(&format!("{stem}.meta.json"))) else {
        return Vec::new();
    };
    let Ok(meta) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    [
        ("parent_tool_use_id", "toolUseId"),
        ("agent_description", "description"),
        ("agent_type", "agentType"),
    ]
    .iter()
    .filter_map(|(attr, key)| {
        let v = meta.get(*key)?.as_str()?;
        Some(((*attr).to_owned(), v.to_owned()))
    })
    .collect()
}

/// What a Claude Code companion file is (not a conversation).
pub fn companion(records: &[Value]) -> Option<&'static str> {
    let first = records.first()?.as_object()?;
    (first.contains_key("agentType")
        && (first.contains_key("toolUseId") || first.contains_key("spawnDepth")))
    .then_some(
        "Claude Code's sub-agent metadata (`agent-<id>.meta.json`), not a conversation: lint the `agent-<id>.jsonl` beside it",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::testing::{counted, counts, misplaced_steps};
    use crate::adapters::{InputFormat, parse_bytes};

    /// The real Claude Code 2.1.332 session in `fixtures/real/claude-code-2.1.332/` (made with
    /// `scripts/make-session claude-code`, its prompt text removed), read by its path from the
    /// crate's root so the folders beside it are found.
    const ROOT: &str = "fixtures/real/claude-code-2.1.332";
    const SESSION: &str = "8c2fe29d-4fb3-446a-90f0-e1d1416fe640";

    fn read(path: &str) -> (crate::adapters::Parsed, String) {
        let text = std::fs::read_to_string(path).unwrap();
        let (format, parsed) = parse_bytes(text.as_bytes(), path, None);
        assert_eq!(format, Some(InputFormat::Claude), "{path}");
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        (parsed, text)
    }

    #[test]
    fn a_newer_session_reads_as_completely_as_older_ones() {
        let (parsed, text) = read(&format!("{ROOT}/{SESSION}.jsonl"));
        assert_eq!(
            parsed.traces.len(),
            1,
            "no mirrors: the sub-agent has its own file"
        );
        let t = &parsed.traces[0];
        // Counted from the raw lines: `Agent`, two `Bash`, the server tool `advisor`; the
        // wrong-typed `Bash` (`is_error`) and the advisor's `advisor_tool_result_error` failed.
        assert_eq!(counts(t), counted(4, 4, 2, 0));
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("claude-code"));
        assert_eq!(
            t.attribute(crate::model::ATTR_CLAUDE_CODE_VERSION),
            Some("2.1.332")
        );
        // The stored result is read from `tool-results/` (the path the session names is gone).
        let numbers = t
            .steps
            .iter()
            .filter_map(|s| s.as_result())
            .find_map(|r| r.content.as_str().filter(|c| c.starts_with("1\n2\n")))
            .expect("the stored output");
        assert!(
            numbers.trim_end().ends_with("30000"),
            "{}",
            &numbers[numbers.len() - 20..]
        );
        assert!(
            parsed
                .notes
                .iter()
                .any(|n| n.contains("1 result stored outside the session"))
        );
        // The advisor is a server tool the session declares.
        let server: Vec<&str> = t
            .embedded_tools
            .iter()
            .filter(|s| s.source.0 == SERVER_TOOLS_SOURCE)
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(server, ["advisor"]);
        let advisor = t
            .steps
            .iter()
            .filter_map(|s| s.as_result())
            .find(|r| r.call_id.as_deref() == Some("srvtoolu_01"))
            .unwrap();
        assert_eq!(advisor.error.as_deref(), Some("unavailable"));
    }

    #[test]
    fn a_sub_agent_file_takes_its_metadata() {
        let path = format!("{ROOT}/{SESSION}/subagents/agent-a52f6821ed11f13eb.jsonl");
        let (parsed, text) = read(&path);
        let t = &parsed.traces[0];
        assert_eq!(counts(t), counted(2, 2, 1, 0));
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        assert_eq!(t.attribute("parent_tool_use_id"), Some("toolu_1_0"));
        assert_eq!(t.attribute("agent_description"), Some("Read the notes"));
        assert_eq!(t.attribute("agent_type"), Some("general-purpose"));
        // The metadata alone is named as what it is.
        let meta = format!("{ROOT}/{SESSION}/subagents/agent-a52f6821ed11f13eb.meta.json");
        let (format, parsed) = parse_bytes(&std::fs::read(&meta).unwrap(), &meta, None);
        assert_eq!(format, None);
        assert!(
            parsed.issues[0].message.contains("sub-agent metadata"),
            "{}",
            parsed.issues[0]
        );
    }

    #[test]
    fn a_missing_stored_result_keeps_its_preview_and_says_so() {
        let text = std::fs::read_to_string(format!("{ROOT}/{SESSION}.jsonl")).unwrap();
        // Elsewhere, with no `tool-results/` beside it.
        let (_, parsed) = parse_bytes(text.as_bytes(), "copied/session.jsonl", None);
        assert!(
            parsed
                .notes
                .iter()
                .any(|n| n.contains("1 result stored outside the session not found")),
            "{:?}",
            parsed.notes
        );
        let preview = parsed.traces[0]
            .steps
            .iter()
            .filter_map(|s| s.as_result())
            .find_map(|r| {
                r.content
                    .as_str()
                    .filter(|c| c.starts_with("<persisted-output>"))
            });
        assert!(preview.is_some());
    }

    #[test]
    fn stored_result_paths() {
        let c = "<persisted-output>\nOutput too large (164.9KB). Full output saved to: /h/.claude/projects/p/s/tool-results/b1.txt\n\nPreview (first 2KB):\n1\n";
        assert_eq!(
            stored_path(c),
            Some("/h/.claude/projects/p/s/tool-results/b1.txt")
        );
        assert_eq!(stored_path("plain output saved to: x"), None);
    }
}
