//! Zero-config Codex CLI and Gemini CLI linting (issue 24, acceptance 2 and 3): on every real
//! session in `fixtures/real/codex/` and `fixtures/real/gemini-cli/`, linted with no `--tools`,
//! the CLI's own answers are the oracle. R1 hard defects are exactly the calls to a built-in
//! tool the CLI refused for their arguments ("failed to parse function arguments: …" from
//! Codex, "params must …" from Gemini CLI); R7 names exactly the tools the CLI said do not
//! exist; R3 stays at most 3 candidates per 100 calls. And on every agent's real sessions
//! (acceptance 1), each result the session records as failed is an R2a `hard_event`, and no
//! other result is.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tracelint::adapters::{self, InputFormat};
use tracelint::finding::{RuleId, Tier};
use tracelint::lint::Linter;
use tracelint::model::{Pairing, ResultStatus};
use tracelint::rules::{RuleSettings, Selection};
use tracelint::sources::builtin::codex::CodexTools;
use tracelint::sources::builtin::gemini::GeminiTools;

/// Every session file under `fixtures/real/<dir>/`, sub-agent sessions included.
fn sessions(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("json" | "jsonl")
            ) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real")
            .join(dir),
        &mut out,
    );
    out.sort();
    out
}

/// What the sessions of one agent add up to.
#[derive(Default)]
struct Totals {
    sessions: usize,
    calls: usize,
    refused: usize,
    r3: usize,
}

/// Lint each session of `dir` with no `--tools` and check it against the CLI's own answers:
/// `refused(tool result text)` says whether the CLI refused the call's arguments, `unknown`
/// whether it said the tool does not exist; `builtin` holds every tool any capture sent.
fn check_agent(
    dir: &str,
    format: InputFormat,
    builtin: &BTreeSet<&str>,
    refused: impl Fn(&str) -> bool,
    unknown: impl Fn(&str) -> bool,
) -> Totals {
    let mut totals = Totals::default();
    let linter = Linter::new(None, Selection::default(), RuleSettings::default());
    for path in sessions(dir) {
        let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let name = name.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let (got, parsed) = adapters::parse_bytes(&bytes, &name, None);
        assert_eq!(got, Some(format), "{name}");
        assert!(parsed.issues.is_empty(), "{name}: {:?}", parsed.issues);
        totals.sessions += 1;
        for trace in &parsed.traces {
            let pairing = Pairing::new(trace);
            let lint = linter.lint(trace);
            assert!(
                lint.schemas.iter().all(|s| s.starts_with("builtin:")),
                "{name}: schemas {:?}",
                lint.schemas
            );
            // The oracle: calls whose result is the CLI's own verdict on them.
            let mut refused_calls = BTreeSet::new();
            let mut unknown_calls = BTreeSet::new();
            for s in trace.steps() {
                let Some(r) = s.as_result() else { continue };
                let Some(call) = pairing.call_for(s.index) else {
                    continue;
                };
                let text = match (&r.error, r.content.as_str()) {
                    (Some(e), _) => e.clone(),
                    (None, Some(t)) => t.to_owned(),
                    (None, None) => r.content.to_string(),
                };
                let tool = trace.steps()[call].as_call().unwrap().name.as_str();
                if builtin.contains(tool) && refused(&text) {
                    refused_calls.insert(call);
                }
                if unknown(&text) {
                    // Codex CLI records its "unsupported call" answer as plain output: no
                    // status to check (R2a reads the text).
                    if format != InputFormat::Codex {
                        assert_eq!(r.status, ResultStatus::Error, "{name}: {text}");
                    }
                    unknown_calls.insert(call);
                }
            }
            let steps = |rule: RuleId, tier: Option<Tier>| -> BTreeSet<usize> {
                lint.outcome
                    .findings
                    .iter()
                    .filter(|f| f.rule() == rule && tier.is_none_or(|t| f.tier() == t))
                    .map(|f| f.evidence()[0].step())
                    .collect()
            };
            // A malformed argument string is R6's, not R1's: R1 has no object to check.
            let r6 = steps(RuleId::R6, None);
            let oracle: BTreeSet<usize> = refused_calls.difference(&r6).copied().collect();
            assert_eq!(
                steps(RuleId::R1, Some(Tier::HardDefect)),
                oracle,
                "{name}: R1 hard defects (left) differ from the calls the CLI refused (right)"
            );
            assert!(
                steps(RuleId::R1, Some(Tier::Candidate)).is_empty(),
                "{name}"
            );
            assert_eq!(
                steps(RuleId::R7, None),
                unknown_calls,
                "{name}: R7 (left) differs from the tools the CLI said do not exist (right)"
            );
            for f in lint
                .outcome
                .findings
                .iter()
                .filter(|f| f.rule() == RuleId::R7)
            {
                let tool = f.tool().unwrap_or_default();
                assert!(
                    !builtin.contains(tool),
                    "{name}: R7 on the CLI's own `{tool}`"
                );
            }
            totals.r3 += lint
                .outcome
                .findings
                .iter()
                .filter(|f| f.rule() == RuleId::R3)
                .count();
            totals.refused += refused_calls.len();
            totals.calls += trace.call_count();
        }
    }
    assert!(
        totals.r3 * 100 <= 3 * totals.calls,
        "{dir}: R3: {} candidates over {} calls",
        totals.r3,
        totals.calls
    );
    totals
}

