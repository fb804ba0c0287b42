//! [`Linter`] and its [`LinterBuilder`]: what the binary's `check` does, as a library. One
//! cohesive thing over 400 lines: the builder's options and the linter they make, each method
//! short and documented with the flag it matches.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::Error;
use super::phoenix::{PhoenixOptions, PhoenixRun};
use crate::adapters::{self, InputFormat, Limits, ReadOptions};
use crate::config::{self, Config};
use crate::finding::{Finding, RuleId, Tier};
use crate::lint::{ReportBuilder, Settle};
use crate::model::{ToolRegistry, Trace};
use crate::pipeline::{BaselineSettings, OtelHold, Run, Settings};
use crate::reporters::{OutputFormat, Report, TextOptions};
use crate::rules::Selection;
use crate::sources::{LoadOptions, SourceSpec};

/// Where a builder's configuration comes from.
#[derive(Debug, Clone, Default)]
enum ConfigFrom {
    #[default]
    None,
    File(PathBuf),
    Text(String),
}

/// Sets up a [`Linter`]: tools sources, rules, the failing tier, a configuration, threads.
///
/// Every setting is optional; what a builder is not told comes from its configuration (when
/// given one), then from the same defaults `tracelint check` has. Settings given here win over
/// the configuration's, as flags do on the command line.
///
/// ```
/// use tracelint::{Linter, RuleId, Tier};
///
/// let linter = Linter::builder()
///     .tools("fixtures/quickstart/tools.json")
///     .select([RuleId::R1, RuleId::R6])
///     .fail_on(Tier::HardEvent)
///     .jobs(1)
///     .build()
///     .unwrap();
/// let report = linter.lint_paths(["fixtures/quickstart/transcript.json"], |_| {}).unwrap();
/// assert!(report.findings().iter().all(|f| matches!(f.rule(), RuleId::R1 | RuleId::R6)));
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct LinterBuilder {
    tools: Vec<String>,
    registry: Option<ToolRegistry>,
    select: Vec<RuleId>,
    ignore: Vec<RuleId>,
    fail_on: Option<Tier>,
    report_only: bool,
    closed_toolset: Option<bool>,
    config: ConfigFrom,
    jobs: Option<usize>,
    input_format: Option<InputFormat>,
    max_findings: Option<usize>,
    expect: Vec<PathBuf>,
    max_record: Option<usize>,
    baseline: Option<PathBuf>,
}

impl LinterBuilder {
    /// Add a tools source, as `--tools` takes it: a tools file (any shape: MCP `tools/list`,
    /// OpenAI or Anthropic tool arrays, a native `tools` map), `mcp-stdio:COMMAND`,
    /// `mcp-http:URL` or `builtin:AGENT`. Several sources merge. Without one, each trace is
    /// checked against the tools it declares itself.
    pub fn tools(mut self, source: impl Into<String>) -> Self {
        self.tools.push(source.into());
        self
    }

    /// Use a registry already loaded (with [`ToolRegistry::from_file`]) instead of loading
    /// tools sources.
    pub fn registry(mut self, registry: ToolRegistry) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Run only these rules (`--select`). Called with nothing, every rule runs.
    pub fn select(mut self, rules: impl IntoIterator<Item = RuleId>) -> Self {
        self.select.extend(rules);
        self
    }

    /// Leave these rules out (`--ignore`).
    pub fn ignore(mut self, rules: impl IntoIterator<Item = RuleId>) -> Self {
        self.ignore.extend(rules);
        self
    }

    /// The lowest tier that fails a run (`--fail-on`): [`Tier::HardDefect`] by default.
    pub fn fail_on(mut self, tier: Tier) -> Self {
        self.fail_on = Some(tier);
        self
    }

    /// Report only (`--exit-zero`): findings never raise the report's exit status; input
    /// errors still do.
    pub fn report_only(mut self, yes: bool) -> Self {
        self.report_only = yes;
        self
    }

    /// A call to a tool no source declares is a hard defect (R7, `--closed-toolset`).
    pub fn closed_toolset(mut self, yes: bool) -> Self {
        self.closed_toolset = Some(yes);
        self
    }

