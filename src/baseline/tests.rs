//! Baseline unit tests: keys ignore what re-recording changes, matching honours tiers and counts,
//! trace files are named relative to the baseline, and the file is deterministic, versioned and
//! valid against its schema.
//!
//! Kept in one file: every test builds its baseline from the same helpers (`finding`, `opts`,
//! `report_of`, `record`), so the suite reads as one.
use super::*;
use crate::finding::{Evidence, FindingType, RuleMeta};
use crate::model::Location;
use crate::record::{InputDetail, RuleDetail};
use crate::reporters::InputSummary;

static R1: RuleMeta = RuleMeta {
    id: RuleId::R1,
    kind: FindingType::SchemaViolation,
    summary: "",
    tiers: &[Tier::HardDefect],
    unit: "tool calls",
    explanation: "",
};

fn finding(tier: Tier, tool: &str, field: &str, line: u32, run_id: &str) -> Finding {
    let at = Location::new(line, 1, "");
    let mut f = Finding::new(
        &R1,
        tier,
        run_id,
        Some(tool),
        format!("value {line} is wrong"),
        Evidence {
            step: line as usize,
            at,
            note: "the call".into(),
            excerpt: String::new(),
        },
    );
    f.field = Some(field.to_owned());
    f
}

fn opts(update: bool, gate: Tier) -> Options {
    Options {
        update,
        ratchet: true,
        gate,
        selection: Selection::default(),
    }
}

fn report_of(inputs: &[&str], details: Vec<InputDetail>) -> Report {
    Report {
        inputs: inputs
            .iter()
            .map(|p| InputSummary {
                path: (*p).to_owned(),
                format: Some("native".into()),
                ..InputSummary::default()
            })
            .collect(),
        details,
        ..Report::default()
    }
}

/// Record `findings` of input `input` (in `dir`) into `dir/b.json`, then return the text.
fn record(dir: &Path, input: &str, findings: &mut [Finding], gate: Tier) -> String {
    let mut run = BaselineRun::open(Path::new("b.json"), dir, opts(true, gate)).unwrap();
    run.settle(input, findings);
    run.finish(&report_of(&[input], vec![InputDetail::default()]))
        .unwrap();
    std::fs::read_to_string(dir.join("b.json")).unwrap()
}

#[test]
fn keys_never_hold_lines_values_or_run_ids() {
    let a = finding(Tier::HardDefect, "t", "id", 3, "run-1");
    let b = finding(Tier::HardDefect, "t", "id", 90, "run-2");
    assert_eq!(Key::of(&a), Key::of(&b));
    assert_ne!(
        Key::of(&a),
        Key::of(&finding(Tier::HardDefect, "t", "other", 3, "run-1"))
    );
    let mut c = a.clone();
    c.signal = Some("structured");
    assert_ne!(Key::of(&a), Key::of(&c));
    // `fields` (all of R1's fields) wins over `field` and is order-free.
    let mut d = a.clone();
    d.fields = vec!["z".into(), "(root)".into()];
    assert_eq!(Key::of(&d).fields, ["(root)", "z"]);
}

#[test]
fn counts_and_tiers_decide_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorded = vec![
        finding(Tier::HardDefect, "t", "id", 1, "r"),
        finding(Tier::HardDefect, "t", "id", 2, "r"),
        finding(Tier::Candidate, "t", "note", 3, "r"),
    ];
    record(dir.path(), "trace.json", &mut recorded, Tier::Candidate);
    assert!(recorded.iter().all(|f| f.baselined));
    let mut run = BaselineRun::open(
        Path::new("b.json"),
        dir.path(),
        opts(false, Tier::Candidate),
    )
    .unwrap();
    let mut now = vec![
        // Three of a key recorded twice: one is new.
        finding(Tier::HardDefect, "t", "id", 5, "r2"),
        finding(Tier::HardDefect, "t", "id", 6, "r2"),
        finding(Tier::HardDefect, "t", "id", 7, "r2"),
        // A recorded candidate that became a hard defect is new...
        finding(Tier::HardDefect, "t", "note", 8, "r2"),
        // ...and a recorded hard defect accepts the same finding as a candidate only when a
        // hard defect does not need it.
        finding(Tier::Candidate, "t", "id", 9, "r2"),
    ];
    run.settle("trace.json", &mut now);
    let new: Vec<u32> = now
        .iter()
        .filter(|f| !f.baselined)
        .map(|f| f.at().line)
        .collect();
    assert_eq!(new, [7, 8, 9]);
    assert_eq!(now[0].ignored.as_deref(), Some(ACCEPTED));
    let out = run
        .finish(&report_of(&["trace.json"], vec![InputDetail::default()]))
        .unwrap();
    // The recorded candidate did not occur as a candidate: stale.
    assert_eq!(
        out.stale,
        ["trace.json: R1 schema_violation candidate `t` (note)"]
    );
    assert_eq!(out.accepted, 2);
}

