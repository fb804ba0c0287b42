//! The planned index's search (`Provenance::planned`): the values a rule will ask about,
//! declared up front, searched for in each source as it arrives (`heads`), and which were
//! found so far.

use super::*;

/// The declared values' single-token forms and digit strings, and which were found so far.
/// Answers exactly as `Open` would, without `Open`'s per-trace cap on distinct text (nothing
/// observed is stored, so there is nothing to bound but the time, linear in what is observed).
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Over `patterns`; `None` when there are none.
    pub(super) searcher: Option<Heads>,
    pub(super) patterns: HashMap<String, u32, foldhash::quality::RandomState>,
    /// Pattern found inside an observed token that is not a number, or inside a long digit
    /// stream (what `Open::text` holds).
    pub(super) in_text: Vec<bool>,
    /// Short digit strings (3 to `SHORT_DIGITS`), packed, by id; `short_found[id]` when found
    /// inside a short digit stream (what `Open::digit_substrings` holds).
    pub(super) short: HashMap<u64, u32, BuildHasherDefault<SymbolHasher>>,
    pub(super) short_found: Vec<bool>,
    /// The short digit strings' packed forms, hashed (`short_bit`), and their lengths: a run
    /// of a short digit stream is looked up in `short` only when both say it may be one (the
    /// bitmap stays in cache however many values a trace has).
    pub(super) short_bits: Option<Bitmap<{ 1 << (SHORT_BITS_LOG - 6) }>>,
    pub(super) short_lens: u32,
    /// A short digit string's id among `patterns` (each is one of them too). Found in a short
    /// digit stream, it is settled for the token search as well: `in_digits` asks either, and
    /// a value that is only digits is derivable by its digits before `in_text` is asked. So
    /// it is retired from the token search, where it would otherwise stay searched for (a
    /// number's digits are found in a digit stream, and never in a token that is not a number).
    pub(super) short_to_pattern: Vec<u32>,
    /// Some value is several words: sources are kept for phrases (and only then).
    pub(super) phrases: bool,
    /// By pattern id: what it is searched for (`TOKEN`: a value's form or digits, found
    /// inside a token that is not a number; `PIECE`: a path's piece, found on path boundaries,
    /// `paths`), and whether it was found as a piece.
    pub(super) roles: Vec<u8>,
    pub(super) aligned: Vec<bool>,
    /// By pattern id: found as an import name (`MODULE`).
    pub(super) module_found: Vec<bool>,
}

/// `Plan::roles`: a value's single-token form or digit string.
pub(super) const TOKEN: u8 = 1;
/// `Plan::roles`: a piece of a path value (`paths::PathForm::pieces`).
pub(super) const PIECE: u8 = 2;
/// `Plan::roles`: the name an import gives a path value's source file (`PathForm::module`).
pub(super) const MODULE: u8 = 4;

impl Plan {
    /// The plan for `values`; the numbers and scalars' digit strings `derivable` can ask about
    /// for them go into `numbers` and `scalar_digits`.
    pub(super) fn new<'v>(
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
                // What `composite_path` asks: the directory's module names (a package), and
                // the file name read as an identifier.
                if let Some(dir) = form.parent() {
                    for module in dir.modules() {
                        plan.piece(&module, MODULE);
                    }
                }
                if let Some(stem) = v.as_str().and_then(paths::identifier_stem) {
                    plan.piece(&stem, MODULE);
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
    pub(super) fn pattern(&mut self, p: &str) -> u32 {
        self.declare(p, TOKEN)
    }

    /// Declare `p` as a path's piece or module name (`role`); one shorter than a head is never
    /// searched for: it counts as observed (`aligned`).
    pub(super) fn piece(&mut self, p: &str, role: u8) {
        if p.len() >= 3 {
            self.declare(p, role);
        }
    }

    pub(super) fn declare(&mut self, p: &str, role: u8) -> u32 {
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
    pub(super) fn aligned(&self, piece: &str) -> bool {
        self.found_as(piece, &self.aligned)
    }

    /// Was this module name of a path value observed on module boundaries?
    pub(super) fn module_found(&self, module: &str) -> bool {
        self.found_as(module, &self.module_found)
    }

    pub(super) fn found_as(&self, p: &str, found: &[bool]) -> bool {
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
    pub(super) fn path_derivable(&self, form: &paths::PathForm) -> bool {
        form.derivable(|p| self.aligned(p), |m| self.module_found(m))
    }

    /// Mark the patterns inside the tokens of a text that are not numbers: a normalised text,
    /// or an ASCII one as it is (the search ignores ASCII case; a token ends at the same
    /// whitespace). False when the search compares more than `COMPARED_PER_BYTE` allows (a
    /// hostile text and hostile values): the caller notes the text as not indexed.
    pub(super) fn scan_tokens(&mut self, text: &str) -> bool {
        self.scan(text, true)
    }

    /// Mark the patterns inside a digit stream: a long one is searched like a token (false as
    /// for `scan_tokens`); in a short one, each run of a length some short digit string has is
    /// looked up (at most 105 runs).
    pub(super) fn scan_digits(&mut self, stream: &str) -> bool {
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
    pub(super) fn scan(&mut self, text: &str, tokens: bool) -> bool {
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
            // Inside a number token only as the whole of it (edge punctuation aside: `428:4110`
            // in `frame 428:4110: Modal`), never as a piece of another number.
            if tokens
                && token.2
                && trim_word(&text[token.0..token.1]) != &text[start..end]
            {
                return false;
            }
            in_text[id] = true;
            settled
        })
    }

    pub(super) fn in_text(&self, pattern: &str) -> bool {
        match self.patterns.get(pattern) {
            Some(id) => self.in_text[*id as usize],
            // Not declared: a caller's mistake. Never report what was not searched for.
            None => {
                debug_assert!(false, "{pattern:?} was not declared");
                true
            }
        }
    }

    pub(super) fn in_short_digits(&self, digits: &str) -> bool {
        // Longer runs are never packed (they would not fit): as `Open::digit_substrings`.
        digits.len() <= SHORT_DIGITS
            && self
                .short
                .get(&pack_digits(digits))
                .is_some_and(|id| self.short_found[*id as usize])
    }
}

/// Bytes a planned search compares per byte of a text before it gives up on the text (past
/// this, many self-similar values over a self-similar text would cost quadratic time);
/// ordinary text needs far fewer than one.
pub(super) const COMPARED_PER_BYTE: usize = 32;

/// What a planned search may compare (bytes) while searching `text`.
pub(super) fn search_budget(text: &str) -> usize {
    COMPARED_PER_BYTE * text.len() + 4096
}
