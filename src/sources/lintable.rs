//! Sources as `tracelint tools lint` reads them: every `--tools` form (a tools file of any shape,
//! `mcp-stdio:`, `mcp-http:`, `builtin:…`) and a trace file's embedded schemas, each read into a
//! `ToolSet` that keeps what the registry drops (descriptions, where each tool sits), plus the
//! `Locator` that turns a JSON Pointer into the line and column of the key it names. A source that
//! cannot be read is a `SourceError` whose name carries `file:line:col` where known.
//!
//! One cohesive reader: every source form ends in the same `ToolSet`, and the `Locator` is what
//! places that set's tools in their files.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{LoadOptions, SourceError, SourceSpec, builtin, file, http, keys, stdio};
use crate::model::toolset::{SetKind, ToolDef, ToolSet, escape_token};
use crate::model::{LineIndex, ToolRegistry};

/// A read source: its tools, and the file's text when it is a file (for locations).
#[derive(Debug)]
pub struct Read {
    /// The tools.
    pub set: ToolSet,
    /// The text whose pointers the tools carry (files only).
    pub text: Option<String>,
}

/// Read one source for linting. A file that is not a tools file but a trace embedding tool
/// schemas is read as those schemas.
pub fn read(spec: &SourceSpec, opts: &LoadOptions) -> Result<Read, SourceError> {
    match spec {
        SourceSpec::File(path) => read_file(path),
        SourceSpec::McpStdio(cmd) => {
            let shown = stdio::display_command(cmd);
            let name = format!("mcp-stdio:{shown}");
            let listed = stdio::list(cmd, opts);
            server_set(
                name,
                format!("mcp-stdio `{}`", super::mcp::one_line(&shown, 200)),
                listed,
            )
        }
        SourceSpec::McpHttp(url) => {
            let shown = http::display_url(url);
            let listed = http::list(url, opts);
            server_set(
                format!("mcp-http:{shown}"),
                format!("mcp-http `{shown}`"),
                listed,
            )
        }
        SourceSpec::Builtin(name) => {
            let (agent, version) = builtin::parse_builtin_spec(name)?;
            Ok(builtin_set(agent, version.as_deref()))
        }
        SourceSpec::ClaudeCode(v) => Ok(builtin_set(builtin::Agent::ClaudeCode, v.as_deref())),
        SourceSpec::Agent(agent, v) => Ok(builtin_set(*agent, v.as_deref())),
    }
}

/// An agent's built-in schemas at a version (the newest capture when `None`).
pub fn builtin_set(agent: builtin::Agent, version: Option<&str>) -> Read {
    let (registry, matched) = builtin::pinned(agent, version);
    let label = match &registry.sources.first() {
        Some(s) => (*s).clone(),
        None => agent.source().to_owned(),
    };
    let tools = registry
        .iter()
        // The registry lends a version the tools other versions sent; lint what it sent.
        .filter(|spec| !spec.source.0.contains("not sent by"))
        .map(|spec| ToolDef {
            name: spec.name.clone(),
            pointer: String::new(),
            body: String::new(),
            name_key: None,
            description: None,
            schema: spec.schema.clone(),
            schema_key: None,
            metadata: spec.metadata.clone(),
        })
        .collect();
    Read {
        set: ToolSet {
            label,
            kind: SetKind::Builtin,
            tools,
            notes: matched.note.into_iter().collect(),
        },
        text: None,
    }
}

fn server_set(
    label: String,
    source_name: String,
    listed: Result<(super::mcp::Listing, Vec<String>), String>,
) -> Result<Read, SourceError> {
    let (listing, notes) = listed.map_err(|message| SourceError::Server {
        source_name: source_name.clone(),
        message,
    })?;
    let doc = serde_json::json!({ "tools": listing.tools });
    // A server's tools are not the user's file: keys a newer protocol adds are not errors.
    let registry = file::parse_with(&doc, &label, file::Keys::Lenient)?;
    let tools = defs(&doc, &registry);
    Ok(Read {
        set: ToolSet {
            label,
            kind: SetKind::Server,
            tools,
            notes,
        },
        text: None,
    })
}

