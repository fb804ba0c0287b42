//! The `otel` format (alias `openinference`): OpenTelemetry spans in every container that shows
//! up — OTLP JSON `resourceSpans` documents and JSON Lines batches, Phoenix span exports and
//! dataframe records, JS `ReadableSpan` dumps, console-exporter output, TRAIL, a bare attribute
//! map — in the OpenInference, GenAI and Vercel dialects. Spans are grouped by trace id into one
//! trace each, in order of first appearance.
//!
//! Reading is two passes over records located by `scan`: the first keeps, per trace id, only
//! where its span records are; the second reads one trace's records at a time. A file read from
//! disk is never held whole, so memory follows the largest trace, not the file.
//!
//! Submodules: `scan` (record positions), `spans` (record → `Span`), `attrs` (attribute
//! encodings), `openinference` / `genai` (dialects), `read` (what a span is), `build` (spans →
//! `Trace`, and the cross-file merge).

pub mod attrs;
pub mod build;
pub mod genai;
pub mod openinference;
pub mod read;
pub mod scan;
pub mod spans;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde_json::Value;

use crate::finding::InputIssue;
use crate::model::{InputRef, Trace};

use crate::adapters::common::json_pos::Line;
use crate::adapters::{Emit, Limits};
use scan::{Found, Layout, RecordRef};

pub use build::{TRACE_ID, merge};

/// Does this record look like OTel spans?
pub fn sniff(record: &Value) -> u8 {
    let Some(o) = record.as_object() else {
        return 0;
    };
    if o.contains_key("resourceSpans") || o.contains_key("resource_spans") {
        return 10;
    }
    if let Some(Value::Array(spans)) = o.get("spans").or_else(|| o.get("data")) {
        return spans.first().map_or(0, |s| sniff(s).min(9));
    }
    let has = |k: &str| o.contains_key(k);
    let ctx_trace = o.get("context").and_then(|c| c.get("trace_id")).is_some();
    if o.get("spanContext")
        .and_then(|c| c.get("traceId"))
        .is_some()
        || (ctx_trace && (has("span_kind") || has("kind") || has("attributes")))
        || (has("span_attributes") && (has("span_id") || has("trace_id")))
    {
        return 10;
    }
    if ctx_trace
        || has("context.trace_id")
        || ((has("traceId") || has("trace_id")) && (has("spanId") || has("span_id")))
    {
        return 8;
    }
    // A bare attribute map of a span.
    let dialect = o.keys().any(|k| {
        k == "openinference.span.kind"
            || k.starts_with("gen_ai.")
            || k.starts_with("llm.")
            || k.starts_with("ai.operationId")
    });
    if dialect { 6 } else { 0 }
}

/// Whether the first bytes of a file are an OTLP JSON export (`{"resourceSpans": …` as the
/// first key), the shape big span files come in: such files are streamed even without
/// `--input-format otel`.
pub fn is_otlp_prefix(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut rest = head.trim_ascii_start();
    let Some(r) = rest.strip_prefix(b"{") else {
        return false;
    };
    rest = r.trim_ascii_start();
    rest.starts_with(b"\"resourceSpans\"") || rest.starts_with(b"\"resource_spans\"")
}

/// Where each trace's records are (first pass).
#[derive(Default)]
struct Index {
    groups: Vec<(String, Vec<RecordRef>)>,
    by_key: HashMap<String, usize>,
    records: usize,
    troubled: bool,
}

impl Index {
    fn add(&mut self, key: Option<String>, r: RecordRef) {
        let key = key.unwrap_or_default();
        self.records += 1;
        let slot = match self.by_key.get(&key) {
            Some(i) => *i,
            None => {
                self.by_key.insert(key.clone(), self.groups.len());
                self.groups.push((key, Vec::new()));
                self.groups.len() - 1
            }
        };
        self.groups[slot].1.push(r);
    }

