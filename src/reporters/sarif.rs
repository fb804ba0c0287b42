//! SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: private, hand-written wire
//! structs (ruff style) built from a `Report`, never serialised internals. It owns the tier →
//! level mapping, rule descriptors with help from the rule docs, relative `artifactLocation`s,
//! `partialFingerprints`, suppressions for ignored findings and notifications for input errors
//! and undecided checks. It never reads inputs or runs rules.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::finding::{Finding, RuleMeta, Tier};
use crate::model::Location as SpanAt;

use super::Report;
use super::escape::truncate;
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

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
    column_kind: &'static str,
    properties: RunProperties<'a>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<Descriptor<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor<'a> {
    id: &'static str,
    name: String,
    short_description: Text<'a>,
    full_description: Text<'a>,
    help: Help,
    default_configuration: Configuration,
    properties: DescriptorProperties,
}

#[derive(Serialize)]
struct Text<'a> {
    text: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
struct Help {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct DescriptorProperties {
    tags: [&'static str; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text<'a>,
    locations: [Loc<'a>; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Loc<'a>>,
    partial_fingerprints: Fingerprints,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<SarifSuppression<'a>>,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Loc<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: Physical,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical {
    artifact_location: Artifact,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fingerprints {
    primary_location_line_hash: String,
}

#[derive(Serialize)]
struct SarifSuppression<'a> {
    kind: &'static str,
    status: &'static str,
    justification: &'a str,
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    tier: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    run_id: &'a str,
    pointer: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a str>,
    possible_false_positive: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    exit_code: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: Text<'static>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Loc<'static>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    associated_rule: Option<RuleRef>,
}

#[derive(Serialize)]
struct RuleRef {
    id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
}

#[derive(Serialize)]
struct RunProperties<'a> {
    fail_on: &'static str,
    coverage: Vec<CoverageProperty<'a>>,
}

#[derive(Serialize)]
struct CoverageProperty<'a> {
    rule: &'static str,
    unit: &'a str,
    decided: usize,
    total: usize,
}

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

fn message(f: &Finding) -> String {
    let mut text = f.message.clone();
    if f.details.len() > 1 {
        for d in &f.details {
            text.push_str("\n- ");
            text.push_str(d);
        }
    }
    if let Some(help) = &f.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
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
                            text: format!("step {} ({}): {}", e.step, e.note, e.excerpt).into(),
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
mod tests {
    use super::*;
    use crate::reporters::sample;

    /// The official SARIF 2.1.0 schema (errata 01, draft-04), from the shared data folder.
    fn official_schema() -> jsonschema::Validator {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/sarif/sarif-schema-2.1.0.json"
        );
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("the official SARIF schema must be at {path}: {e}"));
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
    }

    fn errors(v: &serde_json::Value) -> Vec<String> {
        official_schema()
            .iter_errors(v)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }

    #[test]
    fn sample_report_validates_and_matches_the_snapshot() {
        let value = to_value(&sample::report(), &sample::base());
        assert_eq!(errors(&value), Vec::<String>::new());
        // The validator is not vacuous: an unknown level or a line 0 region is rejected.
        let mut bad = value.clone();
        bad["runs"][0]["results"][0]["level"] = "fatal".into();
        assert!(!errors(&bad).is_empty());
        let mut bad = value.clone();
        bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
            0.into();
        assert!(!errors(&bad).is_empty());
        insta::assert_json_snapshot!(value);
    }

    #[test]
    fn levels_suppressions_and_notifications() {
        let value = to_value(&sample::report(), &sample::base());
        let run = &value["runs"][0];
        let levels: Vec<&str> = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["level"].as_str().unwrap())
            .collect();
        assert_eq!(levels, ["error", "note", "warning", "error"]);
        // The ignored finding stays, with an external suppression carrying the reason.
        let ignored = &run["results"][3];
        assert_eq!(ignored["suppressions"][0]["kind"], "external");
        assert_eq!(
            ignored["suppressions"][0]["justification"],
            "legacy traces replayed on purpose"
        );
        let inv = &run["invocations"][0];
        assert_eq!(inv["executionSuccessful"], false);
        assert_eq!(inv["toolExecutionNotifications"][0]["level"], "error");
        // Every URI is relative, non-empty and `/`-separated.
        for r in run["results"].as_array().unwrap() {
            let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap();
            assert!(!uri.is_empty() && !uri.starts_with('/') && !uri.contains('\\'));
        }
    }

    #[test]
    fn fingerprints_are_stable_and_count_occurrences() {
        let a = to_value(&sample::report(), &sample::base());
        let b = to_value(&sample::report(), &sample::base());
        let fp = |v: &serde_json::Value| -> Vec<String> {
            v["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    r["partialFingerprints"]["primaryLocationLineHash"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect()
        };
        assert_eq!(fp(&a), fp(&b));
        let mut report = sample::report();
        // The same call again, further down the same file: same hash, next occurrence.
        let mut again = report.findings[0].clone();
        again.evidence[0].at.line += 40;
        report.findings.insert(1, again);
        let prints = fp(&to_value(&report, &sample::base()));
        let (h0, n0) = prints[0].split_once(':').unwrap();
        let (h1, n1) = prints[1].split_once(':').unwrap();
        assert_eq!((h0, n0, n1), (h1, "1", "2"));
        // Moving a finding to another line keeps its hash.
        report.findings[2].evidence[0].at.line += 7;
        assert_eq!(fp(&to_value(&report, &sample::base()))[2], prints[2]);
    }

    #[test]
    fn rule_descriptors_carry_the_real_docs() {
        let mut report = sample::report();
        report.rules = crate::rules::RULES.iter().map(|r| r.meta()).collect();
        let value = to_value(&report, &sample::base());
        assert_eq!(errors(&value), Vec::<String>::new());
        let rules = value["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        assert!(!rules.is_empty());
        for r in rules {
            assert!(
                r["help"]["markdown"]
                    .as_str()
                    .unwrap()
                    .contains("## How to fix")
            );
            let full = r["fullDescription"]["text"].as_str().unwrap();
            assert!(!full.is_empty() && full.chars().count() <= 1024, "{full}");
            assert!(!full.contains("##"), "{full}");
        }
    }
}
