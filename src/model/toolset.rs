//! Tool definitions as `tracelint tools lint` sees them: one `ToolSet` per source (a tools file,
//! a live MCP server, a built-in capture, the schemas a trace embeds), each tool with its name,
//! description, input schema, metadata and where its JSON sits in the source (RFC 6901 pointers).
//! Plain data: sources fill it, the tool rules (T1…) read it; no I/O and no rule logic here.

use serde_json::Value;

use super::ToolMetadata;

/// What kind of source a tool set came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetKind {
    /// A tools file (any shape): pointers locate keys in its text.
    File,
    /// A live MCP server (`mcp-stdio:`, `mcp-http:`): pointers are into its `tools/list` result.
    Server,
    /// An agent's built-in schemas (`builtin:claude-code`, …), shipped without descriptions.
    Builtin,
    /// The schemas a trace file embeds (a logged request's `tools`), kept without descriptions.
    Trace,
    /// A tools file `tracelint init` or `tracelint infer` wrote from traces, to check them
    /// against: no model is sent it, and it keeps no descriptions.
    Starter,
}

/// The tools of one source.
#[derive(Debug, Clone)]
pub struct ToolSet {
    /// The source as the report names it (a path, `mcp-stdio:…`, `builtin:claude-code@2.1.53`).
    pub label: String,
    /// What kind of source.
    pub kind: SetKind,
    /// The tools, in the source's order (duplicates kept: a rule reports them).
    pub tools: Vec<ToolDef>,
    /// Notes for the report (which capture was used, how many pages were read).
    pub notes: Vec<String>,
}

impl ToolSet {
    /// Whether the source keeps the tools' descriptions (built-in captures and trace-embedded
    /// schemas do not: the description rules cannot judge them and say so).
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn has_descriptions(&self) -> bool {
        matches!(self.kind, SetKind::File | SetKind::Server)
    }
}

/// One tool definition.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// Its name.
    pub name: String,
    /// Pointer to the tool's entry (`/tools/3`); empty when the source has no document.
    pub pointer: String,
    /// Pointer to the object that holds `name`, `description` and the schema (`/tools/3/function`
    /// for an OpenAI tool, else `pointer`).
    pub body: String,
    /// The member holding the name: `name`, or none for seed 002's map (the key is the name).
    pub name_key: Option<&'static str>,
    /// The description as written (any JSON value; a non-string is reported), when present.
    pub description: Option<Value>,
    /// The input schema, when declared.
    pub schema: Option<Value>,
    /// The member holding the schema (`inputSchema`, `input_schema`, `parameters`, `schema`).
    pub schema_key: Option<&'static str>,
    /// Declared behaviour (side effects, …).
    pub metadata: ToolMetadata,
}

impl ToolDef {
    /// The pointer to the tool's schema, or to the tool when it has none.
    pub fn schema_pointer(&self) -> String {
        match self.schema_key {
            Some(k) => format!("{}/{}", self.body, k),
            None => self.pointer.clone(),
        }
    }

    /// The pointer to the tool's name (its entry for a map whose key is the name).
    pub fn name_pointer(&self) -> String {
        match self.name_key {
            Some(k) => format!("{}/{}", self.body, k),
            None => self.pointer.clone(),
        }
    }
}

/// `token` escaped for an RFC 6901 pointer (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}
