//! GitHub Actions output: workflow commands (`::error file=…,line=…,col=…,title=…::message`,
//! `::warning` for hard events, `::notice` for candidates) that become PR annotations, and the
//! Markdown table appended to `$GITHUB_STEP_SUMMARY`. Owns GitHub's escaping of command
//! properties and data, and Markdown escaping of untrusted text; it never decides what is found.

use std::io::{self, Write};

use crate::finding::{Finding, Tier};

use super::Report;
use super::escape::{terminal, truncate};
use super::paths::PathBase;

/// Most findings listed in the step summary (GitHub caps a summary at 1 MiB).
const MAX_SUMMARY_ROWS: usize = 200;
/// Longest untrusted value put in one annotation or table cell, in characters.
const MAX_VALUE: usize = 2000;

/// The command for a tier.
fn command(tier: Tier) -> &'static str {
    match tier {
        Tier::HardDefect => "error",
        Tier::HardEvent => "warning",
        Tier::Candidate => "notice",
    }
}

/// Escape a workflow command's data (after `::`): `%`, CR and LF.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow command property value: the data escapes plus `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Untrusted text made safe for one line: control and invisible characters shown as escapes,
/// then cut to a bounded length.
fn clean(s: &str) -> String {
    truncate(&terminal(s), MAX_VALUE).into_owned()
}

fn location(file: &str, line: u32, column: u32) -> String {
    let mut s = format!("file={}", escape_property(file));
    if line > 0 {
        s.push_str(&format!(",line={line}"));
        if column > 0 {
            s.push_str(&format!(",col={column}"));
        }
    }
    s
}

/// Each input's path relative to the root, resolved once per input (not once per finding).
fn relative_inputs(report: &Report, base: &PathBase) -> Vec<String> {
    report
        .inputs
        .iter()
        .map(|i| base.relative(&i.path))
        .collect()
}

fn file_of(files: &[String], input: usize) -> &str {
    files.get(input).map_or("-", String::as_str)
}

