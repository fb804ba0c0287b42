//! One chat message → steps, for every role-based shape: OpenAI Chat Completions (`tool_calls`
//! with `arguments` strings parsed and kept raw for R6, `role:"tool"` results by
//! `tool_call_id`, legacy `function_call` + `role:"function"`), ShareGPT (`from`/`value`,
//! `function_call`/`observation` turns) and Anthropic Messages (content blocks, through
//! `common/content.rs`). Legacy function calls carry no id: each gets a synthetic `function_call-N`
//! id, which the next function result takes (that API allowed one call at a time). No error
//! status is read from text.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{Args, CallOrigin, ResultStatus, Role, StepKind, ToolCall, ToolResult};

use crate::adapters::common::args;
use crate::adapters::common::content::{self, Collected, id_of};
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::error_message;

/// Pending legacy calls waiting for their `role:"function"` result.
#[derive(Debug, Default)]
pub struct Legacy {
    pending: Vec<(String, String)>,
    count: u32,
}

impl Legacy {
    /// A fresh id for a legacy call to `name`.
    fn call(&mut self, name: &str) -> String {
        self.count += 1;
        let id = format!("function_call-{}", self.count);
        self.pending.push((name.to_owned(), id.clone()));
        id
    }

    /// The id of the oldest pending call to `name` (or the oldest pending call at all).
    fn result(&mut self, name: Option<&str>) -> Option<String> {
        let i = name
            .and_then(|n| self.pending.iter().position(|(p, _)| p == n))
            .or_else(|| (!self.pending.is_empty()).then_some(0))?;
        Some(self.pending.remove(i).1)
    }
}

#[derive(Deserialize)]
pub(super) struct ChatMsg<'a> {
    #[serde(default)]
    pub(super) role: Option<Value>,
    #[serde(default)]
    pub(super) from: Option<Value>,
    #[serde(default, borrow)]
    pub(super) content: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) value: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) tool_calls: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub(super) function_call: Option<&'a RawValue>,
    #[serde(default)]
    pub(super) tool_call_id: Option<Value>,
    #[serde(default)]
    pub(super) name: Option<Value>,
    #[serde(rename = "_metadata", default)]
    pub(super) metadata: Option<Value>,
}

/// The prefix of the role a converted session gives every message of a sub-agent
/// (`assistant-subagent-<agent id>`, its own role kept in `_metadata.original_role`).
pub const SUBAGENT_ROLE: &str = "assistant-subagent-";

/// The sub-agent a message belongs to, when its role names one.
pub fn subagent_of(raw: &RawValue) -> Option<String> {
    if !may_name_a_subagent(raw.get().as_bytes()) {
        return None;
    }
    #[derive(Deserialize)]
    struct Role {
        #[serde(default)]
        role: Option<Value>,
    }
    let r: Role = serde_json::from_str(raw.get()).ok()?;
    let id = r.role.as_ref()?.as_str()?.strip_prefix(SUBAGENT_ROLE)?;
    (!id.is_empty()).then(|| id.to_owned())
}

/// Could this message's role be a sub-agent's? Only when its text holds `subagent`, or an
/// escape that could spell one of the role's characters (`\u002d`, `\u0061`…`\u007a`): most
/// messages are told apart without reading them.
fn may_name_a_subagent(text: &[u8]) -> bool {
    if memchr::memmem::find(text, b"subagent").is_some() {
        return true;
    }
    memchr::memmem::find_iter(text, b"\\u00").any(|at| {
        let hex = text.get(at + 4..at + 6).unwrap_or_default();
        matches!(hex, [b'2', b'd' | b'D'] | [b'6' | b'7', _])
    })
}

/// Read one role-based message (chat, ShareGPT or Anthropic).
pub fn read_message(
    raw: &RawValue,
    cur: &Cursor<'_>,
    pointer: &str,
    legacy: &mut Legacy,
    out: &mut Collected,
) {
    let msg: ChatMsg<'_> = match serde_json::from_str(raw.get()) {
        Ok(m) => m,
        Err(e) => {
            out.problem(
                cur.at(raw, pointer.to_owned()),
                format!("unreadable message: {}", error_message(&e)),
            );
            return;
        }
    };
    read_parsed(msg, raw, cur, pointer, legacy, out);
}

