//! OTel adapter tests: the canonical model of every real span file (snapshots), counts against
//! the Python reference, the failing Phoenix tool at its span's line, fan-out by trace id,
//! every container shape, and the streaming reader agreeing with the in-memory one.
//!
//! Kept in one file: the tests share the span builders and parse helpers (`otlp_span`,
//! `tool_attrs`, `parse_file`, `both_ways`).

use std::io::Cursor;
use std::path::Path;

use serde_json::json;

use super::*;
use crate::adapters::Limits;
use crate::adapters::{InputFormat, Parsed, parse_bytes, testing::snapshot};
use crate::model::{Args, CallOrigin, ResultStatus};

/// OpenInference files (the Phoenix span exports are made by `make-phoenix.py` beside them).
const OPENINFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/real/otel-openinference"
);
/// GenAI semconv files and the OTLP proto example.
const GENAI: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/real/otel-genai"
);

fn parse_file(path: &Path) -> Parsed {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy();
    parse_bytes(&bytes, &name, Some(InputFormat::Otel)).1
}

#[test]
fn real_openinference_files_snapshot() {
    assert!(
        Path::new(OPENINFERENCE).is_dir(),
        "missing fixtures: {OPENINFERENCE}"
    );
    insta::glob!(OPENINFERENCE, "*.json", |path| {
        let p = parse_file(path);
        insta::assert_snapshot!(snapshot::render(&p.traces, &p.issues));
    });
}

#[test]
fn real_genai_files_snapshot() {
    assert!(Path::new(GENAI).is_dir(), "missing fixtures: {GENAI}");
    insta::glob!(GENAI, "*.json", |path| {
        let p = parse_file(path);
        insta::assert_snapshot!(snapshot::render(&p.traces, &p.issues));
    });
}

fn input(path: &str) -> InputRef {
    InputRef {
        path: path.into(),
        format: "otel".into(),
    }
}

/// Read `text` both ways: in memory through `parse_reader`, and streamed from a seekable
/// source. Both must give the same traces and issues.
fn both_ways(text: &str) -> Parsed {
    let (_, in_memory) = parse_bytes(text.as_bytes(), "f.json", Some(InputFormat::Otel));
    let mut streamed = Parsed::default();
    parse_seekable(
        Cursor::new(text.as_bytes()),
        &input("f.json"),
        Limits::default(),
        &mut streamed,
    );
    assert_eq!(
        snapshot::render(&in_memory.traces, &in_memory.issues),
        snapshot::render(&streamed.traces, &streamed.issues),
        "streamed and in-memory readings differ"
    );
    in_memory
}

fn errors(p: &Parsed) -> usize {
    p.traces
        .iter()
        .flat_map(|t| &t.steps)
        .filter(|s| {
            s.as_result()
                .is_some_and(|r| r.status == ResultStatus::Error)
        })
        .count()
}

