//! Differential test of trajectory expectations (rule E1) against LangChain's `agentevals` 0.0.9
//! trajectory match evaluators (`create_trajectory_match_evaluator`), used as a black box: for
//! every trajectory match mode × tool-argument match mode, a family of (run, reference) pairs is
//! judged by both, and the verdicts must agree on every pair except the deliberate differences
//! `deliberate` lists (each with its reason; the test fails if a listed difference disappears).
//!
//! The peer lives in the PyPI venv `scripts/test` makes (`scripts/dist-tools.txt`, found through
//! `TRACELINT_DIST_VENV`; `TRACELINT_AGENTEVALS_PYTHON` names another interpreter). Missing, the
//! test is skipped with a notice, or fails under `scripts/test` (`TRACELINT_FULL_TEST`).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use tracelint::expect::{ExpectFile, Verdict};
use tracelint::model::{
    Args, InputRef, Location, Message, ResultStatus, Role, StepKind, StepMeta, ToolCall,
    ToolResult, Trace,
};

const MATCH: [&str; 4] = ["strict", "unordered", "subset", "superset"];
const ARGS: [&str; 4] = ["exact", "ignore", "subset", "superset"];

/// The interpreter of the venv that holds agentevals, or `None` (skip) when it is missing.
fn python() -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = if let Some(p) = std::env::var_os("TRACELINT_AGENTEVALS_PYTHON")
    {
        vec![PathBuf::from(p)]
    } else {
        let venv = match std::env::var_os("TRACELINT_DIST_VENV").filter(|v| !v.is_empty()) {
            Some(v) => PathBuf::from(v),
            None => {
                let cache = std::env::var_os("TRACELINT_DEV_CACHE")
                    .map(PathBuf::from)
                    .or_else(|| {
                        std::env::var_os("XDG_CACHE_HOME")
                            .map(|d| PathBuf::from(d).join("tracelint-dev"))
                    })
                    .unwrap_or_else(|| {
                        PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/root".into()))
                            .join(".cache/tracelint-dev")
                    });
                cache.join("venv")
            }
        };
        vec![venv.join("bin/python")]
    };
    let found = candidates.into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import agentevals.trajectory.match"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("TRACELINT_FULL_TEST").is_none(),
            "TRACELINT_FULL_TEST is set but agentevals 0.0.9 is missing: run ./scripts/test, which installs scripts/dist-tools.txt"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: agentevals is missing (./scripts/test installs it)");
        }
    }
    found
}

/// The peer, driven through its public evaluator factory: one (match, args, run, reference)
/// per input line, one verdict per output line. Each call is its own assistant message with its
/// tool result, so strict mode's message-by-message comparison lines up with a call-by-call one.
const DRIVER: &str = r#"
import json, sys
from agentevals.trajectory.match import create_trajectory_match_evaluator

def messages(calls):
    out = [{"role": "user", "content": "go"}]
    for i, (tool, args) in enumerate(calls):
        out.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": tool, "arguments": json.dumps(args)}}]})
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"})
    out.append({"role": "assistant", "content": "done"})
    return out

for line in sys.stdin:
    case = json.loads(line)
    ev = create_trajectory_match_evaluator(
        trajectory_match_mode=case["match"], tool_args_match_mode=case["args"])
    r = ev(outputs=messages(case["run"]), reference_outputs=messages(case["reference"]))
    print(json.dumps(bool(r["score"])))
"#;

