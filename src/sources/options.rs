//! What loading a tools source may take (`LoadOptions`: the MCP timeout, headers, the largest
//! reply; the largest tools file) and how it fails (`SourceError`).

use std::time::Duration;

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

/// Largest tools file read, in bytes.
pub const MAX_TOOLS_FILE: u64 = 64 << 20;
