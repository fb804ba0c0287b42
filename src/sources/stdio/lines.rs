//! Newline-delimited JSON-RPC framing over any reader and writer (MCP.md §5.1): bounded lines,
//! `\r` stripped, blank lines skipped, non-JSON lines skipped and counted, a reader thread and a
//! writer thread so that no call blocks past its deadline. It owns framing only: processes are
//! the parent module's, the conversation is `mcp/`'s.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

use crate::sources::mcp::{Failure, Transport, one_line};

/// Non-JSON stdout lines quoted in notes and errors.
const NOISE_KEPT: usize = 3;

/// How a read of one bounded line ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LineEnd {
    /// A line is in the buffer (without its `\n`).
    Line,
    /// The stream ended.
    Eof,
    /// The line is longer than the bound; the buffer holds its start, the rest is unread.
    TooLong,
}

/// Read one `\n`-terminated line of at most `max` bytes into `buf`.
pub(crate) fn read_line_bounded<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineEnd> {
    buf.clear();
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(if buf.is_empty() {
                LineEnd::Eof
            } else {
                LineEnd::Line
            });
        }
        let (take, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        if buf.len() + take > max {
            let room = max - buf.len();
            buf.extend_from_slice(&avail[..room]);
            r.consume(room);
            return Ok(LineEnd::TooLong);
        }
        buf.extend_from_slice(&avail[..take]);
        r.consume(if done { take + 1 } else { take });
        if done {
            return Ok(LineEnd::Line);
        }
    }
}

enum Incoming {
    Message(Value),
    TooLarge(u64),
    Failed(String),
}

#[derive(Default)]
struct Noise {
    count: usize,
    first: Vec<String>,
}

/// Newline-delimited JSON-RPC over any reader and writer (a child's pipes, or in-memory pipes in
/// tests). A reader thread parses lines and a writer thread writes, so no call blocks past its
/// deadline.
/// Messages read from the server and not yet handled.
const INCOMING_QUEUE: usize = 256;

pub struct LineTransport {
    incoming: Receiver<Incoming>,
    outgoing: Option<Sender<Vec<u8>>>,
    noise: Arc<Mutex<Noise>>,
}

impl LineTransport {
    /// Start the reader and writer threads. Lines longer than `max_line` bytes end the stream.
    pub fn new<R, W>(reader: R, writer: W, max_line: usize) -> io::Result<LineTransport>
    where
        R: Read + Send + 'static,
        W: Write + Send + 'static,
    {
        // Bounded: a server that floods its stdout fills this queue and then its own pipe,
        // and waits; memory stays at `INCOMING_QUEUE` messages, never the flood.
        let (in_tx, incoming) = mpsc::sync_channel(INCOMING_QUEUE);
        let (outgoing, out_rx) = mpsc::channel::<Vec<u8>>();
        let noise = Arc::new(Mutex::new(Noise::default()));
        let seen = Arc::clone(&noise);
        std::thread::Builder::new()
            .name("mcp-stdout".into())
            .spawn(move || read_messages(reader, max_line, &in_tx, &seen))?;
        std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || {
                let mut w = writer;
                for buf in out_rx {
                    if w.write_all(&buf).and_then(|()| w.flush()).is_err() {
                        break;
                    }
                }
                // Dropping `w` closes the server's stdin.
            })?;
        Ok(LineTransport {
            incoming,
            outgoing: Some(outgoing),
            noise,
        })
    }

    /// Close the server's stdin once everything queued is written.
    pub fn close_input(&mut self) {
        self.outgoing = None;
    }

    /// "skipped N non-JSON lines …", when there were any.
    pub(crate) fn noise_note(&self) -> Option<String> {
        let noise = self.noise.lock().ok()?;
        if noise.count == 0 {
            return None;
        }
        let quoted: Vec<String> = noise.first.iter().map(|l| format!("`{l}`")).collect();
        Some(format!(
            "skipped {} non-JSON line{} on the server's stdout: {}{}",
            noise.count,
            if noise.count == 1 { "" } else { "s" },
            quoted.join(", "),
            if noise.count > noise.first.len() {
                ", …"
            } else {
                ""
            }
        ))
    }
}

fn read_messages<R: Read>(
    reader: R,
    max_line: usize,
    tx: &SyncSender<Incoming>,
    noise: &Mutex<Noise>,
) {
    let mut r = BufReader::with_capacity(64 << 10, reader);
    let mut buf = Vec::new();
    loop {
        match read_line_bounded(&mut r, &mut buf, max_line) {
            Ok(LineEnd::Eof) => return,
            Ok(LineEnd::TooLong) => {
                let _ = tx.send(Incoming::TooLarge(max_line as u64));
                return;
            }
            Err(e) => {
                let _ = tx.send(Incoming::Failed(e.to_string()));
                return;
            }
            Ok(LineEnd::Line) => {}
        }
        let line = buf.strip_suffix(b"\r").unwrap_or(&buf);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v) => {
                if tx.send(Incoming::Message(v)).is_err() {
                    return;
                }
            }
            Err(_) => {
                if let Ok(mut n) = noise.lock() {
                    n.count += 1;
                    if n.first.len() < NOISE_KEPT {
                        n.first.push(one_line(&String::from_utf8_lossy(line), 120));
                    }
                }
            }
        }
    }
}

impl Transport for LineTransport {
    fn send(&mut self, msg: &Value, _deadline: Instant) -> Result<(), Failure> {
        let mut buf = serde_json::to_vec(msg).map_err(|e| Failure::Io(e.to_string()))?;
        buf.push(b'\n');
        match &self.outgoing {
            Some(tx) => tx.send(buf).map_err(|_| Failure::Closed),
            None => Err(Failure::Closed),
        }
    }

    fn recv(&mut self, deadline: Instant) -> Result<Value, Failure> {
        // The deadline is absolute: past it, queued messages are not read (a chatty server
        // would otherwise keep a zero-wait receive answering for ever).
        let now = Instant::now();
        if now >= deadline {
            return Err(Failure::Timeout);
        }
        let left = deadline - now;
        match self.incoming.recv_timeout(left) {
            Ok(Incoming::Message(v)) => Ok(v),
            Ok(Incoming::TooLarge(n)) => Err(Failure::TooLarge(n)),
            Ok(Incoming::Failed(e)) => Err(Failure::Io(e)),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Closed),
        }
    }
}
