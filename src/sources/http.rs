//! `mcp-http:<url>`: MCP over HTTP with ureq (MCP.md §6). Streamable HTTP — each message a POST
//! with `Accept: application/json, text/event-stream`, replies as JSON or SSE, `Mcp-Session-Id`
//! and `MCP-Protocol-Version` (plus `Mcp-Method` in the modern era), a DELETE at the end — and
//! the fallback ladder of §6.4 down to the legacy HTTP+SSE transport (GET the stream, POST to its
//! `endpoint`). No `Origin` is sent, no redirect to another host is followed, replies are
//! bounded, `--header` adds auth. This is the only network code in the binary. It owns HTTP
//! only: the conversation is `mcp.rs`'s.
//!
//! One cohesive transport: Streamable HTTP and its legacy fallback share one session, one agent and
//! one bounded reader.

use std::collections::VecDeque;
use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::{self, Response, Uri};
use ureq::{Agent, Body, BodyReader};

use super::LoadOptions;
use super::mcp::{self, ClientOptions, Failure, Listing, McpError, Protocol, RpcError, Transport};
use super::sse::SseReader;

mod legacy;
use legacy::LegacySse;

const ACCEPT: &str = "application/json, text/event-stream";
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
/// Same-origin redirects followed at most.
const MAX_REDIRECTS: usize = 5;
/// Bytes of an error body quoted.
const ERROR_BODY: u64 = 64 << 10;

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

/// The URL without credentials, for messages and the report: no userinfo, and every query
/// value replaced by `…` (`?api_key=…`), since tokens travel there too.
pub fn display_url(url: &str) -> String {
    let without_user = match url.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            match rest[..end].rfind('@') {
                Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
                None => url.to_owned(),
            }
        }
        None => url.to_owned(),
    };
    let Some((base, query)) = without_user.split_once('?') else {
        return without_user;
    };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let redacted: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !v.is_empty() => format!("{k}=…"),
            _ => pair.to_owned(),
        })
        .collect();
    let mut shown = format!("{base}?{}", redacted.join("&"));
    if let Some(f) = fragment {
        shown.push('#');
        shown.push_str(f);
    }
    shown
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

/// The agent, user headers and limits shared by both transports.
struct Client {
    agent: Agent,
    headers: Vec<(String, String)>,
    max_reply: usize,
    timeout: Duration,
}

impl Client {
    fn new(opts: &LoadOptions) -> Client {
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(format!("tracelint/{}", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            agent: Agent::new_with_config(config),
            headers: opts.headers.clone(),
            max_reply: opts.max_reply,
            timeout: opts.timeout,
        }
    }

    /// One request, following same-origin redirects (307/308 keep the method; a GET also
    /// follows 301-303). `extra` are protocol headers.
    fn call(
        &self,
        method: &str,
        url: &Uri,
        extra: &[(&str, String)],
        body: Option<&[u8]>,
        deadline: Instant,
    ) -> Result<(Uri, Response<Body>), Failure> {
        let mut url = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Failure::Timeout);
            }
            let mut req = http::Request::builder().method(method).uri(url.clone());
            for (k, v) in &self.headers {
                req = req.header(k.as_str(), v.as_str());
            }
            for (k, v) in extra {
                req = req.header(*k, v.as_str());
            }
            let resp = match body {
                Some(b) => {
                    let req = req.body(b).map_err(|e| Failure::Io(e.to_string()))?;
                    let req = self
                        .agent
                        .configure_request(req)
                        .timeout_global(Some(left))
                        .build();
                    self.agent.run(req)
                }
                None => {
                    let req = req.body(()).map_err(|e| Failure::Io(e.to_string()))?;
                    let req = self
                        .agent
                        .configure_request(req)
                        .timeout_global(Some(left))
                        .build();
                    self.agent.run(req)
                }
            }
            .map_err(failure_of)?;
            let status = resp.status().as_u16();
            let follows =
                matches!(status, 307 | 308) || (method == "GET" && matches!(status, 301..=303));
            if !follows {
                return Ok((url, resp));
            }
            let location = resp
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let next = resolve(&url, location).ok_or_else(|| redirect_refused(status, location))?;
            if origin(&next) != origin(&url) {
                return Err(redirect_refused(status, location));
            }
            url = next;
        }
        Err(Failure::Protocol(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }

    /// A non-success answer as a failure: status, body excerpt, and the JSON-RPC error inside.
    fn status_failure(&self, resp: Response<Body>) -> Failure {
        let status = resp.status().as_u16();
        let mut bytes = Vec::new();
        let _ = resp
            .into_body()
            .into_with_config()
            .limit(ERROR_BODY)
            .reader()
            .take(ERROR_BODY)
            .read_to_end(&mut bytes);
        let text = String::from_utf8_lossy(&bytes);
        let rpc = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("error").and_then(RpcError::from_value));
        Failure::Http {
            status,
            detail: mcp::one_line(&text, 200),
            rpc,
        }
    }

    fn explain(&self, e: &McpError, url: &Uri) -> String {
        let shown = display_url(&url.to_string());
        let what = &e.during;
        match &e.failure {
            Failure::Http { status, detail, .. } => {
                let reason = http::StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("");
                let mut msg = format!("{status} {reason} from {shown} while waiting for {what}");
                if !detail.is_empty() {
                    msg.push_str(": ");
                    msg.push_str(detail);
                }
                if matches!(status, 401 | 403) {
                    msg.push_str("; pass credentials with `--header 'Authorization: Bearer …'`");
                }
                msg
            }
            Failure::Io(m) => format!("cannot talk to {shown} while waiting for {what}: {m}"),
            Failure::Closed => format!("{shown} closed the stream before answering {what}"),
            other => super::describe(what, other, self.timeout),
        }
    }
}

fn redirect_refused(status: u16, location: &str) -> Failure {
    Failure::Protocol(format!(
        "the server redirects ({status}) to `{}`, on another host; tracelint follows no such redirect: give that URL if you trust it",
        mcp::one_line(location, 200)
    ))
}

fn failure_of(e: ureq::Error) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Timeout,
        ureq::Error::BodyExceedsLimit(n) => Failure::TooLarge(n),
        ureq::Error::Io(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            Failure::Timeout
        }
        other => Failure::Io(other.to_string()),
    }
}

fn io_failure(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::InvalidData
        && e.get_ref().is_some_and(|i| !i.is::<ureq::Error>())
    {
        return Failure::Protocol(e.to_string());
    }
    failure_of(ureq::Error::from(e))
}

fn origin(u: &Uri) -> (Option<&str>, Option<&str>, Option<u16>) {
    (
        u.scheme_str(),
        u.host(),
        u.port_u16().or(match u.scheme_str() {
            Some("http") => Some(80),
            Some("https") => Some(443),
            _ => None,
        }),
    )
}

/// Resolve a reference (an `endpoint` event, a `Location`) against `base`.
pub fn resolve(base: &Uri, reference: &str) -> Option<Uri> {
    let reference = reference.trim();
    if reference.contains("://") {
        return reference.parse().ok();
    }
    let scheme = base.scheme_str()?;
    let authority = base.authority()?.as_str();
    let full = if let Some(rest) = reference.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if reference.starts_with('/') {
        format!("{scheme}://{authority}{reference}")
    } else if reference.starts_with('?') {
        format!("{scheme}://{authority}{}{reference}", base.path())
    } else {
        let path = base.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        format!("{scheme}://{authority}{dir}{reference}")
    };
    full.parse().ok()
}

fn content_type(resp: &Response<Body>) -> String {
    resp.headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
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
#[path = "http_tests.rs"]
mod tests;
