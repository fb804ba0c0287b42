//! Tests of the per-trace linter and the report builder.

use super::*;
use crate::finding::{RuleId, Tier};
use crate::adapters::{InputFormat, parse_bytes};

#[test]
fn excerpts_past_the_budget_are_left_out_with_a_note() {
    // Three calls of an unknown tool: three R7 findings with one excerpt each.
    let text = br#"{"run_id": "x", "steps": [
        {"type": "tool_call", "call_id": "a", "name": "nope", "args": {"q": "first"}},
        {"type": "tool_call", "call_id": "b", "name": "nope", "args": {"q": "second"}},
        {"type": "tool_call", "call_id": "c", "name": "nope", "args": {"q": "third"}}]}"#;
    let (_, parsed) = parse_bytes(text, "t.json", Some(InputFormat::Native));
    let registry = crate::sources::file::parse_tools_str(
        r#"{"tools": [{"name": "known"}]}"#,
        "tools.json",
    )
    .unwrap();
    // Only R7, so the test does not depend on what other rules say about these calls.
    let linter = Linter::new(
        Some(registry),
        crate::rules::Selection::new(&[RuleId::R7], &[]),
        RuleSettings::default(),
    );
    let mut builder = ReportBuilder::new().with_excerpt_budget(40);
    let input = builder.input("t.json");
    builder.trace(input, linter.lint(&parsed.traces[0]));
    let report = builder.finish(Tier::HardDefect, &[]);
    let excerpts: Vec<&str> = report
        .findings
        .iter()
        .flat_map(|f| f.evidence.iter().map(|e| e.excerpt.as_str()))
        .collect();
    assert_eq!(
        excerpts,
        [r#"nope {"q":"first"}"#, r#"nope {"q":"second"}"#, ""]
    );
    assert_eq!(
        report.inputs[0].notes,
        ["evidence excerpts past the report's limit of 40 bytes are left out"]
    );
}
