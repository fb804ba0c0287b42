//! Acceptance 1, the injection half: every input of action.yml, in turn, holds
//! `"; touch pwned; #`. No `pwned` file may appear anywhere, and the value must reach tracelint
//! (or the action's own validation) literally, as whole words. The list of inputs is read from
//! action.yml, so an input added later without an expectation here fails the test.

use std::collections::BTreeMap;

use crate::job::{Job, find_named};
use crate::support::require_tool;

const PAYLOAD: &str = r#""; touch pwned; #"#;

/// What the log must show for each input when it holds the payload, and whether the action
/// fails. Inputs split on whitespace reach tracelint as the payload's words.
fn expectations() -> BTreeMap<&'static str, (bool, &'static str)> {
    BTreeMap::from([
        // Each word is a trace path that does not exist: input errors, exit 3.
        (
            "traces",
            (true, "::error file=pwned;,title=tracelint input error::"),
        ),
        (
            "transcript",
            (true, "::error file=pwned;,title=tracelint input error::"),
        ),
        (
            "args",
            (true, "::error file=pwned;,title=tracelint input error::"),
        ),
        // One source line, read as one tools file path.
        (
            "tools",
            (true, "cannot read tools file `\"; touch pwned; #`"),
        ),
        (
            "input-format",
            (
                true,
                "invalid value '\"; touch pwned; #' for '--input-format",
            ),
        ),
        (
            "output-format",
            (
                true,
                "must be sarif, json, html or text, not `\"; touch pwned; #`",
            ),
        ),
        (
            "format",
            (
                true,
                "must be sarif, json, html or text, not `\"; touch pwned; #`",
            ),
        ),
        (
            "fail-on-blockers",
            (true, "must be true or false, not `\"; touch pwned; #`"),
        ),
        (
            "fail-on",
            (
                true,
                "must be hard_defect, hard_event, candidate or never, not `\"; touch pwned; #`",
            ),
        ),
        ("config", (true, "\"; touch pwned; #")),
        (
            "version",
            (
                true,
                "or an exact version such as 0.1.0, not `\"; touch pwned; #`",
            ),
        ),
        // A file of that very name, in the workspace.
        (
            "report-path",
            (false, "output report-path = [WORKSPACE]/\"; touch pwned; #"),
        ),
    ])
}

#[test]
fn no_input_is_ever_evaluated_by_a_shell() {
    if require_tool("jq").is_none() {
        return;
    }
    let action = crate::runner::action();
    let declared: Vec<String> = action["inputs"]
        .as_object()
        .expect("inputs")
        .keys()
        .cloned()
        .collect();
    let expected = expectations();
    let listed: Vec<String> = expected.keys().map(|k| (*k).to_owned()).collect();
    assert_eq!(
        declared.len(),
        listed.len(),
        "inputs {declared:?}, expectations {listed:?}"
    );

    let mut job = Job::new();
    job.seed_cache(&[]);
    job.fake_cargo("exit 97");
    for input in &declared {
        let (fails, shown) = expected
            .get(input.as_str())
            .unwrap_or_else(|| panic!("no expectation for input `{input}`"));
        let mut with = vec![
            ("traces", "transcripts/clean.jsonl"),
            ("tools", "tools.json"),
        ];
        with.retain(|(k, _)| k != input);
        with.push((input.as_str(), PAYLOAD));
        let run = job.runner.run(&with);
        let text = job.render(&run);
        assert_eq!(run.failed, *fails, "input `{input}`:\n{text}");
        assert!(
            text.contains(shown),
            "input `{input}`: no `{shown}` in\n{text}"
        );
        let pwned = find_named(job.root.path(), "pwned");
        assert!(
            pwned.is_empty(),
            "input `{input}` created {pwned:?}\n{text}"
        );
        // The runner runs steps in the workspace; a shell would have touched `pwned` there.
        assert!(!job.runner.workspace.join("pwned").exists());
        if input == "report-path" {
            let literal = job.runner.workspace.join(PAYLOAD);
            assert!(
                literal.is_file(),
                "`report-path` was used as a literal file name"
            );
            // Later inputs would read it (as a tools file, say): remove it.
            std::fs::remove_file(literal).expect("remove the report");
        }
    }
}
