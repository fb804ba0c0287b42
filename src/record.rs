//! Record quality and per-input detail: what a trace records of each tool call (its arguments, a
//! result, the result's outcome) and what the registry in force declares about each tool (an
//! input schema, behaviour), plus each rule's coverage per input and per tool. Plain data for
//! `doctor` and the baseline's ratchet; it judges the record, never the agent, and knows nothing
//! of rules' logic, adapters or output.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::finding::{Coverage, RuleId};
use crate::model::{Args, Pairing, ResultStatus, Step, ToolRegistry, Trace};

/// What the record holds about one tool, summed over its calls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolRecord {
    /// Calls of the tool.
    pub calls: usize,
    /// Calls whose arguments were not recorded (redacted, positional, absent).
    pub args_unknown: usize,
    /// Calls whose arguments are not a JSON object.
    pub args_malformed: usize,
    /// Calls with no recorded result.
    pub no_result: usize,
    /// Results recorded (paired with a call of the tool).
    pub results: usize,
    /// Results with no structured outcome (no status, error flag, HTTP status).
    pub status_unknown: usize,
    /// Results whose content the exporter dropped.
    pub content_missing: usize,
    /// Calls whose tool the registry in force declares.
    pub declared: usize,
    /// Calls whose tool has an input schema in force.
    pub with_schema: usize,
    /// Calls whose tool declares `side_effecting` (true or false).
    pub side_effecting_declared: usize,
    /// Calls whose tool is declared side-effecting.
    pub side_effecting: usize,
    /// Calls whose tool declares `idempotent`.
    pub idempotent_declared: usize,
    /// Calls whose tool declares `failure_when`.
    pub failure_when: usize,
    /// Where the tool's schema came from, over the traces that declare it.
    pub schema_sources: BTreeSet<String>,
}

impl ToolRecord {
    /// Add another tool's (or trace's) counts.
    pub fn add(&mut self, o: &ToolRecord) {
        self.calls += o.calls;
        self.args_unknown += o.args_unknown;
        self.args_malformed += o.args_malformed;
        self.no_result += o.no_result;
        self.results += o.results;
        self.status_unknown += o.status_unknown;
        self.content_missing += o.content_missing;
        self.declared += o.declared;
        self.with_schema += o.with_schema;
        self.side_effecting_declared += o.side_effecting_declared;
        self.side_effecting += o.side_effecting;
        self.idempotent_declared += o.idempotent_declared;
        self.failure_when += o.failure_when;
        self.schema_sources.extend(o.schema_sources.iter().cloned());
    }
}

/// How the built-in schemas in force for a trace were matched to the version of the agent that
/// wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionBasis {
    /// The session records its agent's version; the capture is that one or the nearest.
    Recorded,
    /// No version recorded: the capture was inferred from the session's calls or start date.
    Inferred,
    /// Nothing to go on: the newest capture was assumed.
    None,
}

/// Tool names that start another agent's run when no registry says so (`result_is_report`).
pub const SUB_AGENT_TOOLS: &[&str] = &[
    "Task",
    "Agent",
    "dispatch_agent",
    "spawn_agent",
    "run_subagent",
];

/// What one run (trace) records as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunFacts {
    /// The run's id.
    pub run_id: String,
    /// The agent that wrote it, when the input says (`claude-code`, `codex`, an ATIF agent's
    /// name).
    pub agent: Option<String>,
    /// Every tool's counts together.
    pub record: ToolRecord,
    /// The run's last tool call has no recorded result: the record may be cut off.
    pub ends_unanswered: bool,
    /// Ids of the calls that started a sub-agent (`#N` for a call with no id, N its step).
    pub launches: Vec<String>,
    /// The call that started this run, when it is a sub-agent's and the input says which.
    pub parent_call: Option<String>,
    /// Runs this one may be a sub-agent of (its run id's prefix: `parent/agent-x`).
    pub parent_runs: Vec<String>,
    /// How the built-in schemas in force were matched to the agent's version (`None`: no
    /// built-in schemas matched to the session).
    pub schema_version: Option<VersionBasis>,
}

/// The record of one or more traces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecordStats {
    /// Per tool, by name.
    pub tools: BTreeMap<String, ToolRecord>,
    /// Results that answer no recorded call.
    pub orphan_results: usize,
    /// Each run measured, in order.
    pub runs: Vec<RunFacts>,
}

impl RecordStats {
    /// Add another record.
    pub fn add(&mut self, o: &RecordStats) {
        self.add_counts(o);
        self.runs.extend(o.runs.iter().cloned());
    }

    /// Add another record's per-tool counts (not its runs).
    pub fn add_counts(&mut self, o: &RecordStats) {
        for (name, t) in &o.tools {
            self.tools.entry(name.clone()).or_default().add(t);
        }
        self.orphan_results += o.orphan_results;
    }

    /// Every tool's counts together.
    pub fn total(&self) -> ToolRecord {
        let mut all = ToolRecord::default();
        for t in self.tools.values() {
            all.add(t);
        }
        all.schema_sources.clear();
        all
    }
}

