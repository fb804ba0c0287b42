//! A misread is a detection bug (issue 40): every real sample in `fixtures/real/` is given to
//! every input format's reader; a reader that takes a file (reads it with no input error and
//! finds tool calls in it) must not make every call an unknown tool (R7, with the agent's own
//! built-in schemas, as `check` with no `--tools` has them) nor every result an empty one. Such
//! a reading drops what the file records; the reader the file is detected as must never be one.

use std::path::{Path, PathBuf};

use tracelint::adapters::{self, InputFormat};
use tracelint::finding::RuleId;
use tracelint::lint::Linter;
use tracelint::model::Trace;
use tracelint::rules::{RuleSettings, Selection};

/// Every JSON and JSON Lines file under `fixtures/real/` and the hand-made Antigravity samples,
/// but READMEs' neighbours that are not runs: tools files, MCP captures, expected answers,
/// companion metadata.
fn samples() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl" | "ndjson")
            ) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    walk(&root.join("fixtures/real"), &mut out);
    // Formats no real file of may be kept here: their hand-made samples.
    walk(&root.join("fixtures/antigravity"), &mut out);
    out.retain(|p| {
        let s = p.to_string_lossy();
        !s.contains("/mcp/") && !s.contains("tools") && !s.contains("possible_answer")
    });
    out.sort();
    out
}

/// What a reading of one file amounts to.
#[derive(Debug, Default)]
struct Reading {
    calls: usize,
    unknown: usize,
    results: usize,
    empty: usize,
}

fn reading(traces: &[Trace], linter: &Linter) -> Reading {
    let mut r = Reading::default();
    for t in traces {
        r.calls += t.call_count();
        for s in t.steps() {
            if let Some(res) = s.as_result() {
                r.results += 1;
                let blank = match &res.content {
                    serde_json::Value::Null => true,
                    serde_json::Value::String(s) => s.trim().is_empty(),
                    serde_json::Value::Array(a) => a.is_empty(),
                    serde_json::Value::Object(o) => o.is_empty(),
                    _ => false,
                };
                if res.content_recorded && blank {
                    r.empty += 1;
                }
            }
        }
        let lint = linter.lint(t);
        r.unknown += lint
            .outcome
            .findings
            .iter()
            .filter(|f| f.rule() == RuleId::R7)
            .count();
    }
    r
}

#[test]
fn no_reader_takes_a_file_it_misreads() {
    let linter = Linter::new(None, Selection::default(), RuleSettings::default());
    let files = samples();
    assert!(files.len() > 80, "{} samples", files.len());
    let mut bad = Vec::new();
    let mut taken = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let (detected, _) = adapters::parse_bytes(&bytes, &name, None);
        for format in InputFormat::ALL {
            let (_, parsed) = adapters::parse_bytes(&bytes, &name, Some(*format));
            let r = reading(&parsed.traces, &linter);
            if !parsed.issues.is_empty() || r.calls == 0 {
                continue;
            }
            taken += 1;
            let detected = if detected == Some(*format) {
                " (the detected format)"
            } else {
                ""
            };
            // Two calls at least: one unknown tool in a one-call file is a finding, not a
            // pattern.
            if r.calls >= 2 && r.unknown == r.calls {
                bad.push(format!(
                    "{}: read as `{format}`{detected}: R7 on all {} calls",
                    path.display(),
                    r.calls
                ));
            }
            if r.results >= 2 && r.empty == r.results {
                bad.push(format!(
                    "{}: read as `{format}`{detected}: all {} results empty",
                    path.display(),
                    r.results
                ));
            }
        }
    }
    assert!(taken >= files.len() / 2, "only {taken} readings taken");
    assert!(bad.is_empty(), "misreadings:\n{}", bad.join("\n"));
}
