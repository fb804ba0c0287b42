//! Gemini CLI's hook protocol. Hooks exist from Gemini CLI 0.15 (off unless `tools.enableHooks`
//! is set) and are on by default from 0.24.0. The event arrives as one JSON object on standard
//! input (`session_id`, `transcript_path` — the session's chat recording —, `cwd`,
//! `hook_event_name`, `timestamp`, and per event `tool_name`, `tool_input`, `tool_response`,
//! `stop_hook_active`); the answer is one JSON object on standard output. After a tool call
//! (`AfterTool`) `hookSpecificOutput.additionalContext` is appended to the call's result the
//! model reads (inside `<hook_context>`); after the agent's turn (`AfterAgent`)
//! `{"decision": "block", "reason": …}` sends the reason back to the model as a new request;
//! `stop_hook_active` says it did so once already, and this hook then never blocks again.
//! `systemMessage` is shown to the user. The answer's shape is Claude Code's (`super::answer`).

use std::path::PathBuf;

use super::{Event, EventKind, HookInput};

/// Read a Gemini CLI hook event. `Ok(None)` for an event this hook has nothing to do with (or
/// one without a recording yet).
pub(crate) fn event(stdin: &str) -> anyhow::Result<Option<Event>> {
    let input: HookInput = serde_json::from_str(stdin)
        .map_err(|e| anyhow::anyhow!("the hook event on stdin is not Gemini CLI's JSON: {e}"))?;
    let name = input.hook_event_name.unwrap_or_default();
    let kind = match name.as_str() {
        "AfterTool" => EventKind::AfterCall,
        "AfterAgent" => EventKind::Stop,
        _ => return Ok(None),
    };
    let Some(transcript) = input.transcript_path.filter(|p| !p.is_empty()) else {
        // Chat recording is off: there is no session file to lint.
        return Ok(None);
    };
    Ok(Some(Event {
        kind,
        name,
        transcript: PathBuf::from(transcript),
        cwd: input.cwd.filter(|c| !c.is_empty()).map(PathBuf::from),
        stop_hook_active: input.stop_hook_active.unwrap_or(false),
        // Gemini CLI records a call once it is done: not before this hook.
        call_id: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_tool_and_after_agent_are_read() {
        let e = event(r#"{"session_id":"s","transcript_path":"/h/.gemini/tmp/p/chats/session-1.jsonl","cwd":"/w","hook_event_name":"AfterTool","timestamp":"t","tool_name":"read_file"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(e.kind, EventKind::AfterCall);
        let e = event(r#"{"transcript_path":"/t.jsonl","hook_event_name":"AfterAgent","stop_hook_active":true}"#)
            .unwrap()
            .unwrap();
        assert_eq!((e.kind, e.stop_hook_active), (EventKind::Stop, true));
        assert!(event(r#"{"transcript_path":"","hook_event_name":"AfterTool"}"#).unwrap().is_none());
        assert!(event(r#"{"hook_event_name":"BeforeModel"}"#).unwrap().is_none());
    }
}
