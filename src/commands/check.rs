//! `tracelint check`: settings (flags over config) → tools sources → inputs → adapters, linted
//! in parallel across files with each trace linted as soon as it is read → one sorted report →
//! side outputs, stdout, exit status. When several inputs are given, OTel traces wait until
//! every input is read, so a run whose spans are split across files is merged (by trace id,
//! reported under the first file) and linted whole.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::mpsc::Sender;

use anyhow::{Context, bail};
use rayon::prelude::*;

use crate::adapters::{self, Emit, InputFormat, Limits, ReadOptions, ReadOutcome, otel};
use crate::baseline::{self, BaselineRun};
use crate::cli::{CheckArgs, ColorArg, FailOn};
use crate::config::{self, Config};
use crate::exit::ExitStatus;
use crate::finding::{InputIssue, RuleId, Tier};
use crate::inputs::{self, InputSpec};
use crate::lint::listing::Listing;
use crate::lint::{Linter, ReportBuilder, Settle, TraceLint};
use crate::model::{ToolRegistry, Trace};
use crate::reporters::paths::PathBase;
use crate::reporters::{self, OutputFormat, RenderOptions, TextOptions};
use crate::rules::{RuleSettings, Selection, parse_rule_list};
use crate::sources::{self, LoadOptions, SourceSpec};

/// Everything `check` needs, resolved from flags and config (flags win).
#[derive(Debug)]
pub struct Settings {
    /// Inputs as given.
    pub inputs: Vec<String>,
    /// Tools sources.
    pub tools: Vec<SourceSpec>,
    /// `None` = auto.
    pub input_format: Option<InputFormat>,
    /// Stdout format.
    pub output: OutputFormat,
    /// Rules to run.
    pub selection: Selection,
    /// Lowest failing tier.
    pub fail_on: Tier,
    /// Text options.
    pub text: TextOptions,
    /// Unknown tools are hard defects.
    pub closed_toolset: bool,
    /// Parallelism.
    pub jobs: Option<usize>,
    /// Record limits.
    pub limits: Limits,
    /// The config in force.
    pub config: Config,
    /// Notices for stderr (e.g. the legacy `--format` spelling).
    pub notices: Vec<String>,
    /// How live MCP sources are loaded (`--mcp-timeout`, `--header`).
    pub mcp: LoadOptions,
    /// `--exit-zero` / `--fail-on never`: report only; findings never fail the run.
    pub report_only: bool,
    /// The baseline in force (`--baseline`, or the config's `baseline`).
    pub baseline: Option<BaselineSettings>,
    /// `--expect FILE`s (rule E1), read with the config's `[[expect]]` tables by `linter`.
    pub expect: Vec<std::path::PathBuf>,
}

/// The baseline a run uses.
#[derive(Debug, Clone)]
pub struct BaselineSettings {
    /// The file, relative to the working directory.
    pub path: std::path::PathBuf,
    /// `--update-baseline`.
    pub update: bool,
    /// The coverage ratchet is on (not `--no-ratchet`, not `ratchet = false`).
    pub ratchet: bool,
}

/// Flags over config into one `Settings` (also used by `doctor` and `init`, so all three read
/// the same tools, formats and rules).
pub fn resolve(args: &CheckArgs) -> anyhow::Result<Settings> {
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
                    "unknown format `{name}`: output formats are text, json, json-lines, sarif, html, github; input formats (for --input-format) are native, claude, openai, langfuse, otel"
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
            quiet: args.display.quiet,
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
    })
}

