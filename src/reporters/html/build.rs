//! `ReportView::new`: a `Report` in the order a reader wants it (summary tiles and rule counts,
//! hard defects, the other tiers collapsed by rule, inputs, coverage), every untrusted string
//! cleaned on the way in.

use std::collections::BTreeMap;

use crate::finding::{Finding, Tier};

use super::super::Report;

use super::timeline::{Timelines, traces};
use super::{
    Count, CoverageView, EvidenceView, FindingView, Group, InputView, IssueView,
    ReportView, RuleRow, Section, Seg, SuppressionView, Tile,
};
use super::view::{clean, plural};

/// Untrusted text whose backtick spans (`` `limit` ``, as messages quote names and values) are
/// shown as code; an unpaired backtick stays a backtick. Each piece is escaped when rendered.
pub(super) fn segments(s: &str) -> Vec<Seg> {
    let text = clean(s);
    let pieces: Vec<&str> = text.split('`').collect();
    // An odd number of pieces means every backtick has a partner.
    let paired = pieces.len() % 2 == 1;
    let mut out: Vec<Seg> = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let code = paired && i % 2 == 1;
        if !paired && i > 0 {
            match out.last_mut() {
                Some(last) if !last.code => last.text.push('`'),
                _ => out.push(Seg {
                    text: "`".into(),
                    code: false,
                }),
            }
        }
        if piece.is_empty() && !code {
            continue;
        }
        match out.last_mut() {
            Some(last) if !last.code && !code => last.text.push_str(piece),
            _ => out.push(Seg {
                text: (*piece).to_owned(),
                code,
            }),
        }
    }
    out
}

pub(super) fn position(path: &str, line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => clean(path),
        (l, 0) => format!("{}:{l}", clean(path)),
        (l, c) => format!("{}:{l}:{c}", clean(path)),
    }
}

fn finding_view(report: &Report, index: usize, f: &Finding, tl: &Timelines<'_>) -> FindingView {
    let path = report.path_of(f.input);
    let at = f.at();
    FindingView {
        id: format!("f{index}"),
        tier: f.tier.as_str(),
        rule: f.rule.as_str(),
        kind: f.kind.as_str(),
        tool: f.tool.as_deref().map(clean),
        position: position(path, at.line, at.column),
        run_id: clean(&f.run_id),
        message: segments(&f.message),
        details: if f.details.len() > 1 {
            f.details.iter().map(|d| clean(d)).collect()
        } else {
            Vec::new()
        },
        help: f.help.as_deref().map(segments).unwrap_or_default(),
        evidence: f
            .evidence
            .iter()
            .map(|e| EvidenceView {
                step: e.step,
                position: format!("{}:{}", e.at.line, e.at.column),
                note: clean(&e.note),
                excerpt: clean(&e.excerpt),
                href: tl.step_href(f, e.step),
            })
            .collect(),
        possible_false_positive: f.possible_false_positive,
        ignored: f.ignored.as_deref().map(clean),
        trace_href: tl.trace_href(f),
    }
}

/// The collapsed sections: hard events, candidates, ignored findings, each by rule.
fn sections(report: &Report, order: &[(usize, &Finding)], tl: &Timelines<'_>) -> Vec<Section> {
    let kinds: [(
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ); 3] = [
        (
            "hard-events",
            "Hard events",
            "hard_event",
            "hard event",
            "hard events",
        ),
        (
            "candidates",
            "Candidates",
            "candidate",
            "candidate",
            "candidates",
        ),
        (
            "ignored",
            "Ignored with a reason",
            "ignored",
            "ignored finding",
            "ignored findings",
        ),
    ];
    kinds
        .into_iter()
        .map(|(id, title, class, one, many)| {
            let mut groups: Vec<Group> = Vec::new();
            for (i, f) in order {
                let in_section = match class {
                    "ignored" => f.ignored.is_some(),
                    tier => f.ignored.is_none() && f.tier.as_str() == tier,
                };
                if !in_section {
                    continue;
                }
                let view = finding_view(report, *i, f, tl);
                match groups.last_mut() {
                    Some(g) if g.rule == f.rule.as_str() => g.findings.push(view),
                    _ => groups.push(Group {
                        rule: f.rule.as_str(),
                        class,
                        count: 0,
                        noun: many,
                        findings: vec![view],
                    }),
                }
            }
            for g in &mut groups {
                g.count = g.findings.len();
                g.noun = plural(g.count, one, many);
            }
            Section {
                id,
                title,
                total: groups.iter().map(|g| g.count).sum(),
                groups,
            }
        })
        .collect()
}

