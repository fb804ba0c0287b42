//! Unit tests of the HTTP transports against scripted servers on a loopback `TcpListener`:
//! headers sent, session handling, SSE and JSON replies, the fallback ladder, and error paths.
//! The real servers are in `tests/mcp_real.rs`.
//!
//! Kept in one file: the tests share one scripted loopback server (`read_request`, `respond`,
//! `json_reply`, `opts`).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::*;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Req {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Req {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn rpc_method(&self) -> &str {
        self.body["method"].as_str().unwrap_or("")
    }
}

type Handler = dyn Fn(&Req, &mut TcpStream) + Send + Sync;

/// A loopback server: one thread per connection, every request recorded.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Req>>>,
}

impl Server {
    fn start(path: &str, handler: impl Fn(&Req, &mut TcpStream) + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}{path}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
                std::thread::spawn(move || {
                    if let Some(req) = read_request(&mut conn) {
                        log.lock().unwrap().push(req.clone());
                        handler(&req, &mut conn);
                    }
                });
            }
        });
        Server { url, seen }
    }
    fn seen(&self) -> Vec<Req> {
        self.seen.lock().unwrap().clone()
    }
}

fn read_request(conn: &mut TcpStream) -> Option<Req> {
    let mut r = BufReader::new(conn.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        line.clear();
        r.read_line(&mut line).ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':')?;
        headers.push((k.trim().to_owned(), v.trim().to_owned()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    std::io::Read::read_exact(&mut r, &mut body).ok()?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Some(Req {
        method,
        path,
        headers,
        body,
    })
}

fn respond(conn: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &str) {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(body);
    let _ = conn.write_all(out.as_bytes());
}

fn json_reply(conn: &mut TcpStream, status: &str, v: &Value) {
    respond(
        conn,
        status,
        &[("Content-Type", "application/json")],
        &v.to_string(),
    );
}

fn opts(timeout_ms: u64) -> LoadOptions {
    LoadOptions {
        timeout: Duration::from_millis(timeout_ms),
        headers: vec![("Authorization".into(), "Bearer t0k".into())],
        ..LoadOptions::default()
    }
}

fn tools_result(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}})
}

#[test]
fn legacy_streamable_http_with_sessions_and_sse() {
    let server = Server::start("/mcp", |req, conn| {
        let id = req.body["id"].clone();
        match (req.method.as_str(), req.rpc_method()) {
            // The TS "everything" server: 400 + -32000 to anything before initialize.
            ("POST", "server/discover") => json_reply(
                conn,
                "400 Bad Request",
                &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Server not initialized"}}),
            ),
            ("POST", "initialize") => {
                let init = json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18",
                    "serverInfo": {"name": "x", "version": "1"}}});
                // TS framing: LF, a priming event with empty data first.
                let body = format!("id: a1\ndata: \n\nevent: message\nid: a2\ndata: {init}\n\n");
                respond(
                    conn,
                    "200 OK",
                    &[
                        ("Content-Type", "text/event-stream"),
                        ("Mcp-Session-Id", "s-42"),
                    ],
                    &body,
                );
            }
            ("POST", "notifications/initialized") => respond(conn, "202 Accepted", &[], ""),
            ("POST", "tools/list") => {
                // Python framing: CRLF, a notification and a ping request before the answer.
                let note = json!({"jsonrpc": "2.0", "method": "notifications/message"});
                let ping = json!({"jsonrpc": "2.0", "id": 0, "method": "ping"});
                let body = format!(
                    "event: message\r\ndata: {note}\r\n\r\nevent: message\r\ndata: {ping}\r\n\r\nevent: message\r\ndata: {}\r\n\r\n",
                    tools_result(&id)
                );
                respond(
                    conn,
                    "200 OK",
                    &[("Content-Type", "text/event-stream")],
                    &body,
                );
            }
            // Our answer to the ping.
            ("POST", "") => respond(conn, "202 Accepted", &[], ""),
            ("DELETE", _) => respond(conn, "200 OK", &[], ""),
            _ => respond(conn, "500 Internal Server Error", &[], ""),
        }
    });
    let (l, _) = list(&server.url, &opts(5000)).unwrap();
    assert_eq!(l.tools.len(), 1);
    assert_eq!(l.protocol, Protocol::Legacy("2025-06-18".into()));
    assert_eq!(l.via, Some("Streamable HTTP"));
    let seen = server.seen();
    let what: Vec<String> = seen
        .iter()
        .map(|r| format!("{} {}", r.method, r.rpc_method()))
        .collect();
    assert_eq!(
        what,
        [
            "POST server/discover",
            "POST initialize",
            "POST notifications/initialized",
            "POST tools/list",
            "POST ",
            "DELETE "
        ]
    );
    assert_eq!(
        seen[4].body,
        json!({"jsonrpc": "2.0", "id": 0, "result": {}})
    );
    for r in &seen {
        assert_eq!(r.header("Origin"), None, "no Origin header, ever");
        assert_eq!(
            r.header("Authorization"),
            Some("Bearer t0k"),
            "--header is sent"
        );
        assert!(r.header("Host").unwrap().starts_with("127.0.0.1:"));
    }
    for r in &seen[..5] {
        assert_eq!(
            r.header("Accept"),
            Some("application/json, text/event-stream")
        );
        assert_eq!(r.header("Content-Type"), Some("application/json"));
    }
    // Modern headers on the probe only; then the session and the negotiated version.
    assert_eq!(seen[0].header("MCP-Protocol-Version"), Some("2026-07-28"));
    assert_eq!(seen[0].header("Mcp-Method"), Some("server/discover"));
    assert_eq!(seen[1].header("MCP-Protocol-Version"), None);
    assert_eq!(seen[1].header("Mcp-Session-Id"), None);
    for r in &seen[2..] {
        assert_eq!(r.header("Mcp-Session-Id"), Some("s-42"));
        assert_eq!(r.header("MCP-Protocol-Version"), Some("2025-06-18"));
        assert_eq!(r.header("Mcp-Method"), None);
    }
}