type Calls = Vec<(&'static str, Value)>;

/// The templates: (name, run, reference). Each is judged under every mode pair.
fn templates() -> Vec<(&'static str, Calls, Calls)> {
    let base: Calls = vec![
        ("search", json!({"q": "flights to Oslo", "limit": 5})),
        ("book", json!({"flight": "SK123", "seats": 1})),
        ("notify", json!({"to": "ann", "text": "booked"})),
    ];
    let with = |i: usize, v: Value| {
        let mut c = base.clone();
        c[i].1 = v;
        c
    };
    vec![
        ("identical", base.clone(), base.clone()),
        (
            "extra_call",
            {
                let mut c = base.clone();
                c.push(("audit", json!({"event": "booked"})));
                c
            },
            base.clone(),
        ),
        ("missing_call", base[..2].to_vec(), base.clone()),
        (
            "swapped_order",
            vec![base[1].clone(), base[0].clone(), base[2].clone()],
            base.clone(),
        ),
        (
            "value_differs",
            with(1, json!({"flight": "SK999", "seats": 1})),
            base.clone(),
        ),
        (
            "extra_arg",
            with(
                0,
                json!({"q": "flights to Oslo", "limit": 5, "sort": "price"}),
            ),
            base.clone(),
        ),
        (
            "missing_arg",
            with(0, json!({"q": "flights to Oslo"})),
            base.clone(),
        ),
        (
            "number_forms",
            with(1, json!({"flight": "SK123", "seats": 1.0})),
            base.clone(),
        ),
        (
            "nested_number_forms",
            vec![("search", json!({"q": {"to": "Oslo", "n": 2.0}}))],
            vec![("search", json!({"q": {"to": "Oslo", "n": 2}}))],
        ),
        (
            "bool_vs_number",
            with(1, json!({"flight": "SK123", "seats": true})),
            base.clone(),
        ),
        ("different_tool", with_tool(&base, 2, "email"), base.clone()),
        ("empty_run", vec![], base.clone()),
        ("both_empty", vec![], vec![]),
        // Two calls of one tool whose greedy pairing (each reference call takes the first
        // unused acceptable call) strands the second: a valid pairing exists.
        (
            "greedy_trap",
            vec![
                ("search", json!({"q": "a", "limit": 5})),
                ("search", json!({"q": "a"})),
            ],
            vec![
                ("search", json!({"q": "a"})),
                ("search", json!({"q": "a", "limit": 5})),
            ],
        ),
        (
            "repeated_call",
            {
                let mut c = base.clone();
                c.insert(1, base[0].clone());
                c
            },
            base.clone(),
        ),
    ]
}

fn with_tool(base: &Calls, i: usize, tool: &'static str) -> Calls {
    let mut c = base.clone();
    c[i].0 = tool;
    c
}

/// The deliberate differences from agentevals, with their reasons; `None` = the verdicts agree.
fn deliberate(template: &str, mode: &str, args: &str) -> Option<&'static str> {
    // agentevals hands a tool's arguments to its matcher as (run, reference) in strict and
    // superset mode, but as (reference, run) in subset mode and in unordered mode's second pass,
    // so `subset`/`superset` argument modes turn around there. tracelint always compares the
    // run's call against the reference's ("subset": the run's arguments are among the
    // reference's).
    const DIRECTION: &str =
        "agentevals turns the argument mode around in subset and unordered trajectory modes";
    // Python's `True == 1`: agentevals reads a bool argument as equal to the number 1.
    const BOOL: &str = "agentevals equates true with 1 (Python's True == 1); tracelint does not";
    // agentevals pairs calls greedily; tracelint finds the pairing when one exists.
    const GREEDY: &str = "agentevals pairs calls greedily and misses a valid pairing; tracelint's assignment is optimal";
    match (template, mode, args) {
        // The run's call has one key more (less) than the reference's: in subset mode the
        // turned-around modes say the opposite; in unordered mode the second pass fails the
        // mode that the first pass (and tracelint) accepts.
        ("extra_arg" | "missing_arg", "subset", "subset" | "superset")
        | ("extra_arg", "unordered", "superset")
        | ("missing_arg", "unordered", "subset") => Some(DIRECTION),
        ("bool_vs_number", _, "exact" | "subset" | "superset") => Some(BOOL),
        // A valid pairing exists only one way round; in subset and unordered modes the
        // turned-around argument mode adds to it.
        ("greedy_trap", "superset", "superset")
        | ("greedy_trap", "subset", "subset")
        | ("greedy_trap", "unordered", "subset" | "superset") => Some(GREEDY),
        _ => None,
    }
}

