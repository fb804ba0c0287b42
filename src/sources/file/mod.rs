//! Tools files: every shape of SPEC §3 — an MCP-style `{"tools": [...]}` list, a bare array, OpenAI
//! tools, Anthropic tools, a raw MCP `tools/list` JSON-RPC reply, seed 002's map
//! `{"tools": {name: {schema, metadata, value_origins}}}`, and an object of named tool arrays
//! (tau-bench's `{"airline": [...], "retail": [...]}`). Per-tool `metadata` is honoured in every
//! shape; a malformed `metadata` (including `failure_when`) is an error, never a looser gate.
//!
//! One cohesive parser: every shape funnels into the same tool and metadata readers, so the shapes
//! stay beside them.

use serde_json::{Map, Value};

use crate::model::{
    Condition, FailureWhen, SchemaSource, ToolMetadata, ToolRegistry, ToolSpec, ValueOrigin,
    registry::REGEX_SIZE_LIMIT,
};

use super::SourceError;
use super::contract;
use super::keys::{self, Bad, Path, Seg};

/// How strictly unknown keys are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// A file the user writes (or saved): an unknown key is an error.
    Strict,
    /// A live server's reply: keys a newer protocol adds are not the user's to fix.
    Lenient,
}

/// Parse a tools file's text. `path` names the source in errors and in the report; an error
/// names the file's line and column.
pub fn parse_tools_str(text: &str, path: &str) -> Result<ToolRegistry, SourceError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| SourceError::Invalid {
        source_name: format!("{path}:{}:{}", e.line(), e.column()),
        message: if e.to_string().starts_with("recursion limit exceeded") {
            "invalid JSON: nested deeper than the limit of 128 levels".to_owned()
        } else {
            format!("invalid JSON: {e}")
        },
    })?;
    parse_document(&value, path, Keys::Strict).map_err(|bad| {
        let source_name = match keys::locate(text, &bad.path) {
            Some((line, column)) => format!("{path}:{line}:{column}"),
            None => path.to_owned(),
        };
        SourceError::Invalid {
            source_name,
            message: bad.message,
        }
    })
}

/// Parse a tools document already read as JSON (errors name the source, not a line).
pub fn parse_tools_value(value: &Value, path: &str) -> Result<ToolRegistry, SourceError> {
    parse_with(value, path, Keys::Strict)
}

/// Parse a tools document with the given key strictness.
pub(crate) fn parse_with(
    value: &Value,
    path: &str,
    strictness: Keys,
) -> Result<ToolRegistry, SourceError> {
    parse_document(value, path, strictness).map_err(|bad| SourceError::Invalid {
        source_name: path.to_owned(),
        message: bad.message,
    })
}

