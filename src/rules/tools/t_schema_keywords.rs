//! The schema rules on keywords: T5 contradictory_keywords (keywords no value can satisfy
//! together, such as `minimum` > `maximum`) and T6 unconstrained_schema (an input schema that
//! constrains nothing).

use serde_json::{Map, Value};

use super::t_schema::each_schema;
use super::{ToolRule, ToolSink, ToolsCx, shown, walk};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::toolset::{SetKind, escape_token};

/// T5.
pub(super) struct Contradictory;

static T5: RuleMeta = RuleMeta {
    id: RuleId::T5,
    kind: FindingType::ContradictoryKeywords,
    summary: "keywords that contradict each other (`minimum` > `maximum`, `minLength` > `maxLength`, an empty `enum`, …): no value can be valid",
    tiers: &[Tier::HardDefect],
    unit: "tools",
    explanation: include_str!("../docs/T5.md"),
};

/// `(low, high, strict)`: contradictory when low > high (or ≥ when strict).
const PAIRS: &[(&str, &str, bool)] = &[
    ("minimum", "maximum", false),
    ("exclusiveMinimum", "exclusiveMaximum", true),
    ("minimum", "exclusiveMaximum", true),
    ("exclusiveMinimum", "maximum", true),
    ("minLength", "maxLength", false),
    ("minItems", "maxItems", false),
    ("minProperties", "maxProperties", false),
    ("minContains", "maxContains", false),
];

impl ToolRule for Contradictory {
    fn meta(&self) -> &'static RuleMeta {
        &T5
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        each_schema(cx, out, |si, tool, schema, out| {
            let mut found: Vec<(String, String, String)> = Vec::new();
            walk(schema, &tool.schema_pointer(), &mut |map, here| {
                for (lo, hi, strict) in PAIRS {
                    let (Some(a), Some(b)) = (
                        map.get(*lo).and_then(Value::as_f64),
                        map.get(*hi).and_then(Value::as_f64),
                    ) else {
                        continue;
                    };
                    if a > b || (*strict && a >= b) {
                        found.push((
                            format!("{here}/{}", escape_token(lo)),
                            format!("{here}/{}", escape_token(hi)),
                            format!(
                                "`{lo}` {} {} `{hi}` {}: no value can be valid",
                                number(&map[*lo]),
                                if a > b { "is above" } else { "is not below" },
                                number(&map[*hi])
                            ),
                        ));
                    }
                }
                if let (Some(Value::Array(required)), Some(max)) = (
                    map.get("required"),
                    map.get("maxProperties").and_then(Value::as_u64),
                ) {
                    let mut names: Vec<&Value> = required.iter().collect();
                    names.sort_by_key(|v| v.to_string());
                    names.dedup();
                    if names.len() as u64 > max {
                        found.push((
                            format!("{here}/required"),
                            format!("{here}/maxProperties"),
                            format!(
                                "{} properties are required but `maxProperties` is {max}: no object can be valid",
                                names.len()
                            ),
                        ));
                    }
                }
                if let Some(Value::Array(e)) = map.get("enum")
                    && e.is_empty()
                {
                    let p = format!("{here}/enum");
                    found.push((
                        p.clone(),
                        p,
                        "`enum` is empty: no value can be valid".to_owned(),
                    ));
                }
            });
            for (first, second, message) in found {
                let f = out.finding(
                    si,
                    Tier::HardDefect,
                    Some(&tool.name),
                    first,
                    message,
                    "this keyword",
                    String::new(),
                );
                if f.evidence[0].at.pointer != second {
                    f.evidence.push(super::evidence(
                        second,
                        "contradicts this one",
                        String::new(),
                    ));
                }
            }
        });
    }
}

fn number(v: &Value) -> String {
    v.to_string()
}

/// T6.
pub(super) struct Unconstrained;

static T6: RuleMeta = RuleMeta {
    id: RuleId::T6,
    kind: FindingType::UnconstrainedSchema,
    summary: "a tool's input schema constrains nothing (none, no `type`, an object with no `properties`), or a side-effecting tool accepts undeclared arguments",
    tiers: &[Tier::HardEvent],
    unit: "tools",
    explanation: include_str!("../docs/T6.md"),
};