/// Read a tools file (or a trace file's embedded schemas).
pub fn read_file(path: &str) -> Result<Read, SourceError> {
    let unreadable = |reason: String| SourceError::Unreadable {
        path: path.to_owned(),
        reason,
    };
    let bytes = crate::inputs::read_limited(
        Path::new(path),
        super::MAX_TOOLS_FILE,
        crate::inputs::Pipes::Read,
    )
    .map_err(|e| unreadable(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| unreadable("not UTF-8 text".into()))?;
    if text.trim().is_empty() {
        return Err(unreadable(
            "it is empty (a tools file holds `{\"tools\": [...]}`)".into(),
        ));
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let as_tools = match serde_json::from_str::<Value>(body) {
        Ok(value) if pages(&value).is_some() => paged(&value, path),
        _ => file::parse_tools_str(&text, path).and_then(|registry| {
            let value: Value = serde_json::from_str(body).map_err(|e| SourceError::Invalid {
                source_name: format!("{path}:{}:{}", e.line(), e.column()),
                message: format!("invalid JSON: {e}"),
            })?;
            Ok(defs(&value, &registry))
        }),
    };
    let tools = match as_tools {
        Ok(tools) => tools,
        Err(e) => match embedded(text.as_bytes(), path) {
            Embedded::None => return Err(e),
            Embedded::Nothing(format) => {
                return Err(SourceError::Invalid {
                    source_name: path.to_owned(),
                    message: format!(
                        "a trace ({format}) that embeds no tool schemas: lint the tools it used instead (a tools file, `mcp-stdio:…`, `mcp-http:…` or `builtin:…`)"
                    ),
                });
            }
            Embedded::Tools(tools) => {
                return Ok(Read {
                    set: ToolSet {
                        label: path.to_owned(),
                        kind: SetKind::Trace,
                        tools,
                        notes: vec!["the tool schemas this trace embeds".to_owned()],
                    },
                    text: None,
                });
            }
        },
    };
    Ok(Read {
        set: ToolSet {
            label: path.to_owned(),
            kind: if written_by_init(body) {
                SetKind::Starter
            } else {
                SetKind::File
            },
            tools,
            notes: Vec::new(),
        },
        text: Some(body.to_owned()),
    })
}

/// Did `tracelint init` or `tracelint infer` write this tools file (its `_meta` says so)?
fn written_by_init(body: &str) -> bool {
    if !body.contains("\"_meta\"") {
        return false;
    }
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("_meta").cloned())
        .is_some_and(|m| {
            m.get("inferred_from").is_some_and(Value::is_array)
                || m.get("written_by").and_then(Value::as_str) == Some("tracelint init")
        })
}

/// `{"pages": [result, …]}`: several saved `tools/list` results in one file.
fn pages(value: &Value) -> Option<&Vec<Value>> {
    let top = value.as_object()?;
    let pages = top.get("pages")?.as_array()?;
    (top.len() == 1
        && pages
            .iter()
            .all(|p| p.get("tools").is_some_and(Value::is_array)))
    .then_some(pages)
}

fn paged(value: &Value, path: &str) -> Result<Vec<ToolDef>, SourceError> {
    let mut out = Vec::new();
    for (i, page) in pages(value).into_iter().flatten().enumerate() {
        let registry = file::parse_with(page, &format!("{path}: page {i}"), file::Keys::Strict)?;
        out.extend(defs(page, &registry).into_iter().map(|mut d| {
            d.pointer = format!("/pages/{i}{}", d.pointer);
            d.body = format!("/pages/{i}{}", d.body);
            d
        }));
    }
    Ok(out)
}

/// What a file that is not a tools file holds as a trace.
enum Embedded {
    /// Not a trace either.
    None,
    /// A trace (of this format) with no tool schemas.
    Nothing(&'static str),
    /// The schemas it embeds.
    Tools(Vec<ToolDef>),
}

/// The tool schemas a trace file embeds, once each, when it is a trace that embeds any.
fn embedded(bytes: &[u8], path: &str) -> Embedded {
    let (format, parsed) = crate::adapters::parse_bytes(bytes, path, None);
    if parsed.traces.is_empty() {
        return Embedded::None;
    }
    let mut out: Vec<ToolDef> = Vec::new();
    for t in parsed.traces.iter().flat_map(|t| &t.embedded_tools) {
        if out
            .iter()
            .any(|d| d.name == t.name && d.schema == t.schema && d.metadata == t.metadata)
        {
            continue;
        }
        out.push(ToolDef {
            name: t.name.clone(),
            pointer: String::new(),
            body: String::new(),
            name_key: None,
            description: None,
            schema: t.schema.clone(),
            schema_key: None,
            metadata: t.metadata.clone(),
        });
    }
    if out.is_empty() {
        return match format {
            Some(f) if parsed.traces.iter().any(|t| t.call_count() > 0) => {
                Embedded::Nothing(f.name())
            }
            _ => Embedded::None,
        };
    }
    Embedded::Tools(out)
}

type Item<'a> = (String, &'a Value, Option<&'a str>);

fn indexed<'a>(prefix: &str, list: &'a [Value], out: &mut Vec<Item<'a>>) {
    for (i, v) in list.iter().enumerate() {
        out.push((format!("{prefix}/{i}"), v, None));
    }
}

/// The tool entries of a parsed tools document, in order, with their pointers, in the shapes
/// `file::parse_tools_str` accepts (so the registry it built has every name found here).
fn defs(value: &Value, registry: &ToolRegistry) -> Vec<ToolDef> {
    let mut items: Vec<Item<'_>> = Vec::new();
    match value {
        Value::Array(list) => indexed("", list, &mut items),
        Value::Object(top) => {
            let (tools, at) = match top.get("result").and_then(|r| r.get("tools")) {
                Some(t) => (Some(t), "/result/tools"),
                None => (top.get("tools"), "/tools"),
            };
            match tools {
                Some(Value::Array(list)) => indexed(at, list, &mut items),
                Some(Value::Object(map)) => {
                    for (name, v) in map {
                        items.push((
                            format!("{at}/{}", escape_token(name)),
                            v,
                            Some(name.as_str()),
                        ));
                    }
                }
                _ => {
                    for (k, v) in top {
                        if let (false, Value::Array(list)) =
                            (matches!(k.as_str(), "closed" | "off_limits"), v)
                        {
                            indexed(&format!("/{}", escape_token(k)), list, &mut items);
                        }
                    }
                }
            }
        }
        _ => {}
    }
    let mut out = Vec::new();
    for (pointer, item, map_name) in items {
        let Value::Object(obj) = item else { continue };
        // A provider's own tool (`{"type": "web_search_20250305"}`) has no schema to lint.
        if obj
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !matches!(t, "function" | "custom"))
        {
            continue;
        }
        let (body, body_ptr) = match obj.get("function") {
            Some(Value::Object(f)) => (f, format!("{pointer}/function")),
            _ => (obj, pointer.clone()),
        };
        let (name, name_key) = match (body.get("name").and_then(Value::as_str), map_name) {
            (Some(n), _) => (n.to_owned(), Some("name")),
            (None, Some(n)) => (n.to_owned(), None),
            (None, None) => continue,
        };
        let schema_key = ["inputSchema", "input_schema", "parameters", "schema"]
            .into_iter()
            .find(|k| body.get(*k).is_some_and(|v| !v.is_null()));
        let description = body
            .get("description")
            .or_else(|| obj.get("description"))
            .cloned();
        let metadata = registry
            .get(&name)
            .map(|s| s.metadata.clone())
            .unwrap_or_default();
        out.push(ToolDef {
            schema: schema_key.and_then(|k| body.get(k)).cloned(),
            name,
            pointer,
            body: body_ptr,
            name_key,
            description,
            schema_key,
            metadata,
        });
    }
    out
}

