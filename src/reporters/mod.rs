//! Rendering a finished `Report`: the only code that writes findings anywhere. Each format is its
//! own module; wire formats (JSON v1) are frozen structs built `From<&Report>`. Reporters never
//! import rules, adapters or sources: rule metadata arrives as `&'static RuleMeta` values.
//!
//! The `Report` every reporter renders and its summary types are data in `report.rs`; this file
//! holds the order findings are read in and the dispatch over formats.

pub mod escape;
pub mod github;
pub mod html;
pub mod json;
pub mod paths;
pub(crate) mod listed;
mod report;
#[cfg(test)]
pub(crate) mod sample;
pub mod sarif;
pub mod text;

use std::io::Write;

use crate::finding::{Finding, RuleId, Tier};

pub(crate) use listed::Listed;
use listed::reading_key;

pub use report::{
    BaselineReport, ExcerptCut, InputSummary, LostCoverage, Outline, OutlineStep, OutputFormat,
    RenderOptions, Report, RuleCounts, RuleCoverage, StepKind, Summary, TextOptions,
};

impl Report {
    /// Active (not ignored) findings.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.ignored.is_none())
    }

    /// The findings in the order a person reads them (text, HTML, job summary, annotations):
    /// hard defects, then hard events, then candidates, each tier by rule then location; ignored
    /// findings after every active one, in the same order. Wire formats (JSON, SARIF) keep the
    /// report's own order (file, line, column).
    pub(crate) fn reading_order(&self) -> Vec<&Finding> {
        let mut all: Vec<&Finding> = self.findings.iter().collect();
        all.sort_by(|a, b| reading_key(a).cmp(&reading_key(b)));
        all
    }

    /// Counts by tier for every rule with a finding, in rule order (`report.rules` first, then any
    /// other rule a finding names).
    pub(crate) fn rule_counts(&self) -> Vec<RuleCounts> {
        let mut rows: Vec<RuleCounts> = Vec::new();
        let row_of = |rule: RuleId, rows: &mut Vec<RuleCounts>| -> usize {
            match rows.iter().position(|r| r.rule == rule) {
                Some(i) => i,
                None => {
                    rows.push(RuleCounts {
                        rule,
                        summary: self
                            .rules
                            .iter()
                            .find(|m| m.id == rule)
                            .map_or("", |m| m.summary),
                        hard_defect: 0,
                        hard_event: 0,
                        candidate: 0,
                        ignored: 0,
                    });
                    rows.len() - 1
                }
            }
        };
        for f in &self.findings {
            let i = row_of(f.rule, &mut rows);
            let row = &mut rows[i];
            if f.ignored.is_some() {
                row.ignored += 1;
            } else {
                match f.tier {
                    Tier::HardDefect => row.hard_defect += 1,
                    Tier::HardEvent => row.hard_event += 1,
                    Tier::Candidate => row.candidate += 1,
                }
            }
        }
        rows.sort_by_key(|r| r.rule);
        rows
    }

    /// Each run's first failure and the findings that follow from it (indices into
    /// `findings`), in report order.
    pub(crate) fn first_failures(&self) -> Vec<crate::chain::Chain> {
        crate::chain::first_failures(&self.findings)
    }

    /// The path of a finding's input.
    pub(crate) fn path_of(&self, input: usize) -> &str {
        self.inputs.get(input).map_or("-", |i| i.path.as_str())
    }
}

impl RenderOptions {
    /// What the SARIF log or the annotations leave out or cannot place, for stderr (`warning:`
    /// lines), when `formats` holds SARIF or GitHub output.
    pub fn notices(&self, report: &Report, formats: &[OutputFormat]) -> Vec<String> {
        let mut out = Vec::new();
        let sarif = formats.contains(&OutputFormat::Sarif);
        if sarif {
            let selection = sarif::select(report, self.sarif_max_results);
            out.extend(
                selection
                    .notices()
                    .into_iter()
                    .map(|n| format!("sarif: {n}")),
            );
        }
        if sarif || formats.contains(&OutputFormat::Github) {
            let outside: Vec<&str> = report
                .inputs
                .iter()
                .map(|i| i.path.as_str())
                .filter(|p| matches!(self.base.place(p), paths::Place::Outside(_)))
                .collect();
            out.extend(sarif::outside_notice(&outside, &self.base));
        }
        out
    }
}

/// Render a report to `out`.
pub fn render(
    format: OutputFormat,
    report: &Report,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    render_listed(format, report, &report.findings, opts, out)
}

/// The formats that read a report's findings one at a time (`Listed`), so that a run writing
/// only these can keep its findings out of memory (`lint::spill`); the others read
/// `Report::findings`.
pub(crate) fn reads_listed(format: OutputFormat) -> bool {
    matches!(
        format,
        OutputFormat::Text | OutputFormat::Json | OutputFormat::JsonLines
    )
}

/// `render` with the findings `listed` (the report's own, or kept apart from it for a format
/// that `reads_listed`).
pub(crate) fn render_listed(
    format: OutputFormat,
    report: &Report,
    listed: &dyn Listed,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if !reads_listed(format) && listed.len() != report.findings.len() {
        return Err(std::io::Error::other(format!(
            "internal error: the {format:?} report needs the findings in the report"
        )));
    }
    // JSON text: U+2028, U+2029 and U+0085 escaped like the other invisible characters.
    let json = |render: &dyn Fn(&mut dyn Write) -> std::io::Result<()>, out: &mut dyn Write| {
        let mut safe = escape::JsonSafe::new(out);
        render(&mut safe)?;
        safe.flush()
    };
    match format {
        OutputFormat::Text => text::render_listed(report, listed, opts.text, out),
        OutputFormat::Json => json(&|o| json::render_listed(report, listed, o), out),
        OutputFormat::JsonLines => json(&|o| json::render_lines_listed(report, listed, o), out),
        OutputFormat::Sarif => json(
            &|o| sarif::render(report, &opts.base, opts.sarif_max_results, o),
            out,
        ),
        OutputFormat::Html => html::render(report, out),
        OutputFormat::Github => github::render(report, &opts.base, out),
    }
}
