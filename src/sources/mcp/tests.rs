//! Unit tests of the MCP client against scripted peers in memory (the real servers are in
//! `tests/mcp_real.rs`).
//!
//! Kept in one file: every test scripts its peer with the same helpers (`legacy_server`,
//! `modern_server`, `tool`, `ok`, `err`).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;

/// A peer played by a closure: each message the client sends yields the server's messages.
struct Fake<F> {
    server: F,
    queue: VecDeque<Value>,
    sent: Vec<Value>,
    protocols: Vec<Protocol>,
}

impl<F: FnMut(&Value) -> Vec<Value>> Fake<F> {
    fn new(server: F) -> Self {
        Fake {
            server,
            queue: VecDeque::new(),
            sent: Vec::new(),
            protocols: Vec::new(),
        }
    }
    fn methods(&self) -> Vec<String> {
        self.sent
            .iter()
            .map(|m| match (m.get("method"), m.get("id")) {
                (Some(Value::String(s)), _) => s.clone(),
                (None, Some(id)) => format!("reply:{id}"),
                _ => "?".into(),
            })
            .collect()
    }
}

impl<F: FnMut(&Value) -> Vec<Value>> Transport for Fake<F> {
    fn send(&mut self, msg: &Value, _: Instant) -> Result<(), Failure> {
        self.sent.push(msg.clone());
        let out = (self.server)(msg);
        self.queue.extend(out);
        Ok(())
    }
    fn recv(&mut self, _: Instant) -> Result<Value, Failure> {
        self.queue.pop_front().ok_or(Failure::Timeout)
    }
    fn set_protocol(&mut self, p: &Protocol) {
        self.protocols.push(p.clone());
    }
}

fn later() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

fn ok(id: &Value, result: Value) -> Value {
    json!({"result": result, "jsonrpc": "2.0", "id": id})
}

fn err(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

/// A legacy server like the TS reference servers: `-32601` to discover, one extra tool only
/// after `notifications/initialized`, a list_changed notification and a `roots/list` request
/// with id 0 before the answer.
fn legacy_server() -> impl FnMut(&Value) -> Vec<Value> {
    let mut initialized = false;
    move |m| {
        let id = m.get("id").cloned().unwrap_or(Value::Null);
        match m.get("method").and_then(Value::as_str) {
            Some("server/discover") => vec![err(&id, -32601, "Method not found")],
            Some("initialize") => vec![ok(
                &id,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "legacy", "version": "1.0"}}),
            )],
            Some("notifications/initialized") => {
                initialized = true;
                vec![]
            }
            Some("tools/list") => {
                let mut tools = vec![tool("a")];
                if initialized {
                    tools.push(tool("b"));
                }
                vec![
                    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                    json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
                    json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}),
                    ok(&json!(999), json!({"tools": []})),
                    ok(&id, json!({"tools": tools})),
                ]
            }
            _ => vec![],
        }
    }
}

#[test]
fn legacy_handshake_in_order_and_server_requests_answered() {
    let mut t = Fake::new(legacy_server());
    let l = list_tools(&mut t, later(), ClientOptions::default()).unwrap();
    let names: Vec<_> = l.tools.iter().map(|t| t["name"].clone()).collect();
    assert_eq!(
        names,
        [json!("a"), json!("b")],
        "initialized must come first"
    );
    assert_eq!(l.protocol, Protocol::Legacy("2025-11-25".into()));
    assert_eq!(l.server.as_deref(), Some("legacy 1.0"));
    assert_eq!(
        t.methods(),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "reply:0",
            "reply:\"p\""
        ]
    );
    // roots/list (id 0) gets -32601, ping gets {}.
    assert_eq!(t.sent[4]["id"], json!(0));
    assert_eq!(t.sent[4]["error"]["code"], json!(-32601));
    assert_eq!(t.sent[5]["result"], json!({}));
    assert_eq!(
        t.sent[1]["params"],
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "tracelint", "version": env!("CARGO_PKG_VERSION")}})
    );
    assert_eq!(
        t.protocols,
        [
            Protocol::Modern(MODERN_VERSION.into()),
            Protocol::Handshake,
            Protocol::Legacy("2025-11-25".into())
        ]
    );
}

