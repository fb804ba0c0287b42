//! Reports at the size of a real corpus, on the real binary: a 60,000-finding run's SARIF log
//! stays within GitHub code scanning's limits and validates against the official schema; a job
//! summary lists every hard defect however many candidates come first; and `tracelint report`
//! over JSON Lines shards writes the same JSON, SARIF and HTML, byte for byte, as one `check`
//! over the union of their inputs.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn tracelint(args: &[&str], env: &[(&str, &Path)]) -> Output {
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

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A native JSON Lines corpus: `traces` runs of `calls` calls to undeclared tools that fail
/// (each an R7 candidate, an R2a hard event and an R2b candidate), every `hard_every`-th run
/// ending with a `cancel_order` call whose `order_id` is a number (an R1 hard defect).
fn corpus(path: &Path, traces: usize, calls: usize, hard_every: usize) {
    let mut text = String::new();
    for t in 0..traces {
        let mut steps = vec![format!(
            r#"{{"type":"message","role":"user","content":"task {t}"}}"#
        )];
        for c in 0..calls {
            steps.push(format!(
                r#"{{"type":"tool_call","call_id":"c{c}","name":"lookup_{c}","args":{{}}}}"#
            ));
            steps.push(format!(
                r#"{{"type":"tool_result","call_id":"c{c}","content":"boom","status":"error"}}"#
            ));
        }
        if t % hard_every == 0 {
            steps.push(format!(
                r#"{{"type":"tool_call","call_id":"x","name":"cancel_order","args":{{"order_id":{t},"reason":"not_shipped"}}}}"#
            ));
            steps.push(
                r#"{"type":"tool_result","call_id":"x","content":{"cancelled":true},"status":"ok"}"#
                    .to_owned(),
            );
        }
        text.push_str(&format!(
            r#"{{"run_id":"r{t}","steps":[{}]}}"#,
            steps.join(",")
        ));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// The SARIF 2.1.0 schema (`fixtures/sarif/`: the SARIF SDK's copy with errata 01's constraints).
fn sarif_schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/sarif/sarif-schema-2.1.0.json"
    );
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the official SARIF schema must be at {path}: {e}"));
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// (file, line, column, rule) of a JSON report's finding and of a SARIF result.
type Place = (String, u64, u64, String);

fn json_place(f: &Value) -> Place {
    (
        f["file"].as_str().unwrap().to_owned(),
        f["line"].as_u64().unwrap(),
        f["column"].as_u64().unwrap(),
        f["rule"].as_str().unwrap().to_owned(),
    )
}

fn sarif_place(r: &Value) -> Place {
    let loc = &r["locations"][0]["physicalLocation"];
    (
        loc["artifactLocation"]["uri"].as_str().unwrap().to_owned(),
        loc["region"]["startLine"].as_u64().unwrap(),
        loc["region"]["startColumn"].as_u64().unwrap(),
        r["ruleId"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn a_60000_finding_sarif_log_stays_within_githubs_limits_and_keeps_every_hard_defect() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("corpus.jsonl");
    corpus(&input, 1000, 20, 25);
    let (json, sarif) = (dir.path().join("r.json"), dir.path().join("r.sarif"));
    let out = tracelint(
        &[
            "check",
            s(&input),
            "--tools",
            "fixtures/quickstart/tools.json",
            "--sarif-root",
            s(dir.path()),
            "--quiet",
            "--json",
            s(&json),
            "--sarif",
            s(&sarif),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let report = read_json(&json);
    let findings = report["findings"].as_array().unwrap();
    assert!(findings.len() >= 60_000, "{}", findings.len());
    let hard: Vec<Place> = findings
        .iter()
        .filter(|f| f["tier"] == "hard_defect")
        .map(json_place)
        .collect();
    let tier = |t: &str| findings.iter().filter(|f| f["tier"] == t).count();
    let (events, candidates) = (tier("hard_event"), tier("candidate"));
    assert_eq!((hard.len(), events, candidates), (40, 20_000, 40_000));
    let log = read_json(&sarif);
    let errors: Vec<String> = sarif_schema()
        .iter_errors(&log)
        .take(5)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new());
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    // At most what code scanning shows per run (and far below the 25,000 it refuses past).
    assert_eq!(results.len(), 5_000);
    let kept: BTreeSet<Place> = results
        .iter()
        .filter(|r| r["level"] == "error")
        .map(sarif_place)
        .collect();
    let hard: BTreeSet<Place> = hard
        .into_iter()
        .map(|(_, l, c, r)| ("corpus.jsonl".to_owned(), l, c, r))
        .collect();
    assert_eq!(kept, hard, "every hard defect is a result");
    // Hard events fill what is left; every candidate is the first to go.
    let tiers = |t: &str| {
        results
            .iter()
            .filter(|r| r["properties"]["tier"] == t)
            .count()
    };
    assert_eq!((tiers("hard_event"), tiers("candidate")), (4_960, 0));
    // What was left out is said in the log, by tier, and on stderr.
    let left = findings.len() - 5_000;
    assert_eq!(
        run["properties"]["omitted"],
        serde_json::json!({"hard_event": events - 4_960, "candidate": candidates, "ignored": 0})
    );
    let notes: Vec<&str> = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["level"] == "warning")
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    let said = format!("left out {left} of {} results", findings.len());
    assert!(
        notes.iter().any(|n| n.starts_with(&said)
            && n.contains("40000 candidates (R2b 20000, R7 20000)")
            && n.contains("every hard defect is kept")),
        "{notes:?}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("warning: sarif: {said}")),
        "{stderr}"
    );

    // The cap is the user's to change: 0 lifts it (nothing said), a small one keeps the hard
    // defects even past it.
    let out = tracelint(
        &[
            "check",
            s(&input),
            "--tools",
            "fixtures/quickstart/tools.json",
            "--quiet",
            "--output-format",
            "sarif",
            "--sarif-max-results",
            "10",
        ],
        &[],
    );
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 40);
    assert!(results.iter().all(|r| r["level"] == "error"));
}

#[test]
fn the_job_summary_lists_3_hard_defects_behind_500_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("run.json");
    // One run: 500 calls to undeclared tools first, then 3 calls that break the schema.
    let mut steps = Vec::new();
    for c in 0..500 {
        steps.push(format!(
            r#"{{"type":"tool_call","call_id":"c{c}","name":"lookup_{c}","args":{{}}}}"#
        ));
        steps.push(format!(
            r#"{{"type":"tool_result","call_id":"c{c}","content":"ok","status":"ok"}}"#
        ));
    }
    for h in 0..3 {
        steps.push(format!(
            r#"{{"type":"tool_call","call_id":"h{h}","name":"cancel_order","args":{{"order_id":{h},"reason":"not_shipped"}}}}"#
        ));
        steps.push(format!(
            r#"{{"type":"tool_result","call_id":"h{h}","content":{{"cancelled":true}},"status":"ok"}}"#
        ));
    }
    std::fs::write(
        &input,
        format!(r#"{{"run_id":"big","steps":[{}]}}"#, steps.join(",\n")),
    )
    .unwrap();
    let summary = dir.path().join("summary.md");
    let json = dir.path().join("r.json");
    let out = tracelint(
        &[
            "check",
            s(&input),
            "--tools",
            "fixtures/quickstart/tools.json",
            "--sarif-root",
            s(dir.path()),
            "--output-format",
            "github",
            "--json",
            s(&json),
        ],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let report = read_json(&json);
    let count = |t: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["tier"] == t)
            .count()
    };
    // Not vacuous: 500 candidates, each on a line before the first hard defect's.
    assert_eq!((count("hard_defect"), count("candidate")), (3, 500));
    let text = std::fs::read_to_string(&summary).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("| hard_defect | R1 |"))
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    for (h, row) in rows.iter().enumerate() {
        assert!(
            row.contains(&format!("/order\\_id\\: {h} is not of type")),
            "{row}"
        );
    }
    // The counts by rule come first, the hard defects open the findings table, and what was
    // left out is counted, saying no hard defect was.
    let by_rule = text
        .find("| R7 | 0 | 0 | 500 | 0 |")
        .expect("a row per rule");
    assert!(by_rule < text.find("| location | tier |").unwrap());
    assert!(text.find(rows[2]).unwrap() < text.find("| candidate | R7 |").unwrap());
    assert!(
        text.contains("… and 300 more findings (300 candidates; every hard defect is listed above"),
        "{text}"
    );
    // The annotations too: hard defects first, before any notice.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let kinds: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("::"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(&kinds[..3], ["error", "error", "error"]);
    assert!(kinds[3..].iter().all(|k| *k == "notice"));
}

