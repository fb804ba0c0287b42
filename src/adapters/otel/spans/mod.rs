//! One span record's bytes → `Span`, whatever exporter wrote it: OTLP JSON (camelCase or
//! snake_case, hex or base64 ids, nanoseconds as numbers, decimal strings or protobufjs
//! `{high, low}`), Phoenix REST spans (top-level `span_kind`, `context.trace_id`, ISO times),
//! Phoenix dataframe records (`context.trace_id` and `attributes.*` columns), the Python console
//! exporter (`"0x…"` ids, `SpanKind.CLIENT`, nested `status.status_code`), JS `ReadableSpan`
//! (`spanContext`, `[seconds, nanos]` times), TRAIL spans (`span_attributes`, nested
//! `child_spans`, ISO durations) and a bare attribute map. Reads no dialect: that is
//! `openinference` and `genai`.
//!
//! One cohesive normaliser: every exporter's spelling lands in the same `Span` fields through field
//! readers the spellings share.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::model::Location;

use super::attrs::{self, Attrs};
use crate::adapters::common::clock;

/// A span's status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StatusCode {
    /// Not set.
    #[default]
    Unset,
    /// Explicitly OK.
    Ok,
    /// Explicitly an error.
    Error,
}

/// One span event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's name (`exception`, …).
    pub name: String,
    /// Its attributes.
    pub attrs: Attrs,
}

/// One span, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Lowercase hex (or the id as written, when it is not hex or base64).
    pub trace_id: Option<String>,
    /// The span's id.
    pub span_id: Option<String>,
    /// Its parent's id.
    pub parent_id: Option<String>,
    /// Its name.
    pub name: String,
    /// An OpenInference kind given outside the attributes (Phoenix's top-level `span_kind`).
    pub span_kind: Option<String>,
    /// Start, in nanoseconds since the epoch.
    pub start: Option<i128>,
    /// End, in nanoseconds since the epoch.
    pub end: Option<i128>,
    /// Status code.
    pub status: StatusCode,
    /// Status message.
    pub status_message: Option<String>,
    /// Attributes, flat.
    pub attrs: Attrs,
    /// Events.
    pub events: Vec<Event>,
    /// Where the span's JSON begins.
    pub at: Location,
}

/// A record that is not a span: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// Lowercase, no trailing period.
    pub message: String,
}

/// Deepest TRAIL `child_spans` nesting followed.
const MAX_CHILD_DEPTH: usize = 64;

/// Read one record (a span, or a TRAIL span with its children) located at `at`.
pub fn read_record(bytes: &[u8], at: &Location) -> Result<Vec<Span>, BadRecord> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = within(bytes, at, e.valid_up_to());
        BadRecord {
            line,
            column,
            message: "invalid UTF-8: the record is not text".into(),
        }
    })?;
    let mut out = Vec::new();
    read_text(text, text, at, at.clone(), None, None, 0, &mut out)?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn read_text(
    record: &str,
    text: &str,
    base: &Location,
    at: Location,
    trace_id: Option<&str>,
    parent: Option<&str>,
    depth: usize,
    out: &mut Vec<Span>,
) -> Result<(), BadRecord> {
    let value: Map<String, Value> = serde_json::from_str(text).map_err(|e| {
        let offset = offset_of(record, text);
        let (line, column) = error_in(record, base, offset, &e);
        BadRecord {
            line,
            column,
            message: format!(
                "invalid span: {}",
                crate::adapters::common::json_pos::error_message(&e)
            ),
        }
    })?;
    let bare = !value
        .keys()
        .any(|k| ENVELOPE.contains(&k.as_str()) || k.starts_with("attributes."));
    if bare && !value.keys().any(|k| k.contains('.')) {
        return Err(BadRecord {
            line: at.line,
            column: at.column,
            message: "not a span: the object has none of a span's fields (`traceId`, `context`, `spanContext`, `span_id`, `attributes`, …) and no span attributes (`gen_ai.*`, `llm.*`, …)".into(),
        });
    }
    let mut span = span_from(&value, at.clone());
    if span.trace_id.is_none() {
        span.trace_id = trace_id.map(str::to_owned);
    }
    if span.parent_id.is_none() {
        span.parent_id = parent.map(str::to_owned);
    }
    let children = value.get("child_spans").is_some_and(Value::is_array);
    let (tid, sid) = (span.trace_id.clone(), span.span_id.clone());
    out.push(span);
    if children && depth < MAX_CHILD_DEPTH {
        #[derive(Deserialize)]
        struct Children<'a> {
            #[serde(borrow)]
            child_spans: Vec<&'a RawValue>,
        }
        if let Ok(c) = serde_json::from_str::<Children<'_>>(text) {
            for (i, raw) in c.child_spans.iter().enumerate() {
                let offset = offset_of(record, raw.get());
                let (line, column) = within(record.as_bytes(), base, offset);
                let pointer = format!("{}/child_spans/{i}", at.pointer);
                let child_at = Location::new(line, column, pointer);
                read_text(
                    record,
                    raw.get(),
                    base,
                    child_at,
                    tid.as_deref(),
                    sid.as_deref(),
                    depth + 1,
                    out,
                )?;
            }
        }
    }
    Ok(())
}

