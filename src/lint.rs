//! The linting engine behind `check` and the library API: pick the registry in force for a
//! trace (the given one, or the schemas the trace carries), run the selected rules, and gather
//! per-input results into a sorted `Report` with ignores applied and the exit status decided.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::config::Ignore;
use crate::exit::ExitStatus;
use crate::finding::{Coverage, Finding, InputIssue, RuleId, Tier};
use crate::model::{
    ATTR_AGENT, ATTR_CLAUDE_CODE_VERSION, SchemaSource, ToolRegistry, ToolSpec, Trace,
};
use crate::record::InputDetail;
use crate::reporters::{ExcerptCut, InputSummary, Outline, Report, RuleCoverage, Summary};
use crate::rules::{self, RuleSettings, RunCx, Selection, TraceCx, TraceOutcome};
use crate::sources::builtin::codex::{Choice, CodexTools};
use crate::sources::builtin::gemini::GeminiTools;
use crate::sources::builtin::{Agent, ClaudeCodeTools};

pub(crate) mod listing;
mod outline;

/// A built-in registry built once per run: the agent's capture it was built from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum BuiltinKey {
    ClaudeCode(usize),
    Codex(Choice),
    GeminiCli(usize),
}

/// What to lint with: the given registry (if any), rule selection and settings.
#[derive(Debug, Default)]
pub struct Linter {
    /// The registry from `--tools`; `None` means "use what each trace carries" (and, for a
    /// coding agent's own session, that agent's built-in schemas).
    pub given: Option<ToolRegistry>,
    /// `--tools builtin:AGENT` (unpinned): for every trace, that agent's capture matched to the
    /// session, merged under the other given sources (which win on a name both declare).
    pub follow: Vec<Agent>,
    /// Which rules run.
    pub selection: Selection,
    /// Compiled schemas and rule settings, shared across traces.
    pub run: RunCx,
    /// Built-in registries by capture, built once per run.
    builtin_cache: Mutex<HashMap<BuiltinKey, Arc<ToolRegistry>>>,
    /// Measure each trace's record against the registry in force (`doctor`).
    pub measure_record: bool,
    /// Outline each trace with findings (the HTML timeline, JSON Lines).
    pub outlines: bool,
}

/// One linted trace.
#[derive(Debug, Default)]
pub struct TraceLint {
    /// What the rules found.
    pub outcome: TraceOutcome,
    /// Where the schemas in force came from.
    pub schemas: Vec<String>,
    /// Tool calls in the trace.
    pub calls: usize,
    /// Notes for the report (which built-in schema version was used, …).
    pub notes: Vec<String>,
    /// The trace was partial.
    pub partial: bool,
    /// The trace's run id.
    pub run_id: String,
    /// The trace is a copy of one that has its own file (a Claude Code sub-agent read from
    /// `agent_progress` mirror lines): dropped when that file is linted in the same run.
    pub mirror: bool,
    /// The trace's adapter emits traces one after another, each past the last one's lines
    /// (native traces): its findings can be written as soon as it is linted.
    pub ordered: bool,
    /// The trace's record quality (when `Linter::measure_record`).
    pub record: Option<Box<crate::record::RecordStats>>,
    /// The trace's outline, when asked for and it has findings.
    pub outline: Option<Outline>,
}

impl TraceLint {
    /// The facts about `trace` that do not need linting (for `--parse-only` and mirrors).
    pub fn of(trace: &Trace) -> Self {
        Self {
            calls: trace.call_count(),
            partial: trace.partial,
            run_id: trace.run_id.clone(),
            mirror: trace.attribute(crate::model::ATTR_MIRROR).is_some(),
            ordered: trace.source.format == "native",
            ..Self::default()
        }
    }
}

impl Linter {
    /// A linter with the given registry (or none) and default rules.
    pub fn new(given: Option<ToolRegistry>, selection: Selection, settings: RuleSettings) -> Self {
        Self {
            given,
            follow: Vec::new(),
            selection,
            run: RunCx {
                settings,
                ..RunCx::default()
            },
            builtin_cache: Mutex::default(),
            measure_record: false,
            outlines: false,
        }
    }

