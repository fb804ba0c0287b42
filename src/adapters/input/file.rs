//! A seekable file or bytes in memory: a zip archive (an Inspect `.eval` log) opened as such,
//! anything else handed to `parse_reader`.

use std::io::{BufReader, Read, Seek, SeekFrom};

use crate::model::InputRef;

use crate::adapters::{Emit, InputFormat, Parsed, ReadOptions, ReadOutcome, inspect, otel, parse_reader};
use crate::finding::InputIssue;

use super::read::read_zip;

/// Read one input file. OTel span files — read as `otel`, or recognised as OTLP JSON from their
/// first bytes — are streamed in two passes (`otel::parse_seekable`), so memory follows the
/// largest trace, not the file; everything else goes through `parse_reader`.
pub fn parse_file<R: Read + Seek>(
    mut file: R,
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> ReadOutcome {
    let mut head = vec![0; 4096];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                out.issue(InputIssue::file(path, format!("cannot read: {e}")));
                return ReadOutcome::Failed;
            }
        }
    }
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
        return parse_reader(BufReader::with_capacity(256 << 10, file), path, opts, out);
    }
    let input = InputRef {
        path: path.to_owned(),
        format: InputFormat::Otel.name().to_owned(),
    };
    otel::parse_seekable(file, &input, opts.limits, out);
    ReadOutcome::Read(InputFormat::Otel)
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
