//! The `claude` adapter on arbitrary bytes (forced format), then the rules and every reporter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracelint::adapters::InputFormat;

fuzz_target!(|data: &[u8]| {
    tracelint_fuzz::parse_lint_render(data, Some(InputFormat::Claude));
});
