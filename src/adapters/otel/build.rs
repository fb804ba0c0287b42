//! The spans of one trace id → one `Trace`: ordered by start time then parent before child
//! (then file order), read by dialect, joined and seeded by `assemble`. Also the merge of one
//! run's traces read from several files (a rotating exporter, a glob over batches), which
//! `check` asks for when the same trace id turns up in more than one input.

use std::collections::{HashMap, HashSet};

use crate::adapters::common::assemble::{LlmUnit, ToolUnit, Unanswered, Unit, assemble};
use crate::adapters::common::chat::ToolDef;
use crate::adapters::common::clock;
use crate::model::{Args, CallOrigin, InputRef, Location, StepKind, StepMeta, ToolResult, Trace};

use super::attrs::text;
use super::read::{Reading, read};
use super::spans::Span;

/// The trace attribute that carries the OTel trace id (what `merge` groups by).
pub const TRACE_ID: &str = "otel.trace_id";

/// Deepest parent chain followed when ordering (cycles and absurd depths end here).
const MAX_DEPTH: usize = 256;

/// Build one trace from its spans (in file order). `key` is the trace id ("" when the spans
/// carry none).
pub fn build(key: &str, spans: Vec<Span>, input: &InputRef, default_id: &str) -> Trace {
    let run_id = if key.is_empty() { default_id } else { key };
    let mut trace = Trace::new(run_id, input.clone());
    let order = order(&spans);
    let mut units = Vec::with_capacity(spans.len());
    let mut tools: Vec<ToolDef> = Vec::new();
    let mut session = None;
    // Each span is freed once read: what it gives moves into the units, and a trace's spans
    // and its units are never all held at once.
    let mut spans: Vec<Option<Span>> = spans.into_iter().map(Some).collect();
    for &i in &order {
        let Some(span) = spans.get_mut(i).and_then(Option::take) else {
            continue;
        };
        let span = &span;
        session = session.or_else(|| {
            text(&span.attrs, "session.id")
                .or_else(|| text(&span.attrs, "gen_ai.conversation.id"))
                .map(str::to_owned)
        });
        let meta = meta(span);
        match read(span) {
            Reading::Llm(l) => {
                tools.extend(l.tools);
                units.push(Unit::Llm(LlmUnit {
                    at: span.at.clone(),
                    meta: StepMeta {
                        model: l.model,
                        ..meta
                    },
                    input: l.input,
                    output: l.output,
                }));
            }
            Reading::Tool(t) => {
                if let Some(schema) = &t.schema {
                    tools.push(ToolDef {
                        name: t.name.clone(),
                        schema: Some(schema.clone()),
                    });
                }
                let mut result = ToolResult::new(None, t.result.content, t.status);
                result.error = t.error;
                result.content_recorded = t.result.recorded;
                result.http_status = ["http.response.status_code", "http.status_code"]
                    .iter()
                    .find_map(|k| span.attrs.get(*k).and_then(serde_json::Value::as_u64))
                    .and_then(|c| u16::try_from(c).ok());
                if result.http_status.is_some_and(|c| c >= 400) {
                    result.status = crate::model::ResultStatus::Error;
                }
                units.push(Unit::Tool(ToolUnit {
                    at: span.at.clone(),
                    meta,
                    name: t.name,
                    call_id: t.call_id,
                    fallback_id: span
                        .span_id
                        .clone()
                        .unwrap_or_else(|| format!("{}:{}", span.at.line, span.at.column)),
                    args: t.args,
                    raw_args: t.raw_args,
                    result,
                }));
            }
            Reading::Other => {}
        }
    }
    let mut declared = HashSet::new();
    for t in tools {
        if declared.insert(t.name.clone()) {
            trace.embedded_tools.push(t.to_spec());
        }
    }
    assemble(units, &mut trace, Unanswered::Keep);
    if !key.is_empty() {
        trace.attributes.push((TRACE_ID.to_owned(), key.to_owned()));
    }
    if let Some(s) = session {
        trace.attributes.push(("session.id".to_owned(), s));
    }
    trace
}

fn meta(span: &Span) -> StepMeta {
    StepMeta {
        timestamp: span.start.map(clock::format_rfc3339),
        duration_ms: span.start.zip(span.end).map(|(s, e)| (e - s) as f64 / 1e6),
        parent_id: span.parent_id.clone(),
        source_id: span.span_id.clone(),
        ..StepMeta::default()
    }
}

/// Span indices by start time, then parent before child, then file order.
fn order(spans: &[Span]) -> Vec<usize> {
    let by_id: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((s.span_id.as_deref()?, i)))
        .collect();
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = spans[i].parent_id.as_deref().and_then(|p| by_id.get(p)) {
            if d >= MAX_DEPTH || *p == i {
                break;
            }
            d += 1;
            i = *p;
        }
        d
    };
    let mut idx: Vec<usize> = (0..spans.len()).collect();
    let keys: Vec<(i128, usize)> = idx
        .iter()
        .map(|&i| (spans[i].start.unwrap_or(i128::MAX), depth(i)))
        .collect();
    idx.sort_by_key(|&i| (keys[i], i));
    idx
}

