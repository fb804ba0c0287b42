//! Where things are in an input file: `InputRef`, `Location` and `LineIndex` (byte offset →
//! 1-based line and column). Plain data; no I/O and no knowledge of any format.

use serde::Serialize;

/// One input as the user named it (a path, or `-` for stdin), with the format it was read as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputRef {
    /// The path as given on the command line (or found by walking a directory), `-` for stdin.
    pub path: String,
    /// The input format the adapter used (`native`, `claude`, …).
    pub format: String,
}

/// The position of a step (or any value) in its input file: 1-based line and column where its
/// JSON begins, and the JSON Pointer to it from the record that holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// RFC 6901 pointer to the value inside the document (for JSONL: inside the line's record).
    pub pointer: String,
}

impl Location {
    /// A location at `line:column` with the given pointer.
    pub fn new(line: u32, column: u32, pointer: impl Into<String>) -> Self {
        Self {
            line,
            column,
            pointer: pointer.into(),
        }
    }
}

/// Maps byte offsets in a text to 1-based line/column pairs. Built once per document with
/// `memchr`, queried in O(log lines).
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset at which each line starts; `starts[0] == 0`.
    starts: Vec<usize>,
    /// The line number of the text's first line (for a record that is line N of a JSONL file).
    first_line: u32,
    /// Columns counted on along the current line.
    columns: Columns,
}

/// Character columns within a line, counted on from the last offset asked: an adapter locates
/// the steps of a long line in order, so each column costs the distance from the previous one,
/// not from the line's start (which made a 100 KB line of hundreds of steps quadratic).
#[derive(Debug, Clone, Default)]
pub struct Columns(std::cell::Cell<(usize, usize)>);

impl Columns {
    /// The 0-based character column of byte `offset` on the line of `text` starting at byte
    /// `start`; `None` when either is not a character boundary of `text`.
    pub fn column(&self, text: &str, start: usize, offset: usize) -> Option<usize> {
        let chars = |s: &str| {
            if s.is_ascii() {
                s.len()
            } else {
                s.chars().count()
            }
        };
        let (last, last_col) = self.0.get();
        let (from, base) = if (start..=offset).contains(&last) {
            (last, last_col)
        } else {
            (start, 0)
        };
        let col = base + chars(text.get(from..offset)?);
        self.0.set((offset, col));
        Some(col)
    }
}

impl LineIndex {
    /// Index `text`, whose first line is line 1.
    pub fn new(text: &str) -> Self {
        Self::starting_at(text, 1)
    }

    /// Index `text`, whose first line is line `first_line` of the enclosing file.
    pub fn starting_at(text: &str, first_line: u32) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 64 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self {
            starts,
            first_line,
            columns: Columns::default(),
        }
    }

    /// The 1-based (line, column) of byte `offset` in `text` (the same text the index was built
    /// from). The column counts characters, so a multi-byte character is one column.
    pub fn line_col(&self, text: &str, offset: usize) -> (u32, u32) {
        let offset = offset.min(text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        // Not at a character boundary (never for an offset a parser gave): count bytes.
        let col = self
            .columns
            .column(text, start, offset)
            .unwrap_or(offset - start);
        (
            self.first_line
                .saturating_add(u32::try_from(line).unwrap_or(u32::MAX)),
            u32::try_from(col).unwrap_or(u32::MAX).saturating_add(1),
        )
    }

    /// A `Location` for byte `offset` with the given pointer.
    pub fn location(&self, text: &str, offset: usize, pointer: impl Into<String>) -> Location {
        let (line, column) = self.line_col(text, offset);
        Location::new(line, column, pointer)
    }
}

/// Escape one reference token for a JSON Pointer (RFC 6901: `~` → `~0`, `/` → `~1`).
pub fn pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_of_offsets() {
        let text = "ab\ncdé\nx";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), (1, 1));
        assert_eq!(idx.line_col(text, 1), (1, 2));
        assert_eq!(idx.line_col(text, 3), (2, 1));
        // `é` is two bytes but one column.
        assert_eq!(idx.line_col(text, 7), (2, 4));
        assert_eq!(idx.line_col(text, 8), (3, 1));
    }

    #[test]
    fn offset_line_numbering() {
        let text = "{}\n  {}";
        let idx = LineIndex::starting_at(text, 41);
        assert_eq!(idx.line_col(text, 5), (42, 3));
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
        assert_eq!(pointer_token("plain"), "plain");
    }
}
