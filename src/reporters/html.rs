//! The HTML report: one self-contained file (inline CSS, no script, no network, no external
//! asset) rendered by the askama template `report.html` over plain view structs. Every piece of
//! trace content reaches the page through askama's auto-escaping, after invisible and control
//! characters were made visible; nothing is marked `|safe`. The view structs and `Page` are
//! public so `demo --html` can add its own tables and reuse the same page. It owns the view
//! model and the template, and never decides what is found.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::io::{self, Write};

use askama::Template;

use crate::finding::{Finding, Tier};

use super::Report;
use super::escape::{terminal, truncate};

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

/// Everything the page shows about a report.
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
    /// Findings grouped by trace, in report order.
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

/// The findings of one trace.
#[derive(Debug, Clone)]
pub struct TraceView {
    /// The input path.
    pub file: String,
    /// The trace's run id.
    pub run_id: String,
    /// Its findings, in line order.
    pub findings: Vec<FindingView>,
}

/// One finding.
#[derive(Debug, Clone)]
pub struct FindingView {
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
    /// What is wrong.
    pub message: String,
    /// Itemised details (when more than the message says).
    pub details: Vec<String>,
    /// How to fix.
    pub help: Option<String>,
    /// The evidence steps.
    pub evidence: Vec<EvidenceView>,
    /// A legitimate pattern can trip it.
    pub possible_false_positive: bool,
    /// The reason it was ignored, when it was.
    pub ignored: Option<String>,
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

fn position(path: &str, line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => clean(path),
        (l, 0) => format!("{}:{l}", clean(path)),
        (l, c) => format!("{}:{l}:{c}", clean(path)),
    }
}

fn finding_view(report: &Report, f: &Finding) -> FindingView {
    let path = report.path_of(f.input);
    let at = f.at();
    FindingView {
        tier: f.tier.as_str(),
        rule: f.rule.as_str(),
        kind: f.kind.as_str(),
        tool: f.tool.as_deref().map(clean),
        position: position(path, at.line, at.column),
        message: clean(&f.message),
        details: if f.details.len() > 1 {
            f.details.iter().map(|d| clean(d)).collect()
        } else {
            Vec::new()
        },
        help: f.help.as_deref().map(clean),
        evidence: f
            .evidence
            .iter()
            .map(|e| EvidenceView {
                step: e.step,
                position: format!("{}:{}", e.at.line, e.at.column),
                note: clean(&e.note),
                excerpt: clean(&e.excerpt),
            })
            .collect(),
        possible_false_positive: f.possible_false_positive,
        ignored: f.ignored.as_deref().map(clean),
    }
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
        let mut traces: Vec<TraceView> = Vec::new();
        // (input, run id) → index in `traces`: a trace's section appears where its first
        // finding does, whatever the interleaving, in O(log n) per finding.
        let mut index: BTreeMap<(usize, &str), usize> = BTreeMap::new();
        for f in &report.findings {
            let view = finding_view(report, f);
            match index.entry((f.input, f.run_id.as_str())) {
                Entry::Occupied(e) => traces[*e.get()].findings.push(view),
                Entry::Vacant(e) => {
                    e.insert(traces.len());
                    traces.push(TraceView {
                        file: clean(report.path_of(f.input)),
                        run_id: clean(&f.run_id),
                        findings: vec![view],
                    });
                }
            }
        }
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
    let html = page.render().map_err(io::Error::other)?;
    out.write_all(html.as_bytes())
}

/// Render the HTML report of a `check` run.
pub fn render(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    render_page(&Page::for_report(report), out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporters::sample;

    fn html() -> String {
        let mut out = Vec::new();
        render(&sample::report(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn trace_content_is_escaped() {
        let page = html();
        assert!(!page.contains("<img"), "raw markup from a trace");
        assert!(!page.contains("<script"), "a script element");
        assert!(page.contains("&#60;img src=x onerror=") || page.contains("&lt;img src=x"));
        // Invisible and control characters are shown, not passed through.
        assert!(!page.contains('\u{1b}') && !page.contains('\u{202e}'));
        assert!(page.contains(r"\x1b[31mred\u{202e}rtl"));
    }

    #[test]
    fn self_contained() {
        let page = html();
        for external in ["http://", "https://", "src=\"", "<link", "@import", "url("] {
            assert!(!page.contains(external), "{external} in the page");
        }
        assert!(page.contains("Content-Security-Policy"));
    }

    #[test]
    fn discloses_everything() {
        let page = html();
        for needle in [
            "legacy traces replayed on purpose",
            "the schema has a remote `$ref` (not fetched)",
            "missing.json",
            "no such file or directory",
            "tracelint.toml:12 (R5)",
            "step 5",
            "charge_card {&#34;amount&#34;:1200}",
            "<td>R1</td><td>6</td><td>8</td>",
        ] {
            assert!(page.contains(needle), "{needle} missing");
        }
        for tier in ["hard_defect", "hard_event", "candidate"] {
            assert!(
                page.contains(&format!("id=\"show-{tier}\"")),
                "{tier} filter"
            );
        }
    }

    #[test]
    fn pages_take_extra_tables() {
        let mut page = Page::for_report(&sample::report());
        page.tables.push(Table {
            caption: "validation suite".into(),
            headers: vec!["case".into(), "result".into()],
            rows: vec![vec![
                Cell::text("r1 <planted>"),
                Cell::styled("PASS", "pass"),
            ]],
        });
        let mut out = Vec::new();
        render_page(&page, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("validation suite") && text.contains("r1 &#60;planted&#62;"));
        assert!(text.contains("class=\"pass\""));
    }
}
