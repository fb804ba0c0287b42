//! An incrementally extended suffix automaton (the online construction of Blumer et al.) over
//! symbols: bytes for the token and digit index, word ids (`u32`) for phrases. It answers "is
//! this sequence a substring of what was added" in O(sequence length), and grows in amortised
//! O(1) per symbol. Segments are separated by a symbol no pattern contains, so no match spans
//! two segments. It owns the data structure only: what goes in is `provenance`'s business.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// No state.
const NONE: u32 = u32::MAX;
/// Transitions a state keeps inline (in its own cache line); most states have one or two.
const INLINE: usize = 2;

/// An alphabet: its symbols, and the separator no pattern contains.
pub(crate) trait Symbol:
    Copy + Ord + Eq + std::hash::Hash + std::fmt::Debug + Default
{
    /// Between two segments.
    const SEPARATOR: Self;
}

impl Symbol for u8 {
    /// Never part of valid UTF-8.
    const SEPARATOR: u8 = 0xFF;
}

impl Symbol for u32 {
    /// Never a word id.
    const SEPARATOR: u32 = u32::MAX - 1;
}

/// A fast, non-cryptographic hasher for `u32` keys (the keys are our own symbols and state
/// numbers, not attacker-chosen strings).
#[derive(Default)]
pub(crate) struct SymbolHasher(u64);

