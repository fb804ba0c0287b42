//! Tests of span record readers: one case per exporter shape.

use super::*;
use serde_json::json;

fn one(v: Value) -> Span {
    let text = v.to_string();
    let mut spans = read_record(text.as_bytes(), &Location::new(1, 1, "")).unwrap();
    spans.remove(0)
}

#[test]
fn otlp_span() {
    let s = one(
        json!({"traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "EEE19B7EC3C1B174",
        "parentSpanId": "", "name": "n", "kind": 2, "startTimeUnixNano": "1544712660000000000",
        "endTimeUnixNano": 1_544_712_661_000_000_000u64, "status": {"code": 2, "message": "boom"},
        "attributes": [{"key": "a", "value": {"intValue": "7"}}],
        "events": [{"name": "exception", "attributes": [{"key": "exception.message", "value": {"stringValue": "x"}}]}]}),
    );
    assert_eq!(
        s.trace_id.as_deref(),
        Some("5b8efff798038103d269b633813fc60c")
    );
    assert_eq!(s.parent_id, None);
    assert_eq!(s.start, Some(1_544_712_660_000_000_000));
    assert_eq!(s.end, Some(1_544_712_661_000_000_000));
    assert_eq!(
        (s.status, s.status_message.as_deref()),
        (StatusCode::Error, Some("boom"))
    );
    assert_eq!(s.attrs["a"], json!(7));
    assert_eq!(s.events[0].attrs["exception.message"], json!("x"));
}

#[test]
fn phoenix_console_readable_and_dataframe_shapes() {
    let p = one(
        json!({"name": "t", "context": {"trace_id": "T1", "span_id": "s1"}, "span_kind": "TOOL",
        "parent_id": null, "start_time": "2026-07-09T00:00:00+00:00", "status_code": "ERROR",
        "status_message": "bad", "attributes": {"tool.name": "t"}}),
    );
    assert_eq!(
        (p.trace_id.as_deref(), p.span_kind.as_deref()),
        (Some("T1"), Some("TOOL"))
    );
    assert_eq!(p.status, StatusCode::Error);
    let c = one(
        json!({"name": "c", "context": {"trace_id": "0xABCDEF0123456789ABCDEF0123456789", "span_id": "0x0123456789abcdef"},
        "kind": "SpanKind.CLIENT", "status": {"status_code": "ERROR", "description": "d"}}),
    );
    assert_eq!(
        c.trace_id.as_deref(),
        Some("abcdef0123456789abcdef0123456789")
    );
    assert_eq!(
        (c.status, c.status_message.as_deref()),
        (StatusCode::Error, Some("d"))
    );
    let r = one(
        json!({"name": "r", "spanContext": {"traceId": "aa", "spanId": "bb"},
        "startTime": [1_770_131_992, 242_000_000], "status": {"code": 0}, "attributes": {"ai.x": 1}}),
    );
    assert_eq!(r.start, Some(1_770_131_992_242_000_000));
    let d = one(
        json!({"context.trace_id": "T", "context.span_id": "S", "span_kind": "LLM",
        "start_time": 1_720_483_200_000i64,
        "attributes.llm.input_messages": [{"message.role": "user", "message.content": "hi"}]}),
    );
    assert_eq!(d.trace_id.as_deref(), Some("T"));
    assert_eq!(d.start, Some(1_720_483_200_000_000_000));
    assert_eq!(d.attrs["llm.input_messages.0.message.content"], json!("hi"));
}

#[test]
fn bare_attribute_maps_and_base64_ids() {
    let b = one(json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "w"}));
    assert_eq!(b.attrs["gen_ai.tool.name"], json!("w"));
    assert_eq!(b.trace_id, None);
    assert_eq!(
        norm_id(&json!("W47/95gDgQPSabYzgT/GDA==")).as_deref(),
        Some("5b8efff798038103d269b633813fc60c")
    );
    assert_eq!(norm_id(&json!("0000000000000000")), None);
}

#[test]
fn trail_children_are_spans_with_their_own_positions() {
    let text = "{\"trace_id\": \"t\", \"span_id\": \"a\", \"span_name\": \"root\", \"timestamp\": \"2025-01-01T00:00:00Z\", \"duration\": \"PT0.5S\",\n \"span_attributes\": {}, \"child_spans\": [\n  {\"span_id\": \"b\", \"span_name\": \"kid\", \"status_code\": \"Error\", \"span_attributes\": {\"tool.name\": \"x\"}, \"child_spans\": []}]}";
    let spans = read_record(text.as_bytes(), &Location::new(10, 3, "/spans/0")).unwrap();
    assert_eq!(spans.len(), 2);
    assert_eq!(
        spans[0].end.zip(spans[0].start).map(|(e, s)| e - s),
        Some(500_000_000)
    );
    let kid = &spans[1];
    assert_eq!((kid.at.line, kid.at.column), (12, 3));
    assert_eq!(kid.at.pointer, "/spans/0/child_spans/0");
    assert_eq!(
        (kid.trace_id.as_deref(), kid.parent_id.as_deref()),
        (Some("t"), Some("a"))
    );
    assert_eq!(kid.status, StatusCode::Error);
}

#[test]
fn bad_records_are_located_in_the_file() {
    let err = read_record(b"{\"a\":\n  tru}", &Location::new(5, 4, "")).unwrap_err();
    assert_eq!((err.line, err.column), (6, 6));
    assert!(
        err.message.starts_with("invalid span: expected ident"),
        "{}",
        err.message
    );
    assert_eq!(
        trace_key(br#"{"context": {"trace_id": "ABC"}, "x": [1]}"#)
            .unwrap()
            .as_deref(),
        Some("abc")
    );
    assert_eq!(trace_key(br#"{"resource": {}}"#).unwrap(), None);
}