    /// `agent`'s built-in registry matched to a trace's session, and the note saying which
    /// capture was used.
    fn builtin_for(&self, agent: Agent, trace: &Trace) -> (Arc<ToolRegistry>, String) {
        let own = Agent::of(trace.attribute(ATTR_AGENT)) == Some(agent);
        let attr = |k: &str| if own { trace.attribute(k) } else { None };
        let (key, matched) = match agent {
            Agent::ClaudeCode => {
                let (idx, m) =
                    ClaudeCodeTools::get().choose(trace.attribute(ATTR_CLAUDE_CODE_VERSION));
                (BuiltinKey::ClaudeCode(idx), m)
            }
            Agent::Codex => {
                let (c, m) = CodexTools::get().choose(
                    attr(crate::model::ATTR_AGENT_VERSION),
                    attr(crate::model::ATTR_MODEL),
                );
                (BuiltinKey::Codex(c), m)
            }
            Agent::GeminiCli => {
                let (idx, m) = if own {
                    let mut used: Vec<&str> = trace
                        .steps
                        .iter()
                        .filter_map(|s| Some(s.as_call()?.name.as_str()))
                        .collect();
                    used.sort_unstable();
                    used.dedup();
                    GeminiTools::get().choose(
                        trace.attribute(crate::adapters::gemini::ATTR_STARTED),
                        &used,
                    )
                } else {
                    GeminiTools::get().pinned(None)
                };
                (BuiltinKey::GeminiCli(idx), m)
            }
        };
        let registry = {
            let mut cache = self
                .builtin_cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(cache.entry(key.clone()).or_insert_with(|| {
                Arc::new(match &key {
                    BuiltinKey::ClaudeCode(idx) => ClaudeCodeTools::get().registry(*idx),
                    BuiltinKey::Codex(c) => CodexTools::get().registry(c),
                    BuiltinKey::GeminiCli(idx) => GeminiTools::get().registry(*idx),
                })
            }))
        };
        let name = agent.display();
        let note = match matched.note {
            Some(n) => format!(
                "{name}'s built-in schemas, version {}: {n}",
                matched.version
            ),
            None => format!(
                "{name}'s built-in schemas, version {} (the session's own)",
                matched.version
            ),
        };
        (registry, note)
    }

    /// Lint one trace.
    pub fn lint(&self, trace: &Trace) -> TraceLint {
        self.with_registry(trace, |registry, schemas, notes| {
            let cx = TraceCx::new(trace, registry, &self.run);
            let outcome = rules::run(&cx, &self.selection);
            let outline = if self.outlines {
                outline::outline(trace, &outcome.findings)
            } else {
                None
            };
            TraceLint {
                outcome,
                schemas,
                notes,
                outline,
                record: self
                    .measure_record
                    .then(|| Box::new(crate::record::measure(trace, registry))),
                ..TraceLint::of(trace)
            }
        })
    }

