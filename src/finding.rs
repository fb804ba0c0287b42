//! What rules produce and reporters render: `Finding`, `Evidence`, `Suppression`, `Coverage`,
//! `InputIssue` and the static `RuleMeta`. Plain data with a deterministic order; it knows
//! locations but nothing about formats, rules' logic or output media.
//!
//! One cohesive vocabulary: the types every rule and reporter exchange, kept together because each
//! refers to the others.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use crate::model::Location;

/// A rule's id.
///
/// ```
/// use tracelint::RuleId;
/// assert_eq!(RuleId::parse("R2a"), Some(RuleId::R2a));
/// assert_eq!(RuleId::R2a.as_str(), "R2a");
/// assert!(RuleId::ALL.contains(&RuleId::R13));
/// assert!(RuleId::parse("T1").is_some_and(RuleId::is_tool_rule));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum RuleId {
    /// Schema violation.
    R1,
    /// Tool error event.
    R2a,
    /// Error mishandled.
    R2b,
    /// Hallucinated argument.
    R3,
    /// Loop.
    R4,
    /// Redundant call.
    R5,
    /// Malformed arguments.
    R6,
    /// Unknown tool.
    R7,
    /// Duplicate side effect.
    R8,
    /// Unmet precondition.
    R9,
    /// Result contract.
    R10,
    /// Contract drift.
    R11,
    /// Unresolved side effect.
    R12,
    /// Off-limits source.
    R13,
    /// Toxic flow.
    R14,
    /// Expectation not met.
    E1,
    /// Tools: invalid JSON Schema.
    T1,
    /// Tools: `$ref` not resolvable offline.
    T2,
    /// Tools: `required` names an undeclared property.
    T3,
    /// Tools: a `default`/`enum`/`const`/`examples` value fails its schema.
    T4,
    /// Tools: contradictory keywords.
    T5,
    /// Tools: a schema that constrains nothing.
    T6,
    /// Tools: a name a provider rejects.
    T7,
    /// Tools: one name, two definitions.
    T8,
    /// Tools: names that differ only by case or separator.
    T9,
    /// Tools: a missing or empty description.
    T10,
    /// Tools: a description over the token budget.
    T11,
    /// Tools: a tool-poisoning signal.
    T12,
    /// Tools: more tools than a provider accepts.
    T13,
}

