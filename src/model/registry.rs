//! The tool registry (SPEC §3): what each tool accepts and how it behaves. `ToolSpec`,
//! `ToolMetadata`, `FailureWhen` (with its tri-state evaluation) and `ToolRegistry` (merge,
//! `closed`, where each schema came from). Parsing of files and MCP replies lives in `sources`.
//!
//! One cohesive registry: `ToolSpec`, its metadata and `FailureWhen` are what a registry entry is,
//! and the merge works over all of them.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// Where a tool's schema came from, for the report ("tools.json", "mcp-stdio:…", "embedded in
/// the trace", "builtin:claude-code@2.1.53").
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SchemaSource(pub String);

impl std::fmt::Display for SchemaSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a schema property's value must come from (`x-value-origin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueOrigin {
    /// Must be derivable from what the agent observed (R3 hard_defect when not).
    Provided,
    /// The agent legitimately makes it up (an idempotency key); R3 skips it.
    Generated,
    /// A value the tool's own definition offers (an enum of sub-agent types, a list of skill
    /// names in its description): judged only against the values the definition lists, when
    /// the registry carries them, never against observed text.
    Choice,
    /// A path the call creates (a file written): its directory must be derivable, its file
    /// name is the agent's.
    Created,
}

impl ValueOrigin {
    /// Parse `provided` / `generated` / `choice` / `created`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "provided" => Some(Self::Provided),
            "generated" => Some(Self::Generated),
            "choice" => Some(Self::Choice),
            "created" => Some(Self::Created),
            _ => None,
        }
    }
}

/// How a tool behaves. Every field defaults to "not declared": nothing is waved through by
/// omission, and rules that need a fact the registry lacks say so.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolMetadata {
    /// Changes the world (sends, writes, charges). `None` = not declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side_effecting: Option<bool>,
    /// Repeating it has no further effect. `None` = not declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// Reaches outside the user's own systems (the web, other people's services): MCP's
    /// `openWorldHint`, or `open_world`. `None` = not declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// Repeats by design (R4 never calls it a loop).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub polling: bool,
    /// Pages through results (repeats with a cursor are progress).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub paginated: bool,
    /// Error kinds after which a retry is the right move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retryable_errors: Vec<String>,
    /// What failure looks like in this tool's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_when: Option<FailureWhen>,
    /// The tool's runtime drops unknown argument keys instead of rejecting the call (Claude
    /// Code's `Task`/`Agent`, `Skill`, …): an R1 whose only errors are unexpected properties is a
    /// certain but tolerated event, not a defect.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub extra_keys_tolerated: bool,
    /// The tool's result is another agent's written report (a sub-agent's summary, Claude
    /// Code's `Task`/`Agent`): an error it quotes is a finding of that agent's work, not the
    /// tool failing, so R2a reads only its structured status (no text heuristics).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub result_is_report: bool,
    /// Calls that must have returned (successfully, unless `succeeded` is false) before this
    /// tool runs (R9).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<Requirement>,
}

/// One declared precondition (`metadata.requires` entry): the latest returned call of `tool`
/// (matching the dependent call on the `same` arguments) must have succeeded, or, with
/// `succeeded: false`, merely returned, before the dependent call runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirement {
    /// The tool that must run first.
    pub tool: String,
    /// Arguments whose values must be equal in both calls (scopes the precondition to one
    /// entity: refunding order B needs B's lookup).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same: Vec<String>,
    /// True (the default): the required call must have succeeded; false: it must have returned.
    pub succeeded: bool,
}

/// Sources a run must not reach (`off_limits` beside `tools`, R13): names matched as whole
/// tokens in the URLs and search queries of calls and the URLs of results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OffLimits {
    /// The sources (`tbench.ai`, `terminal-bench`), as declared.
    pub sources: Vec<String>,
    /// Why they are off limits, when the contract says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ToolMetadata {
    /// Declared side-effecting.
    pub fn is_side_effecting(&self) -> bool {
        self.side_effecting == Some(true)
    }

    /// Overlay the fields `other` declares onto `self` (config overrides).
    pub fn overlay(&mut self, other: &ToolMetadata) {
        if other.side_effecting.is_some() {
            self.side_effecting = other.side_effecting;
        }
        if other.idempotent.is_some() {
            self.idempotent = other.idempotent;
        }
        if other.open_world.is_some() {
            self.open_world = other.open_world;
        }
        self.polling |= other.polling;
        self.paginated |= other.paginated;
        if !other.retryable_errors.is_empty() {
            self.retryable_errors = other.retryable_errors.clone();
        }
        if other.failure_when.is_some() {
            self.failure_when = other.failure_when.clone();
        }
        self.extra_keys_tolerated |= other.extra_keys_tolerated;
        if !other.requires.is_empty() {
            self.requires = other.requires.clone();
        }
    }
}

