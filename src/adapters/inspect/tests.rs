//! Inspect adapter tests: the real logs in `fixtures/real/inspect/` (Inspect's own test logs,
//! and a run of a tiny task with Inspect's `mockllm` model written as `.json` and `.eval`)
//! snapshotted, with exact counts, structured errors, parse errors and locations checked; then
//! the zip bounds (member count, size, compression ratio) on archives built here, and the
//! merge of calls trimmed from the messages.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::adapters::testing::{counts, misplaced_steps, summary};
use crate::adapters::{InputFormat, Limits, Parsed, ReadOptions, parse_bytes, parse_file};
use crate::model::{Args, ResultStatus, StepKind};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/inspect")
}

fn read(name: &str) -> Parsed {
    let path = dir().join(name);
    let file = std::fs::File::open(&path).unwrap();
    let mut parsed = Parsed::default();
    let outcome = parse_file(file, name, &ReadOptions::default(), &mut parsed);
    assert_eq!(
        outcome,
        crate::adapters::ReadOutcome::Read(InputFormat::Inspect),
        "{name}: {:?}",
        parsed.issues
    );
    parsed
}

#[test]
fn real_logs_snapshot() {
    insta::glob!("../../../fixtures/real/inspect", "*.{json,eval}", |path| {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let p = read(&name);
        insta::assert_json_snapshot!(summary(&p));
    });
}

/// Calls, results and structured errors per log, counted from the files with an independent
/// script (`python3 -c 'import json…'`: `tool_calls` of assistant messages, `role: "tool"`
/// messages, those with an `error`).
#[test]
fn counts_hold_exactly() {
    // (file, traces, calls, results, errors, malformed)
    let table = [
        ("tiny-mockllm.json", 2, 14, 14, 12, 2),
        ("tiny-mockllm.eval", 2, 14, 14, 12, 2),
        ("browser-gpt-4o-mini.json", 1, 4, 4, 0, 0),
        ("log_tool_call_error.json", 1, 0, 11, 11, 0),
        ("popularity.eval", 10, 0, 0, 0, 0),
    ];
    for (name, traces, calls, results, errors, malformed) in table {
        let p = read(name);
        assert!(p.issues.is_empty(), "{name}: {:?}", p.issues);
        assert_eq!(p.traces.len(), traces, "{name}");
        let c = p
            .traces
            .iter()
            .map(counts)
            .fold(crate::adapters::testing::Counts::default(), |a, b| a + b);
        assert_eq!(
            (c.calls, c.results, c.errors),
            (calls, results, errors),
            "{name}"
        );
        let bad = p
            .traces
            .iter()
            .flat_map(|t| &t.steps)
            .filter(|s| matches!(s.as_call(), Some(c) if matches!(c.args, Args::Malformed(_))))
            .count();
        assert_eq!(bad, malformed, "{name}");
    }
    // Results whose calls the log does not hold (Inspect's own test log): a note, never a
    // silent pass, and no input error either (an eval log may trim the calls).
    let p = read("log_tool_call_error.json");
    assert_eq!(
        p.notes,
        ["no tool calls: 11 tool results read as `inspect` answer calls the file does not hold"]
    );
}

#[test]
fn errors_keep_their_type_and_parse_errors_are_malformed() {
    let p = read("tiny-mockllm.json");
    let errors: Vec<&str> = p.traces[1]
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .filter(|r| r.status == ResultStatus::Error)
        .map(|r| r.error.as_deref().unwrap().split(':').next().unwrap())
        .collect();
    assert!(
        errors.contains(&"timeout") && errors.contains(&"file_not_found"),
        "{errors:?}"
    );
    let malformed: Vec<&str> = p.traces[1]
        .steps
        .iter()
        .filter_map(|s| match s.as_call().map(|c| &c.args) {
            Some(Args::Malformed(why)) => Some(why.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        malformed,
        [
            "Inspect could not parse the arguments the model emitted: Expecting ':' delimiter: line 1 column 12 (char 11)"
        ]
    );
    // The tools the model was offered are the embedded schemas.
    let names: Vec<&str> = p.traces[0]
        .embedded_tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["add", "read_file"]);
    assert!(
        p.traces[0]
            .embedded_tools
            .iter()
            .all(|t| t.schema.is_some())
    );
    assert_eq!(p.traces[0].run_id, "s1/epoch-1");
    assert_eq!(
        p.traces[0].final_answer.as_deref(),
        Some("The answer is 3.")
    );
}

#[test]
fn every_step_is_cited_at_a_line_that_holds_it() {
    for name in [
        "tiny-mockllm.json",
        "browser-gpt-4o-mini.json",
        "log_tool_call_error.json",
    ] {
        let text = std::fs::read_to_string(dir().join(name)).unwrap();
        let p = read(name);
        let bad = misplaced_steps(&text, &p.traces);
        assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
    }
    // In an `.eval` archive the lines are those of the sample's member, which the run id names.
    let file = std::fs::File::open(dir().join("tiny-mockllm.eval")).unwrap();
    let mut zip = ::zip::ZipArchive::new(file).unwrap();
    let p = read("tiny-mockllm.eval");
    for t in &p.traces {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut zip.by_name(&t.run_id).unwrap(), &mut text).unwrap();
        let bad = misplaced_steps(&text, std::slice::from_ref(t));
        assert!(bad.is_empty(), "{}: {}", t.run_id, bad.join("\n"));
    }
}

