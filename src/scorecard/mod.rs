//! The recovery scorecard (SPEC §8): run the built-in task with no fault (the baseline; if it
//! fails its oracle, recovery is not measured), then with each injected fault `runs` times, and
//! report per fault recovered/total, the rate and a 95 % Wilson interval — correctness recovery
//! with the oracle, or behavioural recovery (a weaker claim) without it. Every run's trace is
//! also linted, so the table shows how many runs tracelint flagged.

pub mod agent;
pub mod faults;
pub mod recorded;
pub mod stats;

use serde::Serialize;

use crate::finding::Tier;
use crate::lint::Linter;
use crate::rules::{RuleSettings, Selection};

use agent::Policy;
use faults::Fault;
use stats::{Rng, wilson};

/// How a run counts as recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryKind {
    /// The task's oracle says the outcome is correct.
    Correctness,
    /// The agent finished without crashing (no oracle): a weaker claim.
    Behavioural,
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which agent.
    pub policy: Policy,
    /// Which faults, in order.
    pub faults: Vec<Fault>,
    /// Runs per fault (and for the baseline).
    pub runs: u32,
    /// Seed of every draw.
    pub seed: u64,
    /// The call that gets the fault (1 = the first call).
    pub inject_at: usize,
    /// Judge with the oracle (correctness) or without (behavioural).
    pub kind: RecoveryKind,
}

/// One fault's row.
#[derive(Debug, Clone, Serialize)]
pub struct FaultRow {
    /// The fault.
    pub fault: &'static str,
    /// Runs that recovered.
    pub recovered: u32,
    /// Runs.
    pub total: u32,
    /// recovered / total.
    pub rate: f64,
    /// 95 % Wilson interval, low end.
    pub ci_low: f64,
    /// 95 % Wilson interval, high end.
    pub ci_high: f64,
    /// Runs in which tracelint reported at least one finding (any tier).
    pub flagged: u32,
    /// Runs with a hard defect (would fail CI).
    pub hard_defect: u32,
}

/// The baseline.
#[derive(Debug, Clone, Serialize)]
pub struct Baseline {
    /// Runs that satisfied the oracle (or finished, for behavioural).
    pub passed: u32,
    /// Runs.
    pub runs: u32,
    /// Whether recovery was measured (the baseline passed every run).
    pub measured: bool,
}

/// A finished scorecard.
#[derive(Debug, Clone, Serialize)]
pub struct Scorecard {
    /// Output version.
    pub version: u32,
    /// The task.
    pub task: &'static str,
    /// The agent.
    pub agent: &'static str,
    /// Correctness or behavioural.
    pub recovery: RecoveryKind,
    /// Seed.
    pub seed: u64,
    /// Runs per fault.
    pub runs: u32,
    /// The call that got the fault.
    pub inject_at: usize,
    /// Baseline result.
    pub baseline: Baseline,
    /// Per-fault rows (empty when the baseline failed).
    pub faults: Vec<FaultRow>,
}

/// The built-in task's oracle ("exactly order ord_7Hk2Qp cancelled"), written in the
/// expectations language (`oracle.toml`), parsed once.
pub fn oracle() -> &'static crate::expect::ExpectFile {
    static ORACLE: std::sync::OnceLock<crate::expect::ExpectFile> = std::sync::OnceLock::new();
    ORACLE.get_or_init(|| {
        crate::expect::ExpectFile::from_str(include_str!("oracle.toml"), "scorecard/oracle.toml")
            .expect("the built-in oracle is valid")
    })
}

