//! `tracelint doctor`'s diagnosis: from a finished report with per-input detail (coverage by rule
//! and tool, record quality), what the corpus records, what each rule could not check and why,
//! which tools lack which contract section, and what to add to light a rule up — as data (the
//! JSON output) and as text. It judges the record, never the agent, and decides nothing about
//! findings; rule ids come from the report, so every registered rule is covered.

mod diagnose;
mod text;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::finding::{Coverage, RuleId};
use crate::record::ToolRecord;

pub use diagnose::diagnose;
pub use text::{By, render_text};

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
    /// The rule, or `None` for every rule together (or for a record gate).
    pub rule: Option<RuleId>,
    /// A record-quality gate's measure (`results`, `status`, `arguments`, `schemas`), absent
    /// for a coverage gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measure: Option<&'static str>,
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

/// The record-quality measures a `--fail-under NAME=PERCENT` gate can name, with what each is.
pub const RECORD_GATES: &[(&str, &str)] = &[
    ("results", "calls with a recorded result"),
    ("status", "results that say whether they succeeded"),
    ("arguments", "calls whose arguments were recorded"),
    ("schemas", "calls whose tool has an input schema"),
];

/// A record-quality `--fail-under` value (`results=90`): its measure and threshold; `None` when
/// the name is not a record measure (a rule gate, `R1=95`, or a plain `80`).
pub fn parse_record_gate(s: &str) -> Option<Result<(&'static str, f64), String>> {
    let (name, pct) = s.split_once('=')?;
    let name = name.trim().to_ascii_lowercase();
    let measure = RECORD_GATES.iter().find(|(n, _)| *n == name)?.0;
    Some(
        pct.trim()
            .trim_end_matches('%')
            .parse()
            .ok()
            .filter(|p: &f64| (0.0..=100.0).contains(p))
            .map(|p| (measure, p))
            .ok_or_else(|| {
                format!("`--fail-under {s}`: give a percentage from 0 to 100, as `{measure}=90`")
            }),
    )
}

impl RecordMeasures {
    /// The share a record gate measures.
    pub fn share(&self, measure: &str) -> Option<Share> {
        match measure {
            "results" => Some(self.results_recorded),
            "status" => Some(self.outcome_recorded),
            "arguments" => Some(self.arguments_recorded),
            "schemas" => Some(self.schema_known),
            _ => None,
        }
    }
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
            format!("`--fail-under {s}`: give a percentage from 0 to 100, as `80`, `R1=95` or `results=90`")
        })?;
    let rules = rule
        .map(|r| crate::rules::parse_rule_list(&[r.to_owned()]).map_err(|e| e.to_string()))
        .transpose()?;
    Ok((rules, pct))
}

#[cfg(test)]
mod tests;
