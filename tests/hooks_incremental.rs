//! `tracelint hook claude-code` reading a session while it grows (issue 45, acceptance 4 on a
//! smaller session, and build item 5's hostile cases). A Claude Code session made by
//! `scripts/hooklib.py` (built-in tools, failed results, a failed lookup's value used 20 to 60
//! calls later, schema violations) is written line by line, the hook running after each tool
//! result as Claude Code runs it, with a window far smaller than the session so that the
//! pinned lines and the state carry what the rules need. What it told must be told once, equal
//! what the hook tells reading the final file in one window, and be `tracelint check`'s
//! findings on that file. Then: a line still being written, a missing transcript, a corrupt or
//! stale state file, two hooks at once, an unwritable state directory.

use std::collections::{BTreeSet, HashMap};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_tracelint");

/// A session from `scripts/hooklib.py`, as lines.
fn session_lines(calls: usize, bytes: usize, seed: u32) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.jsonl");
    let status = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/hooklib.py"))
        .args(["session", out.to_str().unwrap()])
        .args([calls.to_string(), bytes.to_string(), seed.to_string()])
        .status()
        .expect("python3 runs scripts/hooklib.py");
    assert!(status.success());
    std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn event(path: &Path, name: &str) -> String {
    json!({"session_id": "s", "transcript_path": path, "cwd": path.parent().unwrap(),
           "hook_event_name": name, "stop_hook_active": false})
    .to_string()
}

/// Run the hook with `stdin`; (exit code, stdout, stderr).
fn hook(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(["hook", "claude-code", "--no-config"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The findings a `--log` file holds.
fn told(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn keys(findings: &[Value]) -> Vec<String> {
    findings
        .iter()
        .map(|f| f["key"].as_str().unwrap().to_owned())
        .collect()
}

struct Grown {
    dir: tempfile::TempDir,
    path: PathBuf,
    log: PathBuf,
    answers: usize,
}

/// Write `lines` one at a time, running the hook after each tool result (and, every fifth
/// time, while the next line is half written), then the Stop hook.
fn grow(lines: &[String], tail: &str) -> Grown {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let log = dir.path().join("told.jsonl");
    let state = dir.path().join("state");
    let args = [
        "--state-dir",
        state.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--tail-bytes",
        tail,
    ];
    let mut f = std::fs::File::create(&path).unwrap();
    let mut answers = 0;
    let mut results = 0;
    for (i, line) in lines.iter().enumerate() {
        f.write_all(line.as_bytes()).unwrap();
        f.write_all(b"\n").unwrap();
        if !line.contains("\"tool_result\"") {
            continue;
        }
        results += 1;
        // Every fifth time the next line is half written when the hook runs (then taken back:
        // the loop writes it whole).
        let half = lines.get(i + 1).filter(|_| results % 5 == 0);
        let before = f.metadata().unwrap().len();
        if let Some(next) = half {
            f.write_all(&next.as_bytes()[..next.len() / 2]).unwrap();
        }
        let (code, out, err) = hook(&args, &event(&path, "PostToolUse"));
        assert_eq!((code, err.as_str()), (0, ""), "after line {}", i + 1);
        answers += usize::from(!out.is_empty());
        if half.is_some() {
            f.set_len(before).unwrap();
            f.seek(std::io::SeekFrom::End(0)).unwrap();
        }
    }
    let (code, _, err) = hook(&args, &event(&path, "Stop"));
    assert_eq!((code, err.as_str()), (0, ""));
    Grown {
        dir,
        path,
        log,
        answers,
    }
}

/// What the hook tells reading `path` in one window (a fresh state).
fn one_window(path: &Path, dir: &Path) -> Vec<Value> {
    let log = dir.join("one.jsonl");
    let state = dir.join("state1");
    let (code, _, err) = hook(
        &[
            "--state-dir",
            state.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--tail-bytes",
            "1099511627776",
        ],
        &event(path, "Stop"),
    );
    assert_eq!((code, err.as_str()), (0, ""));
    told(&log)
}

/// `tracelint check`'s findings on `path`, by (rule, tier, line, column).
fn check(path: &Path) -> Vec<Value> {
    let out = Command::new(BIN)
        .args([
            "check",
            path.to_str().unwrap(),
            "--output-format",
            "json",
            "--no-config",
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["findings"].as_array().unwrap().clone()
}

fn spot(f: &Value) -> (String, String, u64, u64) {
    (
        f["rule"].as_str().unwrap().to_owned(),
        f["tier"].as_str().unwrap().to_owned(),
        f["line"].as_u64().unwrap(),
        f["column"].as_u64().unwrap(),
    )
}

#[test]
fn what_a_growing_session_tells_is_told_once_and_equals_the_whole_files_findings() {
    let lines = session_lines(160, 260_000, 9);
    // A window of 16 KB: the session is 16 times larger.
    let grown = grow(&lines, "16384");
    let told = told(&grown.log);
    let told_keys = keys(&told);
    let unique: BTreeSet<&String> = told_keys.iter().collect();
    assert_eq!(
        unique.len(),
        told_keys.len(),
        "a finding told twice: {told_keys:?}"
    );
    assert!(grown.answers > 0);

    let one: BTreeSet<String> = keys(&one_window(&grown.path, grown.dir.path()))
        .into_iter()
        .collect();
    let told_set: BTreeSet<String> = told_keys.iter().cloned().collect();
    assert_eq!(
        told_set, one,
        "told while growing (left), read in one window (right)"
    );

    let findings = check(&grown.path);
    let checked: BTreeSet<_> = findings.iter().map(spot).collect();
    for t in &told {
        assert!(checked.contains(&spot(t)), "told but not `check`'s: {t}");
    }
    // Every use of a failed lookup's value and every hard defect reached the agent, the
    // lookups' values across far more than the window.
    let must: BTreeSet<_> = findings
        .iter()
        .filter(|f| {
            f["tier"] == "hard_defect" || f["rule"] == "R2b" && f["signal"] == "used_after_failure"
        })
        .map(spot)
        .collect();
    let told_spots: BTreeSet<_> = told.iter().map(spot).collect();
    assert!(
        must.is_subset(&told_spots),
        "not told: {:?}",
        must.difference(&told_spots)
    );
    let by_rule = told.iter().fold(HashMap::<&str, usize>::new(), |mut m, t| {
        *m.entry(t["rule"].as_str().unwrap()).or_default() += 1;
        m
    });
    assert!(by_rule.get("R2b").is_some_and(|&n| n >= 2), "{by_rule:?}");
    assert!(by_rule.get("R2a").is_some_and(|&n| n >= 1), "{by_rule:?}");
}

/// A small session with one schema violation, as lines (the real Claude Code 2.1.332 session
/// of `fixtures/real/`: its `Bash` call with a number for `command`).
fn real_session() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real/claude-code-2.1.332/8c2fe29d-4fb3-446a-90f0-e1d1416fe640.jsonl"),
    )
    .unwrap()
}

#[test]
fn a_missing_transcript_is_silence_and_strict_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let missing = dir.path().join("gone.jsonl");
    let args = ["--state-dir", state.to_str().unwrap()];
    assert_eq!(
        hook(&args, &event(&missing, "PostToolUse")),
        (0, String::new(), String::new())
    );
    let (code, out, err) = hook(
        &[&args[..], &["--strict"]].concat(),
        &event(&missing, "Stop"),
    );
    assert_eq!((code, out.as_str()), (3, ""));
    assert!(err.contains("no such session file"), "{err}");
}

#[test]
fn a_corrupt_or_stale_state_is_rebuilt_and_nothing_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let path = dir.path().join("s.jsonl");
    let log = dir.path().join("told.jsonl");
    let args = [
        "--state-dir",
        state.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ];
    std::fs::write(&path, real_session()).unwrap();
    let (code, out, _) = hook(&args, &event(&path, "Stop"));
    assert_eq!(code, 0);
    assert!(out.contains("R1"), "{out}");
    let first = told(&log).len();
    // Told once: the same event again says nothing.
    assert_eq!(hook(&args, &event(&path, "Stop")).1, "");
    // A state file of garbage: read again from the start (the finding is told again).
    for f in std::fs::read_dir(&state).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_some_and(|e| e == "json") {
            std::fs::write(&f, b"\x00{not json").unwrap();
        }
    }
    let (code, out, err) = hook(&args, &event(&path, "Stop"));
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.contains("R1"), "{out}");
    // The session replaced by another, shorter one: its findings, not stale offsets.
    let other: String = real_session()
        .lines()
        .filter(|l| !l.contains("\"command\":7"))
        .take(20)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, other).unwrap();
    let (code, out, err) = hook(&args, &event(&path, "Stop"));
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    assert_eq!(told(&log).len(), 2 * first);
}

