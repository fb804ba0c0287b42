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
//! A rule that knows every value it will ask about before the walk (R3: the trace's arguments)
//! uses a *planned* index instead (`Provenance::planned`): the values' single-token forms and
//! digit strings go into one multi-pattern search (`heads`), and each observed text is searched for
//! them once as it arrives (ASCII text as it is, ignoring case, without normalising it); the
//! runs of a short digit stream are looked up among the values' short digit strings (a bitmap
//! first). A value's string found is retired from the searches, and so is one whose answer is
//! settled another way. Nothing observed is kept for single-token values, so there is no
//! per-trace cap on them, and the answers are the open index's (a test holds the two to each
//! other); only the scalars a value can ask about are kept.
//!
//! Memory is bounded: one source contributes at most `SOURCE_CAP` bytes, a trace at most
//! `TRACE_CAP` bytes of distinct tokens and digit streams, and `WORD_CAP` words of phrase
//! stream. What a cap leaves out is summarised as a Bloom filter of its 4-grams: a value the
//! index cannot derive is `BeyondCap` (the caller discloses it as not checked) only when it
//! could be inside that text, and plainly not derivable otherwise.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::Value;

use crate::model::json_events::EVENTS_MAX_DEPTH;
use crate::model::{JsonEvent, ToolResult};

use super::automaton::{Automaton, SymbolHasher};
use super::bitmap::Bitmap;
use super::heads::Heads;
use super::normalize::{
    DigitPart, DigitScratch, canonical_json_number, canonical_json_number_into,
    canonical_number_str, canonical_number_str_into, digit_streams, digits, digits_into,
    for_each_number_and_stream, is_ascii_space, normalize_into, normalize_text,
};
use super::paths;

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
/// Deepest nesting of a structured result walked for leaves (what is deeper is not indexed);
/// the same depth a result's events stop at.
const MAX_DEPTH: usize = EVENTS_MAX_DEPTH;
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
    /// Substrings of tokens and of numbers' digits: everything observed, or only the values
    /// declared up front.
    substrings: Substrings,
    phrases: Phrases,
    scalars: Tracked,
    scalar_digits: Tracked,
    numbers: Tracked,
    /// What was not indexed (past a cap), summarised.
    overflow: Overflow,
    /// Reused buffers: normalised text, digits or a number, a number, a text's numbers.
    scratch: String,
    digits: String,
    number: String,
    digit_scratch: DigitScratch,
    /// Texts and leaf strings observed lately: observing one again adds nothing (every part
    /// of the index is a set), so it is skipped (keys and status words repeat in every result).
    texts_seen: Recent,
    leaves_seen: Recent,
    /// The home directory `~` stands for in path values (a planned index's context).
    home: Option<String>,
}

/// The fingerprints of strings observed lately, in a table of slots (a slot per fingerprint's
/// low bits, the last one written wins): a string seen again soon after (a key, a status word)
/// is told apart at the cost of one hash. The table starts small and grows with what is
/// written to it up to `RECENT_MAX_SLOTS`, then stays that size however long the trace, so it
/// stays in cache. A string evicted is observed again: more work, and the same answers, but
/// for the caps: a source observed again counts again against the phrase cap (`WORD_CAP`) and,
/// when its search gave up, the overflow budget, so a trace past either reaches it sooner and
/// discloses more values as not checked (never the reverse: nothing is reported that was not).
#[derive(Debug, Default)]
struct Recent {
    slots: Vec<u64>,
    written: usize,
}

/// Slots of a new `Recent` table (8 KiB), and the most it grows to (32 KiB: larger tables,
/// zeroed per trace and competing for cache, made linting the Claude Code corpus slower).
const RECENT_MIN_SLOTS: usize = 1 << 10;
const RECENT_MAX_SLOTS: usize = 1 << 12;

