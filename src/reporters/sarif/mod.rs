//! SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: private, hand-written wire
//! structs (ruff style) built from a `Report`, never serialised internals. It owns the tier →
//! level mapping, rule descriptors with help from the rule docs, relative `artifactLocation`s,
//! `partialFingerprints`, suppressions for ignored findings and notifications for input errors
//! and undecided checks. It never reads inputs or runs rules.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::finding::{Finding, RuleMeta, Tier};
use crate::model::Location as SpanAt;

mod wire;

use wire::{
    Artifact, Configuration, CoverageProperty, Descriptor, DescriptorProperties, Driver,
    Fingerprints, Help, Invocation, Loc, Log, Notification, Physical, Region, ResultProperties,
    RuleRef, Run, RunProperties, SarifResult, SarifSuppression, Text, Tool,
};

use super::Report;
use super::escape::{terminal, truncate};
use super::paths::{PathBase, uri_reference};

/// The schema a SARIF log names (the OASIS errata 01 copy).
const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The base the relative URIs are relative to, resolved by the consumer (the checkout root).
const SRCROOT: &str = "%SRCROOT%";
/// Longest message text kept (GitHub shows the start; R1 can list many errors).
const MAX_MESSAGE: usize = 4000;
/// GitHub's limit on `fullDescription.text`.
const MAX_FULL_DESCRIPTION: usize = 1024;

/// The SARIF level of a tier.
fn level(tier: Tier) -> &'static str {
    match tier {
        Tier::HardDefect => "error",
        Tier::HardEvent => "warning",
        Tier::Candidate => "note",
    }
}

