//! The MCP client that lists a server's tools, over any `Transport` (MCP.md §2, §3, §8). It owns
//! the JSON-RPC conversation: era detection (`server/discover` with the modern `_meta` first; a
//! result or `-32022` means the 2026-07-28 era, anything else the legacy `initialize` →
//! `notifications/initialized` handshake), paged `tools/list` with a page cap and a
//! repeated-cursor guard, replies matched by id, server requests answered (`ping` → `{}`, others
//! → `-32601`), notifications ignored. It must not touch bytes, processes or sockets (`stdio/`,
//! `http/` do), and never sees traces or rules.
//!
//! One cohesive client: era detection, the handshake and paging are one JSON-RPC conversation over
//! one transport.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The modern protocol version tracelint speaks.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The legacy version offered in `initialize`.
pub const LEGACY_VERSION: &str = "2025-11-25";
/// Legacy versions accepted in a server's `initialize` answer.
pub const LEGACY_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// More pages than this is a server that never stops paging.
pub const MAX_PAGES: usize = 1000;
/// More tools than this in one listing is refused.
pub const MAX_TOOLS: usize = 100_000;

/// Error codes of the modern era that prove the server speaks it (MCP.md §6.4).
const MODERN_CODES: [i64; 3] = [-32020, -32021, -32022];
const UNSUPPORTED_VERSION: i64 = -32022;

/// The protocol in force; HTTP transports mirror it in headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Protocol {
    /// 2026-07-28 or later: `_meta` on every request, no session.
    Modern(String),
    /// The legacy `initialize` request is under way (no version header yet).
    Handshake,
    /// A legacy session with the negotiated version.
    Legacy(String),
}

impl Protocol {
    /// The version string, when one is in force.
    pub fn version(&self) -> Option<&str> {
        match self {
            Protocol::Modern(v) | Protocol::Legacy(v) => Some(v),
            Protocol::Handshake => None,
        }
    }
}

/// A JSON-RPC error object sent by the server.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The error code.
    pub code: i64,
    /// The message.
    pub message: String,
    /// Extra data (`-32022` lists the supported versions here).
    pub data: Option<Value>,
}

impl RpcError {
    /// Read a JSON-RPC `error` member; `None` when it is not an error object.
    pub fn from_value(v: &Value) -> Option<RpcError> {
        let code = v.get("code")?.as_i64()?;
        Some(RpcError {
            code,
            message: v
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            data: v.get("data").cloned(),
        })
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error {}: {}", self.code, one_line(&self.message, 300))
    }
}

/// What went wrong while waiting for an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The deadline passed.
    Timeout,
    /// The server closed the stream (stdout EOF, SSE stream ended).
    Closed,
    /// One reply was larger than the limit (bytes).
    TooLarge(u64),
    /// An I/O or connection error.
    Io(String),
    /// An HTTP status other than success, with a body excerpt and the JSON-RPC error it held.
    Http {
        /// The status code.
        status: u16,
        /// What the server said (reason phrase and body excerpt).
        detail: String,
        /// The JSON-RPC error in the body, if any.
        rpc: Option<RpcError>,
    },
    /// The reply held no answer to the request.
    NoReply,
    /// The server answered with a JSON-RPC error.
    Rpc(RpcError),
    /// The server answered with something unusable.
    Protocol(String),
}

impl Failure {
    /// The JSON-RPC error the server sent, in a JSON-RPC answer or an HTTP error body.
    fn rpc(&self) -> Option<&RpcError> {
        match self {
            Failure::Rpc(r) | Failure::Http { rpc: Some(r), .. } => Some(r),
            _ => None,
        }
    }

    /// Failures after which nothing more can be said to this server.
    fn is_fatal(&self) -> bool {
        matches!(
            self,
            Failure::Timeout | Failure::Closed | Failure::TooLarge(_) | Failure::Io(_)
        )
    }
}

/// A failure and what the client was waiting for when it happened (`initialize`,
/// `tools/list page 3`).
#[derive(Debug, Clone, PartialEq)]
pub struct McpError {
    /// What was awaited.
    pub during: String,
    /// What went wrong.
    pub failure: Failure,
}

