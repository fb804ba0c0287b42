//! The report formats on the real binary: every SARIF log the suite produces validates against the
//! official SARIF 2.1.0 schema and meets GitHub's ingestion rules; fingerprints are stable across
//! runs; side outputs are written together whatever the exit code; GitHub output appends the step
//! summary; JSON Lines records are self-describing.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn tracelint_env(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tracelint"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run tracelint")
}

fn tracelint(args: &[&str]) -> Output {
    tracelint_env(args, &[])
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

/// The SARIF 2.1.0 schema (`fixtures/sarif/`: the SARIF SDK's copy with errata 01's constraints).
fn sarif_schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sarif/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the official SARIF schema must be at {}: {e}",
            path.display()
        )
    });
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).expect("schema compiles")
}

/// Schema validity plus what GitHub code scanning needs beyond it.
fn check_sarif(validator: &jsonschema::Validator, log: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for r in rules {
        for key in ["id", "name"] {
            assert!(
                r[key].as_str().is_some_and(|s| !s.is_empty()),
                "{what}: rule {key}"
            );
        }
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(
                r[key]["text"].as_str().is_some_and(|s| !s.is_empty()),
                "{what}: {key}"
            );
        }
        assert!(
            r["fullDescription"]["text"]
                .as_str()
                .unwrap()
                .chars()
                .count()
                <= 1024
        );
        assert!(r["help"]["markdown"].as_str().is_some());
        assert!(r["defaultConfiguration"]["level"].as_str().is_some());
    }
    for res in run["results"].as_array().unwrap() {
        let index = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], res["ruleId"], "{what}: ruleIndex");
        assert!(
            res["message"]["text"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
        let loc = &res["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            !uri.is_empty()
                && !uri.starts_with('/')
                && !uri.contains("..")
                && !uri.contains(':')
                && !uri.contains('\\'),
            "{what}: uri `{uri}`"
        );
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(loc["region"]["startColumn"].as_u64().unwrap() >= 1);
        let prints = res["partialFingerprints"].as_object().unwrap();
        assert_eq!(
            prints.keys().collect::<Vec<_>>(),
            ["primaryLocationLineHash"],
            "{what}: only the key code scanning reads"
        );
    }
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().unwrap()
}

#[test]
fn every_sarif_log_validates_against_the_official_schema() {
    let validator = sarif_schema();
    let rules = json(&tracelint(&["rules", "--json"]).stdout);
    let ids: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let mut runs: Vec<Vec<String>> = ids
        .iter()
        .map(|id| {
            if id.starts_with('T') {
                // A tool rule (`tools lint`): its planted fixture (T8's spans two files).
                let dir = format!("fixtures/tools-lint/{id}");
                let mut args: Vec<String> =
                    ["tools", "lint", "--no-config"].map(String::from).into();
                args.push(format!("{dir}/fail.json"));
                if Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("{dir}/fail-other.json"))
                    .is_file()
                {
                    args.push(format!("{dir}/fail-other.json"));
                }
                args.extend(["--output-format".into(), "sarif".into()]);
                return args;
            }
            let dir = format!("fixtures/rules/{}", id.to_lowercase());
            let mut args = vec![
                "check".into(),
                dir.clone(),
                "--tools".into(),
                format!("{dir}/tools.json"),
                "--output-format".into(),
                "sarif".into(),
            ];
            // E1 checks the expectations it is given (its folder carries them).
            if std::path::Path::new(&dir).join("expect.toml").is_file() {
                args.extend(["--expect".into(), format!("{dir}/expect.toml")]);
            }
            args
        })
        .collect();
    let more: &[&[&str]] = &[
        // An ignored finding.
        &[
            "check",
            "fixtures/quickstart/transcript.json",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--config",
            "fixtures/reports/ignore-r7.toml",
            "--output-format",
            "sarif",
        ],
        // Input errors: a broken line and a missing file.
        &[
            "check",
            "fixtures/cli/broken-middle.jsonl",
            "fixtures/cli/nope.json",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--output-format",
            "sarif",
        ],
        // Hostile text.
        &[
            "check",
            "fixtures/reports/xss.json",
            "fixtures/cli/escape.json",
            "--tools",
            "fixtures/rules/r1/tools.json",
            "--output-format",
            "sarif",
        ],
    ];
    runs.extend(
        more.iter()
            .map(|a| a.iter().map(|s| (*s).to_owned()).collect()),
    );
    let mut rules_seen = std::collections::BTreeSet::new();
    let (mut ignored, mut notified) = (0, 0);
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = tracelint(&args);
        let log = json(&out.stdout);
        check_sarif(&validator, &log, &args.join(" "));
        let inv = &log["runs"][0]["invocations"][0];
        assert_eq!(
            inv["exitCode"].as_i64().map(|c| c as i32),
            out.status.code()
        );
        for r in results(&log) {
            rules_seen.insert(r["ruleId"].as_str().unwrap().to_owned());
            if let Some(s) = r.get("suppressions") {
                assert_eq!(s[0]["kind"], "external");
                assert_eq!(
                    s[0]["justification"],
                    "send_mail is an alias the mail gateway still accepts"
                );
                ignored += 1;
            }
        }
        if inv["executionSuccessful"] == false {
            let notes = inv["toolExecutionNotifications"].as_array().unwrap();
            let uris: Vec<&str> = notes
                .iter()
                .filter(|n| n["level"] == "error")
                .map(|n| {
                    n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                        .as_str()
                        .unwrap()
                })
                .collect();
            assert_eq!(
                uris,
                ["fixtures/cli/broken-middle.jsonl", "fixtures/cli/nope.json"]
            );
            notified += 1;
        }
    }
    let want: std::collections::BTreeSet<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(rules_seen, want, "a finding of every rule");
    assert_eq!((ignored, notified), (1, 1));
}

