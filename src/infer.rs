//! Inferring tool schemas from what agents actually sent (SPEC §7): per tool, the union of the
//! argument keys of its calls; a key is required iff every call (every object at that place)
//! has it; JSON types merged (integer + number → number, several → a type list); nested objects
//! and array items inferred recursively to a bounded depth; a string gets an enum only when its
//! values repeat (at least `ENUM_MIN_VALUES` of them, at most half as many distinct ones, and no
//! more than N); every object closed with `additionalProperties: false`. Every constraint
//! written carries `"x-tracelint-inferred": true` (R1 reads a violation of one as a candidate,
//! never a hard defect, until a person removes the marker). A call whose result failed or
//! records a refusal teaches nothing: the runtime did not accept it. The result is an
//! MCP-style tools file. Reads the canonical model only; never sees rules, reports or formats.
//!
//! One cohesive algorithm: merging observed values into a schema is one recursive pass, and types,
//! required keys, enums and nesting are all steps of it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::model::{Args, Pairing, ResultStatus, ToolResult, Trace};

/// The key marking a constraint as learned from calls, not stated by a person or a tool.
pub const INFERRED: &str = crate::analysis::schema_errors::INFERRED;

/// Fewest string values at one place for an enum: one call's value is no evidence of a set.
pub const ENUM_MIN_VALUES: usize = 3;

/// Deepest nesting given a schema; below it anything is accepted (`{}`).
pub const MAX_DEPTH: usize = 32;

const NULL: u8 = 1;
const BOOLEAN: u8 = 1 << 1;
const INTEGER: u8 = 1 << 2;
const NUMBER: u8 = 1 << 3;
const STRING: u8 = 1 << 4;
const ARRAY: u8 = 1 << 5;
const OBJECT: u8 = 1 << 6;

/// JSON Schema type names, in the order a type list is written.
const TYPE_NAMES: &[(u8, &str)] = &[
    (NULL, "null"),
    (BOOLEAN, "boolean"),
    (INTEGER, "integer"),
    (NUMBER, "number"),
    (STRING, "string"),
    (ARRAY, "array"),
    (OBJECT, "object"),
];

/// What was seen at one place in the arguments, across every call.
#[derive(Debug, Default)]
struct Shape {
    /// Values seen here.
    seen: usize,
    /// JSON types seen (bit set).
    types: u8,
    /// Distinct strings, while there are at most `enum_max` of them.
    strings: BTreeSet<String>,
    /// String values counted toward an enum (repeats included).
    string_values: usize,
    /// More distinct strings than `enum_max` were seen.
    too_many_strings: bool,
    /// Objects seen here.
    objects: usize,
    /// Their properties.
    props: BTreeMap<String, Shape>,
    /// The elements of the arrays seen here.
    items: Option<Box<Shape>>,
    /// A value nested deeper than `MAX_DEPTH` was seen here.
    too_deep: bool,
}

impl Shape {
    /// Learn `v`; its strings count toward an enum only when `enums` (`init` learns no enum
    /// from a call whose result was an error).
    fn learn(&mut self, v: &Value, depth: usize, enum_max: usize, enums: bool) {
        self.seen += 1;
        if depth >= MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        match v {
            Value::Null => self.types |= NULL,
            Value::Bool(_) => self.types |= BOOLEAN,
            Value::Number(n) => {
                self.types |= if n.is_f64() { NUMBER } else { INTEGER };
            }
            Value::String(s) => {
                self.types |= STRING;
                if enums {
                    self.string_values += 1;
                }
                if enums && !self.too_many_strings && !self.strings.contains(s) {
                    if self.strings.len() >= enum_max {
                        self.too_many_strings = true;
                        self.strings.clear();
                    } else {
                        self.strings.insert(s.clone());
                    }
                }
            }
            Value::Array(items) => {
                self.types |= ARRAY;
                let shape = self.items.get_or_insert_with(Box::default);
                for item in items {
                    shape.learn(item, depth + 1, enum_max, enums);
                }
            }
            Value::Object(map) => {
                self.types |= OBJECT;
                self.objects += 1;
                for (k, v) in map {
                    self.props
                        .entry(k.clone())
                        .or_default()
                        .learn(v, depth + 1, enum_max, enums);
                }
            }
        }
    }

