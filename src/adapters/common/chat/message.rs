//! The neutral form of a chat conversation: a message (`ChatMessage`) with its text, the calls
//! it emits and the results it carries, which side read it (`Side`), and the decoding of
//! double-encoded JSON strings.

use serde_json::Value;

use crate::model::{Args, Role};


/// One message, whatever shape it came in.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    /// Who wrote it (a Gemini `model` is the assistant, a LangChain `human` the user).
    pub role: Role,
    /// Its text parts, joined with newlines (empty for a call-only turn).
    pub text: String,
    /// Tool calls the message carries (an assistant's requests).
    pub calls: Vec<EmittedCall>,
    /// Tool results the message carries (a `tool` message, Anthropic `tool_result` blocks,
    /// Gemini `function_response` parts, GenAI `tool_call_response` parts).
    pub results: Vec<CarriedResult>,
}

/// A tool call as a model emitted it.
#[derive(Debug, Clone, PartialEq)]
pub struct EmittedCall {
    /// The call id, when recorded.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub args: Args,
    /// The argument text, when the arguments came as a string.
    pub raw: Option<String>,
}

/// A tool result carried inside a message.
#[derive(Debug, Clone, PartialEq)]
pub struct CarriedResult {
    /// The id of the call it answers, when recorded.
    pub call_id: Option<String>,
    /// The tool's name, when recorded.
    pub name: Option<String>,
    /// The result as recorded.
    pub content: Value,
    /// The message's own error flag (Anthropic `is_error`), when present.
    pub is_error: Option<bool>,
}

/// Which side of a model call a value records: a bare string is the user's prompt on the input
/// side and the model's reply on the output side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// What the model was sent.
    Input,
    /// What the model answered.
    Output,
}

/// Decode a string that holds JSON (double-encoded records); `None` when it does not.
pub fn decode_json_string(s: &str) -> Option<Value> {
    let t = s.trim();
    if !(t.starts_with('{') || t.starts_with('[') || t.starts_with('"')) {
        return None;
    }
    serde_json::from_str(t).ok()
}