impl RuleId {
    /// Every rule id, in order.
    pub const ALL: &'static [RuleId] = &[
        RuleId::R1,
        RuleId::R2a,
        RuleId::R2b,
        RuleId::R3,
        RuleId::R4,
        RuleId::R5,
        RuleId::R6,
        RuleId::R7,
        RuleId::R8,
        RuleId::R9,
        RuleId::R10,
        RuleId::R11,
        RuleId::R12,
        RuleId::R13,
        RuleId::R14,
        RuleId::E1,
        RuleId::T1,
        RuleId::T2,
        RuleId::T3,
        RuleId::T4,
        RuleId::T5,
        RuleId::T6,
        RuleId::T7,
        RuleId::T8,
        RuleId::T9,
        RuleId::T10,
        RuleId::T11,
        RuleId::T12,
        RuleId::T13,
    ];

    /// The id as written (`R2a`).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::R1 => "R1",
            RuleId::R2a => "R2a",
            RuleId::R2b => "R2b",
            RuleId::R3 => "R3",
            RuleId::R4 => "R4",
            RuleId::R5 => "R5",
            RuleId::R6 => "R6",
            RuleId::R7 => "R7",
            RuleId::R8 => "R8",
            RuleId::R9 => "R9",
            RuleId::R10 => "R10",
            RuleId::R11 => "R11",
            RuleId::R12 => "R12",
            RuleId::R13 => "R13",
            RuleId::R14 => "R14",
            RuleId::E1 => "E1",
            RuleId::T1 => "T1",
            RuleId::T2 => "T2",
            RuleId::T3 => "T3",
            RuleId::T4 => "T4",
            RuleId::T5 => "T5",
            RuleId::T6 => "T6",
            RuleId::T7 => "T7",
            RuleId::T8 => "T8",
            RuleId::T9 => "T9",
            RuleId::T10 => "T10",
            RuleId::T11 => "T11",
            RuleId::T12 => "T12",
            RuleId::T13 => "T13",
        }
    }

    /// A tool rule (T1…, `tools lint`), which checks tool definitions rather than traces.
    pub fn is_tool_rule(self) -> bool {
        self.as_str().starts_with('T')
    }

    /// Parse an id, case-insensitively (`r2a`, `R2A`). `R2` names both R2a and R2b and is
    /// handled by the caller.
    pub fn parse(s: &str) -> Option<RuleId> {
        RuleId::ALL
            .iter()
            .copied()
            .find(|r| r.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingType {
    /// R1.
    SchemaViolation,
    /// R2a.
    ToolErrorEvent,
    /// R2b.
    ErrorMishandled,
    /// R3.
    HallucinatedArg,
    /// R4.
    Loop,
    /// R5.
    RedundantCall,
    /// R6.
    MalformedArguments,
    /// R7.
    UnknownTool,
    /// R8.
    DuplicateSideEffect,
    /// R9.
    UnmetPrecondition,
    /// R10.
    ResultContractViolation,
    /// R11.
    ContractDrift,
    /// R12.
    UnresolvedSideEffect,
    /// R13.
    OffLimitsSource,
    /// R14.
    ToxicFlow,
    /// E1.
    ExpectationNotMet,
    /// T1.
    InvalidToolSchema,
    /// T2.
    UnresolvableRef,
    /// T3.
    RequiredNotDeclared,
    /// T4.
    ValueFailsOwnSchema,
    /// T5.
    ContradictoryKeywords,
    /// T6.
    UnconstrainedSchema,
    /// T7.
    ProviderRejectsName,
    /// T8.
    DuplicateToolName,
    /// T9.
    ConfusableToolNames,
    /// T10.
    MissingDescription,
    /// T11.
    DescriptionOverBudget,
    /// T12.
    PoisoningSignal,
    /// T13.
    TooManyTools,
}

impl FindingType {
    /// The type as written (`schema_violation`).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingType::SchemaViolation => "schema_violation",
            FindingType::ToolErrorEvent => "tool_error_event",
            FindingType::ErrorMishandled => "error_mishandled",
            FindingType::HallucinatedArg => "hallucinated_arg",
            FindingType::Loop => "loop",
            FindingType::RedundantCall => "redundant_call",
            FindingType::MalformedArguments => "malformed_arguments",
            FindingType::UnknownTool => "unknown_tool",
            FindingType::DuplicateSideEffect => "duplicate_side_effect",
            FindingType::UnmetPrecondition => "unmet_precondition",
            FindingType::ResultContractViolation => "result_contract_violation",
            FindingType::ContractDrift => "contract_drift",
            FindingType::UnresolvedSideEffect => "unresolved_side_effect",
            FindingType::OffLimitsSource => "off_limits_source",
            FindingType::ToxicFlow => "toxic_flow",
            FindingType::ExpectationNotMet => "expectation_not_met",
            FindingType::InvalidToolSchema => "invalid_tool_schema",
            FindingType::UnresolvableRef => "unresolvable_ref",
            FindingType::RequiredNotDeclared => "required_not_declared",
            FindingType::ValueFailsOwnSchema => "value_fails_own_schema",
            FindingType::ContradictoryKeywords => "contradictory_keywords",
            FindingType::UnconstrainedSchema => "unconstrained_schema",
            FindingType::ProviderRejectsName => "provider_rejects_name",
            FindingType::DuplicateToolName => "duplicate_tool_name",
            FindingType::ConfusableToolNames => "confusable_tool_names",
            FindingType::MissingDescription => "missing_description",
            FindingType::DescriptionOverBudget => "description_over_budget",
            FindingType::PoisoningSignal => "poisoning_signal",
            FindingType::TooManyTools => "too_many_tools",
        }
    }
}

/// How sure a finding is. The order is the gate order: `Candidate < HardEvent < HardDefect`.
///
/// ```
/// use tracelint::Tier;
/// assert!(Tier::Candidate < Tier::HardEvent && Tier::HardEvent < Tier::HardDefect);
/// assert_eq!(Tier::parse("hard_event"), Some(Tier::HardEvent));
/// assert_eq!(Tier::HardDefect.to_string(), "hard_defect");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// A heuristic match, shown with its evidence for a human to judge.
    Candidate,
    /// A certain fact (a tool returned 500); never fails CI by default.
    HardEvent,
    /// Structurally provable; fails CI by default.
    HardDefect,
}

