//! Tests of the Gemini CLI adapter over the real sessions in `fixtures/real/gemini-cli/`
//! (written by Gemini CLI 0.20.2, 0.40.1 and 0.61.0 driven by a scripted fake model, see
//! `scripts/make-session`): snapshots, exact counts, the error results where `status` says so,
//! cited lines, sub-agent sessions as their own traces, and the log's update records (`$set`,
//! `$rewindTo`, a repeated id) on small inline cases, which `-p` runs never write.

use crate::adapters::testing::{
    Counts, assert_not_an_empty_pass, counted as c, counts, misplaced_steps, parse_path,
    repo_fixture, repo_real_files, summary,
};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{Args, ContextKind, ResultStatus};

fn fixture(name: &str) -> (Parsed, String) {
    repo_fixture("gemini-cli", name, InputFormat::GeminiCli)
}

#[test]
fn real_sessions_snapshot() {
    for path in repo_real_files("gemini-cli") {
        let (format, parsed, _) = parse_path(&path);
        assert_eq!(format, Some(InputFormat::GeminiCli), "{}", path.display());
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_json_snapshot!(name, summary(&parsed));
    }
}

/// (file, counts). Counted by an independent script over the raw records (the latest record
/// of each message id, in order): calls are `toolCalls[]` entries, results those whose status
/// is `success`, `error` or `cancelled`, errors the last two; in a stream-json transcript,
/// calls are `tool_use` events, results `tool_result` events, errors those with `status:
/// error`, unanswered the `tool_use` ids no `tool_result` names.
const EXPECTED: &[(&str, Counts)] = &[
    ("gemini-cli-0.20.2-tools.json", c(7, 7, 2, 0)),
    ("gemini-cli-0.40.1-tools.jsonl", c(7, 7, 3, 0)),
    ("gemini-cli-0.20.2-stream.jsonl", c(7, 7, 2, 0)),
    ("gemini-cli-0.40.1-stream.jsonl", c(9, 9, 4, 0)),
    ("gemini-cli-0.61.0-stream.jsonl", c(9, 9, 4, 0)),
    ("session-2026-12-05T07-52-4962b86f.jsonl", c(9, 9, 4, 0)),
    ("341e4058-7ff2-4c3e-9aff-f28dd0553a52.jsonl", c(3, 3, 1, 0)),
    ("session-2026-12-01T23-15-36646c51.jsonl", c(4, 4, 1, 0)),
];

#[test]
fn counts_errors_and_cited_lines_hold_exactly() {
    assert_eq!(repo_real_files("gemini-cli").len(), EXPECTED.len());
    for (name, want) in EXPECTED {
        let (parsed, text) = fixture(name);
        assert_eq!(
            parsed.traces.len(),
            1,
            "{name}: one session file, one trace"
        );
        let t = &parsed.traces[0];
        assert_eq!(counts(t), *want, "{name}");
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        // The error results answer exactly the calls whose records say `error` / `cancelled`
        // (read straight from the JSON, every copy of every record).
        let mut want_ids = failed_call_ids(&text);
        want_ids.sort();
        let mut got_ids: Vec<String> = t
            .steps
            .iter()
            .filter_map(|s| s.as_result())
            .filter(|r| r.status == ResultStatus::Error)
            .filter_map(|r| r.call_id.clone())
            .collect();
        got_ids.sort();
        assert_eq!(got_ids, want_ids, "{name}");
    }
}

