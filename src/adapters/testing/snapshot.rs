//! A compact, reviewable rendering of a canonical trace for snapshot tests: one line per step
//! with its location, kind and the fields rules read (long text cut). Test-only.

use std::fmt::Write;

use crate::model::{Args, StepKind, Trace};

/// Longest excerpt of any text shown.
const CUT: usize = 160;

fn cut(s: &str) -> String {
    let one_line = s.replace('\n', "\\n");
    if one_line.chars().count() <= CUT {
        one_line
    } else {
        format!("{}…", one_line.chars().take(CUT).collect::<String>())
    }
}

/// Render traces (and the issues read with them) for a snapshot.
pub(crate) fn render(traces: &[Trace], issues: &[crate::finding::InputIssue]) -> String {
    let mut out = String::new();
    for t in traces {
        let _ = writeln!(
            out,
            "trace {} ({} steps, {} calls){}",
            t.run_id,
            t.steps.len(),
            t.call_count(),
            if t.partial { " partial" } else { "" }
        );
        for (k, v) in &t.attributes {
            let _ = writeln!(out, "  attribute {k} = {}", cut(v));
        }
        for spec in &t.embedded_tools {
            let schema = spec
                .schema
                .as_ref()
                .map_or_else(|| "no schema".to_owned(), |s| cut(&s.to_string()));
            let _ = writeln!(out, "  tool {}: {schema}", spec.name);
        }
        for s in &t.steps {
            let at = format!("{}:{} {}", s.at.line, s.at.column, s.at.pointer);
            let src = s
                .meta
                .source_id
                .as_deref()
                .map(|i| format!(" [{i}]"))
                .unwrap_or_default();
            let body = match &s.kind {
                StepKind::Message(m) => format!("message {:?}: {}", m.role, cut(&m.content)),
                StepKind::ToolCall(c) => {
                    let args = match &c.args {
                        Args::Known(v) => format!("known {}", cut(&v.to_string())),
                        Args::Malformed(r) => format!("malformed ({r})"),
                        Args::Unknown(r) => format!("unknown ({r})"),
                    };
                    format!(
                        "call {} id={} origin={:?} args={args}",
                        c.name,
                        c.call_id.as_deref().unwrap_or("-"),
                        c.origin
                    )
                }
                StepKind::ToolResult(r) => {
                    let content = if r.content_recorded {
                        cut(&crate::adapters::common::chat::value_text(&r.content))
                    } else {
                        "(not recorded)".to_owned()
                    };
                    let err = r
                        .error
                        .as_deref()
                        .map(|e| format!(" error={}", cut(e)))
                        .unwrap_or_default();
                    format!(
                        "result id={} status={:?}{err}: {content}",
                        r.call_id.as_deref().unwrap_or("-"),
                        r.status
                    )
                }
            };
            let _ = writeln!(out, "  {:>3} @{at}{src} {body}", s.index);
        }
    }
    for i in issues {
        let _ = writeln!(out, "issue {i}");
    }
    out
}
