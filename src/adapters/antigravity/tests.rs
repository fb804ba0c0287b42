//! Tests of the Antigravity adapter over the hand-made step logs in `fixtures/antigravity/`
//! (they mirror the shape public readers of Antigravity's logs document; see its README):
//! a snapshot, exact counts, the verdicts (`ERROR` steps and `ERROR_MESSAGE` steps as the
//! errors of their calls), the cited lines, and the shapes a log comes in.

use crate::adapters::testing::{counted as c, counts, misplaced_steps, summary};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{ResultStatus, StepKind};

fn fixture(name: &str) -> (Parsed, String) {
    let path = format!("{}/fixtures/antigravity/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let (format, parsed) = parse_bytes(text.as_bytes(), name, None);
    assert_eq!(format, Some(InputFormat::Antigravity), "{name}");
    assert!(parsed.issues.is_empty(), "{name}: {:?}", parsed.issues);
    (parsed, text)
}

/// Each result's call id, status and error text.
fn verdicts(parsed: &Parsed) -> Vec<(String, ResultStatus, Option<String>)> {
    parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .map(|r| (r.call_id.clone().unwrap(), r.status, r.error.clone()))
        .collect()
}

#[test]
fn a_trajectory_snapshot() {
    let (parsed, _) = fixture("cascade-trajectory.json");
    insta::assert_json_snapshot!("cascade-trajectory", summary(&parsed));
}

/// Counted by reading the file: five calls announced by `plannerResponse.toolCalls`; four
/// answered by the step whose `metadata.toolCall.id` names them (one `ERROR`), one by the
/// `ERROR_MESSAGE` step that follows its turn.
#[test]
fn counts_verdicts_and_cited_lines() {
    let (parsed, text) = fixture("cascade-trajectory.json");
    assert_eq!(parsed.traces.len(), 1);
    let t = &parsed.traces[0];
    assert_eq!(t.run_id, "0b6f7c1e-2a4d-4c8e-9f3b-7d1e5a9c2b40");
    assert_eq!(counts(t), c(5, 5, 2, 0));
    assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("antigravity"));
    assert_eq!(
        t.attribute(super::ATTR_STARTED),
        Some("2026-10-02T09:14:03.512Z")
    );
    assert_eq!(
        verdicts(&parsed),
        [
            ("toolu_vrtx_01Xf3kq".to_owned(), ResultStatus::Ok, None),
            ("toolu_vrtx_01Ym7pa".to_owned(), ResultStatus::Ok, None),
            (
                "toolu_vrtx_01Zr2wd".to_owned(),
                ResultStatus::Error,
                Some("The user denied permission to run `make test`.".to_owned())
            ),
            (
                "toolu_vrtx_01Aa9te".to_owned(),
                ResultStatus::Error,
                Some("Model called an unknown tool: view_fil".to_owned())
            ),
            ("toolu_vrtx_01Bq4ns".to_owned(), ResultStatus::Ok, None),
        ]
    );
    // The call's arguments from `argumentsJson`; a file's content and a command's output are
    // the results' text.
    let call = t.steps.iter().find_map(|s| s.as_call()).unwrap();
    assert_eq!(call.name, "view_file");
    assert_eq!(
        call.args.known().unwrap()["AbsolutePath"],
        "/home/dev/shop/Makefile"
    );
    let first = t.steps.iter().find_map(|s| s.as_result()).unwrap();
    assert_eq!(first.content, "test:\n\tpython -m pytest -q tests\n");
}

/// The same steps one a line: the same calls and verdicts, each at its own line.
#[test]
fn steps_one_a_line() {
    let (parsed, text) = fixture("steps.jsonl");
    let t = &parsed.traces[0];
    assert_eq!(counts(t), c(3, 3, 1, 0));
    assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
    let lines: Vec<(bool, u32)> = t
        .steps
        .iter()
        .filter(|s| !matches!(s.kind, StepKind::Message(_)))
        .map(|s| (s.as_call().is_some(), s.at.line))
        .collect();
    assert_eq!(
        lines,
        [(true, 2), (true, 2), (false, 3), (false, 4), (true, 5), (false, 6)]
    );
}

