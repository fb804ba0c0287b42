//! Which numbers R3 judges. A number the agent chooses as a parameter of the call — a
//! timeout, a limit, an offset, a count of context lines — is not a hallucination when nothing
//! observed carries it; a number that names a thing (`order_id: 4512`, an issue number) is.
//! Decided from the field's name and schema only, never from the value: a name that says
//! "identifier" wins, then a name that says "parameter", then a schema that bounds the number
//! or gives it a default (a range the agent picks from). Anything else is judged as before.

use serde_json::Value;

use super::normalize::canonical_number_str;

/// Words of a field name that make a number an identifier (judged).
const IDENTIFIER_WORDS: &[&str] = &[
    "id",
    "ids",
    "uuid",
    "guid",
    "key",
    "number",
    "no",
    "nr",
    "code",
    "sku",
    "ref",
    "reference",
    "account",
    "acct",
    "order",
    "invoice",
    "ticket",
    "issue",
    "pr",
    "user",
    "customer",
    "client",
    "phone",
    "zip",
    "postal",
    "pin",
    "serial",
    "tracking",
    "booking",
    "reservation",
    "transaction",
    "txn",
    "payment",
    "card",
    "item",
    "product",
    "employee",
    "member",
    "patient",
    "claim",
    "policy",
    "record",
    "flight",
    "pnr",
    "iban",
    "routing",
];

/// Words of a field name that make a number a parameter the agent chooses (not judged).
const PARAMETER_WORDS: &[&str] = &[
    "timeout",
    "limit",
    "offset",
    "count",
    "max",
    "min",
    "maximum",
    "minimum",
    "size",
    "page",
    "pages",
    "per",
    "depth",
    "lines",
    "line",
    "column",
    "col",
    "character",
    "context",
    "before",
    "after",
    "retries",
    "retry",
    "attempts",
    "delay",
    "interval",
    "wait",
    "sleep",
    "duration",
    "seconds",
    "secs",
    "sec",
    "ms",
    "millis",
    "milliseconds",
    "minutes",
    "mins",
    "hours",
    "days",
    "ttl",
    "width",
    "height",
    "top",
    "k",
    "n",
    "temperature",
    "threshold",
    "length",
    "len",
    "level",
    "priority",
    "precision",
    "scale",
    "verbosity",
    "batch",
    "chunk",
    "concurrency",
    "parallelism",
    "workers",
    "threads",
    "jobs",
    "tail",
    "head",
    "skip",
    "take",
    "num",
    "steps",
    "turns",
    "iterations",
    "epochs",
    "tokens",
    "budget",
    "ratio",
    "rate",
    "percent",
    "pct",
    "weight",
    "seed",
    "radius",
    "zoom",
    "quality",
    "samples",
    "results",
];

/// Is this numeric value (a JSON number, or a string that reads as one) a parameter the agent
/// chooses? `prop` is the field's schema, when the registry has one.
/// Words of a field name that say its value names a place or a thing (a path, a URL, a
/// repository, a commit) besides `IDENTIFIER_WORDS`.
const NAME_WORDS: &[&str] = &[
    "url", "uri", "urls", "href", "link", "path", "paths", "file", "filename", "filepath",
    "dir", "directory", "folder", "repo", "repository", "branch", "commit", "sha", "hash",
    "email", "domain", "host", "hostname", "slug", "handle", "owner", "endpoint", "notebook",
];

/// Does a field's name say its value identifies something (an id, a key, a path, a URL)?
/// What R3 judges when nothing declares where a tool's values come from. The name's last word
/// says what the value is (`order_id`, `file_path`), or a `name` of such a thing
/// (`repo_name`): `clientLanguages` and `order_status` are languages and a status, not a
/// client or an order.
pub(crate) fn names_a_thing(field: &str) -> bool {
    let words = words(field);
    let thing = |w: &String| IDENTIFIER_WORDS.contains(&w.as_str()) || NAME_WORDS.contains(&w.as_str());
    match words.split_last() {
        Some((last, _)) if thing(last) => true,
        Some((last, rest)) if last == "name" || last == "names" => rest.iter().any(thing),
        _ => false,
    }
}

