//! Tests of `outcome` (kept apart to keep the module short).
use super::*;
use crate::model::{CallOrigin, SchemaSource};
use serde_json::json;

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall {
        call_id: Some("1".into()),
        name: name.into(),
        args: Args::Known(args),
        raw_args: None,
        origin: CallOrigin::Model,
    }
}

fn result(content: Value, status: ResultStatus) -> ToolResult {
    ToolResult::new(Some("1".into()), content, status)
}

#[test]
fn an_exit_code_read_from_events_is_the_one_the_tree_gives() {
    for text in [
        r#"{"exit_code": 0, "stdout": ""}"#,
        r#"  {"returncode": 2, "note": "return request"}"#,
        r#"{"\u0065xit_code": 1}"#,
        r#"{"exitCode": 1, "stderr": " "}"#,
        r#"{"note": "return exit", "exit": 1, "return": 0}"#,
        r#"{"note": "\"exit_code\": 3"}"#,
        r#"{"exit_status": 130"#,
        r#"{"exit_code": 1, "exit_code": 0, "stdout": {"x": 1}}"#,
        r#"{"exit_code": {"a": 1}, "returncode": 5, "output": "  "}"#,
        r#"{"nested": {"exit_code": 1}}"#,
        r#"{"exit_code": 1.0}"#,
        r#"[{"exit_code": 1}]"#,
        "Exit code 1",
        "\n  Exit code 2\nmore",
        "{ not json, Exit code 1",
        r#"{"output":"","metadata":{"exit_code":1,"duration_seconds":0.0}}"#,
        r#"{"output":"x","metadata":{"exit_code":0},"exit_code":2}"#,
        r#"{"metadata": "exit_code 1"}"#,
        "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 1\nOutput:\n",
        "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n",
        "Process exited with code 1 but no output header",
    ] {
        let r = result(json!(text), ResultStatus::Unknown);
        let direct = exit_code(r.structured());
        let fresh = result(json!(text), ResultStatus::Unknown);
        assert_eq!(result_exit_code(&fresh), direct, "{text:?}");
    }
}

