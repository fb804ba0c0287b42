//! The provenance index (SPEC §5 "Derivability"): what an agent had observed at a point of its
//! trace, grown one source at a time as a rule walks the steps, and the derivability test R3
//! (and R2b, over its own choice of sources) asks of an argument value. It owns the index only:
//! which steps count as sources is the caller's business.
//!
//! The substring tests never rescan earlier text: normalised source text and the digit streams
//! of numbers each go into an incrementally extended suffix automaton (over UTF-8 bytes, which
//! keeps substring answers exact for valid UTF-8), so "is this value inside anything observed"
//! costs O(value length) whatever the trace's size. Tracked scalars (result leaves and keys,
//! single-token messages) sit in hash sets; `a + sep + b` splits the value at each separator
//! position and looks both halves up, O(length) lookups.
//!
//! Memory is bounded: one source contributes at most `SOURCE_CAP` bytes of text, and one trace
//! at most `TRACE_CAP` bytes per automaton. Past a cap the index says so (`truncated`), and a
//! value it cannot derive is reported as `BeyondCap` instead of "not derivable".

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use super::normalize::{
    canonical_json_number, canonical_number, digit_streams, digits, normalize_text, numbers_in,
    parse_number_str, structured,
};

/// Bytes of one source (a message, a text result, one string in a structured result) indexed
/// for substring search; the rest of that source is not.
pub(crate) const SOURCE_CAP: usize = 64 * 1024;
/// Bytes indexed per trace in each automaton (text, digits), about 40–60 bytes of memory each.
pub(crate) const TRACE_CAP: usize = 4 * 1024 * 1024;
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
    text: Automaton,
    digits: Automaton,
    scalars: HashSet<String>,
    scalar_digits: HashSet<String>,
    numbers: HashSet<String>,
    truncated: bool,
}

impl Provenance {
    /// An empty index.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// True when some observed text was not indexed (past `SOURCE_CAP` or `TRACE_CAP`).
    pub(crate) fn truncated(&self) -> bool {
        self.truncated || self.text.full || self.digits.full
    }

    /// Observe a free text (a user or system message, a tool's text output).
    pub(crate) fn add_text(&mut self, text: &str) {
        let text = self.capped(text);
        let norm = normalize_text(text);
        if !norm.is_empty() && norm.len() <= SCALAR_MAX && !norm.contains(' ') {
            self.track_scalar(&norm);
        }
        self.index_text(text, &norm);
    }

    /// Observe a tool result's content: a string holding JSON is read as its structure.
    pub(crate) fn add_content(&mut self, content: &Value) {
        let content = structured(content);
        match content.as_ref() {
            Value::String(s) => self.add_text(s),
            other => self.add_leaves(other, 0),
        }
    }

