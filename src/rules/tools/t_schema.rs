//! The schema rules on validity: T1 invalid_tool_schema (not valid JSON Schema for its draft, or
//! not an object schema) and T2 unresolvable_ref, and what every schema rule shares (`each_schema`,
//! `one_line`). T3–T4 are in `t_schema_fields`, T5–T6 in `t_schema_keywords`; each visits every
//! subschema through the shared, bounded walker.

use serde_json::Value;

use super::{ToolRule, ToolSink, ToolsCx, cut, shown, walk};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::toolset::{SetKind, ToolDef};
use crate::model::schema as context;

/// Schema errors reported per tool, at most.
const MAX_ERRORS: usize = 20;

/// Run `f` over every tool that has a schema, counting each tool once (a tool with no schema
/// is decided: there is nothing of this kind to check).
pub(super) fn each_schema(
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

pub(super) fn one_line(s: &str) -> String {
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
