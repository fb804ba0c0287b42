//! Helpers for rule tests: build a trace from native JSON text and render findings the way
//! the text reporter's first line does.
use super::*;
use crate::model::ToolRegistry;

/// A deterministic xorshift generator for randomised tests.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// The findings of native trace text against a tools-file text (default settings).
pub(crate) fn findings(trace: &str, tools: &str) -> Vec<Finding> {
    let parsed = crate::adapters::native::parse_str(trace, "trace.json");
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    let registry = crate::sources::file::parse_tools_str(tools, "tools.json").expect("tools");
    let run = RunCx::default();
    let mut out = Vec::new();
    for trace in &parsed.traces {
        let cx = TraceCx::new(trace, &registry, &run);
        out.extend(super::run(&cx, &Selection::default()).findings);
    }
    out
}

/// Lint native trace text against a tools-file text with the given settings.
pub(crate) fn lint(trace: &str, tools: Option<&str>, settings: RuleSettings) -> String {
    lint_in(trace, tools, settings, &[])
}

/// The outcomes of linting native trace text whose traces were given `context` (what an
/// adapter records outside the steps, such as a working directory).
pub(crate) fn outcomes(
    trace: &str,
    tools: Option<&str>,
    settings: RuleSettings,
    context: &[(crate::model::ContextKind, &str)],
) -> Vec<TraceOutcome> {
    let mut parsed = crate::adapters::native::parse_str(trace, "trace.json");
    assert!(parsed.issues.is_empty(), "{:?}", parsed.issues);
    let registry = match tools {
        Some(t) => crate::sources::file::parse_tools_str(t, "tools.json").expect("tools"),
        None => ToolRegistry::new(),
    };
    let run = RunCx {
        settings,
        ..RunCx::default()
    };
    for t in &mut parsed.traces {
        for (kind, value) in context {
            t.add_context(*kind, *value);
        }
    }
    parsed
        .traces
        .iter()
        .map(|trace| super::run(&TraceCx::new(trace, &registry, &run), &Selection::default()))
        .collect()
}

/// `lint`, with `context` given to every trace (see `outcomes`).
pub(crate) fn lint_in(
    trace: &str,
    tools: Option<&str>,
    settings: RuleSettings,
    context: &[(crate::model::ContextKind, &str)],
) -> String {
    let mut out = String::new();
    for o in outcomes(trace, tools, settings, context) {
        for f in &o.findings {
            let at = f.at();
            out.push_str(&format!(
                "{}:{}: {} {} {}: {}\n",
                at.line,
                at.column,
                f.tier,
                f.rule,
                f.tool.as_deref().unwrap_or("-"),
                f.message
            ));
            if let Some(h) = &f.help {
                out.push_str(&format!("  help: {h}\n"));
            }
        }
        for s in &o.suppressions {
            out.push_str(&format!(
                "suppressed {} {}: {}\n",
                s.rule,
                s.at.as_ref()
                    .map_or("-".into(), |a| format!("{}:{}", a.line, a.column)),
                s.reason
            ));
        }
        for (id, unit, c) in &o.coverage {
            out.push_str(&format!("coverage {id} {}/{} {unit}\n", c.decided, c.total));
        }
    }
    out
}
