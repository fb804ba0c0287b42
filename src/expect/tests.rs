//! Evaluation tests over small hand-built traces (the parser's own are in `parse/tests.rs`).

use serde_json::{Value, json};

use super::*;
use crate::model::{
    Args, InputRef, Location, Message, Role, StepKind, StepMeta, ToolCall, ToolResult,
};

/// A trace of calls, each with an optional result (`None`: the result is missing).
fn trace(calls: &[(&str, Value, Option<Value>)]) -> Trace {
    let mut t = Trace::new(
        "run-1",
        InputRef {
            path: "runs/a.jsonl".into(),
            format: "native".into(),
        },
    );
    let at = |i: usize| Location::new(i as u32 + 1, 1, format!("/steps/{i}"));
    for (n, (tool, args, result)) in calls.iter().enumerate() {
        let id = format!("c{n}");
        let i = t.steps.len();
        t.push(
            StepKind::ToolCall(ToolCall {
                call_id: Some(id.clone()),
                name: (*tool).into(),
                args: Args::Known(args.clone()),
                raw_args: None,
                origin: Default::default(),
            }),
            at(i),
            StepMeta::default(),
        );
        if let Some(r) = result {
            let i = t.steps.len();
            t.push(
                StepKind::ToolResult(ToolResult::new(
                    Some(id),
                    r.clone(),
                    crate::model::ResultStatus::Ok,
                )),
                at(i),
                StepMeta::default(),
            );
        }
    }
    let i = t.steps.len();
    t.push(
        StepKind::Message(Message {
            role: Role::Assistant,
            content: "Done: order A-1001 cancelled.".into(),
        }),
        at(i),
        StepMeta::default(),
    );
    t
}