#[test]
fn shell_conventions_are_not_failures() {
    let grep = call("Bash", json!({"command": "cd src && grep -rn foo ."}));
    let r = result(json!("Exit code 1"), ResultStatus::Error);
    assert!(matches!(
        classify(&r, Some(&grep), None, None),
        Outcome::Fine(_)
    ));
    // With output, exit 1 of a search is not the convention.
    let r = result(
        json!("Exit code 1\ngrep: x: No such file"),
        ResultStatus::Error,
    );
    assert!(classify(&r, Some(&grep), None, None).failed());
    // Exit 1 of anything else is whatever the status says.
    let make = call("Bash", json!({"command": "make"}));
    let r = result(json!("Exit code 1"), ResultStatus::Error);
    assert!(classify(&r, Some(&make), None, None).failed());
    let xargs = call(
        "bash",
        json!({"command": "find . -name '*.rs' | xargs grep -l foo"}),
    );
    let r = result(
        json!({"exit_code": 123, "stdout": "a.rs"}),
        ResultStatus::Error,
    );
    assert!(!classify(&r, Some(&xargs), None, None).failed());
    let keys = call("send_keys", json!({"keys": "C-c"}));
    let r = result(json!("Exit code 130"), ResultStatus::Error);
    let wait = call("bash", json!({"command": "tail -f log"}));
    assert!(!classify(&r, Some(&wait), None, Some(&keys)).failed());
    assert!(classify(&r, Some(&wait), None, None).failed());
    // Codex CLI: the exit status inside `metadata`, or in the header above the output.
    let rg = call(
        "shell",
        json!({"command": ["bash", "-lc", "rg -n nothing src"]}),
    );
    let quiet = json!(r#"{"output":"","metadata":{"exit_code":1,"duration_seconds":0.0}}"#);
    assert!(!classify(&result(quiet, ResultStatus::Error), Some(&rg), None, None).failed());
    let noisy = json!(r#"{"output":"rg: src: No such file","metadata":{"exit_code":1}}"#);
    assert!(classify(&result(noisy, ResultStatus::Error), Some(&rg), None, None).failed());
    let exec = call("exec_command", json!({"cmd": "grep -n nothing notes.txt"}));
    let header =
        json!("Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 1\nOutput:\n");
    assert!(
        !classify(
            &result(header, ResultStatus::Error),
            Some(&exec),
            None,
            None
        )
        .failed()
    );
    let r = result(json!("Exit code 0\nok"), ResultStatus::Unknown);
    assert_eq!(
        classify(&r, Some(&make), None, None),
        Outcome::Fine("exit code 0")
    );
}

#[test]
fn failure_when_is_read_even_on_an_ok_status() {
    let mut spec = ToolSpec::new("charge", None, SchemaSource("t".into()));
    spec.metadata.failure_when = Some(
        crate::sources::file::parse_failure_when(
            &json!({"pointer": "/status", "in": ["declined"]}),
        )
        .unwrap(),
    );
    let c = call("charge", json!({}));
    let declined = result(json!({"status": "declined"}), ResultStatus::Ok);
    assert!(matches!(
        classify(&declined, Some(&c), Some(&spec), None),
        Outcome::DeclaredFailure(_)
    ));
    let fine = result(json!({"status": "ok"}), ResultStatus::Unknown);
    assert!(matches!(
        classify(&fine, Some(&c), Some(&spec), None),
        Outcome::Fine(_)
    ));
    let absent = result(json!({"other": 1}), ResultStatus::Unknown);
    assert_eq!(
        classify(&absent, Some(&c), Some(&spec), None),
        Outcome::Unknown {
            declared_absent: Some("/status".into())
        }
    );
}

#[test]
fn structured_errors_name_their_detail() {
    let mut r = result(json!("busy"), ResultStatus::Error);
    r.http_status = Some(503);
    assert_eq!(
        classify(&r, None, None, None),
        Outcome::Error("HTTP 503".into())
    );
    let mut lost = result(Value::Null, ResultStatus::Unknown);
    lost.content_recorded = false;
    assert_eq!(classify(&lost, None, None, None), Outcome::NotRecorded);
}

#[test]
fn quoted_separators_pi_trailers_and_comparisons_follow_the_conventions() {
    let fine = |name: &str, command: &str, text: &str| {
        let c = call(name, json!({"command": command}));
        let r = result(json!(text), ResultStatus::Error);
        matches!(classify(&r, Some(&c), None, None), Outcome::Fine(_))
    };
    let codex_empty = "Chunk ID: d1\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 0\nOutput:\n";
    // A `|` inside the pattern's quotes does not end the command: it is still an `rg`.
    assert!(fine("exec_command", "rg -n '(^name: wat|# Wat|Wat:)' SKILL.md", codex_empty));
    assert!(!fine("exec_command", "cargo test 'a|b'", codex_empty));
    // pi writes the exit status after the output; an empty output is `(no output)`.
    assert!(fine("bash", "grep -n foo src/a.ts", "(no output)\n\nCommand exited with code 1"));
    assert!(fine("bash", "grep -n foo src/a.ts | grep bar", "Command exited with code 1"));
    assert!(!fine(
        "bash",
        "grep foo missing.ts",
        "grep: missing.ts: No such file or directory\n\n\nCommand exited with code 2"
    ));
    assert!(!fine("bash", "go test ./...", "FAIL x\n\nCommand exited with code 1"));
    assert_eq!(
        exit_code(&json!("some output\n\nCommand exited with code 1")),
        Some((1, false))
    );
    // A comparison's exit 1 says the inputs differ, with or without the difference shown.
    assert!(fine("exec_command", "git diff --no-index /dev/null a.md", codex_empty));
    assert!(fine(
        "exec_command",
        "git diff --no-index /dev/null a.md",
        "Process exited with code 1\nOutput:\ndiff --git a/a.md b/a.md\n"
    ));
    assert!(fine("Bash", "diff -u a b", "Exit code 1\n--- a\n+++ b"));
    assert!(!fine("Bash", "git diff HEAD", "Exit code 1\nfatal: bad revision"));
}
