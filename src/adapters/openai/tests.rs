//! Tests of the OpenAI adapter: the real files in `fixtures/real/openai-chat/` and the
//! VCR recordings of `openai-chat/` and `openai-responses/` (read as request/response logs),
//! snapshots and exact counts; then every shape the adapter reads, inline; and detection over
//! every real and native fixture.
//!
//! Kept in one file: the tests share the parsing helpers (`parse_auto`, `parse`, `steps`,
//! `http_log`) over the same fixtures.

use serde_json::Value;

use crate::adapters::testing::{
    REAL, cassette_log, counts, misplaced_steps, real_dir, real_files, summary,
};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{Args, ResultStatus, StepKind};

fn parse_auto(text: &str, name: &str) -> (Option<InputFormat>, Parsed) {
    parse_bytes(text.as_bytes(), name, None)
}

fn parse(text: &str) -> Parsed {
    let (format, parsed) = parse_auto(text, "t.json");
    assert_eq!(format, Some(InputFormat::OpenAi), "{:?}", parsed.issues);
    parsed
}

fn steps(p: &Parsed, trace: usize) -> String {
    summary(p)["traces"][trace]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn real_chat_files_snapshot() {
    real_dir("openai-chat");
    insta::glob!(REAL, "openai-chat/*.json", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (format, parsed) = parse_auto(&text, &name);
        // tau-bench is an agent run; BFCL files and the tool schemas are not (an input error
        // names what they are).
        let is_run = name.starts_with("tau-bench-gpt-4o");
        assert_eq!(format, is_run.then_some(InputFormat::OpenAi), "{name}");
        assert_eq!(
            parsed.issues.is_empty(),
            is_run,
            "{name}: {:?}",
            parsed.issues
        );
        insta::assert_json_snapshot!(summary(&parsed));
    });
}

#[test]
fn real_recordings_snapshot() {
    real_dir("openai-responses");
    insta::glob!(REAL, "openai-*/*.yaml", |path| {
        let log = cassette_log(path);
        let (format, parsed) = parse_auto(&log, "log.jsonl");
        assert_eq!(format, Some(InputFormat::OpenAi));
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        insta::assert_json_snapshot!(summary(&parsed));
    });
}

#[test]
fn tau_bench_counts_hold_exactly() {
    let path = real_dir("openai-chat").join("tau-bench-gpt-4o-airline.subset.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let p = parse(&text);
    // Counted from the raw file with an independent script: tool_calls per `traj`, and the
    // `role: "tool"` messages answering them (the README: errors are only text, no flag).
    let calls: Vec<usize> = p.traces.iter().map(|t| counts(t).calls).collect();
    assert_eq!(calls, [8, 20, 10, 14, 3, 8, 9, 6, 6, 2, 0, 7]);
    for t in &p.traces {
        let c = counts(t);
        assert_eq!(
            (c.results, c.errors, c.unanswered),
            (c.calls, 0, 0),
            "{}",
            t.run_id
        );
        assert!(
            t.steps
                .iter()
                .filter_map(|s| s.as_call())
                .all(|c| c.raw_args.is_some())
        );
    }
    let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids[0], "task-0/trial-0");
    assert_eq!(ids[7], "task-0/trial-1");
}

#[test]
fn recording_counts_hold_exactly() {
    // (file, calls, results, unanswered, embedded tools): the chat recording re-sends two
    // answered calls and receives two new parallel calls; the Responses recordings answer each
    // call in a follow-up request joined by `call_id`.
    let expected = [
        (
            "openai-chat/openinference-vcr-cassette-chat-tool_calls.yaml",
            4,
            2,
            2,
            2,
        ),
        (
            "openai-responses/openinference-agent-framework-vcr-cassette-responses-function_call.yaml",
            1,
            1,
            0,
            1,
        ),
        (
            "openai-responses/openinference-agent-framework-vcr-cassette-responses-multiple_tools.yaml",
            2,
            2,
            0,
            3,
        ),
    ];
    for (file, calls, results, unanswered, tools) in expected {
        let log = cassette_log(&std::path::PathBuf::from(REAL).join(file));
        let p = parse(&log);
        assert_eq!(p.traces.len(), 1, "{file}");
        let c = counts(&p.traces[0]);
        assert_eq!(
            (c.calls, c.results, c.unanswered),
            (calls, results, unanswered),
            "{file}"
        );
        assert_eq!(p.traces[0].embedded_tools.len(), tools, "{file}");
        assert!(
            p.traces[0]
                .embedded_tools
                .iter()
                .all(|t| t.schema.is_some())
        );
    }
}

