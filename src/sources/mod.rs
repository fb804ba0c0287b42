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
mod options;
pub mod origins;
pub mod sse;
pub mod stdio;

use std::path::Path;

use crate::model::ToolRegistry;

pub(crate) use mcp::describe;
pub use options::{
    DEFAULT_MCP_TIMEOUT, LoadOptions, MAX_TOOLS_FILE, SourceError,
};

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

/// Load a tools file.
pub fn load_file(path: &Path, display: &str) -> Result<ToolRegistry, SourceError> {
    let unreadable = |reason: String| SourceError::Unreadable {
        path: display.to_owned(),
        reason,
    };
    let bytes = crate::inputs::read_limited(path, MAX_TOOLS_FILE, crate::inputs::Pipes::Read)
        .map_err(|e| unreadable(e.to_string()))?;
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
