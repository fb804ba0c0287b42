//! Field origins of an agent's built-in tools (R3's "where does this value come from"), shipped
//! beside the built-in schemas as a table of our own: per tool, the fields whose value the
//! agent writes (`generated`), picks from what the tool definition offers (`choice`), or
//! creates as a new path (`created`); a field not listed is derived and judged. One table per
//! agent applies to every version of its bundle, and explicit origins (a tools file's
//! `x-value-origin`) win over it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::model::{ToolSpec, ValueOrigin};

/// Claude Code's table (`data/claude-code-tools/origins.json`).
const CLAUDE_CODE: &str = include_str!("../../data/claude-code-tools/origins.json");
/// Codex CLI's table (`data/codex-tools/origins.json`).
const CODEX: &str = include_str!("../../data/codex-tools/origins.json");
/// Gemini CLI's table (`data/gemini-cli-tools/origins.json`).
const GEMINI_CLI: &str = include_str!("../../data/gemini-cli-tools/origins.json");

/// One agent's table: tool → field → origin, and the tools whose result is a sub-agent's report.
#[derive(Debug)]
pub struct Origins {
    tools: BTreeMap<String, BTreeMap<String, ValueOrigin>>,
    reports: std::collections::BTreeSet<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(rename = "_meta", default)]
    _meta: Option<serde_json::Value>,
    tools: BTreeMap<String, BTreeMap<String, String>>,
    /// Tools whose result is another agent's written report (`ToolMetadata::result_is_report`).
    #[serde(default)]
    reports: Vec<String>,
}

impl Origins {
    /// Parse a table. The embedded tables are checked by tests, so a bad one is a bug.
    pub fn parse(text: &str) -> Result<Self, String> {
        let raw: Raw = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let mut tools = BTreeMap::new();
        for (tool, fields) in raw.tools {
            let mut by_field = BTreeMap::new();
            for (field, origin) in fields {
                let o = ValueOrigin::parse(&origin)
                    .filter(|o| *o != ValueOrigin::Provided)
                    .ok_or_else(|| format!("`{tool}.{field}`: unknown origin `{origin}`"))?;
                by_field.insert(field, o);
            }
            tools.insert(tool, by_field);
        }
        Ok(Self {
            tools,
            reports: raw.reports.into_iter().collect(),
        })
    }

    /// Every built-in table, with the built-in source it belongs to.
    pub fn builtin() -> Vec<(&'static str, &'static Origins)> {
        vec![
            (super::builtin::CLAUDE_CODE, Origins::claude_code()),
            (super::builtin::codex::CODEX, Origins::codex()),
            (super::builtin::gemini::GEMINI_CLI, Origins::gemini_cli()),
        ]
    }

    /// Claude Code's table, parsed once.
    pub fn claude_code() -> &'static Origins {
        static TABLE: OnceLock<Origins> = OnceLock::new();
        TABLE.get_or_init(|| embedded(CLAUDE_CODE))
    }

    /// Codex CLI's table, parsed once.
    pub fn codex() -> &'static Origins {
        static TABLE: OnceLock<Origins> = OnceLock::new();
        TABLE.get_or_init(|| embedded(CODEX))
    }

    /// Gemini CLI's table, parsed once.
    pub fn gemini_cli() -> &'static Origins {
        static TABLE: OnceLock<Origins> = OnceLock::new();
        TABLE.get_or_init(|| embedded(GEMINI_CLI))
    }

    /// Mark a spec's fields from the table (origins the spec already declares win).
    pub fn apply(&self, spec: &mut ToolSpec) {
        if self.reports.contains(&spec.name) {
            spec.metadata.result_is_report = true;
        }
        let Some(fields) = self.tools.get(&spec.name) else {
            return;
        };
        for (field, origin) in fields {
            spec.value_origins.entry(field.clone()).or_insert(*origin);
        }
    }

    /// One line per tool: its fields by origin (`Bash: generated command, description, timeout`).
    pub fn describe(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|(tool, fields)| {
                let mut parts = Vec::new();
                for (origin, word) in [
                    (ValueOrigin::Generated, "generated"),
                    (ValueOrigin::Choice, "choice"),
                    (ValueOrigin::Created, "created"),
                ] {
                    let names: Vec<&str> = fields
                        .iter()
                        .filter(|(_, o)| **o == origin)
                        .map(|(f, _)| f.as_str())
                        .collect();
                    if !names.is_empty() {
                        parts.push(format!("{word} {}", names.join(", ")));
                    }
                }
                format!("{tool}: {}", parts.join("; "))
            })
            .collect()
    }

    /// Every (tool, field, origin) of the table, sorted.
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str, ValueOrigin)> {
        self.tools.iter().flat_map(|(t, fields)| {
            fields
                .iter()
                .map(move |(f, o)| (t.as_str(), f.as_str(), *o))
        })
    }
}

