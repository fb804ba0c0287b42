//! SIGINT (Ctrl-C), SIGTERM (a cancelled CI job), SIGHUP and SIGQUIT end a run mid-listing
//! without leaving its `mcp-stdio:` server behind: the server's whole process group is killed
//! and tracelint exits 128 + the signal, as a shell reports such a death.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::alive;

fn until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// A listing from a server that never replies, ended by `signal` (named as `kill` names it):
/// tracelint exits `code` and no process of the server's group is left.
fn signal_mid_listing(signal: &str, code: i32) {
    let marker = format!(
        "tracelint-sig{}-{}",
        signal.to_lowercase(),
        std::process::id()
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // A wrapper and its child (both named by the marker) that never answer: the listing waits.
    let server = format!(
        "mcp-stdio:sh -c 'python3 -c \"import time; time.sleep(300)\" {marker}-child & wait' {marker}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["check", "fixtures/hostile/calls.json", "--tools", &server])
        .args(["--mcp-timeout", "120"])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        until(Duration::from_secs(30), || alive(&marker) >= 2),
        "the server and its child never started"
    );
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = super::wait_or_hang(&mut child, &format!("check after SIG{signal}"));
    assert_eq!(status.code(), Some(code), "SIG{signal}: {status}");
    assert!(
        until(Duration::from_secs(30), || alive(&marker) == 0),
        "SIG{signal}: the server's group outlived tracelint: {} left",
        alive(&marker)
    );
}

#[test]
fn sigterm_mid_listing_kills_the_server_group_and_exits_143() {
    signal_mid_listing("TERM", 143);
}

#[test]
fn sigint_mid_listing_kills_the_server_group_and_exits_130() {
    signal_mid_listing("INT", 130);
}

#[test]
fn sighup_mid_listing_kills_the_server_group_and_exits_129() {
    signal_mid_listing("HUP", 129);
}

#[test]
fn sigquit_mid_listing_kills_the_server_group_and_exits_131() {
    signal_mid_listing("QUIT", 131);
}
