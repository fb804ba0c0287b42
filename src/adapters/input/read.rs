//! `parse_reader`: one input read as a JSON document or as streamed JSON Lines, its format detected
//! unless given, and its body handed to the adapter, within the size limits.

use std::io::{BufRead, Read, Seek};

use serde_json::Value;

use crate::finding::InputIssue;
use crate::model::InputRef;

use crate::adapters::input::detect::{DETECT_LINES, Undetected, companion, looks_like_tools};

use crate::adapters::common::json_pos::{Line, LineReader, Pieces};
use crate::adapters::{Body, Container, EMPTY_FILE, Emit, Head, InputFormat, Limits, cline, common::json_pos, detect, input::empty, inspect, parse_body};

/// Lines looked at, at most, to find the records a JSON Lines input's format is detected from.
const DETECT_SCAN: usize = 4096;

/// How to read one input.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// The format, or `None` to detect it from the content.
    pub format: Option<InputFormat>,
    /// Size limits.
    pub limits: Limits,
    /// Skip (instead of failing on) a file that is a tools file, not a trace: set for files found
    /// by walking a directory.
    pub skip_tools_files: bool,
}

/// What reading one input came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Read as this format (issues, if any, were emitted).
    Read(InputFormat),
    /// A tools file found by a directory walk: skipped.
    SkippedToolsFile,
    /// A file that goes with a session (an agent's UI log or metadata), found by a directory
    /// walk: skipped; the text says what it is.
    SkippedCompanion(&'static str),
    /// A file found by a directory walk in which no record fits any format (a `package.json`,
    /// a config, a statistics file): skipped, and an input error only when nothing else was
    /// linted.
    SkippedNotTrace,
    /// Nothing could be read; an issue says why.
    Failed,
}

/// A zip archive: an Inspect `.eval` log.
pub(super) fn read_zip<R: Read + Seek>(
    file: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    let input = InputRef {
        path: path.to_owned(),
        format: InputFormat::Inspect.name().to_owned(),
    };
    inspect::parse_zip(file, &input, opts.limits, out);
    ReadOutcome::Read(InputFormat::Inspect)
}

/// Read one input: decide document vs. JSON Lines, detect the format (unless given), and run
/// the adapter.
pub fn parse_reader<R: BufRead>(
    reader: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    read_or_detect(reader, path, opts, out, false)
}

/// What `parse_reader` would read this input as, found the same way but without running the
/// adapter (what it would say of the input is dropped): `Read(format)`, or why it would read
/// nothing.
pub(crate) fn detect_reader<R: BufRead>(reader: R, path: &str, opts: &ReadOptions) -> ReadOutcome {
    read_or_detect(
        reader,
        path,
        opts,
        &mut crate::adapters::Parsed::default(),
        true,
    )
}

