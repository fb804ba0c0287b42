//! The tool rules (T1…): checks of tool definitions themselves, before an agent ever calls them
//! (`tracelint tools lint`). Like the trace rules they produce data only — findings whose
//! evidence points at JSON Pointers in the source (the command turns those into line:col),
//! suppressions when a source lacks what a rule needs, and coverage in tools. `TOOL_RULES` is
//! the explicit ordered registry; the schema walker shared by the schema rules lives here.

mod rule;
mod t_descriptions;
mod t_names;
mod t_poisoning;
mod t_schema;
mod t_schema_fields;
mod t_schema_keywords;
mod walk;

use crate::finding::{Coverage, RuleId, RuleMeta};
use crate::model::toolset::ToolSet;

pub use rule::{
    DEFAULT_DESCRIPTION_BUDGET, SetOutcome, ToolRule, ToolSettings, ToolSink, ToolsCx, evidence,
};
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use t_poisoning::{Signal, signals};
pub use walk::{cut, parameters, shown, walk};
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use walk::{MAX_SCHEMA_DEPTH, MAX_SUBSCHEMAS};

/// Every tool rule, in id order.
pub static TOOL_RULES: &[&dyn ToolRule] = &[
    &t_schema::InvalidSchema,
    &t_schema::UnresolvableRef,
    &t_schema_fields::RequiredNotDeclared,
    &t_schema_fields::ValueFailsOwnSchema,
    &t_schema_keywords::Contradictory,
    &t_schema_keywords::Unconstrained,
    &t_names::ProviderRejectsName,
    &t_names::DuplicateName,
    &t_names::ConfusableNames,
    &t_descriptions::MissingDescription,
    &t_descriptions::OverBudget,
    &t_poisoning::Poisoning,
    &t_names::TooManyTools,
];

/// The metadata of a tool rule by id.
pub fn meta_of(id: RuleId) -> Option<&'static RuleMeta> {
    TOOL_RULES.iter().map(|r| r.meta()).find(|m| m.id == id)
}

/// Whether `id` names a tool rule.
pub fn is_tool_rule(id: RuleId) -> bool {
    meta_of(id).is_some()
}

/// Run the selected tool rules over every set.
pub fn run(
    sets: &[ToolSet],
    settings: &ToolSettings,
    enabled: impl Fn(RuleId) -> bool,
) -> Vec<SetOutcome> {
    let cx = ToolsCx { sets, settings };
    let mut all: Vec<SetOutcome> = sets.iter().map(|_| SetOutcome::default()).collect();
    for rule in TOOL_RULES {
        let meta = rule.meta();
        if !enabled(meta.id) {
            continue;
        }
        let mut sink = ToolSink {
            meta,
            outcomes: sets
                .iter()
                .map(|_| SetOutcome {
                    coverage: vec![(meta.id, meta.unit, Coverage::default())],
                    ..SetOutcome::default()
                })
                .collect(),
        };
        rule.check(&cx, &mut sink);
        for (mine, theirs) in all.iter_mut().zip(sink.outcomes) {
            mine.findings.extend(theirs.findings);
            mine.suppressions.extend(theirs.suppressions);
            mine.coverage.extend(theirs.coverage);
        }
    }
    all
}

#[cfg(test)]
mod tests;
