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

use crate::infer::{INFERRED, Inferrer, not_accepted};
use crate::lint::Linter;
use crate::model::{Args, Condition, Pairing, ResultStatus, ToolMetadata, ToolSpec, Trace};

/// The file, in the order a reader wants it (`name` first).
#[derive(serde::Serialize)]
struct File<'a> {
    #[serde(rename = "_comment")]
    comment: String,
    tools: Vec<Entry<'a>>,
    /// Who wrote it, from what: `tools lint` reads a file so marked as one for checking traces.
    #[serde(rename = "_meta")]
    meta: Value,
}

#[derive(serde::Serialize)]
struct Entry<'a> {
    name: &'a str,
    /// The coding agents whose own sessions are checked against their built-in schema of the
    /// tool, matched to each session's version at check time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    builtin: Vec<String>,
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
    /// Left without a schema: agents of different kinds call a tool of this name with
    /// different schemas (or one with a schema and one without).
    Conflict,
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
    /// The agents whose traces called the tool (`OTHER_AGENTS` for a format that names none),
    /// with the real schemas their calls were checked against.
    families: BTreeMap<String, Family>,
    /// The coding agents (`builtin:claude-code`) whose sessions called it under their built-in
    /// schema: the file defers to that schema, matched per session, instead of copying one
    /// version of it.
    builtin_of: BTreeSet<String>,
}

/// What one agent's calls of a tool were checked against.
#[derive(Debug, Default)]
struct Family {
    /// The real schemas (as JSON text) in force for its calls.
    schemas: BTreeSet<String>,
    /// The keys of its calls that had no real schema in force: used by any, and by every one
    /// (`None`: no such call).
    used: BTreeSet<String>,
    always: Option<BTreeSet<String>>,
    /// Its calls were checked against its agent's built-in schema (deferred to, not copied).
    builtin: bool,
}

impl Family {
    /// Would its calls without a schema fit this schema by shape (every key a property, every
    /// required key in every call)?
    fn fits(&self, schema: &Value) -> bool {
        let Some(always) = &self.always else {
            return true;
        };
        let props = schema.get("properties").and_then(Value::as_object);
        let known = |k: &String| props.is_some_and(|p| p.contains_key(k));
        let required_met = schema
            .get("required")
            .and_then(Value::as_array)
            .is_none_or(|r| r.iter().filter_map(Value::as_str).all(|k| always.contains(k)));
        self.used.iter().all(known) && required_met
    }
}

