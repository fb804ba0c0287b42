//! Tests of the Claude adapter: every real file in `fixtures/real/claude-code/`
//! (snapshots of the model, the README's counts, error results at the `is_error` lines,
//! sub-agents kept apart, cited lines that hold their step), and small inline cases for the
//! shapes no real file has.
//!
//! Kept in one file: the tests share the real-file helpers (`parse`, `parse_str`, `is_error_lines`)
//! over the same fixtures.

use serde_json::Value;

use crate::adapters::testing::{Counts, counts, misplaced_steps, real_dir, real_files, summary};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{ResultStatus, StepKind};

fn parse(path: &std::path::Path) -> (Option<InputFormat>, Parsed, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (format, parsed) = parse_bytes(text.as_bytes(), &name, None);
    (format, parsed, text)
}

fn parse_str(text: &str) -> Parsed {
    let (format, parsed) = parse_bytes(text.as_bytes(), "t.jsonl", Some(InputFormat::Claude));
    assert_eq!(format, Some(InputFormat::Claude));
    parsed
}

#[test]
fn real_files_snapshot() {
    let dir = real_dir("claude-code");
    insta::glob!(dir, "*.{jsonl,json,ndjson}", |path| {
        let (format, parsed, _) = parse(path);
        assert_eq!(format, Some(InputFormat::Claude), "{}", path.display());
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        insta::assert_json_snapshot!(summary(&parsed));
    });
}

/// (file prefix, main thread counts, all sub-agent traces' counts, number of sub-agent traces).
/// Main-thread and total counts are the README's; where it gives none (erk-52bc43f3, the
/// sub-agent split of ccviewer-5c0375b4, the `agent_progress` mirrors) they were counted with an
/// independent script over the raw lines.
const EXPECTED: &[(&str, Counts, Counts, usize)] = &[
    ("ccviewer-1af7fc5e", c(12, 12, 1, 0), c(0, 0, 0, 0), 0),
    ("ccviewer-5c0375b4", c(13, 13, 2, 0), c(8, 8, 1, 0), 2),
    ("ccviewer-fe5e1c67", c(11, 11, 0, 0), c(156, 156, 23, 0), 5),
    ("erk-acd9feaa", c(27, 27, 3, 0), c(0, 0, 0, 0), 0),
    ("erk-b2c8258b", c(19, 18, 3, 1), c(0, 0, 0, 0), 0),
    ("erk-beddc0be", c(54, 52, 5, 2), c(3, 3, 2, 0), 2),
    ("erk-52bc43f3", c(46, 44, 2, 2), c(1, 1, 0, 0), 1),
    ("erk-1b2fa935", c(105, 101, 6, 4), c(14, 14, 0, 0), 1),
];

const fn c(calls: usize, results: usize, errors: usize, unanswered: usize) -> Counts {
    Counts {
        calls,
        results,
        errors,
        unanswered,
    }
}

#[test]
fn readme_counts_hold_exactly() {
    let sessions: Vec<_> = real_files("claude-code")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(sessions.len(), EXPECTED.len());
    for path in sessions {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (prefix, main, subs, n_subs) = EXPECTED
            .iter()
            .find(|e| name.starts_with(e.0))
            .unwrap_or_else(|| panic!("no expectation for {name}"));
        let (_, parsed, _) = parse(&path);
        let (first, rest) = parsed.traces.split_first().unwrap();
        assert_eq!(counts(first), *main, "{prefix} main thread");
        let sub_total = rest
            .iter()
            .map(counts)
            .fold(Counts::default(), |a, b| a + b);
        assert_eq!(sub_total, *subs, "{prefix} sub-agents");
        assert_eq!(rest.len(), *n_subs, "{prefix} sub-agent traces");
        // The main trace is named by the session id, the sub-agents after it.
        let session = name.split_once('-').unwrap().1.trim_end_matches(".jsonl");
        assert_eq!(first.run_id, session);
        for t in rest {
            assert!(t.run_id.starts_with(&format!("{session}/")), "{}", t.run_id);
        }
    }
}

