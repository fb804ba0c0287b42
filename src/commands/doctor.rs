//! `tracelint doctor`: lint the inputs exactly as `check` would (same settings, tools, config and
//! built-in schemas, so the per-rule coverage is `check`'s), keeping per-input detail, then print
//! the diagnosis (`doctor.rs`) and gate on `--fail-under`.

use anyhow::Context;

use crate::cli::{CheckArgs, DisplayArgs, DoctorArgs, DoctorFormat, GroupBy};
use crate::commands::check;
use crate::exit::ExitStatus;
use crate::inputs;

/// `tracelint doctor`.
#[allow(clippy::print_stderr)]
pub fn run(args: &DoctorArgs) -> anyhow::Result<ExitStatus> {
    let json = args.json || args.output_format == DoctorFormat::Json;
    let record_gates = args
        .fail_under
        .iter()
        .filter_map(|g| {
            crate::doctor::parse_record_gate(g)
                .map(|r| r.map(|(m, pct)| (g.clone(), m, pct)).map_err(anyhow::Error::msg))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let gates = args
        .fail_under
        .iter()
        .filter(|g| crate::doctor::parse_record_gate(g).is_none())
        .map(|g| {
            crate::doctor::parse_gate(g)
                .map(|(rules, pct)| (g.clone(), rules, pct))
                .map_err(anyhow::Error::msg)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let check_args = CheckArgs {
        inputs: args.inputs.clone(),
        tools: args.tools.clone(),
        headers: args.headers.clone(),
        mcp_timeout: args.mcp_timeout,
        input_format: args.input_format,
        max_record_size: args.max_record_size,
        walk: args.walk.clone(),
        rules: args.rules.clone(),
        config: args.config.clone(),
        no_config: args.no_config,
        jobs: args.jobs,
        display: DisplayArgs {
            quiet: u8::from(json),
            ..DisplayArgs::default()
        },
        ..CheckArgs::default()
    };
    let settings = check::resolve(&check_args)?;
    let mut linter = check::linter(&settings, !json)?;
    linter.run.tool_coverage = true;
    linter.measure_record = true;
    let (specs, expand_issues) = inputs::expand_with(&settings.inputs, &settings.walk);
    let (threads, capped) = crate::cli::worker_threads(settings.jobs);
    if let Some(note) = capped {
        eprintln!("note: {note}");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    // Streamed as `check` streams, keeping no finding: the diagnosis reads what findings count
    // for (coverage, record figures, suppressions), so memory follows the traces in flight.
    let shared = crate::pipeline::shared_trace_ids(&specs, &settings, &pool);
    let run = crate::pipeline::Run {
        settings: &settings,
        linter: &linter,
        pool: &pool,
        specs: &specs,
        defer_otel: crate::pipeline::OtelHold {
            several: specs.len() > 1,
            shared: shared.as_ref(),
        },
        parse_only: false,
        full: true,
        cap: Some(0),
        details: true,
        on_trace: None,
        spill_at: None,
    };
    let report = run.stream(expand_issues, None)?;
    let mut d = crate::doctor::diagnose(&report, &gates, &record_gates);
    let unreadable = !report.issues.is_empty();
    let exit = if unreadable && (report.summary.traces == 0 || !gates.is_empty() || !record_gates.is_empty()) {
        // Nothing to diagnose, or a gate that would be measured on part of the corpus.
        ExitStatus::InputError
    } else if d.gates.iter().any(|g| !g.passed) {
        ExitStatus::GateTripped
    } else {
        ExitStatus::Clean
    };
    d.exit_code = exit.code();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(stdout.lock()));
    if json {
        crate::reporters::escape::write_json(&mut out, &d)?;
    } else {
        let by = match args.group_by {
            GroupBy::Rule => crate::doctor::By::Rule,
            GroupBy::Tool => crate::doctor::By::Tool,
            GroupBy::File => crate::doctor::By::File,
            GroupBy::Format => crate::doctor::By::Format,
            GroupBy::Agent => crate::doctor::By::Agent,
        };
        crate::doctor::render_text(&d, by, &mut out)?;
    }
    std::io::Write::flush(&mut out)?;
    Ok(exit)
}
