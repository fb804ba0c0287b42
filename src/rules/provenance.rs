//! The provenance index (SPEC §5 "Derivability"): what an agent had observed at a point of its
//! trace, grown one source at a time as a rule walks the steps, and the derivability test R3
//! (and R2b, over its own choice of sources) asks of an argument value. It owns the index only:
//! which steps count as sources is the caller's business.
//!
//! Nothing is rescanned per value. Observed text is normalised and cut into whitespace-separated
//! tokens; each *distinct* token goes into a suffix automaton over bytes, so "is this one-token
//! value inside anything observed" costs O(value length), and the automaton grows with the
//! vocabulary, not the volume (a trace that re-reads the same file adds nothing). A value of
//! several tokens (checked only for `provided` fields and R2b's values) must appear as a run of
//! whole words: the sources' word-id streams are kept and a word-level suffix automaton is
//! built from them on the first such query, then extended as the trace advances. A token that
//! is a number is matched by its value and by its digits, not as text: the digits of each
//! number (up to 16) are kept as the set of their runs of 3 or more, longer ones go into the
//! byte automaton; tracked scalars (result leaves and keys, one-token
//! messages) sit in hash sets, and `a + sep + b` splits the value at each separator position and
//! looks both halves up, O(length) lookups.
//!
//! Memory is bounded: one source contributes at most `SOURCE_CAP` bytes, a trace at most
//! `TRACE_CAP` bytes of distinct tokens and digit streams, and `WORD_CAP` words of phrase
//! stream. What a cap leaves out is summarised as a Bloom filter of its 4-grams: a value the
//! index cannot derive is `BeyondCap` (the caller discloses it as not checked) only when it
//! could be inside that text, and plainly not derivable otherwise.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::Value;

use super::automaton::{Automaton, SymbolHasher};
use super::normalize::{
    canonical_json_number, canonical_number, digit_streams, digits, for_each_digit_stream,
    normalize_into, normalize_text, numbers_in, parse_number_str,
};

/// Bytes of one source (a message, a text result, one string in a structured result) indexed;
/// the rest of that source is not.
pub(crate) const SOURCE_CAP: usize = 1024 * 1024;
/// Bytes of distinct tokens and digit streams indexed per trace.
pub(crate) const TRACE_CAP: usize = 4 * 1024 * 1024;
/// Words of phrase stream kept per trace.
pub(crate) const WORD_CAP: usize = 1 << 20;
/// Longest text or leaf string remembered to skip when observed again (bytes): longer ones
/// rarely repeat exactly, and hashing them whole would cost more than it saves.
const DEDUPE_MAX: usize = 64 * 1024;
/// Longest string tracked as a scalar (bytes).
const SCALAR_MAX: usize = 256;
/// Longest value tried as `a + sep + b` (chars).
const SPLIT_MAX: usize = 256;
/// Deepest nesting of a structured result walked for leaves.
const MAX_DEPTH: usize = 64;
/// Separators of `a + sep + b` besides the empty one.
const SEPARATORS: &[char] = &[' ', '-', '/', '_'];

/// What the index says about one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derivation {
    /// Something observed carries it (or it is too short to mean anything).
    Derivable,
    /// Nothing observed carries it.
    NotDerivable,
    /// Nothing indexed carries it, but some observed text was past the index's cap.
    BeyondCap,
}

/// Everything observed so far, indexed.
#[derive(Debug, Default)]
pub(crate) struct Provenance {
    /// Distinct normalised tokens (numbers aside) and long digit streams, one segment each.
    text: Automaton<u8>,
    seen: Fingerprints,
    /// Every run of 3+ digits inside a short digit stream, packed (`pack_digits`).
    digit_substrings: HashSet<u64, BuildHasherDefault<SymbolHasher>>,
    digit_seen: Fingerprints,
    phrases: Phrases,
    scalars: Fingerprints,
    scalar_digits: Fingerprints,
    numbers: Fingerprints,
    /// What was not indexed (past a cap), summarised.
    overflow: Overflow,
    /// A reused buffer for normalised text.
    scratch: String,
    /// Texts and leaf strings observed already: observing one again adds nothing (every part
    /// of the index is a set), so it is skipped (keys and status words repeat in every result).
    texts_seen: Fingerprints,
    leaves_seen: Fingerprints,
}

/// The 4-grams of everything not indexed (past a cap), as a one-hash Bloom filter of 2^24 bits
/// (2 MiB, allocated at the first cut). A value with a 4-gram the filter lacks cannot be inside
/// the text that was not indexed, so it is reported as not derivable; only a value that could
/// be there is `BeyondCap`.
#[derive(Debug, Default)]
struct Overflow {
    bits: Option<Box<[u64]>>,
    /// Bytes summarised so far; past `OVERFLOW_BUDGET` the filter stops summarising and answers
    /// "may contain" for everything, so time stays bounded too.
    summarised: usize,
    saturated: bool,
}