    /// Run `f` with the registry in force for `trace` (the given one, the schemas the trace
    /// carries, Claude Code's built-in ones), where its schemas came from, and notes for the
    /// report.
    pub fn with_registry<R>(
        &self,
        trace: &Trace,
        f: impl FnOnce(&ToolRegistry, Vec<String>, Vec<String>) -> R,
    ) -> R {
        let owned: Arc<ToolRegistry>;
        let mut notes = Vec::new();
        // Only a coding agent's own session gets its built-in schemas: a trace of anything else
        // (seed 000's flat tool events, a chat log) gets none.
        let zero_config = Agent::of(trace.attribute(ATTR_AGENT))
            .filter(|_| trace.embedded_tools.iter().all(|t| t.schema.is_none()));
        let registry: &ToolRegistry = match (&self.given, zero_config) {
            (Some(given), _) if !self.follow.is_empty() => {
                let mut merged = ToolRegistry::new();
                for a in &self.follow {
                    let (builtin, note) = self.builtin_for(*a, trace);
                    notes.push(note);
                    for spec in builtin.iter() {
                        if merged.get(&spec.name).is_none() {
                            merged.replace(spec.clone());
                        }
                    }
                    merged.sources.extend(builtin.sources.iter().cloned());
                    merged.builtin |= builtin.builtin;
                }
                merged.closed |= given.closed;
                for spec in given.iter() {
                    merged.replace(spec.clone());
                }
                for s in &given.sources {
                    merged.sources.push(s.clone());
                }
                owned = Arc::new(merged);
                &owned
            }
            (Some(given), _) => given,
            (None, Some(agent)) => {
                let (builtin, note) = self.builtin_for(agent, trace);
                notes.push(format!("no `--tools` given: using {note}"));
                // Server tools the session called (the model's API ran them) come on top of
                // whatever else the registry holds.
                let (server, listed): (Vec<&ToolSpec>, Vec<&ToolSpec>) = trace
                    .embedded_tools
                    .iter()
                    .partition(|t| t.source.0 == crate::adapters::claude::SERVER_TOOLS_SOURCE);
                owned = if listed.is_empty() && server.is_empty() {
                    builtin
                } else {
                    let mut r = if listed.is_empty() {
                        (*builtin).clone()
                    } else {
                        // The session names the tools it had (stream-json `system/init`): judge
                        // names against that list, with built-in schemas where Claude Code has
                        // them.
                        let mut r = ToolRegistry::new();
                        for spec in listed {
                            if r.get(&spec.name).is_none() {
                                let _ = r.insert(spec.clone());
                            }
                        }
                        for spec in builtin.iter() {
                            if r.get(&spec.name).is_some() {
                                r.replace(spec.clone());
                            }
                        }
                        r.sources = builtin.sources.clone();
                        r
                    };
                    for spec in server {
                        if r.get(&spec.name).is_none() {
                            r.replace(spec.clone());
                        }
                    }
                    Arc::new(r)
                };
                &owned
            }
            (None, None) => {
                owned = Arc::new(embedded_registry(trace));
                &owned
            }
        };
        let schemas =
            if self.given.is_none() && notes.is_empty() && !trace.embedded_tools.is_empty() {
                embedded_sources(registry)
            } else {
                registry.sources.clone()
            };
        // The adapter's facts about the run (after `schemas`, which reads whether notes exist).
        notes.extend(
            trace
                .attributes
                .iter()
                .filter(|(k, _)| k == crate::model::ATTR_NOTE)
                .map(|(_, v)| v.clone()),
        );
        f(registry, schemas, notes)
    }
}

/// The registry of schemas a trace carries. The first declaration of a tool wins: a trace that
/// re-sends its tools with every request repeats them.
pub fn embedded_registry(trace: &Trace) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    for spec in &trace.embedded_tools {
        if r.get(&spec.name).is_none() {
            // Cannot fail: the name is new.
            let _ = r.insert(spec.clone());
        }
    }
    r
}

fn embedded_sources(r: &ToolRegistry) -> Vec<String> {
    let mut by_source: BTreeMap<&SchemaSource, usize> = BTreeMap::new();
    for spec in r.iter() {
        *by_source.entry(&spec.source).or_default() += 1;
    }
    by_source
        .into_iter()
        .map(|(s, n)| format!("{s} ({n} tool{})", if n == 1 { "" } else { "s" }))
        .collect()
}

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
}

/// Per-finding bookkeeping, applied in report order: the report's excerpt budget, reasoned
/// ignores, the baseline, the counts and the exit status. `ReportBuilder::finish` runs it over
/// every input's findings; a streaming `check` runs it over each batch just before writing it
/// (one batch per input when a baseline is in force, so its counts are matched over the input).
#[derive(Debug)]
pub struct Settle<'i> {
    ignores: &'i [Ignore],
    used: Vec<bool>,
    budget: usize,
    spent: usize,
    /// Per input, where its first excerpt was left out (finding ordinal, evidence).
    cut: BTreeMap<usize, (usize, usize)>,
    /// Findings settled so far, per input (the ordinal of the next one).
    seen: Vec<usize>,
    /// `report`: where each shard's excerpts ran out, past which the budget is spent.
    spent_at: BTreeMap<usize, (usize, usize)>,
    fail_on: Tier,
    counts: [usize; 3],
    ignored: usize,
    baselined: usize,
    status: ExitStatus,
    /// `--exit-zero` / `--fail-on never`: findings never raise the exit status.
    report_only: bool,
    baseline: Option<&'i mut crate::baseline::BaselineRun>,
}

