//! The tool calls of one trace as R4 and R5 compare them: in order, each with its normalised
//! arguments (canonical JSON without volatile keys, `None` when the arguments are not known) and
//! its recorded result (`None` when no result, or no content, was recorded). Built in one pass
//! over the pairing; no rule logic.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::model::{Args, Pairing, Step, ToolCall, ToolResult, Trace};

use super::normalize::canonical_args_into;

/// A call's identity for repeats: tool name and canonical arguments, with its hash computed
/// once (comparisons and maps look at the hash first).
#[derive(Debug, Clone, Eq)]
pub(crate) struct CallKey {
    hash: u64,
    text: String,
}

impl CallKey {
    fn new(name: &str, args: &serde_json::Value) -> Self {
        // Written in one buffer, with room for most calls' arguments at once.
        let mut out = Vec::with_capacity(name.len() + 128);
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        canonical_args_into(args, &mut out);
        // The name and serde_json's output are UTF-8.
        let text = String::from_utf8(out).unwrap_or_default();
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        Self {
            hash: h.finish(),
            text,
        }
    }
}

impl PartialEq for CallKey {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Hash for CallKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// One call as R4/R5 see it.
pub(crate) struct CallRecord<'a> {
    /// The call's step.
    pub(crate) step: &'a Step,
    /// The call.
    pub(crate) call: &'a ToolCall,
    /// `name` + canonical arguments; `None` when the arguments are unknown or malformed.
    pub(crate) key: Option<CallKey>,
    /// The recorded result, when there is one with content.
    pub(crate) result: Option<&'a ToolResult>,
}

/// Every tool call of the trace, in order.
pub(crate) fn records<'a>(trace: &'a Trace, pairing: &Pairing) -> Vec<CallRecord<'a>> {
    let steps = &trace.steps;
    steps
        .iter()
        .filter_map(|step| {
            let call = step.as_call()?;
            let key = match &call.args {
                Args::Known(v) => Some(CallKey::new(&call.name, v)),
                _ => None,
            };
            let result = pairing
                .result_for(step.index)
                .and_then(|i| steps.get(i))
                .and_then(Step::as_result)
                .filter(|r| r.content_recorded);
            Some(CallRecord {
                step,
                call,
                key,
                result,
            })
        })
        .collect()
}
