//! `--tools SOURCE` → `ToolRegistry`. A source is a tools file (any shape of SPEC §3), or a live
//! MCP server: `mcp-stdio:<command line>` or `mcp-http:<url>`, bounded by `LoadOptions` (timeout,
//! headers, reply size). A server's tools go through the same parser as a saved `tools/list`
//! reply, so both give the same registry. Sources never see traces or rules.

pub mod builtin;
mod contract;
pub mod file;
pub mod http;
mod keys;
pub mod lintable;
pub mod mcp;
pub mod origins;
pub mod sse;
pub mod stdio;

use std::path::Path;
use std::time::Duration;

use crate::model::ToolRegistry;

/// A `--tools` source could not be used. Messages name the source and the fix.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be read.
    #[error("cannot read tools file `{path}`: {reason}; check the path given to `--tools`")]
    Unreadable {
        /// The path.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The source's content is not a usable tool list.
    #[error("{source_name}: {message}")]
    Invalid {
        /// The source (path, with `:line:col` when known).
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// A live MCP server could not be listed: what happened, with the server's stderr tail.
    #[error("{source_name}: {message}")]
    Server {
        /// `mcp-stdio `cmd`` or `mcp-http `url``.
        source_name: String,
        /// What happened.
        message: String,
    },
    /// An unknown or malformed built-in source name.
    #[error("{0}")]
    Unsupported(String),
}

/// Default `--mcp-timeout`: start, handshake and listing together.
pub const DEFAULT_MCP_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest single reply from an MCP server (a stdout line, an HTTP body, an SSE event).
pub const MAX_REPLY: usize = 16 << 20;

/// How live sources are loaded.
#[derive(Clone)]
pub struct LoadOptions {
    /// Budget for starting the server, the handshake and every `tools/list` page.
    pub timeout: Duration,
    /// Extra HTTP headers (`--header`), e.g. for auth.
    pub headers: Vec<(String, String)>,
    /// Largest single reply, in bytes.
    pub max_reply: usize,
}

impl std::fmt::Debug for LoadOptions {
    /// Header values are credentials: only their names are shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadOptions")
            .field("timeout", &self.timeout)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("max_reply", &self.max_reply)
            .finish()
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            timeout: DEFAULT_MCP_TIMEOUT,
            headers: Vec::new(),
            max_reply: MAX_REPLY,
        }
    }
}

/// A loaded registry and notes for the user (where the tools came from, skipped noise).
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The tools.
    pub registry: ToolRegistry,
    /// One line each, for stderr.
    pub notes: Vec<String>,
}

/// A parsed `--tools` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceSpec {
    /// A tools file.
    File(String),
    /// `mcp-stdio:<command line>`.
    McpStdio(String),
    /// `mcp-http:<url>`.
    McpHttp(String),
    /// A `builtin:…` name as written (resolved by `resolve_builtin`).
    Builtin(String),
    /// Claude Code's built-in schemas at a version (`None`: the newest capture).
    ClaudeCode(Option<String>),
    /// Another agent's built-in schemas at a version (`None`: the newest capture).
    Agent(builtin::Agent, Option<String>),
}

impl SourceSpec {
    /// Parse one `--tools` argument.
    pub fn parse(s: &str) -> SourceSpec {
        if let Some(cmd) = s.strip_prefix("mcp-stdio:") {
            SourceSpec::McpStdio(cmd.to_owned())
        } else if let Some(url) = s.strip_prefix("mcp-http:") {
            SourceSpec::McpHttp(url.to_owned())
        } else if s.starts_with("builtin:") {
            SourceSpec::Builtin(s.to_owned())
        } else {
            SourceSpec::File(s.to_owned())
        }
    }
}

/// Largest tools file read, in bytes.
pub const MAX_TOOLS_FILE: u64 = 64 << 20;

/// Resolve a `builtin:` spec: `Ok(None)` means "follow each session's version".
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn resolve_builtin(spec: &SourceSpec) -> Result<Option<SourceSpec>, SourceError> {
    Ok(match resolve(spec)? {
        Resolved::Source(s) => Some(s),
        Resolved::Follow(_) => None,
    })
}

/// A `--tools` source resolved: a source to load, or an agent's built-in schemas to match to
/// each session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// Load this.
    Source(SourceSpec),
    /// `builtin:AGENT` unpinned: each trace gets the capture matched to its session.
    Follow(builtin::Agent),
}

/// Resolve a `--tools` source (`builtin:` names are checked here).
pub fn resolve(spec: &SourceSpec) -> Result<Resolved, SourceError> {
    let SourceSpec::Builtin(name) = spec else {
        return Ok(Resolved::Source(spec.clone()));
    };
    Ok(match builtin::parse_builtin_spec(name)? {
        (agent, None) => Resolved::Follow(agent),
        (builtin::Agent::ClaudeCode, Some(v)) => Resolved::Source(SourceSpec::ClaudeCode(Some(v))),
        (agent, Some(v)) => Resolved::Source(SourceSpec::Agent(agent, Some(v))),
    })
}

/// Load one source with default options.
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn load(spec: &SourceSpec) -> Result<ToolRegistry, SourceError> {
    load_with(spec, &LoadOptions::default()).map(|l| l.registry)
}

