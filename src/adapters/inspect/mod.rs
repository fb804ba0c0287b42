//! The `inspect` format: Inspect AI eval logs. A `.json` log (`{version, status, eval, plan,
//! results, stats, samples[]}`) or a `.eval` log, a zip archive of `header.json` and one
//! `samples/<id>_epoch_<n>.json` member per sample and epoch, read member by member with size,
//! count and compression-ratio bounds (`zip.rs`). One trace per sample and epoch
//! (`sample.rs`). This file owns detection and the document reader.

mod sample;
pub mod zip;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex};

use crate::adapters::Emit;
use crate::adapters::common::cursor::{Cursor, child};
use crate::adapters::common::json_pos::{Line, each_record, json_issue};
use crate::adapters::common::raw;

pub use zip::{is_zip, parse_zip};

/// The input error for a log with no samples.
const NO_SAMPLES: &str = "the Inspect log holds no samples (a header-only log?): nothing to lint";

/// Does this record look like an Inspect log (or one sample of one)?
pub fn sniff(record: &Value) -> u8 {
    let Some(m) = record.as_object() else {
        return 0;
    };
    let has = |k: &str| m.contains_key(k);
    if m.get("eval").is_some_and(Value::is_object)
        && (has("samples") || has("plan") || has("results"))
        && has("version")
    {
        return 12;
    }
    // One sample, as `samples/<id>_epoch_<n>.json` holds it.
    if has("epoch")
        && has("input")
        && has("target")
        && m.get("messages").is_some_and(Value::is_array)
    {
        return 11;
    }
    0
}

/// Parse a `.json` log (or one sample's JSON).
pub fn parse_document(text: &str, input: &InputRef, out: &mut dyn Emit) {
    let raw: &RawValue = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return json_issue(&e, 1, &input.path, out),
    };
    let index = LineIndex::new(text);
    let cur = Cursor::document(text, &index);
    read_top(raw, &cur, input, out);
}

/// Parse JSON Lines of Inspect logs or samples, one a line.
pub fn parse_lines(
    lines: &mut dyn Iterator<Item = Result<Line, InputIssue>>,
    input: &InputRef,
    out: &mut dyn Emit,
) {
    each_record(lines, &input.path, out, |raw, line, out| {
        read_top(raw, &Cursor::record(&line.text, line.number), input, out);
    });
}

/// One log, or one sample by itself.
fn read_top(raw: &RawValue, cur: &Cursor<'_>, input: &InputRef, out: &mut dyn Emit) {
    let Some(top) = raw::object(raw) else {
        out.issue(InputIssue::file(
            &input.path,
            "an Inspect log must be a JSON object",
        ));
        return;
    };
    if !top.contains_key("eval") {
        // A sample has its `input` and `target`; another object with messages (a Cline or
        // OpenAI conversation) is no sample, and a reading of it would drop what it records.
        if !(top.contains_key("input") || top.contains_key("target") || top.contains_key("epoch")) {
            out.issue(InputIssue::file(
                &input.path,
                "not an Inspect log or sample: no `eval`, and no sample's `input`, `target` or `epoch`",
            ));
            return;
        }
        sample::read(raw, cur, "", None, input, out);
        return;
    }
    let samples = raw::list(&top, "samples");
    if samples.is_empty() {
        out.issue(InputIssue::file(&input.path, NO_SAMPLES));
        return;
    }
    for (i, s) in samples.iter().enumerate() {
        sample::read(s, cur, &child("/samples", i), None, input, out);
    }
}

#[cfg(test)]
mod tests;
