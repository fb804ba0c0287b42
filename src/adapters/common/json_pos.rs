//! Shared position helpers for adapters: byte offsets of borrowed `RawValue`s → `Location`,
//! a bounded "skim" of a document for format detection, and the JSON Lines reader (line numbers,
//! a maximum record size, BOM and CRLF handling, invalid UTF-8 reported per line).

use std::io::BufRead;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::finding::InputIssue;
use crate::model::{LineIndex, Location};

/// Byte offset of a borrowed raw value inside the text it was parsed from.
pub fn offset_in(text: &str, raw: &RawValue) -> usize {
    let base = text.as_ptr() as usize;
    let at = raw.get().as_ptr() as usize;
    at.saturating_sub(base).min(text.len())
}

/// The location of a borrowed raw value, with where it ends.
pub fn locate(text: &str, index: &LineIndex, raw: &RawValue, pointer: String) -> Location {
    let start = offset_in(text, raw);
    index.span(text, start, start + raw.get().len(), pointer)
}

/// Turn a serde_json error into (line, column) relative to a text that starts at `first_line`.
pub fn error_position(err: &serde_json::Error, first_line: u32) -> (u32, u32) {
    let line = u32::try_from(err.line()).unwrap_or(u32::MAX);
    (
        first_line.saturating_add(line.saturating_sub(1)).max(1),
        u32::try_from(err.column()).unwrap_or(u32::MAX).max(1),
    )
}

/// Report a JSON parse error of a text that starts at line `first_line` as an input issue.
pub fn json_issue(e: &serde_json::Error, first_line: u32, path: &str, out: &mut dyn crate::adapters::Emit) {
    let (line, col) = error_position(e, first_line);
    out.issue(InputIssue::at(
        path,
        line,
        col,
        format!("invalid JSON: {}", error_message(e)),
    ));
}

/// Run `each` over every record of JSON Lines, borrowed from its line; a line that is not JSON
/// (or could not be read) is an input issue, and the rest are still read.
pub fn each_record(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    path: &str,
    out: &mut dyn crate::adapters::Emit,
    mut each: impl FnMut(&RawValue, &Line, &mut dyn crate::adapters::Emit),
) {
    for line in lines {
        match line {
            Err(issue) => out.issue(issue),
            Ok(line) => match serde_json::from_str::<&RawValue>(&line.text) {
                Ok(raw) => each(raw, &line, out),
                Err(e) => json_issue(&e, line.number, path, out),
            },
        }
    }
}

/// The deepest JSON nesting read (serde_json's fixed recursion limit; it cannot be raised).
pub const MAX_NESTING: usize = 128;

/// A serde_json error's message without its " at line L column C" suffix (the caller reports the
/// position itself, relative to the file). Hitting the nesting limit is said as such.
pub fn error_message(err: &serde_json::Error) -> String {
    let s = err.to_string();
    let s = match s.rfind(" at line ") {
        Some(i) if s[i..].contains(" column ") => s[..i].to_owned(),
        _ => s,
    };
    if s == "recursion limit exceeded" {
        return format!("nested deeper than the limit of {MAX_NESTING} levels");
    }
    s
}

/// A reduced copy of a JSON text for format detection: objects keep every key, arrays keep
/// their first few elements, and nesting stops at `depth`. Costs about one scan of the text.
pub fn skim(text: &str, depth: usize) -> Result<Value, serde_json::Error> {
    let raw: &RawValue = serde_json::from_str(text)?;
    Ok(skim_raw(raw, depth))
}

/// Elements kept per array by `skim`.
const SKIM_ITEMS: usize = 3;

fn skim_raw(raw: &RawValue, depth: usize) -> Value {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'{') if depth > 0 => {
            match serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(s) {
                Ok(map) => Value::Object(
                    map.into_iter()
                        .map(|(k, v)| (k, skim_raw(v, depth - 1)))
                        .collect::<Map<String, Value>>(),
                ),
                Err(_) => Value::Null,
            }
        }
        Some(b'[') if depth > 0 => match serde_json::from_str::<Vec<&RawValue>>(s) {
            Ok(items) => Value::Array(
                items
                    .into_iter()
                    .take(SKIM_ITEMS)
                    .map(|v| skim_raw(v, depth - 1))
                    .collect(),
            ),
            Err(_) => Value::Null,
        },
        Some(b'{' | b'[') => Value::Null,
        // Long strings are cut: detection only needs to see their start.
        Some(b'"') if s.len() > 4096 => {
            let v: String = serde_json::from_str(s).unwrap_or_default();
            Value::String(v.chars().take(2048).collect())
        }
        _ => serde_json::from_str(s).unwrap_or(Value::Null),
    }
}

