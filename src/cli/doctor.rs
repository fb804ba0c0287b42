//! `tracelint doctor` arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{InputFormatArg, RuleSelection, WalkArgs, parse_record_size, parse_seconds, reword};

pub(super) const DOCTOR_AFTER_HELP: &str = "\
Examples:
  tracelint doctor traces/
  tracelint doctor 'runs/**/*.jsonl' --tools tools.json --group-by tool
  tracelint doctor traces/ --json > record.json
  tracelint doctor traces/ --fail-under 80 --fail-under R1=95

doctor lints the inputs exactly as `check` does (same tools, config and built-in schemas), so its
per-rule coverage is the one `check` prints in its footer. It then says what could not be checked
and why, per format and per rule (no schema, arguments not recorded, results missing, unknown
status), which tools lack which contract section, and what to add to light a rule up. It judges the
record, never the agent: findings are not shown (run `check` for them).

Exit codes: 0 (advisory), 1 when a --fail-under gate is not met, 3 when nothing could be read (or,
with --fail-under, when any input could not be read).";

/// `doctor` arguments.
#[derive(Debug, Args, Clone)]
#[command(mut_args(reword(&[
    ("select", "Examine only these rules (comma-separated or repeated)"),
    ("ignore", "Leave these rules out"),
])))]
pub struct DoctorArgs {
    /// Traces to examine: files, directories, globs, or `-` for stdin (any input format).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Where tool schemas come from, as for `check`: a tools file, `mcp-stdio:<command>`, `mcp-http:<url>`, `builtin:claude-code[@VERSION]`, `builtin:codex[@VERSION]` or `builtin:gemini-cli[@VERSION]`. Repeatable.
    #[arg(
        long = "tools",
        short = 't',
        value_name = "SOURCE",
        help_heading = "Schemas"
    )]
    pub tools: Vec<String>,

    /// An HTTP header sent to `mcp-http:` servers. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Schemas")]
    pub headers: Vec<String>,

    /// Seconds an MCP server may take to list its tools [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Schemas")]
    pub mcp_timeout: Option<std::time::Duration>,

    /// Input format; `auto` decides from content.
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: Option<InputFormatArg>,

    /// Largest single record (JSON Lines line or JSON document) in bytes (at least 1).
    #[arg(long, value_name = "BYTES", value_parser = parse_record_size, help_heading = "Input")]
    pub max_record_size: Option<usize>,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// The main breakdown: by rule (default), by tool or by input file.
    #[arg(long, value_enum, default_value_t = GroupBy::Rule, value_name = "BY", help_heading = "Output")]
    pub group_by: GroupBy,

    /// Print the diagnosis as JSON instead of text.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Exit 1 when coverage is below PCT: `80` for all rules together, `R1=95` for one rule; or
    /// when the record is: `results=90` (calls with a recorded result), `status=` (results that
    /// say whether they succeeded), `arguments=`, `schemas=`. Repeatable.
    #[arg(long, value_name = "[NAME=]PCT", help_heading = "Gate")]
    pub fail_under: Vec<String>,

    #[command(flatten)]
    pub rules: RuleSelection,

    /// Read settings from this file instead of the nearest tracelint.toml.
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,

    /// Threads to use (default: all cores; at most 4 per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
}

/// `doctor --group-by` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupBy {
    /// Per rule: coverage and why units were not checked.
    Rule,
    /// Per tool: calls, coverage by rule, contract gaps.
    Tool,
    /// Per input file: format, record quality, coverage by rule.
    File,
}
