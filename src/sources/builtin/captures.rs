//! What the Codex CLI and Gemini CLI built-in sources share: a captured tool set (name →
//! schema hash, alternates, kinds) and the registry built from an ordered list of captures —
//! the one matched to the session first, then the others in the order the caller gives (same
//! release, older releases, newer ones), each tool taken from the first capture that has it, its
//! source saying which when it is not the matched one.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::model::runtime::Verdict;
use crate::model::schema::SchemaCache;
use crate::model::{SchemaSource, ToolRegistry, ToolSpec};

use super::{Matched, Version, parse_version, show};

/// One capture: the tools a release sent in one configuration.
#[derive(Debug, Deserialize)]
pub(crate) struct ToolSet {
    /// Name → schema hash; `None` for a hosted tool (no input schema is sent).
    pub(crate) tools: BTreeMap<String, Option<String>>,
    /// Other schemas the same tool was sent with in another variant of the run.
    #[serde(default)]
    pub(crate) alternates: BTreeMap<String, Vec<String>>,
    /// `custom` (free-form text argument) or `hosted`, for tools that are not functions.
    #[serde(default)]
    pub(crate) kinds: BTreeMap<String, String>,
}

/// A capture offered to `registry`, with where it came from (`0.171.0`, `0.171.0 gpt-5.5`).
pub(crate) struct Candidate<'a> {
    pub(crate) set: &'a ToolSet,
    pub(crate) label: String,
}

/// How tools of an agent behave at runtime, measured by running the CLI.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Runtime {
    /// The CLI drops unknown argument keys instead of rejecting the call.
    pub(crate) extra_keys_tolerated: bool,
    /// Where each field's value comes from (R3), for every capture of the agent.
    pub(crate) origins: Option<&'static crate::sources::origins::Origins>,
    /// (tool, JSON pointer into its schema, values): a string the CLI's runtime accepts only
    /// from a fixed set the schema it sends does not list (the set is in the description the
    /// bundle leaves out); each becomes an `enum` of the schema and its alternates.
    pub(crate) enums: &'static [(&'static str, &'static str, &'static [&'static str])],
}

/// How many of the leading candidates are the matched capture, and how many are of its
/// release.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Leading {
    /// Count as the matched capture (a session whose model no capture names is judged against
    /// every model's tools of the release).
    pub(crate) matched: usize,
    /// Were sent by the same release: a schema one of them sent for a tool is an alternate of
    /// the tool (the release's runtime accepts both forms, e.g. Codex's `apply_patch` as a
    /// free-form tool for one model and a function for another).
    pub(crate) same_release: usize,
}

