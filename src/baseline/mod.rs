//! The baseline (`--baseline FILE`, `baseline` in `tracelint.toml`): the findings a project
//! accepts today, so CI fails only on new ones, and what each rule could check, so CI also fails
//! when a rule checks less (the coverage ratchet).
//!
//! A finding is matched per trace file by its semantic key — rule, finding type, tools, fields
//! and signal — and its tier, with counts; never by step index, line, value or run id, so a
//! re-recorded trace matches. A recorded finding accepts the same finding at its tier or a lower
//! one, never a higher one (a baselined candidate that becomes a hard defect is new). Only
//! findings at or above the run's gate are recorded. Trace files are named relative to the
//! baseline file, with `/`. The file format is `file.rs`'s, its contract
//! `baseline.schema.json`; the comparison of coverage is `ratchet.rs`'s.
//!
//! It owns matching and recording; it never reads traces, runs rules or prints.

mod entry;
mod file;
mod ratchet;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub use entry::{Baseline, FileEntry, Key};
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use file::{BaselineError, VERSION, parse, render};

use crate::finding::{Finding, RuleId, Tier};
use crate::reporters::paths::PathBase;
use crate::reporters::{BaselineReport, Report};
use crate::rules::Selection;

/// The JSON Schema of a baseline file.
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub const SCHEMA: &str = include_str!("baseline.schema.json");

/// How a run uses the baseline.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--update-baseline`: record instead of matching.
    pub update: bool,
    /// Fail (exit 1) on lost coverage.
    pub ratchet: bool,
    /// The run's gate: only findings at or above it are recorded.
    pub gate: Tier,
    /// The rules that run (entries of others are kept, never called stale).
    pub selection: Selection,
}

/// A baseline in use by one run: matching state while findings are settled, then the outcome.
#[derive(Debug)]
pub struct BaselineRun {
    /// The file, absolute.
    path: PathBuf,
    shown: String,
    /// Input paths made relative to the baseline's folder.
    base: PathBase,
    opts: Options,
    old: Baseline,
    /// Check: what is left to accept, per file, per key, per tier slot.
    left: HashMap<String, HashMap<Key, [u64; 3]>>,
    /// Update: what this run records, per file.
    recorded: BTreeMap<String, BTreeMap<(Key, Tier), u64>>,
    /// Input path → file key (`None`: stdin).
    keys: HashMap<String, Option<String>>,
    accepted: usize,
}

/// The reason an accepted finding carries.
pub const ACCEPTED: &str = "in the baseline";

fn slot(t: Tier) -> usize {
    match t {
        Tier::Candidate => 0,
        Tier::HardEvent => 1,
        Tier::HardDefect => 2,
    }
}

impl BaselineRun {
    /// Open the baseline at `path` (as given; relative to `cwd`). Without `--update-baseline` it
    /// must exist; with it, a missing file is an empty baseline.
    pub fn open(path: &Path, cwd: &Path, opts: Options) -> Result<Self, BaselineError> {
        let shown = path.display().to_string();
        let full = cwd.join(path);
        let old = if opts.update && !full.exists() {
            Baseline::default()
        } else {
            file::load(&full, &shown)?
        };
        Ok(Self {
            base: PathBase::new(cwd, full.parent().unwrap_or(cwd)),
            path: full,
            shown,
            opts,
            old,
            left: HashMap::new(),
            recorded: BTreeMap::new(),
            keys: HashMap::new(),
            accepted: 0,
        })
    }

    /// The baseline file as given.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The name an input has in the baseline (`None` for stdin).
    fn key_for(&mut self, input: &str) -> Option<String> {
        if let Some(k) = self.keys.get(input) {
            return k.clone();
        }
        let key = (input != "-").then(|| self.base.relative(input));
        self.keys.insert(input.to_owned(), key.clone());
        key
    }

    /// Settle one input's findings (those not ignored): accept what the baseline holds, or, when
    /// updating, record those at or above the gate (and accept them: the new baseline holds
    /// them).
    pub fn settle(&mut self, input: &str, findings: &mut [Finding]) {
        let Some(file) = self.key_for(input) else {
            return;
        };
        let mut order: Vec<usize> = (0..findings.len())
            .filter(|&i| findings[i].ignored.is_none())
            .collect();
        // Higher tiers first, each taking the lowest recorded tier that accepts it, so a
        // candidate never uses up the entry a hard defect of the same key needs.
        order.sort_by_key(|&i| std::cmp::Reverse(findings[i].tier));
        if self.opts.update {
            let rec = self.recorded.entry(file).or_default();
            for i in order {
                let f = &mut findings[i];
                if f.tier >= self.opts.gate {
                    *rec.entry((Key::of(f), f.tier)).or_default() += 1;
                    accept(f);
                    self.accepted += 1;
                }
            }
            return;
        }
        let old = &self.old;
        let left = self.left.entry(file.clone()).or_insert_with(|| {
            let mut m: HashMap<Key, [u64; 3]> = HashMap::new();
            if let Some(e) = old.files.get(&file) {
                for ((k, t), n) in &e.findings {
                    m.entry(k.clone()).or_default()[slot(*t)] += n;
                }
            }
            m
        });
        if left.is_empty() {
            return;
        }
        for i in order {
            let f = &mut findings[i];
            let Some(counts) = left.get_mut(&Key::of(f)) else {
                continue;
            };
            if let Some(n) = counts[slot(f.tier)..].iter_mut().find(|n| **n > 0) {
                *n -= 1;
                accept(f);
                self.accepted += 1;
            }
        }
    }

