//! The JSON report, version 1: frozen wire structs built from a `Report`, so internal changes
//! never change the output silently. Its contract is `report.schema.json` (validated in tests).

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
}

#[derive(Serialize)]
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

fn build(report: &Report) -> V1Report<'_> {
    V1Report {
        version: 1,
        tool: V1Tool {
            name: "tracelint",
            version: env!("CARGO_PKG_VERSION"),
        },
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
            .map(|s| V1Suppression {
                rule: s.rule.as_str(),
                file: report.path_of(s.input),
                run_id: &s.run_id,
                step: s.step,
                line: s.at.as_ref().map(|a| a.line),
                column: s.at.as_ref().map(|a| a.column),
                tool: s.tool.as_deref(),
                reason: &s.reason,
            })
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
        input_errors: report
            .issues
            .iter()
            .map(|i| V1Issue {
                file: &i.path,
                line: i.line,
                column: i.column,
                message: &i.message,
            })
            .collect(),
        unmatched_ignores: &report.unmatched_ignores,
    }
}

/// Render the JSON report (pretty, with a trailing newline).
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &build(report))?;
    writeln!(out)
}
