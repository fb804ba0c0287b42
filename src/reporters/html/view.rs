//! The view model the template reads: plain structs of text already made safe to show, built by
//! `build.rs` and `timeline.rs` from a `Report`, and how untrusted text is made safe (`clean`).

use super::super::escape::{terminal, truncate};

/// Everything the page shows about a report, in the order a reader wants it: the summary by
/// rule and tier, hard defects expanded, hard events, candidates and ignored findings collapsed
/// by rule, then each run with findings step by step, then what could not be decided.
#[derive(Debug, Clone, Default)]
pub struct ReportView {
    /// `tracelint 0.1.0`.
    pub generator: String,
    /// The exit code the run ended with.
    pub exit_code: u8,
    /// The tier that fails the run.
    pub fail_on: &'static str,
    /// Summary tiles.
    pub tiles: Vec<Tile>,
    /// The runs with findings, worst first (at most `MAX_WORST` of them).
    pub worst: Vec<WorstRow>,
    /// Runs with findings in all.
    pub runs_with_findings: String,
    /// What the page leaves out to stay readable, in words (empty: nothing).
    pub left_out: Vec<String>,
    /// Counts by tier for each rule with a finding.
    pub rules: Vec<RuleRow>,
    /// Hard defects, hard events, candidates and ignored findings, each grouped by rule, tool
    /// and message shape, collapsed.
    pub sections: Vec<Section>,
    /// The runs with findings, step by step (the worst `MAX_TRACES`).
    pub traces: Vec<TraceView>,
    /// Input errors.
    pub issues: Vec<IssueView>,
    /// Checks a rule could not decide (at most `MAX_SUPPRESSIONS`).
    pub suppressions: Vec<SuppressionView>,
    /// Suppressions in all, with thousands separators.
    pub suppressions_total: String,
    /// Per-rule coverage.
    pub coverage: Vec<CoverageView>,
    /// The inputs (at most `MAX_INPUTS`).
    pub inputs: Vec<InputView>,
    /// Inputs in all, with thousands separators.
    pub inputs_total: String,
    /// Configured ignores that matched nothing.
    pub unmatched_ignores: Vec<String>,
}

/// One row of the "worst first" table: a run with findings.
#[derive(Debug, Clone)]
pub struct WorstRow {
    /// The input path.
    pub file: String,
    /// The run id (empty when it is the file's path, as for a one-run file).
    pub run_id: String,
    /// Active hard defects, with thousands separators.
    pub hard_defect: String,
    /// Active hard events.
    pub hard_event: String,
    /// Active candidates.
    pub candidate: String,
    /// The first failure's tier.
    pub first_tier: &'static str,
    /// The first failure: rule, tool and message.
    pub first: Vec<Seg>,
    /// The rules of the findings that follow from it (`then R2b, R12`), or empty.
    pub then: String,
    /// Where to read more: the run's timeline, else the first failure's card.
    pub href: Option<String>,
}

/// A run's first failure and the findings that follow from it, at the top of its timeline.
#[derive(Debug, Clone)]
pub struct ChainView {
    /// The first failure's tier.
    pub tier: &'static str,
    /// Its rule, tool and message.
    pub first: Vec<Seg>,
    /// Its card, when the page shows it.
    pub href: Option<String>,
    /// The findings that follow, as `R2b at step 5`.
    pub follows: Vec<ChainLink>,
    /// The steps it passes through.
    pub steps: Vec<ChainLink>,
    /// Steps or findings left out (in the JSON report).
    pub more: usize,
}

/// One link of a chain.
#[derive(Debug, Clone)]
pub struct ChainLink {
    /// What it says.
    pub text: String,
    /// Where it points, when the page shows it.
    pub href: Option<String>,
}

/// One summary tile.
#[derive(Debug, Clone)]
pub struct Tile {
    /// What it counts.
    pub label: &'static str,
    /// The count, with thousands separators.
    pub value: String,
    /// A CSS class (`hard_defect`, …, or `plain`).
    pub class: &'static str,
}

/// A piece of text, shown as code when the source had it in backticks (`` `limit` ``).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seg {
    /// The text (escaped when rendered).
    pub text: String,
    /// Shown in a `<code>` element.
    pub code: bool,
}

/// One row of the summary by rule.
#[derive(Debug, Clone)]
pub struct RuleRow {
    /// `R1`.
    pub rule: &'static str,
    /// Its one-line summary.
    pub summary: Vec<Seg>,
    /// Hard defects, hard events, candidates, ignored.
    pub counts: [Count; 4],
}

/// One count of a row, with its column's name (for narrow screens).
#[derive(Debug, Clone)]
pub struct Count {
    /// The column.
    pub label: &'static str,
    /// The count, with thousands separators.
    pub value: String,
}

/// A tier's findings, collapsed by rule.
#[derive(Debug, Clone)]
pub struct Section {
    /// The anchor.
    pub id: &'static str,
    /// The heading.
    pub title: &'static str,
    /// Findings in the section, with thousands separators.
    pub total: String,
    /// Groups the page does not draw (in the JSON report).
    pub more_groups: usize,
    /// One group per rule, tool and message shape.
    pub groups: Vec<Group>,
}

