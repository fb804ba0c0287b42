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
pub mod record;

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::scorecard::faults::Fault;
use crate::sources::stdio::{LineEnd, read_line_bounded};

use inject::{Decision, Plan};
use record::Recorder;

/// Tools kept from one paginated `tools/list` for the pin comparison.
const MAX_LISTED: usize = 100_000;

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
    pub record: Option<PathBuf>,
}

/// A request the client sent and the server has not answered yet.
struct Pending {
    method: Method,
    started: Instant,
}

enum Method {
    Initialize,
    Discover,
    ToolsList,
    ToolsCall(Option<Decision>),
}

/// A reply held back by a `timeout` fault, until the client cancels or the hold ends.
struct Held {
    id: Value,
    started: Instant,
    fault_id: String,
    real: Value,
}

struct Shared {
    pending: Mutex<HashMap<String, Pending>>,
    /// Set while some tracked call has a fault: server lines are then read before forwarding.
    injecting: AtomicBool,
    held: Mutex<HashMap<String, Held>>,
    recorder: Mutex<Option<Recorder>>,
    plan: Mutex<Option<Plan>>,
    /// The client's stdout (stdio); `None` over HTTP, where each reply goes back on its request.
    out: Option<Mutex<io::Stdout>>,
    max_pending: usize,
    hold: Duration,
    warned: AtomicBool,
    pin: Option<Pin>,
    /// `tools/list` pages read so far (a paginated listing is compared once, whole).
    listed: Mutex<Vec<Value>>,
    /// Server lines forwarded and not yet on record.
    unrecorded: (Mutex<usize>, Condvar),
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
fn key(id: &Value) -> String {
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

enum Side {
    Client,
    Server,
}

fn client_to_server(
    client: impl Read,
    mut server: ChildStdin,
    shared: &Arc<Shared>,
    max_line: usize,
) {
    let mut r = BufReader::with_capacity(64 << 10, client);
    let mut buf = Vec::with_capacity(4096);
    loop {
        let end = match read_line_bounded(&mut r, &mut buf, max_line) {
            Ok(e) => e,
            Err(_) => return,
        };
        match end {
            LineEnd::Eof => return,
            LineEnd::TooLong => {
                if pass_long_line(&mut r, &mut buf, max_line, &mut server).is_err() {
                    return;
                }
                continue;
            }
            LineEnd::Line => {}
        }
        observe_client(&buf, shared);
        buf.push(b'\n');
        if server
            .write_all(&buf)
            .and_then(|()| server.flush())
            .is_err()
        {
            return;
        }
    }
    // Dropping `server` closes the server's stdin.
}

/// Copy an overlong line through (its start is in `buf`) without holding it.
fn pass_long_line<R: io::BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max_line: usize,
    w: &mut impl Write,
) -> io::Result<()> {
    w.write_all(buf)?;
    loop {
        match read_line_bounded(r, buf, max_line)? {
            LineEnd::TooLong => w.write_all(buf)?,
            LineEnd::Line | LineEnd::Eof => {
                w.write_all(buf)?;
                w.write_all(b"\n")?;
                return w.flush();
            }
        }
    }
}

fn observe_client(line: &[u8], shared: &Arc<Shared>) {
    match serde_json::from_slice::<Value>(line) {
        // A JSON-RPC batch (2025-03-26): each message is observed; the line goes on as it is.
        Ok(Value::Array(batch)) => batch.iter().for_each(|m| observe_msg(m, shared)),
        Ok(msg) => observe_msg(&msg, shared),
        Err(_) => {}
    }
}

/// Track (and record) one message from the client.
fn observe_msg(msg: &Value, shared: &Arc<Shared>) {
    let Some(method) = msg.get("method").and_then(Value::as_str) else {
        return;
    };
    let params = msg.get("params");
    if method == "notifications/cancelled" {
        if let Some(id) = params.and_then(|p| p.get("requestId")) {
            cancelled(shared, id);
        }
        return;
    }
    let Some(id) = msg.get("id").filter(|i| !i.is_null()) else {
        return;
    };
    let tracked = match method {
        "initialize" => {
            shared.record(|r| {
                r.facts(json!({
                    "requested_protocol_version": params.and_then(|p| p.get("protocolVersion")),
                    "client_info": params.and_then(|p| p.get("clientInfo")),
                    "client_capabilities": params.and_then(|p| p.get("capabilities")),
                }));
            });
            Method::Initialize
        }
        "server/discover" => {
            // The 2026-07-28 era: no handshake, the client's facts ride in `_meta`.
            let meta = params.and_then(|p| p.get("_meta"));
            let m = |k: &str| meta.and_then(|m| m.get(format!("io.modelcontextprotocol/{k}")));
            shared.record(|r| {
                r.facts(json!({
                    "requested_protocol_version": m("protocolVersion"),
                    "client_info": m("clientInfo"),
                    "client_capabilities": m("clientCapabilities"),
                }));
            });
            Method::Discover
        }
        "tools/list" => Method::ToolsList,
        "tools/call" => {
            let name = params
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let args = params.and_then(|p| p.get("arguments"));
            let decision = shared
                .plan
                .lock()
                .ok()
                .and_then(|mut p| p.as_mut().and_then(|p| p.decide(name)));
            shared.in_order();
            shared.record(|r| r.call(id, name, args));
            Method::ToolsCall(decision)
        }
        _ => return,
    };
    if let Ok(mut pending) = shared.pending.lock() {
        if pending.len() >= shared.max_pending {
            if !shared.warned.swap(true, Ordering::Relaxed) {
                #[allow(clippy::print_stderr)]
                {
                    eprintln!(
                        "tracelint mcp proxy: more than {} requests in flight: later ones are forwarded but not recorded",
                        shared.max_pending
                    );
                }
            }
            return;
        }
        pending.insert(
            key(id),
            Pending {
                method: tracked,
                started: Instant::now(),
            },
        );
        shared.update_reading(&pending);
    }
}

fn server_to_client(server: impl Read, shared: &Arc<Shared>, max_line: usize) {
    let mut r = BufReader::with_capacity(64 << 10, server);
    let mut buf = Vec::with_capacity(4096);
    loop {
        let end = match read_line_bounded(&mut r, &mut buf, max_line) {
            Ok(e) => e,
            Err(_) => return,
        };
        match end {
            LineEnd::Eof => return,
            LineEnd::TooLong => {
                let Some(Ok(mut out)) = shared.out.as_ref().map(Mutex::lock) else {
                    return;
                };
                if pass_long_line(&mut r, &mut buf, max_line, &mut *out).is_err() {
                    return;
                }
                continue;
            }
            LineEnd::Line => {}
        }
        if shared.injecting.load(Ordering::SeqCst) {
            // Read first: this line may be a reply to replace.
            let msg = serde_json::from_slice::<Value>(&buf).ok();
            if let Some(Value::Array(batch)) = &msg {
                // A batch is recorded, never rewritten.
                batch.iter().for_each(|m| {
                    let _ = answer(shared, m, false);
                });
            }
            let replaced = msg.as_ref().and_then(|m| answer(shared, m, true));
            if let Some(Some(line)) = &replaced {
                if shared.to_client(line).is_err() {
                    return;
                }
                continue;
            }
            if let Some(None) = replaced {
                // Held (a timeout): nothing goes to the client now.
                continue;
            }
            buf.push(b'\n');
            if shared.to_client(&buf).is_err() {
                return;
            }
        } else {
            // Forward first, look after: recording adds nothing to the reply's way. The client
            // may send its next call as soon as it has this line: that call's record waits
            // (`Shared::in_order`) until this line is on record, so the record keeps the
            // causal order (counted before the write, so no call slips in between).
            shared.recording(1);
            buf.push(b'\n');
            if shared.to_client(&buf).is_err() {
                shared.recording(-1);
                return;
            }
            let text = &buf[..buf.len() - 1];
            match serde_json::from_slice::<Value>(text) {
                Ok(Value::Array(batch)) => batch.iter().for_each(|m| {
                    let _ = answer(shared, m, false);
                }),
                Ok(m) => {
                    let _ = answer(shared, &m, false);
                }
                Err(_) => {}
            }
            shared.recording(-1);
        }
    }
}

/// Handle a server message that may answer a tracked request. `Some(Some(line))`: send this
/// instead; `Some(None)`: hold it; `None`: forward the server's line as it is.
fn answer(shared: &Arc<Shared>, msg: &Value, may_replace: bool) -> Option<Option<Vec<u8>>> {
    if msg.get("method").is_some() {
        return None;
    }
    let id = msg.get("id")?;
    let p = {
        let mut pending = shared.pending.lock().ok()?;
        let p = pending.remove(&key(id))?;
        shared.update_reading(&pending);
        p
    };
    let ms = p.started.elapsed().as_secs_f64() * 1000.0;
    match p.method {
        Method::Initialize => {
            let r = msg.get("result");
            shared.record(|rec| {
                rec.facts(json!({
                    "protocol_version": r.and_then(|r| r.get("protocolVersion")),
                    "server_info": r.and_then(|r| r.get("serverInfo")),
                    "server_capabilities": r.and_then(|r| r.get("capabilities")),
                }));
            });
            None
        }
        Method::Discover => {
            if let Some(r) = msg.get("result") {
                let info = r
                    .get("_meta")
                    .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
                shared.record(|rec| {
                    rec.facts(json!({
                        "supported_versions": r.get("supportedVersions"),
                        "server_info": info,
                        "server_capabilities": r.get("capabilities"),
                    }));
                });
            }
            None
        }
        Method::ToolsList => {
            let result = msg.get("result");
            if let Some(tools) = result.and_then(|r| r.get("tools")) {
                shared.record(|rec| rec.tools(tools));
            }
            let pin = shared.pin.as_ref()?;
            let tools = result
                .and_then(|r| r.get("tools"))
                .and_then(Value::as_array)?;
            let whole = {
                let mut listed = shared.listed.lock().ok()?;
                // Bounded: a server paging forever is compared on what came so far.
                if listed.len() < MAX_LISTED {
                    listed.extend(tools.iter().cloned());
                }
                let more = result
                    .and_then(|r| r.get("nextCursor"))
                    .and_then(Value::as_str)
                    .is_some_and(|c| !c.is_empty());
                if more {
                    return None;
                }
                std::mem::take(&mut *listed)
            };
            let changes = pin::diff(&pin.tools, &whole);
            if changes.is_empty() {
                return None;
            }
            let refused = !pin.warn_only && may_replace;
            #[allow(clippy::print_stderr)]
            {
                let verdict = if refused { "refused" } else { "warning" };
                eprintln!(
                    "tracelint mcp proxy: {verdict}: the server's tools differ from {} ({} change{}):",
                    pin.path,
                    changes.len(),
                    if changes.len() == 1 { "" } else { "s" }
                );
                for c in &changes {
                    eprintln!("  {c}");
                }
            }
            shared.record(|rec| {
                rec.facts(
                    json!({"pin": {"lock": pin.path, "changes": changes, "refused": refused}}),
                );
            });
            if !refused {
                return None;
            }
            let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
                "message": format!("tracelint mcp proxy: the server's tools differ from {}: {}", pin.path, changes.join("; "))}});
            let mut line = serde_json::to_vec(&reply).ok()?;
            line.push(b'\n');
            Some(Some(line))
        }
        Method::ToolsCall(None) => {
            shared.record(|rec| rec.result(id, msg, ms, None));
            None
        }
        Method::ToolsCall(Some(d)) if may_replace => {
            if d.fault == Fault::Timeout {
                if let Ok(mut held) = shared.held.lock() {
                    held.insert(
                        key(id),
                        Held {
                            id: id.clone(),
                            started: p.started,
                            fault_id: d.id.clone(),
                            real: msg.clone(),
                        },
                    );
                }
                let (s, id, hold) = (Arc::clone(shared), id.clone(), shared.hold);
                if shared.out.is_none() {
                    // Over HTTP the request's own thread waits (`http::hold`).
                    return Some(None);
                }
                let _ = std::thread::Builder::new()
                    .name("mcp-proxy-hold".into())
                    .spawn(move || {
                        std::thread::sleep(hold);
                        if let Some(line) = expire(&s, &id) {
                            let _ = s.to_client(&line);
                        }
                    });
                return Some(None);
            }
            let result = inject::injected_result(d.fault, msg)?;
            let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
            shared.record(|rec| rec.result(id, &reply, ms, Some((&d.id, msg))));
            let mut line = serde_json::to_vec(&reply).ok()?;
            line.push(b'\n');
            Some(Some(line))
        }
        Method::ToolsCall(Some(_)) => {
            // Seen after it was forwarded (in a batch): the client got the real answer.
            shared.record(|rec| rec.result(id, msg, ms, None));
            None
        }
    }
}

