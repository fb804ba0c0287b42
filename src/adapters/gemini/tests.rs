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
/// is `success`, `error` or `cancelled`, errors the last two.
const EXPECTED: &[(&str, Counts)] = &[
    ("gemini-cli-0.20.2-tools.json", c(7, 7, 2, 0)),
    ("gemini-cli-0.40.1-tools.jsonl", c(7, 7, 3, 0)),
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

/// Ids of the tool calls whose `status` is `error` or `cancelled`, in any record of the text.
fn failed_call_ids(text: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
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