impl Tier {
    /// The tier as written (`hard_defect`).
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Candidate => "candidate",
            Tier::HardEvent => "hard_event",
            Tier::HardDefect => "hard_defect",
        }
    }

    /// Parse `hard_defect` / `hard_event` / `candidate` (also with `-`).
    pub fn parse(s: &str) -> Option<Tier> {
        match s.trim().replace('-', "_").as_str() {
            "candidate" => Some(Tier::Candidate),
            "hard_event" => Some(Tier::HardEvent),
            "hard_defect" => Some(Tier::HardDefect),
            _ => None,
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step a finding points at. The first evidence of a finding is its primary location.
///
/// ```
/// let linter = tracelint::Linter::builder().tools("fixtures/quickstart/tools.json").build()?;
/// let report = linter.lint_paths(["fixtures/quickstart/transcript.json"], |_| {})?;
/// let e = &report.findings()[0].evidence()[0];
/// assert!(e.line_column().0 >= 1);
/// assert!(e.pointer().starts_with('/') || e.pointer().is_empty());
/// assert!(!e.note().is_empty());
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Evidence {
    /// Step index in the trace.
    pub(crate) step: usize,
    /// Where the step is in the input.
    pub(crate) at: Location,
    /// What this step shows ("the call", "failed result", …).
    pub(crate) note: Cow<'static, str>,
    /// A short excerpt of the step (untrusted text: reporters escape it).
    pub(crate) excerpt: String,
}

/// One problem found in one trace.
///
/// ```
/// use tracelint::{RuleId, Tier};
///
/// let linter = tracelint::Linter::builder().tools("fixtures/quickstart/tools.json").build()?;
/// let report = linter.lint_paths(["fixtures/quickstart/transcript.json"], |_| {})?;
/// let r1 = report.findings().iter().find(|f| f.rule() == RuleId::R1).unwrap();
/// assert_eq!(r1.tier(), Tier::HardDefect);
/// assert!(r1.tool().is_some());
/// assert!(!r1.message().is_empty());
/// assert!(!r1.is_ignored());
/// let (line, _column) = r1.line_column();
/// assert!(line >= 1);
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The rule.
    pub(crate) rule: RuleId,
    /// The kind of problem.
    pub(crate) kind: FindingType,
    /// How sure.
    pub(crate) tier: Tier,
    /// Index into the report's inputs.
    pub(crate) input: usize,
    /// The trace's run id.
    pub(crate) run_id: String,
    /// The tool involved, if one.
    pub(crate) tool: Option<String>,
    /// The argument involved, if one (for `[[ignore]]` `field`).
    pub(crate) field: Option<String>,
    /// What is wrong: lowercase, no trailing period.
    pub(crate) message: String,
    /// Where; `[0]` is primary. Never empty.
    pub(crate) evidence: Vec<Evidence>,
    /// How to fix ("did you mean `read_file`?").
    pub(crate) help: Option<String>,
    /// Itemised details (R1's schema errors), in a fixed order.
    pub(crate) details: Vec<String>,
    /// A legitimate pattern can trip this finding.
    pub(crate) possible_false_positive: bool,
    /// Which check the finding failed, or what evidence it rests on, for rules with several
    /// (R2a: `structured`, `declared`, `status_in_result`, `error_line`, `empty`; R2b:
    /// `not_retried`, `used_after_failure`; R3: `not_derivable_as_text`, `not_derivable_as_path`,
    /// `not_derivable_as_number`): a word, never a value from the trace; stable, for scripts and
    /// baselines (part of a finding's baseline key).
    pub(crate) signal: Option<&'static str>,
    /// Set when a configured `[[ignore]]` matched: the reason. Ignored findings stay visible and
    /// stop counting toward the exit code.
    pub(crate) ignored: Option<String>,
    /// Every argument the finding involves, when it is more than `field` (R1: the top-level
    /// field of each schema error, `(root)` for the arguments object itself). Part of the
    /// baseline key.
    pub(crate) fields: Vec<String>,
    /// Accepted by the baseline (`--baseline`): `ignored` says so, and text output leaves it out.
    pub(crate) baselined: bool,
    /// E1 on a trajectory: how close the run came to the reference, with the reasons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) score: Option<Box<crate::model::score::Score>>,
}

impl Finding {
    /// A finding with one primary evidence and nothing optional set.
    pub(crate) fn new(
        meta: &RuleMeta,
        tier: Tier,
        run_id: &str,
        tool: Option<&str>,
        message: impl Into<String>,
        primary: Evidence,
    ) -> Self {
        Self {
            rule: meta.id,
            kind: meta.kind,
            tier,
            input: 0,
            run_id: run_id.to_owned(),
            tool: tool.map(str::to_owned),
            field: None,
            message: message.into(),
            evidence: vec![primary],
            help: None,
            details: Vec::new(),
            possible_false_positive: false,
            signal: None,
            ignored: None,
            fields: Vec::new(),
            baselined: false,
            score: None,
        }
    }

    /// Drop what only the wire formats and the baseline read — the itemised details, the
    /// fields, each evidence's JSON pointer — for a finding that only the text report and a
    /// Phoenix write-back will see (neither shows them), so the findings a text run holds until
    /// the end take less memory.
    pub(crate) fn drop_wire_only(&mut self) {
        self.details = Vec::new();
        self.fields = Vec::new();
        for e in &mut self.evidence {
            e.at.pointer = String::new();
        }
    }

    /// The primary location.
    pub(crate) fn at(&self) -> &Location {
        &self.evidence[0].at
    }

    /// The deterministic sort key: (input, line, column, rule, message).
    pub(crate) fn sort_key(&self) -> (usize, u32, u32, RuleId, &str, &str) {
        let at = self.at();
        (
            self.input,
            at.line,
            at.column,
            self.rule,
            self.run_id.as_str(),
            self.message.as_str(),
        )
    }
}

/// A rule could not run (whole trace) or could not decide one step: disclosed, never silent.
///
/// ```
/// // Without tools sources, R1 has no schema for the quick start's tools: it says so.
/// let linter = tracelint::Linter::builder().build()?;
/// let report = linter.lint_paths(["fixtures/quickstart/transcript.json"], |_| {})?;
/// assert!(report.suppressions().iter().all(|s| !s.reason().is_empty()));
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suppression {
    /// The rule.
    pub(crate) rule: RuleId,
    /// Index into the report's inputs.
    pub(crate) input: usize,
    /// The trace's run id.
    pub(crate) run_id: String,
    /// The step it concerns, for a per-call suppression.
    pub(crate) step: Option<usize>,
    /// Where that step is.
    pub(crate) at: Option<Location>,
    /// The tool involved, if one.
    pub(crate) tool: Option<String>,
    /// Why the rule could not decide.
    pub(crate) reason: String,
}

/// How much of a trace a rule could decide: `decided` of `total` units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Units the rule could decide.
    pub decided: usize,
    /// Units it looked at.
    pub total: usize,
}

