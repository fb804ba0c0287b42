//! What the library's users read from a report, a finding, a trace: accessors over the types
//! the binary fills in, so those types' fields stay free to change.

use std::io::Write;

use crate::exit::ExitStatus;
use crate::finding::{Evidence, Finding, RuleId, Suppression, Tier};
use crate::model::{ToolRegistry, Trace};
use crate::reporters::paths::PathBase;
use crate::reporters::{self, OutputFormat, RenderOptions, Report, Summary, TextOptions};

impl Report {
    /// Every finding listed, sorted by input, place, then rule; ignored ones included (see
    /// [`Finding::is_ignored`]).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Why a rule could not decide a trace or a call: disclosed, never a silent pass.
    pub fn suppressions(&self) -> &[Suppression] {
        &self.suppressions
    }

    /// Problems with the inputs themselves (a malformed line, a file that holds no trace),
    /// each at `path:line:col`.
    pub fn issues(&self) -> &[crate::finding::InputIssue] {
        &self.issues
    }

    /// The counts: inputs, traces, tool calls, findings per tier, input errors.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// What `tracelint check` would exit with for this report.
    pub fn exit(&self) -> ExitStatus {
        self.exit
    }

    /// The input a finding (or suppression) came from, as the report names it.
    pub fn path_of_finding(&self, finding: &Finding) -> &str {
        self.path_of(finding.input)
    }

    /// Write the report in `format`, as `tracelint check --output-format FORMAT` prints it
    /// (text without colour and without candidates; SARIF locations relative to the git
    /// repository around the working directory).
    ///
    /// ```
    /// use tracelint::{Linter, OutputFormat};
    ///
    /// let linter = Linter::builder().tools("fixtures/quickstart/tools.json").build().unwrap();
    /// let report = linter.lint_paths(["fixtures/quickstart/transcript.json"], |_| {}).unwrap();
    /// let mut sarif = Vec::new();
    /// report.render(OutputFormat::Sarif, &mut sarif).unwrap();
    /// let log: serde_json::Value = serde_json::from_slice(&sarif).unwrap();
    /// assert_eq!(log["version"], "2.1.0");
    /// ```
    ///
    /// # Errors
    /// What writing to `out` returned.
    pub fn render(&self, format: OutputFormat, out: &mut dyn Write) -> std::io::Result<()> {
        let cwd = std::env::current_dir()?;
        let opts = RenderOptions {
            text: TextOptions::default(),
            base: PathBase::discover(&cwd),
            sarif_max_results: Some(reporters::sarif::GITHUB_RESULTS_KEPT),
        };
        reporters::render(format, self, &opts, out)
    }
}

impl Finding {
    /// The rule that found it.
    pub fn rule(&self) -> RuleId {
        self.rule
    }

    /// How sure it is: a hard defect, a hard event, or a candidate to review.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// What is wrong, in one lowercase sentence without a trailing period.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The run id of the trace it is in.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The tool involved, if one.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The argument involved, if one.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// How to fix it, when the rule knows ("did you mean `read_file`?").
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// Which check failed, for rules with several (R2a `structured`, R3 `not_derivable_as_path`,
    /// …): a stable word, never a value from the trace.
    pub fn signal(&self) -> Option<&'static str> {
        self.signal
    }

    /// Itemised details (R1's schema errors), in a fixed order.
    pub fn details(&self) -> &[String] {
        &self.details
    }

    /// The steps it points at; the first is where it is.
    pub fn evidence(&self) -> &[Evidence] {
        &self.evidence
    }

    /// The 1-based line and column of its primary evidence in the input.
    pub fn line_column(&self) -> (u32, u32) {
        let at = self.at();
        (at.line, at.column)
    }

    /// A configured `[[ignore]]` matched it (with this reason): it is listed, and does not
    /// count toward the exit status.
    pub fn ignored_because(&self) -> Option<&str> {
        self.ignored.as_deref()
    }

    /// Whether an `[[ignore]]` matched it.
    pub fn is_ignored(&self) -> bool {
        self.ignored.is_some()
    }
}

impl Evidence {
    /// The step's index in its trace.
    pub fn step(&self) -> usize {
        self.step
    }

    /// The 1-based line and column where the step begins in the input.
    pub fn line_column(&self) -> (u32, u32) {
        (self.at.line, self.at.column)
    }

    /// The JSON Pointer to the value inside its record.
    pub fn pointer(&self) -> &str {
        &self.at.pointer
    }

    /// What this step shows ("the call", "failed result", …).
    pub fn note(&self) -> &str {
        &self.note
    }

    /// A short excerpt of the step. Untrusted text from the trace: escape it before showing it
    /// on a terminal or in HTML.
    pub fn excerpt(&self) -> &str {
        &self.excerpt
    }
}

impl Suppression {
    /// The rule that could not decide.
    pub fn rule(&self) -> RuleId {
        self.rule
    }

    /// The run id of the trace.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The step it concerns, when it is about one call rather than the whole trace.
    pub fn step(&self) -> Option<usize> {
        self.step
    }

    /// The tool involved, if one.
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// Why the rule could not decide.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl Trace {
    /// The run id: a session id, an OTel trace id, a Langfuse trace id, …
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The input it was read from.
    pub fn path(&self) -> &str {
        &self.source.path
    }

    /// The input format it was read as (`native`, `claude`, `otel`, …).
    pub fn format(&self) -> &str {
        &self.source.format
    }

    /// Part of the input could not be read, so this trace may be incomplete.
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// The steps it holds (messages, tool calls, tool results).
    pub fn step_count(&self) -> usize {
        self.steps.len()
    }

    /// The steps themselves, for this crate's own tests: not part of the API.
    #[doc(hidden)]
    pub fn steps(&self) -> &[crate::model::Step] {
        &self.steps
    }
}

impl ToolRegistry {
    /// Load a tools file of any shape: MCP `tools/list` (or a saved reply), OpenAI or
    /// Anthropic tool arrays, a native `{"tools": {name: {...}}}` map.
    ///
    /// # Errors
    /// [`Error::Tools`](crate::Error::Tools) when the file cannot be read or holds no usable
    /// tool list.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<ToolRegistry, crate::Error> {
        let path = path.as_ref();
        Ok(crate::sources::load_file(
            path,
            &path.display().to_string(),
        )?)
    }
}
