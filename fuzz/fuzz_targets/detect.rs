//! Format auto-detection on arbitrary bytes, then whichever adapter it picks, the rules and every
//! reporter.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tracelint_fuzz::parse_lint_render(data, None);
});
