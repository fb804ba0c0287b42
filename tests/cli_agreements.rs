//! Commands that agree with each other: `infer` and `init` both write to stdout without `-o`;
//! `scorecard --demo --html` writes a page as `demo --html` does; `scorecard --recorded DIR` is
//! the folder form, and the older `--runs DIR` still works with a note; `check --format` is the
//! output format, and an input format name given to it is still read as `--input-format` with a
//! note.

use std::process::{Command, Output};

fn tracelint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("tracelint runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn infer_and_init_write_to_stdout_without_o() {
    let trace = "fixtures/quickstart/transcript.json";
    for args in [&["infer", trace][..], &["init", trace]] {
        let out = tracelint(args);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not the tools file ({e}): {out:?}"));
        let tools = &doc["tools"];
        assert!(
            tools.as_array().is_some_and(|t| !t.is_empty())
                || tools.as_object().is_some_and(|t| !t.is_empty()),
            "{args:?}: {doc}"
        );
    }
    // infer's verdict goes to stderr when the file goes to stdout; the exit says it too (the
    // example's own schema violation is not in the inferred schema, so it validates).
    let out = tracelint(&["infer", trace]);
    assert!(
        text(&out.stderr).contains("OK: inferred schema validates"),
        "{out:?}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn scorecard_demo_writes_an_html_page() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let page = dir.path().join("card.html");
    let out = tracelint(&[
        "scorecard",
        "--demo",
        "--buggy",
        "--runs",
        "3",
        "--html",
        page.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let html = std::fs::read_to_string(&page).expect("the page is written");
    assert!(
        html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"),
        "{}",
        &html[..80]
    );
    assert!(
        html.contains("Recovery scorecard, buggy agent: 3 runs per fault"),
        "{html}"
    );
    for fault in ["timeout", "malformed_json", "denied"] {
        assert!(html.contains(&format!(">{fault}<")), "{fault} missing");
    }
    // The text card on stdout is the one `scorecard` always printed.
    let plain = tracelint(&["scorecard", "--demo", "--buggy", "--runs", "3"]);
    assert_eq!(out.stdout, plain.stdout);
}

#[test]
fn recorded_runs_take_recorded_and_the_older_runs_dir_still_works() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let folder = dir.path().to_str().expect("a UTF-8 path");
    let new = tracelint(&["scorecard", "--recorded", folder, "--output-format", "json"]);
    let old = tracelint(&["scorecard", "--runs", folder, "--output-format", "json"]);
    assert_eq!(new.status.code(), old.status.code(), "{new:?}\n{old:?}");
    assert_eq!(new.stdout, old.stdout);
    assert!(!text(&new.stderr).contains("note:"), "{new:?}");
    assert!(
        text(&old.stderr).contains(&format!(
            "note: `--runs {folder}` is read as `--recorded {folder}`"
        )),
        "{old:?}"
    );
    // `--oracle` without a folder is a usage error that names the right flag.
    let oracle = tracelint(&["scorecard", "--demo", "--oracle", "o.toml"]);
    assert_eq!(oracle.status.code(), Some(3), "{oracle:?}");
    assert!(
        text(&oracle.stderr).contains("--recorded DIR"),
        "{oracle:?}"
    );
}

#[test]
fn check_format_is_the_output_format_and_an_input_name_still_works() {
    let trace = "fixtures/quickstart/transcript.json";
    let tools = "fixtures/quickstart/tools.json";
    let as_alias = tracelint(&["check", trace, "--tools", tools, "--format", "json"]);
    let canonical = tracelint(&["check", trace, "--tools", tools, "--output-format", "json"]);
    assert_eq!(as_alias.stdout, canonical.stdout);
    assert!(!text(&as_alias.stderr).contains("note: `--format"));
    let legacy = tracelint(&["check", trace, "--tools", tools, "--format", "native"]);
    let explicit = tracelint(&["check", trace, "--tools", tools, "--input-format", "native"]);
    assert_eq!(legacy.stdout, explicit.stdout);
    assert_eq!(legacy.status.code(), explicit.status.code());
    assert!(
        text(&legacy.stderr).contains(
            "note: `--format native` names an input format; read as `--input-format native`"
        ),
        "{legacy:?}"
    );
    // tools lint: --format is the same flag as --output-format there too.
    let lint = |flag: &str| tracelint(&["tools", "lint", tools, flag, "json"]);
    assert_eq!(lint("--format").stdout, lint("--output-format").stdout);
}
