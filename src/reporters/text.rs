//! The text report (SPEC §6): `FILE:LINE:COL: TIER RULE tool: message`, indented evidence and
//! help lines, input errors in the same shape, then a footer with counts, suppressions, coverage
//! and schema sources. Every piece of trace content goes through `escape::terminal`.
//!
//! One cohesive renderer: findings, input errors and the footer are one pass over the report,
//! sharing its colours and escaping.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use crate::finding::{Finding, InputIssue, Tier};

use super::escape::terminal;
use super::{Listed, Report, TextOptions};

const BOLD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

fn tier_style(t: Tier) -> Style {
    match t {
        Tier::HardDefect => AnsiColor::Red.on_default().bold(),
        Tier::HardEvent => AnsiColor::Yellow.on_default().bold(),
        Tier::Candidate => AnsiColor::Cyan.on_default(),
    }
}

#[derive(Debug)]
struct Painter {
    on: bool,
}

impl Painter {
    fn paint(&self, style: Style, s: &str) -> String {
        if self.on {
            format!("{}{s}{}", style.render(), style.render_reset())
        } else {
            s.to_owned()
        }
    }
}

fn position(path: &str, line: u32, col: u32) -> String {
    match (line, col) {
        (0, _) => terminal(path).into_owned(),
        (l, 0) => format!("{}:{l}", terminal(path)),
        (l, c) => format!("{}:{l}:{c}", terminal(path)),
    }
}

/// Render the text report: input errors first (those about paths that never became inputs,
/// then input by input, in line order), then the findings in reading order (hard defects, hard
/// events, candidates; each by rule then location), then suppressions and the footer.
pub fn render(report: &Report, opts: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    render_listed(report, &report.findings, opts, out)
}

/// Render the text report of `report` with the findings `listed` (the report's own, or those
/// a text run kept out of memory: `report.findings` is not read).
pub(crate) fn render_listed(
    report: &Report,
    listed: &dyn Listed,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut stream = TextStream::new(opts);
    stream.issues(report, out)?;
    stream.first_failures(report, listed, out)?;
    if !opts.hide_findings {
        let order = listed.reading_order()?;
        stream.findings(report, listed, &order, out)?;
    }
    stream.tail(report, out)
}

/// The text report written a piece at a time: input errors, findings, then the tail.
#[derive(Debug)]
pub struct TextStream {
    opts: TextOptions,
    p: Painter,
    /// Something was written above the footer.
    printed: bool,
}

impl TextStream {
    /// A stream writing with these options.
    pub fn new(opts: TextOptions) -> Self {
        Self {
            opts,
            p: Painter { on: opts.color },
            printed: false,
        }
    }

    /// One input error.
    pub fn issue(&mut self, issue: &InputIssue, out: &mut dyn Write) -> io::Result<()> {
        self.printed = true;
        input_error(issue, &self.p, out)
    }

    /// Every input error of the report: those about paths that never became inputs (a missing
    /// file) first, then input by input.
    pub fn issues(&mut self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        let is_input = |path: &str| report.inputs.iter().any(|i| i.path == path);
        for issue in report.issues.iter().filter(|i| !is_input(&i.path)) {
            self.issue(issue, out)?;
        }
        for input in &report.inputs {
            for issue in report.issues.iter().filter(|i| i.path == input.path) {
                self.issue(issue, out)?;
            }
        }
        Ok(())
    }

