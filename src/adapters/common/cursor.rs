//! Positions inside one record for the adapters that read nested shapes (Claude Code, OpenAI):
//! a `Cursor` turns a borrowed `RawValue` into a `Location`. In a JSON Lines record that is the
//! record's line and the column where the value begins; in a JSON document, the value's line and
//! column through the document's `LineIndex`. A step whose JSON is pretty-printed over several
//! lines is anchored on the line that names it (its call id, tool name or role), so `file:line`
//! shows the step, not a lone `{`. Knows no format; never parses.

use serde_json::value::RawValue;

use crate::model::location::Columns;
use crate::model::{LineIndex, Location};

use crate::adapters::common::json_pos::offset_in;

/// Locates values borrowed from one record's text.
#[derive(Clone)]
pub struct Cursor<'t> {
    text: &'t str,
    lines: Lines<'t>,
    /// In a record, columns counted on from the last value located.
    columns: Columns,
}

#[derive(Clone, Copy)]
enum Lines<'t> {
    /// A JSON Lines record: every value is on this line.
    Record(u32),
    /// A JSON document indexed once.
    Document(&'t LineIndex),
}

impl<'t> Cursor<'t> {
    /// A cursor over one JSON Lines record (`text` is the whole line, which is line `line`).
    pub fn record(text: &'t str, line: u32) -> Self {
        Self {
            text,
            lines: Lines::Record(line),
            columns: Columns::default(),
        }
    }

    /// A cursor over a whole document indexed by `index`.
    pub fn document(text: &'t str, index: &'t LineIndex) -> Self {
        Self {
            text,
            lines: Lines::Document(index),
            columns: Columns::default(),
        }
    }

    /// The line number of a JSON Lines record (`None` for a document).
    #[cfg_attr(not(any(test, feature = "__internal")), allow(dead_code))] // used by tests only
    pub fn record_line(&self) -> Option<u32> {
        match self.lines {
            Lines::Record(line) => Some(line),
            Lines::Document(_) => None,
        }
    }

    /// The location where `raw` begins (and where it ends).
    pub fn at(&self, raw: &RawValue, pointer: String) -> Location {
        let start = offset_in(self.text, raw);
        self.at_offset(start, start + raw.get().len(), pointer)
    }

    /// The location of a step whose JSON is `raw`: where it begins, unless it spans several lines
    /// and its first line holds none of `names`; then the first line inside it that holds one of
    /// them (the first name found wins), so the cited line shows which step it is.
    /// The step's region runs from there to the end of its JSON.
    pub fn step(&self, raw: &RawValue, names: &[&str], pointer: String) -> Location {
        let start = offset_in(self.text, raw);
        let body = raw.get();
        let end = start + body.len();
        let first_line = body.split('\n').next().unwrap_or(body);
        let wanted = || names.iter().filter(|n| !n.is_empty());
        if first_line.len() == body.len() || wanted().any(|n| first_line.contains(n)) {
            return self.at_offset(start, end, pointer);
        }
        match wanted().find_map(|n| body.find(n)) {
            // Cite the string that holds the name, from its opening quote.
            Some(at) if at > 0 && body.as_bytes()[at - 1] == b'"' => {
                self.at_offset(start + at - 1, end, pointer)
            }
            Some(at) => self.at_offset(start + at, end, pointer),
            None => self.at_offset(start, end, pointer),
        }
    }

    /// The location of `offset`, ending at byte `end` (counted from `offset`, so the cached
    /// column of the next value located is not disturbed).
    fn at_offset(&self, offset: usize, end: usize, pointer: String) -> Location {
        match self.lines {
            Lines::Document(index) => index.span(self.text, offset, end, pointer),
            Lines::Record(line) => {
                // A record is one line: columns count from its start.
                let column = self
                    .columns
                    .column(self.text, 0, offset)
                    .unwrap_or_else(|| self.text.chars().count());
                let column = u32::try_from(column).unwrap_or(u32::MAX).saturating_add(1);
                let loc = Location::new(line, column, pointer);
                match crate::model::location::end_of(self.text, offset, end, (line, column), None) {
                    Some(e) => loc.ending(e),
                    None => loc,
                }
            }
        }
    }
}

