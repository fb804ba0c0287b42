//! Model calls and tool records → trace steps, for the adapters that see an agent as a list of
//! observed units (Langfuse observations, OTel spans): LLM units with their input and output
//! messages, tool units with their own record of one execution. Owns the joining rule (a call
//! the model emitted and the tool's record of running it are one call: joined by call id, else
//! by name in order) and the provenance seed (the first LLM unit's input messages, then only new
//! user/system turns). It knows no input format.

use std::collections::{HashMap, HashSet};

use crate::model::{
    Args, CallOrigin, Location, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall,
    ToolResult, Trace,
};

use crate::adapters::common::chat::ChatMessage;

/// One model call the trace observed.
#[derive(Debug, Clone)]
pub struct LlmUnit {
    /// Where its record begins.
    pub at: Location,
    /// Facts about it (start time, model, span id).
    pub meta: StepMeta,
    /// What the model was sent.
    pub input: Vec<ChatMessage>,
    /// What it answered.
    pub output: Vec<ChatMessage>,
}

/// One tool execution as the tool's own record shows it.
#[derive(Debug, Clone)]
pub struct ToolUnit {
    /// Where its record begins.
    pub at: Location,
    /// Facts about it.
    pub meta: StepMeta,
    /// The tool's name.
    pub name: String,
    /// The call id the record names, if any.
    pub call_id: Option<String>,
    /// An id to pair call and result when nobody recorded one (the span or observation id).
    pub fallback_id: String,
    /// The arguments the record holds.
    pub args: Args,
    /// Their text, when recorded as a string.
    pub raw_args: Option<String>,
    /// The result (its `call_id` is filled in here).
    pub result: ToolResult,
}

/// One observed unit, in trace order.
#[derive(Debug, Clone)]
pub enum Unit {
    /// A model call.
    Llm(LlmUnit),
    /// A tool execution.
    Tool(ToolUnit),
}

/// What to do with a call the model emitted that no tool record answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// Keep it as a call (OTel: an LLM-only instrumentation has no tool spans at all).
    Keep,
    /// Keep it only when the trace has no tool records at all (Langfuse: when tools are
    /// recorded, a model call without a record is an output tool or a framework internal) —
    /// or when its arguments are malformed, which no tool could have run.
    KeepWithoutToolRecords,
}

/// A model call's position: (unit, message, call).
type CallPos = (usize, usize, usize);

