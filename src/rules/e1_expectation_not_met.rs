//! E1 expectation_not_met: the expectations the run was given (`--expect FILE`, `[[expect]]` in
//! the config) checked against the trace. A verdict of "not met" is a finding (its tier is the
//! expectation's, `hard_defect` by default) whose evidence is the smallest diff the evaluator
//! found; "undecidable" is a suppression with the reason, never a pass. The evaluation itself
//! lives in `crate::expect`; this file only turns verdicts into findings.

use crate::analysis::outcome::Outcome;
use crate::expect::{Check, Expectation, Miss, Seen, Statuses, Verdict};
use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Pairing, Trace};

use super::{Rule, Sink, TraceCx, evidence};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::E1,
    kind: FindingType::ExpectationNotMet,
    summary: "the run did not do what an expectation (reference trajectory or assertion) says it should",
    tiers: &[Tier::HardDefect, Tier::HardEvent, Tier::Candidate],
    unit: "expectations",
    explanation: include_str!("docs/E1.md"),
};

pub(crate) struct ExpectationNotMet;

/// The stable word for an expectation's kind (the finding's `signal`).
fn signal(e: &Expectation) -> &'static str {
    match &e.check {
        Check::Trajectory(t) if t.reference.is_some() => "reference",
        Check::Trajectory(_) => "trajectory",
        Check::Called(_) => "called",
        Check::NotCalled(_) => "not_called",
        Check::Count { .. } => "count",
        Check::Before { .. } => "before",
        Check::After { .. } => "after",
        Check::FinalAnswer(_) => "final_answer",
        Check::Turns(_) => "turns",
        Check::Calls(_) => "calls",
    }
}

/// Longest part of a result's error message quoted in a status judgement (characters).
const MAX_DETAIL: usize = 120;

/// A call's success as the linter reads it: the result's structured status, the tool's
/// `failure_when`, a shell's exit code and its conventions (what R2a reports as events). A
/// result none of these decide (Claude Code marks only failures) is "cannot tell".
struct Linted<'c, 't>(&'c TraceCx<'t>);

impl Statuses for Linted<'_, '_> {
    fn seen(&self, _trace: &Trace, _pairing: &Pairing, call: usize) -> Seen {
        let cx = self.0;
        let Some(result) = cx.pairing.result_for(call) else {
            return Seen::CannotTell(
                "it has no result (the run ended or the result was not captured)".into(),
            );
        };
        match cx.outcome(result) {
            Some(Outcome::Error(detail)) if detail.is_empty() => {
                Seen::Error(format!("the result at step {result} is an error"))
            }
            Some(Outcome::Error(detail)) => {
                let mut d: String = detail
                    .chars()
                    .take(MAX_DETAIL)
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect();
                if detail.chars().count() > MAX_DETAIL {
                    d.push('…');
                }
                Seen::Error(format!("the result at step {result} is an error: {d}"))
            }
            Some(Outcome::DeclaredFailure(what)) => {
                Seen::Error(format!("the result at step {result}: {what}"))
            }
            Some(Outcome::Fine(why)) => Seen::Ok(format!("the result at step {result}: {why}")),
            Some(Outcome::Unknown {
                declared_absent: Some(pointer),
            }) => Seen::CannotTell(format!(
                "the result at step {result} has no `{pointer}`, which the tool's `failure_when` reads"
            )),
            Some(Outcome::Unknown { .. }) => Seen::CannotTell(format!(
                "nothing in the result at step {result} says whether it succeeded (its format marks only failures, and the tool declares no `failure_when`)"
            )),
            Some(Outcome::NotRecorded) | None => {
                Seen::CannotTell(format!("the result at step {result} was not recorded"))
            }
        }
    }
}