/// Parse a whole JSON document and call `each` once per element of a top-level array (pointer
/// `/i`, default id `PATH[i]`) or once on any other top value (pointer `""`, id `PATH`), with a
/// cursor over the document; invalid JSON is an input issue.
pub fn each_top_value(
    text: &str,
    path: &str,
    out: &mut dyn crate::adapters::Emit,
    mut each: impl FnMut(&RawValue, &Cursor<'_>, &str, &str, &mut dyn crate::adapters::Emit),
) {
    let raw: &RawValue = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return crate::adapters::common::json_pos::json_issue(&e, 1, path, out),
    };
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    match crate::adapters::common::raw::array(raw) {
        Some(items) => {
            for (i, item) in items.iter().enumerate() {
                each(item, &cur, &child("", i), &format!("{path}[{i}]"), out);
            }
        }
        None => each(raw, &cur, "", path, out),
    }
}

/// The members of `raw`, or an input issue at it saying `what` must be a JSON object.
pub fn object_or_issue<'a>(
    raw: &'a RawValue,
    cur: &Cursor<'_>,
    ptr: &str,
    path: &str,
    what: &str,
    out: &mut dyn crate::adapters::Emit,
) -> Option<crate::adapters::common::raw::Members<'a>> {
    let m = crate::adapters::common::raw::object(raw);
    if m.is_none() {
        let at = cur.at(raw, ptr.to_owned());
        out.issue(crate::finding::InputIssue::at(
            path,
            at.line,
            at.column,
            format!("{what} must be a JSON object"),
        ));
    }
    m
}

/// Append one RFC 6901 reference token to a pointer.
pub fn child(pointer: &str, token: impl std::fmt::Display) -> String {
    let token = token.to_string();
    format!(
        "{pointer}/{}",
        crate::model::location::pointer_token(&token)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_columns_count_characters() {
        let text = r#"{"é": 1, "b": {"c": 2}}"#;
        let map: std::collections::BTreeMap<String, &RawValue> =
            serde_json::from_str(text).unwrap();
        let cur = Cursor::record(text, 7);
        let loc = cur.at(map["b"], "/b".into());
        // `é` is two bytes but one column: `{"é": 1, "b": ` is 14 characters.
        assert_eq!((loc.line, loc.column, loc.pointer.as_str()), (7, 15, "/b"));
        // `{"c": 2}` is 8 characters: the region ends before column 23.
        let end = loc.end.unwrap();
        assert_eq!((end.line, end.column), (7, 23));
    }

    #[test]
    fn pretty_steps_are_anchored_on_the_naming_line() {
        let text =
            "[\n  {\n    \"type\": \"x\",\n    \"id\": \"call_1\"\n  },\n  {\"id\": \"call_2\"}\n]";
        let items: Vec<&RawValue> = serde_json::from_str(text).unwrap();
        let index = LineIndex::new(text);
        let cur = Cursor::document(text, &index);
        let first = cur.step(items[0], &["call_1"], "/0".into());
        assert_eq!((first.line, first.column), (4, 11));
        // The region runs to the step's closing brace, on line 5.
        let end = first.end.unwrap();
        assert_eq!((end.line, end.column), (5, 4));
        // Compact on one line: where the JSON begins.
        let second = cur.step(items[1], &["call_2"], "/1".into());
        assert_eq!((second.line, second.column), (6, 3));
        // No name found: where the JSON begins.
        let none = cur.step(items[0], &["nowhere"], "/0".into());
        assert_eq!((none.line, none.column), (2, 3));
    }

    #[test]
    fn child_pointers_escape_tokens() {
        assert_eq!(child("/a", "b/c"), "/a/b~1c");
        assert_eq!(child("", 3), "/3");
    }
}
