//! What a transcript step looks like, apart from how it is read: the sniff, the probe for a
//! `step_index`, a result held for a turn not yet read, and the conversation folder a log is
//! kept in. The trajectory reader asks these without reaching into the transcript reader.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::ToolResult;

/// How strongly a record looks like a transcript step.
pub(super) fn sniff(record: &Value) -> u8 {
    let bare_type = record
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
    let indexed = record.get("step_index").is_some_and(Value::is_u64);
    if bare_type && indexed && record.get("source").is_some_and(Value::is_string) {
        12
    } else {
        0
    }
}

/// Whether a step record is a transcript's (it has a `step_index`).
pub(super) fn is_step(raw: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(default)]
        step_index: Option<Value>,
    }
    serde_json::from_str::<Probe>(raw.get()).is_ok_and(|p| p.step_index.is_some())
}

/// A tool's step read before the turn that asked for it.
pub(super) struct Held {
    pub(super) index: u64,
    pub(super) kind: String,
    pub(super) result: ToolResult,
    pub(super) at: crate::model::Location,
}

/// The conversation id of a log kept in its conversation's folder
/// (`…/brain/<id>/.system_generated/logs/transcript.jsonl`).
pub(super) fn brain_id(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    parts
        .windows(3)
        .find(|w| w[0] == "brain" && w[2] == ".system_generated" && !w[1].is_empty())
        .map(|w| w[1].to_owned())
}