#[test]
fn every_step_is_cited_at_a_line_that_holds_it() {
    let tau = real_dir("openai-chat").join("tau-bench-gpt-4o-airline.subset.json");
    let text = std::fs::read_to_string(tau).unwrap();
    let p = parse(&text);
    let bad = misplaced_steps(&text, &p.traces);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    for folder in ["openai-chat", "openai-responses"] {
        for path in real_files(folder) {
            if path.extension().is_some_and(|e| e == "yaml") {
                let log = cassette_log(&path);
                let p = parse(&log);
                let bad = misplaced_steps(&log, &p.traces);
                assert!(bad.is_empty(), "{}: {}", path.display(), bad.join("\n"));
            }
        }
    }
}

#[test]
fn a_request_body_carries_its_tools_and_raw_arguments() {
    let text = r#"{
  "model": "gpt-4o",
  "messages": [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": [{"type": "text", "text": "weather in Paris?"}]},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\""}},
      {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{'tz': 'CET'}"}}
    ]},
    {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "12:00"}]}
  ],
  "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
}"#;
    let p = parse(text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 4:35 /messages/0/content message System: be brief
        1 5:34 /messages/1/content/0 message User: weather in Paris?
        2 7:7 /messages/2/tool_calls/0 call call_1 get_weather malformed (EOF while parsing an object at column 16 of the emitted arguments) raw
        3 8:7 /messages/2/tool_calls/1 call call_2 get_time {tz} raw
        4 10:5 /messages/3 result call_2 Unknown: 12:00
        "#);
    let t = &p.traces[0];
    assert_eq!(t.run_id, "t.json");
    assert_eq!(t.embedded_tools.len(), 1);
    assert_eq!(
        t.embedded_tools[0].source.0,
        "embedded in the trace (OpenAI request `tools`)"
    );
    let call = t.steps[2].as_call().unwrap();
    assert_eq!(call.raw_args.as_deref(), Some("{\"city\": \"Paris\""));
    assert!(matches!(call.args, Args::Malformed(_)));
    // A Python-literal dict is arguments, not malformed (SPEC R6).
    assert_eq!(
        t.steps[3].as_call().unwrap().args,
        Args::Known(serde_json::json!({"tz": "CET"}))
    );
}

#[test]
fn json_lines_of_messages_are_one_conversation() {
    let text = concat!(
        r#"{"role": "user", "content": "hi"}"#,
        "\n",
        r#"{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}]}"#,
        "\n",
        r#"{"role": "tool", "tool_call_id": "a", "content": "done"}"#,
        "\n",
    );
    let p = parse(text);
    assert_eq!(p.traces.len(), 1);
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 1:29 /content message User: hi
        1 2:38 /tool_calls/0 call a f {} raw
        2 3:1  result a Unknown: done
        "#);
}

/// A session converted to one content block a line (the shape a session recorder commits as
/// `transcript.jsonl`): `content` is one block, a call's id is `tool_id` on the call and on its
/// result, the result's text is `output`, and a `tool` line's block is the result itself.
#[test]
fn one_content_block_a_line_pairs_calls_and_results_by_tool_id() {
    let text = concat!(
        r#"{"timestamp":"2026-02-25T04:48:20Z","role":"user","content":{"type":"text","text":"clone it"}}"#,
        "\n",
        r#"{"timestamp":"2026-02-25T04:48:22Z","role":"assistant","content":{"type":"thinking","text":"ok"}}"#,
        "\n",
        r#"{"timestamp":"2026-02-25T04:48:23Z","role":"assistant","content":{"type":"tool_use","tool_name":"Bash","tool_id":"toolu_1","input":{"command":"git clone x"}}}"#,
        "\n",
        r#"{"timestamp":"2026-02-25T04:48:26Z","role":"tool","content":{"type":"tool_result","tool_id":"toolu_1","output":"Exit code 128","is_error":true}}"#,
        "\n",
        r#"{"timestamp":"2026-02-25T04:48:27Z","role":"assistant","content":{"type":"tool_use","tool_name":"Read","tool_id":"toolu_2","input":{"file_path":"/a"}}}"#,
        "\n",
        r#"{"timestamp":"2026-02-25T04:48:28Z","role":"tool","content":{"type":"tool_result","tool_id":"toolu_2","output":"1 text","is_error":false}}"#,
        "\n",
        r#"{"timestamp":"2026-02-25T04:48:29Z","role":"tool","content":{"ok":true}}"#,
        "\n",
    );
    let p = parse(text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 1);
    // A `tool` line whose content is a tool's own JSON (not a result block) stays that content.
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 1:61 /content message User: clone it
        1 3:66 /content call toolu_1 Bash {command}
        2 4:61 /content result toolu_1 Error: Exit code 128
        3 5:66 /content call toolu_2 Read {file_path}
        4 6:61 /content result toolu_2 Ok: 1 text
        5 7:1  result - Unknown: {"ok":true}
        "#);
}

