//! One Claude Code record as serde reads it (`Record`), borrowed from the line: the fields the
//! session reader looks at, in every release's spelling.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The fields of a record that say where it belongs and what it holds. Large payloads stay
/// borrowed `RawValue`s, read only when needed; the `message` is its raw value, or `M` as read
/// in the same pass (`MsgBlocks`: its content's blocks split).
#[derive(Deserialize)]
#[serde(bound(deserialize = "M: Deserialize<'de>"))]
pub(super) struct Record<'a, M = &'a RawValue> {
    #[serde(rename = "type", default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) subtype: Option<String>,
    #[serde(rename = "isSidechain", default)]
    pub(super) is_sidechain: Option<bool>,
    #[serde(rename = "agentId", default)]
    pub(super) agent_id: Option<String>,
    #[serde(rename = "sessionId", default)]
    pub(super) session_id: Option<String>,
    #[serde(rename = "session_id", default)]
    pub(super) session_id_snake: Option<String>,
    #[serde(default)]
    pub(super) uuid: Option<String>,
    #[serde(rename = "parentUuid", default)]
    pub(super) parent_uuid: Option<String>,
    #[serde(default)]
    pub(super) timestamp: Option<String>,
    #[serde(default)]
    pub(super) version: Option<String>,
    #[serde(default)]
    pub(super) claude_code_version: Option<String>,
    /// The session's working directory, on every line (and in a stream-json `system/init`).
    #[serde(default)]
    pub(super) cwd: Option<String>,
    #[serde(rename = "gitBranch", default)]
    pub(super) git_branch: Option<String>,
    /// The session's plan name (v2.1.5x+): its plan file is `~/.claude/plans/<slug>.md`, a path
    /// Claude Code gives the agent in plan mode.
    #[serde(default)]
    pub(super) slug: Option<String>,
    #[serde(default)]
    pub(super) model: Option<String>,
    #[serde(default)]
    pub(super) message: Option<M>,
    #[serde(default, borrow)]
    pub(super) content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) data: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) parent_tool_use_id: Option<String>,
    #[serde(rename = "parentToolUseID", default)]
    pub(super) parent_tool_use_id_camel: Option<String>,
    #[serde(default, borrow)]
    pub(super) tools: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) result: Option<Value>,
    #[serde(default, borrow)]
    pub(super) tool_calls: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) function_call: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) name: Option<Value>,
    #[serde(default, borrow)]
    pub(super) input: Option<&'a RawValue>,
    /// What Claude Code adds to the user's turn (`type: attachment`): an IDE selection or open
    /// file, an @-mentioned file, a queued prompt or a background task's result, a hook's
    /// context.
    #[serde(default, borrow)]
    pub(super) attachment: Option<&'a RawValue>,
}