#[test]
fn codex_cli_s_own_verdicts_are_r1_and_r7() {
    let tools = CodexTools::get();
    let builtin: BTreeSet<&str> = tools.tool_names().into_iter().collect();
    let t = check_agent(
        "codex",
        InputFormat::Codex,
        &builtin,
        |text| text.starts_with("failed to parse function arguments"),
        |text| text.starts_with("unsupported call"),
    );
    // The `codex exec --json` output counts as a session; it names no agent, so no built-in
    // schema judges its calls and its refusals are none (Codex prints no item for them).
    assert_eq!(t.sessions, 4);
    // 0.47.0: a string command, a renamed key, a plan status outside the runtime's set (the
    // sent schema says only "string"); 0.171.0: a missing `cmd`, a number for it, `view_image`
    // without its path, and a cut argument string (R6's, not R1's).
    assert_eq!(t.refused, 7);
}

#[test]
fn gemini_cli_s_own_verdicts_are_r1_and_r7() {
    let tools = GeminiTools::get();
    let builtin: BTreeSet<&str> = tools.tool_names().into_iter().collect();
    let t = check_agent(
        "gemini-cli",
        InputFormat::GeminiCli,
        &builtin,
        |text| text.starts_with("params must") || text.starts_with("params/"),
        |text| text.starts_with("Tool \"") && text.contains("\" not found"),
    );
    // 0.20.2 (JSON), 0.40.1 (JSON Lines), 0.61.0 with its sub-agent's session; the
    // stream-json transcripts of 0.20.2, 0.40.1 and 0.61.0, and the session log the 0.61.0 one
    // was written beside.
    assert_eq!(t.sessions, 8);
    assert_eq!(t.refused, 10);
}

#[test]
fn a_gemini_cli_session_dated_before_every_capture_gets_one_with_its_parameter_names() {
    // Gemini CLI 0.20.2 run with its clock at 2026-01-30, a day before every date the registry
    // gives a release: `read_file`/`list_directory` with `file_path`/`dir_path`, which the
    // oldest captures call `absolute_path`/`path`, and one call the CLI refused.
    let tools = GeminiTools::get();
    let builtin: BTreeSet<&str> = tools.tool_names().into_iter().collect();
    let t = check_agent(
        "builtin-drift/gemini-cli",
        InputFormat::GeminiCli,
        &builtin,
        |text| text.starts_with("params must") || text.starts_with("params/"),
        |text| text.starts_with("Tool \"") && text.contains("\" not found"),
    );
    assert_eq!((t.sessions, t.calls, t.refused), (1, 5, 1));
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real/builtin-drift/gemini-cli/gemini-cli-0.20.2-clock-2026-01-30.json");
    let (_, parsed) = adapters::parse_bytes(&std::fs::read(&path).unwrap(), "s.json", None);
    let lint =
        Linter::new(None, Selection::default(), RuleSettings::default()).lint(&parsed.traces[0]);
    let capture = lint.schemas[0].strip_prefix("builtin:gemini-cli@").unwrap();
    let (idx, _) = tools.pinned(Some(capture));
    let registry = tools.registry(idx);
    for (tool, field) in [("read_file", "file_path"), ("list_directory", "dir_path")] {
        let schema = registry.get(tool).unwrap().schema.clone().unwrap();
        assert!(
            schema["properties"].get(field).is_some(),
            "{capture}: {tool} has no {field}: {schema}"
        );
    }
}

