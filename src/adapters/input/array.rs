//! A JSON array in a seekable file, read an element at a time: a first pass checks that the
//! whole file is one valid, non-empty array of objects and notes where each element begins and
//! ends; a second reads the elements one by one, so memory follows the largest element, not the
//! file. Only OpenAI-shaped datasets (tau-bench's arrays of `{task_id, traj}`, saved message
//! lists) are read this way. Anything else, and any file the first pass does not find to be such
//! an array, is left to `parse_reader`, which reads the document whole: nothing is emitted before
//! that decision, so what is reported never depends on which way a file was read.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde_json::Value;

use crate::finding::InputIssue;
use crate::model::InputRef;

use crate::adapters::common::json_pos;
use crate::adapters::openai::{self, Element};
use crate::adapters::{Container, Emit, Head, InputFormat, ReadOptions, ReadOutcome, detect};

use super::empty;

/// Elements a document's format is detected from (`json_pos::skim` keeps as many of an array).
const HEAD_ELEMENTS: usize = 3;

/// Nesting an element may have and still be read this way: well under `serde_json`'s limit, so
/// an element that parses alone also parses inside the array.
const MAX_DEPTH: u32 = 100;

/// Where one element is in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    /// Byte offset of its `{`.
    start: u64,
    /// Its length in bytes, to the closing `}`.
    len: usize,
    /// 1-based line and column (in characters) of its `{`.
    line: u32,
    column: u32,
}

/// Read `file` an element at a time when it is a JSON array of OpenAI-shaped records (the
/// format given, or detected as `parse_reader` would detect it); `None`, with nothing emitted
/// and the file's position anywhere, when it is to be read whole instead. `head` is the file's
/// first bytes: a file that does not open with `[` is not read any further here.
pub(super) fn parse_seekable<R: Read + Seek>(
    file: &mut R,
    head: &[u8],
    path: &str,
    opts: &ReadOptions,
    out: &mut dyn Emit,
) -> Option<ReadOutcome> {
    let spans = spans_of(file, head, opts)?;
    let input = InputRef {
        path: path.to_owned(),
        format: InputFormat::OpenAi.name().to_owned(),
    };
    let mut tally = empty::Tally::new(out);
    let mut elements = spans.iter().map(|span| {
        read_span(file, span).map_err(|e| {
            InputIssue::at(path, span.line, span.column, format!("cannot read: {e}"))
        })
    });
    openai::parse_elements(&mut elements, &input, &mut tally);
    drop(elements);
    let mut scan = empty::Scan::default();
    if !tally.settled() {
        // No call read: the whole text is scanned for what looks like one, as for any document.
        let mut text = String::new();
        if file.seek(SeekFrom::Start(0)).is_ok() && file.read_to_string(&mut text).is_ok() {
            scan.document(&text);
        }
    }
    tally.finish(path, InputFormat::OpenAi, &scan);
    Some(ReadOutcome::Read(InputFormat::OpenAi))
}

/// What `parse_seekable` would read `file` as, found without reading it whole: `Some` when it
/// reads it an element at a time (the first pass alone runs), `None` when the file is to be read
/// whole.
pub(super) fn detect_seekable<R: Read + Seek>(
    file: &mut R,
    head: &[u8],
    opts: &ReadOptions,
) -> Option<ReadOutcome> {
    spans_of(file, head, opts).map(|_| ReadOutcome::Read(InputFormat::OpenAi))
}

/// The first pass over `file`, from its start, when it may be read an element at a time (its
/// first bytes, `head`, open an array: anything else costs no read).
fn spans_of<R: Read + Seek>(file: &mut R, head: &[u8], opts: &ReadOptions) -> Option<Vec<Span>> {
    let opens_array = head.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) == Some(&b'[');
    if !opens_array || opts.format.is_some_and(|f| f != InputFormat::OpenAi) {
        return None;
    }
    let size = file.seek(SeekFrom::End(0)).ok()?;
    if size > opts.limits.max_record as u64 {
        return None; // read whole, which says it is too large
    }
    file.seek(SeekFrom::Start(0)).ok()?;
    outline(
        BufReader::with_capacity(256 << 10, &mut *file),
        opts.format.is_none(),
    )
}

