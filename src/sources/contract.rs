//! The contract keys of a tools file beyond schemas and behaviour flags: `metadata.requires`
//! (R9's preconditions), `off_limits` (R13's sources) and an `output_schema` (R10), each
//! validated as it is read, so a malformed declaration is an input error with its place and
//! fix, never a rule that quietly does not run.

use serde_json::Value;

use crate::model::{OffLimits, Requirement};

use super::keys::{self, Bad, Path, Seg};

/// Parse `metadata.requires`: a list of `{"tool": NAME, "same": [ARG…], "succeeded": BOOL}`.
pub(crate) fn parse_requires(v: &Value, path: &[Seg]) -> Result<Vec<Requirement>, Bad> {
    const EXAMPLE: &str = r#"[{"tool": "get_order", "same": ["order_id"]}]"#;
    let Value::Array(items) = v else {
        return Err(Bad::new(
            path.to_vec(),
            format!("`requires` must be a list of required calls, e.g. {EXAMPLE}"),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut at = path.to_vec();
        at.push(Seg::Index(i));
        let Value::Object(m) = item else {
            return Err(Bad::new(
                at,
                format!(
                    "each `requires` entry must be an object like {{\"tool\": \"get_order\"}}, not {}",
                    kind(item)
                ),
            ));
        };
        keys::check(m, &at, "a `requires` entry", keys::REQUIRES, &[])?;
        let tool = match m.get("tool") {
            Some(Value::String(t)) if !t.trim().is_empty() => t.clone(),
            _ => {
                return Err(Bad::new(
                    keys::key(&at, "tool"),
                    "a `requires` entry needs `tool`: the name of the tool that must run first",
                ));
            }
        };
        let same = match m.get("same") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(names))
                if names
                    .iter()
                    .all(|n| n.as_str().is_some_and(|s| !s.is_empty())) =>
            {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            }
            Some(_) => {
                return Err(Bad::new(
                    keys::key(&at, "same"),
                    "`same` must be a list of argument names, e.g. [\"order_id\"]",
                ));
            }
        };
        let succeeded = match m.get("succeeded") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(Bad::new(
                    keys::key(&at, "succeeded"),
                    "`succeeded` must be true (the required call must have succeeded) or false (it must have returned)",
                ));
            }
        };
        out.push(Requirement {
            tool,
            same,
            succeeded,
        });
    }
    Ok(out)
}

/// Parse a top-level `off_limits`: `{"sources": [NAME…], "reason": TEXT}`.
pub(crate) fn parse_off_limits(v: &Value, path: &[Seg]) -> Result<OffLimits, Bad> {
    const EXAMPLE: &str = r#"{"sources": ["tbench.ai"], "reason": "..."}"#;
    let Value::Object(m) = v else {
        return Err(Bad::new(
            path.to_vec(),
            format!("`off_limits` must be an object, e.g. {EXAMPLE}"),
        ));
    };
    keys::check(m, path, "`off_limits`", keys::OFF_LIMITS, &[])?;
    let sources = match m.get("sources") {
        Some(Value::Array(items))
            if !items.is_empty()
                && items
                    .iter()
                    .all(|s| s.as_str().is_some_and(|s| !s.trim().is_empty())) =>
        {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_owned())
                .collect()
        }
        _ => {
            return Err(Bad::new(
                keys::key(path, "sources"),
                format!(
                    "`off_limits.sources` must be a non-empty list of source names, e.g. {EXAMPLE}"
                ),
            ));
        }
    };
    let reason = match m.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(Bad::new(
                keys::key(path, "reason"),
                "`off_limits.reason` must be a string",
            ));
        }
    };
    Ok(OffLimits { sources, reason })
}

