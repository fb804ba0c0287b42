//! `builtin:gemini-cli[@VERSION]`: the tools each captured Gemini CLI release sends to its
//! model with every tool allowed (`--yolo`; the default approval mode of `-p` offers only the
//! read-only ones), its sub-agents' tools included, embedded from
//! `data/gemini-cli-tools/bundle.json` (`scripts/capture-tools gemini-cli`). A session records
//! no CLI version, so it is matched by date: the newest captured release published on or before
//! the day it started, and the report says so. A tool that release did not send (renamed, not
//! yet added, behind a setting) comes from the nearest older capture, then the nearest newer.
//! The CLI validates arguments against these schemas itself; keys a schema does not forbid are
//! accepted (measured on 0.20.2 and 0.61.0).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::model::ToolRegistry;

use super::captures::{self, Candidate, Leading, Runtime, ToolSet};
use super::{Matched, Version, parse_version, show};
pub use super::names::GEMINI_CLI;

/// The embedded bundle.
const BUNDLE: &str = include_str!("../../../data/gemini-cli-tools/bundle.json");

#[derive(Deserialize)]
struct RawBundle {
    versions: BTreeMap<String, RawVersion>,
    schemas: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct RawVersion {
    #[serde(default)]
    published: String,
    #[serde(flatten)]
    tools: ToolSet,
}

struct Release {
    version: Version,
    /// `YYYY-MM-DD` the release was published on npm.
    published: String,
    tools: ToolSet,
}

/// The embedded captures, parsed once.
pub struct GeminiTools {
    releases: Vec<Release>,
    schemas: BTreeMap<String, Value>,
}

impl std::fmt::Debug for GeminiTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeminiTools")
            .field("releases", &self.releases.len())
            .field("schemas", &self.schemas.len())
            .finish()
    }
}

