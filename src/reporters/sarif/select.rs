//! Which results a log holds: GitHub code scanning's limits, and the cap that drops candidates
//! first, then hard events, never a hard defect (said in the log and on stderr).

use std::collections::{BTreeMap, VecDeque};

use crate::finding::{Finding, RuleId, Tier};

use super::super::Report;
use super::wire::Omitted;

// GitHub code scanning's documented limits on an uploaded SARIF file, from "SARIF results exceed
// one or more limits" (docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/
// results-exceed-limit: the table of maximum values and display limits), the same table in "SARIF
// support for code scanning" (.../integrating-with-code-scanning/sarif-support-for-code-scanning),
// and the REST endpoint "Upload an analysis as SARIF data" ("a maximum of 5000 results per analysis
// run. Any results over this limit are ignored and any SARIF uploads with more than 25,000 results
// are rejected"):
//   runs per file 20 (we write 1); rules per run 25,000 (we write one per rule); tags per rule 20,
//   10 shown (we write 2);
//   results per run 25,000 — a file with more is rejected — and "only the top 5,000 results will
//   be included, prioritized by severity" (the rest are dropped without a word in the log);
//   locations per result 1,000, of which 100 are included;
//   the gzip-compressed file at most 10 MB (".../troubleshooting-sarif-uploads/file-too-large").
// So by default a log holds at most 5,000 results, chosen here rather than by GitHub: candidates
// are the first to go, then hard events; a hard defect never is. `--sarif-max-results` changes
// the cap.

/// Results per run GitHub code scanning stores and shows: the default cap.
pub const GITHUB_RESULTS_KEPT: usize = 5_000;
/// Results per run past which GitHub code scanning rejects the whole file.
pub const GITHUB_RESULTS_ACCEPTED: usize = 25_000;
/// Related locations kept per result (GitHub includes 100 locations of a result).
pub(super) const MAX_RELATED: usize = 99;

/// Which findings become results, and what was left out.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Per finding of the report: kept.
    pub(super) keep: Vec<bool>,
    /// Left out, by class (see `class`) and rule.
    omitted: BTreeMap<(usize, RuleId), usize>,
    /// Active hard defects (all kept).
    hard_defects: usize,
    /// The cap in force (`None`: no cap).
    cap: Option<usize>,
}

/// The order results are given up in: 0 active hard defects (never), 1 active hard events,
/// 2 active candidates, 3 ignored findings (accepted with a reason), last kept first to go.
fn class(f: &Finding) -> usize {
    if f.ignored.is_some() {
        return 3;
    }
    match f.tier {
        Tier::HardDefect => 0,
        Tier::HardEvent => 1,
        Tier::Candidate => 2,
    }
}

/// Choose at most `cap` results (every hard defect even past it): whole classes while they fit,
/// then the class that does not fit shared out round-robin by rule in report order, so one noisy
/// rule cannot crowd the others out.
pub fn select(report: &Report, cap: Option<usize>) -> Selection {
    let mut keep = vec![false; report.findings.len()];
    let mut by_class: [Vec<usize>; 4] = Default::default();
    for (i, f) in report.findings.iter().enumerate() {
        by_class[class(f)].push(i);
    }
    let mut slots = cap.map_or(usize::MAX, |c| c.saturating_sub(by_class[0].len()));
    let mut omitted = BTreeMap::new();
    for &i in &by_class[0] {
        keep[i] = true;
    }
    for (c, members) in by_class.iter().enumerate().skip(1) {
        if members.len() <= slots {
            slots -= members.len();
            for &i in members {
                keep[i] = true;
            }
            continue;
        }
        let mut by_rule: BTreeMap<RuleId, VecDeque<usize>> = BTreeMap::new();
        for &i in members {
            by_rule
                .entry(report.findings[i].rule)
                .or_default()
                .push_back(i);
        }
        while slots > 0 && by_rule.values().any(|q| !q.is_empty()) {
            for q in by_rule.values_mut() {
                if slots == 0 {
                    break;
                }
                if let Some(i) = q.pop_front() {
                    keep[i] = true;
                    slots -= 1;
                }
            }
        }
        for (rule, q) in by_rule {
            if !q.is_empty() {
                omitted.insert((c, rule), q.len());
            }
        }
    }
    Selection {
        keep,
        omitted,
        hard_defects: by_class[0].len(),
        cap,
    }
}

impl Selection {
    /// Results left out, by tier.
    pub(super) fn omitted_counts(&self) -> Omitted {
        let mut o = Omitted::default();
        for ((c, _), n) in &self.omitted {
            match c {
                1 => o.hard_event += n,
                2 => o.candidate += n,
                _ => o.ignored += n,
            }
        }
        o
    }

    /// Results kept.
    pub fn kept(&self) -> usize {
        self.keep.iter().filter(|k| **k).count()
    }

    /// What the log leaves out and why, or what GitHub will refuse; empty when neither.
    pub fn notices(&self) -> Vec<String> {
        let mut out = Vec::new();
        let left: usize = self.omitted.values().sum();
        if left > 0 {
            let mut parts = Vec::new();
            for (c, one, many) in [
                (2, "candidate", "candidates"),
                (1, "hard event", "hard events"),
                (3, "ignored finding", "ignored findings"),
            ] {
                let rules: Vec<String> = self
                    .omitted
                    .iter()
                    .filter(|((k, _), _)| *k == c)
                    .map(|((_, r), n)| format!("{r} {n}"))
                    .collect();
                let n: usize = self
                    .omitted
                    .iter()
                    .filter(|((k, _), _)| *k == c)
                    .map(|(_, n)| n)
                    .sum();
                if n > 0 {
                    parts.push(format!(
                        "{n} {} ({})",
                        if n == 1 { one } else { many },
                        rules.join(", ")
                    ));
                }
            }
            out.push(format!(
                "left out {left} of {} results to stay within {} results per run (GitHub code scanning shows only the top {GITHUB_RESULTS_KEPT} and refuses a file with more than {GITHUB_RESULTS_ACCEPTED}): {}; every hard defect is kept; --sarif-max-results N changes the cap (0: none), and the JSON report lists every finding",
                self.keep.len(),
                self.cap.unwrap_or(0),
                parts.join(", ")
            ));
        }
        let kept = self.kept();
        if kept > GITHUB_RESULTS_ACCEPTED {
            let why = if self.hard_defects > GITHUB_RESULTS_ACCEPTED {
                format!("{} hard defects, all kept", self.hard_defects)
            } else {
                "no cap".to_owned()
            };
            out.push(format!(
                "the log holds {kept} results ({why}): GitHub code scanning refuses a run with more than {GITHUB_RESULTS_ACCEPTED}; lint fewer traces per upload"
            ));
        }
        out
    }
}
