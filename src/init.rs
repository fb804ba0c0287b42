//! `tracelint init`'s starter tools file. Per tool, the best schema there is: a given source (a
//! tools file, an MCP server), then one embedded in the traces, then Claude Code's built-in one,
//! and only then one inferred from the calls — where no enum is learned from a call whose result
//! was an error, and which is marked for review. Behaviour a trace cannot prove (`side_effecting`,
//! `idempotent`, `failure_when`, `requires`) is never written as a fact: it goes into a `_todo`
//! list in the tool's `metadata`, with what the traces showed; only what a real source states is
//! written as metadata. The result loads with `--tools` as it is.
//!
//! One cohesive builder: the schema precedence and the `_todo` metadata are decided per tool in one
//! pass.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value, json};

use crate::infer::Inferrer;
use crate::lint::Linter;
use crate::model::{Args, Condition, Pairing, ResultStatus, ToolMetadata, ToolSpec, Trace};

/// The file, in the order a reader wants it (`name` first).
#[derive(serde::Serialize)]
struct File<'a> {
    #[serde(rename = "_comment")]
    comment: String,
    tools: Vec<Entry<'a>>,
}

#[derive(serde::Serialize)]
struct Entry<'a> {
    name: &'a str,
    #[serde(rename = "inputSchema", skip_serializing_if = "Option::is_none")]
    input_schema: Option<Value>,
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    output_schema: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_origins: Option<Value>,
    metadata: Value,
}

/// Where a tool's schema came from, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// A `--tools` source (or the config's `tools`).
    Given,
    /// Embedded in a trace (an OpenAI request's `tools`, OpenInference `llm.tools`, …).
    Embedded,
    /// Claude Code's built-in schemas.
    Builtin,
    /// Inferred from the calls.
    Inferred,
}

#[derive(Debug, Default)]
struct Seen {
    calls: usize,
    results: usize,
    errors: usize,
    status_unknown: usize,
    /// The best real declaration so far (its stated behaviour is kept).
    real: Option<(Origin, ToolSpec)>,
    /// The best real declaration with an input schema so far.
    schema: Option<(Origin, ToolSpec)>,
    /// `(tool, field)` pairs such that every call so far had the same value in `field` as an
    /// earlier successful call of `tool` in its trace (`None`: no call yet).
    before: Option<BTreeSet<(String, String)>>,
}

/// Accumulates traces and writes the starter file.
pub struct Starter<'l> {
    linter: &'l Linter,
    inferrer: Inferrer,
    tools: BTreeMap<String, Seen>,
}

/// Fewest calls of a tool for a `requires` suggestion.
const MIN_CALLS_FOR_REQUIRES: usize = 2;

/// Shortest string value that can tie a call to an earlier one for a `requires` suggestion.
const MIN_TIE_CHARS: usize = 3;

impl<'l> Starter<'l> {
    /// A starter reading schemas through `linter` (its given registry and built-in rules);
    /// inferred string properties with at most `enum_max` values get an enum.
    pub fn new(linter: &'l Linter, enum_max: usize) -> Self {
        let mut tools: BTreeMap<String, Seen> = BTreeMap::new();
        if let Some(given) = &linter.given {
            for spec in given.iter() {
                let seen = tools.entry(spec.name.clone()).or_default();
                seen.real = Some((Origin::Given, spec.clone()));
                if spec.schema.is_some() {
                    seen.schema = Some((Origin::Given, spec.clone()));
                }
            }
        }
        Self {
            linter,
            inferrer: Inferrer::new(enum_max),
            tools,
        }
    }

    /// Tool calls read so far.
    pub fn calls(&self) -> usize {
        self.inferrer.calls()
    }

    /// A real declaration of a tool: kept when it is the best yet (a given source over one
    /// embedded in a trace over a built-in one; the first of equals).
    fn offer(&mut self, spec: &ToolSpec, origin: Origin) {
        let seen = self.tools.entry(spec.name.clone()).or_default();
        if seen.real.as_ref().is_none_or(|(o, _)| origin < *o) {
            seen.real = Some((origin, spec.clone()));
        }
        if spec.schema.is_some() && seen.schema.as_ref().is_none_or(|(o, _)| origin < *o) {
            seen.schema = Some((origin, spec.clone()));
        }
    }

