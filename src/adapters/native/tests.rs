use super::*;
use crate::model::ResultStatus;

#[test]
fn steps_are_located_in_arrays_and_objects() {
    let text = "[\n {\"run_id\": \"a\", \"steps\": [\n   {\"type\": \"message\", \"role\": \"user\", \"content\": \"hi\"},\n   {\"type\": \"tool_call\", \"call_id\": 7, \"name\": \"t\", \"args\": {\"x\": 1}}\n ]},\n {\"steps\": []}\n]";
    let p = parse_str(text, "t.json");
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 2);
    let s = &p.traces[0].steps;
    assert_eq!(
        (s[0].at.line, s[0].at.column, s[0].at.pointer.as_str()),
        (3, 4, "/0/steps/0")
    );
    assert_eq!((s[1].at.line, s[1].at.column), (4, 4));
    assert_eq!(s[1].as_call().unwrap().call_id.as_deref(), Some("7"));
    assert_eq!(p.traces[1].run_id, "t.json[1]");
}

#[test]
fn bad_steps_are_issues_and_the_trace_is_partial() {
    let text = r#"{"run_id": "r", "steps": [{"type": "tool_call", "name": "t", "args": {}}, {"type": "nope"}, 3]}"#;
    let p = parse_str(text, "t.json");
    assert_eq!(p.traces.len(), 1);
    assert!(p.traces[0].partial);
    assert_eq!(p.traces[0].steps.len(), 1);
    assert_eq!(p.issues.len(), 2);
    assert_eq!(
        p.issues[0].to_string(),
        "t.json:1:75: step 1: unknown step type `nope` (expected `message`, `tool_call` or `tool_result`)"
    );
}

#[test]
fn result_status_from_structured_signals_only() {
    let text = r#"{"steps": [
          {"type": "tool_result", "call_id": "1", "content": "Error: boom"},
          {"type": "tool_result", "call_id": "2", "content": {}, "status": "ok"},
          {"type": "tool_result", "call_id": "3", "content": {}, "http_status": "503"},
          {"type": "tool_result", "call_id": "4", "content": {}, "error": "timeout"},
          {"type": "tool_result", "call_id": "5"}
        ]}"#;
    let p = parse_str(text, "t.json");
    let st: Vec<_> = p.traces[0]
        .steps
        .iter()
        .map(|s| s.as_result().unwrap().status)
        .collect();
    use ResultStatus::*;
    assert_eq!(st, vec![Unknown, Ok, Error, Error, Unknown]);
    assert!(!p.traces[0].steps[4].as_result().unwrap().content_recorded);
}

#[test]
fn a_document_read_in_one_pass_says_the_same_as_one_read_twice() {
    // The one-pass read (the usual, well-formed case) and the fallback that reads the
    // document again to name what is wrong: a trace's location, and each kind of mistake.
    let p = parse_str(
        "\n\n   {\"run_id\": 7, \"steps\": [\n {\"type\": \"message\", \"role\": \"user\", \"content\": \"x\"}], \"final\": {\"k\": 1}}\n",
        "t.json",
    );
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let t = &p.traces[0];
    assert_eq!(
        (t.run_id.as_str(), t.final_answer.as_deref()),
        ("7", Some(r#"{"k":1}"#))
    );
    assert_eq!((t.steps[0].at.line, t.steps[0].at.column), (4, 2));
    let issues = |p: Parsed| p.issues.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        issues(parse_str("\n  {\"steps\": 5}", "t.json")),
        ["t.json:2:3: not a native trace: `steps` is not a list"]
    );
    let not_a_list = "not a native trace: `steps` is not a list";
    for (text, at, message) in [
        (r#"{"steps": 5}"#, 1, not_a_list),
        (r#"{"steps": "5"}"#, 1, not_a_list),
        (
            r#"{"steps": {"a": [1, {"b": 2}]}, "run_id": "r"}"#,
            1,
            not_a_list,
        ),
        (
            r#"{"steps": null}"#,
            1,
            "not a native trace: missing `steps` list",
        ),
        (
            r#"{"steps": [], "steps": []}"#,
            1,
            "not a native trace: duplicate field `steps`",
        ),
        (
            r#"{"steps": []} trailing"#,
            15,
            "invalid JSON: trailing characters",
        ),
        (
            r#"{"steps": [{"a": 1}, 5 6]}"#,
            24,
            "invalid JSON: expected `,` or `]`",
        ),
    ] {
        let p = parse_str(text, "t.json");
        assert!(p.traces.is_empty(), "{text}");
        assert_eq!(issues(p), [format!("t.json:1:{at}: {message}")]);
        // The same record as the second line of JSON Lines, after a good one.
        let mut p = Parsed::default();
        let opts = crate::adapters::ReadOptions {
            format: Some(crate::adapters::InputFormat::Native),
            ..Default::default()
        };
        let jsonl = format!("{{\"steps\": []}}\n{text}\n");
        crate::adapters::parse_reader(jsonl.as_bytes(), "t.jsonl", &opts, &mut p);
        assert_eq!(p.traces.len(), 1, "{text}");
        assert_eq!(issues(p), [format!("t.jsonl:2:{at}: {message}")]);
    }
}

#[test]
fn continued_lines_join_one_trace_with_its_tools() {
    let jsonl = concat!(
        r#"{"run_id": "s", "steps": [], "mcp": {"recorder": "tracelint mcp proxy"}}"#,
        "\n",
        r#"{"run_id": "s", "continues": true, "steps": [], "tools": [{"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}]}"#,
        "\n",
        r#"{"run_id": "s", "continues": true, "steps": [{"type": "tool_call", "call_id": "3", "name": "t", "args": {}}]}"#,
        "\n",
        r#"{"run_id": "s", "continues": true, "steps": [{"type": "tool_result", "call_id": "3", "status": "ok", "content": "x"}]}"#,
        "\n",
        r#"{"run_id": "other", "continues": true, "steps": [{"type": "tool_call", "name": "t"}]}"#,
        "\n",
    );
    let mut p = Parsed::default();
    // Detected, not told: the header and its continuations read as native.
    crate::adapters::parse_reader(jsonl.as_bytes(), "s.jsonl", &Default::default(), &mut p);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 2);
    let t = &p.traces[0];
    assert_eq!(t.steps.len(), 2);
    assert_eq!((t.steps[0].index, t.steps[0].at.line), (0, 3));
    assert_eq!((t.steps[1].index, t.steps[1].at.line), (1, 4));
    assert_eq!(t.embedded_tools.len(), 1);
    assert_eq!(t.embedded_tools[0].metadata.side_effecting, Some(false));
    assert!(t.attribute(crate::model::ATTR_TOOLS_ONLY).is_some());
    assert!(t.attribute(ATTR_CONTINUES).is_none());
    // A continuation of another run is a trace of its own.
    assert_eq!(p.traces[1].run_id, "other");
}
