//! R3 hallucinated_arg: a top-level scalar argument value not derivable from what the agent
//! observed before the call (user and system messages, tool output; never its own text or
//! earlier arguments). A `candidate`; a `hard_defect` when the field is `x-value-origin:
//! provided`. Skipped: booleans and nulls, enum/const fields, `generated` fields, and free-form
//! text (more than one whitespace-separated token) unless `provided`. The provenance index is
//! planned for the trace's values and grown once as the walk advances (`provenance`), never
//! rebuilt per call.

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, Role, StepKind, ToolSpec, ValueOrigin};

use super::provenance::{Derivation, Provenance, SOURCE_CAP, WORD_CAP};
use super::{Rule, Sink, TraceCx};

pub(crate) static META: RuleMeta = RuleMeta {
    id: RuleId::R3,
    kind: FindingType::HallucinatedArg,
    summary: "an argument value not derivable from anything the agent observed",
    tiers: &[Tier::Candidate, Tier::HardDefect],
    unit: "tool calls",
    explanation: include_str!("docs/R3.md"),
};

/// Longest value quoted in a message.
const QUOTE_CHARS: usize = 60;

pub(crate) struct HallucinatedArg;

impl Rule for HallucinatedArg {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &TraceCx<'_>, out: &mut Sink) {
        // Every value this walk will ask about, so the index searches for them only.
        let asked = cx
            .trace
            .steps
            .iter()
            .filter_map(|s| s.as_call())
            .flat_map(|call| match &call.args {
                Args::Known(Value::Object(m)) => Some(judged(cx.spec(&call.name), m)),
                _ => None,
            })
            .flatten()
            .map(|(_, value, _)| value);
        let mut seen = Provenance::planned(asked);
        for step in &cx.trace.steps {
            let call = match &step.kind {
                StepKind::Message(m) => {
                    if m.role != Role::Assistant {
                        seen.add_text(&m.content);
                    }
                    continue;
                }
                StepKind::ToolResult(r) => {
                    if r.content_recorded {
                        seen.add_result(r);
                    }
                    continue;
                }
                StepKind::ToolCall(call) => call,
            };
            let args = match &call.args {
                Args::Known(Value::Object(m)) => m,
                Args::Known(_) => {
                    out.count_tool(Some(&call.name), false);
                    out.suppress(
                        step,
                        Some(&call.name),
                        "the arguments are not an object: no named fields to check",
                    );
                    continue;
                }
                Args::Malformed(_) => {
                    // R6 reports it.
                    out.count_tool(Some(&call.name), false);
                    continue;
                }
                Args::Unknown(reason) => {
                    out.count_tool(Some(&call.name), false);
                    out.suppress(
                        step,
                        Some(&call.name),
                        format!("arguments not recorded ({reason})"),
                    );
                    continue;
                }
            };
            out.count_tool(Some(&call.name), true);
            for (field, value, origin) in judged(cx.spec(&call.name), args) {
                let provided = origin == Some(ValueOrigin::Provided);
                match seen.check(value) {
                    Derivation::Derivable => {}
                    Derivation::BeyondCap => out.suppress(
                        step,
                        Some(&call.name),
                        format!(
                            "`{field}` is not derivable from the observed text that was indexed, and could be in text past the index's limits ({} MiB per source; {WORD_CAP} words per trace for values of several words)",
                            SOURCE_CAP >> 20,
                        ),
                    ),
                    Derivation::NotDerivable => {
                        let tier = if provided {
                            Tier::HardDefect
                        } else {
                            Tier::Candidate
                        };
                        let f = out.finding(
                            tier,
                            step,
                            Some(&call.name),
                            format!(
                                "`{field}` = {} is not derivable from anything the agent observed before the call",
                                quote(value)
                            ),
                            "the call",
                        );
                        f.field = Some(field.clone());
                        f.possible_false_positive = !provided;
                        f.help = Some(if provided {
                            format!(
                                "`{field}` is declared `x-value-origin: provided`: ground it in something the agent saw (user text or a tool result)"
                            )
                        } else {
                            format!(
                                "ground `{field}` in something the agent saw, or declare its origin (`x-value-origin: provided` or `generated`) in the schema"
                            )
                        });
                    }
                }
            }
        }
    }
}