/// Load one source.
pub fn load_with(spec: &SourceSpec, opts: &LoadOptions) -> Result<Loaded, SourceError> {
    let (name, source_name, listed) = match spec {
        SourceSpec::File(path) => {
            return load_file(Path::new(path), path).map(|registry| Loaded {
                registry,
                notes: Vec::new(),
            });
        }
        SourceSpec::Builtin(name) => {
            return match builtin::parse_builtin_spec(name)? {
                (builtin::Agent::ClaudeCode, v) => load_with(&SourceSpec::ClaudeCode(v), opts),
                (agent, v) => load_with(&SourceSpec::Agent(agent, v), opts),
            };
        }
        SourceSpec::Agent(agent, version) => {
            let (registry, matched) = builtin::pinned(*agent, version.as_deref());
            return Ok(Loaded {
                registry,
                notes: matched.note.into_iter().collect(),
            });
        }
        SourceSpec::ClaudeCode(version) => {
            let tools = builtin::ClaudeCodeTools::get();
            let (idx, matched) = tools.choose(version.as_deref());
            return Ok(Loaded {
                registry: tools.registry(idx),
                notes: matched.note.into_iter().collect(),
            });
        }
        SourceSpec::McpStdio(cmd) => {
            let shown = stdio::display_command(cmd);
            (
                format!("mcp-stdio:{shown}"),
                format!("mcp-stdio `{}`", mcp::one_line(&shown, 200)),
                stdio::list(cmd, opts),
            )
        }
        SourceSpec::McpHttp(url) => {
            let shown = http::display_url(url);
            (
                format!("mcp-http:{shown}"),
                format!("mcp-http `{shown}`"),
                http::list(url, opts),
            )
        }
    };
    let (listing, mut notes) = listed.map_err(|message| SourceError::Server {
        source_name: source_name.clone(),
        message,
    })?;
    // A server's tools are not the user's file: keys a newer protocol adds are not errors.
    let registry = file::parse_with(
        &serde_json::json!({ "tools": listing.tools }),
        &name,
        file::Keys::Lenient,
    )?;
    let n = registry.len();
    let mut summary = format!("{n} tool{}", if n == 1 { "" } else { "s" });
    if let Some(server) = &listing.server {
        summary.push_str(&format!(" from {server}"));
    }
    match listing.protocol.version() {
        Some(version) => summary.push_str(&format!(
            " (MCP {version}{}, {} page{})",
            listing
                .via
                .map(|v| format!(" over {v}"))
                .unwrap_or_default(),
            listing.pages,
            if listing.pages == 1 { "" } else { "s" }
        )),
        None => summary.push_str(&format!(" ({})", listing.via.unwrap_or("not MCP"))),
    }
    notes.insert(0, summary);
    Ok(Loaded {
        registry,
        notes: notes
            .into_iter()
            .map(|n| format!("{source_name}: {n}"))
            .collect(),
    })
}

/// The message for a failure common to every transport.
pub(crate) fn describe(what: &str, failure: &mcp::Failure, timeout: Duration) -> String {
    use mcp::Failure;
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

/// Load a tools file.
pub fn load_file(path: &Path, display: &str) -> Result<ToolRegistry, SourceError> {
    use std::io::Read;
    let unreadable = |reason: String| SourceError::Unreadable {
        path: display.to_owned(),
        reason,
    };
    let file = crate::inputs::open_file(path).map_err(|e| unreadable(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_TOOLS_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() as u64 > MAX_TOOLS_FILE {
        return Err(unreadable(format!("larger than {MAX_TOOLS_FILE} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|_| unreadable("not UTF-8 text".into()))?;
    if text.trim().is_empty() {
        // An empty file (or a named pipe nobody wrote to) is not "invalid JSON at 1:0".
        return Err(unreadable(
            "it is empty (a tools file holds `{\"tools\": [...]}`)".into(),
        ));
    }
    file::parse_tools_str(&text, display)
}

/// Load and merge several sources with default options.
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn load_all(specs: &[SourceSpec]) -> Result<ToolRegistry, SourceError> {
    load_all_with(specs, &LoadOptions::default()).map(|l| l.registry)
}

/// Load and merge several sources, in order. A tool declared differently by two sources is an
/// error.
pub fn load_all_with(specs: &[SourceSpec], opts: &LoadOptions) -> Result<Loaded, SourceError> {
    let mut all = Loaded::default();
    for spec in specs {
        let next = load_with(spec, opts)?;
        all.notes.extend(next.notes);
        all.registry
            .merge(next.registry)
            .map_err(|d| SourceError::Invalid {
                source_name: "--tools".into(),
                message: d.to_string(),
            })?;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
        assert_eq!(seconds(Duration::from_millis(300)), "0.3 s");
    }

    #[test]
    fn spec_forms() {
        assert_eq!(
            SourceSpec::parse("mcp-stdio:node x.js"),
            SourceSpec::McpStdio("node x.js".into())
        );
        assert_eq!(
            SourceSpec::parse("mcp-http:http://h/mcp"),
            SourceSpec::McpHttp("http://h/mcp".into())
        );
        assert_eq!(
            SourceSpec::parse("t.json"),
            SourceSpec::File("t.json".into())
        );
    }
}
