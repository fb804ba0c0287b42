//! Inspect's `.eval` logs: a zip archive (untrusted input like any other) read member by member
//! as streams. Bounded: the number of members, each member's size (the record limit), the total
//! read, and each member's compression ratio (a zip bomb inflates a small member into gigabytes);
//! sizes are checked as read, not only as the archive declares them. Each `samples/*.json`
//! member is one sample; `header.json` only confirms what the archive is.

use std::io::{Read, Seek};

use crate::finding::InputIssue;
use crate::model::{InputRef, LineIndex};

use crate::adapters::common::cursor::Cursor;
use crate::adapters::common::json_pos::{error_message, error_position};
use crate::adapters::{Emit, Limits};
use super::sample;

/// Most members an archive may list.
pub const MAX_MEMBERS: usize = 100_000;
/// Most bytes read from all members together.
pub const MAX_TOTAL: u64 = 8 << 30;
/// Largest ratio of a member's size to its compressed size (for members past `RATIO_FLOOR`).
pub const MAX_RATIO: u64 = 1_000;
/// Members up to this size are not held to `MAX_RATIO` (tiny members compress oddly).
const RATIO_FLOOR: u64 = 1 << 20;

/// Does a file start like a zip archive?
pub fn is_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04")
}

/// Read an `.eval` archive: one trace per `samples/*.json` member, in member-name order.
pub fn parse_zip<R: Read + Seek>(file: R, input: &InputRef, limits: Limits, out: &mut dyn Emit) {
    let path = &input.path;
    let mut archive = match ::zip::ZipArchive::new(file) {
        Ok(a) => a,
        Err(e) => {
            out.issue(InputIssue::file(
                path,
                format!("not a readable zip archive (an Inspect `.eval` log): {e}"),
            ));
            return;
        }
    };
    if archive.len() > MAX_MEMBERS {
        out.issue(InputIssue::file(
            path,
            format!(
                "the archive lists {} members, more than the limit of {MAX_MEMBERS}: not read",
                archive.len()
            ),
        ));
        return;
    }
    let mut samples: Vec<(String, usize)> = Vec::new();
    let mut is_inspect = false;
    for i in 0..archive.len() {
        let Ok(member) = archive.by_index_raw(i) else {
            continue;
        };
        let Ok(name) = member.name().map(|n| n.into_owned()) else {
            continue;
        };
        if name == "header.json" || name == "_journal/start.json" {
            is_inspect = true;
        }
        if name.starts_with("samples/") && name.ends_with(".json") {
            samples.push((name, i));
        }
    }
    if !is_inspect && samples.is_empty() {
        out.issue(InputIssue::file(
            path,
            "a zip archive that is not an Inspect AI `.eval` log (no `header.json`, no `samples/`): nothing to lint",
        ));
        return;
    }
    if samples.is_empty() {
        out.issue(InputIssue::file(path, super::NO_SAMPLES));
        return;
    }
    samples.sort();
    let mut total: u64 = 0;
    for (name, i) in samples {
        let text = match read_member(&mut archive, i, limits, &mut total) {
            Ok(t) => t,
            Err(why) => {
                out.issue(InputIssue::file(path, format!("member `{name}`: {why}")));
                if total > MAX_TOTAL {
                    return;
                }
                continue;
            }
        };
        let raw: &serde_json::value::RawValue = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(e) => {
                let (l, c) = error_position(&e, 1);
                out.issue(InputIssue::at(
                    path,
                    l,
                    c,
                    format!("invalid JSON in member `{name}`: {}", error_message(&e)),
                ));
                continue;
            }
        };
        let index = LineIndex::new(&text);
        let cur = Cursor::document(&text, &index);
        sample::read(raw, &cur, "", Some(&name), input, out);
    }
}

/// Read one member as text, within the bounds.
fn read_member<R: Read + Seek>(
    archive: &mut ::zip::ZipArchive<R>,
    i: usize,
    limits: Limits,
    total: &mut u64,
) -> Result<String, String> {
    let member = archive
        .by_index(i)
        .map_err(|e| format!("cannot read: {e}"))?;
    let max = limits.max_record as u64;
    let declared = member.size();
    let compressed = member.compressed_size().max(1);
    if declared > max {
        return Err(format!(
            "{declared} bytes uncompressed, more than the limit of {max}; raise it with `--max-record-size`"
        ));
    }
    let ratio_cap = |size: u64| size > RATIO_FLOOR && size / compressed > MAX_RATIO;
    if ratio_cap(declared) {
        return Err(format!(
            "compressed {}:1, past the limit of {MAX_RATIO}:1 (a zip bomb?): not read",
            declared / compressed
        ));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(declared.min(max)).unwrap_or(0));
    // Never trust the declared size: read at most one byte past every bound.
    let cap = max
        .min(MAX_TOTAL.saturating_sub(*total))
        .min(compressed.saturating_mul(MAX_RATIO).max(RATIO_FLOOR));
    let read = member
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    *total += read as u64;
    if read as u64 > cap {
        return Err(if *total > MAX_TOTAL {
            format!("the archive holds more than {MAX_TOTAL} bytes uncompressed: not read further")
        } else if read as u64 > max {
            format!(
                "more than the limit of {max} bytes uncompressed; raise it with `--max-record-size`"
            )
        } else {
            format!("inflates past {MAX_RATIO}:1 (a zip bomb?): not read")
        });
    }
    String::from_utf8(bytes).map_err(|_| "invalid UTF-8: the member is not text".to_owned())
}
