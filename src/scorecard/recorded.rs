//! The recovery scorecard of recorded runs (`scorecard --runs DIR --oracle ORACLE.toml`): MCP
//! sessions that `tracelint mcp proxy` recorded, grouped into a baseline (recorded with no
//! injection) and one set per injected fault; each run judged by a deterministic oracle written
//! in the expectations language (`crate::expect`: every expectation that selects the run must
//! be met; an undecidable one leaves the run unscored), or without one by behaviour (after the
//! fault the agent still got a successful result: the weaker claim). Per fault: recovered/total,
//! rate, a 95 % Wilson interval, and how many runs tracelint flagged. Plain data and rendering;
//! reading files is the command's.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::expect::{ExpectFile, Verdict};
use crate::finding::Tier;
use crate::lint::Linter;
use crate::model::{ATTR_INJECTION, ResultStatus, StepKind, Trace};

use super::faults::Fault;
use super::stats::wilson;
use super::{Baseline, FaultRow, RecoveryKind, round4};

/// A run that was not scored, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Unscored {
    /// The run.
    pub run_id: String,
    /// Its file.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// The scorecard of recorded runs.
#[derive(Debug, Clone, Serialize)]
pub struct RunsCard {
    /// Wire version.
    pub version: u32,
    /// Correctness (an oracle) or behavioural.
    pub recovery: RecoveryKind,
    /// The oracle file, when one judged the runs.
    pub oracle: Option<String>,
    /// Runs recorded with no injection.
    pub baseline: Baseline,
    /// One row per injected fault (in SPEC order; a run with several faults is its own row).
    pub faults: Vec<FaultRow>,
    /// Runs left out.
    pub unscored: Vec<Unscored>,
}

enum Judged {
    Pass,
    Fail,
    Unscored(String),
}

fn judge(trace: &Trace, oracle: Option<&ExpectFile>, injected: bool) -> Judged {
    match oracle {
        Some(file) => {
            let verdicts = file.evaluate(trace);
            if verdicts.is_empty() {
                return Judged::Unscored("no expectation of the oracle selects this run".into());
            }
            for (e, v) in &verdicts {
                if let Verdict::Undecidable(u) = v {
                    return Judged::Unscored(format!("`{}` cannot be decided: {}", e.id, u.reason));
                }
            }
            if verdicts.iter().all(|(_, v)| v.is_met()) {
                Judged::Pass
            } else {
                Judged::Fail
            }
        }
        None => {
            // Behavioural: a successful result after the (first) injected one, or, in a run
            // without a fault, any successful result at all.
            let first = trace
                .steps
                .iter()
                .position(|s| s.meta.injected)
                .filter(|_| injected);
            let after = first.map_or(0, |i| i + 1);
            let ok = trace.steps[after.min(trace.steps.len())..].iter().any(
                |s| matches!(&s.kind, StepKind::ToolResult(r) if r.status == ResultStatus::Ok),
            );
            if ok { Judged::Pass } else { Judged::Fail }
        }
    }
}

/// The fault group of a run: the faults it was recorded with (`None`: the baseline).
fn group(trace: &Trace) -> Option<String> {
    trace
        .attribute(ATTR_INJECTION)
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
}

fn order(name: &str) -> (usize, String) {
    let i = Fault::parse(name)
        .and_then(|f| Fault::ALL.iter().position(|x| *x == f))
        .unwrap_or(Fault::ALL.len());
    (i, name.to_owned())
}

/// Score recorded runs.
pub fn score(traces: &[Trace], oracle: Option<(&ExpectFile, &str)>) -> RunsCard {
    let linter = Linter::new(
        None,
        crate::rules::Selection::default(),
        crate::rules::RuleSettings::default(),
    );
    let mut baseline = Baseline {
        passed: 0,
        runs: 0,
        measured: false,
    };
    let mut rows: BTreeMap<(usize, String), FaultRow> = BTreeMap::new();
    let mut unscored = Vec::new();
    for t in traces {
        let g = group(t);
        let verdict = judge(t, oracle.map(|o| o.0), g.is_some());
        let pass = match verdict {
            Judged::Pass => true,
            Judged::Fail => false,
            Judged::Unscored(reason) => {
                unscored.push(Unscored {
                    run_id: t.run_id.clone(),
                    file: t.source.path.clone(),
                    reason,
                });
                continue;
            }
        };
        let Some(g) = g else {
            baseline.runs += 1;
            baseline.passed += u32::from(pass);
            continue;
        };
        let lint = linter.lint(t);
        let row = rows.entry(order(&g)).or_insert_with(|| FaultRow {
            fault: leak(&g),
            recovered: 0,
            total: 0,
            rate: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
            flagged: 0,
            hard_defect: 0,
        });
        row.total += 1;
        row.recovered += u32::from(pass);
        row.flagged += u32::from(!lint.outcome.findings.is_empty());
        row.hard_defect += u32::from(
            lint.outcome
                .findings
                .iter()
                .any(|f| f.tier == Tier::HardDefect),
        );
    }
    baseline.measured = baseline.runs > 0 && baseline.passed == baseline.runs;
    let measured = baseline.measured;
    let faults = rows
        .into_values()
        .map(|mut r| {
            let (lo, hi) = wilson(r.recovered, r.total).unwrap_or((0.0, 1.0));
            r.rate = round4(f64::from(r.recovered) / f64::from(r.total.max(1)));
            r.ci_low = round4(lo);
            r.ci_high = round4(hi);
            r
        })
        .collect();
    RunsCard {
        version: 1,
        recovery: if oracle.is_some() {
            RecoveryKind::Correctness
        } else {
            RecoveryKind::Behavioural
        },
        oracle: oracle.map(|o| o.1.to_owned()),
        baseline,
        faults: if measured { faults } else { Vec::new() },
        unscored,
    }
}