    /// Each run's first failure and the findings that follow from it, before the findings
    /// themselves (at most `MAX_CHAINS_SHOWN` runs; the JSON report has every one). A run whose
    /// first failure is a hidden candidate, or from which no shown finding follows, prints
    /// nothing here.
    pub(crate) fn first_failures(
        &mut self,
        report: &Report,
        listed: &dyn Listed,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if self.opts.hide_findings || !self.opts.first_failures {
            return Ok(());
        }
        let shown = |f: &Finding| {
            !f.baselined && (f.tier != Tier::Candidate || self.opts.include_candidates)
        };
        // A first failure that nothing follows from is the run's finding as printed below.
        let mut chains = Vec::new();
        for c in listed.first_failures()? {
            if !shown(&*listed.finding(c.head)?) {
                continue;
            }
            for i in &c.follows {
                if shown(&*listed.finding(*i)?) {
                    chains.push(c);
                    break;
                }
            }
        }
        for c in chains.iter().take(MAX_CHAINS_SHOWN) {
            let head = listed.finding(c.head)?;
            let head = &*head;
            let path = report.path_of(head.input);
            writeln!(
                out,
                "{} {} (run `{}`):",
                self.p.paint(BOLD, "first failure in"),
                terminal(path),
                terminal(&head.run_id)
            )?;
            write!(out, "    ")?;
            headline(path, head, &self.p, out)?;
            for i in &c.follows {
                let f = listed.finding(*i)?;
                if shown(&f) {
                    write!(out, "    then ")?;
                    headline(path, &f, &self.p, out)?;
                }
            }
            if c.more_follows > 0 {
                writeln!(out, "    … and {} more that follow from it", c.more_follows)?;
            }
            if c.steps.len() > 1 {
                let steps: Vec<String> = c
                    .steps
                    .iter()
                    .map(|s| format!("step {} ({}, line {})", s.step, s.note, s.at.line))
                    .collect();
                let more = if c.more_steps > 0 {
                    format!(" → … {} more steps", c.more_steps)
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "    {} {}{more}",
                    self.p.paint(DIM, "path:"),
                    steps.join(" → ")
                )?;
            }
            self.printed = true;
        }
        if chains.len() > MAX_CHAINS_SHOWN {
            writeln!(
                out,
                "… and {} more runs with a first failure (the JSON report's `first_failures` lists every one)",
                chains.len() - MAX_CHAINS_SHOWN
            )?;
        }
        if !chains.is_empty() {
            writeln!(out)?;
        }
        Ok(())
    }

    /// The findings of `listed` in the order given (their paths from `report`). Hidden
    /// candidates print nothing.
    pub(crate) fn findings(
        &mut self,
        report: &Report,
        listed: &dyn Listed,
        order: &[usize],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if self.opts.hide_findings {
            return Ok(());
        }
        for i in order {
            let f = listed.finding(*i)?;
            let f = &*f;
            if f.baselined || f.tier == Tier::Candidate && !self.opts.include_candidates {
                continue;
            }
            self.printed = true;
            finding(report.path_of(f.input), f, &self.p, out)?;
        }
        Ok(())
    }

