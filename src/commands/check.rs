//! `tracelint check`: flags over config → `Settings` → the library's run (`crate::pipeline`:
//! inputs → adapters → rules in parallel → one report in input order) → side outputs, stdout,
//! exit status. What is here is the command's own: the flags, the notes on stderr, the help a
//! swapped `--tools` gets; where the reports are written is `commands::output`. One cohesive
//! thing over 400 lines: `resolve` is the one place flags meet the config, kept whole so that
//! every precedence rule reads in one pass.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};

use crate::lint::listing::Kept;
use crate::adapters::{self, InputFormat, Limits};
use crate::baseline::{self, BaselineRun};
use crate::cli::{CheckArgs, FailOn};
use crate::config::{self, Config};
use crate::exit::ExitStatus;
use crate::finding::{RuleId, Tier};
use crate::inputs;
use crate::lint::Linter;
use crate::model::Trace;
pub(crate) use crate::pipeline::{BaselineSettings, Settings};
use crate::pipeline::{OtelHold, Run, shared_trace_ids};
use super::output::{Side, color_on, sarif_cap, write_reports};
use crate::reporters::paths::PathBase;
use crate::reporters::{self, OutputFormat, RenderOptions, TextOptions};
use crate::rules::{Selection, parse_rule_list};
use crate::sources::{self, LoadOptions, SourceSpec};

