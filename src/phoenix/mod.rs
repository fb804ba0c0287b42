//! `phoenix:URL` inputs: spans read straight from a running Arize Phoenix server through its
//! REST API, and findings written back to it as span annotations (`--write-back`).
//!
//! Owns the `phoenix:` input spelling (`Target`), the HTTP calls (`client`), the paged
//! download of a project's spans into a JSON Lines file the OTel reader lints like any other
//! (`download`), and the annotations made from a finished report (`annotate`). Knows nothing
//! about rules or formats: the spans are read by `adapters::otel`, and a finding is tied back
//! to its span through the line its evidence cites (one span per line in the download).
//!
//! Network happens only here, only for the URL the user named, and only when a `phoenix:`
//! input is given. Everything read from the server is bounded (`Bounds`).

pub mod annotate;
pub mod client;
pub mod download;

#[cfg(test)]
mod tests;

use std::time::Duration;

/// The INPUT prefix that names a Phoenix server.
pub const PREFIX: &str = "phoenix:";

/// The project Phoenix puts spans in when the sender names none.
pub const DEFAULT_PROJECT: &str = "default";

/// The environment variable Phoenix's own clients read an API key from; sent as a bearer token.
pub const API_KEY_ENV: &str = "PHOENIX_API_KEY";

/// The annotation name findings are written under.
pub const ANNOTATION_NAME: &str = "tracelint";

/// What a `phoenix:` input names: a server and one of its projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `scheme://host[:port][/path prefix]`, without a trailing slash.
    pub base: String,
    /// The project's name (or Phoenix id), decoded.
    pub project: String,
    /// The INPUT as the user wrote it (shown in reports as the input's path).
    pub shown: String,
}

impl Target {
    /// Whether an INPUT argument names a Phoenix server.
    pub fn is_phoenix(arg: &str) -> bool {
        arg.starts_with(PREFIX)
    }

    /// Parse `phoenix:http://HOST:PORT[/PREFIX][/projects/NAME]`.
    pub fn parse(arg: &str) -> Result<Target, String> {
        let url = arg.strip_prefix(PREFIX).unwrap_or(arg).trim();
        let usage = "expected `phoenix:http://HOST:PORT` or `phoenix:http://HOST:PORT/projects/NAME`";
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(format!("`{arg}`: {usage}"));
        };
        if !matches!(scheme, "http" | "https") {
            return Err(format!(
                "`{arg}`: the scheme is `{scheme}`, Phoenix speaks http or https; {usage}"
            ));
        }
        if rest.contains(['?', '#']) {
            return Err(format!(
                "`{arg}`: a query or fragment is not read; {usage}, and the time window with --since/--until"
            ));
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() {
            return Err(format!("`{arg}`: no host; {usage}"));
        }
        if authority.contains('@') {
            return Err(format!(
                "`{arg}`: credentials in the URL are not sent; set {API_KEY_ENV} instead"
            ));
        }
        if authority.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("`{arg}`: the host holds a space or a control character"));
        }
        let path = path.trim_end_matches('/');
        if path.ends_with("/projects") {
            return Err(format!("`{arg}`: the project name is empty; {usage}"));
        }
        let (prefix, project) = match path.rfind("/projects/") {
            Some(i) => (&path[..i], percent_decode(&path[i + "/projects/".len()..])),
            None => (path, DEFAULT_PROJECT.to_owned()),
        };
        if project.is_empty() || project.contains('/') {
            return Err(format!("`{arg}`: the project name is empty or holds `/`; {usage}"));
        }
        Ok(Target {
            base: format!("{scheme}://{authority}{prefix}"),
            project,
            shown: arg.to_owned(),
        })
    }

    /// `{base}/v1/{path}`.
    pub fn endpoint(&self, path: &str) -> String {
        format!("{}/v1/{path}", self.base)
    }

    /// The project as a path segment.
    pub fn project_segment(&self) -> String {
        percent_encode(&self.project)
    }
}

/// How a Phoenix run reads: the time window, the request timeout and the bounds.
#[derive(Debug, Clone)]
pub struct Options {
    /// Spans that started at or after this instant (nanoseconds since the epoch).
    pub since: Option<i128>,
    /// Spans that started before this instant.
    pub until: Option<i128>,
    /// Most time one request may take.
    pub timeout: Duration,
    /// A bearer token (`PHOENIX_API_KEY`).
    pub api_key: Option<String>,
    /// Limits on what is read.
    pub bounds: Bounds,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            since: None,
            until: None,
            timeout: Duration::from_secs(60),
            api_key: None,
            bounds: Bounds::default(),
        }
    }
}

/// Limits on what a server may send.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Spans asked for per page (Phoenix allows 1 to 1000).
    pub page_size: usize,
    /// Bytes of one page's reply.
    pub max_page_bytes: u64,
    /// Spans read in all.
    pub max_spans: usize,
    /// Bytes of one span, as written to the download (the reader's `--max-record-size` applies too).
    pub max_span_bytes: usize,
    /// Bytes of all spans, as written to the download.
    pub max_total_bytes: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            page_size: 500,
            max_page_bytes: 256 << 20,
            max_spans: 2_000_000,
            max_span_bytes: 256 << 20,
            max_total_bytes: 8 << 30,
        }
    }
}

/// A failure talking to Phoenix: what, where, and what to do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PhoenixError(pub String);

/// `--since` / `--until`: an RFC 3339 date-time (`2026-07-01T12:00:00Z`), a date
/// (`2026-07-01`, midnight UTC), or an age (`90m`, `24h`, `7d`: that long before `now`).
pub fn parse_instant(text: &str, now: i128) -> Result<i128, String> {
    let t = text.trim();
    const NANOS: i128 = 1_000_000_000;
    if let Some(unit) = t.chars().last().filter(|c| matches!(c, 's' | 'm' | 'h' | 'd' | 'w')) {
        let number = &t[..t.len() - 1];
        if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
            let n: i128 = number
                .parse()
                .ok()
                .filter(|n| *n <= 1_000_000)
                .ok_or_else(|| format!("`{t}`: too long ago"))?;
            let secs = match unit {
                's' => 1,
                'm' => 60,
                'h' => 3600,
                'd' => 86_400,
                _ => 7 * 86_400,
            };
            return Ok(now - n * secs * NANOS);
        }
    }
    let full = if t.len() == 10 {
        format!("{t}T00:00:00Z")
    } else {
        t.to_owned()
    };
    crate::adapters::common::clock::parse_rfc3339(&full).ok_or_else(|| {
        format!("`{t}`: expected a date-time (`2026-07-01T12:00:00Z`), a date (`2026-07-01`) or an age (`90m`, `24h`, `7d`)")
    })
}

/// A byte count for people: `512 bytes`, `64 MiB`.
pub fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Percent-encode everything but RFC 3986's unreserved characters.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decode `%XX` escapes (a project id copied from Phoenix's address bar may hold them); a
/// malformed escape is kept as written.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|b| hex(*b)),
                bytes.get(i + 2).and_then(|b| hex(*b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
