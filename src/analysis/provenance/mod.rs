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
//!
//! Laid out by phase: `observe` grows the index one source at a time, `plan` is the planned
//! search, `stores` the sets the index keeps; the index itself and its queries are here.

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

mod observe;
mod plan;
mod stores;

use plan::Plan;
use stores::{
    Edges, Fingerprints, OVERFLOW_BUDGET, Overflow, Phrases, Recent, Tracked, trim_word,
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
    /// Number tokens, edge punctuation trimmed (`428:4110` of `428:4110:`): matched whole,
    /// never in part.
    whole_numbers: HashSet<String>,
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

    /// `check` for a path the call creates: derivable as a whole, or judged by the directory
    /// it goes in, which the call may make (a `Write` makes missing directories): created in a
    /// directory the agent saw (its nearest existing directory may be any observed ancestor)
    /// or relative to the working directory, the path is the agent's to choose; a bare file
    /// name goes in the working directory.
    pub(crate) fn check_created(&mut self, value: &Value) -> Derivation {
        let whole = self.check(value);
        if whole == Derivation::Derivable {
            return whole;
        }
        let Value::String(s) = value else {
            return whole;
        };
        let norm = normalize_text(s);
        let Some(form) = paths::path_form(&norm, self.home.as_deref()) else {
            let bare = !norm.is_empty()
                && !norm.contains(char::is_whitespace)
                && !norm.contains(['/', '\\', ':']);
            return if bare { Derivation::Derivable } else { whole };
        };
        if form.under_working_directory() {
            return Derivation::Derivable;
        }
        let Substrings::Planned(plan) = &self.substrings else {
            return whole;
        };
        let mut dir = form.parent();
        // A file at a root (`/x`, `c:/x`): its directory is always known.
        if dir.as_ref().is_none_or(paths::PathForm::is_root) {
            return Derivation::Derivable;
        }
        while let Some(d) = dir {
            if !d.is_root() && d.derivable(|p| plan.aligned(p), |_| false) {
                return Derivation::Derivable;
            }
            dir = d.parent();
        }
        whole
    }

    /// `check` for a path named in a directory the agent observed (a conventional file read
    /// there): derivable as a whole, or its directory derivable as a path.
    pub(crate) fn check_in_observed_directory(&mut self, value: &Value) -> Derivation {
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

    /// Is a path value made of parts the agent observed, though not observed as a whole? A
    /// file under a scratch directory (`/tmp/…`); a file in a directory observed as a package
    /// (by its dotted module name: `app/services/x.py` after `import app.services`); a file in
    /// an observed directory whose name is an identifier observed on identifier boundaries
    /// (`src/foo_bar.py` after `import foo_bar`, `components/FooBar.tsx` after `<FooBar />`;
    /// `paths::identifier_stem`); a file named after its observed directory
    /// (`cli/strategy/strategy.go`). Only a planned index answers (the open one says no). The
    /// caller weighs it: a composite the tool said is not there was still made up.
    pub(crate) fn composite_path(&self, value: &Value) -> bool {
        let (Value::String(s), Substrings::Planned(plan)) = (value, &self.substrings) else {
            return false;
        };
        let Some(form) = paths::path_form(&normalize_text(s), self.home.as_deref()) else {
            return false;
        };
        if form.scratch() {
            return true;
        }
        let Some(dir) = form.parent() else {
            return false;
        };
        let aligned = |p: &str| plan.aligned(p);
        if !dir.derivable(aligned, |m| plan.module_found(m)) {
            return false;
        }
        !dir.derivable(aligned, |_| false)
            || form.named_after_its_directory()
            || paths::identifier_stem(s).is_some_and(|stem| plan.module_found(&stem))
    }

    /// Is a rooted path (its directory unknown: the record shows no working directory) one of
    /// its trailing relative paths, of two components at least, observed on path boundaries
    /// (`d:\app\api\requirements.txt` after "fix api/requirements.txt")?
    pub(crate) fn tail_observed(&self, value: &Value) -> bool {
        let (Value::String(s), Substrings::Planned(plan)) = (value, &self.substrings) else {
            return false;
        };
        paths::path_form(&normalize_text(s), self.home.as_deref())
            .is_some_and(|form| form.tails().any(|tail| plan.aligned(&tail)))
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
                Substrings::Open(open) => {
                    open.text.contains(norm.bytes()) || open.whole_numbers.contains(norm)
                }
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

#[cfg(test)]
mod tests;
