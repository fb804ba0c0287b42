//! Which trace each Claude record belongs to, and the traces a file yields. The main thread is
//! one trace; every sub-agent is its own: inline sidechain lines (`isSidechain`, grouped by
//! `agentId`, or by their `parentUuid` chain when older versions wrote no `agentId`), the
//! `agent_progress` mirrors of v2.1 main files, sub-agent files, and stream-json events with a
//! `parent_tool_use_id`. A tool_use or tool_result id is taken once per file, so a mirrored or
//! repeated record is never counted twice. A trace read only from mirrors says so in its
//! attributes (`mirror`), so a run that also reads the sub-agent's own file keeps that one.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{ContextKind, InputRef, Location, SchemaSource, StepKind, ToolSpec, Trace};

use crate::adapters::Emit;
use crate::adapters::common::content::{Collected, Item};
use super::Record;

/// The attribute that marks a trace read only from `agent_progress` mirror lines.
pub const MIRROR_ATTRIBUTE: &str = crate::model::ATTR_MIRROR;

/// Where the tool names of a stream-json `system/init` event are said to come from.
const INIT_TOOLS_SOURCE: &str = "embedded in the trace (Claude Code `system/init` tool names)";

/// The thread a record belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum ThreadKey {
    /// The main conversation.
    Main,
    /// A sub-agent named by its `agentId`.
    Agent(String),
    /// A stream-json sub-agent, named by the `Task` call that started it.
    Task(String),
    /// An inline sidechain with no `agentId` (Claude Code 1.0.x), numbered from 1.
    Sidechain(u32),
}

#[derive(Debug)]
struct Thread {
    key: ThreadKey,
    steps: Vec<Item>,
    /// Read from `agent_progress` mirror lines.
    mirrored: bool,
    /// Read from its own lines (sidechain lines, a sub-agent file, stream-json events).
    direct: bool,
    parent_tool_use_id: Option<String>,
    description: Option<String>,
}

impl Thread {
    fn new(key: ThreadKey) -> Self {
        Self {
            key,
            steps: Vec::new(),
            mirrored: false,
            direct: false,
            parent_tool_use_id: None,
            description: None,
        }
    }
}

/// Everything read from one Claude file so far.
#[derive(Debug)]
pub(super) struct Session {
    input: InputRef,
    session_id: Option<String>,
    version: Option<String>,
    model: Option<String>,
    threads: Vec<Thread>,
    index: HashMap<ThreadKey, usize>,
    /// Line uuid → thread, for sidechain lines that carry no `agentId`.
    sidechain_of: HashMap<String, ThreadKey>,
    sidechains: u32,
    /// A `Task`/`Agent` call's prompt → (call id, description), to name the sidechain it starts.
    task_prompts: HashMap<String, (Option<String>, Option<String>)>,
    seen_calls: HashSet<String>,
    seen_results: HashSet<String>,
    tools: Vec<ToolSpec>,
    final_answer: Option<String>,
    partial: bool,
    /// What newer versions add (stored results, server tools).
    extras: super::newer::Extras,
    /// The working directories and git branches the lines record, first seen first.
    environment: Vec<(ContextKind, String)>,
}

impl Session {
    /// An empty session read from `input`.
    pub(super) fn new(input: InputRef) -> Self {
        let mut s = Self {
            input,
            session_id: None,
            version: None,
            model: None,
            threads: Vec::new(),
            index: HashMap::new(),
            sidechain_of: HashMap::new(),
            sidechains: 0,
            task_prompts: HashMap::new(),
            seen_calls: HashSet::new(),
            seen_results: HashSet::new(),
            tools: Vec::new(),
            final_answer: None,
            partial: false,
            extras: super::newer::Extras::default(),
            environment: Vec::new(),
        };
        s.thread(&ThreadKey::Main);
        s
    }

    /// Part of the file could not be read: every trace it yields is partial.
    pub(super) fn mark_partial(&mut self) {
        self.partial = true;
    }

    /// Report a record that could not be read.
    pub(super) fn problem(&mut self, at: &Location, message: String, out: &mut dyn Emit) {
        self.partial = true;
        out.issue(InputIssue::at(
            &self.input.path,
            at.line,
            at.column,
            message,
        ));
    }

    /// The session id and producer version, first seen wins.
    pub(super) fn note_context(&mut self, session_id: Option<&str>, version: Option<&str>) {
        if self.session_id.is_none() {
            self.session_id = session_id.filter(|s| !s.is_empty()).map(str::to_owned);
        }
        if self.version.is_none() {
            self.version = version.filter(|s| !s.is_empty()).map(str::to_owned);
        }
    }