    /// Read the configuration from a `tracelint.toml` file (`--config`). Its tools sources may
    /// start processes and open URLs: give only a file you trust.
    pub fn config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config = ConfigFrom::File(path.into());
        self
    }

    /// Read the configuration from TOML text, as a `tracelint.toml` holds it. Relative paths in
    /// it resolve against the working directory.
    pub fn config_str(mut self, toml: impl Into<String>) -> Self {
        self.config = ConfigFrom::Text(toml.into());
        self
    }

    /// Threads that read and lint inputs (`--jobs`); by default one per core.
    pub fn jobs(mut self, n: usize) -> Self {
        self.jobs = Some(n);
        self
    }

    /// Read every input as this format instead of detecting it from content.
    pub fn input_format(mut self, format: InputFormat) -> Self {
        self.input_format = Some(format);
        self
    }

    /// List at most this many findings in a report from [`Linter::lint_paths`]; by default
    /// every finding is listed. Counts and the exit status always cover every finding, and the
    /// report says what it left out.
    pub fn max_findings(mut self, n: usize) -> Self {
        self.max_findings = Some(n);
        self
    }

    /// Check the expectations in this file (rule E1), as `--expect` does.
    pub fn expect(mut self, path: impl Into<PathBuf>) -> Self {
        self.expect.push(path.into());
        self
    }

    /// Match findings against this baseline file (`--baseline`): findings it records are
    /// listed as baselined and do not fail the run; entries no finding matched are stale, and
    /// coverage lost against it fails the run (the ratchet), as `tracelint check` does. Used by
    /// [`Linter::lint_paths`], which reads the file on each call; the file is never written.
    pub fn baseline(mut self, path: impl Into<PathBuf>) -> Self {
        self.baseline = Some(path.into());
        self
    }

    /// The largest record (one JSON line, or a whole JSON document) read, in bytes
    /// (`--max-record-size`).
    pub fn max_record_size(mut self, bytes: usize) -> Self {
        self.max_record = Some(bytes);
        self
    }

    /// Load the configuration and the tools sources and compile every schema.
    ///
    /// # Errors
    /// A configuration, tools source or expectations file that cannot be read or is
    /// malformed; a tool-definition rule (`T…`) given to [`select`](Self::select) or
    /// [`ignore`](Self::ignore).
    pub fn build(self) -> Result<Linter, Error> {
        let config = match &self.config {
            ConfigFrom::None => Config::default(),
            ConfigFrom::File(path) => config::load(path)?,
            ConfigFrom::Text(text) => config::parse(text, Path::new("tracelint.toml"))?,
        };
        if let Some(t) = self
            .select
            .iter()
            .chain(&self.ignore)
            .find(|r| r.is_tool_rule())
        {
            return Err(Error::Rules(format!(
                "{t} is a tool-definition rule, not a trace rule: it checks tool schemas, not what an agent did"
            )));
        }
        let trace_rules = |ids: &[RuleId]| -> Vec<RuleId> {
            ids.iter().copied().filter(|r| !r.is_tool_rule()).collect()
        };
        let select = if self.select.is_empty() {
            trace_rules(&config.select)
        } else {
            self.select.clone()
        };
        let ignore = if self.ignore.is_empty() {
            trace_rules(&config.ignore_rules)
        } else {
            self.ignore.clone()
        };
        let fail_on = self.fail_on.or(config.fail_on).unwrap_or(Tier::HardDefect);
        let tools = if self.tools.is_empty() {
            &config.tools
        } else {
            &self.tools
        };
        let baseline = self
            .baseline
            .clone()
            .or_else(|| config.baseline.clone())
            .map(|path| BaselineSettings {
                path,
                update: false,
                ratchet: config.ratchet.unwrap_or(true),
            });
        let settings = Settings {
            inputs: Vec::new(),
            tools: if self.registry.is_some() {
                Vec::new()
            } else {
                tools.iter().map(|s| SourceSpec::parse(s)).collect()
            },
            input_format: self.input_format.or(config.input_format),
            output: OutputFormat::Json,
            selection: Selection::new(&select, &ignore),
            fail_on,
            text: TextOptions::default(),
            closed_toolset: self
                .closed_toolset
                .unwrap_or(config.closed_toolset.unwrap_or(false)),
            jobs: self.jobs,
            limits: Limits {
                max_record: self.max_record.unwrap_or(Limits::default().max_record),
            },
            report_only: self.report_only || (self.fail_on.is_none() && config.fail_never),
            config,
            notices: Vec::new(),
            mcp: LoadOptions::default(),
            baseline,
            expect: self.expect.clone(),
            walk: crate::inputs::Walk::default(),
        };
        let (mut inner, notes) =
            crate::pipeline::linter(&settings, self.registry).map_err(Error::from_setup)?;
        inner.outlines = true;
        // The ratchet compares coverage per file, rule and tool.
        inner.run.tool_coverage = settings.baseline.is_some();
        Ok(Linter {
            settings,
            inner,
            notes,
            max_findings: self.max_findings,
        })
    }
}

