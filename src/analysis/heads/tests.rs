//! Tests of `heads` (kept apart to keep the module short).
use std::collections::BTreeSet;

use super::*;
use crate::rules::testing::xorshift;

/// Random patterns and texts over a small alphabet (both cases, digits, non-ASCII), so
/// that heads repeat, patterns share prefixes and overlap.
fn random_case(next: &mut impl FnMut() -> u64) -> (Vec<String>, String) {
    let alphabet: Vec<char> = "abAB01-é".chars().collect();
    let word = |next: &mut dyn FnMut() -> u64, min: u64, max: u64| -> String {
        (0..min + next() % (max - min + 1))
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect()
    };
    // At least one pattern, each at least 3 chars (so 3 bytes).
    let mut patterns: Vec<String> = (0..1 + next() % 40)
        .map(|_| word(next, 3, 9).to_lowercase())
        .collect();
    patterns.sort();
    patterns.dedup();
    (patterns, word(next, 0, 300))
}

fn heads_of(patterns: &[String]) -> Heads {
    let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
    Heads::new(&refs)
}

/// Every (pattern, start) an Aho-Corasick search ignoring ASCII case reports, overlapping.
fn oracle(patterns: &[String], text: &str) -> BTreeSet<(usize, usize)> {
    let ac = aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(patterns)
        .expect("built");
    ac.find_overlapping_iter(text)
        .map(|m| (m.pattern().as_usize(), m.start()))
        .collect()
}

/// Every (pattern, start) a search reports, none retired, with no budget to run out.
fn every_match(heads: &mut Heads, patterns: &[String], text: &str) -> BTreeSet<(usize, usize)> {
    let mut seen = BTreeSet::new();
    let mut budget = usize::MAX;
    assert!(
        heads.search(text.as_bytes(), &mut budget, |id, start, end| {
            assert_eq!(end - start, patterns[id].len());
            seen.insert((id, start));
            false
        })
    );
    seen
}

#[test]
fn finds_every_occurrence_an_aho_corasick_search_finds() {
    let mut next = xorshift(0x4845_4144_5321_0001);
    let mut total = 0;
    for round in 0..500 {
        let (patterns, text) = random_case(&mut next);
        let seen = every_match(&mut heads_of(&patterns), &patterns, &text);
        assert_eq!(
            seen,
            oracle(&patterns, &text),
            "round {round}: {patterns:?} in {text:?}"
        );
        total += seen.len();
    }
    assert!(total > 1000, "{total} matches in all");
}

#[test]
fn a_retired_pattern_is_not_reported_again_across_texts() {
    let mut next = xorshift(0x4845_4144_5321_0002);
    for round in 0..300 {
        let (patterns, first) = random_case(&mut next);
        let (_, second) = random_case(&mut next);
        let mut heads = heads_of(&patterns);
        let mut reported = Vec::new();
        let mut budget = usize::MAX;
        for text in [&first, &second] {
            // Retire only patterns found at an even offset: the others stay searched for.
            heads.search(text.as_bytes(), &mut budget, |id, start, _| {
                reported.push((id, start % 2 == 0));
                start % 2 == 0
            });
        }
        let mut want: BTreeSet<usize> = BTreeSet::new();
        for text in [&first, &second] {
            want.extend(
                oracle(&patterns, text)
                    .into_iter()
                    .filter(|(_, s)| s % 2 == 0)
                    .map(|(id, _)| id),
            );
        }
        let retired: Vec<usize> = reported.iter().filter(|r| r.1).map(|r| r.0).collect();
        let unique: BTreeSet<usize> = retired.iter().copied().collect();
        assert_eq!(retired.len(), unique.len(), "round {round}: retired twice");
        assert_eq!(unique, want, "round {round}");
        assert_eq!(heads.done(), unique.len() == patterns.len());
    }
}

#[test]
fn a_pattern_retired_by_the_caller_is_never_reported() {
    let mut next = xorshift(0x4845_4144_5321_0003);
    let mut kept = 0;
    for round in 0..300 {
        let (patterns, text) = random_case(&mut next);
        let mut heads = heads_of(&patterns);
        let out: BTreeSet<usize> = (0..patterns.len())
            .filter(|_| next().is_multiple_of(2))
            .collect();
        for id in &out {
            heads.retire(*id);
            heads.retire(*id);
        }
        let seen = every_match(&mut heads, &patterns, &text);
        let want: BTreeSet<(usize, usize)> = oracle(&patterns, &text)
            .into_iter()
            .filter(|(id, _)| !out.contains(id))
            .collect();
        assert_eq!(
            seen, want,
            "round {round}: {out:?} of {patterns:?} in {text:?}"
        );
        assert_eq!(heads.done(), out.len() == patterns.len());
        kept += seen.len();
    }
    assert!(kept > 300, "{kept} matches of patterns kept");
}

#[test]
fn comparisons_stop_at_the_budget() {
    // Runs of `a` ending in `b`, over a text of `a`: every window is a head and every
    // comparison reads the whole pattern, and nothing is ever found.
    let patterns: Vec<String> = (3..60).map(|n| format!("{}b", "a".repeat(n))).collect();
    let mut heads = heads_of(&patterns);
    let text = "a".repeat(100_000);
    let mut budget = 1_000_000;
    assert!(!heads.search(text.as_bytes(), &mut budget, |_, _, _| true));
    // Short of that, the same search completes.
    let mut budget = usize::MAX;
    assert!(heads.search(&text.as_bytes()[..1000], &mut budget, |_, _, _| true));
}
