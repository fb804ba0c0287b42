//! Reading inputs: each input through its adapter into a sink that lints every trace as it is
//! emitted (in the pool when streaming), OTel runs split across files held and merged, sub-agent
//! mirrors told apart from the sub-agent's own file. One cohesive thing over 400 lines: the sink
//! and the reader share the hold, the in-flight bound and the order traces are put back in.

use std::collections::{BTreeMap, HashSet};
use std::sync::mpsc::Sender;

use rayon::prelude::*;

use super::Settings;
use crate::adapters::{self, Emit, InputFormat, ReadOptions, ReadOutcome, otel};
use crate::finding::{InputIssue, MAX_ISSUES_PER_INPUT};
use crate::inputs::{self, InputSpec};
use crate::lint::{Linter, ReportBuilder, TraceLint};
use crate::model::Trace;

/// Which OTel traces wait for the end of the run, to be merged with parts of the same trace
/// from other inputs.
#[derive(Clone, Copy)]
pub(crate) struct OtelHold<'a> {
    /// Several inputs are read (one alone has nothing to merge with).
    pub(crate) several: bool,
    /// The trace ids found in more than one input, when every input was indexed up front (a
    /// first pass over span files): only their traces wait. `None`: every trace with an id
    /// waits.
    pub(crate) shared: Option<&'a HashSet<String>>,
}

impl OtelHold<'_> {
    pub(crate) fn holds(&self, trace: &Trace) -> bool {
        let Some(id) = trace.attribute(otel::TRACE_ID) else {
            return false;
        };
        self.several && self.shared.is_none_or(|s| s.contains(id))
    }
}

/// When two or more inputs are read and each is a span file on disk or (the format left to
/// detection) a file on disk that is read as another format than OTel, with one span file at
/// least: the trace ids found in more than one span file (the OTel reader's first pass, run
/// over each span file up front). The traces of every other id are linted and freed as their
/// file is read instead of waiting for the last file: only the OTel reader gives a trace an id,
/// so no other input can continue them. `None` when an input may be read as OTel without being
/// a span file (stdin, a pipe, a file whose records are detected as spans further in), or a span
/// file cannot be indexed cleanly.
pub(crate) fn shared_trace_ids(
    specs: &[InputSpec],
    settings: &Settings,
    pool: &rayon::ThreadPool,
) -> Option<HashSet<String>> {
    if specs.len() < 2 || !matches!(settings.input_format, None | Some(InputFormat::Otel)) {
        return None;
    }
    let open = |spec: &InputSpec| {
        let path = spec.path.as_deref()?;
        let file = inputs::open_file(path).ok()?;
        (!inputs::is_pipe(&file)).then_some(file)
    };
    let spans = |spec: &InputSpec| open(spec).is_some_and(otel::looks_like_spans);
    let is_span: Vec<bool> = pool.install(|| specs.par_iter().map(spans).collect());
    if !is_span.contains(&true) {
        return None;
    }
    if is_span.contains(&false) {
        // Every other input must be one the OTel reader will not read.
        if settings.input_format.is_some() {
            return None;
        }
        let not_otel = |(spec, _): (&InputSpec, &bool)| {
            let opts = ReadOptions {
                format: None,
                limits: settings.limits,
                skip_tools_files: spec.walked,
            };
            open(spec).is_some_and(|file| {
                adapters::file_format(file, &spec.display, &opts)
                    != ReadOutcome::Read(InputFormat::Otel)
            })
        };
        let others_clear = pool.install(|| {
            specs
                .par_iter()
                .zip(is_span.par_iter())
                .filter(|(_, span)| !**span)
                .all(not_otel)
        });
        if !others_clear {
            return None;
        }
    }
    let keys: Vec<Option<Vec<String>>> = pool.install(|| {
        specs
            .par_iter()
            .zip(is_span.par_iter())
            .filter(|(_, span)| **span)
            .map(|(spec, _)| otel::trace_keys(open(spec)?, settings.limits))
            .collect()
    });
    let mut seen: HashSet<String> = HashSet::new();
    let mut shared = HashSet::new();
    for file_keys in keys {
        for k in file_keys? {
            if !seen.insert(k.clone()) {
                shared.insert(k);
            }
        }
    }
    Some(shared)
}

/// What one input produced.
pub(crate) struct InputResult {
    pub(crate) outcome: ReadOutcome,
    pub(crate) traces: Vec<TraceLint>,
    /// OTel traces held back to be merged with the same trace id from other inputs.
    pub(crate) deferred: Vec<Trace>,
    pub(crate) issues: Vec<InputIssue>,
    /// Input errors past the first `MAX_ISSUES_PER_INPUT`: counted, neither kept nor sent.
    pub(crate) omitted_issues: u64,
    /// Notes the adapter made about the input.
    pub(crate) notes: Vec<String>,
    /// The input was empty (and other inputs were given).
    pub(crate) empty: bool,
}

