//! The proxy over Streamable HTTP, and the scorecard of runs it recorded.
#![allow(unused_imports)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mcp_support::*;
use crate::similar_eq;
use crate::support::*;

/// A proxy process, killed on drop.
pub(crate) struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
pub(crate) fn over_streamable_http_replies_are_byte_identical_and_recorded_per_session() {
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
pub(crate) fn agent_loop(peers: &Peers, policy: &str, runs: u32, fault: Option<&str>, rec: &Path) {
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
pub(crate) fn scorecard_of_recorded_runs_separates_a_robust_from_a_buggy_client() {
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
                        "--recorded",
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