/// Moves JSON-RPC messages to and from one server.
pub trait Transport {
    /// Send one message. HTTP transports send requests here and keep the reply for `recv`.
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure>;
    /// The next message from the server (an object, or an array for a batch).
    fn recv(&mut self, deadline: Instant) -> Result<Value, Failure>;
    /// The protocol now in force (HTTP mirrors it in headers).
    fn set_protocol(&mut self, _protocol: &Protocol) {}
}

/// What a server listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// The raw `Tool` objects, in the server's order.
    pub tools: Vec<Value>,
    /// The protocol used.
    pub protocol: Protocol,
    /// `name version` from the server's `serverInfo`, when it sent one.
    pub server: Option<String>,
    /// `tools/list` pages read.
    pub pages: usize,
    /// The transport, when the caller names it (`Streamable HTTP`, `legacy HTTP+SSE`).
    pub via: Option<&'static str>,
}

/// Client options.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientOptions {
    /// Go straight to `initialize` (the legacy HTTP+SSE transport predates `server/discover`).
    pub skip_discover: bool,
}

/// List every tool the server behind `transport` declares, before `deadline`.
pub fn list_tools<T: Transport + ?Sized>(
    transport: &mut T,
    deadline: Instant,
    options: ClientOptions,
) -> Result<Listing, McpError> {
    let mut s = Session {
        t: transport,
        deadline,
        next_id: 1,
        chatter: 0,
        answered: 0,
    };
    let mut server = None;
    let mut protocol = None;
    if !options.skip_discover {
        s.t.set_protocol(&Protocol::Modern(MODERN_VERSION.into()));
        match s.request(
            "server/discover",
            modern_params(MODERN_VERSION),
            "server/discover",
        ) {
            Ok(result) => {
                server = server_info(result.pointer("/_meta/io.modelcontextprotocol~1serverInfo"));
                protocol = Some(Protocol::Modern(MODERN_VERSION.into()));
            }
            Err(e) if e.failure.is_fatal() => return Err(e),
            Err(e) => match e.failure.rpc() {
                Some(r) if r.code == UNSUPPORTED_VERSION => {
                    protocol = pick_modern(r).map(Protocol::Modern);
                }
                Some(r) if MODERN_CODES.contains(&r.code) => return Err(e),
                // Any other answer: a legacy server (TS: -32601, Python 1.x: -32602, HTTP 400/404).
                _ => {}
            },
        }
    }
    let protocol = match protocol {
        Some(p) => p,
        None => match s.initialize()? {
            Handshake::Legacy(version, info) => {
                server = info;
                Protocol::Legacy(version)
            }
            Handshake::Modern(version) => Protocol::Modern(version),
        },
    };
    s.t.set_protocol(&protocol);
    if let Protocol::Legacy(_) = protocol {
        s.notify("notifications/initialized")
            .map_err(|failure| McpError {
                during: "notifications/initialized".into(),
                failure,
            })?;
    }
    let (tools, pages, info) = s.list(&protocol)?;
    Ok(Listing {
        tools,
        protocol,
        server: server.or(info),
        pages,
        via: None,
    })
}

enum Handshake {
    Legacy(String, Option<String>),
    Modern(String),
}

struct Session<'t, T: ?Sized> {
    t: &'t mut T,
    deadline: Instant,
    next_id: u64,
    /// Messages received in this listing that were not the answer we waited for.
    chatter: usize,
    /// Requests from the server answered in this listing.
    answered: usize,
}

/// What one listing may cost: messages that are not our answers (notifications, pings, stray
/// replies) across the whole listing, and server requests it answers (pings); past the first
/// the listing fails, past the second requests are ignored.
const MAX_CHATTER: usize = 10_000;
const MAX_ANSWERED: usize = 1_000;

