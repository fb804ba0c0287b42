//! The HTTP client both MCP transports share (`Client`: one agent, the user's headers, bounded
//! replies, redirects refused across origins), how its failures read, and URL helpers
//! (`display_url` without credentials, `resolve` of a reference against a base).

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::{self, Response, Uri};
use ureq::{Agent, Body};

use super::super::LoadOptions;
use super::super::mcp::{self, Failure, McpError, RpcError};

pub(super) const ACCEPT: &str = "application/json, text/event-stream";

/// Same-origin redirects followed at most.
pub(super) const MAX_REDIRECTS: usize = 5;

/// Bytes of an error body quoted.
pub(super) const ERROR_BODY: u64 = 64 << 10;

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

/// The agent, user headers and limits shared by both transports.
pub(super) struct Client {
    pub(super) agent: Agent,
    pub(super) headers: Vec<(String, String)>,
    pub(super) max_reply: usize,
    pub(super) timeout: Duration,
}

impl Client {
    pub(super) fn new(opts: &LoadOptions) -> Client {
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
    pub(super) fn call(
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
    pub(super) fn status_failure(&self, resp: Response<Body>) -> Failure {
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

    pub(super) fn explain(&self, e: &McpError, url: &Uri) -> String {
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
            other => mcp::describe(what, other, self.timeout),
        }
    }
}

pub(super) fn redirect_refused(status: u16, location: &str) -> Failure {
    Failure::Protocol(format!(
        "the server redirects ({status}) to `{}`, on another host; tracelint follows no such redirect: give that URL if you trust it",
        mcp::one_line(location, 200)
    ))
}

pub(super) fn failure_of(e: ureq::Error) -> Failure {
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

pub(super) fn io_failure(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::InvalidData
        && e.get_ref().is_some_and(|i| !i.is::<ureq::Error>())
    {
        return Failure::Protocol(e.to_string());
    }
    failure_of(ureq::Error::from(e))
}

pub(super) fn origin(u: &Uri) -> (Option<&str>, Option<&str>, Option<u16>) {
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

pub(super) fn content_type(resp: &Response<Body>) -> String {
    resp.headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
}