    /// Suppressions (when listed) and the footer. `report` carries everything but findings
    /// (`check` passes a report whose findings were streamed already).
    pub fn tail(&mut self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        let p = &self.p;
        let opts = self.opts;
        if opts.show_suppressions {
            for s in &report.suppressions {
                let path = report.path_of(s.input);
                let pos = match &s.at {
                    Some(at) => position(path, at.line, at.column),
                    None => format!("{} (run `{}`)", terminal(path), terminal(&s.run_id)),
                };
                let tool = s
                    .tool
                    .as_deref()
                    .map(|t| format!(" {}", terminal(t)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{}: {} {}{tool}: {}",
                    p.paint(BOLD, &pos),
                    p.paint(DIM, "suppressed"),
                    s.rule,
                    terminal(&s.reason)
                )?;
                self.printed = true;
            }
        }
        if opts.quiet {
            // Lost coverage fails the run: it is shown like an input error, footer or not.
            return lost_coverage(report, &self.p, out);
        }
        footer(report, opts, self.printed, &self.p, out)
    }
}

fn input_error(
    issue: &crate::finding::InputIssue,
    p: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(
        out,
        "{}: {}: {}",
        p.paint(BOLD, &position(&issue.path, issue.line, issue.column)),
        p.paint(AnsiColor::Red.on_default().bold(), "input_error"),
        terminal(&issue.message)
    )
}

/// Most runs whose first failure the text report shows.
const MAX_CHAINS_SHOWN: usize = 10;

/// A finding's first line: `FILE:LINE:COL: TIER RULE tool: message (flags)`.
fn headline(path: &str, f: &Finding, p: &Painter, out: &mut dyn Write) -> io::Result<()> {
    let at = f.at();
    let tool = f
        .tool
        .as_deref()
        .map(|t| format!(" {}", terminal(t)))
        .unwrap_or_default();
    let mut flags = String::new();
    if f.possible_false_positive {
        flags.push_str(" (possible false positive)");
    }
    if let Some(reason) = &f.ignored {
        flags.push_str(&format!(" [ignored: {}]", terminal(reason)));
    }
    writeln!(
        out,
        "{}: {} {}{tool}: {}{}",
        p.paint(BOLD, &position(path, at.line, at.column)),
        p.paint(tier_style(f.tier), f.tier.as_str()),
        p.paint(BOLD, f.rule.as_str()),
        terminal(&f.message),
        p.paint(DIM, &flags),
    )
}

fn finding(path: &str, f: &Finding, p: &Painter, out: &mut dyn Write) -> io::Result<()> {
    headline(path, f, p, out)?;
    for e in &f.evidence {
        // A tool rule's evidence is a place in a tools file, not a step of a trace.
        let step = if f.rule.is_tool_rule() {
            String::new()
        } else {
            format!(" step {}", e.step)
        };
        let excerpt = if e.excerpt.is_empty() && f.rule.is_tool_rule() {
            String::new()
        } else {
            format!(": {}", terminal(&e.excerpt))
        };
        writeln!(
            out,
            "    {}{step} ({}){excerpt}",
            p.paint(DIM, &position(path, e.at.line, e.at.column)),
            e.note,
        )?;
    }
    if let Some(score) = &f.score {
        score_lines(score, p, out)?;
    }
    if let Some(help) = &f.help {
        writeln!(out, "    {} {}", p.paint(BOLD, "help:"), terminal(help))?;
    }
    Ok(())
}

/// Most reference steps a trajectory's score explains in text (the JSON report has them all).
const MAX_SCORE_STEPS: usize = 10;

/// A trajectory's score, then why each reference step that did not match did not.
fn score_lines(s: &crate::model::score::Score, p: &Painter, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "    {} {}", p.paint(BOLD, "score:"), s.summary())?;
    let unmatched: Vec<_> = s.steps.iter().filter(|d| !d.matched).collect();
    for d in unmatched.iter().take(MAX_SCORE_STEPS) {
        writeln!(
            out,
            "      reference #{} `{}`: {}",
            d.reference,
            terminal(&d.tool),
            terminal(&d.why)
        )?;
    }
    if unmatched.len() > MAX_SCORE_STEPS {
        writeln!(
            out,
            "      ({} more reference steps in the JSON report)",
            unmatched.len() - MAX_SCORE_STEPS
        )?;
    }
    Ok(())
}

/// Longest list of stale baseline entries (or of lost coverage) printed.
const MAX_STALE_SHOWN: usize = 20;

/// What the baseline did: what it recorded or accepted, entries that no longer occur, and lost
/// coverage.
fn baseline(report: &Report, p: &Painter, out: &mut dyn Write) -> io::Result<()> {
    let Some(b) = &report.baseline else {
        return Ok(());
    };
    match &b.recorded {
        Some(r) => writeln!(out, "baseline: {}", terminal(r))?,
        None => writeln!(
            out,
            "baseline: {} accepted by {}",
            plural(b.accepted, "finding", "findings"),
            terminal(&b.path)
        )?,
    }
    for n in &b.notes {
        writeln!(out, "note: {}", terminal(n))?;
    }
    if !b.stale.is_empty() {
        writeln!(
            out,
            "note: {} in the baseline no longer {} (run with --update-baseline to drop {}):",
            plural(b.stale.len(), "entry", "entries"),
            if b.stale.len() == 1 {
                "occurs"
            } else {
                "occur"
            },
            if b.stale.len() == 1 { "it" } else { "them" },
        )?;
        for line in b.stale.iter().take(MAX_STALE_SHOWN) {
            writeln!(out, "    {}", terminal(line))?;
        }
        if b.stale.len() > MAX_STALE_SHOWN {
            writeln!(out, "    … and {} more", b.stale.len() - MAX_STALE_SHOWN)?;
        }
    }
    lost_coverage(report, p, out)
}

/// The ratchet's failures: each rule that checks less than the baseline recorded.
fn lost_coverage(report: &Report, p: &Painter, out: &mut dyn Write) -> io::Result<()> {
    let Some(b) = report.baseline.as_ref().filter(|b| !b.lost.is_empty()) else {
        return Ok(());
    };
    alarm(
        p,
        &format!(
            "coverage lost against {} (exit 1; pass --no-ratchet to accept it, or --update-baseline to record it):",
            terminal(&b.path)
        ),
        out,
    )?;
    for l in b.lost.iter().take(MAX_STALE_SHOWN) {
        writeln!(out, "    {}: {}", terminal(&l.file), terminal(&l.message))?;
    }
    if b.lost.len() > MAX_STALE_SHOWN {
        writeln!(
            out,
            "    … and {} more (the JSON report lists them all)",
            b.lost.len() - MAX_STALE_SHOWN
        )?;
    }
    Ok(())
}

