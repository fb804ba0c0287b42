//! Claude Code's hook protocol (as the 2.1.332 CLI defines it): the event arrives as one JSON
//! object on standard input (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, and per
//! event `tool_name`, `tool_use_id`, `agent_id`, `agent_transcript_path`, `stop_hook_active`);
//! the answer is one JSON object on standard output with exit code 0. After a tool call
//! (`PostToolUse`, `PostToolUseFailure`) `hookSpecificOutput.additionalContext` is text the
//! model reads with the call's result, and `systemMessage` is shown to the user. Before the
//! agent stops (`Stop`, `SubagentStop`) `{"decision": "block", "reason": …}` makes it go on with
//! the reason as its next instruction; `stop_hook_active` says it already went on once because
//! of a Stop hook, and then this hook never blocks again (no loop). Silence is no output at all.
//!
//! The transcript the CLI names has not yet got the result of the call the hook runs after: that
//! result is linted by the next call (or the Stop hook). A tool called inside a sub-agent fires
//! the hook with `agent_id`; its lines are in the sub-agent's own file
//! (`<session dir>/<session_id>/subagents/agent-<agent_id>.jsonl`), which is the one linted.

use std::path::{Path, PathBuf};

use super::{Event, EventKind, HookInput};

/// Read a Claude Code hook event. `Ok(None)` for an event this hook has nothing to do with.
pub(crate) fn event(stdin: &str) -> anyhow::Result<Option<Event>> {
    let input: HookInput = serde_json::from_str(stdin)
        .map_err(|e| anyhow::anyhow!("the hook event on stdin is not Claude Code's JSON: {e}"))?;
    let name = input.hook_event_name.clone().unwrap_or_default();
    let kind = match name.as_str() {
        "PostToolUse" | "PostToolUseFailure" => EventKind::AfterCall,
        "Stop" | "SubagentStop" => EventKind::Stop,
        _ => return Ok(None),
    };
    let main = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    let transcript = match (name.as_str(), &input.agent_transcript_path, &input.agent_id) {
        ("SubagentStop", Some(p), _) if !p.is_empty() => PathBuf::from(p),
        (_, _, Some(agent)) if !agent.is_empty() => match (&main, &input.session_id) {
            (Some(main), Some(session)) => subagent_file(main, session, agent),
            _ => return Ok(None),
        },
        _ => match main {
            Some(p) => p,
            None => anyhow::bail!("the hook event names no `transcript_path`"),
        },
    };
    Ok(Some(Event {
        kind,
        name,
        transcript,
        cwd: input.cwd.filter(|c| !c.is_empty()).map(PathBuf::from),
        stop_hook_active: input.stop_hook_active.unwrap_or(false),
        call_id: input
            .tool_use_id
            .filter(|id| kind == EventKind::AfterCall && !id.is_empty()),
    }))
}

/// Where Claude Code keeps a sub-agent's lines: `<dir>/<session>/subagents/agent-<id>.jsonl`
/// beside the main session file. Names that could leave that folder are not followed.
fn subagent_file(main: &Path, session: &str, agent: &str) -> PathBuf {
    let safe = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect::<String>()
    };
    main.parent()
        .unwrap_or(Path::new("."))
        .join(safe(session))
        .join("subagents")
        .join(format!("agent-{}.jsonl", safe(agent)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::answer;

    #[test]
    fn events_name_the_transcript_to_lint() {
        let e = event(r#"{"session_id":"s1","transcript_path":"/p/s1.jsonl","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(e.kind, EventKind::AfterCall);
        assert_eq!(e.transcript, PathBuf::from("/p/s1.jsonl"));
        // Inside a sub-agent: the sub-agent's own file.
        let e = event(r#"{"session_id":"s1","transcript_path":"/p/s1.jsonl","hook_event_name":"PostToolUseFailure","agent_id":"a9/../x"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(e.transcript, PathBuf::from("/p/s1/subagents/agent-a9x.jsonl"));
        let e = event(r#"{"session_id":"s1","transcript_path":"/p/s1.jsonl","hook_event_name":"SubagentStop","stop_hook_active":true,"agent_id":"a1","agent_transcript_path":"/p/s1/subagents/agent-a1.jsonl"}"#)
            .unwrap()
            .unwrap();
        assert_eq!((e.kind, e.stop_hook_active), (EventKind::Stop, true));
        assert_eq!(e.transcript, PathBuf::from("/p/s1/subagents/agent-a1.jsonl"));
        assert!(event(r#"{"hook_event_name":"SessionStart"}"#).unwrap().is_none());
        assert!(event("not json").is_err());
    }

    #[test]
    fn a_stop_blocks_once_and_silence_is_no_output() {
        let stop = Event {
            kind: EventKind::Stop,
            name: "Stop".into(),
            transcript: PathBuf::new(),
            cwd: None,
            stop_hook_active: false,
            call_id: None,
        };
        let out = answer(&stop, Some("fix it"), Some("fix it"), true).unwrap();
        assert_eq!(
            out,
            r#"{"decision":"block","reason":"fix it","systemMessage":"fix it"}"#
        );
        let again = Event {
            stop_hook_active: true,
            ..stop
        };
        assert_eq!(
            answer(&again, Some("fix it"), Some("fix it"), true).unwrap(),
            r#"{"systemMessage":"fix it"}"#
        );
        assert!(answer(&again, None, None, false).is_none());
    }
}
