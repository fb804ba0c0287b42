//! `tracelint demo` arguments.

use std::path::PathBuf;

use clap::Args;

pub(super) const DEMO_AFTER_HELP: &str = "\
The suite is built in (it works from any folder, offline): one planted defect per rule, which that
rule must catch; clean controls, which must stay silent; and legitimate-but-suspicious cases (a
retry after a 503, 1,234.56 reformatted as 1234.56, a generated idempotency key), which must stay
below a verdict. Then the recovery scorecard of the built-in robust and buggy agents under every
fault. Exit 0 when every case behaves, 1 otherwise.

Examples:
  tracelint demo
  tracelint demo --html demo.html --runs 50";

/// `demo` arguments.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Also write the suite, the scorecards and every finding as one self-contained HTML page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Scorecard runs per fault (at least 1).
    #[arg(long, default_value_t = 20, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Scorecard seed.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
}