impl<T: Transport + ?Sized> Session<'_, T> {
    fn initialize(&mut self) -> Result<Handshake, McpError> {
        self.t.set_protocol(&Protocol::Handshake);
        let params = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": client_info(),
        });
        let result = match self.request("initialize", params, "initialize") {
            Ok(r) => r,
            Err(e) => {
                // An `mcp` 2.x server locked to the modern era by our probe says so (MCP.md §3).
                if let Some(v) = e
                    .failure
                    .rpc()
                    .filter(|r| r.code == UNSUPPORTED_VERSION)
                    .and_then(pick_modern)
                {
                    return Ok(Handshake::Modern(v));
                }
                return Err(e);
            }
        };
        let bad = |m: String| McpError {
            during: "initialize".into(),
            failure: Failure::Protocol(m),
        };
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("the `initialize` answer has no `protocolVersion`".into()))?;
        if !LEGACY_VERSIONS.contains(&version) {
            return Err(bad(format!(
                "the server answered protocol version `{}`, which tracelint does not speak (it speaks {} and {MODERN_VERSION})",
                one_line(version, 40),
                LEGACY_VERSIONS.join(", ")
            )));
        }
        Ok(Handshake::Legacy(
            version.to_owned(),
            server_info(result.get("serverInfo")),
        ))
    }

    fn list(
        &mut self,
        protocol: &Protocol,
    ) -> Result<(Vec<Value>, usize, Option<String>), McpError> {
        let mut tools = Vec::new();
        let mut bytes: u64 = 0;
        let mut seen = BTreeSet::new();
        let mut cursor: Option<String> = None;
        let mut info = None;
        for page in 1..=MAX_PAGES {
            let during = format!("tools/list page {page}");
            let mut params = match protocol {
                Protocol::Modern(v) => modern_params(v),
                _ => json!({}),
            };
            if let (Some(c), Some(obj)) = (&cursor, params.as_object_mut()) {
                obj.insert("cursor".into(), Value::String(c.clone()));
            }
            let result = self.request("tools/list", params, &during)?;
            let bad = |m: String| McpError {
                during: during.clone(),
                failure: Failure::Protocol(m),
            };
            match result.get("resultType").and_then(Value::as_str) {
                None | Some("complete") => {}
                Some(other) => {
                    return Err(bad(format!(
                        "the answer has `resultType` `{}`, not `complete`",
                        one_line(other, 40)
                    )));
                }
            }
            if info.is_none() {
                info = server_info(result.pointer("/_meta/io.modelcontextprotocol~1serverInfo"));
            }
            let Some(Value::Array(items)) = result.get("tools") else {
                return Err(bad("the answer has no `tools` list".into()));
            };
            if tools.len() + items.len() > MAX_TOOLS {
                return Err(bad(format!("the server lists more than {MAX_TOOLS} tools")));
            }
            // One budget for the whole listing, the same as for a tools file: 1,000 pages of
            // 16 MiB each would otherwise be accepted.
            bytes = bytes.saturating_add(json_len(items));
            if bytes > super::MAX_TOOLS_FILE {
                return Err(bad(format!(
                    "the server's tools come to more than {} MiB over {page} page(s) (the limit for a tools file)",
                    super::MAX_TOOLS_FILE >> 20
                )));
            }
            tools.extend(items.iter().cloned());
            match result.get("nextCursor") {
                None | Some(Value::Null) => return Ok((tools, page, info)),
                Some(Value::String(c)) if c.is_empty() => return Ok((tools, page, info)),
                Some(Value::String(c)) => {
                    if !seen.insert(c.clone()) {
                        return Err(bad(format!(
                            "the server sent the cursor `{}` a second time (a paging loop)",
                            one_line(c, 60)
                        )));
                    }
                    cursor = Some(c.clone());
                }
                Some(_) => return Err(bad("`nextCursor` is not a string".into())),
            }
        }
        Err(McpError {
            during: format!("tools/list page {}", MAX_PAGES + 1),
            failure: Failure::Protocol(format!(
                "the server was still paging after {MAX_PAGES} pages"
            )),
        })
    }

    /// Send a request and wait for the answer with its id, answering server requests meanwhile.
    fn request(&mut self, method: &str, params: Value, during: &str) -> Result<Value, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        let err = |failure| McpError {
            during: during.to_owned(),
            failure,
        };
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.t.send(&msg, self.deadline).map_err(err)?;
        let want = Value::from(id);
        loop {
            let incoming = self.t.recv(self.deadline).map_err(err)?;
            let batch = match incoming {
                Value::Array(items) => items,
                one => vec![one],
            };
            let mut answer = None;
            for m in batch {
                let ours =
                    answer.is_none() && m.get("method").is_none() && m.get("id") == Some(&want);
                if !ours {
                    self.chatter += 1;
                    if self.chatter > MAX_CHATTER {
                        return Err(err(Failure::Protocol(format!(
                            "the server sent more than {MAX_CHATTER} messages that were not answers (notifications, pings); a listing does not wait for a flood"
                        ))));
                    }
                }
                if let Some(method) = m.get("method").and_then(Value::as_str) {
                    // A request from the server (mind falsy ids such as 0); notifications have no id.
                    match m.get("id") {
                        Some(sid) if !sid.is_null() && self.answered < MAX_ANSWERED => {
                            self.answered += 1;
                            self.answer(sid.clone(), method);
                        }
                        _ => {}
                    }
                } else if answer.is_none() && m.get("id") == Some(&want) {
                    answer = Some(m);
                }
                // Anything else (an answer to another id, noise) is ignored.
            }
            if let Some(m) = answer {
                if let Some(e) = m.get("error") {
                    let rpc = RpcError::from_value(e).unwrap_or(RpcError {
                        code: 0,
                        message: one_line(&e.to_string(), 300),
                        data: None,
                    });
                    return Err(err(Failure::Rpc(rpc)));
                }
                return match m.get("result") {
                    Some(r @ Value::Object(_)) => Ok(r.clone()),
                    _ => Err(err(Failure::Protocol(
                        "the answer has no `result` object".into(),
                    ))),
                };
            }
        }
    }

    fn answer(&mut self, id: Value, method: &str) {
        let reply = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
        };
        // A failed reply surfaces on the next `recv` (the stream is gone) or does not matter.
        let _ = self.t.send(&reply, self.deadline);
    }

    fn notify(&mut self, method: &str) -> Result<(), Failure> {
        self.t
            .send(&json!({"jsonrpc": "2.0", "method": method}), self.deadline)
    }
}

