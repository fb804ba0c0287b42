//! Differential test of the contract rules (R8–R13) against the reference, the Python tracelint
//! 0.14 run as a black box: on the reference's own documented examples and on the traces of
//! `fixtures/differential/contracts/`, both tools must report the same findings — rule, tier,
//! tool and evidence steps, per run — except the deliberate differences listed with their
//! reasons in `expected.json` (an entry that no longer occurs fails too).
//!
//! The reference is installed by `./scripts/test` (through `scripts/reference-tracelint`) and
//! found through `TRACELINT_REFERENCE` or its cache folder; the test never installs it (no
//! network). Without it the test says so and passes, except under `TRACELINT_FULL_TEST=1`,
//! where a missing reference is a failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const RULES: &[&str] = &["R8", "R9", "R10", "R11", "R12", "R13"];

/// (run id, rule, tier, tool, evidence steps).
type Key = (String, String, String, String, Vec<u64>);

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/differential/contracts")
}

/// The reference's executable, when installed.
fn reference() -> Option<PathBuf> {
    let path = match std::env::var_os("TRACELINT_REFERENCE") {
        Some(p) => PathBuf::from(p),
        None => {
            let venv = match std::env::var_os("TRACELINT_REF_VENV") {
                Some(v) => PathBuf::from(v),
                None => {
                    let cache = std::env::var_os("XDG_CACHE_HOME")
                        .map(PathBuf::from)
                        .or_else(|| {
                            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache"))
                        })?;
                    cache.join("tracelint-reference-0.14.0")
                }
            };
            venv.join("bin/tracelint")
        }
    };
    let out = Command::new(&path).arg("--version").output().ok()?;
    let version = String::from_utf8_lossy(&out.stdout);
    (out.status.success() && version.contains("0.14.0")).then_some(path)
}

fn count(map: &mut BTreeMap<Key, usize>, key: Key) {
    *map.entry(key).or_default() += 1;
}

fn ours(trace: &Path, tools: &Path) -> BTreeMap<Key, usize> {
    let out = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args([
            "check",
            "--no-config",
            "--input-format",
            "native",
            "--output-format",
            "json",
            "--quiet",
            "--tools",
        ])
        .arg(tools)
        .arg(trace)
        .env("NO_COLOR", "1")
        .output()
        .expect("run tracelint");
    assert_ne!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let mut got = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        let rule = f["rule"].as_str().unwrap();
        if !RULES.contains(&rule) {
            continue;
        }
        let steps: BTreeSet<u64> = f["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["step"].as_u64().unwrap())
            .collect();
        count(
            &mut got,
            (
                f["run_id"].as_str().unwrap().to_owned(),
                rule.to_owned(),
                f["tier"].as_str().unwrap().to_owned(),
                f["tool"].as_str().unwrap_or("").to_owned(),
                steps.into_iter().collect(),
            ),
        );
    }
    got
}

fn theirs(reference: &Path, trace: &Path, tools: &Path, tmp: &Path) -> BTreeMap<Key, usize> {
    let json = tmp.join("reference.json");
    let out = Command::new(reference)
        .arg("check")
        .arg(trace)
        .arg("--tools")
        .arg(tools)
        .arg("--json")
        .arg(&json)
        .arg("--quiet")
        .current_dir(tmp)
        .output()
        .expect("run the reference");
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "the reference wrote no report for {} ({e}): {}",
            trace.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let report: Value = serde_json::from_str(&text).unwrap();
    let mut got = BTreeMap::new();
    for r in report["reports"].as_array().unwrap() {
        for f in r["findings"].as_array().unwrap() {
            let rule = f["rule"].as_str().unwrap();
            if !RULES.contains(&rule) {
                continue;
            }
            let ev = &f["evidence"];
            let steps: BTreeSet<u64> = ev["step_indices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap())
                .collect();
            count(
                &mut got,
                (
                    r["run_id"].as_str().unwrap().to_owned(),
                    rule.to_owned(),
                    f["tier"].as_str().unwrap().to_owned(),
                    ev["tool"].as_str().unwrap_or("").to_owned(),
                    steps.into_iter().collect(),
                ),
            );
        }
    }
    got
}

#[test]
#[allow(clippy::print_stderr)]
fn contract_rules_agree_with_the_reference() {
    let Some(reference) = reference() else {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but the reference (Python tracelint 0.14.0) is missing: run ./scripts/test, which installs it through scripts/reference-tracelint"
        );
        eprintln!("skipped: the reference is not installed (./scripts/test installs it)");
        return;
    };
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("expected.json")).unwrap())
            .unwrap();
    // (file, key) -> (ours, theirs, reason)
    let mut deliberate: BTreeMap<(String, Key), (usize, usize, String)> = BTreeMap::new();
    for d in expected["differences"].as_array().unwrap() {
        let s = |k: &str| d[k].as_str().unwrap().to_owned();
        let key = (
            s("run_id"),
            s("rule"),
            s("tier"),
            s("tool"),
            d["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect(),
        );
        let n = |k: &str| d[k].as_u64().unwrap() as usize;
        assert!(!d["reason"].as_str().unwrap().is_empty());
        deliberate.insert((s("file"), key), (n("ours"), n("theirs"), s("reason")));
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut unexplained = Vec::new();
    let mut seen = BTreeSet::new();
    let mut agreed: BTreeMap<String, usize> = BTreeMap::new();
    let mut runs = BTreeSet::new();
    for case in expected["cases"].as_array().unwrap() {
        let file = case["trace"].as_str().unwrap();
        let trace = dir().join(file);
        let tools = dir().join(case["tools"].as_str().unwrap());
        let (a, b) = (
            ours(&trace, &tools),
            theirs(&reference, &trace, &tools, tmp.path()),
        );
        for line in std::fs::read_to_string(&trace).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            runs.insert((file, v["run_id"].as_str().unwrap().to_owned()));
        }
        for key in a.keys().chain(b.keys()).collect::<BTreeSet<_>>() {
            let (x, y) = (
                a.get(key).copied().unwrap_or(0),
                b.get(key).copied().unwrap_or(0),
            );
            *agreed.entry(key.1.clone()).or_default() += x.min(y);
            if x == y {
                continue;
            }
            match deliberate.get(&(file.to_owned(), key.clone())) {
                Some((o, t, _)) if (*o, *t) == (x, y) => {
                    seen.insert((file.to_owned(), key.clone()));
                }
                _ => unexplained.push(format!("{file} {key:?}: ours {x}, reference {y}")),
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "unexplained differences from the reference:\n{}",
        unexplained.join("\n")
    );
    let stale: Vec<_> = deliberate.keys().filter(|k| !seen.contains(*k)).collect();
    assert!(
        stale.is_empty(),
        "listed differences that no longer occur: {stale:#?}"
    );
    // Not a vacuous agreement: every rule has findings both tools report, over many traces.
    for rule in RULES {
        assert!(
            agreed.get(*rule).copied().unwrap_or(0) >= 3,
            "{rule}: {agreed:?}"
        );
    }
    assert!(runs.len() >= 100, "{}", runs.len());
}