impl<'i> Settle<'i> {
    /// Nothing settled yet.
    pub fn new(ignores: &'i [Ignore], fail_on: Tier, budget: usize) -> Self {
        Self {
            ignores,
            used: vec![false; ignores.len()],
            budget,
            spent: 0,
            cut: BTreeMap::new(),
            seen: Vec::new(),
            spent_at: BTreeMap::new(),
            fail_on,
            counts: [0; 3],
            ignored: 0,
            baselined: 0,
            status: ExitStatus::Clean,
            report_only: false,
            baseline: None,
        }
    }

    /// Findings never raise the exit status (`--exit-zero`, `--fail-on never`).
    pub fn report_only(mut self, yes: bool) -> Self {
        self.report_only = yes;
        self
    }

    /// Match findings against a baseline (or record them into it).
    pub fn with_baseline(mut self, baseline: Option<&'i mut crate::baseline::BaselineRun>) -> Self {
        self.baseline = baseline;
        self
    }

    /// Re-settling findings that were settled once already, by shards (`report`): where each
    /// input's excerpts ran out in its shard, the budget counts as spent (those excerpts are gone,
    /// and the union could only have run out earlier).
    pub fn spent_at(&mut self, input: usize, at: ExcerptCut) {
        self.spent_at.insert(input, (at.finding, at.evidence));
    }

    /// Settle the next finding in report order; `path` is its input's. A finding that arrives
    /// ignored or baselined already (re-settled by `report`) stays so.
    pub fn finding(&mut self, f: &mut Finding, path: &str) {
        self.batch(std::slice::from_mut(f), path);
    }

    /// Settle the next findings in report order, all of the input at `path`: reasoned ignores
    /// first, then the baseline (over the whole batch, so its counts and tiers are matched
    /// together), then the counts.
    pub fn batch(&mut self, findings: &mut [Finding], path: &str) {
        for f in findings.iter_mut() {
            if let Some((i, ig)) = self
                .ignores
                .iter()
                .enumerate()
                .find(|(_, ig)| ig.matches(f, path))
            {
                self.used[i] = true;
                f.ignored = Some(ig.reason.clone());
            }
        }
        if let Some(b) = self.baseline.as_deref_mut() {
            b.settle(path, findings);
        }
        for f in findings {
            self.count(f);
        }
    }

    fn count(&mut self, f: &mut Finding) {
        if self.seen.len() <= f.input {
            self.seen.resize(f.input + 1, 0);
        }
        let ordinal = self.seen[f.input];
        self.seen[f.input] += 1;
        for (k, e) in f.evidence.iter_mut().enumerate() {
            if self.spent_at.get(&f.input) == Some(&(ordinal, k)) {
                self.spent = self.spent.max(self.budget.saturating_add(1));
                self.cut.entry(f.input).or_insert((ordinal, k));
            }
            self.spent = self.spent.saturating_add(e.excerpt.len());
            if self.spent > self.budget && !e.excerpt.is_empty() {
                e.excerpt.clear();
                self.cut.entry(f.input).or_insert((ordinal, k));
            }
        }
        if f.baselined {
            self.baselined += 1;
            return;
        }
        if f.ignored.is_some() {
            self.ignored += 1;
            return;
        }
        if self.report_only {
            self.counts[tier_slot(f.tier)] += 1;
            return;
        }
        self.counts[match f.tier {
            Tier::HardDefect => 0,
            Tier::HardEvent => 1,
            Tier::Candidate => 2,
        }] += 1;
        self.status = self
            .status
            .max(exit_status(std::iter::once(&*f), self.fail_on, false));
    }
}

