//! `tracelint check phoenix:…` against a real Arize Phoenix server, started here on loopback
//! with its SQLite database in a temporary folder, fed by the real OpenTelemetry SDK through its
//! OTLP/HTTP exporter with OpenInference attributes (`tests/phoenix/emit_trace.py`: one agent
//! trace with a planted schema violation and a tool error), and read back through Phoenix's own
//! Python client (`tests/phoenix/read_annotations.py`).
//!
//! The peers (arize-phoenix, the OpenTelemetry SDK and exporter, OpenInference's conventions,
//! pinned in `scripts/phoenix-peers.txt`) live in the venv `scripts/test` makes, found through
//! `TRACELINT_PHOENIX_VENV`. Missing, the test is skipped with a notice, or fails under
//! `scripts/test` (`TRACELINT_FULL_TEST`). The server and the scripts are `tests/phoenix/server.rs`'s.

#[path = "phoenix/server.rs"]
mod server;

use std::process::{Command, Output};

use serde_json::Value;

use server::{Phoenix, Reader, emit, planted_annotations, venv_bin};

fn tracelint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .env_remove("PHOENIX_API_KEY")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn check_reads_phoenix_and_writes_findings_back_once() {
    let Some(bin) = venv_bin() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The client imports while the server starts.
    let mut reader = Reader::start(&bin);
    let mut server = Phoenix::start(&bin, dir.path());
    let project = "tracelint test";
    let sent = emit(&bin, &format!("{}/v1/traces", server.url), project);
    server.wait_for_spans("tracelint%20test", 5);
    let input = format!("phoenix:{}/projects/{}", server.url, "tracelint%20test");

    // Read and lint: the planted R1 on `get_weather`, the R2a on `fetch_page`, nothing written.
    let out = tracelint(&["check", &input, "--output-format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hard: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["tier"] != "candidate")
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (s("rule"), s("tool"), s("file"))
        })
        .collect();
    assert_eq!(
        hard,
        [
            ("R2a".into(), "fetch_page".into(), input.clone()),
            ("R1".into(), "get_weather".into(), input.clone()),
        ]
    );
    let (none, _, spans) = reader.read(&server.url, project);
    assert_eq!((none.len(), spans), (0, 5));

    // Write back: one annotation on each of exactly those two spans.
    let out = tracelint(&["check", &input, "--write-back"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wrote 2 `tracelint` annotations on 2 spans"),
        "{stderr}"
    );
    let (first, first_ids, _) = reader.read(&server.url, project);
    let expected = planted_annotations(&sent);
    assert_eq!(first, expected);

    // A second run adds none: the same annotations, updated in place.
    let out = tracelint(&["check", &input, "--write-back", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let (second, second_ids, _) = reader.read(&server.url, project);
    assert_eq!((second, second_ids), (first, first_ids));

    // The window: spans that started in the future are none, and that is said (exit 3).
    let out = tracelint(&["check", &input, "--since", "2999-01-01"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds no span between 2999-01-01"),
        "{stderr}"
    );
    let out = tracelint(&[
        "check",
        &input,
        "--until",
        "2999-01-01",
        "--output-format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2));

    // A project Phoenix does not have: the server's answer, exit 3.
    let missing = format!("phoenix:{}/projects/no-such-project", server.url);
    let out = tracelint(&["check", &missing]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("404 Not Found from GET"), "{stderr}");
}