impl Coverage {
    /// Add another count (saturating: counts read back from shards are untrusted).
    pub fn add(&mut self, other: Coverage) {
        self.decided = self.decided.saturating_add(other.decided);
        self.total = self.total.saturating_add(other.total);
    }
}

/// A problem with the input itself (unreadable file, malformed line): exit 3, reported like a
/// finding, and the rest of the input is still linted.
///
/// ```
/// let report = tracelint::Linter::builder()
///     .build()?
///     .lint_bytes(b"{\"not\": json", "broken.json", None);
/// let issue = &report.issues()[0];
/// assert_eq!((issue.path.as_str(), issue.line), ("broken.json", 1));
/// assert!(issue.to_string().starts_with("broken.json:1:"));
/// assert_eq!(report.exit(), tracelint::ExitStatus::InputError);
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct InputIssue {
    /// Index into the report's inputs (or the path when the input never opened).
    pub path: String,
    /// 1-based line, 0 when the problem is the whole file.
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub column: u32,
    /// What is wrong and, where possible, how to fix it.
    pub message: String,
}

impl InputIssue {
    /// An issue about the whole file.
    pub(crate) fn file(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    /// An issue at `line:column`.
    pub(crate) fn at(path: impl Into<String>, line: u32, column: u32, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.path, self.message),
            (l, 0) => write!(f, "{}:{}: {}", self.path, l, self.message),
            (l, c) => write!(f, "{}:{}:{}: {}", self.path, l, c, self.message),
        }
    }
}

/// What a rule is, for `rules`, `explain`, SARIF and the README: static data.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleMeta {
    /// Its id.
    pub id: RuleId,
    /// The finding type it produces.
    pub kind: FindingType,
    /// One line: what it flags.
    pub summary: &'static str,
    /// The tiers it can report at.
    pub tiers: &'static [Tier],
    /// What coverage counts (`tool calls`, `tool results`).
    pub unit: &'static str,
    /// The full doc (Markdown, fixed headings).
    pub explanation: &'static str,
}