/// Does a run satisfy the oracle? Every expectation must be met: one the trace cannot decide
/// is not a pass.
pub fn oracle_holds(trace: &crate::model::Trace) -> bool {
    oracle()
        .expectations
        .iter()
        .all(|e| e.evaluate(trace).is_met())
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Run a scorecard.
pub fn run(opts: &Options) -> Scorecard {
    let registry = crate::sources::file::parse_tools_str(agent::TOOLS, "scorecard tools")
        .expect("the built-in tools file is valid");
    let linter = Linter::new(
        Some(registry),
        Selection::default(),
        RuleSettings::default(),
    );
    let root = Rng::new(opts.seed);
    let judge = |t: &crate::model::Trace, o: &agent::RunOutcome| match opts.kind {
        RecoveryKind::Correctness => oracle_holds(t),
        RecoveryKind::Behavioural => o.finished,
    };
    let mut passed = 0;
    for i in 0..opts.runs {
        let mut rng = root.fork(u64::from(i));
        let (t, o) = agent::run(
            opts.policy,
            None,
            opts.inject_at,
            &mut rng,
            format!("baseline-{i}"),
        );
        passed += u32::from(judge(&t, &o));
    }
    let measured = opts.runs > 0 && passed == opts.runs;
    let mut rows = Vec::new();
    if measured {
        for (fi, fault) in opts.faults.iter().enumerate() {
            let mut row = FaultRow {
                fault: fault.name(),
                recovered: 0,
                total: opts.runs,
                rate: 0.0,
                ci_low: 0.0,
                ci_high: 0.0,
                flagged: 0,
                hard_defect: 0,
            };
            for i in 0..opts.runs {
                let stream = (fi as u64 + 1) * 1_000_003 + u64::from(i);
                let mut rng = root.fork(stream);
                let run_id = format!("{}-{}-{i}", opts.policy.name(), fault.name());
                let (trace, o) =
                    agent::run(opts.policy, Some(*fault), opts.inject_at, &mut rng, run_id);
                row.recovered += u32::from(judge(&trace, &o));
                let lint = linter.lint(&trace);
                row.flagged += u32::from(!lint.outcome.findings.is_empty());
                row.hard_defect += u32::from(
                    lint.outcome
                        .findings
                        .iter()
                        .any(|f| f.tier == Tier::HardDefect),
                );
            }
            let (lo, hi) = wilson(row.recovered, row.total).unwrap_or((0.0, 1.0));
            row.rate = round4(f64::from(row.recovered) / f64::from(row.total.max(1)));
            row.ci_low = round4(lo);
            row.ci_high = round4(hi);
            rows.push(row);
        }
    }
    Scorecard {
        version: 1,
        task: "order-support: cancel order A-1001 if it has not shipped",
        agent: opts.policy.name(),
        recovery: opts.kind,
        seed: opts.seed,
        runs: opts.runs,
        inject_at: opts.inject_at,
        baseline: Baseline {
            passed,
            runs: opts.runs,
            measured,
        },
        faults: rows,
    }
}

/// The measured baseline and one row per fault: the table both scorecards print (the built-in
/// task's and `--runs`' recorded sessions).
pub(crate) fn write_rows(
    out: &mut dyn std::io::Write,
    passed: u32,
    runs: u32,
    rows: &[FaultRow],
) -> std::io::Result<()> {
    writeln!(
        out,
        "baseline: {passed}/{runs} runs pass without any fault\n"
    )?;
    writeln!(
        out,
        "{:<15} {:>10} {:>6}  {:<16} {:>8} {:>12}",
        "fault", "recovered", "rate", "95% CI (Wilson)", "flagged", "hard_defect"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<15} {:>10} {:>6.2}  [{:.2}, {:.2}]     {:>8} {:>12}",
            r.fault,
            format!("{}/{}", r.recovered, r.total),
            r.rate,
            r.ci_low,
            r.ci_high,
            format!("{}/{}", r.flagged, r.total),
            format!("{}/{}", r.hard_defect, r.total),
        )?;
    }
    Ok(())
}