/// Calls and structured-error results per real file, against the Python reference 0.14
/// (`run.sh check FILE --format openinference --json out.json`: R1 coverage total = tool calls,
/// R2a `hard_event` findings = structured errors; "nothing to lint" (exit 3) counts as 0).
#[test]
fn counts_against_the_reference() {
    const NO_ENVELOPE: &str = "the reference reads nothing from a span given as a bare attribute map (exit 3, nothing to lint); ours reads it as one span";
    // (dir, file, (our calls, our errors), (reference calls, reference hard events), why)
    let table = [
        (
            OPENINFERENCE,
            "phoenix-refund.spans.json",
            (2, 1),
            (2, 1),
            "",
        ),
        (
            OPENINFERENCE,
            "phoenix-subagent.spans.json",
            (3, 0),
            (3, 0),
            "",
        ),
        (
            OPENINFERENCE,
            "openinference-vercel-v6-all-spans.readablespan.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            OPENINFERENCE,
            "openinference-genai-fixture-openinference_client_span_tool_calls.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            OPENINFERENCE,
            "openinference-genai-fixture-openinference_client_span_input_output_only.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            GENAI,
            "openinference-genai-fixture-otel_genai_client_span_tool_calls.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            GENAI,
            "openinference-genai-fixture-otel_genai_deprecated_client_span_tool_calls.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            GENAI,
            "openinference-genai-fixture-otel_genai_tool_execution_span.json",
            (1, 0),
            (0, 0),
            NO_ENVELOPE,
        ),
        (GENAI, "otlp-proto-examples-trace.json", (0, 0), (0, 0), ""),
        (
            GENAI,
            "semconv-schema-gen-ai-input-messages.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            GENAI,
            "semconv-schema-gen-ai-output-messages.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            GENAI,
            "semconv-schema-gen-ai-system-instructions.json",
            (0, 0),
            (0, 0),
            "",
        ),
        (
            GENAI,
            "semconv-schema-gen-ai-tool-definitions.json",
            (0, 0),
            (0, 0),
            "",
        ),
    ];
    for (dir, name, ours, reference, why) in table {
        let path = Path::new(dir).join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let p = both_ways(&text);
        let calls: usize = p.traces.iter().map(Trace::call_count).sum();
        assert_eq!((calls, errors(&p)), ours, "{name}");
        assert!(
            ours == reference || !why.is_empty(),
            "{name}: unexplained difference from the reference"
        );
    }
    // Every file in both folders is in the table.
    for dir in [OPENINFERENCE, GENAI] {
        for e in std::fs::read_dir(dir).unwrap() {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                !n.ends_with(".json") || table.iter().any(|t| t.1 == n),
                "{n} is not compared"
            );
        }
    }
}

#[test]
fn the_failing_phoenix_tool_is_an_error_result_at_its_span() {
    let path = Path::new(OPENINFERENCE).join("phoenix-refund.spans.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // Independently: the span whose status is ERROR, its place in the array, and the line where
    // its object opens (the file is indented by two spaces: a span opens with `  {`).
    let spans: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let at = spans
        .iter()
        .position(|s| s["status_code"] == "ERROR")
        .unwrap();
    let failed_span = &spans[at];
    let span_id = failed_span["context"]["span_id"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let id_line = lines
        .iter()
        .position(|l| l.contains(&format!("\"span_id\": \"{span_id}\"")))
        .unwrap();
    let open_line = (0..id_line).rev().find(|&i| lines[i] == "  {").unwrap() + 1;
    let p = both_ways(&text);
    let failed: Vec<_> = p.traces[0]
        .steps
        .iter()
        .filter(|s| {
            s.as_result()
                .is_some_and(|r| r.status == ResultStatus::Error)
        })
        .collect();
    assert_eq!(failed.len(), 1);
    let step = failed[0];
    assert_eq!((step.at.line as usize, step.at.column), (open_line, 3));
    assert_eq!(step.at.pointer, format!("/{at}"));
    let result = step.as_result().unwrap();
    assert!(
        result
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("refund window closed for order A-1001")),
        "{result:?}"
    );
    // The call it answers is the model's own, joined by id with the TOOL span.
    assert_eq!(
        result.call_id.as_deref(),
        failed_span["attributes"]["tool.id"].as_str()
    );
    let call = p.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .find(|c| c.call_id == result.call_id)
        .unwrap();
    assert_eq!(
        (call.name.as_str(), call.origin),
        ("refund_order", CallOrigin::Model)
    );
}

fn otlp_span(
    trace: &str,
    span: &str,
    parent: &str,
    start: u64,
    attrs: serde_json::Value,
) -> serde_json::Value {
    let attributes: Vec<serde_json::Value> = attrs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| json!({"key": k, "value": {"stringValue": v}}))
        .collect();
    json!({"traceId": trace, "spanId": span, "parentSpanId": parent, "name": span,
           "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 5).to_string(),
           "kind": 1, "status": {}, "attributes": attributes})
}

fn tool_attrs(name: &str, id: &str) -> serde_json::Value {
    json!({"openinference.span.kind": "TOOL", "tool.name": name, "tool.id": id,
           "input.value": "{\"q\": 1}", "output.value": "ok"})
}