/// `schema_violation` → `SchemaViolation` (SARIF's `name` is an identifier-like string).
fn pascal(kind: &str) -> String {
    kind.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The "What it checks" section of a rule doc, on one line, within GitHub's limit.
fn what_it_checks(doc: &str) -> String {
    let body = doc
        .split_once("## What it checks")
        .map_or(doc, |(_, rest)| rest);
    let body = body.split("\n## ").next().unwrap_or(body);
    let text = body.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate(&text, MAX_FULL_DESCRIPTION - 1).into_owned()
}

fn descriptor(meta: &'static RuleMeta) -> Descriptor<'static> {
    Descriptor {
        id: meta.id.as_str(),
        name: pascal(meta.kind.as_str()),
        short_description: Text {
            text: meta.summary.into(),
        },
        full_description: Text {
            text: what_it_checks(meta.explanation).into(),
        },
        help: Help {
            text: meta.explanation,
            markdown: meta.explanation,
        },
        default_configuration: Configuration {
            // The first tier a rule lists is the one it reports at by default.
            level: meta.tiers.first().map_or("warning", |t| level(*t)),
        },
        properties: DescriptorProperties {
            tags: ["tracelint", meta.kind.as_str()],
        },
    }
}

fn physical(uri: &str, at: Option<&SpanAt>) -> Physical {
    Physical {
        artifact_location: Artifact {
            uri: uri.to_owned(),
            uri_base_id: SRCROOT,
        },
        // Line 0 means "the whole file": no region then, never a region at line 0.
        region: at.filter(|a| a.line > 0).map(|a| Region {
            start_line: a.line,
            start_column: a.column.max(1),
        }),
    }
}

/// A stable 64-bit FNV-1a hash (std's hasher may change between Rust releases).
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// What a finding's fingerprint hashes: rule, tool and the content at the primary location with
/// all whitespace removed (GitHub's own line hash ignores whitespace too). The content is the
/// primary step's excerpt: it moves with the step when lines are inserted above it, and the
/// report needs no second read of the input (stdin cannot be re-read).
fn line_hash(f: &Finding) -> u64 {
    let content: String = f
        .evidence
        .first()
        .map(|e| e.excerpt.chars().filter(|c| !c.is_whitespace()).collect())
        .unwrap_or_default();
    fnv1a(&[f.rule.as_str(), f.tool.as_deref().unwrap_or(""), &content])
}

/// A finding's message for SARIF. Untrusted parts (tool names, argument values) have control,
/// bidi and zero-width characters made visible, as on a terminal: code-scanning UIs render the
/// text, and a bidi override would reorder it.
fn message(f: &Finding) -> String {
    let mut text = terminal(&f.message).into_owned();
    if f.details.len() > 1 {
        for d in &f.details {
            text.push_str("\n- ");
            text.push_str(&terminal(d));
        }
    }
    if let Some(help) = &f.help {
        text.push_str("\nhelp: ");
        text.push_str(&terminal(help));
    }
    truncate(&text, MAX_MESSAGE).into_owned()
}

fn build<'a>(report: &'a Report, base: &PathBase) -> Log<'a> {
    let uris: Vec<String> = report
        .inputs
        .iter()
        .map(|i| uri_reference(&base.relative(&i.path)))
        .collect();
    let uri_of = |input: usize| uris.get(input).cloned().unwrap_or_else(|| "-".into());
    let rule_index = |id| report.rules.iter().position(|m| m.id == id);
    // Occurrences of each (file, hash), in the report's deterministic order.
    let mut seen: BTreeMap<(usize, u64), usize> = BTreeMap::new();
    let results = report
        .findings
        .iter()
        .map(|f| {
            let hash = line_hash(f);
            let n = seen.entry((f.input, hash)).or_default();
            *n += 1;
            let uri = uri_of(f.input);
            SarifResult {
                rule_id: f.rule.as_str(),
                rule_index: rule_index(f.rule),
                level: level(f.tier),
                message: Text {
                    text: message(f).into(),
                },
                locations: [Loc {
                    id: None,
                    physical_location: physical(&uri, Some(f.at())),
                    message: None,
                }],
                related_locations: f
                    .evidence
                    .iter()
                    .enumerate()
                    .skip(1)
                    .map(|(i, e)| Loc {
                        id: Some(i),
                        physical_location: physical(&uri, Some(&e.at)),
                        message: Some(Text {
                            text: format!("step {} ({}): {}", e.step, e.note, terminal(&e.excerpt))
                                .into(),
                        }),
                    })
                    .collect(),
                partial_fingerprints: Fingerprints {
                    primary_location_line_hash: format!("{hash:016x}:{n}"),
                },
                suppressions: f
                    .ignored
                    .as_deref()
                    .map(|reason| SarifSuppression {
                        kind: "external",
                        status: "accepted",
                        justification: reason,
                    })
                    .into_iter()
                    .collect(),
                properties: ResultProperties {
                    tier: f.tier.as_str(),
                    kind: f.kind.as_str(),
                    run_id: &f.run_id,
                    pointer: &f.at().pointer,
                    tool: f.tool.as_deref(),
                    possible_false_positive: f.possible_false_positive,
                },
            }
        })
        .collect();
    let mut notes = Vec::new();
    for issue in &report.issues {
        let at = SpanAt::new(issue.line, issue.column, "");
        notes.push(Notification {
            level: "error",
            message: Text {
                text: format!("input error: {}", issue.message).into(),
            },
            locations: vec![Loc {
                id: None,
                physical_location: physical(&uri_reference(&base.relative(&issue.path)), Some(&at)),
                message: None,
            }],
            associated_rule: None,
        });
    }
    for s in &report.suppressions {
        notes.push(Notification {
            level: "note",
            message: Text {
                text: format!(
                    "{} could not decide{} in run `{}`: {}",
                    s.rule,
                    s.tool
                        .as_deref()
                        .map(|t| format!(" a call to `{t}`"))
                        .unwrap_or_default(),
                    s.run_id,
                    s.reason
                )
                .into(),
            },
            locations: vec![Loc {
                id: None,
                physical_location: physical(&uri_of(s.input), s.at.as_ref()),
                message: None,
            }],
            associated_rule: Some(RuleRef {
                id: s.rule.as_str(),
                index: rule_index(s.rule),
            }),
        });
    }
    for u in &report.unmatched_ignores {
        notes.push(Notification {
            level: "warning",
            message: Text {
                text: format!("ignore matched nothing: {u}").into(),
            },
            locations: Vec::new(),
            associated_rule: None,
        });
    }
    Log {
        schema: SCHEMA_URI,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "tracelint",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules: report.rules.iter().map(|m| descriptor(m)).collect(),
                },
            },
            invocations: [Invocation {
                execution_successful: report.issues.is_empty(),
                exit_code: i32::from(report.exit.code()),
                tool_execution_notifications: notes,
            }],
            results,
            column_kind: "unicodeCodePoints",
            properties: RunProperties {
                fail_on: report.fail_on.map_or("hard_defect", |t| t.as_str()),
                coverage: report
                    .coverage
                    .iter()
                    .map(|c| CoverageProperty {
                        rule: c.rule.as_str(),
                        unit: c.unit,
                        decided: c.coverage.decided,
                        total: c.coverage.total,
                    })
                    .collect(),
            },
        }],
    }
}

/// The SARIF log as a JSON value (tests validate it against the official schema).
pub fn to_value(report: &Report, base: &PathBase) -> serde_json::Value {
    serde_json::to_value(build(report, base)).expect("plain data serialises")
}

/// Render the SARIF log (pretty, with a trailing newline).
pub fn render(report: &Report, base: &PathBase, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &build(report, base))?;
    writeln!(out)
}

#[cfg(test)]
mod tests;
