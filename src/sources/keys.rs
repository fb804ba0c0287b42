//! The keys a tools file may hold, level by level, and where a bad one is: an unknown key is an
//! input error naming the nearest known key (`inputSchem` → `inputSchema`), never a silently
//! dropped declaration, and every tools-file error is placed at its file:line:column by walking
//! the document again along the error's path (only when there is an error). Keys starting with
//! `_` or `x-` are private or extensions and always allowed. No parsing of values here.

use std::collections::BTreeMap;

use serde_json::Map;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::LineIndex;

/// One step of a path into a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// An object member.
    Key(String),
    /// An array element.
    Index(usize),
}

/// A path into a tools document (where an error is).
pub(crate) type Path = Vec<Seg>;

/// A tools-document error: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bad {
    /// The member or element the error is about.
    pub(crate) path: Path,
    /// What is wrong and how to fix it.
    pub(crate) message: String,
}

impl Bad {
    pub(crate) fn new(path: Path, message: impl Into<String>) -> Self {
        Self {
            path,
            message: message.into(),
        }
    }
}

/// The path extended by one key.
pub(crate) fn key(path: &[Seg], k: &str) -> Path {
    let mut p = path.to_vec();
    p.push(Seg::Key(k.to_owned()));
    p
}

/// Keys of a tools document's top level (beside `tools`), including a JSON-RPC `tools/list`
/// reply's envelope.
pub(crate) const TOP: &[&str] = &[
    "tools",
    "closed",
    "off_limits",
    "result",
    "jsonrpc",
    "id",
    "description",
    "$schema",
    "$comment",
    "nextCursor",
    "cacheScope",
    "resultType",
    "ttlMs",
    // A `tracelint mcp pin` lock: its source, the server's name and version.
    "tracelint_lock",
];

/// Keys of a `tools/list` result (any MCP era) inside a JSON-RPC reply.
pub(crate) const RESULT: &[&str] = &["tools", "nextCursor", "cacheScope", "resultType", "ttlMs"];

/// Keys of one tool, in every shape: MCP (`inputSchema`, `outputSchema`, `annotations`, `title`,
/// `icons`, `execution`), OpenAI (`type`, `function`, `parameters`, `strict`), Anthropic
/// (`input_schema`, `cache_control`), seed 002's map and the Python tracelint's contract
/// (`schema`, `output_schema`, `metadata`, `value_origins`, `schema_version`).
pub(crate) const TOOL: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "input_schema",
    "parameters",
    "schema",
    "outputSchema",
    "output_schema",
    "annotations",
    "metadata",
    "value_origins",
    "schema_version",
    "icons",
    "execution",
    "type",
    "function",
    "strict",
    "cache_control",
    "$comment",
    // Defers to a coding agent's built-in schema of the tool (`builtin:claude-code`).
    "builtin",
    // A `tracelint mcp pin` lock's digest of the tool's definition.
    "digest",
];

/// Metadata keys tracelint reads.
pub(crate) const METADATA: &[&str] = &[
    "side_effecting",
    "idempotent",
    "open_world",
    "polling",
    "paginated",
    "retryable_errors",
    "failure_when",
    "requires",
    "output_schema",
];

/// Metadata keys other tools' contracts carry that tracelint accepts without reading.
pub(crate) const METADATA_TOLERATED: &[&str] = &[
    "destructive",
    "confirmed_by",
    "description",
    "$comment",
];

/// Keys of a `requires` entry.
pub(crate) const REQUIRES: &[&str] = &["tool", "same", "succeeded"];

/// Keys of `off_limits`.
pub(crate) const OFF_LIMITS: &[&str] = &["sources", "reason"];

/// A private (`_todo`, `_meta`, `_comment`) or extension (`x-…`) key.
fn private(k: &str) -> bool {
    k.starts_with('_') || k.starts_with("x-")
}

