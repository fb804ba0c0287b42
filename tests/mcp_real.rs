//! End-to-end tests against REAL MCP servers installed by `scripts/mcp-peers.sh` (its
//! `peers.json`, found through `$TRACELINT_MCP_PEERS`): every stdio and HTTP peer lists its tools
//! through the binary and a trace is linted against them; the tool counts equal the saved
//! `tools/list` results in `fixtures/real/mcp/`; a saved result of either era, used as a file
//! source, gives the same registry as the live server; every misbehaving server ends in exit 3
//! with a clear message within its timeout and leaves no process behind. Without the peers these
//! tests skip with a reason, except under `TRACELINT_FULL_TEST=1` (`./scripts/test`), where they
//! fail.

#![allow(clippy::print_stderr)]

mod mcp_support;

use std::time::{Duration, Instant};

use mcp_support::*;
use serde_json::{Value, json};
use tracelint::sources::{self, LoadOptions, SourceSpec};

#[test]
fn stdio_peers_list_and_lint() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let real: Vec<&Peer> = peers
        .stdio
        .iter()
        .filter(|p| !p.name.starts_with("misbehave"))
        .collect();
    // Acceptance 1 names these; the rest of peers.json comes along.
    for needed in [
        "everything",
        "filesystem",
        "time",
        "py-v2",
        "py-v1",
        "paginated",
    ] {
        assert!(
            real.iter().any(|p| p.name == needed),
            "peers.json lacks `{needed}`"
        );
    }
    all_of(
        &real,
        |p| p.name.clone(),
        |p| {
            let source = format!("mcp-stdio:{}", command_line(p, &[]));
            lint_against(&source, p, dir.path())
        },
    );
}

#[test]
fn stdio_registry_equals_saved_results_of_both_eras() {
    let Some(peers) = peers() else { return };
    let real: Vec<&Peer> = peers
        .stdio
        .iter()
        .filter(|p| !p.name.starts_with("misbehave"))
        .collect();
    all_of(
        &real,
        |p| p.name.clone(),
        |p| same_registry_as_saved(&SourceSpec::McpStdio(command_line(p, &[])), &p.name),
    );
}

#[test]
fn http_peers_list_and_lint_over_streamable_http_and_sse() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    for needed in [
        "everything-http",
        "everything-sse",
        "py-v2-http",
        "py-v1-http",
        "paginated-http",
    ] {
        assert!(
            peers.http.iter().any(|p| p.name == needed),
            "peers.json lacks `{needed}`"
        );
    }
    all_of(
        &peers.http,
        |p| p.name.clone(),
        |p| {
            let server = HttpServer::start(p);
            let source = format!("mcp-http:{}", server.url);
            lint_against(&source, p, dir.path())?;
            same_registry_as_saved(&SourceSpec::McpHttp(server.url.clone()), data_name(&p.name))?;
            // Which rung of the ladder answered.
            let opts = LoadOptions {
                timeout: Duration::from_secs(60),
                ..LoadOptions::default()
            };
            let notes = sources::load_with(&SourceSpec::McpHttp(server.url.clone()), &opts)
                .map_err(|e| e.to_string())?
                .notes;
            let want = if server.url.ends_with("/sse") {
                "over legacy HTTP+SSE"
            } else {
                "over Streamable HTTP"
            };
            if !notes[0].contains(want) {
                return Err(format!("expected {want}: {notes:?}"));
            }
            Ok(())
        },
    );
}

/// A misbehaviour case: the command line, the timeout, the exit code, what stderr must hold.
struct Case {
    name: &'static str,
    line: String,
    timeout: &'static str,
    exit: i32,
    stderr: Vec<String>,
    /// The marker to look for in `/proc` afterwards.
    marker: String,
    /// Seconds the whole run may take.
    within: u64,
}

