//! Tests of the Cline adapter over real files in `fixtures/real/cline/` (a task history written
//! by Cline CLI 2.18.0 and an SDK session written by Cline CLI 3.0.65, both driven by a scripted
//! fake model, see `scripts/make-session`): snapshots, exact counts, results paired to the
//! calls their text labels answer, structured verdicts of the SDK, cited lines, the metadata
//! file read through its messages file, and the variants that must never pass as empty.

use crate::adapters::testing::{
    assert_not_an_empty_pass, counted as c, counts, misplaced_steps, parse_path, repo_fixture,
    repo_real_files, summary,
};
use crate::adapters::{InputFormat, Parsed, ReadOptions, ReadOutcome, parse_bytes, parse_reader};
use crate::model::{ContextKind, ResultStatus};

fn fixture(name: &str) -> (Parsed, String) {
    repo_fixture("cline", name, InputFormat::Cline)
}

const TASK: &str = "task-2.18.0/api_conversation_history.json";
const SDK: &str = "sdk-3.0.65/1796169068826_nifav.messages.json";
const SDK_META: &str = "sdk-3.0.65/1796169068826_nifav.json";

#[test]
fn real_files_snapshot() {
    for name in [TASK, SDK] {
        let (parsed, _) = fixture(name);
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let stem = name.split('/').next().unwrap();
        insta::assert_json_snapshot!(stem, summary(&parsed));
    }
}

#[test]
fn task_history_results_are_paired_to_the_calls_they_answer() {
    let (parsed, text) = fixture(TASK);
    let t = &parsed.traces[0];
    // Counted from the raw file: 6 `tool_use` blocks, 5 `[… for '…'] Result:` text blocks (the
    // final `attempt_completion` is never answered); no record says a result failed.
    assert_eq!(counts(t), c(6, 5, 0, 1));
    assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
    let pairing = crate::model::Pairing::new(t);
    for s in &t.steps {
        if s.as_result().is_some() {
            let call = pairing.call_for(s.index).map(|i| &t.steps[i]);
            let call = call
                .and_then(|c| c.as_call())
                .expect("every result answers a call");
            let r = s.as_result().unwrap();
            // The label names the tool the result answers.
            let line = text.split('\n').nth(s.at.line as usize - 1).unwrap();
            assert!(line.contains(&format!("[{} for", call.name)), "{line}");
            assert_eq!(r.status, ResultStatus::Unknown);
        }
    }
    // The harness's complaint is a user message, not a call or a result.
    assert!(t.steps.iter().any(|s| {
        s.as_message()
            .is_some_and(|m| m.content.starts_with("[ERROR] You did not use a tool"))
    }));
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("cline"));
    assert!(
        t.context
            .iter()
            .any(|c| c.kind == ContextKind::WorkingDirectory && c.value.ends_with("/work"))
    );
}

#[test]
fn an_sdk_session_with_its_metadata() {
    // Read by its path from the crate's root (tests run there), so the metadata beside it is
    // found.
    let path = format!("fixtures/real/cline/{SDK}");
    let text = std::fs::read_to_string(&path).unwrap();
    let (format, parsed) = parse_bytes(text.as_bytes(), &path, None);
    assert_eq!(format, Some(InputFormat::Cline));
    let t = &parsed.traces[0];
    // 6 calls, 6 results; 2 failed: `is_error: true`, and a command whose request says
    // `success: false`.
    assert_eq!(counts(t), c(6, 6, 2, 0));
    assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
    let errors: Vec<&str> = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .filter_map(|r| r.error.as_deref())
        .collect();
    assert_eq!(errors, ["Command exited with code 1"]);
    assert_eq!(t.run_id, "1796169068826_nifav");
    assert_eq!(
        t.attribute(crate::model::ATTR_AGENT_VERSION),
        Some("3.0.65")
    );
    assert_eq!(t.attribute(crate::model::ATTR_MODEL), Some("fake-model"));
    assert!(
        t.context
            .iter()
            .any(|c| c.kind == ContextKind::WorkingDirectory)
    );
    // The metadata file alone is read through the messages file beside it.
    let path = format!("fixtures/real/cline/{SDK_META}");
    let (_, meta) = parse_bytes(&std::fs::read(&path).unwrap(), &path, None);
    assert_eq!(meta.traces.len(), 1);
    assert_eq!(counts(&meta.traces[0]), counts(t));
    assert!(
        meta.notes[0].contains("its conversation is read from"),
        "{:?}",
        meta.notes
    );
}

#[test]
fn companions_are_named_and_skipped_when_walked() {
    let dir = std::path::PathBuf::from(crate::adapters::testing::REAL).join("cline");
    for (file, what) in [
        ("task-2.18.0/ui_messages.json", "UI message log"),
        ("task-2.18.0/task_metadata.json", "task metadata"),
    ] {
        let path = dir.join(file);
        let (format, parsed, _) = parse_path(&path);
        assert_eq!(format, None);
        assert!(
            parsed.issues[0].message.contains(what),
            "{}",
            parsed.issues[0]
        );
        let opts = ReadOptions {
            skip_tools_files: true,
            ..ReadOptions::default()
        };
        let text = std::fs::read(&path).unwrap();
        let mut p = Parsed::default();
        let out = parse_reader(&text[..], &path.to_string_lossy(), &opts, &mut p);
        assert!(matches!(out, ReadOutcome::SkippedCompanion(_)), "{out:?}");
    }
    // The SDK metadata, walked beside its messages file, is skipped (the messages file is
    // linted); given alone it is read.
    let meta = dir.join(SDK_META);
    let text = std::fs::read(&meta).unwrap();
    let opts = ReadOptions {
        skip_tools_files: true,
        ..ReadOptions::default()
    };
    let mut p = Parsed::default();
    let out = parse_reader(&text[..], &meta.to_string_lossy(), &opts, &mut p);
    assert!(matches!(out, ReadOutcome::SkippedCompanion(_)), "{out:?}");
    assert!(repo_real_files("cline").len() >= 4);
}

/// Acceptance 5 of issue 24: a task history cut short or renamed is never an empty pass.
#[test]
fn truncated_and_renamed_histories_are_never_an_empty_pass() {
    let (_, text) = fixture(TASK);
    let (_, parsed) = parse_bytes(&text.as_bytes()[..text.len() / 2], "cut.json", None);
    assert!(!parsed.issues.is_empty());
    // `tool_use` renamed: no call, but the results the harness wrote are still there.
    let renamed = text.replace("\"type\":\"tool_use\"", "\"type\":\"tool_call_block\"");
    let (format, parsed) = parse_bytes(renamed.as_bytes(), "renamed.json", None);
    assert_eq!(format, Some(InputFormat::Cline));
    assert_eq!(parsed.traces[0].call_count(), 0);
    assert_not_an_empty_pass(&parsed);
    let (_, text) = fixture(SDK);
    let renamed = text.replace("\"tool_use\"", "\"tool_invocation\"");
    let (_, parsed) = parse_bytes(renamed.as_bytes(), "renamed.messages.json", None);
    assert_not_an_empty_pass(&parsed);
}
