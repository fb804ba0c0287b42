//! `tracelint check` arguments.

use std::path::PathBuf;

use clap::Args;

use super::{
    DisplayArgs, FailGate, InputFormatArg, Listed, OutputFiles, RuleSelection, WalkArgs,
    parse_record_size, parse_seconds,
};

pub(super) const CHECK_AFTER_HELP: &str = "\
Examples:
  tracelint check trace.jsonl --tools tools.json
  tracelint check 'traces/**/*.jsonl' --tools tools.json --output-format json
  tracelint check session.jsonl --tools tools.json --json report.json --include-candidates
  tracelint check traces/ --tools tools.json --sarif tracelint.sarif --html report.html
  cat trace.json | tracelint check - --tools tools.json
  tracelint check phoenix:http://localhost:6006/projects/default --since 24h --write-back

Adopting tracelint on traces that already have findings (record once, commit the file; then CI
fails only on new findings):
  tracelint check traces/ --baseline tracelint-baseline.json --update-baseline
  tracelint check traces/ --baseline tracelint-baseline.json
A baseline matches findings per trace file by rule, tier, tools, fields and signal (never by step,
line or run id), so re-recorded traces still match. It also records what each rule could check: a
run that checks less (a schema deleted, arguments no longer recorded) exits 1 unless --no-ratchet.

Exit codes (highest wins):
  0  no finding at or above the --fail-on tier (always, with --exit-zero or --fail-on never,
     unless an input error)
  1  only a non-default --fail-on gate tripped (candidates or hard events), or coverage was
     lost against the baseline
  2  a hard_defect
  3  input or usage error (unreadable file, malformed input, bad tools source, unknown rule)";

/// The help of `check`'s INPUT: what a directory walk picks up, from the list the walk uses.
fn inputs_help() -> String {
    format!(
        "Traces to lint: files, directories (walked for {} files), globs, `-` for stdin, or `phoenix:http://HOST:PORT[/projects/NAME]` for the spans of a running Arize Phoenix (project `default` unless named)",
        crate::inputs::walked_extensions()
    )
}

/// `check` arguments.
#[derive(Debug, Args, Clone, Default)]
pub struct CheckArgs {
    /// Traces to lint: files, directories (walked for the extensions below), globs, or `-` for stdin.
    #[arg(required = true, value_name = "INPUT", help = inputs_help())]
    pub inputs: Vec<String>,