/// A line that says why the run fails, in bold red.
fn alarm(p: &Painter, text: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{}", p.paint(AnsiColor::Red.on_default().bold(), text))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Most distinct notes printed; the JSON report has every input's notes.
const MAX_NOTES_SHOWN: usize = 10;
/// Files named on an aggregated note.
const NOTE_FILES_SHOWN: usize = 3;

/// One note that several inputs carry, in words whose numbers may differ from input to input.
#[derive(Debug)]
struct NoteGroup<'a> {
    /// The note's words between its numbers.
    words: Vec<&'a str>,
    /// For each number of the note, the smallest and largest value seen.
    numbers: Vec<(u64, u64)>,
    /// The inputs carrying it, in input order.
    files: Vec<&'a str>,
}

/// A note split into its words and its numbers (`21 calls were parsed` → `["", " calls were
/// parsed"]`, `[21]`). A number too large for `u64` stays a word.
fn note_shape(note: &str) -> (Vec<&str>, Vec<u64>) {
    let mut words = Vec::new();
    let mut numbers = Vec::new();
    let mut start = 0;
    let bytes = note.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        // A number with a leading zero (a date's `01`) stays a word: it would not print back.
        let padded = j - i > 1 && bytes[i] == b'0';
        // So does a number that is part of a larger token: a version (`0.27.4`), a date or a
        // time (`2026-01-30`, `10:00`), a name (`v1`, `R3`): only a count stands alone.
        let joined_before = i > 0
            && (bytes[i - 1].is_ascii_alphanumeric() || b".-:_/".contains(&bytes[i - 1]));
        let joined_after = j < bytes.len()
            && (bytes[j].is_ascii_alphanumeric()
                || (b".-:_/".contains(&bytes[j])
                    && bytes.get(j + 1).is_some_and(u8::is_ascii_alphanumeric)));
        let part_of_token = joined_before || joined_after;
        if let (false, false, Ok(n)) = (padded, part_of_token, note[i..j].parse::<u64>()) {
            words.push(&note[start..i]);
            numbers.push(n);
            start = j;
        }
        i = j;
    }
    words.push(&note[start..]);
    (words, numbers)
}

/// The notes on how inputs were read, one line per distinct note with how many inputs carry it
/// and the first few of them (numbers that differ between inputs are shown as a range).
fn notes(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    const PARTIAL: &str = "partial: part of it could not be read (see the input errors)";
    let mut groups: Vec<NoteGroup<'_>> = Vec::new();
    for input in &report.inputs {
        let partial = input.partial.then_some(PARTIAL);
        for note in input.notes.iter().map(String::as_str).chain(partial) {
            let (words, numbers) = note_shape(note);
            match groups.iter_mut().find(|g| g.words == words) {
                Some(g) => {
                    for (range, n) in g.numbers.iter_mut().zip(numbers) {
                        *range = (range.0.min(n), range.1.max(n));
                    }
                    if g.files.last() != Some(&input.path.as_str()) {
                        g.files.push(&input.path);
                    }
                }
                None => groups.push(NoteGroup {
                    words,
                    numbers: numbers.into_iter().map(|n| (n, n)).collect(),
                    files: vec![&input.path],
                }),
            }
        }
    }
    for g in groups.iter().take(MAX_NOTES_SHOWN) {
        let mut text = String::new();
        for (i, w) in g.words.iter().enumerate() {
            text.push_str(w);
            match g.numbers.get(i) {
                Some((lo, hi)) if lo == hi => text.push_str(&lo.to_string()),
                Some((lo, hi)) => text.push_str(&format!("{lo} to {hi}")),
                None => {}
            }
        }
        match g.files.as_slice() {
            [one] => writeln!(out, "note: {}: {}", terminal(one), terminal(&text))?,
            files => {
                let shown: Vec<String> = files
                    .iter()
                    .take(NOTE_FILES_SHOWN)
                    .map(|f| terminal(f).into_owned())
                    .collect();
                let more = match files.len().saturating_sub(NOTE_FILES_SHOWN) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                writeln!(
                    out,
                    "note: {} ({} inputs: {}{more})",
                    terminal(&text),
                    files.len(),
                    shown.join(", ")
                )?;
            }
        }
    }
    if groups.len() > MAX_NOTES_SHOWN {
        writeln!(
            out,
            "note: … and {} other notes (the JSON report lists each input's notes)",
            groups.len() - MAX_NOTES_SHOWN
        )?;
    }
    Ok(())
}

