//! The Python module against a real Arize Phoenix server (the one `tests/phoenix_live.rs` tests
//! the command line against, `tests/phoenix/server.rs`): the wheel maturin built (shared with
//! `wheel.rs`), installed for the Phoenix venv's Python, lints the project's spans with
//! `lint_phoenix` (and `lint_paths`) in `tests/phoenix/lint_from_python.py`, finds the planted
//! R1 and R2a, writes them back as annotations on exactly those spans, and a second run adds
//! none. Without the Phoenix venv or maturin the test says so and passes, unless
//! `TRACELINT_FULL_TEST` is set, where a missing one is a failure.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::phoenix_server::{Phoenix, Reader, emit, planted_annotations, script, venv_bin};
use crate::support::{pip_install, repo, run, tracelint_bin};
use crate::wheel::{built_wheel, wheel_file};

#[test]
fn the_module_lints_phoenix_and_writes_findings_back_once() {
    let Some(bin) = venv_bin() else { return };
    let Some(wheel) = built_wheel() else { return };
    let scratch = tempfile::tempdir().expect("a temp dir");
    // The wheel's files, importable through PYTHONPATH by the Phoenix venv's Python.
    let site = scratch.path().join("site");
    let installed = run(
        pip_install(&bin.join("python"), &wheel_file(wheel))
            .arg("--target")
            .arg(&site),
        Duration::from_secs(300),
    );
    assert_eq!(installed.code, Some(0), "pip install: {}", installed.all());

    let mut reader = Reader::start(&bin);
    let mut server = Phoenix::start(&bin, scratch.path());
    let project = "tracelint test";
    let sent = emit(&bin, &format!("{}/v1/traces", server.url), project);
    server.wait_for_spans("tracelint%20test", 5);
    let input = format!("phoenix:{}/projects/tracelint%20test", server.url);

    let python = |mode: &str| -> Value {
        let out = run(
            Command::new(bin.join("python"))
                .arg(script("lint_from_python.py"))
                .args([&input, mode])
                .env("PYTHONPATH", &site)
                .env_remove("PHOENIX_API_KEY")
                .current_dir(repo()),
            Duration::from_secs(120),
        );
        assert_eq!(
            out.code,
            Some(0),
            "lint_from_python.py {mode}: {}",
            out.all()
        );
        serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("lint_from_python.py {mode}: {e} in {:?}", out.stdout))
    };
    let hard = |run: &Value| -> Vec<(String, String, String)> {
        run["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["tier"] != "candidate")
            .map(|f| {
                let s = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
                (s("rule"), s("tool"), s("path"))
            })
            .collect()
    };
    let planted = vec![
        ("R2a".to_owned(), "fetch_page".to_owned(), input.clone()),
        ("R1".to_owned(), "get_weather".to_owned(), input.clone()),
    ];

    // Read and lint: the planted R1 and R2a, nothing written; the report is the command's, byte
    // for byte, through `lint_phoenix` and through `lint_paths`.
    let read = python("read");
    assert_eq!(read["exit_code"], 2, "{read}");
    assert_eq!(hard(&read), planted);
    assert_eq!(read["written_back"], Value::Null);
    let cli = run(
        Command::new(tracelint_bin())
            .args(["check", &input, "--output-format", "json"])
            .env_remove("PHOENIX_API_KEY")
            .current_dir(repo()),
        Duration::from_secs(120),
    );
    assert_eq!(cli.code, Some(2), "{}", cli.stderr);
    assert_eq!(read["json"].as_str(), Some(cli.stdout.as_str()));
    assert_eq!(read["paths_json"].as_str(), Some(cli.stdout.as_str()));
    // A window after every span: Phoenix's answer, as the module's own exception.
    let future = read["future"].as_str().unwrap_or_default();
    assert!(
        future.contains("holds no span between 2999-01-01"),
        "{read}"
    );
    let (none, _, spans) = reader.read(&server.url, project);
    assert_eq!((none.len(), spans), (0, 5));

    // Write back: one annotation on each of exactly those two spans.
    let first = python("write-back");
    assert_eq!(hard(&first), planted);
    assert_eq!(
        first["written_back"],
        json!({"annotations": 2, "spans": 2, "unplaced": 0})
    );
    let (notes, note_ids, _) = reader.read(&server.url, project);
    let expected = planted_annotations(&sent);
    assert_eq!(notes, expected);

    // A second run adds none: the same annotations, updated in place.
    let second = python("write-back");
    assert_eq!(second["written_back"], first["written_back"]);
    assert_eq!(reader.read(&server.url, project), (notes, note_ids, 5));
}