fn parse_document(value: &Value, path: &str, strictness: Keys) -> Result<ToolRegistry, Bad> {
    let err = |at: Path, message: String| Bad::new(at, message);
    let source = SchemaSource(path.to_owned());
    let mut registry = ToolRegistry::new();
    registry.sources.push(path.to_owned());
    let items: Vec<(Path, &Value, Option<&str>)> = match value {
        Value::Array(items) => indexed(items, &[]),
        Value::Object(top) => {
            if let Some(closed) = top.get("closed") {
                registry.closed = closed.as_bool().ok_or_else(|| {
                    err(
                        vec![Seg::Key("closed".into())],
                        "`closed` must be true or false".into(),
                    )
                })?;
            }
            if let Some(v) = top.get("off_limits") {
                registry.off_limits = Some(contract::parse_off_limits(
                    v,
                    &[Seg::Key("off_limits".into())],
                )?);
            }
            // A raw JSON-RPC reply to tools/list, in any protocol era.
            let (tools, at) = match top.get("result").and_then(|r| r.get("tools")) {
                Some(t) => (
                    Some(t),
                    vec![Seg::Key("result".into()), Seg::Key("tools".into())],
                ),
                None => (top.get("tools"), vec![Seg::Key("tools".into())]),
            };
            // A logged model request (`{"model", "messages", "tools"}`) carries its own keys.
            let request = top.contains_key("messages") || top.contains_key("model");
            if strictness == Keys::Strict
                && !request
                && (tools.is_some() || top.contains_key("result"))
            {
                keys::check(top, &[], "the tools file", keys::TOP, &[])?;
                if let Some(Value::Object(result)) = top.get("result") {
                    keys::check(
                        result,
                        &[Seg::Key("result".into())],
                        "the `tools/list` result",
                        keys::RESULT,
                        &[],
                    )?;
                }
            }
            match tools {
                Some(Value::Array(items)) => indexed(items, &at),
                Some(Value::Object(map)) => map
                    .iter()
                    .map(|(name, v)| (keys::key(&at, name), v, Some(name.as_str())))
                    .collect(),
                Some(_) => {
                    return Err(err(at, "`tools` must be a list or a map of tools".into()));
                }
                None => {
                    // An object of named tool lists (tau-bench keeps one list per domain).
                    let groups: Vec<_> = top
                        .iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "closed" | "off_limits"))
                        .collect();
                    if groups.is_empty() && registry.off_limits.is_some() {
                        // A contract that holds only the policy.
                        Vec::new()
                    } else if groups.is_empty() || !groups.iter().all(|(_, v)| v.is_array()) {
                        return Err(err(
                            Vec::new(),
                            "no tools found: expected `{\"tools\": [...]}`, a JSON array of tools, a `tools/list` reply, or the Python tracelint's `{\"tools\": {name: {...}}}`".into(),
                        ));
                    } else {
                        groups
                            .into_iter()
                            .flat_map(|(k, v)| {
                                indexed(
                                    v.as_array().map(Vec::as_slice).unwrap_or(&[]),
                                    &[Seg::Key(k.clone())],
                                )
                            })
                            .collect()
                    }
                }
            }
        }
        _ => {
            return Err(err(
                Vec::new(),
                "a tools file must hold a JSON object or array".into(),
            ));
        }
    };
    let mut requirements: Vec<(Path, String, usize)> = Vec::new();
    for (at, item, map_name) in items {
        let shown = display(&at);
        let spec = parse_tool(item, map_name, &source, &at, strictness).map_err(|b| Bad {
            message: format!("{shown}: {}", b.message),
            ..b
        })?;
        // A regex past the size limit can never be checked: say so now, not per call. (A broken
        // regex is R1's per-call suppression, like any schema it cannot compile.)
        if let Some(p) = spec
            .schema
            .as_ref()
            .and_then(crate::model::patterns::first_problem)
            .filter(|p| p.too_big)
        {
            return Err(err(at, format!("{shown}: tool `{}`: {p}", spec.name)));
        }
        for i in 0..spec.metadata.requires.len() {
            requirements.push((at.clone(), spec.name.clone(), i));
        }
        registry
            .insert(spec)
            .map_err(|d| err(at.clone(), d.to_string()))?;
    }
    check_requirements(&registry, &requirements)?;
    Ok(registry)
}

/// A `requires` that names no declared tool while a declared one is close (`get_ordr`), or a
/// `same` argument the dependent tool's schema does not have: almost surely a typo, which would
/// make R9 fire on every call.
fn check_requirements(registry: &ToolRegistry, reqs: &[(Path, String, usize)]) -> Result<(), Bad> {
    for (at, name, i) in reqs {
        let Some(spec) = registry.get(name) else {
            continue;
        };
        let r = &spec.metadata.requires[*i];
        let mut here = at.clone();
        here.extend([
            Seg::Key("metadata".into()),
            Seg::Key("requires".into()),
            Seg::Index(*i),
        ]);
        if registry.get(&r.tool).is_none()
            && let Some(near) = crate::suggest::closest_name(&r.tool, registry.names())
        {
            return Err(Bad::new(
                keys::key(&here, "tool"),
                format!(
                    "{}: tool `{name}` requires `{}`, which no tool here declares: did you mean `{near}`?",
                    display(at),
                    r.tool
                ),
            ));
        }
        let props = spec
            .schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        if let Some(props) = props
            && let Some(arg) = r.same.iter().find(|a| !props.contains_key(a.as_str()))
        {
            let hint = crate::suggest::closest_name(arg, props.keys().map(String::as_str))
                .map(|n| format!(": did you mean `{n}`?"))
                .unwrap_or_else(|| ": name arguments of its input schema".into());
            return Err(Bad::new(
                keys::key(&here, "same"),
                format!(
                    "{}: tool `{name}` requires the same `{arg}` as `{}`, but its input schema has no argument `{arg}`{hint}",
                    display(at),
                    r.tool
                ),
            ));
        }
    }
    Ok(())
}

