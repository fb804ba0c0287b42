//! R2b's findings: each failed result reported once, at its worst use, with the other uses as
//! evidence; a failure nobody used, retried or acknowledged is a "not retried" candidate.

use super::*;

impl Walk<'_, '_> {
    /// Report each failure once, at its worst use (or as not retried).
    pub(super) fn report(self, out: &mut Sink) {
        let steps = &self.cx.trace.steps;
        for f in &self.failures {
            let Some(failed_step) = steps.get(f.step) else {
                continue;
            };
            let failed_tool = f
                .tool
                .as_deref()
                .map_or("tool".to_owned(), |t| format!("`{t}`"));
            // The worst use: highest tier, then a side-effecting consumer, then the earliest.
            let Some(worst) = f
                .uses
                .iter()
                .max_by_key(|u| (u.tier, u.side_effecting, std::cmp::Reverse(u.call)))
            else {
                if f.tool.is_some() && !f.retried && !f.used && !f.acknowledged {
                    let finding = out.finding(
                        Tier::Candidate,
                        failed_step,
                        f.tool.as_deref(),
                        format!(
                            "the failed {failed_tool} result was neither used nor retried: nothing shows the agent handled it"
                        ),
                        "the failed result",
                    );
                    finding.possible_false_positive = true;
                    finding.help = Some(
                        "retry the call, or make the agent acknowledge the failure before going on"
                            .into(),
                    );
                    finding.signal = Some("not_retried");
                }
                continue;
            };
            let Some(call_step) = steps.get(worst.call) else {
                continue;
            };
            let values = worst
                .values
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let message = match (worst.tier, worst.via.and_then(|i| steps.get(i))) {
                (Tier::HardDefect, _) => format!(
                    "side-effecting `{}` uses {values}, which only the failed {failed_tool} result supplied",
                    worst.tool
                ),
                (_, Some(via)) => format!(
                    "`{}` uses {values} from the failed {failed_tool} result after `{}` handed it back (which may have confirmed it)",
                    worst.tool,
                    via.as_call().map_or("a call", |c| c.name.as_str())
                ),
                _ => format!(
                    "`{}` uses {values}, which only the failed {failed_tool} result supplied",
                    worst.tool
                ),
            };
            let finding = out.finding(
                worst.tier,
                call_step,
                Some(&worst.tool),
                message,
                "the call using the value",
            );
            finding.field = worst.field.clone();
            finding.possible_false_positive = worst.tier == Tier::Candidate;
            finding.signal = Some("used_after_failure");
            finding
                .evidence
                .push(evidence(failed_step, "the failed result"));
            if let Some(via) = worst.via.and_then(|i| steps.get(i)) {
                finding
                    .evidence
                    .push(evidence(via, "the call that handed the value back"));
            }
            for u in &f.uses {
                if u.call != worst.call
                    && Some(u.call) != worst.via
                    && let Some(s) = steps.get(u.call)
                {
                    finding
                        .evidence
                        .push(evidence(s, "another call using the value"));
                }
                finding.details.push(format!(
                    "step {} `{}` ({}): {}",
                    u.call,
                    u.tool,
                    u.tier,
                    u.values.join(", ")
                ));
            }
            finding.help = Some(format!(
                "gate the call on {failed_tool} succeeding, and do not feed a failed result's data forward"
            ));
        }
    }
}
