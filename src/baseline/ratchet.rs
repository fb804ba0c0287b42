//! The coverage ratchet: what a rule could check in a trace file when the baseline was recorded,
//! against what it checks now. Coverage is lost when a rule that checked something in the file
//! checks nothing, when a tool it checked is still called but no call of it can be checked, or
//! when a tool it checked every call of now has calls it could not check (a per-call "could not
//! check"). A tool no longer called, a rule not run this time and a file not linted this time
//! have nothing to compare; a tool never checked in the baseline cannot be lost.

use crate::finding::RuleId;
use crate::record::InputDetail;
use crate::reporters::LostCoverage;
use crate::rules::Selection;

use super::FileEntry;

/// Coverage of trace file `name` lost against its baseline `entry`.
pub(super) fn compare(
    name: &str,
    entry: &FileEntry,
    now: &InputDetail,
    selection: &Selection,
) -> Vec<LostCoverage> {
    let mut lost = Vec::new();
    let mut push = |rule: RuleId, tool: Option<&str>, message: String| {
        lost.push(LostCoverage {
            file: name.to_owned(),
            rule,
            tool: tool.map(str::to_owned),
            message,
        });
    };
    for (rule, tools) in &entry.checked {
        if !selection.contains(*rule) {
            continue;
        }
        let detail = now.rules.get(rule);
        let decided = detail.map_or(0, |d| d.coverage.decided);
        if decided == 0 {
            let had = if tools.is_empty() {
                String::new()
            } else {
                format!(
                    " (it checked {} in the baseline)",
                    tools
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            push(*rule, None, format!("{rule} checks nothing any more{had}"));
            continue;
        }
        let Some(detail) = detail else { continue };
        let unchecked_before = entry.unchecked.get(rule);
        for tool in tools {
            let Some(c) = detail.tools.get(tool).filter(|c| c.total > 0) else {
                continue;
            };
            let unit = detail.unit;
            if c.decided == 0 {
                push(
                    *rule,
                    Some(tool),
                    format!(
                        "{rule} can no longer check `{tool}` (it could in the baseline; now 0 of {})",
                        units(c.total, unit)
                    ),
                );
            } else if c.decided < c.total
                && detail.suppressed.contains(tool)
                && !unchecked_before.is_some_and(|u| u.contains(tool))
            {
                push(
                    *rule,
                    Some(tool),
                    format!(
                        "{rule} can no longer check every call of `{tool}` (it could in the baseline; now {} of {})",
                        c.decided,
                        units(c.total, unit)
                    ),
                );
            }
        }
    }
    lost
}

/// `1 tool call`, `3 tool results`.
fn units(n: usize, unit: &str) -> String {
    match (n, unit.strip_suffix('s')) {
        (1, Some(one)) => format!("1 {one}"),
        _ => format!("{n} {unit}"),
    }
}
