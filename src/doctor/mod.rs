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

/// How the built-in schemas in force were matched to the agent's version, in runs.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct VersionCertainty {
    /// The session records its version.
    pub recorded: usize,
    /// No version recorded: inferred from the session's calls or start date.
    pub inferred: usize,
    /// Nothing to go on: the newest capture was assumed.
    pub none: usize,
}

/// What whole runs record, over some runs.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RunMeasures {
    /// Runs (traces).
    pub runs: usize,
    /// Runs whose last tool call has a recorded result, of the runs with a call.
    pub ends_answered: Share,
    /// Sub-agent runs present in the inputs, of the sub-agent runs the runs started (calls of
    /// `Task`, `Agent`, `spawn_agent`, … or a tool whose result is another agent's report).
    pub subagents_present: Share,
    /// Runs on their agent's built-in schemas, by how the schemas' version was matched.
    pub schema_version: VersionCertainty,
    /// Of those, the runs whose agent version is recorded.
    pub schema_version_recorded: Share,
}

/// Per-run sums before they become shares.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunSums {
    runs: usize,
    with_calls: usize,
    ends_unanswered: usize,
    started: usize,
    missing: usize,
    version: VersionCertainty,
}

impl RunSums {
    pub(crate) fn add(&mut self, run: &crate::record::RunFacts, missing: usize) {
        use crate::record::VersionBasis;
        self.runs += 1;
        self.with_calls += usize::from(run.record.calls > 0);
        self.ends_unanswered += usize::from(run.ends_unanswered);
        self.started += run.launches.len();
        self.missing += missing;
        match run.schema_version {
            Some(VersionBasis::Recorded) => self.version.recorded += 1,
            Some(VersionBasis::Inferred) => self.version.inferred += 1,
            Some(VersionBasis::None) => self.version.none += 1,
            None => {}
        }
    }

    pub(crate) fn merge(&mut self, o: &RunSums) {
        self.runs += o.runs;
        self.with_calls += o.with_calls;
        self.ends_unanswered += o.ends_unanswered;
        self.started += o.started;
        self.missing += o.missing;
        self.version.recorded += o.version.recorded;
        self.version.inferred += o.version.inferred;
        self.version.none += o.version.none;
    }

    pub(crate) fn measures(&self) -> RunMeasures {
        let v = self.version;
        RunMeasures {
            runs: self.runs,
            ends_answered: Share::new(self.with_calls - self.ends_unanswered, self.with_calls),
            subagents_present: Share::new(self.started - self.missing, self.started),
            schema_version: v,
            schema_version_recorded: Share::new(v.recorded, v.recorded + v.inferred + v.none),
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
    /// What its runs record as a whole.
    pub runs: RunMeasures,
}

/// One agent's record: the runs whose input names the agent that wrote them.
#[derive(Debug, Clone, Serialize)]
pub struct AgentRow {
    /// The agent as the input names it (`claude-code`, `codex`, an ATIF agent's name); `None`
    /// for runs whose input does not say.
    pub agent: Option<String>,
    /// The record of its runs' calls.
    pub record: RecordMeasures,
    /// What its runs record as a whole.
    pub runs: RunMeasures,
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
    /// What its runs record as a whole.
    pub runs: RunMeasures,
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

/// The whole diagnosis (`doctor --output-format json`: version 2, `doctor.schema.json`).
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
    /// What the runs record as a whole, over every trace.
    pub runs: RunMeasures,
    /// The record per input format.
    pub formats: Vec<FormatRow>,
    /// The record per agent.
    pub agents: Vec<AgentRow>,
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

/// The record-quality figures a `--fail-under NAME=PERCENT` gate can name, with what each is.
pub const RECORD_GATES: &[(&str, &str)] = &[
    ("results", "calls with a recorded result"),
    ("outcome", "results that say whether they succeeded"),
    ("arguments", "calls whose arguments were recorded"),
    ("schemas", "calls whose tool has an input schema"),
    ("endings", "runs whose last call has a recorded result"),
    ("subagents", "sub-agent runs present in the inputs"),
    ("versions", "runs on built-in schemas whose agent version is recorded"),
];

/// Other spellings of a record figure's name.
const RECORD_ALIASES: &[(&str, &str)] = &[("status", "outcome")];

/// The names `--fail-under NAME=` takes, for messages.
fn gate_names() -> String {
    RECORD_GATES
        .iter()
        .map(|(n, _)| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A record-quality `--fail-under` value (`results=90`): its figure and threshold; `None` when
/// the name is not a record figure (a rule gate, `R1=95`, or a plain `80`).
pub fn parse_record_gate(s: &str) -> Option<Result<(&'static str, f64), String>> {
    let (name, pct) = s.split_once('=')?;
    let name = name.trim().to_ascii_lowercase();
    let name = RECORD_ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name.as_str(), |(_, n)| n);
    let measure = RECORD_GATES.iter().find(|(n, _)| *n == name)?.0;
    Some(percent(pct).map(|p| (measure, p)).ok_or_else(|| {
        format!("`--fail-under {s}`: give a percentage from 0 to 100, as `{measure}=90`")
    }))
}

/// `90`, `90%`, `99.5`: a percentage from 0 to 100.
fn percent(s: &str) -> Option<f64> {
    s.trim()
        .trim_end_matches('%')
        .trim()
        .parse()
        .ok()
        .filter(|p: &f64| (0.0..=100.0).contains(p))
}

impl RecordMeasures {
    /// The share a call-level record gate measures.
    pub fn share(&self, measure: &str) -> Option<Share> {
        match measure {
            "results" => Some(self.results_recorded),
            "outcome" => Some(self.outcome_recorded),
            "arguments" => Some(self.arguments_recorded),
            "schemas" => Some(self.schema_known),
            _ => None,
        }
    }
}

impl RunMeasures {
    /// The share a run-level record gate measures.
    pub fn share(&self, measure: &str) -> Option<Share> {
        match measure {
            "endings" => Some(self.ends_answered),
            "subagents" => Some(self.subagents_present),
            "versions" => Some(self.schema_version_recorded),
            _ => None,
        }
    }
}

/// A `--fail-under` value: `80` or `R1=95` (a record figure's `results=90` is
/// `parse_record_gate`'s).
pub fn parse_gate(s: &str) -> Result<(Option<Vec<RuleId>>, f64), String> {
    let (rule, pct) = match s.split_once('=') {
        Some((r, p)) => (Some(r.trim()), p),
        None => (None, s),
    };
    let rules = rule
        .map(|r| {
            let parsed = crate::rules::parse_rule_list(&[r.to_owned()])
                .ok()
                .filter(|rules| !rules.is_empty());
            parsed.ok_or_else(|| {
                format!(
                    "`--fail-under {s}`: unknown name `{r}`: give a rule (`R1=95`, `tracelint rules` lists them) or a record figure: {}",
                    gate_names()
                )
            })
        })
        .transpose()?;
    let pct = percent(pct).ok_or_else(|| {
        format!(
            "`--fail-under {s}`: give a percentage from 0 to 100, as `80`, `R1=95` or `results=90`"
        )
    })?;
    Ok((rules, pct))
}

#[cfg(test)]
mod tests;
