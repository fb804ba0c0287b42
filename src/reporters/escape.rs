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

/// Cut `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => Cow::Borrowed(s),
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn truncates_by_characters() {
        assert_eq!(truncate("héllo", 3), "hél…");
        assert_eq!(truncate("abc", 3), "abc");
    }
}