/// Bytes of not-indexed text the filter summarises per trace before it gives up telling values
/// apart (every underivable value is then disclosed as not checked).
const OVERFLOW_BUDGET: usize = 4 * 1024 * 1024;

/// log2 of the filter's size in bits.
const OVERFLOW_BITS: u32 = 24;

impl Overflow {
    fn add(&mut self, norm: &str) {
        if self.saturated {
            return;
        }
        self.summarised = self.summarised.saturating_add(norm.len());
        if self.summarised > OVERFLOW_BUDGET {
            self.saturated = true;
            return;
        }
        let bits = self
            .bits
            .get_or_insert_with(|| vec![0u64; 1 << (OVERFLOW_BITS - 6)].into_boxed_slice());
        for w in norm.as_bytes().windows(4) {
            let h = gram_hash(w);
            bits[(h >> 6) as usize] |= 1 << (h & 63);
        }
    }

    /// Could this normalised text be inside what was not indexed?
    fn may_contain(&self, norm: &str) -> bool {
        if self.saturated {
            return true;
        }
        let Some(bits) = &self.bits else {
            return false;
        };
        norm.len() < 4
            || norm.as_bytes().windows(4).all(|w| {
                let h = gram_hash(w);
                bits[(h >> 6) as usize] & (1 << (h & 63)) != 0
            })
    }
}

fn gram_hash(w: &[u8]) -> u32 {
    let x = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    x.wrapping_mul(0x9E37_79B1) >> (32 - OVERFLOW_BITS)
}

/// A set of strings kept as 64-bit fingerprints (foldhash's quality hash, fixed seed): a few bytes
/// per entry and no allocation, so the index stays small as a trace grows. A collision (about
/// one in 10^19 per pair) could only make a value read as derivable, never the reverse.
#[derive(Debug, Default)]
struct Fingerprints(HashSet<u64, BuildHasherDefault<SymbolHasher>>);

impl Fingerprints {
    /// Add; true when it was not there.
    fn insert(&mut self, s: &str) -> bool {
        self.0.insert(fingerprint(s))
    }

    fn contains(&self, s: &str) -> bool {
        self.0.contains(&fingerprint(s))
    }
}

