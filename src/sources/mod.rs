//! `--tools SOURCE` → `ToolRegistry`. A source is a tools file (any shape of SPEC §3), and later
//! `mcp-stdio:<command>` / `mcp-http:<url>` live servers. Sources never see traces or rules.

pub mod builtin;
pub mod file;

use std::path::Path;

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
    /// The source kind is not available.
    #[error("{0}")]
    Unsupported(String),
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
pub fn resolve_builtin(spec: &SourceSpec) -> Result<Option<SourceSpec>, SourceError> {
    match spec {
        SourceSpec::Builtin(name) => {
            Ok(builtin::parse_builtin(name)?.map(|v| SourceSpec::ClaudeCode(Some(v))))
        }
        other => Ok(Some(other.clone())),
    }
}

/// Load one source.
pub fn load(spec: &SourceSpec) -> Result<ToolRegistry, SourceError> {
    match spec {
        SourceSpec::File(path) => load_file(Path::new(path), path),
        SourceSpec::Builtin(name) => {
            let version = builtin::parse_builtin(name)?;
            load(&SourceSpec::ClaudeCode(version))
        }
        SourceSpec::ClaudeCode(version) => {
            let tools = builtin::ClaudeCodeTools::get();
            let (idx, _) = tools.choose(version.as_deref());
            Ok(tools.registry(idx))
        }
        SourceSpec::McpStdio(_) | SourceSpec::McpHttp(_) => Err(SourceError::Unsupported(
            "MCP schema sources are not available in this build".into(),
        )),
    }
}

/// Load a tools file.
pub fn load_file(path: &Path, display: &str) -> Result<ToolRegistry, SourceError> {
    use std::io::Read;
    let unreadable = |reason: String| SourceError::Unreadable {
        path: display.to_owned(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| unreadable(e.to_string()))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(unreadable("it is a directory".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_TOOLS_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(e.to_string()))?;
    if bytes.len() as u64 > MAX_TOOLS_FILE {
        return Err(unreadable(format!("larger than {MAX_TOOLS_FILE} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|_| unreadable("not UTF-8 text".into()))?;
    file::parse_tools_str(&text, display)
}

/// Load and merge several sources, in order. A tool declared differently by two sources is an
/// error.
pub fn load_all(specs: &[SourceSpec]) -> Result<ToolRegistry, SourceError> {
    let mut registry = ToolRegistry::new();
    for spec in specs {
        let next = load(spec)?;
        registry.merge(next).map_err(|d| SourceError::Invalid {
            source_name: "--tools".into(),
            message: d.to_string(),
        })?;
    }
    Ok(registry)
}
