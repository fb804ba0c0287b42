//! `tracelint doctor` arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{InputFormatArg, RuleSelection, WalkArgs, parse_record_size, parse_seconds, reword};

pub(super) const DOCTOR_AFTER_HELP: &str = "\
Examples:
  tracelint doctor traces/
  tracelint doctor 'runs/**/*.jsonl' --tools tools.json --group-by tool
  tracelint doctor sessions/ --group-by agent
  tracelint doctor traces/ --output-format json > record.json
  tracelint doctor traces/ --fail-under results=90 --fail-under outcome=50
  tracelint doctor traces/ --fail-under 80 --fail-under R1=95

doctor lints the inputs exactly as `check` does (same tools, config and built-in schemas), so its
per-rule coverage is the one `check` prints in its footer. It then says what the record holds (the
figures below), what could not be checked and why (no schema, arguments not recorded, results
missing, unknown status), which tools lack which contract section, and what to add to light a rule
up. It judges the record, never the agent: findings are not shown (run `check` for them).

Record figures (each a --fail-under NAME):
  results    calls with a recorded result
  outcome    results that say whether they succeeded (a status, an error flag, an exit code)
  arguments  calls whose arguments were recorded
  schemas    calls whose tool has an input schema
  endings    runs whose last call has a recorded result (the rest may be cut off)
  subagents  sub-agent runs present in the inputs, of those the runs started (`Task`, `Agent`,
             `spawn_agent`, ...): matched by the call that started them, else by run id
  versions   runs on their agent's built-in schemas whose agent version the session records
             (the rest were inferred from the calls or start date, or had nothing to go on)

Exit codes: 0 (advisory), 1 when a --fail-under gate is not met, 3 for a bad --fail-under or when
nothing could be read (or, with --fail-under, when any input could not be read). A figure with
nothing to measure never fails its gate.";

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

    /// The main breakdown of the text (the JSON has them all).
    #[arg(long, value_enum, default_value_t = GroupBy::Rule, value_name = "BY", help_heading = "Output")]
    pub group_by: GroupBy,

    /// Output format (JSON: the schema is `doctor.schema.json` in the source).
    #[arg(long, value_enum, default_value_t = DoctorFormat::Text, value_name = "FORMAT", help_heading = "Output")]
    pub output_format: DoctorFormat,

    /// Print the diagnosis as JSON: `--output-format json`.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Exit 1 when a record figure is below PCT: `results=90`, `outcome=`, `arguments=`,
    /// `schemas=`, `endings=`, `subagents=`, `versions=` (see below); or when rule coverage is:
    /// `80` for all rules together, `R1=95` for one rule. Repeatable.
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
    /// Per input file: format, record figures, coverage by rule.
    File,
    /// Per input format: record figures.
    Format,
    /// Per agent, as the input names it (`claude-code`, `codex`, an ATIF agent): record figures.
    Agent,
}

/// `doctor --output-format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DoctorFormat {
    /// Text for a person.
    Text,
    /// JSON (version 2).
    Json,
}
