//! `ReportView::new`: a `Report` in the order a reader wants it (summary tiles and rule counts,
//! hard defects, the other tiers collapsed by rule, inputs, coverage), every untrusted string
//! cleaned on the way in.

use std::collections::{BTreeMap, BTreeSet};

use crate::finding::{Finding, Tier};

use super::super::Report;

use super::timeline::{Timelines, traces};
use super::view::{clean, plural, thousands};
use super::{
    ChainLink, ChainView, Count, CoverageView, EvidenceView, FindingView, Group, InputView,
    IssueView, ReportView, RuleRow, Section, Seg, SuppressionView, Tile, WorstRow,
};

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

/// A finding's message for a card that lists its details: where the message repeats them (a
/// schema violation's message is its errors joined by `; `), they are counted there instead,
/// so each is shown once.
pub(super) fn listed_once(f: &Finding) -> std::borrow::Cow<'_, str> {
    if f.details.len() < 2 {
        return f.message.as_str().into();
    }
    let joined = f.details.join("; ");
    match f.message.find(&joined) {
        Some(at) => {
            let mut message = f.message.clone();
            message.replace_range(
                at..at + joined.len(),
                &format!("{} errors, listed below", f.details.len()),
            );
            message.into()
        }
        None => f.message.as_str().into(),
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
        message: segments(&listed_once(f)),
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

/// Most finding cards a group draws; the JSON report has the rest.
pub(super) const MAX_CARDS: usize = 5;
/// Most groups a section draws.
const MAX_GROUPS: usize = 200;
/// Most rows of the "worst first" table.
const MAX_WORST: usize = 100;
/// Most runs drawn step by step.
pub(super) const MAX_TRACES: usize = 50;
/// Most suppressions listed.
const MAX_SUPPRESSIONS: usize = 200;
/// Most inputs listed.
const MAX_INPUTS: usize = 1000;

/// A message's shape: quoted values (backticks, double quotes) and numbers left out, so one
/// mistake repeated over many calls is one group.
pub(super) fn shape(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quote: Option<char> = None;
    let mut last_digit = false;
    for c in message.chars() {
        match quote {
            Some(q) if c == q => {
                out.push(c);
                quote = None;
            }
            Some(_) => {}
            None if c == '`' || c == '"' => {
                out.push(c);
                out.push('…');
                quote = Some(c);
            }
            None if c.is_ascii_digit() => {
                if !last_digit {
                    out.push('#');
                }
            }
            None => out.push(c),
        }
        last_digit = quote.is_none() && c.is_ascii_digit();
    }
    out
}

/// A group's key: rule, tool, message shape.
type GroupKey<'a> = (crate::finding::RuleId, &'a str, String);

/// A run with findings: (input, run id), its counts, its chain (index into the chains).
type RunRow = ((usize, String), RunCounts, Option<usize>);