#[test]
fn sharegpt_and_legacy_function_calls_pair_by_order() {
    let text = r#"[
  {"id": "conv-1", "conversations": [
    {"from": "human", "value": "add 2 and 3"},
    {"from": "function_call", "value": "{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}"},
    {"from": "observation", "value": "5"},
    {"from": "gpt", "value": "5"}
  ]},
  {"messages": [
    {"role": "assistant", "content": null, "function_call": {"name": "lookup", "arguments": "{\"q\": \"x\"}"}},
    {"role": "function", "name": "lookup", "content": "found"}
  ]}
]"#;
    let p = parse(text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["conv-1", "t.json[1]"]);
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 3:32 /0/conversations/0/value message User: add 2 and 3
        1 4:40 /0/conversations/1/value call function_call-1 add {a, b}
        2 5:5 /0/conversations/2 result function_call-1 Unknown: 5
        3 6:30 /0/conversations/3/value message Assistant: 5
        "#);
    insta::assert_snapshot!(steps(&p, 1), @r#"
        0 9:61 /1/messages/0/function_call call function_call-1 lookup {q} raw
        1 10:5 /1/messages/1 result function_call-1 Unknown: found
        "#);
}

#[test]
fn anthropic_messages_with_is_error() {
    let text = r#"{"model": "claude", "system": "be careful", "tools": [{"name": "rm", "input_schema": {"type": "object"}}],
 "messages": [
  {"role": "user", "content": "clean up"},
  {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "toolu_1", "name": "rm", "input": {"path": "/"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "denied", "is_error": true}]}
 ]}"#;
    let p = parse(text);
    let t = &p.traces[0];
    let statuses: Vec<ResultStatus> = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, [ResultStatus::Error]);
    assert_eq!(
        t.embedded_tools[0].source.0,
        "embedded in the trace (Anthropic request `tools`)"
    );
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 1:31 /system message System: be careful
        1 3:31 /messages/0/content message User: clean up
        2 4:37 /messages/1/content/0 message Assistant: ok
        3 4:69 /messages/1/content/1 call toolu_1 rm {path}
        4 5:32 /messages/2/content/0 result toolu_1 Error: denied
        "#);
}

#[test]
fn responses_items_join_on_call_id_not_item_id() {
    let text = r#"[
  {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "temp in SF?"}]},
  {"type": "reasoning", "id": "rs_1", "summary": []},
  {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "get_temp", "arguments": "{\"city\": \"SF\"}"},
  {"type": "function_call_output", "call_id": "call_9", "output": "72F"},
  {"type": "mcp_call", "id": "mcp_1", "name": "lookup", "arguments": "{}", "server_label": "s", "error": "server down"}
]"#;
    let p = parse(text);
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 2:51 /0/content/0 message User: temp in SF?
        1 4:3 /2 call call_9 get_temp {city} raw
        2 5:3 /3 result call_9 Unknown: 72F
        3 6:3 /4 call mcp_1 lookup {} raw
        4 6:3 /4 result mcp_1 Error: null
        "#);
    let pairing = crate::model::Pairing::new(&p.traces[0]);
    assert_eq!(pairing.result_for(1), Some(2));
}

