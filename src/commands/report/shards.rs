//! Reading `check --output-format json-lines` shards back: each line is one self-describing
//! record (a finding, suppression, input error, input, trace outline, or the closing `run`);
//! records become the pieces of a `Report`. A line that is not such a record is an input error
//! at its file:line and the rest is still read; a shard without its closing `run` record was cut
//! short, which is an input error too. Owns the reading side of the JSON Lines contract
//! (`reporters/json.rs` owns the writing side; `report.schema.json` is the contract).
//!
//! One cohesive reader: its wire structs mirror the records `reporters/json.rs` writes, one for
//! one, and `Shards` gathers them into one report.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use serde::Deserialize;

use crate::finding::{
    Coverage, Evidence, Finding, InputIssue, IssueCap, RuleId, RuleMeta, Suppression, Tier,
};
use crate::model::Location;
use crate::model::location::End;
use crate::reporters::{ExcerptCut, InputSummary, Outline, OutlineStep, RuleCoverage, StepKind};

/// One record, as written (fields `report` does not need are not read).
#[derive(Deserialize)]
struct Line {
    version: u32,
    tool: Tool,
    finding: Option<WireFinding>,
    suppression: Option<WireSuppression>,
    input_error: Option<WireIssue>,
    input: Option<WireInput>,
    trace: Option<WireTrace>,
    run: Option<WireRun>,
}

#[derive(Deserialize)]
struct Tool {
    name: String,
    version: String,
}

#[derive(Deserialize)]
struct WireFinding {
    rule: String,
    #[serde(rename = "type")]
    kind: String,
    tier: String,
    file: String,
    run_id: String,
    tool: Option<String>,
    field: Option<String>,
    message: String,
    #[serde(default)]
    details: Vec<String>,
    help: Option<String>,
    #[serde(default)]
    possible_false_positive: bool,
    signal: Option<String>,
    ignore_reason: Option<String>,
    #[serde(default)]
    baselined: bool,
    evidence: Vec<WireEvidence>,
}

#[derive(Deserialize)]
struct WireEvidence {
    step: usize,
    line: u32,
    column: u32,
    end_line: Option<u32>,
    end_column: Option<u32>,
    pointer: String,
    note: String,
    excerpt: String,
}

#[derive(Deserialize)]
struct WireSuppression {
    rule: String,
    file: String,
    run_id: String,
    step: Option<usize>,
    line: Option<u32>,
    column: Option<u32>,
    pointer: Option<String>,
    tool: Option<String>,
    reason: String,
}

#[derive(Deserialize)]
struct WireIssue {
    file: String,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
}

#[derive(Deserialize)]
struct WireInput {
    path: String,
    format: Option<String>,
    traces: usize,
    tool_calls: usize,
    partial: bool,
    schemas: Vec<String>,
    notes: Vec<String>,
    excerpts_cut: Option<WireCut>,
}

#[derive(Deserialize)]
struct WireCut {
    budget: usize,
    finding: usize,
    evidence: usize,
}

#[derive(Deserialize)]
struct WireTrace {
    file: String,
    run_id: String,
    steps: usize,
    outline: Vec<WireStep>,
}

#[derive(Deserialize)]
struct WireStep {
    step: usize,
    kind: String,
    tool: Option<String>,
    line: u32,
    text: String,
}

#[derive(Deserialize)]
struct WireRun {
    fail_on: String,
    #[serde(default)]
    report_only: bool,
    coverage: Vec<WireCoverage>,
    unmatched_ignores: Vec<String>,
}

#[derive(Deserialize)]
struct WireCoverage {
    rule: String,
    decided: usize,
    total: usize,
}

/// A finding, suppression or outline whose input is named by path (resolved once all inputs
/// are known).
#[derive(Debug)]
pub(crate) struct ByPath<T> {
    /// The input's path.
    pub(crate) file: String,
    /// The item (its `input` index not set yet).
    pub(crate) item: T,
    /// Where it was read (shard, line), for an error about it.
    pub(crate) at: (String, u32),
    /// The shard's place among those read (the same file may be given twice).
    pub(crate) shard: usize,
}