#[test]
fn modern_json_replies_without_session() {
    let server = Server::start("/mcp", |req, conn| {
        let id = req.body["id"].clone();
        assert_eq!(req.header("MCP-Protocol-Version"), Some("2026-07-28"));
        assert_eq!(req.header("Mcp-Method"), Some(req.rpc_method()));
        match req.rpc_method() {
            "server/discover" => json_reply(
                conn,
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"supportedVersions": ["2026-07-28"]}}),
            ),
            "tools/list" => json_reply(conn, "200 OK", &tools_result(&id)),
            _ => respond(conn, "404 Not Found", &[], ""),
        }
    });
    let (l, _) = list(&server.url, &opts(5000)).unwrap();
    assert_eq!(l.protocol, Protocol::Modern("2026-07-28".into()));
    // Sessionless: no DELETE.
    assert_eq!(server.seen().len(), 2);
}

#[test]
fn legacy_http_sse_fallback() {
    // POST is refused (405); GET opens the stream; answers to POSTs arrive on it.
    let (tx, rx): (Sender<String>, Receiver<String>) = channel();
    let rx = Mutex::new(Some(rx));
    let tx = Mutex::new(tx);
    let server = Server::start("/sse", move |req, conn| {
        match (req.method.as_str(), req.path.as_str()) {
            ("POST", "/sse") => respond(conn, "405 Method Not Allowed", &[], "Method Not Allowed"),
            ("GET", "/sse") => {
                assert_eq!(req.header("Accept"), Some("text/event-stream"));
                let Some(rx) = rx.lock().unwrap().take() else {
                    return;
                };
                let _ = conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
                let _ = conn.write_all(
                    b": hello\r\n\r\nevent: endpoint\r\ndata: /messages/?session_id=9\r\n\r\n",
                );
                for msg in rx {
                    if conn
                        .write_all(format!("event: message\r\ndata: {msg}\r\n\r\n").as_bytes())
                        .is_err()
                    {
                        return;
                    }
                }
            }
            ("POST", "/messages/?session_id=9") => {
                let id = req.body["id"].clone();
                let answer = match req.rpc_method() {
                    "initialize" => Some(
                        json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2024-11-05"}}),
                    ),
                    "tools/list" => Some(tools_result(&id)),
                    _ => None,
                };
                respond(conn, "202 Accepted", &[], "Accepted");
                if let Some(a) = answer {
                    let _ = tx.lock().unwrap().send(a.to_string());
                }
            }
            _ => respond(conn, "404 Not Found", &[], ""),
        }
    });
    let (l, _) = list(&server.url, &opts(5000)).unwrap();
    assert_eq!(l.tools.len(), 1);
    assert_eq!(l.via, Some("legacy HTTP+SSE"));
    let what: Vec<String> = server
        .seen()
        .iter()
        .map(|r| format!("{} {} {}", r.method, r.path, r.rpc_method()))
        .collect();
    assert_eq!(
        what[..3],
        [
            "POST /sse server/discover",
            "POST /sse initialize",
            "GET /sse "
        ]
    );
    assert_eq!(
        what[3..],
        [
            "POST /messages/?session_id=9 initialize",
            "POST /messages/?session_id=9 notifications/initialized",
            "POST /messages/?session_id=9 tools/list",
        ]
    );
}