/// Append the steps of `units` (already in trace order) to `trace`.
pub fn assemble(units: &[Unit], trace: &mut Trace, policy: Unanswered) {
    let joins = join(units);
    let has_tool_units = units.iter().any(|u| matches!(u, Unit::Tool(_)));
    let keep_unanswered = policy == Unanswered::Keep || !has_tool_units;
    // Ids assigned to emitted calls, and which of them still wait for a result from a message.
    let mut emitted_ids: HashMap<CallPos, String> = HashMap::new();
    let mut awaiting: Vec<(String, String)> = Vec::new(); // (id, name) of calls no tool answers
    let mut called_at_llm: HashSet<usize> = HashSet::new();
    // How often each (role, text) was emitted: a later model call's input is new where it
    // holds a turn more often than emitted so far (a user who says "yes" twice said it twice).
    let mut seen: HashMap<(u8, String), usize> = HashMap::new();
    let mut first_llm = true;
    for (u, unit) in units.iter().enumerate() {
        match unit {
            Unit::Llm(llm) => {
                let mut here: HashMap<(u8, String), usize> = HashMap::new();
                for m in &llm.input {
                    let role = effective_role(m);
                    let key = (role_key(role), m.text.clone());
                    let count = here.entry(key.clone()).or_default();
                    *count += 1;
                    let count = *count;
                    let before = seen.get(&key).copied().unwrap_or(0);
                    let new_turn = matches!(role, Role::User | Role::System) && count > before;
                    if !m.text.is_empty() && (first_llm || new_turn) {
                        seen.insert(key, count.max(before));
                        message(trace, llm, m);
                    }
                    for r in &m.results {
                        let slot = awaiting.iter().position(|(id, name)| match &r.call_id {
                            Some(rid) => rid == id,
                            None => r.name.as_deref() == Some(name.as_str()),
                        });
                        if let Some(slot) = slot {
                            let (id, _) = awaiting.remove(slot);
                            let mut result =
                                ToolResult::new(Some(id), r.content.clone(), ResultStatus::Unknown);
                            result.status = match r.is_error {
                                Some(true) => ResultStatus::Error,
                                Some(false) => ResultStatus::Ok,
                                None => ResultStatus::Unknown,
                            };
                            trace.push(
                                StepKind::ToolResult(result),
                                llm.at.clone(),
                                llm.meta.clone(),
                            );
                        }
                    }
                }
                first_llm = false;
                for (mi, m) in llm.output.iter().enumerate() {
                    if !m.text.is_empty() {
                        *seen
                            .entry((role_key(effective_role(m)), m.text.clone()))
                            .or_default() += 1;
                        message(trace, llm, m);
                    }
                    for (ci, call) in m.calls.iter().enumerate() {
                        let pos = (u, mi, ci);
                        let tool = joins.by_call.get(&pos).copied();
                        let id = match tool.and_then(|t| tool_unit(units, t)) {
                            Some(t) => call
                                .id
                                .clone()
                                .or_else(|| t.call_id.clone())
                                .unwrap_or_else(|| t.fallback_id.clone()),
                            None => call.id.clone().unwrap_or_else(|| synthetic_id(llm, mi, ci)),
                        };
                        let emit_here = match tool {
                            Some(t) if !matches!(call.args, Args::Unknown(_)) => {
                                called_at_llm.insert(t);
                                true
                            }
                            Some(_) => false,
                            None if joins.duplicate.contains(&pos) => false,
                            None => {
                                // Arguments that are not JSON never reach a tool, so no tool
                                // record can answer them: the emission is the only record.
                                let keep_unanswered =
                                    keep_unanswered || matches!(call.args, Args::Malformed(_));
                                if keep_unanswered {
                                    awaiting.push((id.clone(), call.name.clone()));
                                }
                                keep_unanswered
                            }
                        };
                        if emit_here {
                            emitted_ids.insert(pos, id.clone());
                            let step = ToolCall {
                                call_id: Some(id),
                                name: call.name.clone(),
                                args: call.args.clone(),
                                raw_args: call.raw.clone(),
                                origin: CallOrigin::Model,
                            };
                            trace.push(StepKind::ToolCall(step), llm.at.clone(), llm.meta.clone());
                        }
                    }
                }
            }
            Unit::Tool(tool) => {
                let model = joins.by_tool.get(&u).copied();
                let id = match model {
                    Some(pos) => emitted_ids.get(&pos).cloned().unwrap_or_else(|| {
                        model_call(units, pos)
                            .and_then(|c| c.id.clone())
                            .or_else(|| tool.call_id.clone())
                            .unwrap_or_else(|| tool.fallback_id.clone())
                    }),
                    None => tool
                        .call_id
                        .clone()
                        .unwrap_or_else(|| tool.fallback_id.clone()),
                };
                if !called_at_llm.contains(&u) {
                    let step = ToolCall {
                        call_id: Some(id.clone()),
                        name: tool.name.clone(),
                        args: tool.args.clone(),
                        raw_args: tool.raw_args.clone(),
                        origin: CallOrigin::ToolRecord,
                    };
                    trace.push(StepKind::ToolCall(step), tool.at.clone(), tool.meta.clone());
                }
                let mut result = tool.result.clone();
                result.call_id = Some(id);
                trace.push(
                    StepKind::ToolResult(result),
                    tool.at.clone(),
                    tool.meta.clone(),
                );
            }
        }
    }
}

/// A hashable stand-in for a role (the model's `Role` is plain data without `Hash`).
fn role_key(r: Role) -> u8 {
    match r {
        Role::User => 0,
        Role::Assistant => 1,
        Role::System => 2,
        Role::Tool => 3,
    }
}