    /// A line's `cwd` and `gitBranch`: what the agent was told about its environment (Claude
    /// Code puts the working directory in its system prompt). Kept once each; a session that
    /// changes directory keeps every one.
    pub(super) fn note_environment(&mut self, cwd: Option<&str>, branch: Option<&str>) {
        for (kind, value) in [
            (ContextKind::WorkingDirectory, cwd),
            (ContextKind::GitBranch, branch),
        ] {
            let Some(v) = value.filter(|v| !v.is_empty()) else {
                continue;
            };
            // Lines repeat the same value: compare with the last one first.
            if !self
                .environment
                .iter()
                .rev()
                .any(|(k, e)| *k == kind && e == v)
            {
                self.environment.push((kind, v.to_owned()));
            }
        }
    }

    /// A line's `slug`: the session's plan file, `~/.claude/plans/<slug>.md`, is a path Claude
    /// Code names to the agent in plan mode (the reminder that says so is not in the file), so
    /// it is context. Kept once; only a plain slug (letters, digits, `-`, `_`; at most
    /// `SLUG_MAX` bytes) is taken.
    pub(super) fn note_plan(&mut self, slug: Option<&str>) {
        let Some(slug) = slug.filter(|s| plain_slug(s)) else {
            return;
        };
        let plan = format!("~/.claude/plans/{slug}.md");
        if !self
            .environment
            .iter()
            .rev()
            .any(|(k, e)| *k == ContextKind::Instructions && *e == plan)
        {
            self.environment.push((ContextKind::Instructions, plan));
        }
    }

    /// A stream-json `system/init` event: the session's tool names (no schemas) and model.
    pub(super) fn init(&mut self, tools: Option<&RawValue>, model: Option<&str>) {
        if self.model.is_none() {
            self.model = model.map(str::to_owned);
        }
        let names: Vec<String> = tools
            .and_then(|t| serde_json::from_str::<Vec<Value>>(t.get()).ok())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect();
        for name in names {
            if !self.tools.iter().any(|t| t.name == name) {
                self.tools.push(ToolSpec::new(
                    name,
                    None,
                    SchemaSource(INIT_TOOLS_SOURCE.to_owned()),
                ));
            }
        }
    }

    /// The run's final answer (a stream-json `result` event).
    pub(super) fn final_answer(&mut self, text: String) {
        self.final_answer = Some(text);
    }

    /// The thread a `user`/`assistant` line belongs to.
    pub(super) fn key_for_line<M>(&mut self, rec: &Record<'_, M>) -> ThreadKey {
        if let Some(parent) = rec.parent_tool_use_id.as_deref().filter(|p| !p.is_empty()) {
            let key = ThreadKey::Task(parent.to_owned());
            let t = self.thread(&key);
            t.direct = true;
            t.parent_tool_use_id
                .get_or_insert_with(|| parent.to_owned());
            return key;
        }
        if rec.is_sidechain != Some(true) {
            return ThreadKey::Main;
        }
        let key = match (&rec.agent_id, &rec.parent_uuid) {
            (Some(agent), _) if !agent.is_empty() => ThreadKey::Agent(agent.clone()),
            (_, Some(parent)) if self.sidechain_of.contains_key(parent) => {
                self.sidechain_of[parent].clone()
            }
            _ => {
                self.sidechains += 1;
                ThreadKey::Sidechain(self.sidechains)
            }
        };
        if let Some(uuid) = &rec.uuid {
            self.sidechain_of.insert(uuid.clone(), key.clone());
        }
        self.thread(&key).direct = true;
        key
    }

    /// Read what newer versions add to one record's steps (see `newer.rs`).
    pub(super) fn newer(&mut self, got: &mut Collected) {
        self.extras
            .record(got, &self.input, self.session_id.as_deref());
    }

    /// A sub-agent record mirrored in an `agent_progress` line.
    pub(super) fn mirror(&mut self, key: &ThreadKey, parent_tool_use_id: Option<&str>) {
        let t = self.thread(key);
        t.mirrored = true;
        if t.parent_tool_use_id.is_none() {
            t.parent_tool_use_id = parent_tool_use_id.map(str::to_owned);
        }
    }

    fn thread(&mut self, key: &ThreadKey) -> &mut Thread {
        let i = match self.index.get(key) {
            Some(i) => *i,
            None => {
                self.threads.push(Thread::new(key.clone()));
                self.index.insert(key.clone(), self.threads.len() - 1);
                self.threads.len() - 1
            }
        };
        &mut self.threads[i]
    }

