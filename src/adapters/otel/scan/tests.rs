//! Tests of the structural scan: containers, positions, errors, limits.

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

/// `run`, reading through a buffer of `cap` bytes.
fn run_buffered(text: &str, layout: Layout, cap: usize) -> Vec<String> {
    let mut out = Vec::new();
    let reader = std::io::BufReader::with_capacity(cap, text.as_bytes());
    scan(reader, "f", layout, 1 << 20, 1, &mut |f| match f {
        Found::Record(r, bytes) => out.push(format!(
            "{}:{} {} {} {}",
            r.at.line,
            r.at.column,
            r.at.pointer,
            r.offset,
            String::from_utf8_lossy(bytes)
        )),
        Found::Issue(i) => out.push(format!("! {}:{} {}", i.line, i.column, i.message)),
    });
    out
}

/// Strings cut anywhere by the reader's buffer (an escape's backslash as a buffer's last byte,
/// a key split in two, a raw newline or multi-byte character inside a string) read exactly as
/// from one buffer: the same records, positions, pointers and errors.
#[test]
fn strings_read_the_same_whatever_the_buffer() {
    let long_key = format!("{{\"resourceSpans\": [{{\"scopeSpans\": [{{\"{}\": 1, \"spans\": [{{\"k\": 1}}]}}]}}]}}", "x\\\"".repeat(40));
    let cases: Vec<(String, Layout)> = vec![
        (
            "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"a\\\"b\": \"c\\\\\\\"d\\u00e9\", \"t\": \"é\\n\"}, {\"x\": \"ü\nline\"}]}]}]}".into(),
            Layout::Document,
        ),
        ("[{\"q\": \"a\\\"]}\\\\\"}, {\"r\": \"\\\\\"}]".into(), Layout::Document),
        (
            "{\"traceId\": \"a\\\\b\", \"n\": \"ok\"}\n{\"s\": \"unterminated\\\n{\"t\": \"\\\"\"}\n".into(),
            Layout::Lines,
        ),
        ("[{\"a\": \"ends inside\\".into(), Layout::Document),
        ("[{\"a\": \"ends inside".into(), Layout::Document),
        (long_key, Layout::Document),
    ];
    for (text, layout) in &cases {
        let whole = run_buffered(text, *layout, 1 << 16);
        assert!(!whole.is_empty(), "{text}");
        for cap in [1, 2, 3, 4, 5, 7, 11] {
            assert_eq!(run_buffered(text, *layout, cap), whole, "{text} with a buffer of {cap}");
        }
    }
}