/// `parse_reader`, or with `detect_only` its decisions alone, up to the format.
fn read_or_detect<R: BufRead>(
    mut reader: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
    detect_only: bool,
) -> ReadOutcome {
    let (format, limits) = (opts.format, opts.limits);
    let undetected = |head: &Head, why: Undetected, out: &mut dyn Emit| {
        if opts.skip_tools_files && looks_like_tools(head) {
            ReadOutcome::SkippedToolsFile
        } else if let (true, Some(what)) = (opts.skip_tools_files, companion(&head.records)) {
            ReadOutcome::SkippedCompanion(what)
        } else if opts.skip_tools_files && why.no_format {
            ReadOutcome::SkippedNotTrace
        } else {
            out.issue(match why.line {
                Some(line) => InputIssue::at(path, line, 1, why.message),
                None => InputIssue::file(path, why.message),
            });
            ReadOutcome::Failed
        }
    };
    let mut first = Vec::new();
    let mut first_truncated = false;
    match read_first_line(
        &mut reader,
        limits.max_record,
        &mut first,
        &mut first_truncated,
    ) {
        Ok(()) => {}
        Err(e) => {
            out.issue(InputIssue::file(path, format!("cannot read: {e}")));
            return ReadOutcome::Failed;
        }
    }
    if inspect::is_zip(&first) && format.is_none_or(|f| f == InputFormat::Inspect) {
        // A zip archive (an Inspect `.eval` log) read from a stream: held in memory, bounded.
        let mut bytes = first;
        let cap = (limits.max_record as u64).saturating_mul(4);
        if let Err(e) = reader
            .take(cap.saturating_sub(bytes.len() as u64) + 1)
            .read_to_end(&mut bytes)
        {
            out.issue(InputIssue::file(path, format!("cannot read: {e}")));
            return ReadOutcome::Failed;
        }
        if bytes.len() as u64 > cap {
            out.issue(InputIssue::file(
                path,
                format!("the archive is larger than the limit of {cap} bytes"),
            ));
            return ReadOutcome::Failed;
        }
        return read_zip(std::io::Cursor::new(bytes), path, opts, out);
    }
    // A first line past the limit that opens a JSON object, followed by a line that is a JSON
    // object: JSON Lines whose first record is too long. That record is an input error and the
    // others are read (`skipped` lines before the one now in `first`).
    let mut skipped: u32 = 0;
    if first_truncated && opens_object(&first) {
        match next_record_line(&mut reader, limits.max_record) {
            Ok(Some((line, before))) => {
                first = line;
                first_truncated = false;
                skipped = before;
            }
            Ok(None) => {}
            Err(e) => {
                out.issue(InputIssue::file(path, format!("cannot read: {e}")));
                return ReadOutcome::Failed;
            }
        }
    }
    let bom_len = if first.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let first_text = &first[bom_len..];
    let mut is_lines = !first_truncated && is_record(first_text);
    // Text before the records (a banner, a log line): skipped up to the first record, and said
    // once, when a format reads what follows.
    let mut preamble: Option<Preamble> = None;
    if !is_lines && !first_truncated && is_text_line(first_text) {
        let broken = broken_record(first_text);
        match past_preamble(&mut reader, limits.max_record, &mut first) {
            Ok(Some(mut found)) => {
                first = std::mem::take(&mut found.record);
                found.broken = broken;
                preamble = Some(found);
                is_lines = true;
            }
            Ok(None) => {}
            Err(e) => {
                out.issue(InputIssue::file(path, format!("cannot read: {e}")));
                return ReadOutcome::Failed;
            }
        }
    }
    if is_lines {
        let renumber = |by: u32| {
            move |r: Result<Line, InputIssue>| {
                r.map(|mut l| {
                    l.number = l.number.saturating_add(by);
                    l
                })
                .map_err(|mut i| {
                    if i.line > 0 {
                        i.line = i.line.saturating_add(by);
                    }
                    i
                })
            }
        };
        // The line the first record is on, less one: an over-long first record skipped, or
        // the text lines before the first record.
        let base = skipped.saturating_add(preamble.as_ref().map_or(0, |p| p.lines));
        // The first line is handed over as read (not copied: it may be a record of many
        // megabytes), then the rest is read.
        let lines = LineReader::holding(first, reader, path, limits.max_record).map(renumber(base));
        let too_long = (skipped > 0).then(|| {
            Err(InputIssue::at(
                path,
                1,
                1,
                format!(
                    "record is longer than the limit of {} bytes; raise it with `--max-record-size`",
                    limits.max_record
                ),
            ))
        });
        let mut all = too_long.into_iter().chain(lines);
        let mut buffered: Vec<Result<Line, InputIssue>> = Vec::new();
        let format = match format {
            Some(f) => f,
            None => {
                // Up to `DETECT_LINES` records, looking at most `DETECT_SCAN` lines (a file of
                // one record and millions of bad lines is detected from what came first).
                let mut records = 0;
                for item in all.by_ref() {
                    records += usize::from(item.is_ok());
                    buffered.push(item);
                    if records >= DETECT_LINES || buffered.len() >= DETECT_SCAN {
                        break;
                    }
                }
                let (records, lines) = buffered
                    .iter()
                    .filter_map(|r| r.as_ref().ok())
                    .filter_map(|l| json_pos::skim(&l.text, 4).ok().map(|v| (v, l.number)))
                    .unzip();
                let head = Head {
                    container: Container::Lines,
                    records,
                    lines,
                };
                match detect(&head) {
                    Ok(f) => f,
                    Err(msg) => return undetected(&head, msg, out),
                }
            }
        };
        if detect_only {
            return ReadOutcome::Read(format);
        }
        if let Some(p) = &preamble {
            out.issue(p.issue(path));
        }
        let mut scan = empty::Scan::default();
        let mut lines = buffered
            .into_iter()
            .chain(all)
            .inspect(|l| scan.line(l.as_ref().ok()));
        let mut tally = empty::Tally::new(out);
        parse_body(
            format,
            Body::Lines(&mut lines),
            &InputRef {
                path: path.to_owned(),
                format: format.name().to_owned(),
            },
            &mut tally,
        );
        drop(lines);
        tally.finish(path, format, &scan);
        return ReadOutcome::Read(format);
    }
    // A first line past the limit: whether the file is JSON Lines or one document, that line
    // alone is more than may be read.
    if first_truncated {
        out.issue(InputIssue::at(
            path,
            1,
            1,
            format!(
                "line 1 is longer than the limit of {} bytes; raise it with `--max-record-size`",
                limits.max_record
            ),
        ));
        return ReadOutcome::Failed;
    }
    // A whole document: read the rest.
    let mut bytes = first;
    let cap = limits.max_record as u64;
    if let Err(e) = reader
        .take(cap + 1 - (bytes.len() as u64).min(cap))
        .read_to_end(&mut bytes)
    {
        out.issue(InputIssue::file(path, format!("cannot read: {e}")));
        return ReadOutcome::Failed;
    }
    if bytes.len() > limits.max_record {
        out.issue(InputIssue::file(
            path,
            format!(
                "the document is larger than the limit of {} bytes; raise it with `--max-record-size`",
                limits.max_record
            ),
        ));
        return ReadOutcome::Failed;
    }
    let text = match std::str::from_utf8(&bytes[bom_len..]) {
        Ok(t) => t,
        Err(e) => {
            let upto = &bytes[bom_len..bom_len + e.valid_up_to()];
            let line = 1 + memchr::memchr_iter(b'\n', upto).count();
            out.issue(InputIssue::at(
                path,
                u32::try_from(line).unwrap_or(u32::MAX),
                0,
                "invalid UTF-8: the file is not text",
            ));
            return ReadOutcome::Failed;
        }
    };
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        out.issue(InputIssue::file(path, EMPTY_FILE));
        return ReadOutcome::Failed;
    }
    // Lines ended by a carriage return alone read as one line; when that is no JSON document,
    // they were JSON Lines (a JSON document may use CR as white space, and still reads).
    if !text.contains('\n')
        && text.trim_end().contains('\r')
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_err()
    {
        out.issue(InputIssue::file(
            path,
            "its lines end in a carriage return alone (CR, as classic Mac OS wrote them), which JSON Lines does not allow: convert them to LF (`tr '\\r' '\\n'`) and lint it again",
        ));
        return ReadOutcome::Failed;
    }
    if !trimmed.starts_with(['{', '[']) {
        let (line, col) = first_char_position(text);
        out.issue(InputIssue::at(
            path,
            line,
            col,
            "not JSON: a trace file must hold a JSON object, a JSON array or JSON Lines",
        ));
        return ReadOutcome::Failed;
    }
    let format = match format {
        Some(f) => f,
        None => {
            let top = match json_pos::skim(text, 5).map_err(|e| (first_of_several(text), e)) {
                Ok(v) | Err((Some(v), _)) => v,
                Err((None, e)) => {
                    let (line, col) = json_pos::error_position(&e, 1);
                    out.issue(InputIssue::at(
                        path,
                        line,
                        col,
                        format!("invalid JSON: {}", json_pos::error_message(&e)),
                    ));
                    return ReadOutcome::Failed;
                }
            };
            let records = match top {
                Value::Array(items) => items,
                other => vec![other],
            };
            let head = Head {
                container: Container::Document,
                records,
                lines: Vec::new(),
            };
            match detect(&head) {
                Ok(InputFormat::Cline)
                    if opts.skip_tools_files
                        && head.records.first().is_some_and(cline::is_sdk_metadata)
                        && std::path::Path::new(path)
                            .with_extension("messages.json")
                            .is_file() =>
                {
                    return ReadOutcome::SkippedCompanion(
                        "a Cline session's metadata; its conversation, the `.messages.json` beside it, is linted",
                    );
                }
                Ok(f) => f,
                Err(msg) => return undetected(&head, msg, out),
            }
        }
    };
    if detect_only {
        return ReadOutcome::Read(format);
    }
    let mut tally = empty::Tally::new(out);
    parse_body(
        format,
        Body::Document(text),
        &InputRef {
            path: path.to_owned(),
            format: format.name().to_owned(),
        },
        &mut tally,
    );
    let mut scan = empty::Scan::default();
    if !tally.settled() {
        scan.document(text);
    }
    tally.finish(path, format, &scan);
    ReadOutcome::Read(format)
}

