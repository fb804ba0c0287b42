//! `diagnose`: a finished report's per-input detail turned into the diagnosis — shares per format,
//! rule, tool and file, the reasons units went unchecked, each tool's contract gaps, and the
//! suggestions that would light a rule up.

use std::collections::BTreeMap;

use crate::finding::{Coverage, RuleId};
use crate::record::{RecordStats, ToolRecord};
use crate::reporters::Report;

use super::{
    AgentRow, Diagnosis, FileRow, FormatRow, Gate, Reason, RecordMeasures, RuleRow, RunSums,
    Share, ToolRow,
};
use crate::record::RunFacts;

/// For each run (in `runs`' order), how many of the sub-agent runs it started are absent from
/// the inputs. A sub-agent run is present when a run names the call that started it
/// (`parent_tool_use_id`); the rest are matched by run id (`parent/agent-x`,
/// `parent/subagent-1`), as many as there are.
pub(super) fn missing_subagents(runs: &[(usize, &RunFacts)]) -> Vec<usize> {
    let named: std::collections::HashSet<&str> = runs
        .iter()
        .filter_map(|(_, r)| r.parent_call.as_deref())
        .collect();
    let mut unnamed: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (_, r) in runs.iter().filter(|(_, r)| r.parent_call.is_none()) {
        for p in &r.parent_runs {
            *unnamed.entry(p.as_str()).or_default() += 1;
        }
    }
    runs.iter()
        .map(|(_, r)| {
            let unmatched = r
                .launches
                .iter()
                .filter(|id| !named.contains(id.as_str()))
                .count();
            let by_id = unnamed.get(r.run_id.as_str()).copied().unwrap_or(0);
            unmatched.saturating_sub(by_id)
        })
        .collect()
}

/// `` tool `Bash` declares no input schema `` → `` tool `…` declares no input schema ``: the
/// tool a reason names is folded, so one reason groups every tool it was given for.
pub(super) fn template(reason: &str, tool: Option<&str>) -> String {
    match tool {
        Some(t) => reason.replace(&format!("`{t}`"), "`…`"),
        None => reason.to_owned(),
    }
}

/// Build the diagnosis of a report whose `details` were kept.
pub fn diagnose(
    report: &Report,
    gates: &[(String, Option<Vec<RuleId>>, f64)],
    record_gates: &[(String, &'static str, f64)],
) -> Diagnosis {
    let mut all = RecordStats::default();
    let mut formats: BTreeMap<String, (usize, usize, RecordStats)> = BTreeMap::new();
    let mut tool_cov: BTreeMap<String, BTreeMap<RuleId, Coverage>> = BTreeMap::new();
    let mut files = Vec::new();
    let runs: Vec<(usize, &RunFacts)> = report
        .details
        .iter()
        .enumerate()
        .flat_map(|(i, d)| d.record.runs.iter().map(move |r| (i, r)))
        .collect();
    let missing = missing_subagents(&runs);
    let mut run_sums = RunSums::default();
    let mut by_input: Vec<RunSums> = vec![RunSums::default(); report.inputs.len()];
    let mut by_agent: BTreeMap<Option<&str>, (ToolRecord, RunSums)> = BTreeMap::new();
    for ((i, run), m) in runs.iter().zip(&missing) {
        run_sums.add(run, *m);
        if let Some(s) = by_input.get_mut(*i) {
            s.add(run, *m);
        }
        let a = by_agent.entry(run.agent.as_deref()).or_default();
        a.0.add(&run.record);
        a.1.add(run, *m);
    }
    let mut format_runs: BTreeMap<&str, RunSums> = BTreeMap::new();
    let no_detail = crate::record::InputDetail::default();
    for (i, input) in report.inputs.iter().enumerate() {
        let detail = report.details.get(i).unwrap_or(&no_detail);
        all.add_counts(&detail.record);
        if let Some(f) = &input.format {
            let e = formats.entry(f.clone()).or_default();
            e.0 += 1;
            e.1 += input.traces;
            e.2.add_counts(&detail.record);
            format_runs.entry(f.as_str()).or_default().merge(&by_input[i]);
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
            runs: by_input[i].measures(),
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
                measure: None,
                threshold: *threshold,
                measured,
                passed: measured.is_none_or(|m| m >= *threshold),
            }
        })
        .chain(record_gates.iter().map(|(text, measure, threshold)| {
            let measured = RecordMeasures::of(&total)
                .share(measure)
                .or_else(|| run_sums.measures().share(measure))
                .and_then(|s| s.percent);
            Gate {
                gate: text.clone(),
                rule: None,
                measure: Some(measure),
                threshold: *threshold,
                measured,
                passed: measured.is_none_or(|m| m >= *threshold),
            }
        }))
        .collect();
    Diagnosis {
        version: 2,
        inputs: report.inputs.len(),
        traces: report.summary.traces,
        record: RecordMeasures::of(&total),
        runs: run_sums.measures(),
        formats: formats
            .into_iter()
            .map(|(format, (inputs, traces, stats))| FormatRow {
                runs: format_runs
                    .get(format.as_str())
                    .copied()
                    .unwrap_or_default()
                    .measures(),
                format,
                inputs,
                traces,
                record: RecordMeasures::of(&stats.total()),
            })
            .collect(),
        agents: by_agent
            .into_iter()
            .map(|(agent, (record, sums))| AgentRow {
                agent: agent.map(str::to_owned),
                record: RecordMeasures::of(&record),
                runs: sums.measures(),
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

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