/// What the shards hold, in the order read.
#[derive(Debug, Default)]
pub(crate) struct Shards {
    /// Each input record, with where it was read and its shard's place.
    pub(crate) inputs: Vec<(InputSummary, (String, u32), usize)>,
    pub(crate) findings: Vec<ByPath<Finding>>,
    pub(crate) suppressions: Vec<ByPath<Suppression>>,
    pub(crate) outlines: Vec<ByPath<Outline>>,
    /// Input errors listed: the first of each path (`issue_cap`).
    pub(crate) issues: Vec<InputIssue>,
    /// Which input errors are listed, and how many of each path are only counted.
    pub(crate) issue_cap: IssueCap,
    pub(crate) coverage: Vec<RuleCoverage>,
    /// Per `run` record: the tier that failed that check, and its ignores that matched nothing.
    pub(crate) runs: Vec<(Tier, Vec<String>)>,
    /// Per `run` record: findings did not raise its exit status.
    pub(crate) report_only: Vec<bool>,
    /// The excerpt budget the shards were settled with.
    pub(crate) budget: Option<usize>,
    /// Other tracelint versions that wrote records.
    pub(crate) versions: BTreeSet<String>,
    /// Shards read so far.
    pub(crate) read: usize,
}

/// A signal name read from a shard, as the `&'static str` findings carry: each distinct name is
/// leaked once (the set of signals is small; past `MAX_SIGNALS` a name is refused).
fn signal(name: &str) -> Result<&'static str, String> {
    const MAX_SIGNALS: usize = 256;
    static SEEN: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut seen = SEEN
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(s) = seen.get(name) {
        return Ok(s);
    }
    if seen.len() >= MAX_SIGNALS || name.len() > 64 {
        return Err(format!("unexpected `signal` `{name}`"));
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    seen.insert(leaked);
    Ok(leaked)
}