/// The condition of a `failure_when` predicate.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// The value is one of these.
    In(Vec<Value>),
    /// The value equals this.
    Equals(Value),
    /// The pointer resolves.
    Exists,
    /// The value's string form contains this.
    Contains(String),
    /// The value's string form matches this regex (linear-time engine, size-limited).
    Matches(#[serde(serialize_with = "ser_regex")] regex::Regex),
}

fn ser_regex<S: serde::Serializer>(r: &regex::Regex, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(r.as_str())
}

impl PartialEq for Condition {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::In(a), Self::In(b)) => a == b,
            (Self::Equals(a), Self::Equals(b)) => a == b,
            (Self::Exists, Self::Exists) => true,
            (Self::Contains(a), Self::Contains(b)) => a == b,
            (Self::Matches(a), Self::Matches(b)) => a.as_str() == b.as_str(),
            _ => false,
        }
    }
}

/// A declared failure predicate: a pointer into the result content plus a condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureWhen {
    /// RFC 6901 pointer (`""` = the whole result; a pointer without `/` is one top-level key).
    pub pointer: String,
    /// What the value must satisfy for the result to be a failure.
    pub condition: Condition,
    /// When the pointed-to field is absent: `true` reads that as a clean pass, `false` (the
    /// default) as "cannot tell".
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

/// The tri-state outcome of evaluating `failure_when` on a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureOutcome {
    /// The declared failure is present.
    Match,
    /// The field is present and is not a failure value.
    NoMatch,
    /// The field is absent, so the predicate cannot be evaluated.
    Unknown,
}

/// Size limit for a compiled `failure_when.matches` regex (bytes of compiled program).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl FailureWhen {
    /// Evaluate the predicate on a result's content. A string content holding JSON is read as
    /// the JSON it encodes.
    pub fn evaluate(&self, content: &Value) -> FailureOutcome {
        let parsed;
        let root = match content {
            Value::String(s) if self.pointer_is_nested() => {
                match serde_json::from_str::<Value>(s.trim()) {
                    Ok(v @ (Value::Object(_) | Value::Array(_))) => {
                        parsed = v;
                        &parsed
                    }
                    _ => content,
                }
            }
            _ => content,
        };
        let target = match self.resolve(root) {
            Some(v) => v,
            None => {
                return if matches!(self.condition, Condition::Exists) || self.optional {
                    FailureOutcome::NoMatch
                } else {
                    FailureOutcome::Unknown
                };
            }
        };
        let hit = match &self.condition {
            Condition::In(values) => values.iter().any(|v| loose_eq(v, target)),
            Condition::Equals(v) => loose_eq(v, target),
            Condition::Exists => true,
            Condition::Contains(needle) => string_form(target).contains(needle.as_str()),
            Condition::Matches(re) => re.is_match(&string_form(target)),
        };
        if hit {
            FailureOutcome::Match
        } else {
            FailureOutcome::NoMatch
        }
    }

    fn pointer_is_nested(&self) -> bool {
        !self.pointer.is_empty()
    }

    fn resolve<'v>(&self, root: &'v Value) -> Option<&'v Value> {
        if self.pointer.is_empty() {
            Some(root)
        } else if self.pointer.starts_with('/') {
            root.pointer(&self.pointer)
        } else {
            root.as_object()?.get(&self.pointer)
        }
    }
}

/// Equality that reads a number and its decimal string alike is *not* wanted: `"404"` and `404`
/// differ in a contract. Only exact JSON equality, except that integers and floats of the same
/// value are equal.
fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// The string form of a value: the string itself, or JSON text for anything else.
pub fn string_form(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::String(s) => s.as_str().into(),
        other => other.to_string().into(),
    }
}

/// What the registry knows about one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// Its input JSON Schema, when one is declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// Its output JSON Schema (MCP `outputSchema`, a tools file's `output_schema`): R10
    /// validates the tool's results against it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Other input schemas the same tool is also sent with (a mode or feature flag adds
    /// parameters): a call valid under any of them is valid.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternate_schemas: Vec<Value>,
    /// How it behaves.
    pub metadata: ToolMetadata,
    /// Where each top-level argument's value must come from.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub value_origins: BTreeMap<String, ValueOrigin>,
    /// Where this spec came from.
    pub source: SchemaSource,
    /// The coding agents whose built-in schema of this tool applies, chosen per session at
    /// check time (`builtin:claude-code`): a tools file that names no schema of its own but
    /// defers to the one matched to each session's version, as `tracelint init` writes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub builtin_of: Vec<String>,
}

