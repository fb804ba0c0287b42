//! The diagnosis as text: the corpus and its record quality, the main breakdown (by rule, tool or
//! file), what to add, and the gates.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::finding::{Coverage, RuleId};
use crate::reporters::escape::terminal;

use super::diagnose::plural;
use super::{Diagnosis, RecordMeasures, RunMeasures, ToolRow};

/// Group-by choices for the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// Per rule.
    Rule,
    /// Per tool.
    Tool,
    /// Per input file.
    File,
    /// Per input format.
    Format,
    /// Per agent (as the input names it).
    Agent,
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

/// What whole runs record, in one line.
fn runs_line(r: &RunMeasures) -> String {
    let mut parts = vec![plural(r.runs, "run", "runs")];
    let unanswered = r.ends_answered.of - r.ends_answered.count;
    parts.push(format!("{unanswered} ending on an unanswered call"));
    if r.subagents_present.of > 0 {
        parts.push(format!(
            "sub-agent runs missing {} of {}",
            r.subagents_present.of - r.subagents_present.count,
            r.subagents_present.of
        ));
    }
    let v = r.schema_version;
    if v.recorded + v.inferred + v.none > 0 {
        parts.push(format!(
            "built-in schema version recorded {}, inferred {}, none {}",
            v.recorded, v.inferred, v.none
        ));
    }
    parts.join(", ")
}

/// The run figures of the record section.
fn run_figures(r: &RunMeasures, out: &mut dyn Write) -> io::Result<()> {
    let unanswered = r.ends_answered.of - r.ends_answered.count;
    writeln!(
        out,
        "  runs answered to the end  {}  ({} on a call with no result: the record may be cut off)",
        r.ends_answered.text(),
        plural(unanswered, "ends", "end")
    )?;
    if r.subagents_present.of > 0 {
        writeln!(
            out,
            "  sub-agent runs present    {}  ({} started but not in the inputs)",
            r.subagents_present.text(),
            r.subagents_present.of - r.subagents_present.count
        )?;
    }
    let v = r.schema_version;
    if v.recorded + v.inferred + v.none > 0 {
        writeln!(
            out,
            "  schema version recorded   {}  (runs on their agent's built-in schemas: inferred from the calls {}, none to go on {})",
            r.schema_version_recorded.text(),
            v.inferred,
            v.none
        )?;
    }
    Ok(())
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
    run_figures(&d.runs, out)?;
    if (d.formats.len() > 1 || by == By::File) && by != By::Format {
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
        By::Format => {
            writeln!(out, "\nby format:")?;
            for f in &d.formats {
                writeln!(
                    out,
                    "  {} ({}, {})",
                    f.format,
                    plural(f.inputs, "input", "inputs"),
                    plural(f.record.tool_calls, "tool call", "tool calls")
                )?;
                writeln!(out, "      record: {}", record_line(&f.record))?;
                writeln!(out, "      runs: {}", runs_line(&f.runs))?;
            }
        }
        By::Agent => {
            writeln!(out, "\nby agent (as the input names it):")?;
            for a in &d.agents {
                writeln!(
                    out,
                    "  {} ({})",
                    a.agent
                        .as_deref()
                        .map_or_else(|| "not named by the input".to_owned(), |a| terminal(a).into_owned()),
                    plural(a.record.tool_calls, "tool call", "tool calls")
                )?;
                writeln!(out, "      record: {}", record_line(&a.record))?;
                writeln!(out, "      runs: {}", runs_line(&a.runs))?;
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
                    writeln!(out, "      runs: {}", runs_line(&f.runs))?;
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
        let what = match (g.rule, g.measure) {
            (_, Some(m)) => super::RECORD_GATES
                .iter()
                .find(|(n, _)| *n == m)
                .map_or(m.to_owned(), |(_, what)| (*what).to_owned()),
            (Some(r), None) => format!("{r} coverage"),
            (None, None) => "coverage".into(),
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
