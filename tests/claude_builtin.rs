//! Zero-config Claude Code linting (issue 12): Claude Code's own `InputValidationError` results
//! are the oracle for R1 on real sessions linted with the built-in schemas, and version matching
//! says which capture it used.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use tracelint::adapters;
use tracelint::finding::{RuleId, Tier};
use tracelint::lint::Linter;
use tracelint::rules::{RuleSettings, Selection};

fn real_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/claude-code")
}

#[test]
fn input_validation_errors_are_exactly_the_r1_hard_defects() {
    let dir = real_dir();
    let mut sessions = 0;
    let mut oracle_total = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/real/claude-code is needed") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        sessions += 1;
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (format, parsed) = adapters::parse_bytes(&bytes, &name, None);
        assert_eq!(format, Some(adapters::InputFormat::Claude), "{name}");
        let linter = Linter::new(None, Selection::default(), RuleSettings::default());
        for trace in &parsed.traces {
            let pairing = tracelint::model::Pairing::new(trace);
            // The oracle: calls whose result is Claude Code's own validation error.
            let oracle: BTreeSet<usize> = trace
                .steps()
                .iter()
                .filter_map(|s| {
                    let r = s.as_result()?;
                    let text = r.content.to_string();
                    text.contains("InputValidationError")
                        .then(|| pairing.call_for(s.index))
                        .flatten()
                })
                .collect();
            let lint = linter.lint(trace);
            let defects: BTreeSet<usize> = lint
                .outcome
                .findings
                .iter()
                .filter(|f| f.rule() == RuleId::R1 && f.tier() == Tier::HardDefect)
                .map(|f| f.evidence()[0].step())
                .collect();
            assert_eq!(
                defects,
                oracle,
                "{name} ({}): R1 hard defects (left) differ from the calls Claude Code rejected (right)",
                trace.run_id()
            );
            oracle_total += oracle.len();
            // Every call was checked against a built-in schema.
            let (_, _, r1) = lint
                .outcome
                .coverage
                .iter()
                .find(|(r, _, _)| *r == RuleId::R1)
                .unwrap();
            assert_eq!(
                r1.decided,
                r1.total,
                "{name} ({}): R1 coverage {r1:?}",
                trace.run_id()
            );
        }
    }
    assert_eq!(sessions, 8);
    assert!(
        oracle_total >= 1,
        "the corpus holds a real InputValidationError"
    );
}

/// Lint a one-call Claude Code session of `version` whose `Bash` call has a parameter no
/// capture has; `result`: the text of the result Claude Code recorded for it, if any. The exit
/// status and the report (candidates included).
fn check_session(version: &str, result: Option<&str>) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let line = |t: &str, content: &str| {
        format!(
            r#"{{"type":"{t}","sessionId":"s","version":"{version}","uuid":"u-{t}","parentUuid":null,"isSidechain":false,"message":{content}}}"#
        )
    };
    let mut lines = vec![
        line("user", r#"{"role":"user","content":"list the repo"}"#),
        line(
            "assistant",
            r#"{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","bogus":1}}]}"#,
        ),
    ];
    if let Some(text) = result {
        let content = serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": text,
             "is_error": text.contains("tool_use_error")}]});
        lines.push(line("user", &content.to_string()).replace("u-user", "u-result"));
    }
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args([
            "check",
            path.to_str().unwrap(),
            "--color",
            "never",
            "--include-candidates",
        ])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn newer_and_older_versions_use_the_edge_captures_and_say_so() {
    let (code, newer) = check_session("99.0.0", None);
    assert!(newer.contains("version 2.1.332: Claude Code 99.0.0 is newer than every capture; using the newest capture 2.1.332 (a newer tracelint ships newer schemas)"), "{newer}");
    // No result to judge by and a version no capture is of: a candidate, not a defect.
    assert_eq!(code, 0, "{newer}");
    assert!(
        newer.contains(
            "candidate R1 Bash: Additional properties are not allowed ('bogus' was unexpected) (the call has no result to tell whether the runtime accepted it"
        ),
        "{newer}"
    );
    let (code, older) = check_session("0.0.1", None);
    assert_eq!(code, 0, "{older}");
    assert!(
        older.contains(
            "Claude Code 0.0.1 is older than every capture; using the oldest capture 0.2.9"
        ),
        "{older}"
    );
    // The session's own version, captured: the call is judged as Claude Code would have.
    let (code, exact) = check_session("2.1.53", None);
    assert!(
        exact.contains("version 2.1.53 (the session's own)"),
        "{exact}"
    );
    assert_eq!(code, 2, "{exact}");
    assert!(
        exact.contains(
            "hard_defect R1 Bash: Additional properties are not allowed ('bogus' was unexpected)"
        ),
        "{exact}"
    );
    let (_, between) = check_session("2.1.13", None);
    assert!(
        between.contains(
            "Claude Code 2.1.13 was not captured; using the nearest older capture 2.1.12"
        ),
        "{between}"
    );
}

