//! A streaming structural scan of span files: walks JSON (one document, concatenated documents,
//! or JSON Lines) from any `BufRead` without building values, and reports each *span record* —
//! its byte range, the line:column where it begins, its JSON Pointer and its bytes. Memory stays
//! at one record, whatever the file size. It knows the containers spans come in (OTLP
//! `resourceSpans[].scopeSpans[].spans[]` in camelCase or snake_case, a JSON array of spans,
//! `{"data": [...]}`, `{"spans": [...]}`, a lone span object) and nothing about what a span
//! holds; `spans` reads the records.

use std::io::BufRead;

use crate::finding::InputIssue;
use crate::model::Location;
use crate::model::location::pointer_token;

/// Where one span record is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    /// Byte offset of its first byte in the stream.
    pub offset: u64,
    /// Its length in bytes.
    pub len: usize,
    /// Where it begins, and its pointer from the top-level value that holds it.
    pub at: Location,
}

/// How the values in the stream are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One document (or documents concatenated, as the Python console exporter writes): the
    /// first syntax error ends the scan.
    Document,
    /// JSON Lines: a syntax error costs its line only.
    Lines,
}

/// What the scan found.
pub enum Found<'a> {
    /// A span record and its bytes.
    Record(RecordRef, &'a [u8]),
    /// A problem at a position; the scan goes on or stops as the layout says.
    Issue(InputIssue),
}

/// Deepest nesting the scan follows (serde_json's own limit is lower, so records that deep
/// fail there with a precise message).
const MAX_DEPTH: usize = 512;
/// Longest object key kept for matching container keys.
const MAX_KEY: usize = 64;

/// What a value at some position is to the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Maybe a span, maybe a container of spans (decided by its keys).
    Candidate,
    /// An array whose elements are candidates.
    CandidateList,
    /// OTLP `resourceSpans`.
    ResourceList,
    /// One `resourceSpans` element.
    ResourceGroup,
    /// OTLP `scopeSpans`.
    ScopeList,
    /// One `scopeSpans` element.
    ScopeGroup,
    /// OTLP `spans`.
    SpanList,
    /// A span, certainly.
    Record,
    /// Anything else.
    Opaque,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After `:` or `[`/`,` in an array: a value.
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After a value: `,` or the closing bracket.
    CommaOrEnd,
}

struct Frame {
    is_object: bool,
    state: State,
    role: Role,
    /// The role of the value after the current key (objects) / of each element (arrays).
    child: Role,
    /// The current key (objects, non-opaque only) or the next index (arrays).
    key: String,
    index: usize,
    /// This frame is a candidate that turned out to be a container.
    container: bool,
}

/// An open record: where it began and its bytes so far.
struct Open {
    depth: usize,
    offset: u64,
    at: Location,
    bytes: Vec<u8>,
    too_long: bool,
}

struct Scan<'p, R> {
    inner: R,
    path: &'p str,
    offset: u64,
    line: u32,
    col: u32,
    max_record: usize,
    open: Option<Open>,
    stack: Vec<Frame>,
    /// Pointer tokens leading to each frame.
    tokens: Vec<String>,
    /// Something other than whitespace was read on the current line.
    dirty: bool,
}

enum Stop {
    Syntax(u32, u32, String),
    Io(std::io::Error),
}