impl Rule for ExpectationNotMet {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn idle(&self, cx: &TraceCx<'_>) -> bool {
        cx.run.settings.expectations.is_none()
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        let Some(file) = &cx.run.settings.expectations else {
            return;
        };
        let trace = cx.trace;
        let used = &cx.run.settings.expectations_used;
        for (i, e) in file.expectations.iter().enumerate() {
            if !e.selects(trace) {
                continue;
            }
            if let Some(flag) = used.get(i) {
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let verdict = e.evaluate_with(trace, &Linted(cx));
            let name = format!("expectation `{}` ({})", e.id, e.declared_at);
            match verdict {
                Verdict::Met => out.count(true),
                Verdict::Undecidable(u) => {
                    out.count(false);
                    let reason = format!("cannot decide {name}: {}", u.reason);
                    match u.step.and_then(|s| trace.steps.get(s)) {
                        Some(step) => {
                            let tool = step.as_call().map(|c| c.name.as_str());
                            out.suppress(step, tool, reason);
                        }
                        None => out.suppress_trace(reason),
                    }
                }
                Verdict::NotMet { misses, note } => {
                    let Some(step) = misses
                        .iter()
                        .find_map(|m| m.step)
                        .and_then(|s| trace.steps.get(s))
                    else {
                        out.count(false);
                        out.suppress_trace(format!(
                            "cannot decide {name}: the trace has no steps to point at"
                        ));
                        continue;
                    };
                    out.count(true);
                    let first = &misses[0];
                    let more = match misses.len() {
                        1 => String::new(),
                        n => format!(
                            " (and {} more difference{})",
                            n - 1,
                            if n == 2 { "" } else { "s" }
                        ),
                    };
                    let tool = step.as_call().map(|c| c.name.clone());
                    let diffs = if first.differences.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", first.differences.join("; "))
                    };
                    let f = out.finding(
                        e.tier,
                        step,
                        tool.as_deref(),
                        format!(
                            "expectation `{}` not met: {}{diffs}{more}",
                            e.id, first.message
                        ),
                        "where it differs",
                    );
                    if let (Some(x), true) = (&first.expected, first.step == Some(step.index)) {
                        let x = printable(x);
                        let x = if x.contains('`') { x } else { format!("`{x}`") };
                        f.evidence[0].note = match (&first.actual, step.as_call()) {
                            (Some(_), Some(_)) => format!("the closest actual call; expected {x}"),
                            (Some(_), None) => format!("what the run gave; expected {x}"),
                            (None, _) => format!("where {x} was expected"),
                        }
                        .into();
                    }
                    f.signal = Some(signal(e));
                    f.field = first.fields.first().cloned();
                    f.fields = first.fields.clone();
                    f.help = Some(format!("see {}: {}", e.declared_at, e.why));
                    f.details = details(&misses, note.as_deref());
                    if let Some(score) = e.score_with(trace, &Linted(cx)) {
                        f.details.extend(score_lines(&score));
                        f.score = Some(Box::new(score));
                    }
                    let mut seen = vec![step.index];
                    for m in &misses {
                        for (s, note) in m
                            .step
                            .iter()
                            .map(|s| (*s, "where it differs"))
                            .chain(m.related.iter().map(|s| (*s, "related call")))
                        {
                            if seen.contains(&s) {
                                continue;
                            }
                            if let Some(st) = trace.steps.get(s) {
                                seen.push(s);
                                f.evidence.push(evidence(st, note));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Text from the expectations file made safe for an evidence note (notes are printed as they
/// are): control characters become spaces.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Most per-step reasons listed in a finding's details (the JSON report's `score` has all).
const MAX_SCORE_LINES: usize = 50;

/// The score and why each reference step did or did not match, then the extra calls.
fn score_lines(s: &crate::expect::Score) -> Vec<String> {
    let mut out = vec![format!("score: {}", s.summary())];
    let mut lines: Vec<String> = s
        .steps
        .iter()
        .map(|d| printable(&format!("  reference #{} `{}`: {}", d.reference, d.tool, d.why)))
        .chain(
            s.edits
                .iter()
                .filter(|e| e.kind == crate::expect::EditKind::Extra)
                .filter_map(|e| {
                    let step = e.step?;
                    Some(printable(&format!(
                        "  step {step} `{}`: extra, the reference has no such call",
                        e.tool
                    )))
                }),
        )
        .collect();
    if lines.len() > MAX_SCORE_LINES {
        let more = lines.len() - MAX_SCORE_LINES;
        lines.truncate(MAX_SCORE_LINES);
        lines.push(format!("  ({more} more in the JSON report's `score`)"));
    }
    out.extend(lines);
    out
}

/// One block of lines per difference: what, the expected call, the closest actual call, and
/// each differing argument.
fn details(misses: &[Miss], note: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for m in misses {
        let at = m.step.map(|s| format!("step {s}: ")).unwrap_or_default();
        out.push(format!("{at}{}", m.message));
        if let Some(e) = &m.expected {
            out.push(format!("  expected: {e}"));
        }
        if let Some(a) = &m.actual {
            out.push(format!("  actual:   {a}"));
        }
        for d in &m.differences {
            out.push(format!("  {d}"));
        }
    }
    if let Some(n) = note {
        out.push(format!("note: {n}"));
    }
    out
}
