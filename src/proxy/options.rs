//! What `tracelint mcp proxy` is told to do (`Options`: the server command, recording, fault
//! injection, bounds) and the pin of a server's tool list (`Pin`).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::inject::Plan;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's program and arguments.
    pub command: Vec<String>,
    /// Where to write one trace per session.
    pub record: Option<PathBuf>,
    /// Faults to inject.
    pub inject: Option<Plan>,
    /// Longest line observed (longer lines are forwarded unread).
    pub max_line: usize,
    /// Requests tracked at once (beyond that, forwarded untracked).
    pub max_pending: usize,
    /// How long a `timeout` fault holds a reply when the client never cancels.
    pub hold: Duration,
    /// Tools pinned by `tracelint mcp pin`: a server listing other tools is refused.
    pub pin: Option<Pin>,
}

/// `--pin tools.lock` (or `--pin-warn`).
#[derive(Debug, Clone)]
pub struct Pin {
    /// The lock's path, for messages.
    pub path: String,
    /// The lock's tools.
    pub tools: Vec<Value>,
    /// Only warn (on stderr) instead of refusing the listing.
    pub warn_only: bool,
}
