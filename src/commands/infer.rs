//! `tracelint infer`: read every input through the adapters (any format), feed each trace to the
//! `Inferrer` as it is read, write the MCP-style tools file, then (unless `--no-validate`) lint
//! the inputs again against what was written, with the rules that use schemas (R1, R7), and say
//! `OK: inferred schema validates against N transcript(s)` or show the findings.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};

use crate::adapters::{Emit, InputFormat, ReadOptions, ReadOutcome};
use crate::cli::{InferArgs, InputFormatArg};
use crate::exit::ExitStatus;
use crate::finding::{InputIssue, IssueCap, RuleId, Tier};
use crate::infer::Inferrer;
use crate::inputs::{self, InputSpec};
use crate::lint::{Linter, ReportBuilder};
use crate::model::{ToolRegistry, Trace};
use crate::reporters::{self, TextOptions};
use crate::rules::{RuleSettings, Selection};
use crate::sources;

/// Where the adapters' traces go in each pass.
trait OnTrace {
    fn on_trace(&mut self, input: usize, trace: Trace);
}

struct Collect<'a> {
    input: usize,
    handler: &'a mut dyn OnTrace,
    /// Input errors kept (the first of each input), or `None` to drop them (the second pass
    /// reads what the first one reported on already).
    issues: Option<&'a mut Vec<InputIssue>>,
    cap: &'a mut IssueCap,
}

impl Emit for Collect<'_> {
    fn trace(&mut self, trace: Trace) {
        self.handler.on_trace(self.input, trace);
    }
    fn issue(&mut self, issue: InputIssue) {
        if let Some(issues) = self.issues.as_deref_mut()
            && self.cap.admit(&issue.path)
        {
            issues.push(issue);
        }
    }
}

/// Read every input in order, handing each trace over as soon as it is read; the input errors
/// go to `issues` (the first of each input, the rest counted in `cap`), or nowhere.
fn read_all(
    specs: &[InputSpec],
    format: Option<InputFormat>,
    handler: &mut dyn OnTrace,
    mut issues: Option<&mut Vec<InputIssue>>,
    cap: &mut IssueCap,
) -> Vec<ReadOutcome> {
    let mut outcomes = Vec::new();
    for (input, spec) in specs.iter().enumerate() {
        let opts = ReadOptions {
            format,
            skip_tools_files: spec.walked,
            ..ReadOptions::default()
        };
        let mut sink = Collect {
            input,
            handler: &mut *handler,
            issues: issues.as_deref_mut(),
            cap: &mut *cap,
        };
        let outcome = crate::pipeline::read_spec(spec, &opts, &mut sink);
        outcomes.push(outcome);
    }
    outcomes
}

struct Learn(Inferrer);

impl OnTrace for Learn {
    fn on_trace(&mut self, _input: usize, trace: Trace) {
        self.0.add_trace(&trace);
    }
}

struct Validate<'a> {
    linter: &'a Linter,
    builder: ReportBuilder,
}

impl OnTrace for Validate<'_> {
    fn on_trace(&mut self, input: usize, trace: Trace) {
        let mut lint = self.linter.lint(&trace);
        // A call the runtime did not accept taught the schema nothing, so it is not held to it.
        let pairing = crate::model::Pairing::new(&trace);
        let refused = |step: usize| {
            pairing
                .result_for(step)
                .and_then(|i| trace.steps.get(i))
                .and_then(|s| s.as_result())
                .is_some_and(crate::infer::not_accepted)
        };
        lint.outcome.findings.retain(|f| {
            f.rule != RuleId::R1 || !f.evidence.first().is_some_and(|e| refused(e.step))
        });
        self.builder.trace(input, lint);
    }
}

fn format_arg(f: Option<InputFormatArg>) -> Option<InputFormat> {
    f?.format()
}

