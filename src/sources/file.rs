//! Tools files: every shape of SPEC §3 — an MCP-style `{"tools": [...]}` list, a bare array, OpenAI
//! tools, Anthropic tools, a raw MCP `tools/list` JSON-RPC reply, seed 002's map
//! `{"tools": {name: {schema, metadata, value_origins}}}`, and an object of named tool arrays
//! (tau-bench's `{"airline": [...], "retail": [...]}`). Per-tool `metadata` is honoured in every
//! shape; a malformed `metadata` (including `failure_when`) is an error, never a looser gate.

use serde_json::{Map, Value};

use crate::model::{
    Condition, FailureWhen, SchemaSource, ToolMetadata, ToolRegistry, ToolSpec, ValueOrigin,
    registry::REGEX_SIZE_LIMIT,
};

use super::SourceError;

/// Parse a tools file's text. `path` names the source in errors and in the report.
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
    parse_tools_value(&value, path)
}

/// Parse a tools document already read as JSON.
pub fn parse_tools_value(value: &Value, path: &str) -> Result<ToolRegistry, SourceError> {
    let err = |message: String| SourceError::Invalid {
        source_name: path.to_owned(),
        message,
    };
    let source = SchemaSource(path.to_owned());
    let mut registry = ToolRegistry::new();
    registry.sources.push(path.to_owned());
    let items: Vec<(String, &Value, Option<&str>)> = match value {
        Value::Array(items) => indexed(items, ""),
        Value::Object(top) => {
            if let Some(closed) = top.get("closed") {
                registry.closed = closed
                    .as_bool()
                    .ok_or_else(|| err("`closed` must be true or false".into()))?;
            }
            // A raw JSON-RPC reply to tools/list, in any protocol era.
            let tools = top
                .get("result")
                .and_then(|r| r.get("tools"))
                .or_else(|| top.get("tools"));
            match tools {
                Some(Value::Array(items)) => indexed(items, "tools"),
                Some(Value::Object(map)) => map
                    .iter()
                    .map(|(name, v)| (format!("tools.{name}"), v, Some(name.as_str())))
                    .collect(),
                Some(_) => return Err(err("`tools` must be a list or a map of tools".into())),
                None => {
                    // An object of named tool lists (tau-bench keeps one list per domain).
                    let groups: Vec<_> =
                        top.iter().filter(|(k, _)| k.as_str() != "closed").collect();
                    if groups.is_empty() || !groups.iter().all(|(_, v)| v.is_array()) {
                        return Err(err(
                            "no tools found: expected `{\"tools\": [...]}`, a JSON array of tools, a `tools/list` reply, or seed 002's `{\"tools\": {name: {...}}}`".into(),
                        ));
                    }
                    groups
                        .into_iter()
                        .flat_map(|(k, v)| {
                            indexed(v.as_array().map(Vec::as_slice).unwrap_or(&[]), k)
                        })
                        .collect()
                }
            }
        }
        _ => return Err(err("a tools file must hold a JSON object or array".into())),
    };
    for (at, item, map_name) in items {
        let spec = parse_tool(item, map_name, &source).map_err(|m| err(format!("{at}: {m}")))?;
        // A regex past the size limit can never be checked: say so now, not per call. (A broken
        // regex is R1's per-call suppression, like any schema it cannot compile.)
        if let Some(p) = spec
            .schema
            .as_ref()
            .and_then(crate::model::patterns::first_problem)
            .filter(|p| p.too_big)
        {
            return Err(err(format!("{at}: tool `{}`: {p}", spec.name)));
        }
        registry.insert(spec).map_err(|d| err(d.to_string()))?;
    }
    Ok(registry)
}

fn indexed<'a>(items: &'a [Value], prefix: &str) -> Vec<(String, &'a Value, Option<&'a str>)> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let at = if prefix.is_empty() {
                format!("[{i}]")
            } else {
                format!("{prefix}[{i}]")
            };
            (at, v, None)
        })
        .collect()
}