/// A message that only carries tool results (a Gemini `user` turn of `function_response`
/// parts, an Anthropic `user` turn of `tool_result` blocks) is the tools speaking, not the user.
pub fn effective_role(m: &ChatMessage) -> Role {
    if !m.results.is_empty() && m.calls.is_empty() {
        Role::Tool
    } else {
        m.role
    }
}

fn message(trace: &mut Trace, llm: &LlmUnit, m: &ChatMessage) {
    trace.push(
        StepKind::Message(Message {
            role: effective_role(m),
            content: m.text.clone(),
        }),
        llm.at.clone(),
        llm.meta.clone(),
    );
}

/// An id for a model call nobody gave one, stable for the input: the unit's own id (or
/// position) and the call's place in its output.
fn synthetic_id(llm: &LlmUnit, message: usize, call: usize) -> String {
    let base = llm
        .meta
        .source_id
        .clone()
        .unwrap_or_else(|| format!("{}:{}", llm.at.line, llm.at.column));
    format!("{base}#{message}.{call}")
}

fn tool_unit(units: &[Unit], i: usize) -> Option<&ToolUnit> {
    match units.get(i)? {
        Unit::Tool(t) => Some(t),
        Unit::Llm(_) => None,
    }
}

fn model_call(units: &[Unit], (u, m, c): CallPos) -> Option<&crate::adapters::common::chat::EmittedCall> {
    match units.get(u)? {
        Unit::Llm(l) => l.output.get(m)?.calls.get(c),
        Unit::Tool(_) => None,
    }
}

/// Which model call each tool record answers.
#[derive(Debug, Default)]
struct Joins {
    by_call: HashMap<CallPos, usize>,
    by_tool: HashMap<usize, CallPos>,
    /// Model calls repeating an earlier call's id (a wrapper span echoing its child): dropped.
    duplicate: HashSet<CallPos>,
}

fn join(units: &[Unit]) -> Joins {
    let mut joins = Joins::default();
    let mut calls: Vec<(CallPos, &crate::adapters::common::chat::EmittedCall)> = Vec::new();
    let mut first_by_id: HashMap<&str, CallPos> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        if let Unit::Llm(l) = unit {
            for (mi, m) in l.output.iter().enumerate() {
                for (ci, c) in m.calls.iter().enumerate() {
                    let pos = (u, mi, ci);
                    if let Some(id) = c.id.as_deref() {
                        if first_by_id.contains_key(id) {
                            joins.duplicate.insert(pos);
                            continue;
                        }
                        first_by_id.insert(id, pos);
                    }
                    calls.push((pos, c));
                }
            }
        }
    }
    let tools: Vec<(usize, &ToolUnit)> = units
        .iter()
        .enumerate()
        .filter_map(|(i, u)| match u {
            Unit::Tool(t) => Some((i, t)),
            Unit::Llm(_) => None,
        })
        .collect();
    // By call id.
    for (t, tool) in &tools {
        if let Some(pos) = tool.call_id.as_deref().and_then(|id| first_by_id.get(id)) {
            joins.by_call.insert(*pos, *t);
            joins.by_tool.insert(*t, *pos);
        }
    }
    // By name, in order: the earliest free call of that name before the record, else after it.
    // A call and a record that both carry ids that differ are different calls.
    for (t, tool) in &tools {
        if joins.by_tool.contains_key(t) {
            continue;
        }
        // Arguments that are not JSON never reach a tool: no record is their execution.
        let free = |(pos, c): &&(CallPos, &crate::adapters::common::chat::EmittedCall)| {
            c.name == tool.name
                && !joins.by_call.contains_key(pos)
                && (c.id.is_none() || tool.call_id.is_none())
                && !matches!(c.args, Args::Malformed(_))
        };
        let found = calls
            .iter()
            .filter(|entry| entry.0.0 < *t)
            .find(free)
            .or_else(|| calls.iter().find(free))
            .map(|(pos, _)| *pos);
        if let Some(pos) = found {
            joins.by_call.insert(pos, *t);
            joins.by_tool.insert(*t, pos);
        }
    }
    joins
}

#[cfg(test)]
mod tests;