fn offset_of(record: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(record.as_ptr() as usize)
}

/// The file position of byte `offset` of a record that begins at `base`.
fn within(record: &[u8], base: &Location, offset: usize) -> (u32, u32) {
    let before = &record[..offset.min(record.len())];
    let count = |b: &[u8]| {
        u32::try_from(b.iter().filter(|c| (**c & 0xC0) != 0x80).count()).unwrap_or(u32::MAX)
    };
    match memchr::memrchr(b'\n', before) {
        None => (base.line, base.column.saturating_add(count(before))),
        Some(last) => (
            base.line.saturating_add(
                u32::try_from(memchr::memchr_iter(b'\n', before).count()).unwrap_or(u32::MAX),
            ),
            count(&before[last + 1..]) + 1,
        ),
    }
}

fn error_in(
    record: &str,
    base: &Location,
    part_offset: usize,
    e: &serde_json::Error,
) -> (u32, u32) {
    // serde counts lines and columns inside the part it parsed; map them to the file.
    let part = &record.as_bytes()[part_offset.min(record.len())..];
    let mut offset = part_offset;
    let mut line = 1;
    for (i, b) in part.iter().enumerate() {
        if line == e.line() {
            offset = part_offset + i;
            break;
        }
        if *b == b'\n' {
            line += 1;
            offset = part_offset + i + 1;
        }
    }
    let (l, c) = within(record.as_bytes(), base, offset);
    (
        l,
        c.saturating_add(u32::try_from(e.column()).unwrap_or(0).saturating_sub(1)),
    )
}

/// Keys that mark a span envelope (anything else is a bare attribute map).
const ENVELOPE: &[&str] = &[
    "attributes",
    "span_attributes",
    "context",
    "spanContext",
    "traceId",
    "trace_id",
    "spanId",
    "span_id",
    "span_name",
    "startTimeUnixNano",
    "start_time_unix_nano",
    "start_time",
    "startTime",
    "context.trace_id",
];

