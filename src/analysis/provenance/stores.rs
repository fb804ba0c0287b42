//! The sets the open index keeps (the provenance index's storage): strings observed lately
//! (`Recent`), the first and last bytes of the scalars a planned index can be asked about
//! (`Edges`), what a cap left out (`Overflow`), fingerprints and tracked scalars, and the word
//! streams phrases are matched in (`Phrases`).

use super::*;

/// The fingerprints of strings observed lately, in a table of slots (a slot per fingerprint's
/// low bits, the last one written wins): a string seen again soon after (a key, a status word)
/// is told apart at the cost of one hash. The table starts small and grows with what is
/// written to it up to `RECENT_MAX_SLOTS`, then stays that size however long the trace, so it
/// stays in cache. A string evicted is observed again: more work, and the same answers, but
/// for the caps: a source observed again counts again against the phrase cap (`WORD_CAP`) and,
/// when its search gave up, the overflow budget, so a trace past either reaches it sooner and
/// discloses more values as not checked (never the reverse: nothing is reported that was not).
#[derive(Debug, Default)]
pub(super) struct Recent {
    pub(super) slots: Vec<u64>,
    pub(super) written: usize,
}

/// Slots of a new `Recent` table (8 KiB), and the most it grows to (32 KiB: larger tables,
/// zeroed per trace and competing for cache, made linting the Claude Code corpus slower).
pub(super) const RECENT_MIN_SLOTS: usize = 1 << 10;
pub(super) const RECENT_MAX_SLOTS: usize = 1 << 12;

impl Recent {
    /// Note `s`; true when it was not noted lately.
    pub(super) fn insert(&mut self, s: &str) -> bool {
        let fp = fingerprint(s);
        if self.slots.len() < RECENT_MAX_SLOTS && self.written >= 4 * self.slots.len() {
            // Many more strings than slots: a larger table (forgetting what the small one held).
            let len = (self.slots.len() * 4).clamp(RECENT_MIN_SLOTS, RECENT_MAX_SLOTS);
            self.slots = vec![0; len];
            self.written = 0;
        }
        self.written += 1;
        // Zero is the empty slot: a string whose fingerprint is zero is never deduplicated.
        // A power of two: the low bits pick the slot.
        let len = self.slots.len();
        let slot = &mut self.slots[fp as usize & (len - 1)];
        let fresh = *slot != fp || fp == 0;
        *slot = fp;
        fresh
    }
}

/// The first and last bytes of every string a planned index's values can ask about as a
/// scalar: a value (normalised), its number, and each part `a` or `b` of the value read as
/// `a + sep + b`, that is each prefix and each suffix of a value. A scalar observed whose
/// first bytes begin no value and whose last bytes end none can never be asked about, so it
/// is not kept (most result leaves, in a long trace millions of them).
#[derive(Debug)]
pub(super) struct Edges {
    /// Bit per (first byte, second byte or 0 for a one-byte string).
    pub(super) starts: Bitmap<1024>,
    /// Bit per (last byte, 0 for a one-byte string, else the byte before it).
    pub(super) ends: Bitmap<1024>,
}

impl Edges {
    pub(super) fn new() -> Self {
        Edges {
            starts: Bitmap::new(),
            ends: Bitmap::new(),
        }
    }

    /// Declare every prefix and suffix of `s` (and `s`) as wanted.
    pub(super) fn want(&mut self, s: &str) {
        let b = s.as_bytes();
        let (Some(first), Some(last)) = (b.first(), b.last()) else {
            return;
        };
        self.starts.set(edge_key(*first, 0));
        self.ends.set(edge_key(*last, 0));
        if b.len() >= 2 {
            self.starts.set(edge_key(b[0], b[1]));
            self.ends.set(edge_key(b[b.len() - 1], b[b.len() - 2]));
        }
    }

    /// Could `s` be a prefix or a suffix of a wanted string?
    pub(super) fn may_want(&self, s: &str) -> bool {
        let b = s.as_bytes();
        match b {
            [] => false,
            [one] => self.starts.has(edge_key(*one, 0)) || self.ends.has(edge_key(*one, 0)),
            [first, second, ..] => {
                self.starts.has(edge_key(*first, *second))
                    || self.ends.has(edge_key(b[b.len() - 1], b[b.len() - 2]))
            }
        }
    }
}

