//! `tracelint doctor` on the real fixtures: its per-rule coverage is the one `check` prints in its
//! footer (same settings, same numbers, whatever rules are registered), and `--fail-under` gates
//! (exit 1 below the threshold, 0 at or above it, per rule or over every rule).

use std::process::Command;

use serde_json::Value;

/// Real traces of every format that read cleanly: Claude Code sessions, Langfuse exports,
/// OpenInference spans, tau-bench OpenAI messages.
const CORPUS: &[&str] = &[
    "fixtures/real/claude-code/",
    "fixtures/real/otel-openinference/",
    "fixtures/real/openai-chat/tau-bench-gpt-4o-airline.subset.json",
    // The trace exports only: the folder also holds Langfuse's expected ChatML mappings.
    "fixtures/real/langfuse/*.trace.json",
];

fn tracelint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run tracelint")
}

fn with_corpus<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.extend_from_slice(CORPUS);
    all.push("--no-config");
    all
}

/// `R1 12/40` pairs from `check`'s footer line `coverage: R1 12/40, R2a …`.
fn footer_coverage(stdout: &str) -> Vec<(String, u64, u64)> {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("coverage: "))
        .unwrap_or_else(|| panic!("no coverage footer in\n{stdout}"));
    line.split(", ")
        .map(|cell| {
            let (rule, n) = cell.split_once(' ').unwrap();
            let (d, t) = n.split_once('/').unwrap();
            (rule.to_owned(), d.parse().unwrap(), t.parse().unwrap())
        })
        .collect()
}

fn doctor_json(extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["doctor", "--json"];
    args.extend_from_slice(extra);
    let run = tracelint(&with_corpus(&args));
    let json = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    (run.status.code(), json)
}

