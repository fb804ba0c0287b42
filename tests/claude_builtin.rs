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

fn check_session(version: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let line = |t: &str, content: &str| {
        format!(
            r#"{{"type":"{t}","sessionId":"s","version":"{version}","uuid":"u-{t}","parentUuid":null,"isSidechain":false,"message":{content}}}"#
        )
    };
    let text = [
        line("user", r#"{"role":"user","content":"list the repo"}"#),
        line(
            "assistant",
            r#"{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","bogus":1}}]}"#,
        ),
    ]
    .join("\n");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["check", path.to_str().unwrap(), "--color", "never"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn newer_and_older_versions_use_the_edge_captures_and_say_so() {
    let newer = check_session("99.0.0");
    assert!(newer.contains("version 2.1.332: Claude Code 99.0.0 is newer than every capture; using the newest capture 2.1.332"), "{newer}");
    assert!(
        newer.contains(
            "hard_defect R1 Bash: Additional properties are not allowed ('bogus' was unexpected)"
        ),
        "{newer}"
    );
    let older = check_session("0.0.1");
    assert!(
        older.contains(
            "Claude Code 0.0.1 is older than every capture; using the oldest capture 0.2.9"
        ),
        "{older}"
    );
    let exact = check_session("2.1.53");
    assert!(
        exact.contains("version 2.1.53 (the session's own)"),
        "{exact}"
    );
    let between = check_session("2.1.13");
    assert!(
        between.contains(
            "Claude Code 2.1.13 was not captured; using the nearest older capture 2.1.12"
        ),
        "{between}"
    );
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
