//! The JSON report, version 1: frozen wire structs built from a `Report`, so internal changes
//! never change the output silently. Its contract is `report.schema.json` (validated in tests).
//! Also JSON Lines: the same finding, suppression and input-error objects, one per line, each
//! self-describing (report version, tool name and version, file) so shards can be concatenated.

use std::io::{self, Write};

use serde::Serialize;

use crate::finding::Finding;

use super::Report;

/// The JSON Schema of this output.
pub const SCHEMA: &str = include_str!("report.schema.json");

#[derive(Serialize)]
struct V1Report<'a> {
    version: u32,
    tool: V1Tool,
    ok: bool,
    exit_code: u8,
    fail_on: &'a str,
    summary: &'a super::Summary,
    findings: Vec<V1Finding<'a>>,
    ignored: Vec<V1Finding<'a>>,
    suppressions: Vec<V1Suppression<'a>>,
    coverage: Vec<V1Coverage<'a>>,
    inputs: Vec<V1Input<'a>>,
    input_errors: Vec<V1Issue<'a>>,
    unmatched_ignores: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a super::BaselineReport>,
}

#[derive(Serialize, Clone, Copy)]
struct V1Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct V1Finding<'a> {
    rule: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    tier: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
    pointer: &'a str,
    run_id: &'a str,
    tool: Option<&'a str>,
    field: Option<&'a str>,
    message: &'a str,
    details: &'a [String],
    help: Option<&'a str>,
    possible_false_positive: bool,
    /// Which check failed, for rules with several (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<&'a str>,
    ignore_reason: Option<&'a str>,
    evidence: Vec<V1Evidence<'a>>,
}

#[derive(Serialize)]
struct V1Evidence<'a> {
    step: usize,
    line: u32,
    column: u32,
    pointer: &'a str,
    note: &'a str,
    excerpt: &'a str,
}

#[derive(Serialize)]
struct V1Suppression<'a> {
    rule: &'a str,
    file: &'a str,
    run_id: &'a str,
    step: Option<usize>,
    line: Option<u32>,
    column: Option<u32>,
    tool: Option<&'a str>,
    reason: &'a str,
}

#[derive(Serialize)]
struct V1Coverage<'a> {
    rule: &'a str,
    unit: &'a str,
    decided: usize,
    total: usize,
}

#[derive(Serialize)]
struct V1Input<'a> {
    path: &'a str,
    format: Option<&'a str>,
    traces: usize,
    tool_calls: usize,
    partial: bool,
    schemas: &'a [String],
    notes: &'a [String],
}

#[derive(Serialize)]
struct V1Issue<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    message: &'a str,
}

fn finding<'a>(report: &'a Report, f: &'a Finding) -> V1Finding<'a> {
    let at = f.at();
    V1Finding {
        rule: f.rule.as_str(),
        kind: f.kind.as_str(),
        tier: f.tier.as_str(),
        file: report.path_of(f.input),
        line: at.line,
        column: at.column,
        pointer: &at.pointer,
        run_id: &f.run_id,
        tool: f.tool.as_deref(),
        field: f.field.as_deref(),
        message: &f.message,
        details: &f.details,
        help: f.help.as_deref(),
        possible_false_positive: f.possible_false_positive,
        signal: f.signal,
        ignore_reason: f.ignored.as_deref(),
        evidence: f
            .evidence
            .iter()
            .map(|e| V1Evidence {
                step: e.step,
                line: e.at.line,
                column: e.at.column,
                pointer: &e.at.pointer,
                note: &e.note,
                excerpt: &e.excerpt,
            })
            .collect(),
    }
}

/// Build the v1 value (also used by tests that validate against the schema).
pub fn to_value(report: &Report) -> serde_json::Value {
    serde_json::to_value(build(report)).expect("plain data serialises")
}

const TOOL: V1Tool = V1Tool {
    name: "tracelint",
    version: env!("CARGO_PKG_VERSION"),
};

fn suppression<'a>(report: &'a Report, s: &'a crate::finding::Suppression) -> V1Suppression<'a> {
    V1Suppression {
        rule: s.rule.as_str(),
        file: report.path_of(s.input),
        run_id: &s.run_id,
        step: s.step,
        line: s.at.as_ref().map(|a| a.line),
        column: s.at.as_ref().map(|a| a.column),
        tool: s.tool.as_deref(),
        reason: &s.reason,
    }
}

fn issue(i: &crate::finding::InputIssue) -> V1Issue<'_> {
    V1Issue {
        file: &i.path,
        line: i.line,
        column: i.column,
        message: &i.message,
    }
}