/// The client cancelled a request: a held reply is dropped (the client asked for none), and the
/// call is recorded as timed out.
fn cancelled(shared: &Arc<Shared>, id: &Value) {
    let Some(h) = shared.held.lock().ok().and_then(|mut h| h.remove(&key(id))) else {
        return;
    };
    let ms = h.started.elapsed().as_secs_f64() * 1000.0;
    let how = format!(
        "timed out: no answer in {:.0} ms, the client cancelled the request",
        ms
    );
    shared.record(|r| r.timed_out(&h.id, &how, ms, &h.fault_id, &h.real));
}

/// A held reply whose client never cancelled: answer with the timeout error an MCP client
/// itself reports (`-32001`), and record it.
fn expire(shared: &Arc<Shared>, id: &Value) -> Option<Vec<u8>> {
    let h = shared
        .held
        .lock()
        .ok()
        .and_then(|mut h| h.remove(&key(id)))?;
    let ms = h.started.elapsed().as_secs_f64() * 1000.0;
    let how = format!("timed out: no answer in {ms:.0} ms");
    let reply = json!({"jsonrpc": "2.0", "id": h.id,
        "error": {"code": -32001, "message": format!("Request timed out after {ms:.0} ms")}});
    shared.record(|r| r.timed_out(&h.id, &how, ms, &h.fault_id, &h.real));
    let mut line = serde_json::to_vec(&reply).ok()?;
    line.push(b'\n');
    Some(line)
}

