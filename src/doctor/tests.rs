use super::diagnose::template;
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
    assert!(parse_gate("R99=5").unwrap_err().contains("unknown rule"));
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
    assert_eq!(parse_record_gate("Status=75%"), Some(Ok(("status", 75.0))));
    assert!(parse_record_gate("results=120").unwrap().is_err());
    assert_eq!(parse_record_gate("R1=95"), None);
    assert_eq!(parse_record_gate("80"), None);
}