/// The findings of one rule and tool whose messages have one shape (numbers and quoted values
/// aside) in a section: one line ("R3 get_order: 412 × `order_id` = … is not derivable…") that
/// opens on the first few.
#[derive(Debug, Clone)]
pub struct Group {
    /// The rule.
    pub rule: &'static str,
    /// The tool, or empty.
    pub tool: String,
    /// The first finding's message, standing for the group.
    pub message: Vec<Seg>,
    /// `hard_defect`, `hard_event`, `candidate` or `ignored`.
    pub class: &'static str,
    /// How many, with thousands separators.
    pub count: String,
    /// "candidates", "hard event", …
    pub noun: &'static str,
    /// The first findings, in reading order (at most `MAX_CARDS`).
    pub findings: Vec<FindingView>,
    /// Findings of the group the page does not draw (in the JSON report).
    pub more: usize,
}

/// One finding.
#[derive(Debug, Clone)]
pub struct FindingView {
    /// The anchor (`f12`: the finding's place in the report).
    pub id: String,
    /// `hard_defect` / `hard_event` / `candidate`.
    pub tier: &'static str,
    /// `R1`.
    pub rule: &'static str,
    /// `schema_violation`.
    pub kind: &'static str,
    /// The tool involved.
    pub tool: Option<String>,
    /// `file:line:col`.
    pub position: String,
    /// The run.
    pub run_id: String,
    /// What is wrong.
    pub message: Vec<Seg>,
    /// Itemised details (when more than the message says).
    pub details: Vec<String>,
    /// How to fix (empty: none).
    pub help: Vec<Seg>,
    /// The evidence steps.
    pub evidence: Vec<EvidenceView>,
    /// A legitimate pattern can trip it.
    pub possible_false_positive: bool,
    /// The reason it was ignored, when it was.
    pub ignored: Option<String>,
    /// Its run's timeline, when the run is outlined.
    pub trace_href: Option<String>,
}

/// One evidence step.
#[derive(Debug, Clone)]
pub struct EvidenceView {
    /// Step index.
    pub step: usize,
    /// `line:col`.
    pub position: String,
    /// What it shows.
    pub note: String,
    /// The step's excerpt.
    pub excerpt: String,
    /// The step in its run's timeline, when it is shown there.
    pub href: Option<String>,
}

/// One run with findings, step by step.
#[derive(Debug, Clone)]
pub struct TraceView {
    /// The anchor (`t3`).
    pub id: String,
    /// The input path.
    pub file: String,
    /// The run id.
    pub run_id: String,
    /// Steps in the whole run.
    pub total: usize,
    /// Its findings counted by tier, in words.
    pub counts: String,
    /// Open on load (it holds a hard defect).
    pub open: bool,
    /// Its first failure and what followed from it.
    pub chain: Option<ChainView>,
    /// The steps shown.
    pub steps: Vec<StepView>,
    /// Steps not shown after the last one.
    pub gap_after: usize,
}

/// One step of a timeline.
#[derive(Debug, Clone)]
pub struct StepView {
    /// Steps not shown just before this one.
    pub gap: usize,
    /// The anchor (`t3-s12`).
    pub id: String,
    /// Step index.
    pub index: usize,
    /// `call`, `ok`, `error`, `result`, `user`, …
    pub kind: &'static str,
    /// A short excerpt.
    pub text: String,
    /// Its line in the input.
    pub line: u32,
    /// Findings citing it.
    pub marks: Vec<Mark>,
}

/// A finding marked on a step: its primary step (tier colour) or one of its evidence steps.
#[derive(Debug, Clone)]
pub struct Mark {
    /// The finding's anchor, when the page draws its card.
    pub href: Option<String>,
    /// `hard_defect`, …, `ignored`, or `evidence`.
    pub class: &'static str,
    /// `R1`.
    pub label: String,
}

/// One input error.
#[derive(Debug, Clone)]
pub struct IssueView {
    /// `file:line:col`.
    pub position: String,
    /// What is wrong.
    pub message: String,
}

/// One suppression.
#[derive(Debug, Clone)]
pub struct SuppressionView {
    /// The rule.
    pub rule: &'static str,
    /// `file:line:col` or the file.
    pub position: String,
    /// The run.
    pub run_id: String,
    /// The tool, or empty.
    pub tool: String,
    /// Why the rule could not decide.
    pub reason: String,
}

/// One rule's coverage.
#[derive(Debug, Clone)]
pub struct CoverageView {
    /// The rule.
    pub rule: &'static str,
    /// What it counts.
    pub unit: &'static str,
    /// Decided, with thousands separators.
    pub decided: String,
    /// Looked at, with thousands separators.
    pub total: String,
    /// Decided, in whole percent of total (100 when nothing was looked at).
    pub percent: usize,
}

/// One input.
#[derive(Debug, Clone)]
pub struct InputView {
    /// The path.
    pub path: String,
    /// The format read.
    pub format: String,
    /// Traces.
    pub traces: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Part of it could not be read.
    pub partial: bool,
    /// Where the schemas came from.
    pub schemas: String,
    /// Notes.
    pub notes: Vec<String>,
}

/// Untrusted text prepared for the page: invisible and control characters made visible (a bidi
/// override must not reorder what the reader sees), bounded in length. HTML escaping is
/// askama's, at render time.
pub(super) fn clean(s: &str) -> String {
    truncate(&terminal(s), MAX_VALUE).into_owned()
}

/// Longest untrusted value shown on the page, in characters.
pub(super) const MAX_VALUE: usize = 4000;

/// `n` with thousands separators (`12,345`).
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count as the page shows it, with thousands separators (for the template, which may hand
/// it a reference).
pub(super) fn n(count: impl std::borrow::Borrow<usize>) -> String {
    thousands(*count.borrow())
}

/// `one` or `many`, by `n`.
pub(super) fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}
