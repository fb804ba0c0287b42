//! Built-in schema sources: `builtin:claude-code[@VERSION]` — the input schemas every published
//! Claude Code version sent, embedded from `data/claude-code-tools/bundle.json` (473 versions
//! deduplicated into 158 schemas, descriptions stripped; flag-gated tools from a configuration
//! that reads the remote feature flags). A session is matched to the nearest
//! captured version not newer than its own; a tool a version did not send (feature-flagged away,
//! renamed later) falls back to the nearest older version that has it, then the nearest newer.
//! `builtin:codex` and `builtin:gemini-cli` (`codex.rs`, `gemini.rs`) are the same for Codex
//! CLI and Gemini CLI; `Agent` names the three.
//!
//! One cohesive source: the embedded bundle, version matching and the per-tool fallback all work on
//! the same decoded bundle.

mod captures;
pub mod codex;
pub mod gemini;
mod names;
mod version;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::{SchemaSource, ToolRegistry, ToolSpec};

use super::SourceError;
pub use names::CLAUDE_CODE;
pub use version::{Matched, Version, parse_version, show};

/// The embedded bundle.
static BUNDLE: &str = include_str!("../../../data/claude-code-tools/bundle.json");

/// Tools whose runtime drops unknown keys instead of rejecting the call (measured by running
/// Claude Code itself; see the bundle's README).
const EXTRA_KEYS_TOLERATED: &[&str] = &[
    "Task",
    "Agent",
    "TaskOutput",
    "Skill",
    "SlashCommand",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
];

/// The bundle as read: each version and schema left as its JSON text (borrowed from
/// `BUNDLE`), decoded one at a time.
#[derive(Deserialize)]
struct RawBundle<'a> {
    #[serde(borrow)]
    versions: BTreeMap<&'a str, &'a RawValue>,
    #[serde(borrow)]
    schemas: BTreeMap<&'a str, &'a RawValue>,
}

#[derive(Deserialize)]
struct RawVersion<'a> {
    #[serde(borrow)]
    tools: BTreeMap<&'a str, &'a str>,
    #[serde(default, borrow)]
    alternates: BTreeMap<&'a str, Vec<&'a str>>,
}

/// One capture: tool → schema, by index into `ClaudeCodeTools::names` and `schemas`, sorted by
/// tool (a few bytes a tool: 473 captures of 30-odd tools stay small).
struct Capture {
    tools: Vec<(u16, u16)>,
    alternates: Vec<(u16, Vec<u16>)>,
}

impl Capture {
    fn schema_of(&self, name: u16) -> Option<u16> {
        self.tools
            .binary_search_by_key(&name, |(n, _)| *n)
            .ok()
            .map(|i| self.tools[i].1)
    }
}

/// The embedded captures, parsed once. Tool names and schema texts stay in the embedded
/// bundle (`&'static`); a schema is decoded when a registry uses it.
pub struct ClaudeCodeTools {
    /// Versions in ascending order, each with its tools and alternates.
    versions: Vec<(Version, Capture)>,
    /// Every tool name any version sent, sorted.
    names: Vec<&'static str>,
    /// Schemas by hash, sorted by hash.
    schemas: Vec<(&'static str, &'static RawValue)>,
}

impl std::fmt::Debug for ClaudeCodeTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaudeCodeTools")
            .field("versions", &self.versions.len())
            .field("schemas", &self.schemas.len())
            .finish()
    }
}

impl ClaudeCodeTools {
    /// The embedded captures.
    pub fn get() -> &'static ClaudeCodeTools {
        static TOOLS: OnceLock<ClaudeCodeTools> = OnceLock::new();
        TOOLS.get_or_init(|| {
            let raw: RawBundle<'static> =
                serde_json::from_str(BUNDLE).expect("the embedded bundle is valid JSON");
            let schemas: Vec<(&'static str, &'static RawValue)> = raw.schemas.into_iter().collect();
            let schema_index = |h: &str| {
                schemas
                    .binary_search_by_key(&h, |(k, _)| *k)
                    .map(|i| i as u16)
                    .ok()
            };
            let mut parsed: Vec<(Version, RawVersion<'static>)> = raw
                .versions
                .into_iter()
                .filter_map(|(v, data)| {
                    let data: RawVersion<'static> = serde_json::from_str(data.get())
                        .expect("the embedded bundle's versions are valid");
                    parse_version(v).map(|p| (p, data))
                })
                .collect();
            parsed.sort_by_key(|(v, _)| *v);
            let mut names: Vec<&'static str> = parsed
                .iter()
                .flat_map(|(_, d)| d.tools.keys().copied())
                .collect();
            names.sort_unstable();
            names.dedup();
            let name_index = |n: &str| names.binary_search(&n).map(|i| i as u16).ok();
            let versions = parsed
                .into_iter()
                .map(|(v, d)| {
                    let tools = d
                        .tools
                        .iter()
                        .filter_map(|(n, h)| Some((name_index(n)?, schema_index(h)?)))
                        .collect();
                    let alternates = d
                        .alternates
                        .iter()
                        .filter_map(|(n, hs)| {
                            Some((name_index(n)?, hs.iter().filter_map(|h| schema_index(h)).collect()))
                        })
                        .collect();
                    (v, Capture { tools, alternates })
                })
                .collect();
            ClaudeCodeTools {
                versions,
                names,
                schemas,
            }
        })
    }

