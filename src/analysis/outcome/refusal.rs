//! A result that records a refusal: the user, or a permission system acting for them, declined
//! the call before it ran (Claude Code's "The user doesn't want to proceed with this tool use",
//! Gemini CLI's "User did not allow tool call", Codex's "exec command rejected by user", a
//! policy engine's "denied by policy"). Nothing ran, so no value came out of it, and an agent
//! that stops after it is doing what it was told. Read from the start of the result's text (its
//! error message first): a refusal is the whole message, not a phrase quoted deep in a file.

use serde_json::Value;

use crate::model::ToolResult;

/// Bytes of a result's text looked at.
const HEAD: usize = 600;

/// Phrases of a refusal, lower case. Plain "permission denied" is not one: it is what the
/// operating system says about a file, a failure of a call that ran.
const PHRASES: &[&str] = &[
    "the user doesn't want to proceed with this tool use",
    "the user doesn't want to take this action",
    "user rejected this tool use",
    "tool use was rejected",
    "user did not allow tool call",
    "user denied this",
    "user declined",
    "rejected by user",
    "rejected by the user",
    "denied by the user",
    "denied by user",
    "denied by policy",
    "blocked by policy",
    "has been denied",
    "you haven't granted it yet",
];

/// Does the result record that the call was refused before it ran?
pub(crate) fn refused(result: &ToolResult) -> bool {
    if result.error.as_deref().is_some_and(says_refused) {
        return true;
    }
    match &result.content {
        Value::String(s) => says_refused(s),
        Value::Array(items) => items.iter().take(4).any(|v| match v {
            Value::String(s) => says_refused(s),
            Value::Object(o) => o.get("text").and_then(Value::as_str).is_some_and(says_refused),
            _ => false,
        }),
        Value::Object(o) => ["error", "message", "output", "text", "content", "reason"]
            .iter()
            .filter_map(|k| o.get(*k).and_then(Value::as_str))
            .any(says_refused),
        _ => false,
    }
}

/// Does this text (its head) say the call was refused?
pub(crate) fn says_refused(text: &str) -> bool {
    let mut end = text.len().min(HEAD);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = text[..end].to_ascii_lowercase().replace('\u{2019}', "'");
    PHRASES.iter().any(|p| head.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ResultStatus;

    fn result(content: Value) -> ToolResult {
        ToolResult::new(None, content, ResultStatus::Error)
    }

    #[test]
    fn refusals_of_each_agent_are_told_from_failures() {
        let refusals = [
            Value::String("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.".into()),
            serde_json::json!({"error": "[Operation Cancelled] Reason: User did not allow tool call"}),
            Value::String("exec command rejected by user".into()),
            Value::String("Tool execution denied by policy.".into()),
            serde_json::json!([{"type": "text", "text": "Permission to use Bash with command rm -rf build has been denied."}]),
        ];
        for c in refusals {
            assert!(refused(&result(c.clone())), "{c}");
        }
        let failures = [
            Value::String("cat: /etc/shadow: Permission denied".into()),
            Value::String("Error: file not found".into()),
            serde_json::json!({"error": "HTTP 403 Forbidden"}),
        ];
        for c in failures {
            assert!(!refused(&result(c.clone())), "{c}");
        }
        // A phrase deep inside a long output (a file that quotes it) is not a refusal.
        let long = format!("{}rejected by user", "x".repeat(2 * HEAD));
        assert!(!refused(&result(Value::String(long))));
    }
}
