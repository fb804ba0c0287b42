//! Tests of `r2b_error_mishandled` (kept apart to keep the module short).
use crate::rules::testing::lint;

const TOOLS: &str = r#"{"tools": {
    "get_order": {"metadata": {"side_effecting": false}},
    "lookup": {"metadata": {"side_effecting": false}},
    "ship": {"metadata": {"side_effecting": true}}
}}"#;

fn r2b(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            !l.starts_with("coverage") && (l.contains(" R2b ") || l.starts_with("suppressed R2b"))
        })
        .collect()
}

#[test]
fn each_misuse_is_reported_once_against_the_first_failure() {
    let trace = r#"{"run_id": "r", "steps": [
      {"type": "tool_call", "call_id": "1", "name": "get_order", "args": {"id": "A1"}},
      {"type": "tool_result", "call_id": "1", "status": "error", "content": {"pm": "pm_998877"}},
      {"type": "tool_call", "call_id": "2", "name": "lookup", "args": {"q": "A1"}},
      {"type": "tool_result", "call_id": "2", "status": "error", "content": {"pm": "pm_998877"}},
      {"type": "tool_call", "call_id": "3", "name": "ship", "args": {"pm": "pm_998877", "amount": "4,999"}}
    ]}"#;
    let out = lint(trace, Some(TOOLS), Default::default());
    // One finding, at the first failure; the second failure's value was used too, so it is
    // not "neither used nor retried".
    assert_eq!(
        r2b(&out),
        [
            "6:7: hard_defect R2b ship: side-effecting `ship` uses `pm_998877`, which only the failed `get_order` result supplied"
        ],
        "{out}"
    );
}

#[test]
fn numbers_compare_by_value_and_a_number_written_as_text_is_one() {
    let trace = r#"{"run_id": "r", "steps": [
      {"type": "tool_call", "call_id": "1", "name": "get_order", "args": {"id": "A1"}},
      {"type": "tool_result", "call_id": "1", "status": "error", "content": {"amount": 4999, "small": 42}},
      {"type": "tool_call", "call_id": "2", "name": "ship", "args": {"amount": "4,999.0", "n": 42}}
    ]}"#;
    let out = lint(trace, Some(TOOLS), Default::default());
    assert_eq!(
        r2b(&out),
        [
            "4:7: hard_defect R2b ship: side-effecting `ship` uses `4999`, which only the failed `get_order` result supplied"
        ],
        "{out}"
    );
}

#[test]
fn a_value_the_failure_echoed_is_still_only_the_failures() {
    // Nothing the agent observed carries `ZZ9911` but the failed result (the agent's own
    // arguments are not an observation): the ship acted on a value no success confirmed.
    let trace = r#"{"run_id": "r", "steps": [
      {"type": "tool_call", "call_id": "1", "name": "get_order", "args": {"id": "ZZ9911"}},
      {"type": "tool_result", "call_id": "1", "status": "error", "content": {"id": "ZZ9911"}},
      {"type": "tool_call", "call_id": "2", "name": "ship", "args": {"id": "ZZ9911"}}
    ]}"#;
    let out = lint(trace, Some(TOOLS), Default::default());
    assert!(out.contains("hard_defect R2b ship"), "{out}");
}

#[test]
fn too_many_values_are_disclosed() {
    let values: Vec<String> = (0..1100)
        .map(|i| format!("\"k{i}\": \"value_{i:04}\""))
        .collect();
    let trace = format!(
        r#"{{"run_id": "r", "steps": [
      {{"type": "tool_call", "call_id": "1", "name": "get_order", "args": {{"id": "A1"}}}},
      {{"type": "tool_result", "call_id": "1", "status": "error", "content": {{{}}}}},
      {{"type": "tool_call", "call_id": "2", "name": "get_order", "args": {{"id": "A1"}}}}
    ]}}"#,
        values.join(", ")
    );
    let out = lint(&trace, Some(TOOLS), Default::default());
    assert_eq!(
        r2b(&out),
        [
            "suppressed R2b 3:7: the failed result carries more values than are followed (1024): later uses of the rest are not checked"
        ],
        "{out}"
    );
}

#[test]
fn no_failure_no_work_and_every_call_counted() {
    let trace = r#"{"run_id": "r", "steps": [
      {"type": "tool_call", "call_id": "1", "name": "get_order", "args": {"id": "A1"}},
      {"type": "tool_result", "call_id": "1", "status": "ok", "content": {"pm": "pm_1"}},
      {"type": "tool_call", "call_id": "2", "name": "ship"}
    ]}"#;
    let out = lint(trace, Some(TOOLS), Default::default());
    assert!(r2b(&out).is_empty(), "{out}");
    assert!(out.contains("coverage R2b 1/2"), "{out}");
}

#[test]
fn a_refused_call_is_no_failure_and_stopping_after_it_is_right() {
    // The user declined the edit; the agent stopped. Neither "not retried" nor a use of the
    // refusal's text.
    let refused = r#"{"run_id": "r", "steps": [
      {"type": "message", "role": "user", "content": "fix the order A1"},
      {"type": "tool_call", "call_id": "1", "name": "ship", "args": {"id": "A1"}},
      {"type": "tool_result", "call_id": "1", "status": "error", "content": "The user doesn't want to proceed with this tool use. The tool use was rejected. STOP what you are doing and wait for the user to tell you how to proceed."},
      {"type": "message", "role": "assistant", "content": "Understood."}
    ]}"#;
    let out = lint(refused, Some(TOOLS), Default::default());
    assert_eq!(r2b(&out), Vec::<&str>::new(), "{out}");
    // The same call failing on its own (a file's "Permission denied") is still a failure.
    let failed = refused.replace(
        "The user doesn't want to proceed with this tool use. The tool use was rejected. STOP what you are doing and wait for the user to tell you how to proceed.",
        "cat: /srv/orders/A1: Permission denied",
    );
    let out = lint(&failed, Some(TOOLS), Default::default());
    assert_eq!(r2b(&out).len(), 1, "{out}");
    assert!(r2b(&out)[0].contains("neither used nor retried"), "{out}");
}