fn trace(calls: &Calls) -> Trace {
    let mut t = Trace::new(
        "run",
        InputRef {
            path: "run.json".into(),
            format: "native".into(),
        },
    );
    let at = |i: usize| Location::new(i as u32 + 1, 1, format!("/steps/{i}"));
    t.push(
        StepKind::Message(Message {
            role: Role::User,
            content: "go".into(),
        }),
        at(0),
        StepMeta::default(),
    );
    for (i, (tool, args)) in calls.iter().enumerate() {
        let n = t.steps().len();
        t.push(
            StepKind::ToolCall(ToolCall {
                call_id: Some(format!("c{i}")),
                name: (*tool).into(),
                args: Args::Known(args.clone()),
                raw_args: None,
                origin: Default::default(),
            }),
            at(n),
            StepMeta::default(),
        );
        let n = t.steps().len();
        t.push(
            StepKind::ToolResult(ToolResult::new(
                Some(format!("c{i}")),
                json!("ok"),
                ResultStatus::Ok,
            )),
            at(n),
            StepMeta::default(),
        );
    }
    t
}

/// A JSON value as a TOML inline value (JSON's string escapes are TOML's too).
fn inline_toml(v: &Value) -> String {
    match v {
        Value::Object(m) => format!(
            "{{ {} }}",
            m.iter()
                .map(|(k, v)| format!("{} = {}", Value::String(k.clone()), inline_toml(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(inline_toml).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

fn expectation(reference: &Calls, mode: &str, args: &str) -> ExpectFile {
    let calls: Vec<String> = reference
        .iter()
        .map(|(tool, a)| format!("{{ tool = \"{tool}\", args = {} }}", inline_toml(a)))
        .collect();
    let text = format!(
        "[[expect]]\nwhy = \"differential\"\ntrajectory = [{}]\nmatch = \"{mode}\"\nargs = \"{args}\"\n",
        calls.join(", ")
    );
    ExpectFile::from_str(&text, "expect.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn trajectory_verdicts_agree_with_agentevals() {
    let Some(py) = python() else {
        return;
    };
    let mut cases = Vec::new();
    for (name, run, reference) in templates() {
        for mode in MATCH {
            for args in ARGS {
                cases.push((name, mode, args, run.clone(), reference.clone()));
            }
        }
    }
    assert!(cases.len() >= 30);
    let mut child = Command::new(&py)
        .args(["-c", DRIVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start python");
    {
        let mut stdin = child.stdin.take().unwrap();
        for (_, mode, args, run, reference) in &cases {
            let line = json!({"match": mode, "args": args, "run": run, "reference": reference});
            writeln!(stdin, "{line}").unwrap();
        }
    }
    let out = child.wait_with_output().expect("python ran");
    assert!(
        out.status.success(),
        "agentevals driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<bool> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(theirs.len(), cases.len());
    let mut problems = Vec::new();
    let mut differences = 0;
    let mut combos = std::collections::BTreeSet::new();
    for ((name, mode, args, run, reference), peer) in cases.iter().zip(&theirs) {
        let file = expectation(reference, mode, args);
        let verdict = file.expectations[0].evaluate(&trace(run));
        let ours = match &verdict {
            Verdict::Met => true,
            Verdict::NotMet { .. } => false,
            Verdict::Undecidable(u) => panic!("{name} {mode}/{args}: undecidable: {}", u.reason),
        };
        combos.insert((*mode, *args));
        match (ours == *peer, deliberate(name, mode, args)) {
            (true, None) => {}
            (false, Some(_)) => differences += 1,
            (false, None) => problems.push(format!(
                "{name} match={mode} args={args}: tracelint says {ours}, agentevals {peer}"
            )),
            (true, Some(why)) => problems.push(format!(
                "{name} match={mode} args={args}: listed as a deliberate difference ({why}) but both say {ours}"
            )),
        }
    }
    assert_eq!(combos.len(), 16, "every match mode × argument mode");
    assert!(problems.is_empty(), "{problems:#?}");
    // The listed differences are few and all of them happened.
    assert!(
        differences > 0 && differences < cases.len() / 5,
        "{differences}"
    );
}
