use super::*;
use clap::CommandFactory;

#[test]
fn cli_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn timeouts() {
    use std::time::Duration;
    assert_eq!(parse_seconds("30"), Ok(Duration::from_secs(30)));
    assert_eq!(parse_seconds("2.5"), Ok(Duration::from_millis(2500)));
    assert_eq!(parse_seconds("30s"), Ok(Duration::from_secs(30)));
    assert_eq!(parse_seconds("500ms"), Ok(Duration::from_millis(500)));
    for bad in ["0", "-1", "abc", "1e9", "NaN", ""] {
        assert!(parse_seconds(bad).is_err(), "{bad}");
    }
}

#[test]
fn implicit_check() {
    let a = |v: &[&str]| with_implicit_check(v.iter().map(Into::into).collect());
    assert_eq!(a(&["tracelint", "t.json", "--tools", "x"])[1], "check");
    assert_eq!(a(&["tracelint", "--tools", "x", "t.json"])[1], "check");
    assert_eq!(a(&["tracelint", "rules"])[1], "rules");
    assert_eq!(a(&["tracelint", "infer", "t.json", "-o", "x"])[1], "infer");
    assert_eq!(a(&["tracelint", "completions", "bash"])[1], "completions");
    assert_eq!(a(&["tracelint", "--version"])[1], "--version");
    // A mistyped subcommand is left for clap's "did you mean"; a path never is.
    assert_eq!(a(&["tracelint", "chek", "t.json"])[1], "chek");
    assert_eq!(a(&["tracelint", "doctr", "t.json"])[1], "doctr");
    assert_eq!(a(&["tracelint", "chek.jsonl"])[1], "check");
    assert_eq!(a(&["tracelint", "traces/chek"])[1], "check");
    assert_eq!(a(&["tracelint", "session"])[1], "check");
}
