//! Tests of the pi adapter over the real sessions in `fixtures/real/pi/` (written by pi
//! coding-agent releases driven offline by a scripted fake model, see `scripts/make-session`):
//! snapshots, exact counts, each call's line and column against an independent reading of the
//! raw lines, the `isError` verdicts, and the entries that are not the model's calls.

use crate::adapters::testing::{
    Counts, assert_not_an_empty_pass, counted as c, counts, misplaced_steps, parse_path,
    repo_fixture, repo_real_files, summary,
};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{ContextKind, ResultStatus};

fn fixture(name: &str) -> (Parsed, String) {
    repo_fixture("pi", name, InputFormat::Pi)
}

#[test]
fn real_sessions_snapshot() {
    for path in repo_real_files("pi") {
        let (format, parsed, _) = parse_path(&path);
        assert_eq!(format, Some(InputFormat::Pi), "{}", path.display());
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_json_snapshot!(name, summary(&parsed));
    }
}

/// (file, counts). Counted by an independent script over the raw lines: calls are the
/// `toolCall` items of `assistant` messages, results the `toolResult` messages, errors those
/// with `isError: true`, unanswered the call ids no result names.
const EXPECTED: &[(&str, Counts)] = &[
    // Version 1 of the format: no `version`, entries with no `id` / `parentId`.
    ("pi-0.27.9-tools.jsonl", c(9, 9, 5, 0)),
    ("pi-0.73.1-tools.jsonl", c(9, 9, 5, 0)),
];

#[test]
fn counts_and_cited_lines_hold_exactly() {
    assert_eq!(repo_real_files("pi").len(), EXPECTED.len());
    for (name, want) in EXPECTED {
        let (parsed, text) = fixture(name);
        assert_eq!(parsed.traces.len(), 1, "{name}: one session file, one trace");
        assert_eq!(counts(&parsed.traces[0]), *want, "{name}");
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        // Every call at the line and column where its `toolCall` item begins, found in the
        // raw text.
        let got: Vec<(String, u32, u32)> = parsed.traces[0]
            .steps
            .iter()
            .filter_map(|s| s.as_call().map(|c| (c, s)))
            .map(|(c, s)| (c.call_id.clone().unwrap(), s.at.line, s.at.column))
            .collect();
        let mut want_at = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let mut from = 0;
            while let Some(k) = line[from..].find(r#"{"type":"toolCall","id":""#) {
                let at = from + k;
                let id_start = at + r#"{"type":"toolCall","id":""#.len();
                let id_end = id_start + line[id_start..].find('"').unwrap();
                let col = line[..at].chars().count() + 1;
                want_at.push((
                    line[id_start..id_end].to_owned(),
                    u32::try_from(i + 1).unwrap(),
                    u32::try_from(col).unwrap(),
                ));
                from = id_end;
            }
        }
        assert_eq!(got, want_at, "{name}");
    }
}

#[test]
fn is_error_is_the_verdict_and_the_session_says_where_it_ran() {
    let (parsed, _) = fixture("pi-0.73.1-tools.jsonl");
    let t = &parsed.traces[0];
    assert_eq!(t.run_id, "01a2452d-0ffd-750d-a11a-f2471d257a6b");
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("pi"));
    assert_eq!(t.attribute(crate::model::ATTR_MODEL), Some("fake-model"));
    assert_eq!(
        t.attribute(super::ATTR_STARTED),
        Some("2026-12-05T07:48:30.845Z")
    );
    assert!(
        t.context
            .iter()
            .any(|c| c.kind == ContextKind::WorkingDirectory && c.value.ends_with("/work"))
    );
    let errors: Vec<&str> = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .filter(|r| r.status == ResultStatus::Error)
        .filter_map(|r| r.error.as_deref())
        .collect();
    assert_eq!(errors.len(), 5);
    // The call pi refused (a missing required argument) is an error result saying so.
    assert!(errors[0].starts_with("Validation failed for tool \"read\""), "{errors:?}");
    assert_eq!(errors[4], "Tool no_such_tool not found");
    // Every other result is a success.
    let ok = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .filter(|r| r.status == ResultStatus::Ok)
        .count();
    assert_eq!(ok, 4);
}

/// Entries that are not the model's calls (model and thinking changes, the user's own `!`
/// shell commands, an extension's state, labels) add no step; a branch the user left stays in
/// the file and is read once.
#[test]
fn other_entries_add_no_step() {
    let text = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}"#,
        r#"{"type":"model_change","id":"a","parentId":null,"timestamp":"t","provider":"p","modelId":"m1"}"#,
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}}"#,
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"user","content":"hi","timestamp":1}}"#,
        r#"{"type":"message","id":"d","parentId":"c","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"ls"}}],"model":"m2","stopReason":"toolUse","timestamp":1}}"#,
        r#"{"type":"custom","id":"e","parentId":"d","timestamp":"t","customType":"x","data":{"n":1}}"#,
        r#"{"type":"label","id":"f","parentId":"d","timestamp":"t","targetId":"d","label":"here"}"#,
        r#"{"type":"message","id":"g","parentId":"d","timestamp":"t","message":{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"a\nb"}],"isError":false,"timestamp":1}}"#,
        r#"{"type":"message","id":"h","parentId":"c","timestamp":"t","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"rate limited","timestamp":1}}"#,
    ]
    .join("\n");
    let (format, p) = parse_bytes(text.as_bytes(), "s.jsonl", None);
    assert_eq!(format, Some(InputFormat::Pi));
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    let t = &p.traces[0];
    assert_eq!(counts(t), c(1, 1, 0, 0));
    assert_eq!(t.steps.len(), 3, "{:?}", t.steps);
    assert_eq!(t.attribute(crate::model::ATTR_MODEL), Some("m1"));
    assert_eq!(
        t.attribute(crate::model::ATTR_NOTE),
        Some("a model request failed: rate limited")
    );
}

/// A session cut short, or with its calls' key renamed (a later release, say), is never a
/// clean pass with no calls.
#[test]
fn truncated_and_renamed_sessions_are_never_an_empty_pass() {
    let (_, text) = fixture("pi-0.73.1-tools.jsonl");
    let cut = &text[..text.len() / 2];
    let (format, parsed) = parse_bytes(cut.as_bytes(), "cut.jsonl", None);
    assert_eq!(format, Some(InputFormat::Pi));
    assert!(parsed.traces[0].call_count() > 0);
    let renamed = text.replace(r#""type":"toolCall""#, r#""type":"tool_call""#);
    let (format, parsed) = parse_bytes(renamed.as_bytes(), "renamed.jsonl", None);
    assert_eq!(format, Some(InputFormat::Pi));
    assert_not_an_empty_pass(&parsed);
}