/// The first key of `obj` that is neither known nor private, as an error naming the nearest
/// known key. `what` says where (`tool `get_order``); `known` lists the keys read there and
/// `tolerated` further keys accepted without being read.
pub(crate) fn check(
    obj: &Map<String, Value>,
    path: &[Seg],
    what: &str,
    known: &[&str],
    tolerated: &[&str],
) -> Result<(), Bad> {
    let Some(k) = obj
        .keys()
        .find(|k| !private(k) && !known.contains(&k.as_str()) && !tolerated.contains(&k.as_str()))
    else {
        return Ok(());
    };
    let hint = match crate::suggest::closest_name(k, known.iter().copied()) {
        Some(near) => format!(": did you mean `{near}`?"),
        None => format!(
            ": remove it, or use one of {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(Bad::new(
        self::key(path, k),
        format!("unknown key `{k}` in {what}{hint}"),
    ))
}

/// The 1-based line and column of the member or element at `path` in `text` (a key's own
/// position for an object member), or of the deepest part of the path that exists.
pub(crate) fn locate(text: &str, path: &[Seg]) -> Option<(u32, u32)> {
    let mut raw: &RawValue = serde_json::from_str(text).ok()?;
    let mut at = offset(text, raw);
    for seg in path {
        let next = match seg {
            Seg::Key(k) => {
                let members: BTreeMap<String, &RawValue> = serde_json::from_str(raw.get()).ok()?;
                members.get(k).map(|v| {
                    let value_at = offset(text, v);
                    (*v, key_start(text, value_at).unwrap_or(value_at))
                })
            }
            Seg::Index(i) => {
                let items: Vec<&RawValue> = serde_json::from_str(raw.get()).ok()?;
                items.get(*i).map(|v| (*v, offset(text, v)))
            }
        };
        let Some((v, place)) = next else { break };
        raw = v;
        at = place;
    }
    Some(LineIndex::new(text).line_col(text, at))
}

fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize)
        .saturating_sub(text.as_ptr() as usize)
        .min(text.len())
}

/// The offset of the opening quote of the key whose value starts at `value_at`.
pub(crate) fn key_start(text: &str, value_at: usize) -> Option<usize> {
    let before = text.get(..value_at)?.trim_end();
    let before = before.strip_suffix(':')?.trim_end();
    let close = before.len().checked_sub(1)?;
    if !before.ends_with('"') {
        return None;
    }
    // Back to the opening quote, past escaped quotes inside the key.
    let bytes = before.as_bytes();
    let mut i = close;
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let slashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
            if slashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locate_finds_keys_and_elements() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"a\"},\n    {\"name\": \"b\",\n     \"inputSchem\": {}}\n  ]\n}";
        let p = vec![
            Seg::Key("tools".into()),
            Seg::Index(1),
            Seg::Key("inputSchem".into()),
        ];
        assert_eq!(locate(text, &p), Some((5, 6)));
        assert_eq!(locate(text, &p[..2]), Some((4, 5)));
        // A path past what exists stops at the deepest part found.
        let p = vec![Seg::Key("tools".into()), Seg::Index(7)];
        assert_eq!(locate(text, &p), Some((2, 3)));
        // A key with an escaped quote.
        let text = r#"{"a\"b": 1}"#;
        assert_eq!(locate(text, &[Seg::Key("a\"b".into())]), Some((1, 2)));
    }

    #[test]
    fn unknown_keys_name_the_nearest_known_one() {
        let obj = json!({"name": "t", "inputSchem": {}, "_todo": [], "x-owner": "me"});
        let err = check(obj.as_object().unwrap(), &[], "tool `t`", TOOL, &[]).unwrap_err();
        assert_eq!(
            err.message,
            "unknown key `inputSchem` in tool `t`: did you mean `inputSchema`?"
        );
        assert_eq!(err.path, vec![Seg::Key("inputSchem".into())]);
        let obj = json!({"zzz": 1});
        let err = check(
            obj.as_object().unwrap(),
            &[],
            "`off_limits`",
            OFF_LIMITS,
            &[],
        );
        assert_eq!(
            err.unwrap_err().message,
            "unknown key `zzz` in `off_limits`: remove it, or use one of `sources`, `reason`"
        );
    }
}