/// The first of several concatenated JSON documents (the Python console span exporter writes
/// one pretty object per span), skimmed for detection; `None` unless the whole text is such a
/// sequence.
fn first_of_several(text: &str) -> Option<Value> {
    let mut values =
        serde_json::Deserializer::from_str(text).into_iter::<&serde_json::value::RawValue>();
    let first = values.next()?.ok()?;
    let mut more = false;
    for v in values {
        v.ok()?;
        more = true;
    }
    more.then(|| json_pos::skim(first.get(), 5).ok()).flatten()
}

fn first_char_position(text: &str) -> (u32, u32) {
    let offset = text.len() - text.trim_start().len();
    let idx = crate::model::LineIndex::new(text);
    idx.line_col(text, offset)
}

/// Whether a line opens a JSON object (after a BOM and blanks).
fn opens_object(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// After a first line cut at the limit: skip the rest of it, then blank lines, and return the
/// next line (with how many lines came before it) when it is one JSON object within `max`
/// bytes; `None` otherwise (one big document, or nothing more).
fn next_record_line<R: BufRead>(reader: &mut R, max: usize) -> std::io::Result<Option<(Vec<u8>, u32)>> {
    // The rest of the first line, read and dropped.
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(None);
        }
        match memchr::memchr(b'\n', available) {
            Some(i) => {
                reader.consume(i + 1);
                break;
            }
            None => {
                let n = available.len();
                reader.consume(n);
            }
        }
    }
    let mut before: u32 = 1;
    loop {
        let (mut line, mut truncated) = (Vec::new(), false);
        read_first_line(reader, max, &mut line, &mut truncated)?;
        if line.is_empty() {
            return Ok(None);
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            before = before.saturating_add(1);
            continue;
        }
        let record = !truncated
            && opens_object(&line)
            && std::str::from_utf8(&line)
                .is_ok_and(|s| serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok());
        return Ok(record.then_some((line, before)));
    }
}

