//! What the Codex CLI and Gemini CLI built-in sources share: a captured tool set (name →
//! schema hash, alternates, kinds) and the registry built from an ordered list of captures —
//! the one matched to the session first, then the others in the order the caller gives (same
//! release, older releases, newer ones), each tool taken from the first capture that has it, its
//! source saying which when it is not the matched one.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::model::{SchemaSource, ToolRegistry, ToolSpec};

use super::{Version, parse_version, show};

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
