//! The JSON report, version 1: frozen wire structs built from a `Report`, so internal changes
//! never change the output silently. Its contract is `report.schema.json` (validated in tests).
//! Also JSON Lines: the same finding, suppression and input-error objects, one per line, each
//! self-describing (report version, tool name and version, file) so shards can be concatenated;
//! then what `tracelint report` needs to render the run again from shards: one record per input,
//! one per outlined trace, and a closing `run` record (coverage, ignores that matched nothing, the
//! tier that fails), whose absence marks a shard cut short.
//!
//! One cohesive contract: the v1 report and its JSON Lines records are the same frozen structs,
//! kept together so the wire format changes in one place.

use std::io::{self, Write};

use serde::Serialize;
use serde::ser::{Error as _, SerializeSeq as _};

use crate::finding::Finding;

use super::{Listed, Report};

/// The JSON Schema of this output.
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub const SCHEMA: &str = include_str!("report.schema.json");

#[derive(Serialize)]
struct V1Report<'a> {
    version: u32,
    tool: V1Tool,
    ok: bool,
    exit_code: u8,
    fail_on: &'a str,
    summary: &'a super::Summary,
    /// Each run's first failure and the findings that follow from it, before the findings.
    first_failures: Vec<V1Chain<'a>>,
    findings: Findings<'a>,
    ignored: Findings<'a>,
    suppressions: Vec<V1Suppression<'a>>,
    coverage: Vec<V1Coverage<'a>>,
    inputs: Vec<V1Input<'a>>,
    input_errors: Vec<V1Issue<'a>>,
    unmatched_ignores: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a super::BaselineReport>,
}

/// One run's first failure: the finding, those that follow from it, and the steps between.
#[derive(Serialize)]
struct V1Chain<'a> {
    file: &'a str,
    run_id: String,
    first: V1ChainFinding,
    follows: Vec<V1ChainFinding>,
    more_follows: usize,
    steps: Vec<V1ChainStep>,
    more_steps: usize,
}

/// A finding of a chain: its place in `findings` and enough to read it there.
#[derive(Serialize)]
struct V1ChainFinding {
    finding: usize,
    rule: &'static str,
    tier: &'static str,
    line: u32,
    column: u32,
    tool: Option<String>,
    message: String,
}

#[derive(Serialize)]
struct V1ChainStep {
    step: usize,
    line: u32,
    column: u32,
    pointer: String,
    note: String,
    /// The rule of the first finding of the chain that cites the step.
    rule: &'static str,
}

/// The report's chains, each finding named by its index in the active `findings` array.
fn chains<'a>(report: &'a Report, listed: &dyn Listed) -> io::Result<Vec<V1Chain<'a>>> {
    // Active findings keep the report's order: an index among them is a place in `findings`.
    let mut active_index = vec![0; listed.len()];
    let mut n = 0;
    for (i, place) in active_index.iter_mut().enumerate() {
        *place = n;
        if !listed.is_ignored(i)? {
            n += 1;
        }
    }
    let entry = |i: usize| -> io::Result<V1ChainFinding> {
        let f = listed.finding(i)?;
        let at = f.at();
        Ok(V1ChainFinding {
            finding: active_index[i],
            rule: f.rule.as_str(),
            tier: f.tier.as_str(),
            line: at.line,
            column: at.column,
            tool: f.tool.clone(),
            message: f.message.clone(),
        })
    };
    let mut out = Vec::new();
    for c in listed.first_failures()? {
        let head = listed.finding(c.head)?;
        let mut steps = Vec::with_capacity(c.steps.len());
        for s in &c.steps {
            steps.push(V1ChainStep {
                step: s.step,
                line: s.at.line,
                column: s.at.column,
                pointer: s.at.pointer.clone(),
                note: s.note.to_string(),
                rule: listed.finding(s.finding)?.rule.as_str(),
            });
        }
        out.push(V1Chain {
            file: report.path_of(head.input),
            run_id: head.run_id.clone(),
            first: entry(c.head)?,
            follows: c.follows.iter().map(|i| entry(*i)).collect::<io::Result<_>>()?,
            more_follows: c.more_follows,
            steps,
            more_steps: c.more_steps,
        });
    }
    Ok(out)
}

/// The active (or the ignored) findings of `listed`, written one at a time as they are read.
struct Findings<'a> {
    report: &'a Report,
    listed: &'a dyn Listed,
    ignored: bool,
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for i in 0..self.listed.len() {
            if self.listed.is_ignored(i).map_err(S::Error::custom)? != self.ignored {
                continue;
            }
            let f = self.listed.finding(i).map_err(S::Error::custom)?;
            seq.serialize_element(&finding(self.report, &f, false))?;
        }
        seq.end()
    }
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
    /// JSON Lines only: accepted by the baseline (its `ignore_reason` says so); absent when not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    baselined: bool,
    /// E1 on a trajectory: precision, recall, F1, the alignment and the per-step reasons
    /// (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<&'a crate::model::score::Score>,
    evidence: Vec<V1Evidence<'a>>,
}

