//! Tests of the Managed Agents reader: session events bare and as an export wraps them, each
//! call answered by the result that names it, `is_error` the verdict, the rest read past.

use crate::adapters::testing::{counted as c, counts};
use crate::adapters::{InputFormat, parse_bytes};
use crate::model::ResultStatus;

#[test]
fn wrapped_and_bare_events() {
    let text = concat!(
        r#"{"role":"system","kind":"status_running","time":"t","raw":{"id":"sevt_1","type":"session.status_running"}}"#,
        "\n",
        r#"{"role":"user","kind":"define_outcome","time":"t","raw":{"id":"sevt_2","type":"user.define_outcome","description":"Audit the paper"}}"#,
        "\n",
        r#"{"role":"agent","kind":"tool_use","tool":"bash","content":"{}","time":"t","raw":{"id":"sevt_3","type":"agent.tool_use","name":"bash","input":{"command":"ls"},"evaluated_permission":"allow"}}"#,
        "\n",
        r#"{"role":"agent","kind":"tool_result","content":"x","time":"t","raw":{"id":"sevt_4","type":"agent.tool_result","tool_use_id":"sevt_3","content":[{"type":"text","text":"README.md"}],"is_error":false}}"#,
        "\n",
        r#"{"id":"sevt_5","type":"agent.tool_use","name":"read","input":{"path":"/nope"}}"#,
        "\n",
        r#"{"id":"sevt_6","type":"agent.tool_result","tool_use_id":"sevt_5","content":[{"type":"text","text":"File not found"}],"is_error":true}"#,
        "\n",
        r#"{"role":"agent","kind":"message","time":"t","raw":{"id":"sevt_7","type":"agent.message","content":[{"type":"text","text":"Done."}]}}"#,
        "\n"
    );
    let (format, parsed) = parse_bytes(text.as_bytes(), "transcript.jsonl", None);
    assert_eq!(format, Some(InputFormat::ManagedAgents));
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    let t = &parsed.traces[0];
    assert_eq!(counts(t), c(2, 2, 1, 0));
    let results: Vec<(Option<&str>, ResultStatus, Option<&str>)> = t
        .steps
        .iter()
        .filter_map(|s| s.as_result())
        .map(|r| (r.call_id.as_deref(), r.status, r.content.as_str()))
        .collect();
    assert_eq!(
        results,
        [
            (Some("sevt_3"), ResultStatus::Ok, Some("README.md")),
            (Some("sevt_5"), ResultStatus::Error, Some("File not found")),
        ]
    );
    let call = t.steps.iter().find_map(|s| s.as_call()).unwrap();
    assert_eq!((call.name.as_str(), t.steps[1].at.line), ("bash", 3));
    assert_eq!(call.args.known().unwrap()["command"], "ls");
    assert_eq!(t.attribute(crate::model::ATTR_AGENT), Some("managed-agents"));
}
