//! Gathering inputs, traces and issues into a `Report`, and the exit status it ends with.

use std::collections::BTreeMap;

use crate::config::Ignore;
use crate::exit::ExitStatus;
use crate::finding::{Coverage, Finding, InputIssue, IssueCap, RuleId, Tier};
use crate::record::InputDetail;
use crate::reporters::{ExcerptCut, InputSummary, Outline, Report, RuleCoverage, Summary};
use crate::rules::{self};

use super::{Settle, TraceLint};

/// Total bytes of evidence excerpts one report carries; past it, excerpts are left out (with a
/// note) so a corpus with millions of findings cannot make a report of unbounded size.
pub const EXCERPT_BUDGET: usize = 16 << 20;

/// Gathers inputs, traces and issues into a `Report`.
#[derive(Debug, Default)]
pub struct ReportBuilder {
    report: Report,
    coverage: BTreeMap<RuleId, (&'static str, Coverage)>,
    /// `None`: `EXCERPT_BUDGET`.
    excerpt_budget: Option<usize>,
    /// Streaming: suppressions counted but not kept (they are not listed).
    dropped_suppressions: Option<usize>,
    /// Per-input coverage by rule and tool, and record quality (`keep_details`).
    details: Option<Vec<InputDetail>>,
    /// Which input errors are listed (the first of each input) and how many are only counted.
    issue_cap: IssueCap,
}

impl ReportBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep each input's coverage by rule and tool and its record (`Report::details`).
    pub fn keep_details(&mut self) {
        self.details.get_or_insert_with(Vec::new);
    }

    /// Set the total size of evidence excerpts kept (tests use a small one).
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn with_excerpt_budget(mut self, bytes: usize) -> Self {
        self.excerpt_budget = Some(bytes);
        self
    }

    /// Register an input; returns its index.
    pub fn input(&mut self, path: &str) -> usize {
        self.report.inputs.push(InputSummary {
            path: path.to_owned(),
            ..InputSummary::default()
        });
        self.report.inputs.len() - 1
    }

    /// Record the format an input was read as.
    pub fn format(&mut self, input: usize, format: &str) {
        self.report.inputs[input].format = Some(format.to_owned());
    }

    /// Add a note about an input.
    pub fn note(&mut self, input: usize, note: String) {
        let notes = &mut self.report.inputs[input].notes;
        if !notes.contains(&note) {
            notes.push(note);
        }
    }

    /// Take back a note (an input error says it instead).
    pub fn unnote(&mut self, input: usize, note: &str) {
        self.report.inputs[input].notes.retain(|n| n != note);
    }

    /// Add an input error: listed while its input has fewer than `MAX_ISSUES_PER_INPUT`
    /// listed, counted after that.
    pub fn issue(&mut self, issue: InputIssue) {
        if self.issue_cap.admit(&issue.path) {
            self.report.issues.push(issue);
        }
    }

    /// Count `n` input errors about `path` that a reader counted instead of passing on.
    pub fn issues_omitted(&mut self, path: &str, n: u64) {
        self.issue_cap.omit(path, n);
    }

    /// Add one linted trace of input `input`.
    pub fn trace(&mut self, input: usize, lint: TraceLint) {
        let findings = self.trace_streamed(input, lint);
        self.report.findings.extend(findings);
    }

    /// Streaming: stop keeping suppressions (only their number is reported). For a run whose
    /// suppressions are not listed.
    pub fn count_suppressions_only(&mut self) {
        self.dropped_suppressions.get_or_insert(0);
    }

    /// Add one linted trace of input `input` and hand its findings back (in rule order, with
    /// their input set) instead of keeping them: the caller settles and writes them.
    pub fn trace_streamed(&mut self, input: usize, mut lint: TraceLint) -> Vec<Finding> {
        if !lint.tallied {
            self.tally(input, &mut lint);
        }
        let summary = &mut self.report.inputs[input];
        for n in lint.notes {
            if !summary.notes.contains(&n) {
                summary.notes.push(n);
            }
        }
        // Kept (listed) suppressions, in the order they came, each with its input.
        for mut s in lint.outcome.suppressions {
            s.input = input;
            self.report.suppressions.push(s);
        }
        if let Some(mut o) = lint.outline {
            o.input = input;
            self.report.outlines.push(o);
        }
        let mut findings = lint.outcome.findings;
        for f in &mut findings {
            f.input = input;
        }
        findings
    }

