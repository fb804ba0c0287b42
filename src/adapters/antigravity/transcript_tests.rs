//! Tests of Antigravity's conversation transcripts over the hand-made
//! `fixtures/antigravity/transcript.jsonl` (invented content in the shape of the
//! `transcript.jsonl` files Antigravity writes beside a conversation): a snapshot, exact counts
//! and verdicts counted by reading the file, the pairing of a result written before its turn,
//! arguments written as JSON text, and records that are not steps.

use serde_json::json;

use crate::adapters::testing::{counted as c, counts, misplaced_steps, summary};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{ResultStatus, Role, StepKind};

fn fixture() -> (Parsed, String) {
    let path = format!(
        "{}/fixtures/antigravity/transcript.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let (format, parsed) = parse_bytes(text.as_bytes(), "transcript.jsonl", None);
    assert_eq!(format, Some(InputFormat::Antigravity));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    (parsed, text)
}

#[test]
fn a_transcript_snapshot() {
    let (parsed, _) = fixture();
    insta::assert_json_snapshot!("transcript", summary(&parsed));
}

/// Counted by reading the file: seven calls in the `tool_calls` of six turns; each answered
/// (the `write_to_file` call by the `ERROR_MESSAGE` after its turn); three errors (a command
/// that exited 1, the call the agent could not parse, an edit step in `ERROR`); the command
/// moved to the background has an answer with no verdict.
#[test]
fn calls_results_and_verdicts() {
    let (parsed, text) = fixture();
    let t = &parsed.traces[0];
    assert_eq!(counts(t), c(7, 7, 3, 0));
    assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
    let calls: Vec<(&str, u32)> = t
        .steps
        .iter()
        .filter_map(|s| s.as_call().map(|c| (c.name.as_str(), s.at.line)))
        .collect();
    assert_eq!(
        calls,
        [
            ("list_dir", 4),
            ("view_file", 4),
            ("run_command", 8),
            ("write_to_file", 10),
            ("grep_search", 13),
            ("replace_file_content", 16),
            ("run_command", 18),
        ]
    );
    let pairing = crate::model::Pairing::new(t);
    let verdicts: Vec<(String, u32, ResultStatus, Option<String>)> = t
        .steps
        .iter()
        .filter(|s| s.as_result().is_some())
        .map(|s| {
            let r = s.as_result().unwrap();
            let call = &t.steps[pairing.call_for(s.index).unwrap()];
            (
                call.as_call().unwrap().name.clone(),
                s.at.line,
                r.status,
                r.error.clone(),
            )
        })
        .collect();
    let e = |s: &str| Some(s.to_owned());
    assert_eq!(
        verdicts,
        [
            ("list_dir".into(), 5, ResultStatus::Ok, None),
            ("view_file".into(), 6, ResultStatus::Ok, None),
            ("run_command".into(), 9, ResultStatus::Error, e("exit code 1")),
            (
                "write_to_file".into(),
                11,
                ResultStatus::Error,
                e("There was a problem parsing the tool call.\nError Message: model output error: invalid tool call error (invalid_args) CodeContent is a required parameter.")
            ),
            // Written on line 12, before the turn (line 13) that asked for it.
            ("grep_search".into(), 12, ResultStatus::Ok, None),
            (
                "replace_file_content".into(),
                17,
                ResultStatus::Error,
                e("the step ended in an error")
            ),
            ("run_command".into(), 19, ResultStatus::Unknown, None),
        ]
    );
    // What the model was shown is the result's text.
    let view = t.steps.iter().filter_map(|s| s.as_result()).nth(1).unwrap();
    assert!(view.content.as_str().unwrap().contains("items[1:]"));
    // The overloaded model after a turn with no call is a note about the run.
    assert_eq!(
        t.attributes
            .iter()
            .filter(|(k, _)| k == crate::model::ATTR_NOTE)
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>(),
        ["the agent reported an error: The model API is currently overloaded."]
    );
    assert_eq!(t.attribute(super::ATTR_STARTED), Some("2026-09-14T10:00:00Z"));
}

/// A file the user opened is a user message, not a call; system reminders are system messages.
#[test]
fn user_actions_and_system_steps_are_messages() {
    let (parsed, _) = fixture();
    let t = &parsed.traces[0];
    let roles = |role: Role| -> Vec<u32> {
        t.steps
            .iter()
            .filter(|s| matches!(&s.kind, StepKind::Message(m) if m.role == role))
            .map(|s| s.at.line)
            .collect()
    };
    assert_eq!(roles(Role::User), [1, 14, 15]);
    assert_eq!(roles(Role::System), [3, 7, 20]);
    assert_eq!(roles(Role::Assistant), [8, 16, 23]);
}

/// A release that writes each argument as JSON text: the values it spells.
#[test]
fn arguments_written_as_json_text_are_read_as_values() {
    let (parsed, _) = fixture();
    let t = &parsed.traces[0];
    let edit = t
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .find(|c| c.name == "replace_file_content")
        .unwrap();
    assert_eq!(
        edit.args.known().unwrap(),
        &json!({"TargetFile": "/home/dev/prices/report.py", "StartLine": 2, "EndLine": 2,
                "TargetContent": "items[1:]", "ReplacementContent": "items",
                "AllowMultiple": false})
    );
    // Values as recorded elsewhere stay as they are, even when one would parse as JSON.
    let as_is = |v: serde_json::Value| -> serde_json::Value {
        super::transcript::decoded(v.as_object().unwrap().clone()).into()
    };
    let plain = json!({"CommandLine": "ls", "DurationSeconds": "30"});
    assert_eq!(as_is(plain.clone()), plain);
    let numbers_only = json!({"DurationSeconds": "30"});
    assert_eq!(as_is(numbers_only.clone()), numbers_only);
    // A value the log cut short is kept as written; the others are decoded.
    let cut = json!({"TargetFile": "\"/a.py\"", "CodeContent": "\"def f(:"});
    assert_eq!(
        as_is(cut),
        json!({"TargetFile": "/a.py", "CodeContent": "\"def f(:"})
    );
}

/// Records that are not steps are input errors at their line and column; the rest is read.
#[test]
fn bad_records_are_issues_and_the_rest_is_read() {
    let text = concat!(
        r#"{"step_index":0,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","tool_calls":[{"name":"list_dir","args":{"DirectoryPath":"/src"}},{"args":{}}]}"#,
        "\n",
        r#"{"step_index":1,"source":"MODEL","type":"LIST_DIRECTORY","status":"DONE","content":"a.py"}"#,
        "\n",
        r#"{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","tool_calls":{"name":"x"}}"#,
        "\n",
        "a line cut from the one before\n",
        r#"{"step_index":3,"source":"MODEL","type":7}"#,
        "\n",
    );
    let (format, parsed) = parse_bytes(text.as_bytes(), "t.jsonl", None);
    assert_eq!(format, Some(InputFormat::Antigravity));
    let issues: Vec<String> = parsed.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        issues,
        [
            "t.jsonl:1:142: an Antigravity tool call needs a string `name`",
            "t.jsonl:3:89: an Antigravity turn's `tool_calls` must be a list",
            "t.jsonl:4:1: invalid JSON: expected value",
            "t.jsonl:5:1: not an Antigravity transcript step: expected an object with a string `type`",
        ]
    );
    let t = &parsed.traces[0];
    assert_eq!(counts(t), c(1, 1, 0, 0));
    assert!(t.partial);
}