    /// Add what one record held to its thread: problems become input issues, and a call or
    /// result whose id was already taken is dropped.
    pub(super) fn add(&mut self, key: &ThreadKey, got: Collected, out: &mut dyn Emit) {
        for p in got.problems {
            self.problem(&p.at, p.message, out);
        }
        for item in got.items {
            match &item.kind {
                StepKind::ToolCall(c) => {
                    if let Some(id) = &c.call_id
                        && !self.seen_calls.insert(id.clone())
                    {
                        continue;
                    }
                    if *key == ThreadKey::Main
                        && matches!(c.name.as_str(), "Task" | "Agent")
                        && let Some(args) = c.args.known()
                        && let Some(prompt) = args.get("prompt").and_then(Value::as_str)
                    {
                        let desc = ["description", "subagent_type"]
                            .iter()
                            .find_map(|k| args.get(*k).and_then(Value::as_str))
                            .map(str::to_owned);
                        self.task_prompts
                            .insert(prompt.to_owned(), (c.call_id.clone(), desc));
                    }
                }
                StepKind::ToolResult(r) => {
                    if let Some(id) = &r.call_id
                        && !self.seen_results.insert(id.clone())
                    {
                        continue;
                    }
                }
                StepKind::Message(_) => {}
            }
            let named = match (key, &item.kind) {
                (ThreadKey::Sidechain(_), StepKind::Message(m)) => {
                    self.task_prompts.get(&m.content).cloned()
                }
                _ => None,
            };
            let t = self.thread(key);
            if t.steps.is_empty()
                && let Some((id, desc)) = named
            {
                t.parent_tool_use_id = t.parent_tool_use_id.take().or(id);
                t.description = t.description.take().or(desc);
            }
            t.steps.push(item);
        }
    }

    /// Emit the traces: the main thread first (unless the file holds only sub-agents), then each
    /// sub-agent in order of first appearance.
    pub(super) fn finish(self, out: &mut dyn Emit) {
        let base = self
            .session_id
            .clone()
            .unwrap_or_else(|| self.input.path.clone());
        let only_main = self.threads.iter().skip(1).all(|t| t.steps.is_empty());
        self.extras.notes(out);
        let sub_agent_meta = super::newer::sub_agent_meta(&self.input);
        for thread in self.threads {
            let main = thread.key == ThreadKey::Main;
            if thread.steps.is_empty() && !(main && only_main) {
                continue;
            }
            let run_id = match &thread.key {
                ThreadKey::Main => base.clone(),
                ThreadKey::Agent(id) => format!("{base}/agent-{id}"),
                ThreadKey::Task(id) => format!("{base}/task-{id}"),
                ThreadKey::Sidechain(n) => format!("{base}/sidechain-{n}"),
            };
            let mut trace = Trace::new(run_id, self.input.clone());
            trace.partial = self.partial;
            for (kind, value) in &self.environment {
                trace.add_context(*kind, value.clone());
            }
            if let Some(v) = &self.version {
                trace
                    .attributes
                    .push((crate::model::ATTR_CLAUDE_CODE_VERSION.into(), v.clone()));
            }
            // A Claude Code session (its lines carry a session id or version), not a file of
            // flat tool events: it gets Claude Code's built-in schemas.
            if self.session_id.is_some() || self.version.is_some() {
                trace.attributes.push((
                    crate::model::ATTR_AGENT.into(),
                    crate::model::AGENT_CLAUDE_CODE.into(),
                ));
            }
            if main {
                if let Some(m) = &self.model {
                    trace.attributes.push(("model".into(), m.clone()));
                }
                trace.embedded_tools.clone_from(&self.tools);
                trace.final_answer.clone_from(&self.final_answer);
            } else {
                if let ThreadKey::Agent(id) = &thread.key {
                    trace.attributes.push(("agent_id".into(), id.clone()));
                }
                if let Some(p) = thread.parent_tool_use_id {
                    trace.attributes.push(("parent_tool_use_id".into(), p));
                }
                if let Some(d) = thread.description {
                    trace.attributes.push(("agent_description".into(), d));
                }
                if thread.mirrored && !thread.direct {
                    trace
                        .attributes
                        .push((MIRROR_ATTRIBUTE.into(), "agent_progress".into()));
                }
            }
            if !main {
                for (k, v) in &sub_agent_meta {
                    if trace.attribute(k).is_none() {
                        trace.attributes.push((k.clone(), v.clone()));
                    }
                }
            }
            self.extras.apply(&mut trace);
            for item in thread.steps {
                trace.push(item.kind, item.at, item.meta);
            }
            out.trace(trace);
        }
    }
}

/// Longest plan slug taken as context (bytes).
const SLUG_MAX: usize = 128;

/// A slug as Claude Code makes them (`happy-sparking-sloth`): short, letters, digits, `-`, `_`.
fn plain_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= SLUG_MAX
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}