#[test]
fn spans_of_two_trace_ids_are_two_traces_in_order_of_appearance() {
    let doc = json!({"resourceSpans": [
        {"scopeSpans": [{"scope": {"name": "s"}, "spans": [
            otlp_span("0000000000000000000000000000000B", "01", "", 20, tool_attrs("b1", "x")),
            otlp_span("0000000000000000000000000000000A", "02", "", 10, tool_attrs("a1", "y")),
        ]}]},
        {"scopeSpans": [{"spans": [
            otlp_span("0000000000000000000000000000000B", "03", "", 5, tool_attrs("b0", "z")),
        ]}]}
    ]});
    let p = both_ways(&serde_json::to_string_pretty(&doc).unwrap());
    let ids: Vec<_> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "0000000000000000000000000000000b",
            "0000000000000000000000000000000a"
        ]
    );
    // Within a trace, by start time, whatever the file order.
    let names: Vec<_> = p.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["b0", "b1"]);
    assert_eq!(
        p.traces[0].attribute(TRACE_ID),
        Some("0000000000000000000000000000000b")
    );
    assert!(p.issues.is_empty(), "{:?}", p.issues);
}

#[test]
fn json_lines_of_spans_and_of_snake_case_batches() {
    let span_lines = [
        json!({"name": "t", "context": {"trace_id": "T", "span_id": "a"}, "span_kind": "TOOL",
               "start_time": "2025-01-01T00:00:02Z",
               "attributes": {"tool.name": "second", "input.value": "{}", "output.value": "2"}}),
        json!({"name": "t", "context": {"trace_id": "T", "span_id": "b"}, "span_kind": "TOOL",
               "start_time": "2025-01-01T00:00:01Z",
               "attributes": {"tool.name": "first", "input.value": "{}", "output.value": "1"}}),
    ];
    let text = span_lines
        .iter()
        .map(|l| l.to_string() + "\n")
        .collect::<String>();
    let p = both_ways(&text);
    assert_eq!(p.traces.len(), 1, "one run, not one trace per line");
    assert_eq!(p.traces[0].steps[0].at.line, 2);
    assert_eq!(p.traces[0].steps[0].as_call().unwrap().name, "first");

    let batch = json!({"resource_spans": [{"scope_spans": [{"spans": [
        {"trace_id": "W47/95gDgQPSabYzgT/GDA==", "span_id": "7uGbfsPBsXQ=", "name": "execute_tool w",
         "start_time_unix_nano": 1_700_000_000_000_000_000u64, "kind": "SPAN_KIND_INTERNAL",
         "status": {"code": "STATUS_CODE_ERROR", "message": "timeout"},
         "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "execute_tool"}},
                        {"key": "gen_ai.tool.name", "value": {"string_value": "w"}},
                        {"key": "gen_ai.tool.call.arguments", "value": {"string_value": "{\"city\": \"Oslo\"}"}}]}]}]}]});
    let text = format!("{batch}\n{{broken\n{batch}\n");
    let p = both_ways(&text);
    assert_eq!(p.traces.len(), 1);
    assert_eq!(p.traces[0].run_id, "5b8efff798038103d269b633813fc60c");
    assert_eq!(p.issues.len(), 1, "{:?}", p.issues);
    assert_eq!(p.issues[0].line, 2);
    assert!(p.traces[0].partial);
    let r = p.traces[0].steps[1].as_result().unwrap();
    assert_eq!(
        (r.status, r.error.as_deref()),
        (ResultStatus::Error, Some("timeout"))
    );
    // The same span exported twice (lines 1 and 3) is one span id: both are read.
    assert_eq!(p.traces[0].call_count(), 2);
}