impl ToolSpec {
    /// A spec with a name, an optional schema and nothing declared.
    pub fn new(name: impl Into<String>, schema: Option<Value>, source: SchemaSource) -> Self {
        let mut spec = Self {
            name: name.into(),
            schema,
            output_schema: None,
            alternate_schemas: Vec::new(),
            metadata: ToolMetadata::default(),
            value_origins: BTreeMap::new(),
            source,
            builtin_of: Vec::new(),
        };
        spec.absorb_schema_origins();
        spec
    }

    /// Read `x-value-origin` from the schema's top-level properties into `value_origins`
    /// (explicit entries already present win).
    pub fn absorb_schema_origins(&mut self) {
        let Some(props) = self
            .schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        else {
            return;
        };
        for (field, prop) in props {
            if let Some(origin) = prop
                .get("x-value-origin")
                .and_then(Value::as_str)
                .and_then(ValueOrigin::parse)
            {
                self.value_origins.entry(field.clone()).or_insert(origin);
            }
        }
    }

    /// Whether two specs say the same thing (the source may differ).
    pub fn same_contract(&self, other: &ToolSpec) -> bool {
        self.name == other.name
            && self.schema == other.schema
            && self.output_schema == other.output_schema
            && self.alternate_schemas == other.alternate_schemas
            && self.metadata == other.metadata
            && self.value_origins == other.value_origins
    }
}

/// The tools a run declares: the ground truth rules check against.
///
/// ```
/// let registry = tracelint::ToolRegistry::from_file("fixtures/quickstart/tools.json")?;
/// assert!(!registry.is_empty());
/// assert_eq!(registry.names().count(), registry.len());
/// # Ok::<(), tracelint::Error>(())
/// ```
#[derive(Debug, Clone, Default, Serialize)]
pub struct ToolRegistry {
    tools: BTreeMap<String, ToolSpec>,
    /// When true, a call to an undeclared tool is a hard defect (R7).
    pub(crate) closed: bool,
    /// The registry is an agent's built-in toolset (`builtin:claude-code`, …): it cannot know
    /// the MCP servers a user configured, so a call to an `mcp__…` tool is not checked against it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) builtin: bool,
    /// The sources merged into this registry, in order.
    pub(crate) sources: Vec<String>,
    /// Sources the run must not reach (R13), merged over every tools source.
    pub(crate) off_limits: Option<OffLimits>,
}

/// Two sources declared one tool differently.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{name}` is declared differently by {first} and {second}")]
pub struct DuplicateTool {
    /// The tool.
    pub name: String,
    /// The first source.
    pub first: String,
    /// The second source.
    pub second: String,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one spec. A later duplicate is an error unless it says the same thing.
    pub(crate) fn insert(&mut self, spec: ToolSpec) -> Result<(), DuplicateTool> {
        if let Some(existing) = self.tools.get(&spec.name) {
            if existing.same_contract(&spec) {
                return Ok(());
            }
            return Err(DuplicateTool {
                name: spec.name,
                first: existing.source.0.clone(),
                second: spec.source.0,
            });
        }
        self.tools.insert(spec.name.clone(), spec);
        Ok(())
    }

    /// Merge another registry into this one (sources in order; `closed` if either is).
    #[doc(hidden)] // For this crate's own tests and benchmarks: not part of the API.
    pub fn merge(&mut self, other: ToolRegistry) -> Result<(), DuplicateTool> {
        self.closed |= other.closed;
        self.builtin |= other.builtin;
        if let Some(theirs) = other.off_limits {
            self.add_off_limits(theirs);
        }
        for src in other.sources {
            if !self.sources.contains(&src) {
                self.sources.push(src);
            }
        }
        for (_, spec) in other.tools {
            self.insert(spec)?;
        }
        Ok(())
    }