impl RuleMeta {
    /// The tiers as `hard_event / candidate`.
    pub fn tiers_text(&self) -> String {
        self.tiers
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// Input errors a report lists for one input (one path): the first ones, then a count.
pub(crate) const MAX_ISSUES_PER_INPUT: usize = 100;
/// Input errors a report lists over all its inputs, and paths it counts separately: past them
/// the rest is one count.
pub(crate) const MAX_ISSUES: usize = 100_000;

/// Which input errors a report keeps: the first `MAX_ISSUES_PER_INPUT` of each path (and
/// `MAX_ISSUES` in all); the others are only counted, per path, and listed as one input error
/// each (`summaries`), so a file of a million bad lines makes a report of a hundred and one.
#[derive(Debug, Default, Clone)]
pub(crate) struct IssueCap {
    /// Path → (kept, not kept).
    paths: std::collections::BTreeMap<String, (usize, u64)>,
    kept: usize,
    /// Not kept, of paths past the `MAX_ISSUES` counted separately: the first such path and
    /// how many.
    others: Option<(String, u64)>,
}

impl IssueCap {
    /// Whether an input error about `path` is kept (else it is counted).
    pub(crate) fn admit(&mut self, path: &str) -> bool {
        if let Some(entry) = self.paths.get_mut(path) {
            if entry.0 < MAX_ISSUES_PER_INPUT && self.kept < MAX_ISSUES {
                entry.0 += 1;
                self.kept += 1;
                return true;
            }
            entry.1 = entry.1.saturating_add(1);
            return false;
        }
        if self.paths.len() < MAX_ISSUES {
            let keep = self.kept < MAX_ISSUES;
            self.kept += usize::from(keep);
            self.paths
                .insert(path.to_owned(), (usize::from(keep), u64::from(!keep)));
            return keep;
        }
        self.omit(path, 1);
        false
    }

    /// Count `n` input errors about `path` that were not kept.
    pub(crate) fn omit(&mut self, path: &str, n: u64) {
        if n == 0 {
            return;
        }
        if let Some(entry) = self.paths.get_mut(path) {
            entry.1 = entry.1.saturating_add(n);
        } else if self.paths.len() < MAX_ISSUES {
            self.paths.insert(path.to_owned(), (0, n));
        } else {
            let others = self.others.get_or_insert_with(|| (path.to_owned(), 0));
            others.1 = others.1.saturating_add(n);
        }
    }

    /// Input errors counted and not kept.
    pub(crate) fn omitted(&self) -> u64 {
        let others = self.others.as_ref().map_or(0, |o| o.1);
        self.paths
            .values()
            .fold(others, |sum, (_, n)| sum.saturating_add(*n))
    }

    /// Each path's input errors not kept, as (path, how many), by path (those past the paths
    /// counted separately last, under the first of them).
    pub(crate) fn omitted_by_path(&self) -> impl Iterator<Item = (&str, u64)> {
        self.by_path()
            .chain(self.others.iter().map(|(p, n)| (p.as_str(), *n)))
    }

    fn by_path(&self) -> impl Iterator<Item = (&str, u64)> {
        self.paths
            .iter()
            .filter(|(_, (_, n))| *n > 0)
            .map(|(p, (_, n))| (p.as_str(), *n))
    }

    /// One input error per path saying how many of its input errors are not listed.
    pub(crate) fn summaries(&self) -> Vec<InputIssue> {
        let mut out: Vec<InputIssue> = self
            .by_path()
            .map(|(path, n)| {
                InputIssue::file(
                    path,
                    format!(
                        "{n} more input {} not listed (a report lists the first {MAX_ISSUES_PER_INPUT} of each input)",
                        if n == 1 { "error" } else { "errors" }
                    ),
                )
            })
            .collect();
        if let Some((path, n)) = &self.others {
            out.push(InputIssue::file(
                path,
                format!(
                    "{n} more input {} about this and other inputs not listed (a report lists at most {MAX_ISSUES})",
                    if *n == 1 { "error" } else { "errors" }
                ),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issues_past_the_cap_of_an_input_are_counted_not_kept() {
        let mut cap = IssueCap::default();
        let kept = (0..MAX_ISSUES_PER_INPUT + 250)
            .filter(|_| cap.admit("a.jsonl"))
            .count();
        assert_eq!(kept, MAX_ISSUES_PER_INPUT);
        // Another input has its own allowance.
        assert!(cap.admit("b.jsonl"));
        cap.omit("b.jsonl", 7);
        cap.omit("c.jsonl", 0);
        assert_eq!(cap.omitted(), 257);
        let shown: Vec<String> = cap.summaries().iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "a.jsonl: 250 more input errors not listed (a report lists the first 100 of each input)",
                "b.jsonl: 7 more input errors not listed (a report lists the first 100 of each input)",
            ]
        );
    }

    #[test]
    fn counts_saturate() {
        let mut cap = IssueCap::default();
        cap.omit("a", u64::MAX);
        cap.omit("a", 5);
        cap.omit("b", u64::MAX);
        assert_eq!(cap.omitted(), u64::MAX);
        let mut c = Coverage {
            decided: usize::MAX,
            total: usize::MAX - 1,
        };
        c.add(Coverage {
            decided: 3,
            total: 3,
        });
        assert_eq!((c.decided, c.total), (usize::MAX, usize::MAX));
    }
}
