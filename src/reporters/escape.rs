//! Terminal sanitisation of untrusted text (trace content, tool names, schema messages): control,
//! bidi and zero-width characters become visible escapes, so a transcript can never move the
//! cursor, recolour the terminal or reorder what the reader sees. Also truncation.

use std::borrow::Cow;
use std::fmt::Write;

/// True for characters that must not reach a terminal raw.
fn dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}'   // zero-width space/joiners, LRM, RLM
            | '\u{202A}'..='\u{202E}' // bidi embeddings and overrides
            | '\u{2028}' | '\u{2029}' // line and paragraph separators
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // bidi isolates
            | '\u{061C}'              // Arabic letter mark
            | '\u{FEFF}'              // BOM / zero-width no-break space
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation controls
        )
}

/// Escape `s` for a terminal: `\n`, `\t`, `\r` as such, other control and invisible format
/// characters as `\xNN` / `\u{NNNN}`. Borrowed when nothing needs escaping.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(dangerous) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if dangerous(c) => {
                let n = u32::from(c);
                if n < 0x100 {
                    let _ = write!(out, "\\x{n:02x}");
                } else {
                    let _ = write!(out, "\\u{{{n:04x}}}");
                }
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Longest line of a message echoed back (an error naming a config value or an argument, which
/// may be of any size), in characters; past it the line is cut.
pub const ECHO_LINE: usize = 2000;
/// Most lines of a message echoed back; past them one line says how many more there were.
pub const ECHO_LINES: usize = 200;

/// A message for a terminal (an error that echoes what it was given): each line escaped as
/// `terminal` does — its line breaks kept — and cut at `ECHO_LINE` characters, at most
/// `ECHO_LINES` lines.
pub fn message(s: &str) -> String {
    let mut out = String::new();
    let mut lines = s.split('\n');
    for (i, line) in lines.by_ref().take(ECHO_LINES).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&terminal(&truncate(line, ECHO_LINE)));
    }
    let more = lines.count();
    if more > 0 {
        let _ = write!(out, "\n… and {more} more lines");
    }
    out
}

/// Cut `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
    }
}

/// A writer of JSON text that writes U+2028, U+2029 and U+0085 as `\u2028`, `\u2029` and
/// `\u0085`, as the other invisible characters are escaped everywhere. Raw, they are valid JSON
/// (only ever inside strings, so the escape never changes what a reader decodes), but a reader
/// that splits lines the Unicode way (Python's `str.splitlines`) cuts a JSON Lines record
/// there, and a JavaScript engine before ES2019 rejects them in source. `flush` (due before
/// dropping) writes a character split between two writes.
pub struct JsonSafe<W: std::io::Write> {
    inner: W,
    /// The start of a character that may be one of those (split between two writes).
    pending: Vec<u8>,
}

impl<W: std::io::Write> JsonSafe<W> {
    /// Escape what goes to `inner`.
    pub fn new(inner: W) -> Self {
        JsonSafe {
            inner,
            pending: Vec::new(),
        }
    }

    fn escape(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let mut start = 0;
        let mut i = 0;
        while let Some(found) = memchr::memchr2(0xE2, 0xC2, &bytes[i..]) {
            let at = i + found;
            let rest = &bytes[at..];
            let escaped: Option<(&[u8], usize)> = match rest {
                [0xE2, 0x80, 0xA8, ..] => Some((b"\\u2028", 3)),
                [0xE2, 0x80, 0xA9, ..] => Some((b"\\u2029", 3)),
                [0xC2, 0x85, ..] => Some((b"\\u0085", 2)),
                // The start of one of them, cut by the end of this write: held.
                [0xE2] | [0xE2, 0x80] | [0xC2] => {
                    self.inner.write_all(&bytes[start..at])?;
                    self.pending.extend_from_slice(rest);
                    return Ok(());
                }
                _ => None,
            };
            match escaped {
                Some((text, len)) => {
                    self.inner.write_all(&bytes[start..at])?;
                    self.inner.write_all(text)?;
                    start = at + len;
                    i = start;
                }
                None => i = at + 1,
            }
        }
        self.inner.write_all(&bytes[start..])
    }
}

