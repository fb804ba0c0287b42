//! A JSON Schema's errors on one instance, as R1 (arguments) and R10 (results) report them:
//! `(instance path, keyword, message)` sorted by path then keyword, duplicates dropped, each
//! message cut to a bounded length (the instance value inside can be huge), and the listing
//! `instance path: message` the findings carry.

/// Longest single schema-error message kept.
const MAX_ERROR_CHARS: usize = 300;

/// One schema error: instance path, keyword, message.
pub(crate) type SchemaError = (String, String, String);

/// Every error of `validator` on `instance`, sorted and deduplicated (empty when valid).
pub(crate) fn errors(
    validator: &jsonschema::Validator,
    instance: &serde_json::Value,
) -> Vec<SchemaError> {
    let mut errors: Vec<SchemaError> = validator
        .iter_errors(instance)
        .map(|e| {
            let path = e.instance_path().as_str().to_owned();
            let keyword = e.kind().keyword().to_owned();
            (path, keyword, truncate(&e.to_string()))
        })
        .collect();
    errors.sort();
    errors.dedup();
    errors
}

/// The key that marks a schema constraint as learned from calls (`tracelint init`/`infer`),
/// not stated by a person or a tool: R1 reads a violation of one as a candidate.
pub(crate) const INFERRED: &str = "x-tracelint-inferred";

/// Does every error of `validator` on `instance` break a constraint marked `INFERRED` (the
/// schema object holding the failing keyword carries `"x-tracelint-inferred": true`)? False
/// when there is no error, or one behind a reference.
pub(crate) fn all_inferred(
    validator: &jsonschema::Validator,
    schema: &serde_json::Value,
    instance: &serde_json::Value,
) -> bool {
    let mut any = false;
    for e in validator.iter_errors(instance) {
        any = true;
        let path = e.schema_path().as_str();
        // The keyword is the last segment; the object holding it is what is marked.
        let holder = path.rsplit_once('/').map_or("", |(h, _)| h);
        let marked = schema
            .pointer(holder)
            .and_then(|node| node.get(INFERRED))
            .is_some_and(|m| m == &serde_json::Value::Bool(true));
        if !marked {
            return false;
        }
    }
    any
}

/// The errors as `instance path: message` lines (the message alone at the root).
pub(crate) fn details(errors: &[SchemaError]) -> Vec<String> {
    errors
        .iter()
        .map(|(path, _, msg)| {
            if path.is_empty() {
                msg.clone()
            } else {
                format!("{path}: {msg}")
            }
        })
        .collect()
}

/// The top-level member an error list starts at (`/limit/0` → `limit`).
pub(crate) fn first_field(errors: &[SchemaError]) -> Option<String> {
    errors
        .first()
        .and_then(|(p, _, _)| p.strip_prefix('/'))
        .map(|p| p.split('/').next().unwrap_or(p).to_owned())
}

fn truncate(s: &str) -> String {
    if s.chars().count() <= MAX_ERROR_CHARS {
        return s.to_owned();
    }
    let mut t: String = s.chars().take(MAX_ERROR_CHARS).collect();
    t.push('…');
    t
}
