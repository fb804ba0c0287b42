//! The canonical trace model (SPEC §2). Adapters produce it, rules read it, nothing else crosses
//! that line. Plain data: no I/O, no knowledge of input formats, rules or reports.
//!
//! One cohesive model: `Trace`, `Step` and their parts are the types every other module shares,
//! kept together so the model reads in one place.

pub mod json_events;
pub mod location;
pub mod pairing;
pub mod patterns;
pub mod registry;
pub mod runtime;
pub mod schema;
pub mod score;
pub mod toolset;

use serde::Serialize;
use serde_json::Value;

pub use json_events::{JsonEvent, JsonEvents};
pub use location::{InputRef, LineIndex, Location};
pub use pairing::Pairing;
pub use registry::{
    Condition, FailureOutcome, FailureWhen, OffLimits, Requirement, SchemaSource, ToolMetadata,
    ToolRegistry, ToolSpec, ValueOrigin,
};

/// `Trace::attributes` key: the Claude Code version a session's lines record.
pub const ATTR_CLAUDE_CODE_VERSION: &str = "version";

/// `Trace::attributes` key: the coding agent that wrote the session (`claude-code`, `codex`,
/// `gemini-cli`, `cline`, `copilot-cli`), set only when the input is that agent's own session
/// file; it decides which built-in schemas a trace linted without `--tools` gets.
pub const ATTR_AGENT: &str = "agent";
/// `Trace::attributes` key: the version of the agent the session records.
pub const ATTR_AGENT_VERSION: &str = "agent_version";
/// `Trace::attributes` key: the model the session's first turn ran.
pub const ATTR_MODEL: &str = "model";
/// `ATTR_AGENT` of a Claude Code session.
pub const AGENT_CLAUDE_CODE: &str = "claude-code";
/// `ATTR_AGENT` of a Codex CLI rollout.
pub const AGENT_CODEX: &str = "codex";
/// `ATTR_AGENT` of a Gemini CLI session.
pub const AGENT_GEMINI_CLI: &str = "gemini-cli";
/// `ATTR_AGENT` of a Cline task or SDK session.
pub const AGENT_CLINE: &str = "cline";
/// `ATTR_AGENT` of a GitHub Copilot CLI session.
pub const AGENT_COPILOT_CLI: &str = "copilot-cli";
/// `ATTR_AGENT` of a pi coding-agent session.
pub const AGENT_PI: &str = "pi";
/// `ATTR_AGENT` of an OpenCode session.
pub const AGENT_OPENCODE: &str = "opencode";
/// `ATTR_AGENT` of a Google Antigravity step log.
pub const AGENT_ANTIGRAVITY: &str = "antigravity";
/// `ATTR_AGENT` of a Claude Managed Agents session's events.
pub const AGENT_MANAGED_AGENTS: &str = "managed-agents";

/// `Trace::attributes` key: the trace is a copy of one that has its own file (a Claude Code
/// sub-agent read from `agent_progress` mirror lines), dropped when that file is linted too.
pub const ATTR_MIRROR: &str = "mirror";

/// `Trace::attributes` key: a fact about the run that its report shows as a note (a model
/// request that failed, calls an adapter parsed out of the assistant's text). May repeat.
pub const ATTR_NOTE: &str = "note";

/// `Trace::attributes` key: the record holds only the agent's tool channel (an MCP session
/// recorded by `tracelint mcp proxy`): what the agent was told (its prompt, its messages) is
/// not in it, so no rule may read a value's absence from it as the agent inventing the value.
pub const ATTR_TOOLS_ONLY: &str = "tools_only";

/// `Trace::attributes` key: the record holds the agent's own messages and calls but not what it
/// was asked (`codex exec --json` prints no prompt); the value says which record. As with
/// `ATTR_TOOLS_ONLY`, a value's absence from it is not the agent inventing the value.
pub const ATTR_PROMPT_UNRECORDED: &str = "prompt_unrecorded";

/// `Trace::attributes` key: the faults a recorded run was injected with (`tracelint mcp proxy
/// --inject`), comma-separated; absent for a run recorded without injection.
pub const ATTR_INJECTION: &str = "injection";

/// One agent run: the steps it took, in order.
///
/// ```
/// let loaded = tracelint::load_traces("fixtures/quickstart/transcript.json")?;
/// let trace = &loaded.traces[0];
/// assert_eq!(trace.format(), "native");
/// assert!(trace.call_count() > 0 && trace.step_count() >= trace.call_count());
/// assert!(!trace.run_id().is_empty() && !trace.is_partial());
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    /// The run's id (from the input, or derived from the file and position).
    pub(crate) run_id: String,
    /// The input file this trace was read from.
    pub(crate) source: InputRef,
    /// The steps, in the order the agent took them.
    pub(crate) steps: Vec<Step>,
    /// The agent's final answer, when the input records one.
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub(crate) final_answer: Option<String>,
    /// True when part of the trace could not be read (a malformed line or element); the report
    /// says so, and the rest is still linted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) partial: bool,
    /// Tool schemas the trace itself carries (an OpenAI request's `tools`, OpenInference
    /// `llm.tools.*`, …). Used only when the user gave no `--tools`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) embedded_tools: Vec<ToolSpec>,
    /// Facts about the producer that adapters know and reports may show (e.g. a Claude Code
    /// `version`), as `(key, value)` pairs in a fixed order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) attributes: Vec<(String, String)>,
    /// What the agent was told about its environment outside the steps (Claude Code's `cwd`
    /// and `gitBranch`, a Codex or Gemini session's working directory, a system prompt a
    /// format records beside the messages). R3 counts each item as observed from the start of
    /// the trace; a working directory is also the base of relative paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) context: Vec<Context>,
}