#[test]
fn report_over_two_shards_writes_what_one_check_over_the_union_writes() {
    let dir = tempfile::tempdir().unwrap();
    let real = "fixtures/real/claude-code";
    let a: Vec<String> = vec![
        "fixtures/quickstart/transcript.json".into(),
        format!("{real}/erk-1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl"),
        "fixtures/cli/broken-middle.jsonl".into(),
    ];
    let b: Vec<String> = vec![
        format!("{real}/ccviewer-fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"),
        "fixtures/cli/escape.json".into(),
        "fixtures/cli/nope.json".into(),
        format!("{real}/erk-52bc43f3-2f5f-46f5-b693-bedf4ffd23db.jsonl"),
    ];
    let tools = [
        "--tools",
        "builtin:claude-code",
        "--tools",
        "fixtures/quickstart/tools.json",
    ];
    let shard = |inputs: &[String], name: &str| {
        let path = dir.path().join(name);
        let mut args: Vec<&str> = vec!["check"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(tools);
        args.extend(["--output-format", "json-lines"]);
        let out = tracelint(&args, &[]);
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        std::fs::write(&path, out.stdout).unwrap();
        path
    };
    let (sa, sb) = (shard(&a, "a.jsonl"), shard(&b, "b.jsonl"));
    let side = |prefix: &str| -> Vec<String> {
        ["json", "sarif", "html"]
            .iter()
            .flat_map(|k| {
                [
                    format!("--{k}"),
                    s(&dir.path().join(format!("{prefix}.{k}"))).to_owned(),
                ]
            })
            .collect()
    };
    let mut union: Vec<&str> = vec!["check"];
    union.extend(a.iter().chain(&b).map(String::as_str));
    union.extend(tools);
    let one_side = side("one");
    union.extend(one_side.iter().map(String::as_str));
    let one = tracelint(&union, &[]);
    let mut report: Vec<&str> = vec!["report", s(&sa), s(&sb)];
    let shards_side = side("shards");
    report.extend(shards_side.iter().map(String::as_str));
    let two = tracelint(&report, &[]);
    assert_eq!(one.status.code(), Some(3), "{one:?}");
    assert_eq!(two.status.code(), one.status.code(), "{two:?}");
    assert_eq!(
        String::from_utf8_lossy(&two.stdout),
        String::from_utf8_lossy(&one.stdout),
        "the text report"
    );
    for k in ["json", "sarif", "html"] {
        let x = std::fs::read(dir.path().join(format!("one.{k}"))).unwrap();
        let y = std::fs::read(dir.path().join(format!("shards.{k}"))).unwrap();
        assert!(x == y, "the {k} reports differ");
    }
    // Not vacuous: the union has findings of every tier, suppressions, input errors, and the
    // HTML its step timelines.
    let json = read_json(&dir.path().join("one.json"));
    let sum = &json["summary"];
    for k in ["hard_defect", "hard_event", "candidate", "suppressions"] {
        assert!(sum[k].as_u64().unwrap() > 0, "{k}: {sum}");
    }
    assert_eq!(sum["input_errors"], 2);
    assert_eq!(sum["inputs"], 6);
    let html = std::fs::read_to_string(dir.path().join("shards.html")).unwrap();
    assert!(html.matches("<details class=\"trace\"").count() > 3);

    // A shard cut short (no closing `run` record) is an input error, and what it holds is still
    // reported.
    let text = std::fs::read_to_string(&sb).unwrap();
    let cut = dir.path().join("cut.jsonl");
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&cut, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let out = tracelint(&["report", s(&sa), s(&cut), "--output-format", "json"], &[]);
    assert_eq!(out.status.code(), Some(3));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = got["input_errors"].as_array().unwrap();
    assert!(
        errors.iter().any(|e| e["file"] == s(&cut)
            && e["message"]
                .as_str()
                .unwrap()
                .contains("ends without the closing `run` record")),
        "{errors:?}"
    );
    assert_eq!(
        got["findings"].as_array().unwrap().len(),
        json["findings"].as_array().unwrap().len()
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn report_names_each_bad_shard_line_and_each_input_given_twice() {
    let dir = tempfile::tempdir().unwrap();
    let out = tracelint(
        &[
            "check",
            "fixtures/quickstart/transcript.json",
            "--tools",
            "fixtures/quickstart/tools.json",
            "--output-format",
            "json-lines",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, &out.stdout).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let findings = text.lines().filter(|l| l.contains(r#""finding":"#)).count();
    // A line that is not a record, second in the shard: an input error there, the rest read.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "{not json");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let out = tracelint(&["report", s(&bad), "--output-format", "json"], &[]);
    assert_eq!(out.status.code(), Some(3));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = got["input_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        (&errors[0]["file"], &errors[0]["line"]),
        (&s(&bad).into(), &2.into())
    );
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("not a tracelint JSON Lines record")
    );
    assert_eq!(
        got["findings"].as_array().unwrap().len() + got["ignored"].as_array().unwrap().len(),
        findings
    );
    // The same input in two shards: said, and its findings reported once.
    let out = tracelint(
        &["report", s(&good), s(&good), "--output-format", "json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(3));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["summary"]["inputs"], 1);
    assert!(
        got["input_errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("is in another shard too")
    );
    assert_eq!(
        got["findings"].as_array().unwrap().len() + got["ignored"].as_array().unwrap().len(),
        findings
    );
}

#[test]
fn report_says_in_one_line_what_a_large_json_report_or_sarif_log_is() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces.jsonl");
    // Thousands of findings: the JSON report is far larger than what is looked at to tell.
    corpus(&traces, 2000, 3, 10);
    let json = dir.path().join("report.json");
    let sarif = dir.path().join("report.sarif");
    let out = tracelint(
        &[
            "check",
            s(&traces),
            "--tools",
            "fixtures/quickstart/tools.json",
            "--json",
            s(&json),
            "--sarif",
            s(&sarif),
            "--quiet",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(std::fs::metadata(&json).unwrap().len() > 4 << 20);
    let out = tracelint(&["report", s(&json), s(&sarif)], &[]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let errors: Vec<&str> = text.lines().filter(|l| l.contains("input_error")).collect();
    let want = "`report` reads the JSON Lines `tracelint check --output-format json-lines` writes";
    assert_eq!(
        errors,
        [
            format!(
                "{}: input_error: this is a JSON report (`--output-format json`), not a shard: {want}",
                s(&json)
            ),
            format!(
                "{}: input_error: this is a SARIF log written by tracelint {}, not a shard: {want}",
                s(&sarif),
                env!("CARGO_PKG_VERSION")
            ),
        ],
        "{text}"
    );
    // From standard input too.
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["report", "-", "--output-format", "json"])
        .stdin(std::fs::File::open(&json).unwrap())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = got["input_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["file"], "-");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("this is a JSON report")
    );
}
