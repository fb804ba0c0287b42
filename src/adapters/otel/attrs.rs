//! Span attributes in every encoding → one flat map of dotted keys to JSON values: OTLP
//! `[{key, value: AnyValue}]` lists (camelCase or snake_case wrappers, `intValue` as a decimal
//! string), plain maps, and Phoenix dataframe cells whose message lists come back unflattened.
//! Also the two views the dialect readers need: the numbered groups under a prefix
//! (`llm.input_messages.3.message.role`) and a flattened subtree rebuilt as JSON
//! (`tool.parameters.properties.x.type`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Flat span attributes, sorted by key.
pub type Attrs = BTreeMap<String, Value>;

/// Attribute keys whose values are structured on purpose (GenAI semconv records these as JSON
/// values); they are kept whole, never flattened.
const STRUCTURED: &[&str] = &[
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "input",
    "output",
    "tool_arguments",
    "tool_response",
];

/// List-valued attributes OpenInference flattens with indices; Phoenix's dataframe returns
/// them as lists of objects, which are flattened back here.
const INDEXED_LISTS: &[&str] = &[
    "input_messages",
    "output_messages",
    "tools",
    "contents",
    "tool_calls",
];

/// Deepest nesting flattened.
const MAX_DEPTH: usize = 24;

/// The value an OTLP `AnyValue` wrapper holds (`{"stringValue": "x"}` → `"x"`), or the value
/// itself when it is not a wrapper.
pub fn any_value(v: &Value) -> Value {
    let Some(o) = v.as_object().filter(|o| o.len() == 1) else {
        return v.clone();
    };
    let Some((k, inner)) = o.iter().next() else {
        return v.clone();
    };
    match k.as_str() {
        "stringValue" | "string_value" | "boolValue" | "bool_value" | "doubleValue"
        | "double_value" | "bytesValue" | "bytes_value" => inner.clone(),
        "intValue" | "int_value" => match inner {
            Value::String(s) => s
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| inner.clone()),
            other => other.clone(),
        },
        "arrayValue" | "array_value" => Value::Array(
            inner
                .get("values")
                .and_then(Value::as_array)
                .map(|vs| vs.iter().map(any_value).collect())
                .unwrap_or_default(),
        ),
        "kvlistValue" | "kvlist_value" => {
            let mut m = Map::new();
            for kv in inner
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(key) = kv.get("key").and_then(Value::as_str) {
                    m.insert(
                        key.to_owned(),
                        kv.get("value").map(any_value).unwrap_or(Value::Null),
                    );
                }
            }
            Value::Object(m)
        }
        _ => v.clone(),
    }
}

/// Attributes from any encoding: an OTLP key/value list or a map (nested or flat).
pub fn read(v: Option<&Value>) -> Attrs {
    let mut out = Attrs::new();
    match v {
        Some(Value::Array(list)) => {
            for kv in list {
                if let Some(key) = kv.get("key").and_then(Value::as_str) {
                    let value = kv.get("value").map(any_value).unwrap_or(Value::Null);
                    insert(&mut out, key.to_owned(), value, 0);
                }
            }
        }
        Some(Value::Object(m)) => {
            for (k, v) in m {
                insert(&mut out, k.clone(), v.clone(), 0);
            }
        }
        _ => {}
    }
    out
}

/// Insert one attribute, flattening nested objects (and OpenInference's message lists) into
/// dotted keys.
pub fn insert(out: &mut Attrs, key: String, value: Value, depth: usize) {
    let last = key.rsplit('.').next().unwrap_or(&key);
    // Nested OpenInference (`{"input": {"value": …, "mime_type": …}}`) is not a structured
    // GenAI `input`.
    let open_io = matches!(key.as_str(), "input" | "output") && value.get("value").is_some();
    let keep_whole = depth >= MAX_DEPTH || (STRUCTURED.contains(&key.as_str()) && !open_io);
    match value {
        Value::Object(m) if !keep_whole && !m.is_empty() => {
            for (k, v) in m {
                insert(out, format!("{key}.{k}"), v, depth + 1);
            }
        }
        Value::Array(items)
            if !keep_whole
                && INDEXED_LISTS.contains(&last)
                && !items.is_empty()
                && items.iter().all(Value::is_object) =>
        {
            for (i, v) in items.into_iter().enumerate() {
                insert(out, format!("{key}.{i}"), v, depth + 1);
            }
        }
        other => {
            out.insert(key, other);
        }
    }
}

/// The numbered groups under `prefix` (`llm.input_messages` → `0` → {`message.role`: …}), in
/// numeric order whatever the key order, each a map of the remaining key path to its value.
pub fn indexed<'a>(attrs: &'a Attrs, prefix: &str) -> Vec<BTreeMap<&'a str, &'a Value>> {
    let start = format!("{prefix}.");
    let mut groups: BTreeMap<u64, BTreeMap<&'a str, &'a Value>> = BTreeMap::new();
    for (k, v) in attrs.range(start.clone()..) {
        let Some(rest) = k.strip_prefix(start.as_str()) else {
            break;
        };
        let (index, tail) = rest.split_once('.').unwrap_or((rest, ""));
        if let Ok(i) = index.parse::<u64>() {
            groups.entry(i).or_default().insert(tail, v);
        }
    }
    groups.into_values().collect()
}