/// A modern server that pages: `page` tools per page, opaque cursors.
fn modern_server(total: usize, page: usize) -> impl FnMut(&Value) -> Vec<Value> {
    move |m| {
        let id = m.get("id").cloned().unwrap_or(Value::Null);
        let meta = &m["params"]["_meta"];
        if meta["io.modelcontextprotocol/protocolVersion"] != json!(MODERN_VERSION) {
            return vec![err(&id, -32602, "missing _meta")];
        }
        match m.get("method").and_then(Value::as_str) {
            Some("server/discover") => vec![ok(
                &id,
                json!({"supportedVersions": [MODERN_VERSION], "capabilities": {"tools": {}},
                       "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2"}}}),
            )],
            Some("tools/list") => {
                let start = match m["params"].get("cursor").and_then(Value::as_str) {
                    None => 0,
                    Some(c) => match c.strip_prefix("off:").and_then(|n| n.parse().ok()) {
                        Some(n) => n,
                        None => return vec![err(&id, -32602, "Invalid cursor")],
                    },
                };
                let end = (start + page).min(total);
                let tools: Vec<Value> = (start..end).map(|i| tool(&format!("t{i}"))).collect();
                let mut result = json!({"tools": tools, "resultType": "complete", "ttlMs": 0});
                if end < total {
                    result["nextCursor"] = json!(format!("off:{end}"));
                }
                vec![ok(&id, result)]
            }
            _ => vec![err(&id, -32601, "Method not found")],
        }
    }
}

#[test]
fn modern_era_pages_through_every_page() {
    let mut t = Fake::new(modern_server(5, 2));
    let l = list_tools(&mut t, later(), ClientOptions::default()).unwrap();
    assert_eq!(l.tools.len(), 5);
    assert_eq!(l.pages, 3);
    assert_eq!(l.protocol, Protocol::Modern(MODERN_VERSION.into()));
    assert_eq!(l.server.as_deref(), Some("modern 2"));
    assert_eq!(
        t.methods(),
        ["server/discover", "tools/list", "tools/list", "tools/list"]
    );
    assert_eq!(t.sent[3]["params"]["cursor"], json!("off:4"));
    assert!(t.sent.iter().all(|m| m["jsonrpc"] == json!("2.0")));
}

#[test]
fn unsupported_version_retries_with_a_listed_one() {
    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        let v = m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].clone();
        if v != json!("2027-01-01") {
            return vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2027-01-01"], "requested": v}}})];
        }
        vec![ok(&id, json!({"tools": [tool("x")]}))]
    });
    let l = list_tools(&mut t, later(), ClientOptions::default()).unwrap();
    assert_eq!(l.protocol, Protocol::Modern("2027-01-01".into()));
    assert_eq!(t.methods(), ["server/discover", "tools/list"]);
}

#[test]
fn initialize_refused_as_modern_switches_era() {
    // MCP.md §3 trap: the late discover answer locked the server; initialize is refused.
    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        match m["method"].as_str() {
            Some("server/discover") => vec![err(&id, -32603, "busy")],
            Some("initialize") => {
                vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022,
                "message": "connection is serving the 2026-07-28 protocol",
                "data": {"supported": ["2026-07-28"]}}})]
            }
            _ => vec![ok(&id, json!({"tools": [tool("x")]}))],
        }
    });
    let l = list_tools(&mut t, later(), ClientOptions::default()).unwrap();
    assert_eq!(l.protocol, Protocol::Modern(MODERN_VERSION.into()));
    assert_eq!(t.methods(), ["server/discover", "initialize", "tools/list"]);
    assert!(t.sent[2]["params"]["_meta"].is_object());
}

#[test]
fn repeated_cursor_is_a_paging_loop() {
    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        match m["method"].as_str() {
            Some("server/discover") => vec![ok(&id, json!({}))],
            _ => vec![ok(&id, json!({"tools": [tool("x")], "nextCursor": "same"}))],
        }
    });
    let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
    assert_eq!(e.during, "tools/list page 2");
    assert_eq!(
        e.failure,
        Failure::Protocol("the server sent the cursor `same` a second time (a paging loop)".into())
    );
}

#[test]
fn endless_fresh_cursors_hit_the_page_cap() {
    let mut n = 0;
    let mut t = Fake::new(move |m: &Value| {
        let id = m["id"].clone();
        n += 1;
        vec![ok(&id, json!({"tools": [], "nextCursor": format!("c{n}")}))]
    });
    let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
    assert!(
        matches!(e.failure, Failure::Protocol(ref m) if m.contains("after 1000 pages")),
        "{e:?}"
    );
    assert_eq!(t.sent.len(), 1 + MAX_PAGES);
}