#[test]
fn a_request_log_reads_each_message_once() {
    let text = concat!(
        r#"{"model": "m", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]}"#,
        "\n",
        r#"{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}}]}"#,
        "\n",
        r#"{"model": "m", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "a", "content": "r"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]}"#,
        "\n",
        r#"{"request": {"model": "m", "input": [{"type": "function_call_output", "call_id": "z", "output": "o"}], "previous_response_id": "resp_1"}, "response": {"body": {"object": "response", "id": "resp_2", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "bye"}]}]}}}"#,
        "\n",
    );
    let p = parse(text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 1);
    insta::assert_snapshot!(steps(&p, 0), @r#"
        0 1:59 /messages/0/content message System: s
        1 1:93 /messages/1/content message User: u
        2 2:158 /choices/0/message/tool_calls/0 call a f {} raw
        3 3:217 /messages/3 result a Unknown: r
        4 4:38 /request/input/0 result z Unknown: o
        5 4:263 /response/body/output/0/content/0 message Assistant: bye
        "#);
}

#[test]
fn records_that_are_not_runs_are_input_errors() {
    let (format, p) = parse_auto(
        r#"{"id": "q1", "question": [[{"role": "user", "content": "x"}]], "function": [{"name": "f"}]}"#,
        "bfcl.json",
    );
    assert_eq!(format, None);
    insta::assert_snapshot!(p.issues[0].to_string(), @"bfcl.json: this is a BFCL benchmark file (`question` + `function`: prompts and tool definitions, not an agent run, so there are no tool calls to lint); lint the agent's transcript instead, or pass `--input-format` if this file is a trace");
    let (_, p) = parse_bytes(
        br#"[{"role": "user", "content": "x"}, {"weird": 1}, 7]"#,
        "w.json",
        Some(InputFormat::OpenAi),
    );
    let issues: Vec<String> = p.issues.iter().map(ToString::to_string).collect();
    insta::assert_debug_snapshot!(issues, @r#"
        [
            "w.json:1:36: not a chat message, conversation, request or response (keys `weird`)",
            "w.json:1:50: not a chat message, conversation, request or response: expected a JSON object",
        ]
        "#);
    assert!(p.traces[0].partial);
    let (_, p) = parse_bytes(
        br#"{"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a"}}]}}]}"#,
        "chunk.json",
        Some(InputFormat::OpenAi),
    );
    assert_eq!(
        p.issues[0].to_string(),
        "chunk.json:1:47: a streamed chunk (`choices[].delta`) is not assembled into calls: log the final response instead"
    );
    let (_, p) = parse_bytes(br#"{"messages": [{"role": "wizard", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": 1, "function": {}}]}]}"#, "r.json", Some(InputFormat::OpenAi));
    let issues: Vec<String> = p.issues.iter().map(ToString::to_string).collect();
    insta::assert_debug_snapshot!(issues, @r#"
        [
            "r.json:1:15: unknown message role `wizard`",
            "r.json:1:88: tool call 0 needs a string `function.name`",
        ]
        "#);
}

#[test]
fn detection_picks_the_right_reader_for_every_fixture() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // Native fixtures of this repository.
    for dir in [
        "fixtures/cli",
        "fixtures/rules/r1",
        "fixtures/rules/r6",
        "fixtures/rules/r7",
        "fixtures/seed002",
        "fixtures/quickstart",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let (format, p) = parse_bytes(&std::fs::read(&path).unwrap(), "x", None);
            // A directory of native traces also holds their tools files.
            let tools_file = p
                .issues
                .iter()
                .any(|i| i.message.starts_with("this is a tools file"));
            assert!(
                format == Some(InputFormat::Native) || tools_file,
                "{}: {format:?}",
                path.display()
            );
        }
    }
    // Real Claude Code files.
    for path in real_files("claude-code") {
        let (format, _) = parse_bytes(&std::fs::read(&path).unwrap(), "x", None);
        assert_eq!(format, Some(InputFormat::Claude), "{}", path.display());
    }
    // Files of other formats: neither reader of this branch claims a record of them.
    for folder in ["langfuse", "otel-genai", "otel-openinference"] {
        for path in real_files(folder) {
            let text = std::fs::read_to_string(&path).unwrap();
            let records: Vec<Value> = match crate::adapters::common::json_pos::skim(&text, 5) {
                Ok(Value::Array(items)) => items,
                Ok(other) => vec![other],
                Err(_) => text
                    .lines()
                    .filter_map(|l| crate::adapters::common::json_pos::skim(l, 4).ok())
                    .collect(),
            };
            for r in &records {
                assert_eq!(super::sniff(r), 0, "openai claims {}", path.display());
                assert_eq!(
                    crate::adapters::claude::sniff(r),
                    0,
                    "claude claims {}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn hostile_records_never_panic() {
    for text in [
        "[null, 1, \"x\", [], {}]",
        "{\"messages\": 5}",
        "{\"messages\": [{\"role\": \"assistant\", \"tool_calls\": 3}]}",
        "{\"choices\": [{\"message\": 1}]}",
        "{\"output\": [{\"type\": \"function_call\"}], \"object\": \"response\"}",
        "{\"request\": {\"body\": 1}, \"response\": {}}",
        "{\"conversations\": [{\"from\": \"function_call\", \"value\": \"not json\"}]}",
    ] {
        let (_, p) = parse_bytes(text.as_bytes(), "h.json", Some(InputFormat::OpenAi));
        assert!(
            !p.issues.is_empty()
                || p.traces.iter().all(|t| t
                    .steps
                    .iter()
                    .all(|s| !matches!(s.kind, StepKind::ToolCall(_)))),
            "{text}"
        );
    }
}

/// The request logs written by the real `openai` and `anthropic` SDKs against a local stand-in
/// API (`fixtures/real/http-log/make.py`): one line per model request with its response.
fn http_log(name: &str) -> Parsed {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real/http-log")
        .join(name);
    let text = std::fs::read_to_string(path).unwrap();
    let p = parse(&text);
    let bad = misplaced_steps(&text, &p.traces);
    assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
    p
}

#[test]
fn a_request_log_of_four_runs_is_four_traces() {
    let p = http_log("four-runs.llm-http-log.jsonl");
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let per_run: Vec<(String, usize, usize)> = p
        .traces
        .iter()
        .map(|t| {
            let c = counts(t);
            (t.run_id.clone(), c.calls, c.results)
        })
        .collect();
    let name = "t.json";
    assert_eq!(
        per_run,
        [
            (name.to_owned(), 1, 1),
            (format!("{name}#2"), 1, 1),
            (format!("{name}#3"), 1, 1),
            (format!("{name}#4"), 1, 1),
        ]
    );
    // The HTTP 500 the SDK retried is a fact about the second run, not a step or an issue.
    let notes: Vec<Vec<&str>> = p
        .traces
        .iter()
        .map(|t| {
            t.attributes
                .iter()
                .filter(|(k, _)| k == crate::model::ATTR_NOTE)
                .map(|(_, v)| v.as_str())
                .collect()
        })
        .collect();
    assert_eq!(notes[0], Vec::<&str>::new());
    assert_eq!(
        notes[1],
        [
            "a model request failed (line 3: HTTP 500: The server had an error while processing your request.): a fact about the run, not a tool error"
        ]
    );
    // The failed request (line 3) opened the run; its retry (line 4) got the answer.
    insta::assert_snapshot!(steps(&p, 1), @r#"
    0 3:139 /request/body/messages/0/content message System: You answer weather questions.
    1 3:201 /request/body/messages/1/content message User: What is the weather in Paris?
    2 4:678 /response/body/choices/0/message/tool_calls/0 call call_003 get_weather {city} raw
    3 5:389 /request/body/messages/3 result call_003 Unknown: {"city": "Paris", "temp_c": 18, "sky": "sunny"}
    4 5:929 /response/body/choices/0/message/content message Assistant: It is 18 degrees and sunny in Paris.
    "#);
}

#[test]
fn an_anthropic_request_log_reads_responses_and_is_error() {
    let p = http_log("anthropic.llm-http-log.jsonl");
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 1);
    let c = counts(&p.traces[0]);
    assert_eq!((c.calls, c.results, c.errors, c.unanswered), (2, 2, 1, 0));
    assert_eq!(p.traces[0].embedded_tools.len(), 2);
    insta::assert_snapshot!(steps(&p, 0), @r"
    0 1:197 /request/body/system message System: You help with files.
    1 1:124 /request/body/messages/0/content message User: What is in my notes folder?
    2 1:683 /response/body/content/0 message Assistant: Let me read the file.
    3 1:734 /response/body/content/1 call toolu_000 read_file {path}
    4 2:374 /request/body/messages/2/content/0 result toolu_000 Error: No such file: notes/missing.txt
    5 2:1020 /response/body/content/0 call toolu_001 list_dir {path}
    6 3:647 /request/body/messages/4/content/0 result toolu_001 Unknown: todo.txt
    7 3:1252 /response/body/content/0 message Assistant: The notes folder holds todo.txt only.
    ");
}

#[test]
fn failed_model_requests_in_every_shape_are_facts_not_issues() {
    let lines = [
        r#"{"request": {"model": "m", "messages": [{"role": "user", "content": "u"}]}, "response": {"status_code": 429, "body": {"error": {"message": "rate limited"}}}}"#,
        r#"{"request": {"model": "m", "messages": [{"role": "user", "content": "u"}]}, "response": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}}"#,
        r#"{"request": {"model": "m", "messages": [{"role": "user", "content": "u"}]}, "response": {"statusCode": "503"}}"#,
    ];
    let p = parse(&lines.join("\n"));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 1, "a retried request is the same run");
    let notes: Vec<&str> = p.traces[0]
        .attributes
        .iter()
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(
        notes,
        [
            "a model request failed (line 1: HTTP 429: rate limited): a fact about the run, not a tool error",
            "a model request failed (line 2: error response: Overloaded): a fact about the run, not a tool error",
            "a model request failed (line 3: HTTP 503): a fact about the run, not a tool error",
        ]
    );
}

#[test]
fn a_request_that_rewrites_history_after_the_first_user_turn_continues_the_run() {
    // A harness that trims its history keeps the system prompt and the task: the same run. A
    // request with another task is another run.
    let req = |msgs: &str| {
        format!(r#"{{"model": "m", "messages": [{{"role": "system", "content": "s"}}, {msgs}]}}"#)
    };
    let lines = [
        req(r#"{"role": "user", "content": "task A"}"#),
        r#"{"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "step 1"}}]}"#.to_owned(),
        req(r#"{"role": "user", "content": "task A"}, {"role": "assistant", "content": "step 1"}, {"role": "user", "content": "more"}"#),
        req(r#"{"role": "user", "content": "task A"}, {"role": "user", "content": "summary of earlier steps"}"#),
        req(r#"{"role": "user", "content": "task B"}"#),
    ];
    let p = parse(&lines.join("\n"));
    let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["t.json", "t.json#2"]);
    assert_eq!(
        steps(&p, 1),
        "0 5:59 /messages/0/content message System: s\n1 5:93 /messages/1/content message User: task B"
    );
}

/// A Claude Code session converted to OpenAI-style messages whose sub-agent's messages carry
/// the role `assistant-subagent-<id>` (issue 40): the sub-agent is a trace of its own, named
/// as Claude Code's are (`…/agent-<id>`), with no input error per message; its calls and the
/// main thread's are those the Claude Code adapter reads from the original files (server tools
/// left out, as the conversion drops them).
#[test]
fn subagent_roles_are_traces_of_their_own() {
    let dir = std::path::Path::new(REAL);
    let name = "openai-subagents/claude-code-2.1.332-subagent-messages.json";
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let (format, p) = parse_auto(&text, "converted.json");
    assert_eq!(format, Some(InputFormat::OpenAi));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["converted.json", "converted.json/agent-a52f6821ed11f13eb"]);
    assert_eq!(misplaced_steps(&text, &p.traces), Vec::<String>::new());
    let calls = |t: &crate::model::Trace| -> Vec<(String, String, bool)> {
        let pairing = crate::model::Pairing::new(t);
        t.steps
            .iter()
            .filter_map(|s| s.as_call().map(|c| (s, c)))
            .filter(|(_, c)| c.call_id.as_deref().is_some_and(|i| i.starts_with("toolu_")))
            .map(|(s, c)| {
                let args = match &c.args {
                    Args::Known(v) => v.to_string(),
                    other => format!("{other:?}"),
                };
                let id = c.call_id.clone().unwrap();
                (format!("{id} {}", c.name), args, pairing.result_for(s.index).is_some())
            })
            .collect()
    };
    let session = "claude-code-2.1.332/8c2fe29d-4fb3-446a-90f0-e1d1416fe640";
    let main = std::fs::read_to_string(dir.join(format!("{session}.jsonl"))).unwrap();
    let sub = std::fs::read_to_string(
        dir.join(format!("{session}/subagents/agent-a52f6821ed11f13eb.jsonl")),
    )
    .unwrap();
    let (_, claude_main) = parse_bytes(main.as_bytes(), "main.jsonl", None);
    let (_, claude_sub) = parse_bytes(sub.as_bytes(), "agent.jsonl", None);
    assert_eq!(calls(&p.traces[0]), calls(&claude_main.traces[0]));
    assert_eq!(calls(&p.traces[1]), calls(&claude_sub.traces[0]));
    assert_eq!(calls(&p.traces[0]).len(), 3);
    assert_eq!(calls(&p.traces[1]).len(), 2);
    // The sub-agent's prompt is its user turn, not the main thread's.
    let first = &p.traces[1].steps[0];
    assert!(matches!(&first.kind, StepKind::Message(m) if m.role == crate::model::Role::User));
}

/// A chat session saved one message a line after a metadata line (nanobot's
/// `{"_type": "metadata", …}`): the metadata is read past, with no input error.
#[test]
fn a_session_metadata_line_is_read_past() {
    let text = [
        r#"{"_type": "metadata", "key": "cli:direct", "created_at": "2026-02-28T18:30:00", "metadata": {}, "last_consolidated": 0}"#,
        r#"{"role": "user", "content": "read README.md", "timestamp": "2026-02-28T18:30:00"}"#,
        r#"{"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"README.md\"}"}}]}"#,
        r#"{"role": "tool", "tool_call_id": "call_1", "name": "read_file", "content": "Hello"}"#,
    ]
    .join("\n");
    let (format, p) = parse_auto(&text, "cli_direct.jsonl");
    assert_eq!(format, Some(InputFormat::OpenAi));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(counts(&p.traces[0]), crate::adapters::testing::counted(1, 1, 0, 0));
}

/// A converter that writes each call twice in a message, in `tool_calls` and again as a content
/// block (with its id as `tool_call_id`, or with none): one call each, the `tool_calls` entry.
#[test]
fn a_call_written_twice_in_one_message_is_one_call() {
    let text = r#"{"messages": [
  {"role": "user", "content": "read it"},
  {"role": "assistant", "content": [{"type": "reasoning", "text": "[REDACTED]"}, {"type": "tool_use", "tool_call_id": "call_1", "name": "read", "arguments": "{\"filePath\": \"/a\"}"}, {"type": "tool_use", "name": "read", "input": {"filePath": "/b"}}], "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\": \"/a\"}"}}, {"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\": \"/b\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "a"},
  {"role": "tool", "tool_call_id": "call_2", "content": "b"}
 ]}"#;
    let p = parse(text);
    insta::assert_snapshot!(steps(&p, 0), @r"
    0 2:31 /messages/0/content message User: read it
    1 3:268 /messages/1/tool_calls/0 call call_1 read {filePath} raw
    2 3:375 /messages/1/tool_calls/1 call call_2 read {filePath} raw
    3 4:3 /messages/2 result call_1 Unknown: a
    4 5:3 /messages/3 result call_2 Unknown: b
    ");
}

/// Kimi CLI's context file: message lines with the CLI's own records between them
/// (`_checkpoint`, `_usage`), which are not messages and are passed over.
#[test]
fn a_clis_own_records_between_messages_are_passed_over() {
    let text = concat!(
        r#"{"role": "_checkpoint", "id": 0}"#,
        "\n",
        r#"{"role": "user", "content": "list it"}"#,
        "\n",
        r#"{"role": "_usage", "token_count": 5303}"#,
        "\n",
        r#"{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "Shell:0", "function": {"name": "Shell", "arguments": "{\"command\": \"ls\"}"}}]}"#,
        "\n",
        r#"{"role": "tool", "content": [{"type": "text", "text": "a b"}], "tool_call_id": "Shell:0"}"#,
        "\n",
        r#"{"role": "_checkpoint", "id": 1}"#,
        "\n",
    );
    let p = parse(text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    assert_eq!(p.traces.len(), 1);
    insta::assert_snapshot!(steps(&p, 0), @r"
    0 2:29 /content message User: list it
    1 4:53 /tool_calls/0 call Shell:0 Shell {command} raw
    2 5:1  result Shell:0 Unknown: a b
    ");
}

/// A converted session keeps its working directory in `meta.session_meta.cwd`: it is the
/// trace's working directory, the sub-agents' too.
#[test]
fn a_converted_sessions_working_directory_is_read() {
    let text = r#"{"messages": [
  {"role": "user", "content": "fix it"},
  {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "a"},
  {"role": "assistant-subagent-a1", "content": "", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pwd\"}"}}]}
 ], "meta": {"session_meta": {"session_id": "s", "cwd": "/home/leul/task-44"}}}"#;
    let p = parse(text);
    assert_eq!(p.traces.len(), 2);
    for t in &p.traces {
        let cwds: Vec<&str> = t
            .context
            .iter()
            .filter(|c| c.kind == crate::model::ContextKind::WorkingDirectory)
            .map(|c| c.value.as_str())
            .collect();
        assert_eq!(cwds, ["/home/leul/task-44"], "{}", t.run_id);
    }
}

/// A message is a sub-agent's by its role alone, however the role is written: plainly, or with
/// escapes spelling its characters; a message that cannot be one is told apart unread.
#[test]
fn a_sub_agent_is_known_by_its_role_however_it_is_written() {
    use super::chat::subagent_of;
    use serde_json::value::RawValue;
    let of = |text: &str| subagent_of(&RawValue::from_string(text.to_owned()).unwrap());
    assert_eq!(of(r#"{"role":"assistant-subagent-a1","content":"x"}"#).as_deref(), Some("a1"));
    assert_eq!(of(r#"{"role":"assistant\u002dsubagent-b2"}"#).as_deref(), Some("b2"));
    assert_eq!(of(r#"{"role":"assistant-\u0073ubagent-c3"}"#).as_deref(), Some("c3"));
    assert_eq!(of(r#"{"role":"\u0061ssistant-subagent-d4"}"#).as_deref(), Some("d4"));
    // Not a sub-agent's: another role, the word elsewhere, an empty id, escapes of other text.
    assert_eq!(of(r#"{"role":"assistant","content":"the subagent said"}"#), None);
    assert_eq!(of(r#"{"role":"assistant-subagent-"}"#), None);
    assert_eq!(of(r#"{"role":"user","content":"caf\u00e9 \u001b[0m"}"#), None);
    assert_eq!(of(r#"{"role":"tool","content":"assistant-subagent-x"}"#), None);
}

/// A dataset record read in one pass (its conversation list split as the record is read)
/// gives what reading the record, then its list, gave: the same traces, steps, places and
/// problems; a record of another shape, or whose list is not a list, is not read so.
#[test]
fn a_dataset_record_read_in_one_pass_reads_as_in_two() {
    use super::body::{Body, Split};
    use super::reader::{List, Reader};
    use crate::adapters::common::cursor::Cursor;
    use crate::model::{InputRef, LineIndex};
    use serde_json::value::RawValue;

    let text = std::fs::read_to_string(real_dir("openai-chat").join("tau-bench-gpt-4o-airline.subset.json"))
        .unwrap();
    let mut records: Vec<String> = serde_json::from_str::<Vec<Value>>(&text)
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    assert!(records.len() >= 3);
    for odd in [
        r#"{"task_id": 1, "messages": "not a list"}"#,
        r#"{"task_id": 2, "traj": [{"role": "user", "content": "hi"}], "messages": null}"#,
        r#"{"messages": [{"role": "user", "content": "hi"}], "model": "m"}"#,
        r#"{"id": "x", "conversations": [{"from": "human", "value": "hi"}], "system": "be kind"}"#,
        r#"{"task_id": 3, "traj": [5, "six", {"role": 7}], "tools": []}"#,
        r#"{"messages": [], "messages": []}"#,
    ] {
        records.push(odd.to_owned());
    }
    let input = InputRef {
        path: "t.json".into(),
        format: "openai".into(),
    };
    let (mut split, mut not_split) = (0, 0);
    for text in &records {
        let raw = RawValue::from_string(text.clone()).unwrap();
        let index = LineIndex::new(text);
        let cur = Cursor::document(text, &index);
        let body: Body<'_> = serde_json::from_str(raw.get()).unwrap_or_default();
        let one = serde_json::from_str::<Body<'_, Split<'_>>>(raw.get())
            .ok()
            .filter(Body::is_dataset);
        let Some(one) = one else {
            not_split += 1;
            continue;
        };
        let Some((items, key)) = one.conversation_split() else {
            not_split += 1;
            continue;
        };
        let (list, key_before) = body.conversation().unwrap();
        assert_eq!(key, key_before);
        let mut before = Parsed::default();
        Reader::new(&input).dataset(&body, List::Raw(list), key, &cur, "/0", "d", &mut before);
        let mut after = Parsed::default();
        Reader::new(&input).dataset(&one, List::Split(items), key, &cur, "/0", "d", &mut after);
        assert_eq!(format!("{after:?}"), format!("{before:?}"), "{text}");
        split += 1;
    }
    // The real records, the `traj` beside a null list, the ShareGPT one, the odd items.
    assert_eq!(split, records.len() - 3, "{split} of {} records split", records.len());
    assert_eq!(not_split, 3);
}