/// A fault group's name for the row (the row type borrows a `'static` name; groups are few and
/// the process short-lived).
fn leak(name: &str) -> &'static str {
    match Fault::parse(name) {
        Some(f) => f.name(),
        None => Box::leak(name.to_owned().into_boxed_str()),
    }
}

const KIND_NOTE_ORACLE: &str =
    "recovered = correctness recovery: every expectation of the oracle that selects the run is met";
const KIND_NOTE_BEHAVIOUR: &str = "recovered = behavioural recovery only (no oracle): the agent got a successful result after the fault — a weaker claim than correctness";

/// The card as a table.
pub fn render_text(c: &RunsCard, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(
        out,
        "recovery scorecard of recorded runs{}",
        c.oracle
            .as_deref()
            .map(|o| format!(" — oracle: {o}"))
            .unwrap_or_default()
    )?;
    if !c.baseline.measured {
        writeln!(
            out,
            "baseline: {}/{} runs recorded without a fault pass: {}, so recovery is not measured",
            c.baseline.passed,
            c.baseline.runs,
            if c.baseline.runs == 0 {
                "there is no baseline (record runs without `--inject`)"
            } else {
                "the baseline fails its oracle"
            }
        )?;
    } else {
        super::write_rows(out, c.baseline.passed, c.baseline.runs, &c.faults)?;
        writeln!(
            out,
            "\n{}",
            match c.recovery {
                RecoveryKind::Correctness => KIND_NOTE_ORACLE,
                RecoveryKind::Behavioural => KIND_NOTE_BEHAVIOUR,
            }
        )?;
    }
    if !c.unscored.is_empty() {
        writeln!(out, "{} run(s) not scored:", c.unscored.len())?;
        for u in c.unscored.iter().take(10) {
            writeln!(out, "  {} ({}): {}", u.run_id, u.file, u.reason)?;
        }
    }
    Ok(())
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The card as a self-contained HTML page.
pub fn render_html(c: &RunsCard) -> String {
    let mut rows = String::new();
    for r in &c.faults {
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}/{}</td><td>{:.2}</td><td>[{:.2}, {:.2}]</td><td>{}/{}</td><td>{}/{}</td></tr>\n",
            esc(r.fault), r.recovered, r.total, r.rate, r.ci_low, r.ci_high, r.flagged, r.total, r.hard_defect, r.total
        ));
    }
    let note = match c.recovery {
        RecoveryKind::Correctness => KIND_NOTE_ORACLE,
        RecoveryKind::Behavioural => KIND_NOTE_BEHAVIOUR,
    };
    let baseline = if c.baseline.measured {
        format!(
            "baseline: {}/{} runs pass without any fault",
            c.baseline.passed, c.baseline.runs
        )
    } else {
        format!(
            "baseline: {}/{} runs pass without any fault: recovery is not measured",
            c.baseline.passed, c.baseline.runs
        )
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tracelint recovery scorecard</title>\n\
<style>body{{font-family:system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.3em .7em;text-align:right}}td:first-child,th:first-child{{text-align:left}}</style></head>\n\
<body><h1>Recovery scorecard of recorded runs</h1>\n<p>oracle: {}</p>\n<p>{}</p>\n\
<table><tr><th>fault</th><th>recovered</th><th>rate</th><th>95% CI (Wilson)</th><th>flagged</th><th>hard_defect</th></tr>\n{}</table>\n<p>{}</p>\n<p>{} run(s) not scored</p>\n</body></html>\n",
        esc(c.oracle.as_deref().unwrap_or("none (behavioural)")),
        esc(&baseline),
        rows,
        esc(note),
        c.unscored.len()
    )
}