fn indexed<'a>(items: &'a [Value], prefix: &[Seg]) -> Vec<(Path, &'a Value, Option<&'a str>)> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut at = prefix.to_vec();
            at.push(Seg::Index(i));
            (at, v, None)
        })
        .collect()
}

/// A path as the messages write it: `tools[0]`, `tools.get_order`, `result.tools[3]`.
fn display(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// One tool entry of any shape.
fn parse_tool(
    item: &Value,
    map_name: Option<&str>,
    source: &SchemaSource,
    at: &[Seg],
    strictness: Keys,
) -> Result<ToolSpec, Bad> {
    let Value::Object(obj) = item else {
        return Err(Bad::new(at.to_vec(), "a tool must be an object"));
    };
    // OpenAI: {"type": "function", "function": {name, parameters}}.
    let (body, outer, body_at) = match obj.get("function") {
        Some(Value::Object(f)) => (f, Some(obj), keys::key(at, "function")),
        _ => (obj, None, at.to_vec()),
    };
    let name = match (body.get("name"), map_name) {
        (Some(Value::String(n)), _) => n.clone(),
        (None, Some(n)) => n.to_owned(),
        _ => return Err(Bad::new(at.to_vec(), "a tool needs a string `name`")),
    };
    let what = format!("tool `{name}`");
    // A provider's built-in tool (`{"type": "web_search_20250305", …}`) carries settings of its
    // own; every other shape is checked key by key.
    let builtin = obj
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| !matches!(t, "function" | "custom"));
    if strictness == Keys::Strict && !builtin {
        keys::check(body, &body_at, &what, keys::TOOL, &[])?;
        if let Some(outer) = outer {
            keys::check(outer, at, &what, keys::TOOL, &[])?;
        }
    }
    let schema = ["inputSchema", "input_schema", "parameters", "schema"]
        .iter()
        .find_map(|k| body.get(*k))
        .filter(|v| !v.is_null())
        .cloned();
    let mut spec = ToolSpec::new(name.clone(), schema, source.clone());
    if let Some(v) = body.get("builtin") {
        spec.builtin_of = builtin_of(v, &keys::key(&body_at, "builtin"), &name)?;
    }
    let prefix = |b: Bad| Bad {
        message: format!("tool `{name}`: {}", b.message),
        ..b
    };
    for k in ["outputSchema", "output_schema"] {
        if let Some(os) = body.get(k).filter(|v| !v.is_null()) {
            if strictness == Keys::Strict {
                contract::check_output_schema(os, keys::key(&body_at, k)).map_err(prefix)?;
            }
            spec.output_schema = Some(os.clone());
        }
    }
    if let Some(Value::Object(ann)) = body.get("annotations") {
        spec.metadata = metadata_from_annotations(ann);
    }
    let (meta, meta_at) = match (body.get("metadata"), outer.and_then(|o| o.get("metadata"))) {
        (Some(m), _) => (Some(m), keys::key(&body_at, "metadata")),
        (None, Some(m)) => (Some(m), keys::key(at, "metadata")),
        (None, None) => (None, Vec::new()),
    };
    if let Some(meta) = meta {
        let declared = metadata_at(meta, &meta_at).map_err(prefix)?;
        if spec.output_schema.is_none()
            && let Some(os) = meta.get("output_schema").filter(|v| !v.is_null())
        {
            contract::check_output_schema(os, keys::key(&meta_at, "output_schema"))
                .map_err(prefix)?;
            spec.output_schema = Some(os.clone());
        }
        spec.metadata.overlay(&declared);
    }
    if let Some(origins) = body.get("value_origins") {
        let origins_at = keys::key(&body_at, "value_origins");
        let Value::Object(map) = origins else {
            return Err(Bad::new(
                origins_at,
                format!(
                    "tool `{name}`: `value_origins` must map fields to \"provided\", \"generated\", \"choice\" or \"created\""
                ),
            ));
        };
        for (field, v) in map {
            let origin = v.as_str().and_then(ValueOrigin::parse).ok_or_else(|| {
                Bad::new(
                    keys::key(&origins_at, field),
                    format!(
                        "tool `{name}`: `value_origins.{field}` must be \"provided\", \"generated\", \"choice\" or \"created\""
                    ),
                )
            })?;
            spec.value_origins.insert(field.clone(), origin);
        }
    }
    Ok(spec)
}