#[test]
fn model_calls_without_tool_spans_are_calls_answered_by_later_messages() {
    let llm = |id: &str, start: &str, input: serde_json::Value, output: serde_json::Value| {
        json!({"name": "chat", "context": {"trace_id": "T", "span_id": id}, "start_time": start,
               "attributes": {"gen_ai.operation.name": "chat",
                              "gen_ai.input.messages": input.to_string(),
                              "gen_ai.output.messages": output.to_string()}})
    };
    let doc = json!([
        llm(
            "a",
            "2025-01-01T00:00:00Z",
            json!([{"role": "user", "parts": [{"type": "text", "content": "weather in Oslo?"}]}]),
            json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "w", "arguments": "{'city': 'Oslo'}"}]}])
        ),
        llm(
            "b",
            "2025-01-01T00:00:03Z",
            json!([{"role": "user", "parts": [{"type": "text", "content": "weather in Oslo?"}]},
                   {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "rain"}]}]),
            json!([{"role": "assistant", "parts": [{"type": "text", "content": "It rains."}]}])
        )
    ]);
    let p = both_ways(&doc.to_string());
    let t = &p.traces[0];
    let call = t.steps.iter().find_map(|s| s.as_call()).unwrap();
    assert_eq!(
        call.args,
        Args::Known(json!({"city": "Oslo"})),
        "a Python literal is arguments"
    );
    assert_eq!(call.origin, CallOrigin::Model);
    let result = t.steps.iter().find_map(|s| s.as_result()).unwrap();
    assert_eq!(
        (result.call_id.as_deref(), &result.content),
        (Some("c1"), &json!("rain"))
    );
    assert_eq!(
        t.steps.last().unwrap().as_message().unwrap().content,
        "It rains."
    );
}

#[test]
fn console_exporter_output_trail_and_data_envelopes() {
    let console = "{\n    \"name\": \"lookup\",\n    \"context\": {\"trace_id\": \"0x5b8efff798038103d269b633813fc60c\", \"span_id\": \"0x1\"},\n    \"kind\": \"SpanKind.INTERNAL\",\n    \"status\": {\"status_code\": \"OK\"},\n    \"attributes\": {\"openinference.span.kind\": \"TOOL\", \"tool.name\": \"lookup\", \"input.value\": \"{}\"}\n}\n{\n    \"name\": \"lookup\",\n    \"context\": {\"trace_id\": \"0x5b8efff798038103d269b633813fc60c\", \"span_id\": \"0x2\"},\n    \"attributes\": {\"openinference.span.kind\": \"TOOL\", \"tool.name\": \"lookup\", \"input.value\": \"{}\"}\n}\n";
    let p = both_ways(console);
    assert_eq!(
        parse_bytes(console.as_bytes(), "c.json", None).0,
        Some(InputFormat::Otel),
        "concatenated console output is detected"
    );
    assert_eq!(p.traces.len(), 1);
    assert_eq!(p.traces[0].call_count(), 2);
    assert_eq!(p.traces[0].steps[2].at.line, 8);

    let trail = json!({"trace_id": "tr", "spans": [{"trace_id": "tr", "span_id": "root", "span_name": "agent",
        "timestamp": "2025-01-01T00:00:00Z", "span_attributes": {"openinference.span.kind": "AGENT"},
        "child_spans": [{"span_id": "k", "span_name": "tool", "status_code": "Error", "status_message": "denied",
            "timestamp": "2025-01-01T00:00:01Z",
            "span_attributes": {"openinference.span.kind": "TOOL", "tool.name": "rm", "input.value": "{\"path\": \"/\"}"}}]}]});
    let p = both_ways(&serde_json::to_string_pretty(&trail).unwrap());
    assert_eq!(p.traces[0].run_id, "tr");
    let r = p.traces[0].steps[1].as_result().unwrap();
    assert_eq!(
        (r.status, r.error.as_deref()),
        (ResultStatus::Error, Some("denied"))
    );
    assert_eq!(p.traces[0].steps[1].at.pointer, "/spans/0/child_spans/0");

    let data = json!({"data": [{"name": "t", "context": {"trace_id": "x", "span_id": "y"}, "span_kind": "TOOL",
        "attributes": {"tool.name": "t", "input.value": "{}"}}], "next_cursor": null});
    let p = both_ways(&data.to_string());
    assert_eq!(p.traces[0].steps[0].at.pointer, "/data/0");
}

