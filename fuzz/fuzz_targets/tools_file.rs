//! The tools-file loader on arbitrary text, then every declared schema compiled (size-limited
//! linear-time regexes, no network) and run against a few argument values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tracelint::model::schema::compile;
use tracelint::sources::file::parse_tools_str;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(registry) = parse_tools_str(text, "tools.json") else {
        return;
    };
    let samples = [
        json!({}),
        json!({"a": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", "n": 1e300, "l": [1, "x", null]}),
        json!("x"),
    ];
    for spec in registry.iter() {
        for schema in spec.schema.iter().chain(&spec.alternate_schemas) {
            if let Ok(validator) = compile(schema) {
                for s in &samples {
                    for e in validator.iter_errors(s) {
                        let _ = e.to_string();
                    }
                }
            }
        }
        if let Some(fw) = &spec.metadata.failure_when {
            for s in &samples {
                let _ = fw.evaluate(s);
            }
        }
    }
});
