//! `tracelint doctor`'s diagnosis: from a finished report with per-input detail (coverage by rule
//! and tool, record quality), what the corpus records, what each rule could not check and why,
//! which tools lack which contract section, and what to add to light a rule up — as data (the
//! JSON output) and as text. It judges the record, never the agent, and decides nothing about
//! findings; rule ids come from the report, so every registered rule is covered.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::finding::{Coverage, RuleId};
use crate::record::{RecordStats, ToolRecord};
use crate::reporters::Report;
use crate::reporters::escape::terminal;

/// A share: `count` of `of`, and the percentage (`None` when there is nothing to measure).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Share {
    /// How many.
    pub count: usize,
    /// Out of.
    pub of: usize,
    /// `count / of` in percent, one decimal.
    pub percent: Option<f64>,
}

impl Share {
    fn new(count: usize, of: usize) -> Self {
        Self {
            count,
            of,
            percent: (of > 0).then(|| ((count as f64 / of as f64) * 1000.0).round() / 10.0),
        }
    }

    fn text(&self) -> String {
        match self.percent {
            Some(p) => format!("{}/{} ({p}%)", self.count, self.of),
            None => "0/0".into(),
        }
    }
}

/// What the record holds, over some traces.
#[derive(Debug, Clone, Serialize)]
pub struct RecordMeasures {
    /// Tool calls.
    pub tool_calls: usize,
    /// Calls whose arguments were recorded.
    pub arguments_recorded: Share,
    /// Calls with a recorded result.
    pub results_recorded: Share,
    /// Results that say whether they succeeded (a status, an error flag, an HTTP status).
    pub outcome_recorded: Share,
    /// Calls whose tool has an input schema in force.
    pub schema_known: Share,
}

impl RecordMeasures {
    fn of(t: &ToolRecord) -> Self {
        Self {
            tool_calls: t.calls,
            arguments_recorded: Share::new(t.calls - t.args_unknown, t.calls),
            results_recorded: Share::new(t.calls - t.no_result, t.calls),
            outcome_recorded: Share::new(t.results - t.status_unknown, t.results),
            schema_known: Share::new(t.with_schema, t.calls),
        }
    }
}

/// One input format's record.
#[derive(Debug, Clone, Serialize)]
pub struct FormatRow {
    /// The format (`claude`, `otel`, …).
    pub format: String,
    /// Inputs read as it.
    pub inputs: usize,
    /// Traces.
    pub traces: usize,
    /// The record.
    pub record: RecordMeasures,
}

/// One reason a rule gave for not deciding, with how often and for which tools.
#[derive(Debug, Clone, Serialize)]
pub struct Reason {
    /// The reason, with quoted names (`` `x` ``) folded to `` `…` ``.
    pub reason: String,
    /// How many "could not check" said it.
    pub count: usize,
    /// How many of those were about a whole trace (the rule could not run on it at all).
    pub whole_traces: usize,
    /// Per tool named.
    pub tools: BTreeMap<String, usize>,
}

/// One rule's coverage over the corpus.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    /// The rule.
    pub rule: RuleId,
    /// What it counts.
    pub unit: &'static str,
    /// Decided of looked at: the numbers `check` prints in its coverage footer.
    pub coverage: Share,
    /// Why it could not decide, most frequent first.
    pub not_checked: Vec<Reason>,
    /// Units not decided, per tool.
    pub undecided_by_tool: BTreeMap<String, usize>,
}

/// One tool over the corpus.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRow {
    /// The tool.
    pub name: String,
    /// The record of its calls.
    pub record: RecordMeasures,
    /// Where its schema came from.
    pub schema_sources: Vec<String>,
    /// The contract sections it lacks (`no input schema`, `` `side_effecting` undeclared ``, …).
    pub gaps: Vec<String>,
    /// Per rule: decided / looked at for this tool's units.
    pub coverage: BTreeMap<RuleId, Coverage>,
}

/// One input file.
#[derive(Debug, Clone, Serialize)]
pub struct FileRow {
    /// The path.
    pub path: String,
    /// The format it was read as.
    pub format: Option<String>,
    /// Traces.
    pub traces: usize,
    /// The record.
    pub record: RecordMeasures,
    /// Per rule: decided / looked at.
    pub coverage: BTreeMap<RuleId, Coverage>,
}