/// Merge one run's traces read from several inputs into one, reported under the first. Steps
/// are ordered by time (a stable merge); a step read twice (a span exported twice) is kept
/// once; a model call and a tool record of it that ended up in different files become one
/// call. Steps from another file than the first keep their pointer, prefixed with that file,
/// and lose their line (a report line must not point into the wrong file).
pub fn merge(mut parts: Vec<Trace>) -> Option<Trace> {
    if parts.len() <= 1 {
        return parts.pop();
    }
    let mut base = parts.remove(0);
    let base_path = base.source.path.clone();
    let mut sources = vec![(base_path.clone(), std::mem::take(&mut base.steps))];
    for t in &mut parts {
        sources.push((t.source.path.clone(), std::mem::take(&mut t.steps)));
    }
    let mut keyed: Vec<(i128, usize, crate::model::Step)> = Vec::new();
    for (path, steps) in sources {
        // A step without a time stays with the step before it.
        let mut last = i128::MIN;
        for mut step in steps {
            if let Some(t) = step
                .meta
                .timestamp
                .as_deref()
                .and_then(clock::parse_rfc3339)
            {
                last = t;
            }
            if path != base_path {
                step.at = Location::new(0, 0, format!("{path}#{}", step.at.pointer));
            }
            let seq = keyed.len();
            keyed.push((last, seq, step));
        }
    }
    keyed.sort_by_key(|(t, s, _)| (*t, *s));
    let mut seen = HashSet::new();
    let mut steps = Vec::new();
    for (_, _, step) in keyed {
        let identity = step.meta.source_id.as_ref().map(|id| {
            (
                id.clone(),
                serde_json::to_string(&step.kind).unwrap_or_default(),
            )
        });
        if let Some(identity) = identity
            && !seen.insert(identity)
        {
            continue;
        }
        steps.push(step);
    }
    drop_duplicate_calls(&mut steps);
    for (i, mut step) in steps.into_iter().enumerate() {
        step.index = i;
        base.steps.push(step);
    }
    for part in parts {
        base.partial |= part.partial;
        for spec in part.embedded_tools {
            if !base.embedded_tools.iter().any(|t| t.name == spec.name) {
                base.embedded_tools.push(spec);
            }
        }
    }
    Some(base)
}

/// A model's call and a tool record of it, with the same id, are one call: keep the model's
/// unless its arguments were not recorded.
fn drop_duplicate_calls(steps: &mut Vec<crate::model::Step>) {
    let mut model: HashMap<String, usize> = HashMap::new();
    let mut record: HashMap<String, usize> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        if let StepKind::ToolCall(c) = &s.kind
            && let Some(id) = &c.call_id
        {
            let slot = match c.origin {
                CallOrigin::Model => &mut model,
                CallOrigin::ToolRecord => &mut record,
            };
            slot.entry(id.clone()).or_insert(i);
        }
    }
    let mut drop = HashSet::new();
    for (id, m) in &model {
        if let Some(r) = record.get(id) {
            let model_unknown = matches!(
                &steps[*m].kind,
                StepKind::ToolCall(c) if matches!(c.args, Args::Unknown(_))
            );
            drop.insert(if model_unknown { *m } else { *r });
        }
    }
    let mut i = 0;
    steps.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::otel::spans::read_record;
    use serde_json::json;

    fn spans(list: serde_json::Value) -> Vec<Span> {
        list.as_array()
            .unwrap()
            .iter()
            .enumerate()
            .flat_map(|(i, v)| {
                let loc = Location::new(u32::try_from(i).unwrap() + 1, 1, format!("/{i}"));
                read_record(v.to_string().as_bytes(), &loc).unwrap()
            })
            .collect()
    }

    fn input(path: &str) -> InputRef {
        InputRef {
            path: path.into(),
            format: "otel".into(),
        }
    }

    #[test]
    fn ties_in_start_time_put_the_parent_first() {
        let s = spans(json!([
            {"name": "kid", "context": {"trace_id": "t", "span_id": "b"}, "parent_id": "a", "start_time": "2025-01-01T00:00:00Z"},
            {"name": "root", "context": {"trace_id": "t", "span_id": "a"}, "start_time": "2025-01-01T00:00:00Z"},
            {"name": "early", "context": {"trace_id": "t", "span_id": "c"}, "parent_id": "a", "start_time": "2024-12-31T00:00:00Z"}
        ]));
        let names: Vec<_> = order(&s).iter().map(|&i| s[i].name.as_str()).collect();
        assert_eq!(names, ["early", "root", "kid"]);
    }

    #[test]
    fn a_run_split_across_files_merges_into_one_trace() {
        let llm = json!({"name": "llm", "span_kind": "LLM", "context": {"trace_id": "t", "span_id": "l"},
            "start_time": "2025-01-01T00:00:00Z",
            "attributes": {"llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "go",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "f",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{\"a\": 1}"}});
        let tool = json!({"name": "f", "span_kind": "TOOL", "context": {"trace_id": "t", "span_id": "x"},
            "start_time": "2025-01-01T00:00:01Z",
            "attributes": {"tool.name": "f", "tool.id": "c1", "input.value": "{\"a\": 1}", "output.value": "ok"}});
        let a = build("t", spans(json!([llm])), &input("a.json"), "a.json");
        let b = build(
            "t",
            spans(json!([tool.clone(), tool])),
            &input("b.json"),
            "b.json",
        );
        assert_eq!(
            a.call_count() + b.call_count(),
            3,
            "each file alone sees its own calls"
        );
        let m = merge(vec![a, b]).unwrap();
        let kinds: Vec<String> = m
            .steps
            .iter()
            .map(|s| match &s.kind {
                StepKind::Message(x) => format!("msg {}", x.content),
                StepKind::ToolCall(c) => {
                    format!("call {:?} {}:{}", c.origin, s.at.line, s.at.pointer)
                }
                StepKind::ToolResult(r) => format!(
                    "result {} {}",
                    r.call_id.as_deref().unwrap_or("-"),
                    s.at.pointer
                ),
            })
            .collect();
        assert_eq!(kinds, ["msg go", "call Model 1:/0", "result c1 b.json#/0"],);
        assert_eq!(m.source.path, "a.json");
        assert_eq!(
            m.steps.iter().map(|s| s.index).collect::<Vec<_>>(),
            [0, 1, 2]
        );
    }
}
