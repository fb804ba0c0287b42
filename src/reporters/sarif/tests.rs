//! SARIF reporter tests: the official schema, levels, suppressions, fingerprints, descriptors.

use super::*;
use crate::reporters::sample;

/// The official SARIF 2.1.0 schema (errata 01, draft-04), from the shared data folder.
fn official_schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/sarif/sarif-schema-2.1.0.json"
    );
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the official SARIF schema must be at {path}: {e}"));
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

fn errors(v: &serde_json::Value) -> Vec<String> {
    official_schema()
        .iter_errors(v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn sample_report_validates_and_matches_the_snapshot() {
    let value = to_value(&sample::report(), &sample::base());
    assert_eq!(errors(&value), Vec::<String>::new());
    // The validator is not vacuous: an unknown level or a line 0 region is rejected.
    let mut bad = value.clone();
    bad["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!errors(&bad).is_empty());
    let mut bad = value.clone();
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(!errors(&bad).is_empty());
    insta::assert_json_snapshot!(value);
}

#[test]
fn levels_suppressions_and_notifications() {
    let value = to_value(&sample::report(), &sample::base());
    let run = &value["runs"][0];
    let levels: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "note", "warning", "error"]);
    // The ignored finding stays, with an external suppression carrying the reason.
    let ignored = &run["results"][3];
    assert_eq!(ignored["suppressions"][0]["kind"], "external");
    assert_eq!(
        ignored["suppressions"][0]["justification"],
        "legacy traces replayed on purpose"
    );
    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert_eq!(inv["toolExecutionNotifications"][0]["level"], "error");
    // Every URI is relative, non-empty and `/`-separated.
    for r in run["results"].as_array().unwrap() {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(!uri.is_empty() && !uri.starts_with('/') && !uri.contains('\\'));
    }
}

#[test]
fn fingerprints_are_stable_and_count_occurrences() {
    let a = to_value(&sample::report(), &sample::base());
    let b = to_value(&sample::report(), &sample::base());
    let fp = |v: &serde_json::Value| -> Vec<String> {
        v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["partialFingerprints"]["primaryLocationLineHash"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(fp(&a), fp(&b));
    let mut report = sample::report();
    // The same call again, further down the same file: same hash, next occurrence.
    let mut again = report.findings[0].clone();
    again.evidence[0].at.line += 40;
    report.findings.insert(1, again);
    let prints = fp(&to_value(&report, &sample::base()));
    let (h0, n0) = prints[0].split_once(':').unwrap();
    let (h1, n1) = prints[1].split_once(':').unwrap();
    assert_eq!((h0, n0, n1), (h1, "1", "2"));
    // Moving a finding to another line keeps its hash.
    report.findings[2].evidence[0].at.line += 7;
    assert_eq!(fp(&to_value(&report, &sample::base()))[2], prints[2]);
}

#[test]
fn rule_descriptors_carry_the_real_docs() {
    let mut report = sample::report();
    report.rules = crate::rules::RULES.iter().map(|r| r.meta()).collect();
    let value = to_value(&report, &sample::base());
    assert_eq!(errors(&value), Vec::<String>::new());
    let rules = value["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(!rules.is_empty());
    for r in rules {
        assert!(
            r["help"]["markdown"]
                .as_str()
                .unwrap()
                .contains("## How to fix")
        );
        let full = r["fullDescription"]["text"].as_str().unwrap();
        assert!(!full.is_empty() && full.chars().count() <= 1024, "{full}");
        assert!(!full.contains("##"), "{full}");
    }
}