/// `tracelint infer`.
#[allow(clippy::print_stdout, clippy::print_stderr)]
pub fn run(args: &InferArgs) -> anyhow::Result<ExitStatus> {
    let format = format_arg(args.input_format);
    let walk = args.walk.walk(&[]).map_err(anyhow::Error::msg)?;
    let (specs, walk_issues) = inputs::expand_with(&args.inputs, &walk);
    if args.output.as_os_str() != "-" {
        let mut read = inputs::ReadFiles::new();
        read.add_inputs(&specs);
        read.guard(&[("-o", args.output.as_path())], "the schemas")
            .map_err(anyhow::Error::msg)?;
    }
    // Input errors are listed up to a cap per input, then counted.
    let mut cap = IssueCap::default();
    let mut issues: Vec<InputIssue> = walk_issues
        .into_iter()
        .filter(|i| cap.admit(&i.path))
        .collect();
    if specs.iter().any(|s| s.path.is_none()) && !args.no_validate {
        bail!("`infer -` reads stdin once and cannot validate against it: add `--no-validate`");
    }
    let mut learn = Learn(Inferrer::new(args.enum_max));
    let outcomes = read_all(&specs, format, &mut learn, Some(&mut issues), &mut cap);
    let inferrer = learn.0;
    let read: Vec<&InputSpec> = specs
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| matches!(o, ReadOutcome::Read(_)))
        .map(|(s, _)| s)
        .collect();
    let not_traces: Vec<&str> = specs
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| **o == ReadOutcome::SkippedNotTrace)
        .map(|(s, _)| s.display.as_str())
        .collect();
    if read.is_empty() {
        for file in &not_traces {
            issues.push(InputIssue::file(*file, crate::adapters::NOT_A_TRACE));
        }
    } else if let Some(note) = inputs::skipped_not_traces(&not_traces) {
        eprintln!("{}", reporters::escape::terminal(&note));
    }
    issues.extend(cap.summaries());
    for issue in &issues {
        eprintln!("{}", reporters::escape::terminal(&issue.to_string()));
    }
    if inferrer.calls() == 0 {
        let unread = specs.len() - read.len();
        if unread > 0 {
            bail!(
                "nothing to infer: {unread} of {} input(s) could not be read (above), and the rest hold no tool calls",
                specs.len()
            );
        }
        bail!(
            "no tool calls found in {} input(s): nothing to infer",
            read.len()
        );
    }
    let skipped = inferrer.skipped();
    if skipped.total() > 0 {
        let failed = if skipped.failed > 0 {
            format!(
                ", {} whose result failed or records a refusal (the runtime did not accept them)",
                skipped.failed
            )
        } else {
            String::new()
        };
        eprintln!(
            "note: skipped {} of {} tool call(s): {} with malformed arguments, {} with arguments not recorded{failed}",
            skipped.total(),
            inferrer.calls(),
            skipped.malformed,
            skipped.unknown
        );
    }
    let inferred_from: Vec<String> = read.iter().map(|s| s.display.clone()).collect();
    let value = inferrer.tools_file(&inferred_from);
    let mut text = crate::reporters::escape::json_text(if args.pretty {
        serde_json::to_string_pretty(&value)?
    } else {
        serde_json::to_string(&value)?
    });
    text.push('\n');
    let to_stdout = args.output.as_os_str() == "-";
    if to_stdout {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
    } else {
        std::fs::write(&args.output, &text)
            .with_context(|| format!("cannot write `{}`", args.output.display()))?;
    }
    let input_status = if issues.is_empty() {
        ExitStatus::Clean
    } else {
        ExitStatus::InputError
    };
    if args.no_validate {
        return Ok(input_status);
    }
    // Validate against what was written, read back as any `--tools` file would be.
    let display = args.output.display().to_string();
    let registry: ToolRegistry = if to_stdout {
        sources::file::parse_tools_value(&value, "inferred schema")?
    } else {
        sources::load_file(Path::new(&args.output), &display)?
    };
    let linter = Linter::new(
        Some(registry),
        Selection::new(&[RuleId::R1, RuleId::R7], &[]),
        RuleSettings::default(),
    );
    let read_specs: Vec<InputSpec> = read.into_iter().cloned().collect();
    let mut validate = Validate {
        linter: &linter,
        builder: ReportBuilder::new(),
    };
    for spec in &read_specs {
        validate.builder.input(&spec.display);
    }
    // The input errors of this second reading were said after the first one.
    read_all(&read_specs, format, &mut validate, None, &mut cap);
    // Any finding at all means the inferred schema does not describe its own inputs.
    let report = validate.builder.finish(Tier::Candidate, &[]);
    if report.findings.is_empty() {
        let line = format!(
            "OK: inferred schema validates against {} transcript(s)",
            read_specs.len()
        );
        if to_stdout {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
        return Ok(input_status);
    }
    let opts = TextOptions {
        include_candidates: true,
        ..TextOptions::default()
    };
    if to_stdout {
        reporters::text::render(&report, opts, &mut std::io::stderr().lock())?;
    } else {
        reporters::text::render(&report, opts, &mut std::io::stdout().lock())?;
    }
    eprintln!(
        "error: the inferred schema does not validate its own inputs (a bug in `infer`: please report it)"
    );
    Ok(report.exit.max(input_status).max(ExitStatus::GateTripped))
}
