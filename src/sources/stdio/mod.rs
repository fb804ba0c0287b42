//! `mcp-stdio:<command line>`: split the line like a shell would (no shell runs; leading
//! `NAME=value` words set the environment), spawn the server in its own process group, and move
//! newline-delimited JSON-RPC over its pipes (MCP.md §5): `\r` stripped, blank lines skipped,
//! non-JSON lines skipped and counted, lines bounded, stderr tail kept for error messages.
//! Shutdown closes stdin, waits 2 s, SIGTERMs the group, waits 2 s, SIGKILLs it; dropping a
//! server kills it. It owns processes and pipes only: the conversation is `mcp/`'s.
//!
//! One cohesive transport: spawning, line framing and shutdown all work on the same child, its
//! pipes and its process group, and none is useful alone.

use std::collections::VecDeque;
use std::io::{self, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::LoadOptions;
use super::mcp::{self, ClientOptions, Failure, Listing, McpError, one_line};

mod lines;
pub use lines::LineTransport;
pub(crate) use lines::{LineEnd, read_line_bounded};

/// Stderr lines kept for error messages.
const STDERR_TAIL: usize = 10;
/// Longest stderr line kept, in bytes (the rest of the line is skipped).
const STDERR_LINE: usize = 4096;

/// A command line split into environment assignments, program and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// Leading `NAME=value` words.
    pub env: Vec<(String, String)>,
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Split a command line like a POSIX shell would, without running one.
pub fn split_command(line: &str) -> Result<CommandLine, String> {
    let words = shlex::split(line).ok_or_else(|| {
        "cannot split the command line: an unclosed quote or a trailing backslash".to_owned()
    })?;
    let mut words = words.into_iter().peekable();
    let mut env = Vec::new();
    while let Some((k, v)) = words.peek().and_then(|w| env_assignment(w)) {
        env.push((k, v));
        words.next();
    }
    let program = words
        .next()
        .ok_or_else(|| "empty command: give `mcp-stdio:<command> [args…]`".to_owned())?;
    Ok(CommandLine {
        env,
        program,
        args: words.collect(),
    })
}

/// The command line for messages and reports: environment values (often tokens) become `…`.
pub fn display_command(line: &str) -> String {
    match split_command(line) {
        Ok(c) if !c.env.is_empty() => {
            let words =
                std::iter::once(c.program.as_str()).chain(c.args.iter().map(String::as_str));
            let rest = shlex::try_join(words).unwrap_or_else(|_| c.program.clone());
            let env: Vec<String> = c.env.iter().map(|(k, _)| format!("{k}=…")).collect();
            format!("{} {rest}", env.join(" "))
        }
        _ => line.trim().to_owned(),
    }
}

fn env_assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_owned(), value.to_owned()))
}

/// List the tools of the server started by `line`. `Err` is the message to show.
pub fn list(line: &str, opts: &LoadOptions) -> Result<(Listing, Vec<String>), String> {
    let deadline = Instant::now() + opts.timeout;
    let mut server = StdioServer::spawn(line, opts.max_reply)?;
    match mcp::list_tools(&mut server.lines, deadline, ClientOptions::default()) {
        Ok(listing) => {
            server.shutdown(true);
            Ok((listing, server.lines.noise_note().into_iter().collect()))
        }
        Err(e) => {
            let msg = server.explain(&e, opts.timeout);
            server.shutdown(false);
            Err(msg)
        }
    }
}

/// A running server: the child (leader of its own process group), its pipes, its stderr tail.
struct StdioServer {
    child: Child,
    lines: LineTransport,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_done: Receiver<()>,
    finished: bool,
}