impl Hasher for SymbolHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Transitions of a state with more than `INLINE`: a short sorted vector (contiguous, one or two
/// cache lines), or a map once there are more than `SMALL_MAX` (the root, common words).
#[derive(Debug, Clone)]
enum Wide<K> {
    Small(Vec<(K, u32)>),
    Map(HashMap<K, u32, BuildHasherDefault<SymbolHasher>>),
}

/// Most transitions a `Wide::Small` holds.
const SMALL_MAX: usize = 32;

impl<K: Symbol> Wide<K> {
    fn get(&self, sym: K) -> u32 {
        match self {
            Wide::Small(v) => match v.binary_search_by_key(&sym, |e| e.0) {
                Ok(i) => v[i].1,
                Err(_) => NONE,
            },
            Wide::Map(m) => m.get(&sym).copied().unwrap_or(NONE),
        }
    }

    fn insert(&mut self, sym: K, to: u32) {
        match self {
            Wide::Small(v) => match v.binary_search_by_key(&sym, |e| e.0) {
                Ok(i) => v[i].1 = to,
                Err(i) if v.len() < SMALL_MAX => v.insert(i, (sym, to)),
                Err(_) => {
                    let mut m: HashMap<K, u32, BuildHasherDefault<SymbolHasher>> =
                        v.iter().copied().collect();
                    m.insert(sym, to);
                    *self = Wide::Map(m);
                }
            },
            Wide::Map(m) => {
                m.insert(sym, to);
            }
        }
    }
}

/// One state. Its transitions stay inline up to `INLINE`, then move to a map of their own;
/// keeping a state's transitions together is what keeps construction cache-friendly.
/// (24 bytes over bytes, 32 over word ids.)
#[derive(Debug, Clone, Copy)]
struct State<K> {
    len: u32,
    link: u32,
    /// Index into `Automaton::wide`, or `NONE` while the transitions are inline.
    wide: u32,
    count: u8,
    keys: [K; INLINE],
    to: [u32; INLINE],
}

impl<K: Symbol> State<K> {
    fn new(len: u32, link: u32) -> Self {
        Self {
            len,
            link,
            wide: NONE,
            count: 0,
            keys: [K::default(); INLINE],
            to: [NONE; INLINE],
        }
    }
}

/// The automaton.
#[derive(Debug)]
pub(crate) struct Automaton<K> {
    states: Vec<State<K>>,
    wide: Vec<Wide<K>>,
    last: u32,
    symbols: usize,
}

impl<K: Symbol> Default for Automaton<K> {
    fn default() -> Self {
        // The root has the most transitions: it starts wide.
        let mut root = State::new(0, NONE);
        root.wide = 0;
        Self {
            states: vec![root],
            wide: vec![Wide::Map(HashMap::default())],
            last: 0,
            symbols: 0,
        }
    }
}

impl<K: Symbol> Automaton<K> {
    /// Symbols added so far (separators included).
    pub(crate) fn symbols(&self) -> usize {
        self.symbols
    }

    /// Add one segment, then a separator.
    pub(crate) fn add_segment(&mut self, segment: impl IntoIterator<Item = K>) {
        for s in segment {
            self.extend(s);
        }
        self.extend(K::SEPARATOR);
    }

    /// Is `pattern` (non-empty, without separators) a substring of some segment?
    pub(crate) fn contains(&self, pattern: impl IntoIterator<Item = K>) -> bool {
        let mut s = 0u32;
        for sym in pattern {
            if sym == K::SEPARATOR {
                return false;
            }
            s = self.get(s, sym);
            if s == NONE {
                return false;
            }
        }
        true
    }

    fn get(&self, state: u32, sym: K) -> u32 {
        let st = &self.states[state as usize];
        if st.wide != NONE {
            return self.wide[st.wide as usize].get(sym);
        }
        for i in 0..st.count as usize {
            if st.keys[i] == sym {
                return st.to[i];
            }
        }
        NONE
    }

    /// Point `state`'s transition on `sym` at `to`, adding it when absent.
    fn set(&mut self, state: u32, sym: K, to: u32) {
        let st = &mut self.states[state as usize];
        if st.wide != NONE {
            self.wide[st.wide as usize].insert(sym, to);
            return;
        }
        let n = st.count as usize;
        if let Some(i) = st.keys[..n].iter().position(|k| *k == sym) {
            st.to[i] = to;
        } else if n < INLINE {
            st.keys[n] = sym;
            st.to[n] = to;
            st.count += 1;
        } else {
            let mut edges: Vec<(K, u32)> = st.keys.iter().copied().zip(st.to).collect();
            edges.push((sym, to));
            edges.sort_unstable_by_key(|e| e.0);
            st.wide = self.wide.len() as u32;
            self.wide.push(Wide::Small(edges));
        }
    }

    fn extend(&mut self, sym: K) {
        self.symbols += 1;
        self.states
            .push(State::new(self.states[self.last as usize].len + 1, NONE));
        let cur = (self.states.len() - 1) as u32;
        let mut p = self.last;
        while p != NONE && self.get(p, sym) == NONE {
            self.set(p, sym, cur);
            p = self.states[p as usize].link;
        }
        if p == NONE {
            self.states[cur as usize].link = 0;
        } else {
            let q = self.get(p, sym);
            let p_len = self.states[p as usize].len;
            if p_len + 1 == self.states[q as usize].len {
                self.states[cur as usize].link = q;
            } else {
                // Clone q: the same transitions (its own copy of a map), a shorter length.
                let mut copy = self.states[q as usize];
                copy.len = p_len + 1;
                if copy.wide != NONE {
                    let map = self.wide[copy.wide as usize].clone();
                    copy.wide = self.wide.len() as u32;
                    self.wide.push(map);
                }
                self.states.push(copy);
                let clone = (self.states.len() - 1) as u32;
                while p != NONE && self.get(p, sym) == q {
                    self.set(p, sym, clone);
                    p = self.states[p as usize].link;
                }
                self.states[q as usize].link = clone;
                self.states[cur as usize].link = clone;
            }
        }
        self.last = cur;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::xorshift;

    #[test]
    fn agrees_with_naive_substring_search() {
        // A deterministic generator; a 3-symbol alphabet stresses cloning, a 9-symbol one the
        // states whose transitions outgrow their inline slots.
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        for k in [3u64, 9] {
            let mut a = Automaton::<u32>::default();
            let mut segments: Vec<Vec<u32>> = Vec::new();
            for _ in 0..60 {
                let n = (next() % 40) as usize;
                let seg: Vec<u32> = (0..n).map(|_| (next() % k) as u32).collect();
                a.add_segment(seg.iter().copied());
                segments.push(seg);
                for _ in 0..60 {
                    let m = 1 + (next() % 5) as usize;
                    let pat: Vec<u32> = (0..m).map(|_| (next() % k) as u32).collect();
                    let naive = segments.iter().any(|s| s.windows(m).any(|w| w == pat));
                    assert_eq!(a.contains(pat.iter().copied()), naive, "{pat:?}");
                }
            }
            assert!(a.wide.len() > 1, "maps beyond the root were exercised");
        }
    }

    #[test]
    fn no_match_spans_segments() {
        let mut a = Automaton::<u8>::default();
        a.add_segment(b"abc".iter().copied());
        a.add_segment(b"def".iter().copied());
        assert!(a.contains(b"bc".iter().copied()));
        assert!(!a.contains(b"cd".iter().copied()));
        assert!(!a.contains([0xFF]));
    }

    #[test]
    fn bytes_agree_with_naive_search_over_digits_and_letters() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let alphabet = b"0123456789-ab";
        let mut a = Automaton::<u8>::default();
        let mut segments: Vec<Vec<u8>> = Vec::new();
        for _ in 0..80 {
            let n = 1 + (next() % 14) as usize;
            let seg: Vec<u8> = (0..n).map(|_| alphabet[(next() % 13) as usize]).collect();
            a.add_segment(seg.iter().copied());
            segments.push(seg);
            for _ in 0..40 {
                let m = 1 + (next() % 4) as usize;
                let pat: Vec<u8> = (0..m).map(|_| alphabet[(next() % 13) as usize]).collect();
                let naive = segments.iter().any(|s| s.windows(m).any(|w| w == pat));
                assert_eq!(a.contains(pat.iter().copied()), naive);
            }
        }
        assert!(a.wide.len() > 1);
    }
}
