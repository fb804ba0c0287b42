//! Tests of the Codex adapter over the real rollouts in `fixtures/real/codex/` (written by Codex
//! CLI 0.47.0 and 0.171.0 driven by a scripted fake model, see `scripts/make-session`):
//! snapshots of the model, exact counts, error results at the records that say so, cited lines
//! that hold their step, and the truncated and renamed variants that must never pass as empty.

use serde_json::Value;

use crate::adapters::testing::{
    Counts, assert_not_an_empty_pass, counted as c, counts, misplaced_steps, parse_path,
    repo_fixture, repo_real_files, summary,
};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{Args, ContextKind, ResultStatus};

fn fixture(name: &str) -> (Parsed, String) {
    repo_fixture("codex", name, InputFormat::Codex)
}

#[test]
fn real_rollouts_snapshot() {
    for path in repo_real_files("codex") {
        let (format, parsed, _) = parse_path(&path);
        assert_eq!(format, Some(InputFormat::Codex), "{}", path.display());
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_json_snapshot!(name, summary(&parsed));
    }
}

/// (file, counts, lines of the error results). Counted by an independent script over the raw
/// records: calls are `function_call` / `custom_tool_call` items, results their outputs, errors
/// the outputs whose JSON `metadata.exit_code` is not 0 or whose call an `item_completed`
/// command reports a non-zero `exit_code` for.
const EXPECTED: &[(&str, Counts, &[u32])] = &[
    ("codex-0.171.0-exec-command.jsonl", c(8, 8, 1, 0), &[28]),
    // `codex exec --json`: calls are the tool items (`command_execution`, `file_change`,
    // `mcp_tool_call`, `web_search`), results their `item.completed` events, errors those whose
    // `status` is `failed` or whose `exit_code` is not 0. The calls Codex refused print no item.
    ("codex-0.171.0-exec-json.jsonl", c(6, 6, 2, 0), &[7, 13]),
    ("codex-0.47.0-mcp.jsonl", c(5, 5, 0, 0), &[]),
    ("codex-0.47.0-shell-plan.jsonl", c(8, 8, 1, 0), &[26]),
];

#[test]
fn counts_and_error_lines_hold_exactly() {
    let files = repo_real_files("codex");
    assert_eq!(files.len(), EXPECTED.len());
    for (name, want, error_lines) in EXPECTED {
        let (parsed, text) = fixture(name);
        assert_eq!(parsed.traces.len(), 1, "{name}: one rollout, one trace");
        let t = &parsed.traces[0];
        assert_eq!(counts(t), *want, "{name}");
        let errors: Vec<u32> = t
            .steps
            .iter()
            .filter(|s| {
                s.as_result()
                    .is_some_and(|r| r.status == ResultStatus::Error)
            })
            .map(|s| s.at.line)
            .collect();
        assert_eq!(errors, *error_lines, "{name}");
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        // The session id names the trace.
        let id = name.rsplit('-').next().unwrap_or_default();
        assert!(!id.is_empty());
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        let id = first["payload"]["id"].as_str().or(first["thread_id"].as_str());
        assert_eq!(t.run_id, id.unwrap());
    }
}

#[test]
fn the_session_says_which_cli_model_and_directory() {
    let (parsed, _) = fixture("codex-0.171.0-exec-command.jsonl");
    let t = &parsed.traces[0];
    assert_eq!(t.attribute(super::ATTR_CLI_VERSION), Some("0.171.0"));
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("codex"));
    assert_eq!(t.attribute(super::ATTR_MODEL), Some("gpt-5.5"));
    let cwd: Vec<&str> = t
        .context
        .iter()
        .filter(|c| c.kind == ContextKind::WorkingDirectory)
        .map(|c| c.value.as_str())
        .collect();
    assert_eq!(cwd.len(), 1);
    assert!(cwd[0].ends_with("/work"), "{cwd:?}");
    let (parsed, _) = fixture("codex-0.47.0-shell-plan.jsonl");
    let t = &parsed.traces[0];
    assert_eq!(t.attribute(super::ATTR_CLI_VERSION), Some("0.47.0"));
    assert_eq!(t.attribute(super::ATTR_MODEL), Some("gpt-5-codex"));
}

#[test]
fn a_free_form_patch_is_text_and_a_broken_argument_string_is_malformed() {
    let (parsed, _) = fixture("codex-0.171.0-exec-command.jsonl");
    let calls: Vec<_> = parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .collect();
    let patch = calls.iter().find(|c| c.name == "apply_patch").unwrap();
    match &patch.args {
        Args::Known(Value::String(s)) => assert!(s.starts_with("*** Begin Patch"), "{s}"),
        other => panic!("{other:?}"),
    }
    assert!(patch.raw_args.is_none());
    let broken = calls
        .iter()
        .find(|c| matches!(c.args, Args::Malformed(_)))
        .unwrap();
    assert_eq!(broken.raw_args.as_deref(), Some("{\"cmd\": \"echo hi\""));
}

