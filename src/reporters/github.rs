//! GitHub Actions output: workflow commands (`::error file=…,line=…,col=…,title=…::message`,
//! `::warning` for hard events, `::notice` for candidates) that become PR annotations, and the
//! Markdown table appended to `$GITHUB_STEP_SUMMARY`. Owns GitHub's escaping of command
//! properties and data, and Markdown escaping of untrusted text; it never decides what is found.
//!
//! One cohesive renderer: the annotations and the step summary share GitHub's escaping rules.

use std::io::{self, Write};

use crate::finding::{Finding, Tier};

use super::Report;
use super::escape::{terminal, truncate};
use super::paths::{PathBase, Place};

/// Most findings other than hard defects listed in the step summary; hard defects are always
/// listed.
const MAX_SUMMARY_ROWS: usize = 200;
/// GitHub refuses a step summary past 1 MiB ("$GITHUB_STEP_SUMMARY upload aborted, supports
/// content up to a size of 1024k"): the whole summary is then lost. What tracelint appends stays
/// under this, hard defects first.
const MAX_SUMMARY_BYTES: usize = 1000 * 1024;
/// Longest untrusted value put in one annotation or table cell, in characters.
const MAX_VALUE: usize = 2000;
/// A table cell's message when the hard defects alone would pass the size limit at full length.
const SHORT_VALUE: usize = 160;

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

/// An input as an annotation places it: inside the root, its relative path (invisible
/// characters made visible, so a bidi override in a file name cannot reorder the annotation);
/// outside it, no file at all (GitHub could not open it) but the absolute path for the message.
#[derive(Debug, Clone)]
enum Spot {
    File(String),
    Outside(String),
}

/// Each input's place, resolved once per input (not once per finding).
fn spots(report: &Report, base: &PathBase) -> Vec<Spot> {
    report.inputs.iter().map(|i| spot(base, &i.path)).collect()
}

fn spot(base: &PathBase, path: &str) -> Spot {
    match base.place(path) {
        Place::Inside(rel) => Spot::File(terminal(&rel).into_owned()),
        Place::Outside(abs) => Spot::Outside(terminal(&abs).into_owned()),
    }
}

fn spot_of(spots: &[Spot], input: usize) -> Spot {
    spots
        .get(input)
        .cloned()
        .unwrap_or_else(|| Spot::File("-".into()))
}

/// The `file=…,line=…,col=…` properties, and for an input outside the root the line that says
/// where the finding is instead.
fn location(spot: &Spot, line: u32, column: u32) -> (String, Option<String>) {
    match spot {
        Spot::File(file) => {
            let mut s = format!("file={}", escape_property(file));
            if line > 0 {
                s.push_str(&format!(",line={line}"));
                if column > 0 {
                    s.push_str(&format!(",col={column}"));
                }
            }
            (s, None)
        }
        Spot::Outside(abs) => (
            String::new(),
            Some(format!(
                "at {} (outside the annotation root: set --sarif-root)",
                position(abs, line, column)
            )),
        ),
    }
}

/// `::command props::data`, with `title` always set.
fn workflow_command(tier: &str, props: &str, title: &str, data: &str) -> String {
    let sep = if props.is_empty() { "" } else { "," };
    format!(
        "::{tier} {props}{sep}title={}::{}",
        escape_property(title),
        escape_data(data)
    )
}

