//! The streaming run: readers in the pool, one writer settling findings input by input in the
//! order the inputs were given, with the findings a report lists bounded by `--max-findings`.

use std::collections::{BTreeMap, HashSet};

use rayon::prelude::*;

use super::Settings;
use super::read::{
    Event, InputResult, OtelHold, lint_one, merge_split_runs, nothing_linted, read_input,
    record_outcome, unless_mirrored,
};
use crate::adapters::ReadOutcome;
use crate::baseline::BaselineRun;
use crate::exit::ExitStatus;
use crate::finding::{Finding, InputIssue, Tier};
use crate::inputs::InputSpec;
use crate::lint::listing::{Kept, Listing};
use crate::lint::spill::Parked;
use crate::lint::{Linter, ReportBuilder, Settle, TraceLint};
use crate::reporters::Report;

/// Finish the baseline (stale entries, lost coverage; `--update-baseline` writes the file) and
/// put what it did in the report. Lost coverage fails the run (exit 1) unless report-only.
pub(crate) fn settle_baseline(
    report: &mut Report,
    baseline: Option<BaselineRun>,
    report_only: bool,
) -> anyhow::Result<()> {
    let Some(b) = baseline else { return Ok(()) };
    let outcome = b.finish(report)?;
    if !outcome.lost.is_empty() && !report_only {
        report.exit = report.exit.max(ExitStatus::GateTripped);
    }
    report.baseline = Some(outcome);
    Ok(())
}


/// A streaming run: traces are linted as they are read and freed at once, and their findings
/// settled input by input as inputs finish — trace by trace for inputs whose traces follow one
/// another (native) — so memory follows the largest input, not the corpus. For text on stdout
/// alone only the findings the text shows are kept (hidden candidates are counted and dropped),
/// since the text lists them in reading order (hard defects first) once all are in. The report
/// is the same whatever the cap; `doctor` keeps none of the findings, only what they count for.
pub(crate) struct Run<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) linter: &'a Linter,
    pub(crate) pool: &'a rayon::ThreadPool,
    pub(crate) specs: &'a [InputSpec],
    pub(crate) defer_otel: OtelHold<'a>,
    /// Read and parse only, lint nothing (`--parse-only`).
    pub(crate) parse_only: bool,
    /// Whole reports (JSON, SARIF, HTML, GitHub, side outputs) rather than text on stdout alone.
    pub(crate) full: bool,
    /// `--max-findings`.
    pub(crate) cap: Option<usize>,
    /// Keep each input's coverage by rule and tool and its record figures (`doctor`).
    pub(crate) details: bool,
    /// Told each trace's settled findings as soon as they are, in report order of inputs and
    /// in reading order within an input (the library's `Linter::lint_paths`).
    pub(crate) on_trace: Option<&'a mut OnTrace<'a>>,
    /// For reports that read the findings one at a time (`reporters::reads_listed`): the listed
    /// findings go to a temporary file past this many bytes (`lint::spill`), and
    /// `stream_listed` hands them over apart from the report.
    pub(crate) spill_at: Option<usize>,
}

/// A callback for each linted trace: the input's path, the trace's run id, its settled findings.
pub(crate) type OnTrace<'a> = dyn FnMut(&str, &str, &[Finding]) + 'a;

/// What arrived for one input and is not written yet.
#[derive(Default)]
struct Pending {
    /// Linted traces in the order the input holds them, not written yet; the findings of one
    /// that waits for an earlier input are parked in the listing's store.
    traces: Vec<(TraceLint, Option<Parked>)>,
    /// Traces linted ahead of an earlier one (by their place), waiting for it.
    early: BTreeMap<usize, TraceLint>,
    /// The place of the next trace `traces` takes.
    next_seq: usize,
    /// Some issue points into the input (it was read in part).
    partial: bool,
    done: Option<InputResult>,
}

/// The settling side of a streaming run.
struct Writer<'w, 'c> {
    builder: ReportBuilder,
    settle: Settle<'w>,
    /// Settled findings the report lists (at most `--max-findings`).
    listing: Listing,
    /// Keep candidates (text output hides them unless asked).
    include_candidates: bool,
    /// Only the text report reads the listed findings: what it never shows is dropped as they
    /// are listed (`Finding::drop_wire_only`).
    lean: bool,
    /// Run ids of traces that are not `agent_progress` mirrors, over every input so far.
    originals: HashSet<String>,
    /// `Run::on_trace`.
    on_trace: Option<&'c mut OnTrace<'c>>,
    /// Parked findings that could not be read back.
    error: Option<std::io::Error>,
}

