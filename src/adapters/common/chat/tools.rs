//! Tool definitions a request offered the model, in every list shape, and their registry
//! entries (schemas the trace carries itself).

use serde_json::Value;

use crate::model::{SchemaSource, ToolSpec};

use super::decode_json_string;

/// A tool a request offered the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The tool's name.
    pub name: String,
    /// Its parameters' JSON Schema, when given.
    pub schema: Option<Value>,
}

impl ToolDef {
    /// The registry entry for a schema the trace carries.
    pub fn to_spec(&self) -> ToolSpec {
        ToolSpec::new(
            self.name.clone(),
            self.schema.clone(),
            SchemaSource(EMBEDDED.to_owned()),
        )
    }
}

/// The schema source of every tool a trace declares itself.
pub const EMBEDDED: &str = "embedded in the trace";

/// Tool definitions in any list shape (OpenAI, flat, Anthropic, Gemini `function_declarations`,
/// JSON strings of these, or a map of name → definition).
pub fn tool_defs(v: &Value) -> Vec<ToolDef> {
    let mut out = Vec::new();
    collect_defs(v, None, 0, &mut out);
    out
}

fn collect_defs(v: &Value, key_name: Option<&str>, depth: usize, out: &mut Vec<ToolDef>) {
    if depth > 4 {
        return;
    }
    match v {
        Value::String(s) => {
            if let Some(inner) = decode_json_string(s) {
                collect_defs(&inner, key_name, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for i in items {
                collect_defs(i, None, depth + 1, out);
            }
        }
        Value::Object(o) => {
            if let Some(decls) = o
                .get("function_declarations")
                .or_else(|| o.get("functionDeclarations"))
            {
                return collect_defs(decls, None, depth + 1, out);
            }
            let f = o.get("function").filter(|f| f.is_object()).unwrap_or(v);
            let name = f.get("name").and_then(Value::as_str).or(key_name);
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                if key_name.is_none() && depth == 0 {
                    // A map of name → definition.
                    for (k, def) in o {
                        if def.is_object() {
                            collect_defs(def, Some(k), depth + 1, out);
                        }
                    }
                }
                return;
            };
            let schema = [
                "parameters",
                "input_schema",
                "inputSchema",
                "parameters_json_schema",
                "json_schema",
            ]
            .iter()
            .find_map(|k| f.get(*k))
            .and_then(|s| match s {
                Value::String(text) => decode_json_string(text),
                other => Some(other.clone()),
            })
            .filter(Value::is_object);
            out.push(ToolDef {
                name: name.to_owned(),
                schema,
            });
        }
        _ => {}
    }
}
