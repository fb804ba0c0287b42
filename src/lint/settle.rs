//! Per-finding bookkeeping in report order: the excerpt budget, reasoned ignores, a baseline.

use std::collections::BTreeMap;

use crate::config::{Ignore, IgnoreIndex};
use crate::exit::ExitStatus;
use crate::finding::{Finding, Tier};
use crate::reporters::ExcerptCut;


/// Per-finding bookkeeping, applied in report order: the report's excerpt budget, reasoned
/// ignores, the baseline, the counts and the exit status. `ReportBuilder::finish` runs it over
/// every input's findings; a streaming `check` runs it over each batch just before writing it
/// (one batch per input when a baseline is in force, so its counts are matched over the input).
#[derive(Debug)]
pub struct Settle<'i> {
    pub(super) ignores: &'i [Ignore],
    pub(super) used: Vec<bool>,
    pub(super) budget: usize,
    pub(super) spent: usize,
    /// Per input, where its first excerpt was left out (finding ordinal, evidence).
    pub(super) cut: BTreeMap<usize, (usize, usize)>,
    /// Findings settled so far, per input (the ordinal of the next one).
    pub(super) seen: Vec<usize>,
    /// `report`: where each shard's excerpts ran out, past which the budget is spent.
    pub(super) spent_at: BTreeMap<usize, (usize, usize)>,
    pub(super) fail_on: Tier,
    pub(super) counts: [usize; 3],
    pub(super) ignored: usize,
    pub(super) baselined: usize,
    pub(super) status: ExitStatus,
    /// `--exit-zero` / `--fail-on never`: findings never raise the exit status.
    pub(super) report_only: bool,
    pub(super) baseline: Option<&'i mut crate::baseline::BaselineRun>,
    /// Which ignore covers a finding, by what that depends on (`IgnoreMemo`).
    memo: IgnoreMemo,
    /// The ignores' globs, compiled once.
    index: IgnoreIndex,
}

/// The ignore (its index, or none) that covers findings of one rule, tool and field, for the
/// input being settled: each such combination is looked up in the compiled ignores once, not
/// each finding.
#[derive(Debug, Default)]
struct IgnoreMemo {
    /// The input path the entries are for.
    path: String,
    hits: std::collections::HashMap<(crate::finding::RuleId, Option<String>, Option<String>), Option<usize>>,
}

/// Entries the memo holds before it starts over (bounds it over findings of many fields).
const MEMO_ENTRIES: usize = 1 << 16;

impl IgnoreMemo {
    fn first_match(
        &mut self,
        index: &IgnoreIndex,
        ignores: &[Ignore],
        f: &Finding,
        path: &str,
    ) -> Option<usize> {
        if ignores.is_empty() {
            return None;
        }
        if self.path != path || self.hits.len() >= MEMO_ENTRIES {
            self.hits.clear();
            path.clone_into(&mut self.path);
        }
        *self
            .hits
            .entry((f.rule, f.tool.clone(), f.field.clone()))
            .or_insert_with(|| index.first_match(ignores, f, path))
    }
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
            memo: IgnoreMemo::default(),
            index: IgnoreIndex::new(ignores),
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
            if let Some(i) = self.memo.first_match(&self.index, self.ignores, f, path) {
                self.used[i] = true;
                f.ignored = Some(self.ignores[i].reason.clone());
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
