//! The validation cases of seed 002 (SPEC §8), as data in `fixtures/demo/`: one planted
//! instance of every rule, clean controls that must stay silent, and legitimate-but-suspicious
//! cases that must stay below a verdict. `cases.json` gives each file's expected findings (rule
//! and tier, as a multiset) and exit code; this test holds every case to it. The `demo` command
//! embeds the same files.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::finding::{RuleId, Tier};
use crate::lint::{Linter, ReportBuilder};

use super::{RULES, RuleSettings, Selection};

fn demo_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo")
}

fn cases() -> Value {
    let text = std::fs::read_to_string(demo_dir().join("cases.json")).expect("cases.json");
    serde_json::from_str(&text).expect("cases.json is JSON")
}

/// Lint one demo file: the multiset of (rule, tier) of its findings, and its exit code.
fn lint(file: &str, tools: &str) -> (BTreeMap<(String, String), usize>, u8) {
    let dir = demo_dir();
    let registry = crate::sources::load_file(&dir.join(tools), tools).expect("demo tools");
    let text = std::fs::read(dir.join(file)).expect("demo file");
    let (_, parsed) = crate::adapters::parse_bytes(&text, file, None);
    assert!(parsed.issues.is_empty(), "{file}: {:?}", parsed.issues);
    let linter = Linter::new(
        Some(registry),
        Selection::default(),
        RuleSettings::default(),
    );
    let mut builder = ReportBuilder::new();
    let input = builder.input(file);
    for t in &parsed.traces {
        builder.trace(input, linter.lint(t));
    }
    let report = builder.finish(Tier::HardDefect, &[]);
    let mut got = BTreeMap::new();
    for f in &report.findings {
        *got.entry((f.rule.to_string(), f.tier.to_string()))
            .or_default() += 1;
    }
    (got, report.exit.code())
}

#[test]
fn every_validation_case_behaves_as_expected() {
    let spec = cases();
    let tools = spec["tools"].as_str().expect("`tools`");
    let mut failures = Vec::new();
    for case in spec["cases"].as_array().expect("`cases`") {
        let name = case["name"].as_str().expect("`name`");
        let file = case["file"].as_str().expect("`file`");
        let mut want: BTreeMap<(String, String), usize> = BTreeMap::new();
        match &case["expect"] {
            Value::String(s) if s == "silent" => {}
            Value::Array(items) => {
                for i in items {
                    let key = (
                        i["rule"].as_str().expect("`rule`").to_owned(),
                        i["tier"].as_str().expect("`tier`").to_owned(),
                    );
                    *want.entry(key).or_default() += 1;
                }
            }
            other => panic!("{name}: `expect` must be \"silent\" or a list, not {other}"),
        }
        let (got, exit) = lint(file, tools);
        let want_exit = case["exit"].as_u64().expect("`exit`");
        if got != want || u64::from(exit) != want_exit {
            failures.push(format!(
                "{name} ({file}): expected {want:?} exit {want_exit}, got {got:?} exit {exit}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_suite_plants_every_rule_and_has_controls() {
    let spec = cases();
    let all = spec["cases"].as_array().expect("`cases`");
    let of_kind = |k: &str| all.iter().filter(|c| c["kind"] == k).collect::<Vec<_>>();
    for rule in RULES {
        let id = rule.meta().id;
        let planted = of_kind("planted").into_iter().any(|c| {
            c["expect"].as_array().is_some_and(|e| {
                e.iter()
                    .any(|f| f["rule"].as_str().and_then(RuleId::parse) == Some(id))
            })
        });
        assert!(planted, "no planted demo case for {id}");
    }
    assert!(
        of_kind("clean")
            .iter()
            .all(|c| c["expect"] == "silent" && c["exit"] == 0),
        "clean controls must be silent"
    );
    assert!(!of_kind("clean").is_empty());
    // The legitimate-but-suspicious cases stay below a verdict: never a hard defect.
    let legit = of_kind("legitimate");
    assert_eq!(legit.len(), 3);
    for c in legit {
        assert_eq!(c["exit"], 0, "{}", c["name"]);
        assert!(
            c["expect"]
                .as_array()
                .is_none_or(|e| e.iter().all(|f| f["tier"] != "hard_defect")),
            "{}",
            c["name"]
        );
    }
}