/// The fields of a call's arguments R3 judges (`skipped` aside), with their declared origin.
fn judged<'a>(
    spec: Option<&'a ToolSpec>,
    args: &'a serde_json::Map<String, Value>,
) -> impl Iterator<Item = (&'a String, &'a Value, Option<ValueOrigin>)> {
    args.iter().filter_map(move |(field, value)| {
        let origin = spec.and_then(|s| s.value_origins.get(field)).copied();
        (!skipped(spec, field, value, origin)).then_some((field, value, origin))
    })
}

/// Values R3 does not judge: booleans and nulls (and containers: only top-level scalars are
/// checked), enum/const fields, `generated` fields, and free-form text unless `provided`.
fn skipped(
    spec: Option<&ToolSpec>,
    field: &str,
    value: &Value,
    origin: Option<ValueOrigin>,
) -> bool {
    if !matches!(value, Value::String(_) | Value::Number(_)) {
        return true;
    }
    if origin == Some(ValueOrigin::Generated) {
        return true;
    }
    let prop = spec
        .and_then(|s| s.schema.as_ref())
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(field));
    if prop.is_some_and(|p| p.get("enum").is_some() || p.get("const").is_some()) {
        return true;
    }
    origin != Some(ValueOrigin::Provided)
        && value
            .as_str()
            .is_some_and(|s| s.split_whitespace().nth(1).is_some())
}

fn quote(v: &Value) -> String {
    let s = v.to_string();
    let mut q: String = s.chars().take(QUOTE_CHARS).collect();
    if s.chars().count() > QUOTE_CHARS {
        q.push('…');
    }
    format!("`{}`", q.replace('`', "'"))
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::lint;

    fn r3(out: &str) -> Vec<&str> {
        out.lines()
            .filter(|l| {
                !l.starts_with("coverage") && (l.contains(" R3 ") || l.starts_with("suppressed R3"))
            })
            .collect()
    }

    #[test]
    fn sources_are_user_system_and_tool_output_before_the_call() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "message", "role": "system", "content": "Tenant acme-eu-2."},
          {"type": "message", "role": "assistant", "content": "I will use order ZX-9911."},
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"id": "ZX-9911", "tenant": "ACME-EU-2"}},
          {"type": "tool_result", "call_id": "1", "content": "ok ZX-9911", "status": "ok"},
          {"type": "tool_call", "call_id": "2", "name": "t", "args": {"id": "ZX-9911"}},
          {"type": "message", "role": "tool", "content": "ticket TK-4410 opened"},
          {"type": "tool_call", "call_id": "3", "name": "t", "args": {"id": "TK-4410", "q": "two words"}}
        ]}"#;
        let out = lint(trace, None, Default::default());
        // Assistant text is never a source; the call's own result comes after it. The second
        // call can use what the first one's result showed, the third a tool message.
        assert_eq!(
            r3(&out),
            [
                "4:11: candidate R3 t: `id` = `\"ZX-9911\"` is not derivable from anything the agent observed before the call"
            ],
            "{out}"
        );
    }

    #[test]
    fn earlier_arguments_are_not_a_source() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"id": "QQ-123"}},
          {"type": "tool_call", "call_id": "2", "name": "t", "args": {"id": "QQ-123"}}
        ]}"#;
        assert_eq!(r3(&lint(trace, None, Default::default())).len(), 2);
    }

    #[test]
    fn a_value_only_past_the_index_limit_is_suppressed_not_reported() {
        let filler = "lorem ipsum ".repeat(100_000);
        let trace = format!(
            r#"{{"run_id": "r", "steps": [
          {{"type": "tool_result", "call_id": "0", "content": "{filler} token tk_far_away_77"}},
          {{"type": "tool_call", "call_id": "1", "name": "t", "args": {{"a": "tk_far_away_77", "b": "lorem", "c": "zz_made_up_value"}}}}
        ]}}"#
        );
        let out = lint(&trace, None, Default::default());
        assert_eq!(
            r3(&out),
            [
                // `zz_made_up_value` cannot be in the cut text (its 4-grams are not there).
                "3:11: candidate R3 t: `c` = `\"zz_made_up_value\"` is not derivable from anything the agent observed before the call",
                "suppressed R3 3:11: `a` is not derivable from the observed text that was indexed, and could be in text past the index's limits (1 MiB per source; 1048576 words per trace for values of several words)"
            ],
            "{out}"
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_are_disclosed() {
        let trace = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "args": ["a", 1]}
        ]}"#;
        let out = lint(trace, None, Default::default());
        assert!(
            out.contains("suppressed R3 2:11: arguments not recorded (recorded positionally"),
            "{out}"
        );
        assert!(out.contains("coverage R3 0/1"), "{out}");
    }
}
