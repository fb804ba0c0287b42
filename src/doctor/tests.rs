use super::diagnose::{missing_subagents, template};
use super::*;

#[test]
fn reasons_fold_quoted_names() {
    assert_eq!(
        template("tool `Bash` declares no input schema", Some("Bash")),
        "tool `…` declares no input schema"
    );
    assert_eq!(
        template("no tool schemas: pass `--tools FILE`", None),
        "no tool schemas: pass `--tools FILE`"
    );
    assert_eq!(
        template("`x` is `Bash`-like", Some("Bash")),
        "`x` is `…`-like"
    );
}

#[test]
fn gates_parse() {
    assert_eq!(parse_gate("80").unwrap(), (None, 80.0));
    assert_eq!(
        parse_gate("R1=95.5").unwrap(),
        (Some(vec![RuleId::R1]), 95.5)
    );
    assert_eq!(
        parse_gate("r2=50%").unwrap().0,
        Some(vec![RuleId::R2a, RuleId::R2b])
    );
    assert!(parse_gate("101").is_err());
    let unknown = parse_gate("R99=5").unwrap_err();
    assert!(unknown.contains("unknown name `R99`"), "{unknown}");
    // A name that is neither a rule nor a record figure lists the figures.
    let unknown = parse_gate("reasoning=90").unwrap_err();
    assert!(unknown.contains("`results`, `outcome`"), "{unknown}");
    assert!(parse_gate("=90").is_err());
    assert!(parse_gate("lots").is_err());
}

#[test]
fn shares_round_to_one_decimal() {
    assert_eq!(Share::new(2, 3).percent, Some(66.7));
    assert_eq!(Share::new(0, 0).percent, None);
    assert_eq!(Share::new(1, 3).text(), "1/3 (33.3%)");
}

#[test]
fn record_gates_parse_and_leave_rule_gates_alone() {
    assert_eq!(parse_record_gate("results=90"), Some(Ok(("results", 90.0))));
    assert_eq!(parse_record_gate("Status=75%"), Some(Ok(("outcome", 75.0))));
    assert_eq!(parse_record_gate("outcome=75"), Some(Ok(("outcome", 75.0))));
    assert_eq!(parse_record_gate("endings=100"), Some(Ok(("endings", 100.0))));
    assert!(parse_record_gate("results=120").unwrap().is_err());
    assert_eq!(parse_record_gate("R1=95"), None);
    assert_eq!(parse_record_gate("80"), None);
}

#[test]
fn sub_agent_runs_match_by_call_id_then_by_run_id() {
    use crate::record::RunFacts;
    let run = |id: &str, launches: &[&str], parent_call: Option<&str>| RunFacts {
        run_id: id.into(),
        launches: launches.iter().map(|s| (*s).to_owned()).collect(),
        parent_call: parent_call.map(str::to_owned),
        parent_runs: id
            .rsplit_once('/')
            .map(|(p, _)| p.to_owned())
            .into_iter()
            .collect(),
        ..RunFacts::default()
    };
    let runs = [
        // Three sub-agents started: one names its call, one is matched by its run id.
        run("s", &["c1", "c2", "c3"], None),
        run("s/agent-a", &[], Some("c1")),
        run("s/agent-b", &[], None),
        // One started, none present.
        run("t", &["d1"], None),
        // A sub-agent of a run that started none is nobody's missing run.
        run("u/agent-z", &[], None),
    ];
    let refs: Vec<(usize, &RunFacts)> = runs.iter().map(|r| (0, r)).collect();
    assert_eq!(missing_subagents(&refs), [1, 0, 0, 1, 0]);
}
