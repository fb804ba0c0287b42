//! SARIF reporter tests: the official schema, levels, suppressions, fingerprints, descriptors.

use super::*;
use crate::reporters::sample;

/// The SARIF 2.1.0 schema (`fixtures/sarif/`: the SARIF SDK's copy with errata 01's constraints).
fn official_schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/sarif/sarif-schema-2.1.0.json"
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

/// A report of `n` findings per tier (every rule of the sample taking turns).
fn crowded(hard: usize, events: usize, candidates: usize) -> Report {
    let mut report = sample::report();
    let template = report.findings.clone();
    report.findings.clear();
    let mut line = 1;
    for (tier, n) in [
        (Tier::HardDefect, hard),
        (Tier::HardEvent, events),
        (Tier::Candidate, candidates),
    ] {
        for i in 0..n {
            let mut f = template[i % 3].clone();
            f.tier = tier;
            f.ignored = None;
            f.evidence[0].at.line = line;
            line += 1;
            report.findings.push(f);
        }
    }
    report
}

fn tiers_of(v: &serde_json::Value) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for r in v["runs"][0]["results"].as_array().unwrap() {
        *out.entry(r["properties"]["tier"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    out
}

#[test]
fn the_cap_drops_candidates_first_then_events_never_hard_defects() {
    let report = crowded(3, 10, 50);
    // Room for everything but 20 candidates.
    let v = to_value_capped(&report, &sample::base(), Some(43));
    assert_eq!(errors(&v), Vec::<String>::new());
    let t = tiers_of(&v);
    assert_eq!(
        (t["hard_defect"], t["hard_event"], t["candidate"]),
        (3, 10, 30)
    );
    // Candidates are shared out by rule: the two rules' candidates both stay represented.
    let rules: std::collections::BTreeSet<&str> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["properties"]["tier"] == "candidate")
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(rules.len(), 3, "{rules:?}");
    let run = &v["runs"][0];
    assert_eq!(run["properties"]["omitted"]["candidate"], 20);
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    let said: Vec<&str> = notes
        .iter()
        .filter(|n| n["level"] == "warning")
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert!(
        said.iter()
            .any(|m| m.starts_with("left out 20 of 63 results") && m.contains("20 candidates")),
        "{said:?}"
    );
    // Tighter: candidates all go, then hard events; hard defects stay even past the cap.
    let t = tiers_of(&to_value_capped(&report, &sample::base(), Some(8)));
    assert_eq!((t["hard_defect"], t["hard_event"]), (3, 5));
    assert!(!t.contains_key("candidate"));
    let t = tiers_of(&to_value_capped(&report, &sample::base(), Some(1)));
    assert_eq!(t.len(), 1);
    assert_eq!(t["hard_defect"], 3);
    // No cap, or a cap that fits: nothing omitted, nothing said.
    let all = to_value_capped(&report, &sample::base(), None);
    assert_eq!(all["runs"][0]["results"].as_array().unwrap().len(), 63);
    assert!(all["runs"][0]["properties"].get("omitted").is_none());
    assert!(select(&report, Some(63)).notices().is_empty());
}

#[test]
fn fingerprints_do_not_depend_on_the_cap() {
    let report = crowded(2, 2, 6);
    let prints = |cap| -> std::collections::BTreeMap<u32, String> {
        to_value_capped(&report, &sample::base(), cap)["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap() as u32,
                    r["partialFingerprints"]["primaryLocationLineHash"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            })
            .collect()
    };
    let all = prints(None);
    for (line, fp) in prints(Some(5)) {
        assert_eq!(all[&line], fp);
    }
}

#[test]
fn regions_end_where_the_step_ends() {
    let mut report = sample::report();
    report.findings[0].evidence[0].at =
        crate::model::Location::new(1, 31, "/steps/1").ending(crate::model::location::End {
            line: 1,
            column: 88,
        });
    let v = to_value(&report, &sample::base());
    assert_eq!(errors(&v), Vec::<String>::new());
    let region = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (&region["startLine"], &region["startColumn"]),
        (&1.into(), &31.into())
    );
    assert_eq!(
        (&region["endLine"], &region["endColumn"]),
        (&1.into(), &88.into())
    );
    // Unknown extent: no end at all (never a guess).
    let region = &v["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"];
    assert!(region.get("endLine").is_none() && region.get("endColumn").is_none());
}

#[test]
fn invisible_characters_never_reach_properties_or_justifications() {
    let mut report = sample::report();
    report.findings[0].run_id = "run\u{202e}1".into();
    report.findings[0].tool = Some("cancel\u{200b}order".into());
    report.findings[3].ignored = Some("accepted\u{2066} by ops".into());
    let text = to_value(&report, &sample::base()).to_string();
    for bad in ['\u{202e}', '\u{200b}', '\u{2066}'] {
        assert!(!text.contains(bad), "raw {bad:?} in the log");
    }
    assert!(text.contains(r"run\\u{202e}1") && text.contains(r"accepted\\u{2066} by ops"));
}

#[test]
fn inputs_outside_the_root_get_absolute_file_uris() {
    let mut report = sample::report();
    report.inputs[1].path = "/elsewhere/t.jsonl".into();
    report.findings[3].input = 1;
    let base = sample::base();
    let v = to_value(&report, &base);
    assert_eq!(errors(&v), Vec::<String>::new());
    let artifact =
        &v["runs"][0]["results"][3]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "file:///elsewhere/t.jsonl");
    assert!(artifact.get("uriBaseId").is_none());
    // Inside the root: relative to %SRCROOT%, never `../`.
    let inside =
        &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(
        (&inside["uri"], &inside["uriBaseId"]),
        (&"traces/sub/run.jsonl".into(), &"%SRCROOT%".into())
    );
    let said = v["runs"][0]["invocations"][0]["toolExecutionNotifications"].to_string();
    assert!(
        said.contains("`/elsewhere/t.jsonl` is outside the root `/repo`"),
        "{said}"
    );
}