/// Load the `--tools` sources and apply config metadata overrides; notes go to stderr. The
/// agents listed are those whose `builtin:AGENT` (unpinned) asks to follow each session.
pub fn registry(
    settings: &Settings,
    notes: &mut Vec<String>,
) -> anyhow::Result<(Option<ToolRegistry>, Vec<sources::builtin::Agent>)> {
    let mut follow_builtin = Vec::new();
    let mut specs = Vec::new();
    for spec in &settings.tools {
        match sources::resolve(spec)? {
            sources::Resolved::Source(s) => specs.push(s),
            sources::Resolved::Follow(agent) => follow_builtin.push(agent),
        }
    }
    if specs.is_empty() && !follow_builtin.is_empty() {
        return Ok((Some(ToolRegistry::new()), follow_builtin));
    }
    if specs.is_empty() {
        if !settings.config.metadata.is_empty() {
            bail!(
                "the config declares `[metadata.*]` overrides but no tools source: add `tools = \"tools.json\"` or pass `--tools`"
            );
        }
        return Ok((None, follow_builtin));
    }
    let loaded = sources::load_all_with(&specs, &settings.mcp)
        .map_err(|e| explain_source_error(e, &specs, &settings.inputs))?;
    notes.extend(loaded.notes);
    let mut registry = loaded.registry;
    for (tool, meta) in &settings.config.metadata {
        let spec = registry.get_mut(tool).with_context(|| {
            format!("the config overrides metadata of `{tool}`, which no tools source declares")
        })?;
        spec.metadata.overlay(meta);
    }
    Ok((Some(registry), follow_builtin))
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
                "{source_name}: the tools file is not JSON ({}): a tools file holds `{{\"tools\": [...]}}` (MCP style), a JSON array of tools (OpenAI or Anthropic), seed 002's `{{\"tools\": {{name: {{...}}}}}}` or a saved `tools/list` reply; check the path given to `--tools`",
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

/// Which OTel traces wait for the end of the run, to be merged with parts of the same trace
/// from other inputs.
#[derive(Clone, Copy)]
pub(crate) struct OtelHold<'a> {
    /// Several inputs are read (one alone has nothing to merge with).
    several: bool,
    /// The trace ids found in more than one input, when every input was indexed up front (a
    /// first pass over span files): only their traces wait. `None`: every trace with an id
    /// waits.
    shared: Option<&'a HashSet<String>>,
}

impl OtelHold<'_> {
    fn holds(&self, trace: &Trace) -> bool {
        let Some(id) = trace.attribute(otel::TRACE_ID) else {
            return false;
        };
        self.several && self.shared.is_none_or(|s| s.contains(id))
    }
}

/// When every input (two or more) is a span file on disk, the trace ids found in more than one
/// of them (the OTel reader's first pass, run over each file up front): the traces of every
/// other id are linted and freed as their file is read instead of waiting for the last file.
/// `None` when any input is something else, or cannot be indexed cleanly.
fn shared_trace_ids(
    specs: &[InputSpec],
    settings: &Settings,
    pool: &rayon::ThreadPool,
) -> Option<HashSet<String>> {
    if specs.len() < 2 || !matches!(settings.input_format, None | Some(InputFormat::Otel)) {
        return None;
    }
    let open = |spec: &InputSpec| {
        let path = spec.path.as_deref()?;
        let file = inputs::open_file(path).ok()?;
        (!inputs::is_pipe(&file)).then_some(file)
    };
    let spans = |spec: &InputSpec| open(spec).is_some_and(otel::looks_like_spans);
    if !specs.iter().all(spans) {
        return None;
    }
    let keys: Vec<Option<Vec<String>>> = pool.install(|| {
        specs
            .par_iter()
            .map(|spec| otel::trace_keys(open(spec)?, settings.limits))
            .collect()
    });
    let mut seen: HashSet<String> = HashSet::new();
    let mut shared = HashSet::new();
    for file_keys in keys {
        for k in file_keys? {
            if !seen.insert(k.clone()) {
                shared.insert(k);
            }
        }
    }
    Some(shared)
}

/// What one input produced.
struct InputResult {
    outcome: ReadOutcome,
    traces: Vec<TraceLint>,
    /// OTel traces held back to be merged with the same trace id from other inputs.
    deferred: Vec<Trace>,
    issues: Vec<InputIssue>,
    /// Notes the adapter made about the input.
    notes: Vec<String>,
    /// The input was empty (and other inputs were given).
    empty: bool,
}

