//! The hook in the real coding-agent CLIs (issue 45, acceptance 1 and 2), run offline against
//! `scripts/fake-model-api.py` by `scripts/hooklib.py agent`, with the hook written into their
//! settings by `tracelint hook install`: Claude Code 2.1.332, Gemini CLI 0.61.0, Codex 0.171.0.
//! A scripted model calls a tool that fails (an MCP `lookup` whose error carries a retry token;
//! for Codex a command that exits 1), then goes on with what failed (the token): the hook's
//! words must be in the next request the CLI sends to the model (Gemini CLI records a call once
//! it is done, so there they come with the call after), and for Codex, which gives its `notify`
//! program no way back, in the report. A clean scripted session gets nothing from the hook.
//!
//! The CLIs are installed from npm into `~/.cache/tracelint-cli` (`TRACELINT_CLI_CACHE`) by
//! `python3 scripts/hooklib.py install` (`scripts/test` runs it). A CLI missing there skips its
//! test with a reason, except under `TRACELINT_FULL_TEST=1`, where the test installs it and a
//! failure to is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_tracelint");

/// The pinned releases (`PINNED` in scripts/hooklib.py) and their executables.
const AGENTS: &[(&str, &str, &str)] = &[
    ("claude-code", "2.1.332", "claude"),
    ("gemini-cli", "0.61.0", "gemini"),
    ("codex", "0.171.0", "codex"),
];

fn full_test() -> bool {
    std::env::var("TRACELINT_FULL_TEST").is_ok_and(|v| v == "1")
}

fn installed(agent: &str) -> bool {
    let cache = std::env::var_os("TRACELINT_CLI_CACHE").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache")
                .join("tracelint-cli")
        },
        PathBuf::from,
    );
    let (_, version, bin) = AGENTS.iter().find(|(a, ..)| *a == agent).unwrap();
    cache
        .join(format!("{agent}-{version}"))
        .join("node_modules/.bin")
        .join(bin)
        .exists()
}

/// Run `agent` on `scenario`; `None` (said on stderr) when the CLI is not installed and this is
/// not a full test run.
#[allow(clippy::print_stderr)]
fn run(agent: &str, scenario: &str) -> Option<Value> {
    if !installed(agent) && !full_test() {
        eprintln!(
            "skipped: {agent} is not installed in the CLI cache; `python3 scripts/hooklib.py install` (or ./scripts/test) installs it"
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result.json");
    let status = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/hooklib.py"))
        .args(["agent", agent, scenario, BIN])
        .arg(&out)
        .status()
        .expect("python3 runs scripts/hooklib.py");
    assert!(
        status.success(),
        "scripts/hooklib.py agent {agent} {scenario} failed"
    );
    Some(serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap())
}

fn told(result: &Value) -> Vec<Value> {
    result["told"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l.as_str().unwrap()).unwrap())
        .collect()
}

/// The requests that offered the model tools (its turns), as JSON text.
fn turns(result: &Value) -> Vec<String> {
    result["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| {
            b["tools"].as_array().is_some_and(|t| {
                t.iter()
                    .any(|t| t.get("functionDeclarations").is_some() || t.get("name").is_some())
            })
        })
        .map(Value::to_string)
        .collect()
}

/// Does a request carry words of the hook (`tracelint <tier> <rule> …`)?
fn spoke(turn: &str) -> bool {
    [
        "tracelint hard_defect ",
        "tracelint hard_event ",
        "tracelint candidate ",
    ]
    .iter()
    .any(|w| turn.contains(w))
}

/// The first turn whose request carries the hook's words about `rule`, and that it is the one
/// right after the call the words came with (`after`: text of that call's result).
fn first_told_turn(result: &Value, rule: &str, after: &str) -> String {
    let turns = turns(result);
    let i = turns
        .iter()
        .position(|t| spoke(t) && t.contains(&format!(" {rule} ")))
        .unwrap_or_else(|| panic!("no request carries the hook's words: {}", result["output"]));
    assert!(
        turns[..i].iter().all(|t| !spoke(t)),
        "the hook spoke before the call it was about"
    );
    assert!(
        turns[i].contains(after),
        "the words came with another call: {}",
        turns[i]
    );
    turns[i].clone()
}

