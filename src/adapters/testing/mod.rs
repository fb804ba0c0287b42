//! Test helpers for the adapters' real-fixture tests: where `fixtures/real` is (a
//! missing folder fails the test, never skips it; origins and licences in its `NOTICE.md`), a reviewable one-line-per-step summary of
//! parsed traces for snapshots, call/result/error/unanswered counts, the "does the cited line
//! hold this step" check (acceptance 5 of issue 3), and the VCR cassette reader that turns a
//! YAML recording into the JSON Lines request/response log the `openai` adapter reads.

pub(crate) mod snapshot;

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::model::{Args, Pairing, ResultStatus, StepKind, Trace};

use crate::adapters::Parsed;

/// The real fixtures kept in this repository (`fixtures/real/<folder>`, permissive licences,
/// origins in `fixtures/real/NOTICE.md`).
pub(crate) const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/real");

/// A folder of real fixtures; panics (fails the test) when it is missing.
pub(crate) fn real_dir(folder: &str) -> PathBuf {
    let dir = PathBuf::from(REAL).join(folder);
    assert!(
        dir.is_dir(),
        "real fixtures missing: {}",
        dir.display()
    );
    dir
}

/// The real files of a folder (READMEs left out), sorted.
pub(crate) fn real_files(folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(real_dir(folder))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no real fixtures in {folder}");
    files
}

/// The session files of a folder of this repository's real fixtures (made by the real CLI or
/// fetched; the scripts that drove a fake model and READMEs left out), sorted.
pub(crate) fn repo_real_files(folder: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(REAL).join(folder);
    let mut files: Vec<PathBuf> = walk(&dir)
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json" || e == "jsonl")
                && !p.components().any(|c| c.as_os_str() == "scripts")
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no real fixtures in {}", dir.display());
    files
}

/// Acceptance 5 of issue 24: an input read as some format that yields no call where calls
/// were written is an input error saying so, never a clean pass.
pub(crate) fn assert_not_an_empty_pass(parsed: &Parsed) {
    assert_eq!(
        parsed.traces.iter().map(Trace::call_count).sum::<usize>(),
        0
    );
    assert!(
        parsed
            .issues
            .iter()
            .any(|i| i.message.contains("no tool call")),
        "no input error in {:?}",
        parsed.issues
    );
}

/// Read a file with format detection: the format, what it yielded, and its text.
pub(crate) fn parse_path(path: &std::path::Path) -> (Option<crate::adapters::InputFormat>, Parsed, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (format, parsed) = crate::adapters::parse_bytes(text.as_bytes(), &name, None);
    (format, parsed, text)
}

/// The repository fixture of `folder` whose path ends with `name`, read (detected as `want`).
pub(crate) fn repo_fixture(folder: &str, name: &str, want: crate::adapters::InputFormat) -> (Parsed, String) {
    let path = repo_real_files(folder)
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no fixture {name} in {folder}"));
    let (format, parsed, text) = parse_path(&path);
    assert_eq!(format, Some(want), "{name}");
    (parsed, text)
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Calls, results, error results and unanswered calls of a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) calls: usize,
    pub(crate) results: usize,
    pub(crate) errors: usize,
    pub(crate) unanswered: usize,
}

impl std::ops::Add for Counts {
    type Output = Counts;
    fn add(self, o: Counts) -> Counts {
        Counts {
            calls: self.calls + o.calls,
            results: self.results + o.results,
            errors: self.errors + o.errors,
            unanswered: self.unanswered + o.unanswered,
        }
    }
}

/// `Counts` in a table of expectations: calls, results, errors, unanswered.
pub(crate) const fn counted(
    calls: usize,
    results: usize,
    errors: usize,
    unanswered: usize,
) -> Counts {
    Counts {
        calls,
        results,
        errors,
        unanswered,
    }
}

