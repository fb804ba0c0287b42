//! Tests of the OpenCode adapter over the real files in `fixtures/real/opencode/` (one run of
//! OpenCode 1.18.33 driven offline by a scripted fake model: what `opencode run --format json`
//! printed, and what `opencode export` wrote of the same session): snapshots, exact counts,
//! the two files agreeing call by call, and an export whose ids were redacted.

use crate::adapters::testing::{
    Counts, counted as c, counts, misplaced_steps, parse_path, repo_fixture, repo_real_files,
    summary,
};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{Args, ContextKind, Pairing, ResultStatus};

fn fixture(name: &str) -> (Parsed, String) {
    repo_fixture("opencode", name, InputFormat::OpenCode)
}

#[test]
fn real_files_snapshot() {
    for path in repo_real_files("opencode") {
        let (format, parsed, _) = parse_path(&path);
        assert_eq!(format, Some(InputFormat::OpenCode), "{}", path.display());
        assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_json_snapshot!(name, summary(&parsed));
    }
}

/// Counted by an independent script over the raw JSON: calls are `tool` parts (in a run's
/// events, distinct part ids), results those whose `state.status` is `completed` or `error`,
/// errors the latter.
const EXPECTED: &[(&str, Counts)] = &[
    ("opencode-1.18.33-export.json", c(5, 5, 1, 0)),
    ("opencode-1.18.33-run.jsonl", c(5, 5, 1, 0)),
];

#[test]
fn counts_hold_and_the_export_and_the_run_agree() {
    assert_eq!(repo_real_files("opencode").len(), EXPECTED.len());
    let mut calls = Vec::new();
    for (name, want) in EXPECTED {
        let (parsed, text) = fixture(name);
        assert_eq!(parsed.traces.len(), 1, "{name}");
        let t = &parsed.traces[0];
        assert_eq!(counts(t), *want, "{name}");
        assert_eq!(misplaced_steps(&text, &parsed.traces), Vec::<String>::new());
        assert_eq!(t.run_id, "ses_dbac31c2affexUQLprc9uhvw1y");
        assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("opencode"));
        let pairing = Pairing::new(t);
        calls.push(
            t.steps
                .iter()
                .filter_map(|s| s.as_call().map(|c| (s, c)))
                .map(|(s, c)| {
                    let args = match &c.args {
                        Args::Known(v) => v.to_string(),
                        other => format!("{other:?}"),
                    };
                    let status = pairing
                        .result_for(s.index)
                        .and_then(|i| t.steps[i].as_result())
                        .map(|r| r.status);
                    (c.call_id.clone(), c.name.clone(), args, status)
                })
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(calls[0], calls[1]);
    // OpenCode refused `read` without its `filePath`, and ran an unknown tool's call as its own
    // `invalid` tool.
    let names: Vec<&str> = calls[0].iter().map(|c| c.1.as_str()).collect();
    assert_eq!(names, ["read", "read", "bash", "write", "invalid"]);
    assert_eq!(calls[0][1].3, Some(ResultStatus::Error));
    let (parsed, _) = fixture("opencode-1.18.33-export.json");
    let t = &parsed.traces[0];
    assert_eq!(t.attribute(crate::model::ATTR_AGENT_VERSION), Some("1.18.33"));
    assert!(
        t.context
            .iter()
            .any(|c| c.kind == ContextKind::WorkingDirectory && c.value.ends_with("/work"))
    );
    let error = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .find_map(|r| r.error.as_deref())
        .unwrap();
    assert!(error.starts_with("The read tool was called with invalid arguments"), "{error}");
}

/// An export whose call ids (and part ids) were redacted to one value: every call is still
/// answered by its own result.
#[test]
fn redacted_ids_still_pair_each_call_with_its_result() {
    let (_, text) = fixture("opencode-1.18.33-export.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for m in v["messages"].as_array_mut().unwrap() {
        for p in m["parts"].as_array_mut().unwrap() {
            if p["type"] == "tool" {
                p["callID"] = "REDACTED".into();
                p["id"] = "REDACTED".into();
            }
        }
    }
    let redacted = serde_json::to_string_pretty(&v).unwrap();
    let (format, p) = parse_bytes(redacted.as_bytes(), "export.json", None);
    assert_eq!(format, Some(InputFormat::OpenCode));
    let t = &p.traces[0];
    assert_eq!(counts(t), c(5, 5, 1, 0));
    let pairing = Pairing::new(t);
    for s in t.steps.iter().filter(|s| s.as_call().is_some()) {
        let r = pairing.result_for(s.index).unwrap();
        assert_eq!(r, s.index + 1, "each result right after its own call");
    }
}