/// The lines of a session file that hold a `tool_result` block with `is_error: true`, read
/// straight from the JSON (including `agent_progress` mirrors), one entry per block.
fn is_error_lines(text: &str) -> Vec<u32> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        let content = v
            .pointer("/message/content")
            .or_else(|| v.pointer("/data/message/message/content"));
        for block in content.and_then(Value::as_array).into_iter().flatten() {
            if block["type"] == "tool_result" && block["is_error"] == true {
                lines.push(u32::try_from(i + 1).unwrap());
            }
        }
    }
    lines
}

#[test]
fn error_results_sit_exactly_at_the_is_error_lines() {
    for path in real_files("claude-code") {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let (_, parsed, text) = parse(&path);
        let mut got: Vec<u32> = parsed
            .traces
            .iter()
            .flat_map(|t| &t.steps)
            .filter(|s| {
                s.as_result()
                    .is_some_and(|r| r.status == ResultStatus::Error)
            })
            .map(|s| s.at.line)
            .collect();
        got.sort_unstable();
        assert_eq!(got, is_error_lines(&text), "{}", path.display());
    }
}

#[test]
fn sub_agent_steps_never_sit_in_the_main_trace() {
    for path in real_files("claude-code") {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let (_, parsed, text) = parse(&path);
        let records: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let is_sub = |line: u32| {
            let r = &records[line as usize - 1];
            r["isSidechain"] == true || r["type"] == "progress"
        };
        let mut ids = std::collections::HashSet::new();
        for (i, t) in parsed.traces.iter().enumerate() {
            for s in &t.steps {
                assert_eq!(
                    is_sub(s.at.line),
                    i > 0,
                    "{}: {} step {}",
                    path.display(),
                    t.run_id,
                    s.index
                );
                if let Some(id) = s.as_call().and_then(|c| c.call_id.clone()) {
                    assert!(ids.insert(id.clone()), "call {id} counted twice");
                }
            }
        }
    }
}

#[test]
fn sub_agents_are_named_after_the_call_that_started_them() {
    let dir = real_dir("claude-code");
    let (_, parsed, _) = parse(&dir.join("ccviewer-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"));
    let task_calls: Vec<&str> = parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .filter(|c| c.name == "Task")
        .filter_map(|c| c.call_id.as_deref())
        .collect();
    assert_eq!(task_calls.len(), 5);
    let parents: Vec<&str> = parsed.traces[1..]
        .iter()
        .map(|t| t.attribute("parent_tool_use_id").unwrap())
        .collect();
    let mut sorted = parents.clone();
    sorted.sort_unstable();
    let mut want = task_calls.clone();
    want.sort_unstable();
    assert_eq!(sorted, want);
    let (_, parsed, _) = parse(&dir.join("erk-beddc0be-103e-4a78-ae7d-ba6c1bad3ac8.jsonl"));
    let agent = &parsed.traces[1];
    assert_eq!(
        agent.run_id,
        "beddc0be-103e-4a78-ae7d-ba6c1bad3ac8/agent-a12de436aa43578f9"
    );
    assert_eq!(agent.attribute("mirror"), Some("agent_progress"));
    assert_eq!(
        agent.attribute("parent_tool_use_id"),
        Some("toolu_015B9shXsW7pDZ35nyJh698d")
    );
}

#[test]
fn every_step_is_cited_at_a_line_that_holds_it() {
    for path in real_files("claude-code") {
        let (_, parsed, text) = parse(&path);
        assert!(
            parsed
                .traces
                .iter()
                .all(|t| t.steps.iter().all(|s| s.at.line >= 1))
        );
        let bad = misplaced_steps(&text, &parsed.traces);
        assert!(bad.is_empty(), "{}:\n{}", path.display(), bad.join("\n"));
    }
}