/// The registry of `candidates[0]` (the matched capture), completed with every tool the others
/// hold.
pub(crate) fn registry(
    source: &str,
    candidates: &[Candidate<'_>],
    leading: Leading,
    schemas: &BTreeMap<String, Value>,
    runtime: Runtime,
) -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.builtin = true;
    let Some(first) = candidates.first() else {
        return registry;
    };
    let primary = format!("{source}@{}", first.label);
    registry.sources.push(primary.clone());
    let mut names: Vec<&str> = candidates
        .iter()
        .flat_map(|c| c.set.tools.keys().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    let matched = leading.matched.max(1).min(candidates.len());
    let same_release = leading.same_release.max(matched).min(candidates.len());
    for name in names {
        let Some(at) = candidates
            .iter()
            .position(|c| c.set.tools.contains_key(name))
        else {
            continue;
        };
        let c = &candidates[at];
        let hash = c.set.tools[name].as_ref();
        let src = if at < matched {
            primary.clone()
        } else {
            format!(
                "{source}@{} (`{name}` not sent by {})",
                c.label, first.label
            )
        };
        let mut spec = ToolSpec::new(
            name,
            hash.and_then(|h| schemas.get(h).cloned()),
            SchemaSource(src),
        );
        let mut alternates: Vec<&String> =
            c.set.alternates.get(name).into_iter().flatten().collect();
        if at < same_release {
            for other in &candidates[at + 1..same_release] {
                if let Some(Some(h)) = other.set.tools.get(name)
                    && Some(h) != hash
                {
                    alternates.push(h);
                }
                alternates.extend(other.set.alternates.get(name).into_iter().flatten());
            }
        }
        alternates.dedup();
        spec.alternate_schemas = alternates
            .into_iter()
            .filter(|h| Some(*h) != hash)
            .filter_map(|h| schemas.get(h).cloned())
            .collect();
        spec.metadata.extra_keys_tolerated =
            runtime.extra_keys_tolerated && !c.set.kinds.contains_key(name);
        if let Some(origins) = runtime.origins {
            origins.apply(&mut spec);
        }
        for (_, pointer, values) in runtime.enums.iter().filter(|(t, _, _)| *t == name) {
            let schemas = spec
                .schema
                .iter_mut()
                .chain(spec.alternate_schemas.iter_mut());
            for node in schemas.filter_map(|s| s.pointer_mut(pointer)) {
                if let Some(o) = node.as_object_mut() {
                    o.entry("enum")
                        .or_insert_with(|| values.iter().map(|v| Value::from(*v)).collect());
                }
            }
        }
        // Cannot collide: names are unique.
        let _ = registry.insert(spec);
    }
    registry
}

/// Every field each tool's schema has in any of `sets` (alternates included), for checking a
/// table of field origins against what the CLI sent.
#[cfg(test)]
pub(crate) fn fields_by_tool<'a>(
    sets: impl Iterator<Item = &'a ToolSet>,
    schemas: &'a BTreeMap<String, Value>,
) -> BTreeMap<&'a str, std::collections::BTreeSet<&'a str>> {
    let mut out: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for set in sets {
        let hashes = set
            .tools
            .iter()
            .filter_map(|(t, h)| Some((t, h.as_ref()?)))
            .chain(
                set.alternates
                    .iter()
                    .flat_map(|(t, hs)| hs.iter().map(move |h| (t, h))),
            );
        for (tool, hash) in hashes {
            let entry = out.entry(tool.as_str()).or_default();
            let props = schemas
                .get(hash)
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object);
            entry.extend(props.into_iter().flat_map(|p| p.keys().map(String::as_str)));
        }
    }
    out
}

/// One call of a session, with the CLI's verdict on it: what a capture is matched by when the
/// session records no CLI version.
#[derive(Debug, Clone)]
pub struct Evidence<'a> {
    /// The tool called.
    pub name: &'a str,
    /// Its arguments, when recorded as an object.
    pub args: Option<&'a Value>,
    /// What the CLI did with it.
    pub verdict: Verdict,
}

/// A release offered to `by_evidence`.
pub(crate) struct Offered<'a> {
    pub(crate) version: Version,
    /// `YYYY-MM-DD` the release was published on npm (empty: unknown).
    pub(crate) published: &'a str,
    /// The tool sets it sends (one per model or configuration): a tool is the release's when
    /// one set has it, and a call is accepted when one set's schema of the tool accepts it.
    pub(crate) sets: Vec<&'a ToolSet>,
}