#[test]
fn claude_code_s_own_verdict_outranks_the_capture() {
    // It ran the call: no finding, one drift note, and the advice to update when the CLI is
    // newer than every capture.
    let (code, ran) = check_session("99.0.0", Some("a.txt\nb.txt"));
    assert_eq!(code, 0, "{ran}");
    assert!(!ran.contains("R1 Bash"), "{ran}");
    assert!(ran.contains("schema drift: Claude Code ran 1 call that the captured schemas (builtin:claude-code@2.1.332) reject; the CLI's own verdict outranks a capture, so none is reported as a defect: `Bash` (1 call: `bogus` not in its schema). This Claude Code 99.0.0 is newer than the schemas this tracelint ships (the newest is 2.1.332): update tracelint to check its calls"), "{ran}");
    // Even of its own captured version: the runtime accepted it.
    let (code, ran) = check_session("2.1.53", Some("a.txt"));
    assert_eq!(code, 0, "{ran}");
    assert!(
        ran.contains("schema drift: Claude Code ran 1 call"),
        "{ran}"
    );
    assert!(!ran.contains("newer than the schemas"), "{ran}");
    // It refused the call: a hard defect at the call, whatever the version.
    let refusal = "<tool_use_error>InputValidationError: Bash failed due to the following issue:\nAn unexpected parameter `bogus` was provided</tool_use_error>";
    for version in ["99.0.0", "2.1.53", "2.1.13"] {
        let (code, refused) = check_session(version, Some(refusal));
        assert_eq!(code, 2, "{refused}");
        assert!(refused.contains(":2:"), "{refused}");
        assert!(refused.contains("hard_defect R1 Bash: Additional properties are not allowed ('bogus' was unexpected)"), "{refused}");
        assert!(!refused.contains("schema drift"), "{refused}");
    }
}

/// The thread a raw session line belongs to: main, or a sub-agent (by `agentId`, or inline
/// sidechain). Progress lines mirror a sub-agent's traffic.
fn thread_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    if let Some(agent) = v.get("agentId").and_then(|a| a.as_str()) {
        return format!("agent {agent}");
    }
    if v.get("data")
        .and_then(|d| d.get("type"))
        .and_then(|t| t.as_str())
        == Some("agent_progress")
    {
        let agent = v["data"]["agentId"].as_str().unwrap_or("?");
        return format!("agent {agent}");
    }
    if v.get("isSidechain").and_then(|s| s.as_bool()) == Some(true) {
        return "sidechain".into();
    }
    "main".into()
}

