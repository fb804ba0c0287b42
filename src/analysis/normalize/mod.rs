//! Value normalisation shared by rules (SPEC §5 "Definitions shared by rules"): canonical JSON of
//! arguments without volatile keys and the result class / identity used by R4 and R5; text
//! normalisation (trim, Unicode case-fold, collapse whitespace), digit strings and numbers read
//! from text, used by R2b and R3 through `provenance` (those are in `numbers`). Pure functions
//! over values: no trace walking, no findings.

use serde_json::Value;

use crate::model::{ResultStatus, ToolResult};

mod numbers;

pub(crate) use numbers::{
    DigitPart, DigitScratch, canonical_json_number, canonical_json_number_into, canonical_number,
    canonical_number_str, canonical_number_str_into, digit_streams, digits, digits_into,
    for_each_number_and_stream, parse_number_str,
};
#[cfg(test)]
pub(crate) use numbers::{numbers_in, plain_decimal_into};

/// Argument keys that change on every call without changing what is asked (case-insensitive).
const VOLATILE_KEYS: &[&str] = &[
    "timestamp",
    "ts",
    "time",
    "request_id",
    "requestid",
    "nonce",
    "idempotency_key",
    "trace_id",
    "traceid",
    "span_id",
];

/// Result `status`/`state` values that mean "not done yet".
const WAITING_STATES: &[&str] = &[
    "pending",
    "in_progress",
    "queued",
    "running",
    "processing",
    "waiting",
    "started",
];

/// Deepest nesting walked when normalising a value; deeper parts are kept as they are.
const MAX_DEPTH: usize = 64;

/// Canonical JSON of call arguments: sorted keys (serde_json's map is ordered), volatile keys
/// dropped at every level. Appended straight to `out` (UTF-8: serde_json writes nothing else),
/// without copying the value.
pub(crate) fn canonical_args_into(args: &Value, out: &mut Vec<u8>) {
    write_canonical(args, 0, out);
}

/// `canonical_args_into` as a string.
#[cfg(test)]
pub(crate) fn canonical_args(args: &Value) -> String {
    let mut out = Vec::new();
    canonical_args_into(args, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn write_canonical(v: &Value, depth: usize, out: &mut Vec<u8>) {
    match v {
        Value::Object(m) if depth < MAX_DEPTH => {
            out.push(b'{');
            let mut first = true;
            for (k, x) in m.iter().filter(|(k, _)| !is_volatile(k)) {
                if !first {
                    out.push(b',');
                }
                first = false;
                // Writing to a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, k);
                out.push(b':');
                write_canonical(x, depth + 1, out);
            }
            out.push(b'}');
        }
        Value::Array(items) if depth < MAX_DEPTH => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(x, depth + 1, out);
            }
            out.push(b']');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

fn is_volatile(key: &str) -> bool {
    VOLATILE_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
}

/// The coarse class of a result (SPEC §5): what R4 reads to recognise a waiting state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResultClass {
    /// No result recorded (or its content was not captured).
    NoResult,
    /// A structured error.
    Error,
    /// Null, an empty container or an empty string.
    Empty,
    /// The result's top-level `status` / `state` field, normalised.
    Status(String),
    /// Anything else.
    Ok,
}

impl ResultClass {
    /// The result says the work is not done yet (`status: pending`, …).
    pub(crate) fn is_waiting(&self) -> bool {
        matches!(self, ResultClass::Status(s) if WAITING_STATES.contains(&s.as_str()))
    }
}

/// The class of a call's result.
pub(crate) fn result_class(result: Option<&ToolResult>) -> ResultClass {
    let Some(r) = result.filter(|r| r.content_recorded) else {
        return ResultClass::NoResult;
    };
    if r.status == ResultStatus::Error {
        return ResultClass::Error;
    }
    let content = r.structured();
    if is_empty(content) {
        return ResultClass::Empty;
    }
    match status_field(content) {
        Some(s) => ResultClass::Status(s),
        None => ResultClass::Ok,
    }
}

/// The normalised top-level `status` (or `state`) string of a result object.
pub(crate) fn status_field(content: &Value) -> Option<String> {
    let m = content.as_object()?;
    let v = m.get("status").or_else(|| m.get("state"))?.as_str()?;
    Some(v.trim().to_lowercase().replace([' ', '-'], "_"))
}

/// True when two recorded results are identical: same status, same content (SPEC's result
/// fingerprint, compared structurally so key order never matters).
pub(crate) fn same_result(a: &ToolResult, b: &ToolResult) -> bool {
    a.content_recorded && b.content_recorded && a.status == b.status && a.content == b.content
}

/// Null, an empty container, or a blank string.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// Trim, Unicode case-fold and collapse whitespace runs to one space.
pub(crate) fn normalize_text(s: &str) -> String {
    let mut out = String::new();
    normalize_into(s, &mut out);
    out
}

/// `normalize_text` into a buffer the caller reuses (cleared first).
pub(crate) fn normalize_into(s: &str, out: &mut String) {
    out.clear();
    let s = s.trim();
    if s.is_ascii() {
        // ASCII text (most of it) folds to lower case byte by byte. Without two whitespace
        // bytes in a row (the text is trimmed), each one becomes a space: a map, byte to byte,
        // in passes the compiler vectorises.
        const BLOCK: usize = 128;
        let bytes = s.as_bytes();
        let runs = bytes
            .chunks(BLOCK)
            .zip(bytes.get(1..).unwrap_or_default().chunks(BLOCK))
            .any(|(a, b)| {
                a.iter().zip(b).fold(false, |any, (a, b)| {
                    any | (is_ascii_space(*a) & is_ascii_space(*b))
                })
            });
        if !runs {
            let mut mapped = std::mem::take(out).into_bytes();
            mapped.extend(bytes.iter().map(|b| {
                if is_ascii_space(*b) {
                    b' '
                } else {
                    b.to_ascii_lowercase()
                }
            }));
            *out = String::from_utf8(mapped).unwrap_or_default();
            return;
        }
        out.reserve(s.len());
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            while i < bytes.len() && is_ascii_space(bytes[i]) {
                i += 1;
            }
            let start = i;
            while i < bytes.len() && !is_ascii_space(bytes[i]) {
                i += 1;
            }
            if start < i {
                if !out.is_empty() {
                    out.push(' ');
                }
                let at = out.len();
                out.push_str(&s[start..i]);
                out[at..].make_ascii_lowercase();
            }
        }
        return;
    }
    normalize_folding(s, out);
}

/// `normalize_into` for any text (trimmed already, `out` cleared): Unicode case folding, then
/// whitespace runs collapsed.
fn normalize_folding(s: &str, out: &mut String) {
    let folded = caseless::default_case_fold_str(s);
    out.reserve(folded.len());
    let mut space = false;
    for c in folded.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c.to_ascii_lowercase());
        }
    }
}

/// Whitespace in ASCII text, as `char::is_whitespace` reads it: `\t`, `\n`, vertical tab, form
/// feed, `\r` and space.
pub(crate) fn is_ascii_space(b: u8) -> bool {
    // `\t` to `\r` are 9 to 13: two comparisons, which vectorise (a match on the six does not).
    (b == b' ') | (b.wrapping_sub(b'\t') < 5)
}

#[cfg(test)]
mod tests;
