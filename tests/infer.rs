//! `tracelint infer` on the real binary: the written tools file is a `--tools` source under which
//! the inputs it came from have no schema finding (R1) and no unknown tool (R7).

use std::process::{Command, Output};

fn tracelint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("run tracelint")
}

#[test]
fn inferred_tools_file_round_trips_through_check() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    let tools = tools.to_str().unwrap();
    let inputs = [
        "fixtures/quickstart/transcript.json",
        "fixtures/rules/r1",
        "fixtures/seed002/readme-trace.json",
        "fixtures/infer/nested.jsonl",
    ];
    let out = tracelint(&[&["infer"][..], &inputs, &["-o", tools, "--enum-max", "4"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // The walked `tools.json` files in fixtures/rules are skipped, not read as traces.
    assert!(
        stdout.contains("OK: inferred schema validates against 7 transcript(s)"),
        "{stdout}"
    );
    // Malformed and unrecorded arguments were left out, and said so.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("note: skipped 2 of 16 tool call(s): 1 with malformed arguments, 1 with arguments not recorded"),
        "{out:?}"
    );
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(tools).unwrap()).unwrap();
    assert_eq!(file["_meta"]["inferred_from"].as_array().unwrap().len(), 7);
    // Compact unless --pretty.
    assert_eq!(std::fs::read_to_string(tools).unwrap().lines().count(), 1);

    let check = tracelint(
        &[
            &["check"][..],
            &inputs,
            &[
                "--tools",
                tools,
                "--select",
                "R1,R7",
                "--output-format",
                "json",
            ],
        ]
        .concat(),
    );
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["findings"], serde_json::json!([]), "{report:#}");
    assert_eq!(check.status.code(), Some(0));
    // And the same inputs do have findings against the hand-written schemas: the check is not
    // vacuous.
    let strict = tracelint(&[
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
        "--select",
        "R1",
    ]);
    assert_eq!(strict.status.code(), Some(2));
}

#[test]
fn no_validate_skips_the_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("t.json");
    let out = tracelint(&[
        "infer",
        "fixtures/quickstart/transcript.json",
        "-o",
        tools.to_str().unwrap(),
        "--pretty",
        "--no-validate",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(std::fs::read_to_string(&tools).unwrap().lines().count() > 10);
}

#[test]
fn a_real_claude_code_session_has_no_r1_finding_under_its_inferred_schema() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    let tools = tools.to_str().unwrap();
    let session = "fixtures/real/claude-code/erk-1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl";
    let out = tracelint(&["infer", session, "-o", tools, "--pretty"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.contains("OK: inferred schema validates against 1 transcript(s)"),
        "{stdout}"
    );
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(tools).unwrap()).unwrap();
    let names: Vec<&str> = file["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Bash") && names.contains(&"Read"),
        "{names:?}"
    );
    // Nested arrays of objects get `items` schemas (TodoWrite's `todos`, when the session used it).
    let check = tracelint(&[
        "check",
        session,
        "--tools",
        tools,
        "--select",
        "R1",
        "--output-format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["summary"]["hard_defect"], 0, "{report:#}");
    let cov = &report["coverage"][0];
    assert_eq!(cov["rule"], "R1");
    assert_eq!(cov["decided"], cov["total"], "{report:#}");
    assert!(cov["total"].as_u64().unwrap() > 50);
}

/// Issue 41: one call teaches no enum (its value is no set of choices), and what `infer`
/// writes says it was inferred.
#[test]
fn one_call_learns_no_enum_and_the_schema_says_it_is_inferred() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("one.json");
    std::fs::write(
        &trace,
        r#"{"run_id": "one", "steps": [
          {"type": "message", "role": "user", "content": "status of order 4521?"},
          {"type": "tool_call", "call_id": "1", "name": "get_order_status", "args": {"order_id": "4521", "channel": "web"}},
          {"type": "tool_result", "call_id": "1", "status": "ok", "content": {"status": "shipped"}}
        ]}"#,
    )
    .unwrap();
    let out = tracelint(&["infer", trace.to_str().unwrap(), "--pretty"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema = &file["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"]["channel"],
        serde_json::json!({"type": "string", "x-tracelint-inferred": true}),
        "{schema}"
    );
    assert_eq!(schema["x-tracelint-inferred"], true, "{schema}");
}
