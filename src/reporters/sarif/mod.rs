//! SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: private, hand-written wire
//! structs (ruff style) built from a `Report`, never serialised internals. It owns the tier →
//! level mapping, rule descriptors with help from the rule docs, relative `artifactLocation`s,
//! `partialFingerprints`, suppressions for ignored findings and notifications for input errors
//! and undecided checks. It never reads inputs or runs rules.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};

use crate::finding::{Finding, RuleId, RuleMeta, Tier};
use crate::model::Location as SpanAt;

mod wire;

use wire::{
    Artifact, Configuration, CoverageProperty, Descriptor, DescriptorProperties, Driver,
    Fingerprints, Help, Invocation, Loc, Log, Notification, Omitted, Physical, Region,
    ResultProperties, RuleRef, Run, RunProperties, SarifResult, SarifSuppression, Text, Tool,
};

use super::Report;
use super::escape::{terminal, truncate};
use super::paths::{PathBase, Place, file_uri, uri_reference};

// GitHub code scanning's documented limits on an uploaded SARIF file, from "SARIF results exceed
// one or more limits" (docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/
// results-exceed-limit: the table of maximum values and display limits), the same table in "SARIF
// support for code scanning" (.../integrating-with-code-scanning/sarif-support-for-code-scanning),
// and the REST endpoint "Upload an analysis as SARIF data" ("a maximum of 5000 results per analysis
// run. Any results over this limit are ignored and any SARIF uploads with more than 25,000 results
// are rejected"):
//   runs per file 20 (we write 1); rules per run 25,000 (we write one per rule); tags per rule 20,
//   10 shown (we write 2);
//   results per run 25,000 — a file with more is rejected — and "only the top 5,000 results will
//   be included, prioritized by severity" (the rest are dropped without a word in the log);
//   locations per result 1,000, of which 100 are included;
//   the gzip-compressed file at most 10 MB (".../troubleshooting-sarif-uploads/file-too-large").
// So by default a log holds at most 5,000 results, chosen here rather than by GitHub: candidates
// are the first to go, then hard events; a hard defect never is. `--sarif-max-results` changes
// the cap.

/// Results per run GitHub code scanning stores and shows: the default cap.
pub const GITHUB_RESULTS_KEPT: usize = 5_000;
/// Results per run past which GitHub code scanning rejects the whole file.
pub const GITHUB_RESULTS_ACCEPTED: usize = 25_000;
/// Related locations kept per result (GitHub includes 100 locations of a result).
const MAX_RELATED: usize = 99;

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

/// An input's artifact URI: relative to `%SRCROOT%` when it is under the root, else an absolute
/// `file:` URI (no base), never a `../` reference that no consumer could place.
#[derive(Debug, Clone)]
struct Uri {
    uri: String,
    relative: bool,
}

fn uri_for(base: &PathBase, path: &str) -> Uri {
    match base.place(path) {
        Place::Inside(rel) => Uri {
            uri: uri_reference(&rel),
            relative: true,
        },
        Place::Outside(abs) => Uri {
            uri: file_uri(&abs),
            relative: false,
        },
    }
}

/// Where a result or notification points; only a result's region marks the step's extent.
fn physical(uri: &Uri, at: Option<&SpanAt>) -> Physical {
    physical_at(uri, at, false)
}

fn physical_at(uri: &Uri, at: Option<&SpanAt>, extent: bool) -> Physical {
    Physical {
        artifact_location: Artifact {
            uri: uri.uri.clone(),
            uri_base_id: uri.relative.then_some(SRCROOT),
        },
        // Line 0 means "the whole file": no region then, never a region at line 0.
        region: at.filter(|a| a.line > 0).map(|a| {
            let start_column = a.column.max(1);
            // The step's extent, when the adapter knew it (and it is a real, forward one).
            let end = a
                .end
                .filter(|_| extent)
                .filter(|e| e.line > a.line || (e.line == a.line && e.column > start_column));
            Region {
                start_line: a.line,
                start_column,
                end_line: end.map(|e| e.line),
                end_column: end.map(|e| e.column),
            }
        }),
    }
}

/// Which findings become results, and what was left out.
#[derive(Debug, Clone)]
pub struct Selection {
    /// Per finding of the report: kept.
    keep: Vec<bool>,
    /// Left out, by class (see `class`) and rule.
    omitted: BTreeMap<(usize, RuleId), usize>,
    /// Active hard defects (all kept).
    hard_defects: usize,
    /// The cap in force (`None`: no cap).
    cap: Option<usize>,
}

/// The order results are given up in: 0 active hard defects (never), 1 active hard events,
/// 2 active candidates, 3 ignored findings (accepted with a reason), last kept first to go.
fn class(f: &Finding) -> usize {
    if f.ignored.is_some() {
        return 3;
    }
    match f.tier {
        Tier::HardDefect => 0,
        Tier::HardEvent => 1,
        Tier::Candidate => 2,
    }
}

