//! Tests of `provenance` (kept apart to keep the module short).
use super::*;
use serde_json::json;

use crate::rules::testing::xorshift;

fn derivable(p: &mut Provenance, v: Value) -> bool {
    p.check(&v) == Derivation::Derivable
}

#[test]
fn derivability_as_spec_section_5_defines_it() {
    let mut p = Provenance::new();
    p.add_text("Refund order ORD-58213 for Straße Müller, call 555-123-4567");
    p.add_text("total 58 and 213 items, amount $1,200 due, 1,234.56 owed");
    p.add_content(
        &json!({"customer": {"first": "Ada", "last": "Lovelace", "id": 4521},
                          "files": {"report.pdf": true}}),
    );
    // Shorter than 2 chars.
    assert!(derivable(&mut p, json!("x")));
    assert!(derivable(&mut p, json!(7)));
    // Equal to a tracked scalar, case-folded.
    assert!(derivable(&mut p, json!("LOVELACE")));
    assert!(derivable(&mut p, json!("report.pdf")));
    // Digit string equal to a tracked scalar's.
    assert!(derivable(&mut p, json!("CUST-4521")));
    // Substring of a source text (≥ 3 chars), case-folded.
    assert!(derivable(&mut p, json!("ord-58213")));
    assert!(derivable(&mut p, json!("STRASSE")));
    // Digit string substring of one number's digits (≥ 3).
    assert!(derivable(&mut p, json!("5551234567")));
    assert!(derivable(&mut p, json!("x123456")));
    // Numbers compare by value.
    assert!(derivable(&mut p, json!(1200.0)));
    assert!(derivable(&mut p, json!("1234.56")));
    assert!(derivable(&mut p, json!(1234.56)));
    // a + sep + b for tracked scalars.
    assert!(derivable(&mut p, json!("Ada Lovelace")));
    assert!(derivable(&mut p, json!("ada_lovelace")));
    assert!(derivable(&mut p, json!("AdaLovelace")));
    // Not derivable: made up, two numbers run together, a 2-digit fragment.
    assert!(!derivable(&mut p, json!("ORD-99999")));
    assert!(!derivable(&mut p, json!(4906)));
    assert!(!derivable(&mut p, json!("qq")));
    let mut q = Provenance::new();
    q.add_content(&json!({"total": 58, "qty": 213}));
    assert!(!derivable(&mut q, json!("58213")));
    assert!(derivable(&mut q, json!("58-213")));
    assert!(!derivable(&mut q, json!("ORD-58213")));
}

#[test]
fn several_tokens_must_appear_as_a_run_of_whole_words() {
    let mut p = Provenance::new();
    p.add_text("Ship to: Ada Lovelace, 12 Elm Street (London).");
    assert!(derivable(&mut p, json!("ada lovelace")));
    assert!(derivable(&mut p, json!("12 Elm   Street")));
    assert!(derivable(&mut p, json!("Elm Street London")));
    // Not a run, or not whole words (a documented narrowing of "substring" for phrases).
    assert!(!derivable(&mut p, json!("Lovelace Ada")));
    assert!(!derivable(&mut p, json!("velace, 12")));
    // The word automaton is built on the first phrase query and kept up to date.
    p.add_text("Deliver to Grace Hopper");
    assert!(derivable(&mut p, json!("Grace Hopper")));
    assert!(!derivable(&mut p, json!("Hopper Street")));
}

#[test]
fn numbers_are_matched_by_value_and_digits_not_as_text() {
    let mut p = Provenance::new();
    p.add_text("total 1,234.56 on 2024-01-05, card 4242424242424242424242, code 007");
    assert!(derivable(&mut p, json!("34.5"))); // digits 345 inside 123456
    assert!(derivable(&mut p, json!("2024-01"))); // digits inside 20240105
    assert!(derivable(&mut p, json!("42424242424242424"))); // a long stream
    assert!(derivable(&mut p, json!("x007")));
    // A two-digit fragment of a number is not derived from it, even if it is text inside.
    assert!(!derivable(&mut p, json!("4.5")));
    assert!(!derivable(&mut p, json!("x070")));
    // A number token is matched whole, edge punctuation aside (an `id: name` listing), and
    // never in part.
    for planned in [false, true] {
        let values = [json!("428:4110"), json!("411:6089"), json!("28:41")];
        let mut q = if planned {
            Provenance::planned(&values)
        } else {
            Provenance::new()
        };
        q.add_text("section 428:4110: Signup\nframe (411:6089). Modal");
        assert!(derivable(&mut q, values[0].clone()), "planned: {planned}");
        assert!(derivable(&mut q, values[1].clone()), "planned: {planned}");
        assert!(!derivable(&mut q, values[2].clone()), "planned: {planned}");
    }
}