fn footer(
    report: &Report,
    opts: TextOptions,
    printed: bool,
    p: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    let s = &report.summary;
    // A blank line between what was printed above and the footer, only when something was.
    if printed {
        writeln!(out)?;
    }
    if !opts.hide_notes {
        notes(report, out)?;
    }
    for u in &report.unmatched_ignores {
        writeln!(out, "warning: ignore matched nothing: {}", terminal(u))?;
    }
    baseline(report, p, out)?;
    let hidden = if opts.include_candidates || s.candidate == 0 {
        String::new()
    } else {
        " (hidden: pass --include-candidates)".to_owned()
    };
    let mut ignored = if s.ignored > 0 {
        format!(", {} ignored with a reason", s.ignored)
    } else {
        String::new()
    };
    if s.baselined > 0 {
        ignored.push_str(&format!(", {} in the baseline", s.baselined));
    }
    writeln!(
        out,
        "{}, {}, {}{hidden}{ignored}",
        p.paint(
            tier_style(Tier::HardDefect),
            &plural(s.hard_defect, "hard_defect", "hard_defects")
        ),
        p.paint(
            tier_style(Tier::HardEvent),
            &plural(s.hard_event, "hard_event", "hard_events")
        ),
        p.paint(
            tier_style(Tier::Candidate),
            &plural(s.candidate, "candidate", "candidates")
        ),
    )?;
    if report.rules.iter().any(|m| m.id.is_tool_rule()) {
        writeln!(
            out,
            "linted {} from {}",
            plural(s.tools, "tool definition", "tool definitions"),
            plural(s.inputs, "source", "sources"),
        )?;
    } else {
        writeln!(
            out,
            "linted {} ({}) from {}",
            plural(s.traces, "trace", "traces"),
            plural(s.tool_calls, "tool call", "tool calls"),
            plural(s.inputs, "input", "inputs"),
        )?;
    }
    if s.suppressions > 0 {
        let hint = if opts.show_suppressions {
            ""
        } else {
            " (pass --show-suppressions to list them)"
        };
        writeln!(
            out,
            "{}: rule checks that could not decide{hint}",
            plural(s.suppressions, "suppression", "suppressions")
        )?;
    }
    let cov: Vec<String> = report
        .coverage
        .iter()
        .filter(|c| c.coverage.total > 0)
        .map(|c| format!("{} {}/{}", c.rule, c.coverage.decided, c.coverage.total))
        .collect();
    if !cov.is_empty() {
        writeln!(out, "coverage: {}", cov.join(", "))?;
    }
    // Rules that had nothing to look at (a contract rule whose facts no tool declares, R2a in
    // a trace without results): said once, plainly, not as a suppression per trace.
    let idle: Vec<&str> = report
        .coverage
        .iter()
        .filter(|c| c.coverage.total == 0)
        .map(|c| c.rule.as_str())
        .collect();
    if !idle.is_empty() && s.traces > 0 {
        writeln!(
            out,
            "nothing to check: {} (`tracelint explain <rule>` says what each needs)",
            idle.join(", ")
        )?;
    }
    let mut schemas: Vec<&str> = report
        .inputs
        .iter()
        .flat_map(|i| i.schemas.iter().map(String::as_str))
        .collect();
    schemas.sort_unstable();
    schemas.dedup();
    if !schemas.is_empty() {
        writeln!(out, "schemas: {}", terminal(&schemas.join(", ")))?;
    }
    if s.input_errors > 0 {
        alarm(
            p,
            &format!(
                "{} (exit 3)",
                plural(s.input_errors, "input error", "input errors")
            ),
            out,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reporters::sample;

    #[test]
    fn input_errors_then_findings_in_reading_order() {
        let mut report = sample::report();
        // A second hard defect in the other input, on an earlier line than the hard event.
        let mut r1 = report.findings[0].clone();
        r1.input = 1;
        r1.evidence[0].at.line = 1;
        report.findings.push(r1);
        let opts = TextOptions {
            include_candidates: true,
            quiet: true,
            ..TextOptions::default()
        };
        let mut out = Vec::new();
        render(&report, opts, &mut out).unwrap();
        let heads: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.split(": ").take(2).collect::<Vec<_>>().join(": "))
            .collect();
        assert_eq!(
            heads,
            [
                "missing.json: input_error",
                "traces/odd name ü.json:2:3: input_error",
                "traces/sub/run.jsonl:1:31: hard_defect R1 cancel_order",
                "traces/odd name ü.json:1:31: hard_defect R1 cancel_order",
                "traces/sub/run.jsonl:3:5: hard_event R2a charge_card",
                r"traces/sub/run.jsonl:2:5: candidate R7 ns:get,order",
                "traces/sub/run.jsonl:4:31: hard_defect R6 send_email",
            ]
        );
    }

    /// A text-only run drops from the findings it keeps what the text never shows
    /// (`Finding::drop_wire_only`): the text must read the same without it.
    #[test]
    fn text_never_shows_what_a_text_run_drops() {
        let mut report = sample::report();
        for (i, f) in report.findings.iter_mut().enumerate() {
            f.fields = vec![format!("field{i}")];
            for e in &mut f.evidence {
                e.at.pointer = format!("/steps/{i}/arguments");
            }
        }
        assert!(report.findings.iter().any(|f| !f.details.is_empty()));
        let render_with = |report: &Report, first_failures: bool, color: bool| {
            let opts = TextOptions {
                include_candidates: true,
                show_suppressions: true,
                first_failures,
                color,
                ..TextOptions::default()
            };
            let mut out = Vec::new();
            render(report, opts, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let mut lean = report.clone();
        for f in &mut lean.findings {
            f.drop_wire_only();
        }
        assert!(lean.findings.iter().all(|f| f.details.is_empty() && f.fields.is_empty()));
        for (first_failures, color) in [(true, false), (false, true)] {
            assert_eq!(
                render_with(&lean, first_failures, color),
                render_with(&report, first_failures, color)
            );
        }
    }

    #[test]
    fn notes_are_one_line_per_distinct_note_before_the_summary() {
        let mut report = sample::report();
        let input = |path: &str, notes: &[&str], partial: bool| crate::reporters::InputSummary {
            path: path.into(),
            notes: notes.iter().map(|n| (*n).to_owned()).collect(),
            partial,
            ..Default::default()
        };
        report.inputs = vec![
            input("a.traj.json", &["21 calls were parsed from bash blocks"], false),
            input("b.traj.json", &["13 calls were parsed from bash blocks"], true),
            input("c.traj.json", &["32 calls were parsed from bash blocks"], false),
            input("d.traj.json", &["29 calls were parsed from bash blocks", "started 2026-12-01"], true),
            input("e.json", &["started 2026-12-01"], false),
        ];
        report.findings.clear();
        report.issues.clear();
        report.outlines.clear();
        report.unmatched_ignores.clear();
        let mut out = Vec::new();
        render(&report, TextOptions::default(), &mut out).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap());
        // `-q`: no notes, the summary still last.
        let mut quiet = Vec::new();
        let opts = TextOptions {
            hide_notes: true,
            ..TextOptions::default()
        };
        render(&report, opts, &mut quiet).unwrap();
        let quiet = String::from_utf8(quiet).unwrap();
        assert!(!quiet.contains("note:"), "{quiet}");
        assert!(quiet.starts_with("1 hard_defect,"), "{quiet}");
    }

    #[test]
    fn only_counts_that_stand_alone_vary_within_a_note_group() {
        let (words, numbers) = note_shape("using 0.27.4 (12 captures agree, v2, R3) from 2026-01-30 10:00");
        assert_eq!(numbers, vec![12]);
        assert_eq!(
            words,
            vec!["using 0.27.4 (", " captures agree, v2, R3) from 2026-01-30 10:00"]
        );
        // Two notes that differ by a version are two groups, never a range of versions.
        assert_ne!(note_shape("version 0.27.4").0, note_shape("version 0.61.0").0);
        assert_eq!(note_shape("12 calls.").1, vec![12]);
    }
}
