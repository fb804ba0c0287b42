//! `tracelint tools lint` on the real binary: SARIF valid against the official schema with each
//! region at the offending key's line:col, the JSON report valid against its schema, exit codes,
//! input errors at file:line (exit 3), reasoned ignores from `tracelint.toml`, the other outputs,
//! and every source form that needs no network (files of several shapes, traces, built-ins).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn tracelint_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(dir)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("NO_COLOR", "1")
        .output()
        .expect("run tracelint")
}

fn tracelint(args: &[&str]) -> Output {
    tracelint_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

fn validator(path: &Path) -> jsonschema::Validator {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the schema must be at {}: {e}", path.display()));
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).expect("schema compiles")
}

fn assert_valid(v: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

/// The text at 1-based `line:col` (columns in characters) of `file`.
fn text_at(file: &str, line: u64, col: u64) -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let l = text.lines().nth(line as usize - 1).unwrap();
    l.chars().skip(col as usize - 1).collect()
}

const RULES: &[&str] = &[
    "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12", "T13",
];

fn fail_files(rule: &str) -> Vec<String> {
    let mut files = vec![format!("fixtures/tools-lint/{rule}/fail.json")];
    let other = format!("fixtures/tools-lint/{rule}/fail-other.json");
    if Path::new(env!("CARGO_MANIFEST_DIR")).join(&other).is_file() {
        files.push(other);
    }
    files
}

#[test]
fn sarif_validates_and_each_region_is_the_offending_key() {
    let sarif = validator(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sarif/sarif-schema-2.1.0.json"),
    );
    // What the text at each result's region must start with, per rule.
    let expected: &[(&str, &[&str])] = &[
        ("T1", &["\"type\""]),
        ("T2", &["\"$ref\""]),
        ("T3", &["\"path\"", "\"uri\""]),
        ("T4", &["\"default\"", "3"]),
        ("T5", &["\"minimum\"", "\"minLength\""]),
        ("T6", &["\"inputSchema\""]),
        ("T7", &["\"name\""]),
        ("T8", &["\"name\""]),
        ("T9", &["\"name\""]),
        ("T10", &["\"name\"", "\"q\"", "\"description\"", "\"url\""]),
        ("T11", &["\"description\""]),
        ("T12", &["\"description\""]),
        ("T13", &["\"tools\""]),
    ];
    for rule in RULES {
        let files = fail_files(rule);
        let mut args = vec![
            "tools",
            "lint",
            "--no-config",
            "--format",
            "sarif",
            "--select",
            rule,
        ];
        args.extend(files.iter().map(String::as_str));
        let out = tracelint(&args);
        let log = json(&out.stdout);
        assert_valid(&sarif, &log, rule);
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{rule}: no results");
        let starts = expected.iter().find(|(r, _)| r == rule).unwrap().1;
        for res in results {
            assert_eq!(res["ruleId"], *rule);
            let loc = &res["locations"][0]["physicalLocation"];
            let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
            assert!(uri.starts_with("fixtures/tools-lint/"), "{uri}");
            let line = loc["region"]["startLine"].as_u64().unwrap();
            let col = loc["region"]["startColumn"].as_u64().unwrap();
            let at = text_at(uri, line, col);
            assert!(
                starts.iter().any(|s| at.starts_with(s)),
                "{rule}: {uri}:{line}:{col} is `{at}`, not one of {starts:?}"
            );
        }
    }
}

#[test]
fn the_json_report_validates_and_counts_tools() {
    let schema =
        validator(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/reporters/report.schema.json"));
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "--format",
        "json",
        "fixtures/tools-lint/T4/fail.json",
        "fixtures/tools-lint/T12/fail.json",
    ]);
    let report = json(&out.stdout);
    assert_valid(&schema, &report, "json report");
    assert_eq!(report["summary"]["tools"], 2);
    assert_eq!(report["exit_code"], 2);
    let t12: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "T12")
        .collect();
    assert!(!t12.is_empty());
    for f in t12 {
        assert_eq!(f["tier"], "candidate");
        assert_eq!(f["possible_false_positive"], true);
        assert!(f["signal"].is_string(), "{f}");
    }
}

#[test]
fn exit_codes_follow_the_gate() {
    let code = |args: &[&str]| tracelint(args).status.code().unwrap();
    fn lint<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        let mut a = vec!["tools", "lint", "--no-config"];
        a.extend(extra);
        a
    }
    assert_eq!(code(&lint(&["fixtures/tools-lint/T5/fail.json"])), 2);
    assert_eq!(code(&lint(&["fixtures/tools-lint/T5/pass.json"])), 0);
    // Hard events and candidates fail only past a lowered gate.
    assert_eq!(code(&lint(&["fixtures/tools-lint/T10/fail.json"])), 0);
    assert_eq!(
        code(&lint(&[
            "fixtures/tools-lint/T10/fail.json",
            "--fail-on",
            "hard-event"
        ])),
        1
    );
    assert_eq!(
        code(&lint(&[
            "fixtures/tools-lint/T12/fail.json",
            "--fail-on",
            "candidate"
        ])),
        1
    );
    assert_eq!(
        code(&lint(&["fixtures/tools-lint/T5/fail.json", "--exit-zero"])),
        0
    );
    // --select / --ignore pick tool rules.
    assert_eq!(
        code(&lint(&[
            "fixtures/tools-lint/T5/fail.json",
            "--ignore",
            "T5"
        ])),
        0
    );
    assert_eq!(
        code(&lint(&[
            "fixtures/tools-lint/T5/fail.json",
            "--select",
            "T7"
        ])),
        0
    );
    let out = tracelint(&lint(&[
        "fixtures/tools-lint/T5/fail.json",
        "--select",
        "R1",
    ]));
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("R1 is a trace rule"));
}