#[test]
fn fingerprints_are_stable_across_runs_and_uris_follow_the_root() {
    let args = [
        "check",
        "fixtures/rules/r1",
        "--tools",
        "fixtures/rules/r1/tools.json",
        "--output-format",
        "sarif",
    ];
    let prints = |log: &Value| -> Vec<(String, String)> {
        results(log)
            .iter()
            .map(|r| {
                (
                    r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                    r["partialFingerprints"]["primaryLocationLineHash"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            })
            .collect()
    };
    let a = prints(&json(&tracelint(&args).stdout));
    let b = prints(&json(&tracelint(&args).stdout));
    assert!(!a.is_empty());
    assert_eq!(a, b);
    // The default root is the checkout (walked up to `.git`): URIs start at the repository.
    assert!(a[0].0.starts_with("fixtures/rules/r1/"), "{a:?}");
    let rooted = prints(&json(
        &tracelint(&[&args[..], &["--sarif-root", "fixtures"]].concat()).stdout,
    ));
    assert!(rooted[0].0.starts_with("rules/r1/"), "{rooted:?}");
    // Same findings, same fingerprints, whatever the root.
    let hashes = |v: &[(String, String)]| v.iter().map(|p| p.1.clone()).collect::<Vec<_>>();
    assert_eq!(hashes(&rooted), hashes(&a));
}

#[test]
fn side_outputs_are_written_together_before_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let (j, s, h) = (
        dir.path().join("r.json"),
        dir.path().join("r.sarif"),
        dir.path().join("r.html"),
    );
    let out = tracelint(&[
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
        "--json",
        j.to_str().unwrap(),
        "--sarif",
        s.to_str().unwrap(),
        "--html",
        h.to_str().unwrap(),
        "--output-format",
        "json-lines",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let report = json(&std::fs::read(&j).unwrap());
    assert_eq!(report["summary"]["hard_defect"], 2);
    let findings = report["findings"].as_array().unwrap().len();
    assert!(
        findings > 2,
        "the quick start also has hard events and candidates"
    );
    let log = json(&std::fs::read(&s).unwrap());
    check_sarif(&sarif_schema(), &log, "side output");
    assert_eq!(results(&log).len(), findings);
    let html = std::fs::read_to_string(&h).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("cancel_order"));
    // Stdout carried JSON Lines meanwhile: one record per finding, then the input, the trace's
    // outline and the closing run record.
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| json(l.as_bytes()))
        .collect();
    let records: Vec<&Value> = lines
        .iter()
        .filter(|l| l.get("finding").is_some())
        .collect();
    assert_eq!(records.len(), findings);
    for l in &lines {
        assert_eq!(l["tool"]["name"], "tracelint");
    }
    for l in &records {
        assert_eq!(l["finding"]["file"], "fixtures/quickstart/transcript.json");
    }
    let tail: Vec<&str> = lines[findings..]
        .iter()
        .map(|l| {
            ["input", "trace", "run"]
                .into_iter()
                .find(|k| l.get(*k).is_some())
                .unwrap_or("?")
        })
        .collect();
    assert_eq!(tail, ["input", "trace", "run"]);
}

#[test]
fn github_output_appends_the_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "previous step\n").unwrap();
    let args = [
        "check",
        "fixtures/quickstart/transcript.json",
        "--tools",
        "fixtures/quickstart/tools.json",
        "--output-format",
        "github",
    ];
    let out = tracelint_env(&args, &[("GITHUB_STEP_SUMMARY", &summary)]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with(
            "::error file=fixtures/quickstart/transcript.json,line=7,col=5,title=R1 hard_defect cancel_order::"
        ),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("previous step\n## tracelint\n"), "{text}");
    // Two hard defects (R1, R6), the failed `send_email` (R2a), three candidates.
    assert!(text.contains("| 2 | 1 | 3 | 0 | 0 | 0 | 2 |"), "{text}");
    assert!(
        text.contains(
            r"| fixtures\/quickstart\/transcript\.json\:7\:5 | hard_defect | R1 | cancel\_order |"
        ),
        "{text}"
    );
    // A second run appends again, never truncates.
    tracelint_env(&args, &[("GITHUB_STEP_SUMMARY", &summary)]);
    let again = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(again.matches("## tracelint").count(), 2);
    // Other formats leave the summary alone.
    let before = std::fs::read_to_string(&summary).unwrap();
    tracelint_env(&args[..4], &[("GITHUB_STEP_SUMMARY", &summary)]);
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), before);
}