/// Lints traces: one in memory, bytes or a reader in any supported format, or whole paths
/// (files, directories, globs) streamed trace by trace.
///
/// A linter is built once (it compiles every tool schema) and used for any number of inputs;
/// it is `Send + Sync`, so threads may share one.
///
/// ```
/// use tracelint::{InputFormat, Linter};
///
/// let linter = Linter::builder().build().unwrap();
/// // OTLP spans held in memory (here read from a file, but any bytes do).
/// let spans = std::fs::read("fixtures/otel/two-traces.otlp.json").unwrap();
/// let report = linter.lint_bytes(&spans, "spans.json", Some(InputFormat::Otel));
/// assert_eq!(report.summary().traces, 2);
/// ```
#[derive(Debug)]
pub struct Linter {
    pub(super) settings: Settings,
    inner: crate::lint::Linter,
    notes: Vec<String>,
    max_findings: Option<usize>,
}

/// One trace [`Linter::lint_paths`] finished: which input it came from, its run id, and its
/// findings (settled: ignored ones are marked, see [`Finding::is_ignored`]).
///
/// ```
/// let linter = tracelint::Linter::builder().build()?;
/// let mut seen = Vec::new();
/// linter.lint_paths(["fixtures/otel/two-traces.otlp.json"], |t| {
///     seen.push((t.path.to_owned(), t.run_id.to_owned(), t.findings.len()));
/// })?;
/// assert_eq!(seen.len(), 2);
/// assert!(seen.iter().all(|(path, _, _)| path.ends_with("two-traces.otlp.json")));
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct TraceResult<'a> {
    /// The input it was read from, as given (or as found walking a directory).
    pub path: &'a str,
    /// The trace's run id (a session id, an OTel trace id, …).
    pub run_id: &'a str,
    /// Its findings, in reading order.
    pub findings: &'a [Finding],
}

impl Linter {
    /// Read the spans of a running Arize Phoenix server's project through its REST API (paged,
    /// bounded), lint them as OpenTelemetry traces, and, when asked, write each finding back
    /// as an annotation on the span of the step it cites: what `tracelint check
    /// phoenix:http://HOST:PORT/projects/NAME` does. `source` is written as for the command
    /// (`phoenix:http://HOST:PORT` reads the `default` project). An API key is read from
    /// `PHOENIX_API_KEY`, as Phoenix's own clients do.
    ///
    /// ```no_run
    /// use tracelint::{Linter, PhoenixOptions};
    ///
    /// let linter = Linter::builder().tools("tools.json").build()?;
    /// let run = linter.lint_phoenix(
    ///     "phoenix:http://127.0.0.1:6006/projects/support-agent",
    ///     &PhoenixOptions::new().since("24h").write_back(true),
    /// )?;
    /// println!("{} findings", run.report.findings().len());
    /// if let Some(w) = run.written {
    ///     println!("{} annotations on {} spans", w.annotations, w.spans);
    /// }
    /// # Ok::<(), tracelint::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Phoenix`] when the source is not a Phoenix address, the window is malformed,
    /// or the server cannot be read or written to; [`Error::Run`] as for
    /// [`lint_paths`](Self::lint_paths).
    pub fn lint_phoenix(
        &self,
        source: &str,
        options: &PhoenixOptions,
    ) -> Result<PhoenixRun, Error> {
        let source = if crate::phoenix::Target::is_phoenix(source) {
            source.to_owned()
        } else {
            format!("{}{source}", crate::phoenix::PREFIX)
        };
        let read = self.read_phoenix(&source, options)?;
        let report = self.run_specs(vec![read.spec()], Vec::new(), |_| {})?;
        let written = if options.write_back {
            Some(super::phoenix::write_back(
                &read,
                &report,
                options.include_candidates,
            )?)
        } else {
            None
        };
        Ok(PhoenixRun { report, written })
    }

