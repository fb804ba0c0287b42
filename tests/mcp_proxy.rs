//! `tracelint mcp proxy` end to end, with a REAL client and REAL servers: the official MCP
//! Python SDK's client (`mcp` 2.3.0, from the peers' venv that `scripts/mcp-peers.sh` pins)
//! scripted as a tiny agent (`tests/mcp_proxy/agent.py`), talking to
//! `@modelcontextprotocol/server-everything` and `mcp-server-time` over stdio, once directly and
//! once through the proxy. The agent logs every raw line the SDK reads from the server; the
//! test compares the two logs. Without the peers these tests skip with a reason, except under
//! `TRACELINT_FULL_TEST=1` (`./scripts/test`), where they fail.

#![allow(clippy::print_stderr)]

#[path = "mcp_proxy/http.rs"]
mod http;
mod mcp_support;
#[path = "mcp_proxy/pin.rs"]
mod pin;
#[path = "mcp_proxy/support.rs"]
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_support::*;
use serde_json::Value;
use support::*;

#[test]
fn replies_through_the_proxy_are_byte_identical_and_the_record_lints_clean() {
    let Some(peers) = peers() else { return };
    for (name, calls, n) in [("everything", EVERYTHING_CALLS, 5), ("time", TIME_CALLS, 3)] {
        let dir = tempfile::tempdir().unwrap();
        let server = argv(peers.stdio(name), &[]);
        let direct = dir.path().join("direct.wire");
        let through = dir.path().join("proxy.wire");
        let rec = dir.path().join("rec");
        let a = agent(&peers, &direct, calls, &[], &server);
        let b = agent(&peers, &through, calls, &[], &proxied(&rec, &[], &server));
        let (wd, wp) = (
            std::fs::read_to_string(&direct).unwrap(),
            std::fs::read_to_string(&through).unwrap(),
        );
        assert!(wd.lines().count() >= n + 2, "{name}: {wd}");
        similar_eq(name, &normalise(&wd), &normalise(&wp));
        // What the SDK made of them, too.
        assert_eq!(
            normalise(&String::from_utf8_lossy(&a.stdout)),
            normalise(&String::from_utf8_lossy(&b.stdout)),
            "{name}"
        );
        // One record, every call and its result in it, and it lints with no finding at all.
        let files = records(&rec);
        assert_eq!(files.len(), 1, "{name}: {files:?}");
        let st = steps(&files[0]);
        let calls_seen = st.iter().filter(|s| s["type"] == "tool_call").count();
        let results = st.iter().filter(|s| s["type"] == "tool_result").count();
        assert_eq!((calls_seen, results), (n, n), "{name}");
        let (code, report) = check_json(&rec);
        let findings = report["findings"].as_array().unwrap();
        let issues = report["issues"].as_array().map_or(0, Vec::len);
        // The time server's unknown zone is a real tool error (`isError`): R2a reports it and R2b
        // notes that the agent did not retry it. That is the agent's run, not the recording's.
        let agents = |f: &&Value| name == "time" && (f["rule"] == "R2a" || f["rule"] == "R2b");
        if name == "time" {
            let r2a = findings.iter().filter(|f| f["rule"] == "R2a").count();
            assert_eq!(r2a, 1, "the unknown zone's structured error: {report:#}");
        }
        let not_real: Vec<&Value> = findings.iter().filter(|f| !agents(f)).collect();
        assert!(not_real.is_empty(), "{name}: {not_real:#?}");
        assert_eq!(issues, 0, "{name}: {report:#}");
        assert!(code == Some(0), "{name}: exit {code:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(text.contains("\"server_info\""), "{name}: no server info");
        assert!(
            text.contains("\"protocol_version\""),
            "{name}: no protocol version"
        );
        assert!(text.contains("\"tools\":["), "{name}: no tools/list");
    }
}

pub(crate) fn similar_eq(name: &str, a: &str, b: &str) {
    if a != b {
        for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
            if x != y {
                panic!(
                    "{name}: line {} differs:\n direct: {x}\n proxy:  {y}",
                    i + 1
                );
            }
        }
        panic!(
            "{name}: {} lines direct, {} through the proxy",
            a.lines().count(),
            b.lines().count()
        );
    }
}

