//! The baseline file on disk: version 1, read with every problem an error that names the file
//! (and the line for a syntax error), written as sorted, two-space-indented JSON with a final
//! newline so that the same state always gives the same bytes. The wire structs are private; the
//! rest of the crate sees `Baseline`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Baseline, FileEntry, Key};
use crate::finding::{RuleId, Tier};

/// The only version this tracelint reads and writes.
pub const VERSION: u32 = 1;
/// Largest baseline file read, in bytes.
const MAX_BYTES: u64 = 256 << 20;

/// A baseline file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {message}")]
pub struct BaselineError {
    /// `path`, or `path:line:col` for a syntax error.
    pub location: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireBaseline {
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gate: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, WireFile>,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct WireFile {
    #[serde(default)]
    findings: Vec<WireFinding>,
    #[serde(default)]
    checked: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    unchecked: BTreeMap<String, Vec<String>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireFinding {
    rule: String,
    kind: String,
    tier: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    fields: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    signal: Option<String>,
    count: u64,
}

/// Read a baseline file. `shown` names it in errors.
pub(super) fn load(path: &Path, shown: &str) -> Result<Baseline, BaselineError> {
    let err = |message: String| BaselineError {
        location: shown.to_owned(),
        message,
    };
    let bytes = crate::inputs::read_limited(path, MAX_BYTES, crate::inputs::Pipes::Refuse)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                err(format!(
                    "no such baseline: record one with `tracelint check … --baseline {shown} --update-baseline`"
                ))
            } else {
                err(format!("cannot read the baseline: {e}"))
            }
        })?;
    let text =
        String::from_utf8(bytes).map_err(|_| err("the baseline is not UTF-8 text".into()))?;
    parse(&text, shown)
}

/// Parse baseline text.
pub fn parse(text: &str, shown: &str) -> Result<Baseline, BaselineError> {
    let err = |message: String| BaselineError {
        location: shown.to_owned(),
        message,
    };
    // The version first, so a file from a newer tracelint says so rather than failing on a key
    // this one does not know.
    // Only the top-level keys are read here, their values left as text: parsing the whole file
    // into a `Value` cost ten times its size.
    let version = serde_json::from_str::<std::collections::HashMap<String, &serde_json::value::RawValue>>(text)
        .ok()
        .and_then(|top| top.get("version").and_then(|v| serde_json::from_str::<u64>(v.get()).ok()));
    if let Some(v) = version.filter(|v| *v != u64::from(VERSION)) {
        return Err(err(format!(
            "baseline version {v} is not supported (this tracelint reads version {VERSION}): re-record it with `--update-baseline`"
        )));
    }
    let wire: WireBaseline = serde_json::from_str(text).map_err(|e| BaselineError {
        location: format!("{shown}:{}:{}", e.line(), e.column()),
        message: format!("not a tracelint baseline: {e}"),
    })?;
    let gate = wire
        .gate
        .as_deref()
        .map(|g| {
            Tier::parse(g).ok_or_else(|| {
                err(format!(
                    "`gate`: unknown tier `{g}` (expected hard_defect, hard_event or candidate)"
                ))
            })
        })
        .transpose()?;
    let mut files = BTreeMap::new();
    for (name, f) in wire.files {
        let at = |what: String| err(format!("files.{name:?}: {what}"));
        let mut entry = FileEntry::default();
        for (i, w) in f.findings.into_iter().enumerate() {
            let rule = rule_of(&w.rule).map_err(|m| at(format!("findings[{i}]: {m}")))?;
            let tier = Tier::parse(&w.tier).ok_or_else(|| {
                at(format!(
                    "findings[{i}]: unknown tier `{}` (expected hard_defect, hard_event or candidate)",
                    w.tier
                ))
            })?;
            if w.count == 0 {
                return Err(at(format!("findings[{i}]: `count` must be at least 1")));
            }
            let key = Key {
                rule,
                kind: w.kind,
                tools: w.tools,
                fields: w.fields,
                signal: w.signal,
            };
            *entry.findings.entry((key, tier)).or_default() += w.count;
        }
        for (what, map, into) in [
            ("checked", f.checked, &mut entry.checked),
            ("unchecked", f.unchecked, &mut entry.unchecked),
        ] {
            for (r, tools) in map {
                let rule = rule_of(&r).map_err(|m| at(format!("{what}: {m}")))?;
                into.insert(rule, tools.into_iter().collect::<BTreeSet<_>>());
            }
        }
        files.insert(name, entry);
    }
    Ok(Baseline {
        schema: wire.schema,
        gate,
        files,
    })
}

fn rule_of(id: &str) -> Result<RuleId, String> {
    RuleId::parse(id).ok_or_else(|| {
        format!(
            "unknown rule `{id}` (written by a newer tracelint? run `tracelint rules` for this one's)"
        )
    })
}

/// The file's bytes for `baseline`: deterministic for a given state.
pub fn render(baseline: &Baseline) -> String {
    let files = baseline
        .files
        .iter()
        .filter(|(_, e)| !e.is_empty())
        .map(|(name, e)| {
            let findings = e
                .findings
                .iter()
                .map(|((k, tier), count)| WireFinding {
                    rule: k.rule.as_str().to_owned(),
                    kind: k.kind.clone(),
                    tier: tier.as_str().to_owned(),
                    tools: k.tools.clone(),
                    fields: k.fields.clone(),
                    signal: k.signal.clone(),
                    count: *count,
                })
                .collect();
            let list = |m: &BTreeMap<RuleId, BTreeSet<String>>| {
                m.iter()
                    .map(|(r, t)| (r.as_str().to_owned(), t.iter().cloned().collect()))
                    .collect()
            };
            (
                name.clone(),
                WireFile {
                    findings,
                    checked: list(&e.checked),
                    unchecked: list(&e.unchecked),
                },
            )
        })
        .collect();
    let wire = WireBaseline {
        schema: baseline.schema.clone(),
        version: VERSION,
        gate: baseline.gate.map(|t| t.as_str().to_owned()),
        files,
    };
    let mut text = crate::reporters::escape::json_text(
        serde_json::to_string_pretty(&wire).expect("plain data serialises"),
    );
    text.push('\n');
    text
}

/// Write `baseline` to `path` (creating its folder).
pub(super) fn write(path: &Path, shown: &str, baseline: &Baseline) -> Result<(), BaselineError> {
    let err = |e: std::io::Error| BaselineError {
        location: shown.to_owned(),
        message: format!("cannot write the baseline: {e}"),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, render(baseline)).map_err(err)
}
