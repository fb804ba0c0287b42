//! The two copying threads: every line passed on unchanged and in order (one write and flush per
//! message; a line too long to read is passed through unread), and each message watched on the
//! way to record it and to track the requests the proxy may answer itself.

use std::io::{self, BufReader, Read, Write};
use std::process::ChildStdin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};

use crate::sources::stdio::{LineEnd, read_line_bounded};

use super::reply::{answer, cancelled};
use super::{Method, Pending, Shared, key};

pub(super) enum Side {
    Client,
    Server,
}

pub(super) fn client_to_server(
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
pub(super) fn observe_msg(msg: &Value, shared: &Arc<Shared>) {
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

pub(super) fn server_to_client(server: impl Read, shared: &Arc<Shared>, max_line: usize) {
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