/// Choose at most `cap` results (every hard defect even past it): whole classes while they fit,
/// then the class that does not fit shared out round-robin by rule in report order, so one noisy
/// rule cannot crowd the others out.
pub fn select(report: &Report, cap: Option<usize>) -> Selection {
    let mut keep = vec![false; report.findings.len()];
    let mut by_class: [Vec<usize>; 4] = Default::default();
    for (i, f) in report.findings.iter().enumerate() {
        by_class[class(f)].push(i);
    }
    let mut slots = cap.map_or(usize::MAX, |c| c.saturating_sub(by_class[0].len()));
    let mut omitted = BTreeMap::new();
    for &i in &by_class[0] {
        keep[i] = true;
    }
    for (c, members) in by_class.iter().enumerate().skip(1) {
        if members.len() <= slots {
            slots -= members.len();
            for &i in members {
                keep[i] = true;
            }
            continue;
        }
        let mut by_rule: BTreeMap<RuleId, VecDeque<usize>> = BTreeMap::new();
        for &i in members {
            by_rule
                .entry(report.findings[i].rule)
                .or_default()
                .push_back(i);
        }
        while slots > 0 && by_rule.values().any(|q| !q.is_empty()) {
            for q in by_rule.values_mut() {
                if slots == 0 {
                    break;
                }
                if let Some(i) = q.pop_front() {
                    keep[i] = true;
                    slots -= 1;
                }
            }
        }
        for (rule, q) in by_rule {
            if !q.is_empty() {
                omitted.insert((c, rule), q.len());
            }
        }
    }
    Selection {
        keep,
        omitted,
        hard_defects: by_class[0].len(),
        cap,
    }
}

impl Selection {
    /// Results left out, by tier.
    fn omitted_counts(&self) -> Omitted {
        let mut o = Omitted::default();
        for ((c, _), n) in &self.omitted {
            match c {
                1 => o.hard_event += n,
                2 => o.candidate += n,
                _ => o.ignored += n,
            }
        }
        o
    }

    /// Results kept.
    pub fn kept(&self) -> usize {
        self.keep.iter().filter(|k| **k).count()
    }

