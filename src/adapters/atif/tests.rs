//! ATIF adapter tests: trajectories written by Harbor 0.26 (PyPI `harbor`) converting real
//! runs (a Claude Code session, two SWE-agent trajectories) snapshotted, with exact counts,
//! structured errors and locations checked; then the format's other signals inline.

use std::path::{Path, PathBuf};

use crate::adapters::testing::{Counts, counts, misplaced_steps, summary};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{ContextKind, ResultStatus};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/atif")
}

fn read(text: &str, name: &str) -> Parsed {
    let (format, p) = parse_bytes(text.as_bytes(), name, None);
    assert_eq!(format, Some(InputFormat::Atif), "{name}: {:?}", p.issues);
    p
}

#[test]
fn real_trajectories_snapshot() {
    insta::glob!("../../../fixtures/real/atif", "*.json", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let p = read(&text, "t.json");
        insta::assert_json_snapshot!(summary(&p));
    });
}

/// Counted from the files with an independent script (`tool_calls` of every step,
/// `observation.results`, those whose `extra.tool_result_metadata.is_error` is true or whose
/// content ends with Harbor's failure line); the Python reference 0.14 (`--format atif`) reports
/// the same totals (R1 coverage 19 calls / 11 / 5, R2a 18 / 10 / 5 results, 3 / 0 / 0 hard events).
#[test]
fn counts_hold_exactly() {
    let table = [
        (
            "atif-claude-code-erk-b2c8258b.trajectory.json",
            (19, 18, 3, 1),
        ),
        ("atif-swe-marshmallow-fc.trajectory.json", (11, 10, 0, 1)),
        ("atif-swe-test-repo-i1.trajectory.json", (5, 5, 0, 0)),
    ];
    for (name, (calls, results, errors, unanswered)) in table {
        let text = std::fs::read_to_string(dir().join(name)).unwrap();
        let p = read(&text, name);
        assert!(p.issues.is_empty(), "{name}: {:?}", p.issues);
        let c = p
            .traces
            .iter()
            .map(counts)
            .fold(Counts::default(), |a, b| a + b);
        assert_eq!(
            (c.calls, c.results, c.errors, c.unanswered),
            (calls, results, errors, unanswered),
            "{name}"
        );
        let bad = misplaced_steps(&text, &p.traces);
        assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
    }
    let text = std::fs::read_to_string(dir().join(table[0].0)).unwrap();
    let t = &read(&text, "t.json").traces[0];
    assert_eq!(
        t.context.iter().map(|c| c.kind).collect::<Vec<_>>(),
        [ContextKind::WorkingDirectory, ContextKind::GitBranch]
    );
}

#[test]
fn signals_pairing_copied_context_and_subagents() {
    let text = r#"{"schema_version": "ATIF-v1.7", "session_id": "main",
 "agent": {"name": "terminus-2", "version": "1", "tool_definitions": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]},
 "steps": [
  {"step_id": 1, "source": "user", "message": "do it"},
  {"step_id": 2, "source": "agent", "message": "earlier", "is_copied_context": true, "tool_calls": [{"tool_call_id": "old", "function_name": "bash", "arguments": {"k": "ls"}}], "observation": {"results": [{"source_call_id": "old", "content": "a.txt"}]}},
  {"step_id": 3, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "k1", "function_name": "bash", "arguments": {"k": "cd /x"}}, {"tool_call_id": "k2", "function_name": "bash", "arguments": {"k": "ls"}}], "observation": {"results": [{"content": "screen"}]}},
  {"step_id": 4, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "e1", "function_name": "bash", "arguments": {}}, {"tool_call_id": "e2", "function_name": "bash", "arguments": {}}, {"tool_call_id": "e3", "function_name": "bash", "arguments": {}}], "observation": {"results": [
    {"source_call_id": "e1", "content": "x", "extra": {"is_error": true}},
    {"source_call_id": "e2", "content": "y", "extra": {"status": "success"}},
    {"source_call_id": "e3", "content": "z", "extra": {"exit_code": 0}}]}}
 ],
 "subagent_trajectories": [{"schema_version": "ATIF-v1.7", "agent": {"name": "sub", "version": "1"}, "steps": [{"step_id": 1, "source": "agent", "tool_calls": [{"tool_call_id": "s1", "function_name": "bash", "arguments": {}}]}]}]
}"#;
    let p = read(text, "t.json");
    let ids: Vec<&str> = p.traces.iter().map(|t| t.run_id.as_str()).collect();
    assert_eq!(ids, ["main", "main/subagent-1"]);
    let t = &p.traces[0];
    assert_eq!(t.embedded_tools.len(), 1);
    let results: Vec<(Option<&str>, ResultStatus)> = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .map(|r| (r.call_id.as_deref(), r.status))
        .collect();
    assert_eq!(
        results,
        [
            (Some("k2"), ResultStatus::Unknown),
            (Some("e1"), ResultStatus::Error),
            (Some("e2"), ResultStatus::Ok),
            (Some("e3"), ResultStatus::Ok),
        ]
    );
    // The copied step's call is not replayed; its result is context the agent saw.
    assert_eq!(t.call_count(), 5);
    assert!(
        t.steps
            .iter()
            .any(|s| s.as_message().is_some_and(|m| m.content == "a.txt"))
    );
}