/// Words of a field name that say its value is text the agent writes (a pattern, a query,
/// new content, a message), whatever it looks like.
const TEXT_WORDS: &[&str] = &[
    "pattern", "regex", "regexp", "glob", "query", "q", "search", "content", "contents", "text",
    "string", "str", "prompt", "description", "message", "body", "code", "script", "command",
    "cmd", "title", "summary", "reason", "comment", "note", "notes", "input", "diff", "patch",
    "plan", "thought", "answer", "replacement", "new", "old", "include", "exclude", "filter",
    // What the agent says a step does (Antigravity's `toolAction`, `toolSummary`).
    "action", "explanation",
];

/// Does a field's name say its value is text the agent writes (`pattern`, `new_string`,
/// `query`, `content`)? R3 does not judge such a field when nothing declares its origin.
pub(crate) fn names_text(field: &str) -> bool {
    words(field)
        .iter()
        .any(|w| TEXT_WORDS.contains(&w.as_str()))
}

pub(crate) fn is_parameter(field: &str, prop: Option<&Value>, value: &Value) -> bool {
    let numeric = match value {
        Value::Number(_) => true,
        Value::String(s) => canonical_number_str(s).is_some(),
        _ => false,
    };
    if !numeric {
        return false;
    }
    let words = words(field);
    if words.iter().any(|w| IDENTIFIER_WORDS.contains(&w.as_str())) {
        return false;
    }
    // A command-line flag (`-A`, `--max-count`) is a knob of the command.
    if field.starts_with('-') || words.iter().any(|w| PARAMETER_WORDS.contains(&w.as_str())) {
        return true;
    }
    prop.is_some_and(|p| {
        let numeric_type = match p.get("type") {
            Some(Value::String(t)) => t == "integer" || t == "number",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer" || t == "number"),
            _ => false,
        };
        numeric_type
            && [
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "default",
                "multipleOf",
            ]
            .iter()
            .any(|k| p.get(*k).is_some())
    })
}

/// The words of a field name, lower case: split at separators, at lower-to-upper case changes
/// (`maxResults`, `HTTPTimeout`) and between letters and digits.
fn words(field: &str) -> std::rc::Rc<[String]> {
    thread_local! {
        static CACHE: super::word_cache::WordCache = super::word_cache::WordCache::default();
    }
    CACHE.with(|c| c.get(field, split_words))
}

/// Split a field name into its words (`words`, remembered).
fn split_words(field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = field.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|j| chars.get(j)) {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower)
                || (prev.is_alphabetic() != c.is_alphabetic() && prev.is_alphanumeric());
            if boundary && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
        if c.is_ascii() {
            cur.push(c.to_ascii_lowercase());
        } else {
            cur.extend(c.to_lowercase());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_names_split_into_words() {
        assert_eq!(*words("maxResults"), ["max", "results"]);
        assert_eq!(*words("HTTPTimeout"), ["http", "timeout"]);
        assert_eq!(*words("order_id"), ["order", "id"]);
        assert_eq!(*words("-A"), ["a"]);
        assert_eq!(*words("top_k2"), ["top", "k", "2"]);
    }

    #[test]
    fn knobs_are_parameters_and_identifiers_are_not() {
        let n = json!(30000);
        for field in [
            "timeout",
            "limit",
            "offset",
            "-C",
            "head_limit",
            "maxResults",
            "top_k",
        ] {
            assert!(is_parameter(field, None, &n), "{field}");
        }
        for field in [
            "order_id",
            "issueNumber",
            "pr",
            "account",
            "line_id",
            "max_id",
        ] {
            assert!(!is_parameter(field, None, &n), "{field}");
        }
        // Neither by name: judged, unless the schema bounds it or gives a default.
        assert!(!is_parameter("amount", None, &n));
        assert!(is_parameter(
            "amount",
            Some(&json!({"type": "integer", "maximum": 500})),
            &n
        ));
        assert!(!is_parameter(
            "amount",
            Some(&json!({"type": "integer"})),
            &n
        ));
        // Only numbers: text in a knob's field is judged as text.
        assert!(!is_parameter("timeout", None, &json!("soon")));
        assert!(is_parameter("timeout", None, &json!("120")));
    }

    #[test]
    fn a_field_names_a_thing_by_its_last_word() {
        for field in ["order_id", "file_path", "url", "repo_name", "customerNumber", "client"] {
            assert!(names_a_thing(field), "{field}");
        }
        for field in ["clientLanguages", "order_status", "name", "flight_date", "languages"] {
            assert!(!names_a_thing(field), "{field}");
        }
    }
}