/// A `--fail-under` gate and how the corpus fares.
#[derive(Debug, Clone, Serialize)]
pub struct Gate {
    /// As given: `80` or `R1=95`.
    pub gate: String,
    /// The rule, or `None` for every rule together.
    pub rule: Option<RuleId>,
    /// The threshold, in percent.
    pub threshold: f64,
    /// The coverage measured (`None`: nothing to measure, which never fails).
    pub measured: Option<f64>,
    /// Met.
    pub passed: bool,
}

/// The whole diagnosis (`doctor --json`: version 1).
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// Output version.
    pub version: u32,
    /// Inputs named.
    pub inputs: usize,
    /// Traces read.
    pub traces: usize,
    /// The record over every trace.
    pub record: RecordMeasures,
    /// The record per input format.
    pub formats: Vec<FormatRow>,
    /// Coverage per rule (as `check` counts it) and why units were not checked.
    pub rules: Vec<RuleRow>,
    /// Every tool called, with its contract gaps.
    pub tools: Vec<ToolRow>,
    /// Every input.
    pub files: Vec<FileRow>,
    /// What to add to light rules up, most effect first.
    pub suggestions: Vec<String>,
    /// `--fail-under` gates.
    pub gates: Vec<Gate>,
    /// Inputs that could not be read (`path:line: message`).
    pub input_errors: Vec<String>,
    /// The exit code.
    pub exit_code: u8,
}

/// A `--fail-under` value: `80` or `R1=95`.
pub fn parse_gate(s: &str) -> Result<(Option<Vec<RuleId>>, f64), String> {
    let (rule, pct) = match s.split_once('=') {
        Some((r, p)) => (Some(r.trim()), p.trim()),
        None => (None, s.trim()),
    };
    let pct: f64 = pct
        .trim_end_matches('%')
        .parse()
        .ok()
        .filter(|p: &f64| (0.0..=100.0).contains(p))
        .ok_or_else(|| {
            format!("`--fail-under {s}`: give a percentage from 0 to 100, as `80` or `R1=95`")
        })?;
    let rules = rule
        .map(|r| crate::rules::parse_rule_list(&[r.to_owned()]).map_err(|e| e.to_string()))
        .transpose()?;
    Ok((rules, pct))
}

/// `` tool `Bash` declares no input schema `` → `` tool `…` declares no input schema ``: the
/// tool a reason names is folded, so one reason groups every tool it was given for.
fn template(reason: &str, tool: Option<&str>) -> String {
    match tool {
        Some(t) => reason.replace(&format!("`{t}`"), "`…`"),
        None => reason.to_owned(),
    }
}