#[test]
fn doctor_coverage_is_checks_footer() {
    let check = tracelint(&with_corpus(&["check"]));
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert_eq!(
        check.status.code(),
        Some(2),
        "the corpus has a hard defect\n{stdout}"
    );
    let footer = footer_coverage(&stdout);
    let (code, d) = doctor_json(&[]);
    assert_eq!(code, Some(0), "doctor is advisory");
    let ours: Vec<(String, u64, u64)> = d["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["rule"].as_str().unwrap().to_owned(),
                r["coverage"]["count"].as_u64().unwrap(),
                r["coverage"]["of"].as_u64().unwrap(),
            )
        })
        .collect();
    // The footer's `coverage:` line holds the rules that looked at something; the rest it names
    // once on its `nothing to check:` line, and doctor lists them as 0 of 0.
    let (looked, idle): (Vec<_>, Vec<_>) = ours.into_iter().partition(|(_, _, t)| *t > 0);
    assert_eq!(looked, footer);
    let idle: Vec<String> = idle.into_iter().map(|(r, _, _)| r).collect();
    let footer_idle: Vec<String> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("nothing to check: "))
        .map(|l| {
            l.split(" (")
                .next()
                .unwrap()
                .split(", ")
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(idle, footer_idle);
    // The corpus is not fully checkable, so the comparison is not between two zeros.
    assert!(footer.iter().any(|(_, d, t)| d < t && *t > 0), "{footer:?}");
    // The text shows the same counts per rule.
    let text = tracelint(&with_corpus(&["doctor"]));
    let text = String::from_utf8_lossy(&text.stdout);
    for (rule, d, t) in &footer {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{rule} "))
                    && l.contains(&format!(" {d}/{t} "))),
            "{rule} {d}/{t} not in\n{text}"
        );
    }
    // Per format and per tool, with what each tool lacks.
    let formats: Vec<&str> = d["formats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["claude", "langfuse", "openai", "otel"]);
    let tau = d["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "book_reservation")
        .expect("a tau-bench tool");
    assert!(
        tau["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g.as_str().unwrap().starts_with("no input schema")),
        "{tau}"
    );
}

#[test]
fn fail_under_gates_on_coverage() {
    let (_, d) = doctor_json(&[]);
    let rules = d["rules"].as_array().unwrap();
    let (decided, total) = rules.iter().fold((0, 0), |(d, t), r| {
        (
            d + r["coverage"]["count"].as_u64().unwrap(),
            t + r["coverage"]["of"].as_u64().unwrap(),
        )
    });
    let overall = decided as f64 * 100.0 / total as f64;
    let below = format!("{}", (overall - 1.0).floor());
    let above = format!("{}", (overall + 1.0).ceil());
    assert_eq!(doctor_json(&["--fail-under", &below]).0, Some(0));
    let (code, failed) = doctor_json(&["--fail-under", &above]);
    assert_eq!(code, Some(1));
    assert_eq!(failed["gates"][0]["passed"], false);
    assert_eq!(failed["exit_code"], 1);
    // One rule's gate: R2a decides far less than every rule together.
    let r2a = rules.iter().find(|r| r["rule"] == "R2a").unwrap();
    let r2a_pct = r2a["coverage"]["percent"].as_f64().unwrap();
    assert!(r2a_pct < overall);
    let between = format!("R2a={}", ((r2a_pct + overall) / 2.0).round());
    assert_eq!(
        doctor_json(&["--fail-under", &below, "--fail-under", &between]).0,
        Some(1)
    );
    // A bad gate is a usage error.
    assert_eq!(doctor_json_code(&["--fail-under", "R2a=lots"]), Some(3));
}

fn doctor_json_code(extra: &[&str]) -> Option<i32> {
    let mut args = vec!["doctor"];
    args.extend_from_slice(extra);
    tracelint(&with_corpus(&args)).status.code()
}

/// A record-quality gate: `results=90` fails a corpus where half the calls have no recorded
/// result, and passes one where every call has one; the JSON names the measure.
#[test]
fn fail_under_results_gates_on_calls_with_a_recorded_result() {
    let run = |input: &str| {
        let out = tracelint(&[
            "doctor",
            input,
            "--tools",
            "fixtures/rules/r12/tools.json",
            "--fail-under",
            "results=90",
            "--json",
            "--no-config",
        ]);
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), json)
    };
    let (code, missing) = run("fixtures/rules/r12/fail_no_result_mid_run.json");
    assert_eq!(code, Some(1), "{missing}");
    let gate = &missing["gates"][0];
    assert_eq!(
        (
            gate["measure"].as_str(),
            gate["measured"].as_f64(),
            gate["passed"].as_bool()
        ),
        (Some("results"), Some(50.0), Some(false))
    );
    let (code, full) = run("fixtures/reports/chain.json");
    assert_eq!(code, Some(0), "{full}");
    assert_eq!(full["gates"][0]["measured"].as_f64(), Some(100.0));
    // A bad percentage is a usage error, not a gate.
    let out = tracelint(&[
        "doctor",
        "fixtures/reports/chain.json",
        "--fail-under",
        "results=lots",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("results=90"));
}

/// The JSON output holds to its committed schema (`src/reporters/doctor.schema.json`), on the
/// real corpus and on Claude Code sessions with a sub-agent, under a failing gate of each kind.
#[test]
fn json_output_validates_against_its_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../src/reporters/doctor.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (code, corpus) = doctor_json(&["--fail-under", "R2a=99", "--fail-under", "results=99.9"]);
    assert_eq!(code, Some(1));
    let sessions = tracelint(&[
        "doctor",
        "fixtures/claude/session",
        "fixtures/real/codex/",
        "--output-format",
        "json",
        "--fail-under",
        "versions=100",
        "--no-config",
    ]);
    let sessions: Value = serde_json::from_slice(&sessions.stdout).unwrap();
    for d in [&corpus, &sessions] {
        let errors: Vec<String> = validator.iter_errors(d).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:#?}\n{d}");
    }
    assert_eq!(
        corpus["gates"][1]["measure"], "results",
        "{}",
        corpus["gates"]
    );
}

fn doctor_of(inputs: &[&str]) -> Value {
    let mut args = vec!["doctor", "--output-format", "json", "--no-config"];
    args.extend_from_slice(inputs);
    let out = tracelint(&args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    })
}

fn share(v: &Value) -> (u64, u64) {
    (v["count"].as_u64().unwrap(), v["of"].as_u64().unwrap())
}