    /// What the log leaves out and why, or what GitHub will refuse; empty when neither.
    pub fn notices(&self) -> Vec<String> {
        let mut out = Vec::new();
        let left: usize = self.omitted.values().sum();
        if left > 0 {
            let mut parts = Vec::new();
            for (c, one, many) in [
                (2, "candidate", "candidates"),
                (1, "hard event", "hard events"),
                (3, "ignored finding", "ignored findings"),
            ] {
                let rules: Vec<String> = self
                    .omitted
                    .iter()
                    .filter(|((k, _), _)| *k == c)
                    .map(|((_, r), n)| format!("{r} {n}"))
                    .collect();
                let n: usize = self
                    .omitted
                    .iter()
                    .filter(|((k, _), _)| *k == c)
                    .map(|(_, n)| n)
                    .sum();
                if n > 0 {
                    parts.push(format!(
                        "{n} {} ({})",
                        if n == 1 { one } else { many },
                        rules.join(", ")
                    ));
                }
            }
            out.push(format!(
                "left out {left} of {} results to stay within {} results per run (GitHub code scanning shows only the top {GITHUB_RESULTS_KEPT} and refuses a file with more than {GITHUB_RESULTS_ACCEPTED}): {}; every hard defect is kept; --sarif-max-results N changes the cap (0: none), and the JSON report lists every finding",
                self.keep.len(),
                self.cap.unwrap_or(0),
                parts.join(", ")
            ));
        }
        let kept = self.kept();
        if kept > GITHUB_RESULTS_ACCEPTED {
            let why = if self.hard_defects > GITHUB_RESULTS_ACCEPTED {
                format!("{} hard defects, all kept", self.hard_defects)
            } else {
                "no cap".to_owned()
            };
            out.push(format!(
                "the log holds {kept} results ({why}): GitHub code scanning refuses a run with more than {GITHUB_RESULTS_ACCEPTED}; lint fewer traces per upload"
            ));
        }
        out
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
    let related = f.evidence.len().saturating_sub(1);
    if related > MAX_RELATED {
        text.push_str(&format!(
            "\n({} more evidence steps are in the JSON report)",
            related - MAX_RELATED
        ));
    }
    truncate(&text, MAX_MESSAGE).into_owned()
}

fn build<'a>(report: &'a Report, base: &PathBase, selection: &Selection) -> Log<'a> {
    let uris: Vec<Uri> = report
        .inputs
        .iter()
        .map(|i| uri_for(base, &i.path))
        .collect();
    let uri_of = |input: usize| {
        uris.get(input).cloned().unwrap_or_else(|| Uri {
            uri: "-".into(),
            relative: true,
        })
    };
    let rule_index = |id| report.rules.iter().position(|m| m.id == id);
    // Occurrences of each (file, hash), in the report's deterministic order, over every finding
    // (kept or not), so a result's fingerprint does not depend on the cap.
    let mut seen: BTreeMap<(usize, u64), usize> = BTreeMap::new();
    let results = report
        .findings
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let hash = line_hash(f);
            let n = seen.entry((f.input, hash)).or_default();
            *n += 1;
            let n = *n;
            if !selection.keep.get(i).copied().unwrap_or(true) {
                return None;
            }
            let uri = uri_of(f.input);
            Some(SarifResult {
                rule_id: f.rule.as_str(),
                rule_index: rule_index(f.rule),
                level: level(f.tier),
                message: Text {
                    text: message(f).into(),
                },
                locations: [Loc {
                    id: None,
                    physical_location: physical_at(&uri, Some(f.at()), true),
                    message: None,
                }],
                related_locations: f
                    .evidence
                    .iter()
                    .enumerate()
                    .skip(1)
                    .take(MAX_RELATED)
                    .map(|(i, e)| Loc {
                        id: Some(i),
                        physical_location: physical_at(&uri, Some(&e.at), true),
                        message: Some(Text {
                            text: if f.rule.is_tool_rule() {
                                format!("{}: {}", e.note, terminal(&e.excerpt))
                            } else {
                                format!("step {} ({}): {}", e.step, e.note, terminal(&e.excerpt))
                            }
                            .into(),
                        }),
                    })
                    .collect(),
                partial_fingerprints: Fingerprints {
                    primary_location_line_hash: format!("{hash:016x}:{n}"),
                },
                // Invisible and control characters made visible here as in messages: viewers
                // render properties and justifications too.
                suppressions: f
                    .ignored
                    .as_deref()
                    .map(|reason| SarifSuppression {
                        kind: "external",
                        status: "accepted",
                        justification: terminal(reason),
                    })
                    .into_iter()
                    .collect(),
                properties: ResultProperties {
                    tier: f.tier.as_str(),
                    kind: f.kind.as_str(),
                    run_id: terminal(&f.run_id),
                    pointer: terminal(&f.at().pointer),
                    tool: f.tool.as_deref().map(terminal),
                    possible_false_positive: f.possible_false_positive,
                },
            })
        })
        .collect();
    let mut notes = Vec::new();
    for issue in &report.issues {
        let at = SpanAt::new(issue.line, issue.column, "");
        notes.push(Notification {
            level: "error",
            message: Text {
                text: format!("input error: {}", terminal(&issue.message)).into(),
            },
            locations: vec![Loc {
                id: None,
                physical_location: physical(&uri_for(base, &issue.path), Some(&at)),
                message: None,
            }],
            associated_rule: None,
        });
    }
    for n in selection.notices() {
        notes.push(Notification {
            level: "warning",
            message: Text { text: n.into() },
            locations: Vec::new(),
            associated_rule: None,
        });
    }
    let outside: Vec<&str> = report
        .inputs
        .iter()
        .zip(&uris)
        .filter(|(_, u)| !u.relative)
        .map(|(i, _)| i.path.as_str())
        .collect();
    if let Some(n) = outside_notice(&outside, base) {
        notes.push(Notification {
            level: "warning",
            message: Text { text: n.into() },
            locations: Vec::new(),
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
                        .map(|t| format!(" a call to `{}`", terminal(t)))
                        .unwrap_or_default(),
                    terminal(&s.run_id),
                    terminal(&s.reason)
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
                text: format!("ignore matched nothing: {}", terminal(u)).into(),
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
                omitted: Some(selection.omitted_counts()).filter(|o| *o != Omitted::default()),
            },
        }],
    }
}

/// What to say about inputs outside the root, if any.
pub fn outside_notice(outside: &[&str], base: &PathBase) -> Option<String> {
    let first = outside.first()?;
    let more = match outside.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!(
        "`{}`{more} {} outside the root `{}`: SARIF names {} by absolute `file:` URI and annotations carry no file, since code scanning cannot place a path outside the repository; pass --sarif-root to relate them to another directory",
        terminal(first),
        if outside.len() == 1 { "is" } else { "are" },
        terminal(&base.root().to_string_lossy()),
        if outside.len() == 1 { "it" } else { "them" },
    ))
}

/// The SARIF log as a JSON value with the default cap (tests validate it against the official
/// schema).
pub fn to_value(report: &Report, base: &PathBase) -> serde_json::Value {
    to_value_capped(report, base, Some(GITHUB_RESULTS_KEPT))
}

/// The SARIF log as a JSON value with the given cap.
pub fn to_value_capped(report: &Report, base: &PathBase, cap: Option<usize>) -> serde_json::Value {
    serde_json::to_value(build(report, base, &select(report, cap))).expect("plain data serialises")
}

/// Render the SARIF log with at most `cap` results (pretty, with a trailing newline).
pub fn render(
    report: &Report,
    base: &PathBase,
    cap: Option<usize>,
    out: &mut dyn Write,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &build(report, base, &select(report, cap)))?;
    writeln!(out)
}

#[cfg(test)]
mod tests;
