//! A seekable file or bytes in memory: a zip archive (an Inspect `.eval` log) opened as such,
//! anything else handed to `parse_reader`.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::model::{InputRef, Trace};

use crate::adapters::{Emit, InputFormat, Parsed, ReadOptions, ReadOutcome, inspect, otel, parse_reader};
use crate::finding::InputIssue;

use super::read::read_zip;

/// Read one input file. OTel span files — read as `otel`, or recognised as OTLP JSON from their
/// first bytes — are streamed in two passes (`otel::parse_seekable`), so memory follows the
/// largest trace, not the file; so is a JSON array of OpenAI-shaped records (`array`, an
/// element at a time); everything else goes through `parse_reader`.
pub fn parse_file<R: Read + Seek>(
    mut file: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    let mut head = vec![0; 4096];
    let filled = match read_head(&mut file, &mut head) {
        Ok(n) => n,
        Err(e) => {
            out.issue(InputIssue::file(path, format!("cannot read: {e}")));
            return ReadOutcome::Failed;
        }
    };
    let stream = match opts.format {
        Some(f) => f == InputFormat::Otel,
        None => otel::is_otlp_prefix(&head[..filled]),
    };
    if let Err(e) = file.seek(SeekFrom::Start(0)) {
        out.issue(InputIssue::file(path, format!("cannot read: {e}")));
        return ReadOutcome::Failed;
    }
    if inspect::is_zip(&head[..filled]) && opts.format.is_none_or(|f| f == InputFormat::Inspect) {
        return read_zip(file, path, opts, out);
    }
    if !stream {
        if let Some(read) = super::array::parse_seekable(&mut file, &head[..filled], path, opts, out) {
            return read;
        }
        if let Err(e) = file.seek(SeekFrom::Start(0)) {
            out.issue(InputIssue::file(path, format!("cannot read: {e}")));
            return ReadOutcome::Failed;
        }
        return parse_reader(BufReader::with_capacity(256 << 10, file), path, opts, out);
    }
    let input = InputRef {
        path: path.to_owned(),
        format: InputFormat::Otel.name().to_owned(),
    };
    otel::parse_seekable(file, &input, opts.limits, out);
    ReadOutcome::Read(InputFormat::Otel)
}

/// The format `parse_file` would read a file as (or why it would read nothing), found without
/// running the adapter: only what decides the format is read (the whole of a JSON document,
/// or, for an array read an element at a time, its first pass).
pub(crate) fn file_format<R: Read + Seek>(mut file: R, path: &str, opts: &ReadOptions) -> ReadOutcome {
    let mut head = vec![0; 4096];
    let Ok(filled) = read_head(&mut file, &mut head) else {
        return ReadOutcome::Failed;
    };
    let stream = match opts.format {
        Some(f) => f == InputFormat::Otel,
        None => otel::is_otlp_prefix(&head[..filled]),
    };
    if stream {
        return ReadOutcome::Read(InputFormat::Otel);
    }
    if file.seek(SeekFrom::Start(0)).is_err() {
        return ReadOutcome::Failed;
    }
    if inspect::is_zip(&head[..filled]) && opts.format.is_none_or(|f| f == InputFormat::Inspect) {
        return ReadOutcome::Read(InputFormat::Inspect);
    }
    if let Some(read) = super::array::detect_seekable(&mut file, &head[..filled], opts) {
        return read;
    }
    if file.seek(SeekFrom::Start(0)).is_err() {
        return ReadOutcome::Failed;
    }
    super::read::detect_reader(BufReader::with_capacity(256 << 10, file), path, opts)
}

/// Parse a whole input held in memory (library API and tests).
pub fn parse_bytes(
    bytes: &[u8],
    path: &str,
    format: Option<InputFormat>,
) -> (Option<InputFormat>, Parsed) {
    let mut parsed = Parsed::default();
    let opts = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    let f = match parse_reader(bytes, path, &opts, &mut parsed) {
        ReadOutcome::Read(f) => Some(f),
        _ => None,
    };
    (f, parsed)
}

/// Read a whole file through the format its content shows (`load_traces`, `load_whole`): an
/// error only when the file cannot be opened; problems with its content are in the result.
pub(crate) fn read_path(path: &Path) -> std::io::Result<Parsed> {
    let display = path.display().to_string();
    let file = crate::inputs::open_file(path)?;
    let mut parsed = Parsed::default();
    parse_reader(
        std::io::BufReader::new(file),
        &display,
        &ReadOptions::default(),
        &mut parsed,
    );
    Ok(parsed)
}

/// Every trace in a file, or every problem met reading it (one per line, each at
/// `path:line:col`): for inputs that must be read whole (a recorded run, a reference trace).
pub(crate) fn load_whole(path: &Path) -> Result<Vec<Trace>, String> {
    let display = path.display().to_string();
    let join = |issues: &[InputIssue]| {
        issues
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    match read_path(path) {
        Ok(parsed) if parsed.issues.is_empty() => Ok(parsed.traces),
        Ok(parsed) if parsed.omitted_issues > 0 => Err(format!(
            "{}\n{display}: {} more problems not listed",
            join(&parsed.issues),
            parsed.omitted_issues
        )),
        Ok(parsed) => Err(join(&parsed.issues)),
        Err(source) => Err(join(&[InputIssue::file(
            &display,
            format!("cannot read: {source}"),
        )])),
    }
}

/// Fill `head` from the start of `file` as far as the file goes: the bytes read.
fn read_head(file: &mut impl Read, head: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