fn build(report: &Report) -> V1Report<'_> {
    V1Report {
        version: 1,
        tool: TOOL,
        ok: report.exit.code() == 0,
        exit_code: report.exit.code(),
        fail_on: report.fail_on.map_or("hard_defect", |t| t.as_str()),
        summary: &report.summary,
        findings: report
            .findings
            .iter()
            .filter(|f| f.ignored.is_none())
            .map(|f| finding(report, f))
            .collect(),
        ignored: report
            .findings
            .iter()
            .filter(|f| f.ignored.is_some())
            .map(|f| finding(report, f))
            .collect(),
        suppressions: report
            .suppressions
            .iter()
            .map(|s| suppression(report, s))
            .collect(),
        coverage: report
            .coverage
            .iter()
            .map(|c| V1Coverage {
                rule: c.rule.as_str(),
                unit: c.unit,
                decided: c.coverage.decided,
                total: c.coverage.total,
            })
            .collect(),
        inputs: report
            .inputs
            .iter()
            .map(|i| V1Input {
                path: &i.path,
                format: i.format.as_deref(),
                traces: i.traces,
                tool_calls: i.tool_calls,
                partial: i.partial,
                schemas: &i.schemas,
                notes: &i.notes,
            })
            .collect(),
        input_errors: report.issues.iter().map(issue).collect(),
        unmatched_ignores: &report.unmatched_ignores,
        baseline: report.baseline.as_ref(),
    }
}

/// One JSON Lines record: the envelope plus exactly one of `finding`, `suppression` or
/// `input_error`.
#[derive(Serialize)]
struct V1Line<'a> {
    version: u32,
    tool: V1Tool,
    #[serde(flatten)]
    record: V1Record<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum V1Record<'a> {
    Finding(V1Finding<'a>),
    Suppression(V1Suppression<'a>),
    InputError(V1Issue<'a>),
}

/// Render JSON Lines: every finding (ignored ones carry `ignore_reason`), then suppressions, then
/// input errors, one compact object per line.
pub fn render_lines(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let records = report
        .findings
        .iter()
        .map(|f| V1Record::Finding(finding(report, f)))
        .chain(
            report
                .suppressions
                .iter()
                .map(|s| V1Record::Suppression(suppression(report, s))),
        )
        .chain(report.issues.iter().map(|i| V1Record::InputError(issue(i))));
    for record in records {
        serde_json::to_writer(
            &mut *out,
            &V1Line {
                version: 1,
                tool: TOOL,
                record,
            },
        )?;
        writeln!(out)?;
    }
    Ok(())
}

/// Render the JSON report (pretty, with a trailing newline).
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &build(report))?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporters::sample;

    /// A validator for one JSON Lines record: the report schema with `json_line` as its root.
    fn line_validator() -> jsonschema::Validator {
        let mut schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
        let obj = schema.as_object_mut().unwrap();
        obj.remove("required");
        obj.remove("additionalProperties");
        obj.remove("type");
        obj.insert("$ref".into(), "#/$defs/json_line".into());
        jsonschema::validator_for(&schema).unwrap()
    }

    #[test]
    fn json_lines_are_self_describing_and_valid() {
        let mut out = Vec::new();
        render_lines(&sample::report(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let validator = line_validator();
        let mut kinds = Vec::new();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{line}: {errors:?}");
            assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"));
            let kind = ["finding", "suppression", "input_error"]
                .into_iter()
                .find(|k| v.get(*k).is_some())
                .unwrap();
            kinds.push(kind);
            if kind != "input_error" {
                assert!(v[kind]["file"].as_str().is_some_and(|f| !f.is_empty()));
            }
        }
        // 4 findings (one ignored), 1 suppression, 2 input errors.
        assert_eq!(
            kinds,
            [
                "finding",
                "finding",
                "finding",
                "finding",
                "suppression",
                "input_error",
                "input_error"
            ]
        );
        // The validator is not vacuous: a line with two records, or none, fails.
        let mut bad: serde_json::Value =
            serde_json::from_str(text.lines().next().unwrap()).unwrap();
        bad["input_error"] =
            serde_json::json!({"file": "x", "line": 0, "column": 0, "message": "m"});
        assert!(!validator.is_valid(&bad));
        bad.as_object_mut().unwrap().remove("finding");
        bad.as_object_mut().unwrap().remove("input_error");
        assert!(!validator.is_valid(&bad));
    }
}
