//! Borrowed views of JSON for the harness adapters (Inspect, ATIF, SWE-agent, …): an object as
//! its members, an array as its elements, each still a `RawValue` inside the input text so a
//! `Cursor` can locate it. Small conversions to owned values where a reader needs one. Knows no
//! format.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

/// An object's members, borrowed (`None` when `raw` is not an object).
pub type Members<'a> = BTreeMap<String, &'a RawValue>;

/// The members of an object.
pub fn object(raw: &RawValue) -> Option<Members<'_>> {
    if !raw.get().starts_with('{') {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// The elements of an array (`None` when `raw` is not an array).
pub fn array(raw: &RawValue) -> Option<Vec<&RawValue>> {
    if !raw.get().starts_with('[') {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// The elements of a member that is an array (empty when absent or not an array).
pub fn list<'a>(m: &Members<'a>, key: &str) -> Vec<&'a RawValue> {
    m.get(key).and_then(|r| array(r)).unwrap_or_default()
}

/// A member as an owned value (`None` when absent or `null`).
pub fn value(m: &Members<'_>, key: &str) -> Option<Value> {
    let raw = m.get(key)?;
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::Null) | Err(_) => None,
        Ok(v) => Some(v),
    }
}

/// A member that is a string.
pub fn string(m: &Members<'_>, key: &str) -> Option<String> {
    let raw = m.get(key)?;
    if !raw.get().starts_with('"') {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// A member that is a string or a number, as text (ids written either way).
pub fn id(m: &Members<'_>, key: &str) -> Option<String> {
    match value(m, key)? {
        Value::String(s) if !s.is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Is this record an event of a stream: an object whose `type` is one of `types` and which has
/// no (non-null) `unless` member, the key that marks the same tool's other record shape?
pub fn is_typed_event(raw: &RawValue, types: &[&str], unless: &str) -> bool {
    let Some(m) = object(raw) else {
        return false;
    };
    m.get(unless).is_none_or(|r| r.get() == "null")
        && string(&m, "type").is_some_and(|k| types.contains(&k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_of_objects_and_arrays() {
        let raw: &RawValue =
            serde_json::from_str(r#"{"a": [1, {"b": "x"}], "n": 3, "z": null}"#).unwrap();
        let m = object(raw).unwrap();
        assert_eq!(list(&m, "a").len(), 2);
        assert!(list(&m, "n").is_empty());
        assert_eq!(id(&m, "n").as_deref(), Some("3"));
        assert_eq!(value(&m, "z"), None);
        assert_eq!(string(&m, "n"), None);
        assert!(object(m["a"]).is_none());
    }

    #[test]
    fn a_typed_event_has_its_type_and_not_the_other_shapes_key() {
        let is = |text: &str| {
            let raw: &RawValue = serde_json::from_str(text).unwrap();
            is_typed_event(raw, &["init", "message"], "id")
        };
        assert!(is(r#"{"type": "init", "session_id": "s"}"#));
        assert!(is(r#"{"type": "message", "id": null}"#));
        assert!(!is(r#"{"type": "message", "id": "m1"}"#));
        assert!(!is(r#"{"type": "result"}"#));
        assert!(!is(r#"{"type": 3}"#));
        assert!(!is(r#"["init"]"#));
    }
}
