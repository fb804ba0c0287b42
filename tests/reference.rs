//! The differential test against the Python tracelint 0.14 (`scripts/reference-tracelint`, a
//! black box) on the harness formats it reads: Harbor ATIF (`--format atif`), LangSmith run
//! trees (`--format langsmith`) and Inspect AI logs (through its documented library reader,
//! `tests/reference/inspect_peer.py`, which its Scout scanners use; its CLI has no Inspect
//! format). Per file: the same number of tool calls and results (the reference's R1 and R2a
//! coverage totals against ours), and per run the same R1, R2a, R6 and R7 findings by tier.
//! Every deliberate difference is listed below with its reason. Without the reference the test
//! says so and passes, except under `TRACELINT_FULL_TEST=1` (`./scripts/test`, which installs
//! it), where a missing reference is a failure.

// A skipped comparison says why on stderr.
#![allow(clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The rules compared.
const RULES: &[&str] = &["R1", "R2a", "R6", "R7"];

/// How the reference reads a file.
#[derive(Clone, Copy)]
enum Peer {
    /// `run.sh check FILE --format F --json OUT`.
    Cli(&'static str),
    /// `inspect_peer.py FILE` in the reference's own environment.
    InspectLibrary,
}

/// A deliberate difference: (run id, rule, tier, ours, theirs, why ours is right).
type Difference = (
    &'static str,
    &'static str,
    &'static str,
    usize,
    usize,
    &'static str,
);

const R7_FROM_EMBEDDED: &str = "the log records the tools the model was offered (Inspect model \
    events' `tools`); we use them as embedded schemas, so a call to a tool the model was never \
    offered is an R7 candidate. The reference's Inspect reader builds no registry from them and \
    suppresses R7";

const CASES: &[(&str, Peer, &[Difference])] = &[
    (
        "atif/atif-claude-code-erk-b2c8258b.trajectory.json",
        Peer::Cli("atif"),
        &[],
    ),
    (
        "atif/atif-swe-marshmallow-fc.trajectory.json",
        Peer::Cli("atif"),
        &[],
    ),
    (
        "atif/atif-swe-test-repo-i1.trajectory.json",
        Peer::Cli("atif"),
        &[],
    ),
    (
        "atif/atif-mini-swe-agent-toolcall.trajectory.json",
        Peer::Cli("atif"),
        &[],
    ),
    (
        "langsmith/weather-agent.run.json",
        Peer::Cli("langsmith"),
        &[(
            "*",
            "R6",
            "hard_defect",
            1,
            0,
            "the model's `get_forecast` call carries arguments that are not JSON (its `llm` run's \
             output); no tool run executed it. The reference reads only tool runs, so it never \
             sees the model's emission",
        )],
    ),
    (
        "inspect/tiny-mockllm.json",
        Peer::InspectLibrary,
        &[("s1/epoch-1", "R7", "candidate", 2, 0, R7_FROM_EMBEDDED)],
    ),
    (
        "inspect/browser-gpt-4o-mini.json",
        Peer::InspectLibrary,
        &[],
    ),
    (
        "inspect/log_tool_call_error.json",
        Peer::InspectLibrary,
        &[],
    ),
];

/// A deliberate difference in the number of calls and results: (file, ours, theirs, why).
type CountDifference = (&'static str, (u64, u64), (u64, u64), &'static str);

const COUNT_DIFFERENCES: &[CountDifference] = &[(
    "langsmith/weather-agent.run.json",
    (3, 3),
    (2, 2),
    "the model emitted three calls (its `llm` runs' outputs); tool runs record two of them. The \
     third, with arguments that are not JSON, ran no tool, and the agent answered it with a tool \
     message the next `llm` run's input holds. The reference counts only tool runs",
)];

/// Findings by run and (rule, tier), and the file's (calls, results).
#[derive(Debug, Default, PartialEq)]
struct Tally {
    findings: BTreeMap<String, BTreeMap<(String, String), usize>>,
    calls: u64,
    results: u64,
}

fn full_test() -> bool {
    std::env::var("TRACELINT_FULL_TEST").is_ok_and(|v| v == "1")
}

/// The script that installs the Python tracelint 0.14 from PyPI on first use and runs it.
fn reference_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/reference-tracelint")
}

/// The reference's own Python (where `run.sh` installs it).
fn reference_python() -> PathBuf {
    let venv = std::env::var_os("TRACELINT_REF_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
                });
            cache.join("tracelint-reference-0.14.0")
        });
    venv.join("bin/python")
}

fn coverage_total(cov: &Value, rule: &str, key: &str) -> u64 {
    cov.as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["rule"] == rule)
        .filter_map(|c| c[key].as_u64())
        .sum()
}

