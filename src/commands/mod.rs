//! One module per subcommand: glue between the CLI, config, inputs, adapters, sources, rules and
//! reporters. Each returns `anyhow::Result<ExitStatus>`; only `main` prints an error.

pub mod check;
pub mod completions;
pub mod demo;
pub mod doctor;
pub mod infer;
pub mod init;
pub mod mcp;
pub mod report;
pub mod rules;
pub mod scorecard;
pub mod tools;

use crate::cli::{Cli, Command};
use crate::exit::ExitStatus;

/// A writer that, once its reader has gone away (a broken pipe: `tracelint check … | head`),
/// drops the rest of the output instead of failing, so the run goes on to its decided exit
/// status: a gate must not pass because its reader stopped reading.
#[derive(Debug)]
pub struct PipeSafe<W> {
    inner: W,
    closed: bool,
}

impl<W: std::io::Write> PipeSafe<W> {
    /// Wrap `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            closed: false,
        }
    }
}

impl<W: std::io::Write> std::io::Write for PipeSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

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
    // A stream (stdin, a named pipe, `<(…)`): read up to the record limit, then parse.
    let mut stream = |reader: &mut dyn Read, what: &str| {
        let mut bytes = Vec::new();
        match reader
            .take(opts.limits.max_record as u64 + 1)
            .read_to_end(&mut bytes)
        {
            Ok(_) => adapters::parse_reader(&bytes[..], &spec.display, opts, &mut *sink),
            Err(e) => {
                sink.issue(InputIssue::file(
                    &spec.display,
                    format!("cannot read {what}: {e}"),
                ));
                ReadOutcome::Failed
            }
        }
    };
    match &spec.path {
        None => stream(&mut std::io::stdin().lock(), "stdin"),
        Some(path) => {
            let opened = crate::inputs::open_file(path);
            match opened {
                Ok(mut file) if crate::inputs::is_pipe(&file) => stream(&mut file, "the pipe"),
                Ok(file) => adapters::parse_file(file, &spec.display, opts, sink),
                Err(e) => {
                    sink.issue(InputIssue::file(&spec.display, format!("cannot read: {e}")));
                    ReadOutcome::Failed
                }
            }
        }
    }
}