fn assert_clean(result: &Value) {
    assert_eq!(result["exit"], 0, "{}", result["output"]);
    assert!(told(result).is_empty(), "{:?}", told(result));
    for t in turns(result) {
        assert!(!spoke(&t), "the hook spoke in a clean session: {t}");
    }
    assert!(
        result["state_files"]
            .as_array()
            .is_some_and(|f| !f.is_empty()),
        "the hook never ran"
    );
}

#[test]
fn claude_code_reads_the_hooks_words_in_its_next_request() {
    let Some(result) = run("claude-code", "failing") else {
        return;
    };
    assert_eq!(result["exit"], 0, "{}", result["output"]);
    let told = told(&result);
    let r2b = told
        .iter()
        .find(|t| t["rule"] == "R2b")
        .unwrap_or_else(|| panic!("no R2b told: {told:?}"));
    assert_eq!(r2b["tool"], "mcp__orders__refund");
    assert!(r2b["message"].as_str().unwrap().contains("tok-5a1b2c3d"));
    // After the refund call (its result is `queued`), the model reads what the hook said.
    let turn = first_told_turn(&result, "R2b", "queued");
    assert!(
        turn.contains("tok-5a1b2c3d") && turn.contains("mcp__orders__lookup"),
        "{turn}"
    );
    // The failed lookup the next call did not deal with is told too.
    assert!(
        told.iter()
            .any(|t| t["rule"] == "R2a" && t["tool"] == "mcp__orders__lookup")
    );
}

#[test]
fn claude_code_clean_session_gets_no_hook_output() {
    let Some(result) = run("claude-code", "clean") else {
        return;
    };
    assert_clean(&result);
}

#[test]
fn gemini_cli_reads_the_hooks_words_with_the_next_result() {
    let Some(result) = run("gemini-cli", "failing") else {
        return;
    };
    assert_eq!(result["exit"], 0, "{}", result["output"]);
    // Gemini CLI hands an MCP tool's error to the model as text (`MCP tool 'lookup' reported
    // tool error … with response: …`): no structured value for R2b to follow, in the hook as in
    // `check`. What the hook tells is the failed lookup the refund call went on from.
    let told = told(&result);
    let failed = told
        .iter()
        .find(|t| t["rule"] == "R2a")
        .unwrap_or_else(|| panic!("no failed call told: {told:?}"));
    assert_eq!(failed["tool"], "mcp_orders_lookup");
    assert_eq!(failed["next"][0], "mcp_orders_refund");
    // Appended to the result of the call after the refund (`read_file` of notes.txt): Gemini
    // CLI records a call once it is done, so the refund is seen one call later.
    let turn = first_told_turn(&result, "R2a", "notes: the build passes");
    assert!(
        turn.contains("hook_context") && turn.contains("mcp_orders_refund"),
        "{turn}"
    );
}

#[test]
fn gemini_cli_clean_session_gets_no_hook_output() {
    let Some(result) = run("gemini-cli", "clean") else {
        return;
    };
    assert_clean(&result);
}

#[test]
fn codex_notify_writes_a_report_naming_the_failed_call() {
    let Some(result) = run("codex", "failing") else {
        return;
    };
    assert_eq!(result["exit"], 0, "{}", result["output"]);
    let report: Vec<Value> = result["report"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_str().unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let failed = report
        .iter()
        .find(|f| f["rule"] == "R2a")
        .unwrap_or_else(|| {
            panic!(
                "no failed call in the report: {report:?} {}",
                result["output"]
            )
        });
    assert_eq!(failed["tool"], "exec_command");
    assert!(
        failed["message"].as_str().unwrap().contains("exit code 1"),
        "{failed}"
    );
    assert_eq!(failed["next"][0], "exec_command");
    // Nothing reached the model: Codex has no way for it.
    for t in turns(&result) {
        assert!(!spoke(&t), "{t}");
    }
}

#[test]
fn codex_clean_session_gets_no_report() {
    let Some(result) = run("codex", "clean") else {
        return;
    };
    assert_eq!(result["exit"], 0, "{}", result["output"]);
    assert!(
        result["report"].as_array().unwrap().is_empty(),
        "{}",
        result["report"]
    );
}
