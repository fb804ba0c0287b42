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

/// Append the steps of `units` (already in trace order) to `trace`. Each unit's arguments and
/// results move into the trace's steps (a unit gives each to one step at most): the units are
/// consumed, and the largest parts of a trace are never held twice.
pub fn assemble(mut units: Vec<Unit>, trace: &mut Trace, policy: Unanswered) {
    let joins = join(&units);
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
    for u in 0..units.len() {
        // The unit assembled now, taken from; the others are only read.
        let (before, rest) = units.split_at_mut(u);
        let Some((unit, after)) = rest.split_first_mut() else {
            break;
        };
        let others = Others { before, after };
        match unit {
            Unit::Llm(llm) => {
                let mut here: HashMap<(u8, String), usize> = HashMap::new();
                for mi in 0..llm.input.len() {
                    let m = &llm.input[mi];
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
                    for ri in 0..llm.input[mi].results.len() {
                        let r = &llm.input[mi].results[ri];
                        let slot = awaiting.iter().position(|(id, name)| match &r.call_id {
                            Some(rid) => rid == id,
                            None => r.name.as_deref() == Some(name.as_str()),
                        });
                        if let Some(slot) = slot {
                            let (id, _) = awaiting.remove(slot);
                            let status = match r.is_error {
                                Some(true) => ResultStatus::Error,
                                Some(false) => ResultStatus::Ok,
                                None => ResultStatus::Unknown,
                            };
                            let content = std::mem::take(&mut llm.input[mi].results[ri].content);
                            let mut result =
                                ToolResult::new(Some(id), content, ResultStatus::Unknown);
                            result.status = status;
                            trace.push(
                                StepKind::ToolResult(result),
                                llm.at.clone(),
                                llm.meta.clone(),
                            );
                        }
                    }
                }
                first_llm = false;
                for mi in 0..llm.output.len() {
                    let m = &llm.output[mi];
                    if !m.text.is_empty() {
                        *seen
                            .entry((role_key(effective_role(m)), m.text.clone()))
                            .or_default() += 1;
                        message(trace, llm, m);
                    }
                    for ci in 0..llm.output[mi].calls.len() {
                        let pos = (u, mi, ci);
                        let call = &llm.output[mi].calls[ci];
                        let tool = joins.by_call.get(&pos).copied();
                        let id = match tool.and_then(|t| others.tool(t)) {
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
                            let call = &mut llm.output[mi].calls[ci];
                            let step = ToolCall {
                                call_id: Some(id),
                                name: call.name.clone(),
                                args: take_args(&mut call.args),
                                raw_args: call.raw.take(),
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
                        others
                            .model_call(pos)
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
                        args: take_args(&mut tool.args),
                        raw_args: tool.raw_args.take(),
                        origin: CallOrigin::ToolRecord,
                    };
                    trace.push(StepKind::ToolCall(step), tool.at.clone(), tool.meta.clone());
                }
                let mut result = std::mem::replace(
                    &mut tool.result,
                    ToolResult::new(None, serde_json::Value::Null, ResultStatus::Unknown),
                );
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

/// A unit's arguments, moved out (a unit gives them to one step only).
fn take_args(args: &mut Args) -> Args {
    std::mem::replace(args, Args::Unknown(String::new()))
}

/// The units around the one being assembled: `before` holds those before it, `after` those
/// after it; indices are the units' own.
struct Others<'a> {
    before: &'a [Unit],
    after: &'a [Unit],
}

impl<'a> Others<'a> {
    fn unit(&self, i: usize) -> Option<&'a Unit> {
        let u = self.before.len();
        match i.cmp(&u) {
            std::cmp::Ordering::Less => self.before.get(i),
            std::cmp::Ordering::Greater => self.after.get(i - u - 1),
            std::cmp::Ordering::Equal => None,
        }
    }

    fn tool(&self, i: usize) -> Option<&'a ToolUnit> {
        match self.unit(i)? {
            Unit::Tool(t) => Some(t),
            Unit::Llm(_) => None,
        }
    }

    fn model_call(
        &self,
        (u, m, c): CallPos,
    ) -> Option<&'a crate::adapters::common::chat::EmittedCall> {
        match self.unit(u)? {
            Unit::Llm(l) => l.output.get(m)?.calls.get(c),
            Unit::Tool(_) => None,
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
