//! `tracelint tools lint` arguments.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{DisplayArgs, FailGate, Listed, OutputFiles, RuleSelection, parse_seconds, reword};

/// `tools` subcommands.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Lint tool definitions: schemas, names, descriptions, poisoning signals, toolset size (rules T1…T13).
    #[command(after_help = TOOLS_LINT_AFTER_HELP)]
    Lint(ToolsLintArgs),
}

pub(super) const TOOLS_LINT_AFTER_HELP: &str = "\
SOURCE is any `--tools` form: a tools file (MCP `{\"tools\": [...]}`, a bare array, OpenAI or
Anthropic tools, a saved `tools/list` reply, the Python tracelint's map), `mcp-stdio:<command>`,
`mcp-http:<url>`, `builtin:claude-code[@VERSION]`, `builtin:codex[@VERSION]`,
`builtin:gemini-cli[@VERSION]`, or a trace file, whose
embedded tool schemas are linted. Sources are linted together, as the toolset an agent would get.
Findings point at the offending key's line:col in the tools file. `tracelint rules` lists T1…T13;
`tracelint explain T12` says what a rule checks.

Exit codes: as `check` (0 clean, 1 gate tripped, 2 a hard_defect, 3 input or usage error).

Examples:
  tracelint tools lint tools.json
  tracelint tools lint 'mcp-stdio:npx -y @modelcontextprotocol/server-filesystem .' --output-format sarif
  tracelint tools lint a.json b.json --select T7,T8,T12 --include-candidates";

/// `tools lint`'s wording of the shared output and rule options (they are about tool definitions).
const TOOLS_LINT_WORDING: &[(&str, &str)] = &[
    ("sarif", "Also write a SARIF 2.1.0 log to FILE"),
    ("html", "Also write the HTML report to FILE"),
    (
        "include_candidates",
        "Show candidates in text output (JSON, SARIF and HTML always carry them)",
    ),
    (
        "show_suppressions",
        "List the suppressions (rule checks that could not decide) with their reasons",
    ),
    ("quiet", "Print findings only: no notes on stderr"),
    (
        "color",
        "Colour: auto (default; honours NO_COLOR, never colours a pipe), always, never",
    ),
    (
        "select",
        "Run only these tool rules (comma-separated or repeated: `T7,T12`)",
    ),
    ("ignore", "Skip these tool rules"),
    (
        "fail_on",
        "The lowest tier that fails the run: hard_defect (default, exit 2), hard_event or candidate (exit 1), or never",
    ),
    (
        "exit_zero",
        "Report only: exit 0 whatever is found; an input or usage error still exits 3",
    ),
];

/// `tools lint` arguments.
#[derive(Debug, Args, Clone, Default)]
#[command(mut_args(reword(TOOLS_LINT_WORDING)))]
pub struct ToolsLintArgs {
    /// Tool definitions to lint: tools files, `mcp-stdio:<command>`, `mcp-http:<url>`, `builtin:claude-code[@VERSION]`, `builtin:codex[@VERSION]`, `builtin:gemini-cli[@VERSION]`, or trace files (their embedded schemas).
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<String>,

    /// An HTTP header for `mcp-http:` sources (`Name: value`), e.g. for auth. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Schemas")]
    pub headers: Vec<String>,

    /// Budget for starting an MCP server and listing its tools (default 30 s).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Schemas")]
    pub mcp_timeout: Option<std::time::Duration>,

    /// The longest description (T11), in estimated tokens (default 500).
    #[arg(long, value_name = "TOKENS", help_heading = "Rules")]
    pub description_budget: Option<usize>,

    /// A lock written by `tracelint mcp pin`: a tool whose description changed since is a T12 candidate.
    #[arg(long, value_name = "LOCK", help_heading = "Rules")]
    pub pin: Option<PathBuf>,

    /// What stdout gets: text (default), json, sarif, html or github.
    #[arg(long, alias = "format", value_name = "FORMAT", help_heading = "Output", value_parser = Listed::output_formats(false), hide_possible_values = true)]
    pub output_format: Option<String>,

    #[command(flatten)]
    pub files: OutputFiles,

    /// SARIF `artifactLocation.uri`s relative to DIR (default: the repository root).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub sarif_root: Option<PathBuf>,

    #[command(flatten)]
    pub display: DisplayArgs,

    #[command(flatten)]
    pub rules: RuleSelection,

    #[command(flatten)]
    pub gate: FailGate,

    /// Read the config from FILE (default: the nearest `tracelint.toml` upward).
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Read no config file.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,
}
