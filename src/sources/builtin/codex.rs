//! `builtin:codex[@VERSION]`: the tools each captured Codex CLI release sends to its model,
//! embedded from `data/codex-tools/bundle.json` (`scripts/capture-tools codex`). A release sends
//! a different set per model (its catalog decides the shell tool, the patch tool, web search),
//! so a capture is a release and a model: a rollout is matched by the `cli_version` of its
//! `session_meta` (the nearest older capture when that release was not captured) and the model
//! of its first `turn_context`; a model no capture of that release names is judged against
//! every model's tools of the release. A tool the matched capture lacks (a feature flag, another
//! model, a renamed tool) comes from the release's other captures, then the nearest older
//! releases, then newer ones. Codex parses arguments with serde, which drops unknown keys:
//! every function tool tolerates them (measured on 0.47.0 and 0.171.0 with a scripted model).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::model::ToolRegistry;

use super::captures::{self, Candidate, Evidence, Leading, Offered, Runtime, ToolSet};
use super::{Matched, Version, parse_version, show};
use crate::model::schema::SchemaCache;
pub use super::names::CODEX;

/// The embedded bundle.
pub(super) static BUNDLE: &str = include_str!("../../../data/codex-tools/bundle.json");

/// Strings Codex's runtime accepts only from a fixed set while the schema it sends says just
/// `"type": "string"` (the set is in the description, which the bundle leaves out). Measured:
/// 0.47.0 answers `update_plan` with status `doing` by "failed to parse function arguments:
/// unknown variant `doing`, expected one of `pending`, `in_progress`, `completed`"
/// (`fixtures/real/codex/codex-0.47.0-shell-plan.jsonl`, line 36); every release sends the same
/// `update_plan` schema.
const RUNTIME_ENUMS: &[(&str, &str, &[&str])] = &[(
    "update_plan",
    "/properties/plan/items/properties/status",
    &["pending", "in_progress", "completed"],
)];

#[derive(Deserialize)]
struct RawBundle {
    versions: BTreeMap<String, RawVersion>,
    toolsets: BTreeMap<String, ToolSet>,
    schemas: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct RawVersion {
    #[serde(default)]
    published: String,
    #[serde(default)]
    models: BTreeMap<String, String>,
    #[serde(default)]
    unknown_model: Option<String>,
}

/// One captured release: its model → tool set, and the set an unknown model gets.
struct Release {
    version: Version,
    /// `YYYY-MM-DD` the release was published on npm.
    published: String,
    models: BTreeMap<String, String>,
    unknown_model: Option<String>,
}

impl Release {
    /// Its distinct tool sets: every model's (in model-name order), then the fallback's.
    fn sets(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for h in self.models.values().chain(self.unknown_model.iter()) {
            if !out.contains(&h.as_str()) {
                out.push(h);
            }
        }
        out
    }
}

/// The embedded captures, parsed once.
pub struct CodexTools {
    releases: Vec<Release>,
    toolsets: BTreeMap<String, ToolSet>,
    schemas: BTreeMap<String, Value>,
}

impl std::fmt::Debug for CodexTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodexTools")
            .field("releases", &self.releases.len())
            .field("toolsets", &self.toolsets.len())
            .finish()
    }
}

/// The capture chosen for a session: a release, and the model whose tools it uses (`None`:
/// every model's).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Choice {
    idx: usize,
    model: Option<String>,
}