#[derive(Serialize)]
struct V1Evidence<'a> {
    step: usize,
    line: u32,
    column: u32,
    /// JSON Lines only: where the step's JSON ends, when known (SARIF regions from shards).
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<u32>,
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
    notes: Vec<&'a str>,
}

/// An input's wire form; `for_shard` replaces the excerpt budget's note by where the budget ran
/// out in it (JSON Lines).
fn input(i: &super::InputSummary, for_shard: bool) -> V1Input<'_> {
    let budget_note = i
        .excerpts_cut
        .filter(|_| for_shard)
        .map(|c| super::ExcerptCut::note(c.budget));
    V1Input {
        path: &i.path,
        format: i.format.as_deref(),
        traces: i.traces,
        tool_calls: i.tool_calls,
        partial: i.partial,
        schemas: &i.schemas,
        notes: i
            .notes
            .iter()
            .map(String::as_str)
            .filter(|n| budget_note.as_deref() != Some(*n))
            .collect(),
    }
}

#[derive(Serialize)]
struct V1Issue<'a> {
    file: &'a str,
    /// `null` when the error concerns the whole file, as for a suppression without a place.
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
}

/// A finding's wire form; `extent` adds where each evidence step ends (JSON Lines).
fn finding<'a>(report: &'a Report, f: &'a Finding, extent: bool) -> V1Finding<'a> {
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
        baselined: extent && f.baselined,
        score: f.score.as_deref(),
        evidence: f
            .evidence
            .iter()
            .map(|e| V1Evidence {
                step: e.step,
                line: e.at.line,
                column: e.at.column,
                end_line: e.at.end.filter(|_| extent).map(|x| x.line),
                end_column: e.at.end.filter(|_| extent).map(|x| x.column),
                pointer: &e.at.pointer,
                note: &e.note,
                excerpt: &e.excerpt,
            })
            .collect(),
    }
}

/// Build the v1 value (also used by tests that validate against the schema).
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn to_value(report: &Report) -> serde_json::Value {
    let v1 = build(report, &report.findings).expect("a report's own findings read");
    serde_json::to_value(v1).expect("plain data serialises")
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
        line: Some(i.line).filter(|l| *l > 0),
        column: Some(i.column).filter(|c| *c > 0 && i.line > 0),
        message: &i.message,
    }
}

fn coverage(report: &Report) -> Vec<V1Coverage<'_>> {
    report
        .coverage
        .iter()
        .map(|c| V1Coverage {
            rule: c.rule.as_str(),
            unit: c.unit,
            decided: c.coverage.decided,
            total: c.coverage.total,
        })
        .collect()
}

fn fail_on(report: &Report) -> &'static str {
    report.fail_on.map_or("hard_defect", |t| t.as_str())
}

fn build<'a>(report: &'a Report, listed: &'a dyn Listed) -> io::Result<V1Report<'a>> {
    Ok(V1Report {
        version: 1,
        tool: TOOL,
        ok: report.exit.code() == 0,
        exit_code: report.exit.code(),
        fail_on: fail_on(report),
        summary: &report.summary,
        first_failures: chains(report, listed)?,
        findings: Findings {
            report,
            listed,
            ignored: false,
        },
        ignored: Findings {
            report,
            listed,
            ignored: true,
        },
        suppressions: report
            .suppressions
            .iter()
            .map(|s| suppression(report, s))
            .collect(),
        coverage: coverage(report),
        inputs: report.inputs.iter().map(|i| input(i, false)).collect(),
        input_errors: report.issues.iter().map(issue).collect(),
        unmatched_ignores: &report.unmatched_ignores,
        baseline: report.baseline.as_ref(),
    })
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
    Input(V1LineInput<'a>),
    Trace(V1Outline<'a>),
    Run(V1Run<'a>),
}

/// An input as a shard records it: the report's input, with the excerpt budget's note replaced by
/// where the budget ran out in it.
#[derive(Serialize)]
struct V1LineInput<'a> {
    #[serde(flatten)]
    input: V1Input<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    excerpts_cut: Option<V1Cut>,
}

#[derive(Serialize)]
struct V1Cut {
    budget: usize,
    finding: usize,
    evidence: usize,
}

/// The outline of a trace with findings.
#[derive(Serialize)]
struct V1Outline<'a> {
    file: &'a str,
    run_id: &'a str,
    steps: usize,
    outline: Vec<V1Step<'a>>,
}

#[derive(Serialize)]
struct V1Step<'a> {
    step: usize,
    kind: &'static str,
    tool: Option<&'a str>,
    line: u32,
    text: &'a str,
}