/// Read the first physical line (up to `max` bytes, plus its newline) into `buf`.
fn read_first_line<R: BufRead>(
    reader: &mut R,
    max: usize,
    buf: &mut Vec<u8>,
    truncated: &mut bool,
) -> std::io::Result<()> {
    // A long line is gathered in pieces and joined at its end (`Pieces`).
    let mut pieces = Pieces::default();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            pieces.join(buf);
            return Ok(());
        }
        let (take, end) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        pieces.push(buf, &available[..take]);
        reader.consume(take);
        if end {
            pieces.join(buf);
            return Ok(());
        }
        if pieces.len(buf) > max {
            *truncated = true;
            pieces.join(buf);
            return Ok(());
        }
    }
}

/// Lines looked at, at most, past a first line of text for the first JSON Lines record.
const PREAMBLE_SCAN: usize = 1000;

/// Characters of a skipped line shown in the issue that says it was skipped.
const PREAMBLE_SHOWN: usize = 80;

/// The lines of text before a JSON Lines file's first record (a banner, a log line).
#[derive(Debug)]
struct Preamble {
    /// How many lines come before the first record.
    lines: u32,
    /// The first of them, as read (bounded).
    text: String,
    /// The first record's line, as read.
    record: Vec<u8>,
    /// The first line opens a JSON object and breaks off inside the line (a raw control
    /// character, a stray quote): the column and the parser's message, said like any other
    /// broken record's.
    broken: Option<(u32, String)>,
}