/// Lints each trace as soon as its adapter emits it, so memory follows the largest trace —
/// except OTel traces when several inputs are read, which may continue in another file.
struct Sink<'a, 's> {
    linter: &'a Linter,
    parse_only: bool,
    defer_otel: OtelHold<'a>,
    result: InputResult,
    /// Streaming: linted traces and issues go to the writer (with this input's index) instead
    /// of into `result`.
    events: Option<(usize, &'a Sender<Event>)>,
    /// Streaming with several threads: traces are linted in the pool while the adapter reads
    /// on, at most `MAX_IN_FLIGHT` at a time (past that the reader lints the trace itself).
    scope: Option<&'s rayon::Scope<'a>>,
    in_flight: &'a std::sync::atomic::AtomicUsize,
    /// Traces emitted so far (the writer puts them back in this order).
    seq: usize,
    /// This is the run's last input: its latest linted trace is kept in `last` rather than
    /// freed, so the one the run ends with is never freed (see `retire`).
    hold_last: bool,
    last: Option<Trace>,
}

/// Traces of one input linted in the pool at once, per worker thread: bounds the memory of a
/// big file read faster than it is linted.
const MAX_IN_FLIGHT: usize = 2;

/// What a reader tells the streaming writer.
enum Event {
    /// A linted trace: input, its place among the input's traces, the lint.
    Trace(usize, usize, TraceLint),
    Issue(usize, InputIssue),
    /// A note about an input.
    Note(usize, String),
    /// The input is read; what is left of its result (its outcome, held-back OTel traces).
    Done(usize, InputResult),
}

fn lint_one(linter: &Linter, parse_only: bool, trace: &Trace) -> TraceLint {
    if parse_only {
        TraceLint::of(trace)
    } else {
        linter.lint(trace)
    }
}

impl<'a> Emit for Sink<'a, '_> {
    fn trace(&mut self, trace: Trace) {
        use std::sync::atomic::Ordering;
        if self.defer_otel.holds(&trace) {
            self.result.deferred.push(trace);
            return;
        }
        let Some((input, tx)) = self.events else {
            let lint = lint_one(self.linter, self.parse_only, &trace);
            self.result.traces.push(lint);
            self.retire(trace);
            return;
        };
        let seq = self.seq;
        self.seq += 1;
        if let Some(scope) = self.scope
            && self.in_flight.load(Ordering::Acquire) < MAX_IN_FLIGHT * rayon::current_num_threads()
        {
            self.in_flight.fetch_add(1, Ordering::AcqRel);
            let (linter, parse_only, in_flight) = (self.linter, self.parse_only, self.in_flight);
            let tx = tx.clone();
            scope.spawn(move |_| {
                let lint = lint_one(linter, parse_only, &trace);
                drop(trace);
                // The writer outlives every reader; a send cannot fail before it stops reading.
                drop(tx.send(Event::Trace(input, seq, lint)));
                in_flight.fetch_sub(1, Ordering::AcqRel);
            });
            return;
        }
        let lint = lint_one(self.linter, self.parse_only, &trace);
        self.retire(trace);
        drop(tx.send(Event::Trace(input, seq, lint)));
    }
    fn issue(&mut self, issue: InputIssue) {
        // An empty input among others is a note, not an input error (all empty: see
        // `no_trace_at_all`).
        if self.defer_otel.several && issue.line == 0 && issue.message == adapters::EMPTY_FILE {
            self.result.empty = true;
            return;
        }
        match self.events {
            Some((input, tx)) => drop(tx.send(Event::Issue(input, issue))),
            None => self.result.issues.push(issue),
        }
    }
    fn note(&mut self, note: String) {
        match self.events {
            Some((input, tx)) => drop(tx.send(Event::Note(input, note))),
            None => self.result.notes.push(note),
        }
    }
}

fn read_input(
    spec: &InputSpec,
    settings: &Settings,
    linter: &Linter,
    parse_only: bool,
    defer_otel: OtelHold<'_>,
    events: Option<(usize, &Sender<Event>)>,
    last_input: bool,
) -> InputResult {
    let in_flight = std::sync::atomic::AtomicUsize::new(0);
    // Traces are linted across the pool only when streaming (the writer reorders them) and
    // when there is another thread to lint them.
    if events.is_some() && rayon::current_num_threads() > 1 {
        return rayon::in_place_scope(|scope| {
            read_into(
                spec,
                settings,
                Sink::new(
                    linter,
                    parse_only,
                    defer_otel,
                    events,
                    &in_flight,
                    Some(scope),
                )
                .holding_last(last_input),
            )
        });
    }
    read_into(
        spec,
        settings,
        Sink::new(linter, parse_only, defer_otel, events, &in_flight, None)
            .holding_last(last_input),
    )
}

