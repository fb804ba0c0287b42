//! The rules (SPEC §5) over the canonical model only: the `Rule` trait, the explicit ordered
//! registry `RULES`, rule selection, and `run`, which applies the selected rules to one trace.
//! Rules produce data (findings, suppressions, coverage); they never print.

mod e1_expectation_not_met;
mod r10_result_contract;
mod r11_contract_drift;
mod r12_unresolved_side_effect;
mod r13_off_limits_source;
mod r14_toxic_flow;
mod r1_schema_violation;
mod r2a_tool_error_event;
mod r2b_error_mishandled;
mod r3_hallucinated_arg;
mod r4_loop;
mod r5_redundant_call;
mod r6_malformed_arguments;
mod r7_unknown_tool;
mod r8_duplicate_side_effect;
mod r9_unmet_precondition;
mod rule;
pub mod tools;

use crate::finding::{Coverage, Finding, RuleId, RuleMeta, Suppression};
use crate::model::Step;

pub use crate::analysis::excerpt::excerpt;
pub use rule::{Drift, Rule, Sink, evidence};
pub(crate) use r2b_error_mishandled::speaks_of_failure;
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use crate::analysis::context::{RuleSettings, RunCx, TraceCx};
pub use crate::analysis::flows::FlowConfig;
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use crate::model::schema::SchemaCache;

/// Every rule, in id order. Adding a rule = one line here (and a `RuleId` variant).
pub static RULES: &[&dyn Rule] = &[
    &r1_schema_violation::SchemaViolation,
    &r2a_tool_error_event::ToolErrorEvent,
    &r2b_error_mishandled::ErrorMishandled,
    &r3_hallucinated_arg::HallucinatedArg,
    &r4_loop::Loop,
    &r5_redundant_call::RedundantCall,
    &r6_malformed_arguments::MalformedArguments,
    &r7_unknown_tool::UnknownTool,
    &r8_duplicate_side_effect::DuplicateSideEffect,
    &r9_unmet_precondition::UnmetPrecondition,
    &r10_result_contract::ResultContract,
    &r11_contract_drift::ContractDrift,
    &r12_unresolved_side_effect::UnresolvedSideEffect,
    &r13_off_limits_source::OffLimitsSource,
    &r14_toxic_flow::ToxicFlow,
    &e1_expectation_not_met::ExpectationNotMet,
];

/// The metadata of a rule by id, when it is in the registry.
pub fn meta_of(id: RuleId) -> Option<&'static RuleMeta> {
    RULES
        .iter()
        .map(|r| r.meta())
        .find(|m| m.id == id)
        .or_else(|| tools::meta_of(id))
}

/// Which rules run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    enabled: [bool; RuleId::ALL.len()],
}

impl Default for Selection {
    fn default() -> Self {
        Self {
            enabled: [true; RuleId::ALL.len()],
        }
    }
}

/// A rule id on the command line or in a config that names no rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown rule `{0}`: run `tracelint rules` for the list (R1, R2a, R2b, R3, R4, R5, R6, R7, R8, R9, R10, R11, R12, R13, R14, E1; T1…T13 for `tools lint`)"
)]
pub struct UnknownRule(pub String);

/// Parse a rule list entry; `R2` names both R2a and R2b.
pub fn parse_rule_list(items: &[String]) -> Result<Vec<RuleId>, UnknownRule> {
    let mut out = Vec::new();
    for item in items.iter().flat_map(|s| s.split(',')) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if item.eq_ignore_ascii_case("R2") {
            out.extend([RuleId::R2a, RuleId::R2b]);
        } else if item.eq_ignore_ascii_case("ALL") {
            out.extend(RuleId::ALL);
        } else {
            out.push(RuleId::parse(item).ok_or_else(|| UnknownRule(item.to_owned()))?);
        }
    }
    Ok(out)
}