impl Preamble {
    /// The one input issue that says what was skipped.
    fn issue(&self, path: &str) -> InputIssue {
        let lines = if self.lines == 1 {
            "line 1 is".to_owned()
        } else {
            format!("lines 1–{} are", self.lines)
        };
        let next = self.lines.saturating_add(1);
        if let Some((column, why)) = &self.broken {
            let skipped = if self.lines == 1 {
                String::new()
            } else {
                format!("; lines 1–{} are skipped", self.lines)
            };
            return InputIssue::at(
                path,
                1,
                *column,
                format!("invalid JSON: {why}{skipped}; the JSON Lines records from line {next} on are read"),
            );
        }
        let mut shown: String = self.text.chars().take(PREAMBLE_SHOWN).collect();
        if shown.len() < self.text.len() {
            shown.push('…');
        }
        InputIssue::at(
            path,
            1,
            1,
            format!(
                "{lines} not JSON (`{shown}`): skipped; the JSON Lines records from line {} on are read",
                self.lines.saturating_add(1)
            ),
        )
    }
}

/// A line holding one JSON object: a JSON Lines record.
fn is_record(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{')
        && std::str::from_utf8(line)
            .is_ok_and(|s| serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok())
}

/// A first line that opens a JSON object and is broken within the line (not merely going on
/// past it, as a pretty-printed document does): the column of the fault and what it is.
fn broken_record(line: &[u8]) -> Option<(u32, String)> {
    if !opens_object(line) {
        return None;
    }
    let e = serde_json::from_slice::<serde::de::IgnoredAny>(line).err()?;
    (e.classify() == serde_json::error::Category::Syntax).then(|| {
        let (_, column) = json_pos::error_position(&e, 1);
        (column, json_pos::error_message(&e))
    })
}

/// A line of text that is not the start of a JSON document: not blank, and not JSON that
/// merely goes on past the line (a pretty-printed document's `{` or `[`).
fn is_text_line(line: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    let text = text.trim();
    !text.is_empty()
        && serde_json::from_str::<serde::de::IgnoredAny>(text)
            .is_err_and(|e| e.classify() != serde_json::error::Category::Eof)
}

/// After a first line of text (`first`): the lines up to the first JSON Lines record, within
/// `PREAMBLE_SCAN` lines and `max` bytes. `None` when there is none: every line read was
/// appended to `first`, which is then read as the document it may be.
fn past_preamble<R: BufRead>(
    reader: &mut R,
    max: usize,
    first: &mut Vec<u8>,
) -> std::io::Result<Option<Preamble>> {
    let text = String::from_utf8_lossy(first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first))
        .trim()
        .chars()
        .take(PREAMBLE_SHOWN + 1)
        .collect::<String>();
    let mut lines: u32 = 1;
    for _ in 0..PREAMBLE_SCAN {
        let mut line = Vec::new();
        let mut truncated = false;
        read_first_line(reader, max, &mut line, &mut truncated)?;
        if line.is_empty() {
            return Ok(None);
        }
        if !truncated && is_record(&line) {
            return Ok(Some(Preamble {
                lines,
                text,
                record: line,
                broken: None,
            }));
        }
        first.extend_from_slice(&line);
        lines = lines.saturating_add(1);
        if truncated || first.len() > max {
            return Ok(None);
        }
    }
    Ok(None)
}
