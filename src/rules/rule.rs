//! What a rule is (`Rule`) and where it writes while it checks one trace (`Sink`: findings,
//! suppressions, coverage, per tool when the run asks), with the evidence that points at a step.

use crate::analysis::context::TraceCx;
use crate::analysis::excerpt::excerpt;
use crate::finding::{Coverage, Evidence, Finding, RuleMeta, Suppression, Tier};
use crate::model::Step;
/// A lint rule.
pub trait Rule: Sync {
    /// The rule's static description.
    fn meta(&self) -> &'static RuleMeta;

    /// `Err(reason)` when the rule cannot run on this trace at all (one whole-trace
    /// suppression, never silence).
    fn applicable(&self, _cx: &TraceCx<'_>) -> Result<(), String> {
        Ok(())
    }

    /// Check the trace, pushing findings, per-step suppressions and coverage into `out`.
    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink);

    /// True for a rule that checks only what a contract declares (R8–R13): when `applicable`
    /// says the contract declares nothing for it, it had nothing to look at (coverage 0 of 0,
    /// which reports list as "nothing to check") and emits no suppression.
    fn opt_in(&self) -> bool {
        false
    }

    /// True when the run gave the rule nothing at all to work with (E1 without an expectations
    /// file): it is skipped without a trace in the report (no coverage line, no suppression).
    fn idle(&self, _cx: &TraceCx<'_>) -> bool {
        false
    }
}

/// Where one rule's output goes while it checks one trace.
#[derive(Debug)]
pub struct Sink {
    pub(super) meta: &'static RuleMeta,
    pub(super) run_id: String,
    /// Findings so far.
    pub findings: Vec<Finding>,
    /// Suppressions so far.
    pub suppressions: Vec<Suppression>,
    /// Units decided / looked at.
    pub coverage: Coverage,
    /// Where an agent's runtime accepted what the built-in schemas in force do not (schema
    /// drift: reported once per trace as a note, never as findings).
    pub drift: Vec<Drift>,
    /// Units decided / looked at per tool, when the run asks for it (`RunCx::tool_coverage`:
    /// a baseline's ratchet, `doctor`); `None` otherwise, so a plain run pays nothing.
    pub(super) by_tool: Option<std::collections::BTreeMap<String, Coverage>>,
}

impl Sink {
    pub(super) fn new(meta: &'static RuleMeta, run_id: &str, by_tool: bool) -> Self {
        Self {
            meta,
            run_id: run_id.to_owned(),
            findings: Vec::new(),
            suppressions: Vec::new(),
            coverage: Coverage::default(),
            drift: Vec::new(),
            by_tool: by_tool.then(std::collections::BTreeMap::new),
        }
    }

    /// Start a finding at `step` (its primary evidence) and push it; returns it for extras.
    pub fn finding(
        &mut self,
        tier: Tier,
        step: &Step,
        tool: Option<&str>,
        message: impl Into<String>,
        note: &'static str,
    ) -> &mut Finding {
        let f = Finding::new(
            self.meta,
            tier,
            &self.run_id,
            tool,
            message,
            evidence(step, note),
        );
        self.findings.push(f);
        self.findings.last_mut().expect("just pushed")
    }

    /// A per-step suppression: the rule could not decide this step.
    pub fn suppress(&mut self, step: &Step, tool: Option<&str>, reason: impl Into<String>) {
        self.suppressions.push(Suppression {
            rule: self.meta.id,
            input: 0,
            run_id: self.run_id.clone(),
            step: Some(step.index),
            at: Some(step.at.clone()),
            tool: tool.map(str::to_owned),
            reason: reason.into(),
        });
    }

    /// A suppression for the whole trace, raised by the rule while checking (one reason for
    /// many steps it could not decide).
    pub fn suppress_trace(&mut self, reason: impl Into<String>) {
        self.suppressions.push(Suppression {
            rule: self.meta.id,
            input: 0,
            run_id: self.run_id.clone(),
            step: None,
            at: None,
            tool: None,
            reason: reason.into(),
        });
    }

    /// Count one unit looked at; `decided` when the rule could judge it. Prefer `count_tool`
    /// when the unit belongs to a tool, so the ratchet and `doctor` can say which tool a rule
    /// could (not) check.
    pub fn count(&mut self, decided: bool) {
        self.coverage.total += 1;
        self.coverage.decided += usize::from(decided);
    }

    /// Count one unit of `tool` (the called tool; a result's call) looked at.
    pub fn count_tool(&mut self, tool: Option<&str>, decided: bool) {
        self.count(decided);
        if let (Some(map), Some(tool)) = (&mut self.by_tool, tool) {
            let c = match map.get_mut(tool) {
                Some(c) => c,
                None => map.entry(tool.to_owned()).or_default(),
            };
            c.total += 1;
            c.decided += usize::from(decided);
        }
    }
    /// The arguments of a call, when they were recorded. Otherwise the call is counted as not
    /// checked and `None` comes back: malformed arguments are R6's to report (one broken call
    /// never yields two defects), unrecorded ones are a suppression at this step.
    pub(crate) fn known_args<'c>(
        &mut self,
        step: &Step,
        call: &'c crate::model::ToolCall,
    ) -> Option<&'c serde_json::Value> {
        match &call.args {
            crate::model::Args::Known(v) => Some(v),
            crate::model::Args::Malformed(_) => {
                self.count_tool(Some(&call.name), false);
                None
            }
            crate::model::Args::Unknown(reason) => {
                self.count_tool(Some(&call.name), false);
                self.suppress(
                    step,
                    Some(&call.name),
                    format!("arguments not recorded ({reason})"),
                );
                None
            }
        }
    }
}

/// One tool's calls that an agent's runtime ran although the built-in schemas in force reject
/// them (or lack the tool): schema drift between the capture and the CLI that wrote the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// The tool.
    pub tool: String,
    /// What the capture says of its calls (`file_path` not in the schema, `absolute_path`
    /// required), each once; empty when the capture lacks the tool.
    pub fields: Vec<String>,
    /// How many calls.
    pub calls: usize,
    /// Where the schema came from (`builtin:gemini-cli@0.27.4`).
    pub source: String,
}

impl Sink {
    /// Record one call of `tool` the runtime ran that the capture `source` rejects for
    /// `fields` (none: it lacks the tool).
    pub fn drift(&mut self, tool: &str, source: &str, fields: Vec<String>) {
        if let Some(d) = self
            .drift
            .iter_mut()
            .find(|d| d.tool == tool && d.source == source)
        {
            d.calls += 1;
            for f in fields {
                if !d.fields.contains(&f) {
                    d.fields.push(f);
                }
            }
        } else {
            self.drift.push(Drift {
                tool: tool.to_owned(),
                fields,
                calls: 1,
                source: source.to_owned(),
            });
        }
    }
}

/// Evidence pointing at a step.
pub fn evidence(step: &Step, note: &'static str) -> Evidence {
    Evidence {
        step: step.index,
        at: step.at.clone(),
        note: note.into(),
        excerpt: excerpt(step),
    }
}
