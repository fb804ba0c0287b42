use super::*;
use crate::expect::ArgsMode;
use crate::expect::{Check, MatchMode};
use crate::finding::Tier;

fn err(text: &str) -> String {
    ExpectFile::from_str(text, "expect.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn malformed_files_are_errors_at_their_line() {
    let e = err("[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nwher = []\n");
    assert!(
        e.starts_with("expect.toml:4:1: unknown field `wher`, expected one of `id`, `why`"),
        "{e}"
    );
    assert!(e.ends_with("(did you mean `where`?)"), "{e}");
    assert_eq!(
        err("[[expect]]\ncalled = \"a\"\n"),
        "expect.toml:1:1: expectation `expect#1` has no `why`: say why the run must do this (reasons are mandatory)"
    );
    assert!(
        err(
            "[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nwhere = [{ pointer = \"a/b\", equals = 1 }]\n"
        )
        .starts_with(
            "expect.toml:4:10: a `where` condition `pointer` \"a/b\" is not a JSON Pointer"
        )
    );
    assert_eq!(
        err(
            "[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nresult = [{ pointer = \"/m\", matches = \"a{1000}{1000}\" }]\n"
        ),
        "expect.toml:4:11: a `result` condition `matches` compiles to more than the regex size limit of 1048576 bytes"
    );
    assert!(
        err("[[expect]]\nwhy = \"x\"\ntrajectory = []\nmatch = \"fuzzy\"\n")
            .starts_with("expect.toml:4:9: unknown `match` \"fuzzy\"")
    );
    assert!(
        err("[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nmatch = \"strict\"\n")
            .starts_with("expect.toml:4:9: `match` does not apply to a `called` expectation")
    );
    assert!(
        err("[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nnot_called = \"b\"\n")
            .contains("several kinds")
    );
    assert!(err("").contains("no `[[expect]]` table"));
    assert_eq!(
        err(
            "[[expect]]\nwhy = \"x\"\ncalled = \"a\"\nbefore = { tool = \"b\", where = [{ pointer = \"/x\", eq = 1 }] }\n"
        ),
        "expect.toml:4:10: `before`: a `where` condition unknown key `eq` (expected `pointer` and one of `in`, `equals`, `exists`, `contains`, `matches`)"
    );
    assert!(err("[[expect]]\nwhy = \"x\"\ncount = \"a\"\n").contains("needs `exactly`"));
    assert!(
        err("[[expect]]\nwhy = \"x\"\ncalled = \"a\"\ntier = \"fatal\"\n")
            .starts_with("expect.toml:4:8: unknown tier")
    );
}

#[test]
fn a_well_formed_file() {
    let f = ExpectFile::from_str(
        r#"
[[expect]]
id = "flow"
why = "look before you cancel"
path = "runs/*.jsonl"
trajectory = [
  { tool = "get_order", args = { id = "A" } },
  { tool = "cancel_order" },
]
match = "superset"
args = "subset"
tool_args = { get_order = "ignore", cancel_order = ["id"] }

[[expect]]
why = "exactly one cancel"
tier = "candidate"
count = "cancel_order"
exactly = 1
where = [{ pointer = "/id", in = ["A", "B"] }]
result = [{ pointer = "/cancelled", equals = true }]
"#,
        "expect.toml",
    )
    .unwrap();
    assert_eq!(f.expectations.len(), 2);
    let Check::Trajectory(t) = &f.expectations[0].check else {
        panic!()
    };
    assert_eq!(t.mode, MatchMode::Superset);
    assert_eq!(t.args, ArgsMode::Subset);
    assert_eq!(t.args_mode("get_order"), &ArgsMode::Ignore);
    assert_eq!(
        t.args_mode("cancel_order"),
        &ArgsMode::Keys(vec!["id".into()])
    );
    assert_eq!(t.calls[1].args, None);
    assert_eq!(f.expectations[0].declared_at, "expect.toml:2:1");
    assert_eq!(f.expectations[1].id, "expect#2");
    assert_eq!(f.expectations[1].tier, Tier::Candidate);
    let Check::Count {
        filter,
        at_least,
        at_most,
    } = &f.expectations[1].check
    else {
        panic!()
    };
    assert_eq!((*at_least, *at_most), (Some(1), Some(1)));
    assert_eq!(filter.args[0].text, "/id in [\"A\",\"B\"]");
}