/// A transcript kept in its conversation's folder is named by it.
#[test]
fn the_conversation_folder_names_the_trace() {
    assert_eq!(
        super::shape::brain_id("/home/u/.gemini/antigravity/brain/4f1c-77/.system_generated/logs/transcript.jsonl"),
        Some("4f1c-77".to_owned())
    );
    assert_eq!(
        super::shape::brain_id(r"C:\Users\u\.gemini\antigravity\brain\4f1c-77\.system_generated\logs\transcript_full.jsonl"),
        Some("4f1c-77".to_owned())
    );
    assert_eq!(super::shape::brain_id("logs/transcript.jsonl"), None);
}

/// A step answers a call of the turn just before it only: a call whose step never came stays
/// unanswered, and a later step of its type is not read as its result. A tool not in the list
/// of known step types (`manage_task`) is answered by the step that follows it.
#[test]
fn steps_answer_the_current_turn_only() {
    let step = |i: u32, kind: &str, rest: &str| {
        format!(r#"{{"step_index":{i},"source":"MODEL","type":"{kind}","status":"DONE"{rest}}}"#)
    };
    let call = |name: &str| format!(r#","tool_calls":[{{"name":"{name}","args":{{"x":"1 2"}}}}]"#);
    let text = [
        step(0, "PLANNER_RESPONSE", &call("grep_search")),
        step(2, "PLANNER_RESPONSE", &call("manage_task")),
        step(3, "GENERIC", r#","content":"task list updated""#),
        step(4, "GREP_SEARCH", r#","content":"late""#),
    ]
    .join("\n");
    let (format, parsed) = parse_bytes(text.as_bytes(), "t.jsonl", None);
    assert_eq!(format, Some(InputFormat::Antigravity));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    let t = &parsed.traces[0];
    assert_eq!(counts(t), c(2, 1, 0, 1));
    let pairing = crate::model::Pairing::new(t);
    let answered: Vec<&str> = t
        .steps
        .iter()
        .filter(|s| pairing.result_for(s.index).is_some())
        .filter_map(|s| s.as_call().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(answered, ["manage_task"]);
}
