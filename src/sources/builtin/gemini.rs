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

use super::captures::{self, Candidate, Leading, Runtime, ToolSet};
use crate::model::runtime::Verdict;
use super::{Matched, Version, parse_version, show};
use crate::model::schema::SchemaCache;
pub use super::names::GEMINI_CLI;

/// One call of a session, with the CLI's verdict on it: what a capture is matched by.
#[derive(Debug, Clone)]
pub struct Evidence<'a> {
    /// The tool called.
    pub name: &'a str,
    /// Its arguments, when recorded as an object.
    pub args: Option<&'a Value>,
    /// What the CLI did with it.
    pub verdict: Verdict,
}

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
                exact: version.is_some() && note.is_none(),
                note,
                newer: false,
            },
        )
    }

    /// The capture for a session that started at `started` (an RFC 3339 time, as the session
    /// records it) and made the calls `calls`, each with the CLI's verdict on it. The session
    /// records no CLI version, so the evidence decides: the capture whose schemas agree with
    /// the most verdicts (a call the CLI ran is accepted, one it refused is rejected, a tool it
    /// said does not exist is absent; parameter names settle most sessions: `file_path` against
    /// `absolute_path`). Among captures that agree equally, the newest published by the day the
    /// session started wins, then the newest of the others published by then, then the oldest
    /// of the rest (the mirror's publishing dates can be later than a release's first use).
    pub fn choose(
        &self,
        started: Option<&str>,
        calls: &[Evidence<'_>],
        cache: &SchemaCache,
    ) -> (usize, Matched) {
        let last = self.releases.len() - 1;
        let day = started
            .map(str::trim)
            .filter(|s| s.len() >= 10 && s.is_char_boundary(10) && s.as_bytes()[4] == b'-')
            .map(|s| &s[..10]);
        let known = self.tool_names();
        let scores = self.agreement(calls, cache);
        let judged = calls
            .iter()
            .filter(|c| match c.verdict {
                Verdict::UnknownTool => true,
                Verdict::Ran | Verdict::Refused(_) => known.binary_search(&c.name).is_ok(),
                Verdict::None => false,
            })
            .count();
        let best = scores.iter().copied().max().unwrap_or(0);
        let tied: Vec<usize> = (0..self.releases.len())
            .filter(|i| scores[*i] == best)
            .collect();
        let published = |i: usize| {
            day.is_some_and(|d| {
                !self.releases[i].published.is_empty() && self.releases[i].published.as_str() <= d
            })
        };
        let by_day = (0..self.releases.len()).rev().find(|i| published(*i));
        let (idx, why) = if judged == 0 {
            match (day, by_day) {
                (None, _) => (last, "no start time recorded: the newest capture".to_owned()),
                (Some(d), Some(b)) => (
                    b,
                    format!("the newest capture published by the day it started ({d})"),
                ),
                (Some(d), None) => (
                    0,
                    format!(
                        "the session started ({d}) before every captured release: the oldest capture"
                    ),
                ),
            }
        } else if let Some(i) = tied.iter().rev().copied().find(|i| published(*i)) {
            // The newest published by then is among them whenever it agrees as well.
            (
                i,
                format!(
                    "the newest published by the day it started ({})",
                    day.unwrap_or_default()
                ),
            )
        } else {
            (
                tied[0],
                match day {
                    Some(d) => {
                        format!("the oldest, none being published by the day it started ({d})")
                    }
                    None => "the oldest, the session recording no start time".to_owned(),
                },
            )
        };
        let shown = show(self.releases[idx].version);
        let note = if judged == 0 {
            format!("the session records no Gemini CLI version and no call to judge it by; using {shown}, {why}")
        } else {
            let others = match tied.len() {
                1 => "the only capture that agrees this well".to_owned(),
                n => format!(
                    "of the {n} captures that agree this well, {}–{}, {why}",
                    show(self.releases[tied[0]].version),
                    show(self.releases[tied[n - 1]].version)
                ),
            };
            format!(
                "the session records no Gemini CLI version; using {shown}, whose schemas agree with the CLI's verdict on {best} of the {judged} calls it judged ({others})"
            )
        };
        (
            idx,
            Matched {
                version: shown,
                note: Some(note),
                exact: false,
                newer: judged > 0 && best < judged && idx == last,
            },
        )
    }

    /// For each release, how many of `calls` its own tools agree with the CLI on.
    fn agreement(&self, calls: &[Evidence<'_>], cache: &SchemaCache) -> Vec<usize> {
        // Each call's acceptance under a schema, computed once per (call, schema hash).
        let mut accepted: BTreeMap<(usize, &str), bool> = BTreeMap::new();
        let mut scores = vec![0; self.releases.len()];
        for (r, release) in self.releases.iter().enumerate() {
            let set = &release.tools;
            for (c, call) in calls.iter().enumerate() {
                let Some(hash) = set.tools.get(call.name) else {
                    scores[r] += usize::from(call.verdict == Verdict::UnknownTool);
                    continue;
                };
                let accepts = match (call.verdict == Verdict::Ran, &call.verdict) {
                    (true, _) | (false, Verdict::Refused(_)) => {
                        let hashes = hash
                            .iter()
                            .chain(set.alternates.get(call.name).into_iter().flatten());
                        let mut any = hash.is_none();
                        for h in hashes {
                            any = any || self.accepts(call, c, h, cache, &mut accepted);
                        }
                        any
                    }
                    _ => continue,
                };
                scores[r] += usize::from(accepts == (call.verdict == Verdict::Ran));
            }
        }
        scores
    }

    /// Whether the schema `hash` accepts call `c`'s arguments (unknown arguments: accepted).
    fn accepts<'s>(
        &'s self,
        call: &Evidence<'_>,
        c: usize,
        hash: &str,
        cache: &SchemaCache,
        memo: &mut BTreeMap<(usize, &'s str), bool>,
    ) -> bool {
        let Some((key, schema)) = self.schemas.get_key_value(hash) else {
            return true;
        };
        if let Some(a) = memo.get(&(c, key.as_str())) {
            return *a;
        }
        let ok = match (call.args, cache.get(schema).as_ref()) {
            (Some(args), Ok(v)) => v.is_valid(args),
            _ => true,
        };
        memo.insert((c, key.as_str()), ok);
        ok
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