/// One tool entry of any shape.
fn parse_tool(
    item: &Value,
    map_name: Option<&str>,
    source: &SchemaSource,
) -> Result<ToolSpec, String> {
    let Value::Object(obj) = item else {
        return Err("a tool must be an object".into());
    };
    // OpenAI: {"type": "function", "function": {name, parameters}}.
    let (body, outer) = match obj.get("function") {
        Some(Value::Object(f)) => (f, Some(obj)),
        _ => (obj, None),
    };
    let name = match (body.get("name"), map_name) {
        (Some(Value::String(n)), _) => n.clone(),
        (None, Some(n)) => n.to_owned(),
        _ => return Err("a tool needs a string `name`".into()),
    };
    let schema = ["inputSchema", "input_schema", "parameters", "schema"]
        .iter()
        .find_map(|k| body.get(*k))
        .filter(|v| !v.is_null())
        .cloned();
    let mut spec = ToolSpec::new(name.clone(), schema, source.clone());
    spec.output_schema = body
        .get("outputSchema")
        .or_else(|| body.get("output_schema"))
        .cloned();
    if let Some(Value::Object(ann)) = body.get("annotations") {
        spec.metadata = metadata_from_annotations(ann);
    }
    let meta = body
        .get("metadata")
        .or_else(|| outer.and_then(|o| o.get("metadata")));
    if let Some(meta) = meta {
        let declared = parse_metadata(meta).map_err(|m| format!("tool `{name}`: {m}"))?;
        spec.metadata.overlay(&declared);
    }
    if let Some(origins) = body.get("value_origins") {
        let Value::Object(map) = origins else {
            return Err(format!(
                "tool `{name}`: `value_origins` must map fields to \"provided\", \"generated\", \"choice\" or \"created\""
            ));
        };
        for (field, v) in map {
            let origin = v.as_str().and_then(ValueOrigin::parse).ok_or_else(|| {
                format!(
                    "tool `{name}`: `value_origins.{field}` must be \"provided\", \"generated\", \"choice\" or \"created\""
                )
            })?;
            spec.value_origins.insert(field.clone(), origin);
        }
    }
    Ok(spec)
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
    m
}

/// Metadata keys tracelint reads, plus keys other tools' contracts carry that it tolerates.
const METADATA_KEYS: &[&str] = &[
    "side_effecting",
    "idempotent",
    "polling",
    "paginated",
    "retryable_errors",
    "failure_when",
];
const TOLERATED_KEYS: &[&str] = &[
    "requires",
    "output_schema",
    "destructive",
    "open_world",
    "confirmed_by",
    "_todo",
    "$comment",
    "description",
];

