//! `tracelint report` arguments.

use std::path::PathBuf;

use clap::Args;

use super::{DisplayArgs, FailOn, Listed, OutputFiles, reword};

pub(super) const REPORT_AFTER_HELP: &str = "\
Examples:
  tracelint check shard-a/ --output-format json-lines > a.jsonl   # on one machine
  tracelint check shard-b/ --output-format json-lines > b.jsonl   # on another
  tracelint report a.jsonl b.jsonl --sarif tracelint.sarif --html report.html

The report is the one a single `check` over every shard's inputs would have written, in the order
the shards are given, and so is the exit code. Each shard must be a whole run (it ends with a `run`
record; one cut short is an input error), made with the same config, and hold whole sessions: a
sub-agent's file with its parent session, every file of a split OpenTelemetry trace together.

Exit codes (highest wins): as `check`: 0, 1 (a --fail-on gate), 2 (a hard_defect), 3 (an input
error in a shard's run, or a shard that cannot be read)";

/// `report` arguments.
#[derive(Debug, Args, Clone)]
#[command(mut_args(reword(&[("include_candidates", "Show candidates in text output")])))]
pub struct ReportArgs {
    /// JSON Lines shards written by `check --output-format json-lines`, or `-` for stdin; their inputs are reported in this order.
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<String>,

    /// What goes to stdout: text, json, json-lines, sarif, html or github.
    #[arg(long, alias = "format", value_name = "FORMAT", default_value = "text", help_heading = "Output", value_parser = Listed::output_formats(false), hide_possible_values = true)]
    pub output_format: String,

    #[command(flatten)]
    pub files: OutputFiles,

    /// The directory SARIF URIs and GitHub annotation paths are relative to (default: the git top level, else the working directory).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub sarif_root: Option<PathBuf>,

    /// Most results in a SARIF log [default: 5000]; 0: no cap.
    #[arg(long, value_name = "N", help_heading = "Output")]
    pub sarif_max_results: Option<usize>,

    #[command(flatten)]
    pub display: DisplayArgs,

    /// The lowest tier that fails the run (default: the one the shards were checked with).
    #[arg(long, value_enum, value_name = "TIER")]
    pub fail_on: Option<FailOn>,
}
