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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/real/claude-code")
}

#[test]
fn input_validation_errors_are_exactly_the_r1_hard_defects() {
    let dir = real_dir();
    let mut sessions = 0;
    let mut oracle_total = 0;
    for entry in std::fs::read_dir(&dir).expect("../shared/fixtures/real/claude-code is needed") {
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
                .steps
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
                .filter(|f| f.rule == RuleId::R1 && f.tier == Tier::HardDefect)
                .map(|f| f.evidence[0].step)
                .collect();
            assert_eq!(
                defects, oracle,
                "{name} ({}): R1 hard defects (left) differ from the calls Claude Code rejected (right)",
                trace.run_id
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
                r1.decided, r1.total,
                "{name} ({}): R1 coverage {r1:?}",
                trace.run_id
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