#[test]
fn json_text_results_are_read_as_structure() {
    let mut p = Provenance::new();
    p.add_content(&json!("{\"token\": \"tk_77\"}"));
    assert!(derivable(&mut p, json!("TK_77")));
}

#[test]
fn past_the_cap_is_disclosed() {
    let mut p = Provenance::new();
    let mut big = "a".repeat(SOURCE_CAP);
    big.push_str(" hidden_value_xyz");
    p.add_text(&big);
    assert!(p.truncated());
    assert_eq!(p.check(&json!("hidden_value_xyz")), Derivation::BeyondCap);
    // A value whose 4-grams the cut text lacks cannot be in it: a plain answer.
    assert_eq!(p.check(&json!("zz_other_value")), Derivation::NotDerivable);
    let mut clean = Provenance::new();
    clean.add_text("short");
    assert_eq!(clean.check(&json!("other")), Derivation::NotDerivable);
}

#[test]
fn a_planned_index_answers_as_an_open_one() {
    // Random texts, structured leaves and values over an alphabet of letters (both cases),
    // digits, number separators, whitespace and non-ASCII letters; a planned index declared
    // the values up front must answer every one as the open index does.
    let mut next = xorshift(0x1234_5678_9ABC_DEF1u64);
    let alphabet: Vec<char> = "abcAB012345678999-.,/ _:$\tßÉ".chars().collect();
    let word = |next: &mut dyn FnMut() -> u64, max: u64| -> String {
        let n = 1 + next() % max;
        (0..n)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect()
    };
    let mut answers = HashMap::new();
    let mut screened_out = 0;
    let mut derived_as_paths = 0;
    for round in 0..400 {
        let mut sources: Vec<(bool, String)> = Vec::new();
        for _ in 0..(1 + next() % 6) {
            sources.push((next().is_multiple_of(2), word(&mut next, 40)));
        }
        let mut values: Vec<Value> = (0..12).map(|_| json!(word(&mut next, 8))).collect();
        // Some values are a source as it is, or normalised by hand (case, whitespace).
        let (_, some) = &sources[(next() % sources.len() as u64) as usize];
        values.push(json!(some));
        values.push(json!(
            some.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        ));
        // Two observed words joined (with a separator or none): derivable only as `a + sep + b`.
        let words: Vec<String> = sources
            .iter()
            .flat_map(|(_, t)| t.split_whitespace().map(str::to_owned))
            .collect();
        if words.len() >= 2 {
            let a = &words[(next() % words.len() as u64) as usize];
            let b = &words[(next() % words.len() as u64) as usize];
            let sep = ["", " ", "-", "/", "_"][(next() % 5) as usize];
            values.push(json!(format!("{a}{sep}{b}")));
        }
        // Runs of a source's digits (inside one digit stream or across several).
        for _ in 0..2 {
            let (_, text) = &sources[(next() % sources.len() as u64) as usize];
            let digits: String = text.chars().filter(char::is_ascii_digit).collect();
            if digits.len() >= 3 {
                let from = (next() as usize) % (digits.len() - 2);
                let to = from + 3 + (next() as usize) % (digits.len() - from - 2);
                values.push(json!(digits[from..to]));
            }
        }
        values.push(json!(next() % 100_000));
        values.push(json!((next() % 10_000) as f64 / 100.0));
        let mut open = Provenance::new();
        let mut planned = Provenance::planned(&values);
        for (leaf, text) in &sources {
            if *leaf {
                open.add_structured(&json!({"k": text}));
                planned.add_structured(&json!({"k": text}));
            } else {
                open.add_text(text);
                planned.add_text(text);
            }
        }
        // What both keep apart from substrings is the same, entry for entry, but for the
        // numbers and digit strings the declared values cannot ask about, which the planned
        // index leaves out; and for the scalars that begin and end no value's prefix or
        // suffix, which it does not keep either.
        let (open_scalars, planned_scalars) = (&open.scalars.seen.0, &planned.scalars.seen.0);
        assert!(
            planned_scalars.is_subset(open_scalars),
            "round {round}: {sources:?}"
        );
        screened_out += open_scalars.len() - planned_scalars.len();
        for (open, planned) in [
            (&open.scalar_digits, &planned.scalar_digits),
            (&open.numbers, &planned.numbers),
        ] {
            let kept: HashSet<u64> = match &planned.wanted {
                Some(wanted) => open.seen.0.intersection(&wanted.0).copied().collect(),
                None => open.seen.0.iter().copied().collect(),
            };
            assert_eq!(
                kept,
                planned.seen.0.iter().copied().collect(),
                "round {round}: {sources:?}"
            );
            assert!(open.wanted.is_none());
        }
        for v in &values {
            let answer = open.check(v);
            // The path pieces searched beside the values change no answer as text; the path
            // rule (planned only) may only add derivable values, and only values that are paths.
            assert_eq!(
                answer,
                planned.check_as_text(v),
                "round {round}: {v} after {sources:?}"
            );
            let as_path = planned.check(v);
            if as_path != answer {
                assert_eq!(as_path, Derivation::Derivable, "round {round}: {v}");
                let norm = super::normalize_text(v.as_str().expect("a path is a string"));
                assert!(
                    super::paths::path_form(&norm, None).is_some(),
                    "round {round}: {v} is not a path"
                );
                derived_as_paths += 1;
            }
            *answers.entry(format!("{answer:?}")).or_insert(0) += 1;
        }
    }
    // Both answers were exercised, many times; and the planned index left scalars out.
    assert!(
        answers.values().all(|n| *n > 100) && answers.len() == 2,
        "{answers:?}"
    );
    assert!(screened_out > 100, "{screened_out} scalars left out");
    // The random values include paths the path rule derives (`a/b` of two observed words).
    assert!(derived_as_paths > 0, "no value was derived as a path");
}