#[test]
fn misbehaving_servers_fail_cleanly_and_leave_no_process() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    std::fs::write(&trace, r#"{"run_id": "r", "steps": [{"type": "tool_call", "id": "c", "name": "t1", "args": {"x": 5}}], "final": "f"}"#).unwrap();
    let misbehave = peers.fixture("misbehave.py");
    let garbage = dir.path().join("garbage.py");
    std::fs::write(&garbage, "import sys, time\nfor i in range(50):\n    print('garbage', i)\nsys.stdout.flush()\ntime.sleep(60)\n").unwrap();
    let huge = dir.path().join("huge.py");
    std::fs::write(&huge, "import sys, time\nsys.stdin.readline()\nsys.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"' + 'a' * (17 << 20) + '\"}}\\n')\nsys.stdout.flush()\ntime.sleep(60)\n").unwrap();
    let node = peers.stdio("everything").argv[0].clone();
    let q = |s: &str| shlex::try_quote(s).unwrap().into_owned();
    let case = |name: &'static str,
                cmd: String,
                timeout: &'static str,
                exit: i32,
                stderr: &[&str],
                within: u64| {
        let marker = marker(name);
        Case {
            name,
            line: format!("{cmd} {marker}"),
            timeout,
            exit,
            stderr: stderr.iter().map(|s| (*s).to_owned()).collect(),
            marker,
            within,
        }
    };
    let python = q(&peers.python());
    let py = |mode: &str| format!("{python} {} {mode}", q(&misbehave));
    let cases = vec![
        case(
            "silent",
            py("silent"),
            "2",
            3,
            &["timed out after 2 s waiting for server/discover; nothing on stderr"],
            5,
        ),
        case(
            "exit-early",
            py("exit-early"),
            "10",
            3,
            &[
                "server exited with status 3 before answering server/discover; last stderr lines: fatal: missing API_KEY",
            ],
            8,
        ),
        case(
            "die-after-init",
            py("die-after-init"),
            "10",
            3,
            &[
                "server exited with status 1 before answering tools/list page 1; last stderr lines: crash",
            ],
            8,
        ),
        case(
            "garbage",
            format!("{python} {}", q(&garbage.display().to_string())),
            "3",
            3,
            &[
                "timed out after 3 s waiting for server/discover; skipped 50 non-JSON lines on the server's stdout: `garbage 0`, `garbage 1`, `garbage 2`, …",
            ],
            6,
        ),
        case(
            "huge",
            format!("{python} {}", q(&huge.display().to_string())),
            "20",
            3,
            &[
                "server sent a reply line longer than 16777216 bytes while answering server/discover",
            ],
            15,
        ),
        case(
            "slow-start",
            format!("DELAY=5 {}", py("slow-start")),
            "2",
            3,
            &["timed out after 2 s waiting for server/discover"],
            6,
        ),
        case(
            "wrong-command",
            "/nonexistent/tracelint-mcp-server --stdio".into(),
            "10",
            3,
            &[
                "error: mcp-stdio `/nonexistent/tracelint-mcp-server --stdio",
                "cannot start server `/nonexistent/tracelint-mcp-server`: No such file or directory",
            ],
            3,
        ),
        case(
            "missing-script",
            format!("{} /nonexistent/missing.js", q(&node)),
            "10",
            3,
            &[
                "server exited with status 1 before answering server/discover; last stderr lines: ",
                "Cannot find module",
            ],
            8,
        ),
        // These answer: they must work, and still leave nothing behind.
        case(
            "slow-start-ok",
            format!("DELAY=1 {}", py("slow-start")),
            "15",
            2,
            &["1 tool from misbehave-slow-start 0 (MCP 2025-11-25, 1 page)"],
            10,
        ),
        case(
            "noisy-stdout",
            py("noisy-stdout"),
            "10",
            2,
            &["skipped 1 non-JSON line on the server's stdout: `Server starting... (v1.2.3)`"],
            8,
        ),
        case(
            "wrong-id",
            py("wrong-id"),
            "10",
            2,
            &["1 tool from misbehave-wrong-id"],
            8,
        ),
        case(
            "crlf-split",
            py("crlf-split"),
            "10",
            2,
            &["1 tool from misbehave-crlf-split"],
            8,
        ),
        // Ignores EOF and SIGTERM: only SIGKILL after 2 s + 2 s ends it.
        case(
            "ignore-eof",
            py("ignore-eof"),
            "10",
            2,
            &["1 tool from misbehave-ignore-eof"],
            10,
        ),
        // A wrapper whose background child ignores EOF and SIGTERM: the group kill must reach it.
        case(
            "wrapper",
            format!(
                "sh -c {} sh",
                q(&format!(
                    "{p} {m} ignore-eof $1-child </dev/null & exec {p} {m} crlf-split $1",
                    p = python,
                    m = q(&misbehave)
                ))
            ),
            "10",
            2,
            &["1 tool from misbehave-crlf-split"],
            8,
        ),
    ];
    all_of(
        &cases,
        |c| c.name.to_owned(),
        |c| {
            let started = Instant::now();
            let source = format!("mcp-stdio:{}", c.line);
            let out = tracelint(&[
                "check",
                &trace.display().to_string(),
                "--tools",
                &source,
                "--mcp-timeout",
                c.timeout,
            ]);
            let took = started.elapsed();
            eprintln!(
                "{:>15}: exit {:?} after {took:.2?}",
                c.name,
                out.status.code()
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            let mut problems = Vec::new();
            if out.status.code() != Some(c.exit) {
                problems.push(format!("exit {:?}, expected {}", out.status.code(), c.exit));
            }
            for want in &c.stderr {
                if !stderr.contains(want.as_str()) {
                    problems.push(format!("stderr lacks {want:?}"));
                }
            }
            if took > Duration::from_secs(c.within) {
                problems.push(format!("took {took:?}, more than {} s", c.within));
            }
            let left = processes_with(&c.marker);
            if !left.is_empty() {
                problems.push(format!("left processes behind: {left:?}"));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("{}\nstderr: {stderr}", problems.join("; ")))
            }
        },
    );
}

