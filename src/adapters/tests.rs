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