#[test]
fn every_prefix_and_suffix_of_a_wanted_scalar_passes_the_edge_screen() {
    // The screen may let through what is not wanted, never leave out what is: each prefix and
    // each suffix (at char boundaries) of a declared string, itself included.
    let mut next = xorshift(0x4544_4745_5331_0001);
    let alphabet: Vec<char> = "ab1 -_/\0ßÉ".chars().collect();
    let mut rejected = 0;
    for _ in 0..300 {
        let mut edges = Edges::new();
        let wanted: Vec<String> = (0..1 + next() % 5)
            .map(|_| {
                (0..1 + next() % 10)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            })
            .collect();
        for w in &wanted {
            edges.want(w);
        }
        for w in &wanted {
            for (i, _) in w.char_indices() {
                let (before, after) = (&w[..i], &w[i..]);
                assert!(
                    before.is_empty() || edges.may_want(before),
                    "{before:?} of {w:?}"
                );
                assert!(edges.may_want(after), "{after:?} of {w:?}");
            }
            assert!(edges.may_want(w));
        }
        let other: String = (0..1 + next() % 6)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        rejected += usize::from(!edges.may_want(&other));
    }
    // It leaves something out too.
    assert!(rejected > 30, "{rejected} rejected");
}

#[test]
fn the_shape_of_an_ascii_text_is_that_of_its_normalised_form() {
    // Words and normalised length without normalising: every kind of ASCII whitespace, at
    // either end, in runs, and none at all.
    let mut next = xorshift(0x5348_4150_4531_0001);
    let alphabet = b"aB1 \t\n\x0B\x0C\r-";
    for _ in 0..2000 {
        let text: String = (0..next() % 24)
            .map(|_| char::from(alphabet[(next() % alphabet.len() as u64) as usize]))
            .collect();
        let norm = normalize_text(&text);
        let words = if norm.is_empty() {
            0
        } else {
            norm.split(' ').count()
        };
        assert_eq!(ascii_shape(&text), (words, norm.len()), "{text:?}");
    }
}

#[test]
fn the_recent_table_forgets_what_is_old_and_keeps_what_is_new() {
    let mut recent = Recent::default();
    assert!(recent.insert("status"));
    assert!(!recent.insert("status"));
    let strings: Vec<String> = (0..100_000).map(|i| format!("leaf {i}")).collect();
    for s in &strings {
        recent.insert(s);
    }
    // The last ones written are nearly all still there; the first ones nearly all gone.
    let kept =
        |range: &[String], recent: &mut Recent| range.iter().filter(|s| !recent.insert(s)).count();
    let newest = kept(&strings[strings.len() - 200..], &mut recent);
    let oldest = kept(&strings[..1000], &mut recent);
    assert!(newest > 180, "{newest} of the 200 newest kept");
    assert!(oldest < 100, "{oldest} of the 1000 oldest kept");
}
