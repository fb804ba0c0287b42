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
        let text = pieces_document(&mut rng, PIECES, 24);
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

/// An object or array opened, then up to `max` pieces: structure (brackets, commas, colons,
/// spaces) or one of `pieces`; rarely JSON, often nearly.
fn pieces_document(rng: &mut impl FnMut() -> u64, pieces: &[&str], max: u64) -> String {
    const STRUCTURE: &[&str] = &["{", "}", "[", "]", ",", ":", " "];
    let mut text = String::from(if rng().is_multiple_of(2) { "{" } else { "[" });
    for _ in 0..1 + rng() % max {
        let i = (rng() % (STRUCTURE.len() + pieces.len()) as u64) as usize;
        text.push_str(
            STRUCTURE
                .get(i)
                .unwrap_or_else(|| &pieces[i - STRUCTURE.len()]),
        );
    }
    text
}

/// Whether the fast reader read `text`; where it did, its events are the parser's exactly
/// (spans included).
fn fast_reads_as_parsed(text: &str) -> bool {
    let t = text.trim_start();
    let mut events = Vec::new();
    let read = fast::read(t, text.len() - t.len(), &mut events);
    if read {
        let parsed = JsonEvents::read_parsed(text, t, JsonEvents::default());
        assert_eq!(
            Some(&events),
            parsed.as_ref().map(|p| &p.events),
            "{text:?}"
        );
    }
    read
}

#[test]
fn the_fast_reader_reads_as_the_parser_or_gives_up() {
    let mut rng = xorshift(0x6661_7374);
    const PIECES: &[&str] = &[
        "\r\n",
        "\u{a0}",
        "\"k\"",
        "\"v w\"",
        "\"\u{1}\"",
        "\"a\\\"b\"",
        "\"é\"",
        "0",
        "01",
        "-",
        "-0",
        "-0.0e-0",
        "1.",
        ".5",
        "1e",
        "1e+",
        "2.50",
        "1E400",
        "0.1e1",
        "9999999999999999999",
        "18446744073709551616",
        "-9223372036854775809",
        "123456789012345678901",
        "true",
        "tru",
        "false",
        "null",
        "nul",
    ];
    let (mut read, mut declined) = (0, 0);
    for _ in 0..30_000 {
        let max = if rng().is_multiple_of(2) { 4 } else { 16 };
        let text = pieces_document(&mut rng, PIECES, max);
        if fast_reads_as_parsed(&text) {
            read += 1;
        }
        // Every prefix too: most are cut mid-value.
        let cut = (rng() as usize) % (text.len() + 1);
        if text.is_char_boundary(cut) {
            fast_reads_as_parsed(&text[..cut]);
        }
    }
    for _ in 0..3_000 {
        let text = format!(" [{}]\n", random_value(&mut rng, 0));
        if fast_reads_as_parsed(&text) {
            read += 1;
        } else {
            declined += 1;
        }
    }
    // It reads most documents and leaves the escaped ones to the parser.
    assert!(
        read > 1_500 && declined > 100,
        "{read} read, {declined} declined"
    );
    // Escapes, control chars and deep nesting go to the parser; so does what is not JSON.
    for text in [
        r#"{"a": "x\ny"}"#,
        "[\"\u{1}\"]",
        &format!("{}{}", "[".repeat(65), "]".repeat(65)),
        "[01]",
        "[-01]",
        "[1.]",
        "[-]",
        "[.5]",
        "[1e]",
        "[1e+]",
        "[tru]",
        "[1,]",
        "[1 2]",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        "{1:2}",
        "[1]x",
        "[\u{a0}1]",
    ] {
        assert!(!fast_reads_as_parsed(text), "{text:?}");
    }
    assert!(fast_reads_as_parsed(&format!(
        "{}{}",
        "[".repeat(64),
        "]".repeat(64)
    )));
}

fn random_value(rng: &mut impl FnMut() -> u64, depth: usize) -> String {
    let pick = if depth > 5 { rng() % 4 } else { rng() % 6 };
    match pick {
        0 => {
            ["\"x y\"", "\"\\\"q\\\"\"", "\"\\ud83d\\ude00\"", "\"\""][(rng() % 4) as usize].into()
        }
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
