//! The shared sample `Report` every reporter's snapshot is taken over (ruff's
//! `create_diagnostics()` idea): one finding per tier, related evidence, an ignored finding, a
//! suppression, input errors (one at a line, one for a file that never opened), an unmatched
//! ignore, a file in a subfolder and one whose name needs percent-encoding, and hostile text
//! (markup, a terminal escape, a bidi override, workflow-command separators) in trace content.

use std::path::Path;

use crate::exit::ExitStatus;
use crate::finding::{
    Coverage, Evidence, Finding, FindingType, InputIssue, RuleId, RuleMeta, Suppression, Tier,
};
use crate::model::Location;

use super::paths::PathBase;
use super::{InputSummary, Report, RuleCoverage, Summary};

/// A rule doc with the fixed headings.
macro_rules! doc {
    ($what:literal) => {
        concat!(
            "## What it checks\n\n",
            $what,
            "\n\n## Why it matters\n\nIt breaks the run.\n\n## Tiers & suppressions\n\n- as listed\n\n",
            "## Example\n\n```json\n{\"name\": \"x\"}\n```\n\n## How to fix\n\nFix the agent.\n"
        )
    };
}

/// The sample's own rule metadata, so the snapshots do not change when the rule registry or the
/// rule docs do.
static METAS: [RuleMeta; 4] = [
    RuleMeta {
        id: RuleId::R1,
        kind: FindingType::SchemaViolation,
        summary: "a call's arguments fail the tool's JSON Schema",
        tiers: &[Tier::HardDefect],
        unit: "tool calls",
        explanation: doc!("Every call's arguments are validated against the tool's JSON Schema."),
    },
    RuleMeta {
        id: RuleId::R2a,
        kind: FindingType::ToolErrorEvent,
        summary: "a tool reported an error",
        tiers: &[Tier::HardEvent, Tier::Candidate],
        unit: "tool results",
        explanation: doc!("A tool result that failed,\nby a structured signal."),
    },
    RuleMeta {
        id: RuleId::R6,
        kind: FindingType::MalformedArguments,
        summary: "emitted tool-call arguments are not a JSON object",
        tiers: &[Tier::HardDefect, Tier::Candidate],
        unit: "tool calls",
        explanation: doc!("Emitted arguments that are not a JSON object."),
    },
    RuleMeta {
        id: RuleId::R7,
        kind: FindingType::UnknownTool,
        summary: "a call to a tool absent from the declared toolset",
        tiers: &[Tier::Candidate, Tier::HardDefect],
        unit: "tool calls",
        explanation: doc!("A call to a tool absent from a non-empty registry."),
    },
];

/// The hostile payload the HTML test also uses.
pub(crate) const PAYLOAD: &str =
    r#"<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>"#;

fn ev(step: usize, line: u32, column: u32, note: &'static str, excerpt: &str) -> Evidence {
    Evidence {
        step,
        at: Location::new(line, column, format!("/steps/{step}")),
        note: note.into(),
        excerpt: excerpt.to_owned(),
    }
}

fn meta(id: RuleId) -> &'static RuleMeta {
    METAS
        .iter()
        .find(|m| m.id == id)
        .expect("the sample declares every rule it uses")
}

/// The root the sample's paths are relative to.
pub(crate) fn base() -> PathBase {
    PathBase::new(Path::new("/repo"), Path::new("/repo"))
}

/// The sample report.
pub(crate) fn report() -> Report {
    let mut r1 = Finding::new(
        meta(RuleId::R1),
        Tier::HardDefect,
        "run-1",
        Some("cancel_order"),
        "/order_id: 4521 is not of type \"string\"",
        ev(
            1,
            1,
            31,
            "the call",
            r#"cancel_order {"order_id":4521,"reason":"not_shipped"}"#,
        ),
    );
    r1.field = Some("order_id".into());
    r1.details = vec![
        "/order_id: 4521 is not of type \"string\"".into(),
        "/reason: \"not_shipped\" is not one of [\"damaged\",\"late\"]".into(),
    ];
    r1.help =
        Some("fix the arguments the agent builds for `cancel_order`, or correct the schema".into());

    let mut r7 = Finding::new(
        meta(RuleId::R7),
        Tier::Candidate,
        "run-1",
        Some("ns:get,order"),
        "tool `ns:get,order` is not declared in the registry",
        ev(
            3,
            2,
            5,
            "the call",
            &format!("ns:get,order {{\"q\":\"{PAYLOAD} \u{1b}[31mred\u{202e}rtl | 100% done\"}}"),
        ),
    );
    r7.help = Some("did you mean `get_order`?".into());
    r7.possible_false_positive = true;

    let mut r2a = Finding::new(
        meta(RuleId::R2a),
        Tier::HardEvent,
        "run-1",
        Some("charge_card"),
        "`charge_card` failed: HTTP 502",
        ev(
            6,
            3,
            5,
            "failed result",
            "[error] upstream timed out\nretry later",
        ),
    );
    r2a.evidence
        .push(ev(5, 2, 40, "the call", r#"charge_card {"amount":1200}"#));

    let mut r6 = Finding::new(
        meta(RuleId::R6),
        Tier::HardDefect,
        "run-2",
        Some("send_email"),
        "arguments are not a JSON object: EOF while parsing a string",
        ev(
            2,
            4,
            31,
            "the arguments the model emitted",
            r#"send_email {"to": "a@b"#,
        ),
    );
    r6.ignored = Some("legacy traces replayed on purpose".into());

    let inputs = vec![
        InputSummary {
            path: "traces/sub/run.jsonl".into(),
            format: Some("native".into()),
            traces: 2,
            tool_calls: 7,
            partial: false,
            schemas: vec!["tools.json".into()],
            notes: Vec::new(),
        },
        InputSummary {
            path: "traces/odd name ü.json".into(),
            format: Some("native".into()),
            traces: 1,
            tool_calls: 1,
            partial: true,
            schemas: vec!["tools.json".into()],
            notes: vec!["read as JSON Lines".into()],
        },
    ];
    let findings = vec![r1, r7, r2a, r6];
    let suppressions = vec![Suppression {
        rule: RuleId::R1,
        input: 0,
        run_id: "run-2".into(),
        step: Some(4),
        at: Some(Location::new(5, 31, "/steps/4")),
        tool: Some("lookup".into()),
        reason: "the schema has a remote `$ref` (not fetched)".into(),
    }];
    let issues = vec![
        InputIssue::file("missing.json", "no such file or directory"),
        InputIssue::at(
            "traces/odd name ü.json",
            2,
            3,
            "invalid JSON: EOF while parsing a string",
        ),
    ];
    let coverage = vec![
        RuleCoverage {
            rule: RuleId::R1,
            unit: "tool calls",
            coverage: Coverage {
                decided: 6,
                total: 8,
            },
        },
        RuleCoverage {
            rule: RuleId::R7,
            unit: "tool calls",
            coverage: Coverage {
                decided: 8,
                total: 8,
            },
        },
    ];
    let rules: Vec<&'static RuleMeta> = METAS.iter().collect();
    Report {
        summary: Summary {
            inputs: 2,
            traces: 3,
            tool_calls: 8,
            hard_defect: 1,
            hard_event: 1,
            candidate: 1,
            ignored: 1,
            suppressions: 1,
            input_errors: 2,
            ..Summary::default()
        },
        inputs,
        findings,
        suppressions,
        issues,
        coverage,
        unmatched_ignores: vec!["tracelint.toml:12 (R5)".into()],
        rules,
        exit: ExitStatus::InputError,
        fail_on: Some(Tier::HardDefect),
        ..Report::default()
    }
}