impl Writer<'_, '_> {
    /// Give a waiting trace its parked findings back.
    fn restore(&mut self, t: &mut TraceLint, parked: Option<Parked>) {
        if let Some(p) = parked {
            match self.listing.unpark(p) {
                Ok(findings) => t.outcome.findings = findings,
                Err(e) => {
                    self.error.get_or_insert(e);
                }
            }
        }
    }

    /// Settle one batch of an input's findings (any order) in report order and keep those the
    /// text shows.
    fn write(&mut self, input: usize, run_id: &str, findings: Vec<Finding>) {
        let findings = self.settle_and_tell(input, run_id, findings);
        self.list(findings);
    }

    /// Settle one batch in report order and tell `on_trace` about it.
    fn settle_and_tell(
        &mut self,
        input: usize,
        run_id: &str,
        mut findings: Vec<Finding>,
    ) -> Vec<Finding> {
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let path = self.builder.path_of(input).to_owned();
        self.settle.batch(&mut findings, &path);
        if let Some(tell) = self.on_trace.as_mut() {
            tell(&path, run_id, &findings);
        }
        findings
    }

    /// Keep settled findings, in the order given, for the listing.
    fn list(&mut self, findings: Vec<Finding>) {
        for mut f in findings {
            if self.include_candidates || f.tier != Tier::Candidate {
                if self.lean {
                    f.drop_wire_only();
                }
                // Kept as a value, a copy made here, sized to fit, in this thread's memory: the
                // finding was built by a worker among the trace's short-lived allocations,
                // where, kept to the end of the run, it would pin the worker's memory (peak RSS
                // on the 100k corpora, `--jobs 1`: 1 to 2 MB less). Stored, it is encoded.
                if self.listing.spills() {
                    self.listing.offer(f);
                } else {
                    self.listing.offer(f.clone());
                }
            }
        }
        // Outlines of traces whose findings all went past the cap are dropped now and then, so
        // they stay bounded by the cap too.
        if let Some(cap) = self.listing.cap()
            && self.listing.omitted() > 0
            && self.builder.report().outlines.len() > 2 * cap + 1024
        {
            self.drop_unlisted_outlines();
        }
    }

    fn drop_unlisted_outlines(&mut self) {
        let kept = self.listing.kept_runs();
        self.builder
            .retain_outlines(|o| kept.contains(&(o.input, o.run_id.as_str())));
    }

    /// Everything left of a finished input: its outcome, its unwritten traces (plus `merged`
    /// OTel runs reported under it) and input errors.
    fn finish_input(
        &mut self,
        input: usize,
        outcome: (ReadOutcome, bool),
        mut pending: Pending,
        merged: Vec<TraceLint>,
    ) {
        record_outcome(&mut self.builder, input, outcome, pending.partial);
        if self.on_trace.is_some() {
            // Trace by trace, so each is told its own findings (no baseline: see `stream`);
            // listed as one batch in report order, as a run without `on_trace` lists them.
            let mut all = Vec::new();
            for (mut t, parked) in std::mem::take(&mut pending.traces) {
                self.restore(&mut t, parked);
                if let Some(t) = unless_mirrored(&mut self.builder, input, t, &self.originals) {
                    let run_id = t.run_id.clone();
                    let findings = self.builder.trace_streamed(input, t);
                    all.extend(self.settle_and_tell(input, &run_id, findings));
                }
            }
            for t in merged {
                let run_id = t.run_id.clone();
                let findings = self.builder.trace_streamed(input, t);
                all.extend(self.settle_and_tell(input, &run_id, findings));
            }
            all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            self.list(all);
            return;
        }
        let mut findings = Vec::new();
        for (mut t, parked) in std::mem::take(&mut pending.traces) {
            self.restore(&mut t, parked);
            if let Some(t) = unless_mirrored(&mut self.builder, input, t, &self.originals) {
                findings.extend(self.builder.trace_streamed(input, t));
            }
        }
        for t in merged {
            findings.extend(self.builder.trace_streamed(input, t));
        }
        self.write(input, "", findings);
    }
}

