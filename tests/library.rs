//! The library as a user's program sees it (issue 33): `tests/outside` depends on the crate by
//! path, with no features, so only the public API is within its reach; it lints a directory
//! with a rule selection and a fail-on, OTel spans held in memory and a half-broken file, and
//! asserts what it gets. Built in its own target folder (the outer `cargo test` holds `target/`).

use std::process::Command;

/// The cargo target folder of this build (`CARGO_TARGET_DIR`, else `target/` of the crate).
fn target_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        std::path::PathBuf::from,
    )
}

#[test]
fn a_program_outside_the_crate_uses_the_public_api() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "run",
            "--quiet",
            "--offline",
            "-p",
            "tracelint-outside",
            "--target-dir",
        ])
        .arg(target_dir().join("outside"))
        .arg("--")
        .arg(root)
        .current_dir(root)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    insta::assert_snapshot!(stdout);
}

/// `lint_paths` is `check` as a library: its report, rendered, is what the binary prints for the
/// same inputs and settings, in every output format; and each trace is told once, in input order,
/// the same order on every run whatever the threads.
#[test]
fn lint_paths_is_check_and_tells_every_trace_in_order() {
    use tracelint::{Linter, OutputFormat, RuleId, Tier};
    let inputs = [
        "fixtures/rules",
        "fixtures/otel",
        "fixtures/claude",
        "fixtures/quickstart",
    ];
    let tools = "fixtures/quickstart/tools.json";
    let linter = |jobs| {
        Linter::builder()
            .tools(tools)
            .ignore([RuleId::R5])
            .fail_on(Tier::HardEvent)
            .jobs(jobs)
            .build()
            .unwrap()
    };
    let mut told = Vec::new();
    let report = linter(2)
        .lint_paths(inputs, |t| {
            told.push((t.path.to_owned(), t.run_id.to_owned(), t.findings.to_vec()));
        })
        .unwrap();
    assert!(told.len() > 10, "{} traces", told.len());
    let mut again = Vec::new();
    linter(1)
        .lint_paths(inputs, |t| {
            again.push((t.path.to_owned(), t.run_id.to_owned(), t.findings.to_vec()));
        })
        .unwrap();
    assert_eq!(
        told, again,
        "the same traces in the same order with 1 or 2 threads"
    );
    // Inputs in the order given.
    let first_of = |dir: &str| told.iter().position(|(p, _, _)| p.starts_with(dir));
    let order: Vec<_> = inputs.iter().map(|d| first_of(d)).collect();
    assert!(
        order.iter().all(Option::is_some) && order.is_sorted(),
        "{order:?}"
    );
    // Every finding listed was told with its trace, and nothing else was.
    let mut all: Vec<_> = told.iter().flat_map(|(_, _, f)| f.clone()).collect();
    let mut listed = report.findings().to_vec();
    let key = |f: &tracelint::Finding| {
        (
            f.run_id().to_owned(),
            f.line_column(),
            f.rule(),
            f.message().to_owned(),
        )
    };
    all.sort_by_key(key);
    listed.sort_by_key(key);
    assert_eq!(all, listed);
    for format in ["json", "sarif", "text", "github", "json-lines"] {
        let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
            .args(["check", "--no-config", "--tools", tools, "--ignore", "R5"])
            .args(["--fail-on", "hard-event", "--output-format", format])
            .args(inputs)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let mut ours = Vec::new();
        report
            .render(OutputFormat::parse(format).unwrap(), &mut ours)
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&out.stdout),
            "{format}"
        );
        assert_eq!(
            i32::from(report.exit().code()),
            out.status.code().unwrap(),
            "{format}"
        );
    }
}

/// A `phoenix:` source that cannot be read stops the run before anything is linted, with the
/// command's message, through `lint_paths` and `lint_phoenix` alike; a malformed source or
/// window is refused before any request.
#[test]
fn a_phoenix_source_that_cannot_be_read_is_an_error() {
    use tracelint::{Error, Linter, PhoenixOptions};
    let linter = Linter::builder().build().unwrap();
    // Nothing listens on port 1 of the loopback address.
    let source = "phoenix:http://127.0.0.1:1/projects/agents";
    let told = std::cell::Cell::new(0);
    let err = linter
        .lint_paths(["fixtures/quickstart", source], |_| {
            told.set(told.get() + 1)
        })
        .unwrap_err();
    assert!(matches!(err, Error::Phoenix(_)), "{err:?}");
    assert!(err.to_string().starts_with(source), "{err}");
    assert_eq!(
        told.get(),
        0,
        "nothing is linted before every source is read"
    );
    let err = linter
        .lint_phoenix(source, &PhoenixOptions::new())
        .unwrap_err();
    assert!(err.to_string().starts_with(source), "{err}");
    let err = linter
        .lint_phoenix("phoenix:ftp://127.0.0.1:1", &PhoenixOptions::new())
        .unwrap_err();
    assert!(
        err.to_string().contains("Phoenix speaks http or https"),
        "{err}"
    );
    let window = PhoenixOptions::new()
        .since("2026-07-02")
        .until("2026-07-01");
    let err = linter.lint_phoenix(source, &window).unwrap_err();
    assert_eq!(err.to_string(), "since must be before until");
    let err = linter
        .lint_phoenix(source, &PhoenixOptions::new().since("yesterday"))
        .unwrap_err();
    assert!(
        err.to_string().starts_with("since `yesterday`: expected"),
        "{err}"
    );
}
