//! `tracelint mcp proxy | pin | diff` arguments.

use clap::{Args, Subcommand};

use super::{parse_line_size, parse_seconds};

/// `tracelint mcp …` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Stand between an agent and its MCP server (stdio): forward every message unchanged,
    /// record the session as a trace, inject faults into `tools/call` replies.
    #[command(after_help = MCP_PROXY_AFTER_HELP)]
    Proxy(McpProxyArgs),
    /// Pin a server's tools (names, descriptions, schemas, annotations, a digest each) in a lock
    /// file; `check --tools tools.lock` reads it offline.
    Pin(McpPinArgs),
    /// Say what changed between a lock and a server's tools now: exit 1 when anything did,
    /// silent exit 0 when nothing did.
    Diff(McpDiffArgs),
}

/// `mcp pin` arguments.
#[derive(Debug, Args)]
pub struct McpPinArgs {
    /// Where the tools come from: `mcp-stdio:<command>`, `mcp-http:<url>` or a tools file.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// The lock file to write.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: std::path::PathBuf,
    /// How long to wait for the server, in seconds.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = parse_seconds)]
    pub mcp_timeout: std::time::Duration,
}

/// `mcp diff` arguments.
#[derive(Debug, Args)]
pub struct McpDiffArgs {
    /// The lock written by `tracelint mcp pin`.
    #[arg(value_name = "LOCK")]
    pub lock: String,
    /// The tools now: `mcp-stdio:<command>`, `mcp-http:<url>` or a tools file.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// How long to wait for the server, in seconds.
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = parse_seconds)]
    pub mcp_timeout: std::time::Duration,
}

pub(super) const MCP_PROXY_AFTER_HELP: &str = "\
Put the proxy where the agent's MCP configuration names the server:
  \"command\": \"tracelint\", \"args\": [\"mcp\", \"proxy\", \"--record\", \"runs\", \"--\", \"npx\", \"-y\", \"server\"]
Each session becomes DIR/mcp-<time>-<pid>.jsonl (a native trace, one step per line, written as it
happens); `tracelint check DIR` lints it against the tools the server listed.

Examples:
  tracelint mcp proxy --record runs -- mcp-server-time --local-timezone UTC
  tracelint mcp proxy --record runs --inject error --at 2 --seed 1 -- node server.js stdio
  tracelint mcp proxy --record runs --inject timeout,rate_limit --rate 0.2 --tool search --seed 7 -- ./server";

/// `mcp proxy` arguments.
#[derive(Debug, Args)]
pub struct McpProxyArgs {
    /// Write one trace per MCP session in this folder (created if missing).
    #[arg(long, value_name = "DIR")]
    pub record: Option<std::path::PathBuf>,
    /// Faults to inject into `tools/call` replies, comma-separated: timeout, error, rate_limit,
    /// malformed_json, empty, truncated, wrong_schema, denied.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "FAULT,…",
        help_heading = "Fault injection"
    )]
    pub inject: Vec<String>,
    /// Inject into each eligible call with this probability (default 1 without `--at`).
    #[arg(
        long,
        value_name = "P",
        conflicts_with = "at",
        help_heading = "Fault injection"
    )]
    pub rate: Option<f64>,
    /// Inject into the N-th eligible call only (counted from 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Fault injection")]
    pub at: Option<u64>,
    /// Only calls of this tool are eligible (repeatable; default: every tool).
    #[arg(long = "tool", value_name = "NAME", help_heading = "Fault injection")]
    pub tools: Vec<String>,
    /// Seed of the draws: the same seed and the same calls give the same injections.
    #[arg(
        long,
        default_value_t = 1,
        value_name = "S",
        help_heading = "Fault injection"
    )]
    pub seed: u64,
    /// How long a `timeout` fault holds a reply the client never cancels, in seconds.
    #[arg(
        long,
        default_value_t = 60.0,
        value_name = "SECS",
        help_heading = "Fault injection"
    )]
    pub hold: f64,
    /// Refuse the server's `tools/list` (a JSON-RPC error to the agent) when its tools differ
    /// from this lock (`tracelint mcp pin`).
    #[arg(long, value_name = "LOCK")]
    pub pin: Option<String>,
    /// With `--pin`: only warn on stderr, and pass the listing through.
    #[arg(long, requires = "pin")]
    pub pin_warn: bool,
    /// Longest message line the proxy reads, in bytes (longer ones pass through unrecorded).
    #[arg(long, default_value_t = 64 << 20, value_name = "BYTES", value_parser = parse_line_size)]
    pub max_line: usize,
    /// Streamable HTTP: listen on this address (loopback unless `--allow-remote`) and forward
    /// to `--upstream`.
    #[arg(
        long,
        value_name = "ADDR:PORT",
        requires = "upstream",
        conflicts_with = "command",
        help_heading = "Streamable HTTP"
    )]
    pub listen: Option<std::net::SocketAddr>,
    /// The MCP endpoint to forward to (`http://127.0.0.1:3001/mcp`).
    #[arg(
        long,
        value_name = "URL",
        requires = "listen",
        help_heading = "Streamable HTTP"
    )]
    pub upstream: Option<String>,
    /// Let `--listen` take a non-loopback address (anyone who can reach it can use the server).
    #[arg(long, help_heading = "Streamable HTTP")]
    pub allow_remote: bool,
    /// The server's command and arguments, after `--` (stdio).
    #[arg(
        last = true,
        required_unless_present = "listen",
        value_name = "SERVER_CMD"
    )]
    pub command: Vec<String>,
}