impl CodexTools {
    /// The embedded captures.
    pub fn get() -> &'static CodexTools {
        static TOOLS: OnceLock<CodexTools> = OnceLock::new();
        TOOLS.get_or_init(|| {
            let raw: RawBundle =
                serde_json::from_str(BUNDLE).expect("the embedded Codex bundle is valid JSON");
            let mut releases: Vec<Release> = raw
                .versions
                .into_iter()
                .filter_map(|(v, r)| {
                    Some(Release {
                        version: parse_version(&v)?,
                        published: r.published,
                        models: r.models,
                        unknown_model: r.unknown_model,
                    })
                })
                .collect();
            releases.sort_by_key(|r| r.version);
            CodexTools {
                releases,
                toolsets: raw.toolsets,
                schemas: raw.schemas,
            }
        })
    }

    /// Every captured release, ascending.
    pub fn versions(&self) -> impl Iterator<Item = String> + '_ {
        self.releases.iter().map(|r| show(r.version))
    }

    /// Every tool name any capture holds, sorted.
    pub fn tool_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .toolsets
            .values()
            .flat_map(|t| t.tools.keys().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Number of distinct schemas.
    pub fn schema_count(&self) -> usize {
        self.schemas.len()
    }

    /// The capture for a session that records `version` and `model` (either may be missing).
    pub fn choose(&self, version: Option<&str>, model: Option<&str>) -> (Choice, Matched) {
        let versions: Vec<Version> = self.releases.iter().map(|r| r.version).collect();
        let (idx, note) = captures::match_version("Codex CLI", &versions, version);
        let exact = version.is_some() && note.is_none();
        let newer = version
            .and_then(parse_version)
            .is_some_and(|w| versions.last().is_some_and(|l| w > *l));
        self.for_model(idx, model, note, exact, newer)
    }

    /// The capture for a rollout that records no CLI version (its `session_meta` has no
    /// `cli_version`), ran `model` and started at `started`: the evidence of its calls decides
    /// (`captures::by_evidence`), each release judged by its tools for `model` when it was
    /// captured with that model, else by every model's tools; among equals the newest
    /// published by the day it started.
    pub fn choose_by_evidence(
        &self,
        model: Option<&str>,
        started: Option<&str>,
        calls: &[Evidence<'_>],
        cache: &SchemaCache,
    ) -> (Choice, Matched) {
        let offered: Vec<Offered<'_>> = self
            .releases
            .iter()
            .map(|r| {
                let own = model.and_then(|m| r.models.get(m));
                let sets = match own {
                    Some(h) => self.toolsets.get(h).into_iter().collect(),
                    None => r
                        .sets()
                        .into_iter()
                        .filter_map(|h| self.toolsets.get(h))
                        .collect(),
                };
                Offered {
                    version: r.version,
                    published: &r.published,
                    sets,
                }
            })
            .collect();
        let (idx, m) =
            captures::by_evidence("Codex CLI", &offered, started, calls, &self.schemas, cache);
        self.for_model(idx, model, m.note, false, m.newer)
    }

    /// The choice of release `idx` for `model`, and how it was matched (`note`: how the
    /// release was; the model's match is added).
    fn for_model(
        &self,
        idx: usize,
        model: Option<&str>,
        mut note: Option<String>,
        exact: bool,
        newer: bool,
    ) -> (Choice, Matched) {
        let release = &self.releases[idx];
        let captured = model.filter(|m| release.models.contains_key(*m));
        let shown = show(release.version);
        match (model, captured) {
            (Some(m), None) => {
                let why = format!(
                    "model `{m}` is not among the captures of {shown}: judged against every model's tools of that release"
                );
                note = Some(note.map_or(why.clone(), |n| format!("{n}; {why}")));
            }
            (None, _) => {
                let why = "the session records no model: judged against every model's tools of that release".to_owned();
                note = Some(note.map_or(why.clone(), |n| format!("{n}; {why}")));
            }
            _ => {}
        }
        let version = match captured {
            Some(m) => format!("{shown} for model {m}"),
            None => shown,
        };
        (
            Choice {
                idx,
                model: captured.map(str::to_owned),
            },
            Matched {
                version,
                note,
                exact,
                newer,
            },
        )
    }

    /// The capture pinned by `builtin:codex@VERSION`: every model's tools of it.
    pub fn pinned(&self, version: Option<&str>) -> (Choice, Matched) {
        let (choice, mut m) = self.choose(version, None);
        // Only how the version was matched: no session is in question.
        m.note = m
            .note
            .and_then(|n| n.split("; ").next().map(str::to_owned))
            .filter(|n| !n.contains("records no model") && version.is_some());
        (choice, m)
    }

    /// The registry of a choice: the matched tool set, then the release's others, then the
    /// nearest older releases', then newer ones'.
    /// Every field each tool's schema has in any capture.
    #[cfg(test)]
    pub(crate) fn fields_by_tool(&self) -> BTreeMap<&str, std::collections::BTreeSet<&str>> {
        captures::fields_by_tool(self.toolsets.values(), &self.schemas)
    }

    pub fn registry(&self, choice: &Choice) -> ToolRegistry {
        let release = &self.releases[choice.idx];
        let shown = show(release.version);
        // (tool set hash, label), each set once, in the order they are consulted.
        let mut order: Vec<(&str, String)> = Vec::new();
        let sets = &self.toolsets;
        if let Some(m) = &choice.model {
            add_once(sets, &release.models[m], format!("{shown} {m}"), &mut order);
        }
        for h in release.sets() {
            add_once(sets, h, shown.clone(), &mut order);
        }
        // A model of the captures: its own set is the match. Otherwise every set of the release.
        let leading = Leading {
            matched: if choice.model.is_some() {
                1
            } else {
                order.len()
            },
            same_release: order.len(),
        };
        let older = self.releases[..choice.idx].iter().rev();
        let newer = self.releases[choice.idx + 1..].iter();
        for r in older.chain(newer) {
            let label = show(r.version);
            let own = choice.model.as_ref().and_then(|m| r.models.get(m));
            for h in own.map(String::as_str).into_iter().chain(r.sets()) {
                add_once(sets, h, label.clone(), &mut order);
            }
        }
        let candidates: Vec<Candidate<'_>> = order
            .into_iter()
            .map(|(h, label)| Candidate {
                set: &self.toolsets[h],
                label,
            })
            .collect();
        captures::registry(
            CODEX,
            &candidates,
            leading,
            &self.schemas,
            Runtime {
                extra_keys_tolerated: true,
                origins: Some(crate::sources::origins::Origins::codex()),
                enums: RUNTIME_ENUMS,
            },
        )
    }
}

/// Add the tool set `h` to `order` unless it is there already.
fn add_once<'a>(
    toolsets: &'a BTreeMap<String, ToolSet>,
    h: &str,
    label: String,
    order: &mut Vec<(&'a str, String)>,
) {
    if let Some((key, _)) = toolsets.get_key_value(h)
        && !order.iter().any(|(x, _)| *x == key.as_str())
    {
        order.push((key.as_str(), label));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_matched_by_release_and_model() {
        let t = CodexTools::get();
        let (c, m) = t.choose(Some("0.171.0"), Some("gpt-5.5"));
        assert_eq!(m.version, "0.171.0 for model gpt-5.5");
        assert_eq!(m.note, None);
        let r = t.registry(&c);
        assert_eq!(r.sources, ["builtin:codex@0.171.0 gpt-5.5"]);
        let exec = r.get("exec_command").unwrap();
        assert!(exec.schema.is_some() && exec.metadata.extra_keys_tolerated);
        let patch = r.get("apply_patch").unwrap();
        assert_eq!(patch.schema, Some(serde_json::json!({"type": "string"})));
        assert!(!patch.metadata.extra_keys_tolerated);
        // A tool of an older release only: still known, and its source says so.
        let shell = r.get("shell").unwrap();
        assert!(
            shell.source.0.contains("not sent by 0.171.0 gpt-5.5"),
            "{}",
            shell.source
        );
    }

    #[test]
    fn without_a_version_the_calls_choose_the_release() {
        let t = CodexTools::get();
        let cache = SchemaCache::default();
        let ran = |name, args| Evidence {
            name,
            args: Some(args),
            verdict: crate::model::runtime::Verdict::Ran,
        };
        // `shell_command` ran: a release that sends it, for the session's model.
        let args = serde_json::json!({"command": "ls", "workdir": "/w"});
        let calls = [ran("shell_command", &args)];
        let started = Some("2026-12-01T00:00:00Z");
        let (c, m) = t.choose_by_evidence(Some("gpt-5-codex"), started, &calls, &cache);
        let r = t.registry(&c);
        assert_eq!(
            r.get("shell_command").unwrap().source.0,
            r.sources[0],
            "{m:?}"
        );
        assert!(m.version.ends_with(" for model gpt-5-codex"), "{m:?}");
        assert!(!m.exact);
        let note = m.note.unwrap();
        assert!(
            note.contains("the session records no Codex CLI version; using ")
                && note.contains("whose schemas agree with the CLI's verdict on 1 of the 1 calls it judged"),
            "{note}"
        );
        // `shell` with an argv ran: the releases that sent `shell`, not the newest.
        let argv = serde_json::json!({"command": ["bash", "-lc", "ls"]});
        let calls = [ran("shell", &argv)];
        let (c, m) = t.choose_by_evidence(None, started, &calls, &cache);
        let r = t.registry(&c);
        assert_eq!(r.get("shell").unwrap().source.0, r.sources[0], "{m:?}");
        assert_ne!(m.version, "0.171.0");
        // Nothing to judge by: the day decides.
        let (_, m) = t.choose_by_evidence(None, started, &[], &cache);
        assert!(
            m.note.unwrap().contains(
                "the session records no Codex CLI version and no call to judge it by; using"
            )
        );
    }

    #[test]
    fn unknown_models_and_versions_say_how_they_were_matched() {
        let t = CodexTools::get();
        let (c, m) = t.choose(Some("0.171.0"), Some("some-new-model"));
        assert_eq!(m.version, "0.171.0");
        assert!(
            m.note
                .unwrap()
                .contains("model `some-new-model` is not among the captures")
        );
        assert_eq!(c.model, None);
        let (_, m) = t.choose(Some("0.48.3"), Some("gpt-5-codex"));
        assert_eq!(m.version, "0.47.0 for model gpt-5-codex");
        assert!(
            m.note
                .unwrap()
                .contains("not captured; using the nearest older capture 0.47.0")
        );
        let (_, m) = t.choose(Some("99.0.0"), None);
        assert!(m.note.unwrap().contains("newer than every capture"));
        let (_, m) = t.choose(None, None);
        assert!(m.note.unwrap().contains("records no Codex CLI version"));
    }
}