fn annotation(spots: &[Spot], f: &Finding) -> String {
    let at = f.at();
    let (props, outside) = location(&spot_of(spots, f.input), at.line, at.column);
    let title = match &f.tool {
        Some(tool) => format!("{} {} {}", f.rule, f.tier, clean(tool)),
        None => format!("{} {}", f.rule, f.tier),
    };
    // Structural line breaks are ours; any in trace content were escaped by `clean`.
    let mut lines = vec![clean(&f.message)];
    lines.extend(outside);
    if f.details.len() > 1 {
        lines.extend(f.details.iter().map(|d| format!("- {}", clean(d))));
    }
    for e in &f.evidence {
        lines.push(if f.rule.is_tool_rule() {
            format!("{} at line {}: {}", e.note, e.at.line, clean(&e.excerpt))
        } else {
            format!(
                "step {} ({}) at line {}: {}",
                e.step,
                e.note,
                e.at.line,
                clean(&e.excerpt)
            )
        });
    }
    if let Some(help) = &f.help {
        lines.push(format!("help: {}", clean(help)));
    }
    workflow_command(command(f.tier), &props, &title, &lines.join("\n"))
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

/// Render workflow commands: one per input error, then one per active finding in reading order
/// (hard defects first: GitHub shows only the first few annotations of each kind per step), then
/// a plain summary line. Ignored findings are accepted and not annotated.
pub fn render(report: &Report, base: &PathBase, out: &mut dyn Write) -> io::Result<()> {
    for issue in &report.issues {
        let (props, outside) = location(&spot(base, &issue.path), issue.line, issue.column);
        let mut data = clean(&issue.message);
        if let Some(o) = outside {
            data.push('\n');
            data.push_str(&o);
        }
        writeln!(
            out,
            "{}",
            workflow_command("error", &props, "tracelint input error", &data)
        )?;
    }
    let spots = spots(report, base);
    for f in report.reading_order() {
        if f.ignored.is_none() {
            writeln!(out, "{}", annotation(&spots, f))?;
        }
    }
    // The ratchet fails the run: say where, or the step fails with nothing annotated.
    for l in report.baseline.iter().flat_map(|b| &b.lost) {
        let (props, outside) = location(&spot(base, &l.file), 0, 0);
        let mut data = clean(&l.message);
        if let Some(o) = outside {
            data.push('\n');
            data.push_str(&o);
        }
        writeln!(
            out,
            "{}",
            workflow_command("error", &props, "tracelint coverage lost", &data)
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
    md_cut(s, MAX_VALUE)
}

fn md_cut(s: &str, max: usize) -> String {
    let cleaned = truncate(&terminal(s), max).into_owned();
    let mut out = String::with_capacity(cleaned.len() + 8);
    for c in cleaned.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn spot_text(spot: &Spot, line: u32, column: u32) -> String {
    match spot {
        Spot::File(f) => position(f, line, column),
        Spot::Outside(abs) => position(abs, line, column),
    }
}

/// One row of the findings table.
fn row(spots: &[Spot], f: &Finding, max: usize) -> String {
    let at = f.at();
    format!(
        "| {} | {} | {} | {} | {} |\n",
        md(&spot_text(&spot_of(spots, f.input), at.line, at.column)),
        f.tier,
        f.rule,
        f.tool.as_deref().map(md).unwrap_or_default(),
        md_cut(&f.message, max)
    )
}

/// Append the Markdown summary for `$GITHUB_STEP_SUMMARY`: the counts, a table of counts by rule
/// and tier, then the findings in reading order. Every hard defect is listed (the others are
/// capped at `MAX_SUMMARY_ROWS`), so the findings that failed the job are never the ones left
/// out; only GitHub's own 1 MiB limit on a summary can cut them, and then the summary says how
/// many are not shown.
pub fn step_summary(report: &Report, base: &PathBase, out: &mut dyn Write) -> io::Result<()> {
    let s = &report.summary;
    let mut text = String::new();
    text.push_str("## tracelint\n\n");
    text.push_str(
        "| hard_defect | hard_event | candidate | ignored | suppressions | input errors | exit code |\n",
    );
    text.push_str("|---:|---:|---:|---:|---:|---:|---:|\n");
    text.push_str(&format!(
        "| {} | {} | {} | {} | {} | {} | {} |\n\n",
        s.hard_defect,
        s.hard_event,
        s.candidate,
        s.ignored,
        s.suppressions,
        s.input_errors,
        report.exit.code()
    ));
    text.push_str(&format!(
        "Linted {} ({}) from {}.\n\n",
        plural(s.traces, "trace", "traces"),
        plural(s.tool_calls, "tool call", "tool calls"),
        plural(s.inputs, "input", "inputs"),
    ));
    let by_rule = report.rule_counts();
    if !by_rule.is_empty() {
        text.push_str(
            "| rule | hard_defect | hard_event | candidate | ignored | what it finds |\n",
        );
        text.push_str("|---|---:|---:|---:|---:|---|\n");
        for r in &by_rule {
            text.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                r.rule,
                r.hard_defect,
                r.hard_event,
                r.candidate,
                r.ignored,
                md(r.summary)
            ));
        }
        text.push('\n');
    }
    let active: Vec<&Finding> = report
        .reading_order()
        .into_iter()
        .filter(|f| f.ignored.is_none())
        .collect();
    if !active.is_empty() || !report.issues.is_empty() {
        text.push_str("| location | tier | rule | tool | message |\n");
        text.push_str("|---|---|---|---|---|\n");
        for issue in &report.issues {
            text.push_str(&format!(
                "| {} | input error | | | {} |\n",
                md(&spot_text(
                    &spot(base, &issue.path),
                    issue.line,
                    issue.column
                )),
                md(&issue.message)
            ));
        }
        let spots = spots(report, base);
        let (hard, others): (Vec<&Finding>, Vec<&Finding>) =
            active.iter().partition(|f| f.tier == Tier::HardDefect);
        // Rows of hard defects at full length, unless together they pass the limit: then each
        // message is cut short, and past the limit even so the rest are counted, not listed.
        let full: Vec<String> = hard.iter().map(|f| row(&spots, f, MAX_VALUE)).collect();
        // Room kept for the closing lines.
        let limit = MAX_SUMMARY_BYTES - 1024;
        let room = limit.saturating_sub(text.len());
        let rows = if full.iter().map(String::len).sum::<usize>() <= room {
            full
        } else {
            hard.iter().map(|f| row(&spots, f, SHORT_VALUE)).collect()
        };
        let mut listed_hard = 0;
        for r in &rows {
            if text.len() + r.len() > limit {
                break;
            }
            text.push_str(r);
            listed_hard += 1;
        }
        let mut listed_others = 0;
        for f in others.iter().take(MAX_SUMMARY_ROWS) {
            let r = row(&spots, f, MAX_VALUE);
            if text.len() + r.len() > limit {
                break;
            }
            text.push_str(&r);
            listed_others += 1;
        }
        if listed_hard < hard.len() {
            text.push_str(&format!(
                "\n{} not listed: GitHub keeps a job summary under 1 MiB (the JSON or SARIF report lists every finding).\n",
                plural(hard.len() - listed_hard, "hard defect is", "hard defects are")
            ));
        }
        let left = others.len() - listed_others;
        if left > 0 {
            let tier_left = |t: Tier| {
                others[listed_others..]
                    .iter()
                    .filter(|f| f.tier == t)
                    .count()
            };
            let mut parts = Vec::new();
            for (t, one, many) in [
                (Tier::HardEvent, "hard event", "hard events"),
                (Tier::Candidate, "candidate", "candidates"),
            ] {
                let n = tier_left(t);
                if n > 0 {
                    parts.push(plural(n, one, many));
                }
            }
            let all_hard = if listed_hard == hard.len() {
                "; every hard defect is listed above"
            } else {
                ""
            };
            text.push_str(&format!(
                "\n… and {left} more findings ({}{all_hard}; see the full report).\n",
                parts.join(", ")
            ));
        }
    }
    text.push('\n');
    out.write_all(text.as_bytes())
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

    /// 500 candidates on the first lines, then 3 hard defects and 2 hard events.
    fn buried() -> Report {
        let mut report = sample::report();
        let (r1, r7, r2a) = (
            report.findings[0].clone(),
            report.findings[1].clone(),
            report.findings[2].clone(),
        );
        report.findings.clear();
        for i in 0..500 {
            let mut f = r7.clone();
            f.evidence[0].at.line = i + 1;
            report.findings.push(f);
        }
        for i in 0..3 {
            let mut f = r1.clone();
            f.message = format!("hard defect number {i}");
            f.evidence[0].at.line = 600 + i;
            report.findings.push(f);
        }
        for i in 0..2 {
            let mut f = r2a.clone();
            f.evidence[0].at.line = 700 + i;
            report.findings.push(f);
        }
        report
    }

    #[test]
    fn every_hard_defect_is_in_the_summary_whatever_is_before_it() {
        let (report, base) = (buried(), sample::base());
        let text = render_string(|o| step_summary(&report, &base, o));
        for i in 0..3 {
            assert!(text.contains(&format!("hard defect number {i}")), "{text}");
        }
        // The per-rule table comes before the rows, and the rows start with the hard defects.
        let table = text
            .find("| rule | hard_defect | hard_event | candidate |")
            .unwrap();
        let rows = text.find("| location | tier |").unwrap();
        assert!(table < rows);
        assert!(text.contains("| R7 | 0 | 0 | 500 | 0 |"), "{text}");
        let first_row = text[rows..].lines().nth(4).unwrap();
        assert!(first_row.contains("| hard_defect | R1 |"), "{first_row}");
        // Then both hard events, then candidates up to the cap, and what was left out.
        assert_eq!(text.matches("| hard_event | R2a |").count(), 2);
        assert_eq!(
            text.matches("| candidate | R7 |").count(),
            MAX_SUMMARY_ROWS - 2
        );
        assert!(
            text.contains(
                "… and 302 more findings (302 candidates; every hard defect is listed above"
            ),
            "{text}"
        );
        assert!(text.len() < MAX_SUMMARY_BYTES);
    }

    #[test]
    fn a_summary_stays_under_githubs_limit_hard_defects_first() {
        let mut report = sample::report();
        let r1 = report.findings[0].clone();
        report.findings.clear();
        for i in 0..8_000 {
            let mut f = r1.clone();
            f.message = format!("{i} {}", "x".repeat(600));
            f.evidence[0].at.line = i + 1;
            report.findings.push(f);
        }
        let text = render_string(|o| step_summary(&report, &sample::base(), o));
        assert!(text.len() <= MAX_SUMMARY_BYTES, "{}", text.len());
        // Messages were shortened to list as many as fit, and the rest is counted, not dropped
        // silently.
        let listed = text.matches("| hard_defect | R1 |").count();
        assert!(listed > 3000, "{listed}");
        assert!(
            text.contains(&format!(
                "{} hard defects are not listed: GitHub keeps a job summary under 1 MiB",
                8_000 - listed
            )),
            "{}",
            &text[text.len() - 300..]
        );
    }

    #[test]
    fn annotations_come_hard_defects_first() {
        let (report, base) = (buried(), sample::base());
        let text = render_string(|o| render(&report, &base, o));
        let kinds: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("::"))
            .filter(|l| !l.contains("tracelint input error"))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(
            &kinds[..5],
            ["error", "error", "error", "warning", "warning"]
        );
        assert!(kinds[5..].iter().all(|k| *k == "notice"));
    }

    #[test]
    fn annotation_files_are_safe_and_never_outside_the_root() {
        let mut report = sample::report();
        report.inputs[0].path = "traces/evil\u{202e}lmth.jsonl".into();
        report.inputs[1].path = "/elsewhere/t.json".into();
        report.issues[1].path = "/elsewhere/t.json".into();
        report.findings[1].input = 1;
        let text = render_string(|o| render(&report, &sample::base(), o));
        assert!(!text.contains('\u{202e}'), "{text}");
        assert!(
            text.contains(r"file=traces/evil\u{202e}lmth.jsonl,line=1"),
            "{text}"
        );
        assert!(
            !text.contains("file=../") && !text.contains("file=/elsewhere"),
            "{text}"
        );
        // The finding outside the root is annotated without a file, and says where it is.
        let outside = text.lines().find(|l| l.contains("R7 candidate")).unwrap();
        assert!(outside.starts_with("::notice title="), "{outside}");
        assert!(
            outside.contains("at /elsewhere/t.json:2:5 (outside the annotation root"),
            "{outside}"
        );
        // So is the input error about that file.
        assert!(
            text.contains("::error title=tracelint input error::invalid JSON"),
            "{text}"
        );
    }

    #[test]
    fn step_summary_snapshot() {
        let (report, base) = (sample::report(), sample::base());
        let text = render_string(|o| step_summary(&report, &base, o));
        assert!(!text.contains("<img"), "{text}");
        insta::assert_snapshot!(text);
    }
}
