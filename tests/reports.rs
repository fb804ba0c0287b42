//! Report contracts checked on the real binary: every JSON report validates against the
//! repository's JSON Schema, and untrusted text never reaches the terminal raw.

use std::process::Command;

fn tracelint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("run tracelint")
}

fn report_schema() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../src/reporters/report.schema.json")).unwrap();
    jsonschema::validator_for(&schema).expect("the report schema compiles")
}

#[test]
fn json_reports_validate_against_the_schema() {
    let validator = report_schema();
    let runs: &[&[&str]] = &[
        &[
            "check",
            "fixtures/quickstart/transcript.json",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--output-format",
            "json",
        ],
        &[
            "check",
            "fixtures/cli/broken-middle.jsonl",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--output-format",
            "json",
        ],
        &[
            "check",
            "fixtures/cli/clean.json",
            "--output-format",
            "json",
        ],
        &[
            "check",
            "fixtures/cli/nope.json",
            "fixtures/cli/escape.json",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--output-format",
            "json",
        ],
        &[
            "check",
            "fixtures/cli",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--output-format",
            "json",
            "--fail-on",
            "candidate",
        ],
        // Every contract rule's findings and coverage units (R8-R13), in three input formats.
        &[
            "check",
            "fixtures/demo/contract-*.json",
            "--tools",
            "fixtures/demo/contracts.json",
            "--output-format",
            "json",
        ],
        // Expectations (E1): every kind met, not met and undecidable, in four input formats.
        &[
            "check",
            "fixtures/rules/e1",
            "--tools",
            "fixtures/rules/e1/tools.json",
            "--expect",
            "fixtures/rules/e1/expect.toml",
            "--output-format",
            "json",
        ],
    ];
    let mut rules_seen = std::collections::BTreeSet::new();
    for args in runs {
        let out = tracelint(args);
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}");
        assert_eq!(
            Some(value["exit_code"].as_i64().unwrap() as i32),
            out.status.code(),
            "{args:?}"
        );
        for f in value["findings"].as_array().unwrap() {
            rules_seen.insert(f["rule"].as_str().unwrap().to_owned());
        }
    }
    for id in ["R8", "R9", "R10", "R11", "R12", "R13", "E1"] {
        assert!(rules_seen.contains(id), "no {id} finding in any report");
    }
}

#[test]
fn the_html_report_shows_the_contract_rules() {
    let out = tracelint(&[
        "check",
        "fixtures/demo/contract-*-planted.json",
        "--tools",
        "fixtures/demo/contracts.json",
        "--output-format",
        "html",
    ]);
    let html = String::from_utf8(out.stdout).unwrap();
    for (id, kind) in [
        ("R8", "duplicate_side_effect"),
        ("R9", "unmet_precondition"),
        ("R10", "result_contract_violation"),
        ("R11", "contract_drift"),
        ("R12", "unresolved_side_effect"),
        ("R13", "off_limits_source"),
    ] {
        assert!(html.contains(id) && html.contains(kind), "{id} {kind}");
    }
    assert!(
        !html.contains("<script"),
        "the page is self-contained, with no script"
    );
}

#[test]
fn side_output_json_file_is_written_whatever_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let out = tracelint(&[
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(report_schema().is_valid(&value));
    assert_eq!(value["summary"]["hard_defect"], 2);
    // Text still went to stdout.
    assert!(String::from_utf8_lossy(&out.stdout).contains("hard_defect R1 cancel_order"));
}

#[test]
fn control_characters_in_trace_content_are_escaped() {
    let out = tracelint(&[
        "check",
        "fixtures/cli/escape.json",
        "--tools",
        "fixtures/quickstart/tools.json",
        "--include-candidates",
        "--color",
        "never",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    for bad in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(
            !stdout.contains(bad),
            "raw {bad:?} reached the terminal:\n{stdout}"
        );
    }
    // The tool name's OSC sequence is shown, escaped, so the reader sees what the agent sent.
    assert!(
        stdout.contains(r"candidate R7 \x1b]0;pwned\x07get_order:"),
        "{stdout}"
    );
    // Arguments are shown as JSON text, whose own escapes keep them on one line.
    assert!(stdout.contains(r#"\u001b[31mred"#), "{stdout}");
}

#[test]
fn color_always_paints_and_never_does_not() {
    let args = [
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
    ];
    let on = tracelint(&[&args[..], &["--color", "always"]].concat());
    assert!(on.stdout.contains(&0x1b), "no ANSI with --color always");
    let off = tracelint(&[&args[..], &["--color", "never"]].concat());
    assert!(!off.stdout.contains(&0x1b));
}

#[test]
fn the_html_and_sarif_reports_show_expectations() {
    let args = |format: &'static str| {
        [
            "check",
            "fixtures/rules/e1/fail_bad.json",
            "fixtures/rules/e1/suppressed_noresult.json",
            "--tools",
            "fixtures/rules/e1/tools.json",
            "--expect",
            "fixtures/rules/e1/expect.toml",
            "--select",
            "E1",
            "--output-format",
            format,
        ]
    };
    let out = tracelint(&args("html"));
    assert_eq!(out.status.code(), Some(2));
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.contains("E1") && html.contains("expectation_not_met"));
    // The diff: the expected value and the one the run used.
    assert!(html.contains("ord_7Hk2Qp") && html.contains("ord_STALE9"));
    // The undecidable expectations are disclosed.
    assert!(html.contains("cannot decide expectation"), "{html}");
    let out = tracelint(&args("sarif"));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let e1: Vec<_> = results.iter().filter(|r| r["ruleId"] == "E1").collect();
    assert!(
        e1.iter().any(|r| r.get("suppressions").is_none()),
        "findings"
    );
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(rules.iter().any(|r| r["id"] == "E1"));
}