/// Lints each trace as soon as its adapter emits it, so memory follows the largest trace —
/// except OTel traces when several inputs are read, which may continue in another file.
pub(crate) struct Sink<'a, 's> {
    linter: &'a Linter,
    parse_only: bool,
    defer_otel: OtelHold<'a>,
    result: InputResult,
    /// Streaming: linted traces and issues go to the writer (with this input's index) instead
    /// of into `result`.
    events: Option<(usize, &'a Sender<Event>)>,
    /// Streaming with several threads: traces are linted in the pool while the adapter reads
    /// on, at most `MAX_IN_FLIGHT` at a time (past that the reader lints the trace itself).
    scope: Option<&'s rayon::Scope<'a>>,
    in_flight: &'a std::sync::atomic::AtomicUsize,
    /// Inputs being read in the run right now: a trace is handed to the pool only while fewer
    /// than its threads read, since otherwise no thread is free to lint it and it would wait,
    /// whole, for the end of its input (up to `MAX_IN_FLIGHT` of them per input and thread).
    readers: &'a std::sync::atomic::AtomicUsize,
    /// Traces emitted so far (the writer puts them back in this order).
    seq: usize,
    /// This is the run's last input: its latest linted trace is kept in `last` rather than
    /// freed, so the one the run ends with is never freed (see `retire`).
    hold_last: bool,
    last: Option<Trace>,
    /// Input errors passed on so far (kept or sent): past `MAX_ISSUES_PER_INPUT` they are
    /// only counted, so a file of endless bad lines holds memory and the channel bounded.
    issues_passed: usize,
}

/// Traces of one input linted in the pool at once, per worker thread: bounds the memory of a
/// big file read faster than it is linted.
pub(crate) const MAX_IN_FLIGHT: usize = 2;

/// What a reader tells the streaming writer.
pub(crate) enum Event {
    /// A linted trace: input, its place among the input's traces, the lint.
    Trace(usize, usize, TraceLint),
    Issue(usize, InputIssue),
    /// A note about an input.
    Note(usize, String),
    /// The input is read; what is left of its result (its outcome, held-back OTel traces).
    Done(usize, InputResult),
}

pub(crate) fn lint_one(linter: &Linter, parse_only: bool, trace: &Trace) -> TraceLint {
    if parse_only {
        TraceLint::of(trace)
    } else {
        linter.lint(trace)
    }
}

impl<'a> Emit for Sink<'a, '_> {
    fn trace(&mut self, trace: Trace) {
        use std::sync::atomic::Ordering;
        if self.defer_otel.holds(&trace) {
            self.result.deferred.push(trace);
            return;
        }
        let Some((input, tx)) = self.events else {
            let lint = lint_one(self.linter, self.parse_only, &trace);
            self.result.traces.push(lint);
            self.retire(trace);
            return;
        };
        let seq = self.seq;
        self.seq += 1;
        // With `--parse-only` there is nothing to lint: handing a trace over would cost more
        // than it saves.
        if let Some(scope) = self.scope
            && !self.parse_only
            && self.readers.load(Ordering::Acquire) < rayon::current_num_threads()
            && self.in_flight.load(Ordering::Acquire) < MAX_IN_FLIGHT * rayon::current_num_threads()
        {
            self.in_flight.fetch_add(1, Ordering::AcqRel);
            let (linter, parse_only, in_flight) = (self.linter, self.parse_only, self.in_flight);
            let tx = tx.clone();
            scope.spawn(move |_| {
                let lint = lint_one(linter, parse_only, &trace);
                drop(trace);
                // The writer outlives every reader; a send cannot fail before it stops reading.
                drop(tx.send(Event::Trace(input, seq, lint)));
                in_flight.fetch_sub(1, Ordering::AcqRel);
            });
            return;
        }
        let lint = lint_one(self.linter, self.parse_only, &trace);
        self.retire(trace);
        drop(tx.send(Event::Trace(input, seq, lint)));
    }
    fn issue(&mut self, issue: InputIssue) {
        // An empty input among others is a note, not an input error (all empty: see
        // `no_trace_at_all`).
        if self.defer_otel.several && issue.line == 0 && issue.message == adapters::EMPTY_FILE {
            self.result.empty = true;
            return;
        }
        if self.issues_passed >= MAX_ISSUES_PER_INPUT {
            self.result.omitted_issues = self.result.omitted_issues.saturating_add(1);
            return;
        }
        self.issues_passed += 1;
        match self.events {
            Some((input, tx)) => drop(tx.send(Event::Issue(input, issue))),
            None => self.result.issues.push(issue),
        }
    }
    fn note(&mut self, note: String) {
        match self.events {
            Some((input, tx)) => drop(tx.send(Event::Note(input, note))),
            None => self.result.notes.push(note),
        }
    }
}

