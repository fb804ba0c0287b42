//! The `Report` every reporter renders, as data: its inputs, findings, suppressions and
//! coverage, the summary counts, the outline of each trace the HTML report draws, the baseline's
//! part, and the output formats with their options. Plain data; `mod.rs` holds the reading order
//! and the dispatch over formats.

use serde::Serialize;

use crate::exit::ExitStatus;
use crate::finding::{Coverage, Finding, InputIssue, RuleId, RuleMeta, Suppression, Tier};

use super::paths;
/// One input as the report shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InputSummary {
    /// Where the report's excerpt budget ran out in this input, if it did (its note is in
    /// `notes`): `report` needs it to re-apply the budget over the union of shards.
    #[serde(skip)]
    pub excerpts_cut: Option<ExcerptCut>,
    /// The path as given (or found).
    pub path: String,
    /// The format it was read as, when it could be read.
    pub format: Option<String>,
    /// Traces read from it.
    pub traces: usize,
    /// Tool calls in those traces.
    pub tool_calls: usize,
    /// True when part of it could not be read.
    pub partial: bool,
    /// Where the schemas in force came from (`tools.json`, `embedded in the trace`, …).
    pub schemas: Vec<String>,
    /// Notes about how it was read (e.g. which built-in schema version was used).
    pub notes: Vec<String>,
}

/// The first evidence excerpt of an input that the report's excerpt budget left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExcerptCut {
    /// The report's budget in bytes.
    pub budget: usize,
    /// The finding, counted among the input's findings in report order.
    pub finding: usize,
    /// Its evidence.
    pub evidence: usize,
}

impl ExcerptCut {
    /// The note an input whose excerpts were cut carries.
    pub fn note(budget: usize) -> String {
        format!("evidence excerpts past the report's limit of {budget} bytes are left out")
    }
}

/// The steps of one trace with findings, around the steps they cite: what the HTML report's step
/// timeline shows. Untrusted text (tool names, excerpts) is escaped by each reporter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    /// Index into the report's inputs.
    pub input: usize,
    /// The trace's run id.
    pub run_id: String,
    /// Steps in the whole trace.
    pub total: usize,
    /// The steps shown, in trace order (gaps between them are steps left out).
    pub steps: Vec<OutlineStep>,
}

/// One step of an outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineStep {
    /// Step index in the trace.
    pub index: usize,
    /// What the step is.
    pub kind: StepKind,
    /// The tool called or answering.
    pub tool: Option<String>,
    /// Line of the step in its input.
    pub line: u32,
    /// A short excerpt.
    pub text: String,
}

/// The kinds of step an outline tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// A tool call.
    Call,
    /// A result the input says succeeded.
    Ok,
    /// A result the input says failed.
    Error,
    /// A result whose status the input does not give.
    Result,
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A system message.
    System,
    /// A tool's free-text message.
    Tool,
}

impl StepKind {
    /// Every kind, with its name.
    pub const NAMES: &'static [(&'static str, StepKind)] = &[
        ("call", StepKind::Call),
        ("ok", StepKind::Ok),
        ("error", StepKind::Error),
        ("result", StepKind::Result),
        ("user", StepKind::User),
        ("assistant", StepKind::Assistant),
        ("system", StepKind::System),
        ("tool", StepKind::Tool),
    ];

    /// The name (`call`, `error`, …).
    pub fn as_str(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("call", |(n, _)| n)
    }

    /// Parse a name.
    pub fn parse(s: &str) -> Option<StepKind> {
        Self::NAMES.iter().find(|(n, _)| *n == s).map(|(_, k)| *k)
    }
}

/// Coverage of one rule over the whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RuleCoverage {
    /// The rule.
    pub rule: RuleId,
    /// What it counts.
    pub unit: &'static str,
    /// Decided / looked at.
    pub coverage: Coverage,
}

/// Counts for the footer and the JSON `summary`.
///
/// ```
/// let linter = tracelint::Linter::builder().tools("fixtures/quickstart/tools.json").build()?;
/// let report = linter.lint_paths(["fixtures/quickstart/"], |_| {})?;
/// let s = report.summary();
/// // The folder holds the trace and its tools file (skipped: not a trace).
/// assert_eq!((s.inputs, s.traces, s.hard_defect, s.input_errors), (2, 1, 2, 0));
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Inputs named.
    pub inputs: usize,
    /// Traces linted.
    pub traces: usize,
    /// Tool calls linted.
    pub tool_calls: usize,
    /// Active hard defects.
    pub hard_defect: usize,
    /// Active hard events.
    pub hard_event: usize,
    /// Active candidates.
    pub candidate: usize,
    /// Findings silenced by a reasoned `[[ignore]]`.
    pub ignored: usize,
    /// Findings accepted by the baseline (`--baseline`).
    #[serde(skip_serializing_if = "is_zero")]
    pub baselined: usize,
    /// Suppressions (rules that could not decide).
    pub suppressions: usize,
    /// Input errors.
    pub input_errors: usize,
    /// Tool definitions linted (`tools lint`; absent for trace runs).
    #[serde(skip_serializing_if = "is_zero")]
    pub tools: usize,
}