    /// Add up what a linted trace of input `input` counts for (its calls, schemas, coverage,
    /// record figures, and its suppressions when they are only counted) and drop that from
    /// `lint`, which keeps what is written in order (findings, notes, outline, listed
    /// suppressions). A trace held until the rest of its input is read (formats whose traces
    /// are not written one by one) then costs about its findings, not its whole outcome.
    /// `trace_streamed` does this for a trace not yet tallied. Traces of one input are to be
    /// tallied in their order (schemas are listed in order of first appearance).
    pub fn tally(&mut self, input: usize, lint: &mut TraceLint) {
        lint.tallied = true;
        let summary = &mut self.report.inputs[input];
        summary.traces += 1;
        summary.tool_calls += lint.calls;
        summary.partial |= lint.partial;
        for s in std::mem::take(&mut lint.schemas) {
            if !summary.schemas.contains(&s) {
                summary.schemas.push(s);
            }
        }
        if let Some(details) = &mut self.details {
            if details.len() <= input {
                details.resize_with(input + 1, InputDetail::default);
            }
            let d = &mut details[input];
            for (rule, unit, c) in &lint.outcome.coverage {
                let r = d.rules.entry(*rule).or_default();
                r.unit = unit;
                r.coverage.add(*c);
            }
            for (rule, tools) in &lint.outcome.tool_coverage {
                let r = d.rules.entry(*rule).or_default();
                for (tool, c) in tools {
                    r.tools.entry(tool.clone()).or_default().add(*c);
                }
            }
            for sup in &lint.outcome.suppressions {
                if let Some(tool) = &sup.tool {
                    d.rules
                        .entry(sup.rule)
                        .or_default()
                        .suppressed
                        .insert(tool.clone());
                }
            }
            if let Some(record) = &lint.record {
                d.record.add(record);
            }
        }
        lint.record = None;
        lint.outcome.tool_coverage = Vec::new();
        for (rule, unit, c) in std::mem::take(&mut lint.outcome.coverage) {
            self.coverage
                .entry(rule)
                .or_insert((unit, Coverage::default()))
                .1
                .add(c);
        }
        if let Some(n) = &mut self.dropped_suppressions {
            *n += lint.outcome.suppressions.len();
            lint.outcome.suppressions = Vec::new();
        }
    }

    /// `report`: an input as a shard recorded it (its excerpt budget note left out: settling
    /// adds it back where the union runs out); returns its index.
    pub fn restored_input(&mut self, summary: InputSummary) -> usize {
        self.report.inputs.push(summary);
        self.report.inputs.len() - 1
    }

    /// `report`: findings, suppressions, outlines and coverage as shards recorded them.
    pub fn restored(
        &mut self,
        findings: Vec<Finding>,
        suppressions: Vec<crate::finding::Suppression>,
        outlines: Vec<Outline>,
        coverage: Vec<RuleCoverage>,
    ) {
        self.report.findings.extend(findings);
        self.report.suppressions.extend(suppressions);
        self.report.outlines.extend(outlines);
        for c in coverage {
            self.coverage
                .entry(c.rule)
                .or_insert((c.unit, Coverage::default()))
                .1
                .add(c.coverage);
        }
    }

    /// `report`: sort and settle findings that shards settled once (ignores and the baseline
    /// applied there, the excerpt budget re-applied over the union) and decide the exit status
    /// as `check` would.
    pub fn finish_restored(mut self, fail_on: Tier, report_only: bool, budget: usize) -> Report {
        let r = &mut self.report;
        r.findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let mut settle = Settle::new(&[], fail_on, budget).report_only(report_only);
        for (i, input) in r.inputs.iter_mut().enumerate() {
            if let Some(cut) = input.excerpts_cut.take() {
                settle.spent_at(i, cut);
            }
        }
        let mut findings = std::mem::take(&mut r.findings);
        for f in &mut findings {
            settle.finding(f, "");
        }
        r.findings = findings;
        self.finish_settled(settle)
    }

    /// The path of input `input`.
    pub fn path_of(&self, input: usize) -> &str {
        self.report.path_of(input)
    }

    /// The excerpt budget in force.
    pub fn excerpt_budget(&self) -> usize {
        self.excerpt_budget.unwrap_or(EXCERPT_BUDGET)
    }