impl StdioServer {
    fn spawn(line: &str, max_line: usize) -> Result<StdioServer, String> {
        let cmd = split_command(line)?;
        let mut command = Command::new(&cmd.program);
        command
            .args(&cmd.args)
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Own process group: `npx`, `uvx` and `sh -c` wrappers fork children we must reach.
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        // Before the server runs: a signal from then on kills its group (not us alone).
        install_signal_handler();
        let mut child = command.spawn().map_err(|e| {
            let hint = if e.kind() == io::ErrorKind::NotFound {
                " (is it installed and on PATH?)"
            } else {
                ""
            };
            format!("cannot start server `{}`: {e}{hint}", cmd.program)
        })?;
        running::add(child.id());
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            kill_now(&mut child);
            running::remove(child.id());
            return Err("cannot start server: its pipes are missing".into());
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (done_tx, stderr_done) = mpsc::channel();
        let keep = Arc::clone(&tail);
        let started = std::thread::Builder::new()
            .name("mcp-stderr".into())
            .spawn(move || {
                read_stderr(stderr, &keep);
                let _ = done_tx.send(());
            })
            .and_then(|_| LineTransport::new(stdout, stdin, max_line));
        match started {
            Ok(lines) => Ok(StdioServer {
                    child,
                    lines,
                    stderr: tail,
                    stderr_done,
                    finished: false,
                }),
            Err(e) => {
                kill_now(&mut child);
                running::remove(child.id());
                Err(format!("cannot start server threads: {e}"))
            }
        }
    }

    /// The message for a failed listing: what happened, then the stderr tail and stdout noise.
    fn explain(&mut self, e: &McpError, timeout: Duration) -> String {
        let what = &e.during;
        let mut msg = match &e.failure {
            Failure::Closed => match self.exit_status(Duration::from_secs(1)) {
                Some(status) => format!("server exited with {status} before answering {what}"),
                None => format!("server closed its stdout before answering {what}"),
            },
            Failure::TooLarge(n) => {
                format!("server sent a reply line longer than {n} bytes while answering {what}")
            }
            other => super::describe(what, other, timeout),
        };
        // The stderr reader finishes once the process is gone; give it a moment to catch up.
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(300));
        let tail: Vec<String> = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if let Some(note) = self.lines.noise_note() {
            msg.push_str("; ");
            msg.push_str(&note);
        }
        if tail.is_empty() {
            msg.push_str("; nothing on stderr");
        } else {
            msg.push_str("; last stderr lines: ");
            msg.push_str(&tail.join(" | "));
        }
        msg
    }

    /// `status N` or `signal N` once the leader has exited (without reaping it), waiting up to
    /// `within`.
    fn exit_status(&mut self, within: Duration) -> Option<String> {
        let until = Instant::now() + within;
        loop {
            if let Some(s) = self.peek_exit() {
                return Some(s);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[cfg(unix)]
    fn peek_exit(&mut self) -> Option<String> {
        use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
        let opts = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(Pid::from_child(&self.child)), opts) {
            Ok(Some(st)) => Some(match (st.exit_status(), st.terminating_signal()) {
                (Some(code), _) => format!("status {code}"),
                (None, Some(sig)) => format!("signal {sig}"),
                _ => "an unknown status".into(),
            }),
            Ok(None) => None,
            Err(_) => Some("an unknown status".into()),
        }
    }

    #[cfg(not(unix))]
    fn peek_exit(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(st)) => Some(match st.code() {
                Some(c) => format!("status {c}"),
                None => "an unknown status".into(),
            }),
            Ok(None) => None,
            Err(_) => Some("an unknown status".into()),
        }
    }

    /// Close stdin, wait, SIGTERM the group, wait, SIGKILL it; then kill any straggler of the
    /// group and reap the leader. `graceful` waits 2 s + 2 s; after a failure 0.5 s + 1 s.
    fn shutdown(&mut self, graceful: bool) {
        if self.finished {
            return;
        }
        self.finished = true;
        let (first, second) = if graceful {
            (Duration::from_secs(2), Duration::from_secs(2))
        } else {
            (Duration::from_millis(500), Duration::from_secs(1))
        };
        self.lines.close_input();
        if self.exit_status(first).is_none() {
            signal_group(&mut self.child, Signal::Term);
            if self.exit_status(second).is_none() {
                signal_group(&mut self.child, Signal::Kill);
            }
        }
        // The leader is a zombie now (not reaped), so its group id cannot have been reused:
        // anything left in the group is an orphan-to-be.
        signal_group(&mut self.child, Signal::Kill);
        let _ = self.child.wait();
        running::remove(self.child.id());
    }
}

/// The process groups of the servers running now, so that a run ended by a signal (SIGTERM
/// from CI, SIGHUP) kills them instead of leaving them behind (`kill_running`).
mod running {
    use std::sync::Mutex;

    static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

    pub(super) fn add(id: u32) {
        if let Ok(mut g) = GROUPS.lock() {
            g.push(id);
        }
    }

