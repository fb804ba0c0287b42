//! The HTML report: one self-contained file (inline CSS, no script, no network, no external
//! asset) rendered by the askama template `report.html` over plain view structs, laid out for
//! reading a run: the summary by rule and tier first, hard defects expanded, the other tiers
//! collapsed by rule, then each run with findings as a step timeline (findings marked on the
//! steps they cite, evidence steps linked both ways), filters in CSS only. Every piece of trace
//! content reaches the page through askama's auto-escaping, after invisible and control
//! characters were made visible; nothing is marked `|safe`. The view structs and `Page` are
//! public so `demo --html` can add its own tables and reuse the same page. It owns the view
//! model and the template, and never decides what is found.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use askama::Template;

use crate::finding::{Finding, Tier};

use super::escape::{terminal, truncate};
use super::{Report, StepKind};

/// Longest untrusted value shown on the page, in characters.
const MAX_VALUE: usize = 4000;

/// A whole page: a title, an optional lead paragraph, extra tables (e.g. the demo's PASS/FAIL
/// table) shown before the findings, and the report.
#[derive(Debug, Clone, Template)]
#[template(path = "report.html")]
pub struct Page {
    /// The page title (also the `<title>`).
    pub title: String,
    /// A paragraph under the title.
    pub lead: Option<String>,
    /// Tables shown before the report.
    pub tables: Vec<Table>,
    /// The report.
    pub report: ReportView,
}

/// A generic table (caption, header row, rows of cells).
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The caption.
    pub caption: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<Cell>>,
}

/// One table cell: text and an optional style class (`pass`, `fail`, a tier name).
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// The text (escaped when rendered).
    pub text: String,
    /// A CSS class from the page's own stylesheet.
    pub class: &'static str,
}

impl Cell {
    /// A plain cell of untrusted text.
    pub fn text(s: &str) -> Self {
        Self {
            text: clean(s),
            class: "",
        }
    }

    /// A styled cell.
    pub fn styled(s: &str, class: &'static str) -> Self {
        Self {
            text: clean(s),
            class,
        }
    }
}

/// Everything the page shows about a report, in the order a reader wants it: the summary by
/// rule and tier, hard defects expanded, hard events, candidates and ignored findings collapsed
/// by rule, then each run with findings step by step, then what could not be decided.
#[derive(Debug, Clone, Default)]
pub struct ReportView {
    /// `tracelint 0.1.0`.
    pub generator: String,
    /// The exit code the run ended with.
    pub exit_code: u8,
    /// The tier that fails the run.
    pub fail_on: &'static str,
    /// Summary tiles.
    pub tiles: Vec<Tile>,
    /// Counts by tier for each rule with a finding.
    pub rules: Vec<RuleRow>,
    /// Every active hard defect, in reading order.
    pub hard: Vec<FindingView>,
    /// Hard events, candidates and ignored findings, each collapsed by rule.
    pub sections: Vec<Section>,
    /// The runs with findings, step by step.
    pub traces: Vec<TraceView>,
    /// Input errors.
    pub issues: Vec<IssueView>,
    /// Checks a rule could not decide.
    pub suppressions: Vec<SuppressionView>,
    /// Per-rule coverage.
    pub coverage: Vec<CoverageView>,
    /// The inputs.
    pub inputs: Vec<InputView>,
    /// Configured ignores that matched nothing.
    pub unmatched_ignores: Vec<String>,
}

/// One summary tile.
#[derive(Debug, Clone)]
pub struct Tile {
    /// What it counts.
    pub label: &'static str,
    /// The count.
    pub value: usize,
    /// A CSS class (`hard_defect`, …, or `plain`).
    pub class: &'static str,
}

/// A piece of text, shown as code when the source had it in backticks (`` `limit` ``).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seg {
    /// The text (escaped when rendered).
    pub text: String,
    /// Shown in a `<code>` element.
    pub code: bool,
}

/// One row of the summary by rule.
#[derive(Debug, Clone)]
pub struct RuleRow {
    /// `R1`.
    pub rule: &'static str,
    /// Its one-line summary.
    pub summary: Vec<Seg>,
    /// Hard defects, hard events, candidates, ignored.
    pub counts: [Count; 4],
}

/// One count of a row, with its column's name (for narrow screens).
#[derive(Debug, Clone, Copy)]
pub struct Count {
    /// The column.
    pub label: &'static str,
    /// The count.
    pub value: usize,
}

/// A tier's findings, collapsed by rule.
#[derive(Debug, Clone)]
pub struct Section {
    /// The anchor.
    pub id: &'static str,
    /// The heading.
    pub title: &'static str,
    /// Findings in the section.
    pub total: usize,
    /// One group per rule.
    pub groups: Vec<Group>,
}

/// The findings of one rule in a section: one line ("R3: 412 candidates — show") that opens.
#[derive(Debug, Clone)]
pub struct Group {
    /// The rule.
    pub rule: &'static str,
    /// `hard_event`, `candidate` or `ignored`.
    pub class: &'static str,
    /// How many.
    pub count: usize,
    /// "candidates", "hard event", …
    pub noun: &'static str,
    /// The findings, in reading order.
    pub findings: Vec<FindingView>,
}