    /// The schema at `index`, decoded.
    fn schema(&self, index: u16) -> Option<Value> {
        let (_, raw) = self.schemas.get(usize::from(index))?;
        serde_json::from_str(raw.get()).ok()
    }

    /// Every captured version, ascending.
    pub fn versions(&self) -> impl Iterator<Item = String> + '_ {
        self.versions.iter().map(|(v, _)| show(*v))
    }

    /// Every tool name any version sent, sorted.
    pub fn tool_names(&self) -> Vec<&str> {
        self.names.clone()
    }

    /// Every top-level field each tool has in some capture's schema (or alternate).
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn fields_by_tool(&self) -> BTreeMap<&str, std::collections::BTreeSet<String>> {
        let mut out: BTreeMap<&str, std::collections::BTreeSet<String>> = BTreeMap::new();
        let decoded: Vec<Option<Value>> = (0..self.schemas.len())
            .map(|i| self.schema(i as u16))
            .collect();
        for (_, v) in &self.versions {
            let pairs = v.tools.iter().copied().chain(
                v.alternates
                    .iter()
                    .flat_map(|(t, hs)| hs.iter().map(move |h| (*t, *h))),
            );
            for (tool, hash) in pairs {
                let entry = out.entry(self.names[usize::from(tool)]).or_default();
                let props = decoded[usize::from(hash)]
                    .as_ref()
                    .and_then(|s| s.get("properties"))
                    .and_then(Value::as_object);
                for field in props.into_iter().flat_map(|p| p.keys()) {
                    entry.insert(field.clone());
                }
            }
        }
        out
    }

    /// Number of distinct schemas.
    pub fn schema_count(&self) -> usize {
        self.schemas.len()
    }

    /// The capture to use for a session that says it ran `version` (`None`: not recorded).
    pub fn choose(&self, version: Option<&str>) -> (usize, Matched) {
        let last = self.versions.len() - 1;
        let newest = show(self.versions[last].0);
        let Some(wanted) = version.and_then(parse_version) else {
            let note = match version {
                Some(v) => format!(
                    "the session's Claude Code version `{v}` is not a version number; using the newest capture {newest}"
                ),
                None => format!(
                    "the session records no Claude Code version; using the newest capture {newest}"
                ),
            };
            return (
                last,
                Matched {
                    version: newest,
                    note: Some(note),
                    exact: false,
                    newer: false,
                },
            );
        };
        let at = self.versions.partition_point(|(v, _)| *v <= wanted);
        if at == 0 {
            let oldest = show(self.versions[0].0);
            let note = format!(
                "Claude Code {} is older than every capture; using the oldest capture {oldest}",
                show(wanted)
            );
            return (
                0,
                Matched {
                    version: oldest,
                    note: Some(note),
                    exact: false,
                    newer: false,
                },
            );
        }
        let idx = at - 1;
        let got = self.versions[idx].0;
        let note = if got == wanted {
            None
        } else if idx == last {
            Some(format!(
                "Claude Code {} is newer than every capture; using the newest capture {newest} (a newer tracelint ships newer schemas)",
                show(wanted)
            ))
        } else {
            Some(format!(
                "Claude Code {} was not captured; using the nearest older capture {}",
                show(wanted),
                show(got)
            ))
        };
        (
            idx,
            Matched {
                version: show(got),
                note,
                exact: got == wanted,
                newer: idx == last && got != wanted,
            },
        )
    }

    /// The registry for the capture at index `idx`: its own tools, plus every tool another
    /// version sent, each from the nearest older capture that has it (else the nearest newer).
    pub fn registry(&self, idx: usize) -> ToolRegistry {
        let version = show(self.versions[idx].0);
        let mut registry = ToolRegistry::new();
        registry.builtin = true;
        registry.sources.push(format!("{CLAUDE_CODE}@{version}"));
        for (n, name) in self.names.iter().enumerate() {
            let n = n as u16;
            let older = (0..=idx).rev();
            let newer = idx + 1..self.versions.len();
            let Some((at, hash)) = older
                .chain(newer)
                .find_map(|i| self.versions[i].1.schema_of(n).map(|h| (i, h)))
            else {
                continue;
            };
            let from = show(self.versions[at].0);
            let source = if at == idx {
                format!("{CLAUDE_CODE}@{version}")
            } else {
                format!("{CLAUDE_CODE}@{from} (`{name}` not sent by {version})")
            };
            let mut spec = ToolSpec::new(*name, self.schema(hash), SchemaSource(source));
            spec.alternate_schemas = self.versions[at]
                .1
                .alternates
                .iter()
                .find(|(t, _)| *t == n)
                .into_iter()
                .flat_map(|(_, hs)| hs.iter().filter_map(|h| self.schema(*h)))
                .collect();
            spec.metadata.extra_keys_tolerated = EXTRA_KEYS_TOLERATED.contains(name);
            super::origins::Origins::claude_code().apply(&mut spec);
            // Cannot collide: names are unique.
            let _ = registry.insert(spec);
        }
        registry
    }
}