    /// The report so far (inputs, issues; findings only when kept).
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Keep only the outlines `keep` says (those of traces whose findings are all left out of a
    /// capped listing go).
    pub fn retain_outlines(&mut self, mut keep: impl FnMut(&Outline) -> bool) {
        self.report.outlines.retain(|o| keep(o));
    }

    /// Mark an input partial (a record could not be read).
    pub fn partial(&mut self, input: usize) {
        self.report.inputs[input].partial = true;
    }

    /// Sort, apply ignores, count, and decide the exit status.
    pub fn finish(self, fail_on: Tier, ignores: &[Ignore]) -> Report {
        let settle = Settle::new(
            ignores,
            fail_on,
            self.excerpt_budget.unwrap_or(EXCERPT_BUDGET),
        );
        self.finish_with(settle)
    }

    /// Sort, settle every input's findings with `settle` (ignores, a baseline), count, and
    /// decide the exit status.
    pub fn finish_with(mut self, mut settle: Settle<'_>) -> Report {
        let r = &mut self.report;
        r.findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let mut findings = std::mem::take(&mut r.findings);
        for batch in findings.chunk_by_mut(|a, b| a.input == b.input) {
            let path = r.path_of(batch[0].input).to_owned();
            settle.batch(batch, &path);
        }
        r.findings = findings;
        self.finish_settled(settle)
    }

    /// Finish a report whose findings were settled (and, streaming, written) already.
    pub fn finish_settled(mut self, settle: Settle<'_>) -> Report {
        let r = &mut self.report;
        r.suppressions.sort_by(|a, b| {
            (
                a.input,
                a.at.as_ref().map(|l| (l.line, l.column)),
                a.rule,
                &a.reason,
            )
                .cmp(&(
                    b.input,
                    b.at.as_ref().map(|l| (l.line, l.column)),
                    b.rule,
                    &b.reason,
                ))
        });
        r.issues.sort();
        r.issues.dedup();
        let listed = r.issues.len();
        let omitted = usize::try_from(self.issue_cap.omitted()).unwrap_or(usize::MAX);
        // After its listed input errors, each input's count of those not listed.
        r.issues.extend(self.issue_cap.summaries());
        for (input, (finding, evidence)) in &settle.cut {
            if let Some(i) = r.inputs.get_mut(*input) {
                i.notes.push(ExcerptCut::note(settle.budget));
                i.excerpts_cut = Some(ExcerptCut {
                    budget: settle.budget,
                    finding: *finding,
                    evidence: *evidence,
                });
            }
        }
        r.unmatched_ignores = settle
            .ignores
            .iter()
            .zip(&settle.used)
            .filter(|(_, u)| !**u)
            .map(|(ig, _)| {
                let rules: Vec<&str> = ig.rules.iter().map(|r| r.as_str()).collect();
                format!("{} ({})", ig.declared_at, rules.join(", "))
            })
            .collect();
        r.coverage = self
            .coverage
            .into_iter()
            .map(|(rule, (unit, coverage))| RuleCoverage {
                rule,
                unit,
                coverage,
            })
            .collect();
        r.rules = rules::RULES.iter().map(|rule| rule.meta()).collect();
        r.fail_on = Some(settle.fail_on);
        r.report_only = settle.report_only;
        r.summary = Summary {
            inputs: r.inputs.len(),
            // Saturating: `report` reads these counts from shards, which are untrusted.
            traces: r.inputs.iter().fold(0, |n, i| n.saturating_add(i.traces)),
            tool_calls: r.inputs.iter().fold(0, |n, i| n.saturating_add(i.tool_calls)),
            hard_defect: settle.counts[0],
            hard_event: settle.counts[1],
            candidate: settle.counts[2],
            ignored: settle.ignored,
            baselined: settle.baselined,
            suppressions: r.suppressions.len() + self.dropped_suppressions.unwrap_or(0),
            input_errors: listed.saturating_add(omitted),
            tools: 0,
        };
        if let Some(mut details) = self.details {
            details.resize_with(r.inputs.len(), InputDetail::default);
            r.details = details;
        }
        r.exit = if r.issues.is_empty() {
            settle.status
        } else {
            settle.status.max(ExitStatus::InputError)
        };
        self.report
    }
}

