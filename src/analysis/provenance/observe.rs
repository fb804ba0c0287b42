//! Growing the index: each source a rule observes (a text, a result, a structured leaf) is
//! capped, normalised, cut into tokens and digit streams and added to the index (open) or
//! searched for the declared values (planned).

use super::*;

impl Provenance {
    /// Note text that is not indexed: its 4-grams, and those of its numbers' digits.
    pub(super) fn cut(&mut self, raw: &str) {
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
        self.observe_slashed(text, false);
    }

    /// A text holding a backslash is observed again with `/` for it: path values read Windows
    /// separators as `/` (`paths::path_form`), so `C:\app` in a working directory and
    /// `C:/app/x.ts` in an argument meet.
    fn observe_slashed(&mut self, text: &str, leaf: bool) {
        if memchr::memchr(b'\\', text.as_bytes()).is_some() {
            let slashed = text.replace('\\', "/");
            self.observe(&slashed, leaf);
        }
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

    pub(super) fn add_leaves(&mut self, v: &Value, depth: usize) {
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

    pub(super) fn add_json_number(&mut self, n: &serde_json::Number) {
        let mut c = std::mem::take(&mut self.number);
        if canonical_json_number_into(n, &mut c) {
            self.add_number(&c);
        }
        self.number = c;
    }

    pub(super) fn add_leaf_string(&mut self, s: &str) {
        if s.len() <= DEDUPE_MAX && !self.leaves_seen.insert(s) {
            return;
        }
        let s = self.capped(s);
        self.observe(s, true);
        self.observe_slashed(s, true);
    }

    /// Observe one source, deduplicated and capped already: a free text, or a `leaf` string
    /// of a structured result. Tracked as a scalar when short (a leaf) or one token (a text);
    /// a leaf that is a number, by its value; then its numbers, tokens and words indexed. A
    /// planned index reads ASCII text as it is (its searches ignore ASCII case, and tokens end
    /// at the same whitespace), so such text is normalised only when short enough to be a
    /// scalar; anything else is normalised first.
    pub(super) fn observe(&mut self, raw: &str, leaf: bool) {
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

    pub(super) fn add_number(&mut self, canonical: &str) {
        self.numbers.insert(canonical);
        self.track_scalar(canonical);
        let mut d = std::mem::take(&mut self.digits);
        digits_into(canonical, &mut d);
        self.add_digit_stream(&d);
        self.digits = d;
    }

    pub(super) fn track_scalar(&mut self, norm: &str) {
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
    pub(super) fn leaf_number(&mut self, raw: &str) {
        let mut c = std::mem::take(&mut self.digits);
        if canonical_number_str_into(raw, &mut c) {
            self.numbers.insert(&c);
        }
        self.digits = c;
    }

    /// A text's numbers by value, and the digit stream of each.
    pub(super) fn index_numbers(&mut self, raw: &str) {
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
    pub(super) fn wants_phrases(&self) -> bool {
        match &self.substrings {
            Substrings::Open(_) => true,
            Substrings::Planned(plan) => plan.phrases,
        }
    }

    /// The tokens of a text (normalised, or ASCII as it is for a planned index) that are not
    /// numbers: searched for the planned values, or each distinct one added to the automaton.
    /// `raw` is what a planned search that gives up notes as not indexed.
    pub(super) fn index_tokens(&mut self, text: &str, raw: &str) {
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
            } else if let Substrings::Open(open) = &mut self.substrings {
                let whole = trim_word(token);
                if whole.len() >= 3 && !open.whole_numbers.contains(whole) {
                    open.whole_numbers.insert(whole.to_owned());
                }
            }
        }
    }

    /// A number's digits: short ones (most) as the set of their substrings of 3 digits or
    /// more, one hash probe to query and no pointer chasing; longer ones in the automaton.
    pub(super) fn add_digit_stream(&mut self, stream: &str) {
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
    pub(super) fn in_digits(&self, digits: &str) -> bool {
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
    pub(super) fn add_segment(&mut self, segment: &str) {
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
    pub(super) fn capped<'s>(&mut self, s: &'s str) -> &'s str {
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
}