/// The coding agents whose own tool schemas are built in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    /// Claude Code (`builtin:claude-code`).
    ClaudeCode,
    /// Codex CLI (`builtin:codex`).
    Codex,
    /// Gemini CLI (`builtin:gemini-cli`).
    GeminiCli,
}

impl Agent {
    /// Every built-in agent.
    pub const ALL: &'static [Agent] = &[Agent::ClaudeCode, Agent::Codex, Agent::GeminiCli];

    /// The source name (`builtin:codex`).
    pub fn source(self) -> &'static str {
        match self {
            Agent::ClaudeCode => CLAUDE_CODE,
            Agent::Codex => codex::CODEX,
            Agent::GeminiCli => gemini::GEMINI_CLI,
        }
    }

    /// The agent a trace's `agent` attribute names, if its schemas are built in.
    pub fn of(attribute: Option<&str>) -> Option<Agent> {
        match attribute? {
            crate::model::AGENT_CLAUDE_CODE => Some(Agent::ClaudeCode),
            crate::model::AGENT_CODEX => Some(Agent::Codex),
            crate::model::AGENT_GEMINI_CLI => Some(Agent::GeminiCli),
            _ => None,
        }
    }

    /// Could a tool of this name be one of the agent's built-ins in some capture? Its bundle
    /// holds every captured tool's name as a JSON string: a test that reads no schema, so a
    /// trace whose tools are nobody's built-ins does not pay for parsing the bundles.
    pub fn may_name(self, name: &str) -> bool {
        let bundle = match self {
            Agent::ClaudeCode => BUNDLE,
            Agent::Codex => codex::BUNDLE,
            Agent::GeminiCli => gemini::BUNDLE,
        };
        serde_json::to_string(name).is_ok_and(|quoted| bundle.contains(&quoted))
    }

    /// The agent's name in reports.
    pub fn display(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::GeminiCli => "Gemini CLI",
        }
    }
}

