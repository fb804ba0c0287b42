//! Tests of `r2a_tool_error_event` (kept apart to keep the module short).
use super::*;

fn line(s: &str) -> Option<String> {
    error_line(&Value::String(s.into()))
}

#[test]
fn error_reports_must_begin_a_line() {
    for text in [
        "Traceback (most recent call last):\n  File \"x\"",
        "ERROR: could not build",
        "fatal: not a git repository",
        "ValueError: bad input",
        "requests.exceptions.ConnectionError",
        "<tool_use_error>File has not been read yet.</tool_use_error>",
        "[rank0]: RuntimeError: CUDA out of memory",
        "bash: foo: command not found",
        "ls: cannot access 'x': No such file or directory",
        "make: *** [all] Error 2",
        "gcc: error: x.c: No such file",
        "HTTP/1.1 404 Not Found",
        "[ERROR] database unreachable",
        "Exit code 1\nFailed to connect",
    ] {
        assert!(line(text).is_some(), "{text}");
    }
    for text in [
        "def f():\n    raise ValueError('x')",
        "The operation failed because of y",
        "     12→    raise ValueError('x')",
        "0 errors, 3 warnings",
        "Errors: none",
        "    ValueError: if x is negative",
        "all tests passed",
    ] {
        assert_eq!(line(text), None, "{text}");
    }
}

/// A random document of error-looking and plain strings under a few repeated keys, some
/// nested past `TEXT_DEPTH`.
fn random_doc(rng: &mut impl FnMut() -> u64, depth: usize) -> String {
    const TEXTS: &[&str] = &[
        "\"Error: b\"",
        "\"fatal: a\"",
        "\"failed x\"",
        "\"all fine\"",
        "\"Error:nospace\"",
        "\"x\\nError: late\"",
        "\"\\u0046ailed y\"",
    ];
    const KEYS: &[&str] = &["a", "b", "B", "aa", "", "\\u0061"];
    let pick = if depth > 20 { rng() % 3 } else { rng() % 5 };
    match pick {
        0 | 1 => TEXTS[(rng() % TEXTS.len() as u64) as usize].into(),
        2 => ["1", "true", "null"][(rng() % 3) as usize].into(),
        3 => {
            let items: Vec<String> = (0..rng() % 4)
                .map(|_| {
                    let skip = (rng() % 3) as usize;
                    random_doc(rng, depth + 1 + skip)
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            // Now and then an object of many members (shallower values).
            let (members, deeper) = if rng().is_multiple_of(8) {
                (17 + rng() % 24, 6)
            } else {
                (rng() % 4, 0)
            };
            let items: Vec<String> = (0..members)
                .map(|_| {
                    let key = KEYS[(rng() % KEYS.len() as u64) as usize];
                    let skip = deeper + (rng() % 3) as usize;
                    format!("\"{key}\": {}", random_doc(rng, depth + 1 + skip))
                })
                .collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

#[test]
fn the_error_line_read_from_events_is_the_one_the_tree_gives() {
    let mut rng = crate::rules::testing::xorshift(0x7232_6165);
    let mut lines = 0;
    for _ in 0..5_000 {
        let text = format!("{{\"k\": {}}}", random_doc(&mut rng, 0));
        let r = ToolResult::new(None, Value::String(text.clone()), Default::default());
        let tree = error_line(r.structured());
        let fresh = ToolResult::new(None, Value::String(text.clone()), Default::default());
        assert_eq!(result_error_line(&fresh), tree, "{text}");
        lines += usize::from(tree.is_some());
    }
    assert!(lines > 500, "{lines}");
    // Strings at the depth limit and just past it, alone or after a shallower plain one.
    for depth in 14..20 {
        for prefix in ["", "\"plain text\","] {
            let text = format!(
                "[{prefix}{}\"Error: deep\"{}]",
                "[".repeat(depth - 1),
                "]".repeat(depth - 1)
            );
            let r = ToolResult::new(None, Value::String(text.clone()), Default::default());
            let tree = error_line(r.structured());
            assert_eq!(tree.is_some(), depth <= TEXT_DEPTH, "{text}");
            let fresh = ToolResult::new(None, Value::String(text.clone()), Default::default());
            assert_eq!(result_error_line(&fresh), tree, "{text}");
        }
    }
}

#[test]
fn body_status_and_emptiness_read_from_events_are_the_tree_s() {
    for text in [
        r#"{"status": "Failed"}"#,
        r#"{"status": "failed", "status": "ok"}"#,
        r#"{"status": "ok", "status": "error"}"#,
        r#"{"status": {"x": "failed"}, "status_code": "404"}"#,
        r#"{"status_code": 404, "status_code": [500]}"#,
        r#"{"http_status": 503.0, "statusCode": " 500 "}"#,
        r#"{"nested": {"status": "failed"}}"#,
        r#"[{"status": "failed"}]"#,
        r#"{"st\u0061tus": "error"}"#,
        "{}",
        " [ ] ",
        "[{}]",
        "{\"status\": \"error\"",
    ] {
        let tree = ToolResult::new(None, Value::String(text.into()), Default::default());
        let events = ToolResult::new(None, Value::String(text.into()), Default::default());
        assert_eq!(
            result_body_status(&events),
            body_status(tree.structured()),
            "{text}"
        );
        assert_eq!(
            result_is_empty(&events),
            is_empty_result(tree.structured()),
            "{text}"
        );
    }
}

#[test]
fn body_status_and_empty_results() {
    use serde_json::json;
    assert_eq!(
        body_status(&json!({"status": "Failed"})).as_deref(),
        Some("`status: failed`")
    );
    assert_eq!(
        body_status(&json!({"status_code": "404"})).as_deref(),
        Some("`status_code: 404`")
    );
    assert_eq!(
        body_status(&json!({"status": "ok", "http_status": 200})),
        None
    );
    assert!(is_empty_result(&json!("  No results. ")));
    assert!(is_empty_result(&json!([])));
    assert!(!is_empty_result(&json!("no results for x, try y")));
}