/// One finding.
#[derive(Debug, Clone)]
pub struct FindingView {
    /// The anchor (`f12`: the finding's place in the report).
    pub id: String,
    /// `hard_defect` / `hard_event` / `candidate`.
    pub tier: &'static str,
    /// `R1`.
    pub rule: &'static str,
    /// `schema_violation`.
    pub kind: &'static str,
    /// The tool involved.
    pub tool: Option<String>,
    /// `file:line:col`.
    pub position: String,
    /// The run.
    pub run_id: String,
    /// What is wrong.
    pub message: Vec<Seg>,
    /// Itemised details (when more than the message says).
    pub details: Vec<String>,
    /// How to fix (empty: none).
    pub help: Vec<Seg>,
    /// The evidence steps.
    pub evidence: Vec<EvidenceView>,
    /// A legitimate pattern can trip it.
    pub possible_false_positive: bool,
    /// The reason it was ignored, when it was.
    pub ignored: Option<String>,
    /// Its run's timeline, when the run is outlined.
    pub trace_href: Option<String>,
}

/// One evidence step.
#[derive(Debug, Clone)]
pub struct EvidenceView {
    /// Step index.
    pub step: usize,
    /// `line:col`.
    pub position: String,
    /// What it shows.
    pub note: String,
    /// The step's excerpt.
    pub excerpt: String,
    /// The step in its run's timeline, when it is shown there.
    pub href: Option<String>,
}

/// One run with findings, step by step.
#[derive(Debug, Clone)]
pub struct TraceView {
    /// The anchor (`t3`).
    pub id: String,
    /// The input path.
    pub file: String,
    /// The run id.
    pub run_id: String,
    /// Steps in the whole run.
    pub total: usize,
    /// Its findings counted by tier, in words.
    pub counts: String,
    /// Open on load (it holds a hard defect).
    pub open: bool,
    /// The steps shown.
    pub steps: Vec<StepView>,
    /// Steps not shown after the last one.
    pub gap_after: usize,
}

/// One step of a timeline.
#[derive(Debug, Clone)]
pub struct StepView {
    /// Steps not shown just before this one.
    pub gap: usize,
    /// The anchor (`t3-s12`).
    pub id: String,
    /// Step index.
    pub index: usize,
    /// `call`, `ok`, `error`, `result`, `user`, …
    pub kind: &'static str,
    /// A short excerpt.
    pub text: String,
    /// Its line in the input.
    pub line: u32,
    /// Findings citing it.
    pub marks: Vec<Mark>,
}

/// A finding marked on a step: its primary step (tier colour) or one of its evidence steps.
#[derive(Debug, Clone)]
pub struct Mark {
    /// The finding's anchor.
    pub href: String,
    /// `hard_defect`, …, `ignored`, or `evidence`.
    pub class: &'static str,
    /// `R1`.
    pub label: String,
}

/// One input error.
#[derive(Debug, Clone)]
pub struct IssueView {
    /// `file:line:col`.
    pub position: String,
    /// What is wrong.
    pub message: String,
}

/// One suppression.
#[derive(Debug, Clone)]
pub struct SuppressionView {
    /// The rule.
    pub rule: &'static str,
    /// `file:line:col` or the file.
    pub position: String,
    /// The run.
    pub run_id: String,
    /// The tool, or empty.
    pub tool: String,
    /// Why the rule could not decide.
    pub reason: String,
}

/// One rule's coverage.
#[derive(Debug, Clone)]
pub struct CoverageView {
    /// The rule.
    pub rule: &'static str,
    /// What it counts.
    pub unit: &'static str,
    /// Decided.
    pub decided: usize,
    /// Looked at.
    pub total: usize,
    /// Decided, in whole percent of total (100 when nothing was looked at).
    pub percent: usize,
}

/// One input.
#[derive(Debug, Clone)]
pub struct InputView {
    /// The path.
    pub path: String,
    /// The format read.
    pub format: String,
    /// Traces.
    pub traces: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Part of it could not be read.
    pub partial: bool,
    /// Where the schemas came from.
    pub schemas: String,
    /// Notes.
    pub notes: Vec<String>,
}

/// Untrusted text prepared for the page: invisible and control characters made visible (a bidi
/// override must not reorder what the reader sees), bounded in length. HTML escaping is
/// askama's, at render time.
fn clean(s: &str) -> String {
    truncate(&terminal(s), MAX_VALUE).into_owned()
}

/// Untrusted text whose backtick spans (`` `limit` ``, as messages quote names and values) are
/// shown as code; an unpaired backtick stays a backtick. Each piece is escaped when rendered.
fn segments(s: &str) -> Vec<Seg> {
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

fn position(path: &str, line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => clean(path),
        (l, 0) => format!("{}:{l}", clean(path)),
        (l, c) => format!("{}:{l}:{c}", clean(path)),
    }
}

/// Where each outlined run's timeline is, and which of its steps it shows.
struct Timelines<'r> {
    /// (input, run id) → (outline index, shown steps).
    by_run: BTreeMap<(usize, &'r str), (usize, BTreeSet<usize>)>,
}

