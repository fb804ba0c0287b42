//! The rule options `check`, `tools lint` and `doctor` share, flattened into each
//! (`#[command(flatten)]`) so the same flags parse the same way everywhere: which rules run, and
//! which tier fails the run. The help texts are `check`'s; the others reword them on their own
//! struct (`reword`).

use clap::Args;

use super::FailOn;

/// `--select` / `--ignore RULES`.
#[derive(Debug, Args, Clone, Default)]
pub struct RuleSelection {
    /// Run only these rules (comma-separated or repeated; `R2` = R2a and R2b).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub select: Vec<String>,

    /// Skip these rules.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "RULES",
        help_heading = "Rules"
    )]
    pub ignore: Vec<String>,
}

/// `--fail-on TIER` / `--exit-zero`: what fails the run.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct FailGate {
    /// The lowest tier that fails the run: hard_defect (default, exit 2), hard_event or candidate (exit 1), or never (report only: exit 0 unless an input error).
    #[arg(long, value_enum, value_name = "TIER", help_heading = "Rules")]
    pub fail_on: Option<FailOn>,

    /// Report only: exit 0 whatever is found; an input or usage error still exits 3. Same as `--fail-on never`.
    #[arg(long, alias = "warn-only", help_heading = "Rules")]
    pub exit_zero: bool,
}
