//! `tracelint init` arguments.

use std::path::PathBuf;

use clap::Args;

use super::{InputFormatArg, WalkArgs, parse_seconds};

pub(super) const INIT_AFTER_HELP: &str = "\
Examples:
  tracelint init traces/ -o tools.json
  tracelint init session.jsonl --tools mcp-stdio:'npx -y @modelcontextprotocol/server-filesystem .' -o tools.json
  tracelint init spans.json --input-format otel > tools.json

Each tool called in the inputs gets the best schema there is, in this order: a --tools source (a
tools file, an MCP server), a schema embedded in the traces (an OpenAI request's `tools`,
OpenInference `llm.tools`), Claude Code's built-in schemas for a Claude Code session, and only then
one inferred from the calls (marked for review; never an enum learned from a call that failed
validation or whose result was an error). What a trace cannot prove — `side_effecting`,
`idempotent`, `failure_when`, `requires` — is written as a `_todo` list in each tool's `metadata`
for a human to answer, never as a guessed fact. The file loads with `--tools` as it is.

An existing output file is never overwritten without --force.";

/// `init` arguments.
#[derive(Debug, Args, Clone)]
pub struct InitArgs {
    /// Traces to learn the tools from: files, directories, globs, or `-` for stdin.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// A real schema source to take schemas from: a tools file, `mcp-stdio:<command>`, `mcp-http:<url>`, `builtin:claude-code[@VERSION]`, `builtin:codex[@VERSION]` or `builtin:gemini-cli[@VERSION]`. Repeatable.
    #[arg(long = "tools", short = 't', value_name = "SOURCE")]
    pub tools: Vec<String>,

    /// An HTTP header sent to `mcp-http:` servers. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,

    /// Seconds an MCP server may take to list its tools [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub mcp_timeout: Option<std::time::Duration>,

    /// Where to write the tools file (`-`, the default, is stdout).
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    pub output: PathBuf,

    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,

    /// An inferred string property with at most N distinct values gets an enum (0 turns enums off).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub enum_max: usize,

    /// Input format; `auto` decides from content.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// Read settings (`tools`, `input-format`) from this file instead of the nearest tracelint.toml.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
}