    /// Learn from one trace.
    pub fn add_trace(&mut self, trace: &Trace) {
        let linter = self.linter;
        linter.with_registry(trace, |registry, _, _| {
            let given = linter.given.as_ref();
            let origin_of = |spec: &ToolSpec| {
                if given.is_some_and(|g| g.get(&spec.name).is_some()) {
                    Origin::Given
                } else if spec.source.0.starts_with("builtin:") {
                    Origin::Builtin
                } else {
                    Origin::Embedded
                }
            };
            // The trace's own declarations count even for tools it never calls.
            for spec in &trace.embedded_tools {
                if given.is_none_or(|g| g.get(&spec.name).is_none()) {
                    self.offer(spec, Origin::Embedded);
                }
            }
            let pairing = Pairing::new(trace);
            // (field, value) → tools whose successful call carried it, earlier in this trace.
            let mut earlier: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
            for step in &trace.steps {
                let Some(call) = step.as_call() else { continue };
                let result = pairing
                    .result_for(step.index)
                    .and_then(|i| trace.steps.get(i))
                    .and_then(|s| s.as_result());
                let failed = result.is_some_and(errored);
                self.inferrer.add_call(call, !failed);
                if let Some(spec) = registry.get(&call.name) {
                    let origin = origin_of(spec);
                    if origin != Origin::Given {
                        self.offer(spec, origin);
                    }
                }
                let ties: Vec<(String, String)> = match &call.args {
                    Args::Known(Value::Object(m)) => m
                        .iter()
                        .filter_map(|(k, v)| tie_value(v).map(|v| (k.clone(), v)))
                        .collect(),
                    _ => Vec::new(),
                };
                let seen = self.tools.entry(call.name.clone()).or_default();
                seen.calls += 1;
                if let Some(r) = result {
                    seen.results += 1;
                    seen.errors += usize::from(failed);
                    seen.status_unknown += usize::from(r.status == ResultStatus::Unknown);
                }
                let mut now: BTreeSet<(String, String)> = BTreeSet::new();
                for (field, value) in &ties {
                    if let Some(tools) = earlier.get(&(field.clone(), value.clone())) {
                        for t in tools.iter().filter(|t| **t != call.name) {
                            now.insert((t.clone(), field.clone()));
                        }
                    }
                }
                seen.before = Some(match seen.before.take() {
                    None => now,
                    Some(prev) => prev.intersection(&now).cloned().collect(),
                });
                if !failed && result.is_some() {
                    for tie in ties {
                        earlier.entry(tie).or_default().insert(call.name.clone());
                    }
                }
            }
        });
    }

    /// The starter tools file's text (pretty JSON, `name` first in each tool), and per origin
    /// how many tools got their schema from it.
    pub fn finish(&self, inputs: &[String]) -> (String, BTreeMap<Origin, usize>) {
        let mut counts: BTreeMap<Origin, usize> = BTreeMap::new();
        let mut tools = Vec::new();
        for (name, seen) in &self.tools {
            let (origin, schema, about) = match &seen.schema {
                Some((o, spec)) => (
                    *o,
                    spec.schema.clone(),
                    format!("input schema: {}", describe(*o, &spec.source.0)),
                ),
                _ => match self.inferrer.schema_for(name) {
                    Some((mut schema, usable)) if usable > 0 => {
                        if let Value::Object(m) = &mut schema {
                            m.insert(
                                "$comment".into(),
                                json!(format!(
                                    "inferred by tracelint init from {usable} call(s); no enum learned from a call whose result was an error: review the types, required keys and enums"
                                )),
                            );
                        }
                        (
                            Origin::Inferred,
                            Some(schema),
                            "input schema: inferred from the calls (no real schema was found): review it".to_owned(),
                        )
                    }
                    _ => (
                        Origin::Inferred,
                        None,
                        "input schema: none found, and no call recorded its arguments".to_owned(),
                    ),
                },
            };
            *counts.entry(origin).or_default() += 1;
            let real = seen.real.as_ref().map(|(_, s)| s);
            let with_schema = seen.schema.as_ref().map(|(_, s)| s);
            let declared = real.map(|s| s.metadata.clone()).unwrap_or_default();
            let mut metadata = stated(&declared);
            metadata.insert("$comment".into(), json!(about));
            let todo = self.todo(name, seen, &declared);
            if !todo.is_empty() {
                metadata.insert("_todo".into(), json!(todo));
            }
            tools.push(Entry {
                name,
                input_schema: schema,
                output_schema: with_schema.or(real).and_then(|s| s.output_schema.clone()),
                value_origins: with_schema
                    .or(real)
                    .filter(|s| !s.value_origins.is_empty())
                    .and_then(|s| serde_json::to_value(&s.value_origins).ok()),
                metadata: Value::Object(metadata),
            });
        }
        let file = File {
            comment: format!(
                "starter tools file written by `tracelint init` from {}: answer each tool's `metadata._todo`, then delete it; see `tracelint explain R2a` for `failure_when`",
                inputs.join(", ")
            ),
            tools,
        };
        let mut text = serde_json::to_string_pretty(&file).expect("plain data serialises");
        text.push('\n');
        (text, counts)
    }

