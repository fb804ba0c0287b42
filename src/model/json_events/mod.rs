//! A JSON object or array held in a string (a tool result's text that is JSON), read once as a
//! flat list of events instead of a tree: strings are spans of the text when they have no
//! escapes, numbers are JSON numbers, containers are an open and a close. Rules that walk a
//! result's leaves read it this way (one allocation per result instead of one per node), and
//! fall back to `ToolResult::structured` when they need the tree itself.
//!
//! One cohesive reader: the serde visitor and the flat event list it fills are two halves of one
//! representation.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// Containers deeper than this (the root is at depth 0) are kept as one `Deep` event holding
/// the parsed value, as a walk of the tree that stops there would see it.
pub const EVENTS_MAX_DEPTH: usize = 64;

/// Most events room is made for before reading (a text with more grows its list as usual).
const EVENTS_RESERVED: usize = 1 << 14;

/// The events of one document, in document order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonEvents {
    events: Vec<Stored>,
    /// Strings with escapes, unescaped, back to back (one buffer, not one per string).
    owned: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Stored {
    Key(Text),
    Str(Text),
    Number(Number),
    Bool(bool),
    Null,
    Open {
        object: bool,
        /// Index of the matching `Close`.
        close: usize,
    },
    Close,
    Deep(Box<Value>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Text {
    /// A byte range of the document text.
    Span(usize, usize),
    /// A byte range of `owned`.
    Owned(usize, usize),
}

/// One event, its strings borrowed from the document or the list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JsonEvent<'a> {
    /// An object key; its value's events follow.
    Key(&'a str),
    /// A string value.
    Str(&'a str),
    /// A number value.
    Number(&'a Number),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// An object or array begins.
    Open {
        /// An object (else an array).
        object: bool,
    },
    /// The innermost open container ends.
    Close,
    /// A value nested past `EVENTS_MAX_DEPTH`, whole.
    Deep(&'a Value),
}

impl JsonEvents {
    /// Read `text` when it holds an object or array exactly as `json_in_string` reads it
    /// (leading whitespace allowed, the same parser and nesting limit); `None` otherwise.
    pub fn read(text: &str) -> Option<JsonEvents> {
        let t = text.trim_start();
        if !(t.starts_with('{') || t.starts_with('[')) {
            return None;
        }
        // Room for the events at once (not grown 4, 8, 16, …, each growth a copy): a string is
        // an event, and two quotes; containers and numbers are rarer. Escaped quotes count
        // too, so past `EVENTS_RESERVED` the list grows as it goes.
        let quotes = memchr::memchr_iter(b'"', t.as_bytes()).count();
        let mut out = JsonEvents {
            events: Vec::with_capacity((quotes / 2 + 16).min(EVENTS_RESERVED)),
            owned: String::new(),
        };
        let offset = text.len() - t.len();
        if fast::read(t, offset, &mut out.events) {
            return Some(out);
        }
        out.events.clear();
        Self::read_parsed(text, t, out)
    }

    /// `read` by the JSON parser itself (`t` is `text` from its first non-whitespace char).
    fn read_parsed(text: &str, t: &str, mut out: JsonEvents) -> Option<JsonEvents> {
        let base = text.as_ptr() as usize;
        let mut de = serde_json::Deserializer::from_str(t);
        Reader {
            out: &mut out,
            base,
            depth: 0,
        }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .ok()?;
        Some(out)
    }

    /// The events, with strings borrowed from `text` (the text `read` was given).
    pub fn iter<'a>(&'a self, text: &'a str) -> impl Iterator<Item = JsonEvent<'a>> + 'a {
        self.events.iter().map(move |e| self.event(text, e))
    }

    fn event<'a>(&'a self, text: &'a str, e: &'a Stored) -> JsonEvent<'a> {
        match e {
            Stored::Key(t) => JsonEvent::Key(self.text(text, *t)),
            Stored::Str(t) => JsonEvent::Str(self.text(text, *t)),
            Stored::Number(n) => JsonEvent::Number(n),
            Stored::Bool(b) => JsonEvent::Bool(*b),
            Stored::Null => JsonEvent::Null,
            Stored::Open { object, .. } => JsonEvent::Open { object: *object },
            Stored::Close => JsonEvent::Close,
            Stored::Deep(v) => JsonEvent::Deep(v),
        }
    }

    /// The members of the root object, each key with its value's first event (a container's
    /// contents are skipped), in document order; `None` when the root is an array.
    pub fn members<'a>(
        &'a self,
        text: &'a str,
    ) -> Option<impl Iterator<Item = (&'a str, JsonEvent<'a>)> + 'a> {
        let Some(Stored::Open { object: true, .. }) = self.events.first() else {
            return None;
        };
        let mut i = 1;
        Some(std::iter::from_fn(move || {
            let Some(Stored::Key(k)) = self.events.get(i) else {
                return None;
            };
            let value = self.events.get(i + 1)?;
            i = match value {
                Stored::Open { close, .. } => close + 1,
                _ => i + 2,
            };
            Some((self.text(text, *k), self.event(text, value)))
        }))
    }

    fn text<'a>(&'a self, text: &'a str, t: Text) -> &'a str {
        match t {
            Text::Span(start, end) => text.get(start..end).unwrap_or_default(),
            Text::Owned(start, end) => &self.owned[start..end],
        }
    }
}