    /// Where tool schemas come from: a tools file, `mcp-stdio:<command>`, `mcp-http:<url>`, `builtin:claude-code[@VERSION]`, `builtin:codex[@VERSION]` or `builtin:gemini-cli[@VERSION]`. Repeatable. Claude Code, Codex CLI and Gemini CLI sessions linted without it use their agent's built-in schemas.
    #[arg(
        long = "tools",
        short = 't',
        value_name = "SOURCE",
        help_heading = "Schemas"
    )]
    pub tools: Vec<String>,

    /// A call to a tool absent from the registry is a hard_defect (R7).
    #[arg(long, help_heading = "Schemas")]
    pub closed_toolset: bool,

    /// An HTTP header sent to `mcp-http:` servers, e.g. `--header 'Authorization: Bearer …'`. Repeatable.
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "Schemas")]
    pub headers: Vec<String>,

    /// Seconds an MCP server may take to start, answer the handshake and list its tools (`2.5`, `30s`, `500ms`) [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, help_heading = "Schemas")]
    pub mcp_timeout: Option<std::time::Duration>,

    /// With a `phoenix:` input: only spans that started at or after this instant: a date-time (`2026-07-01T12:00:00Z`), a date (`2026-07-01`, UTC) or an age (`90m`, `24h`, `7d` ago).
    #[arg(long, value_name = "WHEN", help_heading = "Phoenix")]
    pub since: Option<String>,

    /// With a `phoenix:` input: only spans that started before this instant (same forms as --since).
    #[arg(long, value_name = "WHEN", help_heading = "Phoenix")]
    pub until: Option<String>,

    /// With a `phoenix:` input: record each finding the report lists as a `tracelint` span annotation on the span of the step it cites (label: the tier; explanation: rule and message). A rerun updates these annotations instead of adding more. The API key, if the server wants one, is read from PHOENIX_API_KEY.
    #[arg(long, help_heading = "Phoenix")]
    pub write_back: bool,

    /// Input format; `auto` decides from content, never from the file name.
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Input")]
    pub input_format: Option<InputFormatArg>,

    /// Largest single record (JSON Lines line or JSON document) in bytes (at least 1).
    #[arg(long, value_name = "BYTES", value_parser = parse_record_size, help_heading = "Input")]
    pub max_record_size: Option<usize>,

    #[command(flatten)]
    pub walk: WalkArgs,

    /// What goes to stdout: text, json, json-lines, sarif, html or github (`--format` is the same flag, as on `tools lint` and `report`). An input format name given to `--format` (`--format openinference`, the Python tracelint's spelling) is still read as `--input-format`, with a note.
    #[arg(long, alias = "format", value_name = "FORMAT", help_heading = "Output", value_parser = Listed::output_formats(true), hide_possible_values = true)]
    pub output_format: Option<String>,

    #[command(flatten)]
    pub files: OutputFiles,

    /// Also write the text report (no colour) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub text: Option<PathBuf>,

    /// The directory SARIF URIs and GitHub annotation paths are relative to (default: the git top level, else the working directory).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub sarif_root: Option<PathBuf>,

    /// Most results in a SARIF log [default: 5000, what GitHub code scanning keeps per run]; past it candidates are left out first, then hard events, never a hard defect (said in the log and on stderr). 0: no cap.
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub sarif_max_results: Option<usize>,

    /// Most findings a report lists [default: 100000; JSON Lines, which `report` merges: no cap]; past it candidates are left out first, then hard events, then hard defects, each latest first (said in the report). The counts and the exit code always cover every finding. 0: no cap.
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub max_findings: Option<usize>,

    #[command(flatten)]
    pub display: DisplayArgs,

    #[command(flatten)]
    pub rules: RuleSelection,

    #[command(flatten)]
    pub gate: FailGate,

    /// Check the run against the expectations in FILE (reference trajectories and assertions, rule E1; `tracelint explain E1`); may repeat, and adds to the config's `[[expect]]` tables.
    #[arg(long = "expect", value_name = "FILE", help_heading = "Rules")]
    pub expect: Vec<PathBuf>,

    /// Accept the findings recorded in FILE and fail only on new ones; also fail (exit 1) when a rule checks less than it did (default: the config's `baseline`).
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub baseline: Option<PathBuf>,

    /// Record what the traces show now into the baseline file (entries of trace files not linted are kept), then report against it.
    #[arg(long, help_heading = "Baseline")]
    pub update_baseline: bool,

    /// With a baseline, do not fail when a rule checks less than the baseline recorded (config: `ratchet = false`).
    #[arg(long, help_heading = "Baseline")]
    pub no_ratchet: bool,

    /// Read settings from this file instead of the nearest tracelint.toml.
    #[arg(long, value_name = "FILE", help_heading = "Config")]
    pub config: Option<PathBuf>,

    /// Ignore any tracelint.toml / pyproject.toml.
    #[arg(long, help_heading = "Config", conflicts_with = "config")]
    pub no_config: bool,

    /// Let a config found by searching upward start `mcp-stdio:` servers and open `mcp-http:`
    /// URLs (also `TRACELINT_TRUST_CONFIG=1`). Without it those sources are skipped with a note:
    /// a repository's config is data, and in CI it may come from an untrusted pull request.
    #[arg(long, help_heading = "Config", conflicts_with = "no_config")]
    pub trust_config: bool,

    /// Threads to use (default: all cores; at most 4 per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Only read and parse every record; lint nothing (benchmarks).
    #[arg(long, hide = true)]
    pub parse_only: bool,
}