    fn schema(&self) -> Value {
        if self.too_deep {
            return json!({});
        }
        let mut types = self.types;
        if types & INTEGER != 0 && types & NUMBER != 0 {
            types &= !INTEGER;
        }
        let names: Vec<&str> = TYPE_NAMES
            .iter()
            .filter(|(bit, _)| types & bit != 0)
            .map(|(_, n)| *n)
            .collect();
        let mut out = Map::new();
        match names.as_slice() {
            [] => {}
            [one] => {
                out.insert("type".into(), json!(one));
            }
            many => {
                out.insert("type".into(), json!(many));
            }
        }
        // An enum constrains every instance, so it is only written for a string-only place,
        // and only when the values repeat: three calls at least, at most half as many distinct
        // values (one call's value, or every call's own, is no set of choices).
        if types == STRING
            && !self.too_many_strings
            && !self.strings.is_empty()
            && self.string_values >= ENUM_MIN_VALUES
            && self.strings.len() * 2 <= self.string_values
        {
            out.insert("enum".into(), json!(self.strings));
        }
        if types & OBJECT != 0 {
            let props: Map<String, Value> = self
                .props
                .iter()
                .map(|(k, s)| (k.clone(), s.schema()))
                .collect();
            // A key occurs at most once per object: seen == objects means "in every object".
            let required: Vec<&String> = self
                .props
                .iter()
                .filter(|(_, s)| s.seen == self.objects)
                .map(|(k, _)| k)
                .collect();
            out.insert("properties".into(), Value::Object(props));
            if !required.is_empty() {
                out.insert("required".into(), json!(required));
            }
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        if let Some(items) = self.items.as_deref().filter(|s| s.seen > 0) {
            out.insert("items".into(), items.schema());
        }
        if !out.is_empty() {
            out.insert(INFERRED.into(), Value::Bool(true));
        }
        Value::Object(out)
    }
}

/// Calls left out of the inference, by reason.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Arguments that are not a JSON object as emitted.
    pub malformed: usize,
    /// Arguments the trace did not record.
    pub unknown: usize,
    /// Calls whose result failed or records a refusal (the runtime did not accept them).
    pub failed: usize,
}

impl Skipped {
    /// All skipped calls.
    pub fn total(&self) -> usize {
        self.malformed + self.unknown + self.failed
    }
}

#[derive(Debug, Default)]
struct ToolShape {
    calls: usize,
    args: Shape,
}

/// Accumulates calls and produces the inferred tools file.
#[derive(Debug)]
pub struct Inferrer {
    enum_max: usize,
    tools: BTreeMap<String, ToolShape>,
    skipped: Skipped,
    calls: usize,
}

impl Inferrer {
    /// An empty inferrer; strings with at most `enum_max` distinct values become enums.
    pub fn new(enum_max: usize) -> Self {
        Self {
            enum_max,
            tools: BTreeMap::new(),
            skipped: Skipped::default(),
            calls: 0,
        }
    }

    /// Learn from every call of a trace whose result did not fail (a call without a recorded
    /// result counts).
    pub fn add_trace(&mut self, trace: &Trace) {
        let pairing = Pairing::new(trace);
        for step in &trace.steps {
            let Some(call) = step.as_call() else { continue };
            let result = pairing
                .result_for(step.index)
                .and_then(|i| trace.steps.get(i))
                .and_then(|s| s.as_result());
            if matches!(call.args, Args::Known(_)) && result.is_some_and(not_accepted) {
                self.skip_call(call);
            } else {
                self.add_call(call, true);
            }
        }
    }

    /// Count a call the runtime did not accept (its result failed or records a refusal):
    /// its tool exists, but nothing is learned from its arguments.
    pub fn skip_call(&mut self, call: &crate::model::ToolCall) {
        self.calls += 1;
        self.tools.entry(call.name.clone()).or_default().calls += 1;
        self.skipped.failed += 1;
    }

    /// Count a call checked against a real schema elsewhere (a coding agent's built-in one):
    /// nothing is learned from it, so another agent's same-named tool is not shaped by it.
    pub fn count_call(&mut self) {
        self.calls += 1;
    }

    /// Learn from one call; its string values count toward enums only when `enums`.
    pub fn add_call(&mut self, call: &crate::model::ToolCall, enums: bool) {
        self.calls += 1;
        let tool = self.tools.entry(call.name.clone()).or_default();
        tool.calls += 1;
        match &call.args {
            Args::Known(v) => tool.args.learn(v, 0, self.enum_max, enums),
            Args::Malformed(_) => self.skipped.malformed += 1,
            Args::Unknown(_) => self.skipped.unknown += 1,
        }
    }

    /// The schema inferred for a tool, with how many of its calls had usable arguments.
    pub fn schema_for(&self, name: &str) -> Option<(Value, usize)> {
        self.tools
            .get(name)
            .map(|t| (Self::schema_of(t), t.args.seen))
    }

    /// Tool calls seen (including skipped ones).
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// Calls whose arguments could not be used.
    pub fn skipped(&self) -> Skipped {
        self.skipped
    }

    /// The schema inferred for one tool. A tool none of whose calls had usable arguments gets an
    /// unconstrained object schema: it exists, but nothing is known about its arguments.
    fn schema_of(tool: &ToolShape) -> Value {
        if tool.args.seen == 0 {
            json!({"type": "object"})
        } else {
            tool.args.schema()
        }
    }