fn one(toml: &str) -> Expectation {
    let f = ExpectFile::from_str(&format!("[[expect]]\nwhy = \"test\"\n{toml}"), "e.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    f.expectations.into_iter().next().unwrap()
}

fn misses(v: &Verdict) -> &[Miss] {
    match v {
        Verdict::NotMet { misses, .. } => misses,
        other => panic!("expected not met, got {other:?}"),
    }
}

#[test]
fn the_optimal_assignment_reports_one_mismatch_where_greedy_reports_two() {
    // Expected f(x=1,y=2), f(x=1,y=3); actual f(x=1,y=3), f(x=9,y=2). Greedy (each expected
    // call takes the first unused call of its tool) pairs e1–a1 (y differs) and e2–a2 (x and y
    // differ): two mismatched calls. The optimal assignment pairs e2–a1 (equal) and e1–a2:
    // one mismatched call, differing in `x` only.
    let e = one(
        "trajectory = [{ tool = \"f\", args = { x = 1, y = 2 } }, { tool = \"f\", args = { x = 1, y = 3 } }]\nmatch = \"unordered\"\n",
    );
    let t = trace(&[
        ("f", json!({"x": 1, "y": 3}), None),
        ("f", json!({"x": 9, "y": 2}), None),
    ]);
    let Check::Trajectory(traj) = &e.check else {
        panic!()
    };
    // Greedy, for contrast.
    let actual = [json!({"x": 1, "y": 3}), json!({"x": 9, "y": 2})];
    let greedy_mismatches = traj
        .calls
        .iter()
        .zip(&actual)
        .filter(|(c, a)| !values::diff(&ArgsMode::Exact, c.args.as_ref(), a).is_empty())
        .count();
    assert_eq!(greedy_mismatches, 2);
    let v = e.evaluate(&t);
    let m = misses(&v);
    assert_eq!(m.len(), 1, "{m:#?}");
    assert_eq!(m[0].step, Some(1));
    assert_eq!(m[0].differences, ["`/x` expected 1, got 9"]);
    assert_eq!(m[0].fields, ["x"]);
    assert_eq!(m[0].expected.as_deref(), Some("f {\"x\":1,\"y\":2}"));
    assert_eq!(m[0].actual.as_deref(), Some("f {\"x\":9,\"y\":2}"));
}

#[test]
fn match_modes() {
    let t = trace(&[
        ("a", json!({"n": 1}), None),
        ("b", json!({}), None),
        ("c", json!({}), None),
    ]);
    let traj = |calls: &str, mode: &str| {
        one(&format!("trajectory = [{calls}]\nmatch = \"{mode}\"\n")).evaluate(&t)
    };
    let same = "{tool=\"a\", args={n=1.0}}, {tool=\"b\", args={}}, {tool=\"c\", args={}}";
    let swapped = "{tool=\"b\", args={}}, {tool=\"a\", args={n=1}}, {tool=\"c\", args={}}";
    let fewer = "{tool=\"c\", args={}}, {tool=\"a\", args={n=1}}";
    let more = "{tool=\"a\", args={n=1}}, {tool=\"b\", args={}}, {tool=\"c\", args={}}, {tool=\"d\", args={}}";
    assert!(traj(same, "strict").is_met(), "1 = 1.0");
    assert!(!traj(swapped, "strict").is_met());
    assert!(traj(swapped, "unordered").is_met());
    assert!(!traj(fewer, "unordered").is_met());
    assert!(traj(fewer, "superset").is_met());
    assert!(!traj(fewer, "subset").is_met());
    assert!(traj(more, "subset").is_met());
    assert!(!traj(more, "superset").is_met());
    // The strict diff names the step where the order broke.
    let v = traj(swapped, "strict");
    let m = misses(&v);
    assert_eq!(m.len(), 2, "{m:#?}");
    assert!(m[0].message.contains("the order broke"), "{m:#?}");
    // A missing call in superset mode names itself.
    let v = traj(more, "superset");
    assert_eq!(misses(&v)[0].message, "expected call #4 `d` was never made");
}

#[test]
fn assertions_are_tri_state() {
    let t = trace(&[
        (
            "get_order",
            json!({"id": "A"}),
            Some(json!({"status": "open"})),
        ),
        (
            "cancel_order",
            json!({"id": "A"}),
            Some(json!({"cancelled": true})),
        ),
        ("cancel_order", json!({"id": "B"}), None),
    ]);
    let met = |toml: &str| one(toml).evaluate(&t);
    assert!(met("called = \"get_order\"\nbefore = \"cancel_order\"\n").is_met());
    assert!(!met("called = \"cancel_order\"\nbefore = \"get_order\"\n").is_met());
    assert!(met("called = \"cancel_order\"\nafter = \"get_order\"\n").is_met());
    assert!(met("not_called = \"refund\"\n").is_met());
    // The other call may carry conditions: the lookup came before cancelling B, not A.
    let v = met(
        "called = \"get_order\"\nbefore = { tool = \"cancel_order\", where = [{pointer = \"/id\", equals = \"A\"}] }\n",
    );
    assert!(v.is_met(), "{v:?}");
    let v = met(
        "called = \"cancel_order\"\nwhere = [{pointer = \"/id\", equals = \"B\"}]\nafter = { tool = \"cancel_order\", result = [{pointer = \"/cancelled\", equals = true}] }\n",
    );
    assert!(v.is_met(), "{v:?}");
    // No failed cancel came before the lookup.
    let v =
        met("called = \"get_order\"\nafter = { tool = \"cancel_order\", status = \"error\" }\n");
    assert!(!v.is_met(), "{v:?}");
    let v = met("not_called = \"cancel_order\"\nwhere = [{pointer = \"/id\", equals = \"A\"}]\n");
    assert_eq!(misses(&v)[0].step, Some(2));
    assert!(
        met("called = \"cancel_order\"\nresult = [{pointer = \"/cancelled\", equals = true}]\n")
            .is_met()
    );
    // Two cancels, one with no result: "exactly one succeeded" cannot be decided.
    let v = met(
        "count = \"cancel_order\"\nexactly = 1\nresult = [{pointer = \"/cancelled\", equals = true}]\n",
    );
    let Verdict::Undecidable(u) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(u.step, Some(4));
    assert!(u.reason.contains("its result is missing"), "{}", u.reason);
    // At least 3 is impossible whatever that result says: not met.
    let v = met("count = \"cancel_order\"\nat_least = 3\n");
    assert_eq!(
        misses(&v)[0].message,
        "`cancel_order` was called 2 times, expected at least 3"
    );
    assert!(met("final_answer = [{matches = \"(?i)cancelled\"}]\n").is_met());
    assert!(!met("final_answer = [{contains = \"refunded\"}]\n").is_met());
    let v = met("called = \"refund\"\n");
    assert_eq!(misses(&v)[0].message, "`refund` was never called");
}

#[test]
fn selection_by_path_and_run_id() {
    let t = trace(&[]);
    assert!(one("path = \"runs/*.jsonl\"\nnot_called = \"x\"\n").selects(&t));
    assert!(!one("path = \"other/*\"\nnot_called = \"x\"\n").selects(&t));
    assert!(one("run_id = [\"run-*\"]\nnot_called = \"x\"\n").selects(&t));
    assert!(!one("run_id = \"run-2\"\npath = \"runs/*\"\nnot_called = \"x\"\n").selects(&t));
}

#[test]
fn unrecorded_arguments_make_a_trajectory_undecidable_not_failed() {
    let mut t = trace(&[("a", json!({}), None)]);
    if let StepKind::ToolCall(c) = &mut t.steps[0].kind {
        c.args = Args::Unknown("redacted".into());
    }
    let e = one("trajectory = [{tool = \"a\", args = {n = 1}}]\n");
    assert!(matches!(e.evaluate(&t), Verdict::Undecidable(_)));
    let e = one("trajectory = [{tool = \"a\", args = {n = 1}}]\nargs = \"ignore\"\n");
    assert!(e.evaluate(&t).is_met());
    // A call of a tool the reference never names is extra whatever its arguments were.
    let e = one("trajectory = [{tool = \"b\", args = {n = 1}}]\nmatch = \"unordered\"\n");
    assert!(matches!(e.evaluate(&t), Verdict::NotMet { .. }));
}

/// Acceptance 2: every assertion kind met, not met and (where it reads a result) undecidable, in
/// native, OpenAI, Claude Code and OTel input (`fixtures/rules/e1`, written by scripts/e1-cases).
#[test]
fn every_kind_in_every_format() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rules/e1");
    let file = ExpectFile::from_path(&dir.join("expect.toml")).unwrap();
    let kinds: Vec<&str> = file.expectations.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "called",
            "not-called",
            "count",
            "before",
            "after",
            "final-answer",
            "trajectory",
            "reference"
        ]
    );
    let reads_results = |id: &str| !matches!(id, "trajectory" | "reference");
    let mut checked = 0;
    for (variant, stem) in [
        ("good", "pass_good"),
        ("bad", "fail_bad"),
        ("noresult", "suppressed_noresult"),
    ] {
        for ext in ["json", "openai.json", "claude.jsonl", "otel.json"] {
            let path = dir.join(format!("{stem}.{ext}"));
            let traces = crate::adapters::load_whole(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(traces.len(), 1, "{}", path.display());
            let t = &traces[0];
            assert_eq!(t.call_count(), 2, "{}", path.display());
            for e in &file.expectations {
                let v = e.evaluate(t);
                let want = match variant {
                    "good" => "met",
                    "bad" => "not met",
                    _ if reads_results(&e.id) => "undecidable",
                    _ => "met",
                };
                let got = match &v {
                    Verdict::Met => "met",
                    Verdict::NotMet { .. } => "not met",
                    Verdict::Undecidable(_) => "undecidable",
                };
                assert_eq!(got, want, "{} / {}: {v:?}", path.display(), e.id);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3 * 4 * 8);
}

#[test]
fn the_documented_example_parses() {
    let section = include_str!("../../docs/expectations.md");
    let start = section.find("```toml\n").unwrap() + "```toml\n".len();
    let block = &section[start..start + section[start..].find("```").unwrap()];
    let f = ExpectFile::from_str(block, "docs/expectations.md").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.expectations.len(), 3);
}

#[test]
fn past_the_optimal_bound_the_verdict_stays_exact_and_says_so() {
    // 150 reference calls and 150 run calls of one tool: 300 > HUNGARIAN_MAX.
    let n = 150;
    let calls: Vec<String> = (0..n)
        .map(|i| format!("{{tool = \"f\", args = {{i = {i}}}}}"))
        .collect();
    let toml = format!(
        "trajectory = [{}]\nmatch = \"unordered\"\n",
        calls.join(", ")
    );
    let e = one(&toml);
    // The run makes them in reverse order: a valid pairing, found by the maximum matching.
    let run: Vec<(&str, Value, Option<Value>)> =
        (0..n).rev().map(|i| ("f", json!({"i": i}), None)).collect();
    assert!(e.evaluate(&trace(&run)).is_met());
    // One call off: not met, with the disclosure.
    let mut off = run.clone();
    off[0].1 = json!({"i": 9999});
    match e.evaluate(&trace(&off)) {
        Verdict::NotMet { misses, note } => {
            assert_eq!(misses.len(), 2, "one missing, one extra: {misses:#?}");
            assert!(
                note.unwrap()
                    .contains("past the optimal matcher's bound of 256")
            );
        }
        v => panic!("{v:?}"),
    }
}

#[test]
fn past_the_strict_bound_the_expectation_is_undecidable() {
    let n = 2001;
    let calls: Vec<String> = (0..n).map(|_| "{tool = \"f\"}".to_owned()).collect();
    let e = one(&format!("trajectory = [{}]\n", calls.join(", ")));
    let run: Vec<(&str, Value, Option<Value>)> = (0..n).map(|_| ("f", json!({}), None)).collect();
    match e.evaluate(&trace(&run)) {
        Verdict::Undecidable(u) => {
            assert!(u.reason.contains("strict matcher's bound"), "{}", u.reason)
        }
        v => panic!("{v:?}"),
    }
}