    /// Check the options and download the spans `source` names (before anything is linted).
    fn read_phoenix(
        &self,
        source: &str,
        options: &PhoenixOptions,
    ) -> Result<super::phoenix::Read, Error> {
        super::phoenix::read(
            self.settings.input_format,
            self.settings.limits.max_record,
            source,
            options,
        )
    }

    /// A builder with every default: no tools sources, every rule, failing on hard defects.
    pub fn builder() -> LinterBuilder {
        LinterBuilder::default()
    }

    /// What loading the tools sources had to say (a server that listed no tools, a built-in
    /// toolset matched by version, …), for the caller to show or drop.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Lint one trace.
    pub fn lint_trace(&self, trace: &Trace) -> Report {
        let mut builder = ReportBuilder::new();
        let input = builder.input(&trace.source.path);
        builder.format(input, &trace.source.format);
        builder.trace(input, self.inner.lint(trace));
        builder.finish_with(self.settle())
    }

    /// Lint everything in `bytes`, read as `format` (`None`: detected from content, never from
    /// `name`). `name` is the path reports give for it. Problems in the bytes are input issues
    /// in the report (its exit status is then [`ExitStatus::InputError`](crate::ExitStatus)),
    /// and every trace that could be read is linted.
    pub fn lint_bytes(&self, bytes: &[u8], name: &str, format: Option<InputFormat>) -> Report {
        let format = format.or(self.settings.input_format);
        let mut parsed = adapters::Parsed::default();
        let opts = ReadOptions {
            format,
            limits: self.settings.limits,
            skip_tools_files: false,
        };
        let outcome = adapters::parse_reader(bytes, name, &opts, &mut parsed);
        let mut builder = ReportBuilder::new();
        let input = builder.input(name);
        if let adapters::ReadOutcome::Read(f) = outcome {
            builder.format(input, f.name());
        }
        if parsed.omitted_issues > 0 || parsed.issues.iter().any(|i| i.line > 0) {
            builder.partial(input);
        }
        for issue in parsed.issues {
            builder.issue(issue);
        }
        builder.issues_omitted(name, parsed.omitted_issues);
        for note in parsed.notes {
            builder.note(input, note);
        }
        for trace in &parsed.traces {
            builder.trace(input, self.inner.lint(trace));
        }
        builder.finish_with(self.settle())
    }

    /// Lint everything `reader` holds, as [`lint_bytes`](Self::lint_bytes) does; at most the
    /// largest record size is read.
    ///
    /// # Errors
    /// [`Error::Io`] when the reader fails.
    pub fn lint_reader(
        &self,
        reader: impl Read,
        name: &str,
        format: Option<InputFormat>,
    ) -> Result<Report, Error> {
        let mut bytes = Vec::new();
        reader
            .take(self.settings.limits.max_record as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| Error::Io {
                path: name.to_owned(),
                source,
            })?;
        Ok(self.lint_bytes(&bytes, name, format))
    }

