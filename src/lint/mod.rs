//! The linting engine behind `check` and the library API: pick the registry in force for a
//! trace (the given one, or the schemas the trace carries), run the selected rules, and gather
//! per-input results into a sorted `Report` with ignores applied and the exit status decided.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::model::{
    ATTR_AGENT, ATTR_CLAUDE_CODE_VERSION, SchemaSource, ToolRegistry, ToolSpec, Trace,
};
use crate::reporters::Outline;
use crate::rules::{self, RuleSettings, RunCx, Selection, TraceCx, TraceOutcome};
use crate::sources::builtin::codex::{Choice, CodexTools};
use crate::sources::builtin::gemini::{Evidence, GeminiTools};
use crate::model::runtime::{self, Runtime};
use crate::sources::builtin::{Agent, ClaudeCodeTools, Matched};

pub(crate) mod listing;
pub(crate) mod spill;
mod outline;

/// A built-in registry built once per run: the agent's capture it was built from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum BuiltinKey {
    ClaudeCode(usize),
    Codex(Choice),
    GeminiCli(usize),
}

/// What to lint with: the given registry (if any), rule selection and settings.
#[derive(Debug, Default)]
pub struct Linter {
    /// The registry from `--tools`; `None` means "use what each trace carries" (and, for a
    /// coding agent's own session, that agent's built-in schemas).
    pub given: Option<ToolRegistry>,
    /// `--tools builtin:AGENT` (unpinned): for every trace, that agent's capture matched to the
    /// session, merged under the other given sources (which win on a name both declare).
    pub follow: Vec<Agent>,
    /// Which rules run.
    pub selection: Selection,
    /// Compiled schemas and rule settings, shared across traces.
    pub run: RunCx,
    /// Built-in registries by capture, built once per run.
    builtin_cache: Mutex<HashMap<BuiltinKey, Arc<ToolRegistry>>>,
    /// Measure each trace's record against the registry in force (`doctor`).
    pub measure_record: bool,
    /// Outline each trace with findings (the HTML timeline, JSON Lines).
    pub outlines: bool,
}

/// One linted trace.
#[derive(Debug, Default)]
pub struct TraceLint {
    /// What the rules found.
    pub outcome: TraceOutcome,
    /// Where the schemas in force came from.
    pub schemas: Vec<String>,
    /// Tool calls in the trace.
    pub calls: usize,
    /// Notes for the report (which built-in schema version was used, …).
    pub notes: Vec<String>,
    /// The trace was partial.
    pub partial: bool,
    /// The trace's run id.
    pub run_id: String,
    /// The trace is a copy of one that has its own file (a Claude Code sub-agent read from
    /// `agent_progress` mirror lines): dropped when that file is linted in the same run.
    pub mirror: bool,
    /// The trace's adapter emits traces one after another, each past the last one's lines
    /// (native traces): its findings can be written as soon as it is linted.
    pub ordered: bool,
    /// A Claude Code session: the one format whose sub-agents may also come as mirrors in
    /// another file (`mirror`), so the one whose run ids a run remembers.
    pub mirrored_elsewhere: bool,
    /// The trace's record quality (when `Linter::measure_record`).
    pub record: Option<Box<crate::record::RecordStats>>,
    /// The trace's outline, when asked for and it has findings.
    pub outline: Option<Outline>,
    /// Its counts are in the report already (`ReportBuilder::tally`): what is left is written
    /// in order.
    pub tallied: bool,
}

/// Each call of `trace` with `runtime`'s verdict on it, read from its result: the evidence a
/// capture is chosen by when the session records no CLI version.
fn evidence(trace: &Trace, runtime: Runtime) -> Vec<Evidence<'_>> {
    let pairing = crate::model::Pairing::new(trace);
    trace
        .steps
        .iter()
        .filter_map(|s| {
            let call = s.as_call()?;
            let result = pairing
                .result_for(s.index)
                .and_then(|i| trace.steps.get(i))
                .and_then(|r| r.as_result());
            Some(Evidence {
                name: call.name.as_str(),
                args: match &call.args {
                    crate::model::Args::Known(v) => Some(v),
                    _ => None,
                },
                verdict: runtime::verdict(runtime, result),
            })
        })
        .collect()
}