pub(super) fn edge_key(a: u8, b: u8) -> usize {
    usize::from(a) << 8 | usize::from(b)
}

/// The 4-grams of everything not indexed (past a cap), as a one-hash Bloom filter of 2^24 bits
/// (2 MiB, allocated at the first cut). A value with a 4-gram the filter lacks cannot be inside
/// the text that was not indexed, so it is reported as not derivable; only a value that could
/// be there is `BeyondCap`.
#[derive(Debug, Default)]
pub(super) struct Overflow {
    pub(super) bits: Option<Bitmap<{ 1 << (OVERFLOW_BITS - 6) }>>,
    /// Bytes summarised so far; past `OVERFLOW_BUDGET` the filter stops summarising and answers
    /// "may contain" for everything, so time stays bounded too.
    pub(super) summarised: usize,
    pub(super) saturated: bool,
}

/// Bytes of not-indexed text the filter summarises per trace before it gives up telling values
/// apart (every underivable value is then disclosed as not checked).
pub(super) const OVERFLOW_BUDGET: usize = 4 * 1024 * 1024;

/// log2 of the filter's size in bits.
pub(super) const OVERFLOW_BITS: u32 = 24;

impl Overflow {
    pub(super) fn add(&mut self, norm: &str) {
        if self.saturated {
            return;
        }
        self.summarised = self.summarised.saturating_add(norm.len());
        if self.summarised > OVERFLOW_BUDGET {
            self.saturated = true;
            return;
        }
        let bits = self.bits.get_or_insert_with(Bitmap::new);
        for w in norm.as_bytes().windows(4) {
            bits.set(gram_hash(w));
        }
    }

    /// Could this normalised text be inside what was not indexed?
    pub(super) fn may_contain(&self, norm: &str) -> bool {
        if self.saturated {
            return true;
        }
        let Some(bits) = &self.bits else {
            return false;
        };
        norm.len() < 4 || norm.as_bytes().windows(4).all(|w| bits.has(gram_hash(w)))
    }
}

pub(super) fn gram_hash(w: &[u8]) -> usize {
    let x = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    (x.wrapping_mul(0x9E37_79B1) >> (32 - OVERFLOW_BITS)) as usize
}

/// A set of strings kept as 64-bit fingerprints (foldhash's quality hash, fixed seed): a few bytes
/// per entry and no allocation, so the index stays small as a trace grows. A collision (about
/// one in 10^19 per pair) could only make a value read as derivable, never the reverse.
#[derive(Debug, Default)]
pub(super) struct Fingerprints(pub(super) HashSet<u64, BuildHasherDefault<SymbolHasher>>);

/// Scalars, digit strings or numbers observed, as fingerprints. A planned index keeps only the
/// numbers and digit strings its declared values can ask about (`wanted`), and only the
/// scalars that begin or end like one (`edges`): the rest could never change an answer, and
/// those sets stay small however long the trace.
#[derive(Debug, Default)]
pub(super) struct Tracked {
    pub(super) seen: Fingerprints,
    pub(super) wanted: Option<Fingerprints>,
    pub(super) edges: Option<Box<Edges>>,
    /// Bit `n` set when some wanted string is `n` bytes long (63: that long or longer): most
    /// strings observed are not wanted, and their length says so without hashing them.
    pub(super) wanted_lens: u64,
}

impl Tracked {
    pub(super) fn insert(&mut self, s: &str) {
        if !self.may_want(s.len()) || self.edges.as_ref().is_some_and(|e| !e.may_want(s)) {
            return;
        }
        let fp = fingerprint(s);
        if self.wanted.as_ref().is_none_or(|w| w.0.contains(&fp)) {
            self.seen.0.insert(fp);
        }
    }

    pub(super) fn contains(&self, s: &str) -> bool {
        self.seen.contains(s)
    }