/// Accumulates traces and writes the starter file.
pub struct Starter<'l> {
    linter: &'l Linter,
    inferrer: Inferrer,
    tools: BTreeMap<String, Seen>,
    /// The JSON types each key of a successful result's top-level object held (`"string"`,
    /// `"integer"`…): what the system itself says a value like `order_id` is.
    result_types: BTreeMap<String, BTreeSet<&'static str>>,
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
            result_types: BTreeMap::new(),
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
        // The agent that made the trace, when its format says (`claude-code`, `gemini-cli`…),
        // else the file it came from: same-named tools of different agents are different tools.
        let family = match trace.attribute(crate::model::ATTR_AGENT) {
            Some(agent) => agent.to_owned(),
            None => format!("`{}`", trace.source.path),
        };
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
                let failed = result.is_some_and(not_accepted);
                let spec = registry.get(&call.name);
                let builtin = spec
                    .filter(|s| s.schema.is_some() && origin_of(s) == Origin::Builtin)
                    .and_then(|_| crate::sources::builtin::Agent::of(Some(&family)));
                if builtin.is_some() {
                    self.inferrer.count_call();
                } else if failed && matches!(call.args, Args::Known(_)) {
                    self.inferrer.skip_call(call);
                } else {
                    self.inferrer.add_call(call, true);
                }
                if let Some(spec) = spec {
                    let origin = origin_of(spec);
                    if origin != Origin::Given {
                        self.offer(spec, origin);
                    }
                }
                // Which family of agent called it, with which real schema (none: inferred).
                let seen = self.tools.entry(call.name.clone()).or_default();
                if let Some(agent) = builtin {
                    seen.builtin_of.insert(agent.source().to_owned());
                }
                let family = seen.families.entry(family.clone()).or_default();
                if builtin.is_some() {
                    family.builtin = true;
                } else if let Some(schema) = spec.and_then(|s| s.schema.as_ref()) {
                    family.schemas.insert(schema.to_string());
                } else {
                    let keys: BTreeSet<String> = match &call.args {
                        Args::Known(Value::Object(m)) => m.keys().cloned().collect(),
                        _ => BTreeSet::new(),
                    };
                    family.used.extend(keys.iter().cloned());
                    family.always = Some(match family.always.take() {
                        None => keys,
                        Some(prev) => prev.intersection(&keys).cloned().collect(),
                    });
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
                if let Some(Value::Object(body)) = result.filter(|_| !failed).map(|r| r.structured())
                {
                    for (key, v) in body.iter().take(MAX_RESULT_KEYS) {
                        if let Some(t) = scalar_type(v) {
                            self.result_types.entry(key.clone()).or_default().insert(t);
                        }
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
            let conflict = conflict(seen);
            // A built-in schema is deferred to (`builtin`), never copied: each session is checked
            // against its own version's, as without a tools file. The schema written is for the
            // other agents' calls, if any.
            let builtin: Vec<String> = seen.builtin_of.iter().cloned().collect();
            let others = seen.families.values().any(|f| !f.builtin);
            let real_schema = seen.schema.as_ref().filter(|(o, _)| *o != Origin::Builtin);
            let (origin, schema, about) = match (real_schema, conflict) {
                (None, _) if !builtin.is_empty() && !others => (
                    Origin::Builtin,
                    None,
                    format!(
                        "input schema: the built-in schema of {} matched to each session's version when it is checked (`builtin`); calls of this name in other agents' runs get none",
                        builtin.join(", ")
                    ),
                ),
                (Some((o, _)), Some(about)) if *o != Origin::Given => {
                    (Origin::Conflict, None, about)
                }
                (None, Some(about)) if self.inferrer.schema_for(name).is_some() => {
                    (Origin::Conflict, None, about)
                }
                (Some((o, spec)), _)
                    if spec
                        .schema
                        .as_ref()
                        .and_then(|s| s.get("type"))
                        .is_some_and(|t| t != "object") =>
                {
                    (
                        *o,
                        None,
                        format!(
                            "input schema: left out: {} takes free-form text, not an object of arguments, which a tools file cannot declare",
                            describe(*o, &spec.source.0)
                        ),
                    )
                }
                (Some((o, spec)), _) => (
                    *o,
                    spec.schema.clone().map(|schema| {
                        if spec.metadata.extra_keys_tolerated {
                            tolerate_extra_keys(schema)
                        } else {
                            schema
                        }
                    }),
                    format!("input schema: {}", describe(*o, &spec.source.0)),
                ),
                (None, _) => match self.inferrer.schema_for(name) {
                    Some((mut schema, usable)) if usable > 0 => {
                        self.typed_by_results(&mut schema);
                        if let Value::Object(m) = &mut schema {
                            m.insert(
                                "$comment".into(),
                                json!(format!(
                                    "inferred by tracelint init from {usable} call(s) the runtime accepted (none whose result failed or was refused; an enum only where values repeat): every constraint marked `{INFERRED}` is a guess, and `check` reports a call against it as a candidate; review it and delete the marker to make it a rule"
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
            let about = if builtin.is_empty() || origin == Origin::Builtin {
                about
            } else {
                format!(
                    "{about}; sessions of {} are checked against their built-in schema instead (`builtin`)",
                    builtin.join(", ")
                )
            };
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
                builtin,
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
            meta: json!({"written_by": "tracelint init", "inferred_from": inputs}),
        };
        let mut text = crate::reporters::escape::json_text(
            serde_json::to_string_pretty(&file).expect("plain data serialises"),
        );
        text.push('\n');
        (text, counts)
    }

    /// An inferred argument whose calls all held one scalar type, where every successful
    /// result that carries a key of that name holds another (`cancel_order {"order_id": 4521}`
    /// after `{"order_id": "4521"}` came back): the system's own results say what the value
    /// is, so the property takes their type (still marked inferred: a call against it is a
    /// candidate).
    fn typed_by_results(&self, schema: &mut Value) {
        let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
            return;
        };
        for (key, prop) in props.iter_mut() {
            let Some(seen) = self.result_types.get(key) else {
                continue;
            };
            let [told] = seen.iter().copied().collect::<Vec<_>>()[..] else {
                continue;
            };
            let Some(Value::String(own)) = prop.get("type") else {
                continue;
            };
            let numbers = |t: &str| t == "integer" || t == "number";
            if own != told
                && !(numbers(own) && numbers(told))
                && prop.get("enum").is_none()
                && let Value::Object(m) = prop
            {
                m.insert("type".into(), json!(told));
            }
        }
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

/// Why a tool is left without a schema, when agents of different kinds call it under one
/// name with different schemas (or one with a real schema and one with none): a Gemini CLI
/// `read_file` and another agent's are different tools, never silently merged.
fn conflict(seen: &Seen) -> Option<String> {
    // Agents checked against their own built-in schema are kept apart already (`builtin`).
    let families: BTreeMap<&String, &Family> =
        seen.families.iter().filter(|(_, f)| !f.builtin).collect();
    if families.len() < 2 {
        return None;
    }
    let with: Vec<&Family> = families
        .values()
        .copied()
        .filter(|f| !f.schemas.is_empty())
        .collect();
    // Families that were given schemas must have been given the same ones; a family whose
    // calls had none must fit every one of them by shape.
    let same = with.windows(2).all(|w| w[0].schemas == w[1].schemas);
    let fit = families.values().all(|f| {
        with.iter().all(|g| {
            g.schemas
                .iter()
                .filter_map(|t| serde_json::from_str::<Value>(t).ok())
                .all(|schema| f.fits(&schema))
        })
    });
    if same && fit {
        return None;
    }
    let who: Vec<String> = families
        .iter()
        .take(6)
        .map(|(family, f)| {
            let with = match (f.schemas.len(), f.always.is_some()) {
                (0, _) => "no schema",
                (1, false) => "a schema",
                _ => "several schemas or none",
            };
            format!("{family} ({with})")
        })
        .collect();
    Some(format!(
        "input schema: left out: a tool of this name is called by {}, and same-named tools of different agents are different tools; give it the schema of the agent you check, or check each agent's runs with its own tools file",
        who.join(", ")
    ))
}

/// A built-in schema whose runtime drops unexpected keys: a tools file cannot say so, so its
/// top level accepts them.
fn tolerate_extra_keys(mut schema: Value) -> Value {
    if let Value::Object(m) = &mut schema {
        m.remove("additionalProperties");
    }
    schema
}

/// Keys of one result's top-level object read for their types.
const MAX_RESULT_KEYS: usize = 256;

/// The JSON Schema type of a scalar (`None` for null, arrays and objects).
fn scalar_type(v: &Value) -> Option<&'static str> {
    match v {
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_f64() => Some("number"),
        Value::Number(_) => Some("integer"),
        Value::String(_) => Some("string"),
        _ => None,
    }
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
        Origin::Builtin => format!("the agent's built-in schemas (`{source}`)"),
        Origin::Inferred => "inferred from the calls".to_owned(),
        Origin::Conflict => "left out: agents of different kinds call a tool of this name".to_owned(),
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