impl GeminiTools {
    /// The embedded captures.
    pub fn get() -> &'static GeminiTools {
        static TOOLS: OnceLock<GeminiTools> = OnceLock::new();
        TOOLS.get_or_init(|| {
            let raw: RawBundle =
                serde_json::from_str(BUNDLE).expect("the embedded Gemini CLI bundle is valid JSON");
            let mut releases: Vec<Release> = raw
                .versions
                .into_iter()
                .filter_map(|(v, r)| {
                    Some(Release {
                        version: parse_version(&v)?,
                        published: r.published,
                        tools: r.tools,
                    })
                })
                .collect();
            releases.sort_by_key(|r| r.version);
            GeminiTools {
                releases,
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
            .releases
            .iter()
            .flat_map(|r| r.tools.tools.keys().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Number of distinct schemas.
    pub fn schema_count(&self) -> usize {
        self.schemas.len()
    }

    /// The capture pinned by `builtin:gemini-cli@VERSION` (`None`: the newest).
    pub fn pinned(&self, version: Option<&str>) -> (usize, Matched) {
        let versions: Vec<Version> = self.releases.iter().map(|r| r.version).collect();
        let (idx, note) = match version {
            Some(_) => captures::match_version("Gemini CLI", &versions, version),
            None => (versions.len() - 1, None),
        };
        (
            idx,
            Matched {
                version: show(versions[idx]),
                note,
            },
        )
    }

    /// The capture for a session that started at `started` (an RFC 3339 time, as the session
    /// records it) and called the tools `used`: the newest release published on or before
    /// that day that sent every one of them a capture knows (a session of an older CLI run
    /// since calls tools renamed later), else the newest published by then.
    pub fn choose(&self, started: Option<&str>, used: &[&str]) -> (usize, Matched) {
        let last = self.releases.len() - 1;
        let newest = show(self.releases[last].version);
        let day = started
            .map(str::trim)
            .filter(|s| s.len() >= 10 && s.as_bytes()[4] == b'-')
            .map(|s| &s[..10]);
        let Some(day) = day else {
            let note = format!(
                "the session records no Gemini CLI version and no start time; using the newest capture {newest}"
            );
            return (
                last,
                Matched {
                    version: newest,
                    note: Some(note),
                },
            );
        };
        // Releases in version order are in publishing order but for patch releases of older
        // lines: take the newest version published by then.
        let published = |i: &usize| {
            !self.releases[*i].published.is_empty() && self.releases[*i].published.as_str() <= day
        };
        let known: Vec<&str> = self.tool_names();
        let used: Vec<&str> = used
            .iter()
            .copied()
            .filter(|u| known.binary_search(u).is_ok())
            .collect();
        let has_all = |i: &usize| {
            used.iter()
                .all(|u| self.releases[*i].tools.tools.contains_key(*u))
        };
        let newest = (0..self.releases.len()).rev().find(published);
        let fitting = (0..self.releases.len())
            .rev()
            .find(|i| published(i) && has_all(i));
        let (idx, note) = match (fitting, newest) {
            (Some(i), Some(n)) if i == n => (
                i,
                format!(
                    "the session records no Gemini CLI version; using {}, the newest capture published by the day it started ({day})",
                    show(self.releases[i].version)
                ),
            ),
            (Some(i), _) => (
                i,
                format!(
                    "the session records no Gemini CLI version; using {}, the newest capture published by the day it started ({day}) that has every tool the session called",
                    show(self.releases[i].version)
                ),
            ),
            (None, Some(i)) => (
                i,
                format!(
                    "the session records no Gemini CLI version; using {}, the newest capture published by the day it started ({day})",
                    show(self.releases[i].version)
                ),
            ),
            (None, None) => (
                0,
                format!(
                    "the session started ({day}) before every captured release; using the oldest capture {}",
                    show(self.releases[0].version)
                ),
            ),
        };
        (
            idx,
            Matched {
                version: show(self.releases[idx].version),
                note: Some(note),
            },
        )
    }

    /// The registry of the capture at `idx`, completed from the nearest older captures, then
    /// the newer ones.
    /// Every field each tool's schema has in any capture.
    #[cfg(test)]
    pub(crate) fn fields_by_tool(&self) -> BTreeMap<&str, std::collections::BTreeSet<&str>> {
        captures::fields_by_tool(self.releases.iter().map(|r| &r.tools), &self.schemas)
    }

    pub fn registry(&self, idx: usize) -> ToolRegistry {
        let older = (0..=idx).rev();
        let newer = idx + 1..self.releases.len();
        let candidates: Vec<Candidate<'_>> = older
            .chain(newer)
            .map(|i| Candidate {
                set: &self.releases[i].tools,
                label: show(self.releases[i].version),
            })
            .collect();
        captures::registry(
            GEMINI_CLI,
            &candidates,
            Leading {
                matched: 1,
                same_release: 1,
            },
            &self.schemas,
            Runtime {
                extra_keys_tolerated: false,
                origins: Some(crate::sources::origins::Origins::gemini_cli()),
                enums: &[],
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_matched_by_the_day_it_started() {
        let t = GeminiTools::get();
        let (idx, m) = t.choose(Some("2026-09-30T10:00:00.000Z"), &[]);
        assert_eq!(m.version, "0.61.0");
        assert!(
            m.note
                .unwrap()
                .contains("the newest capture published by the day it started (2026-09-30)")
        );
        let r = t.registry(idx);
        assert_eq!(r.sources, ["builtin:gemini-cli@0.61.0"]);
        let read = r.get("read_file").unwrap();
        assert!(read.schema.is_some());
        assert!(!read.metadata.extra_keys_tolerated);
        // A tool of an older release only comes from it.
        let old = r.get("search_file_content").unwrap();
        assert!(
            old.source.0.contains("not sent by 0.61.0"),
            "{}",
            old.source
        );
        // The skills a user has installed are not the release's: no enum.
        let skill = r.get("activate_skill").unwrap().schema.clone().unwrap();
        assert!(skill["properties"]["name"].get("enum").is_none(), "{skill}");
        let (_, m) = t.choose(None, &[]);
        assert!(m.note.unwrap().contains("no start time"));
        let (idx, m) = t.choose(Some("2020-01-01T00:00:00Z"), &[]);
        assert_eq!(idx, 0);
        assert!(m.note.unwrap().contains("before every captured release"));
        // A session of an older CLI run later: the newest capture with every tool it called
        // (`search_file_content` was renamed `grep_search`).
        let (_, m) = t.choose(
            Some("2026-12-01T00:00:00Z"),
            &["read_file", "search_file_content", "no_such_tool"],
        );
        assert!(
            m.note
                .unwrap()
                .contains("that has every tool the session called")
        );
        assert_ne!(m.version, "0.61.0");
    }

    #[test]
    fn a_pinned_version() {
        let t = GeminiTools::get();
        assert_eq!(
            t.pinned(Some("0.20.2")).1,
            Matched {
                version: "0.20.2".into(),
                note: None
            }
        );
        let (_, m) = t.pinned(Some("0.20.3"));
        assert!(
            m.note
                .unwrap()
                .contains("not captured; using the nearest older capture 0.20.2")
        );
    }
}
