//! Acceptance 1: action.yml's steps run the way a runner runs them (see `runner`), with the
//! binary restored from a seeded cache, on docs/ci.md's workflow inputs: the step's outputs, the
//! job summary, the report file and the pass/fail decision, for a hard defect, a clean trace,
//! each `fail-on` and the exit-code contract. Installs with `cargo` are in `install.rs`.

use crate::job::{Job, readme_with};
use crate::support::{files_under, require_tool};

fn jq_present() -> bool {
    require_tool("jq").is_some()
}

/// Inputs as the runner wants them.
fn with_of(pairs: &[(String, String)]) -> Vec<(&str, &str)> {
    pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

#[test]
fn readme_workflow_on_a_hard_defect_fails_with_annotations_summary_and_sarif() {
    if !jq_present() {
        return;
    }
    let mut job = Job::new();
    let pairs = readme_with();
    let with = with_of(&pairs);
    job.seed_cache(&with);
    let cargo_calls = job.fake_cargo("exit 97");
    let before = files_under(&job.runner.workspace);
    let run = job.runner.run(&with);

    assert!(!cargo_calls.exists(), "a cache hit must not run cargo");
    assert!(run.failed, "a hard defect fails the step");
    assert_eq!(run.step("lint").code, Some(2));
    assert_eq!(run.output("exit-code"), "2");
    assert_eq!(run.output("hard-defects"), "1");
    assert_eq!(run.output("findings-count"), "1");
    let report = std::path::PathBuf::from(run.output("report-path"));
    assert!(
        report.starts_with(&job.runner.temp),
        "{report:?} is in RUNNER_TEMP"
    );
    assert_eq!(
        before,
        files_under(&job.runner.workspace),
        "nothing written to the workspace"
    );

    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).expect("JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "R1");
    let at = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(
        at["artifactLocation"]["uri"],
        "transcripts/team-a/r1-violation.jsonl"
    );
    assert_eq!(at["region"]["startLine"], 2);

    // docs/ci.md's upload step would run, on that file.
    let steps = std::collections::BTreeMap::from([("tracelint".to_owned(), run.outputs.clone())]);
    let cx = crate::runner::Context::with_steps(steps);
    let wf = crate::runner::yaml(
        &crate::support::repo().join("tests/distribution/snippets/workflow.yml"),
    );
    let upload = wf["jobs"]["traces"]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("upload-sarif"))
        })
        .expect("an upload-sarif step");
    assert!(crate::runner::eval_condition(
        upload["if"].as_str().expect("if"),
        &cx
    ));
    let sarif_file = upload["with"]["sarif_file"].as_str().expect("sarif_file");
    assert_eq!(
        crate::runner::eval_template(sarif_file, &cx),
        report.display().to_string()
    );

    insta::assert_snapshot!(job.render(&run));
}

#[test]
fn clean_trace_passes_with_a_json_report_where_asked() {
    if !jq_present() {
        return;
    }
    let mut job = Job::new();
    let with = [
        ("traces", "transcripts/clean.jsonl"),
        ("tools", "tools.json"),
        ("output-format", "json"),
        ("report-path", "reports/tracelint.json"),
    ];
    job.seed_cache(&with);
    job.fake_cargo("exit 97");
    let run = job.runner.run(&with);

    assert!(!run.failed, "{}", job.render(&run));
    assert_eq!(run.step("lint").code, Some(0));
    assert_eq!(run.output("exit-code"), "0");
    assert_eq!(run.output("findings-count"), "0");
    assert_eq!(run.output("hard-defects"), "0");
    let report = job.runner.workspace.join("reports/tracelint.json");
    assert_eq!(run.output("report-path"), report.display().to_string());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).expect("JSON");
    assert_eq!(json["summary"]["traces"], 2);
    assert_eq!(json["exit_code"], 0);
    insta::assert_snapshot!(job.render(&run));
}

/// One scenario of the exit-code contract: inputs, then the step's failure, the `exit-code` and
/// `findings-count` outputs, and a line the log must show.
struct Case {
    with: &'static [(&'static str, &'static str)],
    fails: bool,
    exit_code: &'static str,
    findings: &'static str,
    log: &'static str,
    summary: &'static str,
}