#[test]
fn a_bad_source_is_an_input_error_at_its_line_and_the_others_are_still_linted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.json"),
        "{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchem\": {}}\n  ]\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("broken.json"),
        "{\"tools\": [\n  {\"name\": \n",
    )
    .unwrap();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    std::fs::write(dir.path().join("deep.json"), deep).unwrap();
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tools-lint/T5/fail.json");
    let out = tracelint_in(
        dir.path(),
        &[
            "tools",
            "lint",
            "--no-config",
            "bad.json",
            "broken.json",
            "deep.json",
            "missing.json",
            good.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("bad.json:3:19: input_error: tools[0]: unknown key `inputSchem`"),
        "{stdout}"
    );
    assert!(stdout.contains("broken.json:3: input_error"), "{stdout}");
    assert!(stdout.contains("deep.json:1:"), "{stdout}");
    assert!(stdout.contains("missing.json: input_error"), "{stdout}");
    assert!(stdout.contains("hard_defect T5 page"), "{stdout}");
}

#[test]
fn a_reasoned_ignore_in_the_config_silences_and_discloses() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tools-lint/T5/fail.json"),
        &tools,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("tracelint.toml"),
        "[[ignore]]\nrule = \"T5\"\ntool = \"page\"\nreason = \"the bounds are swapped on purpose in this fixture\"\n",
    )
    .unwrap();
    let out = tracelint_in(
        dir.path(),
        &["tools", "lint", "tools.json", "--format", "json"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out.stdout);
    assert_eq!(report["findings"].as_array().unwrap().len(), 0);
    let ignored = report["ignored"].as_array().unwrap();
    assert_eq!(ignored.len(), 2);
    assert!(ignored[0].to_string().contains("swapped on purpose"));
}

#[test]
fn github_html_and_text_outputs_carry_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "--format",
        "github",
        "--html",
        html.to_str().unwrap(),
        "fixtures/tools-lint/T5/fail.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("::error file=fixtures/tools-lint/T5/fail.json,line=12,"),
        "{stdout}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("T5") && page.contains("contradictory_keywords"));
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "fixtures/tools-lint/T5/fail.json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("fixtures/tools-lint/T5/fail.json:12:13: hard_defect T5 page"),
        "{text}"
    );
    assert!(
        text.contains("linted 1 tool definition from 1 source"),
        "{text}"
    );
}

#[test]
fn traces_and_built_ins_are_sources_too() {
    // A logged request's `tools` (read as a tools file, with locations).
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "--format",
        "json",
        "fixtures/openai/request-with-tools.json",
    ]);
    let report = json(&out.stdout);
    assert_eq!(report["summary"]["tools"], 2);
    // A Langfuse export's embedded schemas (descriptions not kept: disclosed).
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "--format",
        "json",
        "fixtures/real/langfuse/openai-agents-2025-09-30.trace.json",
    ]);
    let report = json(&out.stdout);
    assert_eq!(report["summary"]["tools"], 1);
    assert!(
        report["suppressions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["rule"] == "T10")
    );
    // A trace with no schemas is an input error that says so.
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "fixtures/real/codex/codex-0.171.0-exec-command.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("embeds no tool schemas"));
    // Built-ins: valid, descriptions disclosed as not judged.
    for b in ["builtin:claude-code", "builtin:codex", "builtin:gemini-cli"] {
        let out = tracelint(&["tools", "lint", "--no-config", "--format", "json", b]);
        assert_eq!(out.status.code(), Some(0), "{b}");
        let report = json(&out.stdout);
        assert!(report["summary"]["tools"].as_u64().unwrap() > 10, "{b}");
    }
}

#[test]
fn check_refuses_a_tool_rule_and_tools_lint_a_trace_rule() {
    let out = tracelint(&[
        "check",
        "--no-config",
        "fixtures/openai/request-with-tools.json",
        "--select",
        "T1",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("T1 is a tool rule"));
    let out = tracelint(&[
        "tools",
        "lint",
        "--no-config",
        "fixtures/tools-lint/T5/fail.json",
        "--ignore",
        "R3",
    ]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn all_names_every_tool_rule() {
    let code = |extra: &str| {
        tracelint(&[
            "tools",
            "lint",
            "--no-config",
            "fixtures/tools-lint/T5/fail.json",
            extra,
            "ALL",
        ])
        .status
        .code()
    };
    assert_eq!(code("--select"), Some(2));
    assert_eq!(code("--ignore"), Some(0));
}