/// Ids of the tool calls whose `status` is `error` or `cancelled`, in any record of the text
/// (a session's `toolCalls[]`, a stream's `tool_result` events).
fn failed_call_ids(text: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("type").and_then(|t| t.as_str()) == Some("tool_result")
                    && m.get("status").and_then(|t| t.as_str()) == Some("error")
                {
                    out.push(m["tool_id"].as_str().unwrap().to_owned());
                }
                if let Some(serde_json::Value::Array(calls)) = m.get("toolCalls") {
                    for c in calls {
                        if matches!(c["status"].as_str(), Some("error" | "cancelled")) {
                            let id = c["id"].as_str().unwrap().to_owned();
                            if !out.contains(&id) {
                                out.push(id);
                            }
                        }
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => walk(&v, &mut out),
        Err(_) => text
            .lines()
            .for_each(|l| walk(&serde_json::from_str(l).unwrap(), &mut out)),
    }
    out
}

#[test]
fn the_cli_s_own_validation_errors_are_structured_errors() {
    let (parsed, _) = fixture("gemini-cli-0.40.1-tools.jsonl");
    let errors: Vec<String> = parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .filter(|r| r.status == ResultStatus::Error)
        .map(|r| r.error.clone().unwrap())
        .collect();
    assert_eq!(errors.len(), 3);
    assert_eq!(errors[0], "params/command must be string");
    assert!(errors[1].starts_with("params/todos/0/status must be equal to one of"));
    assert!(errors[2].starts_with("Tool \"no_such_tool\" not found"));
}

#[test]
fn sessions_say_when_they_started_and_where_they_ran() {
    let (parsed, _) = fixture("gemini-cli-0.20.2-tools.json");
    let t = &parsed.traces[0];
    assert_eq!(t.run_id, "73750bc9-1677-48d0-9fa1-56742bbd2bdc");
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("gemini-cli"));
    assert_eq!(
        t.attribute(super::ATTR_STARTED),
        Some("2026-12-01T23:14:17.636Z")
    );
    assert_eq!(
        t.attribute(crate::model::ATTR_MODEL),
        Some("gemini-2.5-pro")
    );
    let (parsed, _) = fixture("341e4058-7ff2-4c3e-9aff-f28dd0553a52.jsonl");
    let t = &parsed.traces[0];
    assert_eq!(t.attribute(super::ATTR_KIND), Some("subagent"));
    assert!(
        t.context
            .iter()
            .any(|c| c.kind == ContextKind::WorkingDirectory && c.value.ends_with("/work"))
    );
    // The main session names its directory only in the session context it sends.
    let (parsed, _) = fixture("session-2026-12-01T23-15-36646c51.jsonl");
    let t = &parsed.traces[0];
    assert_eq!(t.attribute(super::ATTR_KIND), Some("main"));
    assert_eq!(t.context.len(), 1, "{:?}", t.context);
    assert!(t.context[0].value.ends_with("/work"));
    // Its calls: the sub-agent call, MCP tools, each answered once although the CLI also
    // wrote every result as a `user` message.
    let names: Vec<&str> = t
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "invoke_agent",
            "mcp_everything_echo",
            "mcp_everything_get-sum",
            "write_file"
        ]
    );
}