impl<'a, 's> Sink<'a, 's> {
    fn new(
        linter: &'a Linter,
        parse_only: bool,
        defer_otel: OtelHold<'a>,
        events: Option<(usize, &'a Sender<Event>)>,
        in_flight: &'a std::sync::atomic::AtomicUsize,
        scope: Option<&'s rayon::Scope<'a>>,
    ) -> Self {
        Sink {
            linter,
            parse_only,
            defer_otel,
            events,
            scope,
            in_flight,
            seq: 0,
            hold_last: false,
            last: None,
            result: InputResult::empty(),
        }
    }

    fn holding_last(mut self, hold_last: bool) -> Self {
        self.hold_last = hold_last;
        self
    }

    /// Done with a linted trace: free it, or, in the run's last input, keep it until the next
    /// one is linted (it is freed then). The trace the run ends with is never freed: all that
    /// follows is writing the report and exiting, and the OS takes the memory back at once,
    /// where freeing it walks every node of every tree it holds (a fifth of the time of a run
    /// on a single 50,000-step trace). At most one trace more is held, only in the last input.
    fn retire(&mut self, trace: Trace) {
        if self.hold_last {
            self.last = Some(trace);
        }
    }
}

impl InputResult {
    fn empty() -> Self {
        InputResult {
            outcome: ReadOutcome::Failed,
            traces: Vec::new(),
            deferred: Vec::new(),
            issues: Vec::new(),
            notes: Vec::new(),
            empty: false,
        }
    }
}

/// Record how an input was read (its format, or why it was skipped) and whether only part of
/// it could be read.
fn record_outcome(
    builder: &mut ReportBuilder,
    input: usize,
    (outcome, empty): (ReadOutcome, bool),
    partial: bool,
) {
    if empty {
        builder.note(input, "empty: nothing to lint in it".into());
    }
    match outcome {
        ReadOutcome::Read(f) => builder.format(input, f.name()),
        ReadOutcome::SkippedToolsFile => builder.note(
            input,
            "skipped: a tools file found in a walked directory, not a trace".into(),
        ),
        ReadOutcome::SkippedCompanion(what) => {
            builder.note(input, format!("skipped: {what}"));
        }
        ReadOutcome::Failed => {}
    }
    if partial {
        builder.partial(input);
    }
}

/// The trace, unless it is the `agent_progress` mirror of a sub-agent linted from its own file
/// in this run (then a note says so).
fn unless_mirrored(
    builder: &mut ReportBuilder,
    input: usize,
    t: TraceLint,
    originals: &HashSet<String>,
) -> Option<TraceLint> {
    if t.mirror && originals.contains(&t.run_id) {
        builder.note(
            input,
            format!(
                "sub-agent `{}` is read from its own file, not from this file's `agent_progress` mirror",
                t.run_id
            ),
        );
        return None;
    }
    Some(t)
}

fn read_into(spec: &InputSpec, settings: &Settings, mut sink: Sink<'_, '_>) -> InputResult {
    let opts = ReadOptions {
        format: settings.input_format,
        limits: settings.limits,
        skip_tools_files: spec.walked,
    };
    let outcome = super::read_spec(spec, &opts, &mut sink);
    sink.result.outcome = outcome;
    // The run's last trace: only the report and the exit follow (see `Sink::retire`).
    std::mem::forget(sink.last.take());
    sink.result
}

/// The OTel traces held back from every input, grouped by trace id and merged; each comes with
/// the input it is reported under (the first one its run appeared in), in order of first
/// appearance.
fn merge_split_runs(results: &mut [InputResult]) -> Vec<(usize, Trace)> {
    // trace id → (order of first appearance, input of first appearance, parts in input order)
    let mut groups: BTreeMap<String, (usize, usize, Vec<Trace>)> = BTreeMap::new();
    let mut seen = 0;
    for (input, result) in results.iter_mut().enumerate() {
        for trace in result.deferred.drain(..) {
            let id = trace
                .attribute(otel::TRACE_ID)
                .unwrap_or_default()
                .to_owned();
            let group = groups.entry(id).or_insert_with(|| {
                seen += 1;
                (seen, input, Vec::new())
            });
            group.2.push(trace);
        }
    }
    let mut merged: Vec<(usize, usize, Trace)> = groups
        .into_values()
        .filter_map(|(first, input, parts)| Some((first, input, otel::merge(parts)?)))
        .collect();
    merged.sort_by_key(|(first, _, _)| *first);
    merged.into_iter().map(|(_, input, t)| (input, t)).collect()
}

/// `tracelint check`. Meant to be followed by the process's exit: the last trace it lints is
/// not freed (`Sink::retire`).
#[allow(clippy::print_stderr)]
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    let settings = resolve(args)?;
    let mut linter = linter(&settings, !settings.text.quiet)?;
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
    let (specs, expand_issues) = inputs::expand(&settings.inputs);
    let outputs: Vec<(&str, &Path)> = [
        ("--json", &args.files.json),
        ("--sarif", &args.files.sarif),
        ("--html", &args.files.html),
        ("--text", &args.text),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
    .collect();
    if let Some((flag, out, input)) = inputs::output_over_input(&outputs, &specs) {
        bail!(
            "`{flag} {}` would overwrite the input `{input}`: write the report somewhere else",
            out.display()
        );
    }
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
        args,
        settings: &settings,
        linter: &linter,
        pool: &pool,
        specs: &specs,
        defer_otel,
        cwd: &cwd,
        full,
        cap,
    };
    let exit = run.stream(expand_issues, baseline);
    unused_expectations(&linter);
    exit
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
/// the linter for the run.
#[allow(clippy::print_stderr)]
pub fn linter(settings: &Settings, notes: bool) -> anyhow::Result<Linter> {
    for n in &settings.notices {
        eprintln!("{n}");
    }
    let mut source_notes = Vec::new();
    let (given, follow_builtin) = registry(settings, &mut source_notes)?;
    if notes {
        for n in &source_notes {
            eprintln!("note: {n}");
        }
    }
    let mut linter = Linter::new(given, settings.selection, {
        let expectations = expectations(settings)?;
        let n = expectations.as_ref().map_or(0, |e| e.expectations.len());
        RuleSettings {
            closed_toolset: settings.closed_toolset,
            expectations,
            expectations_used: std::sync::Arc::new(
                (0..n)
                    .map(|_| std::sync::atomic::AtomicBool::new(false))
                    .collect(),
            ),
        }
    });
    linter.follow = follow_builtin;
    Ok(linter)
}

/// The expectations E1 checks: the config's `[[expect]]` tables, then each `--expect FILE`;
/// `None` when there are none. A malformed file is an error (exit 3) at its line.
fn expectations(
    settings: &Settings,
) -> anyhow::Result<Option<std::sync::Arc<crate::expect::ExpectFile>>> {
    let mut all = settings.config.expect.clone();
    for path in &settings.expect {
        let file = crate::expect::ExpectFile::from_path(path)?;
        match &mut all {
            Some(a) => a.extend(file),
            None => all = Some(file),
        }
    }
    Ok(all.map(std::sync::Arc::new))
}

/// Read and lint every input into `builder`, keeping every finding (the whole-report path;
/// `doctor` uses it too): inputs in parallel, OTel runs split across inputs merged, sub-agent
/// mirrors dropped where the sub-agent has its own file.
pub fn lint_all(
    settings: &Settings,
    linter: &Linter,
    pool: &rayon::ThreadPool,
    specs: &[InputSpec],
    expand_issues: Vec<InputIssue>,
    parse_only: bool,
    builder: &mut ReportBuilder,
) {
    let defer_otel = OtelHold {
        several: specs.len() > 1,
        shared: None,
    };
    let mut results: Vec<InputResult> = pool.install(|| {
        specs
            .par_iter()
            .enumerate()
            .map(|(i, spec)| {
                let last = i + 1 == specs.len();
                read_input(spec, settings, linter, parse_only, defer_otel, None, last)
            })
            .collect()
    });
    let merged = merge_split_runs(&mut results);
    let merged_lints: Vec<(usize, TraceLint)> = pool.install(|| {
        merged
            .par_iter()
            .map(|(input, trace)| (*input, lint_one(linter, parse_only, trace)))
            .collect()
    });
    // A sub-agent linted from its own file is not linted again from the `agent_progress`
    // mirror lines of its main session file.
    let originals: std::collections::HashSet<String> = results
        .iter()
        .flat_map(|r| &r.traces)
        .filter(|t| !t.mirror)
        .map(|t| t.run_id.clone())
        .collect();
    for issue in expand_issues {
        builder.issue(issue);
    }
    for (spec, result) in specs.iter().zip(results) {
        let input = builder.input(&spec.display);
        let partial = result.issues.iter().any(|i| i.line > 0);
        record_outcome(builder, input, (result.outcome, result.empty), partial);
        for issue in result.issues {
            builder.issue(issue);
        }
        for note in result.notes {
            builder.note(input, note);
        }
        for t in result.traces {
            if let Some(t) = unless_mirrored(builder, input, t, &originals) {
                builder.trace(input, t);
            }
        }
    }
    for (input, lint) in merged_lints {
        builder.trace(input, lint);
    }
    for issue in nothing_linted(builder) {
        builder.issue(issue);
    }
}

/// When every input was empty, each is an input error after all: never a silent pass.
fn nothing_linted(builder: &ReportBuilder) -> Vec<InputIssue> {
    let r = builder.report();
    let empty =
        |i: &crate::reporters::InputSummary| i.notes.iter().any(|n| n.starts_with("empty:"));
    if r.inputs.iter().any(|i| i.traces > 0) || !r.inputs.iter().any(empty) {
        return Vec::new();
    }
    r.inputs
        .iter()
        .filter(|i| empty(i))
        .map(|i| InputIssue::file(&i.path, adapters::EMPTY_FILE))
        .collect()
}

/// Side outputs, the step summary and stdout, for a finished report.
fn render_all(
    args: &CheckArgs,
    settings: &Settings,
    report: &reporters::Report,
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
    let side = Side {
        json: args.files.json.as_deref(),
        sarif: args.files.sarif.as_deref(),
        html: args.files.html.as_deref(),
        text: args.text.as_deref(),
    };
    write_reports(report, &opts, settings.output, &side)
}

/// The side outputs asked for (`--json`, `--sarif`, `--html`, `--text`).
pub(crate) struct Side<'a> {
    pub(crate) json: Option<&'a Path>,
    pub(crate) sarif: Option<&'a Path>,
    pub(crate) html: Option<&'a Path>,
    pub(crate) text: Option<&'a Path>,
}