impl ReportView {
    /// The view of a report.
    pub fn new(report: &Report) -> Self {
        let s = &report.summary;
        let tile = |label, value, class| Tile {
            label,
            value,
            class,
        };
        let index_of: BTreeMap<*const Finding, usize> = report
            .findings
            .iter()
            .enumerate()
            .map(|(i, f)| (std::ptr::from_ref(f), i))
            .collect();
        let order: Vec<(usize, &Finding)> = report
            .reading_order()
            .into_iter()
            .map(|f| (index_of[&std::ptr::from_ref(f)], f))
            .collect();
        let tl = Timelines::new(report);
        let hard = order
            .iter()
            .filter(|(_, f)| f.ignored.is_none() && f.tier == Tier::HardDefect)
            .map(|(i, f)| finding_view(report, *i, f, &tl))
            .collect();
        let count = |label, value| Count { label, value };
        Self {
            generator: format!("tracelint {}", env!("CARGO_PKG_VERSION")),
            exit_code: report.exit.code(),
            fail_on: report.fail_on.unwrap_or(Tier::HardDefect).as_str(),
            tiles: vec![
                tile("hard defects", s.hard_defect, "hard_defect"),
                tile("hard events", s.hard_event, "hard_event"),
                tile("candidates", s.candidate, "candidate"),
                tile("ignored", s.ignored, "plain"),
                tile("suppressions", s.suppressions, "plain"),
                tile("input errors", s.input_errors, "error"),
                tile("traces", s.traces, "plain"),
                tile("tool calls", s.tool_calls, "plain"),
            ],
            rules: report
                .rule_counts()
                .into_iter()
                .map(|r| RuleRow {
                    rule: r.rule.as_str(),
                    summary: segments(r.summary),
                    counts: [
                        count("hard defects", r.hard_defect),
                        count("hard events", r.hard_event),
                        count("candidates", r.candidate),
                        count("ignored", r.ignored),
                    ],
                })
                .collect(),
            hard,
            sections: sections(report, &order, &tl),
            traces: traces(report),
            issues: report
                .issues
                .iter()
                .map(|i| IssueView {
                    position: position(&i.path, i.line, i.column),
                    message: clean(&i.message),
                })
                .collect(),
            suppressions: report
                .suppressions
                .iter()
                .map(|sup| SuppressionView {
                    rule: sup.rule.as_str(),
                    position: match &sup.at {
                        Some(at) => position(report.path_of(sup.input), at.line, at.column),
                        None => clean(report.path_of(sup.input)),
                    },
                    run_id: clean(&sup.run_id),
                    tool: sup.tool.as_deref().map(clean).unwrap_or_default(),
                    reason: clean(&sup.reason),
                })
                .collect(),
            coverage: report
                .coverage
                .iter()
                .map(|c| CoverageView {
                    rule: c.rule.as_str(),
                    unit: c.unit,
                    decided: c.coverage.decided,
                    total: c.coverage.total,
                    percent: (c.coverage.decided * 100)
                        .checked_div(c.coverage.total)
                        .unwrap_or(100),
                })
                .collect(),
            inputs: report
                .inputs
                .iter()
                .map(|i| InputView {
                    path: clean(&i.path),
                    format: i.format.as_deref().map(clean).unwrap_or_default(),
                    traces: i.traces,
                    tool_calls: i.tool_calls,
                    partial: i.partial,
                    schemas: clean(&i.schemas.join(", ")),
                    notes: i.notes.iter().map(|n| clean(n)).collect(),
                })
                .collect(),
            unmatched_ignores: report.unmatched_ignores.iter().map(|u| clean(u)).collect(),
        }
    }
}
