//! A reader that goes away (`tracelint check … | head -1`): the gate still decides. The run
//! goes on with its output dropped and exits with the status it decided (2 here: hard
//! defects), never 0 because the pipe closed.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_pipe_keeps_the_decided_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let trace: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("fixtures/demo/planted-r1-schema-violation.json"))
            .unwrap(),
    )
    .unwrap();
    // Far more output than a pipe buffer holds, so writing fails once the reader is gone.
    let mut lines = String::new();
    for i in 0..3000 {
        let mut t = trace.clone();
        t["run_id"] = format!("r{i}").into();
        lines.push_str(&t.to_string());
        lines.push('\n');
    }
    std::fs::write(dir.path().join("many.jsonl"), lines).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["check", "many.jsonl", "--tools"])
        .arg(root.join("fixtures/demo/tools.json"))
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("R1"), "{first}");
    // The reader is dropped here: every later write meets a closed pipe.
    let status = super::wait_or_hang(&mut child, "check with its reader gone");
    assert_eq!(status.code(), Some(2), "{status}");
}
