//! [`Linter::lint_phoenix`]: the spans of a running Arize Phoenix server, read through its REST
//! API, linted, and the findings written back as span annotations, as `tracelint check
//! phoenix:URL` does. The talking is `crate::phoenix`'s; this file only maps its options and
//! results onto the library's types.

use super::Error;
use crate::inputs::InputSpec;
use crate::phoenix::download::{self, Download};
use crate::phoenix::{self as px, Target, annotate};
use crate::reporters::Report;

/// Which spans [`Linter::lint_phoenix`](crate::Linter::lint_phoenix) reads, and whether it
/// writes the findings back: the `--since`, `--until` and `--write-back` flags of `tracelint
/// check phoenix:URL`.
///
/// ```
/// let read = tracelint::PhoenixOptions::new().since("24h").write_back(true);
/// # let _ = read;
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct PhoenixOptions {
    since: Option<String>,
    until: Option<String>,
    pub(super) write_back: bool,
    pub(super) include_candidates: bool,
}

impl PhoenixOptions {
    /// Every span of the project, nothing written back.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only spans that started at or after this instant (`--since`): an RFC 3339 date-time
    /// (`2026-07-01T12:00:00Z`), a date (`2026-07-01`, midnight UTC) or an age (`90m`, `24h`,
    /// `7d`: that long ago).
    pub fn since(mut self, when: impl Into<String>) -> Self {
        self.since = Some(when.into());
        self
    }

    /// Only spans that started before this instant (`--until`), written as for
    /// [`since`](Self::since).
    pub fn until(mut self, when: impl Into<String>) -> Self {
        self.until = Some(when.into());
        self
    }

    /// Record each finding as an annotation on the span of the step it cites (`--write-back`):
    /// named `tracelint`, labelled with the finding's tier, with its rule and message. A rerun
    /// updates the annotations it wrote before instead of adding new ones.
    pub fn write_back(mut self, yes: bool) -> Self {
        self.write_back = yes;
        self
    }

    /// Write candidates back too (`--include-candidates`); by default only hard defects and
    /// hard events are.
    pub fn include_candidates(mut self, yes: bool) -> Self {
        self.include_candidates = yes;
        self
    }
}

/// What [`Linter::lint_phoenix`](crate::Linter::lint_phoenix) did: the report over the spans
/// it read, and what it wrote back (`None` unless [`PhoenixOptions::write_back`] was set).
#[derive(Debug)]
#[non_exhaustive]
pub struct PhoenixRun {
    /// The report, its one input named as the source was given (`phoenix:http://…`).
    pub report: Report,
    /// The annotations written back.
    pub written: Option<WrittenBack>,
}

/// The annotations a write-back sent to Phoenix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WrittenBack {
    /// Annotations created or updated.
    pub annotations: usize,
    /// The distinct spans they are on.
    pub spans: usize,
    /// Findings that cite no span with an id, so were not written.
    pub unplaced: usize,
}

/// A `phoenix:` source read: where, how, and the spans downloaded.
pub(super) struct Read {
    pub(super) target: Target,
    pub(super) options: px::Options,
    pub(super) download: Download,
}

impl Read {
    /// The download as an input of a run, shown as the source was given.
    pub(super) fn spec(&self) -> InputSpec {
        InputSpec {
            display: self.target.shown.clone(),
            path: Some(self.download.file.path().to_path_buf()),
            walked: false,
            resolved: std::fs::canonicalize(self.download.file.path()).ok(),
        }
    }
}

/// Check the options and download the spans `source` names (before anything is linted).
pub(super) fn read(
    input_format: Option<crate::adapters::InputFormat>,
    max_record: usize,
    source: &str,
    options: &PhoenixOptions,
) -> Result<Read, Error> {
    if let Some(f) = input_format
        && f != crate::adapters::InputFormat::Otel
    {
        return Err(Error::Phoenix(format!(
            "the input format `{}` with a `phoenix:` source: Phoenix serves OpenTelemetry spans (`otel`)",
            f.name()
        )));
    }
    let target = Target::parse(source).map_err(Error::Phoenix)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let when = |what: &str, v: &Option<String>| -> Result<Option<i128>, Error> {
        v.as_deref()
            .map(|t| px::parse_instant(t, now).map_err(|e| Error::Phoenix(format!("{what} {e}"))))
            .transpose()
    };
    let mut opts = px::Options {
        since: when("since", &options.since)?,
        until: when("until", &options.until)?,
        api_key: std::env::var(px::API_KEY_ENV)
            .ok()
            .filter(|k| !k.trim().is_empty()),
        ..px::Options::default()
    };
    if let (Some(s), Some(u)) = (opts.since, opts.until)
        && s >= u
    {
        return Err(Error::Phoenix("since must be before until".to_owned()));
    }
    opts.bounds.max_span_bytes = max_record;
    let download = download::download(&target, &opts).map_err(|e| Error::Phoenix(e.0))?;
    Ok(Read {
        target,
        options: opts,
        download,
    })
}

/// Write the report's findings on `read`'s spans back to the server as annotations.
pub(super) fn write_back(
    read: &Read,
    report: &Report,
    include_candidates: bool,
) -> Result<WrittenBack, Error> {
    let Some(input) = report
        .inputs
        .iter()
        .position(|i| i.path == read.target.shown)
    else {
        return Ok(WrittenBack {
            annotations: 0,
            spans: 0,
            unplaced: 0,
        });
    };
    let w = annotate::write_back(
        &read.target,
        &read.options,
        report,
        input,
        &read.download,
        include_candidates,
    )
    .map_err(|e| Error::Phoenix(e.0))?;
    Ok(WrittenBack {
        annotations: w.annotations,
        spans: w.spans,
        unplaced: w.unplaced,
    })
}
