//! `tracelint init`: settings as `check` resolves them (the `--tools` sources, or the config's,
//! are the real schemas offered first), every input read through the adapters and handed to the
//! `Starter`, then the starter tools file written — never over an existing file without
//! `--force` — and a summary of where each schema came from on stderr.

use std::io::Write;

use anyhow::{Context, bail};

use crate::adapters::{Emit, ReadOptions, ReadOutcome};
use crate::cli::{CheckArgs, InitArgs};
use crate::commands::check;
use crate::exit::ExitStatus;
use crate::finding::{InputIssue, IssueCap};
use crate::init::{Origin, Starter};
use crate::inputs;
use crate::model::Trace;
use crate::reporters::escape::terminal;

struct Learn<'s, 'l> {
    starter: &'s mut Starter<'l>,
    /// The input errors kept (the first of each input; the rest only counted in `cap`).
    issues: &'s mut Vec<InputIssue>,
    cap: &'s mut IssueCap,
}

impl Emit for Learn<'_, '_> {
    fn trace(&mut self, trace: Trace) {
        self.starter.add_trace(&trace);
    }
    fn issue(&mut self, issue: InputIssue) {
        if self.cap.admit(&issue.path) {
            self.issues.push(issue);
        }
    }
}

/// `tracelint init`.
#[allow(clippy::print_stderr)]
pub fn run(args: &InitArgs) -> anyhow::Result<ExitStatus> {
    let to_stdout = args.output.as_os_str() == "-";
    if !to_stdout && args.output.exists() && !args.force {
        bail!(
            "`{}` exists: pass --force to overwrite it, or -o another file",
            args.output.display()
        );
    }
    let check_args = CheckArgs {
        inputs: args.inputs.clone(),
        tools: args.tools.clone(),
        headers: args.headers.clone(),
        mcp_timeout: args.mcp_timeout,
        input_format: args.input_format,
        config: args.config.clone(),
        no_config: args.no_config,
        walk: args.walk.clone(),
        ..CheckArgs::default()
    };
    let settings = check::resolve(&check_args)?;
    let linter = check::linter(&settings, true)?;
    let mut starter = Starter::new(&linter, args.enum_max);
    let (specs, walk_issues) = inputs::expand_with(&settings.inputs, &settings.walk);
    // Input errors are listed up to a cap per input, then counted: a file of a million bad
    // lines is told in a hundred and one lines, in bounded memory.
    let mut cap = IssueCap::default();
    let mut issues: Vec<InputIssue> = walk_issues
        .into_iter()
        .filter(|i| cap.admit(&i.path))
        .collect();
    // `--force` replaces a file, never one this run reads (by device and inode: any spelling,
    // symlink or hard link of an input, a tools file or the config).
    if !to_stdout {
        check::files_read(&settings, &specs)
            .guard(&[("-o", args.output.as_path())], "the starter tools file")
            .map_err(anyhow::Error::msg)?;
    }
    let mut read = Vec::new();
    let mut not_traces = Vec::new();
    for spec in &specs {
        let opts = ReadOptions {
            format: settings.input_format,
            limits: settings.limits,
            skip_tools_files: spec.walked,
        };
        let mut sink = Learn {
            starter: &mut starter,
            issues: &mut issues,
            cap: &mut cap,
        };
        let outcome = crate::pipeline::read_spec(spec, &opts, &mut sink);
        if matches!(outcome, ReadOutcome::Read(_)) {
            read.push(spec.display.clone());
        }
        if outcome == ReadOutcome::SkippedNotTrace {
            not_traces.push(spec.display.as_str());
        }
    }
    if read.is_empty() {
        for file in &not_traces {
            issues.push(InputIssue::file(*file, crate::adapters::NOT_A_TRACE));
        }
    } else if let Some(note) = inputs::skipped_not_traces(&not_traces) {
        eprintln!("{}", terminal(&note));
    }
    issues.extend(cap.summaries());
    for issue in &issues {
        eprintln!("{}", terminal(&issue.to_string()));
    }
    if starter.calls() == 0 && linter.given.is_none() {
        bail!(
            "no tool calls found in {} input(s): nothing to start a tools file from",
            read.len()
        );
    }
    let (text, counts) = starter.finish(&read);
    if to_stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
    } else {
        std::fs::write(&args.output, &text)
            .with_context(|| format!("cannot write `{}`", args.output.display()))?;
    }
    let total: usize = counts.values().sum();
    let parts: Vec<String> = counts
        .iter()
        .map(|(o, n)| {
            let what = match o {
                Origin::Given => "from the --tools sources",
                Origin::Embedded => "embedded in the traces",
                Origin::Builtin => "built into the agent that made the trace",
                Origin::Inferred => "inferred from the calls (review them)",
                Origin::Conflict => {
                    "left without a schema (agents of different kinds call a tool of that name)"
                }
            };
            format!("{n} {what}")
        })
        .collect();
    let target = if to_stdout {
        "stdout".to_owned()
    } else {
        format!("`{}`", args.output.display())
    };
    eprintln!(
        "init: wrote {total} tool{} to {target}: {}; behaviour left as `metadata._todo` for a human to answer",
        if total == 1 { "" } else { "s" },
        parts.join(", ")
    );
    if !to_stdout {
        eprintln!(
            "next: tracelint check {} --tools {}",
            args.inputs.join(" "),
            args.output.display()
        );
    }
    Ok(if issues.is_empty() {
        ExitStatus::Clean
    } else {
        ExitStatus::InputError
    })
}