#[test]
fn exit_codes_are_read_from_structured_records_only() {
    // 0.47: `{"output", "metadata": {"exit_code"}}` outputs; exit 0 is ok.
    let (parsed, _) = fixture("codex-0.47.0-shell-plan.jsonl");
    let t = &parsed.traces[0];
    let ok = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .filter(|r| r.status == ResultStatus::Ok)
        .count();
    assert_eq!(ok, 3, "two shell runs and a patch exited 0");
    let failed = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .find(|r| r.status == ResultStatus::Error)
        .unwrap();
    assert_eq!(failed.error.as_deref(), Some("exit code 1"));
    // 0.171: plain-text outputs ("Process exited with code 1" is text): the status comes from
    // the `item_completed` command item, and outputs no record judges stay unknown.
    let (parsed, _) = fixture("codex-0.171.0-exec-command.jsonl");
    let statuses: Vec<ResultStatus> = parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .map(|r| r.status)
        .collect();
    use ResultStatus::{Error, Ok, Unknown};
    assert_eq!(
        statuses,
        [Ok, Unknown, Unknown, Error, Ok, Unknown, Unknown, Unknown]
    );
}

#[test]
fn mcp_end_events_give_a_verdict_and_stand_for_unrecorded_calls() {
    let text = concat!(
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.60.0"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"docs__search","arguments":"{\"q\":\"x\"}","call_id":"c1"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c1","invocation":{"server":"docs","tool":"search","arguments":{"q":"x"}},"result":{"Ok":{"content":[{"type":"text","text":"boom"}],"isError":true}}}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"boom"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c2","invocation":{"server":"docs","tool":"get","arguments":{"id":7}},"result":{"Err":"tool call failed: timeout"}}}"#,
        "\n",
    );
    let (format, parsed) = parse_bytes(text.as_bytes(), "r.jsonl", None);
    assert_eq!(format, Some(InputFormat::Codex));
    let t = &parsed.traces[0];
    insta::assert_snapshot!(crate::adapters::testing::snapshot::render(&parsed.traces, &parsed.issues), @r#"
    trace s (4 steps, 2 calls)
      attribute agent = codex
      attribute codex_cli_version = 0.60.0
      attribute agent_version = 0.60.0
        0 @2:51 /payload call docs__search id=c1 origin=Model args=known {"q":"x"}
        1 @4:51 /payload result id=c1 status=Error: boom
        2 @5:47 /payload call docs__get id=c2 origin=ToolRecord args=known {"id":7}
        3 @5:47 /payload result id=c2 status=Error error=tool call failed: timeout: tool call failed: timeout
    "#);
    assert_eq!(t.context.len(), 1);
}

#[test]
fn a_namespaced_mcp_tool_gets_its_full_name() {
    let text = concat!(
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.125.0"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"_fetch_pr","namespace":"mcp__codex_apps__github","arguments":"{\"pr_number\":13}","call_id":"c1"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"c1","invocation":{"server":"codex_apps","tool":"github_fetch_pr","arguments":{"pr_number":13}},"result":{"Ok":{"content":[{"type":"text","text":"{}"}]}}}}"#,
        "\n",
    );
    let (_, parsed) = parse_bytes(text.as_bytes(), "r.jsonl", None);
    let names: Vec<&str> = parsed.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["mcp__codex_apps__github_fetch_pr"]);
}

/// Acceptance 5 of issue 24: a rollout cut short or with its keys renamed is never a clean
/// pass with no calls.
#[test]
fn truncated_and_renamed_rollouts_are_never_an_empty_pass() {
    let (_, text) = fixture("codex-0.47.0-shell-plan.jsonl");
    // Cut in the middle of a line: the partial line is an input error, the rest is read.
    let cut = &text[..text.len() / 2];
    let (format, parsed) = parse_bytes(cut.as_bytes(), "cut.jsonl", None);
    assert_eq!(format, Some(InputFormat::Codex));
    assert!(parsed.traces[0].call_count() > 0);
    // `payload` renamed: nothing reads as a call, and that is an input error.
    let renamed = text.replace("\"payload\":", "\"body\":");
    let (_, parsed) = parse_bytes(renamed.as_bytes(), "renamed.jsonl", None);
    assert!(
        !parsed.issues.is_empty(),
        "a renamed rollout yielded {} traces and no issue",
        parsed.traces.len()
    );
    // `function_call` items renamed: the file still looks like a session with tool calls.
    let renamed = text
        .replace("\"type\":\"function_call\"", "\"type\":\"tool_invocation\"")
        .replace(
            "\"type\":\"custom_tool_call\"",
            "\"type\":\"tool_invocation\"",
        );
    let (format, parsed) = parse_bytes(renamed.as_bytes(), "renamed.jsonl", None);
    assert_eq!(format, Some(InputFormat::Codex));
    assert_eq!(
        parsed.traces.iter().map(|t| t.call_count()).sum::<usize>(),
        0
    );
    assert_not_an_empty_pass(&parsed);
}