    /// Lint files, directories (walked for `.json`, `.jsonl`, `.ndjson`, `.eval` and `.traj`
    /// files) and globs, as `tracelint check` does: inputs are read in parallel and each trace
    /// is linted as soon as it is read, so memory follows the largest trace, not the corpus.
    /// A `phoenix:http://HOST:PORT[/projects/NAME]` input reads a running Arize Phoenix
    /// server's spans, every one (for a time window or a write-back, see
    /// [`lint_phoenix`](Self::lint_phoenix)).
    ///
    /// `on_trace` is told each trace's findings as soon as they are settled, in a deterministic
    /// order: inputs in the order given (a directory's files sorted), traces in reading order.
    /// The report it returns holds every finding (or `max_findings` of them) and every input
    /// issue: a path that does not exist, a file that holds no trace, a malformed line.
    ///
    /// # Errors
    /// [`Error::Run`] when the worker threads cannot start; [`Error::Phoenix`] when a
    /// `phoenix:` input cannot be read (before anything is linted).
    pub fn lint_paths<P: AsRef<str>>(
        &self,
        paths: impl IntoIterator<Item = P>,
        on_trace: impl FnMut(TraceResult<'_>),
    ) -> Result<Report, Error> {
        let given: Vec<String> = paths.into_iter().map(|p| p.as_ref().to_owned()).collect();
        let (phoenix, plain): (Vec<String>, Vec<String>) = given
            .into_iter()
            .partition(|p| crate::phoenix::Target::is_phoenix(p));
        let (mut specs, expand_issues) = if plain.is_empty() && !phoenix.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            crate::inputs::expand(&plain)
        };
        // Each project read once; the downloads live until the run is over.
        let mut read: Vec<super::phoenix::Read> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for source in &phoenix {
            if let Ok(t) = crate::phoenix::Target::parse(source)
                && !seen.insert((t.base, t.project))
            {
                continue;
            }
            read.push(self.read_phoenix(source, &PhoenixOptions::new())?);
        }
        specs.extend(read.iter().map(super::phoenix::Read::spec));
        self.run_specs(specs, expand_issues, on_trace)
    }

    /// Lint these inputs as one run.
    pub(super) fn run_specs(
        &self,
        specs: Vec<crate::inputs::InputSpec>,
        expand_issues: Vec<crate::finding::InputIssue>,
        mut on_trace: impl FnMut(TraceResult<'_>),
    ) -> Result<Report, Error> {
        let (threads, _) = crate::cli::worker_threads(self.settings.jobs);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Run(format!("cannot start worker threads: {e}")))?;
        let baseline = match &self.settings.baseline {
            Some(b) => {
                let cwd = std::env::current_dir().map_err(|source| Error::Io {
                    path: ".".to_owned(),
                    source,
                })?;
                let options = crate::baseline::Options {
                    update: false,
                    ratchet: b.ratchet,
                    gate: self.settings.fail_on,
                    selection: self.settings.selection,
                };
                Some(
                    crate::baseline::BaselineRun::open(&b.path, &cwd, options)
                        .map_err(|e| Error::Run(e.to_string()))?,
                )
            }
            None => None,
        };
        let shared = crate::pipeline::shared_trace_ids(&specs, &self.settings, &pool);
        let mut tell = |path: &str, run_id: &str, findings: &[Finding]| {
            on_trace(TraceResult {
                path,
                run_id,
                findings,
            });
        };
        let run = Run {
            settings: &self.settings,
            linter: &self.inner,
            pool: &pool,
            specs: &specs,
            defer_otel: OtelHold {
                several: specs.len() > 1,
                shared: shared.as_ref(),
            },
            parse_only: false,
            full: true,
            cap: self.max_findings,
            details: false,
            on_trace: Some(&mut tell),
            spill_at: None,
        };
        run.stream(expand_issues, baseline)
            .map_err(Error::from_setup)
    }

    fn settle(&self) -> Settle<'_> {
        Settle::new(
            &self.settings.config.ignores,
            self.settings.fail_on,
            crate::lint::EXCERPT_BUDGET,
        )
        .report_only(self.settings.report_only)
    }
}

// A linter is shared across threads (the docs say so): checked at compile time.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Linter>();
    shared::<crate::Report>();
};