/// Check that an output schema is a JSON Schema: an object or a boolean that its draft's
/// meta-schema accepts. A `$ref` to elsewhere is left to R10 (never fetched).
pub(crate) fn check_output_schema(schema: &Value, path: Path) -> Result<(), Bad> {
    let fix = "give a JSON Schema for the tool's result, e.g. {\"type\": \"object\", \"properties\": {…}}";
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(Bad::new(
            path,
            format!(
                "the output schema is {}, not a JSON Schema: {fix}",
                kind(schema)
            ),
        ));
    }
    if crate::model::schema::ref_chain_too_long(schema) {
        return Err(Bad::new(
            path,
            format!(
                "the output schema's `$ref` chain is longer than {} links: too deep to check safely; {fix}",
                crate::model::schema::MAX_REF_CHAIN
            ),
        ));
    }
    // The meta-schema check knows the bundled drafts only (and panics on another `$schema`):
    // a schema naming another dialect is left to compile when R10 runs.
    let dialect = schema.get("$schema").and_then(Value::as_str);
    if dialect.is_some_and(|d| !KNOWN_DRAFTS.iter().any(|k| d.trim_end_matches('#') == *k)) {
        return Ok(());
    }
    if let Err(e) = jsonschema::meta::validate(schema) {
        let at = e.instance_path().as_str().to_owned();
        let shown = if at.is_empty() {
            String::new()
        } else {
            format!(" at `{at}`")
        };
        return Err(Bad::new(
            path,
            format!(
                "the output schema is not a valid JSON Schema{shown}: {}; {fix}",
                one_line(&e.to_string())
            ),
        ));
    }
    Ok(())
}

const KNOWN_DRAFTS: &[&str] = &[
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

fn one_line(s: &str) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// A JSON value's kind, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requires_entries_are_validated() {
        let ok = parse_requires(
            &json!([{"tool": "get_order", "same": ["order_id"]}, {"tool": "ping", "succeeded": false}]),
            &[],
        )
        .unwrap();
        assert_eq!(ok[0].same, vec!["order_id".to_owned()]);
        assert!(ok[0].succeeded);
        assert!(!ok[1].succeeded);
        let bad = [
            (json!({"tool": "x"}), "`requires` must be a list", vec![]),
            (
                json!(["x"]),
                "each `requires` entry must be an object like {\"tool\": \"get_order\"}, not a string",
                vec![Seg::Index(0)],
            ),
            (
                json!([{"tol": "x"}]),
                "unknown key `tol` in a `requires` entry: did you mean `tool`?",
                vec![Seg::Index(0), Seg::Key("tol".into())],
            ),
            (
                json!([{"tool": ""}]),
                "a `requires` entry needs `tool`",
                vec![Seg::Index(0), Seg::Key("tool".into())],
            ),
            (
                json!([{"tool": "x", "same": "order_id"}]),
                "`same` must be a list of argument names",
                vec![Seg::Index(0), Seg::Key("same".into())],
            ),
            (
                json!([{"tool": "x", "succeeded": "yes"}]),
                "`succeeded` must be true",
                vec![Seg::Index(0), Seg::Key("succeeded".into())],
            ),
        ];
        for (v, want, path) in bad {
            let e = parse_requires(&v, &[]).unwrap_err();
            assert!(e.message.contains(want), "{v}: {}", e.message);
            assert_eq!(e.path, path, "{v}");
        }
    }

    #[test]
    fn off_limits_is_validated() {
        let ok =
            parse_off_limits(&json!({"sources": [" tbench.ai "], "reason": "r"}), &[]).unwrap();
        assert_eq!(ok.sources, vec!["tbench.ai".to_owned()]);
        for (v, want) in [
            (json!(["a"]), "`off_limits` must be an object"),
            (json!({"sources": []}), "must be a non-empty list"),
            (json!({"sources": ["a", ""]}), "must be a non-empty list"),
            (json!({"sources": ["a"], "reason": 3}), "must be a string"),
            (json!({"source": ["a"]}), "did you mean `sources`?"),
        ] {
            let e = parse_off_limits(&v, &[]).unwrap_err();
            assert!(e.message.contains(want), "{v}: {}", e.message);
        }
    }

    #[test]
    fn output_schemas_must_be_schemas() {
        assert!(check_output_schema(&json!({"type": "object"}), vec![]).is_ok());
        assert!(check_output_schema(&json!(true), vec![]).is_ok());
        let e = check_output_schema(&json!("object"), vec![]).unwrap_err();
        assert!(
            e.message
                .starts_with("the output schema is a string, not a JSON Schema"),
            "{}",
            e.message
        );
        let e = check_output_schema(&json!({"type": "objekt"}), vec![]).unwrap_err();
        assert!(
            e.message
                .starts_with("the output schema is not a valid JSON Schema at `/type`"),
            "{}",
            e.message
        );
        // Another dialect is left to compile.
        assert!(
            check_output_schema(
                &json!({"$schema": "https://example.com/s", "type": 3}),
                vec![]
            )
            .is_ok()
        );
    }
}