/// Parse any `builtin:AGENT[@VERSION]` name: the agent, and the pinned version (`None`: follow
/// each session's).
pub fn parse_builtin_spec(spec: &str) -> Result<(Agent, Option<String>), SourceError> {
    let names: Vec<&str> = Agent::ALL.iter().map(|a| a.source()).collect();
    let Some(agent) = Agent::ALL.iter().copied().find(|a| {
        spec.strip_prefix(a.source())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('@'))
    }) else {
        return Err(SourceError::Unsupported(format!(
            "unknown built-in source `{spec}`: the built-in sources are {}, each with an optional `@VERSION`",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    match &spec[agent.source().len()..] {
        "" => Ok((agent, None)),
        v if parse_version(&v[1..]).is_some() => Ok((agent, Some(v[1..].to_owned()))),
        _ => Err(SourceError::Unsupported(format!(
            "`{spec}`: pin a version as `{}@1.2.3`",
            agent.source()
        ))),
    }
}

/// The registry `builtin:AGENT@VERSION` names (`None`: the newest capture), and how it was
/// matched.
pub fn pinned(agent: Agent, version: Option<&str>) -> (ToolRegistry, Matched) {
    match agent {
        Agent::ClaudeCode => {
            let t = ClaudeCodeTools::get();
            let (idx, m) = t.choose(version);
            (t.registry(idx), m)
        }
        Agent::Codex => {
            let t = codex::CodexTools::get();
            let (choice, m) = t.pinned(version);
            (t.registry(&choice), m)
        }
        Agent::GeminiCli => {
            let t = gemini::GeminiTools::get();
            let (idx, m) = t.pinned(version);
            (t.registry(idx), m)
        }
    }
}

/// Parse `builtin:…` source names. `Ok(None)` = follow each session's version.
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn parse_builtin(spec: &str) -> Result<Option<String>, SourceError> {
    let rest = spec.strip_prefix(CLAUDE_CODE).ok_or_else(|| {
        SourceError::Unsupported(format!(
            "unknown built-in source `{spec}`: the built-in sources are `{CLAUDE_CODE}` and `{CLAUDE_CODE}@VERSION`"
        ))
    })?;
    match rest {
        "" => Ok(None),
        v if v.starts_with('@') && parse_version(&v[1..]).is_some() => Ok(Some(v[1..].to_owned())),
        _ => Err(SourceError::Unsupported(format!(
            "`{spec}`: pin a version as `{CLAUDE_CODE}@2.1.53`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_loads_every_version() {
        let t = ClaudeCodeTools::get();
        assert_eq!(t.versions.len(), 473);
        // Every distinct schema the capture script counted is loaded once.
        let meta: serde_json::Value = serde_json::from_str(BUNDLE).unwrap();
        assert_eq!(
            Some(t.schema_count() as u64),
            meta["_meta"]["distinct_schemas"].as_u64()
        );
        let names = t.tool_names();
        assert!(names.contains(&"Bash") && names.contains(&"Agent") && names.contains(&"View"));
    }

    /// `may_name` is a necessary condition: every tool name of every capture passes it, and a
    /// name no agent ships does not.
    #[test]
    fn every_captured_name_may_be_named_and_others_are_not() {
        for name in ClaudeCodeTools::get().tool_names() {
            assert!(Agent::ClaudeCode.may_name(name), "{name}");
        }
        for (agent, names) in [
            (Agent::Codex, codex::CodexTools::get().tool_names()),
            (Agent::GeminiCli, gemini::GeminiTools::get().tool_names()),
        ] {
            assert!(!names.is_empty());
            for name in names {
                assert!(agent.may_name(name), "{agent:?} {name}");
            }
        }
        for agent in Agent::ALL {
            assert!(!agent.may_name("zq_lookup_customer_order"), "{agent:?}");
        }
    }

    #[test]
    fn version_matching() {
        let t = ClaudeCodeTools::get();
        assert_eq!(
            t.choose(Some("2.1.53")).1,
            Matched {
                version: "2.1.53".into(),
                note: None,
                exact: true,
                newer: false,
            }
        );
        let (_, newer) = t.choose(Some("9.0.0"));
        assert_eq!(newer.version, "2.1.332");
        assert!(newer.newer && !newer.exact);
        assert!(newer.note.unwrap().contains("newer than every capture"));
        let (_, older) = t.choose(Some("0.1.0"));
        assert_eq!(older.version, "0.2.9");
        assert!(older.note.unwrap().contains("older than every capture"));
        let (_, none) = t.choose(None);
        assert_eq!(none.version, "2.1.332");
    }

    #[test]
    fn registry_falls_back_for_tools_a_version_did_not_send() {
        let t = ClaudeCodeTools::get();
        let (idx, _) = t.choose(Some("2.1.200"));
        let r = t.registry(idx);
        let glob = r.get("Glob").expect("Glob falls back to an older capture");
        assert!(glob.source.0.contains("not sent by"), "{}", glob.source);
        let bash = r.get("Bash").unwrap();
        assert!(bash.schema.is_some());
        assert!(r.get("Agent").unwrap().metadata.extra_keys_tolerated);
        assert!(!bash.metadata.extra_keys_tolerated);
        let (idx, _) = t.choose(Some("2.1.53"));
        assert!(
            !t.registry(idx)
                .get("Task")
                .unwrap()
                .alternate_schemas
                .is_empty()
        );
    }

    #[test]
    fn builtin_names() {
        assert_eq!(parse_builtin("builtin:claude-code").unwrap(), None);
        assert_eq!(
            parse_builtin("builtin:claude-code@2.1.53").unwrap(),
            Some("2.1.53".into())
        );
        assert!(parse_builtin("builtin:codex").is_err());
        assert!(parse_builtin("builtin:claude-code@latest").is_err());
    }
}