#[test]
fn not_acceptable_and_unauthorized_are_reported() {
    let server = Server::start("/mcp", |_, conn| {
        json_reply(
            conn,
            "406 Not Acceptable",
            &json!({"jsonrpc": "2.0", "id": "server-error",
            "error": {"code": -32600, "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}}),
        );
    });
    let e = list(&server.url, &opts(5000)).unwrap_err();
    assert_eq!(
        e,
        format!(
            "406 Not Acceptable from {} while waiting for initialize: {{\"error\":{{\"code\":-32600,\"message\":\"Not Acceptable: Client must accept both application/json and text/event-stream\"}},\"id\":\"server-error\",\"jsonrpc\":\"2.0\"}}",
            server.url
        )
    );
    let server = Server::start("/mcp", |_, conn| respond(conn, "401 Unauthorized", &[], ""));
    let e = list(&server.url, &opts(5000)).unwrap_err();
    assert!(e.starts_with("401 Unauthorized from"), "{e}");
    assert!(
        e.ends_with("pass credentials with `--header 'Authorization: Bearer …'`"),
        "{e}"
    );
}

#[test]
fn ladder_exhausted_names_every_step() {
    let server = Server::start("/mcp", |_, conn| {
        respond(
            conn,
            "404 Not Found",
            &[("Content-Type", "text/html")],
            "<h1>nope</h1>",
        )
    });
    let e = list(&server.url, &opts(5000)).unwrap_err();
    assert_eq!(
        e,
        format!(
            "no MCP transport answered at {0}: POST `initialize` gave 404, the legacy HTTP+SSE transport failed: 404 Not Found from {0} while waiting for the `endpoint` event: <h1>nope</h1>, and `GET {0}/tools/list` failed: 404 Not Found from {0}/tools/list while waiting for the tool list: <h1>nope</h1>",
            server.url
        )
    );
}

#[test]
fn a_server_that_only_answers_get_tools_list_is_read_last_with_a_note() {
    // Seed 000's form: no MCP at all, just `GET <url>/tools/list`.
    let server = Server::start("/api", |req, conn| {
        match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/api/tools/list") => json_reply(
                conn,
                "200 OK",
                &json!({"tools": [{"name": "read_file", "inputSchema": {"type": "object"}}]}),
            ),
            _ => respond(conn, "404 Not Found", &[], ""),
        }
    });
    let (l, notes) = list(&server.url, &opts(5000)).unwrap();
    assert_eq!(l.tools.len(), 1);
    assert_eq!(l.via, Some(PLAIN_GET));
    assert_eq!(
        notes,
        [format!(
            "the server does not speak MCP: its tools were read from `GET {}/tools/list` (a plain JSON tools endpoint); nothing else of MCP was used",
            server.url
        )]
    );
    // Streamable HTTP and HTTP+SSE were tried first, in that order.
    let mut what: Vec<(String, String)> = server
        .seen()
        .iter()
        .map(|r| (r.method.clone(), r.path.clone()))
        .collect();
    what.dedup();
    assert_eq!(
        what,
        [
            ("POST".to_owned(), "/api".to_owned()),
            ("GET".to_owned(), "/api".to_owned()),
            ("GET".to_owned(), "/api/tools/list".to_owned())
        ]
    );
    let get = server.seen().into_iter().last().unwrap();
    assert_eq!(get.header("Authorization"), Some("Bearer t0k"));
    // The whole source: the registry and the summary say it is not MCP.
    let loaded = crate::sources::load_with(
        &crate::sources::SourceSpec::McpHttp(server.url.clone()),
        &opts(5000),
    )
    .unwrap();
    assert!(loaded.registry.get("read_file").is_some());
    assert_eq!(
        loaded.notes[0],
        format!("mcp-http `{}`: 1 tool ({PLAIN_GET})", server.url)
    );
}

#[test]
fn redirects_only_within_the_origin() {
    let server = Server::start("/a", |req, conn| match req.path.as_str() {
        "/a" => respond(conn, "307 Temporary Redirect", &[("Location", "/b")], ""),
        "/b" => {
            let id = req.body["id"].clone();
            match req.rpc_method() {
                "server/discover" => json_reply(
                    conn,
                    "200 OK",
                    &json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                ),
                _ => json_reply(conn, "200 OK", &tools_result(&id)),
            }
        }
        _ => respond(conn, "404 Not Found", &[], ""),
    });
    assert_eq!(list(&server.url, &opts(5000)).unwrap().0.tools.len(), 1);
    let server = Server::start("/mcp", |_, conn| {
        respond(
            conn,
            "308 Permanent Redirect",
            &[("Location", "http://198.51.100.7/mcp")],
            "",
        )
    });
    let e = list(&server.url, &opts(5000)).unwrap_err();
    assert!(e.contains("redirects (308) to `http://198.51.100.7/mcp`, on another host; tracelint follows no such redirect"), "{e}");
}

#[test]
fn endpoint_on_another_host_is_refused() {
    let server = Server::start("/sse", |req, conn| match req.method.as_str() {
        "GET" => respond(
            conn,
            "200 OK",
            &[("Content-Type", "text/event-stream")],
            "event: endpoint\ndata: http://198.51.100.7/steal\n\n",
        ),
        _ => respond(conn, "405 Method Not Allowed", &[], ""),
    });
    let e = list(&server.url, &opts(5000)).unwrap_err();
    assert!(e.ends_with("unusable answer to the `endpoint` event: the `endpoint` event points to another host (`http://198.51.100.7/steal`); tracelint sends nothing there"), "{e}");
}

#[test]
fn oversized_reply_is_refused() {
    let server = Server::start("/mcp", |req, conn| {
        let id = req.body["id"].clone();
        let big = "x".repeat(4096);
        json_reply(
            conn,
            "200 OK",
            &json!({"jsonrpc": "2.0", "id": id, "result": {"pad": big}}),
        );
    });
    let o = LoadOptions {
        max_reply: 1024,
        ..opts(5000)
    };
    let e = list(&server.url, &o).unwrap_err();
    assert_eq!(
        e,
        "a reply larger than 1024 bytes while waiting for server/discover"
    );
    // The same bound holds for one SSE event.
    let server = Server::start("/mcp", |_, conn| {
        let body = format!("data: {}\n\n", "y".repeat(4096));
        respond(
            conn,
            "200 OK",
            &[("Content-Type", "text/event-stream")],
            &body,
        );
    });
    let e = list(&server.url, &o).unwrap_err();
    assert!(
        e.starts_with("a reply larger than 1024 bytes") || e.contains("larger than 1024 bytes"),
        "{e}"
    );
}

#[test]
fn silence_times_out_and_refusal_names_the_url() {
    let server = Server::start("/mcp", |_, _conn| {
        std::thread::sleep(Duration::from_secs(3))
    });
    let started = Instant::now();
    let e = list(&server.url, &opts(400)).unwrap_err();
    assert_eq!(e, "timed out after 0.4 s waiting for server/discover");
    assert!(started.elapsed() < Duration::from_secs(2));
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let e = list(&url, &opts(2000)).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "cannot talk to {url} while waiting for server/discover: "
        )),
        "{e}"
    );
    assert!(e.to_lowercase().contains("refused"), "{e}");
}

