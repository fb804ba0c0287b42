//! Format auto-detection on arbitrary bytes, then whichever adapter it picks, through both readers;
//! the rules and reporters are `lint_render`'s.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    tracelint_fuzz::parse(data, None);
});