fn tally_findings(t: &mut Tally, run: &str, findings: &Value) {
    let entry = t.findings.entry(run.to_owned()).or_default();
    for f in findings.as_array().into_iter().flatten() {
        let rule = f["rule"].as_str().unwrap_or_default();
        if RULES.contains(&rule) {
            let tier = f["tier"].as_str().unwrap_or_default().to_owned();
            *entry.entry((rule.to_owned(), tier)).or_default() += 1;
        }
    }
}

fn ours(file: &Path) -> Tally {
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["check", "--no-config", "--output-format", "json", "--quiet"])
        .arg(file)
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(3),
        "{}: input error: {}",
        file.display(),
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut t = Tally {
        calls: coverage_total(&report["coverage"], "R1", "total"),
        results: coverage_total(&report["coverage"], "R2a", "total"),
        ..Tally::default()
    };
    let mut by_run: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for f in report["findings"].as_array().into_iter().flatten() {
        by_run
            .entry(f["run_id"].as_str().unwrap_or_default().to_owned())
            .or_default()
            .push(f.clone());
    }
    for (run, fs) in by_run {
        tally_findings(&mut t, &run, &Value::Array(fs));
    }
    t
}

fn theirs(file: &Path, peer: Peer, run_sh: &Path, tmp: &Path) -> Tally {
    let report: Value = match peer {
        Peer::Cli(format) => {
            let json = tmp.join("reference.json");
            let _ = std::fs::remove_file(&json);
            let out = Command::new(run_sh)
                .args(["check", "--format", format, "--quiet", "--json"])
                .arg(&json)
                .arg(file)
                .current_dir(tmp)
                .output()
                .unwrap();
            let text = std::fs::read_to_string(&json).unwrap_or_else(|e| {
                panic!(
                    "the reference wrote no report for {}: {e}\n{}",
                    file.display(),
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            serde_json::from_str(&text).unwrap()
        }
        Peer::InspectLibrary => {
            let driver =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/inspect_peer.py");
            let out = Command::new(reference_python())
                .arg(driver)
                .arg(file)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "inspect_peer.py: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        }
    };
    let mut t = Tally::default();
    for r in report["reports"].as_array().into_iter().flatten() {
        t.calls += coverage_total(&r["coverage"], "R1", "total");
        t.results += coverage_total(&r["coverage"], "R2a", "total");
        tally_findings(
            &mut t,
            r["run_id"].as_str().unwrap_or_default(),
            &r["findings"],
        );
    }
    t
}

#[test]
fn same_calls_and_findings_as_the_reference() {
    let run_sh = reference_script();
    // `run.sh` installs the reference on first use; `--version` makes sure it is there.
    let installed = Command::new(&run_sh).arg("--version").output();
    if !installed.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(
            !full_test(),
            "TRACELINT_FULL_TEST=1 but the reference cannot run: {installed:?}"
        );
        eprintln!("skipped: the reference cannot run ({installed:?})");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real");
    let mut unexplained = Vec::new();
    for (file, peer, expected) in CASES {
        let path = real.join(file);
        let a = ours(&path);
        let b = theirs(&path, *peer, &run_sh, tmp.path());
        let listed = COUNT_DIFFERENCES.iter().any(|(f, o, t, _)| {
            f == file && *o == (a.calls, a.results) && *t == (b.calls, b.results)
        });
        if (a.calls, a.results) != (b.calls, b.results) && !listed {
            unexplained.push(format!(
                "{file}: ours {} calls / {} results, reference {} / {}",
                a.calls, a.results, b.calls, b.results
            ));
        }
        let runs: std::collections::BTreeSet<&String> =
            a.findings.keys().chain(b.findings.keys()).collect();
        let mut used = vec![false; expected.len()];
        for run in runs {
            let empty = BTreeMap::new();
            let (fa, fb) = (
                a.findings.get(run).unwrap_or(&empty),
                b.findings.get(run).unwrap_or(&empty),
            );
            let keys: std::collections::BTreeSet<&(String, String)> =
                fa.keys().chain(fb.keys()).collect();
            for key in keys {
                let (na, nb) = (
                    fa.get(key).copied().unwrap_or(0),
                    fb.get(key).copied().unwrap_or(0),
                );
                if na == nb {
                    continue;
                }
                let known = expected.iter().position(|(r, rule, tier, o, t, _)| {
                    (*r == "*" || r == run)
                        && *rule == key.0
                        && *tier == key.1
                        && *o == na
                        && *t == nb
                });
                match known {
                    Some(i) => used[i] = true,
                    None => unexplained.push(format!(
                        "{file} [{run}] {} {}: ours {na}, reference {nb}",
                        key.0, key.1
                    )),
                }
            }
        }
        for (i, d) in expected.iter().enumerate() {
            if !used[i] {
                unexplained.push(format!(
                    "{file}: the listed difference no longer occurs: {d:?}"
                ));
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "differences from the reference:\n{}",
        unexplained.join("\n")
    );
}