    /// The MCP-style tools file: `{"tools": [{name, inputSchema}], "_meta": {"inferred_from"}}`,
    /// tools sorted by name.
    pub fn tools_file(&self, inferred_from: &[String]) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|(name, t)| json!({"name": name, "inputSchema": Self::schema_of(t)}))
            .collect();
        json!({"tools": tools, "_meta": {"inferred_from": inferred_from}})
    }
}

/// A result that shows the runtime did not accept its call: an error status, an HTTP error, a
/// body whose `error` is set or whose `status` says it failed, or a refusal (the user or a
/// permission system declined the call).
pub fn not_accepted(r: &ToolResult) -> bool {
    if r.status == ResultStatus::Error || r.http_status.is_some_and(|s| s >= 400) {
        return true;
    }
    if crate::analysis::outcome::refused(r) {
        return true;
    }
    let body = match &r.content {
        Value::String(s) => serde_json::from_str::<Value>(s.trim()).ok(),
        other => Some(other.clone()),
    };
    body.as_ref().and_then(Value::as_object).is_some_and(|m| {
        m.get("error")
            .or_else(|| m.get("errors"))
            .is_some_and(|e| !(e.is_null() || e == &json!(false) || e == &json!("")))
            || m.get("status").and_then(Value::as_str).is_some_and(|s| {
                matches!(
                    s.to_ascii_lowercase().as_str(),
                    "error" | "failed" | "failure"
                )
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{InputFormat, parse_bytes};

    fn infer(text: &str, enum_max: usize) -> (Value, Inferrer) {
        let (format, parsed) = parse_bytes(text.as_bytes(), "t.jsonl", Some(InputFormat::Native));
        assert_eq!(format, Some(InputFormat::Native));
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let mut inf = Inferrer::new(enum_max);
        for t in &parsed.traces {
            inf.add_trace(t);
        }
        (inf.tools_file(&["t.jsonl".into()]), inf)
    }

    /// The schema without its `x-tracelint-inferred` markers, checking each object node had one.
    fn unmarked(v: Value) -> Value {
        match v {
            Value::Object(mut m) => {
                if !m.is_empty() && m.contains_key("type") {
                    assert_eq!(m.remove(INFERRED), Some(json!(true)), "{m:?}");
                }
                Value::Object(m.into_iter().map(|(k, v)| (k, unmarked(v))).collect())
            }
            other => other,
        }
    }

    fn call(name: &str, args: &str) -> String {
        format!(r#"{{"type": "tool_call", "name": "{name}", "args": {args}}}"#)
    }

    fn trace(calls: &[String]) -> String {
        format!(r#"{{"run_id": "r", "steps": [{}]}}"#, calls.join(","))
    }

    #[test]
    fn required_types_and_enums() {
        let t = trace(&[
            call("read", r#"{"path": "/a", "limit": 10, "mode": "fast"}"#),
            call("read", r#"{"path": "/b", "limit": 2.5, "tag": null, "mode": "slow"}"#),
            call("read", r#"{"path": "/c", "tag": "x", "mode": "fast"}"#),
            call("read", r#"{"path": "/a", "mode": "fast"}"#),
        ]);
        let (file, _) = infer(&t, 10);
        // `mode` repeats (2 values in 4 calls): an enum. `path` hardly does (3 in 4): none.
        // Every constraint written says it was inferred.
        assert_eq!(
            file,
            json!({
                "_meta": {"inferred_from": ["t.jsonl"]},
                "tools": [{
                    "name": "read",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "limit": {"type": "number", INFERRED: true},
                            "mode": {"type": "string", "enum": ["fast", "slow"], INFERRED: true},
                            "path": {"type": "string", INFERRED: true},
                            "tag": {"type": ["null", "string"], INFERRED: true}
                        },
                        "required": ["mode", "path"],
                        "additionalProperties": false,
                        INFERRED: true
                    }
                }]
            })
        );
    }

    #[test]
    fn one_call_or_values_that_do_not_repeat_learn_no_enum() {
        let one = trace(&[call("t", r#"{"order_id": "4521", "subject": "Order 4521 cancelled"}"#)]);
        let props = infer(&one, 10).0["tools"][0]["inputSchema"]["properties"].clone();
        assert_eq!(props["order_id"], json!({"type": "string", INFERRED: true}));
        assert_eq!(props["subject"], json!({"type": "string", INFERRED: true}));
        // Three calls, three values: no set of choices either.
        let three: Vec<String> = (0..3)
            .map(|i| call("t", &format!(r#"{{"s": "v{i}"}}"#)))
            .collect();
        let s = infer(&trace(&three), 10).0["tools"][0]["inputSchema"]["properties"]["s"].clone();
        assert_eq!(s, json!({"type": "string", INFERRED: true}));
    }

    #[test]
    fn calls_the_runtime_did_not_accept_teach_nothing() {
        let t = r#"{"run_id": "r", "steps": [
            {"type": "tool_call", "call_id": "1", "name": "cancel_order", "args": {"order_id": 4521}},
            {"type": "tool_result", "call_id": "1", "status": "error", "content": "order_id must be a string"},
            {"type": "tool_call", "call_id": "2", "name": "cancel_order", "args": {"order_id": "4521"}},
            {"type": "tool_result", "call_id": "2", "content": "The user doesn't want to proceed with this tool use."},
            {"type": "tool_call", "call_id": "3", "name": "cancel_order", "args": {"order_id": "7788", "why": "late"}},
            {"type": "tool_result", "call_id": "3", "status": "ok", "content": "cancelled"}
        ]}"#;
        let (file, inf) = infer(t, 10);
        assert_eq!(inf.skipped().failed, 2);
        assert_eq!(
            file["tools"][0]["inputSchema"]["properties"]["order_id"],
            json!({"type": "string", INFERRED: true}),
            "the failed call's integer is not learned"
        );
    }

    #[test]
    fn enum_limit_is_inclusive_and_zero_turns_enums_off() {
        let calls: Vec<String> = (0..6)
            .map(|i| call("t", &format!(r#"{{"s": "v{}"}}"#, i % 3)))
            .collect();
        let t = trace(&calls);
        let s = |max| infer(&t, max).0["tools"][0]["inputSchema"]["properties"]["s"].clone();
        assert_eq!(
            s(3),
            json!({"type": "string", "enum": ["v0", "v1", "v2"], INFERRED: true})
        );
        assert_eq!(s(2), json!({"type": "string", INFERRED: true}));
        assert_eq!(s(0), json!({"type": "string", INFERRED: true}));
    }

    #[test]
    fn nested_arrays_of_objects_get_items_schemas() {
        let t = trace(&[
            call(
                "edit",
                r#"{"edits": [{"old": "a", "new": "b"}, {"old": "c", "new": "d", "all": true}]}"#,
            ),
            call(
                "edit",
                r#"{"edits": [], "meta": {"ids": [1, 2.5], "who": {"n": 1}}}"#,
            ),
        ]);
        let (file, _) = infer(&t, 0);
        let schema = &file["tools"][0]["inputSchema"];
        // The markers aside (every node carries one), the shapes.
        let schema = &unmarked(schema.clone());
        assert_eq!(
            schema["properties"]["edits"],
            json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "all": {"type": "boolean"},
                        "new": {"type": "string"},
                        "old": {"type": "string"}
                    },
                    "required": ["new", "old"],
                    "additionalProperties": false
                }
            })
        );
        assert_eq!(
            schema["properties"]["meta"],
            json!({
                "type": "object",
                "properties": {
                    "ids": {"type": "array", "items": {"type": "number"}},
                    "who": {
                        "type": "object",
                        "properties": {"n": {"type": "integer"}},
                        "required": ["n"],
                        "additionalProperties": false
                    }
                },
                "required": ["ids", "who"],
                "additionalProperties": false
            })
        );
        assert_eq!(schema["required"], json!(["edits"]));
    }

    #[test]
    fn malformed_and_unknown_arguments_are_skipped_and_counted() {
        let t = format!(
            r#"{{"run_id": "r", "steps": [{}, {{"type": "tool_call", "name": "send", "args": {{}}, "raw_text": "{{\"to\": \"x"}}, {{"type": "tool_call", "name": "gone"}}]}}"#,
            call("send", r#"{"to": "a"}"#)
        );
        let (file, inf) = infer(&t, 10);
        assert_eq!(inf.calls(), 3);
        assert_eq!(inf.skipped().malformed, 1);
        assert_eq!(inf.skipped().total(), 2);
        // The malformed call did not make `to` optional.
        assert_eq!(
            file["tools"][1]["inputSchema"]["required"],
            json!(["to"]),
            "{file:#}"
        );
        // A tool seen only without usable arguments is declared, unconstrained.
        assert_eq!(
            file["tools"][0],
            json!({"name": "gone", "inputSchema": {"type": "object"}})
        );
    }

    #[test]
    fn depth_is_bounded() {
        let mut v = json!(1);
        for _ in 0..(MAX_DEPTH + 5) {
            v = json!({ "a": v });
        }
        let mut shape = Shape::default();
        shape.learn(&v, 0, 10, true);
        let mut s = shape.schema();
        let mut depth = 0;
        while let Some(inner) = s.get("properties").and_then(|p| p.get("a")).cloned() {
            s = inner;
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH);
        assert_eq!(s, json!({}));
    }
}