/// Flags over config into one `Settings` (also used by `doctor` and `init`, so all three read
/// the same tools, formats and rules).
pub(crate) fn resolve(args: &CheckArgs) -> anyhow::Result<Settings> {
    let config = if args.no_config {
        Config::default()
    } else if let Some(path) = &args.config {
        config::load(path)?
    } else {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        config::discover(&cwd)?.unwrap_or_default()
    };
    let mut notices = Vec::new();
    let mut input_format = config.input_format;
    if let Some(f) = args.input_format {
        input_format = f.format();
    }
    let mut output = OutputFormat::Text;
    if let Some(name) = args.output_format.as_deref() {
        match OutputFormat::parse(name) {
            Some(f) => output = f,
            None => match InputFormat::parse(name) {
                Some(f) => {
                    notices.push(format!(
                        "note: `--format {name}` names an input format; read as `--input-format {}` (use --output-format for the report format)",
                        f.name()
                    ));
                    input_format = Some(f);
                }
                None => bail!(
                    "unknown format `{name}`: output formats are text, json, json-lines, sarif, html, github; input formats (for --input-format) are {}",
                    InputFormat::ALL
                        .iter()
                        .map(|f| f.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        }
    }
    // Tool rules (T1…) belong to `tools lint`: named on the command line they are a usage error,
    // in the config they are that command's (a `select` of tool rules alone selects no trace rule
    // away).
    let trace_rules = |ids: Vec<RuleId>,
                       flag: Option<(&str, &[String])>|
     -> anyhow::Result<Vec<RuleId>> {
        let named = flag.and_then(|(flag, items)| {
            items
                .iter()
                .flat_map(|i| i.split(','))
                .filter_map(RuleId::parse)
                .find(|r| r.is_tool_rule())
                .map(|t| (flag, t))
        });
        if let Some((flag, t)) = named {
            bail!(
                "`{flag} {t}`: {t} is a tool rule: run `tracelint tools lint SOURCE… {flag} {t}`"
            );
        }
        Ok(ids.into_iter().filter(|r| !r.is_tool_rule()).collect())
    };
    let select = if args.rules.select.is_empty() {
        trace_rules(config.select.clone(), None)?
    } else {
        trace_rules(
            parse_rule_list(&args.rules.select)?,
            Some(("--select", &args.rules.select)),
        )?
    };
    let ignore: Vec<RuleId> = if args.rules.ignore.is_empty() {
        trace_rules(config.ignore_rules.clone(), None)?
    } else {
        trace_rules(
            parse_rule_list(&args.rules.ignore)?,
            Some(("--ignore", &args.rules.ignore)),
        )?
    };
    let config_tier = config.fail_on.unwrap_or(Tier::HardDefect);
    let (fail_on, never) = match args.gate.fail_on {
        Some(FailOn::HardDefect) => (Tier::HardDefect, false),
        Some(FailOn::HardEvent) => (Tier::HardEvent, false),
        Some(FailOn::Candidate) => (Tier::Candidate, false),
        Some(FailOn::Never) => (config_tier, true),
        None => (config_tier, config.fail_never),
    };
    let report_only = never || args.gate.exit_zero;
    let baseline = match args.baseline.clone().or_else(|| config.baseline.clone()) {
        Some(path) => Some(BaselineSettings {
            path,
            update: args.update_baseline,
            ratchet: !args.no_ratchet && config.ratchet.unwrap_or(true),
        }),
        None if args.update_baseline => bail!(
            "`--update-baseline` needs a baseline file: pass `--baseline FILE` (e.g. `--baseline tracelint-baseline.json`) or set `baseline = \"…\"` in tracelint.toml"
        ),
        None => None,
    };
    let mut tools: Vec<SourceSpec> = if args.tools.is_empty() {
        config.tools.iter()
    } else {
        args.tools.iter()
    }
    .map(|s| SourceSpec::parse(s))
    .collect();
    // A config found by searching upward is the repository's data (in CI, perhaps an untrusted
    // pull request's): it may name files, never start a process or open a URL, unless trusted.
    let discovered = !args.no_config && args.config.is_none() && config.path.is_some();
    let trusted =
        args.trust_config || std::env::var_os("TRACELINT_TRUST_CONFIG").is_some_and(|v| v == "1");
    if args.tools.is_empty() && discovered && !trusted {
        let shown = config
            .path
            .as_deref()
            .map_or_else(|| "the config".to_owned(), |p| p.display().to_string());
        tools.retain(|spec| {
            let (kind, what) = match spec {
                SourceSpec::McpStdio(cmd) => ("start", format!("mcp-stdio:{cmd}")),
                SourceSpec::McpHttp(url) => (
                    "open",
                    format!("mcp-http:{}", sources::http::display_url(url)),
                ),
                _ => return true,
            };
            notices.push(format!(
                "note: {shown}: skipped `{}`: a config found by searching upward may not {kind} {}; pass --trust-config (or TRACELINT_TRUST_CONFIG=1), or name the config with --config",
                crate::reporters::escape::terminal(&what),
                if kind == "start" { "a process" } else { "a URL" }
            ));
            false
        });
    }
    let headers = args
        .headers
        .iter()
        .map(|h| sources::http::parse_header(h).map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mcp = LoadOptions {
        timeout: args.mcp_timeout.unwrap_or(sources::DEFAULT_MCP_TIMEOUT),
        headers,
        ..LoadOptions::default()
    };
    let color = color_on(args.display.color);
    let walk = args.walk.walk(&config.exclude).map_err(anyhow::Error::msg)?;
    Ok(Settings {
        inputs: args.inputs.clone(),
        tools,
        input_format,
        output,
        selection: Selection::new(&select, &ignore),
        fail_on,
        text: TextOptions {
            include_candidates: args.display.include_candidates
                || config.include_candidates.unwrap_or(false),
            show_suppressions: args.display.show_suppressions,
            quiet: false,
            first_failures: true,
            hide_notes: args.display.quiet >= 1,
            hide_findings: args.display.quiet >= 2,
            color,
        },
        closed_toolset: args.closed_toolset || config.closed_toolset.unwrap_or(false),
        jobs: args.jobs,
        limits: Limits {
            max_record: args.max_record_size.unwrap_or(Limits::default().max_record),
        },
        config,
        notices,
        mcp,
        report_only,
        baseline,
        expect: args.expect.clone(),
        walk,
    })
}

/// A tools source that failed, said so that the fix is plain: a trace given to `--tools` (and a
/// tools file given as an INPUT) is named as such with the command that swaps them; a tools file
/// that is not JSON says "tools file" and what one holds.
fn explain_source_error(
    e: sources::SourceError,
    specs: &[SourceSpec],
    inputs: &[String],
) -> anyhow::Error {
    let files: Vec<&str> = specs
        .iter()
        .filter_map(|s| match s {
            SourceSpec::File(p) => Some(p.as_str()),
            _ => None,
        })
        .collect();
    let failed = files
        .iter()
        .copied()
        .find(|p| sources::load_file(Path::new(p), p).is_err());
    let Some(failed) = failed else {
        return e.into();
    };
    if let Some(format) = trace_format(failed) {
        let swapped: Vec<&str> = inputs
            .iter()
            .map(String::as_str)
            .filter(|i| Path::new(i).is_file() && sources::load_file(Path::new(i), i).is_ok())
            .collect();
        let fix = match swapped.as_slice() {
            [tools] => format!(
                ", and the INPUT `{tools}` is a tools file: swap them: `tracelint check {failed} --tools {tools}`"
            ),
            _ => format!(
                ": traces are the INPUTs (`tracelint check {failed} --tools TOOLS`); `--tools` takes a tools file, `mcp-stdio:`, `mcp-http:` or `builtin:claude-code`"
            ),
        };
        return anyhow::anyhow!(
            "`{failed}` given to `--tools` is a trace ({format}), not a tools file{fix}"
        );
    }
    match e {
        sources::SourceError::Invalid {
            source_name,
            message,
        } if message.starts_with("invalid JSON") && !message.contains("nested deeper") => {
            anyhow::anyhow!(
                "{source_name}: the tools file is not JSON ({}): a tools file holds `{{\"tools\": [...]}}` (MCP style), a JSON array of tools (OpenAI or Anthropic), the Python tracelint's `{{\"tools\": {{name: {{...}}}}}}` or a saved `tools/list` reply; check the path given to `--tools`",
                message.trim_start_matches("invalid JSON: ")
            )
        }
        other => other.into(),
    }
}

/// The format of `path` when it reads as a trace holding tool calls.
fn trace_format(path: &str) -> Option<&'static str> {
    use std::io::Read;
    let mut bytes = Vec::new();
    crate::inputs::open_file(Path::new(path))
        .ok()?
        .take(sources::MAX_TOOLS_FILE)
        .read_to_end(&mut bytes)
        .ok()?;
    let (format, parsed) = adapters::parse_bytes(&bytes, path, None);
    let calls: usize = parsed.traces.iter().map(Trace::call_count).sum();
    (calls > 0).then(|| match format.map(InputFormat::name) {
        Some("claude") => "Claude Code session lines",
        Some("openai") => "OpenAI messages",
        Some("langfuse") => "a Langfuse export",
        Some("otel") => "OpenTelemetry spans",
        Some("native") => "a native trace",
        _ => "a trace",
    })
}

/// `tracelint check`. Meant to be followed by the process's exit: the last trace it lints is
/// not freed (`Sink::retire`).
#[allow(clippy::print_stderr)]
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    let settings = resolve(args)?;
    let mut linter = linter(&settings, !settings.text.hide_notes)?;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let baseline = match &settings.baseline {
        Some(b) => Some(BaselineRun::open(
            &b.path,
            &cwd,
            baseline::Options {
                update: b.update,
                ratchet: b.ratchet,
                gate: settings.fail_on,
                selection: settings.selection,
            },
        )?),
        None => None,
    };
    // The ratchet compares coverage per file, rule and tool.
    linter.run.tool_coverage = baseline.is_some();
    // The HTML timeline and JSON Lines (which `report` re-renders HTML from) show the steps
    // around each finding.
    linter.outlines = matches!(
        settings.output,
        OutputFormat::Html | OutputFormat::JsonLines
    ) || args.files.html.is_some();
    let (plain, phoenix) = super::phoenix::prepare(args, &settings.inputs, &settings)?;
    let (mut specs, expand_issues) = if plain.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        inputs::expand_with(&plain, &settings.walk)
    };
    specs.extend(phoenix.specs());
    let outputs: Vec<(&str, &Path)> = [
        ("--json", &args.files.json),
        ("--sarif", &args.files.sarif),
        ("--html", &args.files.html),
        ("--text", &args.text),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
    .collect();
    let (specs, own) = inputs::without_own_outputs(specs, &outputs);
    for note in own.iter().filter(|_| !settings.text.quiet) {
        eprintln!("note: {}", crate::reporters::escape::terminal(note));
    }
    guard_outputs(&settings, &specs, outputs, &cwd)?;
    let (threads, capped) = crate::cli::worker_threads(settings.jobs);
    if let Some(note) = capped {
        eprintln!("note: {note}");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    let shared_ids = shared_trace_ids(&specs, &settings, &pool);
    let defer_otel = OtelHold {
        several: specs.len() > 1,
        shared: shared_ids.as_ref(),
    };
    let full = settings.output != OutputFormat::Text
        || args.files.json.is_some()
        || args.files.sarif.is_some()
        || args.files.html.is_some()
        || args.text.is_some();
    let cap = match args.max_findings {
        Some(0) => None,
        Some(n) => Some(n),
        None if settings.output == OutputFormat::JsonLines => None,
        None => Some(crate::lint::listing::DEFAULT_MAX_FINDINGS),
    };
    let run = Run {
        settings: &settings,
        linter: &linter,
        pool: &pool,
        specs: &specs,
        defer_otel,
        parse_only: args.parse_only,
        full,
        cap,
        details: false,
        on_trace: None,
        // The reports are written once every finding is in: the findings wait out of memory,
        // unless a report that reads them whole (SARIF, HTML, GitHub) or the Phoenix server
        // takes them.
        spill_at: (side(args).reads_listed(settings.output) && !phoenix.writes_back())
            .then_some(crate::lint::spill::SPILL_AT),
    };
    let report = run.stream_listed(expand_issues, baseline);
    unused_expectations(&linter);
    let (mut report, kept) = report?;
    let spilled = match kept {
        Kept::Findings(findings) => {
            report.findings = findings;
            None
        }
        Kept::Spilled(s) => Some(s),
    };
    let listed: &dyn reporters::Listed = match &spilled {
        Some(s) => &**s,
        None => &report.findings,
    };
    if full {
        render_all(args, &settings, &report, listed, &cwd)?;
    } else {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(super::PipeSafe::new(stdout.lock()));
        reporters::text::render_listed(&report, listed, settings.text, &mut out)?;
        out.flush()?;
    }
    phoenix.write_back(
        &report,
        settings.text.include_candidates,
        settings.text.hide_notes,
    )?;
    Ok(report.exit)
}

/// The files a run with these settings reads (besides the baseline): the inputs (standard
/// input too, when it is a file), the tools files, the config file (found or named) and the
/// expectations files. `check` and `init` guard their outputs with it.
pub(crate) fn files_read(settings: &Settings, specs: &[inputs::InputSpec]) -> inputs::ReadFiles {
    let mut read = inputs::ReadFiles::new();
    read.add_inputs(specs);
    for spec in &settings.tools {
        if let SourceSpec::File(p) = spec {
            read.add(Path::new(p), format!("the tools file `{p}`"));
        }
    }
    if let Some(p) = &settings.config.path {
        read.add(p, format!("the config file `{}`", p.display()));
    }
    for p in &settings.expect {
        read.add(p, format!("the expectations file `{}`", p.display()));
    }
    read
}

/// Refuse, before anything is written, an output that is a file this run reads — an input
/// (standard input too, when it is a file), a tools file, the config file (found or named),
/// an expectations file or the baseline — by device and inode, so no spelling, symlink or
/// hard link gets past. `--update-baseline` rewrites the baseline only.
fn guard_outputs(
    settings: &Settings,
    specs: &[inputs::InputSpec],
    outputs: Vec<(&str, &Path)>,
    cwd: &Path,
) -> anyhow::Result<()> {
    let read = files_read(settings, specs);
    let summary = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty());
    let mut all = outputs.clone();
    if settings.output == OutputFormat::Github
        && let Some(p) = &summary
    {
        all.push(("GITHUB_STEP_SUMMARY", Path::new(p)));
    }
    read.guard(&all, "the report").map_err(anyhow::Error::msg)?;
    if let Some(b) = &settings.baseline {
        let full = cwd.join(&b.path);
        if b.update {
            read.guard(&[("--update-baseline", &full)], "the baseline")
                .map_err(anyhow::Error::msg)?;
        }
        let mut baseline = inputs::ReadFiles::new();
        baseline.add(&full, format!("the baseline `{}`", b.path.display()));
        baseline
            .guard(&outputs, "the report")
            .map_err(anyhow::Error::msg)?;
    }
    Ok(())
}

/// Say on stderr which expectations selected no trace: they checked nothing, and a gate that
/// checked nothing must not pass in silence.
#[allow(clippy::print_stderr)]
fn unused_expectations(linter: &Linter) {
    let settings = &linter.run.settings;
    let Some(file) = &settings.expectations else {
        return;
    };
    if !linter.selection.contains(RuleId::E1) {
        // `--select`/`--ignore` left E1 out: no expectation was checked, by request.
        return;
    }
    for (e, used) in file
        .expectations
        .iter()
        .zip(settings.expectations_used.iter())
    {
        if !used.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!(
                "warning: {}: expectation `{}` selected no trace, so it checked nothing (its `path` / `run_id` match no input)",
                crate::reporters::escape::terminal(&e.declared_at),
                crate::reporters::escape::terminal(&e.id)
            );
        }
    }
}

/// The settings' notices and the tools sources' notes on stderr (`notes`: not `--quiet`), then
/// the linter for the run; a tools source that failed is explained in terms of the flags.
#[allow(clippy::print_stderr)]
pub(crate) fn linter(settings: &Settings, notes: bool) -> anyhow::Result<Linter> {
    for n in &settings.notices {
        eprintln!("{n}");
    }
    let (linter, source_notes) = crate::pipeline::linter(settings, None).map_err(|e| {
        match e.downcast::<sources::SourceError>() {
            Ok(e) => explain_source_error(e, &settings.tools, &settings.inputs),
            Err(e) => e,
        }
    })?;
    if notes {
        for n in &source_notes {
            eprintln!("note: {n}");
        }
    }
    Ok(linter)
}

/// Side outputs, the step summary and stdout, for a finished report.
fn render_all(
    args: &CheckArgs,
    settings: &Settings,
    report: &reporters::Report,
    listed: &dyn reporters::Listed,
    cwd: &Path,
) -> anyhow::Result<()> {
    let opts = RenderOptions {
        text: settings.text,
        base: match &args.sarif_root {
            Some(root) => PathBase::new(cwd, root),
            None => PathBase::discover(cwd),
        },
        sarif_max_results: sarif_cap(args.sarif_max_results),
    };
    write_reports(report, listed, &opts, settings.output, &side(args))
}

/// The side outputs `args` ask for.
fn side(args: &CheckArgs) -> Side<'_> {
    Side {
        json: args.files.json.as_deref(),
        sarif: args.files.sarif.as_deref(),
        html: args.files.html.as_deref(),
        text: args.text.as_deref(),
    }
}
