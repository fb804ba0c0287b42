//! A streaming structural scan of span files: walks JSON (one document, concatenated documents,
//! or JSON Lines) from any `BufRead` without building values, and reports each *span record* —
//! its byte range, the line:column where it begins, its JSON Pointer and its bytes. Memory stays
//! at one record, whatever the file size. It knows the containers spans come in (OTLP
//! `resourceSpans[].scopeSpans[].spans[]` in camelCase or snake_case, a JSON array of spans,
//! `{"data": [...]}`, `{"spans": [...]}`, a lone span object) and nothing about what a span
//! holds; `spans` reads the records.
//!
//! One cohesive scanner: a single state machine (`Scan`, its frames and states) over one buffer,
//! which does not split without passing that state around.

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
/// Capacity of a closed record's buffer kept for the next record (bytes).
const SPARE_MAX: usize = 1 << 20;

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
    /// The bytes of the last record closed, emptied, for the next one to fill (up to
    /// `SPARE_MAX` of capacity kept).
    spare: Vec<u8>,
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
        spare: Vec::new(),
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
                            bytes: std::mem::take(&mut self.spare),
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
                    if open.bytes.capacity() <= SPARE_MAX {
                        self.spare = open.bytes;
                        self.spare.clear();
                    }
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

mod bytes;

#[cfg(test)]
mod tests;
