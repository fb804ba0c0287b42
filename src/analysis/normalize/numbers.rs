//! Numbers and digit strings read from text (R2b and R3, through `provenance`): every digit of
//! a text, a number's canonical text (`4906.0` → `4906`), the numbers written in a text and
//! its digit streams, read in one pass with reused buffers.

/// Every ASCII digit of `s`, in order.
pub(crate) fn digits(s: &str) -> String {
    let mut out = String::new();
    digits_into(s, &mut out);
    out
}

/// `digits` into a buffer the caller reuses (cleared first).
pub(crate) fn digits_into(s: &str, out: &mut String) {
    out.clear();
    out.extend(s.chars().filter(char::is_ascii_digit));
}

/// A number's canonical text: integers without a fraction (`4906.0` → `4906`), others in
/// Rust's shortest round-trip form.
pub(crate) fn canonical_number(x: f64) -> Option<String> {
    let mut out = String::new();
    canonical_number_into(x, &mut out).then_some(out)
}

/// `canonical_number` into a buffer the caller reuses (cleared first); false for a number
/// without a canonical text (not finite).
pub(crate) fn canonical_number_into(x: f64, out: &mut String) -> bool {
    use std::fmt::Write;
    out.clear();
    if !x.is_finite() {
        return false;
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        // Exact: the value is an integer well inside f64's exact range.
        #[allow(clippy::cast_possible_truncation)]
        push_int(out, x as i64);
    } else {
        // Writing to a String cannot fail.
        let _ = write!(out, "{x}");
    }
    true
}

/// An integer in decimal, as `format!("{v}")` writes it, without the formatting machinery.
fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut n = v.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        #[allow(clippy::cast_possible_truncation)]
        let d = (n % 10) as u8;
        digits[i] = b'0' + d;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[i..].iter().map(|b| char::from(*b)));
}

/// The canonical text of a JSON number (integers kept exact beyond f64's range).
pub(crate) fn canonical_json_number(n: &serde_json::Number) -> Option<String> {
    let mut out = String::new();
    canonical_json_number_into(n, &mut out).then_some(out)
}

/// `canonical_json_number` into a buffer the caller reuses (cleared first); false for a
/// number without a canonical text.
pub(crate) fn canonical_json_number_into(n: &serde_json::Number, out: &mut String) -> bool {
    use std::fmt::Write;
    if let Some(i) = n.as_i64() {
        out.clear();
        push_int(out, i);
        return true;
    }
    if n.is_u64() {
        out.clear();
        // Writing to a String cannot fail.
        let _ = write!(out, "{n}");
        return true;
    }
    n.as_f64().is_some_and(|x| canonical_number_into(x, out))
}

/// A string that is exactly one number, written with optional sign, currency sign, thousands
/// separators and decimals (`$1,200`, `-3.5`, `1,234.56`), read as its value.
pub(crate) fn parse_number_str(s: &str) -> Option<f64> {
    let t = s.trim();
    let t = t.strip_prefix(['$', '€', '£']).unwrap_or(t);
    if t.is_empty() || t.len() > 64 {
        return None;
    }
    // Most strings are not numbers: they do not begin like one.
    if !t.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
        return None;
    }
    let (sign, body) = match t.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    if int.is_empty() || !int.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let grouped = int.contains(',');
    if grouped {
        let mut groups = int.split(',');
        let first = groups.next()?;
        if first.is_empty() || first.len() > 3 || !first.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if !groups.all(|g| g.len() == 3 && g.chars().all(|c| c.is_ascii_digit())) {
            return None;
        }
    } else if !int.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if let Some(f) = frac
        && (f.is_empty() || !f.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let value = if grouped {
        body.chars()
            .filter(|c| *c != ',')
            .collect::<String>()
            .parse::<f64>()
    } else {
        body.parse::<f64>()
    };
    value.ok().map(|x| sign * x)
}

/// The digit streams of a text: each number's digits, joined across the separators a human
/// writes inside one number, never across words (`58 and 213` gives `58` and `213`).
pub(crate) fn digit_streams(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_number_and_stream(text, &mut DigitScratch::default(), |part| {
        if let DigitPart::Stream(s) = part {
            out.push(s.to_owned());
        }
    });
    out
}

/// A char that may sit inside one number written for humans (`555-123-4567`, `1,234.56`,
/// `(555) 123`), at most two in a row. Bytes, not chars: a byte of a multi-byte char is
/// neither a digit nor a separator, as the char is not.
fn is_number_separator(b: u8) -> bool {
    matches!(b, b'-' | b'.' | b',' | b'/' | b' ' | b'(' | b')')
}

/// The numbers written in a text (`$1,200` → 1200, `1,234.56`, `12`), as canonical text.
#[cfg(test)]
pub(crate) fn numbers_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_number_and_stream(text, &mut DigitScratch::default(), |part| {
        if let DigitPart::Number(n) = part {
            out.push(n.to_owned());
        }
    });
    out
}

