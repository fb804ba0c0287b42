//! Unit tests of stdio framing over in-memory pipes, command-line splitting, and process handling
//! with `sh` (the real servers are in `tests/mcp_real.rs`).

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;
use crate::sources::mcp::Transport;

fn soon(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

#[test]
fn split_like_a_shell() {
    let c =
        split_command(r#"A=1 B_2='x y' node "dir with space/i.js" --flag 'it''s' \$HOME"#).unwrap();
    assert_eq!(
        c.env,
        [("A".into(), "1".into()), ("B_2".into(), "x y".into())]
    );
    assert_eq!(c.program, "node");
    assert_eq!(c.args, ["dir with space/i.js", "--flag", "its", "$HOME"]);
    // `=` after the program is an argument; a word that is not a name is the program.
    let c = split_command("env X=1 =y").unwrap();
    assert_eq!((c.program.as_str(), c.args.len()), ("env", 2));
    let c = split_command("1A=x prog").unwrap();
    assert_eq!(c.program, "1A=x");
    assert!(
        split_command("node 'unclosed")
            .unwrap_err()
            .contains("unclosed quote")
    );
    assert!(
        split_command("  ")
            .unwrap_err()
            .starts_with("empty command")
    );
    assert!(
        split_command("A=1")
            .unwrap_err()
            .starts_with("empty command")
    );
}

#[test]
fn environment_values_are_not_shown() {
    assert_eq!(
        display_command("GITHUB_TOKEN=ghp_secret A='x y' node 'my dir/s.js' --x"),
        "GITHUB_TOKEN=… A=… node 'my dir/s.js' --x"
    );
    assert_eq!(display_command(" node s.js "), "node s.js");
}

#[test]
fn bounded_lines() {
    let mut r = BufReader::with_capacity(4, &b"ab\ncdefgh\nij"[..]);
    let mut buf = Vec::new();
    assert_eq!(
        read_line_bounded(&mut r, &mut buf, 5).unwrap(),
        LineEnd::Line
    );
    assert_eq!(buf, b"ab");
    assert_eq!(
        read_line_bounded(&mut r, &mut buf, 5).unwrap(),
        LineEnd::TooLong
    );
    assert_eq!(buf, b"cdefg");
    let mut rest = String::new();
    r.read_line(&mut rest).unwrap();
    assert_eq!(rest, "h\n");
    assert_eq!(
        read_line_bounded(&mut r, &mut buf, 5).unwrap(),
        LineEnd::Line
    );
    assert_eq!(buf, b"ij");
    assert_eq!(
        read_line_bounded(&mut r, &mut buf, 5).unwrap(),
        LineEnd::Eof
    );
}

/// A transport over OS pipes whose other ends the test holds.
fn piped(
    max_line: usize,
) -> (
    LineTransport,
    std::io::PipeWriter,
    BufReader<std::io::PipeReader>,
) {
    let (from_server, server_out) = std::io::pipe().unwrap();
    let (server_in, to_server) = std::io::pipe().unwrap();
    let t = LineTransport::new(from_server, to_server, max_line).unwrap();
    (t, server_out, BufReader::new(server_in))
}

#[test]
fn framing_crlf_split_writes_blank_and_noise() {
    let (mut t, mut out, mut input) = piped(1 << 20);
    t.send(&json!({"id": 1}), soon(1000)).unwrap();
    let mut line = String::new();
    input.read_line(&mut line).unwrap();
    assert_eq!(line, "{\"id\":1}\n");
    out.write_all(b"Server starting... (v1.2.3)\n\r\n  \n{\"id\":")
        .unwrap();
    out.flush().unwrap();
    std::thread::sleep(Duration::from_millis(50));
    out.write_all(b"1,\"result\":{}}\r\n").unwrap();
    assert_eq!(t.recv(soon(2000)).unwrap(), json!({"id": 1, "result": {}}));
    assert_eq!(
        t.noise_note().unwrap(),
        "skipped 1 non-JSON line on the server's stdout: `Server starting... (v1.2.3)`"
    );
    // Nothing more: the deadline passes.
    assert_eq!(t.recv(soon(50)), Err(Failure::Timeout));
    drop(out);
    assert_eq!(t.recv(soon(2000)), Err(Failure::Closed));
}

#[test]
fn overlong_line_ends_the_stream() {
    let (mut t, mut out, _input) = piped(64);
    // The reader may give up (and close its end) before the writer is done: a broken pipe
    // here is the behaviour under test, not a failure.
    let _ = out.write_all(&[b'x'; 100]);
    let _ = out.write_all(b"\n");
    assert_eq!(t.recv(soon(2000)), Err(Failure::TooLarge(64)));
    assert_eq!(t.recv(soon(2000)), Err(Failure::Closed));
}

#[test]
fn closing_input_sends_eof_to_the_server() {
    let (mut t, _out, mut input) = piped(1024);
    t.send(&json!({"jsonrpc": "2.0", "method": "x"}), soon(100))
        .unwrap();
    t.close_input();
    let mut all = String::new();
    std::io::Read::read_to_string(&mut input, &mut all).unwrap();
    assert_eq!(all, "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n");
    assert_eq!(t.send(&json!({}), soon(100)), Err(Failure::Closed));
}

#[test]
fn client_over_pipes_end_to_end() {
    // A scripted legacy server on a thread, speaking through real pipes.
    let (mut t, mut out, mut input) = piped(1 << 20);
    let server = std::thread::spawn(move || {
        let mut line = String::new();
        while {
            line.clear();
            input.read_line(&mut line).unwrap() > 0
        } {
            let m: Value = serde_json::from_str(&line).unwrap();
            let id = m.get("id").cloned();
            let reply = match (m["method"].as_str(), id) {
                (Some("server/discover"), Some(id)) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})
                }
                (Some("initialize"), Some(id)) => json!({"jsonrpc": "2.0", "id": id,
                    "result": {"protocolVersion": "2024-11-05", "serverInfo": {"name": "s", "version": "1"}}}),
                (Some("tools/list"), Some(id)) => json!({"jsonrpc": "2.0", "id": id,
                    "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}),
                _ => continue,
            };
            writeln!(out, "{reply}").unwrap();
        }
    });
    let l = mcp::list_tools(&mut t, soon(5000), ClientOptions::default()).unwrap();
    assert_eq!(l.tools.len(), 1);
    assert_eq!(l.protocol, mcp::Protocol::Legacy("2024-11-05".into()));
    t.close_input();
    server.join().unwrap();
}

fn opts(timeout_ms: u64) -> LoadOptions {
    LoadOptions {
        timeout: Duration::from_millis(timeout_ms),
        ..LoadOptions::default()
    }
}

#[cfg(unix)]
#[test]
fn wrong_command_says_cannot_start() {
    let e = list("/nonexistent/tracelint-no-such-server --x", &opts(2000)).unwrap_err();
    assert!(
        e.starts_with(
            "cannot start server `/nonexistent/tracelint-no-such-server`: No such file or directory"
        ),
        "{e}"
    );
    assert!(e.ends_with("(is it installed and on PATH?)"), "{e}");
}

#[cfg(unix)]
#[test]
fn early_exit_reports_status_and_stderr_tail() {
    let started = Instant::now();
    let e = list(
        "sh -c 'echo one >&2; echo \"fatal: missing API_KEY\" >&2; exit 3'",
        &opts(5000),
    )
    .unwrap_err();
    assert_eq!(
        e,
        "server exited with status 3 before answering server/discover; last stderr lines: one | fatal: missing API_KEY"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[cfg(unix)]
#[test]
fn silence_times_out_and_leaves_no_process() {
    let marker = format!("tracelint-unit-silent-{}", std::process::id());
    // A wrapper whose child ignores EOF and SIGTERM: only the group SIGKILL ends it.
    let line =
        format!("sh -c 'trap \"\" TERM; (trap \"\" TERM; exec sleep 61) & read x; wait' {marker}");
    let started = Instant::now();
    let e = list(&line, &opts(300)).unwrap_err();
    assert!(
        e.starts_with("timed out after 0.3 s waiting for server/discover; nothing on stderr"),
        "{e}"
    );
    // A hang detector, not a speed limit.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    // `sleep 61` was in the server's group: it must be gone. Killed processes leave /proc once
    // reaped (a zombie is dead already), which on a loaded machine takes a moment: poll.
    let alive = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| {
                let dir = e.ok()?.path();
                let cmdline = std::fs::read(dir.join("cmdline")).ok()?;
                let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
                let zombie = stat
                    .rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
                (!zombie).then_some(cmdline)
            })
            .filter(|c| {
                let c = String::from_utf8_lossy(c);
                c.contains("sleep\u{0}61") || c.contains(&marker)
            })
            .count()
    };
    let until = Instant::now() + Duration::from_secs(30);
    while alive() > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(alive(), 0, "a server process outlived the listing");
}