#[test]
fn step_fails_by_the_exit_code_contract_and_input_errors_always_fail() {
    if !jq_present() {
        return;
    }
    let defect: &[(&str, &str)] = &[("traces", "transcripts/"), ("tools", "tools.json")];
    let cases = [
        Case {
            with: &[
                ("traces", "transcripts/"),
                ("tools", "tools.json"),
                ("fail-on", "never"),
            ],
            fails: false,
            exit_code: "2",
            findings: "1",
            log: "tracelint: exit 2, not failing the step (fail-on: never)",
            summary: "| 1 | 0 | 0 | 0 | 0 | 0 | 2 |",
        },
        Case {
            with: defect,
            fails: true,
            exit_code: "2",
            findings: "1",
            log: "::error file=transcripts/team-a/r1-violation.jsonl,line=2,col=133,",
            summary: "| 1 | 0 | 0 | 0 | 0 | 0 | 2 |",
        },
        Case {
            with: &[("traces", "other/*.jsonl"), ("tools", "tools.json")],
            fails: false,
            exit_code: "0",
            findings: "1",
            log: "::notice file=other/candidate.jsonl,line=1,col=",
            summary: "| 0 | 0 | 1 | 0 | 0 | 0 | 0 |",
        },
        Case {
            with: &[
                ("transcript", "other/*.jsonl"),
                ("tools", "tools.json"),
                ("fail-on", "candidate"),
            ],
            fails: true,
            exit_code: "1",
            findings: "1",
            log: "title=R7 candidate grep_files::tool `grep_files` is not declared",
            summary: "| 0 | 0 | 1 | 0 | 0 | 0 | 1 |",
        },
        Case {
            // Two sources, one per line, with the spaces a YAML block leaves.
            with: &[
                ("traces", "other/*.jsonl"),
                ("tools", "tools.json\n  more-tools.json \n"),
                ("fail-on", "candidate"),
            ],
            fails: false,
            exit_code: "0",
            findings: "0",
            log: "tracelint: 0 hard_defects, 0 hard_events, 0 candidates in 1 trace",
            summary: "| 0 | 0 | 0 | 0 | 0 | 0 | 0 |",
        },
        Case {
            // The config file's `tools` and `fail-on` apply.
            with: &[("traces", "other/"), ("config", "ci/tracelint.toml")],
            fails: true,
            exit_code: "1",
            findings: "1",
            log: "title=R7 candidate grep_files::",
            summary: "| 0 | 0 | 1 | 0 | 0 | 0 | 1 |",
        },
        Case {
            // A forced format is passed on: these native traces are not Langfuse exports.
            with: &[
                ("traces", "transcripts/clean.jsonl"),
                ("tools", "tools.json"),
                ("input-format", "langfuse"),
            ],
            fails: true,
            exit_code: "3",
            findings: "0",
            log: "::error file=transcripts/clean.jsonl,",
            summary: "| 0 | 0 | 0 | 0 | 0 | 2 | 3 |",
        },
        Case {
            with: &[
                ("traces", "missing.jsonl"),
                ("tools", "tools.json"),
                ("fail-on", "never"),
            ],
            fails: true,
            exit_code: "3",
            findings: "0",
            log: "::error file=missing.jsonl,title=tracelint input error::",
            summary: "| 0 | 0 | 0 | 0 | 0 | 1 | 3 |",
        },
        Case {
            with: &[
                ("traces", "transcripts/"),
                ("args", "--no-such-flag"),
                ("fail-on", "never"),
            ],
            fails: true,
            exit_code: "3",
            findings: "",
            log: "tracelint exited with code 3 before writing a report",
            summary: "tracelint exited with code 3 before writing a report",
        },
        Case {
            with: &[("traces", "transcripts/"), ("output-format", "xml")],
            fails: true,
            exit_code: "3",
            findings: "",
            log: "input `output-format` (or `format`) must be sarif, json, html or text, not `xml`",
            summary: "The action could not run tracelint: input `output-format`",
        },
        Case {
            with: &[("tools", "tools.json")],
            fails: true,
            exit_code: "3",
            findings: "",
            log: "input `traces` (or `transcript`) is empty",
            summary: "The action could not run tracelint: input `traces`",
        },
    ];
    let mut job = Job::new();
    job.seed_cache(&[]);
    job.fake_cargo("exit 97");
    for case in &cases {
        let run = job.runner.run(case.with);
        let shown = job.render(&run);
        assert_eq!(run.failed, case.fails, "{:?}\n{shown}", case.with);
        assert_eq!(
            run.output("exit-code"),
            case.exit_code,
            "{:?}\n{shown}",
            case.with
        );
        assert_eq!(
            run.output("findings-count"),
            case.findings,
            "{:?}\n{shown}",
            case.with
        );
        assert!(
            run.log().contains(case.log),
            "{:?}: no `{}` in\n{shown}",
            case.with,
            case.log
        );
        if case.fails {
            let lint = run.step("lint").code.expect("the lint step ran");
            assert_eq!(
                lint.to_string(),
                case.exit_code,
                "the step exits with tracelint's code"
            );
        }
        assert!(
            run.summary.contains(case.summary),
            "{:?}: no `{}` in\n{shown}",
            case.with,
            case.summary
        );
    }
}