/// One element's text, read from where the first pass found it.
fn read_span<R: Read + Seek>(file: &mut R, span: &Span) -> std::io::Result<Element> {
    file.seek(SeekFrom::Start(span.start))?;
    let mut bytes = vec![0; span.len];
    file.read_exact(&mut bytes)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the file changed while it was read; lint it again",
        )
    })?;
    Ok(Element {
        text,
        line: span.line,
        column: span.column,
    })
}

/// Where the first pass is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the `[`.
    Start,
    /// After the `[`: an element must come.
    Open,
    /// Inside an element.
    Element,
    /// After an element: `,` or `]`.
    After,
    /// After a `,`: an element must come.
    Comma,
    /// After the `]`: white space only.
    Done,
}

/// A line and a column (in characters, 0-based) reached in the file.
#[derive(Debug, Clone, Copy)]
struct Place {
    line: u32,
    column: u32,
}

impl Place {
    /// Move past `bytes`.
    fn advance(&mut self, bytes: &[u8]) {
        let chars = |b: &[u8]| {
            let n = b.iter().filter(|&&c| c & 0xC0 != 0x80).count();
            u32::try_from(n).unwrap_or(u32::MAX)
        };
        match memchr::memrchr(b'\n', bytes) {
            Some(last) => {
                let lines = memchr::memchr_iter(b'\n', bytes).count();
                self.line = self
                    .line
                    .saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
                self.column = chars(&bytes[last + 1..]);
            }
            None => self.column = self.column.saturating_add(chars(bytes)),
        }
    }
}

/// The first pass: the spans of the elements of the one JSON array `reader` holds, each element
/// checked to be valid JSON; with `detect_format`, the array's first elements must be detected as
/// OpenAI-shaped. `None` for anything else (no array, an empty one, an element that is not an
/// object, a fault anywhere, another format), or a read error: the file is then read whole.
fn outline<R: BufRead>(mut reader: R, detect_format: bool) -> Option<Vec<Span>> {
    let mut spans = Vec::new();
    let mut heads: Vec<Value> = Vec::new();
    let mut decided = !detect_format;
    let mut element = Vec::new();
    let (mut state, mut depth) = (State::Start, 0u32);
    let (mut in_string, mut escaped) = (false, false);
    let mut offset = 0u64;
    let mut place = Place { line: 1, column: 0 };
    let mut start = (0u64, place);
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        // Bytes of the chunk already counted into `place`, and where the element in progress
        // continues from.
        let (mut counted, mut from) = (0, 0);
        let mut i = 0;
        while i < n {
            if state == State::Element && in_string {
                if escaped {
                    escaped = false;
                    i += 1;
                    continue;
                }
                match memchr::memchr2(b'"', b'\\', &chunk[i..]) {
                    None => i = n,
                    Some(k) => {
                        i += k + 1;
                        if chunk[i - 1] == b'\\' {
                            escaped = true;
                        } else {
                            in_string = false;
                        }
                    }
                }
                continue;
            }
            let b = chunk[i];
            i += 1;
            let ws = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
            match state {
                State::Element => match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => {
                        depth += 1;
                        if depth > MAX_DEPTH {
                            return None;
                        }
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        if depth > 0 {
                            continue;
                        }
                        element.extend_from_slice(&chunk[from..i]);
                        let text = std::str::from_utf8(&element).ok()?;
                        serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
                        if !decided {
                            heads.push(json_pos::skim(text, 4).ok()?);
                        }
                        spans.push(Span {
                            start: start.0,
                            len: element.len(),
                            line: start.1.line,
                            column: start.1.column.saturating_add(1),
                        });
                        state = State::After;
                        if !decided && heads.len() == HEAD_ELEMENTS {
                            if !is_openai(std::mem::take(&mut heads)) {
                                return None;
                            }
                            decided = true;
                        }
                    }
                    _ => {}
                },
                State::Start if ws => {}
                State::Start if b == b'[' => state = State::Open,
                State::Open | State::Comma if ws => {}
                State::Open | State::Comma if b == b'{' => {
                    place.advance(&chunk[counted..i - 1]);
                    counted = i - 1;
                    start = (offset + counted as u64, place);
                    state = State::Element;
                    depth = 1;
                    from = counted;
                    element.clear();
                }
                State::After if ws => {}
                State::After if b == b',' => state = State::Comma,
                State::After if b == b']' => state = State::Done,
                State::Done if ws => {}
                _ => return None,
            }
        }
        if state == State::Element {
            element.extend_from_slice(&chunk[from..]);
        }
        place.advance(&chunk[counted..]);
        offset += n as u64;
        reader.consume(n);
    }
    if state != State::Done || (!decided && !is_openai(heads)) {
        return None;
    }
    Some(spans)
}

