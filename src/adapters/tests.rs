use crate::adapters::*;

#[test]
fn jsonl_with_a_broken_middle_line() {
    let text = b"{\"run_id\":\"a\",\"steps\":[]}\n{\"run_id\": \"b\", \"steps\": [\n{\"run_id\":\"c\",\"steps\":[]}\n";
    let (f, p) = parse_bytes(text, "x.jsonl", None);
    assert_eq!(f, Some(InputFormat::Native));
    let ids: Vec<_> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["a", "c"]);
    assert_eq!(p.issues.len(), 1);
    assert_eq!(p.issues[0].line, 2);
    assert!(
        p.issues[0]
            .message
            .starts_with("invalid JSON: EOF while parsing a"),
        "{}",
        p.issues[0]
    );
}

#[test]
fn pretty_document_is_not_lines() {
    let text = b"{\n  \"run_id\": \"a\",\n  \"steps\": [\n    {\"type\": \"message\", \"role\": \"user\", \"content\": \"x\"}\n  ]\n}\n";
    let (f, p) = parse_bytes(text, "x.json", None);
    assert_eq!(f, Some(InputFormat::Native));
    assert_eq!(p.traces[0].steps[0].at.line, 4);
    assert_eq!(p.traces[0].steps[0].at.column, 5);
}

#[test]
fn empty_and_non_json_inputs() {
    let (_, p) = parse_bytes(b"  \n\n", "e.json", None);
    assert_eq!(
        p.issues[0].to_string(),
        "e.json: the file is empty: nothing to lint"
    );
    let (_, p) = parse_bytes(b"\nhello", "h.txt", None);
    assert_eq!(
        p.issues[0].to_string(),
        "h.txt:2:1: not JSON: a trace file must hold a JSON object, a JSON array or JSON Lines"
    );
}

/// JSON Lines after lines of text (a CLI's banner, a log line): one input error at line 1 says
/// what was there, and the records that follow are read at their own lines.
#[test]
fn json_lines_after_a_banner_are_read_and_the_banner_said_once() {
    let text = concat!(
        "npm warn exec The following package was not found and will be installed: x@1\n",
        "[2026-03-01 10:00:00] INFO starting run\n",
        "\n",
        r#"{"run_id":"a","steps":[{"type":"message","role":"user","content":"x"}]}"#,
        "\n",
        "{\"run_id\": \"b\", \"steps\": [\n",
        r#"{"run_id":"c","steps":[]}"#,
        "\n"
    );
    let (f, p) = parse_bytes(text.as_bytes(), "run.log", None);
    assert_eq!(f, Some(InputFormat::Native));
    let ids: Vec<_> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["a", "c"]);
    assert_eq!(p.traces[0].steps[0].at.line, 4);
    let issues: Vec<String> = p.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        issues,
        [
            "run.log:1:1: lines 1–3 are not JSON (`npm warn exec The following package was not found and will be installed: x@1`): skipped; the JSON Lines records from line 4 on are read",
            "run.log:5:26: invalid JSON: EOF while parsing a list",
        ],
        "{issues:?}"
    );
    // Given the format, the same.
    let (_, p) = parse_bytes(text.as_bytes(), "run.log", Some(InputFormat::Native));
    assert_eq!(p.traces.len(), 2);
    assert_eq!(p.issues.len(), 2);
    // One line of text, shown bounded.
    let long = format!("{}\n{{\"run_id\":\"a\",\"steps\":[]}}\n", "x".repeat(200));
    let (_, p) = parse_bytes(long.as_bytes(), "run.log", None);
    assert_eq!(p.traces.len(), 1);
    assert_eq!(
        p.issues[0].message,
        format!(
            "line 1 is not JSON (`{}…`): skipped; the JSON Lines records from line 2 on are read",
            "x".repeat(80)
        )
    );
}

/// A first line that opens a record and breaks within it (a raw control character, a stray
/// character after the object) is said like any broken record, at its line and column, and the
/// records after it are read.
#[test]
fn a_broken_first_record_is_said_at_its_column() {
    let records = "{\"run_id\":\"b\",\"steps\":[]}\n";
    for (first, column, why) in [
        ("{\"run_id\": \"a\u{0}\"}", 13, "control character (\\u0000-\\u001F) found while parsing a string"),
        ("{\"run_id\": \"a\"} x", 17, "trailing characters"),
    ] {
        let text = format!("{first}\n{records}");
        let (f, p) = parse_bytes(text.as_bytes(), "b.jsonl", None);
        assert_eq!(f, Some(InputFormat::Native));
        assert_eq!(p.traces.len(), 1);
        let issues: Vec<String> = p.issues.iter().map(ToString::to_string).collect();
        assert_eq!(
            issues,
            [format!("b.jsonl:1:{column}: invalid JSON: {why}; the JSON Lines records from line 2 on are read")]
        );
    }
}

