//! The schema rules: T1 invalid_tool_schema (not valid JSON Schema for its draft, or not an
//! object schema), T2 unresolvable_ref, T3 required_not_declared, T4 value_fails_own_schema
//! (`default` / `enum` / `const` / `examples`), T5 contradictory_keywords and T6
//! unconstrained_schema. Each visits every subschema through the shared, bounded walker.

use serde_json::{Map, Value};

use super::{ToolRule, ToolSink, ToolsCx, cut, shown, walk};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::toolset::{SetKind, ToolDef, escape_token};
use crate::rules::context;

/// Schema errors reported per tool, at most.
const MAX_ERRORS: usize = 20;
/// `default` / `enum` / `const` / `examples` values checked per tool, at most.
const MAX_PROBES: usize = 500;
/// Largest root `$defs` (JSON bytes) copied into a probe schema.
const MAX_PROBE_DEFS: usize = 1 << 20;

/// Run `f` over every tool that has a schema, counting each tool once (a tool with no schema
/// is decided: there is nothing of this kind to check).
fn each_schema(
    cx: &ToolsCx<'_>,
    out: &mut ToolSink,
    mut f: impl FnMut(usize, &ToolDef, &Value, &mut ToolSink),
) {
    for (si, set) in cx.sets.iter().enumerate() {
        for tool in &set.tools {
            out.count(si, true);
            if let Some(schema) = &tool.schema {
                f(si, tool, schema, out);
            }
        }
    }
}

/// T1.
pub(super) struct InvalidSchema;

static T1: RuleMeta = RuleMeta {
    id: RuleId::T1,
    kind: FindingType::InvalidToolSchema,
    summary: "a tool's input schema is not valid JSON Schema for its declared (or the default 2020-12) draft, or does not describe an object",
    tiers: &[Tier::HardDefect],
    unit: "tools",
    explanation: include_str!("../docs/T1.md"),
};

impl ToolRule for InvalidSchema {
    fn meta(&self) -> &'static RuleMeta {
        &T1
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        each_schema(cx, out, |si, tool, schema, out| {
            let at = tool.schema_pointer();
            let name = Some(tool.name.as_str());
            if !(schema.is_object() || schema.is_boolean()) {
                out.finding(
                    si,
                    Tier::HardDefect,
                    name,
                    at,
                    format!(
                        "the input schema is {}, not a JSON Schema object",
                        kind_of(schema)
                    ),
                    "the schema",
                    shown(schema, 120),
                );
                return;
            }
            // An agent's own freeform tools (Codex's `apply_patch`) take a string by design.
            let builtin = cx.sets[si].kind == SetKind::Builtin;
            if let (Some(t), false) = (schema.get("type"), builtin) {
                let object = match t {
                    Value::String(s) => s == "object",
                    Value::Array(a) => a.iter().any(|v| v == "object"),
                    _ => true,
                };
                if !object {
                    out.finding(
                        si,
                        Tier::HardDefect,
                        name,
                        format!("{at}/type"),
                        format!(
                            "the input schema's `type` is {}: tool arguments are an object (`\"type\": \"object\"`)",
                            shown(t, 60)
                        ),
                        "its type",
                        shown(t, 60),
                    );
                }
            }
            let meta = std::panic::catch_unwind(|| jsonschema::meta::validator_for(schema));
            match meta {
                Err(_) => out.suppress(si, name, "the schema's meta-schema could not be built"),
                Ok(Err(_)) => {
                    let declared = schema.get("$schema").map(|v| shown(v, 80));
                    out.finding(
                        si,
                        Tier::HardDefect,
                        name,
                        format!("{at}/$schema"),
                        format!(
                            "`$schema` {} names no JSON Schema draft tracelint knows (drafts 4, 6, 7, 2019-09 and 2020-12)",
                            declared.as_deref().unwrap_or("?")
                        ),
                        "its `$schema`",
                        declared.unwrap_or_default(),
                    );
                }
                Ok(Ok(validator)) => {
                    let errors: Vec<(String, String)> =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            validator
                                .iter_errors(schema)
                                .take(MAX_ERRORS)
                                .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()))
                                .collect()
                        }))
                        .unwrap_or_default();
                    for (path, message) in &errors {
                        let shown_path = if path.is_empty() { "(root)" } else { path };
                        out.finding(
                            si,
                            Tier::HardDefect,
                            name,
                            format!("{at}{path}"),
                            format!(
                                "the input schema breaks its draft's meta-schema at `{shown_path}`: {}",
                                cut(&one_line(message), 200)
                            ),
                            "the invalid keyword",
                            String::new(),
                        );
                    }
                    if errors.is_empty()
                        && !context::ref_chain_too_long(schema)
                        && !has_remote_ref(schema)
                        && let Err(reason) = context::compile(schema)
                    {
                        out.finding(
                            si,
                            Tier::HardDefect,
                            name,
                            at,
                            format!("the input schema cannot be compiled: {reason}"),
                            "the schema",
                            String::new(),
                        );
                    }
                }
            }
        });
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn has_remote_ref(schema: &Value) -> bool {
    let mut remote = false;
    walk(schema, "", &mut |map, _| {
        if let Some(Value::String(r)) = map.get("$ref") {
            remote |= !r.starts_with('#');
        }
    });
    remote
}

