//! `--write-back`: each finding of a `phoenix:` input becomes a span annotation on the span of
//! the step it cites (`POST /v1/span_annotations?sync=true`).
//!
//! The annotation is named `tracelint`; its label is the finding's tier (`hard_defect`,
//! `hard_event`, `candidate`: what a Phoenix user filters on), its explanation the rule, type
//! and message, its metadata the finding's fields. Phoenix keeps one annotation per (name, span,
//! identifier) and updates it when the same triple is sent again, so the identifier is stable
//! across runs (`tracelint:RULE:N`, the N-th finding of that rule on that span in report order):
//! a rerun updates what it wrote instead of adding to it.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::client::Client;
use super::download::Download;
use super::{ANNOTATION_NAME, Options, PhoenixError, Target};
use crate::finding::{Finding, Tier};
use crate::reporters::Report;

/// Annotations sent per request.
const BATCH: usize = 100;

/// Bytes of a reply to a batch read.
const MAX_REPLY: u64 = 4 << 20;

/// Longest message or help text sent (Phoenix stores text; a huge one helps nobody).
const MAX_TEXT: usize = 2000;

/// What a write-back did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Annotations sent (created or updated).
    pub annotations: usize,
    /// Distinct spans they are on.
    pub spans: usize,
    /// Findings that cite no span the download holds (a trace without span ids).
    pub unplaced: usize,
}

/// The annotations for the findings of input `input` of `report` (read into `download`).
/// Candidates only with `include_candidates`; findings a `[[ignore]]` or the baseline accepted
/// are left out.
pub fn annotations(
    report: &Report,
    input: usize,
    download: &Download,
    include_candidates: bool,
) -> (Vec<Value>, usize) {
    let mut seen: HashMap<(String, &'static str), usize> = HashMap::new();
    let mut out = Vec::new();
    let mut unplaced = 0;
    for f in report
        .findings
        .iter()
        .filter(|f| f.input == input && f.ignored.is_none() && !f.baselined)
        .filter(|f| include_candidates || f.tier != Tier::Candidate)
    {
        let Some(span) = f.evidence.first().and_then(|e| download.span_at(e.at.line)) else {
            unplaced += 1;
            continue;
        };
        let n = seen
            .entry((span.to_owned(), f.rule.as_str()))
            .and_modify(|n| *n += 1)
            .or_insert(1);
        out.push(annotation(f, span, *n));
    }
    (out, unplaced)
}

fn clip(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// One finding as a Phoenix span annotation.
fn annotation(f: &Finding, span: &str, n: usize) -> Value {
    let rule = f.rule.as_str();
    let tool = f.tool.as_deref().map(|t| format!(" (`{}`)", clip(t))).unwrap_or_default();
    let mut metadata = json!({
        "rule": rule,
        "type": f.kind.as_str(),
        "tier": f.tier.as_str(),
        "message": clip(&f.message),
        "trace_id": clip(&f.run_id),
        "tracelint_version": env!("CARGO_PKG_VERSION"),
    });
    if let Some(tool) = &f.tool {
        metadata["tool"] = Value::String(clip(tool));
    }
    if let Some(help) = &f.help {
        metadata["help"] = Value::String(clip(help));
    }
    if let Some(signal) = f.signal {
        metadata["signal"] = Value::String(signal.to_owned());
    }
    json!({
        "span_id": span,
        "name": ANNOTATION_NAME,
        "annotator_kind": "CODE",
        "identifier": format!("{ANNOTATION_NAME}:{rule}:{n}"),
        "result": {
            "label": f.tier.as_str(),
            "explanation": format!("{rule} {}{tool}: {}", f.kind.as_str(), clip(&f.message)),
        },
        "metadata": metadata,
    })
}

/// Send the annotations for input `input`'s findings to the target.
pub fn write_back(
    target: &Target,
    opts: &Options,
    report: &Report,
    input: usize,
    download: &Download,
    include_candidates: bool,
) -> Result<Written, PhoenixError> {
    let (all, unplaced) = annotations(report, input, download, include_candidates);
    let client = Client::new(opts);
    let url = format!("{}?sync=true", target.endpoint("span_annotations"));
    for batch in all.chunks(BATCH) {
        let reply = client.post(target, &url, &json!({ "data": batch }), MAX_REPLY)?;
        let stored = reply
            .get("data")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if stored != batch.len() {
            return Err(PhoenixError(format!(
                "{}: Phoenix stored {stored} of {} annotations",
                target.shown,
                batch.len()
            )));
        }
    }
    let spans: std::collections::HashSet<&str> = all
        .iter()
        .filter_map(|a| a.get("span_id").and_then(Value::as_str))
        .collect();
    Ok(Written {
        annotations: all.len(),
        spans: spans.len(),
        unplaced,
    })
}