/// Count a trace's calls, results, errors and unanswered calls (by the model's own pairing).
pub(crate) fn counts(trace: &Trace) -> Counts {
    let pairing = Pairing::new(trace);
    let mut c = Counts::default();
    for s in &trace.steps {
        match &s.kind {
            StepKind::ToolCall(_) => {
                c.calls += 1;
                if pairing.result_for(s.index).is_none() {
                    c.unanswered += 1;
                }
            }
            StepKind::ToolResult(r) => {
                c.results += 1;
                if r.status == ResultStatus::Error {
                    c.errors += 1;
                }
            }
            StepKind::Message(_) => {}
        }
    }
    c
}

/// `text` cut to `max` characters, newlines shown as `\n`.
fn short(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out.replace('\n', "\\n").replace('\r', "\\r")
}

/// One line per step: index, line:col, pointer, and what the step is.
pub(crate) fn step_line(trace: &Trace, i: usize) -> String {
    let s = &trace.steps[i];
    let what = match &s.kind {
        StepKind::Message(m) => format!("message {:?}: {}", m.role, short(&m.content, 60)),
        StepKind::ToolCall(c) => {
            let args = match &c.args {
                Args::Known(Value::Object(o)) => {
                    format!("{{{}}}", o.keys().cloned().collect::<Vec<_>>().join(", "))
                }
                Args::Known(other) => format!("known {}", short(&other.to_string(), 40)),
                Args::Malformed(why) => format!("malformed ({why})"),
                Args::Unknown(why) => format!("unknown ({why})"),
            };
            let raw = if c.raw_args.is_some() { " raw" } else { "" };
            format!(
                "call {} {} {args}{raw}",
                c.call_id.as_deref().unwrap_or("-"),
                c.name
            )
        }
        StepKind::ToolResult(r) => {
            let content = match &r.content {
                Value::String(t) => short(t, 50),
                other => short(&other.to_string(), 50),
            };
            format!(
                "result {} {:?}: {content}",
                r.call_id.as_deref().unwrap_or("-"),
                r.status
            )
        }
    };
    format!(
        "{} {}:{} {} {what}",
        s.index, s.at.line, s.at.column, s.at.pointer
    )
}

