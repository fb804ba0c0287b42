//! SWE-agent adapter tests: the real files in `fixtures/real/swe-agent/` snapshotted, with exact counts
//! (counted from the files by an independent script) and every step's cited line checked.

use crate::adapters::testing::{check_real_counts, summary};
use crate::adapters::{InputFormat, parse_bytes};

#[test]
fn real_files_snapshot() {
    insta::glob!("../../../fixtures/real/swe-agent", "*.traj", |path| {
        let text = std::fs::read_to_string(path).unwrap();
        let (format, p) = parse_bytes(text.as_bytes(), "t.json", None);
        assert_eq!(format, Some(InputFormat::SweAgent), "{}", path.display());
        insta::assert_json_snapshot!(summary(&p));
    });
}

#[test]
fn counts_and_locations_hold_exactly() {
    // (file, calls, results, successes)
    check_real_counts(
        "swe-agent",
        InputFormat::SweAgent,
        &[
            ("marshmallow-1867-function-calling.traj", 11, 11, 0),
            ("test-repo-i1.traj", 5, 4, 0),
        ],
    );
}

/// XML function calling (`parse_function: xml_function_calling`, e.g. SWE-agent-LM-32B's
/// SWE-bench run): no tool calls recorded, the call is the `<function=…>` markup in the
/// model's text, complete or cut after its opening tag; the action is not a tool name.
#[test]
fn xml_function_calling_names_the_function_not_the_command() {
    let traj = r#"{"history": [
      {"role": "system", "content": "You are a helpful assistant"},
      {"role": "user", "content": "fix the bug"},
      {"role": "assistant", "content": "Let me look.\n\n<function=bash>", "action": "find /testbed -name \"*.py\" | grep separable", "tool_calls": null},
      {"role": "user", "content": "OBSERVATION:\n/testbed/separable.py"},
      {"role": "assistant", "content": "<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/testbed/separable.py</parameter>\n</function>", "action": "str_replace_editor view /testbed/separable.py", "tool_calls": null},
      {"role": "user", "content": "OBSERVATION:\ndef f(): pass"},
      {"role": "assistant", "content": "no markup here", "action": "submit"}
    ], "info": {}}"#;
    let (format, p) = parse_bytes(traj.as_bytes(), "t.traj", None);
    assert_eq!(format, Some(InputFormat::SweAgent));
    let calls: Vec<(String, String)> = p.traces[0]
        .steps
        .iter()
        .filter_map(|s| s.as_call())
        .map(|c| (c.name.clone(), c.args.known().unwrap().to_string()))
        .collect();
    assert_eq!(
        calls,
        [
            (
                "bash".to_owned(),
                r#"{"command":"find /testbed -name \"*.py\" | grep separable"}"#.to_owned()
            ),
            (
                "str_replace_editor".to_owned(),
                r#"{"command":"view","path":"/testbed/separable.py"}"#.to_owned()
            ),
            ("submit".to_owned(), r#"{"command":"submit"}"#.to_owned()),
        ]
    );
}