pub(crate) fn read_input(
    spec: &InputSpec,
    settings: &Settings,
    linter: &Linter,
    parse_only: bool,
    defer_otel: OtelHold<'_>,
    events: Option<(usize, &Sender<Event>, &std::sync::atomic::AtomicUsize)>,
    last_input: bool,
) -> InputResult {
    let in_flight = std::sync::atomic::AtomicUsize::new(0);
    // Streaming: the input's index, the writer, and how many inputs the run reads right now.
    let none_read = std::sync::atomic::AtomicUsize::new(0);
    let (events, readers) = match events {
        Some((input, tx, readers)) => (Some((input, tx)), readers),
        None => (None, &none_read),
    };
    // Traces of this input in the pool, and inputs the run reads right now.
    let counts = (&in_flight, readers);
    // Traces are linted across the pool only when streaming (the writer reorders them) and
    // when there is another thread to lint them.
    if events.is_some() && rayon::current_num_threads() > 1 {
        return rayon::in_place_scope(|scope| {
            read_into(
                spec,
                settings,
                Sink::new(linter, parse_only, defer_otel, events, counts, Some(scope))
                    .holding_last(last_input),
            )
        });
    }
    read_into(
        spec,
        settings,
        Sink::new(linter, parse_only, defer_otel, events, counts, None).holding_last(last_input),
    )
}

