//! The schema rules on what a schema declares of its own values: T3 required_not_declared (a
//! `required` name no property declares) and T4 value_fails_own_schema (a `default`, `enum`,
//! `const` or `examples` value its own schema rejects).

use serde_json::{Map, Value};

use super::t_schema::{each_schema, one_line};
use super::{ToolRule, ToolSink, ToolsCx, cut, shown, walk};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::schema as context;

/// `default` / `enum` / `const` / `examples` values checked per tool, at most.
const MAX_PROBES: usize = 500;
/// Largest root `$defs` (JSON bytes) copied into a probe schema.
const MAX_PROBE_DEFS: usize = 1 << 20;

/// T3.
pub(super) struct RequiredNotDeclared;

static T3: RuleMeta = RuleMeta {
    id: RuleId::T3,
    kind: FindingType::RequiredNotDeclared,
    summary: "a `required` name that the schema's `properties` do not declare",
    tiers: &[Tier::HardDefect, Tier::Candidate],
    unit: "tools",
    explanation: include_str!("../docs/T3.md"),
};

impl ToolRule for RequiredNotDeclared {
    fn meta(&self) -> &'static RuleMeta {
        &T3
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        each_schema(cx, out, |si, tool, schema, out| {
            let mut found: Vec<(String, String, bool, bool)> = Vec::new();
            walk(schema, &tool.schema_pointer(), &mut |map, here| {
                let (Some(Value::Array(required)), Some(Value::Object(props))) =
                    (map.get("required"), map.get("properties"))
                else {
                    return;
                };
                if map.contains_key("patternProperties") {
                    return;
                }
                let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
                let elsewhere = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"]
                    .iter()
                    .any(|k| map.contains_key(*k));
                for (i, r) in required.iter().enumerate() {
                    if let Value::String(r) = r
                        && !props.contains_key(r)
                    {
                        found.push((format!("{here}/required/{i}"), r.clone(), closed, elsewhere));
                    }
                }
            });
            for (ptr, field, closed, elsewhere) in found {
                let declared = schema_props(schema);
                let near =
                    crate::suggest::closest_name(&field, declared.iter().map(String::as_str));
                let (tier, message) = if closed {
                    (
                        Tier::HardDefect,
                        format!(
                            "`{field}` is required but not among `properties`, and `additionalProperties` is false: no arguments can satisfy the schema"
                        ),
                    )
                } else {
                    (
                        Tier::Candidate,
                        format!("`{field}` is required but not among `properties`"),
                    )
                };
                let f = out.finding(
                    si,
                    tier,
                    Some(&tool.name),
                    ptr,
                    message,
                    "the required name",
                    field.clone(),
                );
                f.field = Some(field);
                f.possible_false_positive = !closed && elsewhere;
                f.help = near.map(|n| format!("did you mean `{n}`?"));
            }
        });
    }
}

fn schema_props(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// T4.
pub(super) struct ValueFailsOwnSchema;

/// A value to check against its schema: its pointer, its keyword, the value.
type Probe = (String, &'static str, Value);

static T4: RuleMeta = RuleMeta {
    id: RuleId::T4,
    kind: FindingType::ValueFailsOwnSchema,
    summary: "a `default`, `enum`, `const` or `examples` value fails the very schema that declares it",
    tiers: &[Tier::HardDefect],
    unit: "tools",
    explanation: include_str!("../docs/T4.md"),
};

impl ToolRule for ValueFailsOwnSchema {
    fn meta(&self) -> &'static RuleMeta {
        &T4
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        each_schema(cx, out, |si, tool, schema, out| {
            // One probe schema per subschema and keyword group, compiled once, against which
            // each value of the group is checked (an enum of a thousand members: one compile).
            let mut groups: Vec<(Value, Vec<Probe>)> = Vec::new();
            let defs_small = ["$defs", "definitions"].iter().all(|k| {
                schema
                    .get(*k)
                    .is_none_or(|d| d.to_string().len() <= MAX_PROBE_DEFS)
            });
            let mut values = 0usize;
            walk(schema, &tool.schema_pointer(), &mut |map, here| {
                let mut group = |drop: &[&str], items: Vec<Probe>| {
                    let room = MAX_PROBES.saturating_sub(values);
                    if items.is_empty() || room == 0 {
                        return;
                    }
                    if let Some(probe) = probe_schema(schema, map, drop, defs_small) {
                        let items: Vec<_> = items.into_iter().take(room).collect();
                        values += items.len();
                        groups.push((probe, items));
                    }
                };
                let one = |key: &'static str| -> Vec<Probe> {
                    map.get(key)
                        .map(|v| vec![(format!("{here}/{key}"), key, v.clone())])
                        .unwrap_or_default()
                };
                let each = |key: &'static str| -> Vec<Probe> {
                    match map.get(key) {
                        Some(Value::Array(vs)) => vs
                            .iter()
                            .take(MAX_PROBES)
                            .enumerate()
                            .map(|(i, v)| (format!("{here}/{key}/{i}"), key, v.clone()))
                            .collect(),
                        _ => Vec::new(),
                    }
                };
                group(&["default", "examples"], one("default"));
                let mut members = one("const");
                members.extend(each("enum"));
                group(&["const", "enum", "default", "examples"], members);
                group(&["default", "examples"], each("examples"));
            });
            for (probe, items) in groups {
                let Ok(validator) = context::compile(&probe) else {
                    continue;
                };
                for (ptr, key, value) in items {
                    let error = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        validator
                            .iter_errors(&value)
                            .next()
                            .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()))
                    }))
                    .ok()
                    .flatten();
                    let Some((path, message)) = error else {
                        continue;
                    };
                    let what = if path.is_empty() {
                        String::new()
                    } else {
                        format!(" at `{path}`")
                    };
                    out.finding(
                        si,
                        Tier::HardDefect,
                        Some(&tool.name),
                        ptr,
                        format!(
                            "the `{key}` value {} fails its own schema{what}: {}",
                            shown(&value, 60),
                            cut(&one_line(&message), 160)
                        ),
                        "the value",
                        shown(&value, 160),
                    );
                }
            }
        });
    }
}

/// The subschema at `map` without the keywords in `drop`, made standalone (the root's
/// `$schema`, and its definitions when the subschema refers to any), or `None` when nothing is
/// left to check or the definitions are too big to copy per probe.
fn probe_schema(
    root: &Value,
    map: &Map<String, Value>,
    drop: &[&str],
    defs_small: bool,
) -> Option<Value> {
    let mut probe: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| {
            !drop.contains(&k.as_str())
                && !matches!(k.as_str(), "description" | "title" | "$comment")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if probe.is_empty() {
        return None;
    }
    let Value::Object(r) = root else {
        return Some(Value::Object(probe));
    };
    if let Some(v) = r.get("$schema")
        && !probe.contains_key("$schema")
    {
        probe.insert("$schema".to_owned(), v.clone());
    }
    let mut refers = false;
    let as_value = Value::Object(probe);
    walk(&as_value, "", &mut |m, _| {
        refers |= m.contains_key("$ref") || m.contains_key("$dynamicRef");
    });
    let Value::Object(mut probe) = as_value else {
        return None;
    };
    if refers {
        for k in ["$defs", "definitions"] {
            if let Some(v) = r.get(k)
                && !probe.contains_key(k)
            {
                if !defs_small {
                    return None;
                }
                probe.insert(k.to_owned(), v.clone());
            }
        }
    }
    Some(Value::Object(probe))
}