/// Warn about what the SARIF log or annotations leave out, write the side outputs (first, so a
/// CI upload step finds them whatever the exit code), the job summary for GitHub output, then
/// `output` to stdout.
#[allow(clippy::print_stderr)]
pub(crate) fn write_reports(
    report: &reporters::Report,
    opts: &RenderOptions,
    output: OutputFormat,
    side: &Side<'_>,
) -> anyhow::Result<()> {
    let mut formats = vec![output];
    if side.sarif.is_some() {
        formats.push(OutputFormat::Sarif);
    }
    for n in opts.notices(report, &formats) {
        eprintln!("warning: {n}");
    }
    let files = [
        (side.json, OutputFormat::Json),
        (side.sarif, OutputFormat::Sarif),
        (side.html, OutputFormat::Html),
    ];
    for (path, format) in files {
        if let Some(path) = path {
            write_file(path, |out| reporters::render(format, report, opts, out))?;
        }
    }
    if let Some(path) = side.text {
        let plain = RenderOptions {
            text: TextOptions {
                color: false,
                ..opts.text
            },
            base: opts.base.clone(),
            sarif_max_results: opts.sarif_max_results,
        };
        write_file(path, |out| {
            reporters::render(OutputFormat::Text, report, &plain, out)
        })?;
    }
    if output == OutputFormat::Github {
        append_step_summary(report, opts)?;
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(super::PipeSafe::new(stdout.lock()));
    reporters::render(output, report, opts, &mut out)?;
    out.flush()?;
    Ok(())
}

/// `--color`: whether stdout gets ANSI colours.
pub(crate) fn color_on(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// The SARIF cap from `--sarif-max-results` (0: none; default: what code scanning keeps).
pub(crate) fn sarif_cap(flag: Option<usize>) -> Option<usize> {
    match flag {
        None => Some(reporters::sarif::GITHUB_RESULTS_KEPT),
        Some(0) => None,
        Some(n) => Some(n),
    }
}

/// Append the job summary to `$GITHUB_STEP_SUMMARY`, when it is set.
pub(crate) fn append_step_summary(
    report: &reporters::Report,
    opts: &RenderOptions,
) -> anyhow::Result<()> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = Path::new(&path);
    let context = || {
        format!(
            "cannot append to `{}` (GITHUB_STEP_SUMMARY)",
            path.display()
        )
    };
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(context)?;
    let mut out = std::io::BufWriter::new(file);
    reporters::github::step_summary(report, &opts.base, &mut out)
        .and_then(|()| out.flush())
        .with_context(context)
}

/// Finish the baseline (stale entries, lost coverage; `--update-baseline` writes the file) and
/// put what it did in the report. Lost coverage fails the run (exit 1) unless report-only.
fn settle_baseline(
    report: &mut reporters::Report,
    baseline: Option<BaselineRun>,
    report_only: bool,
) -> anyhow::Result<()> {
    let Some(b) = baseline else { return Ok(()) };
    let outcome = b.finish(report)?;
    if !outcome.lost.is_empty() && !report_only {
        report.exit = report.exit.max(ExitStatus::GateTripped);
    }
    report.baseline = Some(outcome);
    Ok(())
}

/// Write one side output, whole, to `path`.
pub(crate) fn write_file(
    path: &Path,
    render: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let file = std::fs::File::create(path)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    render(&mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("cannot write `{}`", path.display()))
}

/// A streaming `check` (text output, no side reports): traces are linted as they are read and
/// freed at once, and their findings settled input by input as inputs finish — trace by trace
/// for inputs whose traces follow one another (native) — so memory follows the largest input,
/// not the corpus. Only the findings the text shows are kept (hidden candidates are counted and
/// dropped), since the text lists them in reading order (hard defects first) once all are in.
/// The output is the same as the whole-report path's.
struct Run<'a> {
    args: &'a CheckArgs,
    settings: &'a Settings,
    linter: &'a Linter,
    pool: &'a rayon::ThreadPool,
    specs: &'a [InputSpec],
    defer_otel: OtelHold<'a>,
    cwd: &'a Path,
    /// Whole reports (JSON, SARIF, HTML, GitHub, side outputs) rather than text on stdout alone.
    full: bool,
    /// `--max-findings`.
    cap: Option<usize>,
}