#[test]
fn a_reply_spread_over_lines_keeps_every_block() {
    let text = concat!(
        r#"{"type":"user","sessionId":"s","uuid":"u0","message":{"role":"user","content":"list files"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","uuid":"u1","parentUuid":"u0","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"sure"}]}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","uuid":"u2","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","uuid":"u3","parentUuid":"u2","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a"}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","uuid":"u4","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"x","is_error":false},{"type":"tool_result","tool_use_id":"t1","content":"Exit code 2"}]}}"#,
        "\n",
    );
    let p = parse_str(text);
    insta::assert_snapshot!(summary(&p)["traces"][0]["steps"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect::<Vec<_>>().join("\n"), @r#"
    0 1:79 /message/content message User: list files
    1 2:133 /message/content/0 message Assistant: sure
    2 3:133 /message/content/0 call t1 Bash {command}
    3 4:133 /message/content/0 call t2 Read {file_path}
    4 5:80 /message/content/0 result t2 Ok: x
    5 5:153 /message/content/1 result t1 Unknown: Exit code 2
    "#);
    assert_eq!(p.traces[0].steps[2].meta.model.as_deref(), Some("m"));
    assert_eq!(p.traces[0].steps[2].meta.source_id.as_deref(), Some("u2"));
}

#[test]
fn lines_to_read_past_are_silent_and_bad_lines_are_issues() {
    let text = concat!(
        r#"{"type":"summary","summary":"s","leafUuid":"x"}"#,
        "\n",
        r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#,
        "\n",
        r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#,
        "\n",
        r#"{"type":"system","subtype":"compact_boundary","sessionId":"s","uuid":"c"}"#,
        "\n",
        r#"{"type":"progress","sessionId":"s","uuid":"p","data":{"type":"hook_progress"}}"#,
        "\n",
        r#"{"type":"attachment","sessionId":"s","uuid":"a","attachment":{"type":"queued_command"}}"#,
        "\n",
        r#"{"type":"some-future-kind","sessionId":"s"}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}"#,
        "\n",
        r#"{"sessionId":"s","hello":1}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}]}}"#,
        "\n",
    );
    let p = parse_str(text);
    let issues: Vec<String> = p.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        issues,
        [
            "t.jsonl:8:133: invalid JSON: EOF while parsing an object",
            "t.jsonl:9:1: not a Claude Code record: no `type`, and not a flat tool event",
        ]
    );
    assert_eq!(p.traces.len(), 1);
    assert!(p.traces[0].partial);
    assert_eq!(p.traces[0].call_count(), 1);
}

#[test]
fn sidechains_mirrors_and_stream_json_sub_agents_are_their_own_traces() {
    let text = concat!(
        // Main thread starts a sub-agent.
        r#"{"type":"assistant","sessionId":"s","uuid":"m1","message":{"role":"assistant","content":[{"type":"tool_use","id":"task1","name":"Task","input":{"prompt":"find x","description":"finder"}}]}}"#,
        "\n",
        // Inline sidechain with no agentId (1.0.x): a root and a child by parentUuid.
        r#"{"type":"user","sessionId":"s","uuid":"s1","parentUuid":null,"isSidechain":true,"message":{"role":"user","content":"find x"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","uuid":"s2","parentUuid":"s1","isSidechain":true,"message":{"role":"assistant","content":[{"type":"tool_use","id":"a1","name":"Grep","input":{"pattern":"x"}}]}}"#,
        "\n",
        // A v2.1 mirror of a sub-agent with an agentId, whose call is also written inline:
        // counted once.
        r#"{"type":"progress","sessionId":"s","uuid":"p1","parentToolUseID":"task2","data":{"type":"agent_progress","agentId":"ag","message":{"type":"assistant","uuid":"x","message":{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Read","input":{"file_path":"f"}}]}}}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","uuid":"s3","isSidechain":true,"agentId":"ag","message":{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Read","input":{"file_path":"f"}}]}}"#,
        "\n",
        // A stream-json sub-agent event.
        r#"{"type":"assistant","session_id":"s","parent_tool_use_id":"task3","message":{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Glob","input":{"pattern":"*"}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","uuid":"m2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"task1","content":"found"}]}}"#,
        "\n",
    );
    let p = parse_str(text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let got: Vec<String> = p
        .traces
        .iter()
        .map(|t| {
            let attrs: Vec<String> = t
                .attributes
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("{} calls={} {}", t.run_id, t.call_count(), attrs.join(" "))
        })
        .collect();
    assert_eq!(
        got,
        [
            "s calls=1 agent=claude-code",
            "s/sidechain-1 calls=1 agent=claude-code parent_tool_use_id=task1 agent_description=finder",
            "s/agent-ag calls=1 agent=claude-code agent_id=ag parent_tool_use_id=task2",
            "s/task-task3 calls=1 agent=claude-code parent_tool_use_id=task3",
        ]
    );
}

#[test]
fn seed_000_flat_event_lines() {
    let text = concat!(
        r#"{"type": "tool_use", "name": "read_file", "input": {"file_path": "/etc/passwd"}}"#,
        "\n",
        r#"{"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "Bash", "arguments": "{\"command\": \"ls\"}"}}]}"#,
        "\n",
        r#"{"function_call": {"name": "legacy", "arguments": "{\"a\": 1"}}"#,
        "\n",
        r#"{"name": "bare", "input": {"x": 1}}"#,
        "\n",
        r#"{"type": "tool_result", "tool_use_id": "c1", "content": "ok", "is_error": true}"#,
        "\n",
        r#"{"type": "tool_use", "tool_name": "Write", "tool_input": {"file_path": "a"}}"#,
        "\n",
    );
    let (format, p) = parse_bytes(text.as_bytes(), "t.jsonl", None);
    assert_eq!(format, Some(InputFormat::Claude));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    insta::assert_snapshot!(summary(&p)["traces"][0]["steps"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect::<Vec<_>>().join("\n"), @r#"
    0 1:1  call - read_file {file_path}
    1 2:17 /tool_calls/0 call c1 Bash {command} raw
    2 3:19 /function_call call - legacy malformed (EOF while parsing an object at column 7 of the emitted arguments) raw
    3 4:1  call - bare {x}
    4 5:1  result c1 Error: ok
    5 6:1  call - Write {file_path}
    "#);
}

#[test]
fn stream_json_init_tools_are_names_without_schemas() {
    let text = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash","Read"],"model":"claude-x","claude_code_version":"2.1.7"}"#,
        "\n",
        r#"{"type":"assistant","session_id":"s1","parent_tool_use_id":null,"message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}"#,
        "\n",
        r#"{"type":"result","subtype":"success","session_id":"s1","is_error":false,"result":"done"}"#,
        "\n",
    );
    let p = parse_str(text);
    let t = &p.traces[0];
    assert_eq!(t.run_id, "s1");
    assert_eq!(t.final_answer.as_deref(), Some("done"));
    let tools: Vec<(&str, bool)> = t
        .embedded_tools
        .iter()
        .map(|s| (s.name.as_str(), s.schema.is_some()))
        .collect();
    assert_eq!(tools, [("Bash", false), ("Read", false)]);
    assert_eq!(
        t.attributes,
        [
            ("version".to_owned(), "2.1.7".to_owned()),
            ("agent".to_owned(), "claude-code".to_owned()),
            ("model".to_owned(), "claude-x".to_owned())
        ]
    );
}

#[test]
fn a_sub_agent_file_alone_is_one_sub_agent_trace() {
    let text = concat!(
        r#"{"type":"user","sessionId":"parent","agentId":"a9","isSidechain":true,"uuid":"1","message":{"role":"user","content":"go"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"parent","agentId":"a9","isSidechain":true,"uuid":"2","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}"#,
        "\n",
    );
    let p = parse_str(text);
    let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["parent/agent-a9"]);
    assert_eq!(p.traces[0].attribute("mirror"), None);
}

#[test]
fn hostile_records_never_panic() {
    for text in [
        "[1, 2, 3]",
        "{\"type\": \"assistant\", \"message\": 5}",
        "{\"type\": \"assistant\", \"message\": {\"content\": [null, 1, {\"type\": \"tool_use\"}]}}",
        "{\"type\": \"progress\", \"data\": {\"type\": \"agent_progress\", \"agentId\": 1}}",
        "{\"type\": 7}",
    ] {
        let (_, p) = parse_bytes(text.as_bytes(), "h.json", Some(InputFormat::Claude));
        let _ = (p.traces.len(), p.issues.len());
    }
    let (_, p) = parse_bytes(
        b"{\"type\": \"assistant\", \"message\": 5}",
        "h.json",
        Some(InputFormat::Claude),
    );
    assert!(
        p.issues
            .iter()
            .any(|i| i.message.starts_with("unreadable `message`")),
        "{:?}",
        p.issues
    );
    assert!(p.traces[0].partial);
    let kinds: Vec<&StepKind> = p
        .traces
        .iter()
        .flat_map(|t| t.steps.iter().map(|s| &s.kind))
        .collect();
    assert!(kinds.is_empty());
}

#[test]
fn the_environment_the_lines_record_is_the_traces_context() {
    use crate::model::{Context, ContextKind};
    let (_, parsed, text) =
        parse(&real_dir("claude-code").join("ccviewer-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"));
    // The three working directories the session moved through, first seen first, each once
    // (the lines repeat them 437 times); an empty `gitBranch` is not context.
    let want: Vec<Context> = [
        "/path/to/Demo",
        "/path/to/Demo/todo-app",
        "/path/to/Demo/todo-app/types",
    ]
    .iter()
    .map(|d| Context {
        kind: ContextKind::WorkingDirectory,
        value: (*d).to_owned(),
    })
    .collect();
    assert_eq!(text.matches("\"cwd\":").count(), 437);
    for trace in &parsed.traces {
        assert_eq!(trace.context, want, "{}", trace.run_id);
    }
    let (_, parsed, _) =
        parse(&real_dir("claude-code").join("erk-52bc43f3-2f5f-46f5-b693-bedf4ffd23db.jsonl"));
    let main = &parsed.traces[0];
    assert_eq!(
        main.context,
        [
            (ContextKind::WorkingDirectory, "/Users/schrockn/code/erk"),
            (ContextKind::GitBranch, "master"),
            // The session's `slug` names its plan file.
            (
                ContextKind::Instructions,
                "~/.claude/plans/atomic-wishing-cerf.md"
            ),
            (ContextKind::GitBranch, "add-erkbot-system-prompt"),
        ]
        .map(|(kind, v)| Context {
            kind,
            value: v.to_owned()
        })
    );
}

/// Why the reader holds a file's traces until its last line (issue 33, "memory follows the
/// largest trace"): a Claude Code file is one conversation however many `sessionId`s it holds.
/// A resumed or continued session keeps writing to one file, the lines before the resume under
/// the old id and the lines after under the new one, and a result after the resume answers a
/// call made before it. And what a file's later lines say reaches every trace it yields: a bad
/// line anywhere makes them all partial, a later `cwd` is context of a sub-agent that ended
/// long before. So no trace of a file is complete before its end; a change of `sessionId` is
/// not the end of one.
#[test]
fn a_file_is_one_conversation_until_its_last_line() {
    let text = concat!(
        r#"{"type":"assistant","sessionId":"old","uuid":"m1","parentUuid":null,"cwd":"/a","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"old","uuid":"s1","isSidechain":true,"agentId":"ag","cwd":"/a","message":{"role":"assistant","content":[{"type":"tool_use","id":"g1","name":"Grep","input":{"pattern":"x"}}]}}"#,
        "\n",
        // Resumed: a new session id, and the result of the call made before the resume.
        r#"{"type":"user","sessionId":"new","uuid":"m2","parentUuid":"m1","cwd":"/b","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"new","uuid":"m3""#,
        "\n",
    );
    let p = parse_str(text);
    assert_eq!(p.issues.len(), 1, "{:?}", p.issues);
    let got: Vec<String> = p
        .traces
        .iter()
        .map(|t| {
            let dirs: Vec<&str> = t.context.iter().map(|c| c.value.as_str()).collect();
            format!(
                "{} {:?} partial={} context={}",
                t.run_id,
                counts(t),
                t.partial,
                dirs.join(",")
            )
        })
        .collect();
    let main = crate::adapters::testing::counted(1, 1, 0, 0);
    let agent = crate::adapters::testing::counted(1, 0, 0, 1);
    assert_eq!(
        got,
        [
            format!("old {main:?} partial=true context=/a,/b"),
            format!("old/agent-ag {agent:?} partial=true context=/a,/b"),
        ]
    );
}

/// The one-pass reading of a message (`MsgBlocks`, its content's blocks split as the message is
/// read) reads every message it accepts as the two-pass reading does, steps, places and
/// problems alike; a message of another shape is left to the two-pass reading.
#[test]
fn a_message_read_in_one_pass_reads_as_in_two() {
    use super::content::Collected;
    use super::{MessageBody, MsgBlocks, read_any_message};
    use crate::model::Role;
    use crate::adapters::common::cursor::Cursor;
    use serde_json::value::RawValue;

    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        message: Option<&'a RawValue>,
    }
    let mut files = Vec::new();
    for dir in ["claude-code", "claude-code-2.1.332"] {
        let mut stack = vec![real_dir(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "jsonl") {
                    files.push(p);
                }
            }
        }
    }
    let mut lines: Vec<String> = files
        .iter()
        .flat_map(|p| std::fs::read_to_string(p).unwrap().lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    // Shapes the one pass must leave alone, and list contents it must read alike.
    for message in [
        r#""just a string""#,
        r#"{"role":"user","content":"a prompt"}"#,
        r#"{"role":"user","content":null}"#,
        r#"{"role":"assistant"}"#,
        r#"{"role":7,"content":[]}"#,
        r#"{"role":"user","content":{"type":"text","text":"one block"}}"#,
        r#"{"role":"user","content":[],"content":[]}"#,
        r#"{"content":["bare", {"type":"text","text":"x"}, 5, {"type":"tool_use","input":{}}]}"#,
        r#"{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a"}}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}],"is_error":false}]}"#,
    ] {
        lines.push(format!(r#"{{"type":"user","message":{message}}}"#));
    }
    let (mut one_pass, mut two_pass_only) = (0, 0);
    for (n, line) in lines.iter().enumerate() {
        let Ok(Line { message: Some(raw) }) = serde_json::from_str::<Line<'_>>(line) else {
            continue;
        };
        let cur = Cursor::record(line, n as u32 + 1);
        for role in [Role::User, Role::Assistant] {
            let mut two = Collected::default();
            let model_two = read_any_message(raw, role, &cur, "/message", &mut two);
            match serde_json::from_str::<MsgBlocks<'_>>(raw.get()) {
                Ok(m) => {
                    let mut one = Collected::default();
                    let model_one = m.read(role, &cur, "/message", &mut one);
                    assert_eq!(format!("{one:?}"), format!("{two:?}"), "line {}: {line}", n + 1);
                    assert_eq!(model_one, model_two, "line {}", n + 1);
                    one_pass += 1;
                }
                Err(_) => two_pass_only += 1,
            }
        }
    }
    assert!(one_pass > 200, "only {one_pass} messages read in one pass");
    // The string, null, missing, object, mistyped and repeated contents.
    assert!(two_pass_only >= 12, "{two_pass_only} messages left to two passes");
}