fn rule(name: &str, rules: &[&'static RuleMeta]) -> Result<&'static RuleMeta, String> {
    let id = RuleId::parse(name).ok_or_else(|| format!("unknown rule `{name}`"))?;
    rules
        .iter()
        .copied()
        .find(|m| m.id == id)
        .ok_or_else(|| format!("rule `{name}` is not one this tracelint runs"))
}

fn tier(name: &str) -> Result<Tier, String> {
    Tier::parse(name).ok_or_else(|| format!("unknown tier `{name}`"))
}

impl Shards {
    /// Add an input error, listed while its path has fewer than the cap listed.
    pub(crate) fn issue(&mut self, issue: InputIssue) {
        if self.issue_cap.admit(&issue.path) {
            self.issues.push(issue);
        }
    }

    /// Read one shard's text; `path` names it in errors.
    pub(crate) fn read(
        &mut self,
        lines: impl Iterator<Item = Result<crate::adapters::common::json_pos::Line, InputIssue>>,
        path: &str,
        rules: &[&'static RuleMeta],
    ) {
        self.read += 1;
        let mut closed = true;
        let mut records = 0usize;
        for line in lines {
            let line = match line {
                Ok(l) => l,
                Err(issue) => {
                    self.issue(issue);
                    continue;
                }
            };
            records += 1;
            match self.record(&line.text, path, line.number, rules) {
                Ok(Some(ended)) => closed = ended,
                Ok(None) => {}
                Err(e) => self.issue(InputIssue::at(path, line.number, 1, e)),
            }
        }
        if records == 0 {
            self.issue(InputIssue::file(
                path,
                "holds no JSON Lines record: give the output of `check --output-format json-lines`",
            ));
        } else if !closed {
            self.issue(InputIssue::file(
                path,
                "ends without the closing `run` record: the check that wrote it did not finish (or the file was cut short), so findings may be missing",
            ));
        }
    }

    /// Read one record; `Some(true)` after a `run` record, `Some(false)` after any other.
    fn record(
        &mut self,
        text: &str,
        path: &str,
        number: u32,
        rules: &[&'static RuleMeta],
    ) -> Result<Option<bool>, String> {
        let line: Line = serde_json::from_str(text).map_err(|e| {
            format!(
                "not a tracelint JSON Lines record: {}",
                crate::adapters::common::json_pos::error_message(&e)
            )
        })?;
        if line.version != 1 || line.tool.name != "tracelint" {
            return Err(format!(
                "not a tracelint JSON Lines record of version 1 (version {}, tool `{}`)",
                line.version, line.tool.name
            ));
        }
        if line.tool.version != env!("CARGO_PKG_VERSION") {
            self.versions.insert(line.tool.version.clone());
        }
        let at = (path.to_owned(), number);
        if let Some(f) = line.finding {
            let meta = rule(&f.rule, rules)?;
            if meta.kind.as_str() != f.kind {
                return Err(format!("rule `{}` has no type `{}`", f.rule, f.kind));
            }
            if f.evidence.is_empty() {
                return Err("a finding without evidence".into());
            }
            let evidence = f
                .evidence
                .into_iter()
                .map(|e| {
                    let mut loc = Location::new(e.line, e.column, e.pointer);
                    if let (Some(line), Some(column)) = (e.end_line, e.end_column) {
                        loc = loc.ending(End { line, column });
                    }
                    Evidence {
                        step: e.step,
                        at: loc,
                        note: Cow::Owned(e.note),
                        excerpt: e.excerpt,
                    }
                })
                .collect();
            let mut finding = Finding::new(
                meta,
                tier(&f.tier)?,
                &f.run_id,
                f.tool.as_deref(),
                f.message,
                Evidence {
                    step: 0,
                    at: Location::default(),
                    note: Cow::Borrowed(""),
                    excerpt: String::new(),
                },
            );
            finding.evidence = evidence;
            finding.field = f.field;
            finding.details = f.details;
            finding.help = f.help;
            finding.possible_false_positive = f.possible_false_positive;
            finding.signal = f.signal.as_deref().map(signal).transpose()?;
            if f.baselined && f.ignore_reason.is_none() {
                return Err("a baselined finding without its `ignore_reason`".into());
            }
            finding.ignored = f.ignore_reason;
            finding.baselined = f.baselined;
            self.findings.push(ByPath {
                file: f.file,
                item: finding,
                at,
                shard: self.read - 1,
            });
            return Ok(Some(false));
        }
        if let Some(s) = line.suppression {
            let meta = rule(&s.rule, rules)?;
            let at_loc = s
                .line
                .map(|l| Location::new(l, s.column.unwrap_or(0), s.pointer.unwrap_or_default()));
            self.suppressions.push(ByPath {
                file: s.file,
                item: Suppression {
                    rule: meta.id,
                    input: 0,
                    run_id: s.run_id,
                    step: s.step,
                    at: at_loc,
                    tool: s.tool,
                    reason: s.reason,
                },
                at,
                shard: self.read - 1,
            });
            return Ok(Some(false));
        }
        if let Some(i) = line.input_error {
            self.issue(InputIssue {
                path: i.file,
                line: i.line.unwrap_or(0),
                column: i.column.unwrap_or(0),
                message: i.message,
            });
            return Ok(Some(false));
        }
        if let Some(i) = line.input {
            let excerpts_cut = i.excerpts_cut.map(|c| {
                self.budget.get_or_insert(c.budget);
                ExcerptCut {
                    budget: c.budget,
                    finding: c.finding,
                    evidence: c.evidence,
                }
            });
            self.inputs.push((
                InputSummary {
                    path: i.path,
                    format: i.format,
                    traces: i.traces,
                    tool_calls: i.tool_calls,
                    partial: i.partial,
                    schemas: i.schemas,
                    notes: i.notes,
                    excerpts_cut,
                },
                at,
                self.read - 1,
            ));
            return Ok(Some(false));
        }
        if let Some(t) = line.trace {
            let steps = t
                .outline
                .into_iter()
                .map(|s| {
                    Ok(OutlineStep {
                        index: s.step,
                        kind: StepKind::parse(&s.kind)
                            .ok_or_else(|| format!("unknown step kind `{}`", s.kind))?,
                        tool: s.tool,
                        line: s.line,
                        text: s.text,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            self.outlines.push(ByPath {
                file: t.file,
                item: Outline {
                    input: 0,
                    run_id: t.run_id,
                    total: t.steps,
                    steps,
                },
                at,
                shard: self.read - 1,
            });
            return Ok(Some(false));
        }
        if let Some(r) = line.run {
            for c in r.coverage {
                let meta = rule(&c.rule, rules)?;
                self.coverage.push(RuleCoverage {
                    rule: meta.id,
                    unit: meta.unit,
                    coverage: Coverage {
                        decided: c.decided,
                        total: c.total,
                    },
                });
            }
            self.runs.push((tier(&r.fail_on)?, r.unmatched_ignores));
            self.report_only.push(r.report_only);
            return Ok(Some(true));
        }
        Err("a record with none of `finding`, `suppression`, `input_error`, `input`, `trace` or `run`".into())
    }
}
