//! Arbitrary bytes as any input (format detected), read through both readers, every trace
//! linted by every rule, and the report rendered in every output format.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tracelint_fuzz::parse_lint_render(data, None);
});
