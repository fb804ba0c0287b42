//! R3 hallucinated_arg: a top-level scalar argument value not derivable from what the agent
//! observed before the call (user and system messages, tool output; never its own text or
//! earlier arguments). A `candidate`; a `hard_defect` when the field is `x-value-origin:
//! provided`. Skipped: booleans and nulls, enum/const fields, `generated` fields, and free-form
//! text (more than one whitespace-separated token) unless `provided`. The provenance index is
//! planned for the trace's values and grown once as the walk advances (`provenance`), never
//! rebuilt per call.

use serde_json::Value;

use crate::finding::{FindingType, RuleId, RuleMeta, Tier};
use crate::model::{Args, ContextKind, Role, StepKind, ToolSpec, ValueOrigin};

use super::{Rule, Sink, TraceCx};
use crate::analysis::normalize::normalize_text;
use crate::analysis::outcome::Outcome;
use crate::analysis::paths;
use crate::analysis::provenance::{Derivation, Provenance, SOURCE_CAP, WORD_CAP};

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
        if let Some(channel) = cx.trace.attribute(crate::model::ATTR_TOOLS_ONLY) {
            let mut calls = 0usize;
            for call in cx.trace.steps.iter().filter_map(|s| s.as_call()) {
                out.count_tool(Some(&call.name), false);
                calls += 1;
            }
            if calls > 0 {
                out.suppress_trace(format!(
                    "the record holds only the tool channel ({channel}): what the agent was told is not in it, so {calls} call(s) cannot be traced to it and are not judged"
                ));
            }
            return;
        }
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
        let home = cx
            .trace
            .context
            .iter()
            .find(|c| c.kind == ContextKind::HomeDirectory)
            .map(|c| normalize_text(&c.value));
        let mut seen = Provenance::planned_at(asked, home.clone());
        // What the agent was told about its environment is observed from the start.
        for c in &cx.trace.context {
            seen.add_text(&c.value);
        }
        let mut confirmations = Confirmations::default();
        // Calls made before anything the agent observed was recorded (no user, system or tool
        // text yet): what they were asked to do is not in the trace, so they are not judged.
        let mut observed_any = false;
        let mut unjudged = 0usize;
        for step in &cx.trace.steps {
            let call = match &step.kind {
                StepKind::Message(m) => {
                    if m.role != Role::Assistant {
                        seen.add_text(&m.content);
                        observed_any = true;
                    }
                    continue;
                }
                StepKind::ToolResult(r) => {
                    if r.content_recorded {
                        seen.add_result(r);
                        observed_any = true;
                    }
                    confirmations.result(cx, step.index, &mut seen);
                    continue;
                }
                StepKind::ToolCall(call) => call,
            };
            if !observed_any && matches!(call.args, Args::Known(Value::Object(_))) {
                out.count_tool(Some(&call.name), false);
                unjudged += 1;
                continue;
            }
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
                let mut derivation = if origin == Some(ValueOrigin::Created) {
                    seen.check_created(value)
                } else {
                    seen.check(value)
                };
                if derivation != Derivation::Derivable && confirmations.confirmed(cx, value) {
                    derivation = Derivation::Derivable;
                }
                match derivation {
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
                        let signal = signal(value, home.as_deref());
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
                        f.signal = Some(signal);
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
        if unjudged > 0 {
            out.suppress_trace(format!(
                "{unjudged} call(s) made before anything the agent observed was recorded (no user, system or tool text before them): their arguments are not judged"
            ));
        }
    }
}

/// A successful result confirms the values its call used: the tool accepted them (a file read
/// exists, an order fetched is real), so a later call reusing one is not reported again (the
/// first use was judged). An explicit success (`Outcome::Fine`) makes its call's values
/// observed at once; a result that cannot tell is kept, and asked only when a later value is
/// otherwise not derivable: it confirms when R2a would not suspect it (no error line, no error
/// status in its body, not empty). A failure never confirms.
#[derive(Default)]
struct Confirmations {
    /// A value's JSON text → the unknown-status results of calls that used it.
    pending: std::collections::HashMap<String, Vec<usize>>,
}