/// T2.
pub(super) struct UnresolvableRef;

static T2: RuleMeta = RuleMeta {
    id: RuleId::T2,
    kind: FindingType::UnresolvableRef,
    summary: "a `$ref` in a tool's schema cannot be resolved offline: it points outside the schema or at nothing in it",
    tiers: &[Tier::HardDefect],
    unit: "tools",
    explanation: include_str!("../docs/T2.md"),
};

impl ToolRule for UnresolvableRef {
    fn meta(&self) -> &'static RuleMeta {
        &T2
    }

    fn check(&self, cx: &ToolsCx<'_>, out: &mut ToolSink) {
        each_schema(cx, out, |si, tool, schema, out| {
            let at = tool.schema_pointer();
            let name = Some(tool.name.as_str());
            if context::ref_chain_too_long(schema) {
                out.finding(
                    si,
                    Tier::HardDefect,
                    name,
                    at,
                    format!(
                        "the schema's `$ref` chain is longer than {} links: no validator follows it safely",
                        context::MAX_REF_CHAIN
                    ),
                    "the schema",
                    String::new(),
                );
                return;
            }
            let mut ids: Vec<String> = Vec::new();
            walk(schema, "", &mut |map, _| {
                for k in ["$id", "id", "$anchor"] {
                    if let Some(Value::String(s)) = map.get(k) {
                        ids.push(s.clone());
                    }
                }
            });
            let mut bad: Vec<(String, String, String)> = Vec::new();
            walk(schema, &at, &mut |map, here| {
                let Some(Value::String(r)) = map.get("$ref") else {
                    return;
                };
                if let Some(problem) = unresolved(schema, r, &ids) {
                    bad.push((format!("{here}/$ref"), r.clone(), problem));
                }
            });
            for (ptr, r, problem) in bad {
                out.finding(
                    si,
                    Tier::HardDefect,
                    name,
                    ptr,
                    format!("`$ref` `{}` {problem}", cut(&r, 120)),
                    "the reference",
                    cut(&r, 160),
                );
            }
        });
    }
}

/// Why `r` cannot be resolved inside `root`, or `None` when it can.
fn unresolved(root: &Value, r: &str, ids: &[String]) -> Option<String> {
    if let Some(fragment) = r.strip_prefix('#') {
        if fragment.is_empty() {
            return None;
        }
        if let Some(pointer) = fragment.strip_prefix('/').map(|_| fragment) {
            let decoded = percent_decode(pointer);
            return root
                .pointer(&decoded)
                .is_none()
                .then(|| "points at nothing in the schema".to_owned());
        }
        // A plain-name fragment: an `$anchor` (or a draft 6/7 `$id: "#name"`).
        return (!ids
            .iter()
            .any(|id| id == fragment || id.strip_prefix('#') == Some(fragment)))
        .then(|| "names an anchor the schema does not declare".to_owned());
    }
    let base = r.split('#').next().unwrap_or(r);
    if ids.iter().any(|id| {
        let id = id.split('#').next().unwrap_or(id);
        !id.is_empty() && (id == base || id.ends_with(&format!("/{base}")))
    }) {
        return None;
    }
    Some(
        "points outside the schema: it cannot be resolved offline (tracelint never fetches schemas, and a model provider does not either)"
            .to_owned(),
    )
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or("zz"), 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

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