fn lines(records: &[&str]) -> Parsed {
    let text = records.join("\n");
    let (format, parsed) = parse_bytes(text.as_bytes(), "s.jsonl", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    parsed
}

const META: &str =
    r#"{"sessionId":"s1","projectHash":"p","startTime":"2026-05-01T10:00:00Z","kind":"main"}"#;

fn call_record(id: &str, call: &str, status: &str) -> String {
    format!(
        r#"{{"id":"{id}","timestamp":"t","type":"gemini","content":"","toolCalls":[{{"id":"{call}","name":"read_file","args":{{"file_path":"a.txt"}},"status":"{status}","result":[{{"functionResponse":{{"id":"{call}","name":"read_file","response":{{"output":"A"}}}}}}]}}]}}"#
    )
}

#[test]
fn a_repeated_id_replaces_its_message_in_place() {
    let first = r#"{"id":"m2","timestamp":"t","type":"gemini","content":"thinking"}"#;
    let user = r#"{"id":"m1","timestamp":"t","type":"user","content":[{"text":"read a.txt"}]}"#;
    let later = call_record("m2", "c1", "success");
    let p = lines(&[META, user, first, &later]);
    let t = &p.traces[0];
    assert_eq!(counts(t), c(1, 1, 0, 0));
    // The call is cited on the line of the latest copy.
    assert_eq!(t.steps[1].at.line, 4);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
}

#[test]
fn a_rewind_drops_that_message_and_every_later_one() {
    let user = r#"{"id":"m1","timestamp":"t","type":"user","content":"first try"}"#;
    let call = call_record("m2", "c1", "success");
    let user2 = r#"{"id":"m3","timestamp":"t","type":"user","content":"more"}"#;
    let rewind = r#"{"$rewindTo":"m2"}"#;
    let retry = call_record("m4", "c2", "error");
    let p = lines(&[META, user, &call, user2, rewind, &retry]);
    let t = &p.traces[0];
    let ids: Vec<&str> = t
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .filter_map(|c| c.call_id.as_deref())
        .collect();
    assert_eq!(ids, ["c2"]);
    assert_eq!(counts(t), c(1, 1, 1, 0));
    // A `$set` with messages starts the list over.
    let set = format!(
        r#"{{"$set":{{"messages":[{}]}}}}"#,
        call_record("m9", "c9", "success")
    );
    let p = lines(&[META, user, &call, &set]);
    let calls: Vec<&str> = p.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .filter_map(|c| c.call_id.as_deref())
        .collect();
    assert_eq!(calls, ["c9"]);
}

#[test]
fn unfinished_and_cancelled_calls() {
    let running = call_record("m1", "c1", "executing");
    let cancelled = call_record("m2", "c2", "cancelled");
    let p = lines(&[META, &running, &cancelled]);
    let t = &p.traces[0];
    assert_eq!(counts(t), c(2, 1, 1, 1));
    let r = t.steps.iter().find_map(|s| s.as_result()).unwrap();
    assert_eq!(r.error.as_deref(), Some("cancelled"));
    assert!(matches!(t.steps[0].as_call().unwrap().args, Args::Known(_)));
}

/// Acceptance 5 of issue 24: a session cut short or with its keys renamed is never a clean pass
/// with no calls.
#[test]
fn truncated_and_renamed_sessions_are_never_an_empty_pass() {
    let (_, text) = fixture("gemini-cli-0.20.2-tools.json");
    // A document cut short is not JSON: an input error.
    let (_, parsed) = parse_bytes(&text.as_bytes()[..text.len() / 2], "cut.json", None);
    assert!(!parsed.issues.is_empty());
    assert!(parsed.traces.is_empty());
    // `toolCalls` renamed (a newer CLI, say): no call is read, and that is an input error.
    let renamed = text.replace("\"toolCalls\"", "\"toolInvocations\"");
    let (format, parsed) = parse_bytes(renamed.as_bytes(), "renamed.json", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    assert_eq!(parsed.traces[0].call_count(), 0);
    assert_not_an_empty_pass(&parsed);
    let (_, text) = fixture("gemini-cli-0.40.1-tools.jsonl");
    let cut = &text[..text.len() * 2 / 3];
    let (format, parsed) = parse_bytes(cut.as_bytes(), "cut.jsonl", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    assert!(parsed.traces[0].call_count() > 0);
    let renamed = text.replace("\"toolCalls\"", "\"calls\"");
    let (_, parsed) = parse_bytes(renamed.as_bytes(), "renamed.jsonl", None);
    assert_not_an_empty_pass(&parsed);
}

/// `gemini -p … --output-format stream-json` (issue 40): read as Gemini CLI, not as Claude
/// Code's stream-json; the calls with their arguments and ids, MCP tools under the names the CLI
/// gave them, `status: error` results as errors with the text the model was given, and results
/// the stream shows no text for left unrecorded (never an empty result).
#[test]
fn stream_json_transcripts_are_gemini_cli() {
    let (parsed, text) = fixture("gemini-cli-0.61.0-stream.jsonl");
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    let t = &parsed.traces[0];
    assert_eq!(t.run_id, "4962b86f-69d6-4b91-96ed-a81ee81d52d1");
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("gemini-cli"));
    assert_eq!(t.attribute(crate::model::ATTR_MODEL), Some("gemini-2.5-pro"));
    assert_eq!(
        t.attribute(super::ATTR_STARTED),
        Some("2026-12-05T07:52:32.390Z")
    );
    let calls: Vec<(String, String, u32, u32)> = t
        .steps
        .iter()
        .filter_map(|s| s.as_call().map(|c| (s, c)))
        .map(|(s, c)| (c.name.clone(), args_text(&c.args), s.at.line, s.at.column))
        .collect();
    let want: Vec<(String, String, u32, u32)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["type"] == "tool_use").then(|| {
                let line = u32::try_from(i + 1).unwrap();
                (v["tool_name"].as_str().unwrap().to_owned(), v["parameters"].to_string(), line, 1)
            })
        })
        .collect();
    assert_eq!(calls, want);
    assert!(calls.iter().any(|c| c.0 == "mcp_everything_get-sum"));
    let results: Vec<_> = t.steps.iter().filter_map(|s| s.as_result()).collect();
    let errors: Vec<&str> = results
        .iter()
        .filter(|r| r.status == ResultStatus::Error)
        .filter_map(|r| r.error.as_deref())
        .collect();
    assert_eq!(errors[0], "params/command must be string");
    assert_eq!(errors[1], "params must have required property 'b'");
    assert!(errors[2].starts_with("File not found: /"), "{errors:?}");
    // `write_file` and `list_directory` show no text: nothing recorded, not an empty result.
    let unrecorded: Vec<bool> = results.iter().map(|r| r.content_recorded).collect();
    assert_eq!(unrecorded.iter().filter(|r| !**r).count(), 3, "{unrecorded:?}");
    // The assistant's text, sent in `delta` pieces, is one message each turn.
    let said: Vec<&str> = t
        .steps
        .iter()
        .filter_map(|s| match &s.kind {
            crate::model::StepKind::Message(m) => Some(m.content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        said,
        [
            "Create hello.txt containing hello world, after checking notes.txt and missing.txt.",
            "Reading the notes first.",
            "Created hello.txt."
        ]
    );
}

/// The same run written both ways (its session log and what `--output-format stream-json`
/// printed) gives the same calls, in the same order, with the same verdicts.
#[test]
fn a_stream_and_its_session_log_agree() {
    let (stream, _) = fixture("gemini-cli-0.61.0-stream.jsonl");
    let (session, _) = fixture("session-2026-12-05T07-52-4962b86f.jsonl");
    let calls = |p: &Parsed| -> Vec<(String, String, Option<ResultStatus>)> {
        let t = &p.traces[0];
        let pairing = crate::model::Pairing::new(t);
        t.steps
            .iter()
            .filter_map(|s| s.as_call().map(|c| (s, c)))
            .map(|(s, c)| {
                let status = pairing
                    .result_for(s.index)
                    .and_then(|i| t.steps[i].as_result())
                    .map(|r| r.status);
                (c.name.clone(), args_text(&c.args), status)
            })
            .collect()
    };
    assert_eq!(calls(&stream), calls(&session));
    assert_eq!(stream.traces[0].run_id, session.traces[0].run_id);
}

/// A line of a transcript that is no event is an input error at its line; the rest is read.
#[test]
fn a_bad_stream_line_is_an_input_error_and_the_rest_is_read() {
    let (_, text) = fixture("gemini-cli-0.40.1-stream.jsonl");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(4, r#"{"type":"tool_use","tool_id":"x","parameters":{}}"#);
    let bad = lines.join("\n");
    let (format, parsed) = parse_bytes(bad.as_bytes(), "bad.jsonl", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    assert_eq!(parsed.issues.len(), 1, "{:?}", parsed.issues);
    assert_eq!(parsed.issues[0].line, 5);
    assert!(parsed.issues[0].message.contains("tool_name"));
    assert_eq!(counts(&parsed.traces[0]), c(9, 9, 4, 0));
}

fn args_text(args: &Args) -> String {
    match args {
        Args::Known(v) => v.to_string(),
        other => format!("{other:?}"),
    }
}

/// Two runs of `gemini -p … --output-format stream-json` printed into one file (a script
/// appending each run's output): each `init` event begins a trace of its own, named by its
/// `session_id`, and every step is cited at its own line.
#[test]
fn stream_json_runs_in_one_file_are_a_trace_each() {
    let (_, first) = fixture("gemini-cli-0.40.1-stream.jsonl");
    let (_, second) = fixture("gemini-cli-0.61.0-stream.jsonl");
    let both = format!("{first}{second}");
    let (format, parsed) = parse_bytes(both.as_bytes(), "runs.jsonl", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    assert_eq!(parsed.traces.len(), 2);
    let (one, _) = fixture("gemini-cli-0.40.1-stream.jsonl");
    let (two, _) = fixture("gemini-cli-0.61.0-stream.jsonl");
    let offset = first.lines().count() as u32;
    for (got, (alone, shift)) in parsed
        .traces
        .iter()
        .zip([(&one.traces[0], 0), (&two.traces[0], offset)])
    {
        assert_eq!(got.run_id, alone.run_id);
        assert_eq!(counts(got), counts(alone));
        let lines: Vec<u32> = got.steps.iter().map(|s| s.at.line).collect();
        let want: Vec<u32> = alone.steps.iter().map(|s| s.at.line + shift).collect();
        assert_eq!(lines, want);
    }
    assert_ne!(parsed.traces[0].run_id, parsed.traces[1].run_id);
    assert_eq!(misplaced_steps(&both, &parsed.traces), Vec::<String>::new());
}

/// A session saved on one line (the `ConversationRecord` not pretty-printed) is read as the
/// pretty one is: the same trace, every step cited on line 1.
#[test]
fn a_session_written_on_one_line_reads_like_the_pretty_one() {
    let (pretty, text) = fixture("gemini-cli-0.20.2-tools.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let one = format!("{}\n", serde_json::to_string(&v).unwrap());
    let (format, parsed) = parse_bytes(one.as_bytes(), "one.json", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    assert_eq!(parsed.traces.len(), 1);
    let (a, b) = (&parsed.traces[0], &pretty.traces[0]);
    assert_eq!(a.run_id, b.run_id);
    assert_eq!(counts(a), counts(b));
    assert_eq!(counts(a), c(7, 7, 2, 0));
    let kinds = |t: &crate::model::Trace| -> Vec<String> {
        t.steps.iter().map(|s| format!("{:?}", s.kind)).collect()
    };
    assert_eq!(kinds(a), kinds(b));
    assert!(a.steps.iter().all(|s| s.at.line == 1));
    assert_eq!(misplaced_steps(&one, &parsed.traces), Vec::<String>::new());
}

/// An older release recorded an MCP tool under its bare name, the server only in its display
/// name: the call is named as newer releases name it, `mcp_<server>_<tool>`, so its server is
/// known (R7 names it in one suppression, as for Claude Code's MCP tools).
#[test]
fn a_bare_mcp_tool_name_gets_its_server() {
    let text = r##"{"sessionId":"s1","projectHash":"h","startTime":"2025-09-01T10:00:00Z","messages":[{"id":"m1","timestamp":"2025-09-01T10:00:01Z","type":"gemini","content":"","toolCalls":[{"id":"get_file_contents-1","name":"get_file_contents","args":{"owner":"o","repo":"r","path":"README.md"},"status":"success","result":[{"functionResponse":{"id":"get_file_contents-1","name":"get_file_contents","response":{"output":"# r"}}}],"displayName":"get_file_contents (github MCP Server)"}]}]}"##;
    let (format, parsed) = parse_bytes(text.as_bytes(), "s.json", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    let names: Vec<&str> = parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["mcp_github_get_file_contents"]);
}

/// A session that names its working directory only as `projectHash` (the SHA-256 of the
/// directory's path) gets it back from the absolute paths its calls name: the 0.40.1 session
/// ran in `/tmp/tracelint-session-mnf1xx9s/work` and reads `…/work/notes.txt`. A hash no call's
/// path matches gives no directory.
#[test]
fn project_hash_names_the_working_directory() {
    let (parsed, _) = fixture("gemini-cli-0.40.1-tools.jsonl");
    let dirs: Vec<&str> = parsed.traces[0]
        .context
        .iter()
        .filter(|c| c.kind == ContextKind::WorkingDirectory)
        .map(|c| c.value.as_str())
        .collect();
    assert_eq!(dirs, ["/tmp/tracelint-session-mnf1xx9s/work"]);

    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real/gemini-cli/gemini-cli-0.40.1-tools.jsonl"),
    )
    .unwrap()
    .replace(
        "96313b1cfd0962b2bdeb0ed0c18662b27fda90faf10237d4da2e5366d5e409f8",
        &"0".repeat(64),
    );
    let (_, parsed) = parse_bytes(text.as_bytes(), "s.jsonl", None);
    assert!(
        !parsed.traces[0]
            .context
            .iter()
            .any(|c| c.kind == ContextKind::WorkingDirectory),
        "{:?}",
        parsed.traces[0].context
    );
}