#[test]
fn two_hooks_of_one_session_at_once_tell_each_finding_once() {
    let lines = session_lines(60, 120_000, 6);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let state = dir.path().join("state");
    let logs = [dir.path().join("a.jsonl"), dir.path().join("b.jsonl")];
    let mut f = std::fs::File::create(&path).unwrap();
    for line in &lines {
        writeln!(f, "{line}").unwrap();
        if !line.contains("\"tool_result\"") {
            continue;
        }
        let children: Vec<_> = logs
            .iter()
            .map(|log| {
                let mut c = Command::new(BIN)
                    .args(["hook", "claude-code", "--no-config", "--state-dir"])
                    .arg(&state)
                    .arg("--log")
                    .arg(log)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                c.stdin
                    .take()
                    .unwrap()
                    .write_all(event(&path, "PostToolUse").as_bytes())
                    .unwrap();
                c
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
        }
    }
    let all: Vec<String> = logs.iter().flat_map(|l| keys(&told(l))).collect();
    let unique: BTreeSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), all.len(), "told twice: {all:?}");
    let one: BTreeSet<String> = keys(&one_window(&path, dir.path())).into_iter().collect();
    assert_eq!(unique.into_iter().cloned().collect::<BTreeSet<_>>(), one);
    assert!(!one.is_empty());
}

#[test]
fn an_internal_error_is_said_once_on_stderr_and_never_fails_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, real_session()).unwrap();
    // The state directory is a file: the hook cannot keep its state.
    let blocked = dir.path().join("blocked");
    std::fs::write(&blocked, b"").unwrap();
    let state = blocked.join("state");
    let args = ["--state-dir", state.to_str().unwrap()];
    let (code, out, err) = hook(&args, &event(&path, "PostToolUse"));
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("tracelint hook: cannot make"), "{err}");
    let (code, _, err) = hook(
        &[&args[..], &["--strict"]].concat(),
        &event(&path, "PostToolUse"),
    );
    assert_eq!(code, 3);
    assert!(err.contains("cannot make"), "{err}");
    // A bad event on stdin: one line, exit 0.
    let (code, out, err) = hook(
        &["--state-dir", dir.path().join("st").to_str().unwrap()],
        "{oops",
    );
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("not Claude Code's JSON"), "{err}");
}
