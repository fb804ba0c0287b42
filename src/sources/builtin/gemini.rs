//! `builtin:gemini-cli[@VERSION]`: the tools each captured Gemini CLI release sends to its
//! model with every tool allowed (`--yolo`; the default approval mode of `-p` offers only the
//! read-only ones), its sub-agents' tools included, embedded from
//! `data/gemini-cli-tools/bundle.json` (`scripts/capture-tools gemini-cli`). A session records
//! no CLI version, so it is matched by evidence: the capture whose schemas agree best with the
//! CLI's verdict on each call (`choose`), among equals the newest published by the day it
//! started, and the report says so. A tool that release did not send (renamed, not
//! yet added, behind a setting) comes from the nearest older capture, then the nearest newer.
//! The CLI validates arguments against these schemas itself; keys a schema does not forbid are
//! accepted (measured on 0.20.2 and 0.61.0).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::model::ToolRegistry;

pub use super::captures::Evidence;
use super::captures::{self, Candidate, Leading, Offered, Runtime, ToolSet};
use super::{Matched, Version, parse_version, show};
use crate::model::schema::SchemaCache;
pub use super::names::GEMINI_CLI;

/// The embedded bundle.
pub(super) static BUNDLE: &str = include_str!("../../../data/gemini-cli-tools/bundle.json");

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
                exact: version.is_some() && note.is_none(),
                note,
                newer: false,
            },
        )
    }

    /// The capture for a session that started at `started` (an RFC 3339 time, as the session
    /// records it) and made the calls `calls`, each with the CLI's verdict on it. The session
    /// records no CLI version, so the evidence decides (`captures::by_evidence`): the capture
    /// whose schemas agree with the most verdicts, among equals the newest published by the day
    /// the session started, then the oldest of the rest.
    pub fn choose(
        &self,
        started: Option<&str>,
        calls: &[Evidence<'_>],
        cache: &SchemaCache,
    ) -> (usize, Matched) {
        let offered: Vec<Offered<'_>> = self
            .releases
            .iter()
            .map(|r| Offered {
                version: r.version,
                published: &r.published,
                sets: vec![&r.tools],
            })
            .collect();
        captures::by_evidence("Gemini CLI", &offered, started, calls, &self.schemas, cache)
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
    use crate::model::runtime::Verdict;

    fn call<'a>(name: &'a str, args: &'a Value, verdict: Verdict) -> Evidence<'a> {
        Evidence {
            name,
            args: Some(args),
            verdict,
        }
    }

    /// The properties `tool`'s schema has in the registry of capture `idx`.
    fn fields(idx: usize, tool: &str) -> Vec<String> {
        let r = GeminiTools::get().registry(idx);
        let schema = r.get(tool).unwrap().schema.clone().unwrap();
        schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    }

    #[test]
    fn with_no_call_to_judge_by_the_day_decides() {
        let t = GeminiTools::get();
        let cache = SchemaCache::default();
        let (idx, m) = t.choose(Some("2026-09-30T10:00:00.000Z"), &[], &cache);
        assert_eq!(m.version, "0.61.0");
        assert!(!m.exact);
        assert!(
            m.note
                .unwrap()
                .contains("no call to judge it by; using 0.61.0, the newest capture published by the day it started (2026-09-30)")
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
        let (_, m) = t.choose(None, &[], &cache);
        assert_eq!(m.version, "0.61.0");
        assert!(m.note.unwrap().contains("no start time"));
        let (idx, m) = t.choose(Some("2020-01-01T00:00:00Z"), &[], &cache);
        assert_eq!(idx, 0);
        assert!(m.note.unwrap().contains("before every captured release"));
    }

    #[test]
    fn parameter_names_the_cli_accepted_pick_the_capture() {
        let t = GeminiTools::get();
        let cache = SchemaCache::default();
        // A session of January 2026 (before every date the registry gives a release) whose
        // `read_file` and `list_directory` calls ran with `file_path` and `dir_path`.
        let new_read = serde_json::json!({"file_path": "/repo/a.rs"});
        let new_list = serde_json::json!({"dir_path": "/repo"});
        let calls = [
            call("read_file", &new_read, Verdict::Ran),
            call("read_file", &new_read, Verdict::Ran),
            call("list_directory", &new_list, Verdict::Ran),
        ];
        let (idx, m) = t.choose(Some("2026-01-30T09:00:00Z"), &calls, &cache);
        assert!(fields(idx, "read_file").contains(&"file_path".to_owned()), "{m:?}");
        assert!(fields(idx, "list_directory").contains(&"dir_path".to_owned()), "{m:?}");
        let note = m.note.unwrap();
        assert!(note.contains("agree with the CLI's verdict on 3 of the 3 calls"), "{note}");
        assert!(note.contains("of the 42 captures that agree this well, 0.15.4–0.61.0, the oldest, none being published by the day it started (2026-01-30)"), "{note}");
        // The older name, accepted by the CLI: a capture that has it.
        let old_read = serde_json::json!({"absolute_path": "/repo/a.rs"});
        let calls = [call("read_file", &old_read, Verdict::Ran)];
        let (idx, _) = t.choose(Some("2026-01-30T09:00:00Z"), &calls, &cache);
        assert!(fields(idx, "read_file").contains(&"absolute_path".to_owned()));
        // The older name, refused for lack of the newer one: a capture that requires it.
        let calls = [call(
            "read_file",
            &old_read,
            Verdict::Refused("params must have required property 'file_path'".into()),
        )];
        let (idx, _) = t.choose(Some("2026-01-30T09:00:00Z"), &calls, &cache);
        assert!(fields(idx, "read_file").contains(&"file_path".to_owned()));
        // A session of an older CLI run later: the newest capture that has every tool it
        // called (`search_file_content` was renamed `grep_search`), not the newest by date.
        let grep = serde_json::json!({"pattern": "fn main"});
        let calls = [
            call("read_file", &new_read, Verdict::Ran),
            call("search_file_content", &grep, Verdict::Ran),
        ];
        let (_, m) = t.choose(Some("2026-12-01T00:00:00Z"), &calls, &cache);
        assert_ne!(m.version, "0.61.0");
        assert!(
            m.note
                .unwrap()
                .contains("the newest published by the day it started (2026-12-01)")
        );
    }

    #[test]
    fn a_pinned_version() {
        let t = GeminiTools::get();
        assert_eq!(
            t.pinned(Some("0.20.2")).1,
            Matched {
                version: "0.20.2".into(),
                note: None,
                exact: true,
                newer: false,
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