impl Recent {
    /// Note `s`; true when it was not noted lately.
    fn insert(&mut self, s: &str) -> bool {
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
struct Edges {
    /// Bit per (first byte, second byte or 0 for a one-byte string).
    starts: Bitmap<1024>,
    /// Bit per (last byte, 0 for a one-byte string, else the byte before it).
    ends: Bitmap<1024>,
}

impl Edges {
    fn new() -> Self {
        Edges {
            starts: Bitmap::new(),
            ends: Bitmap::new(),
        }
    }

    /// Declare every prefix and suffix of `s` (and `s`) as wanted.
    fn want(&mut self, s: &str) {
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
    fn may_want(&self, s: &str) -> bool {
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

fn edge_key(a: u8, b: u8) -> usize {
    usize::from(a) << 8 | usize::from(b)
}

/// How "inside an observed token" and "inside an observed number's digits" are answered.
#[derive(Debug)]
enum Substrings {
    /// For any value: what was observed, indexed (`Provenance::new`).
    Open(Box<Open>),
    /// For the values declared up front only (`Provenance::planned`): they are searched for in
    /// each source as it arrives, and nothing observed is kept.
    Planned(Box<Plan>),
}

impl Default for Substrings {
    fn default() -> Self {
        Substrings::Open(Box::default())
    }
}

#[derive(Debug, Default)]
struct Open {
    /// Distinct normalised tokens (numbers aside) and long digit streams, one segment each.
    text: Automaton<u8>,
    seen: Fingerprints,
    /// Every run of 3+ digits inside a short digit stream, packed (`pack_digits`).
    digit_substrings: HashSet<u64, BuildHasherDefault<SymbolHasher>>,
    digit_seen: Fingerprints,
}

/// The declared values' single-token forms and digit strings, and which were found so far.
/// Answers exactly as `Open` would, without `Open`'s per-trace cap on distinct text (nothing
/// observed is stored, so there is nothing to bound but the time, linear in what is observed).
#[derive(Debug, Default)]
struct Plan {
    /// Over `patterns`; `None` when there are none.
    searcher: Option<Heads>,
    patterns: HashMap<String, u32, foldhash::quality::RandomState>,
    /// Pattern found inside an observed token that is not a number, or inside a long digit
    /// stream (what `Open::text` holds).
    in_text: Vec<bool>,
    /// Short digit strings (3 to `SHORT_DIGITS`), packed, by id; `short_found[id]` when found
    /// inside a short digit stream (what `Open::digit_substrings` holds).
    short: HashMap<u64, u32, BuildHasherDefault<SymbolHasher>>,
    short_found: Vec<bool>,
    /// The short digit strings' packed forms, hashed (`short_bit`), and their lengths: a run
    /// of a short digit stream is looked up in `short` only when both say it may be one (the
    /// bitmap stays in cache however many values a trace has).
    short_bits: Option<Bitmap<{ 1 << (SHORT_BITS_LOG - 6) }>>,
    short_lens: u32,
    /// A short digit string's id among `patterns` (each is one of them too). Found in a short
    /// digit stream, it is settled for the token search as well: `in_digits` asks either, and
    /// a value that is only digits is derivable by its digits before `in_text` is asked. So
    /// it is retired from the token search, where it would otherwise stay searched for (a
    /// number's digits are found in a digit stream, and never in a token that is not a number).
    short_to_pattern: Vec<u32>,
    /// Some value is several words: sources are kept for phrases (and only then).
    phrases: bool,
    /// By pattern id: what it is searched for (`TOKEN`: a value's form or digits, found
    /// inside a token that is not a number; `PIECE`: a path's piece, found on path boundaries,
    /// `paths`), and whether it was found as a piece.
    roles: Vec<u8>,
    aligned: Vec<bool>,
    /// By pattern id: found as a dotted module name (`MODULE`).
    module_found: Vec<bool>,
}

/// `Plan::roles`: a value's single-token form or digit string.
const TOKEN: u8 = 1;
/// `Plan::roles`: a piece of a path value (`paths::PathForm::pieces`).
const PIECE: u8 = 2;
/// `Plan::roles`: the dotted module name a path value's source file has (`paths`).
const MODULE: u8 = 4;

impl Plan {
    /// The plan for `values`; the numbers and scalars' digit strings `derivable` can ask about
    /// for them go into `numbers` and `scalar_digits`.
    fn new<'v>(
        values: impl IntoIterator<Item = &'v Value>,
        home: Option<&str>,
        numbers: &mut Tracked,
        scalar_digits: &mut Tracked,
        scalars: &mut Edges,
    ) -> Self {
        let mut plan = Plan::default();
        numbers.wanted = Some(Fingerprints::default());
        scalar_digits.wanted = Some(Fingerprints::default());
        for v in values {
            let Some((norm, number)) = query_forms(v) else {
                continue;
            };
            // `derivable` asks the scalars about the value, its number and (`joined`) its
            // prefixes and suffixes.
            scalars.want(&norm);
            if let Some(n) = &number {
                scalars.want(n);
            }
            let chars = norm.chars().count();
            if norm.contains(' ') {
                plan.phrases = true;
            } else if chars >= 3 {
                plan.pattern(&norm);
            }
            if v.is_string()
                && let Some(form) = paths::path_form(&norm, home)
            {
                for piece in form.pieces() {
                    plan.piece(&piece, PIECE);
                }
                for module in form.modules() {
                    plan.piece(&module, MODULE);
                }
            }
            let d = digits(&norm);
            if chars >= 2 {
                if let Some(n) = &number {
                    numbers.want(n);
                }
                if d.len() >= 2 {
                    scalar_digits.want(&d);
                }
            }
            if d.len() >= 3 {
                let pattern = plan.pattern(&d);
                if d.len() <= SHORT_DIGITS {
                    let next = plan.short.len() as u32;
                    let packed = pack_digits(&d);
                    plan.short.entry(packed).or_insert_with(|| {
                        plan.short_to_pattern.push(pattern);
                        next
                    });
                    plan.short_bits
                        .get_or_insert_with(Bitmap::new)
                        .set(short_bit(packed));
                    plan.short_lens |= 1 << d.len();
                }
            }
        }
        if !plan.patterns.is_empty() {
            let mut by_id = vec![""; plan.patterns.len()];
            for (p, id) in &plan.patterns {
                by_id[*id as usize] = p;
            }
            plan.searcher = Some(Heads::new(&by_id));
        }
        plan.in_text = vec![false; plan.patterns.len()];
        plan.aligned = vec![false; plan.patterns.len()];
        plan.module_found = vec![false; plan.patterns.len()];
        plan.short_found = vec![false; plan.short.len()];
        plan
    }

    /// Declare `p` as a value's form or digits; its id.
    fn pattern(&mut self, p: &str) -> u32 {
        self.declare(p, TOKEN)
    }

    /// Declare `p` as a path's piece or module name (`role`); one shorter than a head is never
    /// searched for: it counts as observed (`aligned`).
    fn piece(&mut self, p: &str, role: u8) {
        if p.len() >= 3 {
            self.declare(p, role);
        }
    }

    fn declare(&mut self, p: &str, role: u8) -> u32 {
        let next = self.patterns.len() as u32;
        let id = *self.patterns.entry(p.to_owned()).or_insert(next);
        if id == next {
            self.roles.push(role);
        } else {
            self.roles[id as usize] |= role;
        }
        id
    }

    /// Was this piece of a path value observed on path boundaries?
    fn aligned(&self, piece: &str) -> bool {
        self.found_as(piece, &self.aligned)
    }

    /// Was this module name of a path value observed on module boundaries?
    fn module_found(&self, module: &str) -> bool {
        self.found_as(module, &self.module_found)
    }

    fn found_as(&self, p: &str, found: &[bool]) -> bool {
        if p.len() < 3 {
            return true;
        }
        match self.patterns.get(p) {
            Some(id) => found[*id as usize],
            None => {
                debug_assert!(false, "{p:?} was not declared");
                true
            }
        }
    }

    /// Can a path be derived from the pieces and module names observed so far?
    fn path_derivable(&self, form: &paths::PathForm) -> bool {
        form.derivable(|p| self.aligned(p), |m| self.module_found(m))
    }

    /// Mark the patterns inside the tokens of a text that are not numbers: a normalised text,
    /// or an ASCII one as it is (the search ignores ASCII case; a token ends at the same
    /// whitespace). False when the search compares more than `COMPARED_PER_BYTE` allows (a
    /// hostile text and hostile values): the caller notes the text as not indexed.
    fn scan_tokens(&mut self, text: &str) -> bool {
        self.scan(text, true)
    }

    /// Mark the patterns inside a digit stream: a long one is searched like a token (false as
    /// for `scan_tokens`); in a short one, each run of a length some short digit string has is
    /// looked up (at most 105 runs).
    fn scan_digits(&mut self, stream: &str) -> bool {
        if stream.len() > SHORT_DIGITS {
            return self.scan(stream, false);
        }
        let Some(bits) = &self.short_bits else {
            return true;
        };
        // Every run of 3 digits or more (at most 16 · 15 / 2 of them), packed as it grows.
        let digits = stream.as_bytes();
        for from in 0..digits.len().saturating_sub(2) {
            let mut value = 0u64;
            for (len, d) in (1u32..).zip(&digits[from..]) {
                value = value * 10 + u64::from(d - b'0');
                if len < 3 || self.short_lens & (1 << len) == 0 {
                    continue;
                }
                let packed = value | (u64::from(len) << 56);
                if !bits.has(short_bit(packed)) {
                    continue;
                }
                if let Some(id) = self.short.get(&packed) {
                    let id = *id as usize;
                    let pattern = self.short_to_pattern[id] as usize;
                    // A pattern that is also a path's piece stays searched for as a piece.
                    let settled = (self.roles[pattern] & PIECE == 0 || self.aligned[pattern])
                        && (self.roles[pattern] & MODULE == 0 || self.module_found[pattern]);
                    if !std::mem::replace(&mut self.short_found[id], true)
                        && settled
                        && let Some(tokens) = &mut self.searcher
                    {
                        tokens.retire(pattern);
                    }
                }
            }
        }
        true
    }

    /// Every match of a pattern in `text` (overlapping ones too), inside a token that is not a
    /// number when `tokens`: nothing inside a number token counts.
    fn scan(&mut self, text: &str, tokens: bool) -> bool {
        let Some(search) = &mut self.searcher else {
            return true;
        };
        let bytes = text.as_bytes();
        let mut budget = search_budget(text);
        let (in_text, aligned, module_found, roles) = (
            &mut self.in_text,
            &mut self.aligned,
            &mut self.module_found,
            &self.roles,
        );
        // The token of the last match, and whether it is a number: a token is classified once.
        let mut token = (0, 0, false);
        search.search(bytes, &mut budget, |id, start, end| {
            // Retired once found in every role it has.
            let mut settled = true;
            if roles[id] & PIECE != 0 && !aligned[id] {
                let absolute = matches!(bytes[start], b'/' | b'\\');
                if tokens && paths::aligned(bytes, start, end, absolute) {
                    aligned[id] = true;
                } else {
                    settled = false;
                }
            }
            if roles[id] & MODULE != 0 && !module_found[id] {
                if tokens && paths::aligned_module(bytes, start, end) {
                    module_found[id] = true;
                } else {
                    settled = false;
                }
            }
            if roles[id] & TOKEN == 0 || in_text[id] {
                return settled;
            }
            if tokens && !(token.0 <= start && end <= token.1) {
                // Patterns hold no whitespace: a match lies inside one token.
                let from = bytes[..start]
                    .iter()
                    .rposition(|b| is_ascii_space(*b))
                    .map_or(0, |i| i + 1);
                let to = bytes[end..]
                    .iter()
                    .position(|b| is_ascii_space(*b))
                    .map_or(bytes.len(), |i| end + i);
                token = (from, to, is_number_token(&text[from..to]));
            }
            if tokens && token.2 {
                return false;
            }
            in_text[id] = true;
            settled
        })
    }

    fn in_text(&self, pattern: &str) -> bool {
        match self.patterns.get(pattern) {
            Some(id) => self.in_text[*id as usize],
            // Not declared: a caller's mistake. Never report what was not searched for.
            None => {
                debug_assert!(false, "{pattern:?} was not declared");
                true
            }
        }
    }

    fn in_short_digits(&self, digits: &str) -> bool {
        // Longer runs are never packed (they would not fit): as `Open::digit_substrings`.
        digits.len() <= SHORT_DIGITS
            && self
                .short
                .get(&pack_digits(digits))
                .is_some_and(|id| self.short_found[*id as usize])
    }
}

/// The 4-grams of everything not indexed (past a cap), as a one-hash Bloom filter of 2^24 bits
/// (2 MiB, allocated at the first cut). A value with a 4-gram the filter lacks cannot be inside
/// the text that was not indexed, so it is reported as not derivable; only a value that could
/// be there is `BeyondCap`.
#[derive(Debug, Default)]
struct Overflow {
    bits: Option<Bitmap<{ 1 << (OVERFLOW_BITS - 6) }>>,
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
        let bits = self.bits.get_or_insert_with(Bitmap::new);
        for w in norm.as_bytes().windows(4) {
            bits.set(gram_hash(w));
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
        norm.len() < 4 || norm.as_bytes().windows(4).all(|w| bits.has(gram_hash(w)))
    }
}

fn gram_hash(w: &[u8]) -> usize {
    let x = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    (x.wrapping_mul(0x9E37_79B1) >> (32 - OVERFLOW_BITS)) as usize
}

/// A set of strings kept as 64-bit fingerprints (foldhash's quality hash, fixed seed): a few bytes
/// per entry and no allocation, so the index stays small as a trace grows. A collision (about
/// one in 10^19 per pair) could only make a value read as derivable, never the reverse.
#[derive(Debug, Default)]
struct Fingerprints(HashSet<u64, BuildHasherDefault<SymbolHasher>>);

/// Scalars, digit strings or numbers observed, as fingerprints. A planned index keeps only the
/// numbers and digit strings its declared values can ask about (`wanted`), and only the
/// scalars that begin or end like one (`edges`): the rest could never change an answer, and
/// those sets stay small however long the trace.
#[derive(Debug, Default)]
struct Tracked {
    seen: Fingerprints,
    wanted: Option<Fingerprints>,
    edges: Option<Box<Edges>>,
    /// Bit `n` set when some wanted string is `n` bytes long (63: that long or longer): most
    /// strings observed are not wanted, and their length says so without hashing them.
    wanted_lens: u64,
}

impl Tracked {
    fn insert(&mut self, s: &str) {
        if !self.may_want(s.len()) || self.edges.as_ref().is_some_and(|e| !e.may_want(s)) {
            return;
        }
        let fp = fingerprint(s);
        if self.wanted.as_ref().is_none_or(|w| w.0.contains(&fp)) {
            self.seen.0.insert(fp);
        }
    }

    fn contains(&self, s: &str) -> bool {
        self.seen.contains(s)
    }

    /// Could a string of `len` bytes be kept? (False spares building one that would not be.)
    fn may_want(&self, len: usize) -> bool {
        self.wanted.is_none() || self.wanted_lens & (1 << len.min(63)) != 0
    }

    /// Declare a string `contains` may be asked (a planned index).
    fn want(&mut self, s: &str) {
        self.wanted.get_or_insert_default().insert(s);
        self.wanted_lens |= 1 << s.len().min(63);
    }
}

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
    /// Sources waiting for the first phrase query, back to back (raw or normalised);
    /// `pending_ends` cuts them.
    pending: String,
    pending_ends: Vec<usize>,
    words: HashMap<u64, u32, BuildHasherDefault<SymbolHasher>>,
    automaton: Option<Automaton<u32>>,
    count: usize,
}

impl Phrases {
    /// Keep a source's text of `words` words (`normalized`, or raw: then it is normalised when
    /// indexed); false past `WORD_CAP`.
    fn add_source(&mut self, text: &str, words: usize, normalized: bool) -> bool {
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

impl Provenance {
    /// An empty index, for any value.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// An empty index that will only be asked about these values (`check` of any other value
    /// is a bug). Each source is searched for them as it arrives instead of being indexed:
    /// much less work when the values are known before the walk (R3's are the trace's
    /// arguments).
    #[cfg(test)]
    pub(crate) fn planned<'v>(values: impl IntoIterator<Item = &'v Value>) -> Self {
        Self::planned_at(values, None)
    }

    /// `planned`, with the home directory a path value's `~` stands for (normalised). String
    /// values that look like paths are also derived as paths (`paths`).
    pub(crate) fn planned_at<'v>(
        values: impl IntoIterator<Item = &'v Value>,
        home: Option<String>,
    ) -> Self {
        let mut index = Self {
            home,
            ..Self::default()
        };
        let mut edges = Box::new(Edges::new());
        let plan = Plan::new(
            values,
            index.home.as_deref(),
            &mut index.numbers,
            &mut index.scalar_digits,
            &mut edges,
        );
        index.scalars.edges = Some(edges);
        index.substrings = Substrings::Planned(Box::new(plan));
        index
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
        self.observe(text, false);
    }

    /// Observe a tool result's content: a string holding JSON is read as its structure.
    #[cfg(test)]
    pub(crate) fn add_content(&mut self, content: &Value) {
        match crate::model::json_in_string(content) {
            Some(v) => self.add_structured(&v),
            None => self.add_structured(content),
        }
    }

    /// Observe a tool result's content, as `add_structured(r.structured())` would (a repeated
    /// key of a JSON object is observed each time it is written): a string holding JSON is
    /// walked as its events, without building its tree.
    pub(crate) fn add_result(&mut self, r: &ToolResult) {
        let Some(events) = r.json_events() else {
            self.add_structured(r.structured());
            return;
        };
        for e in events {
            match e {
                JsonEvent::Key(s) | JsonEvent::Str(s) => self.add_leaf_string(s),
                JsonEvent::Number(n) => self.add_json_number(n),
                JsonEvent::Deep(v) => self.cut(&v.to_string()),
                JsonEvent::Bool(_)
                | JsonEvent::Null
                | JsonEvent::Open { .. }
                | JsonEvent::Close => {}
            }
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
            Value::Number(n) => self.add_json_number(n),
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

    fn add_json_number(&mut self, n: &serde_json::Number) {
        let mut c = std::mem::take(&mut self.number);
        if canonical_json_number_into(n, &mut c) {
            self.add_number(&c);
        }
        self.number = c;
    }

    fn add_leaf_string(&mut self, s: &str) {
        if s.len() <= DEDUPE_MAX && !self.leaves_seen.insert(s) {
            return;
        }
        let s = self.capped(s);
        self.observe(s, true);
    }

    /// Observe one source, deduplicated and capped already: a free text, or a `leaf` string
    /// of a structured result. Tracked as a scalar when short (a leaf) or one token (a text);
    /// a leaf that is a number, by its value; then its numbers, tokens and words indexed. A
    /// planned index reads ASCII text as it is (its searches ignore ASCII case, and tokens end
    /// at the same whitespace), so such text is normalised only when short enough to be a
    /// scalar; anything else is normalised first.
    fn observe(&mut self, raw: &str, leaf: bool) {
        let mut norm = std::mem::take(&mut self.scratch);
        let as_is = matches!(self.substrings, Substrings::Planned(_)) && raw.is_ascii();
        let (words, len) = if as_is {
            norm.clear();
            ascii_shape(raw)
        } else {
            normalize_into(raw, &mut norm);
            let spaces = memchr::memchr_iter(b' ', norm.as_bytes()).count();
            (usize::from(!norm.is_empty()) * (spaces + 1), norm.len())
        };
        if words > 0 {
            if len <= SCALAR_MAX && (leaf || words == 1) {
                if as_is && words == 1 && len == raw.len() {
                    // No whitespace at all: normalising is lower-casing.
                    norm.push_str(raw);
                    norm.make_ascii_lowercase();
                } else if as_is {
                    normalize_into(raw, &mut norm);
                }
                self.track_scalar(&norm);
            }
            if leaf {
                self.leaf_number(raw);
            }
            self.index_numbers(raw);
            self.index_tokens(if as_is { raw } else { &norm }, raw);
            if self.wants_phrases() {
                let text = if as_is { raw } else { &norm };
                if !self.phrases.add_source(text, words, !as_is) {
                    self.overflow.add(&normalize_text(text));
                }
            }
        }
        self.scratch = norm;
    }

    fn add_number(&mut self, canonical: &str) {
        self.numbers.insert(canonical);
        self.track_scalar(canonical);
        let mut d = std::mem::take(&mut self.digits);
        digits_into(canonical, &mut d);
        self.add_digit_stream(&d);
        self.digits = d;
    }

    fn track_scalar(&mut self, norm: &str) {
        let digits = count_bytes(norm.as_bytes(), u8::is_ascii_digit);
        if digits >= 2 && self.scalar_digits.may_want(digits) {
            let mut d = std::mem::take(&mut self.digits);
            digits_into(norm, &mut d);
            self.scalar_digits.insert(&d);
            self.digits = d;
        }
        self.scalars.insert(norm);
    }

    /// A leaf string that is exactly one number, by its value.
    fn leaf_number(&mut self, raw: &str) {
        let mut c = std::mem::take(&mut self.digits);
        if canonical_number_str_into(raw, &mut c) {
            self.numbers.insert(&c);
        }
        self.digits = c;
    }

    /// A text's numbers by value, and the digit stream of each.
    fn index_numbers(&mut self, raw: &str) {
        // Many texts have no digit at all: a test the compiler vectorises says so quickly.
        if !raw
            .as_bytes()
            .chunks(64)
            .any(|c| c.iter().fold(false, |any, b| any | b.is_ascii_digit()))
        {
            return;
        }
        let mut scratch = std::mem::take(&mut self.digit_scratch);
        for_each_number_and_stream(raw, &mut scratch, |part| match part {
            DigitPart::Number(n) => {
                self.numbers.insert(n);
            }
            DigitPart::Stream(stream) => self.add_digit_stream(stream),
        });
        self.digit_scratch = scratch;
    }

    /// Are sources kept for phrase queries? Always, unless the values are declared and none is
    /// several words (then the phrase cap cannot make a value read as past the index's cap).
    fn wants_phrases(&self) -> bool {
        match &self.substrings {
            Substrings::Open(_) => true,
            Substrings::Planned(plan) => plan.phrases,
        }
    }

    /// The tokens of a text (normalised, or ASCII as it is for a planned index) that are not
    /// numbers: searched for the planned values, or each distinct one added to the automaton.
    /// `raw` is what a planned search that gives up notes as not indexed.
    fn index_tokens(&mut self, text: &str, raw: &str) {
        if let Substrings::Planned(plan) = &mut self.substrings {
            if !plan.scan_tokens(text) {
                self.cut(raw);
            }
            return;
        }
        for token in text.split(' ').filter(|t| !t.is_empty()) {
            // A number (`1,234.56`, `2024-01-05`) is matched by value and by its digits.
            if !is_number_token(token) {
                self.add_segment(token);
            }
        }
    }

    /// A number's digits: short ones (most) as the set of their substrings of 3 digits or
    /// more, one hash probe to query and no pointer chasing; longer ones in the automaton.
    fn add_digit_stream(&mut self, stream: &str) {
        if stream.len() < 3 {
            return;
        }
        let open = match &mut self.substrings {
            Substrings::Planned(plan) => {
                if !plan.scan_digits(stream) {
                    self.overflow.add(stream);
                }
                return;
            }
            Substrings::Open(open) => open,
        };
        if !open.digit_seen.insert(stream) {
            return;
        }
        if stream.len() > SHORT_DIGITS {
            self.add_segment(stream);
            return;
        }
        let n = stream.len();
        if open.digit_substrings.len() + n * n / 2 > TRACE_CAP {
            self.overflow.add(stream);
            return;
        }
        for i in 0..n {
            for j in i + 3..=n {
                open.digit_substrings.insert(pack_digits(&stream[i..j]));
            }
        }
    }

    /// Is this run of digits inside an observed number's digits?
    fn in_digits(&self, digits: &str) -> bool {
        match &self.substrings {
            Substrings::Open(open) => {
                (digits.len() <= SHORT_DIGITS
                    && open.digit_substrings.contains(&pack_digits(digits)))
                    || open.text.contains(digits.bytes())
            }
            Substrings::Planned(plan) => plan.in_short_digits(digits) || plan.in_text(digits),
        }
    }

    /// Add a token or a long digit stream to the automaton, once.
    fn add_segment(&mut self, segment: &str) {
        let Substrings::Open(open) = &mut self.substrings else {
            return;
        };
        if !open.seen.insert(segment) {
            return;
        }
        if open.text.symbols() + segment.len() < TRACE_CAP {
            open.text.add_segment(segment.bytes());
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
        self.check_as(value, true)
    }

    /// `check` without deriving paths as paths (what an open index answers).
    #[cfg(test)]
    pub(crate) fn check_as_text(&mut self, value: &Value) -> Derivation {
        self.check_as(value, false)
    }

    fn check_as(&mut self, value: &Value, as_path: bool) -> Derivation {
        let Some((norm, number)) = query_forms(value) else {
            return Derivation::Derivable;
        };
        if self.derivable(&norm, number.as_deref()) {
            return Derivation::Derivable;
        }
        if as_path
            && value.is_string()
            && let Substrings::Planned(plan) = &self.substrings
            && let Some(form) = paths::path_form(&norm, self.home.as_deref())
            && plan.path_derivable(&form)
        {
            return Derivation::Derivable;
        }
        let d = digits(&norm);
        if self.overflow.may_contain(&norm) || (d.len() >= 3 && self.overflow.may_contain(&d)) {
            Derivation::BeyondCap
        } else {
            Derivation::NotDerivable
        }
    }

    /// `check` for a path the call creates: derivable as a whole, or its directory derivable
    /// as a path (the file name is the agent's to choose).
    pub(crate) fn check_created(&mut self, value: &Value) -> Derivation {
        let whole = self.check(value);
        if whole == Derivation::Derivable {
            return whole;
        }
        let Value::String(s) = value else {
            return whole;
        };
        let Some(form) = paths::path_form(&normalize_text(s), self.home.as_deref()) else {
            return whole;
        };
        match (&self.substrings, form.parent()) {
            (_, None) => Derivation::Derivable,
            // A directory is not a module: only its pieces count.
            (Substrings::Planned(plan), Some(dir))
                if dir.derivable(|p| plan.aligned(p), |_| false) =>
            {
                Derivation::Derivable
            }
            _ => whole,
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
            return match &self.substrings {
                Substrings::Open(open) => open.text.contains(norm.bytes()),
                Substrings::Planned(plan) => plan.in_text(norm),
            };
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

/// Bytes a planned search compares per byte of a text before it gives up on the text (past
/// this, many self-similar values over a self-similar text would cost quadratic time);
/// ordinary text needs far fewer than one.
const COMPARED_PER_BYTE: usize = 32;

/// What a planned search may compare (bytes) while searching `text`.
fn search_budget(text: &str) -> usize {
    COMPARED_PER_BYTE * text.len() + 4096
}

/// An ASCII text's number of whitespace-separated words, and the length of its normalised
/// form, without normalising it.
fn ascii_shape(text: &str) -> (usize, usize) {
    // A word starts at a non-space after a space (or at the start); the normalised text is
    // the non-spaces, one space between words. Counted in blocks of 128 bytes with byte-wide
    // counters, which the compiler vectorises (`count_bytes`).
    const BLOCK: usize = 128;
    let bytes = text.as_bytes();
    let Some(first) = bytes.first() else {
        return (0, 0);
    };
    let mut words = usize::from(!is_ascii_space(*first));
    for (a, b) in bytes.chunks(BLOCK).zip(bytes[1..].chunks(BLOCK)) {
        let starts = a.iter().zip(b).fold(0u8, |n, (a, b)| {
            n + u8::from(is_ascii_space(*a) & !is_ascii_space(*b))
        });
        words += usize::from(starts);
    }
    let len = count_bytes(bytes, |b| !is_ascii_space(*b));
    (words, len + words.saturating_sub(1))
}

/// The bytes for which `pred` holds, counted in blocks of 128 with a byte-wide counter (it
/// cannot wrap), which the compiler vectorises.
fn count_bytes(bytes: &[u8], pred: impl Fn(&u8) -> bool) -> usize {
    bytes
        .chunks(128)
        .map(|c| usize::from(c.iter().fold(0u8, |n, b| n + u8::from(pred(b)))))
        .sum()
}

/// A value's normalised text and, when it reads as a number, its canonical value; `None` for
/// what is always derivable (not a string or a number, or a number without a canonical form).
fn query_forms(value: &Value) -> Option<(String, Option<String>)> {
    match value {
        Value::String(s) => Some((normalize_text(s), canonical_number_str(s))),
        Value::Number(n) => {
            let c = canonical_json_number(n)?;
            Some((normalize_text(&c), Some(c)))
        }
        _ => None,
    }
}

/// Digit streams up to this long are indexed as the set of their substrings.
const SHORT_DIGITS: usize = 16;

/// log2 of the bits of a planned index's bitmap of short digit strings (8 KiB).
const SHORT_BITS_LOG: u32 = 16;

/// Where a packed short digit string falls in that bitmap.
fn short_bit(packed: u64) -> usize {
    (packed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SHORT_BITS_LOG)) as usize
}

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