/// What arrived for one input and is not written yet.
#[derive(Default)]
struct Pending {
    /// Linted traces in the order the input holds them, not written yet.
    traces: Vec<TraceLint>,
    /// Traces linted ahead of an earlier one (by their place), waiting for it.
    early: BTreeMap<usize, TraceLint>,
    /// The place of the next trace `traces` takes.
    next_seq: usize,
    /// Some issue points into the input (it was read in part).
    partial: bool,
    done: Option<InputResult>,
}

/// The settling side of a streaming run.
struct Writer<'w> {
    builder: ReportBuilder,
    settle: Settle<'w>,
    /// Settled findings the report lists (at most `--max-findings`).
    listing: Listing,
    /// Keep candidates (text output hides them unless asked).
    include_candidates: bool,
    /// Run ids of traces that are not `agent_progress` mirrors, over every input so far.
    originals: HashSet<String>,
}

impl Writer<'_> {
    /// Settle one batch of an input's findings (any order) in report order and keep those the
    /// text shows.
    fn write(&mut self, input: usize, mut findings: Vec<crate::finding::Finding>) {
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let path = self.builder.path_of(input).to_owned();
        self.settle.batch(&mut findings, &path);
        for f in findings {
            if self.include_candidates || f.tier != Tier::Candidate {
                self.listing.offer(f);
            }
        }
        // Outlines of traces whose findings all went past the cap are dropped now and then, so
        // they stay bounded by the cap too.
        if let Some(cap) = self.listing.cap()
            && self.listing.omitted() > 0
            && self.builder.report().outlines.len() > 2 * cap + 1024
        {
            self.drop_unlisted_outlines();
        }
    }

    fn drop_unlisted_outlines(&mut self) {
        let kept = self.listing.kept_runs();
        self.builder
            .retain_outlines(|o| kept.contains(&(o.input, o.run_id.as_str())));
    }

    /// Everything left of a finished input: its outcome, its unwritten traces (plus `merged`
    /// OTel runs reported under it) and input errors.
    fn finish_input(
        &mut self,
        input: usize,
        outcome: (ReadOutcome, bool),
        mut pending: Pending,
        merged: Vec<TraceLint>,
    ) {
        record_outcome(&mut self.builder, input, outcome, pending.partial);
        let mut findings = Vec::new();
        for t in pending.traces.drain(..) {
            if let Some(t) = unless_mirrored(&mut self.builder, input, t, &self.originals) {
                findings.extend(self.builder.trace_streamed(input, t));
            }
        }
        for t in merged {
            findings.extend(self.builder.trace_streamed(input, t));
        }
        self.write(input, findings);
    }
}