/// Keywords that constrain an instance in some way.
const CONSTRAINING: &[&str] = &[
    "type",
    "properties",
    "patternProperties",
    "required",
    "enum",
    "const",
    "$ref",
    "$dynamicRef",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "items",
    "prefixItems",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
];

impl ToolRule for Unconstrained {
    fn meta(&self) -> &'static RuleMeta {
        &T6
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        for (si, set) in cx.sets.iter().enumerate() {
            for tool in &set.tools {
                out.count(si, true);
                let at = tool.schema_pointer();
                let name = Some(tool.name.as_str());
                let Some(schema) = &tool.schema else {
                    if matches!(set.kind, SetKind::Builtin | SetKind::Trace) {
                        // A provider-hosted tool (Codex's `web_search`), or a name a trace lists
                        // without its schema: nothing the definition's author could add.
                        continue;
                    }
                    if set.kind == SetKind::Starter {
                        // Left out on purpose, with the reason in its `metadata.$comment`.
                        out.suppress(
                            si,
                            name,
                            "written by `tracelint init` or `infer` without an input schema (deferred to a coding agent's built-in schema, or left out, as its `metadata.$comment` says)",
                        );
                        continue;
                    }
                    let f = out.finding(
                        si,
                        Tier::HardEvent,
                        name,
                        at,
                        "the tool declares no input schema: any arguments are accepted, and R1 can check none of its calls",
                        "the tool",
                        String::new(),
                    );
                    f.possible_false_positive = true;
                    f.help = Some("declare `{\"type\": \"object\", \"properties\": {}, \"additionalProperties\": false}` for a tool that takes no arguments".into());
                    continue;
                };
                let map = match schema {
                    Value::Object(m) => m,
                    Value::Bool(true) => &Map::new(),
                    _ => continue,
                };
                let open_extra =
                    !matches!(map.get("additionalProperties"), Some(Value::Bool(false)))
                        && !matches!(map.get("unevaluatedProperties"), Some(Value::Bool(false)));
                let combined = ["$ref", "allOf", "anyOf", "oneOf", "if", "not"]
                    .iter()
                    .any(|k| map.contains_key(*k));
                if !CONSTRAINING.iter().any(|k| map.contains_key(*k))
                    && !matches!(map.get("additionalProperties"), Some(Value::Bool(false)))
                {
                    out.finding(
                        si,
                        Tier::HardEvent,
                        name,
                        at,
                        "the input schema constrains nothing: it has no `type`, no `properties` and no other constraint",
                        "the schema",
                        shown(schema, 120),
                    )
                    .help = Some("declare `\"type\": \"object\"` and the tool's `properties`".into());
                    continue;
                }
                let object = match map.get("type") {
                    None => true,
                    Some(Value::String(t)) => t == "object",
                    Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                    Some(_) => false,
                };
                if object
                    && !map.contains_key("properties")
                    && !map.contains_key("patternProperties")
                    && open_extra
                    && !combined
                {
                    out.finding(
                        si,
                        Tier::HardEvent,
                        name,
                        at,
                        "the input schema accepts any object: it declares no `properties`",
                        "the schema",
                        shown(schema, 120),
                    )
                    .help = Some("declare the tool's `properties` (an empty map, with `additionalProperties: false`, for a tool that takes none)".into());
                    continue;
                }
                if tool.metadata.is_side_effecting() && open_extra && !combined {
                    let ptr = if map.contains_key("additionalProperties") {
                        format!("{at}/additionalProperties")
                    } else {
                        at
                    };
                    out.finding(
                        si,
                        Tier::HardEvent,
                        name,
                        ptr,
                        "the tool is side-effecting but its input schema accepts undeclared arguments (`additionalProperties` is not false)",
                        "the schema",
                        String::new(),
                    )
                    .help = Some("add `\"additionalProperties\": false` so a misspelt argument is refused, not ignored".into());
                }
            }
        }
    }
}