    /// Add off-limits sources (a second declaration adds its sources; the first reason stays,
    /// a later one joins it when it differs).
    pub(crate) fn add_off_limits(&mut self, theirs: OffLimits) {
        let ours = self.off_limits.get_or_insert_with(OffLimits::default);
        for s in theirs.sources {
            if !ours.sources.contains(&s) {
                ours.sources.push(s);
            }
        }
        ours.reason = match (ours.reason.take(), theirs.reason) {
            (Some(a), Some(b)) if a != b => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
    }

    /// Add a spec, replacing any spec of the same name (an explicit source over a built-in one).
    pub(crate) fn replace(&mut self, spec: ToolSpec) {
        self.tools.insert(spec.name.clone(), spec);
    }

    /// The spec for `name`.
    #[doc(hidden)] // For this crate's own tests and benchmarks: not part of the API.
    pub fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.get(name)
    }

    /// A mutable spec for `name` (config overrides).
    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut ToolSpec> {
        self.tools.get_mut(name)
    }

    /// True when no tool is declared.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// All specs, sorted by name.
    #[doc(hidden)] // For this crate's own tests and benchmarks: not part of the API.
    pub fn iter(&self) -> impl Iterator<Item = &ToolSpec> {
        self.tools.values()
    }

    /// All names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fw(pointer: &str, condition: Condition) -> FailureWhen {
        FailureWhen {
            pointer: pointer.into(),
            condition,
            optional: false,
        }
    }

    #[test]
    fn failure_when_is_tri_state() {
        let p = fw(
            "/status",
            Condition::In(vec![json!("declined"), json!("failed")]),
        );
        assert_eq!(
            p.evaluate(&json!({"status": "declined"})),
            FailureOutcome::Match
        );
        assert_eq!(
            p.evaluate(&json!({"status": "ok"})),
            FailureOutcome::NoMatch
        );
        assert_eq!(p.evaluate(&json!({"other": 1})), FailureOutcome::Unknown);
        // A JSON string result is read as the JSON it encodes.
        assert_eq!(
            p.evaluate(&json!("{\"status\": \"failed\"}")),
            FailureOutcome::Match
        );
        let opt = FailureWhen {
            optional: true,
            ..p
        };
        assert_eq!(opt.evaluate(&json!({"other": 1})), FailureOutcome::NoMatch);
    }

    #[test]
    fn failure_when_conditions() {
        let exists = fw("error", Condition::Exists);
        assert_eq!(
            exists.evaluate(&json!({"error": "x"})),
            FailureOutcome::Match
        );
        assert_eq!(exists.evaluate(&json!({"ok": 1})), FailureOutcome::NoMatch);
        let contains = fw("", Condition::Contains("Error:".into()));
        assert_eq!(
            contains.evaluate(&json!("Error: boom")),
            FailureOutcome::Match
        );
        assert_eq!(contains.evaluate(&json!("fine")), FailureOutcome::NoMatch);
        let re = regex::Regex::new(r"^HTTP [45]\d\d").unwrap();
        let matches = fw("", Condition::Matches(re));
        assert_eq!(
            matches.evaluate(&json!("HTTP 503 busy")),
            FailureOutcome::Match
        );
        let eq = fw("/code", Condition::Equals(json!(500)));
        assert_eq!(eq.evaluate(&json!({"code": 500.0})), FailureOutcome::Match);
        assert_eq!(
            eq.evaluate(&json!({"code": "500"})),
            FailureOutcome::NoMatch
        );
        // Containers are tested by their JSON text.
        let c = fw("/detail", Condition::Contains("denied".into()));
        assert_eq!(
            c.evaluate(&json!({"detail": {"reason": "denied"}})),
            FailureOutcome::Match
        );
    }

    #[test]
    fn duplicate_tools_must_agree() {
        let mut r = ToolRegistry::new();
        let a = ToolSpec::new(
            "t",
            Some(json!({"type": "object"})),
            SchemaSource("a".into()),
        );
        let same = ToolSpec::new(
            "t",
            Some(json!({"type": "object"})),
            SchemaSource("b".into()),
        );
        let other = ToolSpec::new(
            "t",
            Some(json!({"type": "string"})),
            SchemaSource("c".into()),
        );
        r.insert(a).unwrap();
        r.insert(same).unwrap();
        let err = r.insert(other).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool `t` is declared differently by a and c"
        );
    }

    #[test]
    fn value_origins_from_schema() {
        let s = ToolSpec::new(
            "t",
            Some(
                json!({"properties": {"id": {"type": "string", "x-value-origin": "provided"},
                                        "key": {"x-value-origin": "generated"}}}),
            ),
            SchemaSource("x".into()),
        );
        assert_eq!(s.value_origins["id"], ValueOrigin::Provided);
        assert_eq!(s.value_origins["key"], ValueOrigin::Generated);
    }
}