impl Selection {
    /// `select` (empty = all), minus `ignore`.
    pub fn new(select: &[RuleId], ignore: &[RuleId]) -> Self {
        let mut enabled = [select.is_empty(); RuleId::ALL.len()];
        for r in select {
            enabled[slot(*r)] = true;
        }
        for r in ignore {
            enabled[slot(*r)] = false;
        }
        Self { enabled }
    }

    /// Whether a rule runs.
    pub fn contains(&self, id: RuleId) -> bool {
        self.enabled[slot(id)]
    }
}

fn slot(id: RuleId) -> usize {
    RuleId::ALL
        .iter()
        .position(|r| *r == id)
        .expect("every id is in ALL")
}

/// What the rules found in one trace.
#[derive(Debug, Default)]
pub struct TraceOutcome {
    /// Findings, in rule order.
    pub findings: Vec<Finding>,
    /// Suppressions, in rule order.
    pub suppressions: Vec<Suppression>,
    /// Per-rule coverage, in rule order.
    pub coverage: Vec<(RuleId, &'static str, Coverage)>,
    /// Schema drift the rules saw (R1's arguments, R7's names), in rule order.
    pub drift: Vec<Drift>,
    /// Per-rule, per-tool coverage (only when `RunCx::tool_coverage`), in rule order.
    pub tool_coverage: Vec<(RuleId, std::collections::BTreeMap<String, Coverage>)>,
}

/// Run the selected rules on one trace.
pub fn run(cx: &TraceCx<'_>, selection: &Selection) -> TraceOutcome {
    let mut outcome = TraceOutcome::default();
    for rule in RULES {
        let meta = rule.meta();
        if !selection.contains(meta.id) || rule.idle(cx) {
            continue;
        }
        let mut sink = Sink::new(meta, &cx.trace.run_id, cx.run.tool_coverage);
        match rule.applicable(cx) {
            Ok(()) => rule.check(cx, &mut sink),
            // Nothing declared for it to check: coverage 0 of 0, which the report lists as
            // "nothing to check" (no per-trace suppression: most traces declare no contract).
            Err(_) if rule.opt_in() => {}
            Err(reason) => {
                sink.coverage.total = unit_count(cx, meta.unit);
                if let Some(map) = &mut sink.by_tool {
                    for tool in unit_tools(cx, meta.unit) {
                        map.entry(tool.to_owned()).or_default().total += 1;
                    }
                }
                sink.suppressions.push(Suppression {
                    rule: meta.id,
                    input: 0,
                    run_id: cx.trace.run_id.clone(),
                    step: None,
                    at: None,
                    tool: None,
                    reason,
                });
            }
        }
        outcome.findings.append(&mut sink.findings);
        outcome.suppressions.append(&mut sink.suppressions);
        outcome.drift.append(&mut sink.drift);
        outcome.coverage.push((meta.id, meta.unit, sink.coverage));
        if let Some(map) = sink.by_tool {
            outcome.tool_coverage.push((meta.id, map));
        }
    }
    outcome
}

/// The tool of each unit a rule counts (a call's name; a result's call's name), for a rule that
/// could not run on the trace at all.
fn unit_tools<'a>(cx: &'a TraceCx<'_>, unit: &str) -> Vec<&'a str> {
    let steps = &cx.trace.steps;
    match unit {
        "tool results" => steps
            .iter()
            .filter(|s| s.as_result().is_some())
            .filter_map(|s| cx.pairing.call_for(s.index))
            .filter_map(|i| steps.get(i).and_then(Step::as_call))
            .map(|c| c.name.as_str())
            .collect(),
        _ => steps
            .iter()
            .filter_map(Step::as_call)
            .map(|c| c.name.as_str())
            .collect(),
    }
}

fn unit_count(cx: &TraceCx<'_>, unit: &str) -> usize {
    let steps = &cx.trace.steps;
    match unit {
        "tool results" => steps.iter().filter(|s| s.as_result().is_some()).count(),
        _ => steps.iter().filter(|s| s.as_call().is_some()).count(),
    }
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests;