/// The rollouts of the CLI's first releases (issue 40): a header `{id, timestamp,
/// instructions, git}`, `{"record_type": "state"}` lines and items with no envelope are read as
/// Codex CLI, with no input error (they were read as OpenAI items, an error on every other
/// line).
#[test]
fn first_release_rollouts_are_codex() {
    let text = [
        r#"{"id":"cf4def41","timestamp":"2025-09-10T18:58:38.331Z","instructions":"be brief","git":{"branch":"main"}}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}"#,
        r#"{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"a\\nb\",\"metadata\":{\"exit_code\":0}}"}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a and b"}]}"#,
    ]
    .join("\n");
    let (format, p) = crate::adapters::parse_bytes(text.as_bytes(), "rollout.jsonl", None);
    assert_eq!(format, Some(crate::adapters::InputFormat::Codex));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let t = &p.traces[0];
    assert_eq!(t.run_id, "cf4def41");
    assert_eq!(crate::adapters::testing::counts(t), crate::adapters::testing::counted(1, 1, 0, 0));
    assert_eq!(t.steps[1].at.line, 5);
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("codex"));
}

#[test]
fn exec_json_runs_printed_into_one_file_are_a_trace_each_and_name_no_agent() {
    let (_, text) = fixture("codex-0.171.0-exec-json.jsonl");
    let twice = format!("{text}{text}");
    let (format, parsed) = parse_bytes(twice.as_bytes(), "runs.jsonl", None);
    assert_eq!(format, Some(InputFormat::Codex));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    assert_eq!(parsed.traces.len(), 2);
    let lines = text.lines().count() as u32;
    for (i, t) in parsed.traces.iter().enumerate() {
        assert_eq!(counts(t), c(6, 6, 2, 0));
        // The second run's steps are cited at its own lines.
        let first_call = t.steps.iter().find(|s| s.as_call().is_some()).unwrap();
        assert_eq!(first_call.at.line, 4 + i as u32 * lines);
        // The command as the argv Codex ran (its printed form splits back exactly).
        let args = first_call.as_call().unwrap().args.known().unwrap();
        assert_eq!(
            args,
            &serde_json::json!({"command": ["/bin/bash", "-lc", "ls notes.txt"]})
        );
        // Its calls are what Codex ran, not what the model sent: no built-in schemas judge them.
        assert_eq!(t.attribute(crate::model::ATTR_AGENT), None);
    }
}

#[test]
fn exec_json_of_the_first_releases_names_items_by_item_type() {
    let text = concat!(
        r#"{"type":"thread.started","thread_id":"t1"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","item_type":"assistant_message","text":"Checking."}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_1","item_type":"command_execution","command":"bash -lc 'git diff --stat'","aggregated_output":"","exit_code":128,"status":"failed"}}"#,
        "\n",
        r#"{"type":"item.started","item":{"id":"item_2","item_type":"command_execution","command":"bash -lc 'sleep 100'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        "\n",
        r#"{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}"#,
        "\n",
    );
    let (format, parsed) = parse_bytes(text.as_bytes(), "old.jsonl", None);
    assert_eq!(format, Some(InputFormat::Codex));
    let t = &parsed.traces[0];
    assert_eq!(t.run_id, "t1");
    // A command that never completed is a call with no result.
    assert_eq!(counts(t), c(2, 1, 1, 1));
    let r = t.steps.iter().find_map(|s| s.as_result()).unwrap();
    assert_eq!(r.error.as_deref(), Some("exit code 128"));
    assert!(
        t.attributes
            .iter()
            .any(|(k, v)| k == "note" && v.contains("stream disconnected")),
        "{:?}",
        t.attributes
    );
}

#[test]
fn a_call_the_router_has_no_handler_for_is_an_error_result() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real/builtin-drift/codex/codex-0.171.0-drift.jsonl");
    let (_, parsed, _) = parse_path(&path);
    let t = &parsed.traces[0];
    let id = t
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .find(|c| c.name == "frobnicate")
        .and_then(|c| c.call_id.clone())
        .unwrap();
    let r = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .find(|r| r.call_id.as_deref() == Some(id.as_str()))
        .unwrap();
    assert_eq!(r.status, ResultStatus::Error);
    assert_eq!(r.error.as_deref(), Some("unsupported call: frobnicate"));
}