impl Confirmations {
    fn result(&mut self, cx: &TraceCx<'_>, result: usize, seen: &mut Provenance) {
        let outcome = cx.outcome(result);
        let fine = matches!(outcome, Some(Outcome::Fine(_)));
        if !fine && !matches!(outcome, Some(Outcome::Unknown { .. })) {
            return;
        }
        let Some(call) = cx
            .pairing
            .call_for(result)
            .and_then(|i| cx.trace.steps[i].as_call())
        else {
            return;
        };
        let Args::Known(Value::Object(args)) = &call.args else {
            return;
        };
        for (_, value, _) in judged(cx.spec(&call.name), args) {
            if fine {
                match value {
                    Value::String(s) => seen.add_text(s),
                    Value::Number(n) => seen.add_text(&n.to_string()),
                    _ => {}
                }
            } else {
                self.pending
                    .entry(value.to_string())
                    .or_default()
                    .push(result);
            }
        }
    }

    fn confirmed(&self, cx: &TraceCx<'_>, value: &Value) -> bool {
        let Some(results) = self.pending.get(&value.to_string()) else {
            return false;
        };
        results.iter().any(|&i| {
            let call = cx
                .pairing
                .call_for(i)
                .and_then(|c| cx.trace.steps[c].as_call());
            cx.trace.steps[i].as_result().is_some_and(|r| {
                r.content_recorded && !super::r2a_tool_error_event::suspected(r, call)
            })
        })
    }
}

/// Which check a value failed: as a path (it looks like one), as a number, or as text.
fn signal(value: &Value, home: Option<&str>) -> &'static str {
    match value {
        Value::Number(_) => "not_derivable_as_number",
        Value::String(s) => {
            let norm = normalize_text(s);
            if paths::path_form(&norm, home).is_some() {
                "not_derivable_as_path"
            } else if crate::analysis::normalize::canonical_number_str(s).is_some() {
                "not_derivable_as_number"
            } else {
                "not_derivable_as_text"
            }
        }
        _ => "not_derivable_as_text",
    }
}

/// The fields of a call's arguments R3 judges (`skipped` aside), with their declared origin.
/// A call that says it creates (`creates`) has its path fields of no declared origin read as
/// `created`.
fn judged<'a>(
    spec: Option<&'a ToolSpec>,
    args: &'a serde_json::Map<String, Value>,
) -> impl Iterator<Item = (&'a String, &'a Value, Option<ValueOrigin>)> {
    let creating = crate::analysis::effects::creates(args);
    args.iter().filter_map(move |(field, value)| {
        let origin = spec
            .and_then(|s| s.value_origins.get(field))
            .copied()
            .or_else(|| {
                (creating && value.as_str().is_some_and(|v| v.contains(['/', '\\'])))
                    .then_some(ValueOrigin::Created)
            });
        (!skipped(spec, field, value, origin)).then_some((field, value, origin))
    })
}

