//! The regexes a tool's JSON Schema holds (`pattern` values, `patternProperties` keys), checked
//! with the same linear-time engine and size limit the validator uses, so a schema whose regex
//! is too big or broken is named precisely instead of as "not a regex". Pure: no I/O, no
//! knowledge of where the schema came from.

use serde_json::Value;

use super::location::pointer_token;
use super::registry::REGEX_SIZE_LIMIT;

/// Schema keywords whose values are data, not subschemas: a `pattern` key inside them is not a
/// regex of the schema.
const DATA_KEYWORDS: &[&str] = &["enum", "const", "examples", "default"];

/// Deepest subschema looked into.
const MAX_DEPTH: usize = 64;

/// A schema regex that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternProblem {
    /// JSON Pointer to the `pattern` (or the `patternProperties` key) in the schema.
    pub pointer: String,
    /// True when the regex is valid but compiles past `REGEX_SIZE_LIMIT`.
    pub too_big: bool,
    /// What is wrong, on one line.
    pub reason: String,
}

impl std::fmt::Display for PatternProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.too_big {
            write!(
                f,
                "the regex at `{}` compiles to more than the regex size limit of {REGEX_SIZE_LIMIT} bytes",
                self.pointer
            )
        } else {
            write!(
                f,
                "the regex at `{}` is not valid: {}",
                self.pointer, self.reason
            )
        }
    }
}

/// The first unusable regex in `schema`, in document order (keys sorted).
pub fn first_problem(schema: &Value) -> Option<PatternProblem> {
    walk(schema, &mut String::new(), 0)
}

fn walk(v: &Value, at: &mut String, depth: usize) -> Option<PatternProblem> {
    if depth > MAX_DEPTH {
        return None;
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let len = at.len();
                at.push('/');
                at.push_str(&pointer_token(k));
                let found = match (k.as_str(), child) {
                    ("pattern", Value::String(re)) => check(re, at),
                    ("patternProperties", Value::Object(props)) => props
                        .keys()
                        .find_map(|re| check(re, &format!("{at}/{}", pointer_token(re)))),
                    _ => None,
                };
                let found = found.or_else(|| {
                    if DATA_KEYWORDS.contains(&k.as_str()) {
                        None
                    } else {
                        walk(child, at, depth + 1)
                    }
                });
                at.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(i, child)| {
            let len = at.len();
            at.push_str(&format!("/{i}"));
            let found = walk(child, at, depth + 1);
            at.truncate(len);
            found
        }),
        _ => None,
    }
}

fn check(re: &str, at: &str) -> Option<PatternProblem> {
    let err = regex::RegexBuilder::new(re)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .err()?;
    let too_big = matches!(err, regex::Error::CompiledTooBig(_));
    let reason = match &err {
        regex::Error::Syntax(s) => s
            .lines()
            .rev()
            .find(|l| l.starts_with("error:"))
            .map_or_else(|| s.clone(), |l| l.trim_start_matches("error: ").to_owned()),
        other => other.to_string(),
    };
    Some(PatternProblem {
        pointer: at.to_owned(),
        too_big,
        reason: reason.split_whitespace().collect::<Vec<_>>().join(" "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_broken_and_oversized_regexes_with_their_pointer() {
        let schema =
            json!({"properties": {"a": {"pattern": "("}, "b": {"pattern": "a{1000}{1000}"}}});
        let p = first_problem(&schema).unwrap();
        assert_eq!(
            p.to_string(),
            "the regex at `/properties/a/pattern` is not valid: unclosed group"
        );
        let p = first_problem(&json!({"patternProperties": {"x{1000}{1000}": {}}})).unwrap();
        assert!(p.too_big);
        assert_eq!(
            p.to_string(),
            "the regex at `/patternProperties/x{1000}{1000}` compiles to more than the regex size limit of 1048576 bytes"
        );
    }

    #[test]
    fn data_and_good_regexes_are_not_problems() {
        let schema = json!({"properties": {
            "pattern": {"type": "string", "pattern": "^(a+)+$"},
            "c": {"const": {"pattern": "("}, "enum": [{"pattern": "("}]}
        }});
        assert_eq!(first_problem(&schema), None);
    }
}
