//! What a rule may look at: the per-run context (`RunCx`: compiled schemas, rule settings,
//! shared across traces and threads) and the per-trace context (`TraceCx`: the trace, its
//! pairing, the registry in force), which caches what several rules read once per trace (each
//! result's outcome, the calls with their keys).

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::schema::SchemaCache;
use crate::model::{Pairing, ToolRegistry, ToolSpec, Trace};

/// Settings rules read (resolved from flags and config before linting starts).
#[derive(Debug, Clone, Default)]
pub struct RuleSettings {
    /// `--closed-toolset`: an unknown tool is a hard defect.
    pub closed_toolset: bool,
    /// `--expect FILE` and the config's `[[expect]]` tables: what E1 checks (`None`: E1 idles).
    pub expectations: Option<Arc<crate::expect::ExpectFile>>,
    /// One flag per expectation, set when it selected a trace (an expectation that selected
    /// none checked nothing, and `check` says so).
    pub expectations_used: Arc<Vec<std::sync::atomic::AtomicBool>>,
    /// The config's `[flows]` classification of tools and files (R14).
    pub flows: Arc<super::flows::FlowConfig>,
}

/// Per-run context, shared across traces and threads.
#[derive(Debug, Default)]
pub struct RunCx {
    /// Compiled schemas.
    pub schemas: SchemaCache,
    /// Rule settings.
    pub settings: RuleSettings,
    /// Count coverage per tool too (a baseline's ratchet and `doctor` need it).
    pub tool_coverage: bool,
}

/// Per-trace context: everything a rule may read.
pub struct TraceCx<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Its call ↔ result pairing.
    pub pairing: Pairing,
    /// The registry in force for this trace (given, or embedded in the trace).
    pub registry: &'a ToolRegistry,
    /// The run.
    pub run: &'a RunCx,
    /// The built-in schemas in force are of the version the session records (or the one a user
    /// pinned): a call the agent's runtime left no verdict on is judged against them as surely
    /// as the runtime would have. False when the version was guessed or approximated.
    pub builtin_exact: bool,
    /// For a trace that carries no schemas but whose tools are recognisably a known agent's
    /// built-ins (by name and shape): that agent's built-in registry, read only for its tools'
    /// field origins and offered values (R3), never as schemas in force.
    pub recognised: Option<&'a ToolRegistry>,
    /// What each result says about its call, classified once for R2a and R2b.
    outcomes: std::sync::OnceLock<Vec<Option<super::outcome::Outcome>>>,
    /// Every call with its key and result, built once for R4 and R5.
    calls: std::sync::OnceLock<Vec<super::calls::CallRecord<'a>>>,
    /// The spec of every tool the trace calls, by name: rules ask it for each call, and a hash
    /// probe is cheaper than the registry's ordered search.
    specs: std::sync::OnceLock<HashMap<&'a str, Option<&'a ToolSpec>, foldhash::fast::RandomState>>,
}

impl<'a> TraceCx<'a> {
    /// Build the context for one trace.
    pub fn new(trace: &'a Trace, registry: &'a ToolRegistry, run: &'a RunCx) -> Self {
        Self {
            trace,
            pairing: Pairing::new(trace),
            registry,
            run,
            builtin_exact: true,
            recognised: None,
            outcomes: std::sync::OnceLock::new(),
            calls: std::sync::OnceLock::new(),
            specs: std::sync::OnceLock::new(),
        }
    }

    /// The registry's spec for a tool.
    pub fn spec(&self, name: &str) -> Option<&'a ToolSpec> {
        let by_name = self.specs.get_or_init(|| {
            let mut by_name = HashMap::default();
            for call in self
                .trace
                .steps
                .iter()
                .filter_map(crate::model::Step::as_call)
            {
                by_name
                    .entry(call.name.as_str())
                    .or_insert_with(|| self.registry.get(&call.name));
            }
            by_name
        });
        match by_name.get(name) {
            Some(spec) => *spec,
            None => self.registry.get(name),
        }
    }

    /// The spec that says where a tool's values come from: the registry's when it declares a
    /// schema or origins, else the recognised built-in one (`recognised`).
    pub fn origin_spec(&self, name: &str) -> Option<&'a ToolSpec> {
        let own = self.spec(name);
        if own.is_some_and(|s| s.schema.is_some() || !s.value_origins.is_empty()) {
            return own;
        }
        self.recognised.and_then(|r| r.get(name)).or(own)
    }

    /// The outcome of the result at step `index` (`None` when it is not a result).
    pub(crate) fn outcome(&self, index: usize) -> Option<&super::outcome::Outcome> {
        self.outcomes
            .get_or_init(|| super::outcome::classify_all(self.trace, &self.pairing, |name| self.spec(name)))
            .get(index)?
            .as_ref()
    }

    /// Every tool call of the trace, in order, with its key and recorded result.
    pub(crate) fn calls(&self) -> &[super::calls::CallRecord<'a>] {
        self.calls
            .get_or_init(|| super::calls::records(self.trace, &self.pairing))
    }

    /// True when an undeclared tool is a hard defect.
    pub fn closed(&self) -> bool {
        self.registry.closed || self.run.settings.closed_toolset
    }
}