/// Turns JSON Pointers into the 1-based line and column of the key (or element) they name in
/// one document, parsing each container on the way once, however many pointers pass through it.
pub struct Locator<'t> {
    text: &'t str,
    index: LineIndex,
    root: Option<&'t RawValue>,
    containers: HashMap<String, Container<'t>>,
}

enum Container<'t> {
    Object(HashMap<String, &'t RawValue>),
    Array(Vec<&'t RawValue>),
    Scalar,
}

impl<'t> Locator<'t> {
    /// A locator over `text` (a JSON document).
    pub fn new(text: &'t str) -> Self {
        Self {
            text,
            index: LineIndex::new(text),
            root: serde_json::from_str(text).ok(),
            containers: HashMap::new(),
        }
    }

    /// The line and column of what `pointer` names (an object member: its key), or of the
    /// deepest part of it that exists; `None` when the text is not JSON.
    pub fn locate(&mut self, pointer: &str) -> Option<(u32, u32)> {
        let mut raw = self.root?;
        let mut at = offset(self.text, raw);
        let mut prefix = String::new();
        for token in pointer.split('/').skip(1) {
            let key = token.replace("~1", "/").replace("~0", "~");
            let container = self
                .containers
                .entry(prefix.clone())
                .or_insert_with(|| parse_container(raw));
            let next = match container {
                Container::Object(members) => members.get(&key).map(|v| {
                    let value_at = offset(self.text, v);
                    (*v, keys::key_start(self.text, value_at).unwrap_or(value_at))
                }),
                Container::Array(items) => key
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .map(|v| (*v, offset(self.text, v))),
                Container::Scalar => None,
            };
            let Some((v, place)) = next else { break };
            raw = v;
            at = place;
            prefix.push('/');
            prefix.push_str(token);
        }
        Some(self.index.line_col(self.text, at))
    }
}

fn parse_container(raw: &RawValue) -> Container<'_> {
    let s = raw.get().trim_start();
    if s.starts_with('{') {
        serde_json::from_str(raw.get()).map_or(Container::Scalar, Container::Object)
    } else if s.starts_with('[') {
        serde_json::from_str(raw.get()).map_or(Container::Scalar, Container::Array)
    } else {
        Container::Scalar
    }
}