#[test]
fn legacy_answers_of_any_kind_fall_back_to_initialize() {
    // Python `mcp` 1.x answers discover with -32602; an HTTP server with a 404 page.
    for discover in [
        Failure::Rpc(RpcError {
            code: -32602,
            message: "Invalid request parameters".into(),
            data: None,
        }),
        Failure::Http {
            status: 404,
            detail: "Not Found".into(),
            rpc: None,
        },
        Failure::Http {
            status: 400,
            detail: "Bad Request".into(),
            rpc: Some(RpcError {
                code: -32000,
                message: "Server not initialized".into(),
                data: None,
            }),
        },
        Failure::NoReply,
    ] {
        let mut first = true;
        let mut server = legacy_server();
        let mut t = FailFirst {
            inner: Fake::new(move |m: &Value| server(m)),
            first: &mut first,
            failure: discover.clone(),
        };
        let l = list_tools(&mut t, later(), ClientOptions::default()).unwrap();
        assert_eq!(l.tools.len(), 2, "{discover:?}");
    }
}

/// Fails the first exchange (the discover probe) with a given failure.
struct FailFirst<'a, F> {
    inner: Fake<F>,
    first: &'a mut bool,
    failure: Failure,
}

impl<F: FnMut(&Value) -> Vec<Value>> Transport for FailFirst<'_, F> {
    fn send(&mut self, msg: &Value, d: Instant) -> Result<(), Failure> {
        if *self.first {
            *self.first = false;
            self.inner.sent.push(msg.clone());
            return Err(self.failure.clone());
        }
        self.inner.send(msg, d)
    }
    fn recv(&mut self, d: Instant) -> Result<Value, Failure> {
        self.inner.recv(d)
    }
}

#[test]
fn fatal_failures_during_discover_stop_at_once() {
    for fatal in [
        Failure::Timeout,
        Failure::Closed,
        Failure::Io("refused".into()),
        Failure::TooLarge(9),
    ] {
        let mut first = true;
        let mut t = FailFirst {
            inner: Fake::new(legacy_server()),
            first: &mut first,
            failure: fatal.clone(),
        };
        let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
        assert_eq!(
            e,
            McpError {
                during: "server/discover".into(),
                failure: fatal
            }
        );
        assert_eq!(t.inner.sent.len(), 1);
    }
}

#[test]
fn skip_discover_goes_straight_to_initialize() {
    let mut t = Fake::new(legacy_server());
    let opts = ClientOptions {
        skip_discover: true,
    };
    list_tools(&mut t, later(), opts).unwrap();
    assert_eq!(t.methods()[0], "initialize");
}

#[test]
fn unknown_legacy_version_is_refused() {
    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        match m["method"].as_str() {
            Some("initialize") => vec![ok(&id, json!({"protocolVersion": "1999-01-01"}))],
            _ => vec![err(&id, -32601, "nope")],
        }
    });
    let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
    assert_eq!(e.during, "initialize");
    assert!(
        matches!(&e.failure, Failure::Protocol(m) if m.starts_with("the server answered protocol version `1999-01-01`")),
        "{e:?}"
    );
}

#[test]
fn batches_and_bad_answers() {
    // A batch carrying the answer is read; `tools` missing is an error; a JSON-RPC error is kept.
    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        match m["method"].as_str() {
            Some("server/discover") => {
                vec![json!([{"jsonrpc": "2.0", "method": "notifications/x"}, ok(&id, json!({}))])]
            }
            _ => vec![ok(&id, json!({"tool": []}))],
        }
    });
    let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
    assert_eq!(
        e.failure,
        Failure::Protocol("the answer has no `tools` list".into())
    );

    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        match m["method"].as_str() {
            Some("server/discover") => vec![ok(&id, json!({}))],
            _ => vec![ok(
                &id,
                json!({"tools": [], "resultType": "input_required"}),
            )],
        }
    });
    let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
    assert_eq!(
        e.failure,
        Failure::Protocol("the answer has `resultType` `input_required`, not `complete`".into())
    );

    let mut t = Fake::new(|m: &Value| {
        let id = m["id"].clone();
        match m["method"].as_str() {
            Some("server/discover") => vec![ok(&id, json!({}))],
            _ => vec![err(&id, -32603, "database\n  down")],
        }
    });
    let e = list_tools(&mut t, later(), ClientOptions::default()).unwrap_err();
    assert_eq!(e.during, "tools/list page 1");
    assert_eq!(
        e.failure.rpc().unwrap().to_string(),
        "error -32603: database down"
    );
}

#[test]
fn one_line_cleans_and_cuts() {
    assert_eq!(one_line("a\n\tb \u{1b}[31mc", 100), "a b [31mc");
    assert_eq!(one_line("abcdef", 3), "abc…");
    assert_eq!(one_line("a\u{202E}b\u{200B}c", 10), "abc");
}

#[test]
fn seconds_read_naturally() {
    assert_eq!(seconds(Duration::from_secs(30)), "30 s");
    assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
    assert_eq!(seconds(Duration::from_millis(300)), "0.3 s");
}