impl<'a, 's> Sink<'a, 's> {
    fn new(
        linter: &'a Linter,
        parse_only: bool,
        defer_otel: OtelHold<'a>,
        events: Option<(usize, &'a Sender<Event>)>,
        (in_flight, readers): (
            &'a std::sync::atomic::AtomicUsize,
            &'a std::sync::atomic::AtomicUsize,
        ),
        scope: Option<&'s rayon::Scope<'a>>,
    ) -> Self {
        Sink {
            linter,
            parse_only,
            defer_otel,
            events,
            scope,
            in_flight,
            readers,
            seq: 0,
            hold_last: false,
            last: None,
            issues_passed: 0,
            result: InputResult::empty(),
        }
    }

    fn holding_last(mut self, hold_last: bool) -> Self {
        self.hold_last = hold_last;
        self
    }

    /// Done with a linted trace: free it, or, in the run's last input, keep it until the next
    /// one is linted (it is freed then). The trace the run ends with is never freed: all that
    /// follows is writing the report and exiting, and the OS takes the memory back at once,
    /// where freeing it walks every node of every tree it holds (a fifth of the time of a run
    /// on a single 50,000-step trace). At most one trace more is held, only in the last input.
    fn retire(&mut self, trace: Trace) {
        if self.hold_last {
            self.last = Some(trace);
        }
    }
}

impl InputResult {
    pub(crate) fn empty() -> Self {
        InputResult {
            outcome: ReadOutcome::Failed,
            traces: Vec::new(),
            deferred: Vec::new(),
            issues: Vec::new(),
            omitted_issues: 0,
            notes: Vec::new(),
            empty: false,
        }
    }
}

/// Record how an input was read (its format, or why it was skipped) and whether only part of
/// it could be read.
pub(crate) fn record_outcome(
    builder: &mut ReportBuilder,
    input: usize,
    (outcome, empty): (ReadOutcome, bool),
    partial: bool,
) {
    if empty {
        builder.note(input, "empty: nothing to lint in it".into());
    }
    match outcome {
        ReadOutcome::Read(f) => builder.format(input, f.name()),
        ReadOutcome::SkippedToolsFile => builder.note(
            input,
            "skipped: a tools file found in a walked directory, not a trace".into(),
        ),
        ReadOutcome::SkippedCompanion(what) => {
            builder.note(input, format!("skipped: {what}"));
        }
        ReadOutcome::SkippedNotTrace => builder.note(input, adapters::NOT_A_TRACE_NOTE.into()),
        ReadOutcome::Failed => {}
    }
    if partial {
        builder.partial(input);
    }
}

/// The trace, unless it is the `agent_progress` mirror of a sub-agent linted from its own file
/// in this run (then a note says so).
pub(crate) fn unless_mirrored(
    builder: &mut ReportBuilder,
    input: usize,
    t: TraceLint,
    originals: &HashSet<String>,
) -> Option<TraceLint> {
    if t.mirror && originals.contains(&t.run_id) {
        builder.note(
            input,
            format!(
                "sub-agent `{}` is read from its own file, not from this file's `agent_progress` mirror",
                t.run_id
            ),
        );
        return None;
    }
    Some(t)
}

pub(crate) fn read_into(spec: &InputSpec, settings: &Settings, mut sink: Sink<'_, '_>) -> InputResult {
    let opts = ReadOptions {
        format: settings.input_format,
        limits: settings.limits,
        skip_tools_files: spec.walked,
    };
    let outcome = read_spec(spec, &opts, &mut sink);
    sink.result.outcome = outcome;
    // The run's last trace: only the report and the exit follow (see `Sink::retire`).
    std::mem::forget(sink.last.take());
    sink.result
}

/// The OTel traces held back from every input, grouped by trace id and merged; each comes with
/// the input it is reported under (the first one its run appeared in), in order of first
/// appearance.
pub(crate) fn merge_split_runs(results: &mut [InputResult]) -> Vec<(usize, Trace)> {
    // trace id → (order of first appearance, input of first appearance, parts in input order)
    let mut groups: BTreeMap<String, (usize, usize, Vec<Trace>)> = BTreeMap::new();
    let mut seen = 0;
    for (input, result) in results.iter_mut().enumerate() {
        for trace in result.deferred.drain(..) {
            let id = trace
                .attribute(otel::TRACE_ID)
                .unwrap_or_default()
                .to_owned();
            let group = groups.entry(id).or_insert_with(|| {
                seen += 1;
                (seen, input, Vec::new())
            });
            group.2.push(trace);
        }
    }
    let mut merged: Vec<(usize, usize, Trace)> = groups
        .into_values()
        .filter_map(|(first, input, parts)| Some((first, input, otel::merge(parts)?)))
        .collect();
    merged.sort_by_key(|(first, _, _)| *first);
    merged.into_iter().map(|(_, input, t)| (input, t)).collect()
}


/// When no input held a trace, each empty input, and each walked file skipped as plainly not a
/// trace, is an input error after all: never a silent pass.
pub(crate) fn nothing_linted(builder: &mut ReportBuilder) -> Vec<InputIssue> {
    let r = builder.report();
    let why = |i: &crate::reporters::InputSummary| {
        i.notes.iter().find_map(|n| {
            if n.starts_with("empty:") {
                Some(adapters::EMPTY_FILE)
            } else if n == adapters::NOT_A_TRACE_NOTE {
                Some(adapters::NOT_A_TRACE)
            } else {
                None
            }
        })
    };
    if r.inputs.iter().any(|i| i.traces > 0) {
        return Vec::new();
    }
    let issues: Vec<(usize, InputIssue)> = r
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(n, i)| Some((n, InputIssue::file(&i.path, why(i)?))))
        .collect();
    // The skipped file's note gives way to its input error.
    for (n, _) in &issues {
        builder.unnote(*n, adapters::NOT_A_TRACE_NOTE);
    }
    issues.into_iter().map(|(_, i)| i).collect()
}


/// Read one input — a file, or stdin for `-` — through the adapters into `sink`. A file that
/// cannot be opened (or is a directory) and an unreadable stdin are input errors.
pub(crate) fn read_spec(
    spec: &crate::inputs::InputSpec,
    opts: &crate::adapters::ReadOptions,
    sink: &mut dyn crate::adapters::Emit,
) -> crate::adapters::ReadOutcome {
    use crate::adapters::{self, ReadOutcome};
    use crate::finding::InputIssue;
    use std::io::Read;
    // A stream (stdin, a named pipe, `<(…)`): parsed as it comes (JSON Lines record by
    // record, so an endless stream is linted in bounded memory; a document up to the record
    // limit).
    let mut stream = |reader: &mut dyn Read| {
        let reader = std::io::BufReader::with_capacity(256 << 10, reader);
        adapters::parse_reader(reader, &spec.display, opts, &mut *sink)
    };
    match &spec.path {
        None => stream(&mut std::io::stdin().lock()),
        Some(path) => {
            let opened = crate::inputs::open_file(path);
            match opened {
                Ok(mut file) if crate::inputs::is_pipe(&file) => stream(&mut file),
                Ok(file) => adapters::parse_file(file, &spec.display, opts, sink),
                Err(e) => {
                    sink.issue(InputIssue::file(&spec.display, format!("cannot read: {e}")));
                    ReadOutcome::Failed
                }
            }
        }
    }
}