/// One line of a JSON Lines input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: u32,
    /// The line's text, without its line ending.
    pub text: String,
}

/// Reads JSON Lines from any `BufRead`: skips blank lines, strips a UTF-8 BOM and `\r`, bounds
/// each record, and reports (without stopping) lines that are too long or not UTF-8.
pub struct LineReader<R> {
    inner: R,
    path: String,
    max_record: usize,
    line: u32,
    buf: Vec<u8>,
    /// `buf` holds a line read already (`LineReader::holding`), not yet returned.
    held: bool,
    done: bool,
}

/// A line at least this long is handed over in the reader's own buffer instead of copied out
/// of it (a record of many megabytes is not held twice); shorter ones are copied, so the buffer
/// is reused.
const HAND_OVER: usize = 1 << 20;

/// A line read past this many bytes is gathered in pieces of this size and joined once at its
/// end, into a buffer of its exact length. Grown by doubling, a line of 64 MiB would be copied
/// into buffers of 1, 2, 4… 128 MiB, and the allocator keep the address space of every smaller
/// one (the hostile-input tests hold a run to 512 MiB of it).
const PIECE: usize = 1 << 20;

/// The pieces of a long line being read, past the first `PIECE` bytes (which are in the
/// reader's buffer).
#[derive(Debug, Default)]
pub(crate) struct Pieces(Vec<Vec<u8>>);

impl Pieces {
    /// The line's length so far, `buf` holding its start.
    pub(crate) fn len(&self, buf: &[u8]) -> usize {
        buf.len() + self.0.iter().map(Vec::len).sum::<usize>()
    }

    /// Append `bytes` to the line whose start is in `buf`.
    pub(crate) fn push(&mut self, buf: &mut Vec<u8>, mut bytes: &[u8]) {
        if self.0.is_empty() && buf.len() + bytes.len() <= PIECE {
            buf.extend_from_slice(bytes);
            return;
        }
        while !bytes.is_empty() {
            match self.0.last_mut() {
                Some(piece) if piece.len() < PIECE => {
                    let n = (PIECE - piece.len()).min(bytes.len());
                    piece.extend_from_slice(&bytes[..n]);
                    bytes = &bytes[n..];
                }
                _ => self.0.push(Vec::with_capacity(PIECE)),
            }
        }
    }

    /// The whole line, in `buf`.
    pub(crate) fn join(&mut self, buf: &mut Vec<u8>) {
        if self.0.is_empty() {
            return;
        }
        let mut whole = Vec::with_capacity(self.len(buf));
        whole.extend_from_slice(buf);
        for piece in self.0.drain(..) {
            whole.extend_from_slice(&piece);
        }
        *buf = whole;
    }
}

impl<R: BufRead> LineReader<R> {
    /// A reader over `inner`, whose records are at most `max_record` bytes.
    pub fn new(inner: R, path: impl Into<String>, max_record: usize) -> Self {
        Self {
            inner,
            path: path.into(),
            max_record,
            line: 0,
            buf: Vec::new(),
            held: false,
            done: false,
        }
    }

    /// A reader whose first line is `line` (read already, with or without its line ending),
    /// then whatever `inner` holds: `line` is not copied.
    pub fn holding(line: Vec<u8>, inner: R, path: impl Into<String>, max_record: usize) -> Self {
        let mut reader = Self::new(inner, path, max_record);
        reader.buf = line;
        reader.held = true;
        reader
    }