/// A run where an error is ignored, the value it carried reused and an order cancelled with it:
/// its first failure (the error) and the chain that follows are the first thing in the text and
/// JSON reports, and the SARIF log carries the chain as a code flow through the three steps.
#[test]
fn a_runs_first_failure_and_its_chain_come_first_in_text_json_and_sarif() {
    let dir = tempfile::tempdir().unwrap();
    let sarif_path = dir.path().join("chain.sarif");
    let args = [
        "check",
        "fixtures/reports/chain.json",
        "--tools",
        "fixtures/reports/chain-tools.json",
    ];
    let text = tracelint(&args);
    assert_eq!(text.status.code(), Some(2));
    let text = String::from_utf8(text.stdout).unwrap();
    let first: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        first[0],
        "first failure in fixtures/reports/chain.json (run `cancel-after-failed-search`):"
    );
    assert!(
        first[1].contains(":6:5: hard_event R2a search_orders"),
        "{text}"
    );
    assert!(
        first[2].contains("then fixtures/reports/chain.json:9:5: hard_defect R2b"),
        "{text}"
    );
    assert!(
        first[3].contains("line 6) → step 3") && first[3].ends_with("line 9)"),
        "{text}"
    );

    let html_path = dir.path().join("chain.html");
    let out = tracelint(
        &[
            &args[..],
            &[
                "--output-format",
                "json",
                "--sarif",
                sarif_path.to_str().unwrap(),
                "--html",
                html_path.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    let report = json(&out.stdout);
    let schema: Value =
        serde_json::from_str(include_str!("../src/reporters/report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // Written right after the summary, before the findings.
    let raw = String::from_utf8(out.stdout.clone()).unwrap();
    let at = |k: &str| raw.find(&format!("\"{k}\":")).unwrap();
    assert!(at("summary") < at("first_failures") && at("first_failures") < at("findings"));
    let chains = report["first_failures"].as_array().unwrap();
    assert_eq!(chains.len(), 1);
    let chain = &chains[0];
    let first = &report["findings"][chain["first"]["finding"].as_u64().unwrap() as usize];
    assert_eq!(
        (first["rule"].as_str(), first["line"].as_u64()),
        (Some("R2a"), Some(6))
    );
    let follows: Vec<&str> = chain["follows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(follows, ["R2b"]);
    let lines: Vec<u64> = chain["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [6, 7, 9]);

    // The page: the worst-first table, naming the first failure and what follows, comes before
    // everything else; the run's timeline opens on its first failure and the path's steps.
    let page = std::fs::read_to_string(&html_path).unwrap();
    let at = |needle: &str| {
        page.find(needle)
            .unwrap_or_else(|| panic!("{needle} not in the page"))
    };
    assert!(at(r#"<h2 id="worst">"#) < at(r#"<h2 id="summary">"#));
    let row = &page[at(r#"<table class="cards worst">"#)..at(r#"<h2 id="summary">"#)];
    assert!(
        row.contains("R2a search_orders: ") && row.contains("then R2b"),
        "{row}"
    );
    let run = &page[at(r#"<details class="trace""#)..];
    assert!(run.find("First failure:").unwrap() < run.find(r#"<ol class="timeline">"#).unwrap());
    for line in ["line 6</a>", "line 7</a>", "line 9</a>"] {
        assert!(run.contains(line), "{line} in the chain's path");
    }

    let log = json(&std::fs::read(&sarif_path).unwrap());
    check_sarif(&sarif_schema(), &log, "chain");
    let flows: Vec<&Value> = results(&log)
        .iter()
        .filter_map(|r| r.get("codeFlows"))
        .collect();
    assert_eq!(flows.len(), 1, "one result carries the chain");
    let lines: Vec<u64> = flows[0][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["location"]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(lines, [6, 7, 9]);
}

#[test]
fn a_trajectorys_score_and_reasons_reach_json_sarif_and_html() {
    // Google ADK's "3 of 4 expected tools": F1 6/7 with the missing step named, in every format.
    let dir = tempfile::tempdir().unwrap();
    let (s, h) = (dir.path().join("r.sarif"), dir.path().join("r.html"));
    let out = tracelint(&[
        "check",
        "fixtures/expect/adk/three_of_four.json",
        "fixtures/expect/adk/exact.json",
        "--expect",
        "fixtures/expect/adk/expect.toml",
        "--select",
        "E1",
        "--output-format",
        "json",
        "--sarif",
        s.to_str().unwrap(),
        "--html",
        h.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let report = json(&out.stdout);
    let schema: Value =
        serde_json::from_str(include_str!("../src/reporters/report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The exact run meets all three; the 3-of-4 run passes `close-enough` (min_score 0.85) and
    // fails the other two.
    let findings = report["findings"].as_array().unwrap();
    let ids: Vec<&str> = findings
        .iter()
        .map(|f| f["message"].as_str().unwrap().split('`').nth(1).unwrap())
        .collect();
    assert_eq!(ids, ["booking-flow", "nearly-all"]);
    for f in findings {
        assert_eq!(f["file"], "fixtures/expect/adk/three_of_four.json");
        let score = &f["score"];
        assert_eq!(
            (&score["matched"], &score["expected"], &score["actual"]),
            (&Value::from(3), &Value::from(4), &Value::from(3))
        );
        assert!((score["f1"].as_f64().unwrap() - 6.0 / 7.0).abs() < 1e-12);
        assert_eq!(score["edits"][0]["kind"], "missing");
        assert_eq!(score["edits"][0]["tool"], "send_confirmation");
        assert_eq!(score["steps"][3]["matched"], false);
    }
    assert_eq!(findings[0]["score"]["min_score"], Value::Null);
    assert_eq!(findings[1]["score"]["min_score"], 0.9);
    let log = json(&std::fs::read(&s).unwrap());
    check_sarif(&sarif_schema(), &log, "score");
    let text = results(&log)[0]["message"]["text"].as_str().unwrap();
    assert!(
        text.contains("score: F1 0.857 (precision 1.000 = 3/3, recall 0.750 = 3/4)")
            && text.contains("reference #4 `send_confirmation`: never called"),
        "{text}"
    );
    let html = std::fs::read_to_string(&h).unwrap();
    assert!(
        html.contains("score: F1 0.857") && html.contains("reference #4 `send_confirmation`"),
        "the HTML report shows the score and the reasons"
    );
}

/// Inputs written in the order given whatever order the workers finish them in: a big first
/// input keeps one worker busy while the other lints every small one after it, whose findings
/// wait (out of memory, in the run's store) until the big one is written. Two workers write the
/// same text and JSON reports, byte for byte, as one.
#[test]
fn inputs_that_finish_early_wait_and_are_written_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines =
        std::fs::read_to_string(root.join("fixtures/differential/r3-derivability.jsonl")).unwrap();
    let mut big = String::new();
    for k in 0..300 {
        for line in lines.lines() {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let id = format!("{}-{k}", v["run_id"].as_str().unwrap());
            v["run_id"] = Value::String(id);
            big.push_str(&v.to_string());
            big.push('\n');
        }
    }
    std::fs::write(dir.path().join("a-big.jsonl"), big).unwrap();
    let small = std::fs::read(root.join("fixtures/seed000/transcript.jsonl")).unwrap();
    for n in 0..40 {
        std::fs::write(dir.path().join(format!("b-{n:02}.jsonl")), &small).unwrap();
    }
    let tools = root.join("fixtures/seed000/tools.json");
    let run = |jobs: &str, format: &str| {
        tracelint(&[
            "check",
            dir.path().to_str().unwrap(),
            "--tools",
            tools.to_str().unwrap(),
            "--no-config",
            "--include-candidates",
            "--jobs",
            jobs,
            "--format",
            format,
        ])
    };
    for format in ["text", "json"] {
        let one = run("1", format);
        let two = run("2", format);
        // Findings, and no input error.
        assert!(
            matches!(one.status.code(), Some(1 | 2)),
            "{}",
            String::from_utf8_lossy(&one.stderr)
        );
        assert_eq!(two.status.code(), one.status.code());
        let text = String::from_utf8(two.stdout.clone()).unwrap();
        assert!(
            text.contains("b-39.jsonl") && text.contains("a-big.jsonl"),
            "{text}"
        );
        assert!(
            String::from_utf8_lossy(&one.stdout) == text,
            "{format}: two workers wrote another report than one"
        );
        assert_eq!(one.stderr, two.stderr);
    }
}