/// Scan `reader`, calling `found` for every span record and every problem. `first_line` is the
/// line number of the reader's first line in the file.
pub fn scan<R: BufRead>(
    reader: R,
    path: &str,
    layout: Layout,
    max_record: usize,
    first_line: u32,
    found: &mut dyn FnMut(Found<'_>),
) {
    let mut s = Scan {
        inner: reader,
        path,
        offset: 0,
        line: first_line,
        col: 0,
        max_record,
        open: None,
        stack: Vec::new(),
        tokens: Vec::new(),
        dirty: false,
    };
    // A UTF-8 byte order mark is not part of the JSON.
    if let Ok(buf) = s.inner.fill_buf()
        && buf.starts_with(b"\xEF\xBB\xBF")
    {
        s.inner.consume(3);
        s.offset = 3;
    }
    loop {
        match s.run(found) {
            Ok(()) => return,
            Err(Stop::Io(e)) => {
                found(Found::Issue(InputIssue::file(
                    path,
                    format!("cannot read: {e}"),
                )));
                return;
            }
            Err(Stop::Syntax(line, col, msg)) => {
                found(Found::Issue(InputIssue::at(
                    path,
                    line,
                    col,
                    format!("invalid JSON: {msg}"),
                )));
                if layout == Layout::Document {
                    return;
                }
                // A line that ended early (an unterminated record) is not a reason to lose the
                // next one: resynchronise at the start of a line.
                if s.dirty && s.skip_line().is_err() {
                    return;
                }
                s.dirty = false;
                s.stack.clear();
                s.tokens.clear();
                s.open = None;
            }
        }
    }
}

impl<R: BufRead> Scan<'_, R> {
    fn peek(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            match self.inner.fill_buf() {
                Ok(b) => return Ok(b.first().copied()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::Io(e)),
            }
        }
    }

    /// Consume `n` bytes of the current buffer (the caller has seen them).
    fn advance(&mut self, n: usize) {
        let Ok(buf) = self.inner.fill_buf() else {
            return;
        };
        let chunk = &buf[..n.min(buf.len())];
        match memchr::memrchr(b'\n', chunk) {
            Some(last) => {
                self.line = self.line.saturating_add(
                    u32::try_from(memchr::memchr_iter(b'\n', chunk).count()).unwrap_or(u32::MAX),
                );
                self.col = chars(&chunk[last + 1..]);
            }
            None => self.col = self.col.saturating_add(chars(chunk)),
        }
        if let Some(open) = &mut self.open {
            if open.bytes.len() + chunk.len() > self.max_record {
                open.too_long = true;
                open.bytes = Vec::new();
            } else if !open.too_long {
                open.bytes.extend_from_slice(chunk);
            }
        }
        let used = chunk.len();
        self.offset += used as u64;
        self.inner.consume(used);
    }

    fn error(&self, msg: impl Into<String>) -> Stop {
        Stop::Syntax(self.line, self.col + 1, msg.into())
    }

    fn skip_ws(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            match self.peek()? {
                Some(b'\n') => {
                    self.advance(1);
                    self.dirty = false;
                }
                Some(b' ' | b'\t' | b'\r') => self.advance(1),
                other => return Ok(other),
            }
        }
    }

    fn skip_line(&mut self) -> Result<(), Stop> {
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) => return Err(Stop::Io(e)),
            };
            if buf.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    self.advance(i + 1);
                    return Ok(());
                }
                None => {
                    let n = buf.len();
                    self.advance(n);
                }
            }
        }
    }

    /// Read a string whose opening quote is next; keep its text when `keep` (keys).
    fn string(&mut self, keep: bool) -> Result<String, Stop> {
        self.advance(1);
        let mut kept = Vec::new();
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) => return Err(Stop::Io(e)),
            };
            if buf.is_empty() {
                return Err(self.error("end of file inside a string"));
            }
            match memchr::memchr2(b'"', b'\\', buf) {
                Some(i) => {
                    let is_quote = buf[i] == b'"';
                    if keep && kept.len() < MAX_KEY {
                        kept.extend_from_slice(&buf[..i.min(MAX_KEY)]);
                    }
                    self.advance(i + 1);
                    if is_quote {
                        return Ok(String::from_utf8_lossy(&kept).into_owned());
                    }
                    // The escaped byte, whatever it is, cannot end the string.
                    if self.peek()?.is_none() {
                        return Err(self.error("end of file inside a string"));
                    }
                    self.advance(1);
                    kept.push(b'\\');
                }
                None => {
                    let n = buf.len();
                    if keep && kept.len() < MAX_KEY {
                        kept.extend_from_slice(&buf[..n.min(MAX_KEY)]);
                    }
                    self.advance(n);
                }
            }
        }
    }

    fn literal(&mut self) -> Result<(), Stop> {
        let (line, col) = (self.line, self.col + 1);
        let mut word = Vec::new();
        while let Some(b) = self.peek()? {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')) {
                break;
            }
            if word.len() < 32 {
                word.push(b);
            }
            self.advance(1);
        }
        let ok = match word.first() {
            Some(b't') => word == b"true",
            Some(b'f') => word == b"false",
            Some(b'n') => word == b"null",
            Some(b'-' | b'0'..=b'9') => word
                .iter()
                .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')),
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(Stop::Syntax(line, col, "expected a value".into()))
        }
    }

    fn pointer(&self) -> String {
        let mut p = String::new();
        for t in &self.tokens {
            p.push('/');
            p.push_str(&pointer_token(t));
        }
        p
    }

    /// The role of the value about to start, from its parent's frame.
    fn next_role(&self) -> Role {
        match self.stack.last() {
            None => Role::Candidate,
            Some(f) => f.child,
        }
    }

    /// A value begins at the next byte `b`.
    fn begin_value(&mut self, b: u8, found: &mut dyn FnMut(Found<'_>)) -> Result<(), Stop> {
        self.dirty = true;
        let mut role = self.next_role();
        let token = match self.stack.last() {
            None => None,
            Some(f) if f.is_object => Some(f.key.clone()),
            Some(f) => Some(f.index.to_string()),
        };
        if role != Role::Opaque && self.stack.is_empty() && b == b'[' {
            role = Role::CandidateList;
        }
        // A candidate's container key turns it into a container, if the value is a list.
        if let Some(parent) = self.stack.last_mut()
            && parent.role == Role::Candidate
            && matches!(role, Role::ResourceList | Role::CandidateList)
        {
            if b == b'[' {
                parent.container = true;
                if self
                    .open
                    .as_ref()
                    .is_some_and(|o| o.depth == self.stack.len() - 1)
                {
                    self.open = None;
                }
            } else {
                role = Role::Opaque;
            }
        }
        if matches!(role, Role::Candidate | Role::Record) && b != b'{' {
            found(Found::Issue(InputIssue::at(
                self.path,
                self.line,
                self.col + 1,
                "a span must be a JSON object",
            )));
            role = Role::Opaque;
        }
        match b {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                if role != Role::Opaque {
                    if let Some(t) = token {
                        self.tokens.push(t);
                    }
                    if matches!(role, Role::Candidate | Role::Record) && self.open.is_none() {
                        self.open = Some(Open {
                            depth: self.stack.len(),
                            offset: self.offset,
                            at: Location::new(self.line, self.col + 1, self.pointer()),
                            bytes: Vec::new(),
                            too_long: false,
                        });
                    }
                }
                let child = match (b, role) {
                    (b'[', Role::CandidateList) => Role::Candidate,
                    (b'[', Role::ResourceList) => Role::ResourceGroup,
                    (b'[', Role::ScopeList) => Role::ScopeGroup,
                    (b'[', Role::SpanList) => Role::Record,
                    _ => Role::Opaque,
                };
                self.stack.push(Frame {
                    is_object: b == b'{',
                    state: if b == b'{' {
                        State::KeyOrEnd
                    } else {
                        State::ValueOrEnd
                    },
                    role,
                    child,
                    key: String::new(),
                    index: 0,
                    container: false,
                });
                self.advance(1);
                Ok(())
            }
            b'"' => self.string(false).map(|_| self.end_value()),
            _ => self.literal().map(|()| self.end_value()),
        }
    }

    /// A value just ended (a scalar, or the frame just popped).
    fn end_value(&mut self) {
        if let Some(f) = self.stack.last_mut() {
            f.state = State::CommaOrEnd;
        }
    }

    /// The container on top of the stack closes with the next byte.
    fn close(&mut self, found: &mut dyn FnMut(Found<'_>)) -> Result<(), Stop> {
        self.dirty = true;
        self.advance(1);
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        if frame.role != Role::Opaque && !self.stack.is_empty() {
            self.tokens.pop();
        }
        if self
            .open
            .as_ref()
            .is_some_and(|o| o.depth == self.stack.len())
        {
            let open = self.open.take();
            if let Some(open) = open
                && !frame.container
            {
                if open.too_long {
                    found(Found::Issue(InputIssue::at(
                        self.path,
                        open.at.line,
                        open.at.column,
                        format!(
                            "span record is longer than the limit of {} bytes; raise it with `--max-record-size`",
                            self.max_record
                        ),
                    )));
                } else {
                    let len = open.bytes.len();
                    found(Found::Record(
                        RecordRef {
                            offset: open.offset,
                            len,
                            at: open.at,
                        },
                        &open.bytes,
                    ));
                }
            }
        }
        if self.stack.is_empty() {
            self.tokens.clear();
        }
        self.end_value();
        Ok(())
    }

    fn run(&mut self, found: &mut dyn FnMut(Found<'_>)) -> Result<(), Stop> {
        loop {
            let Some(b) = self.skip_ws()? else {
                return if self.stack.is_empty() {
                    Ok(())
                } else {
                    Err(self.error("unexpected end of file"))
                };
            };
            let Some(top) = self.stack.last_mut() else {
                self.begin_value(b, found)?;
                continue;
            };
            match (top.state, b) {
                (State::KeyOrEnd, b'}') | (State::ValueOrEnd, b']') => self.close(found)?,
                (State::CommaOrEnd, b'}') if top.is_object => self.close(found)?,
                (State::CommaOrEnd, b']') if !top.is_object => self.close(found)?,
                (State::CommaOrEnd, b',') => {
                    self.dirty = true;
                    top.state = if top.is_object {
                        State::Key
                    } else {
                        top.index += 1;
                        State::Value
                    };
                    self.advance(1);
                }
                (State::KeyOrEnd | State::Key, b'"') => {
                    let keep = top.role != Role::Opaque;
                    let key = self.string(keep)?;
                    let Some(top) = self.stack.last_mut() else {
                        continue;
                    };
                    top.child = match (top.role, key.as_str()) {
                        (Role::Candidate, "resourceSpans" | "resource_spans") => Role::ResourceList,
                        (Role::Candidate, "data" | "spans") => Role::CandidateList,
                        (
                            Role::ResourceGroup,
                            "scopeSpans"
                            | "scope_spans"
                            | "instrumentationLibrarySpans"
                            | "instrumentation_library_spans",
                        ) => Role::ScopeList,
                        (Role::ScopeGroup, "spans") => Role::SpanList,
                        _ => Role::Opaque,
                    };
                    top.key = key;
                    top.state = State::Colon;
                }
                (State::Colon, b':') => {
                    top.state = State::Value;
                    self.advance(1);
                }
                (State::Value | State::ValueOrEnd, _) => self.begin_value(b, found)?,
                (State::KeyOrEnd | State::Key, _) => {
                    return Err(self.error("expected an object key in double quotes"));
                }
                (State::Colon, _) => return Err(self.error("expected `:` after an object key")),
                (State::CommaOrEnd, _) => {
                    let is_object = top.is_object;
                    return Err(self.error(if is_object {
                        "expected `,` or `}` after an object member"
                    } else {
                        "expected `,` or `]` after an array element"
                    }));
                }
            }
        }
    }
}

/// Characters (not bytes) in a UTF-8 slice: every byte that is not a continuation byte.
fn chars(bytes: &[u8]) -> u32 {
    let n = bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line:col pointer bytes` per record, `! line:col message` per issue.
    fn run(text: &str, layout: Layout) -> Vec<String> {
        let mut out = Vec::new();
        scan(text.as_bytes(), "f", layout, 1 << 20, 1, &mut |f| match f {
            Found::Record(r, bytes) => {
                assert_eq!(
                    &text.as_bytes()[r.offset as usize..r.offset as usize + r.len],
                    bytes
                );
                out.push(format!(
                    "{}:{} {} {}",
                    r.at.line,
                    r.at.column,
                    r.at.pointer,
                    String::from_utf8_lossy(bytes)
                ));
            }
            Found::Issue(i) => out.push(format!("! {}:{} {}", i.line, i.column, i.message)),
        });
        out
    }

    #[test]
    fn otlp_nesting_in_both_spellings() {
        let text = "{\"resourceSpans\": [{\"resource\": {\"attributes\": [{\"key\": \"spans\"}]},\n  \"scopeSpans\": [{\"scope\": {}, \"spans\": [{\"a\": 1}, {\"b\": \"é}\"}]}]}]}\n{\"resource_spans\": [{\"scope_spans\": [{\"spans\": [{\"c\": [1]}]}]}]}";
        assert_eq!(
            run(text, Layout::Document),
            [
                "2:42 /resourceSpans/0/scopeSpans/0/spans/0 {\"a\": 1}",
                "2:52 /resourceSpans/0/scopeSpans/0/spans/1 {\"b\": \"é}\"}",
                "3:49 /resource_spans/0/scope_spans/0/spans/0 {\"c\": [1]}",
            ]
        );
    }

    #[test]
    fn arrays_data_lists_and_lone_spans() {
        assert_eq!(
            run("[{\"x\": {\"spans\": [1]}}, {\"y\": 2}]", Layout::Document),
            ["1:2 /0 {\"x\": {\"spans\": [1]}}", "1:25 /1 {\"y\": 2}"]
        );
        assert_eq!(
            run(
                "{\"data\": [{\"z\": 1}], \"next_cursor\": null}",
                Layout::Document
            ),
            ["1:11 /data/0 {\"z\": 1}"]
        );
        assert_eq!(
            run(" {\"k\": \"v\"}", Layout::Document),
            ["1:2  {\"k\": \"v\"}"]
        );
        // A `spans` key whose value is not a list does not make a container.
        assert_eq!(
            run("{\"spans\": 3, \"n\": 1}", Layout::Document),
            ["1:1  {\"spans\": 3, \"n\": 1}"]
        );
    }

    #[test]
    fn errors_stop_a_document_but_cost_one_line_of_json_lines() {
        let text = "{\"a\": 1}\n{\"b\": [1 2]}\n{\"c\": 3}\n";
        assert_eq!(
            run(text, Layout::Lines),
            [
                "1:1  {\"a\": 1}",
                "! 2:10 invalid JSON: expected `,` or `]` after an array element",
                "3:1  {\"c\": 3}"
            ]
        );
        assert_eq!(
            run(text, Layout::Document),
            [
                "1:1  {\"a\": 1}",
                "! 2:10 invalid JSON: expected `,` or `]` after an array element"
            ]
        );
        assert_eq!(
            run("[{\"a\": tru}]", Layout::Document),
            ["! 1:8 invalid JSON: expected a value"]
        );
        assert_eq!(
            run("{\"resourceSpans\": [", Layout::Document),
            ["! 1:20 invalid JSON: unexpected end of file"]
        );
        assert_eq!(
            run("[1, {\"a\": 1}]", Layout::Document),
            ["! 1:2 a span must be a JSON object", "1:5 /1 {\"a\": 1}"]
        );
    }

    #[test]
    fn an_unterminated_line_does_not_cost_the_next_one() {
        assert_eq!(
            run("{\"a\": 1\n{\"b\": 2}\n", Layout::Lines),
            [
                "! 2:1 invalid JSON: expected `,` or `}` after an object member",
                "2:1  {\"b\": 2}"
            ]
        );
    }

    #[test]
    fn escapes_and_long_records() {
        assert_eq!(
            run("[{\"q\": \"a\\\"]}\\\\\"}]", Layout::Document),
            ["1:2 /0 {\"q\": \"a\\\"]}\\\\\"}"]
        );
        let mut out = Vec::new();
        scan(
            &b"[{\"a\": \"0123456789\"}, {}]"[..],
            "f",
            Layout::Document,
            8,
            1,
            &mut |f| match f {
                Found::Record(r, _) => out.push(r.at.pointer),
                Found::Issue(i) => out.push(i.message),
            },
        );
        assert_eq!(
            out,
            [
                "span record is longer than the limit of 8 bytes; raise it with `--max-record-size`",
                "/1"
            ]
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = format!("{}{}", "[".repeat(600), "]".repeat(600));
        let got = run(&text, Layout::Document);
        assert!(
            got.iter().any(|g| g.contains("nesting deeper than 512")),
            "{got:?}"
        );
    }
}
