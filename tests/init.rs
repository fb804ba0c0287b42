//! `tracelint init` on a real OpenInference trace (recorded by the real instrumentation, see
//! fixtures/init/record-openinference.py) whose embedded schema a call violated: the embedded
//! schema is kept as it is, and without it the inferred schema learns nothing from the call
//! whose result was an error. The file loads with `--tools` and behaviour is only `_todo`.
//! On the real fixtures, `init`'s file adds no hard defect to `check` and passes `tools lint`;
//! on the quick-start trace, the planted R1 is still caught.

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
    // One accepted call (the `turbo` one failed and teaches nothing): no enum, only a type,
    // marked as inferred.
    assert_eq!(
        schema["properties"]["mode"],
        serde_json::json!({"type": "string", "x-tracelint-inferred": true}),
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

/// The hard defects of `check` over inputs (with extra arguments): (file, line, rule) each.
fn hard_defects(args: &[&str]) -> Vec<(String, u64, String)> {
    let run = tracelint(
        &[
            &["check"][..],
            args,
            &["--no-config", "--output-format", "json"],
        ]
        .concat(),
    );
    let report: Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stderr)));
    let mut out: Vec<(String, u64, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["tier"] == "hard_defect" && f["suppressed"] != true && f["ignored"] != true)
        .map(|f| {
            (
                f["file"].as_str().unwrap_or_default().to_owned(),
                f["line"].as_u64().unwrap_or_default(),
                f["rule"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Issue 41: `init fixtures/real/ -o t.json`, then the `check` it suggests, adds no hard
/// defect to `check fixtures/real/` alone (a guess never fails a build; same-named tools of
/// different agents are not merged), and `tools lint` finds no hard defect in the file.
#[test]
fn init_on_the_real_fixtures_adds_no_hard_defect_and_lints_clean() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let out = out.to_str().unwrap();
    // One file there is a schema document, not a trace: an input issue (exit 3), not a failure.
    let run = tracelint(&["init", "fixtures/real/", "--no-config", "-o", out]);
    assert!(matches!(run.status.code(), Some(0 | 3)), "{run:?}");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("left without a schema"), "{stderr}");
    let alone = hard_defects(&["fixtures/real/"]);
    let with = hard_defects(&["fixtures/real/", "--tools", out]);
    // The same hard defects, none added and none lost: a coding agent's built-in tools are
    // deferred to (each session checked against its own version's schema, as without the file),
    // and a guess never fails a build.
    let added: Vec<&(String, u64, String)> = with.iter().filter(|d| !alone.contains(d)).collect();
    let lost: Vec<&(String, u64, String)> = alone.iter().filter(|d| !with.contains(d)).collect();
    assert!(
        added.is_empty() && lost.is_empty(),
        "hard defects added by init's file: {added:?}; lost: {lost:?}"
    );
    assert!(!alone.is_empty(), "the real fixtures hold hard defects");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    let read_file = file["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read_file")
        .unwrap();
    assert_eq!(
        read_file["builtin"],
        serde_json::json!(["builtin:gemini-cli"])
    );

    let lint = tracelint(&[
        "tools",
        "lint",
        out,
        "--no-config",
        "--output-format",
        "json",
    ]);
    let report: Value = serde_json::from_slice(&lint.stdout).unwrap();
    let hard: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["tier"] != "candidate")
        .collect();
    assert!(hard.is_empty(), "{hard:?}");
}

/// Issue 41: on the quick-start trace, `init` learns no one-call enum (order 7788 passes), and
/// the planted `cancel_order {"order_id": 4521}` is still caught: the system's own result said
/// `order_id` is a string, so the inferred type is string and the call a candidate, which
/// becomes a hard defect once a person removes the markers.
#[test]
fn the_quickstart_planted_r1_is_still_caught_after_init() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.json");
    let file = init("fixtures/quickstart/transcript.json", &out);
    let text = serde_json::to_string(&file).unwrap();
    assert!(!text.contains("\"enum\""), "{text}");
    let out = out.to_str().unwrap();
    let r1 = |trace: &str, tools: &str| {
        let run = tracelint(&[
            "check",
            trace,
            "--tools",
            tools,
            "--no-config",
            "--select",
            "R1",
            "--include-candidates",
        ]);
        (
            run.status.code(),
            String::from_utf8_lossy(&run.stdout).into_owned(),
        )
    };
    let (code, report) = r1("fixtures/quickstart/transcript.json", out);
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.contains("transcript.json:7:5: candidate R1 cancel_order: breaks a constraint inferred from the traces"),
        "{report}"
    );
    // Another order: nothing learned from one call's value stands in its way.
    let other = dir.path().join("order-7788.json");
    let trace = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/quickstart/transcript.json"),
    )
    .unwrap()
    .replace("4521", "7788")
    .replace("\"order_id\": 7788", "\"order_id\": \"7788\"");
    std::fs::write(&other, trace).unwrap();
    let (code, report) = r1(other.to_str().unwrap(), out);
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.contains("0 hard_defects, 0 hard_events, 0 candidates"),
        "{report}"
    );
    // A person reviewed the file and removed the markers: the guess is now the rule.
    let reviewed = dir.path().join("reviewed.json");
    std::fs::write(
        &reviewed,
        text.replace(",\"x-tracelint-inferred\":true", ""),
    )
    .unwrap();
    let (code, report) = r1(
        "fixtures/quickstart/transcript.json",
        reviewed.to_str().unwrap(),
    );
    assert_eq!(code, Some(2), "{report}");
    assert!(report.contains("hard_defect R1 cancel_order"), "{report}");
}