#[test]
fn http_errors_are_input_errors() {
    let Some(_peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    std::fs::write(&trace, r#"{"run_id": "r", "steps": [], "final": "f"}"#).unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", free_port());
    let out = tracelint(&[
        "check",
        &trace.display().to_string(),
        "--tools",
        &format!("mcp-http:{url}"),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: mcp-http `{url}`: cannot talk to {url} while waiting for server/discover: "
        )),
        "{stderr}"
    );
    let out = tracelint(&[
        "check",
        &trace.display().to_string(),
        "--tools",
        "mcp-http:http://127.0.0.1:1/mcp",
        "--header",
        "Accept: x",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("`--header Accept` cannot be set: tracelint sets it to speak MCP")
    );
}

#[test]
fn nested_models_resolve_local_refs() {
    let Some(peers) = peers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    let call = json!({"type": "tool_call", "id": "c", "name": "create_person",
        "args": {"person": {"name": "a", "home": {"street": "s", "city": 5}}}});
    std::fs::write(
        &trace,
        json!({"run_id": "r", "steps": [call], "final": "f"}).to_string(),
    )
    .unwrap();
    let source = format!("mcp-stdio:{}", command_line(peers.stdio("paginated"), &[]));
    let out = tracelint(&[
        "check",
        &trace.display().to_string(),
        "--tools",
        &source,
        "--output-format",
        "json",
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    // `person` is `{"$ref": "#/$defs/Person"}`, whose `home` is `#/$defs/Address`.
    assert_eq!(
        report["findings"][0]["message"],
        json!("/person/home/city: 5 is not of type \"string\"")
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn annotations_become_metadata_only_where_stated() {
    let Some(peers) = peers() else { return };
    let spec = SourceSpec::McpStdio(command_line(peers.stdio("py-v2"), &[]));
    let r = sources::load_with(&spec, &LoadOptions::default())
        .unwrap()
        .registry;
    let meta = |t: &str| {
        let m = &r.get(t).unwrap().metadata;
        (m.side_effecting, m.idempotent)
    };
    // readOnlyHint: true → not side-effecting.
    assert_eq!(meta("get_weather"), (Some(false), None));
    // readOnlyHint: false, destructiveHint + idempotentHint: true.
    assert_eq!(meta("delete_file"), (Some(true), Some(true)));
    // No annotations: undeclared, never the spec's pessimistic defaults.
    assert_eq!(meta("add"), (None, None));
    // The return type became `outputSchema`, kept on the spec.
    let out = r
        .get("get_weather")
        .unwrap()
        .output_schema
        .as_ref()
        .unwrap();
    assert_eq!(
        out["required"],
        json!(["city", "temperature_c", "conditions"])
    );
}

/// Call a tool of a stdio peer over real MCP (initialize, then `tools/call`) and return the
/// server's `CallToolResult`, exactly as it sent it.
fn call_tool(p: &Peer, tool: &str, arguments: Value) -> Value {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(&p.argv[0])
        .args(&p.argv[1..])
        .envs(p.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut reply = |id: i64| loop {
        let line = lines.next().expect("a reply").expect("a line");
        let v: Value = serde_json::from_str(&line).expect("JSON-RPC");
        if v["id"] == id {
            break v;
        }
    };
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "tracelint-test", "version": "0"}}}),
    );
    assert!(reply(1)["result"]["protocolVersion"].is_string());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}));
    let result = reply(2)["result"].clone();
    // Closing stdin ends the session.
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    result
}

/// R10 against a live server's `outputSchema`: the real time server's own result (its
/// `structuredContent`) conforms; the same result with a field the schema requires taken out
/// is a result-contract event.
#[test]
fn live_output_schema_feeds_r10() {
    let Some(peers) = peers() else { return };
    let time = peers.stdio("time");
    let result = call_tool(time, "get_current_time", json!({"timezone": "UTC"}));
    assert!(
        result["structuredContent"]["datetime"].is_string(),
        "the server returns structured content: {result}"
    );
    let dir = tempfile::tempdir().unwrap();
    let source = format!("mcp-stdio:{}", command_line(time, &[]));
    let lint = |content: &Value| {
        let trace = json!({"run_id": "time", "steps": [
            {"type": "message", "role": "user", "content": "what time is it in UTC?"},
            {"type": "tool_call", "call_id": "1", "name": "get_current_time", "args": {"timezone": "UTC"}},
            {"type": "tool_result", "call_id": "1", "content": content}]});
        let path = dir.path().join("trace.json");
        std::fs::write(&path, trace.to_string()).unwrap();
        let out = tracelint(&[
            "check",
            path.to_str().unwrap(),
            "--tools",
            &source,
            "--no-config",
            "--output-format",
            "json",
        ]);
        let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
        let r10: Vec<Value> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "R10")
            .cloned()
            .collect();
        let coverage = report["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["rule"] == "R10")
            .cloned()
            .unwrap();
        (r10, coverage)
    };
    let (found, coverage) = lint(&result);
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(
        (coverage["decided"].as_u64(), coverage["total"].as_u64()),
        (Some(1), Some(1))
    );
    let mut broken = result.clone();
    broken["structuredContent"]
        .as_object_mut()
        .unwrap()
        .remove("datetime");
    let (found, _) = lint(&broken);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["tier"], "hard_event");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("\"datetime\" is a required property"),
        "{}",
        found[0]["message"]
    );
}