/// One item of what the agent was given before its first step (`Trace::context`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    /// What the item is.
    pub kind: ContextKind,
    /// Its text, as the input records it.
    pub value: String,
}

/// The kinds of context an adapter records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextKind {
    /// The agent's working directory (absolute).
    WorkingDirectory,
    /// The user's home directory (to expand `~`).
    HomeDirectory,
    /// The git branch the session ran on.
    GitBranch,
    /// A system prompt or instructions recorded outside the steps.
    Instructions,
    /// Another fact the agent was given (a platform, a date, a model name).
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    Other,
}

impl Trace {
    /// An empty trace read from `source`.
    #[doc(hidden)] // For this crate's own tests and benchmarks: not part of the API.
    pub fn new(run_id: impl Into<String>, source: InputRef) -> Self {
        Self {
            run_id: run_id.into(),
            source,
            steps: Vec::new(),
            final_answer: None,
            partial: false,
            embedded_tools: Vec::new(),
            attributes: Vec::new(),
            context: Vec::new(),
        }
    }

    /// Record an item of context once (a value repeated on every line is kept once).
    pub(crate) fn add_context(&mut self, kind: ContextKind, value: impl Into<String>) {
        let value = value.into();
        if value.is_empty()
            || self
                .context
                .iter()
                .any(|c| c.kind == kind && c.value == value)
        {
            return;
        }
        self.context.push(Context { kind, value });
    }

    /// Append a step, assigning its `index`.
    #[doc(hidden)] // For this crate's own tests and benchmarks: not part of the API.
    pub fn push(&mut self, kind: StepKind, at: Location, meta: StepMeta) -> usize {
        let index = self.steps.len();
        self.steps.push(Step {
            index,
            at,
            meta,
            kind,
        });
        index
    }

    /// Number of tool calls in the trace.
    pub fn call_count(&self) -> usize {
        self.steps.iter().filter(|s| s.as_call().is_some()).count()
    }

    /// Record a fact about the run for its report (`ATTR_NOTE`), once.
    pub(crate) fn add_note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self
            .attributes
            .iter()
            .any(|(k, v)| k == ATTR_NOTE && *v == note)
        {
            self.attributes.push((ATTR_NOTE.to_owned(), note));
        }
    }

    /// The value of an attribute recorded by the adapter.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// One step of a trace.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// Position in `Trace::steps`.
    pub index: usize,
    /// Where the step's JSON begins in the input file.
    pub at: Location,
    /// Optional facts about the step.
    #[serde(skip_serializing_if = "StepMeta::is_empty")]
    pub meta: StepMeta,
    /// What happened.
    #[serde(flatten)]
    pub kind: StepKind,
}

impl Step {
    /// The call, when this step is one.
    pub fn as_call(&self) -> Option<&ToolCall> {
        match &self.kind {
            StepKind::ToolCall(c) => Some(c),
            _ => None,
        }
    }

    /// The result, when this step is one.
    pub fn as_result(&self) -> Option<&ToolResult> {
        match &self.kind {
            StepKind::ToolResult(r) => Some(r),
            _ => None,
        }
    }

    /// The message, when this step is one.
    pub fn as_message(&self) -> Option<&Message> {
        match &self.kind {
            StepKind::Message(m) => Some(m),
            _ => None,
        }
    }
}

/// The three kinds of step.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StepKind {
    /// A message from the user, the assistant, the system or a tool.
    Message(Message),
    /// The agent called a tool.
    ToolCall(ToolCall),
    /// A tool answered.
    ToolResult(ToolResult),
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The human (or the harness speaking for them).
    User,
    /// The model.
    Assistant,
    /// The system prompt or developer instructions.
    System,
    /// A tool's free-text message (not a result paired to a call).
    Tool,
}

/// A message step.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (typed content blocks flattened to text by the adapter).
    pub content: String,
}

/// A tool call's arguments: known, malformed, or not recorded — never a silent `{}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", content = "value", rename_all = "snake_case")]
pub enum Args {
    /// The arguments as a JSON value (normally an object).
    Known(Value),
    /// The emitted text is not a JSON object; `raw_args` holds it and the reason says why.
    Malformed(String),
    /// Not recorded (redacted, positional, absent); the reason says which.
    Unknown(String),
}