    /// Read one physical line into `buf`, keeping at most `max_record + 1` bytes; returns
    /// `(bytes read, truncated)` or `None` at the end.
    fn read_line(&mut self) -> std::io::Result<Option<bool>> {
        if std::mem::take(&mut self.held) {
            if self.buf.last() == Some(&b'\n') {
                self.buf.pop();
            }
            let truncated = self.buf.len() > self.max_record + 1;
            self.buf.truncate(self.max_record + 1);
            return Ok(Some(truncated));
        }
        self.buf.clear();
        let mut pieces = Pieces::default();
        let mut read_any = false;
        let mut truncated = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                pieces.join(&mut self.buf);
                return Ok(read_any.then_some(truncated));
            }
            read_any = true;
            let (chunk, used, end) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            let room = (self.max_record + 1).saturating_sub(pieces.len(&self.buf));
            if chunk.len() > room {
                truncated = true;
            }
            pieces.push(&mut self.buf, &chunk[..chunk.len().min(room)]);
            self.inner.consume(used);
            if end {
                pieces.join(&mut self.buf);
                return Ok(Some(truncated));
            }
        }
    }
}

impl<R: BufRead> Iterator for LineReader<R> {
    type Item = Result<Line, InputIssue>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let truncated = match self.read_line() {
                Ok(Some(t)) => t,
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(InputIssue::file(
                        &self.path,
                        format!("cannot read: {e}"),
                    )));
                }
            };
            self.line = self.line.saturating_add(1);
            if truncated || self.buf.len() > self.max_record {
                return Some(Err(InputIssue::at(
                    &self.path,
                    self.line,
                    1,
                    format!(
                        "record is longer than the limit of {} bytes; raise it with `--max-record-size`",
                        self.max_record
                    ),
                )));
            }
            let mut start = 0;
            if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                start = 3;
            }
            let mut end = self.buf.len();
            if end > start && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
            let bytes = &self.buf[start..end];
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let text = if bytes.len() >= HAND_OVER {
                let mut owned = std::mem::take(&mut self.buf);
                owned.truncate(end);
                owned.drain(..start);
                // What the buffer grew to past the line (up to as much again) is given back.
                if owned.capacity() - owned.len() > owned.len() / 8 {
                    owned.shrink_to_fit();
                }
                String::from_utf8(owned).map_err(|e| e.utf8_error())
            } else {
                std::str::from_utf8(bytes).map(str::to_owned)
            };
            return Some(match text {
                Ok(text) => Ok(Line {
                    number: self.line,
                    text,
                }),
                Err(e) => Err(InputIssue::at(
                    &self.path,
                    self.line,
                    u32::try_from(e.valid_up_to() + 1).unwrap_or(u32::MAX),
                    "invalid UTF-8: the record is not text",
                )),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Result<Line, InputIssue>> {
        LineReader::new(input, "f.jsonl", max).collect()
    }

    #[test]
    fn numbers_lines_and_skips_blanks() {
        let got = lines(b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":2}", 100);
        assert_eq!(
            got,
            vec![
                Ok(Line {
                    number: 1,
                    text: "{\"a\":1}".into()
                }),
                Ok(Line {
                    number: 4,
                    text: "{\"b\":2}".into()
                }),
            ]
        );
    }

    #[test]
    fn long_and_invalid_lines_are_issues_and_reading_goes_on() {
        let got = lines(b"{}\n0123456789abcdef\n\xff\xfe\n{}\n", 8);
        assert!(matches!(&got[0], Ok(l) if l.number == 1));
        assert_eq!(got[1].as_ref().unwrap_err().line, 2);
        assert!(
            got[1]
                .as_ref()
                .unwrap_err()
                .message
                .contains("--max-record-size")
        );
        assert_eq!(got[2].as_ref().unwrap_err().line, 3);
        assert!(matches!(&got[3], Ok(l) if l.number == 4));
    }

    /// A reader handed its first line reads exactly as one that read that line itself.
    #[test]
    fn a_held_first_line_reads_as_a_read_one() {
        let big = |prefix: &[u8], suffix: &[u8]| {
            let mut v = prefix.to_vec();
            v.extend(std::iter::repeat_n(b'a', HAND_OVER + 5));
            v.extend_from_slice(suffix);
            v
        };
        let firsts: Vec<Vec<u8>> = vec![
            b"{\"a\":1}\n".to_vec(),
            b"\xEF\xBB\xBF{\"a\":1}\r\n".to_vec(),
            b"{\"a\":1}".to_vec(),
            b"   \n".to_vec(),
            b"0123456789abcdef\n".to_vec(),
            b"012345678\n".to_vec(),
            b"\xff\xfe\n".to_vec(),
            big(b"\xEF\xBB\xBF", b"\r\n"),
            big(b"", b""),
            big(b"\xff", b"\n"),
            big(b"ab", b"\xff\n"),
        ];
        for first in firsts {
            for rest in [&b""[..], b"{}\n\n{\"b\":2}\r\n", b"\xEF\xBB\xBF{}"] {
                // A line read without its line ending is the file's last.
                if first.last() != Some(&b'\n') && !rest.is_empty() {
                    continue;
                }
                for max in [8, 2 * HAND_OVER] {
                    let whole: Vec<u8> = [&first[..], rest].concat();
                    let want: Vec<_> = LineReader::new(&whole[..], "f.jsonl", max).collect();
                    let got: Vec<_> =
                        LineReader::holding(first.clone(), rest, "f.jsonl", max).collect();
                    assert_eq!(got, want, "{:?} then {rest:?}, max {max}", &first[..first.len().min(20)]);
                }
            }
        }
    }

    /// Lines longer than a piece, read in chunks that straddle the pieces' bounds, come out
    /// whole, and are cut at the limit wherever it falls.
    #[test]
    fn long_lines_are_read_whole_across_pieces() {
        let line = |n: usize| -> Vec<u8> { (0..n).map(|i| b'a' + (i % 26) as u8).collect() };
        for n in [PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 7] {
            let mut input = line(n);
            input.extend_from_slice(b"\n{}\n");
            input.extend(line(n));
            for chunk in [999, 4096] {
                let reader = std::io::BufReader::with_capacity(chunk, &input[..]);
                let got: Vec<_> = LineReader::new(reader, "f.jsonl", 4 * PIECE).collect();
                let texts: Vec<_> = got.iter().map(|l| l.as_ref().unwrap().text.len()).collect();
                assert_eq!(texts, [n, 2, n], "{n} in chunks of {chunk}");
                let want = String::from_utf8(line(n)).unwrap();
                assert!(got[0].as_ref().unwrap().text == want);
                assert!(got[2].as_ref().unwrap().text == want);
                for max in [n - 2, n - 1, n] {
                    let reader = std::io::BufReader::with_capacity(chunk, &input[..]);
                    let got: Vec<_> = LineReader::new(reader, "f.jsonl", max).collect();
                    let long = got.iter().filter(|l| l.is_err()).count();
                    assert_eq!(long, if max < n { 2 } else { 0 }, "{n}, max {max}");
                    assert_eq!(got.len(), 3);
                }
            }
        }
    }

    /// A line of a megabyte or more is handed over in the buffer it was read into.
    #[test]
    fn a_long_line_is_not_copied() {
        // Exactly as long as it holds, so that nothing is given back (which may move it).
        let mut first = Vec::with_capacity(HAND_OVER + 3);
        first.push(b'{');
        first.extend(std::iter::repeat_n(b' ', HAND_OVER));
        first.extend_from_slice(b"}\n");
        let at = first.as_ptr();
        let got: Vec<_> = LineReader::holding(first, &b"{}"[..], "f.jsonl", 4 * HAND_OVER).collect();
        let line = got[0].as_ref().unwrap();
        assert_eq!((line.number, line.text.len()), (1, HAND_OVER + 2));
        assert_eq!(line.text.as_ptr(), at);
        assert_eq!(got[1].as_ref().unwrap().number, 2);
    }

    #[test]
    fn skim_keeps_keys_and_first_items() {
        let v = skim(r#"{"a": [1, 2, 3, 4, 5], "b": {"c": {"d": {"e": 1}}}}"#, 3).unwrap();
        assert_eq!(v["a"], serde_json::json!([1, 2, 3]));
        assert_eq!(v["b"]["c"]["d"], Value::Null);
    }

    #[test]
    fn offsets_of_raw_values() {
        let text = "[\n  {\"x\": 1},\n  {\"y\": 2}\n]";
        let items: Vec<&RawValue> = serde_json::from_str(text).unwrap();
        let idx = LineIndex::new(text);
        let loc = locate(text, &idx, items[1], "/1".into());
        assert_eq!((loc.line, loc.column), (3, 3));
    }
}