fn client_info() -> Value {
    json!({"name": "tracelint", "version": env!("CARGO_PKG_VERSION")})
}

/// `params` carrying the modern `_meta` envelope.
fn modern_params(version: &str) -> Value {
    json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": client_info(),
    }})
}

/// The modern version to retry with after `-32022`: ours if listed, else the newest listed
/// version at or after ours (their message shapes are ours); `None` sends us to `initialize`.
fn pick_modern(r: &RpcError) -> Option<String> {
    let supported: Vec<&str> = r
        .data
        .as_ref()?
        .get("supported")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if supported.contains(&MODERN_VERSION) {
        return Some(MODERN_VERSION.into());
    }
    supported
        .into_iter()
        .filter(|v| *v > MODERN_VERSION && v.len() <= 40)
        .max()
        .map(str::to_owned)
}

fn server_info(v: Option<&Value>) -> Option<String> {
    let v = v?;
    let name = v.get("name").and_then(Value::as_str)?;
    let version = v.get("version").and_then(Value::as_str).unwrap_or("");
    Some(
        one_line(&format!("{name} {version}"), 120)
            .trim()
            .to_owned(),
    )
}

/// Collapse whitespace, drop control characters and cut to `max` characters (for messages).
/// The length of `v` as compact JSON, counted without building the text.
fn json_len(v: &[Value]) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

pub fn one_line(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.extend(
            word.chars()
                .filter(|c| !c.is_control() && !is_invisible(*c)),
        );
    }
    if out.chars().count() > max {
        let cut: String = out.chars().take(max).collect();
        format!("{cut}…")
    } else {
        out
    }
}

/// Bidi controls and zero-width characters, which could disguise a message on a terminal.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// The message for a failure common to every transport.
pub(crate) fn describe(what: &str, failure: &Failure, timeout: Duration) -> String {
    match failure {
        Failure::Timeout => format!("timed out after {} waiting for {what}", seconds(timeout)),
        Failure::Closed => format!("the server closed the connection before answering {what}"),
        Failure::TooLarge(n) => format!("a reply larger than {n} bytes while waiting for {what}"),
        Failure::Io(m) => format!("{m} while waiting for {what}"),
        Failure::Http { status, detail, .. } => {
            format!("HTTP {status} while waiting for {what}: {detail}")
        }
        Failure::NoReply => format!("the server sent no answer to {what}"),
        Failure::Rpc(r) => format!("the server answered {what} with {r}"),
        Failure::Protocol(m) => format!("unusable answer to {what}: {m}"),
    }
}

/// `30 s`, `2.5 s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{}", ((s * 1000.0).round() / 1000.0)) + " s"
    }
}

#[cfg(test)]
mod tests;
