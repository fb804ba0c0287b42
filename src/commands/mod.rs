//! One module per subcommand: glue between the CLI, config, inputs, adapters, sources, rules and
//! reporters. Each returns `anyhow::Result<ExitStatus>`; only `main` prints an error.

pub mod check;
pub mod completions;
pub mod demo;
pub mod doctor;
pub mod infer;
pub mod init;
pub mod rules;
pub mod scorecard;

use crate::cli::{Cli, Command};
use crate::exit::ExitStatus;

/// Run a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Init(args) => init::run(&args),
        Command::Rules(args) => rules::list(&args),
        Command::Explain(args) => rules::explain(&args),
        Command::Infer(args) => infer::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Scorecard(args) => scorecard::run(&args),
    }
}

/// Read one input — a file, or stdin for `-` — through the adapters into `sink`. A file that
/// cannot be opened (or is a directory) and an unreadable stdin are input errors.
pub fn read_spec(
    spec: &crate::inputs::InputSpec,
    opts: &crate::adapters::ReadOptions,
    sink: &mut dyn crate::adapters::Emit,
) -> crate::adapters::ReadOutcome {
    use crate::adapters::{self, ReadOutcome};
    use crate::finding::InputIssue;
    use std::io::Read;
    match &spec.path {
        None => {
            let mut bytes = Vec::new();
            match std::io::stdin()
                .lock()
                .take(opts.limits.max_record as u64 + 1)
                .read_to_end(&mut bytes)
            {
                Ok(_) => adapters::parse_reader(&bytes[..], &spec.display, opts, sink),
                Err(e) => {
                    sink.issue(InputIssue::file("-", format!("cannot read stdin: {e}")));
                    ReadOutcome::Failed
                }
            }
        }
        Some(path) => {
            let opened = std::fs::File::open(path).and_then(|file| {
                if file.metadata()?.is_dir() {
                    return Err(std::io::Error::other("it is a directory"));
                }
                Ok(file)
            });
            match opened {
                Ok(file) => adapters::parse_file(file, &spec.display, opts, sink),
                Err(e) => {
                    sink.issue(InputIssue::file(&spec.display, format!("cannot read: {e}")));
                    ReadOutcome::Failed
                }
            }
        }
    }
}