impl Run<'_> {
    fn stream(
        self,
        expand_issues: Vec<InputIssue>,
        mut baseline: Option<BaselineRun>,
    ) -> anyhow::Result<ExitStatus> {
        let mut builder = ReportBuilder::new();
        if !self.full && !self.settings.text.show_suppressions {
            builder.count_suppressions_only();
        }
        // A baseline matches counts over a whole input: its findings are settled in one batch.
        let per_trace = baseline.is_none();
        if baseline.is_some() {
            builder.keep_details();
        }
        let settle = Settle::new(
            &self.settings.config.ignores,
            self.settings.fail_on,
            builder.excerpt_budget(),
        )
        .report_only(self.settings.report_only)
        .with_baseline(baseline.as_mut());
        let mut w = Writer {
            builder,
            settle,
            listing: Listing::new(self.cap),
            include_candidates: self.full || self.settings.text.include_candidates,
            originals: HashSet::new(),
        };
        for issue in expand_issues {
            w.builder.issue(issue);
        }
        for spec in self.specs {
            w.builder.input(&spec.display);
        }
        let mut pending: Vec<Pending> = self.specs.iter().map(|_| Pending::default()).collect();
        let mut next = 0;
        let mut holding = false;
        let (tx, rx) = std::sync::mpsc::channel::<Event>();
        // The readers run in the pool; this thread writes (no extra thread, so no extra
        // allocator arena either: the hostile suite holds the whole process to 512 MiB).
        // Each worker takes the next input in order, so inputs finish roughly in the order they
        // are written: little waits in the writer, and the writer never trails the workers.
        let taken = std::sync::atomic::AtomicUsize::new(0);
        self.pool.in_place_scope(|scope| -> anyhow::Result<()> {
            for _ in 0..self.pool.current_num_threads() {
                let tx = tx.clone();
                let taken = &taken;
                scope.spawn(move |_| {
                    loop {
                        let i = taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(spec) = self.specs.get(i) else { break };
                        let result = read_input(
                            spec,
                            self.settings,
                            self.linter,
                            self.args.parse_only,
                            self.defer_otel,
                            Some((i, &tx)),
                            i + 1 == self.specs.len(),
                        );
                        drop(tx.send(Event::Done(i, result)));
                    }
                });
            }
            drop(tx);
            for event in rx {
                match event {
                    Event::Trace(i, seq, t) => {
                        if !t.mirror {
                            w.originals.insert(t.run_id.clone());
                        }
                        let p = &mut pending[i];
                        p.early.insert(seq, t);
                        while let Some(t) = p.early.remove(&p.next_seq) {
                            p.traces.push(t);
                            p.next_seq += 1;
                        }
                    }
                    Event::Issue(i, issue) => {
                        pending[i].partial |= issue.line > 0;
                        w.builder.issue(issue);
                    }
                    Event::Note(i, note) => w.builder.note(i, note),
                    Event::Done(i, result) => pending[i].done = Some(result),
                }
                while !holding && next < pending.len() {
                    let p = &mut pending[next];
                    if per_trace && p.traces.iter().all(|t| t.ordered && !t.mirror) {
                        for t in std::mem::take(&mut p.traces) {
                            let findings = w.builder.trace_streamed(next, t);
                            w.write(next, findings);
                        }
                    }
                    let Some(done) = &p.done else { break };
                    // Held back: OTel runs that may continue in a later input, and sub-agent
                    // mirrors whose own file may come later. This input and every later one
                    // are written once all are read.
                    if !done.deferred.is_empty() || p.traces.iter().any(|t| t.mirror) {
                        holding = true;
                        break;
                    }
                    let outcome = (done.outcome, done.empty);
                    w.finish_input(next, outcome, std::mem::take(p), Vec::new());
                    next += 1;
                }
            }
            Ok(())
        })?;
        // The held inputs: merge OTel runs split across them, then write them in order.
        let mut held: Vec<InputResult> = pending[next..]
            .iter_mut()
            .map(|p| p.done.take().unwrap_or_else(InputResult::empty))
            .collect();
        let merged = merge_split_runs(&mut held);
        let mut merged_lints: Vec<Vec<TraceLint>> = held.iter().map(|_| Vec::new()).collect();
        let linted: Vec<(usize, TraceLint)> = self.pool.install(|| {
            merged
                .par_iter()
                .map(|(input, trace)| (*input, lint_one(self.linter, self.args.parse_only, trace)))
                .collect()
        });
        for (input, lint) in linted {
            merged_lints[input].push(lint);
        }
        for (offset, lints) in merged_lints.into_iter().enumerate() {
            let input = next + offset;
            let p = std::mem::take(&mut pending[input]);
            let outcome = (held[offset].outcome, held[offset].empty);
            w.finish_input(input, outcome, p, lints);
        }
        for issue in nothing_linted(&w.builder) {
            w.builder.issue(issue);
        }
        if w.listing.omitted() > 0 {
            w.drop_unlisted_outlines();
        }
        let Writer {
            mut builder,
            settle,
            listing,
            ..
        } = w;
        let cap = listing.cap().unwrap_or(usize::MAX);
        let (listed, cut) = listing.finish();
        for (input, offered, out) in cut {
            builder.note(input, crate::lint::listing::note(cap, offered, out));
        }
        let mut report = builder.finish_settled(settle);
        settle_baseline(&mut report, baseline, self.settings.report_only)?;
        report.findings = listed;
        if self.full {
            render_all(self.args, self.settings, &report, self.cwd)?;
        } else {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(super::PipeSafe::new(stdout.lock()));
            reporters::text::render(&report, self.settings.text, &mut out)?;
            out.flush()?;
        }
        Ok(report.exit)
    }
}