/// Build the diagnosis of a report whose `details` were kept.
pub fn diagnose(report: &Report, gates: &[(String, Option<Vec<RuleId>>, f64)]) -> Diagnosis {
    let mut all = RecordStats::default();
    let mut formats: BTreeMap<String, (usize, usize, RecordStats)> = BTreeMap::new();
    let mut tool_cov: BTreeMap<String, BTreeMap<RuleId, Coverage>> = BTreeMap::new();
    let mut files = Vec::new();
    for (i, input) in report.inputs.iter().enumerate() {
        let detail = report.details.get(i).cloned().unwrap_or_default();
        all.add(&detail.record);
        if let Some(f) = &input.format {
            let e = formats.entry(f.clone()).or_default();
            e.0 += 1;
            e.1 += input.traces;
            e.2.add(&detail.record);
        }
        for (rule, r) in &detail.rules {
            for (tool, c) in &r.tools {
                tool_cov
                    .entry(tool.clone())
                    .or_default()
                    .entry(*rule)
                    .or_default()
                    .add(*c);
            }
        }
        files.push(FileRow {
            path: input.path.clone(),
            format: input.format.clone(),
            traces: input.traces,
            record: RecordMeasures::of(&detail.record.total()),
            coverage: detail.rules.iter().map(|(r, d)| (*r, d.coverage)).collect(),
        });
    }
    let mut reasons: BTreeMap<RuleId, BTreeMap<String, Reason>> = BTreeMap::new();
    for s in &report.suppressions {
        let t = template(&s.reason, s.tool.as_deref());
        let r = reasons
            .entry(s.rule)
            .or_default()
            .entry(t.clone())
            .or_insert_with(|| Reason {
                reason: t,
                count: 0,
                whole_traces: 0,
                tools: BTreeMap::new(),
            });
        r.count += 1;
        r.whole_traces += usize::from(s.step.is_none());
        if let Some(tool) = &s.tool {
            *r.tools.entry(tool.clone()).or_default() += 1;
        }
    }
    let rules: Vec<RuleRow> = report
        .coverage
        .iter()
        .map(|c| {
            let mut not_checked: Vec<Reason> = reasons
                .remove(&c.rule)
                .map(|m| m.into_values().collect())
                .unwrap_or_default();
            not_checked.sort_by(|a, b| b.count.cmp(&a.count).then(a.reason.cmp(&b.reason)));
            let mut undecided_by_tool = BTreeMap::new();
            for (tool, rules) in &tool_cov {
                if let Some(t) = rules.get(&c.rule).filter(|t| t.decided < t.total) {
                    undecided_by_tool.insert(tool.clone(), t.total - t.decided);
                }
            }
            RuleRow {
                rule: c.rule,
                unit: c.unit,
                coverage: Share::new(c.coverage.decided, c.coverage.total),
                not_checked,
                undecided_by_tool,
            }
        })
        .collect();
    let any_registry = all.tools.values().any(|t| t.declared > 0);
    let tools: Vec<ToolRow> = all
        .tools
        .iter()
        .map(|(name, t)| ToolRow {
            name: name.clone(),
            record: RecordMeasures::of(t),
            schema_sources: t.schema_sources.iter().cloned().collect(),
            gaps: gaps(t, any_registry),
            coverage: tool_cov.remove(name).unwrap_or_default(),
        })
        .collect();
    let total = all.total();
    let suggestions = suggestions(&all, &formats);
    let gates: Vec<Gate> = gates
        .iter()
        .map(|(text, rules_of, threshold)| {
            let mut c = Coverage::default();
            for r in &report.coverage {
                if rules_of.as_ref().is_none_or(|rs| rs.contains(&r.rule)) {
                    c.add(r.coverage);
                }
            }
            let measured = Share::new(c.decided, c.total).percent;
            Gate {
                gate: text.clone(),
                rule: rules_of.as_ref().and_then(|r| r.first().copied()),
                threshold: *threshold,
                measured,
                passed: measured.is_none_or(|m| m >= *threshold),
            }
        })
        .collect();
    Diagnosis {
        version: 1,
        inputs: report.inputs.len(),
        traces: report.summary.traces,
        record: RecordMeasures::of(&total),
        formats: formats
            .into_iter()
            .map(|(format, (inputs, traces, stats))| FormatRow {
                format,
                inputs,
                traces,
                record: RecordMeasures::of(&stats.total()),
            })
            .collect(),
        rules,
        tools,
        files,
        suggestions,
        gates,
        input_errors: report.issues.iter().map(ToString::to_string).collect(),
        exit_code: 0,
    }
}

/// The contract sections a tool lacks.
fn gaps(t: &ToolRecord, any_registry: bool) -> Vec<String> {
    let mut g = Vec::new();
    // `n` calls have the section: nothing to add when none has it.
    let some = |n: usize| {
        if n == 0 {
            String::new()
        } else {
            format!(" in {} of {} calls", t.calls - n, t.calls)
        }
    };
    if any_registry && t.declared < t.calls {
        g.push(format!("not declared{}", some(t.declared)));
    }
    if t.with_schema < t.calls {
        g.push(format!("no input schema{}", some(t.with_schema)));
    }
    if t.side_effecting_declared < t.calls {
        g.push(format!(
            "`side_effecting` undeclared{}",
            some(t.side_effecting_declared)
        ));
    }
    if t.side_effecting > 0 && t.idempotent_declared < t.calls {
        g.push("`idempotent` undeclared".into());
    }
    if t.status_unknown > 0 && t.failure_when < t.calls {
        g.push(format!(
            "no `failure_when` ({} of {} results say nothing about success)",
            t.status_unknown, t.results
        ));
    }
    g
}

/// How to record tool content in a format's producer.
fn capture_hint(format: &str) -> &'static str {
    match format {
        "otel" => {
            "OpenInference: leave OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS unset; OTel GenAI: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"
        }
        "langfuse" => "Langfuse: export the observations' input and output (no masking)",
        "openai" => "keep every message, the role:tool replies included",
        "claude" => "keep the whole session file: a cut-off session ends on calls with no result",
        _ => "record each tool call's arguments and each result",
    }
}

fn names(tools: &[&str]) -> String {
    const SHOWN: usize = 5;
    let mut s: Vec<String> = tools.iter().take(SHOWN).map(|t| format!("`{t}`")).collect();
    if tools.len() > SHOWN {
        s.push(format!("{} more", tools.len() - SHOWN));
    }
    s.join(", ")
}