    /// After the run: stale entries, lost coverage, and (updating) the new file, written.
    /// `report` is the finished report, with `details` kept.
    pub fn finish(mut self, report: &Report) -> Result<BaselineReport, BaselineError> {
        let mut out = BaselineReport {
            path: self.shown.clone(),
            accepted: self.accepted,
            ..BaselineReport::default()
        };
        // The inputs read in this run, by baseline name, with their detail.
        let mut read: Vec<(String, usize)> = Vec::new();
        for (i, input) in report.inputs.iter().enumerate() {
            if input.format.is_none() {
                continue;
            }
            if let Some(k) = self.key_for(&input.path) {
                read.push((k, i));
            }
        }
        let selected = |r: RuleId| self.opts.selection.contains(r);
        if self.opts.update {
            let mut new = self.old.clone();
            new.gate = Some(self.opts.gate);
            let (mut findings, mut dropped) = (0u64, 0u64);
            let mut files = BTreeSet::new();
            for (name, i) in &read {
                let old = new.files.remove(name).unwrap_or_default();
                let mut entry = FileEntry {
                    findings: old
                        .findings
                        .iter()
                        .filter(|((k, _), _)| !selected(k.rule))
                        .map(|(k, n)| (k.clone(), *n))
                        .collect(),
                    checked: keep_unselected(&old.checked, &selected),
                    unchecked: keep_unselected(&old.unchecked, &selected),
                };
                let now = self.recorded.remove(name).unwrap_or_default();
                for ((k, t), n) in &old.findings {
                    if selected(k.rule) {
                        dropped +=
                            n.saturating_sub(now.get(&(k.clone(), *t)).copied().unwrap_or(0));
                    }
                }
                for (k, n) in now {
                    findings += n;
                    *entry.findings.entry(k).or_default() += n;
                }
                if let Some(d) = report.details.get(*i) {
                    for (rule, r) in &d.rules {
                        if r.coverage.decided > 0 {
                            let tools = r.tools.iter().filter(|(_, c)| c.decided > 0);
                            entry
                                .checked
                                .insert(*rule, tools.map(|(t, _)| t.clone()).collect());
                        }
                        if !r.suppressed.is_empty() {
                            entry.unchecked.insert(*rule, r.suppressed.clone());
                        }
                    }
                }
                if !entry.findings.is_empty() {
                    files.insert(name.clone());
                }
                new.files.insert(name.clone(), entry);
            }
            let mut recorded = format!(
                "recorded {findings} finding{} from {} trace file{} in {}",
                plural(findings),
                files.len(),
                plural(files.len() as u64),
                self.shown
            );
            if dropped > 0 {
                recorded.push_str(&format!(
                    "; dropped {dropped} that no longer occur{}",
                    if dropped == 1 { "s" } else { "" }
                ));
            }
            out.recorded = Some(recorded);
            file::write(&self.path, &self.shown, &new)?;
            return Ok(out);
        }
        if let Some(g) = self.old.gate
            && self.opts.gate < g
        {
            out.notes.push(format!(
                "{} was recorded failing on {g}; this run fails on {}: findings below {g} are not in it (re-record with `--update-baseline --fail-on {}`)",
                self.shown, self.opts.gate, self.opts.gate
            ));
        }
        for (name, i) in &read {
            let Some(entry) = self.old.files.get(name) else {
                continue;
            };
            // Entries never matched against (the file had no finding) are all left.
            let left = self.left.remove(name);
            for ((k, t), n) in &entry.findings {
                if !selected(k.rule) {
                    continue;
                }
                let unused = match &left {
                    Some(l) => l.get(k).map_or(0, |c| c[slot(*t)]),
                    None => *n,
                }
                .min(*n);
                if unused > 0 {
                    let times = if unused > 1 {
                        format!(" ×{unused}")
                    } else {
                        String::new()
                    };
                    let shown = &report.inputs[*i].path;
                    out.stale
                        .push(format!("{shown}: {}{times}", k.describe(*t)));
                }
            }
            if self.opts.ratchet
                && let Some(d) = report.details.get(*i)
            {
                // Named as the user gave the input, not as the baseline names it.
                let shown = &report.inputs[*i].path;
                out.lost
                    .extend(ratchet::compare(shown, entry, d, &self.opts.selection));
            }
        }
        if !self.opts.ratchet {
            out.notes
                .push("the coverage ratchet is off (`--no-ratchet` or `ratchet = false`)".into());
        }
        Ok(out)
    }
}

fn accept(f: &mut Finding) {
    f.baselined = true;
    f.ignored = Some(ACCEPTED.to_owned());
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn keep_unselected(
    m: &BTreeMap<RuleId, BTreeSet<String>>,
    selected: &impl Fn(RuleId) -> bool,
) -> BTreeMap<RuleId, BTreeSet<String>> {
    m.iter()
        .filter(|(r, _)| !selected(**r))
        .map(|(r, t)| (*r, t.clone()))
        .collect()
}

#[cfg(test)]
mod tests;
