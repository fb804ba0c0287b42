//! `tracelint init` on a real OpenInference trace (recorded by the real instrumentation, see
//! fixtures/init/record-openinference.py) whose embedded schema a call violated: the embedded
//! schema is kept as it is, and without it the inferred schema learns no enum value from the call
//! whose result was an error. The file loads with `--tools` and behaviour is only `_todo`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const TRACE: &str = "fixtures/init/thermostat.openinference.jsonl";

fn tracelint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run tracelint")
}

fn init(trace: &str, out: &Path) -> Value {
    let run = tracelint(&["init", trace, "--no-config", "-o", out.to_str().unwrap()]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// The schema the agent was given, as the trace records it (the LLM span's request body).
fn embedded_schema() -> Value {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(TRACE)).unwrap();
    for line in text.lines() {
        let span: Value = serde_json::from_str(line).unwrap();
        if let Some(input) = span["attributes"]["input.value"].as_str() {
            let request: Value = serde_json::from_str(input).unwrap();
            if let Some(tools) = request["tools"].as_array() {
                return tools[0]["function"]["parameters"].clone();
            }
        }
    }
    panic!("no request with tools in {TRACE}")
}

#[test]
fn the_embedded_schema_is_kept_though_a_call_violated_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    let file = init(TRACE, &out);
    let tool = &file["tools"][0];
    assert_eq!(tool["name"], "set_thermostat");
    assert_eq!(tool["inputSchema"], embedded_schema());
    assert_eq!(
        tool["inputSchema"]["properties"]["mode"]["enum"],
        serde_json::json!(["heat", "cool", "off"]),
        "no `turbo` learned from the bad call"
    );
    // Behaviour is a to-do, never a guessed fact.
    let meta = &tool["metadata"];
    assert!(meta.get("side_effecting").is_none() && meta.get("idempotent").is_none());
    let todo: Vec<&str> = meta["_todo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(todo.iter().any(|t| t.starts_with("side_effecting:")));
    assert!(todo.iter().any(|t| t.starts_with("failure_when:")));
    // It loads as a tools file, and R1 still finds the bad call against it.
    let check = tracelint(&[
        "check",
        TRACE,
        "--no-config",
        "--tools",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains(r#"/mode: "turbo" is not one of "heat", "cool" or "off""#),
        "{stdout}"
    );
    // An existing file is not overwritten without --force.
    let again = tracelint(&["init", TRACE, "--no-config", "-o", out.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&again.stderr).contains("pass --force"));
}

#[test]
fn without_an_embedded_schema_no_enum_is_learned_from_the_failed_call() {
    // The same trace with its tool definitions taken out: `init` must infer.
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(TRACE)).unwrap();
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut span: Value = serde_json::from_str(line).unwrap();
        let attrs = span["attributes"].as_object_mut().unwrap();
        attrs.retain(|k, _| !k.starts_with("llm.tools"));
        if let Some(input) = attrs.get("input.value").and_then(Value::as_str) {
            let mut request: Value = serde_json::from_str(input).unwrap();
            request.as_object_mut().unwrap().remove("tools");
            attrs.insert("input.value".into(), Value::String(request.to_string()));
        }
        lines.push(span.to_string());
    }
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("no-tools.jsonl");
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("tools.json");
    let file = init(trace.to_str().unwrap(), &out);
    let schema = &file["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        serde_json::json!(["heat"]),
        "{schema}"
    );
    assert!(
        schema["$comment"]
            .as_str()
            .is_some_and(|c| c.contains("review")),
        "{schema}"
    );
    assert!(
        file["tools"][0]["metadata"]["$comment"]
            .as_str()
            .unwrap()
            .contains("inferred")
    );
}