#[test]
fn killing_the_agent_mid_session_keeps_every_completed_step_and_leaves_no_server() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("proxy-kill");
    // The everything server ignores a trailing argument: the marker names it in `/proc`.
    let server = argv(peers.stdio("everything"), &[&mark]);
    let rec = dir.path().join("rec");
    let mut cmd = Command::new(peers.python());
    cmd.arg(agent_script())
        .arg("--wire")
        .arg(dir.path().join("w"))
        .arg("--calls")
        .arg(EVERYTHING_CALLS)
        .args(["--pause-after", "2", "--"])
        .args(proxied(&rec, &[], &server))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let until = Instant::now() + Duration::from_secs(60);
    let mut line = String::new();
    loop {
        line.clear();
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        assert!(!line.is_empty(), "the agent ended before pausing");
        if line.contains("\"paused\"") {
            break;
        }
        assert!(Instant::now() < until, "the agent never paused");
    }
    assert!(
        !processes_with(&mark).is_empty(),
        "the server should be running"
    );
    child.kill().unwrap();
    let _ = child.wait();
    // The proxy sees its stdin close and ends the server (2 s grace, then the group).
    let until = Instant::now() + Duration::from_secs(60);
    while !processes_with(&mark).is_empty() {
        assert!(
            Instant::now() < until,
            "left behind: {:?}",
            processes_with(&mark)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let files = records(&rec);
    assert_eq!(files.len(), 1);
    let st = steps(&files[0]);
    let kinds: Vec<&str> = st.iter().map(|s| s["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["tool_call", "tool_result", "tool_call", "tool_result"]
    );
    let (code, report) = check_json(&rec);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["summary"]["tool_calls"], 2, "{report:#}");
    assert_eq!(report["summary"]["input_errors"], 0, "{report:#}");
}

/// The injection run's outcome: the client's lines, and the record's steps without what varies
/// (timestamps, durations).
fn injected_run(peers: &Peers, seed: &str) -> (String, Vec<Value>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let server = argv(peers.stdio("everything"), &[]);
    let out = agent(
        peers,
        &dir.path().join("w"),
        EVERYTHING_CALLS,
        &[],
        &proxied(
            &rec,
            &["--inject", "error", "--at", "2", "--seed", seed],
            &server,
        ),
    );
    let files = records(&rec);
    assert_eq!(files.len(), 1);
    let mut st = steps(&files[0]);
    for s in &mut st {
        let m = s["meta"].as_object_mut().unwrap();
        m.remove("timestamp");
        m.remove("duration_ms");
    }
    let (_, report) = check_json(&rec);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        st,
        report,
    )
}

#[test]
fn an_injected_error_at_call_2_is_seen_tagged_reported_and_reproducible() {
    let Some(peers) = peers() else { return };
    let (client, st, report) = injected_run(&peers, "1");
    let lines: Vec<Value> = client
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = |n: u64| lines.iter().find(|l| l["call"] == n).unwrap();
    assert_eq!(call(2)["result"]["is_error"], true, "{client}");
    assert_eq!(call(1)["result"]["is_error"], false, "{client}");
    assert_eq!(call(3)["result"]["is_error"], false, "{client}");
    // Tagged, with what the server really said.
    let results: Vec<&Value> = st.iter().filter(|s| s["type"] == "tool_result").collect();
    let injected: Vec<&&Value> = results
        .iter()
        .filter(|s| s["meta"]["injected"] == true)
        .collect();
    assert_eq!(injected.len(), 1);
    let r = injected[0];
    assert_eq!(r["meta"]["fault_injection_id"], "error:call-2:seed-1");
    assert_eq!(r["status"], "error");
    let real = &r["mcp"]["server_answer"]["result"]["content"][0]["text"];
    assert!(real.as_str().unwrap().contains("5"), "{r:#}");
    // check: an R2a hard_event at the second call's result.
    let r2a: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "R2a")
        .collect();
    assert_eq!(r2a.len(), 1, "{report:#}");
    assert_eq!(r2a[0]["tier"], "hard_event");
    assert_eq!(r2a[0]["tool"], "get-sum");
    // The same seed, the same run.
    let (client2, st2, _) = injected_run(&peers, "1");
    assert_eq!(client, client2);
    assert_eq!(st, st2);
}

#[test]
fn a_timeout_holds_the_reply_until_the_client_gives_up() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let server = argv(peers.stdio("time"), &[]);
    let out = agent(
        &peers,
        &dir.path().join("w"),
        TIME_CALLS,
        &["--timeout", "1.5"],
        &proxied(
            &rec,
            &["--inject", "timeout", "--at", "1", "--hold", "30"],
            &server,
        ),
    );
    let client = String::from_utf8_lossy(&out.stdout);
    let first: Value =
        serde_json::from_str(client.lines().find(|l| l.contains("\"call\": 1")).unwrap()).unwrap();
    assert!(first.get("exception").is_some(), "{client}");
    // The session went on.
    assert!(client.contains("\"call\": 2, \"result\""), "{client}");
    let st = steps(&records(&rec)[0]);
    let r = st
        .iter()
        .find(|s| s["type"] == "tool_result" && s["call_id"] == "3")
        .expect("the held call is recorded once the client gave up");
    assert_eq!(r["meta"]["injected"], true, "{r:#}");
    assert!(r["error"].as_str().unwrap().contains("timed out"), "{r:#}");
}

#[test]
fn sigterm_to_the_proxy_ends_the_server_group_and_exits_143() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("proxy-term");
    let server = argv(peers.stdio("everything"), &[&mark]);
    let args = proxied(&dir.path().join("rec"), &[], &server);
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    // The proxy and the server (node) both carry the marker.
    while processes_with(&mark).len() < 2 {
        assert!(Instant::now() < until, "the server never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    let until = Instant::now() + Duration::from_secs(60);
    while !processes_with(&mark).is_empty() {
        assert!(
            Instant::now() < until,
            "left behind: {:?}",
            processes_with(&mark)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
