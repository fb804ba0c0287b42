//! `failure_when`: the first line is the predicate (JSON), the rest the tool result's content
//! (JSON when it parses, else a string); parse, validate, evaluate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tracelint::sources::file::parse_failure_when;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pred, content) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(pred) = serde_json::from_str::<Value>(pred) else {
        return;
    };
    let Ok(fw) = parse_failure_when(&pred) else {
        return;
    };
    let content =
        serde_json::from_str::<Value>(content).unwrap_or_else(|_| Value::String(content.into()));
    let _ = fw.evaluate(&content);
});