impl TraceLint {
    /// The facts about `trace` that do not need linting (for `--parse-only` and mirrors).
    pub fn of(trace: &Trace) -> Self {
        Self {
            calls: trace.call_count(),
            partial: trace.partial,
            run_id: trace.run_id.clone(),
            mirror: trace.attribute(crate::model::ATTR_MIRROR).is_some(),
            ordered: trace.source.format == "native",
            mirrored_elsewhere: trace.source.format == crate::adapters::InputFormat::Claude.name(),
            ..Self::default()
        }
    }
}

impl Linter {
    /// A linter with the given registry (or none) and default rules.
    pub fn new(given: Option<ToolRegistry>, selection: Selection, settings: RuleSettings) -> Self {
        Self {
            given,
            follow: Vec::new(),
            selection,
            run: RunCx {
                settings,
                ..RunCx::default()
            },
            builtin_cache: Mutex::default(),
            measure_record: false,
            outlines: false,
        }
    }

    /// `agent`'s built-in registry matched to a trace's session, and the note saying which
    /// capture was used.
    fn builtin_for(&self, agent: Agent, trace: &Trace) -> (Arc<ToolRegistry>, String, Matched) {
        let own = Agent::of(trace.attribute(ATTR_AGENT)) == Some(agent);
        let attr = |k: &str| if own { trace.attribute(k) } else { None };
        let (key, matched) = match agent {
            Agent::ClaudeCode => {
                let (idx, m) =
                    ClaudeCodeTools::get().choose(trace.attribute(ATTR_CLAUDE_CODE_VERSION));
                (BuiltinKey::ClaudeCode(idx), m)
            }
            Agent::Codex => {
                let version = attr(crate::model::ATTR_AGENT_VERSION);
                let model = attr(crate::model::ATTR_MODEL);
                let (c, m) = if own && version.is_none() {
                    // No version recorded: the runtime's verdicts on the calls decide.
                    CodexTools::get().choose_by_evidence(
                        model,
                        trace.attribute(crate::adapters::codex::ATTR_STARTED),
                        &evidence(trace, Runtime::Codex),
                        &self.run.schemas,
                    )
                } else {
                    CodexTools::get().choose(version, model)
                };
                (BuiltinKey::Codex(c), m)
            }
            Agent::GeminiCli => {
                let (idx, m) = if own {
                    GeminiTools::get().choose(
                        trace.attribute(crate::adapters::gemini::ATTR_STARTED),
                        &evidence(trace, Runtime::GeminiCli),
                        &self.run.schemas,
                    )
                } else {
                    GeminiTools::get().pinned(None)
                };
                (BuiltinKey::GeminiCli(idx), m)
            }
        };
        let registry = {
            let mut cache = self
                .builtin_cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(cache.entry(key.clone()).or_insert_with(|| {
                Arc::new(match &key {
                    BuiltinKey::ClaudeCode(idx) => ClaudeCodeTools::get().registry(*idx),
                    BuiltinKey::Codex(c) => CodexTools::get().registry(c),
                    BuiltinKey::GeminiCli(idx) => GeminiTools::get().registry(*idx),
                })
            }))
        };
        let name = agent.display();
        let note = match &matched.note {
            Some(n) => format!(
                "{name}'s built-in schemas, version {}: {n}",
                matched.version
            ),
            None => format!(
                "{name}'s built-in schemas, version {} (the session's own)",
                matched.version
            ),
        };
        (registry, note, matched)
    }

    /// Lint one trace.
    pub fn lint(&self, trace: &Trace) -> TraceLint {
        let recognised = self.recognised_builtins(trace);
        self.with_registry_matched(trace, |registry, schemas, mut notes, matched| {
            let mut cx = TraceCx::new(trace, registry, &self.run);
            cx.builtin_exact = matched.as_ref().is_none_or(|(_, m)| m.exact);
            if let Some((builtin, note)) = &recognised {
                cx.recognised = Some(builtin);
                notes.push(note.clone());
            }
            let mut outcome = rules::run(&cx, &self.selection);
            if !outcome.drift.is_empty() {
                notes.push(drift_note(
                    &std::mem::take(&mut outcome.drift),
                    registry,
                    matched.as_ref(),
                    trace,
                ));
            }
            let outline = if self.outlines {
                outline::outline(trace, &outcome.findings)
            } else {
                None
            };
            TraceLint {
                outcome,
                schemas,
                notes,
                outline,
                record: self.measure_record.then(|| {
                    let mut r = crate::record::measure(trace, registry);
                    for run in &mut r.runs {
                        run.schema_version = matched.as_ref().map(|(a, _)| version_basis(*a, trace));
                    }
                    Box::new(r)
                }),
                ..TraceLint::of(trace)
            }
        })
    }

