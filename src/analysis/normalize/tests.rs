//! Tests of `normalize` (kept apart to keep the module short).
use super::*;
use serde_json::json;

use crate::rules::testing::xorshift;

#[test]
fn canonical_args_sort_and_drop_volatile_keys() {
    let a = canonical_args(&json!({"b": 1, "a": {"Request_Id": "x", "z": [1, {"ts": 3}]}}));
    assert_eq!(a, r#"{"a":{"z":[1,{}]},"b":1}"#);
    assert_eq!(
        canonical_args(&json!({"x": 1, "nonce": "a"})),
        canonical_args(&json!({"nonce": "b", "x": 1}))
    );
}

#[test]
fn result_classes() {
    let r = |c: Value, s| ToolResult::new(None, c, s);
    use ResultStatus::*;
    assert_eq!(result_class(None), ResultClass::NoResult);
    assert_eq!(
        result_class(Some(&r(json!("x"), Error))),
        ResultClass::Error
    );
    assert_eq!(
        result_class(Some(&r(json!(" "), Unknown))),
        ResultClass::Empty
    );
    let pending = result_class(Some(&r(json!({"status": "In Progress"}), Ok)));
    assert_eq!(pending, ResultClass::Status("in_progress".into()));
    assert!(pending.is_waiting());
    assert!(result_class(Some(&r(json!("{\"state\": \"queued\"}"), Ok))).is_waiting());
    assert!(!result_class(Some(&r(json!({"status": "done"}), Ok))).is_waiting());
    let mut lost = r(Value::Null, Unknown);
    lost.content_recorded = false;
    assert_eq!(result_class(Some(&lost)), ResultClass::NoResult);
}

#[test]
fn text_normalisation_case_folds() {
    assert_eq!(normalize_text("  Straße \n\t ÉCOLE  "), "strasse école");
    assert_eq!(normalize_text(" ORD-58213\r\n  Ready "), "ord-58213 ready");
    assert_eq!(normalize_text(""), "");
}

#[test]
fn numbers_compare_by_value() {
    assert_eq!(canonical_number(4906.0).unwrap(), "4906");
    assert_eq!(canonical_number(1234.56).unwrap(), "1234.56");
    for x in [
        0.0,
        -0.0,
        7.0,
        -7.0,
        999_999_999_999_999.0,
        -999_999_999_999_999.0,
        1e15,
        0.5,
    ] {
        assert_eq!(
            canonical_number(x).unwrap(),
            if x.fract() == 0.0 && x.abs() < 1e15 {
                format!("{}", x as i64)
            } else {
                format!("{x}")
            }
        );
    }
    assert_eq!(canonical_number(f64::NAN), None);
    for n in [
        json!(0),
        json!(-5),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(2.5),
        json!(1e300),
    ] {
        let n = n.as_number().unwrap();
        let expected = if n.is_i64() || n.is_u64() {
            n.to_string()
        } else {
            canonical_number(n.as_f64().unwrap()).unwrap()
        };
        assert_eq!(canonical_json_number(n).unwrap(), expected);
    }
    assert_eq!(canonical_number_str(" -007.50 ").as_deref(), Some("-7.5"));
    assert_eq!(canonical_number_str("$1,200").as_deref(), Some("1200"));
    assert_eq!(canonical_number_str("-0").as_deref(), Some("0"));
    assert_eq!(canonical_number_str("12."), None);
    assert_eq!(canonical_number_str("A100"), None);
    assert_eq!(parse_number_str("$1,200"), Some(1200.0));
    assert_eq!(parse_number_str("1,234.56"), Some(1234.56));
    assert_eq!(parse_number_str("12,34"), None);
    assert_eq!(parse_number_str("A100"), None);
    assert_eq!(
        numbers_in("amount $1,200 due, order 12 items."),
        ["1200", "12"]
    );
    // A version string is not a number; a leading minus is kept.
    assert_eq!(numbers_in("v1.2.3 and -4"), ["-4"]);
    assert_eq!(numbers_in("555-123"), ["555", "123"]);
    // Plain integers take a short path: the same canonical text as the general one.
    assert_eq!(
        numbers_in("007 -0 -12 000 123456789012345"),
        ["7", "0", "-12", "0", "123456789012345"]
    );
    assert_eq!(
        numbers_in("1234567890123456 -1234567890123456"),
        ["1234567890123456", "-1234567890123456"]
    );
    // Past 15 significant digits an integer is read as an f64 is: 2^53 + 1 is not one.
    assert_eq!(
        numbers_in("9007199254740993 0009007199254740993"),
        ["9007199254740992", "9007199254740992"]
    );
}

#[test]
fn one_pass_reads_the_numbers_and_streams_of_separate_passes() {
    // Random texts of digits, separators, letters and a multi-byte char; every other one
    // mostly letters, so that digits are far apart (past the blocks skipped at once).
    let mut next = xorshift(0x0DDB_1A5E_5BAD_5EEDu64);
    let alphabet: Vec<char> = "0123456789-.,/ ()$ab\u{e9}".chars().collect();
    for round in 0..4000 {
        let n = next() % 200;
        let sparse = round % 2 == 1;
        let text: String = (0..n)
            .map(|_| {
                let r = next();
                alphabet[if r.is_multiple_of(4) || (sparse && r % 32 != 1) {
                    18 + (r % 3) as usize
                } else {
                    (r % 18) as usize
                }]
            })
            .collect();
        let (mut numbers, mut streams) = (Vec::new(), Vec::new());
        for_each_number_and_stream(&text, &mut DigitScratch::default(), |p| match p {
            DigitPart::Number(n) => numbers.push(n.to_owned()),
            DigitPart::Stream(s) => streams.push(s.to_owned()),
        });
        assert_eq!(streams, streams_by_themselves(&text), "{text:?}");
        assert_eq!(numbers, numbers_by_themselves(&text), "{text:?}");
    }
}

/// `digit_streams` as its own loop, over chars.
fn streams_by_themselves(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut gap) = (Vec::new(), String::new(), 0);
    for c in text.chars() {
        if c.is_ascii_digit() {
            cur.push(c);
            gap = 0;
        } else if !cur.is_empty() && "-.,/ ()".contains(c) && gap < 2 {
            gap += 1;
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            gap = 0;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `numbers_in` as its own loop, each candidate through `parse_number_str`.
fn numbers_by_themselves(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < bytes.len()
            && (bytes[end].is_ascii_digit() || matches!(bytes[end], b',' | b'.'))
        {
            end += 1;
        }
        let candidate = text[i..end].trim_end_matches([',', '.']);
        let negative =
            i > 0 && bytes[i - 1] == b'-' && (i == 1 || !bytes[i - 2].is_ascii_alphanumeric());
        if let Some(x) = parse_number_str(candidate)
            .or_else(|| candidate.split(',').next().and_then(parse_number_str))
            && let Some(c) = canonical_number(if negative { -x } else { x })
        {
            out.push(c);
        }
        i = end.max(i + 1);
    }
    out
}

#[test]
fn plain_decimals_are_written_as_canonical_number_writes_them() {
    let mut next = xorshift(0x5EED_0FDE_C13A_15AAu64);
    let mut buf = String::new();
    let mut fast = 0;
    for _ in 0..20_000 {
        let digits = |n: u64, next: &mut dyn FnMut() -> u64| -> String {
            (0..n)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect()
        };
        let int = digits(1 + next() % 14, &mut next);
        let frac = digits(next() % 12, &mut next);
        let text = if frac.is_empty() && next().is_multiple_of(2) {
            int
        } else {
            format!("{int}.{frac}")
        };
        let negative = next().is_multiple_of(3);
        let general =
            parse_number_str(&text).and_then(|x| canonical_number(if negative { -x } else { x }));
        if plain_decimal_into(&text, negative, &mut buf) {
            fast += 1;
            assert_eq!(Some(buf.clone()), general, "{text} negative {negative}");
        }
        let signed = format!(" {}{text} ", if negative { "-" } else { "" });
        assert_eq!(canonical_number_str(&signed), general, "{signed:?}");
    }
    // Most took the short path; the rest (more than 15 significant digits) did not.
    assert!(fast > 10_000, "{fast}");
    for (text, canonical) in [
        ("007", "7"),
        ("0.50", "0.5"),
        ("0.000", "0"),
        ("12.0", "12"),
        ("0.0000000000000000000001", "0.0000000000000000000001"),
    ] {
        assert!(plain_decimal_into(text, false, &mut buf), "{text}");
        assert_eq!(buf, canonical);
        assert_eq!(
            canonical_number(parse_number_str(text).unwrap()).unwrap(),
            canonical
        );
    }
    for text in [
        "12.",
        "1,200",
        ".5",
        "1.2.3",
        "1234567890123456",
        "0.00000000000000000000001",
    ] {
        assert!(!plain_decimal_into(text, false, &mut buf), "{text}");
    }
}

#[test]
fn ascii_text_normalises_as_any_text_does() {
    // The ASCII paths (a byte map, or word by word when whitespace comes in runs) against
    // the general one (case folding, chars): every kind of ASCII whitespace, in runs and at
    // either end.
    let mut next = xorshift(0x4E4F_524D_4153_4349);
    let dense: &[u8] = b"aZ9_ \t\n\x0B\x0C\r.";
    // Mostly not whitespace: long texts without a run too.
    let sparse: &[u8] = b"aZ9_.bcdefghijk \t\n";
    let (mut fast, mut general) = (String::new(), String::new());
    for round in 0..5000 {
        let alphabet = if round % 2 == 0 { dense } else { sparse };
        let text: String = (0..next() % 300)
            .map(|_| char::from(alphabet[(next() % alphabet.len() as u64) as usize]))
            .collect();
        normalize_into(&text, &mut fast);
        general.clear();
        normalize_folding(text.trim(), &mut general);
        assert_eq!(fast, general, "{text:?}");
    }
}

#[test]
fn digit_streams_join_one_number_only() {
    assert_eq!(digit_streams("call 555-123-4567 now"), ["5551234567"]);
    assert_eq!(digit_streams("total 58 and 213 items"), ["58", "213"]);
    assert_eq!(digit_streams("1,234.56"), ["123456"]);
    assert_eq!(digits("ORD-58213"), "58213");
}