    /// Could a string of `len` bytes be kept? (False spares building one that would not be.)
    pub(super) fn may_want(&self, len: usize) -> bool {
        self.wanted.is_none() || self.wanted_lens & (1 << len.min(63)) != 0
    }

    /// Declare a string `contains` may be asked (a planned index).
    pub(super) fn want(&mut self, s: &str) {
        self.wanted.get_or_insert_default().insert(s);
        self.wanted_lens |= 1 << s.len().min(63);
    }
}

impl Fingerprints {
    /// Add; true when it was not there.
    pub(super) fn insert(&mut self, s: &str) -> bool {
        self.0.insert(fingerprint(s))
    }

    pub(super) fn contains(&self, s: &str) -> bool {
        self.0.contains(&fingerprint(s))
    }
}

pub(super) fn fingerprint(s: &str) -> u64 {
    use std::hash::BuildHasher;
    /// Fixed, so a run's answers never depend on a random seed.
    const STATE: foldhash::quality::FixedState =
        foldhash::quality::FixedState::with_seed(0x7472_6163_656c_696e);
    let mut h = STATE.build_hasher();
    h.write(s.as_bytes());
    h.finish()
}

/// Phrases: the normalised texts of several words seen so far, turned into word ids and a
/// word-level automaton on the first phrase query (most traces never ask one), then kept up
/// to date as sources arrive.
#[derive(Debug, Default)]
pub(super) struct Phrases {
    /// Sources waiting for the first phrase query, back to back (raw or normalised);
    /// `pending_ends` cuts them.
    pub(super) pending: String,
    pub(super) pending_ends: Vec<usize>,
    pub(super) words: HashMap<u64, u32, BuildHasherDefault<SymbolHasher>>,
    pub(super) automaton: Option<Automaton<u32>>,
    pub(super) count: usize,
}

impl Phrases {
    /// Keep a source's text of `words` words (`normalized`, or raw: then it is normalised when
    /// indexed); false past `WORD_CAP`.
    pub(super) fn add_source(&mut self, text: &str, words: usize, normalized: bool) -> bool {
        // A phrase has two words or more: a one-word source can never hold one.
        if words < 2 {
            return true;
        }
        if self.count + words > WORD_CAP {
            return false;
        }
        self.count += words + 1;
        if self.automaton.is_some() {
            if normalized {
                self.index(text);
            } else {
                self.index(&normalize_text(text));
            }
        } else {
            self.pending.push_str(text);
            self.pending_ends.push(self.pending.len());
        }
        true
    }

    pub(super) fn index(&mut self, norm: &str) {
        let mut ids = Vec::new();
        for word in norm.split(' ').map(trim_word).filter(|w| !w.is_empty()) {
            let next = self.words.len() as u32;
            ids.push(*self.words.entry(fingerprint(word)).or_insert(next));
        }
        if ids.len() >= 2
            && let Some(a) = &mut self.automaton
        {
            a.add_segment(ids);
        }
    }

    /// Is this normalised value a run of whole observed words?
    pub(super) fn contains(&mut self, norm: &str) -> bool {
        if self.automaton.is_none() {
            self.automaton = Some(Automaton::default());
            let pending = std::mem::take(&mut self.pending);
            let mut start = 0;
            for end in std::mem::take(&mut self.pending_ends) {
                // Normalising is idempotent: raw and normalised sources alike.
                self.index(&normalize_text(&pending[start..end]));
                start = end;
            }
        }
        let mut ids = Vec::new();
        for word in norm.split(' ').map(trim_word).filter(|w| !w.is_empty()) {
            match self.words.get(&fingerprint(word)) {
                Some(id) => ids.push(*id),
                None => return false,
            }
        }
        !ids.is_empty()
            && self
                .automaton
                .as_ref()
                .is_some_and(|a| a.contains(ids.iter().copied()))
    }
}

/// A token without the punctuation that sticks to words in prose (`"Lovelace,"` → `lovelace`).
pub(super) fn trim_word(token: &str) -> &str {
    token.trim_matches(|c: char| {
        matches!(
            c,
            ',' | '.' | ';' | ':' | '!' | '?' | '"' | '\'' | '(' | ')' | '[' | ']' | '{' | '}'
        )
    })
}