/// What to add, most calls affected first.
fn suggestions(
    all: &RecordStats,
    formats: &BTreeMap<String, (usize, usize, RecordStats)>,
) -> Vec<String> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let no_schema: Vec<(&str, usize)> = all
        .tools
        .iter()
        .filter(|(_, t)| t.with_schema < t.calls)
        .map(|(n, t)| (n.as_str(), t.calls - t.with_schema))
        .collect();
    if !no_schema.is_empty() {
        let calls: usize = no_schema.iter().map(|(_, n)| n).sum();
        let list: Vec<&str> = no_schema.iter().map(|(n, _)| *n).collect();
        out.push((
            calls,
            format!(
                "give input schemas for {} ({} without one): `tracelint init INPUT… -o tools.json` writes a starter file from the real schemas it can find, then pass `--tools tools.json`",
                names(&list),
                plural(calls, "call", "calls")
            ),
        ));
    }
    for (format, (_, _, stats)) in formats {
        let t = stats.total();
        if t.args_unknown > 0 {
            out.push((
                t.args_unknown,
                format!(
                    "{format}: record tool arguments ({} of {} calls have none): {}",
                    t.args_unknown,
                    t.calls,
                    capture_hint(format)
                ),
            ));
        }
        if t.no_result > 0 {
            out.push((
                t.no_result,
                format!(
                    "{format}: record tool results ({} of {} calls have none): {}",
                    t.no_result,
                    t.calls,
                    capture_hint(format)
                ),
            ));
        }
        if t.content_missing > 0 {
            out.push((
                t.content_missing,
                format!(
                    "{format}: record result content ({} of {} results were exported without it): {}",
                    t.content_missing,
                    t.results,
                    capture_hint(format)
                ),
            ));
        }
    }
    let unknown_outcome: Vec<(&str, usize)> = all
        .tools
        .iter()
        .filter(|(_, t)| t.status_unknown > 0 && t.failure_when == 0)
        .map(|(n, t)| (n.as_str(), t.status_unknown))
        .collect();
    if !unknown_outcome.is_empty() {
        let n: usize = unknown_outcome.iter().map(|(_, n)| n).sum();
        let list: Vec<&str> = unknown_outcome.iter().map(|(t, _)| *t).collect();
        out.push((
            n,
            format!(
                "say what failure looks like: {} result{} of {} carry no status; record one (an error flag, an exit code) or declare `failure_when` in the tools file",
                n,
                if n == 1 { "" } else { "s" },
                names(&list)
            ),
        ));
    }
    let undeclared: Vec<&str> = all
        .tools
        .iter()
        .filter(|(_, t)| t.side_effecting_declared < t.calls)
        .map(|(n, _)| n.as_str())
        .collect();
    if !undeclared.is_empty() {
        out.push((
            0,
            format!(
                "declare `side_effecting` (true or false) for {} in the tools file: what a failure may have changed depends on it",
                names(&undeclared)
            ),
        ));
    }
    // Most calls affected first; the sort is stable, so ties keep the order above.
    out.sort_by_key(|b| std::cmp::Reverse(b.0));
    out.into_iter().map(|(_, s)| s).collect()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Group-by choices for the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// Per rule.
    Rule,
    /// Per tool.
    Tool,
    /// Per input file.
    File,
}

/// Most reasons, tools or files listed per section (the JSON has them all).
const SHOWN: usize = 25;

fn coverage_cells(c: &BTreeMap<RuleId, Coverage>) -> String {
    c.iter()
        .map(|(r, c)| format!("{r} {}/{}", c.decided, c.total))
        .collect::<Vec<_>>()
        .join(", ")
}

fn record_line(r: &RecordMeasures) -> String {
    format!(
        "arguments {}, results {}, outcome {}, schemas {}",
        r.arguments_recorded.text(),
        r.results_recorded.text(),
        r.outcome_recorded.text(),
        r.schema_known.text()
    )
}