/// Parse and validate a `metadata` object.
pub fn parse_metadata(v: &Value) -> Result<ToolMetadata, String> {
    let Value::Object(m) = v else {
        return Err("`metadata` must be an object".into());
    };
    for key in m.keys() {
        if !METADATA_KEYS.contains(&key.as_str()) && !TOLERATED_KEYS.contains(&key.as_str()) {
            let hint = crate::suggest::closest_name(key, METADATA_KEYS.iter().copied())
                .map(|k| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            return Err(format!("unknown metadata key `{key}`{hint}"));
        }
    }
    let flag = |k: &str| -> Result<Option<bool>, String> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("`{k}` must be true or false")),
        }
    };
    let retryable_errors = match m.get("retryable_errors") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_owned)
                    .ok_or("`retryable_errors` must be a list of strings")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`retryable_errors` must be a list of strings".into()),
    };
    Ok(ToolMetadata {
        side_effecting: flag("side_effecting")?,
        idempotent: flag("idempotent")?,
        polling: flag("polling")?.unwrap_or(false),
        paginated: flag("paginated")?.unwrap_or(false),
        retryable_errors,
        failure_when: match m.get("failure_when") {
            None | Some(Value::Null) => None,
            Some(fw) => Some(parse_failure_when(fw).map_err(|e| format!("`failure_when`: {e}"))?),
        },
        extra_keys_tolerated: false,
        result_is_report: false,
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
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failure_when_validation() {
        assert!(parse_failure_when(&json!({"pointer": "/status", "in": ["declined"]})).is_ok());
        assert!(matches!(
            parse_failure_when(&json!({"pointer": "/error"}))
                .unwrap()
                .condition,
            Condition::Exists
        ));
        let bad = [
            (
                json!({"pointer": "/s", "in": "x"}),
                "`in` must be a non-empty list",
            ),
            (
                json!({"pointer": "/s", "in": [1], "equals": 1}),
                "has several conditions (`in`, `equals`)",
            ),
            (
                json!({"pointer": "", "matches": "("}),
                "`matches` is not a usable regex",
            ),
            (json!({"pointer": "/s", "eq": 1}), "unknown key `eq`"),
            (json!({}), "needs a `pointer` or a condition"),
            (
                json!({"pointer": "/a~2", "exists": true}),
                "not a valid JSON Pointer",
            ),
            (
                json!({"pointer": 3, "exists": true}),
                "`pointer` must be a string",
            ),
            (
                json!({"pointer": "", "matches": "a{1000}{1000}"}),
                "`matches` compiles to more than the regex size limit of 1048576 bytes",
            ),
        ];
        for (v, want) in bad {
            let got = parse_failure_when(&v).unwrap_err();
            assert!(got.contains(want), "{v}: {got}");
        }
    }

    #[test]
    fn unknown_metadata_key_is_an_error_with_a_hint() {
        let err = parse_tools_str(
            r#"{"tools": [{"name": "t", "metadata": {"side_efecting": true}}]}"#,
            "tools.json",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "tools.json: tools[0]: tool `t`: unknown metadata key `side_efecting` (did you mean `side_effecting`?)"
        );
    }

    #[test]
    fn annotations_map_only_what_is_stated() {
        let m = |v: Value| metadata_from_annotations(v.as_object().unwrap());
        assert_eq!(m(json!({"readOnlyHint": true})).side_effecting, Some(false));
        assert_eq!(m(json!({"readOnlyHint": false})).side_effecting, Some(true));
        assert_eq!(
            m(json!({"destructiveHint": true})).side_effecting,
            Some(true)
        );
        assert_eq!(m(json!({"title": "x"})).side_effecting, None);
        assert_eq!(m(json!({"idempotentHint": true})).idempotent, Some(true));
    }

    #[test]
    fn explicit_metadata_wins_over_annotations() {
        let r = parse_tools_str(
            r#"{"tools": [{"name": "t", "inputSchema": {}, "annotations": {"readOnlyHint": true},
                 "metadata": {"side_effecting": true}}]}"#,
            "x",
        )
        .unwrap();
        assert_eq!(r.get("t").unwrap().metadata.side_effecting, Some(true));
    }

    #[test]
    fn invalid_json_names_line_and_column() {
        let err = parse_tools_str("{\n  \"tools\": [,]\n}", "tools.json").unwrap_err();
        assert!(
            err.to_string().starts_with("tools.json:2:13: invalid JSON"),
            "{err}"
        );
    }

    fn load(name: &str) -> ToolRegistry {
        let path = format!("{}/fixtures/tools/{name}", env!("CARGO_MANIFEST_DIR"));
        parse_tools_str(&std::fs::read_to_string(&path).unwrap(), name).unwrap()
    }

    fn assert_same_as_mcp_list(name: &str) {
        let want = load("mcp-list.json");
        let got = load(name);
        let names = |r: &ToolRegistry| r.names().map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(names(&got), names(&want), "{name}");
        for spec in want.iter() {
            let other = got.get(&spec.name).unwrap();
            assert!(
                spec.same_contract(other),
                "{name}: `{}` differs:\n{spec:#?}\n{other:#?}",
                spec.name
            );
        }
        let send = got.get("send_email").unwrap();
        assert_eq!(
            send.value_origins.get("to"),
            Some(&ValueOrigin::Provided),
            "{name}"
        );
        assert!(send.metadata.failure_when.is_some(), "{name}");
    }

    #[test]
    fn shape_bare_array() {
        assert_same_as_mcp_list("bare-array.json");
    }

    #[test]
    fn shape_openai_tools() {
        assert_same_as_mcp_list("openai.json");
    }

    #[test]
    fn shape_anthropic_tools() {
        assert_same_as_mcp_list("anthropic.json");
    }

    #[test]
    fn shape_tools_list_reply_with_annotations() {
        assert_same_as_mcp_list("tools-list-reply.json");
    }

    #[test]
    fn shape_seed002_map() {
        assert_same_as_mcp_list("seed002-map.json");
    }

    #[test]
    fn value_origins_map_alone() {
        let r = parse_tools_str(r#"{"tools": {"t": {"schema": {"type": "object"}, "value_origins": {"id": "provided", "key": "generated"}}}}"#, "x").unwrap();
        let t = r.get("t").unwrap();
        assert_eq!(t.value_origins["id"], ValueOrigin::Provided);
        assert_eq!(t.value_origins["key"], ValueOrigin::Generated);
        let e = parse_tools_str(
            r#"{"tools": {"t": {"value_origins": {"id": "maybe"}}}}"#,
            "x",
        )
        .unwrap_err();
        assert!(e.to_string().contains("`value_origins.id` must be"), "{e}");
    }

    #[test]
    fn duplicate_tool_across_groups_must_agree() {
        let e = parse_tools_str(r#"{"a": [{"name": "t", "parameters": {"type": "object"}}], "b": [{"name": "t", "parameters": {"type": "string"}}]}"#, "x").unwrap_err();
        assert!(
            e.to_string().contains("tool `t` is declared differently"),
            "{e}"
        );
    }
}