fn wait_exit(child: &mut Child, within: Duration) -> bool {
    let until = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) => {}
            Err(_) => return true,
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
fn kill_group(child: &Child, hard: bool) {
    kill_group_id(child.id(), hard);
}

#[cfg(not(unix))]
fn kill_group(_child: &Child, _hard: bool) {}

#[cfg(unix)]
fn kill_group_id(id: u32, hard: bool) {
    use rustix::process::{Pid, Signal, kill_process_group};
    if let Some(pid) = i32::try_from(id).ok().and_then(Pid::from_raw) {
        let sig = if hard { Signal::KILL } else { Signal::TERM };
        // ESRCH (the group is gone) is the good case.
        let _ = kill_process_group(pid, sig);
    }
}

/// The server's process group (0: not started yet).
static GROUP: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The signal that ended the session (0: none).
static SIGNALLED: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// SIGTERM, SIGINT and SIGHUP end the session: TERM the server's group, give it a moment,
/// KILL it, and exit with the shell's code for the signal. Records are already on disk.
fn on_signals() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
            let _ = std::thread::Builder::new()
                .name("mcp-proxy-signals".into())
                .spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        SIGNALLED.store(sig, Ordering::SeqCst);
                        // A server being started right now gets its group id in a moment.
                        let mut group = GROUP.load(Ordering::SeqCst);
                        for _ in 0..20 {
                            if group != 0 {
                                break;
                            }
                            std::thread::sleep(Duration::from_millis(10));
                            group = GROUP.load(Ordering::SeqCst);
                        }
                        if group == 0 {
                            std::process::exit(128 + sig);
                        }
                        kill_group_id(group, false);
                        std::thread::sleep(Duration::from_millis(500));
                        kill_group_id(group, true);
                        // The session normally ends here on its own (the server's stdout closes);
                        // this is for a server whose pipe something else keeps open.
                        std::thread::sleep(Duration::from_secs(5));
                        std::process::exit(128 + sig);
                    }
                });
        }
    }
}
