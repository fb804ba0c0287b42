//! `tracelint scorecard` arguments, and the `--runs` value (a number; a folder, the older spelling
//! of `--recorded DIR`, is still read, with a note).

use clap::{Args, ValueEnum};

pub(super) const SCORECARD_AFTER_HELP: &str = "\
The built-in task asks an agent to cancel order A-1001 if it has not shipped. The robust agent
checks each lookup and retries or stops safely; the buggy agent acts on whatever came back. A run
with no fault comes first (the baseline): if it fails the task's oracle, recovery is not measured.
Each fault is injected into one tool result (tagged `injected`), --runs times, with draws seeded by
--seed; the table gives recovered/total, the rate and a 95% Wilson interval, and how many runs
tracelint flagged.

Faults: timeout, error, rate_limit, malformed_json, empty, truncated, wrong_schema, denied

Recorded runs: --recorded DIR scores the MCP sessions `tracelint mcp proxy --record DIR` wrote
(runs recorded without --inject are the baseline), judged by --oracle ORACLE.toml.

Examples:
  tracelint scorecard --demo --runs 50
  tracelint scorecard --demo --html scorecard.html
  tracelint scorecard --recorded runs/ --oracle oracle.toml
  tracelint scorecard --demo --buggy --faults timeout,error,denied --runs 20 --seed 7
  tracelint scorecard --demo --output-format json";

/// `scorecard` arguments.
#[derive(Debug, Args)]
pub struct ScorecardArgs {
    /// Score the built-in order-support task (the only task built in).
    #[arg(long)]
    pub demo: bool,
    /// Score the buggy agent instead of the robust one.
    #[arg(long)]
    pub buggy: bool,
    /// Faults to inject, comma-separated (default: all eight).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub faults: Vec<String>,
    /// Runs per fault (and for the baseline) of the built-in task, at least 1.
    #[arg(long, default_value = "20", value_name = "N", value_parser = RunsParser)]
    pub runs: RunsArg,
    /// Score the MCP sessions recorded in DIR by `tracelint mcp proxy --record DIR` instead of
    /// the built-in task.
    #[arg(long, value_name = "DIR", conflicts_with = "demo")]
    pub recorded: Option<std::path::PathBuf>,
    /// With `--recorded DIR`: the expectations file (TOML `[[expect]]`) that judges each run.
    #[arg(long, value_name = "ORACLE.toml")]
    pub oracle: Option<std::path::PathBuf>,
    /// Also write the card as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// Seed for every draw; the same seed reproduces the same table.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// The call (counted from 1) whose result gets the fault.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub inject_at: usize,
    /// Judge without the task's oracle: behavioural recovery ("did not crash"), a weaker claim.
    #[arg(long)]
    pub no_oracle: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ScorecardFormat::Text, value_name = "FORMAT")]
    pub output_format: ScorecardFormat,
}

/// `scorecard --runs`: a number of runs (the built-in task), or (the older spelling of
/// `--recorded DIR`) a folder of recorded runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunsArg {
    /// Runs per fault.
    Count(u32),
    /// Recorded runs, given as `--runs DIR`.
    Dir(std::path::PathBuf),
}

/// Digits are a count (held to `1..`), anything else a folder.
#[derive(Debug, Clone, Copy)]
struct RunsParser;

impl clap::builder::TypedValueParser for RunsParser {
    type Value = RunsArg;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<RunsArg, clap::Error> {
        let digits = value
            .to_str()
            .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
        if digits {
            clap::value_parser!(u32)
                .range(1..)
                .parse_ref(cmd, arg, value)
                .map(RunsArg::Count)
        } else {
            Ok(RunsArg::Dir(std::path::PathBuf::from(value)))
        }
    }
}

/// `scorecard --output-format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScorecardFormat {
    /// A table.
    Text,
    /// JSON.
    Json,
}
