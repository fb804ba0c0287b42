//! Evaluation tests over small hand-built traces (the parser's own are in `parse.rs`).

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
}