impl<'r> Timelines<'r> {
    fn new(report: &'r Report) -> Self {
        let mut by_run = BTreeMap::new();
        for (i, o) in report.outlines.iter().enumerate() {
            by_run
                .entry((o.input, o.run_id.as_str()))
                .or_insert_with(|| (i, o.steps.iter().map(|s| s.index).collect()));
        }
        Self { by_run }
    }

    fn trace_href(&self, f: &Finding) -> Option<String> {
        self.by_run
            .get(&(f.input, f.run_id.as_str()))
            .map(|(i, _)| format!("#t{i}"))
    }

    fn step_href(&self, f: &Finding, step: usize) -> Option<String> {
        let (i, shown) = self.by_run.get(&(f.input, f.run_id.as_str()))?;
        shown.contains(&step).then(|| format!("#t{i}-s{step}"))
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

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
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

/// The class of a finding's mark on its primary step.
fn mark_class(f: &Finding) -> &'static str {
    if f.ignored.is_some() {
        "ignored"
    } else {
        f.tier.as_str()
    }
}

/// Each outlined run, with its findings marked on the steps they cite; in the order of the runs'
/// first findings (hard-defect runs open).
fn traces(report: &Report) -> Vec<TraceView> {
    // Findings by (input, run), in report order.
    let mut by_run: BTreeMap<(usize, &str), Vec<(usize, &Finding)>> = BTreeMap::new();
    for (i, f) in report.findings.iter().enumerate() {
        by_run
            .entry((f.input, f.run_id.as_str()))
            .or_default()
            .push((i, f));
    }
    let mut seen = BTreeSet::new();
    let mut views: Vec<((usize, u32, u32), TraceView)> = Vec::new();
    for (k, o) in report.outlines.iter().enumerate() {
        if !seen.insert((o.input, o.run_id.as_str())) {
            continue;
        }
        let Some(findings) = by_run.get(&(o.input, o.run_id.as_str())) else {
            continue;
        };
        let mut marks: BTreeMap<usize, Vec<Mark>> = BTreeMap::new();
        for (i, f) in findings {
            for (n, e) in f.evidence.iter().enumerate() {
                marks.entry(e.step).or_default().push(Mark {
                    href: format!("#f{i}"),
                    class: if n == 0 { mark_class(f) } else { "evidence" },
                    label: if n == 0 {
                        f.rule.as_str().to_owned()
                    } else {
                        format!("{} evidence", f.rule)
                    },
                });
            }
        }
        let mut steps = Vec::with_capacity(o.steps.len());
        let mut next = 0;
        for s in &o.steps {
            steps.push(StepView {
                gap: s.index.saturating_sub(next),
                id: format!("t{k}-s{}", s.index),
                index: s.index,
                kind: s.kind.as_str(),
                text: match (&s.tool, s.kind) {
                    (Some(tool), StepKind::Ok | StepKind::Error | StepKind::Result) => {
                        clean(&format!("{tool} → {}", s.text))
                    }
                    _ => clean(&s.text),
                },
                line: s.line,
                marks: marks.remove(&s.index).unwrap_or_default(),
            });
            next = s.index + 1;
        }
        let count = |t: Tier| {
            findings
                .iter()
                .filter(|(_, f)| f.ignored.is_none() && f.tier == t)
                .count()
        };
        let mut counts = Vec::new();
        for (t, one, many) in [
            (Tier::HardDefect, "hard defect", "hard defects"),
            (Tier::HardEvent, "hard event", "hard events"),
            (Tier::Candidate, "candidate", "candidates"),
        ] {
            let n = count(t);
            if n > 0 {
                counts.push(format!("{n} {}", plural(n, one, many)));
            }
        }
        let ignored = findings.iter().filter(|(_, f)| f.ignored.is_some()).count();
        if ignored > 0 {
            counts.push(format!("{ignored} ignored"));
        }
        let first = findings[0].1.at();
        views.push((
            (o.input, first.line, first.column),
            TraceView {
                id: format!("t{k}"),
                file: clean(report.path_of(o.input)),
                run_id: clean(&o.run_id),
                total: o.total,
                counts: counts.join(", "),
                open: count(Tier::HardDefect) > 0,
                gap_after: o.total.saturating_sub(next),
                steps,
            },
        ));
    }
    views.sort_by_key(|(key, _)| *key);
    views.into_iter().map(|(_, v)| v).collect()
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

impl Page {
    /// The standard page for a `check` report.
    pub fn for_report(report: &Report) -> Self {
        Self {
            title: "tracelint report".into(),
            lead: None,
            tables: Vec::new(),
            report: ReportView::new(report),
        }
    }
}

/// Render any page.
pub fn render_page(page: &Page, out: &mut dyn Write) -> io::Result<()> {
    // Written as it renders: a page of many findings is never held whole as well.
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    page.write_into(&mut out)?;
    out.flush()
}

/// Render the HTML report of a `check` run.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    render_page(&Page::for_report(report), out)
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