fn tier_slot(t: Tier) -> usize {
    match t {
        Tier::HardDefect => 0,
        Tier::HardEvent => 1,
        Tier::Candidate => 2,
    }
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

    /// Add an input error.
    pub fn issue(&mut self, issue: InputIssue) {
        self.report.issues.push(issue);
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
    pub fn trace_streamed(&mut self, input: usize, lint: TraceLint) -> Vec<Finding> {
        let summary = &mut self.report.inputs[input];
        summary.traces += 1;
        summary.tool_calls += lint.calls;
        summary.partial |= lint.partial;
        for s in lint.schemas {
            if !summary.schemas.contains(&s) {
                summary.schemas.push(s);
            }
        }
        for n in lint.notes {
            if !summary.notes.contains(&n) {
                summary.notes.push(n);
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
        for (rule, unit, c) in lint.outcome.coverage {
            self.coverage
                .entry(rule)
                .or_insert((unit, Coverage::default()))
                .1
                .add(c);
        }
        if let Some(n) = &mut self.dropped_suppressions {
            *n += lint.outcome.suppressions.len();
        } else {
            for mut s in lint.outcome.suppressions {
                s.input = input;
                self.report.suppressions.push(s);
            }
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
            traces: r.inputs.iter().map(|i| i.traces).sum(),
            tool_calls: r.inputs.iter().map(|i| i.tool_calls).sum(),
            hard_defect: settle.counts[0],
            hard_event: settle.counts[1],
            candidate: settle.counts[2],
            ignored: settle.ignored,
            baselined: settle.baselined,
            suppressions: r.suppressions.len() + self.dropped_suppressions.unwrap_or(0),
            input_errors: r.issues.len(),
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

/// The exit status for a set of active findings (SPEC §1: highest wins).
pub fn exit_status<'a>(
    active: impl Iterator<Item = &'a Finding>,
    fail_on: Tier,
    input_error: bool,
) -> ExitStatus {
    let mut status = if input_error {
        ExitStatus::InputError
    } else {
        ExitStatus::Clean
    };
    for f in active {
        let s = if f.tier == Tier::HardDefect {
            ExitStatus::HardDefect
        } else if f.tier >= fail_on {
            ExitStatus::GateTripped
        } else {
            ExitStatus::Clean
        };
        status = status.max(s);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{InputFormat, parse_bytes};

    #[test]
    fn excerpts_past_the_budget_are_left_out_with_a_note() {
        // Three calls of an unknown tool: three R7 findings with one excerpt each.
        let text = br#"{"run_id": "x", "steps": [
            {"type": "tool_call", "call_id": "a", "name": "nope", "args": {"q": "first"}},
            {"type": "tool_call", "call_id": "b", "name": "nope", "args": {"q": "second"}},
            {"type": "tool_call", "call_id": "c", "name": "nope", "args": {"q": "third"}}]}"#;
        let (_, parsed) = parse_bytes(text, "t.json", Some(InputFormat::Native));
        let registry = crate::sources::file::parse_tools_str(
            r#"{"tools": [{"name": "known"}]}"#,
            "tools.json",
        )
        .unwrap();
        // Only R7, so the test does not depend on what other rules say about these calls.
        let linter = Linter::new(
            Some(registry),
            crate::rules::Selection::new(&[RuleId::R7], &[]),
            RuleSettings::default(),
        );
        let mut builder = ReportBuilder::new().with_excerpt_budget(40);
        let input = builder.input("t.json");
        builder.trace(input, linter.lint(&parsed.traces[0]));
        let report = builder.finish(Tier::HardDefect, &[]);
        let excerpts: Vec<&str> = report
            .findings
            .iter()
            .flat_map(|f| f.evidence.iter().map(|e| e.excerpt.as_str()))
            .collect();
        assert_eq!(
            excerpts,
            [r#"nope {"q":"first"}"#, r#"nope {"q":"second"}"#, ""]
        );
        assert_eq!(
            report.inputs[0].notes,
            ["evidence excerpts past the report's limit of 40 bytes are left out"]
        );
    }
}