impl Args {
    /// The known value.
    pub fn known(&self) -> Option<&Value> {
        match self {
            Args::Known(v) => Some(v),
            _ => None,
        }
    }
}

/// Who recorded a call's arguments: the model's own emission, or only a tool's record of what it
/// received (which may be lossy, e.g. truncated by an exporter).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOrigin {
    /// The model emitted the call (an assistant tool call).
    #[default]
    Model,
    /// Only a tool's own record (a tool span's input) carries it.
    ToolRecord,
}

/// A tool-call step.
#[derive(Debug, Clone, Serialize)]
pub struct ToolCall {
    /// The id that pairs the call with its result, when the input has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments.
    pub args: Args,
    /// The original argument string when the arguments came as text (OpenAI), so R6 can prove
    /// it malformed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_args: Option<String>,
    /// Who recorded the arguments.
    #[serde(skip_serializing_if = "is_model")]
    pub origin: CallOrigin,
}

fn is_model(o: &CallOrigin) -> bool {
    *o == CallOrigin::Model
}

/// A result's status, set only from a structured signal (SPEC §2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultStatus {
    /// The input says it succeeded.
    Ok,
    /// The input says it failed (explicit status, `is_error`, HTTP ≥ 400, span ERROR, …).
    Error,
    /// The input does not say.
    #[default]
    Unknown,
}

/// A tool-result step.
#[derive(Debug, Clone, Serialize)]
pub struct ToolResult {
    /// The id of the call this answers, when the input has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The result as recorded (a string, or structured JSON). `Value::Null` when the input
    /// recorded a result with no content.
    pub content: Value,
    /// Structured status.
    pub status: ResultStatus,
    /// The structured error message, when the input gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The HTTP status the input recorded for the call, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// False when the exporter dropped the content (a lossy export): rules that need it
    /// suppress instead of reading `Null` as an empty result.
    #[serde(skip_serializing_if = "is_true")]
    pub content_recorded: bool,
    /// `content` read as structure, filled the first time a rule asks (`structured`).
    #[serde(skip)]
    pub structured_cache: StructuredCache,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// A result's content read as structure once per result, however many rules ask: a string
/// holding a JSON object or array is parsed the first time and kept, as a tree, as events, or
/// both (whichever rules asked for). Filled lazily, so a result built (or changed) before
/// linting starts is read as it is then.
#[derive(Debug, Clone, Default)]
pub struct StructuredCache(
    std::sync::OnceLock<Option<Box<Value>>>,
    std::sync::OnceLock<Option<Box<JsonEvents>>>,
);

impl ToolResult {
    /// A result with the given content and status; everything else empty.
    pub fn new(call_id: Option<String>, content: Value, status: ResultStatus) -> Self {
        Self {
            call_id,
            content,
            status,
            error: None,
            http_status: None,
            content_recorded: true,
            structured_cache: StructuredCache::default(),
        }
    }

    /// The content as structure: a string holding a JSON object or array is read as it (parsed
    /// once, then cached); anything else is the content itself.
    pub fn structured(&self) -> &Value {
        self.structured_cache
            .0
            .get_or_init(|| json_in_string(&self.content).map(Box::new))
            .as_deref()
            .unwrap_or(&self.content)
    }

    /// The content as events (`JsonEvents`, with the text they borrow from) when it is a string
    /// holding a JSON object or array (read once, then kept): a rule that walks its leaves or
    /// reads a few members reads them without the tree `structured` builds. `None` for any
    /// other content (`structured` is then the content itself).
    pub fn json(&self) -> Option<(&JsonEvents, &str)> {
        let Value::String(text) = &self.content else {
            return None;
        };
        let cache = &self.structured_cache;
        let events = cache.1.get_or_init(|| {
            if cache.0.get().is_some_and(Option::is_none) {
                // `structured` found no JSON in it.
                return None;
            }
            let events = JsonEvents::read(text);
            if events.is_none() {
                // The same parser: `structured` would find none either.
                let _ = cache.0.set(None);
            }
            events.map(Box::new)
        });
        Some((events.as_deref()?, text))
    }

    /// The events of `json`.
    pub fn json_events(&self) -> Option<impl Iterator<Item = JsonEvent<'_>> + '_> {
        self.json().map(|(events, text)| events.iter(text))
    }
}

/// The object or array a string value holds, if it holds one.
pub fn json_in_string(content: &Value) -> Option<Value> {
    let Value::String(s) = content else {
        return None;
    };
    let t = s.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => Some(v),
        _ => None,
    }
}

/// Optional facts about a step.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StepMeta {
    /// When it happened (as the input wrote it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// How long it took, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// The model that produced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The parent record's id (span parent, `parentUuid`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The record's own id in its source system (span id, observation id, line uuid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<String>,
    /// Retry attempt number, when the producer recorded one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_attempt: Option<u32>,
    /// True when a fault injector produced this step.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub injected: bool,
    /// The fault injection that produced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault_injection_id: Option<String>,
}

impl StepMeta {
    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        *self == StepMeta::default()
    }
}