#[test]
fn files_with_nothing_to_lint_say_so() {
    let p = both_ways("{\"resourceSpans\": []}");
    assert_eq!(
        p.issues[0].message,
        "no spans found: expected OTLP JSON `resourceSpans`, a list of spans, or JSON Lines of either"
    );
    let p = both_ways(
        "[{\"name\": \"x\", \"context\": {\"trace_id\": \"a\", \"span_id\": \"b\"}, \"span_kind\": \"CHAIN\"}]",
    );
    assert_eq!(
        p.issues[0].message,
        "nothing to lint: no tool calls or messages in 1 span (1 trace)"
    );
    let p = both_ways("{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"traceId\": ");
    assert!(
        p.issues[0].message.starts_with("invalid JSON"),
        "{:?}",
        p.issues
    );
}

#[test]
fn detection_and_streaming_choice() {
    let otlp = br#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "aa", "spanId": "bb", "name": "x",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                       {"key": "gen_ai.tool.name", "value": {"stringValue": "w"}}]}]}]}]}"#;
    assert_eq!(parse_bytes(otlp, "o.json", None).0, Some(InputFormat::Otel));
    assert!(is_otlp_prefix(b"\xEF\xBB\xBF  {\n \"resourceSpans\": ["));
    assert!(is_otlp_prefix(b"{\"resource_spans\":"));
    assert!(!is_otlp_prefix(b"[{\"resourceSpans\": []}]"));
    let phoenix = br#"[{"name": "t", "context": {"trace_id": "a", "span_id": "b"}, "span_kind": "TOOL", "attributes": {}}]"#;
    assert_eq!(
        parse_bytes(phoenix, "p.json", None).0,
        Some(InputFormat::Otel)
    );
    assert_eq!(
        crate::adapters::otel::spans::time_of(&json!({"high": 395_812_340, "low": -1_879_048_192})),
        Some((395_812_340i128 << 32) + 2_415_919_104)
    );
}

/// The up-front index `check` uses to release traces early gives exactly the keys the reader
/// groups traces by (every key a trace carries), for every real span file that indexes cleanly, and says "don't know" for
/// a file that is not spans.
#[test]
fn trace_keys_are_the_keys_traces_carry() {
    let mut checked = 0;
    let dirs = [
        OPENINFERENCE,
        GENAI,
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/otel"),
    ];
    for dir in dirs {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            if !path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl")
            {
                continue;
            }
            let file = std::fs::File::open(&path).unwrap();
            let Some(mut keys) = trace_keys(file, Limits::default()) else {
                continue;
            };
            let mut parsed = Parsed::default();
            parse_seekable(
                std::fs::File::open(&path).unwrap(),
                &input(&path.display().to_string()),
                Limits::default(),
                &mut parsed,
            );
            let mut carried: Vec<String> = parsed
                .traces
                .iter()
                .filter_map(|t| t.attribute(TRACE_ID).map(str::to_owned))
                .collect();
            keys.sort();
            carried.sort();
            // Every key a trace carries was indexed (a trace whose id was missed could be
            // released before its other part is read); spans that make no trace add keys,
            // which only holds a trace back.
            let missed: Vec<&String> = carried
                .iter()
                .filter(|k| keys.binary_search(k).is_err())
                .collect();
            assert!(missed.is_empty(), "{}: {missed:?}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} span files indexed cleanly");
    let native = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/quickstart/transcript.json"
    );
    assert!(!looks_like_spans(std::fs::File::open(native).unwrap()));
    assert_eq!(
        trace_keys(std::fs::File::open(native).unwrap(), Limits::default()),
        None
    );
    let split = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/otel/split-part2.otlp.jsonl"
    );
    assert!(looks_like_spans(std::fs::File::open(split).unwrap()));
}
