//! `mcp-http:<url>`: MCP over HTTP with ureq (MCP.md §6). Streamable HTTP — each message a POST
//! with `Accept: application/json, text/event-stream`, replies as JSON or SSE, `Mcp-Session-Id`
//! and `MCP-Protocol-Version` (plus `Mcp-Method` in the modern era), a DELETE at the end — and
//! the fallback ladder of §6.4 down to the legacy HTTP+SSE transport (GET the stream, POST to its
//! `endpoint`). No `Origin` is sent, no redirect to another host is followed, replies are
//! bounded, `--header` adds auth. This is the only network code in the binary. It owns HTTP
//! only: the conversation is `mcp/`'s.
//!
//! One cohesive transport: Streamable HTTP and its legacy fallback share one session, one agent and
//! one bounded reader.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::{self, Uri};
use ureq::BodyReader;

use super::LoadOptions;
use super::mcp::{self, ClientOptions, Failure, Listing, McpError, Protocol, Transport};
use super::sse::SseReader;

mod client;
mod legacy;
use legacy::LegacySse;

use client::{ACCEPT, Client, content_type, failure_of, io_failure};
pub use client::display_url;
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use client::resolve;

/// Headers tracelint sets itself; `--header` may not replace them.
const RESERVED: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "transfer-encoding",
];

/// Parse `--header 'Name: value'`.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`--header {s}` must look like `Name: value`"))?;
    let (name, value) = (name.trim(), value.trim());
    http::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("`--header`: `{name}` is not a valid header name"))?;
    http::HeaderValue::from_str(value).map_err(|_| {
        format!("`--header {name}`: the value holds characters a header cannot carry")
    })?;
    if RESERVED.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(format!(
            "`--header {name}` cannot be set: tracelint sets it to speak MCP"
        ));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// List the tools of the MCP server at `url`. `Err` is the message to show.
pub fn list(url: &str, opts: &LoadOptions) -> Result<(Listing, Vec<String>), String> {
    let shown = display_url(url);
    let uri: Uri = url
        .parse()
        .map_err(|e| format!("`{shown}` is not a URL: {e}"))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.authority().is_none() {
        return Err(format!("`{shown}` is not an http:// or https:// URL"));
    }
    let deadline = Instant::now() + opts.timeout;
    let client = Client::new(opts);
    let mut t = StreamableHttp {
        client: &client,
        url: uri.clone(),
        session: None,
        protocol: Protocol::Handshake,
        queue: VecDeque::new(),
        stream: None,
    };
    let first = mcp::list_tools(&mut t, deadline, ClientOptions::default());
    t.close();
    let init_status = match first {
        Ok(l) => {
            let via = Some("Streamable HTTP");
            return Ok((Listing { via, ..l }, Vec::new()));
        }
        Err(McpError {
            during,
            failure: Failure::Http { status, .. },
        }) if during == "initialize" && matches!(status, 400 | 404 | 405) => status,
        Err(e) => return Err(client.explain(&e, &uri)),
    };
    // Step 3 of the ladder: the deprecated HTTP+SSE transport at the same URL.
    let mut sse = match LegacySse::connect(&client, &uri, deadline) {
        Ok(sse) => sse,
        Err(f) => {
            // The URL has no event stream either (an HTTP error, another content type): last,
            // seed 000's form, a server that is not MCP and answers `GET <url>/tools/list`. A
            // stream that misbehaves is an MCP server's failure, reported as it is.
            let no_stream = match &f {
                Failure::Http { status, .. } => (400..500).contains(status),
                Failure::Protocol(m) => m.starts_with("GET answered"),
                _ => false,
            };
            let why = client.explain(
                &McpError {
                    during: "the `endpoint` event".into(),
                    failure: f,
                },
                &uri,
            );
            let tried = format!(
                "no MCP transport answered at {shown}: POST `initialize` gave {init_status}"
            );
            if !no_stream {
                return Err(format!(
                    "{tried}, and the legacy HTTP+SSE transport failed: {why}"
                ));
            }
            return plain_tools_list(&client, &uri, deadline).map_err(|plain| {
                format!("{tried}, the legacy HTTP+SSE transport failed: {why}, and {plain}")
            });
        }
    };
    let opts = ClientOptions {
        skip_discover: true,
    };
    mcp::list_tools(&mut sse, deadline, opts)
        .map(|l| {
            let via = Some("legacy HTTP+SSE");
            (Listing { via, ..l }, Vec::new())
        })
        .map_err(|e| client.explain(&e, &sse.endpoint))
}

/// What the plain `GET …/tools/list` fallback is called in notes and summaries.
pub const PLAIN_GET: &str = "a plain GET of /tools/list, not MCP";

