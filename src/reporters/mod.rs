//! Rendering a finished `Report`: the only code that writes findings anywhere. Each format is its
//! own module; wire formats (JSON v1) are frozen structs built `From<&Report>`. Reporters never
//! import rules, adapters or sources: rule metadata arrives as `&'static RuleMeta` values.

pub mod escape;
pub mod github;
pub mod html;
pub mod json;
pub mod paths;
#[cfg(test)]
mod sample;
pub mod sarif;
pub mod text;

use std::io::Write;

use serde::Serialize;

use crate::exit::ExitStatus;
use crate::finding::{Coverage, Finding, InputIssue, RuleId, RuleMeta, Suppression, Tier};

/// One input as the report shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InputSummary {
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
}

/// The finished result of a run, ready to render.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The inputs, in the order given.
    pub inputs: Vec<InputSummary>,
    /// All findings (active and ignored), sorted.
    pub findings: Vec<Finding>,
    /// Suppressions, sorted.
    pub suppressions: Vec<Suppression>,
    /// Input errors, sorted.
    pub issues: Vec<InputIssue>,
    /// Per-rule coverage over the run, in rule order.
    pub coverage: Vec<RuleCoverage>,
    /// Configured ignores that matched nothing (`rule` + description).
    pub unmatched_ignores: Vec<String>,
    /// Metadata of the rules that ran.
    pub rules: Vec<&'static RuleMeta>,
    /// Counts.
    pub summary: Summary,
    /// The exit status.
    pub exit: ExitStatus,
    /// The tier at which the run fails.
    pub fail_on: Option<Tier>,
    /// Per input (in `inputs` order): coverage by rule and tool, record quality. Empty unless
    /// the run asked for it (a baseline, `doctor`).
    pub details: Vec<crate::record::InputDetail>,
    /// What the baseline did, when one was in force.
    pub baseline: Option<BaselineReport>,
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

impl Report {
    /// Active (not ignored) findings.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.ignored.is_none())
    }

    /// The path of a finding's input.
    pub fn path_of(&self, input: usize) -> &str {
        self.inputs.get(input).map_or("-", |i| i.path.as_str())
    }
}

/// What goes to stdout.
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
    /// Only findings and input errors, no footer.
    pub quiet: bool,
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
}

/// Render a report to `out`.
pub fn render(
    format: OutputFormat,
    report: &Report,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Text => text::render(report, opts.text, out),
        OutputFormat::Json => json::render(report, out),
        OutputFormat::JsonLines => json::render_lines(report, out),
        OutputFormat::Sarif => sarif::render(report, &opts.base, out),
        OutputFormat::Html => html::render(report, out),
        OutputFormat::Github => github::render(report, &opts.base, out),
    }
}