fn fingerprint(s: &str) -> u64 {
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
struct Phrases {
    /// Sources waiting for the first phrase query, back to back; `pending_ends` cuts them.
    pending: String,
    pending_ends: Vec<usize>,
    words: HashMap<u64, u32, BuildHasherDefault<SymbolHasher>>,
    automaton: Option<Automaton<u32>>,
    count: usize,
}

impl Phrases {
    /// Keep a source's text; false past `WORD_CAP`.
    fn add_source(&mut self, norm: &str) -> bool {
        // A phrase has two words or more: a one-word source can never hold one.
        if !norm.contains(' ') {
            return true;
        }
        let n = memchr::memchr_iter(b' ', norm.as_bytes()).count() + 1;
        if self.count + n > WORD_CAP {
            return false;
        }
        self.count += n + 1;
        if self.automaton.is_some() {
            self.index(norm);
        } else {
            self.pending.push_str(norm);
            self.pending_ends.push(self.pending.len());
        }
        true
    }

    fn index(&mut self, norm: &str) {
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
    fn contains(&mut self, norm: &str) -> bool {
        if self.automaton.is_none() {
            self.automaton = Some(Automaton::default());
            let pending = std::mem::take(&mut self.pending);
            let mut start = 0;
            for end in std::mem::take(&mut self.pending_ends) {
                self.index(&pending[start..end]);
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

impl Provenance {
    /// An empty index.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// True when some observed text was not indexed (past a cap).
    #[cfg(test)]
    pub(crate) fn truncated(&self) -> bool {
        self.overflow.bits.is_some()
    }

    /// Note text that is not indexed: its 4-grams, and those of its numbers' digits.
    fn cut(&mut self, raw: &str) {
        if self.overflow.saturated {
            return;
        }
        // Normalise no more than the filter can still take (cut at a char boundary).
        let mut end = raw
            .len()
            .min(OVERFLOW_BUDGET.saturating_sub(self.overflow.summarised) + 1);
        while !raw.is_char_boundary(end) {
            end -= 1;
        }
        if end < raw.len() {
            self.overflow.saturated = true;
        }
        let raw = &raw[..end];
        let norm = normalize_text(raw);
        self.overflow.add(&norm);
        for stream in digit_streams(raw) {
            self.overflow.add(&stream);
        }
    }

    /// Observe a free text (a user or system message, a tool's text output).
    pub(crate) fn add_text(&mut self, text: &str) {
        if text.len() <= DEDUPE_MAX && !self.texts_seen.insert(text) {
            return;
        }
        let text = self.capped(text);
        let mut norm = std::mem::take(&mut self.scratch);
        normalize_into(text, &mut norm);
        if !norm.is_empty() && norm.len() <= SCALAR_MAX && !norm.contains(' ') {
            self.track_scalar(&norm);
        }
        self.index_text(text, &norm);
        self.scratch = norm;
    }

    /// Observe a tool result's content: a string holding JSON is read as its structure.
    #[cfg(test)]
    pub(crate) fn add_content(&mut self, content: &Value) {
        match crate::model::json_in_string(content) {
            Some(v) => self.add_structured(&v),
            None => self.add_structured(content),
        }
    }

    /// Observe a tool result's structured content (`ToolResult::structured`).
    pub(crate) fn add_structured(&mut self, content: &Value) {
        match content {
            Value::String(s) => self.add_text(s),
            other => self.add_leaves(other, 0),
        }
    }

    fn add_leaves(&mut self, v: &Value, depth: usize) {
        if depth > MAX_DEPTH {
            self.cut(&v.to_string());
            return;
        }
        match v {
            Value::String(s) => self.add_leaf_string(s),
            Value::Number(n) => {
                if let Some(c) = canonical_json_number(n) {
                    self.add_number(&c);
                }
            }
            Value::Array(items) => {
                for i in items {
                    self.add_leaves(i, depth + 1);
                }
            }
            Value::Object(m) => {
                for (k, v) in m {
                    self.add_leaf_string(k);
                    self.add_leaves(v, depth + 1);
                }
            }
            Value::Bool(_) | Value::Null => {}
        }
    }

    fn add_leaf_string(&mut self, s: &str) {
        if s.len() <= DEDUPE_MAX && !self.leaves_seen.insert(s) {
            return;
        }
        let s = self.capped(s);
        let mut norm = std::mem::take(&mut self.scratch);
        normalize_into(s, &mut norm);
        if !norm.is_empty() {
            if norm.len() <= SCALAR_MAX {
                self.track_scalar(&norm);
            }
            if let Some(c) = parse_number_str(s).and_then(canonical_number) {
                self.numbers.insert(&c);
            }
            self.index_text(s, &norm);
        }
        self.scratch = norm;
    }

    fn add_number(&mut self, canonical: &str) {
        self.numbers.insert(canonical);
        self.track_scalar(canonical);
        let d = digits(canonical);
        self.add_digit_stream(&d);
    }

    fn track_scalar(&mut self, norm: &str) {
        if norm.bytes().filter(u8::is_ascii_digit).nth(1).is_some() {
            self.scalar_digits.insert(&digits(norm));
        }
        self.scalars.insert(norm);
    }

    /// Index a text: its distinct tokens, its words for phrases, its numbers by value, and the
    /// digit stream of each number.
    fn index_text(&mut self, raw: &str, norm: &str) {
        if raw.bytes().any(|b| b.is_ascii_digit()) {
            for n in numbers_in(raw) {
                self.numbers.insert(&n);
            }
            for_each_digit_stream(raw, |stream| self.add_digit_stream(stream));
        }
        for token in norm.split(' ').filter(|t| !t.is_empty()) {
            // A number (`1,234.56`, `2024-01-05`) is matched by value and by its digits.
            if !is_number_token(token) {
                self.add_segment(token);
            }
        }
        if !self.phrases.add_source(norm) {
            self.overflow.add(norm);
        }
    }

    /// A number's digits: short ones (most) as the set of their substrings of 3 digits or
    /// more, one hash probe to query and no pointer chasing; longer ones in the automaton.
    fn add_digit_stream(&mut self, stream: &str) {
        if stream.len() < 3 || !self.digit_seen.insert(stream) {
            return;
        }
        if stream.len() > SHORT_DIGITS {
            self.add_segment(stream);
            return;
        }
        let n = stream.len();
        if self.digit_substrings.len() + n * n / 2 > TRACE_CAP {
            self.overflow.add(stream);
            return;
        }
        for i in 0..n {
            for j in i + 3..=n {
                self.digit_substrings.insert(pack_digits(&stream[i..j]));
            }
        }
    }

    /// Is this run of digits inside an observed number's digits?
    fn in_digits(&self, digits: &str) -> bool {
        (digits.len() <= SHORT_DIGITS && self.digit_substrings.contains(&pack_digits(digits)))
            || self.text.contains(digits.bytes())
    }

    /// Add a token or a long digit stream to the automaton, once.
    fn add_segment(&mut self, segment: &str) {
        if !self.seen.insert(segment) {
            return;
        }
        if self.text.symbols() + segment.len() < TRACE_CAP {
            self.text.add_segment(segment.bytes());
        } else {
            self.overflow.add(segment);
        }
    }

    /// The first `SOURCE_CAP` bytes of a source (cut at a char boundary), noting a cut.
    fn capped<'s>(&mut self, s: &'s str) -> &'s str {
        if s.len() <= SOURCE_CAP {
            return s;
        }
        let mut end = SOURCE_CAP;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        // Overlap the cut by a few bytes so no 4-gram across it is lost.
        let mut from = end.saturating_sub(3);
        while !s.is_char_boundary(from) {
            from -= 1;
        }
        self.cut(&s[from..]);
        &s[..end]
    }

    /// Is this scalar derivable from what was observed? Anything but a string or a number is.
    pub(crate) fn check(&mut self, value: &Value) -> Derivation {
        let (text, number) = match value {
            Value::String(s) => (s.clone(), parse_number_str(s).and_then(canonical_number)),
            Value::Number(n) => match canonical_json_number(n) {
                Some(c) => (c.clone(), Some(c)),
                None => return Derivation::Derivable,
            },
            _ => return Derivation::Derivable,
        };
        let norm = normalize_text(&text);
        if self.derivable(&norm, number.as_deref()) {
            return Derivation::Derivable;
        }
        let d = digits(&norm);
        if self.overflow.may_contain(&norm) || (d.len() >= 3 && self.overflow.may_contain(&d)) {
            Derivation::BeyondCap
        } else {
            Derivation::NotDerivable
        }
    }

    fn derivable(&mut self, norm: &str, number: Option<&str>) -> bool {
        let chars = norm.chars().count();
        if chars < 2 || self.scalars.contains(norm) {
            return true;
        }
        if number.is_some_and(|n| self.numbers.contains(n) || self.scalars.contains(n)) {
            return true;
        }
        let d = digits(norm);
        if d.len() >= 2 && self.scalar_digits.contains(&d) {
            return true;
        }
        if chars >= 3 && self.in_text(norm) {
            return true;
        }
        if d.len() >= 3 && self.in_digits(&d) {
            return true;
        }
        chars <= SPLIT_MAX && self.joined(norm)
    }

    /// Is the (normalised) value inside an observed text? One token: a substring of an observed
    /// token. Several: a run of whole observed words (edge punctuation aside).
    fn in_text(&mut self, norm: &str) -> bool {
        if !norm.contains(' ') {
            return self.text.contains(norm.bytes());
        }
        self.phrases.contains(norm)
    }

    /// `value == a + sep + b` for tracked scalars `a`, `b`. Two numbers are never joined
    /// without a separator (`58` and `213` do not make `58213`).
    fn joined(&self, norm: &str) -> bool {
        for (i, c) in norm.char_indices() {
            if i > 0 {
                let (a, b) = norm.split_at(i);
                let both_digits =
                    a.bytes().all(|x| x.is_ascii_digit()) && b.bytes().all(|x| x.is_ascii_digit());
                if !both_digits && self.scalars.contains(a) && self.scalars.contains(b) {
                    return true;
                }
            }
            if SEPARATORS.contains(&c) {
                let (a, b) = (&norm[..i], &norm[i + c.len_utf8()..]);
                if !a.is_empty()
                    && !b.is_empty()
                    && self.scalars.contains(a)
                    && self.scalars.contains(b)
                {
                    return true;
                }
            }
        }
        false
    }
}

/// Digit streams up to this long are indexed as the set of their substrings.
const SHORT_DIGITS: usize = 16;

/// A run of at most `SHORT_DIGITS` digits as one number: its value, and its length in the top
/// byte (so `007` and `7` differ). Exact: 10^16 < 2^54.
fn pack_digits(digits: &str) -> u64 {
    let value = digits
        .bytes()
        .fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0'));
    value | ((digits.len() as u64) << 56)
}

/// A token that is a number as people write them: digits with separators, a sign or a
/// currency (`1,234.56`, `-3`, `$1,200`, `2024-01-05`, `12:30`).
fn is_number_token(token: &str) -> bool {
    token.bytes().any(|b| b.is_ascii_digit())
        && token.chars().all(|c| {
            c.is_ascii_digit()
                || matches!(c, '.' | ',' | '-' | '+' | '/' | ':' | '$' | '€' | '£' | '%')
        })
}

/// A token without the punctuation that sticks to words in prose (`"Lovelace,"` → `lovelace`).
fn trim_word(token: &str) -> &str {
    token.trim_matches(|c: char| {
        matches!(
            c,
            ',' | '.' | ';' | ':' | '!' | '?' | '"' | '\'' | '(' | ')' | '[' | ']' | '{' | '}'
        )
    })
}

#[cfg(test)]
#[path = "provenance_tests.rs"]
mod tests;
