//! Tests of the per-trace linter and the report builder.

use super::*;
use crate::finding::{RuleId, Tier};
use crate::adapters::{InputFormat, parse_bytes};

#[test]
fn excerpts_past_the_budget_are_left_out_with_a_note() {
    // Three calls of an unknown tool: three R7 findings with one excerpt each.
    let text = br#"{"run_id": "x", "steps": [
        {"type": "tool_call", "call_id": "a", "name": "nope", "args": {"q": "first"}},
        {"type": "tool_call", "call_id": "b", "name": "nope", "args": {"q": "second"}},
        {"type": "tool_call", "call_id": "c", "name": "nope", "args": {"q": "third"}}]}"#;
    let (_, parsed) = parse_bytes(text, "t.json", Some(InputFormat::Native));
    let registry = crate::sources::file::parse_tools_str(
        r#"{"tools": [{"name": "known"}]}"#,
        "tools.json",
    )
    .unwrap();
    // Only R7, so the test does not depend on what other rules say about these calls.
    let linter = Linter::new(
        Some(registry),
        crate::rules::Selection::new(&[RuleId::R7], &[]),
        RuleSettings::default(),
    );
    let mut builder = ReportBuilder::new().with_excerpt_budget(40);
    let input = builder.input("t.json");
    builder.trace(input, linter.lint(&parsed.traces[0]));
    let report = builder.finish(Tier::HardDefect, &[]);
    let excerpts: Vec<&str> = report
        .findings
        .iter()
        .flat_map(|f| f.evidence.iter().map(|e| e.excerpt.as_str()))
        .collect();
    assert_eq!(
        excerpts,
        [r#"nope {"q":"first"}"#, r#"nope {"q":"second"}"#, ""]
    );
    assert_eq!(
        report.inputs[0].notes,
        ["evidence excerpts past the report's limit of 40 bytes are left out"]
    );
}

/// A Gemini CLI session (started `started`) whose calls are `calls`: (tool, arguments, status,
/// what the CLI answered), linted with no `--tools`.
fn lint_gemini(started: &str, calls: &[(&str, serde_json::Value, &str, &str)]) -> TraceLint {
    let tool_calls: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args, status, answer))| {
            let response = if *status == "error" {
                serde_json::json!({"error": answer})
            } else {
                serde_json::json!({"output": answer})
            };
            serde_json::json!({
                "id": format!("c{i}"), "name": name, "args": args, "status": status,
                "result": [{"functionResponse": {"id": format!("c{i}"), "name": name, "response": response}}],
                "timestamp": started,
            })
        })
        .collect();
    let session = serde_json::json!({
        "sessionId": "s", "projectHash": "p", "startTime": started, "lastUpdated": started,
        "messages": [
            {"id": "u", "timestamp": started, "type": "user", "content": "go"},
            {"id": "m", "timestamp": started, "type": "gemini", "content": "", "toolCalls": tool_calls}
        ]
    });
    // Pretty-printed, as Gemini CLI writes it.
    let text = serde_json::to_string_pretty(&session).unwrap();
    let (format, parsed) = parse_bytes(text.as_bytes(), "session.json", None);
    assert_eq!(format, Some(InputFormat::GeminiCli));
    Linter::new(None, crate::rules::Selection::default(), RuleSettings::default())
        .lint(&parsed.traces[0])
}