#[test]
fn codex_cli_s_verdict_outranks_the_capture_of_its_own_release() {
    // Codex CLI 0.171.0 ran two `exec_command` calls with keys its schema lacks (serde drops
    // them), refused one without `cmd`, and said `frobnicate` does not exist.
    let tools = CodexTools::get();
    let builtin: BTreeSet<&str> = tools.tool_names().into_iter().collect();
    let refused = |text: &str| text.starts_with("failed to parse function arguments");
    let unknown = |text: &str| text.starts_with("unsupported call");
    let t = check_agent(
        "builtin-drift/codex",
        InputFormat::Codex,
        &builtin,
        refused,
        unknown,
    );
    assert_eq!((t.sessions, t.calls, t.refused), (1, 4, 1));
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real/builtin-drift/codex/codex-0.171.0-drift.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let linter = Linter::new(None, Selection::default(), RuleSettings::default());
    let lint_text = |text: &str| {
        let (_, parsed) = adapters::parse_bytes(text.as_bytes(), "rollout.jsonl", None);
        linter.lint(&parsed.traces[0])
    };
    let lint = lint_text(&text);
    let drift: Vec<&String> = lint
        .notes
        .iter()
        .filter(|n| n.starts_with("schema drift"))
        .collect();
    insta::assert_snapshot!("codex_drift_note", drift[0]);
    assert_eq!(drift.len(), 1);
    // The same rollout as if a release newer than every capture wrote it: the refused call
    // is still the one hard defect, and the notes say to update.
    assert!(text.contains(r#""cli_version":"0.171.0""#));
    let newer =
        lint_text(&text.replace(r#""cli_version":"0.171.0""#, r#""cli_version":"0.999.0""#));
    let hard: Vec<(RuleId, usize)> = newer
        .outcome
        .findings
        .iter()
        .filter(|f| f.tier() == Tier::HardDefect)
        .map(|f| (f.rule(), f.evidence()[0].step()))
        .collect();
    let own: Vec<(RuleId, usize)> = lint
        .outcome
        .findings
        .iter()
        .filter(|f| f.tier() == Tier::HardDefect)
        .map(|f| (f.rule(), f.evidence()[0].step()))
        .collect();
    assert_eq!(hard, own);
    assert_eq!(hard.len(), 1);
    let notes = newer.notes.join("\n");
    assert!(
        notes.contains("Codex CLI 0.999.0 is newer than every capture; using the newest capture 0.171.0 (a newer tracelint ships newer schemas)"),
        "{notes}"
    );
    assert!(
        notes.contains("This Codex CLI 0.999.0 is newer than the schemas this tracelint ships (the newest is 0.171.0): update tracelint to check its calls"),
        "{notes}"
    );
}

/// Every real session file of every agent in `fixtures/real/` (companion files left out: a
/// Cline task's metadata and UI messages, an SDK session's metadata, a sub-agent's
/// `.meta.json`, stored tool results).
fn agent_session_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "codex",
        "gemini-cli",
        "cline",
        "copilot-cli",
        "pi",
        "claude-code-2.1.332",
    ] {
        out.extend(sessions(dir).into_iter().filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".jsonl")
                || name.ends_with(".messages.json")
                || name == "api_conversation_history.json"
                || (dir == "gemini-cli" && name.ends_with(".json"))
        }));
    }
    out
}

#[test]
fn every_structured_failure_is_an_r2a_hard_event_and_nothing_else_is() {
    let linter = Linter::new(None, Selection::default(), RuleSettings::default());
    let (mut files, mut failures) = (0, 0);
    for path in agent_session_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let (format, parsed) = adapters::parse_bytes(&bytes, &name, None);
        assert!(format.is_some(), "{name}");
        assert!(parsed.issues.is_empty(), "{name}: {:?}", parsed.issues);
        files += 1;
        for trace in &parsed.traces {
            let failed: BTreeSet<usize> = trace
                .steps()
                .iter()
                .filter(|s| {
                    s.as_result()
                        .is_some_and(|r| r.status == ResultStatus::Error)
                })
                .map(|s| s.index)
                .collect();
            let lint = linter.lint(trace);
            let events: BTreeSet<usize> = lint
                .outcome
                .findings
                .iter()
                .filter(|f| f.rule() == RuleId::R2a && f.tier() == Tier::HardEvent)
                .map(|f| f.evidence().last().unwrap().step())
                .collect();
            // SPEC §5: a search that found nothing exits 1 and is no failure (Codex records
            // `grep` with no match as exit code 1).
            let pairing = Pairing::new(trace);
            let convention: BTreeSet<usize> = failed
                .iter()
                .copied()
                .filter(|r| {
                    let call = pairing
                        .call_for(*r)
                        .and_then(|c| trace.steps()[c].as_call());
                    call.is_some_and(|c| format!("{:?}", c.args).contains("grep "))
                })
                .collect();
            let expected: BTreeSet<usize> = failed.difference(&convention).copied().collect();
            assert_eq!(
                events,
                expected,
                "{name} ({}): R2a hard events (left) vs results recorded as failed (right)",
                trace.run_id()
            );
            failures += expected.len();
        }
    }
    // 4 Codex (one a `codex exec --json` output), 8 Gemini CLI, 2 Cline, 1 Copilot CLI, 2 pi,
    // 2 Claude Code 2.1.332 files.
    assert_eq!(files, 19);
    // Codex 1 + 2 in the `codex exec --json` output (a command's exit code 1, an MCP call
    // that failed) (the other, a `grep` with no match, is the convention), Gemini CLI 7 + 14 in
    // the stream-json transcripts and their session log, Cline 2, Copilot CLI 3, pi 10,
    // Claude Code 3: the per-adapter count tests pin each file's.
    assert_eq!(failures, 42);
}