#[test]
fn an_old_report_never_passes_for_this_run() {
    if !jq_present() {
        return;
    }
    let mut job = Job::new();
    let old = job.runner.workspace.join("reports/tracelint.json");
    std::fs::create_dir_all(old.parent().expect("a folder")).expect("create reports/");
    std::fs::write(
        &old,
        r#"{"findings": [1, 2, 3], "summary": {"hard_defect": 3}}"#,
    )
    .expect("write an old report");
    job.seed_cache(&[]);
    job.fake_cargo("exit 97");
    let run = job.runner.run(&[
        ("traces", "transcripts/"),
        ("output-format", "json"),
        ("report-path", "reports/tracelint.json"),
        ("args", "--no-such-flag"),
    ]);
    assert!(run.failed);
    assert_eq!(run.output("exit-code"), "3");
    assert_eq!(run.output("findings-count"), "");
    assert_eq!(run.output("report-path"), "");
    assert!(!old.exists(), "the old report was removed before the run");
}

/// Seed 000's action inputs, mapped onto ours: `format` (text, json, sarif) is the report file's
/// format, `fail-on-blockers: false` reports without failing (`fail-on: never`), `true` fails by
/// `fail-on`; contradictions and bad values are usage errors (exit 3).
#[test]
fn seed_000_inputs_format_and_fail_on_blockers() {
    if !jq_present() {
        return;
    }
    let mut job = Job::new();
    job.seed_cache(&[]);
    job.fake_cargo("exit 97");
    let defect = [("transcript", "transcripts/"), ("tools", "tools.json")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut w = defect.to_vec();
        w.extend_from_slice(extra);
        w
    };
    let report_of = |run: &crate::runner::ActionRun| {
        std::fs::read_to_string(run.output("report-path")).expect("the report file")
    };

    // format: text → the report file is the text report.
    let run = job.runner.run(&with(&[("format", "text")]));
    assert!(run.failed, "{}", job.render(&run));
    assert_eq!(run.output("exit-code"), "2");
    assert!(run.output("report-path").ends_with("tracelint.text"));
    let text = report_of(&run);
    assert!(
        text.contains("transcripts/team-a/r1-violation.jsonl:2:133: hard_defect R1"),
        "{text}"
    );
    assert!(text.contains("1 hard_defect, 0 hard_events"), "{text}");
    assert!(!text.contains('\u{1b}'), "no colour in a file");

    // format: json and format: sarif are those reports.
    let run = job.runner.run(&with(&[("format", "json")]));
    let json: serde_json::Value = serde_json::from_str(&report_of(&run)).expect("JSON");
    assert_eq!(json["summary"]["hard_defect"], 1);
    let run = job.runner.run(&with(&[("format", "sarif")]));
    let sarif: serde_json::Value = serde_json::from_str(&report_of(&run)).expect("SARIF");
    assert_eq!(sarif["version"], "2.1.0");

    // fail-on-blockers: false reports the defect without failing; true fails on it.
    let run = job.runner.run(&with(&[("fail-on-blockers", "false")]));
    assert!(!run.failed, "{}", job.render(&run));
    assert_eq!(run.output("exit-code"), "2");
    assert_eq!(run.output("hard-defects"), "1");
    assert!(
        run.log()
            .contains("tracelint: exit 2, not failing the step (fail-on-blockers: false)"),
        "{}",
        job.render(&run)
    );
    let run = job.runner.run(&with(&[("fail-on-blockers", "true")]));
    assert!(run.failed);
    assert_eq!(run.step("lint").code, Some(2));
    // An input error still fails the step with fail-on-blockers: false.
    let run = job.runner.run(&[
        ("transcript", "missing.jsonl"),
        ("fail-on-blockers", "false"),
    ]);
    assert!(run.failed);
    assert_eq!(run.output("exit-code"), "3");

    for (extra, message) in [
        (
            &[("fail-on-blockers", "maybe")][..],
            "input `fail-on-blockers` must be true or false, not `maybe`",
        ),
        (
            &[("fail-on-blockers", "false"), ("fail-on", "candidate")][..],
            "input `fail-on-blockers: false` reports without failing, but `fail-on: candidate` asks to fail",
        ),
        (
            &[("fail-on-blockers", "true"), ("fail-on", "never")][..],
            "input `fail-on-blockers: true` asks to fail, but `fail-on: never` never does",
        ),
        (
            &[("format", "json"), ("output-format", "html")][..],
            "inputs `format` (json) and `output-format` (html) disagree",
        ),
    ] {
        let run = job.runner.run(&with(extra));
        assert!(run.failed, "{extra:?}");
        assert_eq!(run.output("exit-code"), "3", "{extra:?}");
        assert!(
            run.log().contains(message),
            "{extra:?}: {}",
            job.render(&run)
        );
    }
}
