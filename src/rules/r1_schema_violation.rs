//! R1 schema_violation: a call's arguments fail its tool's JSON Schema. One finding per call
//! listing every error as `instance path: message`, sorted by path then keyword. Malformed
//! arguments (R6's business) and unknown arguments are not validated: counted as not checked.

use std::collections::HashMap;
use std::sync::Arc;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};

use crate::model::schema::Compiled;
use super::{Rule, Sink, TraceCx};
use crate::analysis::schema_errors;

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R1,
    kind: FindingType::SchemaViolation,
    summary: "a call's arguments fail the tool's JSON Schema",
    tiers: &[Tier::HardDefect, Tier::HardEvent, Tier::Candidate],
    unit: "tool calls",
    explanation: include_str!("docs/R1.md"),
};

pub(crate) struct SchemaViolation;

impl Rule for SchemaViolation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn applicable(&self, cx: &TraceCx<'_>) -> Result<(), String> {
        if cx.registry.iter().any(|s| s.schema.is_some()) {
            Ok(())
        } else {
            Err("no tool schemas: pass `--tools FILE` (or `mcp-stdio:`/`mcp-http:`) to check arguments".into())
        }
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let mut compiled: HashMap<&str, Arc<Compiled>> = HashMap::new();
        for step in &cx.trace.steps {
            let Some(call) = step.as_call() else { continue };
            let Some(spec) = cx.spec(&call.name) else {
                // R7 reports the unknown tool; nothing to validate against.
                out.count_tool(Some(&call.name), false);
                continue;
            };
            let Some(schema) = spec.schema.as_ref() else {
                out.count_tool(Some(&call.name), false);
                out.suppress(
                    step,
                    Some(&call.name),
                    format!("tool `{}` declares no input schema", call.name),
                );
                continue;
            };
            let Some(args) = out.known_args(step, call) else {
                continue;
            };
            let validator = compiled
                .entry(call.name.as_str())
                .or_insert_with(|| cx.run.schemas.get(schema));
            let validator = match validator.as_ref() {
                Ok(v) => v,
                Err(reason) => {
                    out.count_tool(Some(&call.name), false);
                    out.suppress(step, Some(&call.name), reason.clone());
                    continue;
                }
            };
            out.count_tool(Some(&call.name), true);
            // Most calls are valid: a yes/no check first, errors gathered only for the others.
            if validator.is_valid(args) {
                continue;
            }
            let errors = schema_errors::errors(validator, args);
            if errors.is_empty() {
                continue;
            }
            // A tool sent with several schemas (a mode adds parameters) accepts a call valid
            // under any of them.
            let valid_elsewhere = spec
                .alternate_schemas
                .iter()
                .any(|alt| matches!(cx.run.schemas.get(alt).as_ref(), Ok(v) if v.is_valid(args)));
            if valid_elsewhere {
                continue;
            }
            let details = schema_errors::details(&errors);
            // A constraint `init` or `infer` guessed from calls (marked `x-tracelint-inferred`)
            // is no rule until a person removes the marker.
            if schema_errors::all_inferred(validator, schema, args) {
                let f = out.finding(
                    Tier::Candidate,
                    step,
                    Some(&call.name),
                    format!(
                        "breaks a constraint inferred from the traces, not stated by anyone (marked `x-tracelint-inferred`): {}",
                        details.join("; ")
                    ),
                    "the call",
                );
                f.field = schema_errors::first_field(&errors);
                f.details = details;
                f.possible_false_positive = true;
                f.signal = Some("inferred_constraint");
                f.help = Some(format!(
                    "if `{}` really accepts this, widen the inferred schema; if the constraint is right, delete its `x-tracelint-inferred` marker so it is checked as a rule",
                    call.name
                ));
                continue;
            }
            let only_extra_keys = errors.iter().all(|(_, kw, _)| kw == "additionalProperties");
            let (tier, message) = if only_extra_keys && spec.metadata.extra_keys_tolerated {
                (
                    Tier::HardEvent,
                    format!(
                        "unexpected properties, which this tool's runtime drops: {}",
                        details.join("; ")
                    ),
                )
            } else {
                (Tier::HardDefect, details.join("; "))
            };
            let f = out.finding(tier, step, Some(&call.name), message, "the call");
            f.field = schema_errors::first_field(&errors);
            // Every top-level field an error is about (`(root)`: the arguments object itself),
            // so a baseline tells a violation of one field from one of another.
            f.fields = errors
                .iter()
                .map(|(p, _, _)| match p.strip_prefix('/') {
                    Some(rest) => rest.split('/').next().unwrap_or(rest).to_owned(),
                    None => "(root)".to_owned(),
                })
                .collect();
            f.fields.sort();
            f.fields.dedup();
            f.details = details;
            f.help = Some(format!(
                "fix the arguments the agent builds for `{}`, or correct the schema if it is wrong",
                call.name
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    const TOOLS: &str = r#"{"tools": [
      {"name": "read_file", "inputSchema": {
        "type": "object",
        "properties": {
          "file_path": {"type": "string", "pattern": "^/"},
          "limit": {"type": "integer", "minimum": 1},
          "mode": {"enum": ["text", "bytes"]},
          "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["file_path"],
        "additionalProperties": false}}
    ]}"#;

    #[test]
    fn lists_every_error_in_order() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "read_file",
           "args": {"limit": 0, "mode": "full", "tags": ["a", 3], "encoding": "utf-8"}},
          {"type": "tool_call", "call_id": "2", "name": "read_file",
           "args": {"file_path": "relative", "limit": "10"}}
        ]}"#;
        insta::assert_snapshot!(lint(trace, Some(TOOLS), Default::default()));
    }

    #[test]
    fn valid_call_is_silent_and_counted() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "read_file", "args": {"file_path": "/etc/hosts"}}
        ]}"#;
        let out = lint(trace, Some(TOOLS), Default::default());
        assert!(!out.contains("R1 read_file"), "{out}");
        assert!(out.contains("coverage R1 1/1 tool calls"), "{out}");
    }

    #[test]
    fn draft_07_and_2020_12_are_both_honoured() {
        // draft-07: `items` as an array is tuple validation; 2020-12 uses prefixItems.
        let tools = r#"{"tools": [
          {"name": "d7", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object", "properties": {"p": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}}}},
          {"name": "d2020", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object", "properties": {"p": {"type": "array", "prefixItems": [{"type": "string"}], "items": false}}}}
        ]}"#;
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "d7", "args": {"p": [1, "x"]}},
          {"type": "tool_call", "call_id": "2", "name": "d2020", "args": {"p": [1, "x"]}}
        ]}"#;
        insta::assert_snapshot!(lint(trace, Some(tools), Default::default()));
    }

    #[test]
    fn remote_ref_is_a_per_call_suppression() {
        let tools = r#"{"tools": [{"name": "t", "inputSchema": {"type": "object",
            "properties": {"a": {"$ref": "https://schemas.example.invalid/a.json"}}}}]}"#;
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"a": 1}}]}"#;
        let out = lint(trace, Some(tools), Default::default());
        assert!(out.contains("suppressed R1 2:11: the schema has a remote `$ref` (https://schemas.example.invalid/a.json)"), "{out}");
        assert!(out.contains("coverage R1 0/1"), "{out}");
    }

    #[test]
    fn unknown_and_malformed_args_are_not_validated() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "read_file", "args": {}, "raw_text": "{\"file_path\": \"/x"},
          {"type": "tool_call", "call_id": "2", "name": "read_file"}
        ]}"#;
        let out = lint(trace, Some(TOOLS), Default::default());
        assert!(!out.contains("hard_defect R1"), "{out}");
        assert!(
            out.contains("suppressed R1 3:11: arguments not recorded"),
            "{out}"
        );
        assert!(out.contains("coverage R1 0/2"), "{out}");
    }

    #[test]
    fn no_registry_suppresses_the_rule() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "read_file", "args": {}}]}"#;
        let out = lint(trace, None, Default::default());
        assert!(out.contains("suppressed R1 -: no tool schemas"), "{out}");
        assert!(out.contains("coverage R1 0/1"), "{out}");
    }
}