/// Every section: hard defects, hard events, candidates, ignored findings, each grouped by rule,
/// tool and message shape (largest group first), each group drawing its first `MAX_CARDS`
/// findings. Also which findings have a card on the page.
fn sections(
    report: &Report,
    order: &[(usize, &Finding)],
    tl: &Timelines<'_>,
) -> (Vec<Section>, BTreeSet<usize>) {
    let kinds: [(&'static str, &'static str, &'static str, &'static str, &'static str); 4] = [
        ("hard-defects", "Hard defects", "hard_defect", "hard defect", "hard defects"),
        ("hard-events", "Hard events", "hard_event", "hard event", "hard events"),
        ("candidates", "Candidates", "candidate", "candidate", "candidates"),
        ("ignored", "Ignored with a reason", "ignored", "ignored finding", "ignored findings"),
    ];
    let mut drawn = BTreeSet::new();
    let sections = kinds
        .into_iter()
        .map(|(id, title, class, one, many)| {
            // (rule, tool, shape) → the group's findings, in reading order.
            let mut keyed: BTreeMap<GroupKey<'_>, Vec<(usize, &Finding)>> = BTreeMap::new();
            let mut total = 0;
            for (i, f) in order {
                let in_section = match class {
                    "ignored" => f.ignored.is_some(),
                    tier => f.ignored.is_none() && f.tier.as_str() == tier,
                };
                if in_section {
                    total += 1;
                    keyed
                        .entry((f.rule, f.tool.as_deref().unwrap_or(""), shape(&f.message)))
                        .or_default()
                        .push((*i, f));
                }
            }
            let mut keyed: Vec<_> = keyed.into_iter().collect();
            // Largest first; then rule, tool and shape.
            keyed.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
            let more_groups = keyed.len().saturating_sub(MAX_GROUPS);
            let groups = keyed
                .into_iter()
                .take(MAX_GROUPS)
                .map(|((rule, tool, _), findings)| {
                    let first = findings[0].1;
                    for (i, _) in findings.iter().take(MAX_CARDS) {
                        drawn.insert(*i);
                    }
                    Group {
                        rule: rule.as_str(),
                        tool: clean(tool),
                        message: segments(&first.message),
                        class,
                        count: thousands(findings.len()),
                        noun: plural(findings.len(), one, many),
                        more: findings.len().saturating_sub(MAX_CARDS),
                        findings: findings
                            .iter()
                            .take(MAX_CARDS)
                            .map(|(i, f)| finding_view(report, *i, f, tl))
                            .collect(),
                    }
                })
                .collect();
            Section {
                id,
                title,
                total: thousands(total),
                more_groups,
                groups,
            }
        })
        .collect();
    (sections, drawn)
}

/// Active findings of one run counted by tier.
#[derive(Default)]
struct RunCounts {
    hard_defect: usize,
    hard_event: usize,
    candidate: usize,
}

/// The runs with active findings, worst first (most hard defects, then hard events, then
/// candidates), each with its first failure.
fn worst(report: &Report, chains: &[crate::chain::Chain]) -> Vec<RunRow> {
    let mut runs: BTreeMap<(usize, &str), RunCounts> = BTreeMap::new();
    for f in report.active() {
        let c = runs.entry((f.input, f.run_id.as_str())).or_default();
        match f.tier {
            Tier::HardDefect => c.hard_defect += 1,
            Tier::HardEvent => c.hard_event += 1,
            Tier::Candidate => c.candidate += 1,
        }
    }
    let head_of: BTreeMap<(usize, &str), usize> = chains
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let f = &report.findings[c.head];
            ((f.input, f.run_id.as_str()), k)
        })
        .collect();
    let mut rows: Vec<_> = runs
        .into_iter()
        .map(|((input, run), c)| {
            let chain = head_of.get(&(input, run)).copied();
            ((input, run.to_owned()), c, chain)
        })
        .collect();
    rows.sort_by(|a, b| {
        (b.1.hard_defect, b.1.hard_event, b.1.candidate)
            .cmp(&(a.1.hard_defect, a.1.hard_event, a.1.candidate))
            .then_with(|| a.0.cmp(&b.0))
    });
    rows
}

/// A finding in a few words: `R2a search_orders: message`.
fn headline(f: &Finding) -> Vec<Seg> {
    let mut head = format!("{} ", f.rule);
    if let Some(tool) = &f.tool {
        head.push_str(&format!("{tool}: "));
    }
    let mut segs = vec![Seg {
        text: clean(&head),
        code: false,
    }];
    segs.extend(segments(&f.message));
    segs
}

/// A chain as the page shows it: links to cards and steps that are drawn.
fn chain_view(
    report: &Report,
    c: &crate::chain::Chain,
    drawn: &BTreeSet<usize>,
    tl: &Timelines<'_>,
) -> ChainView {
    let card = |i: usize| drawn.contains(&i).then(|| format!("#f{i}"));
    let head = &report.findings[c.head];
    ChainView {
        tier: head.tier.as_str(),
        first: headline(head),
        href: card(c.head),
        follows: c
            .follows
            .iter()
            .map(|i| {
                let f = &report.findings[*i];
                ChainLink {
                    text: format!("{} ({}) at line {}", f.rule, f.tier, f.at().line),
                    href: card(*i),
                }
            })
            .collect(),
        steps: c
            .steps
            .iter()
            .map(|s| ChainLink {
                text: format!("step {} ({}), line {}", s.step, clean(&s.note), s.at.line),
                href: tl.step_href(head, s.step),
            })
            .collect(),
        more: c.more_follows + c.more_steps,
    }
}

