//! The terminal escaper and truncation on arbitrary text: no control, bidi or zero-width
//! character survives, nothing is lost, and a cut keeps at most `max` characters plus `…`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracelint::reporters::escape::{terminal, truncate};

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let escaped = terminal(&s);
    assert!(
        !escaped.chars().any(|c| c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')),
        "{escaped:?}"
    );
    assert!(escaped.len() >= s.len());
    let max = usize::from(data.first().copied().unwrap_or(0));
    let cut = truncate(&s, max);
    assert!(cut.chars().count() <= max + 1);
    assert!(s.starts_with(cut.trim_end_matches('…')) || cut == s);
});
