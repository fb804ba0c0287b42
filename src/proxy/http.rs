//! `tracelint mcp proxy --listen ADDR --upstream URL`: the same proxy for Streamable HTTP. A
//! small HTTP/1.1 server (a thread per connection, bounded heads and bodies) forwards each
//! request to the upstream MCP endpoint with its headers (`Mcp-Session-Id`,
//! `MCP-Protocol-Version`, `Last-Event-ID`, `Accept`, auth) and streams the answer back: a JSON
//! body whole, an SSE stream event by event, flushed as each arrives. One trace per MCP
//! session (per `Mcp-Session-Id`; one for a sessionless server). Listens on loopback unless
//! told otherwise.
//!
//! One cohesive transport: the HTTP/1.1 listener, the forwarding and the per-session recording
//! share one connection loop.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use ureq::Agent;
use ureq::http;

use super::record::Recorder;
use super::reply::answer;
use super::traffic::observe_msg;
use super::{Options, Shared, key};
use crate::sources::stdio::{LineEnd, read_line_bounded};

/// Longest request head (request line and headers), in bytes.
const MAX_HEAD: usize = 64 << 10;
/// Connections served at once.
const MAX_CONNECTIONS: usize = 256;
/// MCP sessions tracked at once (a session ends with its `DELETE`); past this, a new session is
/// still proxied but not tracked by id.
const MAX_SESSIONS: usize = 4096;

/// Headers that belong to one hop and are not forwarded either way.
const HOP: &[&str] = &[
    "host",
    "connection",
    "keep-alive",
    "content-length",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-connection",
    "proxy-authorization",
    "accept-encoding",
];

struct Proxy {
    opts: Options,
    upstream: String,
    agent: Agent,
    /// Session id → its state ("" for a server without sessions).
    sessions: Mutex<HashMap<String, Arc<Shared>>>,
    open: AtomicUsize,
}

