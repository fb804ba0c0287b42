//! One conversation being assembled from OpenAI-shaped records: plain messages and items are
//! appended; a logged request re-sends the history, so only the part of its messages not already
//! in the conversation is appended (Responses requests with `previous_response_id` send only new
//! items); a response's message or output items follow. Tool definitions a request or response
//! carries (`tools`, legacy `functions`) become the trace's embedded schemas, first declaration
//! of a name kept.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{
    Context, ContextKind, InputRef, Role, SchemaSource, StepKind, ToolSpec, Trace,
};

use crate::adapters::common::content::{self, Collected, Problem};
use crate::adapters::common::cursor::Cursor;
use super::chat::Legacy;
use super::responses;

/// Where schemas taken from a trace are said to come from.
const OPENAI_TOOLS: &str = "embedded in the trace (OpenAI request `tools`)";
const OPENAI_FUNCTIONS: &str = "embedded in the trace (OpenAI request `functions`)";
const ANTHROPIC_TOOLS: &str = "embedded in the trace (Anthropic request `tools`)";

/// One entry of a conversation, still raw.
#[derive(Clone, Copy)]
pub enum Entry<'a> {
    /// A message or Responses item.
    Item(&'a RawValue),
    /// Content that is a system prompt (`instructions`, Anthropic `system`).
    System(&'a RawValue),
    /// Content that is the user's turn (a Responses `input` string).
    User(&'a RawValue),
}

/// A conversation under assembly.
pub struct Conv {
    trace: Trace,
    legacy: Legacy,
    /// One signature per appended entry, to find the part of a re-sent history already read;
    /// none for a conversation read whole (`Conv::whole`), which no history is compared with.
    sigs: Vec<String>,
    signed: bool,
    /// Entries appended.
    entries: usize,
    /// Whether any record fed this conversation.
    pub touched: bool,
    /// The entry holding the first user turn.
    first_user: Option<usize>,
    /// The sub-agents' conversations (`assistant-subagent-<id>` roles), each its own trace, in
    /// the order they first spoke.
    subagents: Vec<(String, Trace, Legacy)>,
}

impl Conv {
    /// An empty conversation, which logged requests may continue (`resent`, `continued_by`).
    pub fn new(run_id: String, input: InputRef) -> Self {
        Self {
            trace: Trace::new(run_id, input),
            legacy: Legacy::default(),
            sigs: Vec::new(),
            signed: true,
            entries: 0,
            touched: false,
            first_user: None,
            subagents: Vec::new(),
        }
    }

    /// An empty conversation that is read whole (a dataset record's message list): no logged
    /// request continues it, so its entries' signatures are not kept.
    pub fn whole(run_id: String, input: InputRef) -> Self {
        Self {
            signed: false,
            ..Self::new(run_id, input)
        }
    }

    /// Count an entry appended, and keep its signature.
    fn counted(&mut self, got: &Collected) {
        if self.signed {
            self.sigs.push(signature(got));
        }
        self.entries += 1;
    }

    /// Append entries as they are (messages of a message list, a response's output).
    pub fn append(
        &mut self,
        entries: &[(Entry<'_>, String)],
        cur: &Cursor<'_>,
        problems: &mut Vec<Problem>,
    ) {
        self.touched = true;
        for (entry, ptr) in entries {
            self.entry(*entry, cur, ptr, problems);
        }
    }

    /// Read one entry into the conversation, or into its sub-agent's.
    fn entry(&mut self, entry: Entry<'_>, cur: &Cursor<'_>, ptr: &str, problems: &mut Vec<Problem>) {
        let agent = match entry {
            Entry::Item(raw) => super::chat::subagent_of(raw),
            _ => None,
        };
        let Some(agent) = agent else {
            let got = read(entry, cur, ptr, &mut self.legacy);
            self.take(got, problems);
            return;
        };
        let i = match self.subagents.iter().position(|(a, _, _)| *a == agent) {
            Some(i) => i,
            None => {
                let run_id = format!("{}/agent-{agent}", self.trace.run_id);
                let trace = Trace::new(run_id, self.trace.source.clone());
                self.subagents.push((agent, trace, Legacy::default()));
                self.subagents.len() - 1
            }
        };
        let got = read(entry, cur, ptr, &mut self.subagents[i].2);
        self.counted(&got);
        let trace = &mut self.subagents[i].1;
        problems.extend(got.problems);
        for item in got.items {
            trace.push(item.kind, item.at, item.meta);
        }
    }

    /// How many of a logged request's entries repeat the conversation so far (its re-sent
    /// history); all of them when the request is `incremental` (it sends only what is new).
    pub fn resent(
        &self,
        entries: &[(Entry<'_>, String)],
        incremental: bool,
        cur: &Cursor<'_>,
    ) -> usize {
        if incremental {
            return 0;
        }
        let mut scratch = Legacy::default();
        entries
            .iter()
            .zip(&self.sigs)
            .take_while(|((entry, ptr), seen)| {
                signature(&read(*entry, cur, ptr, &mut scratch)) == **seen
            })
            .count()
    }

    /// Whether a logged request whose first `resent` entries repeat this conversation continues
    /// it. It does when it re-sends the whole conversation, or rewrites it after the first user
    /// turn (a harness that trims or summarises its history). It starts another run when it
    /// shares less than that, or when its whole history is an earlier part of this one (the
    /// same task started over).
    pub fn continued_by(&self, resent: usize, entries: usize, incremental: bool) -> bool {
        if incremental || self.sigs.is_empty() || resent == self.sigs.len() {
            return true;
        }
        if resent == entries {
            return false;
        }
        resent > self.first_user.unwrap_or(0)
    }

    /// Append a logged request's entries after the `resent` ones already in the conversation.
    pub fn request(
        &mut self,
        entries: &[(Entry<'_>, String)],
        resent: usize,
        cur: &Cursor<'_>,
        problems: &mut Vec<Problem>,
    ) {
        self.touched = true;
        for (entry, ptr) in &entries[resent.min(entries.len())..] {
            self.entry(*entry, cur, ptr, problems);
        }
    }

    /// Record what the run's record keeps outside its messages (a converted session's working
    /// directory), once.
    pub fn context(&mut self, kind: ContextKind, value: String) {
        if !self
            .trace
            .context
            .iter()
            .any(|c| c.kind == kind && c.value == value)
        {
            self.trace.context.push(Context { kind, value });
        }
    }

    /// Record a fact about the run (a failed model request).
    pub fn note(&mut self, note: String) {
        self.touched = true;
        self.trace.add_note(note);
    }

    fn take(&mut self, got: Collected, problems: &mut Vec<Problem>) {
        if self.first_user.is_none()
            && got
                .items
                .iter()
                .any(|i| matches!(&i.kind, StepKind::Message(m) if m.role == Role::User))
        {
            self.first_user = Some(self.entries);
        }
        self.counted(&got);
        problems.extend(got.problems);
        for item in got.items {
            self.trace.push(item.kind, item.at, item.meta);
        }
    }

    /// Take the tool definitions of a request or response (`tools`, or legacy `functions`).
    pub fn tools(&mut self, raw: &RawValue, legacy_functions: bool) {
        let list: Vec<Value> = match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Array(items)) => items,
            // Some datasets store the list as its JSON text.
            Ok(Value::String(s)) => match serde_json::from_str(&s) {
                Ok(Value::Array(items)) => items,
                _ => return,
            },
            _ => return,
        };
        for tool in list {
            let Some((name, schema, source)) = tool_definition(tool, legacy_functions) else {
                continue;
            };
            if !self.trace.embedded_tools.iter().any(|t| t.name == name) {
                let spec = ToolSpec::new(name, schema, SchemaSource(source.to_owned()));
                self.trace.embedded_tools.push(spec);
            }
        }
    }

    /// Mark the trace partial.
    pub fn partial(&mut self) {
        self.trace.partial = true;
    }

    /// The finished traces: the conversation's, then each sub-agent's (with the tool
    /// definitions the conversation carried).
    pub fn finish(self) -> Vec<Trace> {
        let mut out = Vec::with_capacity(1 + self.subagents.len());
        for (_, mut t, _) in self.subagents {
            t.partial = self.trace.partial;
            t.embedded_tools.clone_from(&self.trace.embedded_tools);
            t.attributes.clone_from(&self.trace.attributes);
            t.context.clone_from(&self.trace.context);
            out.push(t);
        }
        out.insert(0, self.trace);
        out
    }

    /// Whether the conversation holds any step.
    pub fn is_empty(&self) -> bool {
        self.trace.steps.is_empty()
    }
}

fn read(entry: Entry<'_>, cur: &Cursor<'_>, ptr: &str, legacy: &mut Legacy) -> Collected {
    let mut got = Collected::default();
    match entry {
        Entry::Item(raw) => responses::read_item(raw, cur, ptr, legacy, &mut got),
        Entry::System(raw) => content::read_content(raw, Role::System, cur, ptr, &mut got),
        Entry::User(raw) => content::read_content(raw, Role::User, cur, ptr, &mut got),
    }
    got
}

/// What an entry says, without where it is: equal for a response's message and the same
/// message re-sent in the next request (which drops fields such as `refusal`). Synthetic legacy
/// call ids are left out, since a re-read numbers them afresh.
fn signature(got: &Collected) -> String {
    let mut sig = Vec::new();
    fn id(id: &Option<String>) -> &str {
        id.as_deref()
            .filter(|i| !i.starts_with("function_call-"))
            .unwrap_or("")
    }
    // Written straight from the entry (no copy of its content): the same JSON array per item a
    // `json!` of these parts would print.
    for item in &got.items {
        let written = match &item.kind {
            StepKind::Message(m) => serde_json::to_writer(&mut sig, &("m", m.role, &m.content)),
            StepKind::ToolCall(c) => serde_json::to_writer(
                &mut sig,
                &("c", id(&c.call_id), &c.name, &c.args, &c.raw_args),
            ),
            StepKind::ToolResult(r) => {
                serde_json::to_writer(&mut sig, &("r", id(&r.call_id), &r.content))
            }
        };
        // Writing to memory fails only for a value JSON cannot hold, which a parsed one never is.
        debug_assert!(written.is_ok());
    }
    String::from_utf8(sig).unwrap_or_default()
}

/// A tool definition in any provider's request shape → (name, schema, source).
pub fn tool_definition(
    tool: Value,
    legacy_functions: bool,
) -> Option<(String, Option<Value>, &'static str)> {
    let Value::Object(mut m) = tool else {
        return None;
    };
    let schema = |v: Option<Value>| v.filter(|s| s.is_object() || s.is_boolean());
    if let Some(Value::Object(mut f)) = m.remove("function") {
        let Some(Value::String(name)) = f.remove("name") else {
            return None;
        };
        return Some((name, schema(f.remove("parameters")), OPENAI_TOOLS));
    }
    let Some(Value::String(name)) = m.remove("name") else {
        return None;
    };
    if let Some(s) = m.remove("input_schema") {
        return Some((name, schema(Some(s)), ANTHROPIC_TOOLS));
    }
    let typed_function = m.get("type").and_then(Value::as_str) == Some("function");
    if legacy_functions || typed_function || m.contains_key("parameters") {
        let source = if legacy_functions {
            OPENAI_FUNCTIONS
        } else {
            OPENAI_TOOLS
        };
        return Some((name, schema(m.remove("parameters")), source));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_definitions_of_every_provider() {
        let params = json!({"type": "object"});
        let got = |v: Value| tool_definition(v, false).map(|(n, s, src)| (n, s.is_some(), src));
        assert_eq!(
            got(json!({"type": "function", "function": {"name": "a", "parameters": params}})),
            Some(("a".into(), true, OPENAI_TOOLS))
        );
        assert_eq!(
            got(json!({"type": "function", "name": "b", "parameters": params})),
            Some(("b".into(), true, OPENAI_TOOLS))
        );
        assert_eq!(
            got(json!({"name": "c", "input_schema": params})),
            Some(("c".into(), true, ANTHROPIC_TOOLS))
        );
        assert_eq!(got(json!({"type": "web_search"})), None);
        assert_eq!(
            tool_definition(json!({"name": "d"}), true).map(|t| t.2),
            Some(OPENAI_FUNCTIONS)
        );
    }

    /// The signature is written straight from the entry, byte for byte what printing a `json!`
    /// array of the same parts gave (the form the re-sent history is compared in).
    #[test]
    fn signatures_are_the_json_arrays_of_each_item() {
        use crate::adapters::common::content::Item;
        use crate::model::{Args, CallOrigin, Location, Message, ResultStatus, Role, ToolCall, ToolResult};
        let call = |id: &str, args: Args, raw: Option<&str>| ToolCall {
            call_id: Some(id.into()),
            name: "get_order".into(),
            args,
            raw_args: raw.map(str::to_owned),
            origin: CallOrigin::Model,
        };
        let kinds = vec![
            StepKind::Message(Message { role: Role::User, content: "order \"7\" ✓\n".into() }),
            StepKind::ToolCall(call("call_1", Args::Known(json!({"z": 1.5, "a": [null, true], "id": "7"})), None)),
            StepKind::ToolCall(call("function_call-3", Args::Malformed("not json".into()), Some("{oops"))),
            StepKind::ToolCall(call("c", Args::Unknown("redacted".into()), None)),
            StepKind::ToolResult(ToolResult::new(Some("call_1".into()), json!({"b": {"y": 2, "x": "é"}}), ResultStatus::default())),
            StepKind::ToolResult(ToolResult::new(None, json!("plain text"), ResultStatus::default())),
        ];
        let got = Collected {
            items: kinds.into_iter().map(|k| Item::new(k, Location::default())).collect(),
            problems: Vec::new(),
        };
        let id = |id: &Option<String>| {
            id.as_deref()
                .filter(|i| !i.starts_with("function_call-"))
                .unwrap_or("")
                .to_owned()
        };
        let mut printed = String::new();
        for item in &got.items {
            let part = match &item.kind {
                StepKind::Message(m) => json!(["m", m.role, m.content]),
                StepKind::ToolCall(c) => json!(["c", id(&c.call_id), c.name, c.args, c.raw_args]),
                StepKind::ToolResult(r) => json!(["r", id(&r.call_id), r.content]),
            };
            printed.push_str(&part.to_string());
        }
        assert_eq!(signature(&got), printed);
        assert!(printed.contains(r#"["c","","get_order",{"state":"malformed","value":"not json"},"{oops"]"#));
    }

    /// A conversation read whole keeps no signatures and reads exactly as one a logged request
    /// could continue: the same traces, sub-agents included, and the same first user turn.
    #[test]
    fn a_conversation_read_whole_reads_as_one_kept_for_requests() {
        use crate::model::{InputRef, LineIndex};
        use serde_json::value::RawValue;
        let text = r#"[
 {"role": "system", "content": "You help."},
 {"role": "assistant-subagent-a1", "content": "I look first."},
 {"role": "user", "content": "Cancel order 7."},
 {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
   "function": {"name": "cancel_order", "arguments": "{\"order_id\": \"7\"}"}}]},
 {"role": "tool", "tool_call_id": "c1", "content": "{\"error\": \"not found\"}"},
 {"role": "assistant-subagent-a1", "content": "Done."},
 {"role": "assistant", "content": "It failed."}
]"#;
        let index = LineIndex::new(text);
        let cur = Cursor::document(text, &index);
        let items: Vec<&RawValue> = serde_json::from_str(text).unwrap();
        let entries: Vec<(Entry<'_>, String)> = items
            .iter()
            .enumerate()
            .map(|(i, raw)| (Entry::Item(raw), format!("/{i}")))
            .collect();
        let input = InputRef {
            path: "t.json".into(),
            format: "openai".into(),
        };
        let read = |mut conv: Conv| {
            let mut problems = Vec::new();
            conv.append(&entries, &cur, &mut problems);
            let kept = (conv.sigs.len(), conv.entries, conv.first_user);
            (format!("{:?}", conv.finish()), problems.len(), kept)
        };
        let (traces, problems, (sigs, entries_new, first_new)) =
            read(Conv::new("r".into(), input.clone()));
        let (whole, whole_problems, (no_sigs, entries_whole, first_whole)) =
            read(Conv::whole("r".into(), input));
        assert_eq!(whole, traces);
        assert_eq!(whole_problems, problems);
        assert_eq!((sigs, no_sigs), (7, 0));
        assert_eq!((entries_new, entries_whole), (7, 7));
        assert_eq!((first_new, first_whole), (Some(2), Some(2)));
        assert!(traces.contains("agent-a1") && traces.contains("cancel_order"));
    }
}