/// A tallied trace with nothing left to write: no finding, note, outline or listed suppression.
fn nothing_to_write(t: &TraceLint) -> bool {
    t.tallied
        && t.outcome.findings.is_empty()
        && t.outcome.suppressions.is_empty()
        && t.notes.is_empty()
        && t.outline.is_none()
}

impl Run<'_> {
    /// Read, lint and settle every input; the report lists at most `cap` findings.
    pub(crate) fn stream(
        self,
        expand_issues: Vec<InputIssue>,
        baseline: Option<BaselineRun>,
    ) -> anyhow::Result<Report> {
        let (mut report, kept) = self.stream_listed(expand_issues, baseline)?;
        match kept {
            Kept::Findings(findings) => report.findings = findings,
            Kept::Spilled(_) => anyhow::bail!("internal error: a whole report was asked of a run that stores its findings"),
        }
        Ok(report)
    }

    /// `stream`, with the listed findings apart from the report (whose `findings` stay empty):
    /// stored out of memory when `spill_at` says so, for the text report.
    pub(crate) fn stream_listed(
        self,
        expand_issues: Vec<InputIssue>,
        mut baseline: Option<BaselineRun>,
    ) -> anyhow::Result<(Report, Kept)> {
        let mut builder = ReportBuilder::new();
        if !self.full && !self.settings.text.show_suppressions {
            builder.count_suppressions_only();
        }
        // A baseline matches counts over a whole input: its findings are settled in one batch.
        let per_trace = baseline.is_none();
        if baseline.is_some() || self.details {
            builder.keep_details();
        }
        let settle = Settle::new(
            &self.settings.config.ignores,
            self.settings.fail_on,
            builder.excerpt_budget(),
        )
        .report_only(self.settings.report_only)
        .with_baseline(baseline.as_mut());
        let lean = !self.full && !self.details && per_trace && self.on_trace.is_none();
        let listing = match self.spill_at {
            Some(at) if !self.details && self.on_trace.is_none() => Listing::spilled(self.cap, at),
            _ => Listing::new(self.cap),
        };
        let mut w = Writer {
            builder,
            settle,
            listing,
            include_candidates: self.full || self.settings.text.include_candidates,
            lean,
            originals: HashSet::new(),
            on_trace: self.on_trace,
            error: None,
        };
        for issue in expand_issues {
            w.builder.issue(issue);
        }
        for spec in self.specs {
            w.builder.input(&spec.display);
        }
        let mut pending: Vec<Pending> = self.specs.iter().map(|_| Pending::default()).collect();
        let mut next = 0;
        let mut holding = false;
        let (tx, rx) = std::sync::mpsc::channel::<Event>();
        // The readers run in the pool; this thread writes (no extra thread, so no extra
        // allocator arena either: the hostile suite holds the whole process to 512 MiB).
        // Each worker takes the next input in order, so inputs finish roughly in the order they
        // are written: little waits in the writer, and the writer never trails the workers.
        let taken = std::sync::atomic::AtomicUsize::new(0);
        // Workers reading an input right now (see `read::Sink`: a trace goes to the pool only
        // while a thread is free to lint it).
        let readers = std::sync::atomic::AtomicUsize::new(0);
        self.pool.in_place_scope(|scope| -> anyhow::Result<()> {
            for _ in 0..self.pool.current_num_threads() {
                let tx = tx.clone();
                let (taken, readers) = (&taken, &readers);
                scope.spawn(move |_| {
                    use std::sync::atomic::Ordering;
                    loop {
                        let i = taken.fetch_add(1, Ordering::Relaxed);
                        let Some(spec) = self.specs.get(i) else { break };
                        readers.fetch_add(1, Ordering::AcqRel);
                        let result = read_input(
                            spec,
                            self.settings,
                            self.linter,
                            self.parse_only,
                            self.defer_otel,
                            Some((i, &tx, readers)),
                            i + 1 == self.specs.len(),
                        );
                        readers.fetch_sub(1, Ordering::AcqRel);
                        drop(tx.send(Event::Done(i, result)));
                    }
                });
            }
            drop(tx);
            for event in rx {
                match event {
                    Event::Trace(i, seq, t) => {
                        // Only a Claude Code sub-agent can have a mirror to drop.
                        if !t.mirror && t.mirrored_elsewhere {
                            w.originals.insert(t.run_id.clone());
                        }
                        let p = &mut pending[i];
                        p.early.insert(seq, t);
                        while let Some(mut t) = p.early.remove(&p.next_seq) {
                            p.next_seq += 1;
                            // Held until written: counted now, so that it keeps only what is
                            // written in order (a mirror may yet be dropped: counted then),
                            // and not held at all when that is nothing (no callback waits
                            // for each trace).
                            if !t.mirror {
                                w.builder.tally(i, &mut t);
                                if w.on_trace.is_none() && nothing_to_write(&t) {
                                    continue;
                                }
                            }
                            // Waiting for an earlier input (a slow one read by another
                            // worker): its findings wait in the listing's store, not here.
                            let mut parked = None;
                            if i > next && !t.outcome.findings.is_empty() {
                                match w.listing.park(std::mem::take(&mut t.outcome.findings)) {
                                    Ok(stored) => parked = Some(stored),
                                    Err(back) => t.outcome.findings = back,
                                }
                            }
                            p.traces.push((t, parked));
                        }
                    }
                    Event::Issue(i, issue) => {
                        pending[i].partial |= issue.line > 0;
                        w.builder.issue(issue);
                    }
                    Event::Note(i, note) => w.builder.note(i, note),
                    Event::Done(i, result) => {
                        // Input errors past the first of this input: counted by its reader.
                        pending[i].partial |= result.omitted_issues > 0;
                        let path = w.builder.path_of(i).to_owned();
                        w.builder.issues_omitted(&path, result.omitted_issues);
                        pending[i].done = Some(result);
                    }
                }
                while !holding && next < pending.len() {
                    let p = &mut pending[next];
                    if per_trace && p.traces.iter().all(|(t, _)| t.ordered && !t.mirror) {
                        for (mut t, parked) in std::mem::take(&mut p.traces) {
                            w.restore(&mut t, parked);
                            // The run id is copied only for a callback (the library's).
                            let run_id = match w.on_trace {
                                Some(_) => t.run_id.clone(),
                                None => String::new(),
                            };
                            let findings = w.builder.trace_streamed(next, t);
                            w.write(next, &run_id, findings);
                        }
                    }
                    let Some(done) = &p.done else { break };
                    // Held back: OTel runs that may continue in a later input, and sub-agent
                    // mirrors whose own file may come later. This input and every later one
                    // are written once all are read.
                    if !done.deferred.is_empty() || p.traces.iter().any(|(t, _)| t.mirror) {
                        holding = true;
                        break;
                    }
                    let outcome = (done.outcome, done.empty);
                    w.finish_input(next, outcome, std::mem::take(p), Vec::new());
                    next += 1;
                }
            }
            Ok(())
        })?;
        // The held inputs: merge OTel runs split across them, then write them in order.
        let mut held: Vec<InputResult> = pending[next..]
            .iter_mut()
            .map(|p| p.done.take().unwrap_or_else(InputResult::empty))
            .collect();
        let merged = merge_split_runs(&mut held);
        let mut merged_lints: Vec<Vec<TraceLint>> = held.iter().map(|_| Vec::new()).collect();
        let linted: Vec<(usize, TraceLint)> = self.pool.install(|| {
            merged
                .par_iter()
                .map(|(input, trace)| (*input, lint_one(self.linter, self.parse_only, trace)))
                .collect()
        });
        for (input, lint) in linted {
            merged_lints[input].push(lint);
        }
        for (offset, lints) in merged_lints.into_iter().enumerate() {
            let input = next + offset;
            let p = std::mem::take(&mut pending[input]);
            let outcome = (held[offset].outcome, held[offset].empty);
            w.finish_input(input, outcome, p, lints);
        }
        for issue in nothing_linted(&mut w.builder) {
            w.builder.issue(issue);
        }
        if w.listing.omitted() > 0 {
            w.drop_unlisted_outlines();
        }
        let Writer {
            mut builder,
            settle,
            listing,
            error,
            ..
        } = w;
        if let Some(e) = error {
            anyhow::bail!("cannot read back the findings kept in a temporary file: {e}");
        }
        let cap = listing.cap().unwrap_or(usize::MAX);
        let (listed, cut) = listing.finish();
        // A run that lists no finding (`doctor`) has nothing to say about those it left out.
        for (input, offered, out) in cut.into_iter().filter(|_| cap > 0) {
            builder.note(input, crate::lint::listing::note(cap, offered, out));
        }
        let mut report = builder.finish_settled(settle);
        settle_baseline(&mut report, baseline, self.settings.report_only)?;
        Ok((report, listed))
    }
}