/// The finished result of a run, ready to render.
///
/// ```
/// let linter = tracelint::Linter::builder().tools("fixtures/quickstart/tools.json").build()?;
/// let report = linter.lint_paths(["fixtures/quickstart/transcript.json"], |_| {})?;
/// assert_eq!(report.summary().inputs, 1);
/// for f in report.findings() {
///     assert_eq!(report.path_of_finding(f), "fixtures/quickstart/transcript.json");
/// }
/// assert!(report.issues().is_empty());
/// assert_eq!(report.exit(), tracelint::ExitStatus::HardDefect);
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The inputs, in the order given.
    pub(crate) inputs: Vec<InputSummary>,
    /// All findings (active and ignored), sorted.
    pub(crate) findings: Vec<Finding>,
    /// Suppressions, sorted.
    pub(crate) suppressions: Vec<Suppression>,
    /// Input errors, sorted.
    pub(crate) issues: Vec<InputIssue>,
    /// Per-rule coverage over the run, in rule order.
    pub(crate) coverage: Vec<RuleCoverage>,
    /// Configured ignores that matched nothing (`rule` + description).
    pub(crate) unmatched_ignores: Vec<String>,
    /// Metadata of the rules that ran.
    pub(crate) rules: Vec<&'static RuleMeta>,
    /// Counts.
    pub(crate) summary: Summary,
    /// The exit status.
    pub(crate) exit: ExitStatus,
    /// The tier at which the run fails.
    pub(crate) fail_on: Option<Tier>,
    /// Outlines of the traces with findings (for the HTML timeline and JSON Lines), when the
    /// run asked for them.
    pub(crate) outlines: Vec<Outline>,
    /// Findings did not raise the exit status (`--exit-zero`, `--fail-on never`).
    pub(crate) report_only: bool,
    /// Per input (in `inputs` order): coverage by rule and tool, record quality. Empty unless
    /// the run asked for it (a baseline, `doctor`).
    pub(crate) details: Vec<crate::record::InputDetail>,
    /// What the baseline did, when one was in force.
    pub(crate) baseline: Option<BaselineReport>,
}

/// What a baseline did in a run: plain text and counts for the reporters.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BaselineReport {
    /// The baseline file, as given.
    pub path: String,
    /// Findings it accepted.
    pub accepted: usize,
    /// Accepted findings that no longer occur, one line each (`file: R1 schema_violation …`).
    pub stale: Vec<String>,
    /// Coverage lost against it (the ratchet), one entry each.
    pub lost: Vec<LostCoverage>,
    /// `--update-baseline`: what was written (`recorded N findings from M trace files`).
    pub recorded: Option<String>,
    /// Other notes (a gate the baseline was not recorded at, a ratchet turned off).
    pub notes: Vec<String>,
}

/// One rule that checks less than the baseline recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LostCoverage {
    /// The trace file.
    pub file: String,
    /// The rule.
    pub rule: RuleId,
    /// The tool it can no longer check, or `None` when it checks nothing in the file any more.
    pub tool: Option<String>,
    /// What was lost, in words.
    pub message: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One rule's findings counted by tier (active findings) and ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCounts {
    /// The rule.
    pub rule: RuleId,
    /// Its one-line summary.
    pub summary: &'static str,
    /// Active hard defects.
    pub hard_defect: usize,
    /// Active hard events.
    pub hard_event: usize,
    /// Active candidates.
    pub candidate: usize,
    /// Findings ignored with a reason.
    pub ignored: usize,
}

/// What goes to stdout.
///
/// ```
/// use tracelint::OutputFormat;
/// assert_eq!(OutputFormat::parse("sarif"), Some(OutputFormat::Sarif));
/// assert_eq!(OutputFormat::parse("jsonl"), Some(OutputFormat::JsonLines));
/// assert_eq!(OutputFormat::parse("pdf"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Human text.
    Text,
    /// JSON report v1.
    Json,
    /// JSON Lines: one self-describing finding (or suppression, or input error) per line.
    JsonLines,
    /// SARIF 2.1.0.
    Sarif,
    /// A self-contained HTML page.
    Html,
    /// GitHub Actions workflow commands.
    Github,
}

impl OutputFormat {
    /// Every format with its command-line name.
    pub const NAMES: &'static [(&'static str, OutputFormat)] = &[
        ("text", OutputFormat::Text),
        ("json", OutputFormat::Json),
        ("json-lines", OutputFormat::JsonLines),
        ("sarif", OutputFormat::Sarif),
        ("html", OutputFormat::Html),
        ("github", OutputFormat::Github),
    ];

    /// Parse a command-line name (`jsonl` is accepted for `json-lines`).
    pub fn parse(name: &str) -> Option<OutputFormat> {
        let name = if name == "jsonl" { "json-lines" } else { name };
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
    }
}

/// Options for the text reporter.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextOptions {
    /// Show candidates.
    pub include_candidates: bool,
    /// List every suppression with its reason.
    pub show_suppressions: bool,
    /// Only findings and input errors, no notes and no summary (a library caller's choice; the
    /// command line always ends on the summary).
    pub quiet: bool,
    /// Show each run's first failure and what followed from it before the findings (the
    /// command line does).
    pub first_failures: bool,
    /// Leave out the notes on how inputs were read (`-q`).
    pub hide_notes: bool,
    /// Leave out the findings too, each run's first failure included (`-qq`): the summary only.
    pub hide_findings: bool,
    /// Emit ANSI colours.
    pub color: bool,
}

/// Everything the reporters need besides the report.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// Text reporter options.
    pub text: TextOptions,
    /// The root SARIF URIs and GitHub annotation paths are relative to.
    pub base: paths::PathBase,
    /// Most results a SARIF log holds (`None`: no cap); default `sarif::GITHUB_RESULTS_KEPT`.
    pub sarif_max_results: Option<usize>,
}
