//! What a record is, from its top-level fields: a message, an item, a conversation, or a logged
//! request / response body (with its HTTP status, and why a response is a failed model request).

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::responses;

/// The top-level fields that say what a record is. A conversation's list (`messages`, `traj`,
/// `conversations`) is `L`: its raw value, or its items split as the record is read
/// (`Split`, for a record read as a dataset's conversation in one pass).
#[derive(Deserialize, Default)]
#[serde(bound(deserialize = "L: Deserialize<'de> + Default"))]
pub(super) struct Body<'a, L = Option<&'a RawValue>> {
    #[serde(default)]
    pub(super) role: Option<Value>,
    #[serde(default)]
    pub(super) from: Option<Value>,
    #[serde(rename = "type", default)]
    pub(super) kind: Option<Value>,
    #[serde(default)]
    pub(super) messages: L,
    /// A converted session's metadata (`{"session_meta": {"cwd": …}}`).
    #[serde(default, borrow)]
    pub(super) meta: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) traj: L,
    #[serde(default)]
    pub(super) conversations: L,
    #[serde(default, borrow)]
    pub(super) input: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) output: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) choices: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) tools: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) functions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) instructions: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) system: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) request: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) response: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) body: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) model: Option<Value>,
    #[serde(default)]
    pub(super) previous_response_id: Option<Value>,
    #[serde(default)]
    pub(super) question: Option<Value>,
    #[serde(default)]
    pub(super) function: Option<Value>,
    #[serde(default)]
    pub(super) task_id: Option<Value>,
    #[serde(default)]
    pub(super) trial: Option<Value>,
    #[serde(default)]
    pub(super) id: Option<Value>,
    #[serde(default)]
    pub(super) status: Option<Value>,
    #[serde(default)]
    pub(super) status_code: Option<Value>,
    #[serde(default, rename = "statusCode")]
    pub(super) status_code_camel: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<Value>,
}

/// A record's conversation lists, each split into its items.
pub(super) type Split<'a> = Option<Vec<&'a RawValue>>;

impl<L> Body<'_, L> {
    pub(super) fn is_message(&self) -> bool {
        matches!(self.role, Some(Value::String(_)))
            || matches!(self.from, Some(Value::String(_)))
            || matches!(&self.kind, Some(Value::String(k)) if responses::ITEM_TYPES.contains(&k.as_str()))
    }

    /// A dataset's conversation (`Reader::record`): a record that is not a message, a
    /// function-calling benchmark's question, a logged request or response, nor a model's
    /// reply, with a conversation list.
    pub(super) fn is_dataset(&self) -> bool {
        let benchmark_question = self.question.is_some() && self.function.is_some();
        !self.is_message()
            && !benchmark_question
            && self.request.is_none()
            && self.response.is_none()
            && self.model.is_none()
    }
}

impl<'a> Body<'a, Split<'a>> {
    /// `conversation`, its items split.
    pub(super) fn conversation_split(&self) -> Option<(&[&'a RawValue], &'static str)> {
        self.messages
            .as_deref()
            .map(|m| (m, "messages"))
            .or(self.traj.as_deref().map(|t| (t, "traj")))
            .or(self.conversations.as_deref().map(|c| (c, "conversations")))
    }
}

impl Body<'_> {
    pub(super) fn conversation(&self) -> Option<(&RawValue, &'static str)> {
        self.messages
            .map(|m| (m, "messages"))
            .or(self.traj.map(|t| (t, "traj")))
            .or(self.conversations.map(|c| (c, "conversations")))
    }
}

/// The HTTP status a logged request or response records beside its body.
pub(super) fn http_status(wrapper: &Body<'_>) -> Option<u16> {
    [
        &wrapper.status,
        &wrapper.status_code,
        &wrapper.status_code_camel,
    ]
    .into_iter()
    .flatten()
    .find_map(|v| match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
    .and_then(|n| u16::try_from(n).ok())
    .filter(|n| (100..600).contains(n))
}

/// Why a logged response is a failed model request: an HTTP status of 400 or more, or a body
/// that is an error (OpenAI `{"error": {…}}`, Anthropic `{"type": "error", "error": {…}}`).
pub(super) fn failure(status: Option<u16>, body: &Body<'_>) -> Option<String> {
    let message = match &body.error {
        Some(Value::Object(e)) => e
            .get("message")
            .and_then(Value::as_str)
            .map(|m| m.chars().take(200).collect::<String>()),
        Some(Value::String(e)) if !e.is_empty() => Some(e.chars().take(200).collect()),
        _ => None,
    };
    let is_error_body =
        matches!(&body.error, Some(Value::Object(e)) if !e.is_empty()) || message.is_some();
    match (status.filter(|s| *s >= 400), message) {
        (Some(s), Some(m)) => Some(format!("HTTP {s}: {m}")),
        (Some(s), None) => Some(format!("HTTP {s}")),
        (None, Some(m)) => Some(format!("error response: {m}")),
        (None, None) => is_error_body.then(|| "error response".to_owned()),
    }
}
