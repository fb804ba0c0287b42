//! SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: private, hand-written wire
//! structs (ruff style) built from a `Report`, never serialised internals. It owns the tier →
//! level mapping, rule descriptors with help from the rule docs, relative `artifactLocation`s,
//! `partialFingerprints`, suppressions for ignored findings and notifications for input errors
//! and undecided checks. It never reads inputs or runs rules.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::finding::{Finding, RuleMeta, Tier};
use crate::model::Location as SpanAt;

mod place;
mod select;
mod wire;

use wire::{
    CodeFlow, Configuration, CoverageProperty, Descriptor, DescriptorProperties, Driver, Fingerprints, Help,
    Invocation, Loc, Log, Notification, Omitted, ResultProperties, RuleRef, Run, RunProperties,
    SarifResult, SarifSuppression, Text, ThreadFlow, ThreadFlowLocation, Tool,
};

use place::{Uri, line_hash, physical, physical_at, uri_for};
use select::MAX_RELATED;
#[cfg_attr(not(any(test, feature = "__internal")), allow(unused_imports))] // used by tests only
pub use select::{GITHUB_RESULTS_ACCEPTED, GITHUB_RESULTS_KEPT, Selection, select};

use super::Report;
use super::escape::{terminal, truncate};
use super::paths::PathBase;

/// The schema a SARIF log names (the OASIS errata 01 copy).
const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
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

/// A chain as a code flow: one thread through the steps it passes, each at its line.
fn code_flow<'a>(report: &Report, c: &crate::chain::Chain, uri: &Uri) -> CodeFlow<'a> {
    let head = &report.findings[c.head];
    let then: Vec<String> = c
        .follows
        .iter()
        .map(|i| {
            let f = &report.findings[*i];
            format!("{} at line {}", f.rule, f.at().line)
        })
        .collect();
    let mut text = format!(
        "first failure of run `{}`: {} at line {}",
        terminal(&head.run_id),
        head.rule,
        head.at().line
    );
    if !then.is_empty() {
        text.push_str(", then ");
        text.push_str(&then.join(", "));
    }
    if c.more_steps > 0 {
        text.push_str(&format!(
            " ({} more steps are in the JSON report)",
            c.more_steps
        ));
    }
    CodeFlow {
        message: Text { text: text.into() },
        thread_flows: [ThreadFlow {
            locations: c
                .steps
                .iter()
                .enumerate()
                .map(|(order, s)| ThreadFlowLocation {
                    location: Loc {
                        id: None,
                        physical_location: physical_at(uri, Some(&s.at), true),
                        message: Some(Text {
                            text: format!(
                                "step {} ({}): {}",
                                s.step,
                                s.note,
                                report.findings[s.finding].rule
                            )
                            .into(),
                        }),
                    },
                    execution_order: order + 1,
                })
                .collect(),
        }],
    }
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
    // Each run's first failure carries its chain as a code flow (GitHub shows the path).
    let chains: BTreeMap<usize, crate::chain::Chain> = report
        .first_failures()
        .into_iter()
        .filter(|c| c.steps.len() > 1)
        .map(|c| (c.head, c))
        .collect();
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
                code_flows: chains
                    .get(&i)
                    .map(|c| code_flow(report, c, &uri))
                    .into_iter()
                    .collect(),
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
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
pub fn to_value(report: &Report, base: &PathBase) -> serde_json::Value {
    to_value_capped(report, base, Some(GITHUB_RESULTS_KEPT))
}

/// The SARIF log as a JSON value with the given cap.
#[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
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