/// An archive with the given members, each compressed with deflate.
fn archive(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut w = ::zip::ZipWriter::new(&mut buf);
        let opts = ::zip::write::SimpleFileOptions::default()
            .compression_method(::zip::CompressionMethod::Deflated);
        for (name, body) in members {
            w.start_file(*name, opts).unwrap();
            w.write_all(body).unwrap();
        }
        w.finish().unwrap();
    }
    buf.into_inner()
}

const SAMPLE: &str = r#"{"id": 7, "epoch": 2, "input": "hi", "target": "x", "messages": [
  {"role": "user", "content": "list files"},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "function": "bash", "arguments": {"cmd": "ls"}}]},
  {"role": "tool", "tool_call_id": "t1", "function": "bash", "content": "a.txt"}
]}"#;

#[test]
fn zip_members_are_bounded() {
    let bomb = vec![b' '; 3 << 20];
    let bytes = archive(&[
        ("header.json", b"{}"),
        ("samples/1_epoch_1.json", SAMPLE.as_bytes()),
        ("samples/2_epoch_1.json", &bomb),
    ]);
    let (f, p) = parse_bytes(&bytes, "x.eval", None);
    assert_eq!(f, Some(InputFormat::Inspect));
    assert_eq!(p.traces.len(), 1);
    assert_eq!(p.traces[0].run_id, "samples/1_epoch_1.json");
    assert_eq!(counts(&p.traces[0]).calls, 1);
    assert_eq!(p.issues.len(), 1, "{:?}", p.issues);
    assert!(p.issues[0].message.contains("zip bomb"), "{}", p.issues[0]);
    // Past the record limit: an error naming the flag, the other members still read.
    let mut parsed = Parsed::default();
    let opts = ReadOptions {
        limits: Limits { max_record: 64 },
        ..ReadOptions::default()
    };
    let small = archive(&[
        ("header.json", b"{}"),
        ("samples/1_epoch_1.json", SAMPLE.as_bytes()),
    ]);
    crate::adapters::parse_file(std::io::Cursor::new(small), "s.eval", &opts, &mut parsed);
    assert!(
        parsed.issues[0].message.contains("--max-record-size"),
        "{}",
        parsed.issues[0]
    );
}

#[test]
fn not_inspect_or_not_a_zip() {
    let other = archive(&[("docs/readme.txt", b"hello")]);
    let (_, p) = parse_bytes(&other, "o.zip", None);
    assert!(
        p.issues[0]
            .message
            .contains("not an Inspect AI `.eval` log"),
        "{}",
        p.issues[0]
    );
    let mut cut = archive(&[
        ("header.json", b"{}"),
        ("samples/1_epoch_1.json", SAMPLE.as_bytes()),
    ]);
    cut.truncate(cut.len() / 2);
    let (_, p) = parse_bytes(&cut, "cut.eval", None);
    assert!(
        p.issues[0].message.contains("not a readable zip archive"),
        "{}",
        p.issues[0]
    );
    let bad = archive(&[
        ("header.json", b"{}"),
        ("samples/1_epoch_1.json", b"{\"id\": "),
    ]);
    let (_, p) = parse_bytes(&bad, "bad.eval", None);
    assert_eq!(
        p.issues[0].to_string(),
        "bad.eval:1:7: invalid JSON in member `samples/1_epoch_1.json`: EOF while parsing a value"
    );
}

#[test]
fn calls_trimmed_from_the_messages_are_read_from_tool_events() {
    // The messages lost the first call (history truncation); its `tool` event still records it,
    // with an error the message list never saw. An event error also marks a message's result.
    let text = r#"{"id": "a", "epoch": 1, "input": "go", "target": "", "messages": [
  {"role": "user", "content": "go"},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "t2", "function": "bash", "arguments": {"cmd": "pwd"}}]},
  {"role": "tool", "tool_call_id": "t2", "function": "bash", "content": "/w"}
], "events": [
  {"event": "model", "tools": [{"name": "bash", "description": "run", "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}}]},
  {"event": "tool", "id": "t1", "function": "bash", "arguments": {"cmd": "ls"}, "result": "", "error": {"type": "timeout", "message": "took too long"}},
  {"event": "tool", "id": "t2", "function": "bash", "arguments": {"cmd": "pwd"}, "result": "/w", "error": {"type": "permission", "message": "denied"}}
]}"#;
    let (f, p) = parse_bytes(text.as_bytes(), "s.json", None);
    assert_eq!(f, Some(InputFormat::Inspect));
    let t = &p.traces[0];
    let got: Vec<String> = t
        .steps
        .iter()
        .map(|s| match &s.kind {
            StepKind::Message(m) => format!("{}:{} message {}", s.at.line, s.at.column, m.content),
            StepKind::ToolCall(c) => format!(
                "{}:{} call {}",
                s.at.line,
                s.at.column,
                c.call_id.as_deref().unwrap()
            ),
            StepKind::ToolResult(r) => format!(
                "{}:{} result {} {:?} {:?}",
                s.at.line,
                s.at.column,
                r.call_id.as_deref().unwrap(),
                r.status,
                r.error
            ),
        })
        .collect();
    assert_eq!(
        got,
        [
            "2:3 message go",
            "7:3 call t1",
            "7:3 result t1 Error Some(\"timeout: took too long\")",
            "3:55 call t2",
            "4:3 result t2 Error Some(\"permission: denied\")",
        ]
    );
    assert_eq!(t.embedded_tools.len(), 1);
}