    /// For a trace that carries no schemas, names no agent and was given none: the built-in
    /// registry of the agent whose tools it calls, recognised by name and shape (at least
    /// `RECOGNISED_MIN` of its called tools are that agent's, each call's keys all among the
    /// built-in schema's properties), and the note saying so. R3 reads field origins from it.
    fn recognised_builtins(&self, trace: &Trace) -> Option<(Arc<ToolRegistry>, String)> {
        if self.given.is_some()
            || Agent::of(trace.attribute(ATTR_AGENT)).is_some()
            || trace.embedded_tools.iter().any(|t| t.schema.is_some())
        {
            return None;
        }
        // Each called tool with every key its calls used.
        let mut keys: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
        for call in trace.steps.iter().filter_map(|s| s.as_call()) {
            let entry = keys.entry(call.name.as_str()).or_default();
            if let Some(serde_json::Value::Object(args)) = call.args.known() {
                entry.extend(args.keys().map(String::as_str));
            }
        }
        if keys.len() < RECOGNISED_MIN {
            return None;
        }
        let mut best: Option<(usize, Agent, Arc<ToolRegistry>, Vec<&str>)> = None;
        for &agent in Agent::ALL {
            if keys.keys().filter(|name| agent.may_name(name)).count() < RECOGNISED_MIN {
                continue;
            }
            let (builtin, _, _) = self.builtin_for(agent, trace);
            let matched: Vec<&str> = keys
                .iter()
                .filter(|(name, used)| {
                    builtin
                        .get(name)
                        .and_then(|s| s.schema.as_ref())
                        .and_then(|s| s.get("properties"))
                        .and_then(serde_json::Value::as_object)
                        .is_some_and(|props| used.iter().all(|k| props.contains_key(*k)))
                })
                .map(|(name, _)| *name)
                .collect();
            if matched.len() >= RECOGNISED_MIN
                && best.as_ref().is_none_or(|(n, ..)| matched.len() > *n)
            {
                best = Some((matched.len(), agent, builtin, matched));
            }
        }
        let (_, agent, builtin, matched) = best?;
        let shown: Vec<&str> = matched.iter().take(4).copied().collect();
        let more = if matched.len() > shown.len() { ", …" } else { "" };
        let note = format!(
            "the trace declares no tool schemas, but {} of the tools it calls ({}{more}) are {}'s built-ins by name and arguments: R3 reads where their values come from (written, chosen or created by the agent, hence not judged) from {}'s table",
            matched.len(),
            shown.join(", "),
            agent.display(),
            agent.display(),
        );
        Some((builtin, note))
    }

    /// Run `f` with the registry in force for `trace` (the given one, the schemas the trace
    /// carries, Claude Code's built-in ones), where its schemas came from, and notes for the
    /// report.
    pub fn with_registry<R>(
        &self,
        trace: &Trace,
        f: impl FnOnce(&ToolRegistry, Vec<String>, Vec<String>) -> R,
    ) -> R {
        self.with_registry_matched(trace, |r, schemas, notes, _| f(r, schemas, notes))
    }