/// A log that kept only the tool steps: each step's `metadata.toolCall` is its call. A step
/// still waiting for the user's approval has no result yet; an `ERROR_MESSAGE` with no call
/// to answer is a note about the run.
#[test]
fn tool_steps_alone_waiting_steps_and_run_errors() {
    let text = concat!(
        r#"{"steps":["#,
        r#"{"type":"CORTEX_STEP_TYPE_RUN_COMMAND","status":"CORTEX_STEP_STATUS_DONE","metadata":{"toolCall":{"id":"a","name":"run_command","argumentsJson":"{\"CommandLine\":\"ls\"}"}},"runCommand":{"commandLine":"ls","exitCode":0,"combinedOutput":{"full":"src\n"}}},"#,
        r#"{"type":"CORTEX_STEP_TYPE_RUN_COMMAND","status":"CORTEX_STEP_STATUS_WAITING","metadata":{"toolCall":{"id":"b","name":"run_command","argumentsJson":"{\"CommandLine\":\"rm -rf build\"}"}},"runCommand":{"commandLine":"rm -rf build"}},"#,
        r#"{"type":"CORTEX_STEP_TYPE_ERROR_MESSAGE","status":"CORTEX_STEP_STATUS_DONE","errorMessage":{"error":{"shortError":"model quota exceeded"}}}"#,
        "]}"
    );
    let (format, parsed) = parse_bytes(text.as_bytes(), "steps.json", None);
    assert_eq!(format, Some(InputFormat::Antigravity));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    let t = &parsed.traces[0];
    assert_eq!(counts(t), c(2, 1, 0, 1));
    let out = t.steps.iter().find_map(|s| s.as_result()).unwrap();
    assert_eq!(out.content, "src\n");
    assert_eq!(
        t.attributes
            .iter()
            .filter(|(k, _)| k == crate::model::ATTR_NOTE)
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>(),
        ["the agent reported an error: model quota exceeded"]
    );
}

/// Records that are not steps are input errors at their place; the rest is read.
#[test]
fn a_bad_step_is_an_issue_and_the_rest_is_read() {
    let text = concat!(
        r#"{"type":"CORTEX_STEP_TYPE_PLANNER_RESPONSE","status":"CORTEX_STEP_STATUS_DONE","plannerResponse":{"toolCalls":[{"id":"x","name":"list_dir","argumentsJson":"{}"},{"id":"y"}]}}"#,
        "\n",
        r#"{"type":"CORTEX_STEP_TYPE_LIST_DIRECTORY","status":"CORTEX_STEP_STATUS_DONE","metadata":{"toolCall":{"id":"x","name":"list_dir"}},"listDirectory":{"results":[]}}"#,
        "\n",
        r#"{"type":7}"#,
        "\n"
    );
    let (format, parsed) = parse_bytes(text.as_bytes(), "s.jsonl", None);
    assert_eq!(format, Some(InputFormat::Antigravity));
    let issues: Vec<String> = parsed.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        issues,
        [
            "s.jsonl:1:162: an Antigravity tool call needs a string `name`",
            "s.jsonl:3:1: not an Antigravity step: expected an object with a string `type`",
        ]
    );
    assert_eq!(counts(&parsed.traces[0]), c(1, 1, 0, 0));
    assert!(parsed.traces[0].partial);
}

#[test]
fn payload_keys_are_the_types_in_camel_case() {
    assert_eq!(super::payload_key("RUN_COMMAND"), "runCommand");
    assert_eq!(super::payload_key("VIEW_FILE_OUTLINE"), "viewFileOutline");
    assert_eq!(super::payload_key("GENERIC"), "generic");
}
