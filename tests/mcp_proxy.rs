//! `tracelint mcp proxy` end to end, with a REAL client and REAL servers: the official MCP
//! Python SDK's client (`mcp` 2.3.0, from the peers' venv that `../shared/mcp-peers.sh` pins)
//! scripted as a tiny agent (`tests/mcp_proxy/agent.py`), talking to
//! `@modelcontextprotocol/server-everything` and `mcp-server-time` over stdio, once directly and
//! once through the proxy. The agent logs every raw line the SDK reads from the server; the
//! test compares the two logs. Without the peers these tests skip with a reason, except under
//! `TRACELINT_FULL_TEST=1` (`./scripts/test`), where they fail.

#![allow(clippy::print_stderr)]

mod mcp_support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mcp_support::*;
use serde_json::Value;

fn agent_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_proxy/agent.py")
        .display()
        .to_string()
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tracelint")
}

/// Run the agent over `server` (argv), with `calls` (JSON), logging the wire to `wire`.
fn agent(peers: &Peers, wire: &Path, calls: &str, extra: &[&str], server: &[String]) -> Output {
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
fn argv(p: &Peer, extra: &[&str]) -> Vec<String> {
    let mut v = Vec::new();
    if !p.env.is_empty() {
        v.push("env".to_owned());
        v.extend(p.env.iter().map(|(k, val)| format!("{k}={val}")));
    }
    v.extend(p.argv.iter().cloned());
    v.extend(extra.iter().map(|s| (*s).to_owned()));
    v
}

fn proxied(record: &Path, flags: &[&str], server: &[String]) -> Vec<String> {
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
fn normalise(text: &str) -> String {
    let re =
        regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?").unwrap();
    re.replace_all(text, "<TIME>").into_owned()
}

/// `check DIR --output-format json` with candidates, parsed.
fn check_json(dir: &Path) -> (Option<i32>, Value) {
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

fn records(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// The steps of a record, in order.
fn steps(record: &Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .unwrap()
        .lines()
        .flat_map(|l| {
            let v: Value = serde_json::from_str(l).expect("each record line is JSON");
            v["steps"].as_array().cloned().unwrap_or_default()
        })
        .collect()
}

const EVERYTHING_CALLS: &str = r#"[["echo", {"message": "hello"}], ["get-sum", {"a": 2, "b": 3}],
 ["get-structured-content", {"location": "New York"}], ["get-annotated-message", {"messageType": "error"}],
 ["echo", {"message": "again"}]]"#;
const TIME_CALLS: &str = r#"[["get_current_time", {"timezone": "Europe/London"}],
 ["convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}],
 ["get_current_time", {"timezone": "Not/AZone"}]]"#;

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

fn similar_eq(name: &str, a: &str, b: &str) {
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

/// `mcp pin` a real server, then a patched copy of its lock as if the server had changed since:
/// the lock had another description for `echo`, no `b` argument on `get-sum`, and a tool the
/// server no longer has.
fn pinned_and_patched(peers: &Peers, dir: &Path) -> (String, String, String) {
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
fn mcp_diff_sees_a_changed_description_a_new_required_argument_and_a_removed_tool() {
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
fn listing_through(args: &[String]) -> (Value, String) {
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
fn proxy_pin_refuses_a_server_whose_tools_changed_and_pin_warn_only_warns() {
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

/// A proxy process, killed on drop.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn over_streamable_http_replies_are_byte_identical_and_recorded_per_session() {
    let Some(peers) = peers() else { return };
    let peer = peers
        .http
        .iter()
        .find(|p| p.name == "everything-http")
        .expect("peers.json lacks `everything-http`");
    let server = HttpServer::start(peer);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let _proxy = Running(
        Command::new(bin())
            .args([
                "mcp",
                "proxy",
                "--listen",
                &listen,
                "--upstream",
                &server.url,
                "--record",
            ])
            .arg(&rec)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let until = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(&listen).is_err() {
        assert!(Instant::now() < until, "the proxy did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let through_url = server.url.replacen(
        &server.url["http://".len()..]
            .split('/')
            .next()
            .unwrap()
            .to_owned(),
        &listen,
        1,
    );
    let direct = dir.path().join("direct.wire");
    let through = dir.path().join("proxy.wire");
    let a = agent(
        &peers,
        &direct,
        EVERYTHING_CALLS,
        &["--http", &server.url],
        &[],
    );
    let b = agent(
        &peers,
        &through,
        EVERYTHING_CALLS,
        &["--http", &through_url],
        &[],
    );
    let (wd, wp) = (
        std::fs::read_to_string(&direct).unwrap(),
        std::fs::read_to_string(&through).unwrap(),
    );
    assert!(wd.lines().count() >= 7, "{wd}");
    // Over HTTP each request has its own stream, and the server's notifications come on the GET
    // stream: their order against the answers is not defined, and one the server sends before
    // the GET stream is open is dropped (both vary on direct connections too, run to run). So
    // the answers (lines with an `id`) are compared byte for byte and in order; notifications
    // only have to be notifications.
    let split = |w: &str| -> (String, Vec<String>) {
        let (mut answers, mut others) = (String::new(), Vec::new());
        for l in w.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            if v.get("id").is_some() {
                answers.push_str(l);
                answers.push('\n');
            } else {
                others.push(l.to_owned());
            }
        }
        others.sort();
        (answers, others)
    };
    let ((ad, od), (ap, op)) = (split(&wd), split(&wp));
    similar_eq("everything-http", &normalise(&ad), &normalise(&ap));
    for n in od.iter().chain(&op) {
        let v: Value = serde_json::from_str(n).unwrap();
        assert!(
            v["method"]
                .as_str()
                .is_some_and(|m| m.starts_with("notifications/")),
            "{n}"
        );
    }
    assert_eq!(a.stdout, b.stdout);
    let files = records(&rec);
    assert_eq!(files.len(), 1, "one MCP session, one record: {files:?}");
    let st = steps(&files[0]);
    assert_eq!(st.iter().filter(|s| s["type"] == "tool_result").count(), 5);
    let (code, report) = check_json(&rec);
    assert_eq!(code, Some(0), "{report:#}");
    assert!(
        report["findings"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
}

/// Record `runs` sessions of the example agent loop (`scripts/mcp-scorecard/agent_loop.py`)
/// under `policy`, with `fault` injected at the first call (or none).
fn agent_loop(peers: &Peers, policy: &str, runs: u32, fault: Option<&str>, rec: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp-scorecard/agent_loop.py");
    let mut cmd = Command::new(peers.python());
    cmd.arg(script)
        .args(["--policy", policy, "--runs", &runs.to_string(), "--record"])
        .arg(rec)
        .args(["--tracelint", bin()]);
    if let Some(f) = fault {
        cmd.args(["--inject", f]);
    }
    cmd.arg("--").args(argv(peers.stdio("everything"), &[]));
    let out = cmd.stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn scorecard_of_recorded_runs_separates_a_robust_from_a_buggy_client() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp-scorecard/oracle.toml");
    let cards: Vec<Value> = std::thread::scope(|s| {
        let jobs: Vec<_> = ["robust", "buggy"]
            .into_iter()
            .map(|policy| {
                let (peers, dir, oracle) = (&peers, dir.path(), &oracle);
                s.spawn(move || {
                    let rec = dir.join(policy);
                    agent_loop(peers, policy, 5, None, &rec);
                    for fault in ["error", "denied"] {
                        agent_loop(peers, policy, 30, Some(fault), &rec);
                    }
                    let html = dir.join(format!("{policy}.html"));
                    let out = tracelint(&[
                        "scorecard",
                        "--runs",
                        &rec.display().to_string(),
                        "--oracle",
                        &oracle.display().to_string(),
                        "--output-format",
                        "json",
                        "--html",
                        &html.display().to_string(),
                    ]);
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    assert!(std::fs::read_to_string(&html).unwrap().contains("<table>"));
                    serde_json::from_slice::<Value>(&out.stdout).unwrap()
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    });
    let (robust, buggy) = (&cards[0], &cards[1]);
    for card in [robust, buggy] {
        assert_eq!(card["recovery"], "correctness", "{card:#}");
        assert_eq!(card["baseline"]["measured"], true, "{card:#}");
        assert_eq!(card["baseline"]["runs"], 5, "{card:#}");
        assert!(card["unscored"].as_array().unwrap().is_empty(), "{card:#}");
    }
    let row = |card: &Value, f: &str| -> Value {
        card["faults"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["fault"] == f)
            .cloned()
            .unwrap_or_else(|| panic!("no `{f}` row: {card:#}"))
    };
    for fault in ["error", "denied"] {
        let (r, b) = (row(robust, fault), row(buggy, fault));
        assert_eq!(
            (r["total"].as_u64(), b["total"].as_u64()),
            (Some(30), Some(30))
        );
        assert!(
            r["ci_low"].as_f64().unwrap() > b["ci_high"].as_f64().unwrap(),
            "{fault}: robust {r} vs buggy {b}"
        );
    }
}
