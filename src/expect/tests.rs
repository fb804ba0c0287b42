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
    assert_eq!(f.expectations.len(), 5);
    assert!(matches!(&f.expectations[4].check, Check::Turns(b) if b.at_most == Some(10)));
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

// ---------------------------------------------------------------- scores with reasons

fn score_of(e: &Expectation, t: &Trace) -> Score {
    e.score(t).expect("a trajectory within bounds")
}

/// ADK's "3 of 4 expected tools": the run made three of the four reference calls, all right.
const ADK_FOUR: &str = "trajectory = [{ tool = \"search_flights\", args = { to = \"LIS\" } }, { tool = \"check_weather\", args = { city = \"Lisbon\" } }, { tool = \"book_flight\", args = { flight = \"TP1\" } }, { tool = \"send_confirmation\", args = { to = \"ana@example.com\" } }]\n";

fn adk_run(last: bool) -> Trace {
    let mut calls = vec![
        ("search_flights", json!({"to": "LIS"}), None),
        ("check_weather", json!({"city": "Lisbon"}), None),
        ("book_flight", json!({"flight": "TP1"}), None),
    ];
    if last {
        calls.push(("send_confirmation", json!({"to": "ana@example.com"}), None));
    }
    trace(&calls)
}

#[test]
fn three_of_four_expected_tools_scores_f1_six_sevenths_and_names_the_missing_step() {
    let e = one(ADK_FOUR);
    let s = score_of(&e, &adk_run(false));
    assert_eq!((s.matched, s.expected, s.actual), (3, 4, 3));
    assert_eq!(s.precision, 1.0);
    assert_eq!(s.recall, 0.75);
    assert!((s.f1 - 6.0 / 7.0).abs() < 1e-12, "{}", s.f1);
    assert_eq!(
        s.summary(),
        "F1 0.857 (precision 1.000 = 3/3, recall 0.750 = 3/4)"
    );
    assert_eq!(s.edits.len(), 1, "{:#?}", s.edits);
    assert_eq!(s.edits[0].kind, EditKind::Missing);
    assert_eq!(s.edits[0].reference, Some(4));
    assert_eq!(s.edits[0].tool, "send_confirmation");
    let why: Vec<String> = s
        .steps
        .iter()
        .map(|d| format!("#{} {}: {}", d.reference, d.tool, d.why))
        .collect();
    insta::assert_snapshot!(why.join("\n"), @r"
    #1 search_flights: matched step 0
    #2 check_weather: matched step 1
    #3 book_flight: matched step 2
    #4 send_confirmation: never called: the run has no call of `send_confirmation`
    ");
    assert!(!e.evaluate(&adk_run(false)).is_met());
}

#[test]
fn an_exact_match_scores_one() {
    let e = one(ADK_FOUR);
    let s = score_of(&e, &adk_run(true));
    assert_eq!((s.precision, s.recall, s.f1), (1.0, 1.0, 1.0));
    assert!(s.edits.is_empty());
    assert!(s.steps.iter().all(|d| d.matched));
    assert!(e.evaluate(&adk_run(true)).is_met());
}

#[test]
fn min_score_gates_a_close_enough_run() {
    let run = adk_run(false); // F1 6/7 = 0.857…
    assert!(one(&format!("{ADK_FOUR}min_score = 0.85\n")).evaluate(&run).is_met());
    assert!(one(&format!("{ADK_FOUR}min_score = 0.857142857142857\n")).evaluate(&run).is_met());
    assert!(!one(&format!("{ADK_FOUR}min_score = 0.86\n")).evaluate(&run).is_met());
    assert!(!one(&format!("{ADK_FOUR}min_score = 1\n")).evaluate(&run).is_met());
    // A run far off stays not met under a lenient threshold's neighbour.
    let off = trace(&[("search_flights", json!({"to": "OPO"}), None)]);
    let e = one(&format!("{ADK_FOUR}min_score = 0.5\n"));
    let s = score_of(&e, &off);
    assert_eq!(s.f1, 0.0);
    assert!(!e.evaluate(&off).is_met());
    // Out of range and on an assertion: errors, never ignored.
    for bad in ["min_score = 1.5", "min_score = -0.1", "min_score = \"high\""] {
        let err = ExpectFile::from_str(
            &format!("[[expect]]\nwhy = \"t\"\n{ADK_FOUR}{bad}\n"),
            "e.toml",
        )
        .unwrap_err();
        assert!(err.to_string().contains("`min_score` must be a number from 0 to 1"), "{err}");
    }
    let err = ExpectFile::from_str(
        "[[expect]]\nwhy = \"t\"\ncalled = \"a\"\nmin_score = 0.5\n",
        "e.toml",
    )
    .unwrap_err();
    assert!(err.to_string().contains("`min_score` does not apply"), "{err}");
}

#[test]
fn the_per_step_diff_says_which_argument_and_value_and_what_is_out_of_order() {
    // Reference a, b, c(q=1); the run: b, a, c(q=2), d.
    let e = one(
        "trajectory = [{ tool = \"a\" }, { tool = \"b\" }, { tool = \"c\", args = { q = 1 } }]\n",
    );
    let t = trace(&[
        ("b", json!({}), None),
        ("a", json!({}), None),
        ("c", json!({"q": 2}), None),
        ("d", json!({}), None),
    ]);
    let s = score_of(&e, &t);
    // In strict order only one of a, b keeps the order (the later reference step is the one
    // out of order); c differs.
    assert_eq!(s.matched, 1);
    let edits: Vec<String> = s
        .edits
        .iter()
        .map(|x| format!("{:?} ref={:?} step={:?} {}", x.kind, x.reference, x.step, x.tool))
        .collect();
    let why: Vec<String> = s
        .steps
        .iter()
        .map(|d| format!("#{} {} matched={}: {}", d.reference, d.tool, d.matched, d.why))
        .collect();
    insta::assert_snapshot!(format!("{}\n{}", edits.join("\n"), why.join("\n")), @r#"
    OutOfOrder ref=Some(2) step=Some(0) b
    Substituted ref=Some(3) step=Some(2) c
    Extra ref=None step=Some(3) d
    #1 a matched=true: matched step 1
    #2 b matched=false: made at step 0, out of the reference's order
    #3 c matched=false: step 2 called `c` but `/q` expected 1, got 2 (exact arguments)
    "#);
    // Unordered: a and b both count.
    let e = one(
        "trajectory = [{ tool = \"a\" }, { tool = \"b\" }, { tool = \"c\", args = { q = 1 } }]\nmatch = \"unordered\"\n",
    );
    let s = score_of(&e, &t);
    assert_eq!((s.matched, s.expected, s.actual), (2, 3, 4));
    assert!(s.edits.iter().all(|x| x.kind != EditKind::OutOfOrder));
}

/// SplitMix64, for reproducible random pairs.
fn splitmix(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn the_score_counts_as_many_matches_as_a_brute_force_alignment_finds() {
    let mut seed = 48u64;
    let modes = ["strict", "unordered", "subset", "superset"];
    let argss = ["exact", "ignore", "subset", "superset"];
    let mut checked = 0;
    for round in 0..400 {
        let mut next = |n: u64| splitmix(&mut seed) % n;
        let tools = ["a", "b", "c"];
        let ne = next(6) as usize;
        let na = next(7) as usize;
        let reference: Vec<String> = (0..ne)
            .map(|_| {
                format!(
                    "{{ tool = \"{}\", args = {{ x = {} }} }}",
                    tools[next(3) as usize],
                    next(2)
                )
            })
            .collect();
        let calls: Vec<(&str, Value, Option<Value>)> = (0..na)
            .map(|_| {
                let mut args = json!({"x": next(2)});
                if next(3) == 0 {
                    args["y"] = json!(1);
                }
                (tools[next(3) as usize], args, None)
            })
            .collect();
        let t = trace(&calls);
        let mode = modes[round % 4];
        let args = argss[(round / 4) % 4];
        let e = one(&format!(
            "trajectory = [{}]\nmatch = \"{mode}\"\nargs = \"{args}\"\n",
            reference.join(", ")
        ));
        let Check::Trajectory(traj) = &e.check else {
            panic!()
        };
        let s = score_of(&e, &t);
        let best = score::brute_force_matched(traj, &verdict::calls(&t));
        assert_eq!(
            s.matched, best,
            "round {round}: {mode}/{args} reference {reference:?} run {calls:?}"
        );
        // Every reference step is explained once; edits and matches account for every call.
        assert_eq!(s.steps.len(), ne);
        let used = s.steps.iter().filter(|d| d.step.is_some()).count();
        let extra = s.edits.iter().filter(|x| x.kind == EditKind::Extra).count();
        assert_eq!(used + extra, na, "round {round}");
        let (p, r, f1) = score::ratios(best, ne, na);
        assert_eq!((s.precision, s.recall, s.f1), (p, r, f1));
        // A met verdict in a mode that counts both sides means a perfect score.
        if mode == "strict" || mode == "unordered" {
            assert_eq!(e.evaluate(&t).is_met(), s.f1 == 1.0, "round {round}");
        }
        checked += 1;
    }
    assert_eq!(checked, 400);
}

// ---------------------------------------------------------------- step status and sizes

/// A trace of calls with their results' structured status (`None`: no result), each call
/// after a user message when `turns` says so.
fn statused(calls: &[(&str, Option<crate::model::ResultStatus>)]) -> Trace {
    let mut t = Trace::new(
        "run-s",
        InputRef {
            path: "runs/s.jsonl".into(),
            format: "native".into(),
        },
    );
    let at = |i: usize| Location::new(i as u32 + 1, 1, format!("/steps/{i}"));
    for (n, (tool, status)) in calls.iter().enumerate() {
        let id = format!("c{n}");
        let i = t.steps.len();
        t.push(
            StepKind::ToolCall(ToolCall {
                call_id: Some(id.clone()),
                name: (*tool).into(),
                args: Args::Known(json!({"n": 1})),
                raw_args: None,
                origin: Default::default(),
            }),
            at(i),
            StepMeta::default(),
        );
        if let Some(s) = status {
            let i = t.steps.len();
            t.push(
                StepKind::ToolResult(ToolResult::new(Some(id), json!("r"), *s)),
                at(i),
                StepMeta::default(),
            );
        }
    }
    t
}

fn undecided(v: &Verdict) -> &str {
    match v {
        Verdict::Undecidable(u) => &u.reason,
        other => panic!("expected undecidable, got {other:?}"),
    }
}

#[test]
fn a_step_status_names_what_was_wanted_and_what_was_seen() {
    use crate::model::ResultStatus::{Error, Ok as Fine, Unknown};
    let failed_then_retried = statused(&[("f", Some(Error)), ("f", Some(Error)), ("f", Some(Fine)), ("g", Some(Fine))]);
    for met in [
        "called = \"f\"\nstatus = \"retried\"",
        "called = \"f\"\nstatus = \"ok\"",
        "called = \"f\"\nstatus = \"error\"",
        // The chain's first failure is the retried call; its retries are not counted again.
        "count = \"f\"\nstatus = \"retried\"\nexactly = 1",
        // A failed call and its retries stand as one call of a `retried` step.
        "trajectory = [{ tool = \"f\", status = \"retried\" }, { tool = \"g\", status = \"ok\" }]",
    ] {
        assert!(one(met).evaluate(&failed_then_retried).is_met(), "{met}");
    }
    // Without a `retried` step the three calls of `f` are three calls.
    let v = one("trajectory = [{ tool = \"f\", status = \"ok\" }, { tool = \"g\" }]\nmatch = \"superset\"")
        .evaluate(&failed_then_retried);
    assert!(v.is_met(), "{v:?}");
    let v = one("trajectory = [{ tool = \"f\", status = \"error\" }, { tool = \"f\", status = \"error\" }, { tool = \"f\", status = \"error\" }, { tool = \"g\" }]")
        .evaluate(&failed_then_retried);
    let m = misses(&v);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].message.contains("expected call #3 `f`: the closest call's status differs"), "{m:?}");
    assert!(m[0].differences[0].contains("status wanted `error`, seen `ok`"), "{m:?}");

    let gave_up = statused(&[("f", Some(Error)), ("g", Some(Fine)), ("f", Some(Fine))]);
    let v = one("called = \"f\"\nstatus = \"retried\"").evaluate(&gave_up);
    assert!(
        misses(&v)[0].differences[0].contains("seen `error` with no retry of the tool right after it"),
        "{v:?}"
    );
    let v = one("trajectory = [{ tool = \"f\", status = \"ok\" }, { tool = \"g\" }, { tool = \"f\" }]")
        .evaluate(&gave_up);
    assert!(misses(&v)[0].differences[0].contains("status wanted `ok`, seen `error`"), "{v:?}");
    // The score counts the step as unmatched, and says why.
    let s = score_of(
        &one("trajectory = [{ tool = \"f\", status = \"ok\" }, { tool = \"g\" }, { tool = \"f\" }]"),
        &gave_up,
    );
    assert_eq!(s.matched, 2);
    assert!(s.steps.iter().any(|d| d.why.contains("status wanted `ok`")), "{s:?}");

    // A format that marks only failures cannot tell a success: undecided, never passed.
    let quiet = statused(&[("f", Some(Unknown)), ("g", None)]);
    let v = one("called = \"f\"\nstatus = \"ok\"").evaluate(&quiet);
    assert!(undecided(&v).contains("status wanted `ok`, and its result carries no status"), "{v:?}");
    let v = one("trajectory = [{ tool = \"f\", status = \"ok\" }, { tool = \"g\" }]").evaluate(&quiet);
    assert!(undecided(&v).contains("its result carries no status"), "{v:?}");
    let v = one("called = \"g\"\nstatus = \"error\"").evaluate(&quiet);
    assert!(undecided(&v).contains("it has no result"), "{v:?}");
    // A step with no status ignores it, as agentevals does.
    assert!(one("trajectory = [{ tool = \"f\" }, { tool = \"g\" }]").evaluate(&quiet).is_met());
}

#[test]
fn turns_and_calls_are_bounded() {
    // user, [assistant, call f], result, [call g, call h], result, result, [assistant]: 3 turns.
    let mut t = statused(&[]);
    let at = |i: usize| Location::new(i as u32 + 1, 1, format!("/steps/{i}"));
    let msg = |role, text: &str| {
        StepKind::Message(Message {
            role,
            content: text.into(),
        })
    };
    let call = |id: &str, name: &str| {
        StepKind::ToolCall(ToolCall {
            call_id: Some(id.into()),
            name: name.into(),
            args: Args::Known(json!({})),
            raw_args: None,
            origin: Default::default(),
        })
    };
    let result = |id: &str| {
        StepKind::ToolResult(ToolResult::new(
            Some(id.into()),
            json!("ok"),
            crate::model::ResultStatus::Ok,
        ))
    };
    for k in [
        msg(Role::User, "go"),
        msg(Role::Assistant, "on it"),
        call("1", "f"),
        result("1"),
        call("2", "g"),
        call("3", "h"),
        result("2"),
        result("3"),
        msg(Role::Assistant, "done"),
    ] {
        let i = t.steps.len();
        t.push(k, at(i), StepMeta::default());
    }
    for met in [
        "turns = { max = 3 }",
        "turns = { exactly = 3 }",
        "turns = { min = 1, max = 5 }",
        "calls = { at_most = 3 }",
        "calls = { min = 3 }",
    ] {
        assert!(one(met).evaluate(&t).is_met(), "{met}");
    }
    let v = one("turns = { max = 2 }").evaluate(&t);
    let m = &misses(&v)[0];
    assert_eq!(m.message, "the run made 3 turns, expected at most 2");
    assert_eq!(m.step, Some(8), "the third turn begins at the last message");
    let v = one("calls = { min = 4 }").evaluate(&t);
    assert_eq!(misses(&v)[0].message, "the run made 3 calls, expected at least 4");
    // Part of a partial trace may hold more: only a count already past `max` is decided.
    t.partial = true;
    assert!(undecided(&one("turns = { max = 3 }").evaluate(&t)).contains("could not be read"));
    assert!(!misses(&one("turns = { max = 1 }").evaluate(&t)).is_empty());
}

#[test]
fn status_and_bounds_are_checked_when_read() {
    let err = |toml: &str| {
        ExpectFile::from_str(&format!("[[expect]]\nwhy = \"test\"\n{toml}"), "e.toml")
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("trajectory = [{ tool = \"f\", status = \"fine\" }]"),
        "e.toml:3:15: `trajectory` call of `f`: unknown `status` \"fine\" (expected \"ok\", \"error\" or \"retried\")"
    );
    assert_eq!(err("turns = {}"), "e.toml:3:9: `turns`: give `min`, `max` or `exactly`");
    assert_eq!(
        err("calls = { min = 3, max = 2 }"),
        "e.toml:3:9: `calls`: `min` (3) is more than `max` (2)"
    );
    assert_eq!(
        err("turns = { max = -1 }"),
        "e.toml:3:9: `turns`: `max` must be a count (0 or more)"
    );
    assert!(err("turns = { max = 2 }\nwhere = [{ pointer = \"/a\", exists = true }]").contains("`where` does not apply to a `turns` expectation"));
    assert!(err("turns = { most = 2 }").contains("unknown field `most`"));
}