struct Reader<'o> {
    out: &'o mut JsonEvents,
    /// Address of the document's first byte: a borrowed string's span is its offset from it.
    base: usize,
    depth: usize,
}

impl Reader<'_> {
    fn child(&mut self) -> Reader<'_> {
        Reader {
            out: self.out,
            base: self.base,
            depth: self.depth + 1,
        }
    }

    fn text(&mut self, s: &str, borrowed: bool) -> Text {
        if borrowed {
            let start = s.as_ptr() as usize - self.base;
            Text::Span(start, start + s.len())
        } else {
            let start = self.out.owned.len();
            self.out.owned.push_str(s);
            Text::Owned(start, self.out.owned.len())
        }
    }
}

impl<'de> DeserializeSeed<'de> for Reader<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth > EVENTS_MAX_DEPTH {
            let v = <Value as serde::Deserialize>::deserialize(d)?;
            self.out.events.push(Stored::Deep(Box::new(v)));
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Reader<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<(), E> {
        self.out.events.push(Stored::Bool(b));
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.out.events.push(Stored::Null);
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<(), E> {
        self.out.events.push(Stored::Number(n.into()));
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<(), E> {
        self.out.events.push(Stored::Number(n.into()));
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<(), E> {
        // As a parsed `Value` holds it: a float JSON cannot write is `null`.
        self.out.events.push(match Number::from_f64(n) {
            Some(n) => Stored::Number(n),
            None => Stored::Null,
        });
        Ok(())
    }

    fn visit_borrowed_str<E: de::Error>(mut self, s: &'de str) -> Result<(), E> {
        let t = self.text(s, true);
        self.out.events.push(Stored::Str(t));
        Ok(())
    }

    fn visit_str<E: de::Error>(mut self, s: &str) -> Result<(), E> {
        let t = self.text(s, false);
        self.out.events.push(Stored::Str(t));
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let at = open(&mut self.out.events, false);
        while seq.next_element_seed(self.child())?.is_some() {}
        close(&mut self.out.events, at);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let at = open(&mut self.out.events, true);
        while map.next_key_seed(Key(self.child()))?.is_some() {
            map.next_value_seed(self.child())?;
        }
        close(&mut self.out.events, at);
        Ok(())
    }
}

/// Open a container in `events`; its index, for `close` to patch in where it ends.
fn open(events: &mut Vec<Stored>, object: bool) -> usize {
    events.push(Stored::Open { object, close: 0 });
    events.len() - 1
}

/// Close the container opened at `open`.
fn close(events: &mut Vec<Stored>, open: usize) {
    let at = events.len();
    events.push(Stored::Close);
    if let Some(Stored::Open { close, .. }) = events.get_mut(open) {
        *close = at;
    }
}

/// The events of the usual document, read without the parser's machinery: strings without
/// escapes, numbers, literals and containers no deeper than `EVENTS_MAX_DEPTH`. Anything else
/// (an escape, a control char, invalid JSON, deep nesting) makes it give up, and the parser
/// reads the document: it decides what is valid and how the rest reads. What it reads, it
/// reads as the parser does (a test holds the two to each other).
mod fast {
    use super::{EVENTS_MAX_DEPTH, Number, Stored, Text, close, open};

    /// The events of `t` (a document whose first byte is at `offset` in the text its spans
    /// index) pushed to `events`; false when it gave up (`events` then holds a part).
    pub(super) fn read(t: &str, offset: usize, events: &mut Vec<Stored>) -> bool {
        let b = t.as_bytes();
        let mut at = 0;
        // Open containers: (index of their `Open`, is an object).
        let mut opened: Vec<(usize, bool)> = Vec::new();
        loop {
            // A value.
            at = skip_space(b, at);
            let Some(&c) = b.get(at) else { return false };
            match c {
                b'{' | b'[' => {
                    if opened.len() >= EVENTS_MAX_DEPTH {
                        return false;
                    }
                    let object = c == b'{';
                    opened.push((open(events, object), object));
                    at = skip_space(b, at + 1);
                    let end = if object { b'}' } else { b']' };
                    if b.get(at) == Some(&end) {
                        at += 1;
                        close(events, opened.pop().expect("just opened").0);
                    } else if object {
                        let Some(next) = key(b, at, offset, events) else {
                            return false;
                        };
                        at = next;
                        continue;
                    } else {
                        continue;
                    }
                }
                b'"' => {
                    let Some((span, next)) = string(b, at, offset) else {
                        return false;
                    };
                    events.push(Stored::Str(span));
                    at = next;
                }
                b't' if b[at..].starts_with(b"true") => {
                    events.push(Stored::Bool(true));
                    at += 4;
                }
                b'f' if b[at..].starts_with(b"false") => {
                    events.push(Stored::Bool(false));
                    at += 5;
                }
                b'n' if b[at..].starts_with(b"null") => {
                    events.push(Stored::Null);
                    at += 4;
                }
                b'-' | b'0'..=b'9' => {
                    let Some((n, next)) = number(t, at) else {
                        return false;
                    };
                    events.push(Stored::Number(n));
                    at = next;
                }
                _ => return false,
            }
            // After a value: the next member or element, or the ends of containers.
            loop {
                at = skip_space(b, at);
                let Some(&(from, object)) = opened.last() else {
                    // The root is read: only whitespace may follow.
                    return at == b.len();
                };
                match b.get(at) {
                    Some(b',') if object => {
                        let Some(next) = key(b, skip_space(b, at + 1), offset, events) else {
                            return false;
                        };
                        at = next;
                        break;
                    }
                    Some(b',') => {
                        at += 1;
                        break;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    _ => return false,
                }
                at += 1;
                opened.pop();
                close(events, from);
            }
        }
    }

    fn skip_space(b: &[u8], mut at: usize) -> usize {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(at) {
            at += 1;
        }
        at
    }

    /// A member's key at `at` and its colon: where its value begins.
    fn key(b: &[u8], at: usize, offset: usize, events: &mut Vec<Stored>) -> Option<usize> {
        if b.get(at) != Some(&b'"') {
            return None;
        }
        let (span, next) = string(b, at, offset)?;
        events.push(Stored::Key(span));
        let next = skip_space(b, next);
        (b.get(next) == Some(&b':')).then_some(next + 1)
    }

    /// The string whose opening quote is at `at` (none with an escape or a control char), and
    /// where it ends.
    fn string(b: &[u8], at: usize, offset: usize) -> Option<(Text, usize)> {
        let from = at + 1;
        let mut end = from;
        // Eight bytes at a time while none is a quote, a backslash or a control char.
        while let Some(word) = b.get(end..end + 8) {
            let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            if special(w) {
                break;
            }
            end += 8;
        }
        loop {
            match *b.get(end)? {
                b'"' => break,
                b'\\' | 0..=0x1f => return None,
                _ => end += 1,
            }
        }
        Some((Text::Span(offset + from, offset + end), end + 1))
    }

    /// Is some byte of `w` a quote, a backslash or below 0x20?
    fn special(w: u64) -> bool {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        // Nonzero exactly when some byte of `v` is below `n` (`n` at most 0x80).
        let below = |v: u64, n: u8| v.wrapping_sub(ONES * u64::from(n)) & !v & HIGH;
        (below(w ^ (ONES * u64::from(b'"')), 1)
            | below(w ^ (ONES * u64::from(b'\\')), 1)
            | below(w, 0x20))
            != 0
    }

    /// The number at `at` (JSON's grammar), valued as the parser values it.
    fn number(t: &str, at: usize) -> Option<(Number, usize)> {
        let b = t.as_bytes();
        let mut end = at + usize::from(b[at] == b'-');
        let int = end;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        // Digits, without a leading zero unless it is the only one.
        if end == int || (b[int] == b'0' && end > int + 1) {
            return None;
        }
        let integer = end;
        if b.get(end) == Some(&b'.') {
            end += 1;
            let frac = end;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == frac {
                return None;
            }
        }
        if let Some(b'e' | b'E') = b.get(end) {
            end += 1;
            if let Some(b'+' | b'-') = b.get(end) {
                end += 1;
            }
            let exp = end;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == exp {
                return None;
            }
        }
        // A plain non-negative integer of up to 19 digits is a `u64` as the parser makes it;
        // anything else is valued by the parser.
        let n = if int == at && integer == end && end - at <= 19 {
            let v = b[at..end]
                .iter()
                .fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
            Number::from(v)
        } else {
            t[at..end].parse::<Number>().ok()?
        };
        Some((n, end))
    }
}

/// An object key.
struct Key<'o>(Reader<'o>);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: de::Error>(mut self, s: &'de str) -> Result<(), E> {
        let t = self.0.text(s, true);
        self.0.out.events.push(Stored::Key(t));
        Ok(())
    }

    fn visit_str<E: de::Error>(mut self, s: &str) -> Result<(), E> {
        let t = self.0.text(s, false);
        self.0.out.events.push(Stored::Key(t));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
