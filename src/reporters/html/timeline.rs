//! Each run with findings as a step timeline: which steps are shown, the findings marked on the
//! steps they cite, and the links between a finding and its evidence steps.

use std::collections::{BTreeMap, BTreeSet};

use crate::finding::{Finding, Tier};

use super::super::{Report, StepKind};
use super::view::{clean, plural};
use super::{Mark, StepView, TraceView};

/// Where each outlined run's timeline is, and which of its steps it shows.
pub(super) struct Timelines<'r> {
    /// (input, run id) → (outline index, shown steps).
    by_run: BTreeMap<(usize, &'r str), (usize, BTreeSet<usize>)>,
}

impl<'r> Timelines<'r> {
    /// The timelines of the runs in `runs` that are outlined.
    pub(super) fn new(report: &'r Report, runs: &[(usize, &str)]) -> Self {
        let wanted: BTreeSet<(usize, &str)> = runs.iter().copied().collect();
        let mut by_run = BTreeMap::new();
        for (i, o) in report.outlines.iter().enumerate() {
            if !wanted.contains(&(o.input, o.run_id.as_str())) {
                continue;
            }
            by_run
                .entry((o.input, o.run_id.as_str()))
                .or_insert_with(|| (i, o.steps.iter().map(|s| s.index).collect()));
        }
        Self { by_run }
    }

    pub(super) fn run_href(&self, input: usize, run: &str) -> Option<String> {
        self.by_run
            .iter()
            .find(|((i, r), _)| *i == input && *r == run)
            .map(|(_, (k, _))| format!("#t{k}"))
    }

    pub(super) fn trace_href(&self, f: &Finding) -> Option<String> {
        self.by_run
            .get(&(f.input, f.run_id.as_str()))
            .map(|(i, _)| format!("#t{i}"))
    }

    pub(super) fn step_href(&self, f: &Finding, step: usize) -> Option<String> {
        let (i, shown) = self.by_run.get(&(f.input, f.run_id.as_str()))?;
        shown.contains(&step).then(|| format!("#t{i}-s{step}"))
    }
}

/// The class of a finding's mark on its primary step.
pub(super) fn mark_class(f: &Finding) -> &'static str {
    if f.ignored.is_some() {
        "ignored"
    } else {
        f.tier.as_str()
    }
}

/// The runs in `runs` that are outlined, in that order (the worst first), with their findings
/// marked on the steps they cite (a mark links to its finding's card when `drawn` has it) and
/// their first failure on top.
pub(super) fn traces(
    report: &Report,
    runs: &[(usize, &str)],
    drawn: &BTreeSet<usize>,
    chain: impl Fn(usize, &str) -> Option<super::ChainView>,
) -> Vec<TraceView> {
    // Findings by (input, run), in report order.
    let mut by_run: BTreeMap<(usize, &str), Vec<(usize, &Finding)>> = BTreeMap::new();
    for (i, f) in report.findings.iter().enumerate() {
        by_run
            .entry((f.input, f.run_id.as_str()))
            .or_default()
            .push((i, f));
    }
    let rank: BTreeMap<(usize, &str), usize> =
        runs.iter().enumerate().map(|(k, r)| (*r, k)).collect();
    let mut seen = BTreeSet::new();
    let mut views: Vec<(usize, TraceView)> = Vec::new();
    for (k, o) in report.outlines.iter().enumerate() {
        let Some(place) = rank.get(&(o.input, o.run_id.as_str())).copied() else {
            continue;
        };
        if !seen.insert((o.input, o.run_id.as_str())) {
            continue;
        }
        let Some(findings) = by_run.get(&(o.input, o.run_id.as_str())) else {
            continue;
        };
        let mut marks: BTreeMap<usize, Vec<Mark>> = BTreeMap::new();
        for (i, f) in findings {
            for (n, e) in f.evidence.iter().enumerate() {
                marks.entry(e.step).or_default().push(Mark {
                    href: drawn.contains(i).then(|| format!("#f{i}")),
                    class: if n == 0 { mark_class(f) } else { "evidence" },
                    label: if n == 0 {
                        f.rule.as_str().to_owned()
                    } else {
                        format!("{} evidence", f.rule)
                    },
                });
            }
        }
        let mut steps = Vec::with_capacity(o.steps.len());
        let mut next = 0;
        for s in &o.steps {
            steps.push(StepView {
                gap: s.index.saturating_sub(next),
                id: format!("t{k}-s{}", s.index),
                index: s.index,
                kind: s.kind.as_str(),
                text: match (&s.tool, s.kind) {
                    (Some(tool), StepKind::Ok | StepKind::Error | StepKind::Result) => {
                        clean(&format!("{tool} → {}", s.text))
                    }
                    _ => clean(&s.text),
                },
                line: s.line,
                marks: marks.remove(&s.index).unwrap_or_default(),
            });
            next = s.index + 1;
        }
        let count = |t: Tier| {
            findings
                .iter()
                .filter(|(_, f)| f.ignored.is_none() && f.tier == t)
                .count()
        };
        let mut counts = Vec::new();
        for (t, one, many) in [
            (Tier::HardDefect, "hard defect", "hard defects"),
            (Tier::HardEvent, "hard event", "hard events"),
            (Tier::Candidate, "candidate", "candidates"),
        ] {
            let n = count(t);
            if n > 0 {
                counts.push(format!("{n} {}", plural(n, one, many)));
            }
        }
        let ignored = findings.iter().filter(|(_, f)| f.ignored.is_some()).count();
        if ignored > 0 {
            counts.push(format!("{ignored} ignored"));
        }
        views.push((
            place,
            TraceView {
                id: format!("t{k}"),
                file: clean(report.path_of(o.input)),
                run_id: clean(&o.run_id),
                total: o.total,
                counts: counts.join(", "),
                open: count(Tier::HardDefect) > 0,
                chain: chain(o.input, &o.run_id),
                gap_after: o.total.saturating_sub(next),
                steps,
            },
        ));
    }
    views.sort_by_key(|(key, _)| *key);
    views.into_iter().map(|(_, v)| v).collect()
}