/// Measure one trace's record against the registry in force for it.
pub fn measure(trace: &Trace, registry: &ToolRegistry) -> RecordStats {
    let pairing = Pairing::new(trace);
    let steps = &trace.steps;
    let mut stats = RecordStats::default();
    let mut run = RunFacts {
        run_id: trace.run_id.clone(),
        agent: trace.attribute(crate::model::ATTR_AGENT).map(str::to_owned),
        parent_call: trace.attribute(PARENT_CALL).map(str::to_owned),
        parent_runs: trace
            .run_id
            .rsplit_once('/')
            .map(|(p, _)| p.to_owned())
            .into_iter()
            .collect(),
        ..RunFacts::default()
    };
    for step in steps {
        if let Some(call) = step.as_call() {
            let launcher = registry
                .get(&call.name)
                .is_some_and(|s| s.metadata.result_is_report)
                || SUB_AGENT_TOOLS.contains(&call.name.as_str());
            if launcher {
                run.launches.push(
                    call.call_id
                        .clone()
                        .unwrap_or_else(|| format!("#{}", step.index)),
                );
            }
            run.ends_unanswered = pairing.result_for(step.index).is_none();
            let t = stats.tools.entry(call.name.clone()).or_default();
            t.calls += 1;
            match call.args {
                Args::Known(_) => {}
                Args::Unknown(_) => t.args_unknown += 1,
                Args::Malformed(_) => t.args_malformed += 1,
            }
            if pairing.result_for(step.index).is_none() {
                t.no_result += 1;
            }
            if let Some(spec) = registry.get(&call.name) {
                t.declared += 1;
                if spec.schema.is_some() {
                    t.with_schema += 1;
                    t.schema_sources.insert(spec.source.to_string());
                }
                let m = &spec.metadata;
                t.side_effecting_declared += usize::from(m.side_effecting.is_some());
                t.side_effecting += usize::from(m.is_side_effecting());
                t.idempotent_declared += usize::from(m.idempotent.is_some());
                t.failure_when += usize::from(m.failure_when.is_some());
            }
        } else if let Some(result) = step.as_result() {
            let call = pairing
                .call_for(step.index)
                .and_then(|i| steps.get(i))
                .and_then(Step::as_call);
            let Some(call) = call else {
                stats.orphan_results += 1;
                continue;
            };
            let t = stats.tools.entry(call.name.clone()).or_default();
            t.results += 1;
            t.status_unknown += usize::from(result.status == ResultStatus::Unknown);
            t.content_missing += usize::from(!result.content_recorded);
        }
    }
    run.record = stats.total();
    stats.runs.push(run);
    stats
}

/// `Trace::attributes` key: the id of the call that started a sub-agent's run.
const PARENT_CALL: &str = "parent_tool_use_id";

/// One rule's coverage in one input, with its per-tool split.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RuleDetail {
    /// What the rule counts (`tool calls`, `tool results`).
    pub unit: &'static str,
    /// Decided / looked at, over the input.
    pub coverage: Coverage,
    /// The same per tool (units with no tool are only in `coverage`).
    pub tools: BTreeMap<String, Coverage>,
    /// Tools a per-call suppression of the rule names ("could not check this call of `x`").
    pub suppressed: BTreeSet<String>,
}

/// What one input holds beyond its findings, kept when a run asks for it (a baseline, `doctor`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct InputDetail {
    /// Each rule that ran, by id.
    pub rules: BTreeMap<RuleId, RuleDetail>,
    /// The record (filled when the linter measures it: `doctor`).
    pub record: RecordStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_is_measured_per_tool() {
        let (_, parsed) = crate::adapters::parse_bytes(
            br#"{"run_id": "r", "steps": [
                {"type": "tool_call", "call_id": "a", "name": "get", "args": {"id": "1"}},
                {"type": "tool_result", "call_id": "a", "content": "ok", "status": "ok"},
                {"type": "tool_call", "call_id": "b", "name": "get"},
                {"type": "tool_result", "call_id": "b", "content": "x"},
                {"type": "tool_call", "call_id": "c", "name": "put", "args": {"id": "1"}},
                {"type": "tool_result", "call_id": "zz", "content": "stray"}]}"#,
            "t.json",
            Some(crate::adapters::InputFormat::Native),
        );
        let registry = crate::sources::file::parse_tools_str(
            r#"{"tools": [{"name": "get", "inputSchema": {"type": "object"},
                "metadata": {"side_effecting": false}}]}"#,
            "tools.json",
        )
        .unwrap();
        let stats = measure(&parsed.traces[0], &registry);
        let get = &stats.tools["get"];
        assert_eq!(
            (get.calls, get.args_unknown, get.no_result, get.results),
            (2, 1, 0, 2)
        );
        assert_eq!((get.status_unknown, get.with_schema), (1, 2));
        assert_eq!((get.side_effecting_declared, get.side_effecting), (2, 0));
        let put = &stats.tools["put"];
        assert_eq!((put.calls, put.no_result, put.declared), (1, 1, 0));
        assert_eq!(stats.orphan_results, 1);
        assert_eq!(stats.total().calls, 3);
    }
}
