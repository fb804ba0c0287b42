//! One module per subcommand: glue between the CLI, config, inputs, adapters, sources, rules and
//! reporters. Each returns `anyhow::Result<ExitStatus>`; only `main` prints an error.

pub mod check;
pub mod completions;
pub mod demo;
pub mod infer;
pub mod report;
pub mod rules;
pub mod scorecard;

use crate::cli::{Cli, Command};
use crate::exit::ExitStatus;

/// Run a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Rules(args) => rules::list(&args),
        Command::Explain(args) => rules::explain(&args),
        Command::Infer(args) => infer::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Scorecard(args) => scorecard::run(&args),
        Command::Report(args) => report::run(&args),
    }
}