/// Text with no record after it stays what it was: not JSON, at its first character; a
/// pretty-printed document is not mistaken for text before records.
#[test]
fn text_without_records_is_still_not_json() {
    let (f, p) = parse_bytes(b"hello\nworld\n", "h.txt", None);
    assert_eq!(f, None);
    assert_eq!(
        p.issues[0].to_string(),
        "h.txt:1:1: not JSON: a trace file must hold a JSON object, a JSON array or JSON Lines"
    );
    assert_eq!(p.issues.len(), 1);
    let pretty = b"[\n{\"run_id\":\"a\",\"steps\":[]}\n]\n";
    let (f, p) = parse_bytes(pretty, "a.json", None);
    assert_eq!(f, Some(InputFormat::Native));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    // Text, then JSON that fits no format: that is what is said, not the skipped text.
    let (f, p) = parse_bytes(b"banner\n{\"hello\": \"world\"}\n", "u.jsonl", None);
    assert_eq!(f, None);
    assert_eq!(p.issues.len(), 1, "{:?}", p.issues);
    assert!(p.issues[0].message.contains("`hello`"), "{}", p.issues[0]);
}

#[test]
fn tools_files_are_named_as_such_or_skipped_when_walked() {
    let text = br#"{"tools": [{"name": "t", "inputSchema": {}}]}"#;
    let (_, p) = parse_bytes(text, "tools.json", None);
    assert_eq!(
        p.issues[0].message,
        "this is a tools file, not a trace: pass it with `--tools`"
    );
    let mut parsed = Parsed::default();
    let opts = ReadOptions {
        skip_tools_files: true,
        ..ReadOptions::default()
    };
    assert_eq!(
        parse_reader(&text[..], "tools.json", &opts, &mut parsed),
        ReadOutcome::SkippedToolsFile
    );
    assert!(parsed.issues.is_empty());
}

#[test]
fn undetectable_input_names_the_flag() {
    let (f, p) = parse_bytes(br#"{"hello": "world"}"#, "u.json", None);
    assert_eq!(f, None);
    assert!(
        p.issues[0].message.contains("pass `--input-format"),
        "{}",
        p.issues[0]
    );
    assert!(p.issues[0].message.contains("`hello`"), "{}", p.issues[0]);
}

/// Detection never settles for a partial fit (issue 40): a record the best-scoring format reads
/// nothing of while another format knows it is "cannot tell", naming both and the record's line.
#[test]
fn a_partial_fit_is_cannot_tell_naming_both_formats_and_the_line() {
    let text = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{}}]}}"#,
        r#"{"type":"tool_use","name":"Bash","input":{"command":"ls"}}"#,
    ]
    .join("\n");
    let (format, p) = parse_bytes(text.as_bytes(), "mixed.jsonl", None);
    assert_eq!(format, None);
    assert!(p.traces.is_empty());
    assert_eq!(p.issues.len(), 1);
    assert_eq!((p.issues[0].line, p.issues[0].column), (3, 1));
    assert_eq!(
        p.issues[0].message,
        "cannot tell the input format: most records fit `pi`, but line 3 is a `claude` record that `pi` does not read; pass `--input-format pi|claude`"
    );
    // Given the format, it is read as that format.
    let (format, p) = parse_bytes(text.as_bytes(), "mixed.jsonl", Some(InputFormat::Pi));
    assert_eq!(format, Some(InputFormat::Pi));
    assert_eq!(p.traces[0].call_count(), 1);
}

/// Gemini CLI's stream-json given to the Claude reader is an input error on each of its tool
/// events, never a reading with the arguments and verdicts dropped.
#[test]
fn gemini_stream_json_read_as_claude_is_an_input_error() {
    let text = concat!(
        r#"{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"r1","parameters":{"file_path":"a"}}"#,
        "\n",
        r#"{"type":"tool_result","timestamp":"t","tool_id":"r1","status":"error","output":"x"}"#,
        "\n"
    );
    let (_, p) = parse_bytes(text.as_bytes(), "s.jsonl", Some(InputFormat::Claude));
    assert_eq!(p.issues.len(), 2, "{:?}", p.issues);
    assert!(p.issues.iter().all(|i| i.message.contains("--input-format gemini-cli")));
    let (format, p) = parse_bytes(text.as_bytes(), "s.jsonl", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
}