fn offset(text: &str, raw: &RawValue) -> usize {
    (raw.get().as_ptr() as usize)
        .saturating_sub(text.as_ptr() as usize)
        .min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locator_finds_keys_elements_and_the_deepest_existing_part() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"a\"},\n    {\"name\": \"b\",\n     \"in/put\": {\"x\": 1}}\n  ]\n}";
        let mut l = Locator::new(text);
        assert_eq!(l.locate("/tools/1/in~1put"), Some((5, 6)));
        assert_eq!(l.locate("/tools/1/in~1put/x"), Some((5, 17)));
        assert_eq!(l.locate("/tools/1"), Some((4, 5)));
        assert_eq!(l.locate("/tools/7"), Some((2, 3)));
        assert_eq!(l.locate(""), Some((1, 1)));
    }

    #[test]
    fn every_shape_gives_its_tools_with_pointers() {
        let v: Value = serde_json::json!([
            {"type": "function", "function": {"name": "a", "description": "d", "parameters": {}}},
            {"type": "web_search_20250305", "name": "web_search"}
        ]);
        let d = defs(&v, &ToolRegistry::new());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].body, "/0/function");
        assert_eq!(d[0].schema_pointer(), "/0/function/parameters");
        let v: Value = serde_json::json!({"tools": {"x/y": {"schema": {}}}});
        let d = defs(&v, &ToolRegistry::new());
        assert_eq!(d[0].pointer, "/tools/x~1y");
        assert_eq!(d[0].name_pointer(), "/tools/x~1y");
    }
}
