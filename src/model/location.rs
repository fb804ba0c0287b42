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
/// JSON begins, and the JSON Pointer to it from the record that holds it. Where the value's JSON
/// ends is kept too when the adapter knew it (`end`), for reports that mark a region (SARIF); it
/// takes no part in equality, order or serialisation, which stay those of the start.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Location {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// RFC 6901 pointer to the value inside the document (for JSONL: inside the line's record).
    pub pointer: String,
    /// Where the value's JSON ends, when known.
    #[serde(skip)]
    pub end: Option<End>,
}

/// The end of a located value: the 1-based line of its last character and the 1-based column
/// just past it (SARIF's `endLine` / exclusive `endColumn`), in characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct End {
    /// Line of the last character.
    pub line: u32,
    /// Column after the last character.
    pub column: u32,
}

impl Location {
    /// A location at `line:column` with the given pointer.
    pub fn new(line: u32, column: u32, pointer: impl Into<String>) -> Self {
        Self {
            line,
            column,
            pointer: pointer.into(),
            end: None,
        }
    }

    /// The same location, ending at `end`.
    pub fn ending(mut self, end: End) -> Self {
        self.end = Some(end);
        self
    }

    fn key(&self) -> (u32, u32, &str) {
        (self.line, self.column, &self.pointer)
    }
}

impl PartialEq for Location {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Location {}

impl PartialOrd for Location {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Location {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl std::hash::Hash for Location {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

/// The end of the value spanning `text[start..end]`, whose first character is at
/// `line:column`: counted from `start`, never from the start of a line, so locating the values of
/// one long line in order stays linear. `None` for an empty or out-of-range span.
pub fn end_of(
    text: &str,
    start: usize,
    end: usize,
    (line, column): (u32, u32),
    index: Option<&LineIndex>,
) -> Option<End> {
    let span = text.get(start..end).filter(|s| !s.is_empty())?;
    let count = |s: &str| u32::try_from(s.chars().count()).unwrap_or(u32::MAX);
    match memchr::memrchr(b'\n', span.as_bytes()) {
        None => Some(End {
            line,
            column: column.saturating_add(count(span)),
        }),
        Some(nl) => {
            // Ends on a later line: its line from the index (or by counting line breaks), its
            // column from that line's start.
            let last_line = &span[nl + 1..];
            let end_line = match index {
                Some(index) => index.line_col_start(end.saturating_sub(last_line.len())),
                None => line.saturating_add(
                    u32::try_from(memchr::memchr_iter(b'\n', span.as_bytes()).count())
                        .unwrap_or(u32::MAX),
                ),
            };
            if last_line.is_empty() {
                // The value ends with a line break: it ends after the previous line's last char.
                return Some(End {
                    line: end_line.saturating_sub(1).max(line),
                    column: 1,
                });
            }
            Some(End {
                line: end_line,
                column: count(last_line).saturating_add(1),
            })
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
    /// Characters before the text on its first line (for a value that begins mid-line in the
    /// enclosing file): added to every column of that line.
    first_column: usize,
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
        Self::starting_at_column(text, first_line, 1)
    }

    /// Index `text`, which begins at line `first_line`, column `first_column` (1-based,
    /// in characters) of the enclosing file: one element of a JSON array read on its own.
    pub fn starting_at_column(text: &str, first_line: u32, first_column: u32) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 64 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self {
            starts,
            first_line,
            first_column: usize::try_from(first_column.saturating_sub(1)).unwrap_or(usize::MAX),
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
        let col = if line == 0 {
            col.saturating_add(self.first_column)
        } else {
            col
        };
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

    /// A `Location` for the value `text[offset..end]`, with its end.
    pub fn span(
        &self,
        text: &str,
        offset: usize,
        end: usize,
        pointer: impl Into<String>,
    ) -> Location {
        let (line, column) = self.line_col(text, offset);
        let loc = Location::new(line, column, pointer);
        match end_of(text, offset, end, (line, column), Some(self)) {
            Some(e) => loc.ending(e),
            None => loc,
        }
    }

    /// The 1-based line of a byte offset that starts a line (no column counted).
    fn line_col_start(&self, offset: usize) -> u32 {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        self.first_line
            .saturating_add(u32::try_from(line).unwrap_or(u32::MAX))
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
    fn spans_end_after_their_last_character() {
        let text = "{\"a\": [1,\n  2], \"é\": \"x\"}";
        let idx = LineIndex::new(text);
        // `[1,\n  2]` begins at 1:7 and ends on line 2 before column 5.
        let start = text.find('[').unwrap();
        let end = text.find(']').unwrap() + 1;
        let loc = idx.span(text, start, end, "/a");
        assert_eq!((loc.line, loc.column), (1, 7));
        assert_eq!(loc.end, Some(End { line: 2, column: 5 }));
        // One line, with a two-byte character: columns count characters.
        let start = text.find("\"é\"").unwrap();
        let loc = idx.span(text, start, start + "\"é\"".len(), "");
        assert_eq!((loc.line, loc.column), (2, 7));
        assert_eq!(
            loc.end,
            Some(End {
                line: 2,
                column: 10
            })
        );
        // The end takes no part in equality.
        assert_eq!(loc, Location::new(2, 7, ""));
        assert_eq!(end_of(text, 3, 3, (1, 4), Some(&idx)), None);
        // Without an index (a JSON Lines record is one line): counted from the start.
        assert_eq!(
            end_of("ab\ncde", 0, 6, (7, 1), None),
            Some(End { line: 8, column: 4 })
        );
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
        assert_eq!(pointer_token("plain"), "plain");
    }
}