#[test]
fn a_lower_tier_is_accepted_by_a_higher_entry() {
    let dir = tempfile::tempdir().unwrap();
    record(
        dir.path(),
        "trace.json",
        &mut [finding(Tier::HardDefect, "t", "id", 1, "r")],
        Tier::HardDefect,
    );
    let mut run = BaselineRun::open(
        Path::new("b.json"),
        dir.path(),
        opts(false, Tier::HardDefect),
    )
    .unwrap();
    let mut now = vec![finding(Tier::HardEvent, "t", "id", 4, "r")];
    run.settle("trace.json", &mut now);
    assert!(now[0].baselined);
    // Another file's findings are not accepted by this file's entries.
    let mut other = vec![finding(Tier::HardDefect, "t", "id", 4, "r")];
    run.settle("other.json", &mut other);
    assert!(!other[0].baselined);
}

#[test]
fn only_findings_at_the_gate_are_recorded_and_reruns_are_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let make = |run: &str, base: u32| {
        vec![
            finding(Tier::Candidate, "t", "note", base, run),
            finding(Tier::HardDefect, "t", "id", base + 1, run),
        ]
    };
    let mut first = make("run-a", 1);
    let text = record(dir.path(), "trace.json", &mut first, Tier::HardDefect);
    assert!(!first[0].baselined && first[1].baselined);
    assert!(text.contains("\"hard_defect\"") && !text.contains("\"candidate\""));
    // The same findings at other lines, from another run id: the same bytes.
    let again = record(
        dir.path(),
        "trace.json",
        &mut make("run-b", 40),
        Tier::HardDefect,
    );
    assert_eq!(text, again);
    assert!(text.ends_with("}\n"));
}

#[test]
fn files_are_named_relative_to_the_baseline() {
    let cwd = Path::new("/work/project");
    let run = |b: &str| {
        BaselineRun::open(
            Path::new(b),
            cwd,
            Options {
                update: true,
                ..opts(true, Tier::HardDefect)
            },
        )
        .unwrap()
    };
    let mut r = run("ci/tracelint-baseline.json");
    assert_eq!(
        r.key_for("traces/a.jsonl").as_deref(),
        Some("../traces/a.jsonl")
    );
    assert_eq!(
        r.key_for("./ci/../traces/a.jsonl").as_deref(),
        Some("../traces/a.jsonl")
    );
    assert_eq!(r.key_for("-"), None);
    let mut r = run("b.json");
    assert_eq!(
        r.key_for("/work/project/traces/a.jsonl").as_deref(),
        Some("traces/a.jsonl")
    );
}

#[test]
fn updating_keeps_other_files_and_rules_not_run() {
    let dir = tempfile::tempdir().unwrap();
    record(
        dir.path(),
        "a.json",
        &mut [finding(Tier::HardDefect, "t", "id", 1, "r")],
        Tier::HardDefect,
    );
    record(
        dir.path(),
        "b.json",
        &mut [finding(Tier::HardDefect, "u", "id", 1, "r")],
        Tier::HardDefect,
    );
    let text = std::fs::read_to_string(dir.path().join("b.json")).unwrap();
    let parsed = parse(&text, "b.json").unwrap();
    assert_eq!(
        parsed.files.keys().collect::<Vec<_>>(),
        ["a.json", "b.json"]
    );
    // An update that does not run R1 keeps R1's entries of the files it reads.
    let mut run = BaselineRun::open(
        Path::new("b.json"),
        dir.path(),
        Options {
            selection: Selection::new(&[RuleId::R7], &[]),
            ..opts(true, Tier::HardDefect)
        },
    )
    .unwrap();
    run.settle("a.json", &mut []);
    run.finish(&report_of(&["a.json"], vec![InputDetail::default()]))
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.json")).unwrap(),
        text
    );
}

fn detail(rule: RuleId, tools: &[(&str, usize, usize)], suppressed: &[&str]) -> InputDetail {
    let mut d = InputDetail::default();
    let mut r = RuleDetail {
        unit: "tool calls",
        ..RuleDetail::default()
    };
    for (t, decided, total) in tools {
        let c = crate::finding::Coverage {
            decided: *decided,
            total: *total,
        };
        r.coverage.add(c);
        r.tools.insert((*t).to_owned(), c);
    }
    r.suppressed = suppressed.iter().map(|s| (*s).to_owned()).collect();
    d.rules.insert(rule, r);
    d
}