/// Runs that end on a call with no result are counted per run, not per call: a result missing
/// mid-run leaves the run's ending answered.
#[test]
fn runs_ending_on_an_unanswered_call() {
    let d = doctor_of(&[
        "fixtures/rules/r12/fail_no_result_at_end.json",
        "fixtures/rules/r12/fail_no_result_mid_run.json",
        "fixtures/rules/r12/pass_read_only_tool.json",
        "fixtures/rules/r12/pass_later_success_resolves.json",
    ]);
    let ends: Vec<(u64, u64)> = d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| share(&f["runs"]["ends_answered"]))
        .collect();
    // A read-only call left unanswered at the end is an unanswered ending all the same: the
    // record figure says what the record holds, not whether it matters (R12's question).
    assert_eq!(ends, [(0, 1), (1, 1), (0, 1), (1, 1)], "{}", d["files"]);
    assert_eq!(share(&d["runs"]["ends_answered"]), (2, 4));
    // The mid-run file is missing a result all the same.
    let mid = &d["files"][1]["record"]["results_recorded"];
    assert!(share(mid).0 < share(mid).1, "{mid}");
}

/// A Claude Code session's `Task` call starts a sub-agent: present when its file is among the
/// inputs (matched by the call id its metadata names, or by run id), missing when it is not.
#[test]
fn sub_agent_runs_present_or_missing() {
    let both = doctor_of(&["fixtures/claude/session"]);
    assert_eq!(share(&both["runs"]["subagents_present"]), (1, 1), "{both}");
    let alone = doctor_of(&["fixtures/claude/session/sess-1.jsonl"]);
    let alone = share(&alone["runs"]["subagents_present"]);
    assert_eq!(alone.1, 1);
    let main_only = tempfile::tempdir().unwrap();
    let copy = main_only.path().join("sess-1.jsonl");
    // The main session without its sub-agent's file or mirror lines.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/claude/session/sess-1.jsonl"),
    )
    .unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("agent_progress"))
        .collect();
    std::fs::write(&copy, kept.join("\n")).unwrap();
    let missing = doctor_of(&[copy.to_str().unwrap()]);
    assert_eq!(
        share(&missing["runs"]["subagents_present"]),
        (0, 1),
        "{}",
        missing["runs"]
    );
    // Per agent: the session names Claude Code.
    let agents: Vec<&Value> = both["agents"].as_array().unwrap().iter().collect();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert_eq!(agents[0]["agent"], "claude-code");
    assert_eq!(agents[0]["runs"]["runs"], 2);
}

/// Built-in schema version certainty: a Claude Code or Codex session that records its version
/// is `recorded`; a Gemini CLI session records none, so its capture is inferred from its calls.
#[test]
fn builtin_schema_version_certainty() {
    let d = doctor_of(&[
        "fixtures/real/codex/",
        "fixtures/real/gemini-cli/gemini-cli-0.40.1-tools.jsonl",
    ]);
    let by_agent = |name: &str| -> Value {
        d["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == name)
            .unwrap_or_else(|| panic!("no {name} in {}", d["agents"]))["runs"]["schema_version"]
            .clone()
    };
    let codex = by_agent("codex");
    assert!(codex["recorded"].as_u64().unwrap() > 0, "{codex}");
    assert_eq!(codex["inferred"], 0);
    let gemini = by_agent("gemini-cli");
    assert_eq!(
        (gemini["recorded"].as_u64(), gemini["inferred"].as_u64()),
        (Some(0), Some(1)),
        "{gemini}"
    );
    // With --tools, no built-in schemas are in force: nothing to be certain about.
    let given = tracelint(&[
        "doctor",
        "fixtures/real/codex/",
        "--tools",
        "fixtures/rules/r12/tools.json",
        "--output-format",
        "json",
        "--no-config",
    ]);
    let given: Value = serde_json::from_slice(&given.stdout).unwrap();
    let v = &given["runs"]["schema_version"];
    assert_eq!(
        (
            v["recorded"].as_u64(),
            v["inferred"].as_u64(),
            v["none"].as_u64()
        ),
        (Some(0), Some(0), Some(0)),
        "{v}"
    );
}