impl ReportView {
    /// The view of a report.
    pub fn new(report: &Report) -> Self {
        let s = &report.summary;
        let tile = |label, value: usize, class| Tile {
            label,
            value: thousands(value),
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
        let chains = report.first_failures();
        let runs = worst(report, &chains);
        // The worst runs are drawn step by step; the others only counted.
        let drawn_runs: Vec<(usize, &str)> = runs
            .iter()
            .take(MAX_TRACES)
            .map(|((input, run), _, _)| (*input, run.as_str()))
            .collect();
        let tl = Timelines::new(report, &drawn_runs);
        let (sections, drawn) = sections(report, &order, &tl);
        let count = |label, value| Count { label, value };
        let worst_rows: Vec<WorstRow> = runs
            .iter()
            .take(MAX_WORST)
            .map(|((input, run), c, chain)| {
                let head = chain.map(|k| &report.findings[chains[k].head]);
                let path = report.path_of(*input);
                WorstRow {
                    file: clean(path),
                    run_id: if run == path { String::new() } else { clean(run) },
                    hard_defect: thousands(c.hard_defect),
                    hard_event: thousands(c.hard_event),
                    candidate: thousands(c.candidate),
                    first_tier: head.map_or("", |f| f.tier.as_str()),
                    first: head.map(headline).unwrap_or_default(),
                    then: chain
                        .map(|k| {
                            let mut rules: Vec<&str> = Vec::new();
                            for i in &chains[k].follows {
                                let r = report.findings[*i].rule.as_str();
                                if !rules.contains(&r) {
                                    rules.push(r);
                                }
                            }
                            if rules.is_empty() {
                                String::new()
                            } else {
                                format!("then {}", rules.join(", "))
                            }
                        })
                        .unwrap_or_default(),
                    href: tl.run_href(*input, run).or_else(|| {
                        chain
                            .map(|k| chains[k].head)
                            .filter(|i| drawn.contains(i))
                            .map(|i| format!("#f{i}"))
                    }),
                }
            })
            .collect();
        let mut left_out = Vec::new();
        if runs.len() > MAX_WORST {
            left_out.push(format!(
                "the worst {} of {} runs with findings are listed",
                MAX_WORST,
                thousands(runs.len())
            ));
        }
        if runs.len() > MAX_TRACES {
            left_out.push(format!(
                "the worst {MAX_TRACES} runs are drawn step by step"
            ));
        }
        let cards_left: usize = sections
            .iter()
            .flat_map(|s| s.groups.iter().map(|g| g.more))
            .sum::<usize>();
        if cards_left > 0 {
            left_out.push(format!(
                "each group of findings shows its first {MAX_CARDS} ({} findings are not drawn)",
                thousands(cards_left)
            ));
        }
        if report.suppressions.len() > MAX_SUPPRESSIONS {
            left_out.push(format!(
                "the first {MAX_SUPPRESSIONS} of {} suppressions are listed",
                thousands(report.suppressions.len())
            ));
        }
        if report.inputs.len() > MAX_INPUTS {
            left_out.push(format!(
                "the first {MAX_INPUTS} of {} inputs are listed",
                thousands(report.inputs.len())
            ));
        }
        let chain_of: BTreeMap<(usize, &str), &crate::chain::Chain> = chains
            .iter()
            .map(|c| {
                let f = &report.findings[c.head];
                ((f.input, f.run_id.as_str()), c)
            })
            .collect();
        let traces = traces(report, &drawn_runs, &drawn, |input, run| {
            chain_of
                .get(&(input, run))
                .map(|c| chain_view(report, c, &drawn, &tl))
        });
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
            worst: worst_rows,
            runs_with_findings: thousands(runs.len()),
            left_out,
            rules: report
                .rule_counts()
                .into_iter()
                .map(|r| RuleRow {
                    rule: r.rule.as_str(),
                    summary: segments(r.summary),
                    counts: [
                        count("hard defects", thousands(r.hard_defect)),
                        count("hard events", thousands(r.hard_event)),
                        count("candidates", thousands(r.candidate)),
                        count("ignored", thousands(r.ignored)),
                    ],
                })
                .collect(),
            sections,
            traces,
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
                .take(MAX_SUPPRESSIONS)
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
            suppressions_total: thousands(report.suppressions.len()),
            coverage: report
                .coverage
                .iter()
                .map(|c| CoverageView {
                    rule: c.rule.as_str(),
                    unit: c.unit,
                    decided: thousands(c.coverage.decided),
                    total: thousands(c.coverage.total),
                    percent: percent(c.coverage),
                })
                .collect(),
            inputs: report
                .inputs
                .iter()
                .take(MAX_INPUTS)
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
            inputs_total: thousands(report.inputs.len()),
            unmatched_ignores: report.unmatched_ignores.iter().map(|u| clean(u)).collect(),
        }
    }
}

/// `decided` in hundredths of `total` (100 when nothing was looked at), computed wide: counts
/// `report` reads back from shards are untrusted and may be as large as a `usize` holds.
fn percent(c: crate::finding::Coverage) -> usize {
    let (decided, total) = (c.decided as u128, c.total as u128);
    (decided * 100)
        .checked_div(total)
        .map_or(100, |p| usize::try_from(p).unwrap_or(usize::MAX))
}