/// The closing record of a shard.
#[derive(Serialize)]
struct V1Run<'a> {
    fail_on: &'a str,
    /// Findings did not raise the exit status (`--exit-zero`, `--fail-on never`); absent when not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    report_only: bool,
    exit_code: u8,
    inputs: usize,
    coverage: Vec<V1Coverage<'a>>,
    unmatched_ignores: &'a [String],
}

fn line_input(i: &super::InputSummary) -> V1LineInput<'_> {
    V1LineInput {
        input: input(i, true),
        excerpts_cut: i.excerpts_cut.map(|c| V1Cut {
            budget: c.budget,
            finding: c.finding,
            evidence: c.evidence,
        }),
    }
}

fn outline<'a>(report: &'a Report, o: &'a super::Outline) -> V1Outline<'a> {
    V1Outline {
        file: report.path_of(o.input),
        run_id: &o.run_id,
        steps: o.total,
        outline: o
            .steps
            .iter()
            .map(|s| V1Step {
                step: s.index,
                kind: s.kind.as_str(),
                tool: s.tool.as_deref(),
                line: s.line,
                text: &s.text,
            })
            .collect(),
    }
}

/// Render JSON Lines: every finding (ignored ones carry `ignore_reason`), then suppressions, input
/// errors, inputs and trace outlines, then the closing `run` record; one compact object per line.
/// The findings are those of `listed`, read one at a time.
pub(crate) fn render_lines_listed(
    report: &Report,
    listed: &dyn Listed,
    out: &mut dyn Write,
) -> io::Result<()> {
    let line = |record: V1Record<'_>, out: &mut dyn Write| -> io::Result<()> {
        serde_json::to_writer(
            &mut *out,
            &V1Line {
                version: 1,
                tool: TOOL,
                record,
            },
        )?;
        writeln!(out)
    };
    for i in 0..listed.len() {
        let f = listed.finding(i)?;
        line(V1Record::Finding(finding(report, &f, true)), out)?;
    }
    let run = V1Run {
        fail_on: fail_on(report),
        report_only: report.report_only,
        exit_code: report.exit.code(),
        inputs: report.inputs.len(),
        coverage: coverage(report),
        unmatched_ignores: &report.unmatched_ignores,
    };
    let records = report
        .suppressions
        .iter()
        .map(|s| V1Record::Suppression(suppression(report, s)))
        .chain(report.issues.iter().map(|i| V1Record::InputError(issue(i))))
        .chain(report.inputs.iter().map(|i| V1Record::Input(line_input(i))))
        .chain(
            report
                .outlines
                .iter()
                .map(|o| V1Record::Trace(outline(report, o))),
        )
        .chain(std::iter::once(V1Record::Run(run)));
    for record in records {
        line(record, out)?;
    }
    Ok(())
}

/// Render the JSON report (pretty, with a trailing newline).
/// The findings are those of `listed`, read one at a time.
pub(crate) fn render_listed(
    report: &Report,
    listed: &dyn Listed,
    out: &mut dyn Write,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &build(report, listed)?)?;
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
        let report = sample::report();
        render_lines_listed(&report, &report.findings, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let validator = line_validator();
        let mut kinds = Vec::new();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{line}: {errors:?}");
            assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"));
            let kind = [
                "finding",
                "suppression",
                "input_error",
                "input",
                "trace",
                "run",
            ]
            .into_iter()
            .find(|k| v.get(*k).is_some())
            .unwrap();
            kinds.push(kind);
            if matches!(kind, "finding" | "suppression" | "trace") {
                assert!(v[kind]["file"].as_str().is_some_and(|f| !f.is_empty()));
            }
        }
        // 4 findings (one ignored), 1 suppression, 2 input errors, 2 inputs, 1 outline, the run.
        assert_eq!(
            kinds,
            [
                "finding",
                "finding",
                "finding",
                "finding",
                "suppression",
                "input_error",
                "input_error",
                "input",
                "input",
                "trace",
                "run"
            ]
        );
        // An input error about a whole file has no line or column (`null`, as a suppression
        // without a place); one at a line has both.
        let errors: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter_map(|v| v.get("input_error").cloned())
            .collect();
        assert_eq!(errors[0]["file"], "missing.json");
        assert!(errors[0]["line"].is_null() && errors[0]["column"].is_null());
        assert_eq!(
            (errors[1]["line"].as_u64(), errors[1]["column"].as_u64()),
            (Some(2), Some(3))
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