/// Seed 000's `mcp-http:` form: `GET <url>/tools/list` answered with the tool list as JSON
/// (`{"tools": [...]}`, a `tools/list` result or reply, or a bare array). Not MCP: no handshake,
/// no paging; a note says so.
fn plain_tools_list(
    client: &Client,
    url: &Uri,
    deadline: Instant,
) -> Result<(Listing, Vec<String>), String> {
    let path = url.path().trim_end_matches('/');
    let target = if path.ends_with("/tools/list") {
        url.clone()
    } else {
        let mut s = format!(
            "{}://{}{path}/tools/list",
            url.scheme_str().unwrap_or("http"),
            url.authority().map_or("", |a| a.as_str())
        );
        if let Some(q) = url.query() {
            s.push('?');
            s.push_str(q);
        }
        s.parse::<Uri>()
            .map_err(|e| format!("`GET …/tools/list` has no URL: {e}"))?
    };
    let shown = display_url(&target.to_string());
    let fail = |f: Failure| {
        let why = client.explain(
            &McpError {
                during: "the tool list".into(),
                failure: f,
            },
            &target,
        );
        format!("`GET {shown}` failed: {why}")
    };
    let h = [("Accept", "application/json".to_owned())];
    let (_, resp) = client
        .call("GET", &target, &h, None, deadline)
        .map_err(fail)?;
    if !resp.status().is_success() {
        return Err(fail(client.status_failure(resp)));
    }
    let bytes = resp
        .into_body()
        .into_with_config()
        .limit(client.max_reply as u64)
        .read_to_vec()
        .map_err(|e| fail(failure_of(e)))?;
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| fail(Failure::Protocol(format!("the reply is not JSON: {e}"))))?;
    let tools = match &v {
        Value::Array(items) => items.clone(),
        other => other
            .get("result")
            .and_then(|r| r.get("tools"))
            .or_else(|| other.get("tools"))
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| fail(Failure::Protocol("the reply holds no `tools` list".into())))?,
    };
    if tools.len() > mcp::MAX_TOOLS {
        return Err(fail(Failure::Protocol(format!(
            "more than {} tools",
            mcp::MAX_TOOLS
        ))));
    }
    let note = format!(
        "the server does not speak MCP: its tools were read from `GET {shown}` (a plain JSON tools endpoint); nothing else of MCP was used"
    );
    Ok((
        Listing {
            tools,
            protocol: Protocol::Handshake,
            server: None,
            pages: 1,
            via: Some(PLAIN_GET),
        },
        vec![note],
    ))
}

/// Streamable HTTP (both eras): one POST per message.
struct StreamableHttp<'c> {
    client: &'c Client,
    url: Uri,
    session: Option<String>,
    protocol: Protocol,
    queue: VecDeque<Value>,
    /// The SSE reply of the last request, read lazily by `recv`.
    stream: Option<SseReader<BodyReader<'static>>>,
}

impl StreamableHttp<'_> {
    fn headers(&self, msg: &Value) -> Vec<(&'static str, String)> {
        let mut h = vec![
            ("Content-Type", "application/json".to_owned()),
            ("Accept", ACCEPT.to_owned()),
        ];
        if let Some(s) = &self.session {
            h.push(("Mcp-Session-Id", s.clone()));
        }
        if let Some(v) = self.protocol.version() {
            h.push(("MCP-Protocol-Version", v.to_owned()));
        }
        if let (Protocol::Modern(_), Some(m)) =
            (&self.protocol, msg.get("method").and_then(Value::as_str))
        {
            h.push(("Mcp-Method", m.to_owned()));
        }
        h
    }

    /// End the session (DELETE; a 405 from a sessionless server is fine).
    fn close(&mut self) {
        self.stream = None;
        if let Some(s) = self.session.take() {
            let mut h = vec![("Mcp-Session-Id", s)];
            if let Some(v) = self.protocol.version() {
                h.push(("MCP-Protocol-Version", v.to_owned()));
            }
            let until = Instant::now() + Duration::from_secs(2);
            let _ = self.client.call("DELETE", &self.url, &h, None, until);
        }
    }
}

impl Transport for StreamableHttp<'_> {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure> {
        // Our answer to a server request (a `ping` inside an SSE reply) must not drop the stream
        // that still carries the answer we wait for; only a new request replaces it.
        let is_request = msg.get("method").is_some() && msg.get("id").is_some();
        if is_request {
            self.stream = None;
            self.queue.clear();
        }
        let body = serde_json::to_vec(msg).map_err(|e| Failure::Io(e.to_string()))?;
        let headers = self.headers(msg);
        let (_, resp) = self
            .client
            .call("POST", &self.url, &headers, Some(&body), deadline)?;
        if !resp.status().is_success() {
            return Err(self.client.status_failure(resp));
        }
        if self.session.is_none()
            && let Some(s) = resp
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            self.session = Some(s.to_owned());
        }
        let ctype = content_type(&resp);
        let body = resp
            .into_body()
            .into_with_config()
            .limit(self.client.max_reply as u64);
        if ctype.starts_with("text/event-stream") {
            if is_request {
                self.stream = Some(SseReader::new(body.reader(), self.client.max_reply));
            }
            return Ok(());
        }
        let bytes = body.read_to_vec().map_err(failure_of)?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let v: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Failure::Protocol(format!("the reply is not JSON: {e}")))?;
        self.queue.push_back(v);
        Ok(())
    }

    fn recv(&mut self, _deadline: Instant) -> Result<Value, Failure> {
        if let Some(v) = self.queue.pop_front() {
            return Ok(v);
        }
        // The request's global timeout (our deadline) bounds these reads.
        while let Some(stream) = &mut self.stream {
            match stream.next_event().map_err(io_failure)? {
                Some(ev) => {
                    if let Ok(v) = serde_json::from_str::<Value>(&ev.data) {
                        return Ok(v);
                    }
                }
                None => self.stream = None,
            }
        }
        Err(Failure::NoReply)
    }

    fn set_protocol(&mut self, protocol: &Protocol) {
        self.protocol = protocol.clone();
    }
}

#[cfg(test)]
mod tests;
