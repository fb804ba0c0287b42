//! A multi-pattern search built for one trace's argument values, cheap to build and a few
//! instructions per byte to run. Each pattern (3 bytes or more, ASCII lower case) is filed under
//! its first three bytes, its *head*; a text is read as its 3-byte windows, lowercased, and a
//! window is looked up only when a bitmap of the heads' hashes has its bit set. A pattern that
//! the caller says is settled (found where it counts) is retired and never compared again, and
//! once every pattern is retired a search returns at once.
//!
//! Comparisons are bounded by a budget the caller gives: self-similar patterns over a
//! self-similar text (every window a head, every comparison long) cannot cost more than it.

use std::collections::HashMap;

/// log2 of the bits of the heads' bitmap: 8 KiB, one bit in 400 set for a trace of 160 values.
const FILTER_LOG: u32 = 16;

/// ASCII lower case of every byte, by table (one load in the search's inner loop).
static LOWER: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).to_ascii_lowercase();
        b += 1;
    }
    t
};

/// Patterns, filed by head.
#[derive(Debug)]
pub(crate) struct Heads {
    /// One bit per hash of a head (`hash`).
    bits: Box<[u64; 1 << (FILTER_LOG - 6)]>,
    /// A head → its run in `ids`: the patterns not retired first.
    heads: HashMap<u32, Run, foldhash::fast::RandomState>,
    /// Pattern ids, grouped by head.
    ids: Vec<u32>,
    /// Patterns' bytes (lower case) back to back; pattern `id` ends at `ends[id]`.
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// Patterns not retired.
    live: usize,
}

#[derive(Debug, Clone, Copy)]
struct Run {
    start: u32,
    live: u32,
}

impl Heads {
    /// The search for `patterns` (pattern `id` is `patterns[id]`), each at least 3 bytes.
    pub(crate) fn new(patterns: &[&str]) -> Self {
        let mut search = Heads {
            bits: Box::new([0; 1 << (FILTER_LOG - 6)]),
            heads: HashMap::default(),
            ids: Vec::with_capacity(patterns.len()),
            bytes: Vec::new(),
            ends: Vec::with_capacity(patterns.len()),
            live: patterns.len(),
        };
        let mut by_head: Vec<(u32, u32)> = Vec::with_capacity(patterns.len());
        for (id, p) in (0u32..).zip(patterns) {
            assert!(p.len() >= 3, "pattern {p:?} shorter than a head");
            search
                .bytes
                .extend(p.bytes().map(|b| b.to_ascii_lowercase()));
            search.ends.push(search.bytes.len());
            let head = search.bytes[search.bytes.len() - p.len()..][..3]
                .iter()
                .fold(0u32, |w, b| w << 8 | u32::from(*b));
            by_head.push((head, id));
            let h = hash(head);
            search.bits[h >> 6] |= 1 << (h & 63);
        }
        by_head.sort_unstable();
        for (i, (head, id)) in (0u32..).zip(by_head) {
            search
                .heads
                .entry(head)
                .or_insert(Run { start: i, live: 0 })
                .live += 1;
            search.ids.push(id);
        }
        search
    }

    /// The first offset from `at` whose window (the 3 bytes ending there, lower case, after
    /// `window`: the bytes before `at`) may be a head, and that window; the text's length when
    /// none is. The inner loop of `search`, kept apart so that it keeps its state in registers.
    fn next_window(&self, text: &[u8], mut at: usize, mut window: u32) -> (usize, u32) {
        while let Some(b) = text.get(at) {
            window = window << 8 | u32::from(LOWER[usize::from(*b)]);
            let h = hash(window);
            if self.bits[h >> 6] & (1 << (h & 63)) != 0 {
                return (at, window & 0x00FF_FFFF);
            }
            at += 1;
        }
        (at, window)
    }

    /// True when every pattern is retired: no search can find anything.
    #[cfg(test)]
    pub(crate) fn done(&self) -> bool {
        self.live == 0
    }

    /// Every occurrence in `text` (ignoring ASCII case) of a pattern not retired, overlapping
    /// ones too, handed to `found(id, start, end)`, which returns true to retire the pattern.
    /// Each comparison costs the bytes it reads plus one from `budget`; false when the budget
    /// ran out before the end of the text (what was not searched is unknown).
    pub(crate) fn search(
        &mut self,
        text: &[u8],
        budget: &mut usize,
        mut found: impl FnMut(usize, usize, usize) -> bool,
    ) -> bool {
        if text.len() < 3 || self.live == 0 {
            return true;
        }
        let mut window =
            u32::from(LOWER[usize::from(text[0])]) << 8 | u32::from(LOWER[usize::from(text[1])]);
        let mut at = 2;
        loop {
            let last;
            (last, window) = self.next_window(text, at, window);
            if last >= text.len() {
                return true;
            }
            at = last + 1;
            let Some(run) = self.heads.get_mut(&window) else {
                continue;
            };
            let start = last - 2;
            let rest = &text[start + 3..];
            let mut k = 0;
            while k < run.live {
                let slot = (run.start + k) as usize;
                let id = self.ids[slot] as usize;
                let from = if id == 0 { 0 } else { self.ends[id - 1] };
                let tail = &self.bytes[from + 3..self.ends[id]];
                let same = tail
                    .iter()
                    .zip(rest)
                    .take_while(|(p, t)| **p == LOWER[usize::from(**t)])
                    .count();
                *budget = match budget.checked_sub(same + 1) {
                    Some(b) => b,
                    None => return false,
                };
                if same == tail.len() && found(id, start, start + 3 + same) {
                    run.live -= 1;
                    self.ids.swap(slot, (run.start + run.live) as usize);
                    self.live -= 1;
                    if self.live == 0 {
                        return true;
                    }
                } else {
                    k += 1;
                }
            }
        }
    }
}

/// Where a window's head (its low 3 bytes) falls in the bitmap.
fn hash(window: u32) -> usize {
    ((window << 8).wrapping_mul(0x9E37_79B1) >> (32 - FILTER_LOG)) as usize
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn finds_every_occurrence_an_aho_corasick_search_finds() {
        let mut next = xorshift(0x4845_4144_5321_0001);
        let mut total = 0;
        for round in 0..500 {
            let (patterns, text) = random_case(&mut next);
            let mut heads = heads_of(&patterns);
            let mut seen = BTreeSet::new();
            let mut budget = usize::MAX;
            assert!(
                heads.search(text.as_bytes(), &mut budget, |id, start, end| {
                    assert_eq!(end - start, patterns[id].len());
                    seen.insert((id, start));
                    false
                })
            );
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
}