/// An embedded table: checked by tests, so a bad one is a bug.
fn embedded(text: &str) -> Origins {
    Origins::parse(text).expect("the embedded origins table is valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::builtin::ClaudeCodeTools;

    #[test]
    fn every_entry_names_a_field_some_version_sent() {
        let tools = ClaudeCodeTools::get();
        let (idx, _) = tools.choose(None);
        // The newest registry holds every tool any version sent (older ones fall back), but
        // a field may exist only in an older schema: look at every capture's schema.
        let fields = tools.fields_by_tool();
        let _ = idx;
        for tool in &Origins::claude_code().reports {
            assert!(
                fields.contains_key(tool.as_str()),
                "report tool `{tool}` was never sent"
            );
        }
        for (tool, field, _) in Origins::claude_code().entries() {
            assert!(
                fields.get(tool).is_some_and(|f| f.contains(field)),
                "`{tool}.{field}` is in the origins table but no Claude Code version sent it"
            );
        }
    }

    /// Issue 24: the Codex CLI and Gemini CLI tables name only fields a captured release sent,
    /// and reach every registry built from their bundles.
    #[test]
    fn agent_tables_name_captured_fields_and_apply() {
        use crate::model::ValueOrigin;
        use crate::sources::builtin::codex::CodexTools;
        use crate::sources::builtin::gemini::GeminiTools;
        let tables = [
            (
                "codex",
                Origins::codex(),
                CodexTools::get().fields_by_tool(),
            ),
            (
                "gemini-cli",
                Origins::gemini_cli(),
                GeminiTools::get().fields_by_tool(),
            ),
        ];
        for (agent, table, fields) in &tables {
            assert!(table.entries().count() > 20, "{agent}: a thin table");
            for tool in &table.reports {
                assert!(fields.contains_key(tool.as_str()), "{agent}: `{tool}`");
            }
            for (tool, field, _) in table.entries() {
                assert!(
                    fields.get(tool).is_some_and(|f| f.contains(field)),
                    "{agent}: `{tool}.{field}` is in the origins table but no capture sent it"
                );
            }
        }
        let (choice, _) = CodexTools::get().choose(Some("0.171.0"), Some("gpt-5.5"));
        let codex = CodexTools::get().registry(&choice);
        let exec = codex
            .get("exec_command")
            .expect("0.171.0 sends exec_command");
        assert_eq!(exec.value_origins.get("cmd"), Some(&ValueOrigin::Generated));
        assert_eq!(exec.value_origins.get("workdir"), None);
        let (idx, _) = GeminiTools::get().pinned(Some("0.61.0"));
        let gemini = GeminiTools::get().registry(idx);
        let write = gemini.get("write_file").expect("0.61.0 sends write_file");
        assert_eq!(
            write.value_origins.get("file_path"),
            Some(&ValueOrigin::Created)
        );
        assert!(
            gemini
                .get("invoke_agent")
                .unwrap()
                .metadata
                .result_is_report
        );
        assert!(!gemini.get("read_file").unwrap().metadata.result_is_report);
    }

    #[test]
    fn a_bad_table_is_refused() {
        let err = Origins::parse(r#"{"tools": {"Bash": {"command": "genrated"}}}"#).unwrap_err();
        assert!(err.contains("unknown origin `genrated`"), "{err}");
        // `provided` would turn a candidate into a hard defect: never from a built-in table.
        assert!(Origins::parse(r#"{"tools": {"Bash": {"command": "provided"}}}"#).is_err());
    }
}