    /// What a human must answer about a tool, with what the traces showed.
    fn todo(&self, name: &str, seen: &Seen, declared: &ToolMetadata) -> Vec<String> {
        let mut todo = Vec::new();
        if declared.side_effecting.is_none() {
            todo.push(format!(
                "side_effecting: does `{name}` change anything outside the agent (write, send, pay, delete)? set true or false"
            ));
        }
        if declared.idempotent.is_none() {
            todo.push(format!(
                "idempotent: does a second `{name}` call with the same arguments change nothing more? set true or false"
            ));
        }
        if declared.failure_when.is_none() {
            let mut evidence = vec![format!(
                "{} of {} call(s) have a result",
                seen.results, seen.calls
            )];
            if seen.status_unknown > 0 {
                evidence.push(format!(
                    "{} result(s) record no status or error flag",
                    seen.status_unknown
                ));
            }
            if seen.errors > 0 {
                evidence.push(format!("{} result(s) were errors", seen.errors));
            }
            todo.push(format!(
                "failure_when: what does a failed `{name}` result look like, when it carries no error flag? e.g. {{\"pointer\": \"/status\", \"in\": [\"error\", \"failed\"]}} ({})",
                evidence.join("; ")
            ));
        }
        // One call "always" following another is no pattern: two at least.
        if let Some(before) = seen
            .before
            .as_ref()
            .filter(|b| !b.is_empty() && seen.calls >= MIN_CALLS_FOR_REQUIRES)
        {
            let mut by_tool: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (tool, field) in before {
                by_tool.entry(tool).or_default().push(field);
            }
            for (tool, fields) in by_tool.into_iter().take(2) {
                let same = fields
                    .iter()
                    .map(|f| format!("\"{f}\""))
                    .collect::<Vec<_>>()
                    .join(", ");
                todo.push(format!(
                    "requires (a suggestion from the order of the calls, not a fact): every `{name}` call came after a successful `{tool}` call with the same {}; if `{name}` must not run otherwise, declare \"requires\": [{{\"tool\": \"{tool}\", \"same\": [{same}]}}]",
                    fields
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        todo
    }
}

/// A result that says the call failed: a structured error, an HTTP error status, or a body whose
/// top level carries an `error` or a failed `status`. Broad on purpose: it only keeps a call's
/// values out of an inferred enum, which can only make the schema looser.
fn errored(r: &crate::model::ToolResult) -> bool {
    if r.status == ResultStatus::Error || r.http_status.is_some_and(|s| s >= 400) {
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

/// A value that can tie two calls together: a string of a few chars, or a number.
fn tie_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if s.trim().chars().count() >= MIN_TIE_CHARS => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn describe(origin: Origin, source: &str) -> String {
    match origin {
        Origin::Given => format!("from `{source}`"),
        Origin::Embedded => format!("{source} (the schema the agent was given)"),
        Origin::Builtin => format!("Claude Code's built-in schemas (`{source}`)"),
        Origin::Inferred => "inferred from the calls".to_owned(),
    }
}

/// The metadata a real source states, in tools-file form.
fn stated(m: &ToolMetadata) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(v) = m.side_effecting {
        out.insert("side_effecting".into(), json!(v));
    }
    if let Some(v) = m.idempotent {
        out.insert("idempotent".into(), json!(v));
    }
    if m.polling {
        out.insert("polling".into(), json!(true));
    }
    if m.paginated {
        out.insert("paginated".into(), json!(true));
    }
    if !m.retryable_errors.is_empty() {
        out.insert("retryable_errors".into(), json!(m.retryable_errors));
    }
    if let Some(f) = &m.failure_when {
        let mut fw = Map::new();
        fw.insert("pointer".into(), json!(f.pointer));
        match &f.condition {
            Condition::In(v) => fw.insert("in".into(), json!(v)),
            Condition::Equals(v) => fw.insert("equals".into(), v.clone()),
            Condition::Exists => fw.insert("exists".into(), json!(true)),
            Condition::Contains(s) => fw.insert("contains".into(), json!(s)),
            Condition::Matches(r) => fw.insert("matches".into(), json!(r.as_str())),
        };
        if f.optional {
            fw.insert("optional".into(), json!(true));
        }
        out.insert("failure_when".into(), Value::Object(fw));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{RuleSettings, Selection};

    fn starter_of(traces: &str, given: Option<&str>) -> Value {
        let (_, parsed) = crate::adapters::parse_bytes(
            traces.as_bytes(),
            "t.jsonl",
            Some(crate::adapters::InputFormat::Native),
        );
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let given = given.map(|g| crate::sources::file::parse_tools_str(g, "tools.json").unwrap());
        let linter = Linter::new(given, Selection::default(), RuleSettings::default());
        let mut starter = Starter::new(&linter, 10);
        for t in &parsed.traces {
            starter.add_trace(t);
        }
        let (text, _) = starter.finish(&["t.jsonl".to_owned()]);
        let file: Value = serde_json::from_str(&text).unwrap();
        // What init writes loads as a tools file.
        crate::sources::file::parse_tools_str(&text, "starter.json").unwrap();
        file
    }

    fn run(id: &str, lookup_status: &str, order: &str) -> String {
        format!(
            r#"{{"run_id": "{id}", "steps": [
            {{"type": "tool_call", "call_id": "a", "name": "get_order", "args": {{"order_id": "{order}"}}}},
            {{"type": "tool_result", "call_id": "a", "content": {{"state": "open"}}, "status": "{lookup_status}"}},
            {{"type": "tool_call", "call_id": "b", "name": "cancel_order", "args": {{"order_id": "{order}", "reason": "asked"}}}},
            {{"type": "tool_result", "call_id": "b", "content": "done", "status": "ok"}}]}}"#
        )
        .replace('\n', " ")
    }

    fn todo_of<'v>(file: &'v Value, tool: &str) -> Vec<&'v str> {
        file["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == tool)
            .unwrap()["metadata"]["_todo"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    #[test]
    fn requires_is_suggested_from_a_pattern_never_from_one_call_or_a_failed_lookup() {
        let two = format!("{}\n{}\n", run("r1", "ok", "A-1"), run("r2", "ok", "B-2"));
        let file = starter_of(&two, None);
        let requires: Vec<&str> = todo_of(&file, "cancel_order")
            .into_iter()
            .filter(|t| t.starts_with("requires"))
            .collect();
        assert_eq!(requires.len(), 1, "{requires:?}");
        assert!(
            requires[0].contains(r#""requires": [{"tool": "get_order", "same": ["order_id"]}]"#)
        );
        assert!(requires[0].contains("a suggestion"));
        // One call is no pattern; a lookup that failed is no precondition met.
        let one = starter_of(&format!("{}\n", run("r1", "ok", "A-1")), None);
        assert!(
            !todo_of(&one, "cancel_order")
                .iter()
                .any(|t| t.starts_with("requires"))
        );
        let failed = format!(
            "{}\n{}\n",
            run("r1", "error", "A-1"),
            run("r2", "ok", "B-2")
        );
        let failed = starter_of(&failed, None);
        assert!(
            !todo_of(&failed, "cancel_order")
                .iter()
                .any(|t| t.starts_with("requires"))
        );
    }

    #[test]
    fn stated_behaviour_is_kept_and_only_the_rest_is_todo() {
        let given = r#"{"tools": [{"name": "cancel_order",
            "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
            "metadata": {"side_effecting": true, "failure_when": {"pointer": "/ok", "equals": false}}}]}"#;
        let file = starter_of(&format!("{}\n", run("r1", "ok", "A-1")), Some(given));
        let cancel = file["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "cancel_order")
            .unwrap();
        assert_eq!(cancel["metadata"]["side_effecting"], true);
        assert_eq!(
            cancel["metadata"]["failure_when"],
            serde_json::json!({"pointer": "/ok", "equals": false})
        );
        assert_eq!(
            cancel["inputSchema"]["properties"]["order_id"],
            serde_json::json!({"type": "string"})
        );
        let todo = todo_of(&file, "cancel_order");
        assert!(todo.iter().any(|t| t.starts_with("idempotent:")));
        assert!(
            !todo
                .iter()
                .any(|t| t.starts_with("side_effecting:") || t.starts_with("failure_when:"))
        );
        // The called tool the given file lacks is inferred, and said so.
        let lookup = file["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "get_order")
            .unwrap();
        assert!(
            lookup["metadata"]["$comment"]
                .as_str()
                .unwrap()
                .contains("inferred")
        );
    }
}