/// `read_message` of a message already read (`raw` is its text).
pub(super) fn read_parsed(
    msg: ChatMsg<'_>,
    raw: &RawValue,
    cur: &Cursor<'_>,
    pointer: &str,
    legacy: &mut Legacy,
    out: &mut Collected,
) {
    let (role, body, body_key) = match (&msg.role, &msg.from) {
        (Some(Value::String(r)), _) => (r.as_str(), msg.content, "content"),
        (_, Some(Value::String(f))) => (f.as_str(), msg.value.or(msg.content), "value"),
        _ => {
            out.problem(
                cur.at(raw, pointer.to_owned()),
                "a message needs a string `role` (or ShareGPT `from`)",
            );
            return;
        }
    };
    let body_ptr = child(pointer, body_key);
    // A sub-agent's message: its own role is the one it had before the conversion.
    let role = match role.strip_prefix(SUBAGENT_ROLE) {
        Some(_) => {
            let original = msg
                .metadata
                .as_ref()
                .and_then(|m| m.get("original_role"))
                .and_then(Value::as_str);
            match original {
                Some(r @ ("user" | "assistant" | "tool" | "system")) => r,
                _ if msg.tool_calls.is_none() && msg.tool_call_id.is_some() => "tool",
                _ => "assistant",
            }
        }
        None => role,
    };
    match role {
        "system" | "developer" => read_text(body, Role::System, cur, &body_ptr, out),
        "user" | "human" => read_text(body, Role::User, cur, &body_ptr, out),
        "assistant" | "ai" | "model" | "gpt" | "bot" | "chatbot" => {
            let from_content = out.items.len();
            read_text(body, Role::Assistant, cur, &body_ptr, out);
            if let Some(calls) = msg.tool_calls {
                let from_calls = out.items.len();
                read_tool_calls(calls, cur, &child(pointer, "tool_calls"), out);
                drop_repeated_calls(out, from_content, from_calls);
            }
            if let Some(call) = msg.function_call {
                let ptr = child(pointer, "function_call");
                read_function_call(call, cur, &ptr, Some(legacy), out);
            }
        }
        // A converted session's result line: the body is the result block itself.
        "tool" if body.is_some_and(content::is_result_block) => {
            read_text(body, Role::Tool, cur, &body_ptr, out);
        }
        "tool" | "function" | "observation" | "function_response" | "ipython" => {
            let name = msg.name.as_ref().and_then(Value::as_str);
            let call_id = id_of(msg.tool_call_id.as_ref()).or_else(|| legacy.result(name));
            let content =
                content::result_content(body.and_then(|b| serde_json::from_str(b.get()).ok()));
            let at = cur.step(raw, &[call_id.as_deref().unwrap_or("")], pointer.to_owned());
            let mut result = ToolResult::new(call_id, content, ResultStatus::Unknown);
            result.content_recorded = body.is_some();
            out.push(StepKind::ToolResult(result), at);
        }
        // ShareGPT's call turn: the value is a JSON object (or its text) `{name, arguments}`.
        "function_call" | "tool_call" => match body {
            Some(b) => read_function_call(b, cur, &body_ptr, Some(legacy), out),
            None => out.problem(
                cur.at(raw, pointer.to_owned()),
                "a call turn needs a `value`",
            ),
        },
        // Records a CLI keeps beside the conversation, not messages: Kimi CLI's context file
        // interleaves `{"role": "_checkpoint", "id": 3}` and `{"role": "_usage", …}`.
        other if other.starts_with('_') => {}
        other => out.problem(
            cur.at(raw, pointer.to_owned()),
            format!("unknown message role `{other}`"),
        ),
    }
}

/// Some converters write each call twice in one message: in `tool_calls` and again as a
/// content block (`{"type": "tool_use", "tool_call_id": …, "name": …, "arguments": …}`). A
/// content call (items `from_content..from_calls`) that repeats one of `tool_calls` (items
/// from `from_calls` on) — the same id, or, without an id, the same name and arguments — is the
/// same call: the `tool_calls` entry is kept.
fn drop_repeated_calls(out: &mut Collected, from_content: usize, from_calls: usize) {
    let listed: Vec<&ToolCall> = out.items[from_calls..]
        .iter()
        .filter_map(|i| match &i.kind {
            StepKind::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect();
    if listed.is_empty() {
        return;
    }
    // Each `tool_calls` entry stands for one content call at most.
    let mut taken = vec![false; listed.len()];
    let repeats: Vec<bool> = out.items[from_content..from_calls]
        .iter()
        .map(|i| {
            let StepKind::ToolCall(c) = &i.kind else {
                return false;
            };
            let same = |l: &ToolCall| match (&c.call_id, &l.call_id) {
                (Some(a), Some(b)) => a == b,
                // Without an id (or with arguments the block's reader does not know): the
                // same tool, with the same arguments or none read.
                _ => c.name == l.name && (c.args == l.args || c.args.known().is_none()),
            };
            match (0..listed.len()).find(|&k| !taken[k] && same(listed[k])) {
                Some(k) => {
                    taken[k] = true;
                    true
                }
                None => false,
            }
        })
        .collect();
    if !repeats.contains(&true) {
        return;
    }
    let mut k = 0;
    out.items.retain(|_| {
        let i = k;
        k += 1;
        !(i >= from_content && i < from_calls && repeats[i - from_content])
    });
}

fn read_text(
    body: Option<&RawValue>,
    role: Role,
    cur: &Cursor<'_>,
    pointer: &str,
    out: &mut Collected,
) {
    if let Some(b) = body {
        content::read_content(b, role, cur, pointer, out);
    }
}

#[derive(Deserialize)]
struct CallRaw<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    function: Option<&'a RawValue>,
    #[serde(default, borrow)]
    custom: Option<&'a RawValue>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct FunctionRaw<'a> {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default, borrow, alias = "parameters")]
    arguments: Option<&'a RawValue>,
    #[serde(default, borrow)]
    input: Option<&'a RawValue>,
}