#[test]
fn real_sessions_give_r2a_hard_events_exactly_at_is_error_results_and_never_mix_threads() {
    let mut hard_events = 0;
    let mut repeats = 0;
    for entry in std::fs::read_dir(real_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Where the session's `is_error: true` results are, read straight from the JSON.
        let mut error_lines = BTreeSet::new();
        for (i, line) in lines.iter().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let blocks = v
                .pointer("/message/content")
                .and_then(|c| c.as_array())
                .into_iter()
                .flatten()
                .chain(
                    v.pointer("/data/message/message/content")
                        .and_then(|c| c.as_array())
                        .into_iter()
                        .flatten(),
                );
            for b in blocks {
                if b["type"] == "tool_result" && b["is_error"] == true {
                    error_lines.insert(i + 1);
                }
            }
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
            .args(["check", path.to_str().unwrap(), "--output-format", "json"])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let findings = report["findings"].as_array().unwrap();
        let r2a_lines: BTreeSet<usize> = findings
            .iter()
            .filter(|f| f["rule"] == "R2a" && f["tier"] == "hard_event")
            .map(|f| f["line"].as_u64().unwrap() as usize)
            .collect();
        assert_eq!(
            r2a_lines, error_lines,
            "{name}: R2a hard_event lines (left) vs is_error lines (right)"
        );
        hard_events += r2a_lines.len();
        for f in findings
            .iter()
            .filter(|f| f["rule"] == "R4" || f["rule"] == "R5")
        {
            repeats += 1;
            let threads: BTreeSet<String> = f["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| thread_of(lines[e["line"].as_u64().unwrap() as usize - 1]))
                .collect();
            assert_eq!(
                threads.len(),
                1,
                "{name}: {} pairs calls of different threads: {threads:?}",
                f["rule"]
            );
        }
    }
    assert!(hard_events >= 30, "{hard_events}");
    // The corpus has R4/R5 findings, so the thread check above is not vacuous.
    assert!(repeats >= 1, "{repeats}");
}

/// R3 in a Claude Code session (issue 41): the agent's own folder in the home (`~/.claude/`),
/// a well-known system file (not any name in `/etc`), a unit created where units go, a web
/// framework's configuration file and a task id of its own
/// task list the runtime answered for are not reported; another agent's folder, a file guessed
/// where nothing showed and a task id the runtime did not know are.
#[test]
fn r3_takes_claude_codes_own_folder_system_files_and_task_ids_as_known() {
    let calls: &[(&str, &str, &str, bool)] = &[
        (
            "Read",
            r#"{"file_path": "/Users/ben/.claude/settings.json"}"#,
            "File does not exist.",
            true,
        ),
        (
            "Read",
            r#"{"file_path": "/Users/ben/.codex/config.toml"}"#,
            "File does not exist.",
            true,
        ),
        (
            "Read",
            r#"{"file_path": "/etc/ssh/sshd_config"}"#,
            "Port 22",
            false,
        ),
        (
            "Read",
            r#"{"file_path": "/etc/app.conf"}"#,
            "File does not exist.",
            true,
        ),
        (
            "Write",
            r#"{"file_path": "/etc/systemd/system/monitor.service", "content": "[Unit]"}"#,
            "File created",
            false,
        ),
        (
            "Read",
            r#"{"file_path": "/repo/next.config.js"}"#,
            "File does not exist.",
            true,
        ),
        (
            "Read",
            r#"{"file_path": "/srv/unseen/guessed.ts"}"#,
            "File does not exist.",
            true,
        ),
        (
            "TaskUpdate",
            r#"{"taskId": "10", "status": "completed"}"#,
            "Updated task #10 status",
            false,
        ),
        (
            "TaskUpdate",
            r#"{"taskId": "99", "status": "completed"}"#,
            "Task not found",
            true,
        ),
    ];
    let mut lines = vec![serde_json::json!({
        "type": "user", "uuid": "u0", "sessionId": "s", "cwd": "/repo", "version": "2.1.0",
        "message": {"role": "user", "content": "set up my shell and finish the tasks"}
    })];
    for (i, (name, args, answer, is_error)) in calls.iter().enumerate() {
        let id = format!("toolu_{i}");
        lines.push(serde_json::json!({
            "type": "assistant", "uuid": format!("a{i}"), "sessionId": "s", "cwd": "/repo", "version": "2.1.0",
            "message": {"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name,
                "input": serde_json::from_str::<serde_json::Value>(args).unwrap()}]}
        }));
        lines.push(serde_json::json!({
            "type": "user", "uuid": format!("r{i}"), "sessionId": "s", "cwd": "/repo", "version": "2.1.0",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                "content": answer, "is_error": is_error}]}
        }));
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let (format, parsed) = adapters::parse_bytes(text.as_bytes(), "session.jsonl", None);
    assert_eq!(format, Some(adapters::InputFormat::Claude));
    let linter = Linter::new(None, Selection::default(), RuleSettings::default());
    let mut values = Vec::new();
    for trace in &parsed.traces {
        for f in linter
            .lint(trace)
            .outcome
            .findings
            .iter()
            .filter(|f| f.rule() == RuleId::R3)
        {
            values.push(f.message().split('`').nth(3).unwrap_or_default().to_owned());
        }
    }
    assert_eq!(
        values,
        [
            "\"/Users/ben/.codex/config.toml\"",
            "\"/etc/app.conf\"",
            "\"/srv/unseen/guessed.ts\"",
            "\"99\"",
        ]
    );
}