fn annotation(files: &[String], f: &Finding) -> String {
    let at = f.at();
    let file = file_of(files, f.input);
    let title = match &f.tool {
        Some(tool) => format!("{} {} {}", f.rule, f.tier, clean(tool)),
        None => format!("{} {}", f.rule, f.tier),
    };
    // Structural line breaks are ours; any in trace content were escaped by `clean`.
    let mut lines = vec![clean(&f.message)];
    if f.details.len() > 1 {
        lines.extend(f.details.iter().map(|d| format!("- {}", clean(d))));
    }
    for e in &f.evidence {
        lines.push(format!(
            "step {} ({}) at line {}: {}",
            e.step,
            e.note,
            e.at.line,
            clean(&e.excerpt)
        ));
    }
    if let Some(help) = &f.help {
        lines.push(format!("help: {}", clean(help)));
    }
    format!(
        "::{} {},title={}::{}",
        command(f.tier),
        location(file, at.line, at.column),
        escape_property(&title),
        escape_data(&lines.join("\n"))
    )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn counts(report: &Report) -> String {
    let s = &report.summary;
    let mut parts = vec![
        plural(s.hard_defect, "hard_defect", "hard_defects"),
        plural(s.hard_event, "hard_event", "hard_events"),
        plural(s.candidate, "candidate", "candidates"),
    ];
    if s.ignored > 0 {
        parts.push(format!("{} ignored with a reason", s.ignored));
    }
    if s.baselined > 0 {
        parts.push(format!("{} in the baseline", s.baselined));
    }
    if let Some(b) = report.baseline.as_ref().filter(|b| !b.lost.is_empty()) {
        parts.push(plural(b.lost.len(), "coverage loss", "coverage losses"));
    }
    if s.input_errors > 0 {
        parts.push(plural(s.input_errors, "input error", "input errors"));
    }
    parts.join(", ")
}

/// Render workflow commands: one per active finding and per input error, then a plain summary
/// line. Ignored findings are accepted and not annotated.
pub fn render(report: &Report, base: &PathBase, out: &mut dyn Write) -> io::Result<()> {
    for issue in &report.issues {
        writeln!(
            out,
            "::error {},title={}::{}",
            location(&base.relative(&issue.path), issue.line, issue.column),
            escape_property("tracelint input error"),
            escape_data(&clean(&issue.message))
        )?;
    }
    let files = relative_inputs(report, base);
    for f in report.active() {
        writeln!(out, "{}", annotation(&files, f))?;
    }
    // The ratchet fails the run: say where, or the step fails with nothing annotated.
    for l in report.baseline.iter().flat_map(|b| &b.lost) {
        writeln!(
            out,
            "::error {},title={}::{}",
            location(&base.relative(&l.file), 0, 0),
            escape_property("tracelint coverage lost"),
            escape_data(&clean(&l.message))
        )?;
    }
    writeln!(
        out,
        "tracelint: {} in {} ({}) (exit {})",
        counts(report),
        plural(report.summary.traces, "trace", "traces"),
        plural(report.summary.tool_calls, "tool call", "tool calls"),
        report.exit.code()
    )
}

/// Escape untrusted text for a Markdown table cell: every ASCII punctuation character is
/// backslash-escaped (CommonMark renders it literally, so no markup, link, HTML tag, entity or
/// column break can come from a trace), after control characters and line breaks were made
/// visible.
fn md(s: &str) -> String {
    let cleaned = clean(s);
    let mut out = String::with_capacity(cleaned.len() + 8);
    for c in cleaned.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Append the Markdown summary for `$GITHUB_STEP_SUMMARY`.
pub fn step_summary(report: &Report, base: &PathBase, out: &mut dyn Write) -> io::Result<()> {
    let s = &report.summary;
    writeln!(out, "## tracelint\n")?;
    writeln!(
        out,
        "| hard_defect | hard_event | candidate | ignored | suppressions | input errors | exit code |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|")?;
    writeln!(
        out,
        "| {} | {} | {} | {} | {} | {} | {} |\n",
        s.hard_defect,
        s.hard_event,
        s.candidate,
        s.ignored,
        s.suppressions,
        s.input_errors,
        report.exit.code()
    )?;
    writeln!(
        out,
        "Linted {} ({}) from {}.\n",
        plural(s.traces, "trace", "traces"),
        plural(s.tool_calls, "tool call", "tool calls"),
        plural(s.inputs, "input", "inputs"),
    )?;
    let active: Vec<&Finding> = report.active().collect();
    if !active.is_empty() || !report.issues.is_empty() {
        writeln!(out, "| location | tier | rule | tool | message |")?;
        writeln!(out, "|---|---|---|---|---|")?;
        for issue in &report.issues {
            writeln!(
                out,
                "| {} | input error | | | {} |",
                md(&position(
                    &base.relative(&issue.path),
                    issue.line,
                    issue.column
                )),
                md(&issue.message)
            )?;
        }
        let files = relative_inputs(report, base);
        for f in active.iter().take(MAX_SUMMARY_ROWS) {
            let at = f.at();
            writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md(&position(file_of(&files, f.input), at.line, at.column)),
                f.tier,
                f.rule,
                f.tool.as_deref().map(md).unwrap_or_default(),
                md(&f.message)
            )?;
        }
        if active.len() > MAX_SUMMARY_ROWS {
            writeln!(
                out,
                "\n… and {} more findings (see the full report).",
                active.len() - MAX_SUMMARY_ROWS
            )?;
        }
    }
    writeln!(out)
}

fn position(file: &str, line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => file.to_owned(),
        (l, 0) => format!("{file}:{l}"),
        (l, c) => format!("{file}:{l}:{c}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporters::sample;

    fn render_string(f: impl Fn(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        f(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn workflow_commands_snapshot() {
        let (report, base) = (sample::report(), sample::base());
        let text = render_string(|o| render(&report, &base, o));
        insta::assert_snapshot!(text);
    }

    #[test]
    fn every_command_stays_on_one_line() {
        let (report, base) = (sample::report(), sample::base());
        let text = render_string(|o| render(&report, &base, o));
        // 2 input errors + 3 active findings + the summary line: trace content never breaks a
        // line, so it can never start a command of its own.
        assert_eq!(text.lines().count(), 6, "{text}");
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'));
        assert!(
            text.contains("title=R7 candidate ns%3Aget%2Corder::"),
            "{text}"
        );
        assert!(text.contains("100%25 done"), "{text}");
    }

    #[test]
    fn escaping_follows_github_rules() {
        assert_eq!(escape_data("a%b\r\nc:d,e"), "a%25b%0D%0Ac:d,e");
        assert_eq!(escape_property("a%b\r\nc:d,e"), "a%25b%0D%0Ac%3Ad%2Ce");
    }

    #[test]
    fn step_summary_snapshot() {
        let (report, base) = (sample::report(), sample::base());
        let text = render_string(|o| step_summary(&report, &base, o));
        assert!(!text.contains("<img"), "{text}");
        insta::assert_snapshot!(text);
    }
}