    /// `with_registry`, and how the trace's own agent's built-in schemas were matched to its
    /// session, when they are in force.
    fn with_registry_matched<R>(
        &self,
        trace: &Trace,
        f: impl FnOnce(&ToolRegistry, Vec<String>, Vec<String>, Option<(Agent, Matched)>) -> R,
    ) -> R {
        let owned: Arc<ToolRegistry>;
        let mut notes = Vec::new();
        let mut own_match: Option<(Agent, Matched)> = None;
        let own_agent = Agent::of(trace.attribute(ATTR_AGENT));
        // Only a coding agent's own session gets its built-in schemas: a trace of anything else
        // (seed 000's flat tool events, a chat log) gets none.
        let zero_config = Agent::of(trace.attribute(ATTR_AGENT))
            .filter(|_| trace.embedded_tools.iter().all(|t| t.schema.is_none()));
        let registry: &ToolRegistry = match (&self.given, zero_config) {
            (Some(given), _) if !self.follow.is_empty() => {
                let mut merged = ToolRegistry::new();
                for a in &self.follow {
                    let (builtin, note, matched) = self.builtin_for(*a, trace);
                    notes.push(note);
                    if own_agent == Some(*a) {
                        own_match = Some((*a, matched));
                    }
                    for spec in builtin.iter() {
                        if merged.get(&spec.name).is_none() {
                            merged.replace(spec.clone());
                        }
                    }
                    merged.sources.extend(builtin.sources.iter().cloned());
                    merged.builtin |= builtin.builtin;
                }
                merged.closed |= given.closed;
                for spec in given.iter() {
                    match merged.get(&spec.name) {
                        // Deferring to a built-in schema the followed agents have.
                        Some(b) if !spec.builtin_of.is_empty() => {
                            let mut b = b.clone();
                            b.metadata.overlay(&spec.metadata);
                            merged.replace(b);
                        }
                        _ => merged.replace(spec.clone()),
                    }
                }
                for s in &given.sources {
                    merged.sources.push(s.clone());
                }
                owned = Arc::new(merged);
                &owned
            }
            (Some(given), _) => match own_agent.filter(|a| defers_to(given, *a)) {
                // The file defers some tools to this session's agent's built-in schemas: those
                // matched to the session, with what the file states about behaviour on top.
                Some(agent) => {
                    let (builtin, note, matched) = self.builtin_for(agent, trace);
                    notes.push(note);
                    own_match = Some((agent, matched));
                    let mut merged = given.clone();
                    for spec in given
                        .iter()
                        .filter(|s| s.builtin_of.iter().any(|b| b == agent.source()))
                    {
                        if let Some(b) = builtin.get(&spec.name) {
                            let mut b = b.clone();
                            b.metadata.overlay(&spec.metadata);
                            merged.replace(b);
                        }
                    }
                    merged.sources.extend(builtin.sources.iter().cloned());
                    owned = Arc::new(merged);
                    &owned
                }
                None => given,
            },
            (None, Some(agent)) => {
                let (builtin, note, matched) = self.builtin_for(agent, trace);
                notes.push(format!("no `--tools` given: using {note}"));
                own_match = Some((agent, matched));
                // Server tools the session called (the model's API ran them) come on top of
                // whatever else the registry holds.
                let (server, listed): (Vec<&ToolSpec>, Vec<&ToolSpec>) = trace
                    .embedded_tools
                    .iter()
                    .partition(|t| t.source.0 == crate::adapters::claude::SERVER_TOOLS_SOURCE);
                owned = if listed.is_empty() && server.is_empty() {
                    builtin
                } else {
                    let mut r = if listed.is_empty() {
                        (*builtin).clone()
                    } else {
                        // The session names the tools it had (stream-json `system/init`): judge
                        // names against that list, with built-in schemas where Claude Code has
                        // them.
                        let mut r = ToolRegistry::new();
                        for spec in listed {
                            if r.get(&spec.name).is_none() {
                                let _ = r.insert(spec.clone());
                            }
                        }
                        for spec in builtin.iter() {
                            if r.get(&spec.name).is_some() {
                                r.replace(spec.clone());
                            }
                        }
                        r.sources = builtin.sources.clone();
                        r
                    };
                    for spec in server {
                        if r.get(&spec.name).is_none() {
                            r.replace(spec.clone());
                        }
                    }
                    Arc::new(r)
                };
                &owned
            }
            (None, None) => {
                owned = Arc::new(embedded_registry(trace));
                &owned
            }
        };
        let schemas =
            if self.given.is_none() && notes.is_empty() && !trace.embedded_tools.is_empty() {
                embedded_sources(registry)
            } else {
                registry.sources.clone()
            };
        // The adapter's facts about the run (after `schemas`, which reads whether notes exist).
        notes.extend(
            trace
                .attributes
                .iter()
                .filter(|(k, _)| k == crate::model::ATTR_NOTE)
                .map(|(_, v)| v.clone()),
        );
        f(registry, schemas, notes, own_match)
    }
}

/// Does a given registry defer any tool to `agent`'s built-in schemas (`"builtin"` in a tools
/// file)?
fn defers_to(given: &ToolRegistry, agent: Agent) -> bool {
    given
        .iter()
        .any(|s| s.builtin_of.iter().any(|b| b == agent.source()))
}