#[test]
fn headers_and_urls() {
    assert_eq!(
        parse_header("Authorization: Bearer a:b"),
        Ok(("Authorization".into(), "Bearer a:b".into()))
    );
    assert!(
        parse_header("NoColon")
            .unwrap_err()
            .contains("must look like `Name: value`")
    );
    assert!(
        parse_header("Bad Name: x")
            .unwrap_err()
            .contains("not a valid header name")
    );
    assert!(
        parse_header("accept: text/html")
            .unwrap_err()
            .contains("tracelint sets it")
    );
    assert!(
        parse_header("X: a\u{7}b")
            .unwrap_err()
            .contains("cannot carry")
    );
    assert_eq!(
        display_url("https://user:pw@host:1/p?q=1"),
        "https://host:1/p?q=…"
    );
    assert_eq!(
        display_url("http://h/mcp?api_key=SECRET&flag&x=#top"),
        "http://h/mcp?api_key=…&flag&x=#top"
    );
    assert_eq!(display_url("http://host/p@x"), "http://host/p@x");
    let base: Uri = "http://h:3/a/sse?x=1".parse().unwrap();
    let r = |s: &str| resolve(&base, s).unwrap().to_string();
    assert_eq!(r("/message?sessionId=1"), "http://h:3/message?sessionId=1");
    assert_eq!(r("messages/?s=2"), "http://h:3/a/messages/?s=2");
    assert_eq!(r("?s=3"), "http://h:3/a/sse?s=3");
    assert_eq!(r("//other/x"), "http://other/x");
    assert_eq!(r("https://o:9/y"), "https://o:9/y");
    assert!(
        list("ftp://h/x", &opts(100))
            .unwrap_err()
            .contains("is not an http:// or https:// URL")
    );
    assert!(
        list("not a url", &opts(100))
            .unwrap_err()
            .contains("is not a URL")
    );
}