/// A Codex CLI rollout that records no `cli_version` (started `started`, model `model`) whose
/// calls are `calls`: (tool, arguments, what the CLI answered), linted with no `--tools`.
fn lint_codex(started: &str, model: &str, calls: &[(&str, serde_json::Value, &str)]) -> TraceLint {
    let mut lines = vec![
        serde_json::json!({"timestamp": started, "type": "session_meta",
            "payload": {"id": "s", "timestamp": started, "cwd": "/w", "originator": "codex_cli_rs"}}),
        serde_json::json!({"timestamp": started, "type": "turn_context",
            "payload": {"cwd": "/w", "model": model}}),
    ];
    for (i, (name, args, answer)) in calls.iter().enumerate() {
        lines.push(serde_json::json!({"timestamp": started, "type": "response_item",
            "payload": {"type": "function_call", "name": name, "arguments": args.to_string(), "call_id": format!("c{i}")}}));
        lines.push(serde_json::json!({"timestamp": started, "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": format!("c{i}"), "output": answer}}));
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (format, parsed) = parse_bytes(text.as_bytes(), "rollout.jsonl", None);
    assert_eq!(format, Some(InputFormat::Codex));
    Linter::new(None, crate::rules::Selection::default(), RuleSettings::default())
        .lint(&parsed.traces[0])
}

/// A rollout without `cli_version` is matched by its calls, not given the newest capture: its
/// `shell_command` calls ran, so a release that sends `shell_command` judges them (no R7, no
/// hard defect), and the note says which release, why and how sure. A call the CLI refused is
/// still the hard defect.
#[test]
fn a_codex_rollout_without_a_version_is_matched_by_its_calls() {
    let ran = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc\n";
    let lint = lint_codex(
        "2026-08-01T10:00:00.000Z",
        "gpt-5-codex",
        &[
            ("shell_command", serde_json::json!({"command": "ls", "workdir": "/w"}), ran),
            ("shell_command", serde_json::json!({"command": "cat a"}), ran),
            ("update_plan", serde_json::json!({"plan": [{"step": "x", "status": "completed"}]}), "Plan updated"),
        ],
    );
    assert!(lint.outcome.findings.is_empty(), "{:?}", lint.outcome.findings);
    insta::assert_snapshot!(lint.notes.join("\n"));
    let lint = lint_codex(
        "2026-08-01T10:00:00.000Z",
        "gpt-5-codex",
        &[(
            "shell_command",
            serde_json::json!({"cmd": "ls"}),
            "failed to parse function arguments: missing field `command` at line 1 column 12",
        )],
    );
    let hard: Vec<(RuleId, Tier)> = lint
        .outcome
        .findings
        .iter()
        .map(|f| (f.rule(), f.tier()))
        .filter(|(_, t)| *t == Tier::HardDefect)
        .collect();
    assert_eq!(hard, [(RuleId::R1, Tier::HardDefect)]);
}

#[test]
fn a_gemini_cli_newer_than_every_capture_is_told_to_update_and_gets_no_hard_defect() {
    // `read_file` with a number for `file_path` ran: every capture rejects it, so the CLI is
    // newer than they are. An MCP tool under its bare name ran too.
    let lint = lint_gemini(
        "2026-12-01T10:00:00.000Z",
        &[
            ("read_file", serde_json::json!({"file_path": 7}), "success", "notes"),
            ("get_figma_data", serde_json::json!({"fileKey": "k"}), "success", "{}"),
            ("read_file", serde_json::json!({"file_path": "/a"}), "success", "text"),
        ],
    );
    let hard: Vec<&crate::finding::Finding> = lint
        .outcome
        .findings
        .iter()
        .filter(|f| f.tier() != Tier::Candidate)
        .collect();
    assert!(hard.is_empty(), "{hard:?}");
    assert!(
        !lint.outcome.findings.iter().any(|f| f.rule() == RuleId::R7),
        "{:?}",
        lint.outcome.findings
    );
    insta::assert_snapshot!(lint.notes.join("\n"));
    // The CLI refused it: the one hard defect.
    let lint = lint_gemini(
        "2026-12-01T10:00:00.000Z",
        &[(
            "read_file",
            serde_json::json!({"file_path": 7}),
            "error",
            "params/file_path must be string",
        )],
    );
    let hard: Vec<(RuleId, Tier)> = lint
        .outcome
        .findings
        .iter()
        .map(|f| (f.rule(), f.tier()))
        .filter(|(_, t)| *t == Tier::HardDefect)
        .collect();
    assert_eq!(hard, [(RuleId::R1, Tier::HardDefect)]);
}