/// Values R3 does not judge: booleans and nulls (and containers: only top-level scalars are
/// checked), enum/const fields, `generated` fields, parameters, what a call does (`command`,
/// `action`, `mode`, `cmd`…), and free-form text, each unless `provided`.
fn skipped(
    spec: Option<&ToolSpec>,
    field: &str,
    value: &Value,
    origin: Option<ValueOrigin>,
) -> bool {
    if !matches!(value, Value::String(_) | Value::Number(_)) {
        return true;
    }
    if matches!(origin, Some(ValueOrigin::Generated | ValueOrigin::Choice)) {
        return true;
    }
    let prop = spec
        .and_then(|s| s.schema.as_ref())
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(field));
    if prop.is_some_and(|p| p.get("enum").is_some() || p.get("const").is_some()) {
        return true;
    }
    if origin != Some(ValueOrigin::Provided)
        && crate::analysis::parameters::is_parameter(field, prop, value)
    {
        return true;
    }
    // What to do, not what to do it to: a mode (`str_replace_editor`'s `command: view`) is a
    // choice the tool offers, a one-word shell command (`ls`, `./run.sh`) text the agent writes.
    if origin != Some(ValueOrigin::Provided)
        && (crate::analysis::effects::MODE_KEYS.contains(&field)
            || crate::analysis::effects::SHELL_KEYS.contains(&field))
    {
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
          {"type": "message", "role": "user", "content": "look it up"},
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

    use crate::model::ContextKind;
    use crate::rules::testing::{lint_in, outcomes};

    /// The R3 findings of a trace with a working directory: (tool, field, signal).
    fn r3_signals(trace: &str, tools: Option<&str>, cwd: &str) -> Vec<(String, String, String)> {
        let ctx = [(ContextKind::WorkingDirectory, cwd)];
        outcomes(trace, tools, Default::default(), &ctx)
            .iter()
            .flat_map(|o| o.findings.iter())
            .filter(|f| f.rule == crate::finding::RuleId::R3)
            .map(|f| {
                (
                    f.tool.clone().unwrap_or_default(),
                    f.field.clone().unwrap_or_default(),
                    f.signal.unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    fn call(id: u32, name: &str, args: &str) -> String {
        format!(r#"{{"type": "tool_call", "call_id": "{id}", "name": "{name}", "args": {args}}}"#)
    }

    fn result(id: u32, content: &str) -> String {
        format!(
            r#"{{"type": "tool_result", "call_id": "{id}", "content": {}, "status": "ok"}}"#,
            serde_json::Value::String(content.into())
        )
    }

    fn trace(steps: &[String]) -> String {
        format!(
            r#"{{"run_id": "r", "steps": [{{"type": "message", "role": "user", "content": "fix the failing test"}}, {}]}}"#,
            steps.join(", ")
        )
    }

    #[test]
    fn paths_are_derived_from_the_working_directory_and_listings() {
        let t = trace(&[
            call(1, "Grep", r#"{"pattern": "def load"}"#),
            result(
                1,
                "src/pkg/mod.py:12:def load(path):\ntests/test_conf.py:3:from pkg.mod import load",
            ),
            // The working directory + a relative path the search listed.
            call(2, "Read", r#"{"file_path": "/repo/src/pkg/mod.py"}"#),
            // A listed directory + a name: `src/pkg` was listed, `util.py` was not.
            call(3, "Read", r#"{"file_path": "/repo/src/pkg/util.py"}"#),
            call(4, "Bash", r#"{"command": "ls src/pkg"}"#),
            result(4, "__init__.py  mod.py  util.py"),
            call(5, "Read", r#"{"file_path": "/repo/src/pkg/util.py"}"#),
            // Normalised before it is judged: `./`, `..` and a trailing separator.
            call(6, "Grep", r#"{"path": "/repo/./src/../src/pkg/"}"#),
            // An observed directory and an observed name make a path (`tests` and `mod.py`
            // were both listed), but a name inside a longer one does not count: `conf.py` is
            // only part of `test_conf.py`.
            call(7, "Read", r#"{"file_path": "/repo/tests/mod.py"}"#),
            call(8, "Read", r#"{"file_path": "/repo/tests/conf.py"}"#),
        ]);
        assert_eq!(
            r3_signals(&t, None, "/repo"),
            [
                (
                    "Read".into(),
                    "file_path".into(),
                    "not_derivable_as_path".into()
                ),
                (
                    "Read".into(),
                    "file_path".into(),
                    "not_derivable_as_path".into()
                ),
            ]
        );
        let out = lint_in(
            &t,
            None,
            Default::default(),
            &[(ContextKind::WorkingDirectory, "/repo")],
        );
        let lines: Vec<&str> = r3(&out);
        assert!(lines[0].contains("/repo/src/pkg/util.py"), "{out}");
        assert!(lines[1].contains("/repo/tests/conf.py"), "{out}");
        // Without the working directory, the absolute paths have nothing to start from.
        assert_eq!(r3_signals(&t, None, "/elsewhere").len(), 6);
    }

    #[test]
    fn a_module_name_derives_its_source_file() {
        let t = trace(&[
            call(1, "Bash", r#"{"command": "ls -a"}"#),
            result(1, "README.md  src  tests"),
            call(2, "Read", r#"{"file_path": "/repo/tests/test_mod.py"}"#),
            result(2, "from pkg.mod import load\nimport pkg.helpers as h"),
            call(3, "Read", r#"{"file_path": "/repo/src/pkg/mod.py"}"#),
            call(
                4,
                "Read",
                r#"{"file_path": "/repo/src/pkg/helpers/__init__.py"}"#,
            ),
            // `pkg.other` was never imported.
            call(5, "Read", r#"{"file_path": "/repo/src/pkg/other.py"}"#),
        ]);
        let out = lint_in(
            &t,
            None,
            Default::default(),
            &[(ContextKind::WorkingDirectory, "/repo")],
        );
        // `tests/test_mod.py`: `tests` was listed, `test_mod.py` was not (a guess).
        assert_eq!(r3(&out).len(), 2, "{out}");
        assert!(
            out.contains("/repo/tests/test_mod.py") && out.contains("/repo/src/pkg/other.py"),
            "{out}"
        );
    }

    #[test]
    fn origins_numbers_and_created_paths() {
        let tools = r#"[{"name": "Write", "inputSchema": {"type": "object", "properties": {
                          "file_path": {"type": "string", "x-value-origin": "created"}}}},
                        {"name": "Task", "inputSchema": {"type": "object", "properties": {
                          "subagent_type": {"type": "string", "x-value-origin": "choice"}}}},
                        {"name": "cancel_order", "inputSchema": {"type": "object", "properties": {
                          "order_id": {"type": "integer"}, "timeout": {"type": "integer"},
                          "amount": {"type": "integer"}, "retries": {"type": "integer", "maximum": 5}}}}]"#;
        let t = trace(&[
            call(1, "Bash", r#"{"command": "ls -a"}"#),
            result(1, "src"),
            // A new file in an observed directory; a new file in a directory nobody saw.
            call(2, "Write", r#"{"file_path": "/repo/src/new_module.py"}"#),
            call(
                3,
                "Write",
                r#"{"file_path": "/repo/nowhere/new_module.py"}"#,
            ),
            // A choice the definition offers is never judged against observed text.
            call(4, "Task", r#"{"subagent_type": "Explore"}"#),
            // A timeout is a parameter; an order id and an amount are judged.
            call(
                5,
                "cancel_order",
                r#"{"order_id": 4512, "timeout": 30000, "amount": 250, "retries": 40}"#,
            ),
        ]);
        assert_eq!(
            r3_signals(&t, Some(tools), "/repo"),
            [
                (
                    "Write".into(),
                    "file_path".into(),
                    "not_derivable_as_path".into()
                ),
                (
                    "cancel_order".into(),
                    "amount".into(),
                    "not_derivable_as_number".into()
                ),
                (
                    "cancel_order".into(),
                    "order_id".into(),
                    "not_derivable_as_number".into()
                ),
            ]
        );
    }

    #[test]
    fn what_a_call_does_is_not_judged_what_it_acts_on_is() {
        // SWE-agent's editor mode and a one-word shell command are the agent's to choose; the
        // path the mode acts on is judged; `provided` still makes a command judged.
        let tools = r#"[{"name": "run", "inputSchema": {"type": "object", "properties": {
                          "command": {"type": "string", "x-value-origin": "provided"}}}}]"#;
        let t = trace(&[
            call(
                1,
                "str_replace_editor",
                r#"{"command": "view", "path": "/repo/a.py"}"#,
            ),
            call(2, "bash", r#"{"command": "ls"}"#),
            call(3, "shell", r#"{"cmd": "pwd", "mode": "strict"}"#),
            call(4, "run", r#"{"command": "deploy"}"#),
        ]);
        assert_eq!(
            r3_signals(&t, Some(tools), "/elsewhere"),
            [
                (
                    "str_replace_editor".into(),
                    "path".into(),
                    "not_derivable_as_path".into()
                ),
                (
                    "run".into(),
                    "command".into(),
                    "not_derivable_as_text".into()
                ),
            ]
        );
    }

    #[test]
    fn a_call_that_says_it_creates_makes_its_path_new() {
        let t = trace(&[
            call(
                1,
                "str_replace_editor",
                r#"{"command": "view", "path": "/repo"}"#,
            ),
            result(1, "src/\nsetup.py"),
            // `create`: the file is new, its directory was listed.
            call(
                2,
                "str_replace_editor",
                r#"{"command": "create", "path": "/repo/src/reproduce.py", "file_text": "x"}"#,
            ),
            // `view` of a file nobody listed: judged whole.
            call(
                3,
                "str_replace_editor",
                r#"{"command": "view", "path": "/repo/src/guessed.py"}"#,
            ),
            // Created in a directory nobody saw.
            call(
                4,
                "str_replace_editor",
                r#"{"command": "create", "path": "/repo/nowhere/x.py", "file_text": "x"}"#,
            ),
        ]);
        let tools = r#"[{"name": "str_replace_editor", "inputSchema": {"type": "object", "properties": {
                          "command": {"enum": ["view", "create", "str_replace"]}, "path": {"type": "string"}}}}]"#;
        let paths: Vec<String> = r3(&lint_in(
            &t,
            Some(tools),
            Default::default(),
            &[(ContextKind::WorkingDirectory, "/repo")],
        ))
        .iter()
        .map(|l| l.split('`').nth(3).unwrap_or_default().to_owned())
        .collect();
        assert_eq!(
            paths,
            ["\"/repo/src/guessed.py\"", "\"/repo/nowhere/x.py\""]
        );
    }

    #[test]
    fn a_successful_call_confirms_the_values_it_used() {
        let unknown = |id: u32, content: &str| {
            format!(
                r#"{{"type": "tool_result", "call_id": "{id}", "content": {}}}"#,
                serde_json::Value::String(content.into())
            )
        };
        let error = |id: u32| {
            format!(
                r#"{{"type": "tool_result", "call_id": "{id}", "content": "no such file", "status": "error"}}"#
            )
        };
        let t = trace(&[
            // Guessed, then read successfully: judged once.
            call(1, "Read", r#"{"file_path": "/repo/guessed_a.py"}"#),
            result(1, "print(1)"),
            call(2, "Edit", r#"{"file_path": "/repo/guessed_a.py"}"#),
            // A result that does not say (no status) but reads as output confirms too.
            call(3, "Read", r#"{"file_path": "/repo/guessed_b.py"}"#),
            unknown(3, "     1\tprint(2)"),
            call(4, "Edit", r#"{"file_path": "/repo/guessed_b.py"}"#),
            // One that reads as an error does not; a failure never does.
            call(5, "Read", r#"{"file_path": "/repo/guessed_c.py"}"#),
            unknown(5, "Error: file not found"),
            call(6, "Edit", r#"{"file_path": "/repo/guessed_c.py"}"#),
            call(7, "Read", r#"{"file_path": "/repo/guessed_d.py"}"#),
            error(7),
            call(8, "Edit", r#"{"file_path": "/repo/guessed_d.py"}"#),
        ]);
        let got: Vec<String> = r3_signals(&t, None, "/")
            .into_iter()
            .map(|(tool, _, _)| tool)
            .collect();
        assert_eq!(got, ["Read", "Read", "Read", "Edit", "Read", "Edit"]);
    }

    #[test]
    fn calls_before_anything_observed_are_not_judged() {
        let t = r#"{"run_id": "r", "steps": [
          {"type": "tool_call", "call_id": "1", "name": "t", "args": {"id": "QQ-123"}},
          {"type": "tool_result", "call_id": "1", "content": "ok", "status": "ok"},
          {"type": "tool_call", "call_id": "2", "name": "t", "args": {"id": "ZZ-999"}}
        ]}"#;
        let out = lint(t, None, Default::default());
        assert_eq!(
            r3(&out),
            [
                "4:11: candidate R3 t: `id` = `\"ZZ-999\"` is not derivable from anything the agent observed before the call",
                "suppressed R3 -: 1 call(s) made before anything the agent observed was recorded (no user, system or tool text before them): their arguments are not judged"
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
