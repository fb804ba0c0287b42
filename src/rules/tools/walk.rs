//! Walking a tool's input schema, bounded in depth and count (`walk`), the parameters it
//! declares with their JSON pointers (`parameters`), and values shortened for messages (`shown`,
//! `cut`): what the tool-definition rules share.

use serde_json::{Map, Value};

use crate::model::toolset::{ToolDef, escape_token};

/// Deepest subschema the walkers descend to (a hostile schema nests deeper than any real one).
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// Most subschemas of one tool the walkers visit.
pub const MAX_SUBSCHEMAS: usize = 20_000;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "items",
];

/// Keywords whose value is a map of subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Visit every object subschema of `schema` (itself first) with its pointer (`base` + path),
/// depth-first in key order, bounded by `MAX_SCHEMA_DEPTH` and `MAX_SUBSCHEMAS`.
pub fn walk(schema: &Value, base: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    let mut budget = MAX_SUBSCHEMAS;
    walk_at(schema, base.to_owned(), 0, &mut budget, visit);
}

/// A value's JSON text cut to `max` characters (for messages and excerpts).
pub fn shown(v: &Value, max: usize) -> String {
    let s = v.to_string();
    cut(&s, max)
}

/// `s` cut to `max` characters, ending in `…` when cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// The tool's top-level parameters: `(name, schema, pointer)`.
pub fn parameters(tool: &ToolDef) -> Vec<(&str, &Value, String)> {
    let Some(props) = tool
        .schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let base = format!("{}/properties", tool.schema_pointer());
    props
        .iter()
        .map(|(k, v)| (k.as_str(), v, format!("{base}/{}", escape_token(k))))
        .collect()
}

fn walk_at(
    schema: &Value,
    at: String,
    depth: usize,
    budget: &mut usize,
    visit: &mut dyn FnMut(&Map<String, Value>, &str),
) {
    let Value::Object(map) = schema else { return };
    if depth > MAX_SCHEMA_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    visit(map, &at);
    for (k, v) in map {
        let here = || format!("{at}/{}", escape_token(k));
        if ONE.contains(&k.as_str()) && v.is_object() {
            walk_at(v, here(), depth + 1, budget, visit);
        }
        if MAP.contains(&k.as_str())
            && let Value::Object(members) = v
        {
            let prefix = here();
            for (name, sub) in members {
                walk_at(
                    sub,
                    format!("{prefix}/{}", escape_token(name)),
                    depth + 1,
                    budget,
                    visit,
                );
            }
        }
        if LIST.contains(&k.as_str())
            && let Value::Array(items) = v
        {
            let prefix = here();
            for (i, sub) in items.iter().enumerate() {
                walk_at(sub, format!("{prefix}/{i}"), depth + 1, budget, visit);
            }
        }
    }
}