/// Render the text diagnosis.
pub fn render_text(d: &Diagnosis, by: By, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "doctor: {} from {} ({})",
        plural(d.traces, "trace", "traces"),
        plural(d.inputs, "input", "inputs"),
        plural(d.record.tool_calls, "tool call", "tool calls"),
    )?;
    writeln!(out, "\nrecord (what the traces hold):")?;
    let r = &d.record;
    writeln!(
        out,
        "  arguments recorded  {}\n  results recorded    {}\n  outcome recorded    {}  (a status or error flag on the result)\n  schemas known       {}",
        r.arguments_recorded.text(),
        r.results_recorded.text(),
        r.outcome_recorded.text(),
        r.schema_known.text()
    )?;
    if d.formats.len() > 1 || by == By::File {
        for f in &d.formats {
            writeln!(
                out,
                "  {}: {}, {}: {}",
                f.format,
                plural(f.inputs, "input", "inputs"),
                plural(f.traces, "trace", "traces"),
                record_line(&f.record)
            )?;
        }
    }
    match by {
        By::Rule => {
            writeln!(out, "\ncoverage by rule (as `check` counts it):")?;
            for row in &d.rules {
                writeln!(
                    out,
                    "  {:<4} {} {}",
                    row.rule.as_str(),
                    row.coverage.text(),
                    row.unit
                )?;
                if !row.undecided_by_tool.is_empty() {
                    let mut by: Vec<(&String, &usize)> = row.undecided_by_tool.iter().collect();
                    by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                    let shown: Vec<String> = by
                        .iter()
                        .take(8)
                        .map(|(t, n)| format!("{} {n}", terminal(t)))
                        .collect();
                    let more = if by.len() > 8 {
                        format!(", {} more tools", by.len() - 8)
                    } else {
                        String::new()
                    };
                    writeln!(out, "       not decided: {}{more}", shown.join(", "))?;
                }
                for reason in row.not_checked.iter().take(SHOWN) {
                    let tools: Vec<String> = reason
                        .tools
                        .iter()
                        .take(SHOWN)
                        .map(|(t, n)| format!("{} {n}", terminal(t)))
                        .collect();
                    let whole = if reason.whole_traces > 0 {
                        format!(" (whole trace: {})", reason.whole_traces)
                    } else {
                        String::new()
                    };
                    let tools = if tools.is_empty() {
                        String::new()
                    } else {
                        format!(" — {}", tools.join(", "))
                    };
                    writeln!(
                        out,
                        "       {:>5}× {}{whole}{tools}",
                        reason.count,
                        terminal(&reason.reason)
                    )?;
                }
            }
        }
        By::Tool => {
            writeln!(out, "\nby tool:")?;
            for t in d.tools.iter().take(SHOWN * 4) {
                writeln!(
                    out,
                    "  {} ({})",
                    terminal(&t.name),
                    plural(t.record.tool_calls, "call", "calls")
                )?;
                writeln!(out, "      coverage: {}", coverage_cells(&t.coverage))?;
                writeln!(out, "      record: {}", record_line(&t.record))?;
                if !t.gaps.is_empty() {
                    writeln!(out, "      lacks: {}", t.gaps.join("; "))?;
                }
            }
        }
        By::File => {
            writeln!(out, "\nby file:")?;
            for f in &d.files {
                writeln!(
                    out,
                    "  {} ({}, {})",
                    terminal(&f.path),
                    f.format.as_deref().unwrap_or("not read"),
                    plural(f.traces, "trace", "traces")
                )?;
                if f.format.is_some() {
                    writeln!(out, "      coverage: {}", coverage_cells(&f.coverage))?;
                    writeln!(out, "      record: {}", record_line(&f.record))?;
                }
            }
        }
    }
    if by != By::Tool {
        let lacking: Vec<&ToolRow> = d.tools.iter().filter(|t| !t.gaps.is_empty()).collect();
        if !lacking.is_empty() {
            writeln!(out, "\ncontract gaps (tool: what its contract lacks):")?;
            for t in lacking.iter().take(SHOWN) {
                writeln!(
                    out,
                    "  {} ({}): {}",
                    terminal(&t.name),
                    plural(t.record.tool_calls, "call", "calls"),
                    t.gaps.join("; ")
                )?;
            }
            if lacking.len() > SHOWN {
                writeln!(out, "  … and {} more (see --json)", lacking.len() - SHOWN)?;
            }
        }
    }
    if !d.suggestions.is_empty() {
        writeln!(out, "\nto light rules up:")?;
        for s in &d.suggestions {
            writeln!(out, "  - {}", terminal(s))?;
        }
    }
    for g in &d.gates {
        let measured = g
            .measured
            .map_or("nothing to measure".to_owned(), |m| format!("{m}%"));
        let what = match g.rule {
            Some(r) => format!("{r} coverage"),
            None => "coverage".into(),
        };
        writeln!(
            out,
            "{}: {what} {measured} (--fail-under {})",
            if g.passed { "gate met" } else { "gate failed" },
            terminal(&g.gate)
        )?;
    }
    for e in &d.input_errors {
        writeln!(out, "input_error: {}", terminal(e))?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "doctor_tests.rs"]
mod tests;