/// Read an OpenAI `tool_calls` array.
pub fn read_tool_calls(raw: &RawValue, cur: &Cursor<'_>, pointer: &str, out: &mut Collected) {
    let calls: Vec<&RawValue> = match serde_json::from_str(raw.get()) {
        Ok(c) => c,
        Err(_) if raw.get() == "null" => return,
        Err(_) => {
            out.problem(
                cur.at(raw, pointer.to_owned()),
                "`tool_calls` is not a list",
            );
            return;
        }
    };
    for (i, call_raw) in calls.iter().enumerate() {
        let ptr = child(pointer, i);
        let call: CallRaw<'_> = match serde_json::from_str(call_raw.get()) {
            Ok(c) => c,
            Err(_) => {
                out.problem(
                    cur.at(call_raw, ptr),
                    format!("tool call {i} is not an object"),
                );
                continue;
            }
        };
        let call_id = id_of(call.id.as_ref());
        let (name, args, raw_args) = if let Some(f) = call.function {
            match serde_json::from_str::<FunctionRaw<'_>>(f.get()) {
                Ok(f) => {
                    let (args, raw) = arguments(f.arguments);
                    (f.name, args, raw)
                }
                Err(_) => (None, Args::Unknown("not recorded".into()), None),
            }
        } else if let Some(c) = call.custom {
            let name = serde_json::from_str::<FunctionRaw<'_>>(c.get())
                .ok()
                .and_then(|f| f.name);
            let args = Args::Unknown("a custom tool's free-form input, not JSON arguments".into());
            (name, args, None)
        } else {
            let (args, raw) = arguments(call.arguments);
            (call.name, args, raw)
        };
        let Some(Value::String(name)) = name else {
            out.problem(
                cur.at(call_raw, ptr),
                format!("tool call {i} needs a string `function.name`"),
            );
            continue;
        };
        let at = cur.step(call_raw, &[call_id.as_deref().unwrap_or(""), &name], ptr);
        out.push(
            StepKind::ToolCall(ToolCall {
                call_id,
                name,
                args,
                raw_args,
                origin: CallOrigin::Model,
            }),
            at,
        );
    }
}

/// Read a legacy `function_call` object `{name, arguments}` (or ShareGPT's call turn, whose value
/// may be that object's JSON text). With `legacy`, the call gets a synthetic id its result takes.
pub fn read_function_call(
    raw: &RawValue,
    cur: &Cursor<'_>,
    pointer: &str,
    legacy: Option<&mut Legacy>,
    out: &mut Collected,
) {
    let text_form: Option<String> = if raw.get().starts_with('"') {
        serde_json::from_str(raw.get()).ok()
    } else {
        None
    };
    let inner: Option<Box<RawValue>> = text_form
        .as_deref()
        .and_then(|t| serde_json::from_str::<Box<RawValue>>(t).ok());
    let object = inner.as_deref().unwrap_or(raw);
    let parsed = serde_json::from_str::<FunctionRaw<'_>>(object.get()).ok();
    let Some(f) = parsed else {
        out.problem(
            cur.at(raw, pointer.to_owned()),
            "a `function_call` needs an object `{name, arguments}`",
        );
        return;
    };
    let Some(Value::String(name)) = f.name else {
        out.problem(
            cur.at(raw, pointer.to_owned()),
            "a `function_call` needs a string `name`",
        );
        return;
    };
    let (args, raw_args) = arguments(f.arguments.or(f.input));
    let call_id = legacy.map(|l| l.call(&name));
    let at = if inner.is_some() {
        cur.at(raw, pointer.to_owned())
    } else {
        cur.step(raw, &[&name], pointer.to_owned())
    };
    out.push(
        StepKind::ToolCall(ToolCall {
            call_id,
            name,
            args,
            raw_args,
            origin: CallOrigin::Model,
        }),
        at,
    );
}

/// Arguments as emitted: a string is parsed (and kept raw for R6), an object is taken as is.
pub fn arguments(raw: Option<&RawValue>) -> (Args, Option<String>) {
    let Some(raw) = raw else {
        return (Args::Unknown("not recorded".into()), None);
    };
    if raw.get().starts_with('"') {
        match serde_json::from_str::<String>(raw.get()) {
            Ok(text) => (args::from_text(&text), Some(text)),
            Err(_) => (Args::Unknown("not recorded".into()), None),
        }
    } else {
        let value = serde_json::from_str::<Value>(raw.get()).ok();
        (content::args_owned(value), None)
    }
}
