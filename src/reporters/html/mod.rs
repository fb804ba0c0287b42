//! The HTML report: one self-contained file (inline CSS, no script, no network, no external
//! asset) rendered by the askama template `report.html` over plain view structs, laid out for
//! reading a run: the summary by rule and tier first, hard defects expanded, the other tiers
//! collapsed by rule, then each run with findings as a step timeline (findings marked on the
//! steps they cite, evidence steps linked both ways), filters in CSS only. Every piece of trace
//! content reaches the page through askama's auto-escaping, after invisible and control
//! characters were made visible; nothing is marked `|safe`. The view structs and `Page` are
//! public so `demo --html` can add its own tables and reuse the same page. It owns the view
//! model and the template, and never decides what is found.

use std::io::{self, Write};

use askama::Template;

use super::Report;

mod build;
mod timeline;
mod view;

use view::clean;
pub use view::{
    ChainLink, ChainView, Count, CoverageView, EvidenceView, FindingView, Group, InputView,
    IssueView, Mark, ReportView, RuleRow, Section, Seg, StepView, SuppressionView, Tile, TraceView,
    WorstRow,
};

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
mod tests;