impl<W: std::io::Write> std::io::Write for JsonSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            self.escape(buf)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.escape(&joined)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

/// `value` as pretty JSON and a newline, written to `out` through `JsonSafe`: every JSON
/// text a command prints (doctor, rules, scorecard) escapes U+2028, U+2029 and U+0085 as the
/// reports do.
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut dyn std::io::Write,
    value: &T,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut safe = JsonSafe::new(out);
    serde_json::to_writer_pretty(&mut safe, value)?;
    safe.write_all(b"\n")?;
    safe.flush()
}

/// JSON text made by serde_json (a file tracelint writes: a starter tools file, a baseline, a
/// lock file, an inferred schema) with U+2028, U+2029 and U+0085 escaped as `JsonSafe` does.
pub fn json_text(text: String) -> String {
    use std::io::Write as _;
    if !text.contains(['\u{2028}', '\u{2029}', '\u{85}']) {
        return text;
    }
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut safe = JsonSafe::new(&mut out);
    // Writing to a Vec cannot fail.
    let _ = safe.write_all(text.as_bytes()).and_then(|()| safe.flush());
    String::from_utf8(out).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line and paragraph separators and NEL leave a JSON writer escaped, also when a write
    /// cuts one in two; what a reader decodes is unchanged.
    #[test]
    fn json_text_escapes_unicode_line_breaks() {
        use std::io::Write;
        let value = serde_json::json!({"t": "a\u{2028}b\u{2029}c\u{85}d é\u{2027}€"});
        let raw = serde_json::to_vec(&value).unwrap();
        for cut in 0..=raw.len() {
            let mut out = Vec::new();
            let mut w = JsonSafe::new(&mut out);
            w.write_all(&raw[..cut]).unwrap();
            w.write_all(&raw[cut..]).unwrap();
            w.flush().unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(
                text,
                "{\"t\":\"a\\u2028b\\u2029c\\u0085d é\u{2027}€\"}",
                "cut at {cut}"
            );
            assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
        }
    }

    /// The helpers every other JSON output goes through escape the same characters.
    #[test]
    fn json_helpers_escape_unicode_line_breaks() {
        let value = serde_json::json!({"t": "a\u{2028}b\u{2029}c\u{85}d"});
        let mut out = Vec::new();
        write_json(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("a\\u2028b\\u2029c\\u0085d"), "{text}");
        assert!(text.ends_with("}\n"));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
        let pretty = json_text(serde_json::to_string_pretty(&value).unwrap());
        assert_eq!(pretty, text.trim_end());
        assert_eq!(json_text("{\"é\": 1}".to_owned()), "{\"é\": 1}");
    }

    #[test]
    fn escapes_ansi_and_controls() {
        assert_eq!(terminal("plain"), "plain");
        assert_eq!(
            terminal("a\u{1b}[31mred\u{7}\nnext"),
            "a\\x1b[31mred\\x07\\nnext"
        );
        assert_eq!(terminal("x\u{202E}evil\u{200B}"), "x\\u{202e}evil\\u{200b}");
        assert_eq!(terminal("\u{9b}c"), "\\x9bc");
    }

    #[test]
    fn messages_keep_line_breaks_and_escape_the_rest() {
        let m = message("bad value `\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}`\nnext \u{202e}txt\u{2028}end");
        assert_eq!(
            m,
            "bad value `\\x1b]8;;http://x\\x07link\\x1b]8;;\\x07`\nnext \\u{202e}txt\\u{2028}end"
        );
    }

    #[test]
    fn messages_are_bounded() {
        let long = "x".repeat(50 << 20);
        let m = message(&long);
        assert_eq!(m.chars().count(), ECHO_LINE + 1);
        assert!(m.ends_with('…'));
        let many = "line\n".repeat(1000);
        let m = message(&many);
        assert_eq!(m.lines().count(), ECHO_LINES + 1);
        assert!(m.ends_with("… and 801 more lines"), "{}", &m[m.len() - 40..]);
    }

    #[test]
    fn truncates_by_characters() {
        assert_eq!(truncate("héllo", 3), "hél…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
