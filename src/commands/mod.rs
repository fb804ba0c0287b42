//! One module per subcommand: glue between the CLI, config, inputs, adapters, sources, rules and
//! reporters. Each returns `anyhow::Result<ExitStatus>`; only `main` prints an error.

pub mod check;
pub mod completions;
pub mod demo;
pub mod doctor;
pub mod hook;
pub mod infer;
pub mod init;
pub mod mcp;
mod pipe;
pub(crate) mod output;
pub(crate) mod phoenix;
pub mod report;
pub mod rules;
pub mod scorecard;
pub mod tools;

use crate::cli::{Cli, Command};
use crate::exit::ExitStatus;

pub use pipe::PipeSafe;

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
        Command::Report(args) => report::run(&args),
        Command::Tools(crate::cli::ToolsCommand::Lint(args)) => tools::lint(&args),
        Command::Mcp(cmd) => mcp::run(&cmd),
        Command::Hook(cmd) => hook::run(&cmd),
    }
}

/// The binary: parse the command line (with the implicit `check`), run the command, map errors
/// to exit code 3. A closed stdout pipe ends `rules`, `explain` and the like with success;
/// `check` writes through `PipeSafe` and exits with the status it decided.
#[allow(clippy::print_stderr)]
pub(crate) fn main() -> std::process::ExitCode {
    let status = main_with(std::env::args_os().collect());
    // A signal killed the servers this run was reading: the handler thread ends the run with
    // the signal's code, not this one with what the failed read said.
    if crate::sources::stdio::ending_signal().is_some() {
        loop {
            std::thread::park();
        }
    }
    status.into()
}

/// [`main`] with the command line given (the first item is the program's name), returning the
/// exit status instead of an `ExitCode`: the Python module's `tracelint` command runs it.
#[allow(clippy::print_stderr)]
pub(crate) fn main_with(args: Vec<std::ffi::OsString>) -> ExitStatus {
    use clap::Parser;
    // SIGINT, SIGTERM, SIGHUP and SIGQUIT end a run that started `mcp-stdio:` servers after
    // killing them.
    crate::sources::stdio::end_on_signals();
    let args = crate::cli::with_implicit_check(args);
    let cli = match crate::cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and --version go to stdout with exit 0; a usage error is an input error (3),
            // never clap's 2, which would read as "hard defect found" in CI.
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::InputError
            } else {
                ExitStatus::Clean
            };
        }
    };
    match run(cli) {
        Ok(status) => status,
        Err(err) => {
            if err
                .chain()
                .filter_map(|e| e.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitStatus::Clean;
            }
            // Escaped and bounded: an error may echo a config value or an argument.
            eprintln!(
                "error: {}",
                crate::reporters::escape::message(&format!("{err:#}"))
            );
            ExitStatus::InputError
        }
    }
}