/// The release (of `releases`, ascending) for a session of `agent` (`Gemini CLI`) that records
/// no CLI version, started at `started` (RFC 3339, as the session records it) and made `calls`,
/// each with the CLI's verdict on it. The evidence decides: the release whose schemas agree
/// with the most verdicts (a call the CLI ran is accepted, one it refused is rejected, a tool
/// it said does not exist is absent; parameter names settle most sessions: `file_path` against
/// `absolute_path`). Among releases that agree equally, the newest published by the day the
/// session started wins, then the oldest of the others (the registry's publishing dates can
/// be later than a release's first use). The note says which, why, and how sure.
pub(crate) fn by_evidence(
    agent: &str,
    releases: &[Offered<'_>],
    started: Option<&str>,
    calls: &[Evidence<'_>],
    schemas: &BTreeMap<String, Value>,
    cache: &SchemaCache,
) -> (usize, Matched) {
    let last = releases.len() - 1;
    let day = started
        .map(str::trim)
        .filter(|s| s.len() >= 10 && s.is_char_boundary(10) && s.as_bytes()[4] == b'-')
        .map(|s| &s[..10]);
    let mut known: Vec<&str> = releases
        .iter()
        .flat_map(|r| r.sets.iter().flat_map(|s| s.tools.keys().map(String::as_str)))
        .collect();
    known.sort_unstable();
    known.dedup();
    let scores = agreement(releases, calls, schemas, cache);
    let judged = calls
        .iter()
        .filter(|c| match c.verdict {
            Verdict::UnknownTool => true,
            Verdict::Ran | Verdict::Refused(_) => known.binary_search(&c.name).is_ok(),
            Verdict::None => false,
        })
        .count();
    let best = scores.iter().copied().max().unwrap_or(0);
    let tied: Vec<usize> = (0..releases.len()).filter(|i| scores[*i] == best).collect();
    let published = |i: usize| {
        day.is_some_and(|d| !releases[i].published.is_empty() && releases[i].published <= d)
    };
    let by_day = (0..releases.len()).rev().find(|i| published(*i));
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
    let shown = show(releases[idx].version);
    let note = if judged == 0 {
        format!(
            "the session records no {agent} version and no call to judge it by; using {shown}, {why}"
        )
    } else {
        let others = match tied.len() {
            1 => "the only capture that agrees this well".to_owned(),
            n => format!(
                "of the {n} captures that agree this well, {}–{}, {why}",
                show(releases[tied[0]].version),
                show(releases[tied[n - 1]].version)
            ),
        };
        format!(
            "the session records no {agent} version; using {shown}, whose schemas agree with the CLI's verdict on {best} of the {judged} calls it judged ({others})"
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

/// For each release, how many of `calls` its tools agree with the CLI on.
fn agreement(
    releases: &[Offered<'_>],
    calls: &[Evidence<'_>],
    schemas: &BTreeMap<String, Value>,
    cache: &SchemaCache,
) -> Vec<usize> {
    // Each call's acceptance under a schema, computed once per (call, schema hash).
    let mut memo: BTreeMap<(usize, &str), bool> = BTreeMap::new();
    let mut accepts = |c: usize, call: &Evidence<'_>, hash: &str| -> bool {
        let Some((key, schema)) = schemas.get_key_value(hash) else {
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
    };
    let mut scores = vec![0; releases.len()];
    for (r, release) in releases.iter().enumerate() {
        for (c, call) in calls.iter().enumerate() {
            let holding: Vec<&ToolSet> = release
                .sets
                .iter()
                .copied()
                .filter(|s| s.tools.contains_key(call.name))
                .collect();
            if holding.is_empty() {
                scores[r] += usize::from(call.verdict == Verdict::UnknownTool);
                continue;
            }
            if !matches!(call.verdict, Verdict::Ran | Verdict::Refused(_)) {
                continue;
            }
            let mut any = false;
            for set in holding {
                let Some(hash) = &set.tools[call.name] else {
                    // A hosted tool: no schema to refuse anything.
                    any = true;
                    break;
                };
                let hashes = std::iter::once(hash)
                    .chain(set.alternates.get(call.name).into_iter().flatten());
                for h in hashes {
                    any = any || accepts(c, call, h);
                }
            }
            scores[r] += usize::from(any == (call.verdict == Verdict::Ran));
        }
    }
    scores
}

/// The capture for a recorded `version` among `versions` (ascending, not empty): the same one,
/// else the nearest older, else the oldest; the newest when none is recorded. The note says
/// how it was matched when it is not the recorded version (`agent` names the CLI).
pub(crate) fn match_version(
    agent: &str,
    versions: &[Version],
    version: Option<&str>,
) -> (usize, Option<String>) {
    let last = versions.len() - 1;
    let newest = show(versions[last]);
    match version.map(|v| (v, parse_version(v))) {
        None => (
            last,
            Some(format!(
                "the session records no {agent} version; using the newest capture {newest}"
            )),
        ),
        Some((v, None)) => (
            last,
            Some(format!(
                "the {agent} version `{v}` is not a version number; using the newest capture {newest}"
            )),
        ),
        Some((_, Some(wanted))) => match nearest_older(versions, wanted) {
            None => (
                0,
                Some(format!(
                    "{agent} {} is older than every capture; using the oldest capture {}",
                    show(wanted),
                    show(versions[0])
                )),
            ),
            Some((i, true)) => (i, None),
            Some((i, false)) if i == last => (
                i,
                Some(format!(
                    "{agent} {} is newer than every capture; using the newest capture {newest} (a newer tracelint ships newer schemas)",
                    show(wanted)
                )),
            ),
            Some((i, false)) => (
                i,
                Some(format!(
                    "{agent} {} was not captured; using the nearest older capture {}",
                    show(wanted),
                    show(versions[i])
                )),
            ),
        },
    }
}

/// The index of the newest entry not newer than `wanted` in `versions` (ascending), and whether
/// it is `wanted` itself; `None` when every entry is newer.
pub(crate) fn nearest_older<T: Ord + Copy>(versions: &[T], wanted: T) -> Option<(usize, bool)> {
    let at = versions.partition_point(|v| *v <= wanted);
    (at > 0).then(|| (at - 1, versions[at - 1] == wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(tools: &[(&str, Option<&str>)]) -> ToolSet {
        ToolSet {
            tools: tools
                .iter()
                .map(|(n, h)| ((*n).to_owned(), h.map(str::to_owned)))
                .collect(),
            alternates: BTreeMap::new(),
            kinds: BTreeMap::new(),
        }
    }

    #[test]
    fn the_matched_capture_wins_and_others_fill_in() {
        let schemas: BTreeMap<String, Value> = [
            (
                "a1",
                serde_json::json!({"type": "object", "required": ["x"]}),
            ),
            ("a2", serde_json::json!({"type": "object"})),
            ("b", serde_json::json!({"type": "string"})),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let matched = set(&[("a", Some("a1")), ("web", None)]);
        let other = set(&[("a", Some("a2")), ("b", Some("b"))]);
        let cands = [
            Candidate {
                set: &matched,
                label: "2.0 m".into(),
            },
            Candidate {
                set: &other,
                label: "1.0".into(),
            },
        ];
        let runtime = Runtime {
            extra_keys_tolerated: true,
            origins: None,
            enums: &[],
        };
        let one = Leading {
            matched: 1,
            same_release: 1,
        };
        let r = registry("builtin:x", &cands, one, &schemas, runtime);
        assert_eq!(r.sources, ["builtin:x@2.0 m"]);
        let a = r.get("a").unwrap();
        assert_eq!(a.schema, Some(schemas["a1"].clone()));
        assert!(a.alternate_schemas.is_empty());
        assert!(a.metadata.extra_keys_tolerated);
        assert_eq!(
            r.get("b").unwrap().source.0,
            "builtin:x@1.0 (`b` not sent by 2.0 m)"
        );
        assert!(r.get("web").unwrap().schema.is_none());
        // Of the same release: the other's schema of `a` is an alternate.
        let same = Leading {
            matched: 1,
            same_release: 2,
        };
        let r = registry("builtin:x", &cands, same, &schemas, runtime);
        assert_eq!(
            r.get("a").unwrap().alternate_schemas,
            [schemas["a2"].clone()]
        );
        assert!(r.get("b").unwrap().source.0.contains("not sent by"));
        // Both count as matched.
        let both = Leading {
            matched: 2,
            same_release: 2,
        };
        let r = registry("builtin:x", &cands, both, &schemas, runtime);
        assert_eq!(
            r.get("a").unwrap().alternate_schemas,
            [schemas["a2"].clone()]
        );
        assert_eq!(r.get("b").unwrap().source.0, "builtin:x@2.0 m");
    }

    #[test]
    fn nearest_older_version() {
        let v = [1, 3, 5];
        assert_eq!(nearest_older(&v, 3), Some((1, true)));
        assert_eq!(nearest_older(&v, 4), Some((1, false)));
        assert_eq!(nearest_older(&v, 9), Some((2, false)));
        assert_eq!(nearest_older(&v, 0), None);
    }
}