/// Render the scorecard as a text table.
pub fn render_text(s: &Scorecard, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(out, "recovery scorecard — task: {}", s.task)?;
    writeln!(
        out,
        "agent: {}, runs per fault: {}, seed: {}, fault injected at call {}",
        s.agent, s.runs, s.seed, s.inject_at
    )?;
    if !s.baseline.measured {
        writeln!(
            out,
            "baseline: {}/{} runs pass without any fault: the baseline fails its oracle, so recovery is not measured",
            s.baseline.passed, s.baseline.runs
        )?;
        return Ok(());
    }
    write_rows(out, s.baseline.passed, s.baseline.runs, &s.faults)?;
    match s.recovery {
        RecoveryKind::Correctness => writeln!(
            out,
            "\nrecovered = correctness recovery: the task's oracle (exactly order ord_7Hk2Qp cancelled) holds after the fault"
        )?,
        RecoveryKind::Behavioural => writeln!(
            out,
            "\nrecovered = behavioural recovery only (no oracle): the agent finished without crashing — a weaker claim than correctness"
        )?,
    }
    writeln!(
        out,
        "flagged = runs in which tracelint reported a finding; hard_defect = runs that would fail CI"
    )?;
    writeln!(out, "\nwhat each fault does, and what tracelint sees:")?;
    for r in &s.faults {
        let what = Fault::parse(r.fault).map_or("", Fault::explain);
        writeln!(out, "  {:<15} {what}", r.fault)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(policy: Policy, runs: u32) -> Options {
        Options {
            policy,
            faults: Fault::ALL.to_vec(),
            runs,
            seed: 42,
            inject_at: 1,
            kind: RecoveryKind::Correctness,
        }
    }

    #[test]
    fn robust_beats_buggy_on_error_and_denied_with_disjoint_intervals() {
        let robust = run(&opts(Policy::Robust, 50));
        let buggy = run(&opts(Policy::Buggy, 50));
        for fault in ["error", "denied"] {
            let r = robust.faults.iter().find(|r| r.fault == fault).unwrap();
            let b = buggy.faults.iter().find(|r| r.fault == fault).unwrap();
            assert!(r.ci_low > b.ci_high, "{fault}: robust {r:?} vs buggy {b:?}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_card() {
        let a = serde_json::to_string(&run(&opts(Policy::Robust, 10))).unwrap();
        let b = serde_json::to_string(&run(&opts(Policy::Robust, 10))).unwrap();
        assert_eq!(a, b);
        let mut o = opts(Policy::Robust, 10);
        o.seed = 43;
        assert_ne!(
            a,
            serde_json::to_string(&run(&o)).unwrap(),
            "the seed must matter"
        );
    }

    #[test]
    fn runs_are_independent_samples() {
        // The robust agent's retry is a draw: over 50 runs some recover and some stop safely.
        let card = run(&opts(Policy::Robust, 50));
        let e = card.faults.iter().find(|r| r.fault == "timeout").unwrap();
        assert!(e.recovered > 0 && e.recovered < e.total, "{e:?}");
    }

    #[test]
    fn tracelint_flags_the_buggy_agents_misuse() {
        let card = run(&opts(Policy::Buggy, 20));
        let e = card.faults.iter().find(|r| r.fault == "error").unwrap();
        assert_eq!(
            e.flagged, e.total,
            "every injected 500 is at least a hard_event"
        );
    }

    /// Every fault leaves a mark in every run, whichever agent ran: the errors are R2a's, and
    /// the results that break the lookup's output schema without saying they failed
    /// (`malformed_json`, `truncated`, `wrong_schema`) are R10's.
    #[test]
    fn every_injected_fault_is_flagged_in_every_run() {
        for policy in [Policy::Robust, Policy::Buggy] {
            let card = run(&opts(policy, 20));
            for r in &card.faults {
                assert_eq!(r.flagged, r.total, "{policy:?}: {r:?}");
            }
        }
        // The buggy agent's `wrong_schema` runs cancel the right order (the reference is still
        // in the body): recovered by the oracle, yet flagged.
        let buggy = run(&opts(Policy::Buggy, 20));
        let w = buggy.faults.iter().find(|r| r.fault == "wrong_schema").unwrap();
        assert_eq!((w.recovered, w.flagged, w.hard_defect), (20, 20, 0), "{w:?}");
    }

    #[test]
    fn zero_runs_measure_nothing() {
        let card = run(&opts(Policy::Robust, 0));
        assert!(!card.baseline.measured);
        assert!(card.faults.is_empty());
    }
}

#[cfg(test)]
mod oracle_tests {
    use super::*;

    #[test]
    fn the_expectations_oracle_agrees_with_the_worlds_record_on_every_run() {
        // The world records which refs it cancelled; the oracle reads only the trace.
        let mut judged = (0, 0);
        for policy in [Policy::Robust, Policy::Buggy] {
            for fault in std::iter::once(None).chain(Fault::ALL.iter().copied().map(Some)) {
                for i in 0..40 {
                    let mut rng = Rng::new(7).fork(i);
                    let (t, o) = agent::run(policy, fault, 1, &mut rng, format!("r{i}"));
                    assert_eq!(
                        oracle_holds(&t),
                        o.correct(),
                        "{policy:?} {fault:?} {i}: {o:?}"
                    );
                    if o.correct() {
                        judged.0 += 1;
                    } else {
                        judged.1 += 1;
                    }
                }
            }
        }
        assert!(judged.0 > 0 && judged.1 > 0, "{judged:?}");
    }
}