/// The numbered groups inside one group's map (`message.tool_calls` of one message).
pub fn sub_indexed<'a>(
    group: &BTreeMap<&'a str, &'a Value>,
    prefix: &str,
) -> Vec<BTreeMap<&'a str, &'a Value>> {
    let start = format!("{prefix}.");
    let mut groups: BTreeMap<u64, BTreeMap<&'a str, &'a Value>> = BTreeMap::new();
    for (k, v) in group {
        let Some(rest) = k.strip_prefix(start.as_str()) else {
            continue;
        };
        let (index, tail) = rest.split_once('.').unwrap_or((rest, ""));
        if let Ok(i) = index.parse::<u64>() {
            groups.entry(i).or_default().insert(tail, *v);
        }
    }
    groups.into_values().collect()
}

/// Rebuild the JSON a flattened subtree encodes (`tool.parameters.properties.x.type` →
/// `{"properties": {"x": {"type": …}}}`); numbered levels become arrays. `None` when nothing
/// is under `prefix`.
pub fn unflatten(attrs: &Attrs, prefix: &str) -> Option<Value> {
    let start = format!("{prefix}.");
    let mut root = Value::Object(Map::new());
    let mut any = false;
    for (k, v) in attrs.range(start.clone()..) {
        let Some(rest) = k.strip_prefix(start.as_str()) else {
            break;
        };
        let parts: Vec<&str> = rest.split('.').collect();
        if parts.len() > MAX_DEPTH {
            continue;
        }
        any = true;
        let mut node = &mut root;
        for (i, part) in parts.iter().enumerate() {
            let Value::Object(m) = node else { break };
            if i + 1 == parts.len() {
                m.insert((*part).to_owned(), v.clone());
                break;
            }
            node = m
                .entry((*part).to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    any.then(|| arrays(root))
}

/// Objects whose keys are exactly `0..n` become arrays.
fn arrays(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let numbered = !m.is_empty()
                && m.keys().all(|k| k.parse::<usize>().is_ok())
                && (0..m.len()).all(|i| m.contains_key(&i.to_string()));
            if numbered {
                let mut items: Vec<(usize, Value)> = m
                    .into_iter()
                    .filter_map(|(k, v)| Some((k.parse().ok()?, arrays(v))))
                    .collect();
                items.sort_by_key(|(i, _)| *i);
                Value::Array(items.into_iter().map(|(_, v)| v).collect())
            } else {
                Value::Object(m.into_iter().map(|(k, v)| (k, arrays(v))).collect())
            }
        }
        other => other,
    }
}

/// A string attribute (numbers written as text are not strings here).
pub fn text<'a>(attrs: &'a Attrs, key: &str) -> Option<&'a str> {
    attrs
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn otlp_any_values() {
        let list = json!([
            {"key": "a", "value": {"stringValue": "x"}},
            {"key": "n", "value": {"intValue": "98"}},
            {"key": "s", "value": {"string_value": "snake"}},
            {"key": "l", "value": {"arrayValue": {"values": [{"stringValue": "stop"}]}}},
            {"key": "m", "value": {"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": true}}]}}}
        ]);
        let a = read(Some(&list));
        assert_eq!(a["a"], json!("x"));
        assert_eq!(a["n"], json!(98));
        assert_eq!(a["s"], json!("snake"));
        assert_eq!(a["l"], json!(["stop"]));
        assert_eq!(a["m.k"], json!(true));
    }

    #[test]
    fn dataframe_message_lists_are_flattened_back() {
        let cells = json!({
            "llm.input_messages": [{"message.role": "user", "message.content": "hi"}],
            "gen_ai.response.finish_reasons": ["stop"],
            "gen_ai.tool.call.arguments": {"city": "Paris"},
            "llm": {"model_name": "m"}
        });
        let a = read(Some(&cells));
        assert_eq!(a["llm.input_messages.0.message.role"], json!("user"));
        assert_eq!(a["gen_ai.response.finish_reasons"], json!(["stop"]));
        assert_eq!(a["gen_ai.tool.call.arguments"], json!({"city": "Paris"}));
        assert_eq!(a["llm.model_name"], json!("m"));
    }

    #[test]
    fn indexed_groups_in_numeric_order() {
        let a = read(Some(&json!({
            "llm.input_messages.10.message.role": "user",
            "llm.input_messages.2.message.role": "assistant",
            "llm.input_messages.2.message.tool_calls.0.tool_call.id": "c",
            "llm.input_messages_count": 3
        })));
        let g = indexed(&a, "llm.input_messages");
        assert_eq!(g.len(), 2);
        assert_eq!(g[0]["message.role"], &json!("assistant"));
        assert_eq!(g[1]["message.role"], &json!("user"));
        let calls = sub_indexed(&g[0], "message.tool_calls");
        assert_eq!(calls[0]["tool_call.id"], &json!("c"));
    }

    #[test]
    fn flattened_schemas_are_rebuilt() {
        let a = read(Some(&json!({
            "tool.parameters.type": "object",
            "tool.parameters.required": ["x"],
            "tool.parameters.properties.x.anyOf.0.type": "string",
            "tool.parameters.properties.x.anyOf.1.type": "null",
            "tool.name": "t"
        })));
        assert_eq!(
            unflatten(&a, "tool.parameters"),
            Some(json!({"type": "object", "required": ["x"],
                        "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}))
        );
        assert_eq!(unflatten(&a, "tool.nothing"), None);
        // A key nested beyond reason is not rebuilt (and cannot exhaust the stack).
        let deep = format!("tool.parameters{}", ".a".repeat(100_000));
        let a = read(Some(&json!({ deep: 1 })));
        assert_eq!(unflatten(&a, "tool.parameters"), None);
    }
}
