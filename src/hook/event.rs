//! One hook event as the agents' protocols give it, and the answer in their shape: Claude Code
//! and Gemini CLI read a JSON object on stdin and answer with one on stdout, with the same
//! fields (`hookSpecificOutput.additionalContext`, `decision`/`reason`, `systemMessage`); the
//! per-agent details are in `claude`, `gemini` and `codex`.

use std::path::PathBuf;

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// After a tool call (the agent goes on).
    AfterCall,
    /// Before the agent (or a sub-agent) stops, or after a turn (Codex).
    Stop,
}

/// The fields of a Claude Code or Gemini CLI hook event this hook reads (all others are
/// ignored; the sub-agent fields are Claude Code's).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct HookInput {
    #[serde(default)]
    pub(super) session_id: Option<String>,
    #[serde(default)]
    pub(super) transcript_path: Option<String>,
    #[serde(default)]
    pub(super) cwd: Option<String>,
    #[serde(default)]
    pub(super) hook_event_name: Option<String>,
    #[serde(default)]
    pub(super) agent_id: Option<String>,
    #[serde(default)]
    pub(super) agent_transcript_path: Option<String>,
    #[serde(default)]
    pub(super) stop_hook_active: Option<bool>,
    #[serde(default)]
    pub(super) tool_use_id: Option<String>,
}

/// One hook event, as the agent's protocol gave it.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// After a call, or before a stop.
    pub kind: EventKind,
    /// The protocol's name for it (`PostToolUse`, `AfterAgent`, …).
    pub name: String,
    /// The session file to lint.
    pub transcript: PathBuf,
    /// The session's working directory (where `tracelint.toml` is looked for).
    pub cwd: Option<PathBuf>,
    /// The agent already went on once because of a stop hook.
    pub stop_hook_active: bool,
    /// The id of the call the hook runs after, when the session file should already hold it
    /// (Claude Code writes the call's line while it runs the call and its hooks: the hook
    /// waits a moment for it).
    pub call_id: Option<String>,
}

/// The answer to a Claude Code or Gemini CLI hook event (their shapes are the same): what the
/// agent reads (`to_agent`), what only the user sees
/// (`to_user`), and whether the findings block the stop. `None`: say nothing.
pub(crate) fn answer(
    event: &Event,
    to_agent: Option<&str>,
    to_user: Option<&str>,
    blocking: bool,
) -> Option<String> {
    let mut out = serde_json::Map::new();
    match (event.kind, to_agent) {
        (EventKind::AfterCall, Some(text)) => {
            out.insert(
                "hookSpecificOutput".into(),
                serde_json::json!({"hookEventName": event.name, "additionalContext": text}),
            );
        }
        (EventKind::Stop, Some(text)) if blocking && !event.stop_hook_active => {
            out.insert("decision".into(), serde_json::json!("block"));
            out.insert("reason".into(), serde_json::json!(text));
        }
        _ => {}
    }
    if let Some(text) = to_user {
        out.insert("systemMessage".into(), serde_json::json!(text));
    }
    (!out.is_empty()).then(|| serde_json::Value::Object(out).to_string())
}

