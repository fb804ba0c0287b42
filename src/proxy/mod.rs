//! `tracelint mcp proxy` over stdio: the agent runs the proxy instead of its MCP server; the
//! proxy starts the server (its own process group, stderr passed through), copies every line
//! both ways unchanged and in order (a thread per direction, one write and flush per message),
//! and watches the traffic to record it (`record`) and to replace chosen `tools/call` replies
//! with faults (`inject`). It stops the server with the agent: stdin EOF closes the server's
//! stdin, waits, then TERMs and KILLs its group; SIGTERM, SIGINT and SIGHUP do the same.
//! Everything it holds is bounded: a line (longer lines are passed through unread), the
//! requests it tracks, the replies it holds.

pub mod http;
pub mod inject;
pub mod pin;
mod process;
pub mod record;
mod reply;
mod traffic;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use inject::{Decision, Plan};
use process::{GROUP, SIGNALLED, kill_group, on_signals, wait_exit};
use record::Recorder;
use reply::expire;
use traffic::{Side, client_to_server, server_to_client};

/// Tools kept from one paginated `tools/list` for the pin comparison.
pub(super) const MAX_LISTED: usize = 100_000;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's program and arguments.
    pub command: Vec<String>,
    /// Where to write one trace per session.
    pub record: Option<PathBuf>,
    /// Faults to inject.
    pub inject: Option<Plan>,
    /// Longest line observed (longer lines are forwarded unread).
    pub max_line: usize,
    /// Requests tracked at once (beyond that, forwarded untracked).
    pub max_pending: usize,
    /// How long a `timeout` fault holds a reply when the client never cancels.
    pub hold: Duration,
    /// Tools pinned by `tracelint mcp pin`: a server listing other tools is refused.
    pub pin: Option<Pin>,
}

/// `--pin tools.lock` (or `--pin-warn`).
#[derive(Debug, Clone)]
pub struct Pin {
    /// The lock's path, for messages.
    pub path: String,
    /// The lock's tools.
    pub tools: Vec<Value>,
    /// Only warn (on stderr) instead of refusing the listing.
    pub warn_only: bool,
}

/// How the session ended.
#[derive(Debug)]
pub struct Ended {
    /// The server's exit code, when it ended on its own before the client did.
    pub server_code: Option<i32>,
    /// The record written.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub record: Option<PathBuf>,
}

/// A request the client sent and the server has not answered yet.
pub(super) struct Pending {
    pub(super) method: Method,
    pub(super) started: Instant,
}

pub(super) enum Method {
    Initialize,
    Discover,
    ToolsList,
    ToolsCall(Option<Decision>),
}

/// A reply held back by a `timeout` fault, until the client cancels or the hold ends.
pub(super) struct Held {
    pub(super) id: Value,
    pub(super) started: Instant,
    pub(super) fault_id: String,
    pub(super) real: Value,
}

pub(super) struct Shared {
    pub(super) pending: Mutex<HashMap<String, Pending>>,
    /// Set while some tracked call has a fault: server lines are then read before forwarding.
    pub(super) injecting: AtomicBool,
    pub(super) held: Mutex<HashMap<String, Held>>,
    pub(super) recorder: Mutex<Option<Recorder>>,
    pub(super) plan: Mutex<Option<Plan>>,
    /// The client's stdout (stdio); `None` over HTTP, where each reply goes back on its request.
    pub(super) out: Option<Mutex<io::Stdout>>,
    pub(super) max_pending: usize,
    pub(super) hold: Duration,
    pub(super) warned: AtomicBool,
    pub(super) pin: Option<Pin>,
    /// `tools/list` pages read so far (a paginated listing is compared once, whole).
    pub(super) listed: Mutex<Vec<Value>>,
    /// Server lines forwarded and not yet on record.
    pub(super) unrecorded: (Mutex<usize>, Condvar),
}

impl Shared {
    fn new(opts: &Options, recorder: Option<Recorder>, out: Option<io::Stdout>) -> Shared {
        Shared {
            pending: Mutex::new(HashMap::new()),
            injecting: AtomicBool::new(false),
            held: Mutex::new(HashMap::new()),
            recorder: Mutex::new(recorder),
            plan: Mutex::new(opts.inject.clone()),
            out: out.map(Mutex::new),
            max_pending: opts.max_pending,
            hold: opts.hold,
            warned: AtomicBool::new(false),
            pin: opts.pin.clone(),
            listed: Mutex::new(Vec::new()),
            unrecorded: (Mutex::new(0), Condvar::new()),
        }
    }

    /// One more (`1`) or one less (`-1`) server line forwarded but not yet recorded.
    fn recording(&self, d: i32) {
        let (m, cv) = &self.unrecorded;
        if let Ok(mut n) = m.lock() {
            *n = if d > 0 { *n + 1 } else { n.saturating_sub(1) };
            if *n == 0 {
                cv.notify_all();
            }
        }
    }

    /// Wait (briefly: the other side only parses and writes a file) until every forwarded server
    /// line is on record, so a call the client sent after reading an answer is recorded after it.
    fn in_order(&self) {
        let (m, cv) = &self.unrecorded;
        if let Ok(n) = m.lock() {
            let _ = cv.wait_timeout_while(n, Duration::from_secs(1), |n| *n > 0);
        }
    }

    fn record(&self, f: impl FnOnce(&mut Recorder)) {
        if let Ok(mut r) = self.recorder.lock()
            && let Some(r) = r.as_mut()
        {
            f(r);
        }
    }

    /// Whether a server line must be read before it is forwarded: a reply to replace (a fault,
    /// or a listing to hold against the pin) may be on its way.
    fn update_reading(&self, pending: &HashMap<String, Pending>) {
        let read = pending.values().any(|p| match p.method {
            Method::ToolsCall(Some(_)) => true,
            Method::ToolsList => self.pin.as_ref().is_some_and(|p| !p.warn_only),
            _ => false,
        });
        self.injecting.store(read, Ordering::SeqCst);
    }

    fn to_client(&self, line: &[u8]) -> io::Result<()> {
        let Some(out) = &self.out else {
            return Ok(());
        };
        let mut out = out.lock().map_err(|_| io::Error::other("stdout lock"))?;
        out.write_all(line)?;
        out.flush()
    }
}

/// Key of a JSON-RPC id (`7` and `"7"` differ).
pub(super) fn key(id: &Value) -> String {
    id.to_string()
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
