//! What R2b reads values and words as: the significant values of a failed result (the leaves
//! and the keys they are followed by), how one is shown in a message, and whether an agent's
//! text speaks of a failure.

use super::*;
use crate::analysis::normalize::{canonical_json_number, canonical_number, parse_number_str};

/// Words with which an agent's text speaks of a failure (lower case; matched as a word start).
const FAILURE_WORDS: &[&str] = &[
    "fail",
    "error",
    "exit code",
    "could not",
    "couldn't",
    "cannot",
    "can't",
    "unable",
    "not found",
    "does not exist",
    "doesn't exist",
    "no such",
    "denied",
    "timed out",
    "timeout",
    "broken",
    "refused",
    "rejected",
    "invalid",
    "missing",
    "didn't work",
    "did not work",
    "not work",
    "wrong",
    "problem",
    "issue",
];

/// Does an agent's text speak of a failure (a word from `FAILURE_WORDS` at a word start)? The
/// agent's words are never evidence of what happened, only of what it noticed: enough to say it
/// did not carry on as if nothing failed.
pub(crate) fn speaks_of_failure(text: &str) -> bool {
    let lower = text.to_lowercase();
    FAILURE_WORDS.iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            i == 0
                || !lower[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
        })
    })
}

/// Deepest nesting walked for values.
const MAX_DEPTH: usize = 32;

/// Visit every scalar leaf with the top-level field it sits under.
pub(super) fn leaves<'v>(
    v: Option<&'v Value>,
    depth: usize,
    f: &mut dyn FnMut(Option<&'v str>, &'v Value),
) {
    fn walk<'v>(
        v: &'v Value,
        field: Option<&'v str>,
        depth: usize,
        f: &mut dyn FnMut(Option<&'v str>, &'v Value),
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    walk(x, field.or(Some(k.as_str())), depth + 1, f);
                }
            }
            Value::Array(items) => items.iter().for_each(|x| walk(x, field, depth + 1, f)),
            Value::String(_) | Value::Number(_) => f(field, v),
            _ => {}
        }
    }
    if let Some(v) = v {
        walk(v, None, depth, f);
    }
}

/// The keys a significant value is known by, handed to `f` (built in `buf`, reused): a string
/// of ≥ 4 chars (trimmed) by its text, a number with |x| ≥ 100 (or a string that is one) by its
/// canonical value.
pub(super) fn keys_of(v: &Value, buf: &mut String, mut f: impl FnMut(&str)) {
    let number = match v {
        Value::String(s) => {
            let t = s.trim();
            if t.chars().nth(3).is_some() {
                buf.clear();
                buf.push_str("s:");
                buf.push_str(t);
                f(buf);
            }
            parse_number_str(t)
                .filter(|x| x.abs() >= 100.0)
                .and_then(canonical_number)
        }
        Value::Number(n) => n
            .as_f64()
            .filter(|x| x.abs() >= 100.0)
            .and_then(|_| canonical_json_number(n)),
        _ => None,
    };
    if let Some(n) = number {
        buf.clear();
        buf.push_str("n:");
        buf.push_str(&n);
        f(buf);
    }
}

pub(super) fn shown(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.trim().to_owned(),
        other => other.to_string(),
    };
    let mut t: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        t.push('…');
    }
    t.replace('`', "'")
}