/// How `agent`'s built-in schemas were matched to the session `trace` records: by the version it
/// records, inferred from its calls or start date (Gemini CLI sessions record no version), or
/// with nothing to go on (the newest capture).
fn version_basis(agent: Agent, trace: &Trace) -> crate::record::VersionBasis {
    use crate::record::VersionBasis;
    let recorded = match agent {
        Agent::ClaudeCode => trace.attribute(ATTR_CLAUDE_CODE_VERSION),
        Agent::Codex | Agent::GeminiCli => trace.attribute(crate::model::ATTR_AGENT_VERSION),
    };
    if recorded
        .and_then(crate::sources::builtin::parse_version)
        .is_some()
    {
        VersionBasis::Recorded
    } else if agent == Agent::GeminiCli
        && (trace
            .attribute(crate::adapters::gemini::ATTR_STARTED)
            .is_some()
            || trace.steps.iter().any(|s| s.as_result().is_some()))
    {
        VersionBasis::Inferred
    } else {
        VersionBasis::None
    }
}

/// The one note a trace gets for schema drift: the calls its agent's runtime ran that the
/// built-in schemas in force reject or lack, by tool, and whether the CLI is newer than every
/// capture this build ships.
fn drift_note(
    drift: &[rules::Drift],
    registry: &ToolRegistry,
    matched: Option<&(Agent, Matched)>,
    trace: &Trace,
) -> String {
    let primary = registry.sources.first().map_or("", String::as_str);
    let agent = Agent::of(trace.attribute(ATTR_AGENT));
    let who = agent.map_or("the agent", Agent::display);
    let mut by_tool: Vec<&rules::Drift> = drift.iter().collect();
    by_tool.sort_by(|a, b| a.tool.cmp(&b.tool));
    let calls: usize = by_tool.iter().map(|d| d.calls).sum();
    let items: Vec<String> = by_tool
        .iter()
        .map(|d| {
            let n = if d.calls == 1 {
                "1 call".to_owned()
            } else {
                format!("{} calls", d.calls)
            };
            let what = if d.fields.is_empty() {
                "a tool no capture has: an MCP server's, or newer than the captures".to_owned()
            } else {
                d.fields.join(", ")
            };
            let from = if d.source == primary || d.source.is_empty() {
                String::new()
            } else {
                format!(", schema from {}", d.source)
            };
            format!("`{}` ({n}: {what}{from})", d.tool)
        })
        .collect();
    let mut note = format!(
        "schema drift: {who} ran {calls} call{} that the captured schemas ({primary}) reject; the CLI's own verdict outranks a capture, so none is reported as a defect: {}",
        if calls == 1 { "" } else { "s" },
        items.join("; ")
    );
    if let Some((a, m)) = matched {
        let newest = match a {
            Agent::ClaudeCode => ClaudeCodeTools::get().versions().last(),
            Agent::Codex => CodexTools::get().versions().last(),
            Agent::GeminiCli => GeminiTools::get().versions().last(),
        }
        .unwrap_or_default();
        let recorded = match a {
            Agent::ClaudeCode => trace.attribute(ATTR_CLAUDE_CODE_VERSION),
            _ => trace.attribute(crate::model::ATTR_AGENT_VERSION),
        };
        match (m.newer, recorded) {
            (true, Some(v)) => note.push_str(&format!(
                ". This {} {v} is newer than the schemas this tracelint ships (the newest is {newest}): update tracelint to check its calls",
                a.display()
            )),
            // No version recorded, and even the newest capture disagrees with the CLI.
            (true, None) => note.push_str(&format!(
                ". The session may come from a {} newer than the schemas this tracelint ships (the newest is {newest}): update tracelint to check its calls",
                a.display()
            )),
            (false, _) => {}
        }
    }
    note
}

/// Fewest of a known agent's built-in tools a schema-less trace must call, by name and shape,
/// for their field origins to apply.
const RECOGNISED_MIN: usize = 2;

/// The registry of schemas a trace carries. The first declaration of a tool wins: a trace that
/// re-sends its tools with every request repeats them.
pub fn embedded_registry(trace: &Trace) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    for spec in &trace.embedded_tools {
        if r.get(&spec.name).is_none() {
            // Cannot fail: the name is new.
            let _ = r.insert(spec.clone());
        }
    }
    r
}

fn embedded_sources(r: &ToolRegistry) -> Vec<String> {
    let mut by_source: BTreeMap<&SchemaSource, usize> = BTreeMap::new();
    for spec in r.iter() {
        *by_source.entry(&spec.source).or_default() += 1;
    }
    by_source
        .into_iter()
        .map(|(s, n)| format!("{s} ({n} tool{})", if n == 1 { "" } else { "s" }))
        .collect()
}

mod report;
mod settle;

pub use report::{EXCERPT_BUDGET, ReportBuilder};
pub use settle::Settle;

#[cfg(test)]
mod tests;
