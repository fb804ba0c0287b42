//! The `claude` adapter on arbitrary bytes (forced format) through both readers (the
//! streaming one and the seekable one); the rules and reporters are `lint_render`'s.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracelint::adapters::InputFormat;

fuzz_target!(|data: &[u8]| {
    tracelint_fuzz::parse(data, Some(InputFormat::Claude));
});