/// A number read from a text, or one of its digit streams.
pub(crate) enum DigitPart<'a> {
    /// A number's canonical text (`numbers_in`).
    Number(&'a str),
    /// A digit stream (`digit_streams`).
    Stream(&'a str),
}

/// `numbers_in` and `digit_streams` in one pass over the text, handed to `f` as they are read
/// (numbers and streams interleaved; each in its own order).
pub(crate) fn for_each_number_and_stream(
    text: &str,
    scratch: &mut DigitScratch,
    mut f: impl FnMut(DigitPart<'_>),
) {
    let bytes = text.as_bytes();
    let DigitScratch { number, stream } = scratch;
    stream.clear();
    let mut gap = 0usize;
    // Digits before this offset belong to a number already read.
    let mut read_to = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if stream.is_empty() {
            // Between numbers nothing happens until the next digit: skip there.
            match next_digit(bytes, i) {
                Some(at) => i = at,
                None => break,
            }
        }
        let b = bytes[i];
        if b.is_ascii_digit() {
            if i >= read_to && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
                read_to = read_number(text, i, number, &mut f);
            }
            stream.push(char::from(b));
            gap = 0;
        } else if gap < 2 && is_number_separator(b) {
            gap += 1;
        } else {
            f(DigitPart::Stream(stream));
            stream.clear();
            gap = 0;
        }
        i += 1;
    }
    if !stream.is_empty() {
        f(DigitPart::Stream(stream));
    }
}

/// Buffers `for_each_number_and_stream` writes a number and a digit stream into, reused from
/// text to text.
#[derive(Debug, Default)]
pub(crate) struct DigitScratch {
    number: String,
    stream: String,
}

/// The offset of the first ASCII digit at or after `from`. Blocks without one are passed over
/// by a test the compiler vectorises.
fn next_digit(bytes: &[u8], from: usize) -> Option<usize> {
    const BLOCK: usize = 32;
    let mut at = from;
    while let Some(block) = bytes.get(at..at + BLOCK) {
        if block.iter().fold(false, |any, b| any | b.is_ascii_digit()) {
            break;
        }
        at += BLOCK;
    }
    bytes[at..]
        .iter()
        .position(u8::is_ascii_digit)
        .map(|p| at + p)
}

/// The canonical text of a string that is exactly one number (`parse_number_str`, then
/// `canonical_number`), into a buffer the caller reuses; false when it is not one. A plain
/// decimal is written from its digits.
pub(crate) fn canonical_number_str_into(s: &str, out: &mut String) -> bool {
    let t = s.trim();
    // Most strings are not numbers, and say so by their first byte: a number begins with a
    // digit, a sign or a currency sign (`€` and `£` are not ASCII).
    if !t
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'$') || !b.is_ascii())
    {
        return false;
    }
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    plain_decimal_into(body, negative, out)
        || parse_number_str(t).is_some_and(|x| canonical_number_into(x, out))
}

/// `canonical_number_str_into`, allocating.
pub(crate) fn canonical_number_str(s: &str) -> Option<String> {
    let mut out = String::new();
    canonical_number_str_into(s, &mut out).then_some(out)
}

/// The canonical text of a plain decimal (`0042.50` → `42.5`, `7.0` → `7`), negated when
/// `negative`, written from its digits — exactly what `canonical_number` writes for its value
/// when it has at most 15 significant digits (they survive an f64 and come back as they were)
/// and at most 24 characters (nothing underflows). False, writing nothing, for anything else.
pub(crate) fn plain_decimal_into(candidate: &str, negative: bool, out: &mut String) -> bool {
    if candidate.len() > 24 {
        return false;
    }
    let (int, frac) = match candidate.split_once('.') {
        Some((_, "")) => return false,
        Some(parts) => parts,
        None => (candidate, ""),
    };
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return false;
    }
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let significant = if int.is_empty() {
        frac.trim_start_matches('0').len()
    } else {
        int.len() + frac.len()
    };
    if significant > 15 {
        return false;
    }
    out.clear();
    if negative && !(int.is_empty() && frac.is_empty()) {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    true
}

/// The number whose first digit is at `start` (not preceded by a digit), handed to `f` when it
/// reads as one; returns the offset past the run of digits, commas and dots read.
fn read_number(
    text: &str,
    start: usize,
    buf: &mut String,
    f: &mut impl FnMut(DigitPart<'_>),
) -> usize {
    let bytes = text.as_bytes();
    // Longest run of digits, commas and dots starting here.
    let mut end = start;
    while end < bytes.len() && (bytes[end].is_ascii_digit() || matches!(bytes[end], b',' | b'.')) {
        end += 1;
    }
    // A trailing `.`/`,` is punctuation ("costs 12.").
    let candidate = text[start..end].trim_end_matches([',', '.']);
    // A minus sign, not a hyphen inside `555-123`.
    let negative = start > 0
        && bytes[start - 1] == b'-'
        && (start == 1 || !bytes[start - 2].is_ascii_alphanumeric());
    // Most numbers in text are integers: with at most 15 significant digits (exact in an f64),
    // the canonical text is the digits without leading zeros, handed on as they stand.
    let significant = candidate.trim_start_matches('0');
    if significant.len() <= 15 && candidate.bytes().all(|b| b.is_ascii_digit()) {
        if significant.is_empty() {
            f(DigitPart::Number("0"));
        } else if negative {
            buf.clear();
            buf.push('-');
            buf.push_str(significant);
            f(DigitPart::Number(buf));
        } else {
            f(DigitPart::Number(significant));
        }
        return end;
    }
    if plain_decimal_into(candidate, negative, buf) {
        f(DigitPart::Number(buf));
    } else if let Some(x) = parse_number_str(candidate).or_else(|| {
        // "1,2,3" is a list, not a grouped number: read its first part.
        candidate.split(',').next().and_then(parse_number_str)
    }) && canonical_number_into(if negative { -x } else { x }, buf)
    {
        f(DigitPart::Number(buf));
    }
    end
}
