//! The output options `check`, `report` and `tools lint` share, flattened into each
//! (`#[command(flatten)]`): the side files and how findings show on stdout. The help texts are
//! `check`'s; a command that words one differently rewords it on its own struct
//! (`#[command(mut_args(reword(…)))]`, which keeps the arguments in place, so help and completions
//! list them in declaration order).

use std::path::PathBuf;

use clap::{Arg, Args};

use super::ColorArg;

/// `--json`, `--sarif`, `--html FILE`: reports written beside stdout's.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputFiles {
    /// Also write the JSON report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,

    /// Also write a SARIF 2.1.0 log to FILE (GitHub code scanning).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub sarif: Option<PathBuf>,

    /// Also write a self-contained HTML report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub html: Option<PathBuf>,
}

/// What the text report shows, and in what colour.
#[derive(Debug, Args, Clone, Default)]
pub struct DisplayArgs {
    /// Show candidates in text output (JSON always carries them).
    #[arg(long, help_heading = "Output")]
    pub include_candidates: bool,

    /// List every suppression with its reason.
    #[arg(long, help_heading = "Output")]
    pub show_suppressions: bool,

    /// Quieter text: -q leaves out the notes on how inputs were read, -qq the findings too; the
    /// summary is always printed last.
    #[arg(long, short = 'q', action = clap::ArgAction::Count, help_heading = "Output")]
    pub quiet: u8,

    /// When to use colour (honours NO_COLOR; never colours a pipe in `auto`).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN", help_heading = "Output")]
    pub color: ColorArg,
}

/// A `mut_args` pass that gives the arguments named in `words` (by id) another help text.
pub(super) fn reword(words: &'static [(&'static str, &'static str)]) -> impl FnMut(Arg) -> Arg {
    move |arg| match words.iter().find(|(id, _)| arg.get_id() == *id) {
        Some((_, help)) => arg.help(*help),
        None => arg,
    }
}