fn span_from(v: &Map<String, Value>, at: Location) -> Span {
    let get = |k: &str| v.get(k).filter(|x| !x.is_null());
    let ctx = get("context")
        .or_else(|| get("spanContext"))
        .and_then(Value::as_object);
    let cget = |k: &str| ctx.and_then(|c| c.get(k)).filter(|x| !x.is_null());
    let first_id = |vals: &[Option<&Value>]| vals.iter().flatten().find_map(|x| norm_id(x));
    let trace_id = first_id(&[
        get("traceId"),
        get("trace_id"),
        cget("trace_id"),
        cget("traceId"),
        get("context.trace_id"),
    ]);
    let span_id = first_id(&[
        get("spanId"),
        get("span_id"),
        cget("span_id"),
        cget("spanId"),
        get("context.span_id"),
    ]);
    let parent_id = first_id(&[
        get("parentSpanId"),
        get("parent_span_id"),
        get("parent_id"),
        get("parentId"),
        get("parentSpanContext").and_then(|p| p.get("spanId")),
    ]);
    let bare = !v
        .keys()
        .any(|k| ENVELOPE.contains(&k.as_str()) || k.starts_with("attributes."));
    let mut attributes = if bare {
        attrs::read(Some(&Value::Object(v.clone())))
    } else {
        attrs::read(get("attributes").or_else(|| get("span_attributes")))
    };
    for (k, val) in v {
        if let Some(key) = k.strip_prefix("attributes.") {
            attrs::insert(&mut attributes, key.to_owned(), val.clone(), 0);
        }
    }
    let start = [
        "startTimeUnixNano",
        "start_time_unix_nano",
        "startTime",
        "start_time",
        "timestamp",
    ]
    .iter()
    .find_map(|k| get(k).and_then(time_of));
    let end = [
        "endTimeUnixNano",
        "end_time_unix_nano",
        "endTime",
        "end_time",
    ]
    .iter()
    .find_map(|k| get(k).and_then(time_of))
    .or_else(|| {
        let d = get("duration")
            .and_then(Value::as_str)
            .and_then(clock::parse_duration)?;
        start.map(|s| s + d)
    });
    let (status, status_message) = status_of(v);
    let events = get("events")
        .and_then(Value::as_array)
        .map(|evs| {
            evs.iter()
                .filter_map(|e| {
                    Some(Event {
                        name: e.get("name")?.as_str()?.to_owned(),
                        attrs: attrs::read(e.get("attributes")),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Span {
        trace_id,
        span_id,
        parent_id,
        name: get("name")
            .or_else(|| get("span_name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        span_kind: get("span_kind")
            .and_then(Value::as_str)
            .map(str::to_ascii_uppercase),
        start,
        end,
        status,
        status_message,
        attrs: attributes,
        events,
        at,
    }
}

fn status_of(v: &Map<String, Value>) -> (StatusCode, Option<String>) {
    let (code, message) = match v.get("status") {
        Some(Value::Object(s)) => (
            s.get("code").or_else(|| s.get("status_code")),
            s.get("message").or_else(|| s.get("description")),
        ),
        Some(code @ (Value::String(_) | Value::Number(_))) => (Some(code), v.get("status_message")),
        _ => (v.get("status_code"), v.get("status_message")),
    };
    let code = match code {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(1) => StatusCode::Ok,
            Some(2) => StatusCode::Error,
            _ => StatusCode::Unset,
        },
        Some(Value::String(s)) => {
            let s = s.to_ascii_uppercase();
            let s = s.rsplit(['.', '_']).next().unwrap_or(&s);
            match s {
                "ERROR" | "2" => StatusCode::Error,
                "OK" | "1" => StatusCode::Ok,
                _ => StatusCode::Unset,
            }
        }
        _ => StatusCode::Unset,
    };
    let message = message
        .and_then(Value::as_str)
        .filter(|m| !m.trim().is_empty())
        .map(str::to_owned);
    (code, message)
}

/// A time in any encoding → nanoseconds since the epoch. Bare numbers are read by magnitude
/// (seconds, milliseconds, microseconds or nanoseconds).
pub fn time_of(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => {
            let x = n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_f64().map(|f| f as i128))?;
            Some(scale(x, n.as_f64().unwrap_or(0.0)))
        }
        Value::String(s) => {
            let t = s.trim();
            if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse::<i128>().ok().map(|x| scale(x, x as f64))
            } else {
                clock::parse_rfc3339(t)
            }
        }
        // JS HrTime `[seconds, nanoseconds]`.
        Value::Array(parts) if parts.len() == 2 => {
            let s = i128::from(parts[0].as_i64()?);
            let ns = i128::from(parts[1].as_i64()?);
            Some(s * 1_000_000_000 + ns)
        }
        // protobufjs `Long`.
        Value::Object(o) => {
            let high = o.get("high")?.as_i64()?;
            let low = o.get("low")?.as_i64()?;
            let low = i128::from(u32::try_from(low & 0xFFFF_FFFF).ok()?);
            Some((i128::from(high) << 32) + low)
        }
        _ => None,
    }
}

fn scale(x: i128, f: f64) -> i128 {
    if f.abs() >= 1e17 {
        x
    } else if f.abs() >= 1e14 {
        x * 1_000
    } else if f.abs() >= 1e11 {
        x * 1_000_000
    } else if f.fract() != 0.0 {
        (f * 1e9) as i128
    } else {
        x * 1_000_000_000
    }
}

/// An id as hex: `0x` prefixes dropped, hex lowercased, base64 (protobuf's default JSON) decoded.
/// All-zero and empty ids are absent.
pub fn norm_id(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.trim(),
        Value::Number(n) => return Some(n.to_string()),
        _ => return None,
    };
    let s = s.strip_prefix("0x").unwrap_or(s);
    if s.is_empty() || s.bytes().all(|b| b == b'0') {
        return None;
    }
    if s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(s.to_ascii_lowercase());
    }
    if matches!(s.len(), 12 | 24)
        && let Some(bytes) = base64(s)
        && matches!(bytes.len(), 8 | 16)
    {
        if bytes.iter().all(|b| *b == 0) {
            return None;
        }
        return Some(bytes.iter().map(|b| format!("{b:02x}")).collect());
    }
    Some(s.to_owned())
}

fn base64(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        })
    };
    let trimmed = s.trim_end_matches('=');
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in trimmed.bytes() {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xFF).ok()?);
        }
    }
    Some(out)
}

/// The trace id of a record, read without building its attributes (the first pass over a big
/// file only needs this).
pub fn trace_key(bytes: &[u8]) -> Result<Option<String>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Ctx {
        trace_id: Option<Value>,
        #[serde(rename = "traceId")]
        trace_id_camel: Option<Value>,
    }
    #[derive(Deserialize)]
    struct Keys {
        #[serde(rename = "traceId")]
        trace_id_camel: Option<Value>,
        trace_id: Option<Value>,
        context: Option<Ctx>,
        #[serde(rename = "spanContext")]
        span_context: Option<Ctx>,
        #[serde(rename = "context.trace_id")]
        flat: Option<Value>,
    }
    let k: Keys = serde_json::from_slice(bytes)?;
    let ctx = |c: Option<Ctx>| c.and_then(|c| c.trace_id.or(c.trace_id_camel));
    Ok([
        k.trace_id_camel,
        k.trace_id,
        ctx(k.context),
        ctx(k.span_context),
        k.flat,
    ]
    .into_iter()
    .flatten()
    .find_map(|v| norm_id(&v)))
}

#[cfg(test)]
mod tests;
