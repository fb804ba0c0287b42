//! A JSON object or array held in a string (a tool result's text that is JSON), read once as a
//! flat list of events instead of a tree: strings are spans of the text when they have no
//! escapes, numbers are JSON numbers, containers are an open and a close. Rules that walk a
//! result's leaves read it this way (one allocation per result instead of one per node), and
//! fall back to `ToolResult::structured` when they need the tree itself.

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
        let base = text.as_ptr() as usize;
        // Room for the events at once (not grown 4, 8, 16, …, each growth a copy): a string is
        // an event, and two quotes; containers and numbers are rarer. Escaped quotes count
        // too, so past `EVENTS_RESERVED` the list grows as it goes.
        let quotes = memchr::memchr_iter(b'"', t.as_bytes()).count();
        let mut out = JsonEvents {
            events: Vec::with_capacity((quotes / 2 + 16).min(EVENTS_RESERVED)),
            owned: String::new(),
        };
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

    /// Open a container; `close` patches in where it ends.
    fn open(&mut self, object: bool) -> usize {
        self.out.events.push(Stored::Open { object, close: 0 });
        self.out.events.len() - 1
    }

    fn close(&mut self, open: usize) {
        let close = self.out.events.len();
        self.out.events.push(Stored::Close);
        if let Some(Stored::Open { close: c, .. }) = self.out.events.get_mut(open) {
            *c = close;
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
        let open = self.open(false);
        while seq.next_element_seed(self.child())?.is_some() {}
        self.close(open);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let open = self.open(true);
        while map.next_key_seed(Key(self.child()))?.is_some() {
            map.next_value_seed(self.child())?;
        }
        self.close(open);
        Ok(())
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
mod tests {
    use super::*;
    use crate::model::json_in_string;
    use crate::rules::testing::xorshift;

    /// The value the events describe, rebuilt (tests hold the events to the parsed tree with it).
    fn rebuild<'a>(
        events: &mut std::iter::Peekable<impl Iterator<Item = JsonEvent<'a>>>,
    ) -> Option<Value> {
        Some(match events.next()? {
            JsonEvent::Str(s) => Value::String(s.to_owned()),
            JsonEvent::Number(n) => Value::Number(n.clone()),
            JsonEvent::Bool(b) => Value::Bool(b),
            JsonEvent::Null => Value::Null,
            JsonEvent::Deep(v) => v.clone(),
            JsonEvent::Open { object: false } => {
                let mut items = Vec::new();
                while events.next_if(|e| *e == JsonEvent::Close).is_none() {
                    items.push(rebuild(events)?);
                }
                Value::Array(items)
            }
            JsonEvent::Open { object: true } => {
                let mut m = serde_json::Map::new();
                loop {
                    match events.next()? {
                        JsonEvent::Close => break,
                        JsonEvent::Key(k) => {
                            let v = rebuild(events)?;
                            m.insert(k.to_owned(), v);
                        }
                        _ => return None,
                    }
                }
                Value::Object(m)
            }
            JsonEvent::Key(_) | JsonEvent::Close => return None,
        })
    }

    /// `read` accepts exactly what `json_in_string` does, and its events rebuild the same tree
    /// (a repeated key's last value wins in both), `Deep` values included.
    fn agree(text: &str) {
        let parsed = json_in_string(&Value::String(text.to_owned()));
        let events = JsonEvents::read(text);
        assert_eq!(events.is_some(), parsed.is_some(), "{text:?}");
        if let Some(events) = events {
            let mut it = events.iter(text).peekable();
            assert_eq!(rebuild(&mut it), parsed, "{text:?}");
            assert_eq!(it.next(), None, "{text:?}");
        }
    }

    #[test]
    fn events_rebuild_the_parsed_structure() {
        for text in [
            r#"{"a": "x", "b": [1, -2, 3.5, true, null, false], "c": {"d": "e\u00e9\n"}}"#,
            r#"  [{"k": "v"}, "s", 18446744073709551615, -9223372036854775808, 0.1, 1e300]"#,
            r#"{"\u0065xit_code": 1, "": ""}"#,
            r#"{"k": "first", "k": {"second": [1]}}"#,
            "[]",
            "{}",
            "\n\t {\"a\": 1}  ",
            r#"{"a": 1} trailing"#,
            r#"{"a": "#,
            r#"[1e400]"#,
            r#""just a string""#,
            "42",
            "plain text",
            "",
        ] {
            agree(text);
        }
    }

    #[test]
    fn members_are_the_root_object_s_keys_and_value_heads() {
        let text = r#"{"a": [1, {"b": 2}], "c": "x", "a": {"d": []}, "e": null}"#;
        let events = JsonEvents::read(text).unwrap();
        let got: Vec<(&str, JsonEvent<'_>)> = events.members(text).unwrap().collect();
        assert_eq!(
            got,
            [
                ("a", JsonEvent::Open { object: false }),
                ("c", JsonEvent::Str("x")),
                ("a", JsonEvent::Open { object: true }),
                ("e", JsonEvent::Null),
            ]
        );
        let text = r#"[{"a": 1}]"#;
        assert!(JsonEvents::read(text).unwrap().members(text).is_none());
        let text = " {} ";
        assert_eq!(
            JsonEvents::read(text)
                .unwrap()
                .members(text)
                .unwrap()
                .count(),
            0
        );
    }

    #[test]
    fn nesting_past_the_event_depth_and_the_parser_limit() {
        for depth in [63, 64, 65, 66, 100, 127, 128, 129, 200] {
            agree(&format!("{}1{}", "[".repeat(depth), "]".repeat(depth)));
            agree(&format!(
                "{}{}",
                r#"{"k": "#.repeat(depth),
                "}".repeat(depth).replacen('}', r#""v"}"#, 1)
            ));
        }
    }

    #[test]
    fn random_documents_rebuild_the_parsed_structure() {
        let mut rng = xorshift(0x6a73_6f6e);
        const PIECES: &[&str] = &[
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\"k\"",
            "\"k\"",
            "\"v w\"",
            "\"\\u00e9\"",
            "\"a\\\"b\"",
            "\"\\n\"",
            "1",
            "-0",
            "2.50",
            "1e3",
            "true",
            "null",
            "\"é\"",
        ];
        let mut accepted = 0;
        for _ in 0..20_000 {
            let n = 1 + (rng() % 24) as usize;
            let mut text = String::from(if rng().is_multiple_of(2) { "{" } else { "[" });
            for _ in 0..n {
                text.push_str(PIECES[(rng() % PIECES.len() as u64) as usize]);
            }
            agree(&text);
            accepted += usize::from(JsonEvents::read(&text).is_some());
        }
        // Random pieces rarely make JSON: build valid documents too.
        for _ in 0..2_000 {
            let text = format!("[{}]", random_value(&mut rng, 0));
            agree(&text);
            accepted += usize::from(JsonEvents::read(&text).is_some());
        }
        assert!(accepted > 2_000, "{accepted}");
    }

    fn random_value(rng: &mut impl FnMut() -> u64, depth: usize) -> String {
        let pick = if depth > 5 { rng() % 4 } else { rng() % 6 };
        match pick {
            0 => ["\"x y\"", "\"\\\"q\\\"\"", "\"\\ud83d\\ude00\"", "\"\""][(rng() % 4) as usize]
                .into(),
            1 => ["0", "-12", "3.25", "1E-2", "123456789012345678901"][(rng() % 5) as usize].into(),
            2 => ["true", "false"][(rng() % 2) as usize].into(),
            3 => "null".into(),
            4 => {
                let items: Vec<String> = (0..rng() % 4)
                    .map(|_| random_value(rng, depth + 1))
                    .collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let items: Vec<String> = (0..rng() % 4)
                    .map(|_| {
                        format!(
                            "\"{}\": {}",
                            ["a", "b", "a\\u0062"][(rng() % 3) as usize],
                            random_value(rng, depth + 1)
                        )
                    })
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }
}
