//! The outline of a linted trace with findings: the steps its findings cite and a few on either
//! side, each reduced to its kind, tool, line and a short excerpt. The HTML report draws it as the
//! trace's step timeline, and JSON Lines carries it so `report` can draw the same page. Bounded:
//! a short trace is outlined whole; a long one keeps the cited steps (up to a cap) and as much
//! context around them as fits.

use std::collections::BTreeSet;

use crate::finding::Finding;
use crate::model::{Pairing, ResultStatus, Role, StepKind as ModelStep, Trace};
use crate::reporters::escape::truncate;
use crate::reporters::{Outline, OutlineStep, StepKind};

/// A trace with at most this many steps is outlined whole.
const WHOLE: usize = 40;
/// Steps shown on either side of a cited step.
const RADIUS: usize = 2;
/// Most steps an outline shows with context; the cited steps go in first.
const MAX_STEPS: usize = 240;
/// Most cited steps an outline shows (a trace with more findings than this shows its first ones).
const MAX_CITED: usize = 2000;
/// Longest excerpt of a step, in characters.
const TEXT_CHARS: usize = 100;

/// The outline of `trace` around the steps `findings` cite; `None` when there are none.
pub(crate) fn outline(trace: &Trace, findings: &[Finding]) -> Option<Outline> {
    if findings.is_empty() || trace.steps.is_empty() {
        return None;
    }
    let n = trace.steps.len();
    let mut shown: BTreeSet<usize> = BTreeSet::new();
    if n <= WHOLE {
        shown.extend(0..n);
    } else {
        let cited: BTreeSet<usize> = findings
            .iter()
            .flat_map(|f| f.evidence.iter().map(|e| e.step))
            .filter(|&s| s < n)
            .collect();
        shown.extend(cited.iter().copied().take(MAX_CITED));
        // Context ring by ring, nearest first, while it fits.
        'rings: for r in 1..=RADIUS {
            for &c in cited.iter().take(MAX_CITED) {
                for s in [c.checked_sub(r), c.checked_add(r).filter(|&s| s < n)]
                    .into_iter()
                    .flatten()
                {
                    if shown.len() >= MAX_STEPS.max(cited.len().min(MAX_CITED)) {
                        break 'rings;
                    }
                    shown.insert(s);
                }
            }
        }
    }
    let pairing = Pairing::new(trace);
    let tool_of_result = |i: usize| {
        pairing
            .call_for(i)
            .and_then(|c| trace.steps.get(c))
            .and_then(|s| s.as_call())
            .map(|c| c.name.clone())
    };
    let steps = shown
        .into_iter()
        .filter_map(|i| trace.steps.get(i))
        .map(|step| {
            let (kind, tool) = match &step.kind {
                ModelStep::ToolCall(c) => (StepKind::Call, Some(c.name.clone())),
                ModelStep::ToolResult(r) => (
                    match r.status {
                        ResultStatus::Ok => StepKind::Ok,
                        ResultStatus::Error => StepKind::Error,
                        ResultStatus::Unknown => StepKind::Result,
                    },
                    tool_of_result(step.index),
                ),
                ModelStep::Message(m) => (
                    match m.role {
                        Role::User => StepKind::User,
                        Role::Assistant => StepKind::Assistant,
                        Role::System => StepKind::System,
                        Role::Tool => StepKind::Tool,
                    },
                    None,
                ),
            };
            OutlineStep {
                index: step.index,
                kind,
                tool,
                line: step.at.line,
                text: truncate(&crate::rules::excerpt(step), TEXT_CHARS).into_owned(),
            }
        })
        .collect();
    Some(Outline {
        input: 0,
        run_id: trace.run_id.clone(),
        total: n,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{InputFormat, parse_bytes};
    use crate::finding::{Evidence, FindingType, RuleId, RuleMeta, Tier};

    static META: RuleMeta = RuleMeta {
        id: RuleId::R7,
        kind: FindingType::UnknownTool,
        summary: "s",
        tiers: &[Tier::Candidate],
        unit: "tool calls",
        explanation: "",
    };

    fn trace(calls: usize) -> Trace {
        let steps: Vec<String> = (0..calls)
            .map(|i| {
                format!(
                    r#"{{"type": "tool_call", "call_id": "c{i}", "name": "t{i}", "args": {{}}}}, {{"type": "tool_result", "call_id": "c{i}", "content": "r{i}", "status": "{}"}}"#,
                    if i % 2 == 0 { "ok" } else { "error" }
                )
            })
            .collect();
        let text = format!(r#"{{"run_id": "x", "steps": [{}]}}"#, steps.join(", "));
        let (_, parsed) = parse_bytes(text.as_bytes(), "t.json", Some(InputFormat::Native));
        parsed.traces.into_iter().next().unwrap()
    }

    fn citing(trace: &Trace, steps: &[usize]) -> Finding {
        let at = |s: usize| Evidence {
            step: s,
            at: trace.steps[s].at.clone(),
            note: "n".into(),
            excerpt: String::new(),
        };
        let mut f = Finding::new(&META, Tier::Candidate, "x", None, "m", at(steps[0]));
        f.evidence.extend(steps[1..].iter().map(|&s| at(s)));
        f
    }

    #[test]
    fn short_traces_are_outlined_whole_with_kinds_and_tools() {
        let t = trace(3);
        let o = outline(&t, &[citing(&t, &[3])]).unwrap();
        assert_eq!(o.total, 6);
        let got: Vec<(usize, &str, Option<&str>)> = o
            .steps
            .iter()
            .map(|s| (s.index, s.kind.as_str(), s.tool.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (0, "call", Some("t0")),
                (1, "ok", Some("t0")),
                (2, "call", Some("t1")),
                (3, "error", Some("t1")),
                (4, "call", Some("t2")),
                (5, "ok", Some("t2")),
            ]
        );
        assert_eq!(o.steps[3].text, "[error] r1");
        assert!(outline(&t, &[]).is_none());
    }

    #[test]
    fn long_traces_keep_the_cited_steps_and_their_neighbours() {
        let t = trace(100);
        let o = outline(&t, &[citing(&t, &[50, 120]), citing(&t, &[199])]).unwrap();
        let idx: Vec<usize> = o.steps.iter().map(|s| s.index).collect();
        assert_eq!(
            idx,
            [48, 49, 50, 51, 52, 118, 119, 120, 121, 122, 197, 198, 199]
        );
        // Past the cap, context gives way; cited steps stay.
        let many: Vec<usize> = (0..200).step_by(2).collect();
        let o = outline(&t, &[citing(&t, &many)]).unwrap();
        assert!(many.iter().all(|c| o.steps.iter().any(|s| s.index == *c)));
        assert!(o.steps.len() <= MAX_STEPS);
    }
}