    /// Handle what the scan found: index a record by its trace id, pass issues on.
    fn found(&mut self, f: Found<'_>, input: &InputRef, out: &mut dyn Emit) -> Option<usize> {
        match f {
            Found::Record(r, bytes) => match spans::trace_key(bytes) {
                Ok(key) => {
                    self.add(key, r);
                    Some(bytes.len())
                }
                Err(_) => {
                    self.troubled = true;
                    let bad = match spans::read_record(bytes, &r.at) {
                        Err(b) => b,
                        Ok(_) => spans::BadRecord {
                            line: r.at.line,
                            column: r.at.column,
                            message: "invalid span".into(),
                        },
                    };
                    out.issue(InputIssue::at(
                        &input.path,
                        bad.line,
                        bad.column,
                        bad.message,
                    ));
                    None
                }
            },
            Found::Issue(i) => {
                self.troubled = true;
                out.issue(i);
                None
            }
        }
    }
}

/// Parse a whole document held in memory.
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let mut index = Index::default();
    scan::scan(
        text.as_bytes(),
        &input.path,
        Layout::Document,
        Limits::default().max_record,
        1,
        &mut |f| {
            index.found(f, input, out);
        },
    );
    let bytes = text.as_bytes();
    emit(
        index,
        &mut |r, buf| {
            let start = usize::try_from(r.offset).unwrap_or(usize::MAX);
            buf.clear();
            buf.extend_from_slice(bytes.get(start..start + r.len).unwrap_or_default());
            Ok(())
        },
        input,
        out,
    );
}

/// Parse JSON Lines held as lines (one span, or one batch of spans, per line).
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    let mut index = Index::default();
    let mut store: Vec<Vec<u8>> = Vec::new();
    for line in lines {
        match line {
            Err(issue) => {
                index.troubled = true;
                out.issue(issue);
            }
            Ok(line) => scan::scan(
                line.text.as_bytes(),
                &input.path,
                Layout::Document,
                Limits::default().max_record,
                line.number,
                &mut |f| match f {
                    Found::Record(mut r, bytes) => {
                        // Records of a line live in the store; the offset is their slot.
                        r.offset = store.len() as u64;
                        if index.found(Found::Record(r, bytes), input, out).is_some() {
                            store.push(bytes.to_vec());
                        }
                    }
                    issue @ Found::Issue(_) => {
                        index.found(issue, input, out);
                    }
                },
            ),
        }
    }
    emit(
        index,
        &mut |r, buf| {
            buf.clear();
            let slot = usize::try_from(r.offset).unwrap_or(usize::MAX);
            buf.extend_from_slice(store.get(slot).map(Vec::as_slice).unwrap_or_default());
            Ok(())
        },
        input,
        out,
    );
}

/// Parse a file without holding it: the first pass streams it and indexes record positions per
/// trace id, the second reads one trace's records at a time.
pub fn parse_seekable<R: Read + Seek>(
    mut file: R,
    input: &InputRef,
    limits: Limits,
    out: &mut dyn Emit,
) {
    let fail = |e: std::io::Error, out: &mut dyn Emit| {
        out.issue(InputIssue::file(&input.path, format!("cannot read: {e}")));
    };
    let layout = match first_line_is_a_record(&mut file, limits.max_record) {
        Ok(Some(l)) => l,
        Ok(None) => {
            return out.issue(InputIssue::file(&input.path, crate::adapters::EMPTY_FILE));
        }
        Err(e) => return fail(e, out),
    };
    if let Err(e) = file.seek(SeekFrom::Start(0)) {
        return fail(e, out);
    }
    let mut index = Index::default();
    scan::scan(
        BufReader::with_capacity(256 << 10, &mut file),
        &input.path,
        layout,
        limits.max_record,
        1,
        &mut |f| {
            index.found(f, input, out);
        },
    );
    emit(
        index,
        &mut |r, buf| {
            buf.clear();
            buf.resize(r.len, 0);
            file.seek(SeekFrom::Start(r.offset))?;
            file.read_exact(buf)
        },
        input,
        out,
    );
}

/// Whether a file's first record looks like OTel spans (an OTLP JSON document, or a first line
/// that is a span or a batch of spans): cheap, for deciding whether `trace_keys` is worth a
/// pass. `false` when unsure.
pub fn looks_like_spans<R: Read>(file: R) -> bool {
    let mut first = Vec::new();
    if BufReader::new(file.take(1 << 20))
        .read_until(b'\n', &mut first)
        .is_err()
    {
        return false;
    }
    if is_otlp_prefix(&first) {
        return true;
    }
    let text = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&first);
    serde_json::from_slice::<Value>(text).is_ok_and(|v| sniff(&v) >= 8)
}

