//! LangSmith adapter tests: a run tree written by the real `langsmith` SDK (`@traceable`,
//! traced locally; `fixtures/real/langsmith/make.py`) snapshotted, with exact counts, the
//! structured error and locations checked; ordering and envelopes inline.

use std::path::Path;

use crate::adapters::testing::{counts, summary};
use crate::adapters::{InputFormat, Parsed, parse_bytes};
use crate::model::{Args, ResultStatus};

fn read(text: &str) -> Parsed {
    let (format, p) = parse_bytes(text.as_bytes(), "t.json", None);
    assert_eq!(format, Some(InputFormat::LangSmith), "{:?}", p.issues);
    p
}

#[test]
fn real_run_tree() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real/langsmith/weather-agent.run.json");
    let text = std::fs::read_to_string(path).unwrap();
    let p = read(&text);
    assert!(p.issues.is_empty(), "{:?}", p.issues);
    // Three calls the model emitted: two answered by tool runs (the one that raised is an
    // error), one with malformed arguments that no tool ran, answered by the agent's own tool
    // message in the next model run's input.
    let c = counts(&p.traces[0]);
    assert_eq!((c.calls, c.results, c.errors, c.unanswered), (3, 3, 1, 0));
    let malformed = p.traces[0]
        .steps
        .iter()
        .filter(|s| matches!(s.as_call().map(|c| &c.args), Some(Args::Malformed(_))))
        .count();
    assert_eq!(malformed, 1);
    let err = p.traces[0]
        .steps
        .iter()
        .find_map(|s| s.as_result().filter(|r| r.status == ResultStatus::Error))
        .unwrap();
    assert_eq!(
        err.error.as_deref(),
        Some("TimeoutError('forecast service timed out for Paris')")
    );
    assert_eq!(p.traces[0].embedded_tools.len(), 2);
    // Every step is cited at the run that records it (a model run's messages and calls, a tool
    // run's call and result): the line naming the run's type.
    let lines: Vec<&str> = text.lines().collect();
    for s in &p.traces[0].steps {
        let line = lines[s.at.line as usize - 1];
        assert!(
            line.contains("\"run_type\""),
            "step {} at {}: {line}",
            s.index,
            s.at.line
        );
    }
    insta::assert_json_snapshot!(summary(&p));
}

#[test]
fn runs_are_read_in_execution_order_with_their_envelopes() {
    let text = r#"[{"id": "r", "run_type": "chain", "name": "agent", "inputs": {"input": "book it"}, "child_runs": [
  {"id": "t2", "run_type": "tool", "name": "book", "dotted_order": "2", "inputs": {"input": {"room": "A"}}, "outputs": {"output": {"type": "tool", "content": "done", "tool_call_id": "c2", "status": "success"}}},
  {"id": "t1", "run_type": "tool", "name": "find", "dotted_order": "1", "inputs": {"q": "rooms"}, "outputs": null, "status": "error"}
]}]"#;
    let p = read(text);
    let t = &p.traces[0];
    let names: Vec<(&str, Option<ResultStatus>)> = t
        .steps
        .iter()
        .filter_map(|s| match (s.as_call(), s.as_result()) {
            (Some(c), _) => Some((c.name.as_str(), None)),
            (_, Some(r)) => Some(("result", Some(r.status))),
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        [
            ("find", None),
            ("result", Some(ResultStatus::Error)),
            ("book", None),
            ("result", Some(ResultStatus::Ok))
        ]
    );
    let book = t
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .find(|c| c.name == "book")
        .unwrap();
    assert_eq!(book.args, Args::Known(serde_json::json!({"room": "A"})));
    assert_eq!(t.run_id, "r");
}