    pub(super) fn remove(id: u32) {
        if let Ok(mut g) = GROUPS.lock() {
            g.retain(|x| *x != id);
        }
    }

    pub(super) fn all() -> Vec<u32> {
        GROUPS.lock().map(|g| g.clone()).unwrap_or_default()
    }
}

/// Set by the binary (`end_on_signals`): the first server started installs the handler.
static END_ON_SIGNALS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The signals that end a run which started servers: SIGINT (Ctrl-C), SIGTERM (a cancelled CI
/// job), SIGHUP (a closed terminal) and SIGQUIT (Ctrl-\\). The one list the handlers share.
#[cfg(unix)]
pub const ENDING_SIGNALS: [i32; 4] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
];

/// Ask that the `ENDING_SIGNALS` (Ctrl-C, a CI job cancelled, a terminal closed), once a server
/// has been started, kill every running server's group and end the process with the shell's
/// code for that signal (130, 143, 129, 131): a server is in a group of its own, so Ctrl-C at a
/// terminal never reaches it, and it would outlive the run. Only a run that starts a server gets the handler thread (a thread
/// costs an allocator arena, and the hostile suite holds runs to 512 MiB of address space).
pub fn end_on_signals() {
    END_ON_SIGNALS.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn install_signal_handler() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        if !END_ON_SIGNALS.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        ONCE.call_once(|| {
            if let Ok(mut signals) = signal_hook::iterator::Signals::new(ENDING_SIGNALS) {
                let _ = std::thread::Builder::new()
                    .name("signals".into())
                    .spawn(move || {
                        if let Some(sig) = signals.forever().next() {
                            // Noted before the servers die: the run their death ends (a listing
                            // that lost its server) exits with the signal's code too.
                            ENDING.store(sig, std::sync::atomic::Ordering::SeqCst);
                            kill_running();
                            std::process::exit(128 + sig);
                        }
                    });
            }
        });
    }
}

/// The ending signal the handler caught, once it has (0 before).
static ENDING: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The ending signal that is ending the run, if one is: the handler is about to exit with the
/// shell's code for it (the command that lost its servers must not exit before it, nor beside
/// it: two threads in `exit` at once may crash).
pub fn ending_signal() -> Option<i32> {
    match ENDING.load(std::sync::atomic::Ordering::SeqCst) {
        0 => None,
        sig => Some(sig),
    }
}

/// SIGKILL the process group of every server still running (each was started in its own group,
/// so this reaches the children of `npx`, `uvx` and `sh -c` wrappers too).
pub fn kill_running() {
    #[cfg(unix)]
    for id in running::all() {
        use rustix::process::{Pid, Signal as S, kill_process_group};
        if let Some(pid) = i32::try_from(id).ok().and_then(Pid::from_raw) {
            let _ = kill_process_group(pid, S::KILL);
        }
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        self.shutdown(false);
    }
}

fn read_stderr<R: Read>(stderr: R, tail: &Mutex<VecDeque<String>>) {
    let mut r = BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        let end = match read_line_bounded(&mut r, &mut buf, STDERR_LINE) {
            Ok(end) => end,
            Err(_) => return,
        };
        if end == LineEnd::Eof {
            return;
        }
        let line = one_line(&String::from_utf8_lossy(&buf), 200);
        if !line.is_empty()
            && let Ok(mut t) = tail.lock()
        {
            if t.len() == STDERR_TAIL {
                t.pop_front();
            }
            t.push_back(line);
        }
        if end == LineEnd::TooLong {
            // Skip the rest of an overlong line.
            loop {
                match read_line_bounded(&mut r, &mut buf, STDERR_LINE) {
                    Ok(LineEnd::TooLong) => continue,
                    Ok(_) => break,
                    Err(_) => return,
                }
            }
        }
    }
}

enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(child: &mut Child, sig: Signal) {
    use rustix::process::{Pid, Signal as S, kill_process_group};
    let sig = match sig {
        Signal::Term => S::TERM,
        Signal::Kill => S::KILL,
    };
    // ESRCH (the group is gone) is the good case.
    let _ = kill_process_group(Pid::from_child(child), sig);
}

#[cfg(not(unix))]
fn signal_group(child: &mut Child, _sig: Signal) {
    let _ = child.kill();
}

fn kill_now(child: &mut Child) {
    signal_group(child, Signal::Kill);
    let _ = child.wait();
}

#[cfg(test)]
mod tests;