/// Whether a document whose first elements are `records` is detected as OpenAI-shaped.
fn is_openai(records: Vec<Value>) -> bool {
    let head = Head {
        container: Container::Document,
        records,
        lines: Vec::new(),
    };
    matches!(detect(&head), Ok(InputFormat::OpenAi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str, detect_format: bool) -> Option<Vec<(u32, u32, String)>> {
        let found = outline(text.as_bytes(), detect_format);
        // Read in chunks of every small size (a chunk ending inside a string, after a
        // backslash, in a character of several bytes …): the same spans.
        for capacity in 1..=9 {
            let chunked = BufReader::with_capacity(capacity, text.as_bytes());
            assert_eq!(outline(chunked, detect_format), found, "chunks of {capacity}");
        }
        let found = found?;
        Some(
            found
                .iter()
                .map(|s| {
                    let at = usize::try_from(s.start).unwrap();
                    (s.line, s.column, text[at..at + s.len].to_owned())
                })
                .collect(),
        )
    }

    #[test]
    fn finds_each_element_with_its_line_and_column() {
        let text = "[\n  {\"a\": \"]}\\\"{\\\\\"},\n  {\"é\": [1, {}]}, {\"b\": 2}\n]\n";
        assert_eq!(
            spans(text, false),
            Some(vec![
                (2, 3, "{\"a\": \"]}\\\"{\\\\\"}".to_owned()),
                (3, 3, "{\"é\": [1, {}]}".to_owned()),
                (3, 19, "{\"b\": 2}".to_owned()),
            ])
        );
    }

    #[test]
    fn anything_but_a_clean_array_of_objects_is_read_whole() {
        for text in [
            "",
            "[]",
            "{\"a\": 1}",
            "[1, 2]",
            "[{\"a\": 1},]",
            "[{\"a\": 1}] x",
            "[{\"a\": 1}",
            "[{\"a\": 1} {\"b\": 2}]",
            "[{\"a\": tru}]",
            "[{\"a\": 1]]",
            "\u{feff}[{\"a\": 1}]",
            "[{\"a\": \"\\q\"}]",
        ] {
            assert_eq!(spans(text, false), None, "{text:?}");
        }
        let deep = format!("[{}{}]", "{\"a\":[".repeat(60), "]}".repeat(60));
        assert_eq!(spans(&deep, false), None);
    }

    /// Both ways of reading `path` with `opts`: an element at a time (`None` when this file is
    /// not read that way) and whole, each as what it emitted.
    fn both_ways(path: &std::path::Path, opts: &ReadOptions) -> Option<(String, String)> {
        use crate::adapters::{Parsed, parse_reader};
        let name = path.display().to_string();
        let mut streamed = Parsed::default();
        let mut file = std::fs::File::open(path).unwrap();
        let head = std::fs::read(path).unwrap();
        let read = parse_seekable(&mut file, &head, &name, opts, &mut streamed)?;
        let mut whole = Parsed::default();
        let file = std::fs::File::open(path).unwrap();
        let whole_read = parse_reader(BufReader::new(file), &name, opts, &mut whole);
        // What a file is read as, found without reading it: the same both ways too.
        let mut file = std::fs::File::open(path).unwrap();
        let detected = detect_seekable(&mut file, &head, opts);
        let file = std::fs::File::open(path).unwrap();
        let detected_whole = super::super::read::detect_reader(BufReader::new(file), &name, opts);
        assert_eq!(detected, Some(detected_whole), "{name}");
        assert_eq!(detected, Some(read), "{name}");
        Some((
            format!("{read:?}\n{streamed:#?}"),
            format!("{whole_read:?}\n{whole:#?}"),
        ))
    }

    /// The same array laid out otherwise: on one line (elements begin mid-line, after text
    /// holding characters of several bytes when the data has any), and indented by four.
    fn layouts(text: &str) -> Vec<String> {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return Vec::new();
        };
        let mut four = Vec::new();
        let pretty = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut four, pretty);
        serde::Serialize::serialize(&value, &mut ser).unwrap();
        vec![
            serde_json::to_string(&value).unwrap(),
            format!("\r\n \t{}\n\n", String::from_utf8(four).unwrap()),
        ]
    }

    #[test]
    fn every_fixture_reads_the_same_an_element_at_a_time_as_whole() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    files.push(path);
                }
            }
        }
        files.sort();
        let scratch = tempfile::tempdir().unwrap();
        let options = [
            ReadOptions::default(),
            ReadOptions {
                skip_tools_files: true,
                ..ReadOptions::default()
            },
            ReadOptions {
                format: Some(InputFormat::OpenAi),
                ..ReadOptions::default()
            },
        ];
        let (mut streamed, mut laid_out) = (0, 0);
        for path in &files {
            for opts in &options {
                let Some((one, other)) = both_ways(path, opts) else {
                    continue;
                };
                assert_eq!(one, other, "{}", path.display());
                streamed += 1;
                let text = std::fs::read_to_string(path).unwrap();
                for (i, layout) in layouts(&text).into_iter().enumerate() {
                    let copy = scratch.path().join(format!("layout-{i}.json"));
                    std::fs::write(&copy, layout).unwrap();
                    let (one, other) =
                        both_ways(&copy, opts).expect("a valid array is read an element at a time");
                    assert_eq!(one, other, "{} laid out as {i}", path.display());
                    laid_out += 1;
                }
            }
        }
        // The fixtures hold real tau-bench and saved-conversation arrays: read this way, with
        // their locations (lines, columns, ends) and issues the same as read whole.
        assert!(streamed >= 6, "{streamed} fixture readings went an element at a time");
        assert!(laid_out >= 12, "{laid_out}");
    }

    #[test]
    fn a_document_past_the_limit_is_left_to_the_whole_read() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/real/openai-chat/tau-bench-gpt-4o-airline.subset.json");
        let mut opts = ReadOptions::default();
        assert!(both_ways(&path, &opts).is_some());
        opts.limits.max_record = 1000;
        assert!(both_ways(&path, &opts).is_none());
    }

    #[test]
    fn only_what_is_detected_as_openai_is_read_this_way() {
        let tau = r#"[{"task_id": 1, "traj": [{"role": "user", "content": "hi"}]}]"#;
        assert_eq!(spans(tau, true).map(|s| s.len()), Some(1));
        let tools = r#"[{"type": "function", "function": {"name": "f", "parameters": {}}}]"#;
        assert_eq!(spans(tools, true), None);
        assert!(spans(tools, false).is_some());
    }
}