/// A reviewable summary of everything an input yielded: per trace its id, flags, attributes,
/// embedded schemas, counts and one line per step; then the input issues.
pub(crate) fn summary(parsed: &Parsed) -> Value {
    let traces: Vec<Value> = parsed
        .traces
        .iter()
        .map(|t| {
            let c = counts(t);
            json!({
                "run_id": t.run_id,
                "partial": t.partial,
                "final": t.final_answer.as_deref().map(|f| short(f, 60)),
                "attributes": t.attributes,
                "embedded_tools": t.embedded_tools.iter()
                    .map(|s| format!("{} schema={} ({})", s.name, s.schema.is_some(), s.source))
                    .collect::<Vec<_>>(),
                "counts": format!(
                    "{} calls, {} results, {} errors, {} unanswered",
                    c.calls, c.results, c.errors, c.unanswered
                ),
                "steps": (0..t.steps.len()).map(|i| step_line(t, i)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "traces": traces,
        "issues": parsed.issues.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// Acceptance 5: every step's cited line exists, its column is where JSON begins (`{`, `[` or
/// `"`), and the line holds the step: a call's id or tool name, a result's call id, or the start
/// of a message's text. Returns the failures.
pub(crate) fn misplaced_steps(text: &str, traces: &[Trace]) -> Vec<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut bad = Vec::new();
    for t in traces {
        for s in &t.steps {
            let at = &s.at;
            let Some(line) = (at.line as usize).checked_sub(1).and_then(|i| lines.get(i)) else {
                bad.push(format!(
                    "{}: line {} is not in the file",
                    step_line(t, s.index),
                    at.line
                ));
                continue;
            };
            let first = line.chars().nth((at.column as usize).saturating_sub(1));
            if !matches!(first, Some('{' | '[' | '"')) {
                bad.push(format!(
                    "{}: column starts with {first:?}",
                    step_line(t, s.index)
                ));
            }
            let prefix = |text: &str| -> String {
                text.trim_start()
                    .chars()
                    .take_while(|c| {
                        c.is_ascii()
                            && !c.is_ascii_control()
                            && !matches!(c, '"' | '\\' | '<' | '>' | '&' | '\'')
                    })
                    .take(12)
                    .collect()
            };
            let wanted: Vec<String> = match &s.kind {
                StepKind::ToolCall(c) => {
                    c.call_id.iter().cloned().chain([c.name.clone()]).collect()
                }
                // A result names its call, or (answering a call parsed from text, whose id is
                // ours) starts with its content.
                StepKind::ToolResult(r) => match (&r.call_id, &r.content) {
                    (Some(id), Value::String(t)) => {
                        let start = t
                            .trim_start()
                            .trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
                        let p = prefix(start);
                        let mut w = vec![id.clone()];
                        if p.len() >= 3 {
                            w.push(p);
                        } else if t.trim().is_empty() {
                            // An empty result is cited at its (empty) content.
                            w.push("\"content\"".into());
                        }
                        w
                    }
                    (Some(id), _) => vec![id.clone()],
                    (None, _) => vec![String::new()],
                },
                StepKind::Message(m) => {
                    let prefix = prefix(&m.content);
                    if prefix.len() < 3 {
                        continue;
                    }
                    vec![prefix]
                }
            };
            if !wanted
                .iter()
                .any(|w| !w.is_empty() && line.contains(w.as_str()))
            {
                bad.push(format!(
                    "{}: line {} holds none of {wanted:?}",
                    step_line(t, s.index),
                    at.line
                ));
            }
        }
    }
    bad
}

/// A VCR cassette (YAML) → JSON Lines: each interaction's request body, then its response body,
/// one compact JSON document per line (what an LLM proxy's request log looks like).
pub(crate) fn cassette_log(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).unwrap();
    let interactions = docs[0]["interactions"].as_vec().expect("a VCR cassette");
    let mut log = String::new();
    for it in interactions {
        let request = it["request"]["body"].as_str().expect("a request body");
        let response = it["response"]["body"]["string"]
            .as_str()
            .expect("a response body");
        for body in [request, response] {
            let v: Value = serde_json::from_str(body).expect("a JSON body");
            log.push_str(&v.to_string());
            log.push('\n');
        }
    }
    log
}

/// The files of this repository's `fixtures/real/<folder>/` named in `table` as (file, calls,
/// results, successes): each is detected as `format` with no input issue, holds exactly those
/// counts (successes: results whose status is `Ok`), and cites every step at a line that holds
/// it.
pub(crate) fn check_real_counts(
    folder: &str,
    format: crate::adapters::InputFormat,
    table: &[(&str, usize, usize, usize)],
) {
    for (name, calls, results, ok) in table {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real")
            .join(folder)
            .join(name);
        let text = std::fs::read_to_string(path).unwrap();
        let (f, p) = crate::adapters::parse_bytes(text.as_bytes(), name, None);
        assert_eq!(f, Some(format), "{name}");
        assert!(p.issues.is_empty(), "{name}: {:?}", p.issues);
        let c = p
            .traces
            .iter()
            .map(counts)
            .fold(Counts::default(), |a, b| a + b);
        let fine = p
            .traces
            .iter()
            .flat_map(|t| &t.steps)
            .filter(|s| s.as_result().is_some_and(|r| r.status == ResultStatus::Ok))
            .count();
        assert_eq!(
            (c.calls, c.results, fine),
            (*calls, *results, *ok),
            "{name}"
        );
        let bad = misplaced_steps(&text, &p.traces);
        assert!(bad.is_empty(), "{name}: {}", bad.join("\n"));
    }
}