    fn add_leaves(&mut self, v: &Value, depth: usize) {
        if depth > MAX_DEPTH {
            self.truncated = true;
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
        let s = self.capped(s);
        let norm = normalize_text(s);
        if norm.is_empty() {
            return;
        }
        if norm.len() <= SCALAR_MAX {
            self.track_scalar(&norm);
        }
        if let Some(c) = parse_number_str(s).and_then(canonical_number) {
            self.numbers.insert(c);
        }
        self.index_text(s, &norm);
    }

    fn add_number(&mut self, canonical: &str) {
        self.numbers.insert(canonical.to_owned());
        self.track_scalar(canonical);
        let d = digits(canonical);
        if d.len() >= 3 {
            self.digits.add_segment(d.as_bytes());
        }
    }

    fn track_scalar(&mut self, norm: &str) {
        let d = digits(norm);
        if d.len() >= 2 {
            self.scalar_digits.insert(d);
        }
        self.scalars.insert(norm.to_owned());
    }

    /// Index a text: its normalised form for substring search, its numbers by value, and the
    /// digit stream of each number.
    fn index_text(&mut self, raw: &str, norm: &str) {
        for n in numbers_in(raw) {
            self.numbers.insert(n);
        }
        for stream in digit_streams(raw) {
            if stream.len() >= 3 {
                self.digits.add_segment(stream.as_bytes());
            }
        }
        if norm.len() >= 3 {
            self.text.add_segment(norm.as_bytes());
        }
    }

    /// The first `SOURCE_CAP` bytes of a source (cut at a char boundary), noting a cut.
    fn capped<'s>(&mut self, s: &'s str) -> &'s str {
        if s.len() <= SOURCE_CAP {
            return s;
        }
        self.truncated = true;
        let mut end = SOURCE_CAP;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        &s[..end]
    }

    /// Is this scalar derivable from what was observed? Anything but a string or a number is.
    pub(crate) fn check(&self, value: &Value) -> Derivation {
        let (text, number) = match value {
            Value::String(s) => (s.clone(), parse_number_str(s).and_then(canonical_number)),
            Value::Number(n) => match canonical_json_number(n) {
                Some(c) => (c.clone(), Some(c)),
                None => return Derivation::Derivable,
            },
            _ => return Derivation::Derivable,
        };
        if self.derivable(&normalize_text(&text), number.as_deref()) {
            Derivation::Derivable
        } else if self.truncated() {
            Derivation::BeyondCap
        } else {
            Derivation::NotDerivable
        }
    }

    fn derivable(&self, norm: &str, number: Option<&str>) -> bool {
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
        if chars >= 3 && self.text.contains(norm.as_bytes()) {
            return true;
        }
        if d.len() >= 3 && self.digits.contains(d.as_bytes()) {
            return true;
        }
        chars <= SPLIT_MAX && self.joined(norm)
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

/// No state / no edge.
const NONE: u32 = u32::MAX;
/// Byte between two segments; never part of valid UTF-8, so no query can match across it.
const SEGMENT_END: u8 = 0xFF;

#[derive(Debug, Clone, Copy)]
struct Edge {
    to: u32,
    next: u32,
    byte: u8,
}

/// A suffix automaton over segments of bytes, extended in place. The root's transitions are a
/// dense table (it has the most); other states keep a short linked list of edges.
#[derive(Debug)]
struct Automaton {
    len: Vec<u32>,
    link: Vec<u32>,
    head: Vec<u32>,
    edges: Vec<Edge>,
    root: Box<[u32; 256]>,
    last: u32,
    indexed: usize,
    full: bool,
    seen: HashSet<u64>,
}

impl Default for Automaton {
    fn default() -> Self {
        Self {
            len: vec![0],
            link: vec![NONE],
            head: vec![NONE],
            edges: Vec::new(),
            root: Box::new([NONE; 256]),
            last: 0,
            indexed: 0,
            full: false,
            seen: HashSet::new(),
        }
    }
}

impl Automaton {
    /// Add one segment (cut to what the trace's budget allows); an identical segment seen
    /// before adds nothing new and is skipped.
    fn add_segment(&mut self, bytes: &[u8]) {
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        if !self.seen.insert(h.finish()) {
            return;
        }
        let room = TRACE_CAP.saturating_sub(self.indexed);
        let bytes = if bytes.len() > room {
            self.full = true;
            &bytes[..room]
        } else {
            bytes
        };
        if bytes.is_empty() {
            return;
        }
        self.indexed += bytes.len() + 1;
        for &b in bytes {
            self.extend(b);
        }
        self.extend(SEGMENT_END);
    }

    /// Is `pattern` a substring of some segment?
    fn contains(&self, pattern: &[u8]) -> bool {
        let mut s = 0u32;
        for &b in pattern {
            if b == SEGMENT_END {
                return false;
            }
            s = self.get(s, b);
            if s == NONE {
                return false;
            }
        }
        true
    }

    fn get(&self, state: u32, byte: u8) -> u32 {
        if state == 0 {
            return self.root[usize::from(byte)];
        }
        let mut e = self.head[state as usize];
        while e != NONE {
            let edge = self.edges[e as usize];
            if edge.byte == byte {
                return edge.to;
            }
            e = edge.next;
        }
        NONE
    }

    fn set(&mut self, state: u32, byte: u8, to: u32) {
        if state == 0 {
            self.root[usize::from(byte)] = to;
            return;
        }
        let mut e = self.head[state as usize];
        while e != NONE {
            let edge = &mut self.edges[e as usize];
            if edge.byte == byte {
                edge.to = to;
                return;
            }
            e = edge.next;
        }
        self.push_edge(state, byte, to);
    }

    fn push_edge(&mut self, state: u32, byte: u8, to: u32) {
        let next = self.head[state as usize];
        self.head[state as usize] = self.edges.len() as u32;
        self.edges.push(Edge { to, next, byte });
    }

    fn new_state(&mut self, len: u32, link: u32) -> u32 {
        self.len.push(len);
        self.link.push(link);
        self.head.push(NONE);
        (self.len.len() - 1) as u32
    }

    /// The textbook online construction (Blumer et al.), one byte at a time.
    fn extend(&mut self, byte: u8) {
        let cur = self.new_state(self.len[self.last as usize] + 1, NONE);
        let mut p = self.last;
        while p != NONE && self.get(p, byte) == NONE {
            if p == 0 {
                self.root[usize::from(byte)] = cur;
            } else {
                self.push_edge(p, byte, cur);
            }
            p = self.link[p as usize];
        }
        if p == NONE {
            self.link[cur as usize] = 0;
        } else {
            let q = self.get(p, byte);
            if self.len[p as usize] + 1 == self.len[q as usize] {
                self.link[cur as usize] = q;
            } else {
                let clone = self.new_state(self.len[p as usize] + 1, self.link[q as usize]);
                let mut e = self.head[q as usize];
                while e != NONE {
                    let edge = self.edges[e as usize];
                    self.push_edge(clone, edge.byte, edge.to);
                    e = edge.next;
                }
                while p != NONE && self.get(p, byte) == q {
                    self.set(p, byte, clone);
                    p = self.link[p as usize];
                }
                self.link[q as usize] = clone;
                self.link[cur as usize] = clone;
            }
        }
        self.last = cur;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn automaton_agrees_with_naive_substring_search() {
        // A small deterministic generator over a 3-letter alphabet stresses cloning.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut a = Automaton::default();
        let mut segments: Vec<Vec<u8>> = Vec::new();
        for _ in 0..40 {
            let n = (next() % 30) as usize;
            let seg: Vec<u8> = (0..n).map(|_| b"abc"[(next() % 3) as usize]).collect();
            a.add_segment(&seg);
            segments.push(seg);
            for _ in 0..50 {
                let m = 1 + (next() % 6) as usize;
                let pat: Vec<u8> = (0..m).map(|_| b"abc"[(next() % 3) as usize]).collect();
                let naive = segments.iter().any(|s| s.windows(m).any(|w| w == pat));
                assert_eq!(a.contains(&pat), naive, "{:?}", String::from_utf8(pat));
            }
        }
    }

    fn derivable(p: &Provenance, v: Value) -> bool {
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
        assert!(derivable(&p, json!("x")));
        assert!(derivable(&p, json!(7)));
        // Equal to a tracked scalar, case-folded.
        assert!(derivable(&p, json!("LOVELACE")));
        assert!(derivable(&p, json!("report.pdf")));
        // Digit string equal to a tracked scalar's.
        assert!(derivable(&p, json!("CUST-4521")));
        // Substring of a source text (≥ 3 chars), case-folded.
        assert!(derivable(&p, json!("ord-58213")));
        assert!(derivable(&p, json!("STRASSE")));
        // Digit string substring of one number's digits (≥ 3).
        assert!(derivable(&p, json!("5551234567")));
        assert!(derivable(&p, json!("x123456")));
        // Numbers compare by value.
        assert!(derivable(&p, json!(1200.0)));
        assert!(derivable(&p, json!("1234.56")));
        assert!(derivable(&p, json!(1234.56)));
        // a + sep + b for tracked scalars.
        assert!(derivable(&p, json!("Ada Lovelace")));
        assert!(derivable(&p, json!("ada_lovelace")));
        assert!(derivable(&p, json!("AdaLovelace")));
        // Not derivable: made up, two numbers run together, a 2-digit fragment.
        assert!(!derivable(&p, json!("ORD-99999")));
        assert!(!derivable(&p, json!(4906)));
        assert!(!derivable(&p, json!("qq")));
        let mut q = Provenance::new();
        q.add_content(&json!({"total": 58, "qty": 213}));
        assert!(!derivable(&q, json!("58213")));
        assert!(derivable(&q, json!("58-213")));
        assert!(!derivable(&q, json!("ORD-58213")));
    }

    #[test]
    fn json_text_results_are_read_as_structure() {
        let mut p = Provenance::new();
        p.add_content(&json!("{\"token\": \"tk_77\"}"));
        assert!(derivable(&p, json!("TK_77")));
    }

    #[test]
    fn past_the_cap_is_disclosed() {
        let mut p = Provenance::new();
        let mut big = "a".repeat(SOURCE_CAP);
        big.push_str(" hidden_value_xyz");
        p.add_text(&big);
        assert!(p.truncated());
        assert_eq!(p.check(&json!("hidden_value_xyz")), Derivation::BeyondCap);
        let mut clean = Provenance::new();
        clean.add_text("short");
        assert_eq!(clean.check(&json!("other")), Derivation::NotDerivable);
    }
}
