//! The `tracelint` binary: parse the command line (with the implicit `check`), run the command,
//! map errors to exit code 3. A closed stdout pipe ends `rules`, `explain` and the like with
//! success; `check` writes through `commands::PipeSafe` and exits with the status it decided.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use clap::Parser;
use tracelint::cli::{self, Cli};
use tracelint::exit::ExitStatus;

fn main() -> ExitCode {
    // SIGTERM and SIGHUP end a run that started `mcp-stdio:` servers after killing them.
    tracelint::sources::stdio::end_on_signals();
    let args = cli::with_implicit_check(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and --version go to stdout with exit 0; a usage error is an input error (3),
            // never clap's 2, which would read as "hard defect found" in CI.
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::InputError.into()
            } else {
                ExitStatus::Clean.into()
            };
        }
    };
    match tracelint::commands::run(cli) {
        Ok(status) => status.into(),
        Err(err) => {
            if err
                .chain()
                .filter_map(|e| e.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitStatus::Clean.into();
            }
            eprintln!("error: {err:#}");
            ExitStatus::InputError.into()
        }
    }
}