/// The trace ids of a span file, as the trace keys `parse_seekable` groups by (the first pass
/// alone: record positions are not kept). `None` when the file is not read cleanly, holds no
/// span, or holds a span without a trace id: then nothing can be said about which traces it
/// continues.
pub fn trace_keys<R: Read + Seek>(mut file: R, limits: Limits) -> Option<Vec<String>> {
    let layout = first_line_is_a_record(&mut file, limits.max_record).ok()??;
    file.seek(SeekFrom::Start(0)).ok()?;
    let mut keys: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut clean = true;
    scan::scan(
        BufReader::with_capacity(256 << 10, &mut file),
        "",
        layout,
        limits.max_record,
        1,
        &mut |f| match f {
            Found::Record(_, bytes) => match spans::trace_key(bytes) {
                Ok(Some(k)) if !k.is_empty() => {
                    keys.insert(k);
                }
                _ => clean = false,
            },
            Found::Issue(_) => clean = false,
        },
    );
    (clean && !keys.is_empty()).then(|| keys.into_iter().collect())
}

/// `Lines` when the first line holds one complete JSON object (as `parse_reader` decides), else
/// `Document`; `None` for an empty file.
fn first_line_is_a_record<R: Read>(file: &mut R, max: usize) -> std::io::Result<Option<Layout>> {
    let mut reader = BufReader::new(file);
    let mut first = Vec::new();
    let mut limited = (&mut reader).take(max as u64 + 1);
    limited.read_until(b'\n', &mut first)?;
    let mut rest_empty = true;
    if first.iter().all(u8::is_ascii_whitespace) {
        // Skip leading blank lines to find out whether there is anything at all.
        let mut more = Vec::new();
        while reader.read_until(b'\n', &mut more)? > 0 {
            if !more.iter().all(u8::is_ascii_whitespace) {
                rest_empty = false;
                break;
            }
            more.clear();
        }
        return Ok((!rest_empty).then_some(Layout::Document));
    }
    let text = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&first);
    let is_lines = first.len() <= max
        && text.trim_ascii_start().starts_with(b"{")
        && serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok();
    Ok(Some(if is_lines {
        Layout::Lines
    } else {
        Layout::Document
    }))
}

/// Second pass: read each trace's records, build it, emit it.
fn emit(
    index: Index,
    fetch: &mut dyn FnMut(&RecordRef, &mut Vec<u8>) -> std::io::Result<()>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    if index.records == 0 {
        if !index.troubled {
            out.issue(InputIssue::file(
                &input.path,
                "no spans found: expected OTLP JSON `resourceSpans`, a list of spans, or JSON Lines of either",
            ));
        }
        return;
    }
    let (mut emitted, mut spans_seen) = (0usize, 0usize);
    let traces = index.groups.len();
    let mut buf = Vec::new();
    for (key, records) in index.groups {
        let mut spans = Vec::with_capacity(records.len());
        for r in &records {
            if let Err(e) = fetch(r, &mut buf) {
                out.issue(InputIssue::file(&input.path, format!("cannot read: {e}")));
                return;
            }
            match spans::read_record(&buf, &r.at) {
                Ok(s) => spans.extend(s),
                Err(b) => out.issue(InputIssue::at(&input.path, b.line, b.column, b.message)),
            }
        }
        spans_seen += spans.len();
        let mut trace: Trace = build::build(&key, spans, input, &input.path);
        if trace.steps.is_empty() {
            continue;
        }
        trace.partial = index.troubled;
        emitted += 1;
        out.trace(trace);
    }
    // Records that were not spans were reported one by one already.
    if emitted == 0 && spans_seen > 0 {
        out.issue(InputIssue::file(
            &input.path,
            format!(
                "nothing to lint: no tool calls or messages in {spans_seen} span{} ({traces} trace{})",
                if spans_seen == 1 { "" } else { "s" },
                if traces == 1 { "" } else { "s" },
            ),
        ));
    }
}

#[cfg(test)]
mod tests;