/// Serve until killed.
pub fn run(opts: &Options, listen: SocketAddr, upstream: &str) -> Result<(), String> {
    let listener =
        TcpListener::bind(listen).map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let config = Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build();
    let proxy = Arc::new(Proxy {
        opts: opts.clone(),
        upstream: upstream.to_owned(),
        agent: Agent::new_with_config(config),
        sessions: Mutex::new(HashMap::new()),
        open: AtomicUsize::new(0),
    });
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "tracelint mcp proxy: listening on http://{} → {upstream}",
            listener.local_addr().map_err(|e| e.to_string())?
        );
    }
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        if proxy.open.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let mut c = conn;
            let _ = c.write_all(
                b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
            continue;
        }
        proxy.open.fetch_add(1, Ordering::SeqCst);
        let p = Arc::clone(&proxy);
        let spawned = std::thread::Builder::new()
            .name("mcp-proxy-http".into())
            .spawn(move || {
                let _ = serve(&p, conn);
                p.open.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            proxy.open.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(())
}

struct Request {
    method: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Serve one client connection: requests one after another (keep-alive).
fn serve(p: &Arc<Proxy>, conn: TcpStream) -> io::Result<()> {
    let mut r = BufReader::new(conn.try_clone()?);
    let mut w = conn;
    loop {
        let Some(req) = read_request(&mut r, p.opts.max_line)? else {
            return Ok(());
        };
        let close =
            header(&req.headers, "connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        forward(p, &req, &mut w)?;
        if close {
            return Ok(());
        }
    }
}

fn read_request(r: &mut impl BufRead, max_body: usize) -> io::Result<Option<Request>> {
    let mut head = Vec::new();
    let mut line = Vec::new();
    loop {
        match read_line_bounded(r, &mut line, MAX_HEAD)? {
            LineEnd::Eof if head.is_empty() => return Ok(None),
            LineEnd::Eof => return Err(io::Error::other("connection closed mid-request")),
            LineEnd::TooLong => return Err(io::Error::other("request head too long")),
            LineEnd::Line => {}
        }
        let l = line.strip_suffix(b"\r").unwrap_or(&line);
        if l.is_empty() {
            if head.is_empty() {
                continue;
            }
            break;
        }
        head.push(String::from_utf8_lossy(l).into_owned());
        if head.iter().map(String::len).sum::<usize>() > MAX_HEAD {
            return Err(io::Error::other("request head too long"));
        }
    }
    let mut first = head[0].split(' ');
    let method = first.next().unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = head[1..]
        .iter()
        .filter_map(|h| {
            let (k, v) = h.split_once(':')?;
            Some((k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect();
    let mut body = Vec::new();
    if header(&headers, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            read_line_bounded(r, &mut line, 1024)?;
            let size = String::from_utf8_lossy(&line);
            let size = size.trim().split(';').next().unwrap_or("");
            let n = usize::from_str_radix(size, 16).map_err(|_| io::Error::other("bad chunk"))?;
            if body.len() + n > max_body {
                return Err(io::Error::other("request body too large"));
            }
            if n == 0 {
                read_line_bounded(r, &mut line, 1024)?;
                break;
            }
            let at = body.len();
            body.resize(at + n, 0);
            r.read_exact(&mut body[at..])?;
            read_line_bounded(r, &mut line, 16)?;
        }
    } else if let Some(n) = header(&headers, "content-length") {
        let n: usize = n
            .parse()
            .map_err(|_| io::Error::other("bad content-length"))?;
        if n > max_body {
            return Err(io::Error::other("request body too large"));
        }
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    }
    Ok(Some(Request {
        method,
        headers,
        body,
    }))
}

impl Proxy {
    /// The session a request belongs to, made on first sight.
    fn session(&self, id: &str) -> Arc<Shared> {
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(x) = s.get(id) {
            return Arc::clone(x);
        }
        let x = self.fresh();
        if s.len() < MAX_SESSIONS {
            s.insert(id.to_owned(), Arc::clone(&x));
        }
        x
    }

    fn fresh(&self) -> Arc<Shared> {
        let recorder = self.opts.record.as_ref().and_then(|dir| {
            let facts = json!({
                "transport": "streamable-http",
                "upstream": crate::sources::http::display_url(&self.upstream),
                "injection": self.opts.inject.as_ref().map(super::inject::Plan::describe),
            });
            match Recorder::create(dir, facts) {
                Ok(r) => Some(r),
                Err(e) => {
                    #[allow(clippy::print_stderr)]
                    {
                        eprintln!(
                            "tracelint mcp proxy: cannot write a record in {}: {e}",
                            dir.display()
                        );
                    }
                    None
                }
            }
        });
        Arc::new(Shared::new(&self.opts, recorder, None))
    }
}

fn forward(p: &Arc<Proxy>, req: &Request, w: &mut TcpStream) -> io::Result<()> {
    let session_id = header(&req.headers, "mcp-session-id").map(str::to_owned);
    // An `initialize` starts a session: its id comes with the answer.
    let msgs: Vec<Value> = match serde_json::from_slice::<Value>(&req.body) {
        Ok(Value::Array(a)) => a,
        Ok(v @ Value::Object(_)) => vec![v],
        _ => Vec::new(),
    };
    let starts = msgs.iter().any(|m| m["method"] == "initialize");
    let shared = match (&session_id, starts) {
        (_, true) => p.fresh(),
        (Some(id), false) => p.session(id),
        (None, false) => p.session(""),
    };
    for m in &msgs {
        observe_msg(m, &shared);
    }
    let mut b = http::Request::builder()
        .method(req.method.as_str())
        .uri(p.upstream.as_str());
    for (k, v) in &req.headers {
        if !HOP.contains(&k.to_ascii_lowercase().as_str()) {
            b = b.header(k.as_str(), v.as_str());
        }
    }
    let resp = if req.method == "POST" || !req.body.is_empty() {
        let r = b.body(req.body.clone()).map_err(io::Error::other)?;
        p.agent.run(r)
    } else {
        let r = b.body(()).map_err(io::Error::other)?;
        p.agent.run(r)
    };
    let resp = match resp {
        Ok(r) => r,
        Err(e) => {
            let msg = format!("upstream {}: {e}", p.upstream);
            write!(
                w,
                "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\r\n{msg}",
                msg.len()
            )?;
            return w.flush();
        }
    };
    let status = resp.status();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .filter(|(k, _)| !HOP.contains(&k.as_str()))
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    {
        let mut sessions = p.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if starts && sessions.len() < MAX_SESSIONS {
            let id = header(&headers, "mcp-session-id").unwrap_or("").to_owned();
            sessions.insert(id, Arc::clone(&shared));
        }
        if req.method == "DELETE"
            && let Some(id) = &session_id
        {
            sessions.remove(id);
        }
    }
    let sse = header(&headers, "content-type").is_some_and(|c| c.starts_with("text/event-stream"));
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let mut body = resp.into_body();
    let mut reader = body.as_reader();
    if sse {
        head.push_str("transfer-encoding: chunked\r\n\r\n");
        w.write_all(head.as_bytes())?;
        w.flush()?;
        stream_events(
            &shared,
            &mut BufReader::new(&mut reader),
            w,
            p.opts.max_line,
        )?;
        w.write_all(b"0\r\n\r\n")?;
        return w.flush();
    }
    let mut data = Vec::new();
    (&mut reader)
        .take(p.opts.max_line as u64 + 1)
        .read_to_end(&mut data)?;
    let json = header(&headers, "content-type").is_some_and(|c| c.starts_with("application/json"));
    if json && let Ok(msg) = serde_json::from_slice::<Value>(&data) {
        match answer(&shared, &msg, true) {
            Some(Some(line)) => data = line.strip_suffix(b"\n").unwrap_or(&line).to_vec(),
            Some(None) => match hold(&shared, &msg) {
                Some(line) => data = line.strip_suffix(b"\n").unwrap_or(&line).to_vec(),
                None => return Err(io::Error::other("held reply cancelled")),
            },
            None => {}
        }
    }
    head.push_str(&format!("content-length: {}\r\n\r\n", data.len()));
    w.write_all(head.as_bytes())?;
    w.write_all(&data)?;
    w.flush()
}

/// A `timeout` fault over HTTP: this request waits until the client cancels (nothing is sent)
/// or the hold ends (the timeout error is sent).
fn hold(shared: &Arc<Shared>, msg: &Value) -> Option<Vec<u8>> {
    let id = msg.get("id")?;
    let until = Instant::now() + shared.hold;
    loop {
        let still = shared
            .held
            .lock()
            .map(|h| h.contains_key(&key(id)))
            .unwrap_or(false);
        if !still {
            return None;
        }
        if Instant::now() >= until {
            return super::expire(shared, id);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Pass an SSE stream through event by event (each forwarded as one chunk as soon as its blank
/// line arrives), replacing the data of an event that answers an injected call.
fn stream_events(
    shared: &Arc<Shared>,
    r: &mut impl BufRead,
    w: &mut impl Write,
    max_line: usize,
) -> io::Result<()> {
    let mut event: Vec<u8> = Vec::new();
    let mut data: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    loop {
        let end = read_line_bounded(r, &mut line, max_line)?;
        if end == LineEnd::TooLong {
            return Err(io::Error::other("SSE line too long"));
        }
        let eof = end == LineEnd::Eof;
        if !eof {
            let l = line.strip_suffix(b"\r").unwrap_or(&line);
            if let Some(d) = l.strip_prefix(b"data:") {
                if !data.is_empty() {
                    data.push(b'\n');
                }
                data.extend_from_slice(d.strip_prefix(b" ").unwrap_or(d));
            }
            event.extend_from_slice(&line);
            event.push(b'\n');
            if event.len() > max_line {
                return Err(io::Error::other("SSE event too large"));
            }
            if !l.is_empty() {
                continue;
            }
        }
        if !event.is_empty() {
            let mut out = std::mem::take(&mut event);
            if let Ok(msg) = serde_json::from_slice::<Value>(&data) {
                match answer(shared, &msg, true) {
                    Some(Some(reply)) => out = replaced(&out, &reply),
                    Some(None) => match hold(shared, &msg) {
                        Some(reply) => out = replaced(&out, &reply),
                        None => return Ok(()),
                    },
                    None => {}
                }
            }
            data.clear();
            write!(w, "{:x}\r\n", out.len())?;
            w.write_all(&out)?;
            w.write_all(b"\r\n")?;
            w.flush()?;
        }
        if eof {
            return Ok(());
        }
    }
}

/// The event with its `data` lines replaced by one line holding `reply`.
fn replaced(event: &[u8], reply: &[u8]) -> Vec<u8> {
    let reply = reply.strip_suffix(b"\n").unwrap_or(reply);
    let mut out = Vec::new();
    let mut done = false;
    for l in event.split_inclusive(|b| *b == b'\n') {
        if l.starts_with(b"data:") {
            if !done {
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(reply);
                out.push(b'\n');
                done = true;
            }
        } else {
            out.extend_from_slice(l);
        }
    }
    out
}