/// A tool's `builtin`: the coding agents (`"builtin:claude-code"`, or a list) whose built-in
/// schema of the tool applies to their own sessions, matched to each session's version.
fn builtin_of(v: &Value, at: &[Seg], name: &str) -> Result<Vec<String>, Bad> {
    let bad = || {
        let names: Vec<String> = crate::sources::builtin::Agent::ALL
            .iter()
            .map(|a| format!("\"{}\"", a.source()))
            .collect();
        Bad::new(
            at.to_vec(),
            format!(
                "tool `{name}`: `builtin` names the coding agents whose built-in schema of the tool applies to their sessions: one of {}, or a list of them (no version: each session's own is used)",
                names.join(", ")
            ),
        )
    };
    let items: Vec<&Value> = match v {
        Value::Array(a) if !a.is_empty() => a.iter().collect(),
        Value::String(_) => vec![v],
        _ => return Err(bad()),
    };
    let mut out = Vec::new();
    for item in items {
        let agent = item
            .as_str()
            .and_then(|s| crate::sources::builtin::Agent::ALL.iter().find(|a| a.source() == s))
            .ok_or_else(bad)?;
        if !out.iter().any(|s: &String| s == agent.source()) {
            out.push(agent.source().to_owned());
        }
    }
    Ok(out)
}

/// MCP tool annotations → metadata, only where the server states them (SPEC §3).
pub fn metadata_from_annotations(ann: &Map<String, Value>) -> ToolMetadata {
    let hint = |k: &str| ann.get(k).and_then(Value::as_bool);
    let mut m = ToolMetadata::default();
    match (hint("readOnlyHint"), hint("destructiveHint")) {
        (Some(true), _) => m.side_effecting = Some(false),
        (Some(false), _) | (None, Some(true)) => m.side_effecting = Some(true),
        _ => {}
    }
    if hint("idempotentHint") == Some(true) {
        m.idempotent = Some(true);
    }
    m.open_world = hint("openWorldHint");
    m
}

/// Parse and validate a `metadata` object on its own (the config's per-tool overrides), where
/// an output schema cannot go: it belongs to the tool in its tools file.
pub fn parse_metadata(v: &Value) -> Result<ToolMetadata, String> {
    if v.get("output_schema").is_some() {
        return Err(
            "`output_schema` cannot be overridden here: declare it with the tool in its tools file"
                .into(),
        );
    }
    metadata_at(v, &[]).map_err(|b| b.message)
}

fn metadata_at(v: &Value, at: &[Seg]) -> Result<ToolMetadata, Bad> {
    let Value::Object(m) = v else {
        return Err(Bad::new(at.to_vec(), "`metadata` must be an object"));
    };
    keys::check(
        m,
        at,
        "`metadata`",
        keys::METADATA,
        keys::METADATA_TOLERATED,
    )?;
    let here = |k: &str| keys::key(at, k);
    let flag = |k: &str| -> Result<Option<bool>, Bad> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(Bad::new(here(k), format!("`{k}` must be true or false"))),
        }
    };
    let retryable_errors = match m.get("retryable_errors") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(_) => {
            return Err(Bad::new(
                here("retryable_errors"),
                "`retryable_errors` must be a list of strings",
            ));
        }
    };
    let requires = match m.get("requires") {
        None | Some(Value::Null) => Vec::new(),
        Some(r) => contract::parse_requires(r, &here("requires"))?,
    };
    Ok(ToolMetadata {
        side_effecting: flag("side_effecting")?,
        idempotent: flag("idempotent")?,
        open_world: flag("open_world")?,
        polling: flag("polling")?.unwrap_or(false),
        paginated: flag("paginated")?.unwrap_or(false),
        retryable_errors,
        failure_when: match m.get("failure_when") {
            None | Some(Value::Null) => None,
            Some(fw) => Some(
                parse_failure_when(fw)
                    .map_err(|e| Bad::new(here("failure_when"), format!("`failure_when`: {e}")))?,
            ),
        },
        extra_keys_tolerated: false,
        result_is_report: false,
        requires,
    })
}

