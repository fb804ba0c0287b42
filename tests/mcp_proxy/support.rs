//! What the proxy tests share: the agent, the proxied command lines, the record readers.
#![allow(dead_code, unused_imports)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mcp_support::*;

pub(crate) fn agent_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_proxy/agent.py")
        .display()
        .to_string()
}

pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tracelint")
}

/// Run the agent over `server` (argv), with `calls` (JSON), logging the wire to `wire`.
pub(crate) fn agent(
    peers: &Peers,
    wire: &Path,
    calls: &str,
    extra: &[&str],
    server: &[String],
) -> Output {
    let mut cmd = Command::new(peers.python());
    cmd.arg(agent_script())
        .arg("--wire")
        .arg(wire)
        .arg("--calls")
        .arg(calls)
        .args(extra)
        .arg("--")
        .args(server)
        .stdin(Stdio::null());
    let out = cmd.output().expect("the agent runs");
    assert!(
        out.status.success(),
        "the agent failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The peer's argv with its environment in front (through `env`, no shell).
pub(crate) fn argv(p: &Peer, extra: &[&str]) -> Vec<String> {
    let mut v = Vec::new();
    if !p.env.is_empty() {
        v.push("env".to_owned());
        v.extend(p.env.iter().map(|(k, val)| format!("{k}={val}")));
    }
    v.extend(p.argv.iter().cloned());
    v.extend(extra.iter().map(|s| (*s).to_owned()));
    v
}

pub(crate) fn proxied(record: &Path, flags: &[&str], server: &[String]) -> Vec<String> {
    let mut v = vec![
        bin().to_owned(),
        "mcp".into(),
        "proxy".into(),
        "--record".into(),
    ];
    v.push(record.display().to_string());
    v.extend(flags.iter().map(|s| (*s).to_owned()));
    v.push("--".into());
    v.extend(server.iter().cloned());
    v
}

/// What is inherently variable between two runs, replaced: ISO timestamps (the time server
/// answers with the current time). Nothing else is touched.
pub(crate) fn normalise(text: &str) -> String {
    let re =
        regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?").unwrap();
    re.replace_all(text, "<TIME>").into_owned()
}

/// `check DIR --output-format json` with candidates, parsed.
pub(crate) fn check_json(dir: &Path) -> (Option<i32>, Value) {
    let out = tracelint(&[
        "check",
        &dir.display().to_string(),
        "--output-format",
        "json",
        "--include-candidates",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check's JSON: {e}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

pub(crate) fn records(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// The steps of a record, in order.
pub(crate) fn steps(record: &Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .flat_map(|l| {
            let v: Value = serde_json::from_str(l).expect("each record line is JSON");
            v["steps"].as_array().cloned().unwrap_or_default()
        })
        .collect()
}

pub(crate) const EVERYTHING_CALLS: &str = r#"[["echo", {"message": "hello"}], ["get-sum", {"a": 2, "b": 3}],
 ["get-structured-content", {"location": "New York"}], ["get-annotated-message", {"messageType": "error"}],
 ["echo", {"message": "again"}]]"#;
pub(crate) const TIME_CALLS: &str = r#"[["get_current_time", {"timezone": "Europe/London"}],
 ["convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}],
 ["get_current_time", {"timezone": "Not/AZone"}]]"#;
