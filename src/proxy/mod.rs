//! `tracelint mcp proxy` over stdio: the agent runs the proxy instead of its MCP server; the
//! proxy starts the server (its own process group, stderr passed through), copies every line
//! both ways unchanged and in order (a thread per direction, one write and flush per message),
//! and watches the traffic to record it (`record`) and to replace chosen `tools/call` replies
//! with faults (`inject`). It stops the server with the agent: stdin EOF closes the server's
//! stdin, waits, then TERMs and KILLs its group; SIGTERM, SIGINT, SIGHUP and SIGQUIT do the same.
//! Everything it holds is bounded: a line (longer lines are passed through unread), the
//! requests it tracks, the replies it holds.

pub mod http;
pub mod inject;
pub mod pin;
mod process;
pub mod record;
mod options;
mod reply;
mod shared;
mod traffic;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use inject::Plan;
use process::{GROUP, SIGNALLED, kill_group, on_signals, wait_exit};
use record::Recorder;
use reply::expire;
pub use options::{Options, Pin};
use shared::{Held, MAX_LISTED, Method, Pending, Shared, key};
use traffic::{Side, client_to_server, server_to_client};

/// How the session ended.
#[derive(Debug)]
pub struct Ended {
    /// The server's exit code, when it ended on its own before the client did.
    pub server_code: Option<i32>,
    /// The record written.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub record: Option<PathBuf>,
}

/// Run the proxy until the client or the server ends the session.
pub fn run(opts: &Options) -> Result<Ended, String> {
    let (program, args) = opts
        .command
        .split_first()
        .ok_or("give the server's command after `--`: `tracelint mcp proxy -- SERVER ARGS…`")?;
    // Before the server exists, so that no signal can come between its start and the handler.
    on_signals();
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(|e| {
        let hint = if e.kind() == io::ErrorKind::NotFound {
            " (is it installed and on PATH?)"
        } else {
            ""
        };
        format!("cannot start server `{program}`: {e}{hint}")
    })?;
    let (Some(server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        kill_group(&child, true);
        let _ = child.wait();
        return Err("cannot start server: its pipes are missing".into());
    };
    GROUP.store(child.id(), Ordering::SeqCst);

    let recorder = match &opts.record {
        Some(dir) => {
            let facts = json!({
                "transport": "stdio",
                "server_command": opts.command,
                "injection": opts.inject.as_ref().map(Plan::describe),
            });
            match Recorder::create(dir, facts) {
                Ok(r) => Some(r),
                Err(e) => {
                    kill_group(&child, true);
                    let _ = child.wait();
                    return Err(format!("cannot write a record in {}: {e}", dir.display()));
                }
            }
        }
        None => None,
    };
    let record = recorder.as_ref().map(|r| r.path().to_path_buf());
    let shared = Arc::new(Shared::new(opts, recorder, Some(io::stdout())));

    let (done_tx, done) = mpsc::channel::<Side>();
    let (s1, d1, max) = (Arc::clone(&shared), done_tx.clone(), opts.max_line);
    std::thread::Builder::new()
        .name("mcp-proxy-c2s".into())
        .spawn(move || {
            client_to_server(io::stdin(), server_in, &s1, max);
            let _ = d1.send(Side::Client);
        })
        .map_err(|e| format!("cannot start the proxy threads: {e}"))?;
    let (s2, d2) = (Arc::clone(&shared), done_tx);
    std::thread::Builder::new()
        .name("mcp-proxy-s2c".into())
        .spawn(move || {
            server_to_client(server_out, &s2, max);
            let _ = d2.send(Side::Server);
        })
        .map_err(|e| format!("cannot start the proxy threads: {e}"))?;

    let first = done.recv().unwrap_or(Side::Server);
    let server_code = match first {
        Side::Client => {
            // The agent is gone: its server's stdin is closed already; let the server finish
            // what it was writing, then make sure its whole group is gone.
            let exited = wait_exit(&mut child, Duration::from_secs(2));
            if !exited {
                kill_group(&child, false);
                if !wait_exit(&mut child, Duration::from_secs(2)) {
                    kill_group(&child, true);
                }
            }
            let _ = done.recv_timeout(Duration::from_secs(1));
            None
        }
        Side::Server => {
            let _ = wait_exit(&mut child, Duration::from_secs(2));
            let code = child.try_wait().ok().flatten().and_then(|s| s.code());
            Some(code.unwrap_or(1))
        }
    };
    // Stragglers of the group (children of `npx`, `uvx`, `sh -c`): the leader is a zombie until
    // reaped, so the group id is still ours.
    kill_group(&child, true);
    let _ = child.wait();
    let sig = SIGNALLED.load(Ordering::SeqCst);
    if sig != 0 {
        let _ = io::stdout().flush();
        std::process::exit(128 + sig);
    }
    Ok(Ended {
        server_code,
        record,
    })
}