/// Parse and validate a `failure_when` predicate.
pub fn parse_failure_when(v: &Value) -> Result<FailureWhen, String> {
    let Value::Object(m) = v else {
        return Err(
            "must be an object like {\"pointer\": \"/status\", \"in\": [\"declined\"]}".into(),
        );
    };
    const CONDITIONS: &[&str] = &["in", "equals", "exists", "contains", "matches"];
    for key in m.keys() {
        if key != "pointer" && key != "optional" && !CONDITIONS.contains(&key.as_str()) {
            return Err(format!(
                "unknown key `{key}` (expected `pointer` and one of `in`, `equals`, `exists`, `contains`, `matches`)"
            ));
        }
    }
    let pointer = match m.get("pointer") {
        Some(Value::String(p)) => p.clone(),
        None => String::new(),
        Some(_) => return Err("`pointer` must be a string (an RFC 6901 JSON Pointer)".into()),
    };
    if !pointer.is_empty() && !pointer.starts_with('/') && pointer.contains('/') {
        // A bare name is one top-level key; with a `/` inside it can only be a pointer missing
        // its leading `/`, which would never match.
        return Err(format!(
            "`pointer` {pointer:?} is not a JSON Pointer: one starts with `/` (\"/{pointer}\"); a bare name is read as a single top-level key"
        ));
    }
    if pointer.starts_with('/') {
        // RFC 6901: `~` must be followed by 0 or 1.
        let mut chars = pointer.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '~' && !matches!(chars.peek(), Some('0' | '1')) {
                return Err(format!(
                    "`pointer` {pointer:?} is not a valid JSON Pointer (`~` must be `~0` or `~1`)"
                ));
            }
        }
    }
    let optional = match m.get("optional") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`optional` must be true or false".into()),
    };
    let present: Vec<&str> = CONDITIONS
        .iter()
        .copied()
        .filter(|k| m.contains_key(*k))
        .collect();
    let condition = match present.as_slice() {
        [] if pointer.is_empty() => {
            return Err("needs a `pointer` or a condition (`in`, `equals`, `exists`, `contains`, `matches`)".into());
        }
        [] => Condition::Exists,
        ["in"] => match &m["in"] {
            Value::Array(values) if !values.is_empty() => Condition::In(values.clone()),
            _ => return Err("`in` must be a non-empty list".into()),
        },
        ["equals"] => Condition::Equals(m["equals"].clone()),
        ["exists"] => match &m["exists"] {
            Value::Bool(true) => Condition::Exists,
            _ => return Err("`exists` must be true".into()),
        },
        ["contains"] => match &m["contains"] {
            Value::String(s) if !s.is_empty() => Condition::Contains(s.clone()),
            _ => return Err("`contains` must be a non-empty string".into()),
        },
        ["matches"] => match &m["matches"] {
            Value::String(s) => Condition::Matches(
                regex::RegexBuilder::new(s)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .dfa_size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|e| match e {
                        regex::Error::CompiledTooBig(_) => format!(
                            "`matches` compiles to more than the regex size limit of {REGEX_SIZE_LIMIT} bytes"
                        ),
                        e => format!(
                            "`matches` is not a usable regex: {}",
                            one_line(&e.to_string())
                        ),
                    })?,
            ),
            _ => return Err("`matches` must be a string (a regex)".into()),
        },
        several => {
            return Err(format!(
                "has several conditions ({}); give exactly one",
                several
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    };
    Ok(FailureWhen {
        pointer,
        condition,
        optional,
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