#[test]
fn the_ratchet_names_what_a_rule_can_no_longer_check() {
    let dir = tempfile::tempdir().unwrap();
    let then = detail(RuleId::R1, &[("a", 2, 2), ("b", 1, 2)], &["b"]);
    let mut rec = BaselineRun::open(
        Path::new("b.json"),
        dir.path(),
        opts(true, Tier::HardDefect),
    )
    .unwrap();
    rec.settle("t.json", &mut []);
    rec.finish(&report_of(&["t.json"], vec![then])).unwrap();
    let lost = |now: InputDetail, ratchet: bool| {
        let run = BaselineRun::open(
            Path::new("b.json"),
            dir.path(),
            Options {
                ratchet,
                ..opts(false, Tier::HardDefect)
            },
        )
        .unwrap();
        run.finish(&report_of(&["t.json"], vec![now]))
            .unwrap()
            .lost
            .into_iter()
            .map(|l| l.message)
            .collect::<Vec<_>>()
    };
    // Same coverage, a tool no longer called, a new tool not checked: nothing lost.
    assert!(
        lost(
            detail(RuleId::R1, &[("a", 2, 2), ("b", 1, 2)], &["b"]),
            true
        )
        .is_empty()
    );
    assert!(
        lost(
            detail(RuleId::R1, &[("a", 5, 5), ("new", 0, 3)], &["new"]),
            true
        )
        .is_empty()
    );
    // `a` no longer checked at all; `b` was partly checked already.
    assert_eq!(
        lost(
            detail(RuleId::R1, &[("a", 0, 2), ("b", 1, 2)], &["a", "b"]),
            true
        ),
        ["R1 can no longer check `a` (it could in the baseline; now 0 of 2 tool calls)"]
    );
    // `a` had every call checked; now one is not.
    assert_eq!(
        lost(
            detail(RuleId::R1, &[("a", 1, 2), ("b", 1, 2)], &["a", "b"]),
            true
        ),
        [
            "R1 can no longer check every call of `a` (it could in the baseline; now 1 of 2 tool calls)"
        ]
    );
    // The rule checks nothing any more (its schemas are gone).
    assert_eq!(
        lost(detail(RuleId::R1, &[("a", 0, 1)], &[]), true),
        ["R1 checks nothing any more (it checked `a`, `b` in the baseline)"]
    );
    assert!(lost(detail(RuleId::R1, &[("a", 0, 1)], &[]), false).is_empty());
}

#[test]
fn bad_files_say_what_is_wrong_and_where() {
    let e = |t: &str| parse(t, "b.json").unwrap_err().to_string();
    assert_eq!(
        e(r#"{"version": 2, "files": {}}"#),
        "b.json: baseline version 2 is not supported (this tracelint reads version 1): re-record it with `--update-baseline`"
    );
    assert!(e("{\"version\": 1,\n \"filez\": {}}").starts_with("b.json:2:"));
    assert!(e("not json").starts_with("b.json:1:2: not a tracelint baseline"));
    assert!(
        e(r#"{"version": 1, "files": {"t.json": {"findings": [{"rule": "R99", "kind": "x", "tier": "candidate", "count": 1}], "checked": {}}}}"#)
            .contains("files.\"t.json\": findings[0]: unknown rule `R99`")
    );
    assert!(
        e(r#"{"version": 1, "files": {"t.json": {"findings": [{"rule": "R1", "kind": "x", "tier": "severe", "count": 1}], "checked": {}}}}"#)
            .contains("unknown tier `severe`")
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = BaselineRun::open(
        Path::new("none.json"),
        dir.path(),
        opts(false, Tier::HardDefect),
    )
    .unwrap_err()
    .to_string();
    assert!(missing.contains("--update-baseline"), "{missing}");
}

#[test]
fn written_files_are_valid_against_the_shipped_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut f = finding(Tier::HardDefect, "t", "id", 1, "r");
    f.signal = Some("used_after_failure");
    f.fields = vec!["(root)".into(), "id".into()];
    let mut rec = BaselineRun::open(
        Path::new("b.json"),
        dir.path(),
        opts(true, Tier::HardDefect),
    )
    .unwrap();
    rec.settle("t.json", std::slice::from_mut(&mut f));
    rec.finish(&report_of(
        &["t.json"],
        vec![detail(RuleId::R1, &[("t", 1, 2)], &["t"])],
    ))
    .unwrap();
    let text = std::fs::read_to_string(dir.path().join("b.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
    // And the schema rejects what the reader rejects.
    let bad: serde_json::Value = serde_json::from_str(
        r#"{"version": 1, "files": {"t": {"findings": [], "checked": {}, "extra": 1}}}"#,
    )
    .unwrap();
    assert!(!validator.is_valid(&bad));
    insta::assert_snapshot!(text);
}
