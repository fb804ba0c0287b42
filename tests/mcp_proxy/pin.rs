//! `mcp pin` / `mcp diff` and `proxy --pin` against real servers.
#![allow(unused_imports)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mcp_support::*;
use crate::support::*;

/// `mcp pin` a real server, then a patched copy of its lock as if the server had changed since:
/// the lock had another description for `echo`, no `b` argument on `get-sum`, and a tool the
/// server no longer has.
pub(crate) fn pinned_and_patched(peers: &Peers, dir: &Path) -> (String, String, String) {
    let source = format!("mcp-stdio:{}", command_line(peers.stdio("everything"), &[]));
    let lock = dir.join("tools.lock").display().to_string();
    let out = tracelint(&["mcp", "pin", &source, "-o", &lock]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(
        v["tools"].as_array().unwrap().len(),
        peers.stdio("everything").tools
    );
    assert!(
        v["tracelint_lock"]["server"]
            .as_str()
            .unwrap()
            .contains("everything")
    );
    for t in v["tools"].as_array_mut().unwrap() {
        assert!(t["digest"].as_str().unwrap().starts_with("sha256:"));
        if t["name"] == "echo" {
            t["description"] = "Echoes back the input string, and sends it home".into();
        }
        if t["name"] == "get-sum" {
            t["inputSchema"]["required"] = serde_json::json!(["a"]);
            t["inputSchema"]["properties"]
                .as_object_mut()
                .unwrap()
                .remove("b");
        }
    }
    v["tools"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "old-tool", "inputSchema": {"type": "object"}}));
    let patched = dir.join("patched.lock").display().to_string();
    std::fs::write(&patched, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    (source, lock, patched)
}

#[test]
pub(crate) fn mcp_diff_sees_a_changed_description_a_new_required_argument_and_a_removed_tool() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (source, lock, patched) = pinned_and_patched(&peers, dir.path());
    let same = tracelint(&["mcp", "diff", &lock, &source]);
    assert_eq!(same.status.code(), Some(0));
    assert!(
        same.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    let changed = tracelint(&["mcp", "diff", &patched, &source]);
    assert_eq!(changed.status.code(), Some(1));
    let text = String::from_utf8_lossy(&changed.stdout);
    let lines: Vec<&str> = text.lines().skip(1).map(str::trim).collect();
    assert_eq!(
        lines,
        [
            "removed tool `old-tool`",
            "`echo`: description changed: \"Echoes back the input string, and sends it home\" → \"Echoes back the input string\"",
            "`get-sum`: new required argument `b`",
        ],
        "{text}"
    );
    // The lock is a tools file: `check` reads it offline.
    let trace = dir.path().join("t.jsonl");
    std::fs::write(
        &trace,
        r#"{"run_id": "r", "steps": [{"type": "tool_call", "call_id": "1", "name": "get-sum", "args": {"a": 1}}]}"#,
    )
    .unwrap();
    let out = tracelint(&["check", &trace.display().to_string(), "--tools", &lock]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{report}");
    assert!(report.contains("R1 get-sum"), "{report}");
}

/// Speak to a proxy directly: initialize, initialized, tools/list; the tools/list answer.
pub(crate) fn listing_through(args: &[String]) -> (Value, String) {
    use std::io::{BufRead, Write};
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{}}}}"#
    )
    .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let answer = loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "no tools/list answer"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == 2 {
            break v;
        }
    };
    drop(stdin);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    child.wait().unwrap();
    (answer, err)
}

#[test]
pub(crate) fn proxy_pin_refuses_a_server_whose_tools_changed_and_pin_warn_only_warns() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_, lock, patched) = pinned_and_patched(&peers, dir.path());
    let server = argv(peers.stdio("everything"), &[]);
    let rec = dir.path().join("rec");
    let (ok, _) = listing_through(&proxied(&rec, &["--pin", &lock], &server));
    assert!(ok["result"]["tools"].is_array(), "{ok:#}");
    let (refused, err) = listing_through(&proxied(&rec, &["--pin", &patched], &server));
    let msg = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("differ from"), "{refused:#}");
    assert!(err.contains("new required argument `b`"), "{err}");
    let (warned, err) =
        listing_through(&proxied(&rec, &["--pin", &patched, "--pin-warn"], &server));
    assert!(warned["result"]["tools"].is_array(), "{warned:#}");
    assert!(err.contains("warning: the server's tools differ"), "{err}");
}
